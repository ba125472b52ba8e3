"""gputui: a terminal cockpit for GPU machines and clusters."""

__version__ = "0.1.0"
