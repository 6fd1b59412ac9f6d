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
