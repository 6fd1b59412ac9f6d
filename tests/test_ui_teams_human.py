"""A person's own alignment scores in a team episode (seed 000, Appendix A's self-evaluation):
the human seat reports the person's ratings as ``alignment_self_evaluation`` snapshots at the
end of each team round; in the app the person rates teammates in the Alignment tab by keys and
clicks, the ratings reach the recording and the person's row of the matrix, and Eq. 5 keeps a
person who rates their teammates as expected where it drops one who rates nobody.

World: five agents on lanes (tests/teams_lanes.py); a, b, c predict everyone exactly, e predicts
everyone the wrong way round, d is the person, who keeps to d's schedule. theta is 0.1 so that
e's misaligned row makes the team re-form after step 4."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest
from PyQt6.QtWidgets import QApplication

from agents.human.seat import RATING_SCORES, HumanAgent
from agents.registry import make_agent, make_mechanism
from sim.events import BeliefEvent, TeamEvent
from sim.recording import load_recording
from sim.session import Session, TickStatus
from tests import teams_lanes
from tests.teams_lanes import LanesWorld, steady
from tests.ui_support import make_window
from ui.panels.team_ratings import RatingStrip
from ui.session.catalog import SessionPlan

AGENTS = {"a": "lanes-predictor:level=2", "b": "lanes-predictor", "c": "lanes-predictor",
          "e": "lanes-predictor:style=opposite,level=0"}
MECHANISM = "teams:window=1,theta=0.1"
KIND = "alignment_self_evaluation"


@pytest.fixture(autouse=True)
def lanes_plugin():
    with teams_lanes.installed():
        yield


def headless(ratings: dict[str, int], mechanism: str = MECHANISM, round_steps: int | str = 1,
             steps: int = 8, rounds: int = 1) -> tuple[Session, HumanAgent]:
    """The episode without the app: the person's moves and ratings go to the seat as the app sends them."""
    person = HumanAgent()
    seats = {a: make_agent(s, teams_lanes.FAMILY) for a, s in AGENTS.items()}
    seats["d"] = person
    session = Session(LanesWorld(), {a: seats[a] for a in teams_lanes.NAMES}, seed=0,
                      mechanisms=[make_mechanism(mechanism, teams_lanes.FAMILY)], rounds=rounds)
    person.set_rating_round(round_steps)
    while session.tick < steps:
        if session.tick == 1:  # the person rates after the first step
            for other, rating in ratings.items():
                person.rate(other, rating)
        if session.advance() is TickStatus.WAITING:
            person.submit(steady("d", session.state.t))
    return session, person


def evaluations(events, owner: str = "d") -> list[BeliefEvent]:
    return [e for e in events if isinstance(e, BeliefEvent) and e.kind == KIND and e.owner == owner]


def test_the_seat_reports_its_ratings_once_per_round_and_nothing_when_nobody_is_rated():
    session, person = headless({"a": 5, "e": 2}, mechanism=MECHANISM + ",round_steps=3", round_steps=3, steps=9)
    found = evaluations(session.events)
    assert [e.tick for e in found] == [3, 6, 9]  # the ends of rounds 1-3, never in between
    assert found[0].data["scores"] == {"a": 1.0, "e": -0.5} and found[0].data["ratings"] == {"a": 5, "e": 2}
    assert found[0].data["answers"] == {"a": "exactly", "e": "rather not"} and found[-1].data["round"] == 3
    mechanism = session.mechanisms[0]
    totals = mechanism.tracker.totals  # every score of the episode: one per round, about a and about e
    assert {pair: totals[pair] for pair in totals if pair[0] == "d"} == {("d", "a"): [3.0, 3], ("d", "e"): [-1.5, 3]}
    person.rate("a", None)  # withdrawn: a is unknown again in what the seat reports
    person.rate("e", None)
    assert person.ratings == {} and person.belief_snapshots() == ()
    # headless and by default: nothing rated, nothing reported, the person's row unknown
    quiet, _ = headless({})
    assert evaluations(quiet.events) == []
    assert all(v is None for v in quiet.mechanisms[0].belief_snapshots()[0][1].phi[3])
    assert RATING_SCORES == {1: -1.0, 2: -0.5, 3: 0.0, 4: 0.5, 5: 1.0}


