"""Task rounds: one episode plays its scenario several times in a row, from the same starting
layout, with the same seats and mechanisms (seed 000's interaction rounds: teams formed in
earlier rounds do the later ones).

The rule, shared by the Session and Replay so that recordings replay exactly: after a step that
ends a round (``World.done``), when rounds remain, the state becomes ``world.reset(seed)`` again.
States keep their own tick (a round starts at 0); the episode's tick counts every step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.world import StepResult, World


def check_rounds(rounds: Any, where: str = "rounds") -> int:
    """``rounds`` as a whole number >= 1, or a ValueError naming ``where``."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"{where} must be a whole number >= 1 (task rounds per episode), got {rounds!r}")
    return rounds


def round_over(world: World, state: Any, round_index: int, rounds: int) -> bool:
    """Whether ``state`` ends round ``round_index`` (0-based) with another round to play."""
    return round_index < rounds - 1 and world.done(state)


def step_in_rounds(world: World, state: Any, joint: Mapping[str, Any], seed: int, round_index: int,
                   rounds: int) -> tuple[StepResult, Any, int]:
    """One step under the rule: (the world's result, the state play goes on from, its round).
    That state is the result's unless the step ended a round and another follows."""
    result = world.step(state, joint)
    if round_over(world, result.state, round_index, rounds):
        return result, world.reset(seed), round_index + 1
    return result, result.state, round_index
