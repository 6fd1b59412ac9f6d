"""The human seat (agents/human.py) and the session runner, without a window."""

from __future__ import annotations

import threading

from agents.human import HumanAgent
from agents.registry import make_agent
from sim.events import FeedbackStatusEvent, OutcomeEvent, StepEvent
from sim.recording import load_recording
from sim.registry import load_scenario
from sim.seats import Feedback
from sim.session import Session, TickStatus


def session_with_human(seat: str = "alice"):
    world, name = load_scenario("two-rooms")
    human = make_agent("human", world.family)
    seats = {a: (human if a == seat else make_agent("planner")) for a in world.agents}
    return Session(world, seats, seed=0, scenario=name), human


def statuses(session):
    return [(e.feedback_id, e.status) for e in session.events if isinstance(e, FeedbackStatusEvent)]


def test_the_human_kind_plays_every_world():
    from sim.registry import families

    assert isinstance(make_agent("human"), HumanAgent)
    for family in families():
        assert isinstance(make_agent("human", family), HumanAgent)


def test_the_session_waits_for_the_person_and_drops_impossible_keys():
    session, human = session_with_human()
    assert session.advance() is TickStatus.WAITING
    assert session.waiting_for() == ("alice",)
    human.submit("up")  # into the wall
    assert session.advance() is TickStatus.WAITING
    human.submit("down")
    assert session.advance() is TickStatus.ADVANCED
    steps = [e for e in session.events if isinstance(e, StepEvent)]
    assert [e.joint_action for e in steps] == [{"alice": "down"}]
    assert session.advance() is TickStatus.ADVANCED  # bob, the planner
    assert session.advance() is TickStatus.WAITING


def test_feedback_decisions_are_reported_and_an_accepted_task_is_tracked():
    session, human = session_with_human("alice")
    world = session.world
    # alice holds nothing yet: "unlock door1" means fetching the red key first.
    fb = Feedback(7, "alice", {"type": "unlock", "agent": "alice", "door": "door1", "for": "bob"},
                  "Alice, please unlock door1 for bob.", "because")
    human.receive_feedback(fb)
    assert [f.feedback_id for f in human.offered] == [7]
    human.decide(7, True)
    human.poll()
    assert statuses(session) == [(7, "accepted")]
    assert human.following is fb and human.offered == []
    for action in ("down", "down", "pickup key1", "up", "right", "right", "unlock door1"):
        while world.active_agents(session.state) != ("alice",):
            assert session.advance() is TickStatus.ADVANCED
        human.submit(action)
        assert session.advance() is TickStatus.ADVANCED, action
        human.observe_state(session.state)
    assert statuses(session) == [(7, "accepted"), (7, "completed")]
    assert human.following is None


def test_an_ignored_feedback_is_reported_once():
    session, human = session_with_human("alice")
    fb = Feedback(3, "alice", {"type": "handover", "agent": "alice", "item": "key1", "to": "bob"}, "t", "e")
    human.receive_feedback(fb)
    human.decide(3, False)
    human.decide(3, False)  # a double click
    human.poll()
    assert statuses(session) == [(3, "ignored")]


def test_the_runner_steps_in_its_thread_and_stopping_writes_a_footer(qtbot, tmp_path):
    from ui.session.runner import SessionRunner

    session, human = session_with_human("alice")
    batches = []
    runner = SessionRunner(session, speed=64, playing=True, recording_path=str(tmp_path / "r.jsonl"))
    runner.published.connect(batches.append)
    runner.start()
    qtbot.waitUntil(lambda: any(b.waiting_for == ("alice",) for b in batches))
    assert threading.current_thread() is threading.main_thread()
    runner.submit_human("alice", "down")
    qtbot.waitUntil(lambda: any(b.state is not None and b.tick >= 2 for b in batches))
    runner.stop()
    assert not runner.alive
    qtbot.waitUntil(lambda: any(b.finished for b in batches))
    recording = load_recording(tmp_path / "r.jsonl")
    assert recording.footer is not None and recording.footer["outcome"]["stopped"] is True
    assert isinstance(recording.events[-1], OutcomeEvent)
    assert recording.steps[0].joint_action == {"alice": "down"}


def test_a_paused_runner_steps_only_on_request(qtbot):
    from ui.session.runner import SessionRunner

    world, name = load_scenario("two-rooms")
    session = Session(world, {a: make_agent("planner") for a in world.agents}, seed=0, scenario=name)
    batches = []
    runner = SessionRunner(session, speed=64, playing=False)
    runner.published.connect(batches.append)
    runner.start()
    qtbot.wait(200)
    assert session.tick == 0
    runner.request_step()
    runner.request_step()
    qtbot.waitUntil(lambda: session.tick == 2)
    qtbot.wait(200)
    assert session.tick == 2
    runner.stop()
