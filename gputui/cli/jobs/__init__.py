"""The job commands: `gputui submit`, `cancel`, `queue` and `explain`."""
