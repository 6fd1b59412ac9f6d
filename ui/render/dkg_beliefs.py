"""Doors, Keys and Gems' beliefs, drawn and listed: its plug-in names ``DKGBeliefs``
(``WorldPlugin.beliefs``). The minds it has are a facilitator's goal inference
(``goal_posterior`` snapshots: ``As protom believes it (each agent's goal)``), which the generic
views draw and the belief timeline lists (a likeliest goal that is not the agent's real one)."""

from __future__ import annotations

from ui.beliefs.view import GOALS, WorldBeliefs


class DKGBeliefs(WorldBeliefs):
    """Goal inference, drawn and listed by ``ui.beliefs.view``."""

    kinds = (GOALS,)
