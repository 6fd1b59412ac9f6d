"""Teaching questions ("Predict, then see"): declared in a scenario file, asked of the viewer.

Any world's scenario file may carry a ``questions`` list (read here, strictly, and kept out of the
world's spec, like ``start``)::

    "questions": [{
      "id": "sally-looks",
      "text": "Where will Sally look for the ball?",
      "ask": {"after": "moved"},
      "about": {"object": "ball", "minds": ["sally"]},
      "choices": [{"id": "basket", "text": "In the basket", "at": ["basket", "playroom"]},
                  {"id": "box", "text": "In the toy box", "at": ["box", "bedroom"]}],
      "reveal": {"by": "action", "agent": "sally", "events": ["walked", "opened", "grabbed"],
                 "says": "Sally looked for the ball"},
      "explain": "Sally did not see the ball move..."
    }]

* ``ask``: when the app pauses to ask: ``{"tick": N}`` (before step N is played) or ``{"after":
  KIND}`` (after the first step with a world event of that kind); ``before: AGENT`` waits further
  until that agent is about to act.
* ``choices``: what the viewer may answer; ``at`` lists the world's names (places, rooms...) that
  stand for the choice, in beliefs and in events.
* ``reveal``: how the answer is read from the event stream once play goes on: ``action``: the
  first world event of ``agent`` of one of ``events`` (from the asking step on) that names a place
  of a choice; ``belief``: what the chain of ``about.minds`` believes when it acts at the asking
  step (Anne's belief about Bob's belief), from its ``symbolic_beliefs`` snapshot.
* ``about``: the object asked about (its id, or its class as beliefs name it) and the chain of
  minds the question looks through. What each order of Theory of Mind predicts comes from the
  episode itself: order 0 predicts the object where it is (``World.locate``); order 1 where
  ``minds[0]`` believes it is (its zero-order beliefs); order 2 where ``minds[0]`` believes
  ``minds[1]`` believes it is (its first-order beliefs).

The viewer's answer is a ``PredictionEvent`` in the episode's stream (so the recording keeps it
and a replay shows it). The questions themselves go into the recording's header as the file
declared them (``Session(questions=...)``, ``Question.to_dict``), so a replay asks and answers the
same questions when the scenario file was edited or is gone (``recorded_questions``; recordings
of format version 2 and before did not keep them, and are read with their scenario's). Everything
here is pure: the app and the tests call the same functions on the same events.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sim.events import BeliefEvent, Event, MessageEvent, PredictionEvent, StepEvent

#: the field of every scenario file that holds its teaching questions (read by sim.registry)
QUESTIONS_FIELD = "questions"
MAX_QUESTIONS = 16
MAX_CHOICES = 6
NAME = r"^[a-z0-9][a-z0-9_-]*$"


class AskModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    tick: int | None = Field(None, ge=0, le=1_000_000, description="ask before this step is played")
    after: str | None = Field(None, min_length=1, max_length=40, description=(
        "ask after the first step with a world event of this kind (e.g. 'moved', 'opened')"))
    before: str | None = Field(None, min_length=1, max_length=60, description=(
        "and only when this agent is about to act"))

    @model_validator(mode="after")
    def _one_when(self) -> "AskModel":
        if (self.tick is None) == (self.after is None):
            raise ValueError("expected exactly one of 'tick' (a step) or 'after' (a world event kind)")
        return self


class ChoiceModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(pattern=NAME, max_length=40)
    text: str = Field(min_length=1, max_length=80, description="the button's words")
    at: list[str] = Field(min_length=1, max_length=8, description=(
        "the world's names (place, room, object ids) that stand for this choice in beliefs and events"))


class AboutModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    object: str = Field(min_length=1, max_length=60, description="the object asked about: its id or its class")
    minds: list[str] = Field(min_length=1, max_length=2, description=(
        "the chain of minds the question looks through: ['sally'] (where Sally believes it is) or "
        "['anne', 'bob'] (where Anne believes Bob believes it is)"))


class RevealModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    by: Literal["action", "belief"]
    agent: str | None = Field(None, min_length=1, max_length=60, description="action: whose action answers")
    events: list[str] = Field(default_factory=list, max_length=12, description=(
        "action: the world event kinds that count (e.g. walked, opened, grabbed)"))
    says: str = Field(min_length=1, max_length=120, description="what happened, in words: 'Sally looked for the ball'")

    @model_validator(mode="after")
    def _complete(self) -> "RevealModel":
        if self.by == "action" and (self.agent is None or not self.events):
            raise ValueError("a reveal by action needs 'agent' and 'events' (the world event kinds that answer)")
        if self.by == "belief" and (self.agent is not None or self.events):
            raise ValueError("a reveal by belief reads 'about.minds'; expected no 'agent' or 'events'")
        return self


class QuestionModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(pattern=NAME, max_length=40)
    text: str = Field(min_length=1, max_length=200, description="the question as the viewer reads it")
    ask: AskModel
    choices: list[ChoiceModel] = Field(min_length=2, max_length=MAX_CHOICES)
    reveal: RevealModel
    about: AboutModel | None = None
    explain: str = Field("", max_length=600, description="shown with the result: why it happened")

    @model_validator(mode="after")
    def _consistent(self) -> "QuestionModel":
        ids = [c.id for c in self.choices]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"choice id {twice[0]!r} occurs twice; expected distinct choice ids")
        if self.reveal.by == "belief" and self.about is None:
            raise ValueError("a reveal by belief needs 'about' (the object and the chain of minds)")
        return self


class _QuestionsField(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    questions: list[QuestionModel] = Field(max_length=MAX_QUESTIONS)


@dataclass(frozen=True)
class Choice:
    id: str
    text: str
    at: tuple[str, ...]


@dataclass(frozen=True)
class Question:
    """One teaching question of a scenario (see the module docs)."""

    id: str
    text: str
    choices: tuple[Choice, ...]
    ask_tick: int | None = None
    ask_after: str | None = None
    ask_before: str | None = None
    reveal_by: str = "action"
    reveal_agent: str | None = None
    reveal_events: tuple[str, ...] = ()
    says: str = ""
    about_object: str | None = None
    minds: tuple[str, ...] = ()
    explain: str = ""

    def choice(self, choice_id: str | None) -> Choice | None:
        return next((c for c in self.choices if c.id == choice_id), None)

    def choice_at(self, name: str | None) -> Choice | None:
        """The choice that ``name`` (a place, a room...) stands for."""
        return next((c for c in self.choices if name in c.at), None) if name else None

    def to_dict(self) -> dict[str, Any]:
        """The question as a scenario file declares it (what a recording's header keeps, read
        back by ``read_questions``)."""
        ask: dict[str, Any] = {"tick": self.ask_tick} if self.ask_tick is not None else {"after": self.ask_after}
        if self.ask_before is not None:
            ask["before"] = self.ask_before
        reveal: dict[str, Any] = {"by": self.reveal_by}
        if self.reveal_agent is not None:
            reveal["agent"] = self.reveal_agent
        if self.reveal_events:
            reveal["events"] = list(self.reveal_events)
        reveal["says"] = self.says
        out: dict[str, Any] = {"id": self.id, "text": self.text, "ask": ask,
                               "choices": [{"id": c.id, "text": c.text, "at": list(c.at)} for c in self.choices],
                               "reveal": reveal}
        if self.about_object is not None:
            out["about"] = {"object": self.about_object, "minds": list(self.minds)}
        if self.explain:
            out["explain"] = self.explain
        return out


def split_questions(data: dict[str, Any], source: str, error: type[Exception]) -> tuple[dict[str, Any], list[QuestionModel]]:
    """Scenario data without its ``questions`` field, and that field checked strictly (``error``
    names ``source`` and the field)."""
    from sim.inputs import validate_model

    if QUESTIONS_FIELD not in data:
        return data, []
    rest = dict(data)
    found = validate_model(_QuestionsField, {QUESTIONS_FIELD: rest.pop(QUESTIONS_FIELD)}, source, error)
    return rest, list(found.questions)


def check_questions(models: Sequence[QuestionModel], names: Collection[str] | None, agents: Collection[str] | None,
                    source: str, error: type[Exception]) -> tuple[Question, ...]:
    """The questions, their names checked against the world's (``World.names``: rooms, places,
    objects...) and its agents (None: not checked); one ``error`` naming the field and the value
    otherwise."""

    def fail(where: str, what: str) -> None:
        raise error(f"{source}: field '{QUESTIONS_FIELD}{where}': {what}")

    def agent(where: str, name: str | None) -> None:
        if name is not None and agents is not None and name not in agents:
            fail(where, f"expected an agent of the scenario ({', '.join(agents)}), got {name!r:.60}")

    out = []
    seen: dict[str, int] = {}
    for i, q in enumerate(models):
        if q.id in seen:
            fail(f"[{i}].id", f"{q.id!r} is already the id of questions[{seen[q.id]}]; expected distinct ids")
        seen[q.id] = i
        agent(f"[{i}].ask.before", q.ask.before)
        agent(f"[{i}].reveal.agent", q.reveal.agent)
        if q.about is not None:
            for j, mind in enumerate(q.about.minds):
                agent(f"[{i}].about.minds[{j}]", mind)
            if names is not None and q.about.object not in names:
                fail(f"[{i}].about.object", f"expected an object id or class of the scenario, got {q.about.object!r:.60}")
        for j, c in enumerate(q.choices):
            for k, name in enumerate(c.at):
                if names is not None and name not in names and name not in (agents or ()):
                    fail(f"[{i}].choices[{j}].at[{k}]",
                         f"expected a name of the scenario's world (a place, room, object...), got {name!r:.60}")
        out.append(Question(
            id=q.id, text=q.text, choices=tuple(Choice(c.id, c.text, tuple(c.at)) for c in q.choices),
            ask_tick=q.ask.tick, ask_after=q.ask.after, ask_before=q.ask.before, reveal_by=q.reveal.by,
            reveal_agent=q.reveal.agent, reveal_events=tuple(q.reveal.events), says=q.reveal.says,
            about_object=q.about.object if q.about else None, minds=tuple(q.about.minds) if q.about else (),
            explain=q.explain))
    return tuple(out)


def read_questions(value: Any, agents: Collection[str] | None, source: str,
                   error: type[Exception]) -> tuple[Question, ...]:
    """A ``questions`` list in its file form (``Question.to_dict``: a recording's header keeps the
    questions its episode was played with), checked as strictly as a scenario file's, its agents
    against ``agents`` (None: not checked); the world's names are not checked (nothing is built
    here: a name the world lacks only matches no event and no belief)."""
    from sim.inputs import validate_model

    found = validate_model(_QuestionsField, {QUESTIONS_FIELD: value}, source, error)
    return check_questions(found.questions, None, agents, source, error)


def recorded_questions(header: Mapping[str, Any]) -> tuple[Question, ...] | None:
    """The questions a recording's header (or a Session's ``header()``) says its episode was
    played with, or None when it does not say (recordings of format version 2 and before did not
    keep them: their scenario file is the only source). The recording loader has checked them."""
    value = header.get(QUESTIONS_FIELD)
    if value is None:
        return None
    seats = header.get("seats")
    return read_questions(value, list(seats) if isinstance(seats, Mapping) else None, "recording header", ValueError)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the ``questions`` field, for the scenario schemas of the worlds."""
    schema = _QuestionsField.model_json_schema()
    field = schema["properties"][QUESTIONS_FIELD]
    field["description"] = ("teaching questions ('Predict, then see'): the app pauses where they are due, asks "
                            "the viewer, and shows after the reveal what happened and what each order of Theory "
                            "of Mind predicted")
    return {**field, "$defs": schema.get("$defs", {})}


