"""`gputui mig capacity MODEL PROFILE`: how many instances of a MIG profile fit on one GPU, and why; `mig plan` and
`mig apply` live in plan_command.py."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mig", help="MIG profile arithmetic")
    msub = p.add_subparsers(dest="mig_command", metavar="ACTION", required=True)
    cap = msub.add_parser("capacity", help="instances of PROFILE that fit on one GPU of MODEL")
    cap.add_argument("model", help="GPU model: A100-40GB, an nvidia-smi product name, or a short form (a100-80)")
    cap.add_argument("profile", help="MIG profile, e.g. 2g.10gb")
    cap.set_defaults(run=run)
    from gputui.cli.mig.plan_command import add_parsers

    add_parsers(msub)


def render(model_text: str, profile_text: str) -> str:
    """The capacity report as text; raises GputuiError for an unknown model or profile."""
    from gputui.core.errors import GputuiError
    from gputui.core.mig_profiles import load_models
    from gputui.core.scheduler.mig import capacity, resolve_model

    model = resolve_model(model_text)
    if model is None:
        raise GputuiError(f"mig capacity: unknown GPU model {model_text!r} (known: {', '.join(load_models())})")
    profile = model.profile(profile_text)
    if profile is None:
        names = ", ".join(p.name for p in model.profiles)
        raise GputuiError(f"mig capacity: {model.key} has no profile {profile_text!r} (it has {names})")
    r = capacity(model, profile)
    lines = [f"{model.key} {profile.name}: {r.answer}", ""]
    if r.sm_bound is not None and r.sm_total is not None:
        x = r.sm_bound
        line = f"  SM bound:       {profile.sm_count} SM x {x} <= {r.sm_total}  -> {x}"
        lines.append(line)
        why = f"                  ({r.sm_total} SMs are usable in MIG mode"
        if r.full_gpu_sms:
            fx = r.full_gpu_sms // (profile.sm_count or 1)
            why += f"; the whole GPU has {r.full_gpu_sms}, and {profile.sm_count} x {fx} <= {r.full_gpu_sms}"
        lines.append(why + ")")
    else:
        lines.append("  SM bound:       unknown (no SM counts in the table for this model)")
    if r.memory_bound is not None:
        lines.append(
            f"  memory bound:   {r.memory_gb_profile} GB x {r.memory_bound} <= {r.memory_gb_gpu} GB"
            f"  -> {r.memory_bound}"
        )
    if r.resource_bound is not None:
        lines.append(f"  resource bound: {r.resource_bound}")
    starts = ", ".join(str(s) for s in r.placement_starts)
    lines.append(
        f"  placement table: {r.answer} (memory-slot starts {starts} of {model.memory_slices}; "
        f"{profile.memory_slices} slot(s) and {profile.compute_slices} of {model.compute_slices} compute slices each; "
        f"instance limit {profile.max_instances})"
    )
    lines.append("")
    if r.disagreements:
        lines.extend(f"  disagree: {d}" for d in r.disagreements)
    else:
        lines.append("  the bounds and the placement table agree")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    print(render(args.model, args.profile))
    return 0
