"""The ``held`` agent: the world's default agent (``WorldPlugin.default_agent``: the planner in
Doors, Keys and Gems), except that from its ``at``-th decision on, each decision waits until the
file ``release`` exists. It exists for tests of what the app does while a decision is under way
(a signal, a new session, closing the window): with it that is certain, however fast or loaded
the machine, where a slow planner only makes it likely.

The test runs it in-process or in an app of its own (``python main.py gui two-rooms --agents
held:release=/tmp/x/go,holding=/tmp/x/held planner``): the agent creates the file ``holding``
when it starts to wait, so the test knows the decision is under way, and the test creates
``release`` to let it go. The wait is bounded (``timeout`` s): a test that fails before it
releases the seat leaves no thread or process waiting for ever; a decision that timed out goes
on as if released and says so with an ``ErrorEvent`` (kind ``held_timeout``). Without
``release`` nothing waits: the seat plays as the default agent (the conformance suite plays it so).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from sim.events import ErrorEvent
from sim.seats import Agent, Intervention, SeatContext

#: seconds between two looks at the ``release`` file while a decision waits
POLL = 0.02


class HeldAgent(Agent):
    kind = "held"

    def __init__(self, release: str | None = None, holding: str | None = None,
                 at: Annotated[int, Field(ge=1)] = 1,
                 timeout: Annotated[float, Field(gt=0, le=3600, allow_inf_nan=False)] = 120.0) -> None:
        self.release = Path(release) if release else None
        self.holding = Path(holding) if holding else None
        self.at = at
        self.timeout = float(timeout)
        self.decisions = 0
        self.inner: Agent | None = None

    def reset(self, ctx: SeatContext) -> None:
        from agents.registry import make_agent
        from sim.plugins import plugins

        super().reset(ctx)
        world = ctx.world
        plugin = plugins().get(world.family)
        spec = getattr(world, "default_agent", None) or (plugin.default_agent if plugin is not None else "planner")
        if self.inner is not None:
            self.inner.close()
        self.inner = make_agent(spec, world.family)
        self.inner.reset(ctx)
        self.decisions = 0

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        self.decisions += 1
        if self.release is not None and self.decisions >= self.at:
            self._hold()
        assert self.inner is not None, "reset() comes before act()"
        return self.inner.act(observation, legal_actions)

    def _hold(self) -> None:
        """Wait until ``release`` exists (at most ``timeout`` s), ``holding`` created first."""
        assert self.release is not None
        if self.release.exists():
            return
        if self.holding is not None:
            self.holding.touch()
        end = time.monotonic() + self.timeout
        while not self.release.exists():
            if time.monotonic() >= end:
                self.ctx.emit(ErrorEvent(tick=self.ctx.tick, source=self.ctx.agent_id, kind="held_timeout",
                                         message=f"{self.release} did not appear within {self.timeout:g} s; "
                                                 "the decision went on"))
                return
            time.sleep(POLL)

    # everything else is the default agent's

    def receive(self, intervention: Intervention) -> None:
        if self.inner is not None:
            self.inner.receive(intervention)

    def wait(self, timeout: float | None = None) -> bool:
        return self.inner.wait(timeout) if self.inner is not None else False

    def observe_state(self, state: Any) -> None:
        if self.inner is not None:
            self.inner.observe_state(state)

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        return self.inner.belief_snapshots() if self.inner is not None else ()

    def counters(self) -> dict[str, int]:
        return self.inner.counters() if self.inner is not None else {}

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "release": str(self.release) if self.release else None,
                "at": self.at, "timeout": self.timeout,
                "plays": self.inner.describe() if self.inner is not None else None}

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
