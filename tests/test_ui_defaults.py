"""What the app chooses and says by itself: the mechanisms a scenario starts with, the words of
the welcome card and of the status bar, and settings that last only for one run."""

from __future__ import annotations

import pytest
from ui_support import open_window

from ui.session import catalog


@pytest.fixture
def window(qtbot, tmp_path):
    with open_window(qtbot, tmp_path, record=False) as w:
        yield w


def test_team_scenarios_start_without_a_facilitator_as_the_command_line_does():
    assert catalog.scenario_category("team-01-six") is None
    assert catalog.default_mechanism("facilitator", "dkg", None) == catalog.NONE
    necessary = next(i for i in catalog.scenarios() if i.family == "dkg" and i.category == "necessary")
    assert catalog.default_mechanism("facilitator", "dkg", necessary.category) == "protom"


def test_a_scenarios_category_and_the_default_scenario_read_from_files_are_the_catalogues():
    """What the first frame reads from files (no catalogue yet) is what the catalogue says."""
    infos = catalog.scenarios()
    assert {i.name: catalog.scenario_category(i.name) for i in infos} == {i.name: i.category for i in infos}
    assert catalog.first_scenario() == catalog.default_scenario(infos).name
    assert catalog.first_scenario("two-rooms") == "two-rooms"
    assert catalog.first_scenario("no-such-scenario") == catalog.default_scenario(infos).name


def test_the_session_panel_defaults_per_scenario_and_keeps_a_persons_choice(qtbot, window):
    window.fill_setup()
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
    # no facilitator; the team mechanism its file declares ("start")
    assert window.sessions.last_plan.mechanisms == ("teams:round_steps=6,max_size=eta,embedding=steps",)


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


# ------------------------------------------------------------------ words, not internals


def test_a_replays_seats_and_mechanisms_show_only_what_was_chosen():
    from agents.registry import make_agent, make_mechanism
    from ui.session.controllers import spec_from_description

    for spec, family, shown in [("protom", "dkg", "protom"), ("oracle", "kitchen", "oracle"),
                                ("protom:phi=3,respect_busy=false", "dkg", "protom:phi=3.0,respect_busy=false"),
                                ("teams:round_steps=2", "teamroom", "teams:round_steps=2")]:
        described = make_mechanism(spec, family).describe()
        assert spec_from_description(described, family) == shown, described
        assert make_mechanism(shown, family) is not None  # a take-over can use it as it is
    for spec, family, shown in [("trader", "tradecraft", "trader"), ("boltzmann:temperature=2", "dkg",
                                                                      "boltzmann:temperature=2.0")]:
        assert spec_from_description(make_agent(spec, family).describe(), family) == shown


def test_a_tied_debate_is_reported_as_a_tie(qtbot, window):
    from ui_support import plan

    world = plan("car-free-centres", []).world
    window.start_session(plan("car-free-centres", ["human"] * len(world.agents)), playing=True)
    timeline = window.model.timeline
    while timeline.outcome is None:  # everyone sits out; the judge's one offered verdict is a tie
        qtbot.waitUntil(lambda: bool(window.model.humans_to_move()) or timeline.outcome is not None, timeout=10_000)
        if timeline.outcome is not None:
            break
        steps = timeline.num_steps
        state = timeline.state_at(timeline.num_steps)
        for agent in window.model.humans_to_move():
            window.model.runner.submit_human(agent, world.legal_actions(state, agent)[0])
        qtbot.waitUntil(lambda steps=steps: timeline.num_steps > steps or timeline.outcome is not None, timeout=10_000)
    qtbot.waitUntil(lambda: window.card.isVisible(), timeout=10_000)
    assert timeline.outcome.outcome["winner"] == "tie"
    assert window.card.title.text().startswith("Tie after") and "Solved" not in window.card.title.text()


def test_outcome_shares_read_as_percentages():
    from ui.toast import OUTCOME_WORDS, outcome_value

    assert outcome_value("tests_passed", 0.733333) == "73%"
    assert outcome_value("pass_at_1", 1.0) == "100%"
    assert outcome_value("cost", 1234.5678) == "1,235" and outcome_value("score", 2.345678) == "2.35"
    assert outcome_value("solved", True) == "yes"
    assert OUTCOME_WORDS["tests_passed"] == "hidden tests passed"


def test_the_open_recording_dialog_shows_whole_names(qtbot, window):
    from PyQt6.QtWidgets import QFileDialog, QTreeView

    folder = window.settings.recordings_dir
    folder.mkdir(parents=True, exist_ok=True)
    long_name = "household-transport-food-low-capacity-07-20250101-120000-seed12345.jsonl"
    (folder / long_name).write_text("")
    window.dialogs.open_recording()
    dialog = window.findChild(QFileDialog)
    assert dialog is not None and dialog.isVisible()
    view = dialog.findChild(QTreeView)
    qtbot.waitUntil(lambda: view.model().rowCount(view.rootIndex()) >= 1, timeout=10_000)
    index = next(view.model().index(r, 0, view.rootIndex()) for r in range(view.model().rowCount(view.rootIndex()))
                 if view.model().index(r, 0, view.rootIndex()).data() == long_name)
    needed = view.fontMetrics().horizontalAdvance(long_name)
    qtbot.waitUntil(lambda: view.columnWidth(0) >= needed, timeout=5_000)
    assert view.visualRect(index).width() >= needed
    assert dialog.width() >= needed
    dialog.close()


def test_launch_plays_a_gym_cooking_level_with_the_cooks_asked_for_and_play_again_keeps_them(qtbot, window):
    from pathlib import Path

    from ui.app import LaunchError, launch

    level = str(Path(__file__).parent / "fixtures" / "gym_cooking" / "partial-divider_tl.txt")
    launch(window, targets=[level], cooks=3, facilitator="none", paused=True)
    assert window.model.timeline.world.agents == ("alice", "bob", "carol")
    assert window.sessions.play_again_plan().world.agents == ("alice", "bob", "carol")
    with pytest.raises(LaunchError, match="--cooks: expected a number of cooks from 1 to 4, got 5"):
        launch(window, targets=[level], cooks=5, paused=True)


def test_a_kind_for_tests_is_not_offered_in_the_seat_combos_but_plays_by_name(qtbot, window, tmp_path):
    from agents.registry import agent_kinds, make_agent

    assert agent_kinds()["held"].for_tests
    assert "held" not in agent_kinds(listed=True)
    window.fill_setup()
    assert window.setup.select_scenario("two-rooms")
    offered = {box.itemText(i) for box in window.setup.seat_boxes.values() for i in range(box.count())}
    assert "planner" in offered and "held" not in offered
    for family in {i.family for i in catalog.scenarios()}:
        assert "held" not in dict(catalog.agent_choices(family))
    assert "held" not in dict(catalog.agent_choices_any())
    # still made by name (the tests' seats)
    assert make_agent(f"held:release={tmp_path / 'go'}", "dkg") is not None
