"""Minds for the team room: scripted policies (no model) and LLM agents with the k-level ToM
prompts of Belief-Aligned Team Formation (seed 000, Appendices A, C and D)."""
