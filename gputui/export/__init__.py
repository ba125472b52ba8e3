"""gputui's data for other tools: a Prometheus endpoint with dcgm-exporter's names, and OpenMetrics backfill files.

The metric families are built from one frame (a snapshot, the jobs holding its GPUs, the queue) by plain
functions; prometheus_client renders them, in the text format for a scrape and in OpenMetrics for promtool.
"""
