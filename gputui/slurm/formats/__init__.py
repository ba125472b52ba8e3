"""What Slurm's commands print, read into plain records: JSON values, key=value text, nodes, jobs, GRES strings,
host lists and versions. Nothing here runs a command."""
