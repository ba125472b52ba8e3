"""`gputui mps status|start|stop [--gpus 0,1] [--pipe-dir D] [--log-dir D]`: the MPS control daemon."""

from __future__ import annotations

import argparse
import sys

from gputui.procfs.mps_detect import DEFAULT_LOG_DIR, DEFAULT_PIPE_DIR


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mps", help="MPS control daemon: status, start, stop")
    msub = p.add_subparsers(dest="mps_command", metavar="ACTION", required=True)
    helps = {
        "status": "daemons, server PIDs, pipe and log directories, GPU compute modes (read only), log tails",
        "start": "start a control daemon: nvidia-cuda-mps-control -d",
        "stop": "stop the control daemon: echo quit | nvidia-cuda-mps-control",
    }
    for name, text in helps.items():
        a = msub.add_parser(name, help=text)
        a.add_argument("--pipe-dir", metavar="D", help=f"CUDA_MPS_PIPE_DIRECTORY (default {DEFAULT_PIPE_DIR})")
        a.add_argument("--log-dir", metavar="D", help=f"CUDA_MPS_LOG_DIRECTORY (default {DEFAULT_LOG_DIR})")
        if name == "start":
            a.add_argument("--gpus", metavar="LIST", help="CUDA_VISIBLE_DEVICES for the daemon: 0,1 or GPU UUIDs")
        if name == "status":
            a.add_argument("--lines", type=int, default=10, metavar="N", help="log lines to show (default 10)")
        a.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds to wait (default 10)")
        a.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gputui.mps import control

    explicit = args.pipe_dir is not None or args.log_dir is not None
    dirs = control.MpsDirs(args.pipe_dir or DEFAULT_PIPE_DIR, args.log_dir or DEFAULT_LOG_DIR)
    if args.mps_command == "status":
        from gputui.mps.status import collect_status, render_status

        print("\n".join(render_status(collect_status(dirs if explicit else None, tail_lines=args.lines))))
        return 0
    if args.mps_command == "start":
        gpus = control.parse_gpu_list(args.gpus) if args.gpus is not None else None
        result = control.start_daemon(dirs, gpus, timeout=args.timeout)
    else:
        result = control.stop_daemon(dirs, timeout=args.timeout)
    if not result.ok:
        print(f"gputui mps {args.mps_command}: {result.message}", file=sys.stderr)
        return 1
    print(result.message)
    return 0
