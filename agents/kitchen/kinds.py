"""Kinds of kitchen agents, for the registry (cheap to import: factories import on call)."""

from __future__ import annotations

from typing import Any

from agents.registry import AgentKind
from sim.seats import Agent


def _heuristic(**params: Any) -> Agent:
    from agents.kitchen.heuristic import KitchenHeuristicAgent

    return KitchenHeuristicAgent(**params)


AGENT_KINDS = [
    AgentKind("kitchen-heuristic", ("kitchen",),
              "simulated human: subtask choice and noisy shortest paths on its own beliefs "
              "(epsilon=0.1 random moves)", _heuristic),
]