# ---------------------------------------------------------------------------------- asking


def ask_tick(question: Question, events: Iterable[Event]) -> int | None:
    """The step before which ``question`` is due (None: its trigger has not happened yet)."""
    if question.ask_tick is not None:
        return question.ask_tick
    for event in events:
        if isinstance(event, StepEvent) and any(w.get("kind") == question.ask_after for w in event.world_events):
            return event.tick + 1
    return None


def answers(events: Iterable[Event]) -> dict[str, PredictionEvent]:
    """The viewer's answers in a stream, by question id (the first answer counts)."""
    found: dict[str, PredictionEvent] = {}
    for event in events:
        if isinstance(event, PredictionEvent):
            found.setdefault(event.question, event)
    return found


def due(questions: Sequence[Question], events: Sequence[Event], tick: int,
        active: Collection[str]) -> Question | None:
    """The question to ask before step ``tick`` is played (agents ``active`` about to act), or
    None. A question is due from its asking step on, until it is answered or its answer showed
    (a viewer who turns the mode on late is not asked what already happened)."""
    answered = answers(events)
    for q in questions:
        if q.id in answered:
            continue
        at = ask_tick(q, events)
        if at is None or tick < at or (q.ask_before is not None and q.ask_before not in active):
            continue
        if reveal(q, events, at).choice is None and not _revealed_after(q, events, at):
            return q
    return None


