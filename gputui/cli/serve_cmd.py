"""`gputui serve [SOURCE]`: the dashboard in a browser, through textual-serve (the optional extra ``serve``).

textual-serve starts one dashboard process per browser tab, from a command line it hands to a shell; that line
is built here from an argv with shlex.join, so a source path with spaces or shell characters stays one argument
and nothing in it is run.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from gputui.cli.source_factory import SOURCE_HELP

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="the dashboard in a web browser (textual-serve); read-only unless --no-readonly",
        description="Serve the dashboard over HTTP: every browser tab that opens the URL gets its own dashboard "
        "on SOURCE. Listens on 127.0.0.1 unless --host names another address. Read-only by default (no submit, "
        "cancel or MPS actions), since whoever reaches the port acts as the user running gputui serve.",
    )
    p.add_argument("source", nargs="?", help=f"{SOURCE_HELP}; default: NVML, else the demo")
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument(
        "--readonly",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="hide every action that changes something (default); --no-readonly gives the whole dashboard",
    )
    p.add_argument("--public-url", metavar="URL", help="the URL browsers use, when it is not http://HOST:PORT")
    p.add_argument("--theme", metavar="NAME", help="colour theme, as for the dashboard")
    p.add_argument("--interval", type=float, metavar="S", help="seconds between polls of a live source")
    p.set_defaults(run=run)


def dashboard_argv(args: argparse.Namespace) -> list[str]:
    """The dashboard command each browser tab runs: this Python, the same source and options."""
    argv = [sys.executable, "-m", "gputui", "ui"]
    if args.source is not None:
        source = args.source
        if Path(source).exists():  # a file: an absolute path, whatever directory the server runs in
            source = str(Path(source).resolve())
        argv.append(source)
    if args.readonly:
        argv.append("--readonly")
    if args.theme:
        argv += ["--theme", args.theme]
    if args.interval is not None:
        argv += ["--interval", repr(args.interval)]
    return argv


def run(args: argparse.Namespace) -> int:
    from gputui.core.errors import GputuiError
    from gputui.export.server import is_loopback

    if not 0 < args.port < 65536:
        raise GputuiError(f"--port {args.port}: must be a number from 1 to 65535")
    if args.interval is not None and args.interval <= 0:
        raise GputuiError(f"--interval {args.interval:g}: must be more than 0 seconds")
    try:
        from textual_serve.server import Server
    except ImportError:
        raise GputuiError("gputui serve needs textual-serve: pip install 'gputui[serve]'") from None
    if args.source is not None:  # a wrong source is one line here, not an error page in every tab
        from gputui.cli.source_factory import open_source

        open_source(args.source).source.close()
    where = f"[{args.host}]" if ":" in args.host else args.host
    url = args.public_url or f"http://{where}:{args.port}"
    server = Server(shlex.join(dashboard_argv(args)), host=args.host, port=args.port, title="gputui",
                    public_url=url)  # fmt: skip
    if not is_loopback(args.host):
        print(
            f"gputui serve: listening on {where}:{args.port}, not only this machine: anyone who reaches it gets a "
            f"dashboard as {_user()}" + ("" if args.readonly else ", with every action (--no-readonly)"),
            file=sys.stderr,
        )
    print(f"gputui serve: open {url} in a browser (Ctrl-C stops)", flush=True)
    try:
        server.serve()
    except OSError as e:
        raise GputuiError(f"--host {args.host} --port {args.port}: {e.strerror or e}") from None
    return 0


def _user() -> str:
    from gputui.jobs.records import current_user

    return current_user().name
