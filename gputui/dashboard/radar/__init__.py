"""The idle radar as the dashboard and `gputui idle` run it: holdings gathered from the job queue, a recording's
events and the processes on each GPU, fed to the pure radar (gputui.core.idle) frame by frame, and its rows as
text and JSON data."""
