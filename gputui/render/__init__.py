"""The tables of `gputui snapshot`: a snapshot drawn the way nvidia-smi lays it out, without rich."""
