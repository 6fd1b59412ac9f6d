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
