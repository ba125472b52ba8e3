"""The pure core: snapshot model, serialisation, MIG tables, events and time.

Nothing here imports textual, rich, pynvml or any module of ``gputui.sources`` / ``gputui.ui``.
"""
