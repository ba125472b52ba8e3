"""`gputui simulate`: the command, its outputs, and the sources and cluster of a replay."""
