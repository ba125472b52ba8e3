"""Slurm jobs as gputui shows them: records, events, one-line explanations, what-if outcomes, and the job list
kept between full reads."""
