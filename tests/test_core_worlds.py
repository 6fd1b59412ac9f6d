"""The core carries any world and any mechanism: a test world declared from outside sim/
(simultaneous moves, partial observation, messages) runs headless and in the app through the
same Session, records and replays exactly, and is played by two people in the same tick; a
team mechanism regroups agents beside ProToM, and its events reach the recording and a panel."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest

from agents.registry import make_agent, make_mechanism
from sim.events import BeliefEvent, FeedbackEvent, MessageEvent, StepEvent, TeamEvent
from sim.recording import RecordingWriter, load_recording
from sim.registry import load_scenario
from sim.replay import Replay
from sim.seats import Mechanism, StepView, TeamAssignment
from sim.session import Session
from sim.snapshots import SnapshotPayload, snapshot_kinds_registered
from tests import rooms_world
from tests.rooms_world import RoomsWorld, WalkerAgent
from tests.ui_support import make_window
from ui.session.catalog import SessionPlan


@pytest.fixture(autouse=True)
def rooms_plugin():
    with rooms_world.installed(), snapshot_kinds_registered(RegroupState):
        yield


def test_messages_cost_a_step_reach_the_others_observation_and_are_counted():
    world = RoomsWorld()
    session = Session(world, {"alice": WalkerAgent(), "bob": WalkerAgent()}, seed=0, scenario="two-rooms-talk")
    outcome = session.run()
    messages = [e for e in session.events if isinstance(e, MessageEvent)]
    # Each walker says one thing at the door; the world made it cost that agent's step.
    assert [(m.sender, m.recipients) for m in messages] == [("alice", ["bob"]), ("bob", ["alice"])]
    assert messages[0].text == "I am passing the door at tick 3"
    assert (messages[0].chars, messages[0].words, messages[0].cost) == (31, 8, 1.0)
    assert messages[0].tokens >= messages[0].words
    metrics = session.metrics()
    assert metrics["messages"] == 2 and metrics["message_words"] == 16 and metrics["message_chars"] == 62
    assert outcome["success"] is True
    # the recipient reads it in its next observation, and only then
    step = next(e for e in session.events if isinstance(e, StepEvent) and e.tick == messages[0].tick)
    assert step.joint_action["alice"].startswith("say ")
    after = state_after(session, messages[0].tick + 1)
    assert world.observe(after, "bob").inbox == (("alice", "I am passing the door at tick 3"),)
    assert world.observe(after, "alice").inbox == (("bob", "I am passing the door at tick 3"),)
    before = state_after(session, messages[0].tick)
    assert world.observe(before, "bob").inbox == ()


def state_after(session: Session, k: int) -> Any:
    world = session.world
    state = world.reset(session.seed)
    for e in [e for e in session.events if isinstance(e, StepEvent)][:k]:
        state = world.step(state, e.joint_action).state
    return state


def test_partial_observation_hides_the_other_room():
    world = RoomsWorld()
    s0 = world.reset(0)
    obs = world.observe(s0, "alice")
    assert obs.room == "west" and [a for a, _ in obs.seen] == ["alice"]  # bob is in the east room


def test_the_test_world_records_and_replays_exactly(tmp_path):
    world = RoomsWorld()
    session = Session(world, {"alice": WalkerAgent(), "bob": WalkerAgent()}, seed=5, scenario="two-rooms-talk")
    path = tmp_path / "rooms.jsonl"
    RecordingWriter.attach(session, path)
    session.run()
    replay = Replay(str(path))
    assert not replay.warnings and replay.num_steps == session.tick
    for k in range(replay.num_steps + 1):
        assert world.state_hash(replay.state_at(k)) == world.state_hash(state_after(session, k))
    recorded = [e for e in load_recording(path).events if isinstance(e, MessageEvent)]
    assert [m.text for m in recorded] == [m.text for m in session.events if isinstance(m, MessageEvent)]


@dataclass(frozen=True, kw_only=True)
class RegroupState(SnapshotPayload):
    """A kind of snapshot of this test's own: a mechanism's snapshots reach the stream too
    (registered for each test of this file by ``rooms_plugin``)."""

    kind: ClassVar[str] = "regroup_state"
    n: int


class Regroup(Mechanism):
    """Every 4 steps, puts the agents in teams by the parity of the step: a known rhythm."""

    kind = "regroup"

    def after_step(self, step: StepView) -> Sequence[TeamAssignment]:
        if step.after.t % 4:
            return ()
        agents = list(self.world.agents)
        if (step.after.t // 4) % 2:
            teams = {f"solo-{a}": (a,) for a in agents}
        else:
            teams = {"together": tuple(agents)}
        self.seen_beliefs = dict(step.beliefs)
        return (TeamAssignment(0, teams, reason=f"rhythm at step {step.after.t}"),)

    def belief_snapshots(self):
        return [("regroup_state", RegroupState(n=len(self.world.agents)))]


def record_team_episode(tmp_path):
    """A Doors-Keys-Gems episode with ProToM and the regrouping mechanism, recorded; checks it."""
    world, name = load_scenario("protom-17-bobs-door")
    told: dict[str, list[str | None]] = {a: [] for a in world.agents}

    def seat(agent: str):
        planner = make_agent("planner", "dkg")
        planner.receive_team = lambda assignment, a=agent: told[a].append(assignment.team_of(a))
        return planner

    regroup = Regroup()
    protom = make_mechanism("protom", "dkg")
    session = Session(world, {a: seat(a) for a in world.agents}, seed=42, scenario=name,
                      mechanisms=[protom, regroup])
    path = tmp_path / "teams.jsonl"
    RecordingWriter.attach(session, path)
    session.run()
    teams = [e for e in session.events if isinstance(e, TeamEvent)]
    assert [e.tick for e in teams] == [t for t in range(4, session.tick + 1, 4)]
    assert teams[0].mechanism == "regroup" and teams[0].reason == "rhythm at step 4"
    assert teams[0].teams == {f"solo-{a}": [a] for a in world.agents}
    assert teams[1].teams == {"together": list(world.agents)}
    assert told[world.agents[0]][:2] == [f"solo-{world.agents[0]}", "together"]
    assert any(isinstance(e, FeedbackEvent) and e.facilitator == "protom" for e in session.events)
    # the mechanism saw the agents' belief snapshots and ProToM's, and its own are recorded
    assert "protom" in regroup.seen_beliefs
    assert session.metrics()["team_changes"] == len(teams) - 1  # the first assignment forms, the rest change
    recorded = load_recording(path)
    assert [e.teams for e in recorded.events if isinstance(e, TeamEvent)] == [e.teams for e in teams]
    assert [m["kind"] for m in recorded.header["mechanisms"]] == ["protom", "regroup"]
    assert any(isinstance(e, BeliefEvent) and e.owner == "regroup" for e in recorded.events)
    return path


def test_a_team_mechanism_runs_beside_protom_and_reaches_the_recording(tmp_path):
    record_team_episode(tmp_path)


def test_the_teams_panel_shows_the_mechanism_in_the_app(qtbot, tmp_path):
    path = record_team_episode(tmp_path)
    window = make_window(qtbot, tmp_path)
    try:
        assert window.open_recording(path)
        window.model.seek(window.model.timeline.num_steps)
        window.panels.refresh(force=True)
        panel = window.panels.panel("Teams")
        assert panel is not None and window.panels.panel("Goal inference") is not None
        assert set(panel.memberships().values()) <= {"together"} | {f"solo-{a}" for a in window.model.timeline.world.agents}
        window.model.seek(5)
        window.panels.refresh(force=True)
        assert set(panel.memberships().values()) == {f"solo-{a}" for a in window.model.timeline.world.agents}
    finally:
        window.shutdown()


def test_two_people_play_the_test_world_in_the_same_tick_and_talk(qtbot, tmp_path):
    world = RoomsWorld()
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=world, scenario="two-rooms-talk",
                                         seats={"alice": "human", "bob": "human"}), playing=True)
        qtbot.waitUntil(lambda: window.model.humans_to_move() == ("alice", "bob"), timeout=5000)
        assert window.model.human_to_move() == "alice" and window.model.second_key_seat() == "bob"
        window.focus_view()
        QTest.keyClick(window.view, Qt.Key.Key_Down)   # alice, with the arrows
        QTest.keyClick(window.view, Qt.Key.Key_A)      # bob, with W/A/S/D
        qtbot.waitUntil(lambda: window.model.timeline.num_steps == 1, timeout=5000)
        step = next(e for e in window.model.timeline.events if isinstance(e, StepEvent))
        assert step.tick == 0 and step.joint_action == {"alice": "down", "bob": "left"}
        # a blocked move is refused, not replaced: bob must move again
        qtbot.waitUntil(lambda: window.model.humans_to_move() == ("alice", "bob"), timeout=5000)
        QTest.keyClick(window.view, Qt.Key.Key_S)      # bob at (3, 6): down is a wall
        QTest.keyClick(window.view, Qt.Key.Key_Space)  # alice stays
        qtbot.waitUntil(lambda: "bob" in window.model.humans_to_move() and "alice" not in window.model.humans_to_move(),
                        timeout=5000)
        assert window.model.timeline.num_steps == 1
        QTest.keyClick(window.view, Qt.Key.Key_W)      # bob: up, legal
        qtbot.waitUntil(lambda: window.model.timeline.num_steps == 2, timeout=5000)
        # alice says something with the message box; it becomes her action of the step
        qtbot.waitUntil(lambda: window.say_box.isVisible(), timeout=5000)
        window.say_box.setText("meet at the door")
        QTest.keyClick(window.say_box, Qt.Key.Key_Return)
        QTest.keyClick(window.view, Qt.Key.Key_D)      # bob moves
        qtbot.waitUntil(lambda: window.model.timeline.num_steps == 3, timeout=5000)
        window.panels.refresh(force=True)
        assert window.panels.panel("Messages").texts() == ["meet at the door"]
        assert window.view.overlays.messages == (("alice", "meet at the door"),)
        # fog of war: drawn with bob's eyes, alice (in the other room) is not shown
        window.model.set_viewer("bob")
        assert window.model.viewer() == "bob"
        window.model.set_viewer("auto")
        assert window.model.viewer() is None  # two people at one screen: everything
        window.stop_session()
        recording = load_recording(window.model.recording_path)
        assert [e.joint_action for e in recording.steps][:3] == [
            {"alice": "down", "bob": "left"}, {"alice": "stay", "bob": "up"},
            {"alice": "say meet at the door", "bob": "right"}]
        replay = Replay(str(window.model.recording_path))
        assert not replay.warnings and replay.num_steps == 3
    finally:
        window.shutdown()
