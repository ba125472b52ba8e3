"""Jobs end to end: a persistent queue in SQLite, the one service the dashboard and the command line use, and
the runners that execute jobs (simulated on a recording's clock, or as local child processes).

This package imports nothing heavy at import time: the job wrapper (``python -m gputui.jobs.runners.wrapper``) starts
through it for every local job.
"""
