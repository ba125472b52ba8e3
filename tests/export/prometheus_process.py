"""A real Prometheus (Debian's package, installed by .ci/prometheus-setup) on a free loopback port, with its own
configuration and data directory, and its HTTP API."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from services import free_port, program, unavailable, wait_for

SETUP = ".ci/prometheus-setup"


class Prometheus:
    def __init__(self, url: str, proc: subprocess.Popen, log: Path) -> None:
        self.url = url
        self.proc = proc
        self.log = log

    def api(self, path: str, **params: str) -> dict:
        query = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}/api/v1/{path}?{query}", timeout=10) as r:
            body = json.load(r)
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr: str, at: float | None = None) -> list[dict]:
        params = {"query": expr}
        if at is not None:
            params["time"] = repr(at)
        return self.api("query", **params)["result"]


@contextmanager
def running_prometheus(work: Path, data: Path, scrape: str | None = None, *extra: str) -> Iterator[Prometheus]:
    """Start ``prometheus`` on 127.0.0.1 with data in ``data``; with ``scrape`` (HOST:PORT) it scrapes that every
    second. Fails (CI) or skips when it cannot start."""
    exe = program("prometheus", SETUP)
    work.mkdir(parents=True, exist_ok=True)
    config = work / "prometheus.yml"
    lines = ["global:", "  scrape_interval: 1s", "  evaluation_interval: 1s", "scrape_configs:"]
    if scrape:
        lines += ["  - job_name: gputui", "    scrape_interval: 1s", "    static_configs:",
                  f"      - targets: ['{scrape}']"]  # fmt: skip
    else:
        lines[-1] = "scrape_configs: []"
    config.write_text("\n".join(lines) + "\n")
    port = free_port()
    log = work / "prometheus.log"
    cmd = [exe, f"--config.file={config}", f"--storage.tsdb.path={data}", f"--web.listen-address=127.0.0.1:{port}",
           *extra]  # fmt: skip
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def ready() -> bool | None:
        if proc.poll() is not None:
            unavailable(f"prometheus exited {proc.returncode} at start: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as r:
                return True if r.status == 200 else None
        except (urllib.error.URLError, ConnectionError):
            return None

    try:
        wait_for("prometheus to be ready", ready, timeout=60)
        yield Prometheus(url, proc, log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
