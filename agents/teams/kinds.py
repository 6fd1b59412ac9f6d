"""Team-formation mechanisms by name (the factories import the mechanism module when called)."""

from __future__ import annotations

from typing import Any

from agents.registry import ANY_WORLD, AgentKind, MechanismKind


def _teams(**params: Any):
    from agents.teams.mechanism import TeamFormationMechanism

    return TeamFormationMechanism(**params)


def _random_teams(**params: Any):
    from agents.teams.mechanism import RandomTeamMechanism

    return RandomTeamMechanism(**params)


MECHANISM_KINDS = [
    MechanismKind("teams", ANY_WORLD,
                  "belief-aligned team formation: phi from predicted vs actual trajectories, the "
                  "welfare-maximizing stable team (Eq. 5), re-formed when alignment drops (Algorithm 1)",
                  _teams, role="team"),
    MechanismKind("random-teams", ANY_WORLD,
                  "baseline: a random team of ceil(n/2) agents (size=k to change), redrawn every=R rounds",
                  _random_teams, role="team"),
]


def _tom_planner(**params: Any):
    from agents.teams.tom_dkg import DKGToMAgent

    return DKGToMAgent(**params)


AGENT_KINDS = [
    AgentKind("tom-planner", ("dkg",),
              "k-level ToM planner (k=0,1,2 or k=cycle: turn-order index mod 3): predicts teammates from "
              "their history and its (k-1)-level model, frees stuck teammates (k>=1), stands aside when idle",
              _tom_planner),
]
