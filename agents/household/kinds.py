"""Agent kinds of the household world (found by ``agents.registry``)."""

from __future__ import annotations

from agents.registry import AgentKind

AGENT_KINDS = [
    AgentKind("rhp", ("household",),
              "rule-based hierarchical planner of TDW-MAT/C-WAH (containers first, bed when full; never talks)",
              "agents.household.rhp:RHPAgent"),
    AgentKind("rhp-share", ("household",),
              "the free-sharing ceiling: RHP that knows its partners' sightings, explored rooms and intents "
              "every step at no cost (no message, no step spent)", "agents.household.share:SharingRHPAgent"),
    AgentKind("coela", ("household",),
              "CoELA-style: its planner picks \"send a message\" (a templated progress report) when it has news, "
              "else RHP's rules with the partners' news", "agents.household.coela:CoELAAgent"),
    AgentKind("capo", ("household",),
              "CaPo-style: a meta-plan (rooms and objects per agent) proposed by the first agent, discussed "
              "until the other agrees, re-planned on discoveries", "agents.household.capo:CaPoAgent"),
    AgentKind("mhp", ("household",),
              "MCTS over sub-goals (explore, fetch, pack, deliver) with a per-object location belief; never talks",
              "agents.household.mhp:MHPAgent"),
]
