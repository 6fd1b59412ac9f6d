"""Predict, then see (the teaching mode, ``ui/predict.py``) on the three false-belief scenarios,
in the real window (offscreen): the live session waits where the scenario's question is due, the
card asks it, a number key answers, the answer is in the stream and the recording, play goes on,
and the card then says what happened and what each order of Theory of Mind predicted. A replay
of the recording shows the same result, from the questions its header keeps."""

from __future__ import annotations

import json

import pytest
from PyQt6.QtCore import Qt

from sim.events import PredictionEvent, StepEvent
from sim.inputs import read_json
from sim.recording import load_recording
from sim.registry import find_scenario, load_questions, load_scenario
from tests.ui_support import make_window, plan, wait_finished
from ui.session.catalog import SessionPlan, default_agent
from ui.session.timeline import ReplayTimeline

CASES = [
    # scenario, question, asked before step, key pressed -> choice, what happened, matched,
    # each order's prediction (order: choice id)
    ("false-belief-unexpected-transfer", "sally-looks", 1, "basket", "box", False, {0: "box", 1: "basket"}),
    ("false-belief-unexpected-contents", "sally-looks", 1, "jar", "jar", True, {0: "shelf", 1: "jar"}),
    ("false-belief-second-order", "anne-thinks", 1, "basket", "basket", True, {0: "box", 1: "box", 2: "basket"}),
]


@pytest.mark.parametrize("name, qid, asked, picked, happened, matched, orders", CASES)
def test_predict_then_see_asks_records_and_reveals(qtbot, tmp_path, name, qid, asked, picked, happened, matched,
                                                  orders):
    window = make_window(qtbot, tmp_path)
    try:
        toggle = window.actions_by_name["predict"]  # Playback > Predict, then see (Ctrl+Shift+P)
        playback = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Playback")
        assert toggle in playback.actions() and toggle.shortcut().toString() == "Ctrl+Shift+P"
        toggle.trigger()
        assert toggle.isChecked() and window.predict.enabled
        p = plan(name, [default_agent("household")] * 2)
        window.start_session(p, playing=True)
        card = window.predict.card
        qtbot.waitUntil(lambda: card.showing == ("question", qid), timeout=30_000)
        session = window.model.session
        assert window.model.timeline.num_steps == asked and session.tick == asked
        assert card.isVisible() and len(card.buttons) == 2
        question = window.predict.questions[0]
        assert question.text in card.body.text()
        # the session holds there (no further step) while the question waits for its answer
        qtbot.wait(300)
        assert session.tick == asked and not any(isinstance(e, PredictionEvent) for e in session.events)

        key = [c.id for c in question.choices].index(picked) + 1
        window.focus_view()
        qtbot.keyClick(window.view, getattr(Qt.Key, f"Key_{key}"))
        qtbot.waitUntil(lambda: any(isinstance(e, PredictionEvent) for e in window.model.timeline.events),
                        timeout=10_000)
        wait_finished(qtbot, window)

        timeline = window.model.timeline
        given = [e for e in timeline.events if isinstance(e, PredictionEvent)]
        assert [(e.question, e.choice, e.tick) for e in given] == [(qid, picked, asked)]
        steps = [e.tick for e in timeline.events if isinstance(e, StepEvent)]
        assert steps == list(range(len(steps)))  # played on to the end, no step lost or repeated

        window.predict.refresh()
        kind, _q, result = window.predict.current()
        assert kind == "result" and card.showing == ("result", qid) and card.isVisible()
        assert result.answer.id == picked and result.seen.choice.id == happened and result.right is matched
        assert {p.order: p.choice.id for p in result.orders} == orders
        text = card.body.text()
        assert "You predicted" in text and ("✓ matched" in text) == matched
        for order in orders:
            assert f"{['0th', '1st', '2nd'][order]}-order mind predicts" in text
        assert "Played by " + ", ".join(f"{a}: cobel" for a in p.world.agents) in text

        # the recording keeps the answer, flushed as written; a replay shows the same result
        path = window.model.recording_path
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert [(d["question"], d["choice"]) for d in lines if d.get("type") == "prediction"] == [(qid, picked)]
        assert any(isinstance(e, PredictionEvent) for e in load_recording(path).events)
        assert window.open_recording(path)
        assert isinstance(window.model.timeline, ReplayTimeline)
        window.model.seek(window.model.timeline.num_steps)
        kind, _q, replayed = window.predict.current()
        assert kind == "result" and replayed.answer.id == picked and replayed.seen.choice.id == happened
        assert card.showing == ("result", qid)
    finally:
        window.shutdown()


