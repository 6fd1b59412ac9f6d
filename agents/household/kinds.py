"""Agent kinds of the household world (found by ``agents.registry``)."""

from __future__ import annotations

from typing import Any

from agents.registry import AgentKind
from sim.seats import Agent


def _rhp(**params: Any) -> Agent:
    from agents.household.rhp import RHPAgent

    return RHPAgent(**params)


AGENT_KINDS = [
    AgentKind("rhp", ("household",),
              "rule-based hierarchical planner of TDW-MAT/C-WAH (containers first, bed when full; never talks)",
              _rhp),
]
