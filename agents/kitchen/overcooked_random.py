"""A random cook, the default seat of kitchens under overcooked_ai's rules (``rules:
overcooked``): every legal action equally likely at every step (there overcooked_ai's six, as in
the random joint actions of the differential test against overcooked_ai; under the kitchen's
own rules its five), drawn from the seat's seeded stream."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sim.seats import Agent, SeatContext


class OvercookedRandomAgent(Agent):
    kind = "overcooked-random"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self.rng = ctx.rng

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        return legal_actions[int(self.rng.integers(len(legal_actions)))]
