"""Sources of cluster snapshots (live NVML, recordings, nvidia-smi logs) behind one interface."""
