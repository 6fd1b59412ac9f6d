"""A cook for kitchens under overcooked_ai's rules (``rules: overcooked``): every one of
overcooked_ai's six actions equally likely at every step, drawn from the seat's seeded stream
(the random joint actions of the differential test against overcooked_ai)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sim.kitchen.overcooked import OvercookedWorld
from sim.seats import Agent, SeatContext


class OvercookedRandomAgent(Agent):
    kind = "overcooked-random"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, OvercookedWorld):
            raise TypeError(f"{self.kind} agents play kitchens under overcooked_ai's rules (rules: overcooked)")
        self.rng = ctx.rng

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        return legal_actions[int(self.rng.integers(len(legal_actions)))]
