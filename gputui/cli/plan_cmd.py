"""`gputui plan [--source SRC | --synthetic SPEC] -- OPTIONS`: where a job would land, or why it would wait."""

from __future__ import annotations

import argparse
import sys

from gputui.cli.fields_opt import add_fields_option

SYNTHETIC_HELP = (
    "HOSTLIST:GPUS:MODEL[:mps|:mig=P+P...][:cpus=N][:mem=SIZE][:features=F+F...], e.g. 'node[01-04]:8:A100-40GB' "
    "(repeat for several groups; CPUs and memory default to what such a server has)"
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="explain where a job request would be placed")
    p.add_argument("--source", help="a recording, an nvidia-smi log, 'nvml' or 'demo' (default: as the dashboard)")
    p.add_argument("--at", metavar="TIME", help="for a recording or log: the moment to plan against (default: its end)")
    p.add_argument("-r", "--request", default="", help="Slurm options as one word: -r='--gpus=8 -t 1:00:00'")
    p.add_argument("--script", help="a batch script whose #SBATCH lines give the request (--request overrides)")
    p.add_argument("--synthetic", action="append", default=[], metavar="SPEC", help=SYNTHETIC_HELP)
    p.add_argument("--policy", default="fgd-auto",
                   help="fgd-auto (default: fgd-cpu inside the workloads it wins on, else FGD's measure), fgd-cpu, "
                        "best-fit, spread, fragmentation or slurm")  # fmt: skip
    p.add_argument("--dynamic-mig", action="store_true", help="create MIG instances in free slots (planning mode)")
    p.add_argument("--ignore-foreign", action="store_true", help="do not treat processes found on GPUs as busy")
    p.add_argument("--json", action="store_true", help="for a Slurm source: the answer as one JSON object")
    p.add_argument("options", nargs=argparse.REMAINDER, help="after --: Slurm options, as after srun/sbatch")
    add_fields_option(p)
    p.set_defaults(run=run)


MAX_SYNTHETIC_GPUS_PER_NODE = 64  # the largest machines hold 16; more is a typo
MAX_SYNTHETIC_GPUS = 16_384  # a synthetic cluster this size plans in about 3 s


