"""The human seat: an Agent whose actions come from a person (keyboard, mouse).

The desktop app runs the Session in a worker thread; the person's intents reach the
seat through thread-safe queues:

- ``submit(action)``: the next action. ``act`` returns ``PENDING`` until one is queued,
  so the Session waits for the person on their turn. A queued action that is no longer
  legal is dropped (the person pressed a key for a move that is blocked).
- ``decide(feedback_id, accept)``: the person's answer to a facilitator's feedback.
  The seat reports it as a FeedbackStatusEvent (``accepted`` or ``ignored``) from the
  worker thread (``poll``), and, for an accepted feedback in Doors, Keys and Gems,
  reports ``completed`` or ``not_executable`` once the suggested task is done or can no
  longer be done, as the planner agents do.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from typing import Any

from agents.registry import AgentKind
from sim.events import FeedbackStatusEvent
from sim.seats import PENDING, Agent, Feedback, SeatContext


class HumanAgent(Agent):
    kind = "human"

    def __init__(self, name: str = "") -> None:
        #: shown in the app (e.g. the person's name); not used by the rules
        self.name = name
        self._actions: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._decisions: "queue.SimpleQueue[tuple[int, bool]]" = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._offered: dict[int, Feedback] = {}  # feedback awaiting the person's decision
        self.following: Feedback | None = None
        self._following_task: Any = None
        #: called (from the worker thread) when new feedback awaits a decision
        self.on_feedback: Any = None

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self._drain(self._actions)
        self._drain(self._decisions)
        with self._lock:
            self._offered.clear()
        self.following = None
        self._following_task = None
        self._last_state: Any = None

    @staticmethod
    def _drain(q: "queue.SimpleQueue[Any]") -> None:
        while True:
            try:
                q.get_nowait()
            except queue.Empty:
                return

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, **({"name": self.name} if self.name else {})}

    # --------------------------------------------------------- from the person (any thread)

    def submit(self, action: Any) -> None:
        """Queue the person's next action."""
        self._actions.put(action)

    def decide(self, feedback_id: int, accept: bool) -> None:
        """Queue the person's answer to feedback ``feedback_id``."""
        self._decisions.put((int(feedback_id), bool(accept)))

    def has_decisions(self) -> bool:
        return not self._decisions.empty()

    def clear_actions(self) -> None:
        self._drain(self._actions)

    @property
    def offered(self) -> list[Feedback]:
        with self._lock:
            return list(self._offered.values())

    # ----------------------------------------------------------------- worker thread

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        state = getattr(observation, "state", None)
        if state is not None:
            self._last_state = state
        self.poll()
        while True:
            try:
                action = self._actions.get_nowait()
            except queue.Empty:
                return PENDING
            if action in legal_actions or self._world_allows(observation, action):
                return action
            # A key pressed for a move that is not possible now: forget it, keep waiting.

    def _world_allows(self, observation: Any, action: Any) -> bool:
        """Worlds whose ``legal_actions`` are only representative (TradeCraft: any amounts, any
        message, fractional crafts) judge an action from the seat's observation themselves."""
        judge = getattr(self.ctx.world, "why_illegal_for", None)
        return judge is not None and judge(observation, action) is None

    def receive_feedback(self, feedback: Feedback) -> None:
        with self._lock:
            self._offered[feedback.feedback_id] = feedback
        if self.on_feedback is not None:
            self.on_feedback(feedback)

    def poll(self) -> None:
        """Report the person's decisions and the progress of accepted feedback. The Session's
        thread calls this before each step and while it waits."""
        while True:
            try:
                fid, accept = self._decisions.get_nowait()
            except queue.Empty:
                break
            with self._lock:
                feedback = self._offered.pop(fid, None)
            if feedback is None:
                continue  # answered twice, or already replaced
            if accept:
                if self.following is not None:  # a newer suggestion replaces an unfinished one
                    self._status(self.following, "ignored")
                self.following = feedback
                self._following_task = self._task_for(feedback)
                self._status(feedback, "accepted")
            else:
                self._status(feedback, "ignored")
        self._check_following()

    def _status(self, feedback: Feedback, status: str) -> None:
        self.ctx.emit(FeedbackStatusEvent(tick=self.ctx.tick, feedback_id=feedback.feedback_id,
                                          agent=self.ctx.agent_id, status=status))

    # A person's progress on a suggestion is judged by the world's planner, where one exists.

    def _task_for(self, feedback: Feedback) -> Any:
        from sim.dkg.world import DKGWorld

        if isinstance(self.ctx.world, DKGWorld):
            from agents.dkg.agents import task_from_feedback
            try:
                return task_from_feedback(self.ctx.world, feedback.payload)
            except (KeyError, ValueError):
                return None
        return None

    def _check_following(self, state: Any = None) -> None:
        if self.following is None or self._following_task is None:
            return
        from agents.dkg.agents import planner_for
        from agents.dkg.planner import INF

        world = self.ctx.world
        state = state if state is not None else self._last_state
        if state is None:
            return
        plan = planner_for(world).plan(state, world.agent_index[self.ctx.agent_id], self._following_task)
        if plan.cost == 0 or plan.cost == INF:
            self._status(self.following, "completed" if plan.cost == 0 else "not_executable")
            self.following = None
            self._following_task = None

    def observe_state(self, state: Any) -> None:
        """The Session's thread reports each new state (the seat may not be asked to act in it)."""
        self._last_state = state
        self._check_following(state)


def _all_families() -> tuple[str, ...]:
    from sim.registry import families
    return tuple(sorted(families()))


# A person can sit at any world's seat.
AGENT_KINDS = [
    AgentKind("human", _all_families(), "a person at the keyboard (the desktop app)", HumanAgent),
]
