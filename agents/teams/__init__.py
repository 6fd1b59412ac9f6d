"""Belief-aligned team formation (seeds 000 and 001): alignment, preferences, stable teams,
their solvers, metrics, and the Session mechanism. See docs/teams.md."""
