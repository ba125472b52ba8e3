"""The MIG reshape advisor: per-GPU layouts from the placement table, the nvidia-smi commands that reach a layout
(and a replay that checks them), and the optimiser that proposes new layouts for waiting MIG work.

Pure Python over the MIG profile tables; the integer program uses HiGHS (``highspy``) when it is installed.
"""
