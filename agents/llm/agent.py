"""What every LLM seat shares: settings and client, the decision in a worker thread when
asked to, and the Events of each decision emitted on the Session's thread.

A subclass implements ``decide(observation, legal) -> Decision``: it asks its client and
returns the action with the Events the call produced (LLM calls, faults, the fallback).
With ``asynchronous=True`` the seat returns ``PENDING`` while the model thinks, so a
Session driven by ``advance()`` (the desktop app's worker) stays free to pause, stop or
draw; ``run()`` needs the default, synchronous seats.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.llm.client import LLMClient
from agents.llm.config import LLMSettings, load_settings
from sim.events import Event
from sim.seats import PENDING, Agent, SeatContext

#: agent parameters that override settings fields (the key is deliberately not one of them)
SETTING_PARAMS = ("base_url", "model", "temperature", "max_tokens", "timeout", "max_retries",
                  "repair_attempts", "structured_output")


def settings_from_params(params: Mapping[str, Any], config: str | None = None) -> LLMSettings:
    """Resolve settings with agent-spec parameters as explicit overrides."""
    overrides = {k: params[k] for k in SETTING_PARAMS if params.get(k) is not None}
    return load_settings(config, overrides=overrides)


@dataclass
class Decision:
    action: Any
    events: list[Event] = field(default_factory=list)
    snapshot: tuple[str, dict[str, Any]] | None = None


class LLMSeat(Agent):
    """Base of LLM agents: owns the client and runs decisions synchronously or in a thread."""

    def __init__(self, *, client: LLMClient | None = None, settings: LLMSettings | None = None,
                 asynchronous: bool = False) -> None:
        self.client = client or LLMClient(settings or load_settings())
        self.asynchronous = bool(asynchronous)
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._future: concurrent.futures.Future[Decision] | None = None
        self._future_tick: int | None = None
        self._snapshots: list[tuple[str, dict[str, Any]]] = []

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self._cancel()
        self._snapshots = []

    def prepare(self, observation: Any, legal_actions: Sequence[Any]) -> None:
        """Runs on the Session's thread before each decision (may emit Events)."""

    def decide(self, observation: Any, legal_actions: Sequence[Any]) -> Decision:
        """Choose an action; may run in a worker thread, so it emits nothing itself."""
        raise NotImplementedError

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        if not self.asynchronous:
            self.prepare(observation, legal_actions)
            return self._finish(self.decide(observation, legal_actions))
        tick = self.ctx.tick
        if self._future is None or self._future_tick != tick:
            self._cancel()
            self.prepare(observation, legal_actions)
            if self._executor is None:
                self._executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=f"llm-{self.ctx.agent_id}")
            self._future = self._executor.submit(self.decide, observation, tuple(legal_actions))
            self._future_tick = tick
        if not self._future.done():
            return PENDING
        future, self._future = self._future, None
        return self._finish(future.result())

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the model call in the background has ended (or ``timeout``)."""
        future = self._future
        if future is None:
            return False
        concurrent.futures.wait([future], timeout=timeout)
        return True

    @property
    def thinking(self) -> bool:
        """True while a model call runs in the background (for a thinking indicator)."""
        return self._future is not None and not self._future.done()

    def _finish(self, decision: Decision) -> Any:
        for event in decision.events:
            self.ctx.emit(event)
        if decision.snapshot is not None:
            self._snapshots.append(decision.snapshot)
        return decision.action

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        snapshots, self._snapshots = self._snapshots, []
        return snapshots

    def _cancel(self) -> None:
        if self._future is not None:
            self._future.cancel()
            self._future = None

    def close(self) -> None:
        self._cancel()
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