def test_with_task_rounds_the_seat_reports_at_the_end_of_each_task_round():
    """round_steps=task: a team round is a task round of the episode (Session(rounds=R)); the seat
    reports the ratings in force when a round's last state is shown, and the mechanism counts them
    as one score per round."""
    session, person = headless({"a": 4}, mechanism="teams:theta=0.1,round_steps=task,window=round",
                               round_steps="task", steps=2 * teams_lanes.HORIZON, rounds=2)
    found = evaluations(session.events)
    assert [e.tick for e in found] == [teams_lanes.HORIZON, 2 * teams_lanes.HORIZON]
    assert [e.data["round"] for e in found] == [1, 2] and found[0].data["scores"] == {"a": 0.5}
    mechanism = session.mechanisms[0]
    assert mechanism.tracker.totals[("d", "a")] == [1.0, 2] and mechanism.rounds == 2
    assert person.rating_round == "task"


def test_bad_ratings_are_refused_with_a_message_naming_the_value():
    person = HumanAgent()
    with pytest.raises(ValueError, match="not in an episode yet"):
        person.rate("a", 5)
    session, person = headless({}, steps=1)
    with pytest.raises(ValueError, match=r"'d' is not another agent of this world \(the others: \['a', 'b', 'c', 'e'\]\)"):
        person.rate("d", 5)
    with pytest.raises(ValueError, match="'zed' is not another agent"):
        person.rate("zed", 5)
    with pytest.raises(ValueError, match="must be 1, 2, 3, 4 or 5 \\(or None\\), got 7"):
        person.rate("a", 7)
    with pytest.raises(ValueError, match="got True"):
        person.rate("a", True)
    with pytest.raises(ValueError, match="round_steps must be a whole number >= 1 or 'task', got 0"):
        person.set_rating_round(0)
    with pytest.raises(ValueError, match="got 'tasks'"):
        person.set_rating_round("tasks")
    assert person.ratings == {}


def test_eq5_keeps_a_person_who_rates_the_team_and_drops_one_who_rates_nobody():
    quiet, _ = headless({})
    rated, _ = headless({"a": 5, "b": 5, "c": 5})
    formed = {name: [(e.tick, e.teams["team"]) for e in s.events if isinstance(e, TeamEvent)]
              for name, s in (("quiet", quiet), ("rated", rated))}
    # unrated, the person's phi counts as 0 < eps: the eps filter leaves d out
    assert formed["quiet"] == [(0, list("abcde")), (4, ["a", "b", "c"])]
    # rated +1 and predicted exactly by a, b and c: d passes the filter and stays
    assert formed["rated"] == [(0, list("abcde")), (4, ["a", "b", "c", "d"])]
    reason = [e for e in rated.events if isinstance(e, TeamEvent)][-1].reason
    assert "Eq. 5 (eps-filtered) chose a, b, c, d (welfare 4.000)" in reason


