"""Experiment runners: many Sessions over scenarios x minds x seeds."""
