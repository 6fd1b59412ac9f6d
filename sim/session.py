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
from typing import TYPE_CHECKING, Any

from sim import __version__, collector
from sim.events import (
    BeliefEvent,
    ErrorEvent,
    Event,
    FeedbackEvent,
    LLMCallEvent,
    MessageEvent,
    ObservationEvent,
    OutcomeEvent,
    RoundEvent,
    StepEvent,
    TeamEvent,
)
from sim.redact import scrub_event
from sim.rounds import check_rounds, step_in_rounds, step_recorded
from sim.seats import PENDING, Agent, Intervention, Mechanism, SeatContext, StepView
from sim.snapshots import SnapshotPayload, checked_payload, checked_snapshot
from sim.text import count_tokens, count_words
from sim.world import AgentId, World

Listener = Callable[[Event], None]
#: the events ``Session.metrics`` counts
_COUNTED = (ErrorEvent, FeedbackEvent, TeamEvent, MessageEvent, LLMCallEvent)

if TYPE_CHECKING:
    import numpy as np

    from sim.questions import Question


class TickStatus(enum.Enum):
    ADVANCED = "advanced"
    WAITING = "waiting"
    DONE = "done"


class Session:
    """Owns a World, its seats and the mechanisms that watch the episode."""

    def __init__(self, world: World, seats: Mapping[AgentId, Agent], seed: int, *,
                 scenario: str = "", mechanisms: Sequence[Mechanism | None] = (),
                 max_ticks: int | None = None,
                 prefix: Sequence[Mapping[AgentId, Any]] = (), rounds: int = 1,
                 questions: Sequence[Question] = ()) -> None:
        """``mechanisms``: facilitators, team formation... each with a distinct ``name`` (None
        entries, e.g. ``make_mechanism("none")``, are left out).
        ``questions``: the scenario's teaching questions (``sim/questions.py``), kept in the
        header so that a recording replays with the questions it was played with.
        ``prefix``: encoded joint actions replayed from ``reset(seed)`` before the seats take
        over (how "take over from here" continues a recorded episode).
        ``rounds``: task rounds (``sim/rounds.py``): when a round ends and another remains, play
        goes on from the starting layout with the same seats and mechanisms; ``max_ticks``
        counts the steps of every round."""
        missing = [a for a in world.agents if a not in seats]
        extra = [a for a in seats if a not in world.agents]
        if missing or extra:
            raise ValueError(f"seats must match the world's agents {list(world.agents)}: "
                             f"missing {missing}, unknown {extra}")
        refusal = world.cannot_run_here()
        if refusal:
            raise ValueError(refusal)
        self.world = world
        #: the world encodes its actions for the stream (the default keeps them as they are)
        self._encodes = type(world).encode_action is not World.encode_action
        self.seats = dict(seats)
        self.seed = int(seed)
        self.scenario = scenario
        self.questions = tuple(questions)
        self.mechanisms = [m for m in mechanisms if m is not None]
        names = [m.name for m in self.mechanisms]
        clash = sorted({n for n in names if names.count(n) > 1} | (set(names) & set(world.agents)))
        if clash:
            raise ValueError(f"mechanism names must be distinct and differ from the agents' names: {clash}")
        self.max_ticks = max_ticks
        self.rounds = check_rounds(rounds)
        #: the current task round (0-based), the episode ticks before it, and the ended rounds' outcomes
        self.round = 0
        self._tick_offset = 0
        self.round_outcomes: list[dict[str, Any]] = []
        self._listeners: list[Listener] = []
        self.events: list[Event] = []
        self.prefix = [dict(j) for j in prefix]
        self._state = world.reset(self.seed)
        prefix_states = []
        for joint in self.prefix:
            step = step_recorded(world, self._state, joint, self.seed, self.round, self.rounds)
            if step.round != self.round:  # a round ended in the prefix: its end is seen, then the new start
                prefix_states.append(step.result.state)
                self._next_round(step.result.state, step.state)
            self._state = step.state
            prefix_states.append(step.state)
        self._pending: dict[AgentId, Any] = {}
        #: a state the world said is not done (``advance`` need not ask again), or None
        self._not_done: Any = None
        self._observed: set[AgentId] = set()
        self._finished = False
        self._started = False
        self._next_intervention_id = 1
        self._last_teams: dict[str, Any] = {}
        self.counters = {"feedback": 0, "team_changes": 0, "messages": 0, "message_chars": 0,
                         "message_words": 0, "message_tokens": 0, "errors": 0, "llm_calls": 0,
                         "prompt_tokens": 0, "completion_tokens": 0}
        #: LLM use per agent and module: {agent: {module: {"calls", "prompt_tokens", "completion_tokens"}}}
        self.llm_tokens: dict[str, dict[str, dict[str, int]]] = {}

        # One independent random stream per mind, derived from the episode seed, so that
        # adding a mechanism never changes what the agents draw. Mechanisms draw from streams
        # spawned after the agents', the n-th mechanism always from the same one.
        import numpy as np  # its random streams; numpy loads with the first session, not the first import

        root = np.random.SeedSequence(self.seed)
        streams = root.spawn(len(world.agents))
        for agent_id, stream in zip(world.agents, streams):
            self.seats[agent_id].reset(self._context(agent_id, stream))
            for state in prefix_states:  # a seat taking over follows the steps it did not play
                self.seats[agent_id].observe_state(state)
        for mechanism, stream in zip(self.mechanisms, root.spawn(len(self.mechanisms))):
            mechanism.reset(world, self._state, self._context(mechanism.name, stream))
        collector.hold()  # what the set-up built stays out of the collector's walks (sim/collector.py)

    def _context(self, name: str, stream: np.random.SeedSequence) -> SeatContext:
        import numpy as np

        return SeatContext(world=self.world, agent_id=name, seed=int(stream.generate_state(1)[0]),
                           rng=np.random.default_rng(stream), emit=self.emit, clock=lambda: self.tick,
                           seat_kinds={a: seat.kind for a, seat in self.seats.items()})

    # ------------------------------------------------------------------ views

    @property
    def state(self) -> Any:
        return self._state

    @property
    def tick(self) -> int:
        """Steps taken in the episode, every round counted."""
        return self._tick_offset + self.world.tick_of(self._state)

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
            "mechanisms": [{**m.describe(), "name": m.name} for m in self.mechanisms],
            "prefix": self.prefix,
            **({"rounds": self.rounds} if self.rounds > 1 else {}),
            "questions": [q.to_dict() for q in self.questions],
        }

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def emit(self, event: Event) -> None:
        """Add ``event`` to the episode's stream: listeners (recordings, views) and mechanisms
        see it. Every event passes here, so here secrets (API keys) are scrubbed from it, and a
        belief snapshot must fit its registered kind (``sim.snapshots``)."""
        if isinstance(event, BeliefEvent):
            checked_snapshot(event.owner, event.kind, event.data)
        self._publish(event)

    def _snapshot(self, owner: str, kind: str, payload: Any, tick: int) -> SnapshotPayload:
        """Check a seat's or mechanism's snapshot once, record it, and return it typed."""
        typed = checked_payload(owner, kind, payload)
        self._publish(BeliefEvent(tick=tick, owner=owner, kind=kind, data=typed.to_dict()))
        return typed

    def _publish(self, event: Event) -> None:
        event = scrub_event(event)
        self.events.append(event)
        if not isinstance(event, _COUNTED):  # steps, observations, beliefs...: nothing to count
            pass
        elif isinstance(event, ErrorEvent):
            self.counters["errors"] += 1
        elif isinstance(event, FeedbackEvent):
            self.counters["feedback"] += 1
        elif isinstance(event, TeamEvent):  # a change: teams that differ from the mechanism's last ones
            last = self._last_teams.get(event.mechanism)
            self.counters["team_changes"] += last is not None and last != event.teams
            self._last_teams[event.mechanism] = event.teams
        elif isinstance(event, MessageEvent):
            self.counters["messages"] += 1
            self.counters["message_chars"] += event.chars
            self.counters["message_words"] += event.words
            self.counters["message_tokens"] += event.tokens
        elif isinstance(event, LLMCallEvent):
            self.counters["llm_calls"] += 1
            self.counters["prompt_tokens"] += event.prompt_tokens
            self.counters["completion_tokens"] += event.completion_tokens
            usage = self.llm_tokens.setdefault(event.agent, {}).setdefault(
                event.module, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
            usage["calls"] += 1
            usage["prompt_tokens"] += event.prompt_tokens
            usage["completion_tokens"] += event.completion_tokens
        for mechanism in self.mechanisms:
            mechanism.on_event(event)
        for listener in self._listeners:
            listener(event)

    # ------------------------------------------------------------------ loop

    def waiting_for(self) -> tuple[AgentId, ...]:
        """Active agents whose action is still missing this tick."""
        if self._finished:
            return ()
        return tuple(a for a in self.world.active_agents(self._state) if a not in self._pending)

    def start(self) -> None:
        """Let the mechanisms intervene before anyone acts (``Mechanism.start``): their
        interventions reach the seats at the starting tick, and the snapshots of each mechanism
        that intervened follow them into the stream. The first ``advance`` calls it; a caller
        that subscribes first may call it earlier to show them. It runs once."""
        if self._started:
            return
        self._started = True
        t = self.tick
        for mechanism in self.mechanisms:
            made = mechanism.start(self._state)
            for intervention in made:
                self._deliver(mechanism, intervention, t)
            for kind, payload in (mechanism.belief_snapshots() if made else ()):
                self._snapshot(mechanism.name, kind, payload, t)

    def advance(self) -> TickStatus:
        """Advance one world step if every active seat has an action."""
        if self._finished:
            return TickStatus.DONE
        if not self._started:
            self.start()
        world, state = self.world, self._state
        # the step that made ``state`` asked the world already whether it ended the episode
        done = self._not_done is not state and world.done(state)
        t = self.tick
        if done or (self.max_ticks is not None and t >= self.max_ticks):
            self._finish()
            return TickStatus.DONE

        active = world.active_agents(state)
        for agent_id in active:
            if agent_id in self._pending:
                continue
            action = self._ask(agent_id, state, t)
            if action is PENDING:
                continue
            self._pending[agent_id] = action
        if len(self._pending) < len(active):
            return TickStatus.WAITING

        joint = {a: self._pending[a] for a in active}
        self._pending.clear()
        self._observed.clear()
        step = step_in_rounds(world, state, joint, self.seed, self.round, self.rounds)
        result = step.result
        self._state = result.state
        self._not_done = None if step.round_over else result.state
        # the Session's own events are no snapshots: straight to the stream (``emit`` checks those)
        self._publish(StepEvent(tick=t, joint_action=({a: world.encode_action(x) for a, x in joint.items()}
                                                      if self._encodes else dict(joint)),
                                state_hash=world.state_hash(result.state),
                                world_events=[e.to_dict() for e in result.events]))
        for m in result.messages:
            self.emit(MessageEvent(tick=t, sender=m.sender, recipients=list(m.recipients), text=m.text,
                                   chars=len(m.text), words=count_words(m.text), tokens=count_tokens(m.text),
                                   cost=m.cost))

        beliefs: dict[str, dict[str, SnapshotPayload]] = {}
        for agent_id, seat in self.seats.items():
            seat.observe_state(result.state)
            for kind, payload in seat.belief_snapshots():
                beliefs.setdefault(agent_id, {})[kind] = self._snapshot(agent_id, kind, payload, t + 1)
        for mechanism in self.mechanisms:
            view = StepView(tick=t, before=state, joint_action=joint, after=result.state,
                            world_events=result.events, messages=result.messages, beliefs=beliefs,
                            round_end=step.round_over)
            for intervention in mechanism.after_step(view):
                self._deliver(mechanism, intervention, t + 1)
            for kind, payload in mechanism.belief_snapshots():
                beliefs.setdefault(mechanism.name, {})[kind] = self._snapshot(mechanism.name, kind, payload, t + 1)

        last_round_over = step.round_over and step.round == self.round
        if step.round != self.round:
            self._next_round(result.state, step.state)
            self.emit(RoundEvent(tick=t + 1, round=self.round, outcome=self.round_outcomes[-1]))
            for seat in self.seats.values():
                seat.observe_state(step.state)
            for mechanism in self.mechanisms:
                mechanism.round_start(step.state)
        if last_round_over or (self.max_ticks is not None and self.tick >= self.max_ticks):
            self._finish()
        else:
            collector.hold()
        return TickStatus.ADVANCED

    def _next_round(self, ended: Any, following: Any) -> None:
        """Round ``self.round`` ended in state ``ended``; play goes on from ``following``."""
        self.round_outcomes.append(dict(self.world.outcome(ended)))
        self._tick_offset += self.world.tick_of(ended) - self.world.tick_of(following)
        self.round += 1
        self._state = following

    def _ask(self, agent_id: AgentId, state: Any, tick: int) -> Any:
        """``agent_id``'s action in ``state`` (the episode's tick ``tick``), or PENDING."""
        world = self.world
        obs = world.observe(state, agent_id)
        if agent_id not in self._observed:
            self._observed.add(agent_id)
            self._publish(ObservationEvent(tick=tick, agent=agent_id,
                                           digest=world.observation_digest(obs)))
        legal = world.legal_actions(state, agent_id)
        try:
            action = self.seats[agent_id].act(obs, legal)
        except Exception as exc:  # a broken mind must not end the episode
            self.emit(ErrorEvent(tick=tick, source=agent_id, kind="agent_crash",
                                 message=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"))
            return world.fallback_action(state, agent_id)
        if action is PENDING:
            return PENDING
        # one of the listed actions is legal when the list is every legal action (the world's
        # own check would list them again)
        reason = (None if world.legal_actions_exhaustive and action in legal
                  else world.why_illegal(state, agent_id, action))
        if reason is not None and self.seats[agent_id].retry_illegal:
            self.seats[agent_id].action_refused(action, reason)  # a person tries again
            return PENDING
        if reason is not None:
            fallback = world.fallback_action(state, agent_id)
            self.emit(ErrorEvent(tick=tick, source=agent_id, kind="illegal_action",
                                 message=f"{action!r} is not legal: {reason}; took {fallback!r} instead"))
            return fallback
        return action

    def _deliver(self, mechanism: Mechanism, intervention: Intervention, tick: int) -> None:
        """Number ``intervention``, record it, and hand it to its recipients."""
        intervention = intervention.with_id(self._next_intervention_id)
        self._next_intervention_id += 1
        self.emit(intervention.to_event(tick, mechanism.name))
        for agent_id in intervention.recipients():
            if agent_id in self.seats:
                self.seats[agent_id].receive(intervention)

    def run(self, max_steps: int | None = None) -> dict[str, Any]:
        """Step until done (or ``max_steps``), waiting for seats that answer in the background
        (asynchronous LLM seats). A seat that waits for a person is an error here."""
        steps = 0
        while not self._finished and (max_steps is None or steps < max_steps):
            status = self.advance()
            if status is TickStatus.WAITING:
                waiting = self.waiting_for()
                if not all(self.seats[a].wait(timeout=1.0) for a in waiting):
                    raise RuntimeError(f"seats {list(waiting)} gave no action and wait for input from outside; "
                                       "run() needs seats that answer by themselves (use advance() for humans)")
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
        collector.release()

    def outcome(self, stopped: bool = False) -> dict[str, Any]:
        """The world's outcome of the current (at the end: the last) round; with task rounds,
        also ``rounds`` (how many were played) and ``round_outcomes`` (the ended ones')."""
        out = dict(self.world.outcome(self._state))
        out["stopped"] = stopped
        if self.rounds > 1:
            out["rounds"] = self.round + 1
            out["round_outcomes"] = [dict(o) for o in self.round_outcomes]
        return out

    def metrics(self) -> dict[str, Any]:
        metrics: dict[str, Any] = {"ticks": self.tick, **self.counters}
        for seat in self.seats.values():  # the agents' own counts, summed over the seats
            counts = getattr(seat, "counters", None)
            for name, value in (counts() if callable(counts) else {}).items():
                if name not in self.counters and name != "ticks":
                    metrics[name] = metrics.get(name, 0) + value
        if self.llm_tokens:
            metrics["llm_tokens"] = {a: {m: dict(u) for m, u in mods.items()} for a, mods in self.llm_tokens.items()}
        return metrics
