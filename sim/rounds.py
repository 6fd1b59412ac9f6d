"""Task rounds: one episode plays its scenario several times in a row, from the same starting
layout, with the same seats and mechanisms (seed 000's interaction rounds: teams formed in
earlier rounds do the later ones).

The rule, shared by the Session, Replay and the app's timelines so that recordings replay exactly: after a step that
ends a round (``World.done``), when rounds remain, the state becomes ``world.reset(seed)`` again.
States keep their own tick (a round starts at 0); the episode's tick counts every step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from sim.world import StepResult, World

#: the round length of a mechanism (or a person's ratings) that counts task rounds, not world steps
TASK_ROUND = "task"


def check_rounds(rounds: Any, where: str = "rounds") -> int:
    """``rounds`` as a whole number >= 1, or a ValueError naming ``where``."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"{where} must be a whole number >= 1 (task rounds per episode), got {rounds!r}")
    return rounds


class RoundStep(NamedTuple):
    """One step under the rule."""

    result: StepResult  # what ``World.step`` gave
    state: Any  # the state play goes on from: the result's, or the start of the next round
    round: int  # that state's round (0-based)
    round_over: bool  # the step ended a round (the last one included)


def step_in_rounds(world: World, state: Any, joint: Mapping[str, Any], seed: int, round_index: int,
                   rounds: int) -> RoundStep:
    """One step of round ``round_index`` (0-based) of ``rounds`` under the rule."""
    result = world.step(state, joint)
    over = world.done(result.state)
    if over and round_index < rounds - 1:
        return RoundStep(result, world.reset(seed), round_index + 1, True)
    return RoundStep(result, result.state, round_index, over)


def step_recorded(world: World, state: Any, joint: Mapping[str, Any], seed: int, round_index: int,
                  rounds: int) -> RoundStep:
    """``step_in_rounds`` with a joint action as the world encodes it (a recording's, a prefix's)."""
    return step_in_rounds(world, state, {a: world.decode_action(x) for a, x in joint.items()}, seed, round_index,
                          rounds)
