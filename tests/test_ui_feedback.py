"""Facilitator feedback in the window, with the real ProToM facilitator: the blue pop-up,
a human recipient accepting it, the statuses in the feedback history, and replay."""

from __future__ import annotations

import functools

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest
from ui_support import feedback_statuses, open_window, plan, play_human_until, wait_finished

from agents.registry import make_agent, make_mechanism
from sim.events import FeedbackEvent
from sim.recording import load_recording
from sim.registry import load_scenario
from sim.session import Session
from ui.session.catalog import scenarios as list_scenarios


@functools.cache
def feedback_case() -> tuple[str, str]:
    """A shipped scenario where feedback is necessary, and the agent ProToM first advises
    (found by running the episode headless with planner agents)."""
    for info in list_scenarios():
        if info.family != "dkg" or info.category != "necessary":
            continue
        world, _ = load_scenario(str(info.path))
        session = Session(world, {a: make_agent("planner") for a in world.agents}, seed=0,
                          mechanisms=[make_mechanism("protom", "dkg")])
        session.run()
        feedback = [e for e in session.events if isinstance(e, FeedbackEvent)]
        if feedback:
            return str(info.path), feedback[0].target
    raise AssertionError("no scenario under scenarios/dkg/ with category 'necessary' where ProToM gives feedback")


@pytest.fixture
def window(qtbot, tmp_path):
    with open_window(qtbot, tmp_path) as w:
        yield w


def test_a_human_receives_accepts_and_completes_a_feedback(qtbot, window):
    scenario, target = feedback_case()
    other = next(a for a in plan(scenario, {}).world.agents if a != target)
    window.start_session(plan(scenario, {target: "human", other: "planner"}, facilitator="protom"))
    qtbot.waitUntil(lambda: window.panels.panel("Goal inference") is not None, timeout=30_000)
    assert window.panels.panel("Goal inference").timeline is window.model.timeline

    play_human_until(qtbot, window, target, lambda: window.toast.awaiting_decision, timeout=120)
    toast = window.toast
    assert toast.isVisible() and toast.accept_button.isVisible() and toast.ignore_button.isVisible()
    feedback = toast.feedback
    assert feedback.target == target and feedback.facilitator == "protom"
    assert feedback.text in toast.text.text() and toast.explanation.text() == feedback.explanation
    assert window.view.overlays.feedback == feedback.feedback  # the arrow on the map
    # The episode waits for the person: the session does not hand them more feedback meanwhile.
    QTest.keyClick(window.view, Qt.Key.Key_Return)  # accept
    qtbot.waitUntil(lambda: "accepted" in feedback_statuses(window, feedback.feedback_id))
    assert not toast.isVisible()
    window.panels.refresh(force=True)
    assert window.panels.feedback.statuses()[feedback.feedback_id] == "accepted"

    # Carry it out with the keyboard; the seat reports it completed.
    play_human_until(qtbot, window, target, lambda: "completed" in feedback_statuses(window, feedback.feedback_id)
                     or window.model.timeline.outcome is not None, timeout=120)
    assert "completed" in feedback_statuses(window, feedback.feedback_id)
    play_human_until(qtbot, window, target, lambda: window.model.timeline.outcome is not None, timeout=120)
    wait_finished(qtbot, window)
    assert window.model.timeline.outcome.outcome["success"] is True
    window.panels.refresh(force=True)
    assert window.panels.feedback.statuses()[feedback.feedback_id] == "completed"
    assert window.panels.panel("Goal inference").series  # the goal posterior panel has data
    assert window.panels.panel("Goal inference").paints > 0

    # The recording holds the feedback and the person's decision; the replay shows them.
    recording = load_recording(window.model.recording_path)
    assert any(isinstance(e, FeedbackEvent) for e in recording.events)
    window.open_recording(window.model.recording_path)
    QTest.keyClick(window.view, Qt.Key.Key_N)  # jump to the next feedback
    assert window.model.cursor == feedback.tick
    assert window.toast.isVisible() and not window.toast.awaiting_decision
    window.panels.refresh(force=True)
    assert window.panels.feedback.statuses()[feedback.feedback_id] == "accepted"  # answered at once
    window.model.seek(feedback.tick - 1)
    window.panels.refresh(force=True)
    assert feedback.feedback_id not in window.panels.feedback.statuses()  # not given yet
    window.model.seek_end()
    window.panels.refresh(force=True)
    assert window.panels.feedback.statuses()[feedback.feedback_id] == "completed"


def test_a_human_can_ignore_a_feedback(qtbot, window):
    scenario, target = feedback_case()
    other = next(a for a in plan(scenario, {}).world.agents if a != target)
    window.start_session(plan(scenario, {target: "human", other: "planner"}, facilitator="protom"))
    play_human_until(qtbot, window, target, lambda: window.toast.awaiting_decision, timeout=120)
    fid = window.toast.feedback.feedback_id
    QTest.mouseClick(window.toast.ignore_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "ignored" in feedback_statuses(window, fid))
    window.panels.refresh(force=True)
    assert window.panels.feedback.statuses()[fid] == "ignored"