def _revealed_after(q: Question, events: Sequence[Event], at: int) -> bool:
    """A belief reveal is read from the minds' snapshots after the asking step: once they are in
    the stream the question is past."""
    return q.reveal_by == "belief" and _snapshot(events, q.minds[0], at) is not None


# ---------------------------------------------------------------------------------- seeing

_ATOM = re.compile(r"^<(?P<subject>[^>]+)>\(\d+\) (?:ON|IN) <(?P<place>[^>]+)>\(\d+\)$")


@dataclass(frozen=True)
class Seen:
    """What happened: the choice it matched (None: not yet, or none of them), the step, the
    words of the event, and the messages the revealing mind received (or sent) meanwhile."""

    choice: Choice | None = None
    tick: int | None = None
    detail: str = ""
    messages: tuple[str, ...] = ()


def _snapshot(events: Iterable[Event], owner: str, at: int) -> dict[str, Any] | None:
    """``owner``'s first ``symbolic_beliefs`` snapshot after step ``at`` was chosen (the mind that
    acted at the asking step: a snapshot stamped ``at + 1``)."""
    for event in events:
        if isinstance(event, BeliefEvent) and event.owner == owner and event.kind == "symbolic_beliefs" \
                and event.tick > at:
            return event.data
    return None


def believed_place(entries: Any, obj: str) -> str | None:
    """The place a list of belief statements puts ``obj`` at with p >= 0.5 (None: unsure)."""
    best: tuple[float, str] | None = None
    for entry in entries if isinstance(entries, list) else ():
        match = _ATOM.match(str(entry.get("atom", ""))) if isinstance(entry, Mapping) else None
        p = entry.get("p") if match else None
        if match and match["subject"] == obj and isinstance(p, (int, float)) and p >= 0.5:
            if best is None or p > best[0]:
                best = (float(p), match["place"])
    return best[1] if best else None


