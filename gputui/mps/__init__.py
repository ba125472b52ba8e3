"""MPS (Multi-Process Service): start / stop / query control daemons, read their logs, derive their events.

Modules are imported directly (gputui.mps.control, .status, ...); this package imports nothing. Finding the
daemons among local processes is /proc reading and lives in gputui.procfs.mps_detect, below the sources.
"""
