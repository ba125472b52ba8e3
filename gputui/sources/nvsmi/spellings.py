"""Where each model field is found in each nvidia-smi format, with the drivers each spelling was seen in.

One table per format: `-q -x` XML tags, `-q` text labels (normalised to tags by
:func:`~gputui.sources.nvsmi.tree.tag_for_label`, so 'GPU Power Readings' is 'gpu_power_readings') and
`--query-gpu` CSV field names. A field lists its spellings best first; the first that holds a value
wins, so an N/A in one spelling does not hide a value in another, and a key a driver renames is one
more line here. Keys no table names are never read, so new keys are harmless.

"Seen" names the fixture (fixtures/nvidia-smi/) or schema the spelling was found in. A spelling
marked "not yet seen" is a guess kept so that a file of that kind would most likely read; it is never
preferred over a seen one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gputui.sources.nvsmi.values import enabled, integer, number, text, version

Converter = Callable[[str | None], Any]
Spelling = tuple[str, str]  # (path below the GPU element or CSV field name, where it was seen)
Field = tuple[str, Converter, tuple[Spelling, ...]]

_V11 = "XML v11 (510.47.03, 515.105.01)"
_V12 = "XML v12 (535.54.03, 535.86.05, 536.40)"
_V13 = "XML v13 (590.44.01)"
_TEXT = "-q text 590.48.01, 595.80, 610.57.04, 610.62"

XML_GPU: tuple[Field, ...] = (
    ("uuid", text, (("uuid", f"{_V11}, {_V12}, {_V13}"),)),
    ("name", text, (("product_name", "all"),)),
    ("pci_bus_id", text, (("@id", "all"), ("pci/pci_bus_id", "all"))),
    ("memory_total_mib", integer, (("fb_memory_usage/total", "all"),)),
    ("memory_used_mib", integer, (("fb_memory_usage/used", "all"),)),
    ("utilization_gpu", integer, (("utilization/gpu_util", "all"),)),
    ("utilization_memory", integer, (("utilization/memory_util", "all"),)),
    ("temperature_c", integer, (("temperature/gpu_temp", "all"),)),
    # nvidia-smi's own "power.draw" is the average where the driver has both
    (
        "power_draw_w",
        number,
        (
            ("gpu_power_readings/power_draw", _V12),
            ("gpu_power_readings/average_power_draw", _V13),
            ("gpu_power_readings/instant_power_draw", _V13),
            ("power_readings/power_draw", _V11),
        ),
    ),
    (
        "power_limit_w",
        number,
        (
            ("gpu_power_readings/current_power_limit", f"{_V12}, {_V13}"),
            ("power_readings/enforced_power_limit", _V11),
            ("power_readings/power_limit", _V11),
            ("gpu_power_readings/gpu_ceiling_power_limit/current_power_limit", "not yet seen: the 610 text nesting"),
        ),
    ),
    ("fan_percent", integer, (("fan_speed", "all"),)),
    ("clock_graphics_mhz", integer, (("clocks/graphics_clock", "all"),)),
    ("clock_sm_mhz", integer, (("clocks/sm_clock", "all"),)),
    ("clock_memory_mhz", integer, (("clocks/mem_clock", "all"),)),
    ("performance_state", text, (("performance_state", "all"),)),
    ("compute_mode", text, (("compute_mode", "all"),)),
    ("persistence_mode", enabled, (("persistence_mode", "all"),)),
    ("mig_mode_current", enabled, (("mig_mode/current_mig", "all"),)),
    ("mig_mode_pending", enabled, (("mig_mode/pending_mig", "all"),)),
)

TEXT_GPU: tuple[Field, ...] = (
    ("uuid", text, (("gpu_uuid", _TEXT),)),
    ("name", text, (("product_name", _TEXT),)),
    ("pci_bus_id", text, (("@id", _TEXT), ("pci/bus_id", _TEXT))),
    ("memory_total_mib", integer, (("fb_memory_usage/total", _TEXT),)),
    ("memory_used_mib", integer, (("fb_memory_usage/used", _TEXT),)),
    ("utilization_gpu", integer, (("utilization/gpu", _TEXT),)),
    ("utilization_memory", integer, (("utilization/memory", _TEXT),)),
    ("temperature_c", integer, (("temperature/gpu_current_temp", _TEXT),)),
    (
        "power_draw_w",
        number,
        (
            ("gpu_power_readings/average_power_draw", _TEXT),
            ("gpu_power_readings/instantaneous_power_draw", _TEXT),
            ("gpu_power_readings/power_draw", "not yet seen: the XML v12 layout"),
            ("power_readings/power_draw", "not yet seen: the XML v11 layout"),
        ),
    ),
    (
        "power_limit_w",
        number,
        (
            ("gpu_power_readings/current_power_limit", "-q text 590.48.01, 595.80"),
            ("gpu_power_readings/gpu_ceiling_power_limit/current_power_limit", "-q text 610.57.04, 610.62"),
            ("power_readings/enforced_power_limit", "not yet seen: the XML v11 layout"),
            ("power_readings/power_limit", "not yet seen: the XML v11 layout"),
        ),
    ),
    ("fan_percent", integer, (("fan_speed", _TEXT),)),
    ("clock_graphics_mhz", integer, (("clocks/graphics", _TEXT),)),
    ("clock_sm_mhz", integer, (("clocks/sm", _TEXT),)),
    ("clock_memory_mhz", integer, (("clocks/memory", _TEXT),)),
    ("performance_state", text, (("performance_state", _TEXT),)),
    ("compute_mode", text, (("compute_mode", _TEXT),)),
    ("persistence_mode", enabled, (("persistence_mode", _TEXT),)),
    ("mig_mode_current", enabled, (("mig_mode/current", _TEXT),)),
    ("mig_mode_pending", enabled, (("mig_mode/pending", _TEXT),)),
)

# MigDevice field -> spellings below a <mig_device> element / `MIG Device` section
XML_MIG: tuple[Field, ...] = (
    ("index", integer, (("index", _V12),)),
    ("gi_id", integer, (("gpu_instance_id", _V12),)),
    ("ci_id", integer, (("compute_instance_id", _V12),)),
    ("sm_count", integer, (("device_attributes/shared/multiprocessor_count", _V12),)),
    ("memory_total_mib", integer, (("fb_memory_usage/total", _V12), ("shared_fb_memory_usage/total", "not yet seen"))),
    ("memory_used_mib", integer, (("fb_memory_usage/used", _V12), ("shared_fb_memory_usage/used", "not yet seen"))),
)
TEXT_MIG: tuple[Field, ...] = (
    ("index", integer, (("index", "-q text 590.48.01"),)),
    ("gi_id", integer, (("gpu_instance_id", "-q text 590.48.01"),)),
    ("ci_id", integer, (("compute_instance_id", "-q text 590.48.01"),)),
    ("sm_count", integer, (("device_attributes/shared/multiprocessor_count", "-q text 590.48.01"),)),
    (
        "memory_total_mib",
        integer,
        (("shared_fb_memory_usage/total", "-q text 590.48.01"), ("fb_memory_usage/total", "not yet seen")),
    ),
    (
        "memory_used_mib",
        integer,
        (("shared_fb_memory_usage/used", "-q text 590.48.01"), ("fb_memory_usage/used", "not yet seen")),
    ),
)

# NodeSnapshot field -> spellings below the document root; 610 deprecates the first two keys in favour of
# KMD Version / CUDA UMD Version and appends "[Deprecated; ...]" to them (version() strips it)
XML_NODE: tuple[Field, ...] = (
    ("driver_version", version, (("driver_version", "all"), ("kmd_version", "not yet seen: the 610 text key"))),
    ("cuda_version", version, (("cuda_version", "all"), ("cuda_umd_version", "not yet seen: the 610 text key"))),
)
TEXT_NODE: tuple[Field, ...] = (
    ("driver_version", version, (("kmd_version", "-q text 610.57.04, 610.62"), ("driver_version", _TEXT))),
    ("cuda_version", version, (("cuda_umd_version", "-q text 610.57.04, 610.62"), ("cuda_version", _TEXT))),
)

TREE_TABLES: dict[str, tuple[tuple[Field, ...], tuple[Field, ...], tuple[Field, ...]]] = {
    "xml": (XML_GPU, XML_MIG, XML_NODE),
    "text": (TEXT_GPU, TEXT_MIG, TEXT_NODE),
}

_CSV_ALL = "--query-gpu 510.47.03 (netdata), 590.48.01, 595.80, 610.57.04, 610.62"
# query field (and nvidia-smi's aliases) -> (model field, converter, where seen); where several columns feed
# one field, the earlier one in this table wins when both have a value
CSV_COLUMNS: dict[str, tuple[str, Converter, str]] = {
    "index": ("index", integer, _CSV_ALL),
    "uuid": ("uuid", text, _CSV_ALL),
    "gpu_uuid": ("uuid", text, "alias in --help-query-gpu"),
    "name": ("name", text, _CSV_ALL),
    "gpu_name": ("name", text, "alias in --help-query-gpu"),
    "pci.bus_id": ("pci_bus_id", text, _CSV_ALL),
    "gpu_bus_id": ("pci_bus_id", text, "alias in --help-query-gpu"),
    "memory.total": ("memory_total_mib", integer, _CSV_ALL),
    "memory.used": ("memory_used_mib", integer, _CSV_ALL),
    "utilization.gpu": ("utilization_gpu", integer, _CSV_ALL),
    "utilization.memory": ("utilization_memory", integer, _CSV_ALL),
    "temperature.gpu": ("temperature_c", integer, _CSV_ALL),
    "power.draw": ("power_draw_w", number, _CSV_ALL),
    "power.draw.average": ("power_draw_w", number, "--query-gpu 590.48.01, 595.80, 610.57.04, 610.62"),
    "power.draw.instant": ("power_draw_w", number, "--query-gpu 590.48.01, 595.80, 610.57.04, 610.62"),
    "enforced.power.limit": ("power_limit_w", number, _CSV_ALL),
    "power.limit": ("power_limit_w", number, _CSV_ALL),
    "fan.speed": ("fan_percent", integer, _CSV_ALL),
    "clocks.current.graphics": ("clock_graphics_mhz", integer, _CSV_ALL),
    "clocks.gr": ("clock_graphics_mhz", integer, "alias in --help-query-gpu"),
    "clocks.current.sm": ("clock_sm_mhz", integer, _CSV_ALL),
    "clocks.sm": ("clock_sm_mhz", integer, "alias in --help-query-gpu"),
    "clocks.current.memory": ("clock_memory_mhz", integer, _CSV_ALL),
    "clocks.mem": ("clock_memory_mhz", integer, "alias in --help-query-gpu"),
    "pstate": ("performance_state", text, _CSV_ALL),
    "compute_mode": ("compute_mode", text, _CSV_ALL),
    "persistence_mode": ("persistence_mode", enabled, _CSV_ALL),
    "mig.mode.current": ("mig_mode_current", enabled, _CSV_ALL),
    "mig.mode.pending": ("mig_mode_pending", enabled, _CSV_ALL),
}
# what tells GPUs apart, best first: the UUID, else the bus id, else the serial, else the index
CSV_KEY_COLUMNS = ("uuid", "gpu_uuid", "pci.bus_id", "gpu_bus_id", "serial", "gpu_serial", "index")
# node-level columns, best first per field (610 adds kmd_version beside the deprecated driver_version)
CSV_NODE_COLUMNS = ("timestamp", "hostname", "kmd_version", "driver_version")
CSV_KNOWN_FIELDS = (
    frozenset(CSV_COLUMNS) | frozenset(CSV_NODE_COLUMNS) | frozenset(CSV_KEY_COLUMNS) | {"count", "memory.free"}
)


def paths(table: tuple[Field, ...]) -> tuple[tuple[str, Converter, tuple[str, ...]], ...]:
    """The table without its notes: (field, converter, paths best first)."""
    return tuple((name, convert, tuple(p for p, _ in spellings)) for name, convert, spellings in table)
