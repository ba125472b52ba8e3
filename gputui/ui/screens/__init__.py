"""The views (a Textual mode each: overview, detail, history, jobs) and the help screen."""
