"""`gputui idle`: the allocated-but-idle radar on the command line (docs/idle.md)."""
