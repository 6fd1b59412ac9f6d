"""The human seat: an Agent whose actions come from a person (keyboard, mouse).

The desktop app runs the Session in a worker thread; the person's intents reach the
seat through thread-safe queues:

- ``submit(action)``: the next action. ``act`` returns ``PENDING`` until one is queued,
  so the Session waits for the person on their turn. The Session judges legality; an
  action that is not legal is refused (``action_refused``, shown to the person through
  ``on_refused``) and the seat waits for the next one, rather than taking a fallback.
  Any number of human seats can play, in turn-taking and simultaneous worlds alike.
- ``decide(feedback_id, accept)``: the person's answer to a facilitator's feedback.
  The seat reports it as a FeedbackStatusEvent (``accepted`` or ``ignored``) from the
  worker thread (``poll``), and, for an accepted feedback, reports ``completed`` or
  ``not_executable`` once the world's plug-in judges the suggested task done or
  impossible (``WorldPlugin.feedback_progress``), as the planner agents do.
- ``rate(other, rating)``: the person's alignment self-evaluation of another agent (seed 000,
  Appendix A: how well the other's actions matched what the person believed they would do), on
  a 5-point scale (``RATING_SCORES``: 1 "not at all" = -1 ... 5 "exactly" = +1; None: not rated).
  Ratings are remembered until the person changes them. At the end of every team round
  (``set_rating_round(round_steps)``, a team mechanism's round length; 1 step unless told;
  ``"task"``: at the end of each task round, when the state the seat is shown ends the round) the
  seat reports the ratings in force as an ``alignment_self_evaluation`` snapshot
  ``{"scores": {other: phi}, "ratings": {other: 1..5}, ...}``, which a team mechanism reads as the
  person's phi like an LLM agent's Appendix A answer. Nothing rated: no snapshot, and the
  person's phi stays unknown (the default, and always so headless).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from typing import Any

from sim.events import FeedbackStatusEvent
from sim.plugins import plugins, resolve
from sim.rounds import TASK_ROUND
from sim.seats import PENDING, Agent, Feedback, SeatContext
from sim.snapshots import SelfEvaluation

#: the 5-point answer to "did they act as you expected?" and the phi in [-1, 1] it stands for
RATING_SCORES: dict[int, float] = {1: -1.0, 2: -0.5, 3: 0.0, 4: 0.5, 5: 1.0}
RATING_WORDS: dict[int, str] = {1: "not at all", 2: "rather not", 3: "half and half", 4: "mostly", 5: "exactly"}
RATING_QUESTION = "Did {other} act as you expected?"
RATING_SCALE = ", ".join(f"{k} {w} ({RATING_SCORES[k]:+g})" for k, w in RATING_WORDS.items())
SELF_EVALUATION_KIND = SelfEvaluation.kind


class HumanAgent(Agent):
    kind = "human"
    retry_illegal = True

    def __init__(self, name: str = "") -> None:
        #: shown in the app (e.g. the person's name); not used by the rules
        self.name = name
        self._actions: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._decisions: "queue.SimpleQueue[tuple[int, bool]]" = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._offered: dict[int, Feedback] = {}  # feedback awaiting the person's decision
        self.following: Feedback | None = None
        #: called (from the worker thread) when new feedback awaits a decision
        self.on_feedback: Any = None
        #: called (from the worker thread) with (action, reason) when an action was refused
        self.on_refused: Any = None
        self.last_refusal: tuple[Any, str] | None = None
        self._ratings: dict[str, int] = {}
        self._rating_round: int | str = 1
        self._rounds_rated = 0  # task rounds whose end was reported (``"task"``)
        self._steps = 0

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self._drain(self._actions)
        self._drain(self._decisions)
        with self._lock:
            self._offered.clear()
            self._ratings.clear()
        self._steps = 0
        self._rounds_rated = 0
        self.following = None
        self._last_state: Any = None
        self.last_refusal = None
        reference = getattr(plugins().get(ctx.world.family), "feedback_progress", None)
        self._progress = resolve(reference) if reference else None

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

    def rate(self, other: str, rating: int | None) -> None:
        """The person's rating of ``other`` (1..5, see ``RATING_SCORES``), remembered until changed;
        None withdraws it (``other`` is unknown again)."""
        ctx = getattr(self, "ctx", None)
        if ctx is None:
            raise ValueError("rate: this seat is not in an episode yet")
        others = [a for a in ctx.world.agents if a != ctx.agent_id]
        if other not in others:
            raise ValueError(f"rate: {other!r} is not another agent of this world (the others: {others})")
        if rating is not None and (isinstance(rating, bool) or rating not in RATING_SCORES):
            raise ValueError(f"rate: a rating of {other} must be 1, 2, 3, 4 or 5 (or None), got {rating!r}")
        with self._lock:
            if rating is None:
                self._ratings.pop(other, None)
            else:
                self._ratings[other] = int(rating)

    @property
    def ratings(self) -> dict[str, int]:
        """The ratings in force: other agent -> 1..5."""
        with self._lock:
            return dict(self._ratings)

    def set_rating_round(self, round_steps: int | str) -> None:
        """Report the ratings every ``round_steps`` world steps (a team mechanism's round), or at the
        end of each task round (``"task"``)."""
        if round_steps != TASK_ROUND and (isinstance(round_steps, bool) or not isinstance(round_steps, int)
                                          or round_steps < 1):
            raise ValueError(f"set_rating_round: round_steps must be a whole number >= 1 or '{TASK_ROUND}', "
                             f"got {round_steps!r}")
        self._rating_round = round_steps
        self._rounds_rated = 0

    @property
    def rating_round(self) -> int | str:
        return self._rating_round

    @property
    def offered(self) -> list[Feedback]:
        with self._lock:
            return list(self._offered.values())

    # ----------------------------------------------------------------- worker thread

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        self.poll()
        try:
            return self._actions.get_nowait()
        except queue.Empty:
            return PENDING

    def action_refused(self, action: Any, reason: str) -> None:
        self.last_refusal = (action, reason)
        if self.on_refused is not None:
            self.on_refused(action, reason)

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
                self._status(feedback, "accepted")
            else:
                self._status(feedback, "ignored")
        self._check_following()

    def _status(self, feedback: Feedback, status: str) -> None:
        self.ctx.emit(FeedbackStatusEvent(tick=self.ctx.tick, feedback_id=feedback.feedback_id,
                                          agent=self.ctx.agent_id, status=status))

    def _check_following(self, state: Any = None) -> None:
        """Report an accepted feedback completed or impossible, as the world's plug-in judges."""
        state = state if state is not None else self._last_state
        if self.following is None or self._progress is None or state is None:
            return
        verdict = self._progress(self.ctx.world, state, self.ctx.agent_id, self.following.payload)
        if verdict in ("completed", "not_executable"):
            self._status(self.following, verdict)
            self.following = None

    def observe_state(self, state: Any) -> None:
        """The Session's thread reports each new state (the seat may not be asked to act in it)."""
        self._last_state = state
        self._steps += 1
        self._check_following(state)

    def belief_snapshots(self) -> Sequence[tuple[str, SelfEvaluation]]:
        """At the end of each team round, the person's ratings in force (none: nothing)."""
        if self._rating_round == TASK_ROUND:
            if self._last_state is None or not self.ctx.world.done(self._last_state):
                return ()
            self._rounds_rated += 1
            number = self._rounds_rated
        elif self._steps == 0 or self._steps % self._rating_round:
            return ()
        else:
            number = self._steps // self._rating_round
        rated = self.ratings
        ratings = {a: rated[a] for a in self.ctx.world.agents if a in rated}  # in the world's order
        if not ratings:
            return ()
        return [(SELF_EVALUATION_KIND, SelfEvaluation(
            scores={other: RATING_SCORES[r] for other, r in ratings.items()},
            extra={"ratings": ratings,
                   "answers": {other: RATING_WORDS[r] for other, r in ratings.items()},
                   "question": RATING_QUESTION.format(other="they"),
                   "scale": RATING_SCALE,
                   "round": number}))]
