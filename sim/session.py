"""The Session: one loop that advances a World with its seats and emits Events.

The same Session runs batch experiments, tests, benchmarks and the desktop app.
It never sleeps and never reads a clock for its rules: a caller drives it with
``tick()`` (one world step, or ``WAITING`` when a seat has no action yet) or
``run()``.
"""

from __future__ import annotations

import enum
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from sim import __version__
from sim.events import (BeliefEvent, ErrorEvent, Event, FeedbackEvent, FeedbackStatusEvent,
                        LLMCallEvent, MessageEvent, ObservationEvent, OutcomeEvent, StepEvent)
from sim.seats import PENDING, Agent, Facilitator, SeatContext, TeamMechanism
from sim.world import AgentId, World

Listener = Callable[[Event], None]

#: statuses after which an agent is free to receive new feedback
FEEDBACK_CLOSED = frozenset({"completed", "ignored", "not_executable"})


class TickStatus(enum.Enum):
    ADVANCED = "advanced"
    WAITING = "waiting"
    DONE = "done"


class Session:
    """Owns a World, its seats, an optional facilitator and team mechanism."""

    def __init__(self, world: World, seats: Mapping[AgentId, Agent], seed: int, *,
                 scenario: str = "", facilitator: Facilitator | None = None,
                 team: TeamMechanism | None = None, max_ticks: int | None = None,
                 prefix: Sequence[Mapping[AgentId, Any]] = ()) -> None:
        """``prefix``: encoded joint actions replayed from ``reset(seed)`` before the seats take
        over (how "take over from here" continues a recorded episode)."""
        missing = [a for a in world.agents if a not in seats]
        extra = [a for a in seats if a not in world.agents]
        if missing or extra:
            raise ValueError(f"seats must match the world's agents {list(world.agents)}: "
                             f"missing {missing}, unknown {extra}")
        self.world = world
        self.seats = dict(seats)
        self.seed = int(seed)
        self.scenario = scenario
        self.facilitator = facilitator
        self.team = team
        self.max_ticks = max_ticks
        self._listeners: list[Listener] = []
        self.events: list[Event] = []
        self.prefix = [dict(j) for j in prefix]
        self._state = world.reset(self.seed)
        for joint in self.prefix:
            self._state = world.step(self._state, {a: world.decode_action(x)
                                                   for a, x in joint.items()}).state
        self._pending: dict[AgentId, Any] = {}
        self._observed: set[AgentId] = set()
        self._finished = False
        self._next_feedback_id = 1
        self.busy: dict[AgentId, int] = {}
        self.counters = {"feedback": 0, "messages": 0, "errors": 0, "llm_calls": 0,
                         "prompt_tokens": 0, "completion_tokens": 0}
        #: LLM use per agent and module: {agent: {module: {"calls", "prompt_tokens", "completion_tokens"}}}
        self.llm_tokens: dict[str, dict[str, dict[str, int]]] = {}

        # One independent random stream per mind, derived from the episode seed, so that
        # adding a facilitator never changes what the agents draw.
        streams = np.random.SeedSequence(self.seed).spawn(len(world.agents) + 2)
        for agent_id, stream in zip(world.agents, streams):
            self.seats[agent_id].reset(self._context(agent_id, stream))
        if facilitator is not None:
            facilitator.reset(world, self._state, self._context("facilitator", streams[-2]))
        if team is not None:
            team.reset(world, self._state, self._context("team", streams[-1]))

    def _context(self, name: str, stream: np.random.SeedSequence) -> SeatContext:
        return SeatContext(world=self.world, agent_id=name, seed=int(stream.generate_state(1)[0]),
                           rng=np.random.default_rng(stream), emit=self.emit, clock=lambda: self.tick)

    # ------------------------------------------------------------------ views

    @property
    def state(self) -> Any:
        return self._state

    @property
    def tick(self) -> int:
        return self.world.tick_of(self._state)

    @property
    def finished(self) -> bool:
        return self._finished

    def header(self) -> dict[str, Any]:
        """What a recording needs to rebuild this episode."""
        return {
            "app_version": __version__,
            "world": self.world.family,
            "scenario": self.scenario,
            "spec": self.world.spec(),
            "seed": self.seed,
            "seats": {a: s.describe() for a, s in self.seats.items()},
            "facilitator": self.facilitator.describe() if self.facilitator else None,
            "team": self.team.describe() if self.team else None,
            "prefix": self.prefix,
        }

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def emit(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, FeedbackStatusEvent) and event.status in FEEDBACK_CLOSED:
            if self.busy.get(event.agent) == event.feedback_id:
                del self.busy[event.agent]
        elif isinstance(event, ErrorEvent):
            self.counters["errors"] += 1
        elif isinstance(event, MessageEvent):
            self.counters["messages"] += 1
        elif isinstance(event, LLMCallEvent):
            self.counters["llm_calls"] += 1
            self.counters["prompt_tokens"] += event.prompt_tokens
            self.counters["completion_tokens"] += event.completion_tokens
            usage = self.llm_tokens.setdefault(event.agent, {}).setdefault(
                event.module, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
            usage["calls"] += 1
            usage["prompt_tokens"] += event.prompt_tokens
            usage["completion_tokens"] += event.completion_tokens
        for listener in self._listeners:
            listener(event)

    # ------------------------------------------------------------------ loop

    def waiting_for(self) -> tuple[AgentId, ...]:
        """Active agents whose action is still missing this tick."""
        if self._finished:
            return ()
        return tuple(a for a in self.world.active_agents(self._state) if a not in self._pending)

    def advance(self) -> TickStatus:
        """Advance one world step if every active seat has an action."""
        if self._finished:
            return TickStatus.DONE
        world, state = self.world, self._state
        if world.done(state) or (self.max_ticks is not None and self.tick >= self.max_ticks):
            self._finish()
            return TickStatus.DONE

        for agent_id in world.active_agents(state):
            if agent_id in self._pending:
                continue
            action = self._ask(agent_id, state)
            if action is PENDING:
                continue
            self._pending[agent_id] = action
        if len(self._pending) < len(world.active_agents(state)):
            return TickStatus.WAITING

        joint = {a: self._pending[a] for a in world.active_agents(state)}
        self._pending.clear()
        self._observed.clear()
        t = self.tick
        result = world.step(state, joint)
        self._state = result.state
        self.emit(StepEvent(tick=t, joint_action={a: world.encode_action(x) for a, x in joint.items()},
                            state_hash=world.state_hash(result.state),
                            world_events=[e.to_dict() for e in result.events]))

        for agent_id, seat in self.seats.items():
            for kind, data in seat.belief_snapshots():
                self.emit(BeliefEvent(tick=t + 1, owner=agent_id, kind=kind, data=data))
        if self.team is not None:
            self.team.after_step(state, joint, result.state)
        if self.facilitator is not None:
            for fb in self.facilitator.after_step(state, joint, result.state, dict(self.busy)):
                self._deliver(fb, t + 1)
            for kind, data in self.facilitator.belief_snapshots():
                self.emit(BeliefEvent(tick=t + 1, owner="facilitator", kind=kind, data=data))

        if world.done(result.state) or (self.max_ticks is not None and self.tick >= self.max_ticks):
            self._finish()
        return TickStatus.ADVANCED

    def _ask(self, agent_id: AgentId, state: Any) -> Any:
        world = self.world
        obs = world.observe(state, agent_id)
        if agent_id not in self._observed:
            self._observed.add(agent_id)
            self.emit(ObservationEvent(tick=self.tick, agent=agent_id,
                                       digest=world.observation_digest(obs)))
        legal = world.legal_actions(state, agent_id)
        try:
            action = self.seats[agent_id].act(obs, legal)
        except Exception as exc:  # a broken mind must not end the episode
            self.emit(ErrorEvent(tick=self.tick, source=agent_id, kind="agent_crash",
                                 message=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"))
            return world.fallback_action(state, agent_id)
        if action is PENDING:
            return PENDING
        if not world.is_legal(state, agent_id, action):
            fallback = world.fallback_action(state, agent_id)
            self.emit(ErrorEvent(tick=self.tick, source=agent_id, kind="illegal_action",
                                 message=f"{action!r} is not legal; took {fallback!r} instead"))
            return fallback
        return action

    def _deliver(self, fb: Any, tick: int) -> None:
        fid = self._next_feedback_id
        self._next_feedback_id += 1
        fb = type(fb)(feedback_id=fid, target=fb.target, payload=fb.payload, text=fb.text,
                      explanation=fb.explanation, utility=fb.utility)
        self.counters["feedback"] += 1
        self.busy[fb.target] = fid
        self.emit(FeedbackEvent(tick=tick, feedback_id=fid, facilitator=self.facilitator.kind,
                                target=fb.target, feedback=dict(fb.payload), text=fb.text,
                                explanation=fb.explanation, utility=fb.utility))
        self.seats[fb.target].receive_feedback(fb)

    def run(self, max_steps: int | None = None) -> dict[str, Any]:
        """Step until done (or ``max_steps``). A seat that stays PENDING is an error here."""
        steps = 0
        while not self._finished and (max_steps is None or steps < max_steps):
            status = self.advance()
            if status is TickStatus.WAITING:
                raise RuntimeError(f"seats {list(self.waiting_for())} gave no action; "
                                   "run() needs seats that always answer (use advance() for humans)")
            steps += status is TickStatus.ADVANCED
        return self.outcome()

    def stop(self) -> None:
        """End the episode now (a user closed it); the outcome says it did not finish."""
        if not self._finished:
            self._finish(stopped=True)

    def _finish(self, stopped: bool = False) -> None:
        self._finished = True
        self.emit(OutcomeEvent(tick=self.tick, outcome=self.outcome(stopped), metrics=self.metrics()))
        for seat in self.seats.values():
            seat.close()

    def outcome(self, stopped: bool = False) -> dict[str, Any]:
        out = dict(self.world.outcome(self._state))
        out["stopped"] = stopped
        return out

    def metrics(self) -> dict[str, Any]:
        metrics = {"ticks": self.tick, **self.counters}
        if self.llm_tokens:
            metrics["llm_tokens"] = {a: {m: dict(u) for m, u in mods.items()} for a, mods in self.llm_tokens.items()}
        return metrics
