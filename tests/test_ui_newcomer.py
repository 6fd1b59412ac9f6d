"""The app as a newcomer meets it (issue 16): the real window offscreen (pytest-qt), each item a
person can see checked with known answers."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pygame
import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest
from PyQt6.QtWidgets import QMessageBox
from test_ui_feedback import feedback_case
from ui_support import feedback_statuses, open_window, plan, play_human_until, wait_finished

from sim.events import FeedbackEvent, FeedbackStatusEvent, StepEvent
from sim.recording import load_recording
from sim.registry import load_scenario
from ui.render import renderer_for
from ui.render.worldview import init_pygame
from ui.session.timeline import LiveTimeline, PreviewTimeline, ReplayTimeline

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def window(qtbot, tmp_path):
    with open_window(qtbot, tmp_path) as w:
        yield w


# ------------------------------------------------------------------ feedback and episodes


def test_an_ignored_suggestion_is_not_put_again_until_the_world_changes(qtbot, window):
    scenario, target = feedback_case()
    other = next(a for a in plan(scenario, {}).world.agents if a != target)
    window.start_session(plan(scenario, {target: "human", other: "planner"}, facilitator="protom"))
    play_human_until(qtbot, window, target, lambda: window.toast.awaiting_decision, timeout=120)
    first = window.toast.feedback
    QTest.keyClick(window.view, Qt.Key.Key_Escape)  # ignore
    qtbot.waitUntil(lambda: "ignored" in feedback_statuses(window, first.feedback_id))
    # The facilitator keeps suggesting the same thing while nothing happens in the world (steps
    # without world events): the person is not asked again.
    timeline = window.model.timeline
    changes_at_ignore = sum(1 for e in timeline.events if isinstance(e, StepEvent) and e.world_events)

    def repeats():
        return [e for e in timeline.events if isinstance(e, FeedbackEvent) and e.feedback_id != first.feedback_id
                and e.target == target and e.feedback == first.feedback]

    play_human_until(qtbot, window, target, lambda: len(repeats()) >= 2 or window.model.timeline.outcome is not None
                     or window.toast.awaiting_decision, timeout=120)
    unchanged = [e for e in repeats()
                 if sum(1 for s in timeline.events[:timeline.events.index(e)]
                        if isinstance(s, StepEvent) and s.world_events) == changes_at_ignore]
    assert unchanged, "the facilitator did not repeat its suggestion (the rule had nothing to do)"
    for repeat in unchanged:
        assert repeat.feedback_id in window.model.runner.auto_declined
        qtbot.waitUntil(lambda r=repeat: "ignored" in feedback_statuses(window, r.feedback_id))
    assert not (window.toast.isVisible() and window.toast.feedback.feedback_id in {r.feedback_id for r in unchanged})
    # The history shows one row for the suggestion and its repeats, not a row per tick.
    window.panels.refresh(force=True)
    rows = [r for r in window.panels.feedback.rows_shown if r[2] == target and r[3] == first.text]
    assert rows[0][0] == first.feedback_id and rows[0][6] == 1 + len(unchanged)
    assert window.panels.feedback.item(0, 4).text() == f"Ignored ×{1 + len(unchanged)}"


def test_the_rule_shows_a_suggestion_again_once_the_world_changed():
    from sim.events import FeedbackEvent as FE
    from ui.session.runner import RepeatedSuggestionRule

    rule = RepeatedSuggestionRule()
    payload = {"type": "unlock", "agent": "bob", "door": "door1", "for": "alice"}
    rule.observe(FE(tick=3, facilitator="protom", feedback_id=1, target="bob", feedback=payload, text="t",
                    explanation=""))
    assert not rule.is_repeat("bob", payload)  # not ignored yet
    rule.observe(FeedbackStatusEvent(tick=4, feedback_id=1, agent="bob", status="ignored"))
    assert rule.is_repeat("bob", dict(reversed(list(payload.items()))))  # same payload, any key order
    assert not rule.is_repeat("bob", {**payload, "door": "door2"})  # another suggestion
    assert not rule.is_repeat("alice", payload)
    rule.observe(StepEvent(tick=4, joint_action={"bob": "left"}, state_hash="h", world_events=()))
    assert rule.is_repeat("bob", payload)  # a move changes nothing the suggestion was about
    rule.observe(StepEvent(tick=5, joint_action={"bob": "pickup key1"}, state_hash="h",
                           world_events=({"kind": "pickup", "agent": "bob", "data": {"item": "key1"}},)))
    assert not rule.is_repeat("bob", payload)  # the world changed: it may be asked again


def test_pop_ups_can_be_turned_off_for_the_episode(qtbot, window):
    scenario, target = feedback_case()
    other = next(a for a in plan(scenario, {}).world.agents if a != target)
    window.start_session(plan(scenario, {target: "human", other: "planner"}, facilitator="protom"))
    play_human_until(qtbot, window, target, lambda: window.toast.awaiting_decision, timeout=120)
    fid = window.toast.feedback.feedback_id
    QTest.mouseClick(window.toast.off_button, Qt.MouseButton.LeftButton)
    assert not window.toast.isVisible() and not window.model.popups and not window.model.runner.popups
    qtbot.waitUntil(lambda: "ignored" in feedback_statuses(window, fid))  # the open one is declined for the person
    play_human_until(qtbot, window, target, lambda: window.model.timeline.outcome is not None, timeout=120)
    later = [e for e in window.model.timeline.events if isinstance(e, FeedbackEvent) and e.feedback_id > fid
             and e.target == target]
    assert all(e.feedback_id in window.model.runner.auto_declined for e in later)
    assert not window.toast.awaiting_decision


def test_a_finished_episode_shows_a_summary_with_choices(qtbot, window):
    window.start_session(plan("two-rooms", ["planner", "planner"], facilitator="protom"))
    wait_finished(qtbot, window)
    card = window.card
    qtbot.waitUntil(card.isVisible)
    assert card.kind == "summary"
    assert card.title.text() == "Solved in 25 ticks"
    body = card.body.text()
    assert "alice reached its goal at tick" in body and "bob reached its goal at tick" in body
    assert "feedback:" in body or "no feedback was sent" in body
    assert set(card.button_widgets) == {"Play again", "Take over…", "Open recording"}
    assert "success - success" not in window.statusBar().currentMessage() + window.mode_label.text()
    assert window.mode_label.text().endswith("— Solved in 25 ticks")
    first = window.model.timeline
    QTest.mouseClick(card.button_widgets["Play again"], Qt.MouseButton.LeftButton)
    assert window.model.timeline is not first and isinstance(window.model.timeline, LiveTimeline) and not card.isVisible()
    wait_finished(qtbot, window)
    qtbot.waitUntil(card.isVisible)
    path = window.model.recording_path
    QTest.mouseClick(card.button_widgets["Open recording"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: isinstance(window.model.timeline, ReplayTimeline))
    assert Path(window.model.timeline.path) == path


def test_the_summary_names_the_winner_of_a_tradecraft_game(qtbot, window):
    window.start_session(plan("mc1v1-01", ["trader", "trader"]))
    wait_finished(qtbot, window)
    qtbot.waitUntil(window.card.isVisible)
    assert window.card.title.text() == "alice and bob won after 1 turn"
    assert "alice reached its target" in window.card.body.text()


def answer_discard_question(qtbot, window, end_it: bool) -> None:
    qtbot.waitUntil(lambda: window.discard_box is not None and window.discard_box.isVisible())
    box = window.discard_box
    assert box.objectName() == "discardQuestion" and not box.isModal() or box.windowModality() != Qt.WindowModality.ApplicationModal
    button = box.button(QMessageBox.StandardButton.Yes if end_it else QMessageBox.StandardButton.Cancel)
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def test_starting_or_opening_asks_before_ending_a_live_game(qtbot, window, tmp_path):
    window.start_session(plan("two-rooms", ["planner", "planner"]))
    wait_finished(qtbot, window)
    finished = window.model.recording_path
    window.start_session(plan("two-rooms", {"alice": "human", "bob": "planner"}))
    qtbot.waitUntil(lambda: window.model.human_to_move() == "alice")
    QTest.keyClick(window.view, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 2)
    live, live_path = window.model.timeline, window.model.recording_path
    assert window.sessions.has_live_game()
    QTest.mouseClick(window.setup.start_button, Qt.MouseButton.LeftButton)  # Start
    answer_discard_question(qtbot, window, end_it=False)
    assert window.model.timeline is live and window.model.runner is not None and window.model.runner.alive  # kept
    window.open_recording_asking(finished)  # File > Open, recent files and drops come here
    answer_discard_question(qtbot, window, end_it=False)
    assert window.model.timeline is live
    window.open_recording_asking(finished)
    answer_discard_question(qtbot, window, end_it=True)
    qtbot.waitUntil(lambda: isinstance(window.model.timeline, ReplayTimeline))
    assert load_recording(live_path).footer["outcome"]["stopped"] is True  # the game's file got its footer
    made = window.model.timeline
    window.start_session(plan("two-rooms", ["planner", "planner"]))  # nothing live to lose: no question
    assert window.discard_box is None and window.model.timeline is not made


def test_close_episode_empties_every_view(qtbot, window):
    window.start_session(plan("mc1v1-01", {"alice": "trader", "bob": "human"}))
    qtbot.waitUntil(lambda: window.panels.panel("TradeCraft board") is not None)
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 1)
    window.model.seek(1)
    assert window.playback.slider.maximum() >= 1
    QTest.keyClick(window.view, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)  # Close episode
    assert window.model.timeline is None and window.renderer is None
    assert window.panels.widgets == {} and window.panels.panel("TradeCraft board") is None
    assert window.panels.tabs.count() == 0  # not even LLM usage: no episode uses a model
    assert window.panels.usage.rowCount() == 0 and window.panels.log.model_.count == 0
    assert window.panels.feedback.rowCount() == 0
    assert window.playback.slider.maximum() == 0 and window.playback.label.text() == "0 / 0"
    assert window.score_label.text() == "" and window.step_label.text() == ""
    assert window.windowTitle() == "ToM Arena" and window.mode_label.text() == "no episode"


def test_watching_a_tradecraft_game_the_board_lists_no_recipes_it_does_not_show(qtbot, window):
    window.start_session(plan("mc1v1-01", ["trader", "trader"]))
    wait_finished(qtbot, window)
    window.panels.refresh(force=True)
    board = window.panels.panel("TradeCraft board")
    assert board.crafting.recipes.count() == 0 and "(" not in board.crafting.recipes_label.text().split("recipes")[-1][:4]


def test_a_replay_shows_its_scenario_in_the_session_panel_and_the_title(qtbot, window):
    window.start_session(plan("protom-07-passing-by", ["boltzmann", "planner"], seed=4))
    wait_finished(qtbot, window)
    path = window.model.recording_path
    assert window.windowTitle().startswith("protom-07-passing-by (seed 4, finished)")
    window.setup.select_scenario("two-rooms")  # the panel shows something else
    assert window.open_recording(path)
    assert window.setup.scenario == "protom-07-passing-by"
    assert window.setup.seats()["alice"].startswith("boltzmann") and window.setup.seats()["bob"].startswith("planner")
    assert window.setup.seed.value() == 4
    assert window.windowTitle().startswith(f"{path.name} (protom-07-passing-by, replay)")


def test_a_recording_shows_its_first_state_before_it_is_loaded(qtbot, window, tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_gui import make_long_recording

    path = make_long_recording(tmp_path / "long.jsonl", 3000)
    assert window.open_recording_in_background(path)
    # at once, from the header alone: the first state is on screen, the rest still loading
    assert isinstance(window.model.timeline, PreviewTimeline)
    assert window.view.state == window.model.timeline.world.reset(window.model.timeline.seed)
    assert "loading" in window.mode_label.text()
    window.set_playing(True)  # asked while loading: plays once loaded
    qtbot.waitUntil(lambda: isinstance(window.model.timeline, ReplayTimeline), timeout=60_000)
    assert window.model.timeline.num_steps == 3000 and window.model.playing
    assert window.open_recording_in_background(tmp_path / "missing.jsonl") is False


def test_gui_options_work_without_the_gui_word(monkeypatch):
    import main
    import ui.app

    seen = {}
    monkeypatch.setattr(ui.app, "run_app", lambda **kw: seen.update(kw) or 0)
    assert main.main(["--paused", "--seed", "3"]) == 0
    assert seen["paused"] is True and seen["seed"] == 3


def test_a_first_run_starts_paused_with_a_hint(tmp_path):
    """A fresh profile: the episode waits for the person (no steps recorded) and the settings
    remember that the hint was shown; the next run plays by itself."""
    import os
    import signal

    from ui.settings import AppSettings

    ini = tmp_path / "settings.ini"
    ini.write_text(f"[General]\nrecordings_dir={tmp_path / 'recordings'}\n")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen([sys.executable, "main.py", "--speed", "32", "--settings", str(ini)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 60
        while not list((tmp_path / "recordings").glob("*.jsonl")) and time.monotonic() < end:
            time.sleep(0.1)
        time.sleep(2.0)  # at 32 steps/s a playing episode would have many steps by now
        (path,) = list((tmp_path / "recordings").glob("*.jsonl"))
        assert '"type":"step"' not in path.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert AppSettings.at(ini).get("welcomed") is True


def test_launch_with_a_seat_the_map_does_not_have_says_so(qtbot, window):
    from ui.app import LaunchError, launch

    with pytest.raises(LaunchError, match="no seat named 'carol'"):
        launch(window, targets=["two-rooms"], agents=["alice=human", "carol=planner"])


# ------------------------------------------------------------------ readability


def test_tradecraft_log_and_history_read_as_words(qtbot, window):
    window.start_session(plan("mc1v1-01", ["trader", "trader"]))
    wait_finished(qtbot, window)
    window.panels.refresh(force=True)
    lines = window.panels.log.lines()
    steps = [line for line in lines if "alice:" in line or "bob:" in line]
    assert steps and not any("{" in line or "'type'" in line for line in lines), lines
    assert any("offers bob" in line and " for " in line for line in steps)
    assert any("bob trade" in line and "accepted" in line for line in lines)
    # the map's history and the board's header agree with the status bar on the turn
    window.model.seek(window.model.timeline.num_steps)
    window.view.render_frame()
    renderer = window.renderer
    assert renderer.history_lines and not any("*" in line or "{" in line for line in renderer.history_lines)
    assert renderer.history_lines[-1].startswith("turn 1: alice offered bob ")
    assert renderer.history_lines[-1].endswith("(accepted)") or "(accepted) — " in renderer.history_lines[-1]


def test_the_last_trade_line_is_the_trade_of_this_turn(qtbot, window):
    window.start_session(plan("mc1v1-01", {"alice": "trader", "bob": "human"}))
    board = None
    qtbot.waitUntil(lambda: window.panels.panel("TradeCraft board") is not None)
    board = window.panels.panel("TradeCraft board")
    qtbot.waitUntil(lambda: (window.panels.refresh() or True) and board.can_act and board.obs.phase == "respond",
                    timeout=30_000)
    QTest.mouseClick(board.trade.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: (window.panels.refresh() or True) and board.obs is not None and board.obs.phase == "craft",
                    timeout=30_000)
    assert board.trade.last_trade_text.startswith("turn 1: alice offered bob") and "(accepted)" in board.trade.last_trade_text
    from ui.tradecraft.renderer import turn_number
    obs = board.obs
    assert f"turn {turn_number(obs.turn, obs.phase, obs.max_turns)}/" in board.header.text()


def test_the_tom_values_heatmap_fits_a_narrow_dock(qtbot):
    from types import SimpleNamespace

    from ui.tradecraft.heatmap import ToMValuesView

    view = ToMValuesView()
    qtbot.addWidget(view)
    items = ["minecraft:paper", "minecraft:leather", "minecraft:book"]
    alice = SimpleNamespace(data={"stage": "propose", "turn": 0, "opponent": "bob", "order": 2,
                                  "V0": dict.fromkeys(items, 5.0), "V1": dict.fromkeys(items, 3.0),
                                  "V2": dict.fromkeys(items, 1.0)})
    bob = SimpleNamespace(data={"stage": "respond", "turn": 0, "opponent": "alice", "order": 2,
                                "V0": dict.fromkeys(items, 2.0), "V1": dict.fromkeys(items, 4.0),
                                "V2": dict.fromkeys(items, 6.0)})
    view.set_reports({"alice": alice, "bob": bob}, ["alice", "bob"])
    view.resize(300, 150)  # a dock about 150 px tall in a narrow right column
    assert view.minimumWidth() <= 300
    last = view.cell_rect(len(view.items) - 1, len(view.columns) - 1)
    assert view.columns[-1] == ("bob", "V2") and last.right() <= view.width()  # bob's V2 is on screen
    lines = view.header_lines()
    assert any(line.startswith("KL(bob's V0 ‖ alice's V1) = ") for line in lines)
    assert view.toolTip().startswith("V0: what an item is worth")


def test_the_window_fits_a_1366x768_laptop_with_the_tradecraft_board(qtbot, window):
    window.start_session(plan("mc1v1-01", {"alice": "trader", "bob": "human"}))
    qtbot.waitUntil(lambda: window.panels.panel("TradeCraft board") is not None)
    window.resize(1366, 700)
    qtbot.wait(50)
    assert window.minimumSizeHint().height() <= 700 and window.minimumSize().height() <= 700
    assert window.height() <= 768 - 30


def test_every_panel_and_seat_kind_has_a_tooltip_in_plain_words(qtbot, window):
    scenario, _ = feedback_case()
    window.start_session(plan(scenario, ["planner", "planner"], facilitator="protom"))
    wait_finished(qtbot, window)
    window.panels.refresh(force=True)
    tabs = window.panels.tabs
    assert tabs.count() >= 2  # goal inference, feedback candidates (no LLM usage: no model plays)
    for i in range(tabs.count()):
        assert len(tabs.tabToolTip(i)) > 30, tabs.tabText(i)
    for dock in (window.setup, window.panels.feedback, window.panels.log):
        assert dock.toolTip()
    from ui.session import catalog

    jargon = ("boltzmann", "phi", "eps", "utility", "divergence")
    for family in {i.family for i in catalog.scenarios()}:
        for kind, _ in catalog.agent_choices(family):
            words = catalog.plain_words(kind)
            assert kind in catalog.PLAIN_KINDS, f"seat kind {kind} has no plain-words tooltip"
            assert not any(re.search(rf"\b{j}\b", words.split(":", 1)[1].lower()) for j in jargon), words
    assert "how likely it carries out a suggestion" in catalog.plain_words("planner:compliance=1.0")
    assert "how often it makes a worse move" in catalog.plain_words("boltzmann:temperature=1.0")
    window.setup.select_scenario("two-rooms")
    box = window.setup.seat_boxes["alice"]
    for i in range(box.count()):
        assert box.itemData(i, Qt.ItemDataRole.ToolTipRole), box.itemText(i)
    assert "recipe step" in catalog.plain_description("chain length 1 (depth 1), at least 1 trade(s)")
    candidates = window.panels.panel("Feedback candidates")
    assert "ticks" in candidates.caption.text() and candidates.table.horizontalHeaderItem(2).toolTip()


def test_help_has_a_page_per_world_the_keys_and_the_papers(qtbot, window):
    from sim.plugins import plugins
    from ui.session import catalog

    window.start_session(plan("two-rooms", ["human", "human"]))
    QTest.keyClick(window.view, Qt.Key.Key_F1, Qt.KeyboardModifier.ShiftModifier)  # How to play this world
    dialog = window.dialogs.help_dialog
    assert dialog.isVisible() and not dialog.isModal()
    text = dialog.page_text()
    assert text.startswith("How to play: Doors, Keys and Gems")
    assert plugins()["dkg"].rules_text.split(".")[0] in text
    assert "pick up" in text and "What the panels mean" in text and "Goal inference" in text
    families = {i.family for i in catalog.scenarios()}
    titles = [dialog.index.item(i).text() for i in range(dialog.index.count())]
    from ui.help import page_title
    assert {page_title(f) for f in families} <= set(titles)
    dialog.open_page("How to play: TradeCraft")
    assert "accept / reject the proposal" in dialog.page_text()
    QTest.keyClick(window.view, Qt.Key.Key_F1)  # the shortcuts: the app's and every world's
    keys = dialog.page_text()
    assert "Keyboard shortcuts" in keys and "accept / reject the proposal" in keys and "Take over from here" in keys
    screen = dialog.screen().availableGeometry()
    assert dialog.height() <= screen.height() and dialog.width() <= screen.width()
    window.dialogs.show_papers()
    assert "ProToM" in dialog.page_text() and "TradeCraft" in dialog.page_text()


# ------------------------------------------------------------------ overlaps


def test_the_strip_under_the_map_never_runs_into_the_clock():
    init_pygame()
    world, _ = load_scenario("protom-18-trio-locked")  # three agents
    renderer = renderer_for(world)
    for width in (480, 640, 800, 1280):
        height = int(width * 0.6)
        renderer.layout(width, height)
        renderer.draw(pygame.Surface((width, height)), world.reset(0))
        regions = renderer.hud_regions
        assert regions["strip_end"] <= regions["clock"].left or regions["clock"].bottom <= renderer.hud_top, width


def test_two_agents_on_one_cell_keep_readable_names():
    init_pygame()
    world, _ = load_scenario("two-rooms")
    renderer = renderer_for(world)
    renderer.layout(640, 480)
    state = world.reset(0)
    shared = state.__class__(**{**{f: getattr(state, f) for f in state.__dataclass_fields__},
                                "agent_cells": (state.agent_cells[0], state.agent_cells[0])})
    renderer.draw(pygame.Surface((640, 480)), shared)
    a, b = renderer.label_rects["alice"], renderer.label_rects["bob"]
    assert not a.colliderect(b)
    renderer.draw_messages(pygame.Surface((640, 480)), shared, [("alice", "I take the key"), ("bob", "ok, I wait")])
    first, second = renderer.bubble_rects
    assert not first.colliderect(second)


def test_the_session_panel_fills_itself_once_the_window_runs(qtbot, tmp_path):
    """The catalogue and the default scenario's preview and seats are not built with the window
    (a recording opened from the command line needs none of them) but once the event loop runs."""
    from ui.mainwindow import MainWindow
    from ui.settings import AppSettings

    window = MainWindow(AppSettings.at(tmp_path / "settings.ini"))
    qtbot.addWidget(window)
    try:
        assert not window.setup_filled and window.setup.tree.topLevelItemCount() == 0
        assert window.setup.world is None and not window.setup.seat_boxes
        window.show()
        qtbot.waitUntil(lambda: window.setup_filled, timeout=10_000)
        assert window.setup.tree.topLevelItemCount() > 0 and window.setup.world is not None
        assert list(window.setup.seat_boxes) == list(window.setup.world.agents)
    finally:
        window.shutdown()


def _gated_catalogue(monkeypatch, tmp_path):
    """No scenario index yet (an empty cache folder, nothing remembered by this process), and the
    real catalogue reading held until the returned event is set: what the window does while the
    index is being built, whatever the machine's speed."""
    import threading

    from sim import scenario_index
    from ui.session import catalog

    monkeypatch.setenv("TOM_ARENA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(scenario_index, "_MEMORY", {})
    gate, began = threading.Event(), threading.Event()
    real = catalog.scan_scenarios

    def held() -> tuple[list, list]:
        began.set()
        gate.wait(60)
        return real()

    monkeypatch.setattr(catalog, "scan_scenarios", held)
    return gate, began


def test_with_no_scenario_index_the_window_runs_while_it_is_built(qtbot, tmp_path, monkeypatch):
    """The index is built in a worker thread after the first frame: meanwhile the window runs
    and the panel says it is reading scenarios; it fills when the build is done."""
    from sim import scenario_index
    from ui.mainwindow import MainWindow
    from ui.settings import AppSettings

    gate, began = _gated_catalogue(monkeypatch, tmp_path)
    assert not scenario_index.index_path().exists()
    window = MainWindow(AppSettings.at(tmp_path / "settings.ini"))
    qtbot.addWidget(window)
    try:
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(began.is_set, timeout=10_000)  # the build runs (in the worker) ...
        for _ in range(3):  # ... and the window's event loop turns meanwhile
            qtbot.wait(20)
        assert window.isVisible() and not window.setup_filled
        assert window.setup.note.text() == "reading scenarios…" and window.setup.tree.topLevelItemCount() == 0
        # nothing plays and nothing is read yet: the choices are blank and disabled, not "none"
        for box in window.setup.mechanism_boxes.values():
            assert box.currentText() == "" and not box.isEnabled()
        assert not window.setup.seat_boxes and not window.setup.start_button.isEnabled()
        assert not window.setup.seed.isEnabled() and not window.setup.rounds.isEnabled()
        gate.set()
        qtbot.waitUntil(lambda: window.setup_filled, timeout=30_000)
        assert window.setup.tree.topLevelItemCount() > 0 and window.setup.world is not None
        assert list(window.setup.seat_boxes) == list(window.setup.world.agents)
        assert not window.setup.note.text().startswith("reading")
        assert scenario_index.index_path().exists()  # built, for the next start
    finally:
        gate.set()
        window.shutdown()


def test_a_start_shows_the_default_scenarios_first_frame_before_the_catalogue_is_read(qtbot, tmp_path,
                                                                                       monkeypatch):
    """``main.py gui`` with nothing to open (a first run builds the index): the default scenario is
    found by its file and its first frame painted while the catalogue is still held; once read,
    the Session panel shows that scenario with the episode's seats."""
    from sim import scenario_index
    from ui.app import launch
    from ui.mainwindow import MainWindow
    from ui.session import catalog
    from ui.settings import AppSettings

    gate, began = _gated_catalogue(monkeypatch, tmp_path)
    window = MainWindow(AppSettings.at(tmp_path / "settings.ini"))
    qtbot.addWidget(window)
    try:
        window.show()
        launch(window, paused=True)  # as run_app does for 'main.py gui', before the event loop
        assert not window.catalogue.started and not window.setup_filled
        qtbot.waitUntil(lambda: window.view.drawn_state is not None, timeout=30_000)
        assert window.view.drawn_state == window.model.timeline.state_at(0)
        assert not window.catalogue.finished  # drawn before the catalogue (and its index) is read
        # meanwhile the Session panel shows what plays (welcome card: "a facilitator (protom) watches")
        plan = window.sessions.last_plan
        setup = window.setup
        assert plan.mechanisms and setup.mechanisms() == plan.mechanisms
        assert setup.facilitator.currentText() == plan.mechanisms[0] and setup.facilitator.isEnabled()
        assert setup.seats() == dict(plan.seats) and setup.scenario == plan.scenario
        assert (setup.seed.value(), setup.rounds.value()) == (plan.seed, plan.rounds)
        qtbot.waitUntil(began.is_set, timeout=10_000)  # it is read after the first frame
        assert setup.tree.topLevelItemCount() == 0 and setup.note.text() == "reading scenarios…"
        assert setup.mechanisms() == plan.mechanisms and setup.seats() == dict(plan.seats)
        assert not scenario_index.index_path().exists()
        gate.set()
        qtbot.waitUntil(lambda: window.setup_filled, timeout=60_000)
        infos = catalog.scenarios()
        default = catalog.default_scenario(infos)
        assert default is not None and window.model.timeline.scenario == default.name
        assert catalog.first_scenario() == default.name  # found by its file: the catalogue's own choice
        assert window.setup.scenario == default.name
        assert list(window.setup.seat_boxes) == list(window.model.timeline.world.agents)
        assert window.setup.facilitator.currentText() == window.sessions.last_plan.mechanisms[0]
        assert window.setup.seats() == dict(plan.seats) and window.setup.mechanisms() == plan.mechanisms
        current = window.setup.tree.currentItem()  # the scenario is selected in the tree once it is read
        assert current is not None and current.text(0) == default.name
    finally:
        gate.set()
        window.shutdown()


def test_asking_for_the_panel_while_the_index_is_built_waits_for_it(qtbot, tmp_path, monkeypatch):
    """Ctrl+N (``show_setup``) before the build is done waits for it, with a busy cursor, and
    shows the filled panel; the build's own signal then changes nothing."""
    import threading

    from PyQt6.QtGui import QGuiApplication

    from ui.mainwindow import MainWindow
    from ui.settings import AppSettings

    gate, began = _gated_catalogue(monkeypatch, tmp_path)
    window = MainWindow(AppSettings.at(tmp_path / "settings.ini"))
    qtbot.addWidget(window)
    cursors: list = []

    def release() -> None:  # from another thread: once the GUI thread waits, let the build end
        began.wait(30)
        for _ in range(3000):
            cursor = QGuiApplication.overrideCursor()
            if cursor is not None:
                break
            time.sleep(0.01)
        cursors.append(None if cursor is None else cursor.shape())
        gate.set()

    try:
        window.show()
        qtbot.waitUntil(lambda: window.catalogue.started, timeout=10_000)
        assert not window.setup_filled
        helper = threading.Thread(target=release)
        helper.start()
        window.show_setup()  # returns once the catalogue is read
        helper.join()
        assert cursors == [Qt.CursorShape.WaitCursor]
        assert QGuiApplication.overrideCursor() is None
        assert window.setup_filled and window.setup.tree.topLevelItemCount() > 0 and window.setup.world is not None
        scenario = window.setup.scenario
        qtbot.wait(50)  # the worker's queued signal arrives: the panel stays as it is
        assert window.setup.scenario == scenario and window.setup.tree.topLevelItemCount() > 0
    finally:
        gate.set()
        window.shutdown()


def test_the_scenario_tree_shows_every_column(qtbot, window):
    window.show_setup()  # as Ctrl+N does: the panel is filled when it is asked for
    tree = window.setup.tree
    window.resize(1280, 800)
    qtbot.wait(50)
    item = tree.currentItem()
    assert item is not None and item.text(1) == str(len(item.data(0, Qt.ItemDataRole.UserRole).agents))
    assert "agents: alice, bob" in item.toolTip(0)
    viewport = tree.viewport().width()
    last = tree.header().sectionViewportPosition(1) + tree.columnWidth(1)
    assert last <= viewport and tree.horizontalScrollBar().maximum() == 0  # nothing off to the side


# ------------------------------------------------------------------ the LLM seat


def test_llm_kinds_say_whether_a_model_can_answer(qtbot, window, monkeypatch):
    from ui.session import catalog

    monkeypatch.setattr(catalog, "llm_availability", lambda: "the embedded model needs the Python package(s) x")
    window.fill_setup()
    window.setup.select_scenario("protom-01-open-hall")
    box = window.setup.seat_boxes["alice"]
    i = box.findText("llm")
    assert not box.model().item(i).isEnabled()
    assert box.itemData(i, Qt.ItemDataRole.ToolTipRole).startswith("NOT AVAILABLE here: the embedded model")
    monkeypatch.setattr(catalog, "llm_availability", lambda: None)
    window.setup.select_scenario("protom-02-own-keys")
    box = window.setup.seat_boxes["alice"]
    assert box.model().item(box.findText("llm")).isEnabled()


def test_the_llm_settings_page_tests_the_connection(qtbot, window, tmp_path, monkeypatch):
    config = tmp_path / "config"
    config.mkdir()
    (config / "llm.toml").write_text("max_retries = 0\ntimeout = 3\n")
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(config))
    window.dialogs.show_settings()
    page = window.dialogs.settings_dialog.llm_page
    page.fields["base_url"].setText("http://127.0.0.1:9/v1")  # nobody listens there
    with qtbot.waitSignal(page.check_finished, timeout=60_000) as result:
        QTest.mouseClick(page.test_button, Qt.MouseButton.LeftButton)
        assert not page.test_button.isEnabled()  # running, the window goes on
    code, output = result.args
    assert code == 1 and "endpoint" in output and "http://127.0.0.1:9/v1" in output
    assert "failed" in page.check_view.text()
    window.dialogs.settings_dialog.close()
