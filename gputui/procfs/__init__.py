"""What this machine's /proc says about processes (user, command line, environment) and MPS daemons.

Below both the sources (the NVML source names each GPU process's user and finds MPS daemons) and the MPS
controls (which start and stop those daemons), so that neither imports the other.
"""