def test_a_person_rates_teammates_in_the_app_and_the_team_keeps_them(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=LanesWorld(), scenario="five-lanes", seats=dict(AGENTS, d="human"),
                                         mechanisms=(MECHANISM,)), playing=True)
        messages: list[str] = []
        window.statusBar().messageChanged.connect(messages.append)
        keys = {"left": Qt.Key.Key_Left, "right": Qt.Key.Key_Right}
        person = window.model.humans["d"]

        def move() -> None:
            """d's next move by the arrow keys on the map, as the person plays."""
            qtbot.waitUntil(lambda: window.model.human_to_move() == "d", timeout=10_000)
            before = window.model.timeline.num_steps
            window.focus_view()
            QTest.keyClick(window.view, keys[steady("d", before)])
            qtbot.waitUntil(lambda: window.model.timeline.num_steps > before, timeout=10_000)
            qtbot.waitUntil(lambda: window.model.cursor == window.model.timeline.num_steps, timeout=5_000)
            window.panels.refresh(force=True)

        def typed(key: Qt.Key) -> None:
            QTest.keyClick(QApplication.focusWidget(), key)  # to whatever has the keyboard now

        move()
        panel = window.panels.panel("Alignment")
        strip = panel.ratings
        assert isinstance(strip, RatingStrip) and not strip.isHidden() and not strip.open  # one folded line
        # round 1 ended: the person is asked (the strip, and once the status bar), play goes on
        assert strip.asking() and strip.prompt_text().startswith("Round 1 ended — did they act as d expected?")
        assert strip.order == ["a", "b", "c", "e"] and strip.teammates == ["a", "b", "c", "e"]
        assert strip.row_texts() == [("a", "?"), ("b", "?"), ("c", "?"), ("e", "?")]
        assert any("Rate them in the Alignment tab (Ctrl+R)" in m for m in messages)
        assert window.model.human_to_move() == "d"  # nothing waits for the ratings

        # Ctrl+R from the map gives the strip the keys; 5, 5 rate a and b; c's "5" is clicked
        QTest.keyClick(window.view, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
        assert QApplication.focusWidget() is strip and window.panels.tabs.currentWidget() is panel
        assert strip.open and strip.selected_agent() == "a"
        typed(Qt.Key.Key_5)
        typed(Qt.Key.Key_5)
        assert strip.selected_agent() == "c"
        five = strip.rows["c"].buttons[5]
        qtbot.waitUntil(lambda: five.isVisible() and not five.visibleRegion().isEmpty(), timeout=10_000)  # laid out
        QTest.mouseClick(five, Qt.MouseButton.LeftButton)
        # e: 2, then left unrated after all (skipped: unknown stays unknown)
        assert strip.selected_agent() == "e"
        typed(Qt.Key.Key_2)
        assert person.ratings["e"] == 2 and strip.rows["e"].buttons[2].isChecked()
        typed(Qt.Key.Key_Delete)
        assert person.ratings == {"a": 5, "b": 5, "c": 5}
        assert strip.row_texts() == [("a", "+1.00"), ("b", "+1.00"), ("c", "+1.00"), ("e", "?")]
        typed(Qt.Key.Key_Return)  # keep these: the keys go back to the map
        assert QApplication.focusWidget() is window.view and not strip.asking() and not strip.open
        assert strip.prompt_text() == ("d's ratings, counted at the end of each round (every step) until changed: "
                                       "a +1.00 · b +1.00 · c +1.00 · e ? — Ctrl+R to rate")

        move()  # step 2 ends round 2: the ratings are reported and make d's row of the matrix
        view = panel.view
        assert [view.cell_text(3, j) for j in range(5)] == ["+1.00", "+1.00", "+1.00", "", "?"]
        assert view.tooltip_for(3, 0) == "d (you) about a: phi +1.000 from your rating of 1 round\nat or above eps 0.2"
        assert view.tooltip_for(3, 4).startswith("d (you) about e: unknown — not rated yet")
        assert strip.asking() and strip.prompt_text().startswith("Round 2 ended")

        for _ in range(3):
            move()
        # step 4: e's wrong-way predictions made the team re-form; Eq. 5 keeps the person
        changes = [e for e in window.model.timeline.events if isinstance(e, TeamEvent)]
        assert [(e.tick, e.teams["team"]) for e in changes] == [(0, list("abcde")), (4, ["a", "b", "c", "d"])]
        assert "Eq. 5 (eps-filtered) chose a, b, c, d" in changes[1].reason
        stability = window.panels.panel("Team stability")
        row = next(r for r in stability.member_rows() if r[0] == "d (you)")
        assert row[:2] == ["d (you)", "team"] and row[3:] == ["+1.00", "+1.00", "0.75"]
        # predicts (B_d(T) from the ratings), predicted, FTM: 3 of the 4 others trusted (e unrated)
        assert strip.order == ["a", "b", "c", "e"] and strip.teammates == ["a", "b", "c"]  # e is not a teammate now

        # the person changes their mind about e only (the Rate… button, then keys); a, b and c stay as rated
        QTest.mouseClick(strip.toggle, Qt.MouseButton.LeftButton)
        assert strip.open and QApplication.focusWidget() is strip
        typed(Qt.Key.Key_Up)
        typed(Qt.Key.Key_Down)
        assert strip.selected_agent() == "e"
        typed(Qt.Key.Key_4)
        typed(Qt.Key.Key_Left)
        assert person.ratings["e"] == 3 and strip.selected_agent() == "e"
        typed(Qt.Key.Key_Right)
        assert person.ratings["e"] == 4
        typed(Qt.Key.Key_Escape)
        assert QApplication.focusWidget() is window.view and not strip.open
        move()
        assert [view.cell_text(3, j) for j in range(5)] == ["+1.00", "+1.00", "+1.00", "", "+0.50"]
        window.stop_session()

        recording = load_recording(window.model.recording_path)
        found = evaluations(recording.events)
        assert [e.tick for e in found] == [2, 3, 4, 5, 6]  # every round from the first rating on
        assert found[0].data["scores"] == {"a": 1.0, "b": 1.0, "c": 1.0}
        assert found[-1].data["scores"] == {"a": 1.0, "b": 1.0, "c": 1.0, "e": 0.5}
        assert found[-1].data["ratings"] == {"a": 5, "b": 5, "c": 5, "e": 4}
        matrix = [e for e in recording.events if isinstance(e, BeliefEvent) and e.kind == "alignment_matrix"][-1]
        assert matrix.tick == 6 and matrix.data["phi"][3] == [1.0, 1.0, 1.0, None, 0.5]
    finally:
        window.shutdown()


def test_two_people_each_rate_as_themselves(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=LanesWorld(), scenario="five-lanes",
                                         seats=dict(AGENTS, d="human", e="human"), mechanisms=(MECHANISM,)),
                             playing=True)

        def both_move() -> None:
            qtbot.waitUntil(lambda: set(window.model.humans_to_move()) == {"d", "e"}, timeout=10_000)
            before = window.model.timeline.num_steps
            for agent in ("d", "e"):
                window.model.runner.submit_human(agent, steady(agent, before))
            qtbot.waitUntil(lambda: window.model.timeline.num_steps > before, timeout=10_000)
            qtbot.waitUntil(lambda: window.model.cursor == window.model.timeline.num_steps, timeout=5_000)
            window.panels.refresh(force=True)

        both_move()
        strip = window.panels.panel("Alignment").ratings
        assert not strip.seat_box.isHidden() and strip.seat == "d" and strip.order == ["a", "b", "c", "e"]
        QTest.mouseClick(strip.toggle, Qt.MouseButton.LeftButton)
        QTest.mouseClick(strip.rows["a"].buttons[5], Qt.MouseButton.LeftButton)
        strip.seat_box.setCurrentText("e")  # the other person rates as e
        assert strip.order == ["a", "b", "c", "d"] and strip.row_texts()[0] == ("a", "?")
        QTest.mouseClick(strip.rows["d"].buttons[4], Qt.MouseButton.LeftButton)
        assert window.model.humans["d"].ratings == {"a": 5} and window.model.humans["e"].ratings == {"d": 4}
        both_move()
        found = {e.owner: e.data["scores"] for e in window.model.timeline.events
                 if isinstance(e, BeliefEvent) and e.kind == KIND}
        assert found == {"d": {"a": 1.0}, "e": {"d": 0.5}}
        view = window.panels.panel("Alignment").view
        assert view.cell_text(3, 0) == "+1.00" and view.cell_text(4, 3) == "+0.50"
        window.stop_session()
    finally:
        window.shutdown()
