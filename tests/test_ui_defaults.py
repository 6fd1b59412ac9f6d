"""What the app chooses and says by itself: the mechanisms a scenario starts with, the words of
the welcome card and of the status bar, and settings that last only for one run."""

from __future__ import annotations

import threading

import pytest

from ui import catalog

from ui_support import make_window


@pytest.fixture
def window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path, record=False)
    yield w
    w.shutdown()
    assert not any(t.name == "tom-arena-session" for t in threading.enumerate())


def test_team_scenarios_start_without_a_facilitator_as_the_command_line_does():
    assert catalog.scenario_category("team-01-six") is None
    assert catalog.default_mechanism("facilitator", "dkg", None) == catalog.NONE
    necessary = next(i for i in catalog.scenarios() if i.family == "dkg" and i.category == "necessary")
    assert catalog.default_mechanism("facilitator", "dkg", necessary.category) == "protom"


def test_the_session_panel_defaults_per_scenario_and_keeps_a_persons_choice(qtbot, window):
    setup = window.setup
    necessary = next(i for i in catalog.scenarios() if i.family == "dkg" and i.category == "necessary")
    assert setup.select_scenario(necessary.name)
    assert setup.facilitator.currentText() == "protom"
    assert setup.select_scenario("team-01-six")  # the feedback scenario's default does not carry over
    assert setup.facilitator.currentText() == catalog.NONE
    assert setup.select_scenario(necessary.name)
    assert setup.facilitator.currentText() == "protom"
    setup.facilitator.setCurrentText("oracle")  # a person's own choice stays
    assert setup.select_scenario("team-01-six")
    assert setup.facilitator.currentText() == "oracle"


def test_launch_gives_a_team_scenario_no_facilitator(qtbot, window):
    from ui.app import launch

    launch(window, targets=["team-01-six"], agents=["planner"], paused=True)
    assert window.model.timeline.scenario == "team-01-six"
    assert window.sessions.last_plan.mechanisms == ()


def test_a_speed_given_for_one_run_is_not_remembered_and_one_step_is_singular(qtbot, window):
    remembered = window.settings.get("speed")
    window.playback.set_speed(2.0)  # as --speed does
    window.set_speed(window.playback.current_speed, remember=False)
    assert window.playback.current_speed == 2.0
    assert window.settings.get("speed") == remembered
    window.set_speed(window.playback.change_speed(-1))  # a person's ] or [ is remembered
    assert window.settings.get("speed") == window.playback.current_speed != remembered
    combo = window.playback.speed
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert "1 step/s" in labels and "1 steps/s" not in labels and "2 steps/s" in labels


def test_held_keys_count_once(qtbot, window):
    from PyQt6.QtCore import QEvent, Qt
    from PyQt6.QtGui import QKeyEvent
    from PyQt6.QtWidgets import QApplication

    assert not window.actions_by_name["ignore_feedback"].autoRepeat()
    assert not window.actions_by_name["accept_feedback"].autoRepeat()
    pressed = []
    window.view.key_pressed.connect(pressed.append)
    for repeat in (False, True, True, True, True):
        QApplication.sendEvent(window.view, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Up,
                                                      Qt.KeyboardModifier.NoModifier, "", repeat))
    assert pressed == ["up"]


# ------------------------------------------------------------------ the welcome card, per world


def _hint_for(qtbot, window, scenario, seats, facilitator="none"):
    from ui_support import plan

    window.start_session(plan(scenario, seats, facilitator=facilitator), playing=False)
    window.show_hint(scenario)
    assert window.card.isVisible() and window.card.kind == "hint"
    return window.card.title.text(), window.card.body.text()


def test_the_welcome_card_speaks_of_the_world_shown_and_of_a_facilitator_only_when_one_runs(qtbot, window):
    necessary = next(i for i in catalog.scenarios() if i.family == "dkg" and i.category == "necessary")
    title, body = _hint_for(qtbot, window, necessary.name, ["planner", "planner"], facilitator="protom")
    assert necessary.name in title
    assert "Doors, Keys and Gems" in body and "blue pop-up" in body and "protom" in body
    _title, body = _hint_for(qtbot, window, "divided-kitchen", ["kitchen-heuristic"] * 2)
    assert "Kitchen" in body and "Doors, Keys and Gems" not in body
    assert "blue pop-up" not in body and "No facilitator" in body
    _title, body = _hint_for(qtbot, window, "mc1v1-01", ["human", "trader"])
    assert "TradeCraft" in body and "you play alice" in body and "Doors" not in body


def test_the_tradecraft_board_never_says_replay_in_a_live_game(qtbot, window):
    from ui_support import plan

    window.start_session(plan("mc1v1-01", ["trader", "trader"]), playing=True)
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 3, timeout=30_000)
    window.set_playing(False)
    board = window.panels.panel("TradeCraft board")
    window.panels.refresh(force=True)
    header = board.header.text()
    assert "replay" not in header.lower()
    if window.model.timeline.outcome is None:
        assert "paused" in header
    window.model.seek(1)
    window.panels.refresh(force=True)
    assert "looking back" in board.header.text() and "replay" not in board.header.text().lower()
    window.stop_session()
    window.panels.refresh(force=True)
    assert "replay" not in board.header.text().lower()