def _synthetic(specs: list[str]):  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from gputui.core.errors import GputuiError
    from gputui.core.numbers import cut, shown, too_long
    from gputui.core.scheduler.build import GpuSpec, NodeSpec, nodes_from_pattern
    from gputui.core.scheduler.errors import RequestError
    from gputui.core.scheduler.parse.options import mem_mib

    nodes: list[NodeSpec] = []
    total = 0
    for spec in specs:
        parts = spec.split(":")
        if len(parts) < 3 or not parts[1].isascii() or not parts[1].isdigit():
            raise GputuiError(f"--synthetic: expected {SYNTHETIC_HELP}, got {shown(spec)}")
        if too_long(parts[1], 3) or not 1 <= int(parts[1]) <= MAX_SYNTHETIC_GPUS_PER_NODE:
            raise GputuiError(
                f"--synthetic: {cut(parts[1])} GPUs per node in {shown(spec)}: give 1 to {MAX_SYNTHETIC_GPUS_PER_NODE}"
            )
        mps, mig = False, None
        cpus: int | None = None
        mem: int | None = None
        features: tuple[str, ...] = ()
        for extra in parts[3:]:
            if extra == "mps":
                mps = True
            elif extra.startswith("mig="):
                mig = tuple(p for p in extra[4:].split("+") if p)
            elif extra == "mig":
                mig = ()
            elif extra.startswith("cpus=") and extra[5:].isascii() and extra[5:].isdigit():
                if too_long(extra[5:], 7) or int(extra[5:]) == 0:
                    raise GputuiError(f"--synthetic: cpus={cut(extra[5:])} in {shown(spec)}: give 1 to 9999999")
                cpus = int(extra[5:])
            elif extra.startswith("mem="):
                try:
                    mem = mem_mib(extra[4:], "--synthetic mem")
                except RequestError as e:
                    raise GputuiError(str(e)) from None
            elif extra.startswith("features="):
                features = tuple(f for f in extra[9:].split("+") if f)
            else:
                raise GputuiError(f"--synthetic: unknown flag {shown(extra)} in {shown(spec)}")
        group = nodes_from_pattern(parts[0], [GpuSpec(model=parts[2], mps=mps, mig=mig)] * int(parts[1]), cpus, mem)
        total += len(group) * int(parts[1])
        if total > MAX_SYNTHETIC_GPUS:
            raise GputuiError(f"--synthetic: more than {MAX_SYNTHETIC_GPUS} GPUs in all; plan a smaller cluster")
        nodes += [replace(n, features=features) for n in group] if features else group
    return nodes


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gputui.core.errors import GputuiError
    from gputui.core.scheduler import Scheduler, SchedulerConfig, parse_options, parse_script
    from gputui.core.scheduler.build import state_from_snapshot, state_from_specs
    from gputui.core.scheduler.explain import explain
    from gputui.core.scheduler.parse.hostlist import compress_hostlist
    from gputui.core.scheduler.parse.options import tokenize
    from gputui.core.scheduler.request import cpu_number, cpu_text, mib_text

    words = tokenize(args.request.lstrip("=")) + [w for w in args.options if w != "--"]
    if not args.synthetic and args.source and args.source.lower().split(":", 1)[0] == "slurm":
        return _slurm(args, words)
    if args.json:
        raise GputuiError("--json: only for --source slurm (the Slurm what-if)")
    config = SchedulerConfig(mig_dynamic=args.dynamic_mig, foreign_busy=not args.ignore_foreign, policy=args.policy)
    if args.synthetic:
        try:
            state = state_from_specs(_synthetic(args.synthetic), config)
        except ValueError as e:
            raise GputuiError(f"--synthetic: {e}") from None
        now = 0.0
    else:
        from gputui.cli.job_session import open_for_jobs
        from gputui.cli.source_factory import snapshot_at
        from gputui.core.timefmt import utc_text

        opened = open_for_jobs(args.source, args.fields)
        try:
            snap = snapshot_at(opened.source, args.at)
        finally:
            opened.source.close()
        state = state_from_snapshot(snap, config)
        now = snap.timestamp
        if opened.source.description and args.source is not None:  # say what the answer is about
            print(f"gputui: planned on the {opened.source.description} at {utc_text(now)}", file=sys.stderr)
    if args.script:
        try:
            text = Path(args.script).read_text(errors="replace")
        except OSError as e:
            raise GputuiError(f"{args.script}: cannot read the batch script: {e.strerror}") from None
        request = parse_script(text, words)
    else:
        request = parse_options(words)
    sched = Scheduler(state)
    job = sched.submit(request, now)
    decisions = sched.schedule(now)
    if not decisions:
        why = explain(sched, job.id, now)
        print(f"would wait ({why.reason}): {why.text}")
        return 1
    d = decisions[0]
    print(f"would start now on {compress_hostlist(d.allocation.node_names)} ({request.describe()})")
    for ng in d.allocation.nodes:
        node = state.by_name[ng.node]
        if node.cpus is not None:
            cpus = f"{cpu_number(ng.cpu_milli)} of {cpu_text(node.cpu_free + ng.cpu_milli, 'free ')}"
        else:
            cpus = cpu_text(ng.cpu_milli)
        mem = f"{mib_text(ng.mem_mib)} of {mib_text(node.mem_free + ng.mem_mib)} free memory" if ng.mem_mib else ""
        print(f"  {ng.node}: {cpus}" + (f", {mem}" if mem else "") + ("" if ng.gpus else ", no GPU"))
        for g in ng.gpus:
            what = "whole GPU"
            if g.mig is not None:
                where = "its slot is not in the log" if g.mig.placement_start is None else None
                what = f"MIG {g.mig.profile} GI {g.mig.gi_id}" + (
                    f" ({where})" if where else f" at slot {g.mig.placement_start}"
                )
                what += " (to be created)" if g.mig.created else ""
            elif g.mps_percent is not None:
                what = f"MPS {g.mps_percent} %"
            elif g.shards is not None:
                what = f"{g.shards} shard(s)"
            elif g.milli is not None:
                what = f"{g.milli / 10:.1f} % of the GPU"
            print(f"  {ng.node} GPU {g.index} {g.uuid or ''}  {what}")
        env = d.env_for(ng.node)
        for k in sorted(env):
            print(f"    {k}={env[k]}")
    for w in d.warnings:
        print(f"  warning: {w}")
    return 0


def _slurm(args: argparse.Namespace, words: list[str]) -> int:
    """The Slurm what-if: the same answer as ``gputui submit --test-only --source slurm`` (Slurm's running and
    pending jobs seen, the slurm placement policy), through the Slurm job back end."""
    from gputui.cli.job_session import open_session
    from gputui.cli.whatif_out import slurm_whatif

    session = open_session(args.source)
    try:
        return slurm_whatif(session.service, words, args.script, args.json)
    finally:
        session.close()
