"""Test doubles: a /proc tree writer, and fake nvidia-cuda-mps-control / -server executables."""
