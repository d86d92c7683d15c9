"""One module per study notebook: the study's pipeline as functions, so the notebook stays a
readable narrative and the tests call the same code."""