def test_feedback_to_agents_pops_up_and_the_goal_panel_fills(qtbot, window):
    scenario, target = feedback_case()
    window.start_session(plan(scenario, ["planner", "planner"], facilitator="protom"))
    qtbot.waitUntil(lambda: window.toast.isVisible(), timeout=30_000)
    assert not window.toast.awaiting_decision  # agents answer for themselves
    wait_finished(qtbot, window)
    window.panels.refresh(force=True)
    assert set(window.panels.panel("Goal inference").series) == set(window.model.timeline.world.agents)
    shown = window.panels.feedback.statuses()
    sent = {e.feedback_id for e in window.model.timeline.events if isinstance(e, FeedbackEvent)}
    assert sent and set(shown) == sent  # every feedback given is in the history
    final = {fid: [s for s in feedback_statuses(window, fid)][-1] for fid in sent}
    assert shown == final  # each with the status its agent reported last
    assert set(shown.values()) <= {"completed", "ignored", "not_executable"}  # agents answer and finish
    # ProToM's weighing of the candidates at the first feedback: the one sent is marked.
    window.model.seek(window.model.timeline.next_feedback_tick(0))
    window.panels.refresh(force=True)
    table = window.panels.panel("Feedback candidates").table
    marks = [table.item(i, 4).text() for i in range(table.rowCount())]
    assert marks.count("sent") == 1


def _recorded(tmp_path, scenario: str, seats: str, seed: int, steps: int):
    from sim.recording import RecordingWriter
    from sim.replay import Replay
    from ui.session.timeline import ReplayTimeline

    world, name = load_scenario(scenario)
    session = Session(world, {a: make_agent(seats, world.family) for a in world.agents}, seed=seed,
                      scenario=name, mechanisms=[make_mechanism("protom", "dkg")])
    path = tmp_path / f"{scenario}.jsonl"
    RecordingWriter.attach(session, path)
    session.run(max_steps=steps)
    session.stop()
    return ReplayTimeline(Replay(str(path)))


def test_the_candidates_panel_says_when_the_time_saved_is_approximated(qtbot, tmp_path):
    """Eight agents and eight gems leave 40,320 joint goal hypotheses on the first ticks: ProToM's
    default (``max_hypotheses=auto``) sums over the likeliest few, and the panel says so under its
    caption; where every hypothesis is weighed (two agents), it adds nothing."""
    from sim.snapshots import FeedbackCandidates, read_snapshot
    from ui.panels.common import FeedbackCandidatesPanel, approximation_words

    panel = FeedbackCandidatesPanel()
    qtbot.addWidget(panel)
    panel.show()
    eight = _recorded(tmp_path, "team-06-eight", "tom-planner:k=cycle", 0, 2)
    belief = eight.latest_belief("feedback_candidates", eight.num_steps)
    assert belief is not None
    data = belief.data
    assert data["hypotheses_total"] == 40_320 and 1 <= data["hypotheses"] < 40_320
    assert 0 < data["hypotheses_mass"] < 1
    panel.show_at(eight, belief.tick)
    assert panel.approximation.isVisible() and panel.table.rowCount() == len(data["candidates"])
    shown = panel.approximation.text()
    assert shown == approximation_words(read_snapshot(FeedbackCandidates, data))
    assert shown.startswith(f"Time saved is summed over {data['hypotheses']} of 40,320 joint goal hypotheses "
                            "(the likeliest, holding ")
    assert f"{data['hypotheses_mass'] * 100:.3g}% of the probability" in shown
    assert "max_hypotheses=all" in panel.approximation.toolTip()

    exact = _recorded(tmp_path, "protom-15-locked-in", "boltzmann:temperature=0.3,show_plan=false", 42, 5)
    belief = exact.latest_belief("feedback_candidates", exact.num_steps)
    assert belief is not None and "hypotheses_total" not in belief.data
    panel.show_at(exact, belief.tick)
    assert not panel.approximation.isVisible() and panel.table.rowCount() > 0
    panel.show_at(None, 0)
    assert not panel.approximation.isVisible()


def test_a_recording_without_the_share_of_probability_shows_the_counts_alone():
    from sim.snapshots import FeedbackCandidates, read_snapshot
    from ui.panels.common import _percent, approximation_words

    older = read_snapshot(FeedbackCandidates, {"candidates": [], "chosen": None, "phi": 0.0, "eps": 0.0,
                                               "hypotheses": 4, "hypotheses_total": 720})
    assert approximation_words(older) == ("Time saved is summed over 4 of 720 joint goal hypotheses (the likeliest; "
                                          "the others count as saving nothing): an approximation")
    assert [_percent(s) for s in (0.923, 0.000099, 0.9997, 1.0, 0.0)] == [
        "92.3%", "0.0099%", "over 99.9%", "100%", "under 0.0001%"]
