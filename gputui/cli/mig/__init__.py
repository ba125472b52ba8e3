"""`gputui mig`: MIG layouts of a model, and the MIG planner (`mig plan`, `mig apply`)."""
