"""Recording the session the dashboard shows: the controller behind the r key and --record FILE (controller.py)
and the recorder that writes the snapshots and events on its own thread (recorder.py)."""
