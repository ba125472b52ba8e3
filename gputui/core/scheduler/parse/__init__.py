"""Slurm request syntax to a :class:`JobRequest`: option words, ``#SBATCH`` scripts, GRES items, host lists, times."""
