"""Benchmarks of the sources and files: NVML, nvidia-smi logs, Slurm and SSH polls, recordings, the exporter
and the one-shot command. Run each as `python -m gputui.bench NAME`."""
