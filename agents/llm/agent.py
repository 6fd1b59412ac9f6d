"""What every LLM seat shares: settings and client, the decision in a worker thread when
asked to, and the Events of each decision emitted on the Session's thread.

A subclass implements ``decide(observation, legal) -> Decision``: it asks its client and
returns the action with the Events the call produced (LLM calls, faults, the fallback).
``LLMAgent`` is the ``llm`` kind: one k-level Theory-of-Mind agent for every world that declares
its prompts (``methods["llm"]``, an ``agents.llm.world.LLMWorld``).
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
from agents.llm.server import require_runnable
from agents.llm.tom import check_k, final_action, level_names, tom_levels, tom_schema
from agents.llm.world import LLMWorld, llm_world
from sim.events import ErrorEvent, Event
from sim.seats import PENDING, Agent, Feedback, SeatContext
from sim.snapshots import ToM

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
    snapshot: tuple[str, Any] | None = None


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


class LLMAgent(LLMSeat):
    """The ``llm`` agent (k = 0, 1, 2) in any world that declares its prompts: the world's
    ``LLMWorld`` writes the prompt and names the legal actions; the answer's highest-level action
    is played, or, when the model fails (no answer within the retry and repair budgets) or names
    an action that is not legal, the world's fallback seat's action, with an ``ErrorEvent`` (kind
    ``llm_fallback``) saying why."""

    kind = "llm"
    module = "planning"

    def __init__(self, k: int = 1, history: int = 10, asynchronous: bool = False, *,
                 client: LLMClient | None = None, config: str | None = None, **settings: Any) -> None:
        unknown = sorted(set(settings) - set(SETTING_PARAMS))
        if unknown:
            raise TypeError(f"unknown parameter(s) {', '.join(unknown)}; an llm agent takes k, history, "
                            f"asynchronous, config and {', '.join(SETTING_PARAMS)}")
        self.k = check_k(k)
        if not isinstance(history, int) or history < 0:
            raise ValueError(f"history must be a whole number of past actions >= 0, got {history!r}")
        self.history_length = history
        if client is None:
            client = LLMClient(settings_from_params(settings, config))
        super().__init__(client=client, asynchronous=asynchronous)

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self.play: LLMWorld = llm_world(ctx.world)
        self.play.start(ctx, self.history_length)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k, "history": self.history_length,
                "asynchronous": self.asynchronous, "llm": self.client.describe()}

    def receive_feedback(self, feedback: Feedback) -> None:
        self.play.receive_feedback(feedback)

    def prepare(self, observation: Any, legal_actions: Sequence[Any]) -> None:
        self.play.prepare(observation, legal_actions)

    def messages(self, observation: Any, legal_actions: Sequence[Any]) -> list[dict[str, str]]:
        return self.play.agent_messages(observation, legal_actions, self.k)

    def decide(self, observation: Any, legal_actions: Sequence[Any]) -> Decision:
        play, me = self.play, self.ctx.agent_id
        tick = play.tick(observation)
        labels = play.action_labels(observation, legal_actions)
        outcome = self.client.ask_json(self.messages(observation, legal_actions), tom_schema(self.k, labels),
                                       agent=me, module=self.module, tick=tick, schema_name=f"tom_level{self.k}",
                                       seed=self.ctx.seed + tick)
        events = list(outcome.events)
        answer = outcome.value  # at k = 0 only {"action": x_0}: the levels are written out in the paper's form
        levels = tom_levels(answer, self.k) if answer is not None else None
        proposed = final_action(answer, self.k) if answer is not None else None
        if proposed in labels:
            action, source = legal_actions[labels.index(proposed)], "model"
        else:
            action, source = play.fallback_action(observation, legal_actions), "fallback"
            why = (f"the model proposed {proposed!r}, which is not legal here" if levels is not None
                   else f"the model gave no usable answer ({outcome.failure})")
            events.append(ErrorEvent(tick=tick, source=me, kind="llm_fallback",
                                     message=f"{why}; took the {play.fallback_name}'s action {action!r}"))
        shown = action if isinstance(action, str) else self.ctx.world.encode_action(action)
        snapshot = ("tom", ToM(k=self.k, levels=levels, level_names=level_names(self.k), action=shown,
                               source=source, calls=outcome.attempts, following_feedback=play.following_feedback()))
        return Decision(action=action, events=events, snapshot=snapshot)


def make_llm_agent(k: int = 1, history: int = 10, asynchronous: bool = False, config: str | None = None,
                   **settings: Any) -> LLMAgent:
    """Factory of the ``llm`` agent kind, e.g. ``llm:k=2,model=llama3.1,base_url=http://127.0.0.1:11434/v1``;
    fails early, with the fix, when no endpoint is configured and the embedded model is missing."""
    client = settings.pop("client", None)
    agent = LLMAgent(k=k, history=history, asynchronous=asynchronous, client=client, config=config, **settings)
    if client is None:
        require_runnable(agent.client.settings)
    return agent
