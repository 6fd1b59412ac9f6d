"""Agents of the kitchen: the stochastic heuristic planner that simulates a person."""
