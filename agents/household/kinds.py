"""Agent kinds of the household world (found by ``agents.registry``)."""

from __future__ import annotations

from typing import Any

from agents.registry import AgentKind
from sim.seats import Agent


def _rhp(**params: Any) -> Agent:
    from agents.household.rhp import RHPAgent

    return RHPAgent(**params)


def _coela(**params: Any) -> Agent:
    from agents.household.coela import CoELAAgent

    return CoELAAgent(**params)


def _capo(**params: Any) -> Agent:
    from agents.household.capo import CaPoAgent

    return CaPoAgent(**params)


def _mhp(**params: Any) -> Agent:
    from agents.household.mhp import MHPAgent

    return MHPAgent(**params)


AGENT_KINDS = [
    AgentKind("rhp", ("household",),
              "rule-based hierarchical planner of TDW-MAT/C-WAH (containers first, bed when full; never talks)",
              _rhp),
    AgentKind("coela", ("household",),
              "CoELA-style: a templated message (room, sightings, holdings, intent) before every decision, "
              "then RHP's rules with the partners' news", _coela),
    AgentKind("capo", ("household",),
              "CaPo-style: a meta-plan (rooms and objects per agent) proposed by the first agent, discussed "
              "until the other agrees, re-planned on discoveries", _capo),
    AgentKind("mhp", ("household",),
              "MCTS over sub-goals (explore, fetch, pack, deliver) with a per-object location belief; never talks",
              _mhp),
]
