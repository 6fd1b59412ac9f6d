"""Kinds of kitchen agents, for the registry (cheap to import: factories import on call)."""

from __future__ import annotations

from agents.registry import AgentKind

AGENT_KINDS = [
    AgentKind("kitchen-heuristic", ("kitchen",),
              "simulated human: subtask choice and noisy shortest paths on its own beliefs "
              "(epsilon=0.1 random moves)", "agents.kitchen.heuristic:KitchenHeuristicAgent"),
    AgentKind("overcooked-random", ("kitchen",),
              "random cook, the default under overcooked_ai's rules (.layout files): every legal action "
              "equally likely",
              "agents.kitchen.overcooked_random:OvercookedRandomAgent"),
]
