"""The fenced fast path: the only code of gputui that touches Textual's (or Rich's) internals.

BENCHMARK BEFORE YOU EDIT. Every module here exists because a measurement asked for it: the row table that
repaints only changed cells, lines drawn straight to strips, segment caches, the quiet input driver, the
start-up theme shortcut. Measure before and after a change, on a quiet machine, with

    python -m gputui.bench ui_apply     (per-frame milliseconds: apply, layout, paint, encode)
    python -m gputui.bench ui_cpu       (per cent of one core while a busy cluster refreshes)

and keep the figures within noise. Each module falls back to Textual's public way where a release moved
the internals it builds on.
"""
