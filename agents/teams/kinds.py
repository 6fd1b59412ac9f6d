"""Team-formation mechanisms by name (the factories import the mechanism module when called)."""

from __future__ import annotations

from typing import Any

from agents.registry import ANY_WORLD, MechanismKind


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
