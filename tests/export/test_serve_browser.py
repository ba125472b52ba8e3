"""`gputui serve demo` in a real headless Chromium (Debian's, installed by .ci/chromium-setup), driven through
Playwright with that browser (Playwright never downloads one): the page loads, the terminal shows the demo's GPU
names, a key press switches to the Jobs view. Reads what the page's terminal (xterm.js) holds, cell by cell.

Skipped where Chromium, Playwright or textual-serve are missing; with CI=true that fails instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from services import free_port, program, unavailable, wait_for

SETUP = ".ci/chromium-setup"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
# textual-serve keeps its xterm.js Terminal to itself; a setter on Object.prototype catches it as the page's
# script assigns `this.terminal = new Terminal(...)`, so the test can read the terminal's buffer.
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, 'terminal', {
  configurable: true,
  set(v) {
    window.__gputuiTerminal = v;
    Object.defineProperty(this, 'terminal', {value: v, writable: true, configurable: true, enumerable: true});
  },
});
"""
READ_SCREEN = """() => {
  const t = window.__gputuiTerminal;
  if (!t) return null;
  const b = t.buffer.active, rows = [];
  for (let i = 0; i < b.length; i++) { const l = b.getLine(i); rows.push(l ? l.translateToString(true) : ''); }
  return rows.join('\\n');
}"""
DEMO_MODELS = ("A100-SXM4-40GB", "H100 80GB HBM3", "A100-SXM4-80GB")  # the demo's GPUs, as the table names them


def _serve(tmp_path: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "GPUTUI_STATE_DIR": str(tmp_path / "state")}
    cmd = [sys.executable, "-m", "gputui", "serve", "demo", "--port", str(port)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def test_the_dashboard_in_headless_chromium(tmp_path: Path) -> None:
    chromium = program("chromium", SETUP)
    try:
        import textual_serve  # noqa: F401
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        unavailable(f"{e.name} is not installed (pip install '.[test]')")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = _serve(tmp_path, port)

    def up() -> bool | None:
        if server.poll() is not None:
            pytest.fail(f"gputui serve exited {server.returncode}: {server.stdout.read() if server.stdout else ''}")
        try:
            with urllib.request.urlopen(base + "/", timeout=2) as r:
                return True if r.status == 200 else None
        except (urllib.error.URLError, ConnectionError):
            return None

    try:
        wait_for("gputui serve to answer", up, timeout=60)
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(
                str(tmp_path / "chromium-profile"), executable_path=chromium, args=FLAGS, headless=True,
                viewport={"width": 1280, "height": 720},
            )  # fmt: skip
            try:
                page = context.pages[0] if context.pages else context.new_page()
                # nothing leaves this machine (the page asks for a web font): only the server is reached
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
                page.add_init_script(CATCH_TERMINAL)
                page.goto(base + "/", wait_until="domcontentloaded")

                def screen(*wanted: str) -> str | None:
                    text = page.evaluate(READ_SCREEN)
                    return text if text and all(w in text for w in wanted) else None

                # the whole first view: the GPU table and the top bar (the page may be read between two writes of
                # the terminal stream, the table's lines already there and the top bar's not yet: CI saw it once)
                wanted = (*DEMO_MODELS, "node04", "Overview", "10 GPUs on 4 nodes")
                wait_for("the overview and its top bar in the page", lambda: screen(*wanted), timeout=90)
                shot = os.environ.get("GPUTUI_SERVE_SCREENSHOT")
                if shot:  # how docs/serve.png is made
                    time.sleep(3)  # a few frames into the replay
                    page.screenshot(path=shot)
                page.focus("textarea.xterm-helper-textarea")
                page.keyboard.press("4")
                # the jobs table's columns: "Allocation" where it is 100 cells wide, squeue's "NodeList(Reason)" below
                jobs = wait_for("the Jobs view", lambda: screen("JobID", "State", "Started"), timeout=30)
                assert "node04    1" not in jobs  # the GPU table is gone
            finally:
                context.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
