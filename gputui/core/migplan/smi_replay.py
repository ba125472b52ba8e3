"""Replays ``nvidia-smi mig`` commands on a model of the GPUs and refuses, as the driver would, every step that the
placement table or the instances' state forbids.

Covered: ``-i N`` with ``-cgi ID[:START][,...]`` (``-C``: a default compute instance each), ``-gi ID[,..] [-ci
ID[,..]] -dci`` and ``-gi ID[,..] -dgi``. Refused: a profile the model lacks, a placement the table lacks or one
that overlaps, more compute slices or instances than allowed, destroying an instance that still has compute
instances or whose compute instances run processes ("In use by another client"), ids that do not exist, and a
``-cgi`` without a placement (the driver would choose; a plan must say where).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gputui.core.mig_profiles import GpuModel
from gputui.core.migplan.layouts import Slot, compute_of


class ReplayError(ValueError):
    """A command the driver would refuse; the message names the command and the reason."""


@dataclass
class ModelGpu:
    """One GPU as the replay sees it: its instances by GI id, their compute instances, and the busy ones."""

    model: GpuModel
    instances: dict[int, Slot] = field(default_factory=dict)
    cis: dict[int, set[int]] = field(default_factory=dict)
    busy: set[tuple[int, int]] = field(default_factory=set)  # (gi, ci) with processes on it

    def layout(self) -> tuple[Slot, ...]:
        return tuple(sorted(self.instances.values()))


def _ids(text: str, what: str, argv: list[str]) -> list[int]:
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ReplayError(f"{' '.join(argv)}: bad {what} list {text!r}") from None


def _opts(argv: list[str]) -> tuple[dict[str, str], set[str]]:
    if argv[:2] != ["nvidia-smi", "mig"]:
        raise ReplayError(f"{' '.join(argv)}: not an nvidia-smi mig command")
    values: dict[str, str] = {}
    flags: set[str] = set()
    rest = argv[2:]
    k = 0
    while k < len(rest):
        a = rest[k]
        if a in ("-i", "-gi", "-ci", "-cgi"):
            if k + 1 >= len(rest):
                raise ReplayError(f"{' '.join(argv)}: {a} needs a value")
            values[a] = rest[k + 1]
            k += 2
        elif a in ("-C", "-dci", "-dgi"):
            flags.add(a)
            k += 1
        else:
            raise ReplayError(f"{' '.join(argv)}: unknown option {a!r}")
    return values, flags


def replay(gpus: dict[int, ModelGpu], argv: list[str]) -> None:
    """Apply one command to ``gpus`` (GPU index -> state), or raise ReplayError and change nothing."""
    values, flags = _opts(argv)
    cmd = " ".join(argv)
    if "-i" not in values:
        raise ReplayError(f"{cmd}: no -i (the command would act on every GPU)")
    (index,) = _ids(values["-i"], "GPU", argv)[:1]
    gpu = gpus.get(index)
    if gpu is None:
        raise ReplayError(f"{cmd}: no GPU {index}")
    actions = [f for f in ("-cgi", "-dci", "-dgi") if f in values or f in flags]
    if len(actions) != 1:
        raise ReplayError(f"{cmd}: needs exactly one of -cgi, -dci, -dgi")
    if actions[0] == "-cgi":
        _create(gpu, values["-cgi"], "-C" in flags, cmd)
        return
    if "-gi" not in values:
        raise ReplayError(f"{cmd}: {actions[0]} needs -gi")
    gis = _ids(values["-gi"], "GPU instance", argv)
    for gi in gis:
        if gi not in gpu.instances:
            raise ReplayError(f"{cmd}: GPU instance {gi} not found on GPU {index}")
    if actions[0] == "-dci":
        cis = _ids(values["-ci"], "compute instance", argv) if "-ci" in values else None
        for gi in gis:
            for ci in cis if cis is not None else sorted(gpu.cis[gi]):
                if ci not in gpu.cis[gi]:
                    raise ReplayError(f"{cmd}: compute instance {ci} not found in GPU instance {gi}")
                if (gi, ci) in gpu.busy:
                    raise ReplayError(f"{cmd}: compute instance {ci} of GPU instance {gi}: In use by another client")
        for gi in gis:
            gpu.cis[gi] -= set(cis) if cis is not None else set(gpu.cis[gi])
        return
    if "-ci" in values:
        raise ReplayError(f"{cmd}: -dgi takes no -ci")
    for gi in gis:
        if gpu.cis[gi]:
            raise ReplayError(f"{cmd}: GPU instance {gi} still has compute instances: In use by another client")
    for gi in gis:
        del gpu.instances[gi]
        del gpu.cis[gi]


def _create(gpu: ModelGpu, spec: str, default_ci: bool, cmd: str) -> None:
    model = gpu.model
    trial = dict(gpu.instances)
    new: list[int] = []
    for part in spec.split(","):
        name, _, start_text = part.partition(":")
        profile = None
        if name.strip().isdigit():
            profile = model.profile_by_id(int(name))
        if profile is None:
            profile = model.profile(name)
        if profile is None:
            raise ReplayError(f"{cmd}: {model.key} has no GPU instance profile {name!r}")
        if not start_text:
            raise ReplayError(f"{cmd}: {profile.name} without a placement (the driver would choose one)")
        try:
            start = int(start_text)
        except ValueError:
            raise ReplayError(f"{cmd}: bad placement {start_text!r}") from None
        sizes = dict(profile.placements)
        if start not in sizes:
            raise ReplayError(f"{cmd}: {profile.name} cannot be placed at {start}: Insufficient Resources")
        s = Slot(start, sizes[start], profile.name)
        if any(s.mask & o.mask for o in trial.values()):
            raise ReplayError(f"{cmd}: {profile.name} at {start} overlaps an instance: Insufficient Resources")
        if sum(1 for o in trial.values() if o.profile == profile.name) >= profile.max_instances:
            raise ReplayError(f"{cmd}: more than {profile.max_instances} {profile.name}: Insufficient Resources")
        if compute_of(model, (*trial.values(), s)) > model.compute_slices:
            raise ReplayError(f"{cmd}: not enough compute slices for {profile.name}: Insufficient Resources")
        gi = 1
        while gi in trial:
            gi += 1
        trial[gi] = s
        new.append(gi)
    gpu.instances = trial
    for gi in new:
        gpu.cis[gi] = {0} if default_ci else set()
