"""The widgets the views are made of: tables, panes, bars, the event log, the jobs view."""
