"""The HTTP endpoint: ``GET /metrics`` answers the collector's latest text; nothing else is served."""

from __future__ import annotations

import ipaddress
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from gputui.core.errors import GputuiError
from gputui.export.collector import FrameCollector
from gputui.export.text_format import CONTENT_TYPE

DEFAULT_LISTEN = "127.0.0.1:9400"


class ListenError(GputuiError):
    """A --listen address that cannot be used."""


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[IPv6]:PORT`` or ``:PORT`` (loopback) into a host and a port."""
    host, sep, port_text = text.strip().rpartition(":")
    if not sep:
        raise ListenError(f"--listen {text}: expected HOST:PORT, e.g. {DEFAULT_LISTEN}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host or "127.0.0.1"
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ListenError(f"--listen {text}: the port must be a number from 1 to 65535")
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Handler(BaseHTTPRequestHandler):
    collector: FrameCollector  # set on the subclass the server makes

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        path = self.path.split("?", 1)[0]
        if path != "/metrics":
            self._reply(404, b"gputui export serves /metrics only\n", "text/plain; charset=utf-8")
            return
        body = self.collector.scrape()
        if body is None:
            self._reply(503, b"no snapshot yet\n", "text/plain; charset=utf-8")
            return
        self._reply(200, body, CONTENT_TYPE)

    def _reply(self, code: int, body: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # a scrape a second is no news


class _Server(ThreadingHTTPServer):
    daemon_threads = True


def start_server(host: str, port: int, collector: FrameCollector) -> ThreadingHTTPServer:
    """Bind ``host:port`` and serve in a daemon thread; the caller shuts it down."""
    handler = type("Handler", (_Handler,), {"collector": collector})
    server_cls: type[_Server] = _Server
    if ":" in host:
        server_cls = type("Server6", (_Server,), {"address_family": socket.AF_INET6})
    try:
        server = server_cls((host, port), handler)
    except OSError as e:
        raise ListenError(f"--listen {host}:{port}: {e.strerror or e}") from None
    threading.Thread(target=server.serve_forever, name="gputui-export-http", daemon=True).start()
    return server