def test_without_the_mode_the_session_does_not_wait(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    try:
        assert not window.actions_by_name["predict"].isChecked()
        window.start_session(plan("false-belief-unexpected-transfer", ["cobel", "cobel"]), playing=True)
        wait_finished(qtbot, window)
        assert window.predict.card.showing is None
        assert not any(isinstance(e, PredictionEvent) for e in window.model.timeline.events)
    finally:
        window.shutdown()


def test_turning_the_mode_off_lets_a_waiting_session_play_on(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    try:
        window.actions_by_name["predict"].setChecked(True)
        window.start_session(plan("false-belief-unexpected-transfer", ["cobel", "cobel"]), playing=True)
        card = window.predict.card
        qtbot.waitUntil(lambda: card.showing == ("question", "sally-looks"), timeout=30_000)
        assert not card.close_button.isVisible()  # answered or the mode turned off, not closed
        window.actions_by_name["predict"].setChecked(False)
        assert not card.isVisible()
        wait_finished(qtbot, window)
        assert window.model.timeline.num_steps > 1
        assert not any(isinstance(e, PredictionEvent) for e in window.model.timeline.events)
        assert not any(s.isEnabled() for s in card.shortcuts)
    finally:
        window.shutdown()


def test_a_take_over_from_the_start_with_other_seats_asks_again_and_shows_their_outcome(qtbot, tmp_path):
    """Sally-Anne answered "the basket" with a first-order Anne (Sally went to the toy box); taken
    over from the start with a level-0 Anne, who does not tell Sally: asked again, the same answer
    now matches where Sally goes (the basket), as the 1st-order mind's prediction does."""
    window = make_window(qtbot, tmp_path)
    try:
        window.actions_by_name["predict"].setChecked(True)
        window.start_session(plan("false-belief-unexpected-transfer", ["cobel", "cobel"]), playing=True)
        card = window.predict.card
        qtbot.waitUntil(lambda: card.showing == ("question", "sally-looks"), timeout=30_000)
        card.buttons[0].click()  # the basket
        wait_finished(qtbot, window)
        assert window.predict.current()[2].right is False
        timeline = window.model.timeline
        window.model.seek(0)
        again = SessionPlan(world=timeline.world, scenario=timeline.scenario,
                            seats={"sally": "cobel", "anne": "cobel:order=0"},
                            prefix=tuple(timeline.joint_actions(0)), earlier_events=tuple(timeline.events_until(0)))
        window.start_session(again, playing=True)
        qtbot.waitUntil(lambda: card.showing == ("question", "sally-looks"), timeout=30_000)
        card.buttons[0].click()
        wait_finished(qtbot, window)
        kind, _q, r = window.predict.current()
        assert kind == "result" and r.answer.id == "basket" and r.seen.choice.id == "basket"
        assert r.right is True and r.matching_orders() == [1]
        assert "sally: cobel, anne: cobel:order=0" in card.body.text()
    finally:
        window.shutdown()


def test_a_replay_asks_nothing_of_the_scenario_file_its_recording_keeps_the_questions(qtbot, tmp_path):
    """A scenario opened by path (reworded, under a name the app cannot find) is played with the
    mode on; its file is then deleted: the replay shows the question and its result from the
    recording's header."""
    data = read_json(find_scenario("false-belief-unexpected-transfer"))
    data["name"] = "taught-elsewhere"
    data["questions"][0]["text"] = "Asked in a copy: where will Sally look for the ball?"
    scenario = tmp_path / "taught-elsewhere.json"
    scenario.write_text(json.dumps(data))
    window = make_window(qtbot, tmp_path)
    try:
        window.actions_by_name["predict"].setChecked(True)
        world, name = load_scenario(str(scenario))
        window.start_session(SessionPlan(world=world, scenario=name, seats={a: "cobel" for a in world.agents},
                                         questions=load_questions(str(scenario))), playing=True)
        card = window.predict.card
        qtbot.waitUntil(lambda: card.showing == ("question", "sally-looks"), timeout=30_000)
        assert "Asked in a copy" in card.body.text()
        card.buttons[0].click()  # the basket
        wait_finished(qtbot, window)
        path = window.model.recording_path
        window.shutdown()
        scenario.unlink()

        window = make_window(qtbot, tmp_path)
        window.actions_by_name["predict"].setChecked(True)
        assert window.open_recording(path)
        window.model.seek(window.model.timeline.num_steps)
        kind, q, replayed = window.predict.current()
        assert kind == "result" and q.text.startswith("Asked in a copy")
        assert replayed.answer.id == "basket" and replayed.seen.choice.id == "box"
        assert window.predict.card.showing == ("result", "sally-looks")
        assert "Asked in a copy" in window.predict.card.body.text()
    finally:
        window.shutdown()
