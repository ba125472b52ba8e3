"""How jobs run: the runner interface (base), simulated jobs on a replay's clock, local processes under the job
wrapper (``python -m gputui.jobs.runners.wrapper``)."""
