"""Typed belief snapshots: every kind a shipped agent or mechanism emits is registered, a
snapshot that does not fit its kind is refused where it is emitted, and payloads give back the
recorded dict exactly."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings, strategies as st

from agents.registry import agent_kinds, make_agent, make_mechanism, mechanism_kinds
from sim.events import BeliefEvent
from sim.plugins import plugins
from sim.registry import load_scenario
from sim.seats import Agent
from sim.session import Session
from sim.snapshots import (
    ABSENT,
    GoalPosterior,
    Plan,
    SnapshotError,
    SnapshotPayload,
    TeamState,
    checked_snapshot,
    read_snapshot,
    register_snapshot_kind,
    snapshot_kinds,
    snapshot_kinds_registered,
    snapshot_type,
)
from tests.llm_loopback import LoopbackLLM
from tests.test_conformance import first_scenario, loopback_or_plain, play, worlds_of

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

STEPS = 6


def _cases(kinds: dict[str, Any]) -> list[Any]:
    """Every kind in every world it plays (``worlds_of``: those that declare what it needs)."""
    return [pytest.param(name, family, id=f"{name}@{family}")
            for name, kind in sorted(kinds.items()) for family in worlds_of(kind)]


@pytest.fixture(scope="module")
def llm_server():
    with LoopbackLLM("ok") as server:
        yield server


def _snapshots(session: Session) -> list[BeliefEvent]:
    try:
        play(session, STEPS)
    finally:
        session.stop()
    return [e for e in session.events if isinstance(e, BeliefEvent)]


def _check_all(snapshots: list[BeliefEvent]) -> None:
    for event in snapshots:
        assert snapshot_type(event.kind) is not None, f"{event.owner} emitted unregistered kind {event.kind!r}"
        payload = snapshot_type(event.kind).from_dict(event.data)
        assert json.dumps(payload.to_dict()) == json.dumps(event.data)  # the same dict, keys in the same order


@pytest.mark.parametrize("kind, family", _cases(agent_kinds()))
def test_every_kind_an_agent_emits_is_registered_and_round_trips(kind, family, llm_server):
    world, name = load_scenario(str(first_scenario(family)))
    made = {a: loopback_or_plain(make_agent, kind, family, llm_server)[0] for a in world.agents}
    _check_all(_snapshots(Session(world, made, seed=1, scenario=name)))


@pytest.mark.parametrize("kind, family", _cases(mechanism_kinds()))
def test_every_kind_a_mechanism_emits_is_registered_and_round_trips(kind, family, llm_server):
    world, name = load_scenario(str(first_scenario(family)))
    mechanism, _ = loopback_or_plain(make_mechanism, kind, family, llm_server)
    seats = {a: make_agent(plugins()[family].default_agent, family) for a in world.agents}
    _check_all(_snapshots(Session(world, seats, seed=1, scenario=name, mechanisms=[mechanism])))


class Speaker(Agent):
    """Waits, and reports whatever snapshot it was given."""

    kind = "speaker"

    def __init__(self, snapshot: tuple[str, Any]) -> None:
        self.snapshot = snapshot

    def act(self, observation, legal_actions):
        return legal_actions[0]

    def belief_snapshots(self):
        return [self.snapshot]


def _session(snapshot: tuple[str, Any]) -> Session:
    world, name = load_scenario(str(first_scenario("dkg")))
    return Session(world, {a: Speaker(snapshot) for a in world.agents}, seed=1, scenario=name)


@pytest.mark.parametrize("snapshot, message", [
    (("plans", {"rule": "x"}), r"emitted a snapshot of unknown kind 'plans' \(registered kinds: .*plan"),
    (("plan", {"rule": 3}), r"emitted a 'plan' snapshot that does not fit it: field 'rule' must be text, got int 3"),
    (("plan", {"subgoal": "x"}), r"a plan needs field 'rule' or field 'task'"),
    (("goal_posterior", {"agent": "a"}), r"'goal_posterior' snapshot .*field 'goals' is missing"),
    (("goal_posterior", {"agent": "a", "goals": {"g": 1}, "x": 1}), r"field 'x' is not a field of this kind"),
    (("goal_posterior", {"agent": "a", "goals": {"g": "high"}}), r"field 'goals'\['g'\] must be a number"),
    (("predictions", {"about": "everyone"}), r"field 'about' must be an object, got str 'everyone'"),
    (("predictions", Plan(rule="x")), r"'predictions' snapshot as a Plan; the kind's payload type is Predictions"),
])
def test_a_snapshot_that_does_not_fit_its_kind_is_refused_naming_the_agent_kind_and_field(snapshot, message):
    session = _session(snapshot)
    with pytest.raises(SnapshotError, match=message) as caught:
        session.advance()
    first = session.world.agents[0]
    assert str(caught.value).startswith(f"{first!r} emitted")


def test_a_typed_payload_is_recorded_as_the_dict_it_stands_for():
    session = _session(("plan", Plan(task="wander", path=[[1, 2]], extra={"mood": "calm"})))
    session.advance()
    plans = [e for e in session.events if isinstance(e, BeliefEvent)]
    assert plans and plans[0].data == {"task": "wander", "path": [[1, 2]], "mood": "calm"}
    assert list(plans[0].data) == ["task", "path", "mood"]


@dataclass(frozen=True, kw_only=True)
class Mood(SnapshotPayload):
    kind: ClassVar[str] = "test_mood"
    mood: str
    level: int = ABSENT


def test_a_plug_in_registers_a_kind_of_its_own():
    assert "test_mood" not in snapshot_kinds()
    with snapshot_kinds_registered(Mood):
        assert snapshot_kinds()["test_mood"] is Mood
        session = _session(("test_mood", Mood(mood="calm")))
        session.advance()
        assert [e.data for e in session.events if isinstance(e, BeliefEvent)][0] == {"mood": "calm"}
        with pytest.raises(TypeError, match="registered twice"):
            register_snapshot_kind(dataclass(frozen=True, kw_only=True)(
                type("Other", (SnapshotPayload,), {"kind": "test_mood", "__annotations__": {"kind": "ClassVar[str]"}})))
        with snapshot_kinds_registered(Mood, GoalPosterior):  # registered already: kept when the block ends
            pass
        assert snapshot_kinds()["test_mood"] is Mood and snapshot_kinds()["goal_posterior"] is GoalPosterior
    assert "test_mood" not in snapshot_kinds()  # the kind does not outlive the block
    assert snapshot_kinds()["goal_posterior"] is GoalPosterior


def test_panels_read_a_snapshot_that_does_not_fit_as_nothing():
    assert read_snapshot(GoalPosterior, {"agent": "a", "goals": {"g": 0.5}}).goals == {"g": 0.5}
    assert read_snapshot(GoalPosterior, {"agent": "a"}) is None
    assert read_snapshot(TeamState, "garbled") is None


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                       max_size=3), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(rule=st.text(max_size=8), extra=st.dictionaries(st.sampled_from(["belief", "claims", "zed", "a"]), json_values,
                                                       max_size=3), first=st.booleans())
def test_open_payloads_round_trip_to_the_same_dict_in_the_same_order(rule, extra, first):
    data = {**extra, "rule": rule} if first else {"rule": rule, **extra}
    back = checked_snapshot("alice", "plan", data)
    assert back == data and list(back) == list(data)


@settings(max_examples=150, deadline=None)
@given(agent=st.text(max_size=6), goals=st.dictionaries(st.text(max_size=4), st.floats(allow_nan=False) | st.integers(),
                                                         max_size=4))
def test_closed_payloads_round_trip(agent, goals):
    data = {"goals": goals, "agent": agent}
    assert list(checked_snapshot("bob", "goal_posterior", data)) == ["goals", "agent"]
    assert GoalPosterior(agent=agent, goals=goals).to_dict() == {"agent": agent, "goals": goals}


def _field_types() -> list[Any]:
    """Every declared field type of every registered kind, and the parts of the unions in them."""
    from sim.snapshots import _hints

    found: list[Any] = []
    for cls in snapshot_kinds().values():
        for name in cls.declared():
            tp = _hints(cls)[name]
            if tp not in found:
                found.append(tp)
    return found


@settings(max_examples=300, deadline=None)
@given(value=json_values | st.lists(st.lists(st.none() | st.floats(allow_nan=False) | st.integers(), max_size=3),
                                    max_size=3)
       | st.dictionaries(st.text(max_size=3), st.lists(st.text(max_size=3), max_size=2) | st.integers(), max_size=3),
       tp=st.sampled_from(_field_types()))
def test_the_fast_fit_says_what_the_message_check_says(value, tp):
    """``_fits`` (what ``from_dict`` asks first) holds exactly when ``_mismatch`` finds nothing."""
    from sim.snapshots import _fits, _mismatch

    assert _fits(value, tp) == (_mismatch(value, tp, "field") is None)
