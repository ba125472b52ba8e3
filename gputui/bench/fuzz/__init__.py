"""Fuzzers of files and requests: `python -m gputui.bench fuzz_files` / `fuzz_requests` (quick subsets run as tests)."""