def _subject(q: Question, beliefs_name: str | None = None) -> str:
    """The object's name in beliefs: its class (``ball_1`` is believed of as ``<ball>``)."""
    obj = beliefs_name or q.about_object or ""
    return re.sub(r"_\d+$", "", obj)


def belief_of(q: Question, events: Sequence[Event], at: int, order: int) -> tuple[str | None, bool]:
    """(the place the chain of minds believes at ``order`` (1 or 2), whether the snapshot exists)."""
    data = _snapshot(events, q.minds[0], at)
    if data is None:
        return None, False
    if order == 1:
        return believed_place(data.get("zero_order"), _subject(q)), True
    model = (data.get("first_order") or {}).get(q.minds[1]) if len(q.minds) > 1 else None
    return believed_place(model, _subject(q)), True


def reveal(q: Question, events: Sequence[Event], at: int) -> Seen:
    """What happened, read from the stream (``Seen()`` while it has not shown yet)."""
    if q.reveal_by == "belief":
        place, there = belief_of(q, events, at, len(q.minds))
        if not there:
            return Seen()
        tick = at + 1
        sender, to = q.minds[0], q.minds[1] if len(q.minds) > 1 else None
        told = tuple(f"{e.sender} sent {', '.join(e.recipients)} a message at step {e.tick}" for e in events
                     if isinstance(e, MessageEvent) and e.sender == sender and at <= e.tick <= tick
                     and (to is None or to in e.recipients))
        return Seen(q.choice_at(place), tick, f"{' believes '.join(q.minds)} believes it is at {place or 'no place'}",
                    told)
    for event in events:
        if not isinstance(event, StepEvent) or event.tick < at:
            continue
        for w in event.world_events:
            if w.get("agent") != q.reveal_agent or w.get("kind") not in q.reveal_events:
                continue
            data = w.get("data") or {}
            for value in data.values() if isinstance(data, Mapping) else ():
                choice = q.choice_at(value) if isinstance(value, str) else None
                if choice is not None:
                    messages = tuple(f"{m.sender} sent {q.reveal_agent} a message at step {m.tick}" for m in events
                                     if isinstance(m, MessageEvent) and q.reveal_agent in m.recipients
                                     and at <= m.tick < event.tick)
                    return Seen(choice, event.tick, f"{q.reveal_agent} {w.get('kind')} {value} at step {event.tick}",
                                messages)
    return Seen()


