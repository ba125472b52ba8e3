"""Rich tables for `gputui snapshot`: a snapshot drawn the way nvidia-smi lays it out."""
