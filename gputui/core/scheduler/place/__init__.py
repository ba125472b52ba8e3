"""Placement: a prepared request (placement.Ask) to an allocation on the free resources, one module per kind.

``finder.find_allocation`` dispatches; ``host`` says what a job needs of a node's CPUs and memory.
"""