@dataclass(frozen=True)
class Prediction:
    """What a mind reasoning at ``order`` predicts: ``choice`` (None: it cannot tell) and why."""

    order: int
    choice: Choice | None
    basis: str


def predictions(q: Question, events: Sequence[Event], at: int, truth: str | None) -> tuple[Prediction, ...]:
    """What each order of Theory of Mind predicts, from the episode: order 0 the object where it
    is (``truth``: ``World.locate`` at the asking step), order k >= 1 the chain of minds' beliefs
    (their snapshots when they acted at the asking step). Empty without ``about``."""
    if not q.minds:
        return ()
    obj = q.about_object
    out = [Prediction(0, q.choice_at(truth), f"where the {_subject(q)} is")]
    for order in range(1, len(q.minds) + 1):
        place, _ = belief_of(q, events, at, order)
        chain = " believes ".join(q.minds[:order])
        out.append(Prediction(order, q.choice_at(place), f"where {chain} believes the {_subject(q, obj)} is"))
    return tuple(out)


@dataclass(frozen=True)
class Result:
    """A question after the reveal: the viewer's answer, what happened, each order's prediction."""

    question: Question
    asked_at: int
    answer: Choice | None
    seen: Seen
    orders: tuple[Prediction, ...]

    @property
    def right(self) -> bool | None:
        if self.answer is None or self.seen.choice is None:
            return None
        return self.answer.id == self.seen.choice.id

    def matching_orders(self) -> list[int]:
        return [p.order for p in self.orders if p.choice is not None and self.seen.choice is not None
                and p.choice.id == self.seen.choice.id]


def result(q: Question, events: Sequence[Event], truth_at: Any) -> Result | None:
    """The result of ``q`` once it was asked and revealed (None before). ``truth_at(tick, obj)``:
    where ``obj`` is at step ``tick`` (``World.locate`` of the state then)."""
    at = ask_tick(q, events)
    if at is None:
        return None
    seen = reveal(q, events, at)
    if seen.choice is None and seen.tick is None:
        return None
    given = answers(events).get(q.id)
    truth = truth_at(at, q.about_object) if q.about_object else None
    return Result(q, at, q.choice(given.choice) if given else None, seen, predictions(q, events, at, truth))


def ordinal(order: int) -> str:
    return {0: "0th", 1: "1st", 2: "2nd"}.get(order, f"{order}th")
