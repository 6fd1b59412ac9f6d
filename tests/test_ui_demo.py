"""The app as a demo tool (issue 41), offscreen (pytest-qt): what a newcomer meets first, each
checked on the real window with known answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PyQt6.QtCore import QPoint, QPointF, Qt
from PyQt6.QtGui import QFontMetrics, QTextDocument, QWheelEvent
from PyQt6.QtWidgets import QApplication, QDockWidget
from ui_support import open_window, plan, wait_finished

from sim.registry import ScenarioError, load_scenario, read_scenario
from ui.app import launch

ROOT = Path(__file__).resolve().parent.parent
LEVEL = ROOT / "tests" / "fixtures" / "gym_cooking" / "full-divider_salad.txt"


@pytest.fixture
def window(qtbot, tmp_path):
    with open_window(qtbot, tmp_path) as w:
        w.resize(1366, 768)
        yield w


def shown_text(rich: str) -> str:
    """What a rich-text label shows (its markup read as Qt reads it)."""
    doc = QTextDocument()
    doc.setHtml(rich)
    return doc.toPlainText()


def wheel(widget, steps: int = -1) -> None:
    """One notch of the mouse wheel over the middle of ``widget`` (down when negative)."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(QPoint(int(centre.x()), int(centre.y())))), QPoint(0, 0),
                        QPoint(0, 120 * steps), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


# ------------------------------------------------------------------ the Session panel


def test_a_scenario_description_keeps_what_is_written_in_angle_brackets(window):
    window.fill_setup()
    assert window.setup.select_scenario("false-belief-unexpected-contents")
    shown = shown_text(window.setup.description.text())
    assert "'<sugar>(2) IN <sugar_jar>(1001)'" in shown
    assert shown.startswith(window.setup.tree.currentItem().data(0, Qt.ItemDataRole.UserRole).title)


def test_the_wheel_over_the_session_panel_scrolls_it_and_changes_no_choice(qtbot, window):
    window.fill_setup()
    setup = window.setup
    assert setup.select_scenario("protom-05-trio")
    window.focus_view()
    boxes = [*setup.seat_boxes.values(), *setup.mechanism_boxes.values(), setup.seed, setup.rounds]
    before = [b.currentText() if hasattr(b, "currentText") else b.value() for b in boxes]
    for box in boxes:
        assert not box.hasFocus()
        wheel(box, -1)
        wheel(box, +1)
        wheel(box, -1)
    after = [b.currentText() if hasattr(b, "currentText") else b.value() for b in boxes]
    assert after == before
    # a box the person clicked into takes the wheel as before
    box = setup.seat_boxes["alice"]
    box.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(box.hasFocus)
    index = box.currentIndex()
    wheel(box, -1 if index < box.count() - 1 else +1)
    assert box.currentIndex() != index


def test_a_level_opened_by_path_shows_in_the_session_panel_and_starts_again(qtbot, window):
    launch(window, targets=[str(LEVEL)], paused=True)
    timeline = window.model.timeline
    assert timeline.world.family == "kitchen"
    window.fill_setup()  # the panel as it is once the catalogue is read (after the level's first frame)
    setup = window.setup
    assert setup.world.family == "kitchen" and setup.scenario == timeline.scenario
    item = setup.tree.currentItem()
    assert item.text(0) == timeline.scenario and item.parent().text(0) == "opened files"
    assert set(setup.seats().values()) == {"kitchen-heuristic"}
    setup.start_button.click()  # Start again: the same level, no "does not play 'dkg'"
    assert setup.error.text() == ""
    assert window.model.timeline is not timeline and window.model.timeline.world.family == "kitchen"
    assert window.model.seat_specs == {a: "kitchen-heuristic" for a in timeline.world.agents}
    # another scenario, then the opened level again: its world comes back
    assert setup.select_scenario("two-rooms") and setup.world.family == "dkg"
    setup.tree.setCurrentItem(item)
    assert setup.world.family == "kitchen" and set(setup.seats().values()) == {"kitchen-heuristic"}


def test_team_scenarios_open_with_the_seats_and_mechanism_their_file_declares(qtbot, window):
    window.fill_setup()
    setup = window.setup
    assert setup.select_scenario("team-01-six")
    assert set(setup.seats().values()) == {"tom-planner:k=cycle,horizon=3"}
    assert setup.mechanisms() == ("teams:round_steps=6,max_size=eta,embedding=steps",)
    assert setup.rounds.value() == 1
    assert setup.select_scenario("rounds-01-six")  # rounds and two unreliable teammates, as its experiment
    assert setup.seats()["ben"] == "tom-planner:k=cycle,horizon=3,noise=0.3"
    assert setup.seats()["ada"] == "tom-planner:k=cycle,horizon=3" and setup.rounds.value() == 5
    assert setup.select_scenario("protom-05-trio")  # a scenario without "start": the world's defaults again
    assert set(setup.seats().values()) == {"boltzmann"} and setup.mechanisms() == ("protom",)
    assert setup.rounds.value() == 1
    # from the command line too
    launch(window, targets=["team-01-six"], paused=True)
    assert window.model.mechanism_specs == ("teams:round_steps=6,max_size=eta,embedding=steps",)
    assert set(window.model.seat_specs.values()) == {"tom-planner:k=cycle,horizon=3"}


def test_a_scenario_files_start_field_is_read_strictly_and_kept_out_of_the_worlds_spec(tmp_path):
    data = json.loads((ROOT / "scenarios" / "dkg" / "two-rooms.json").read_text())
    path = tmp_path / "started.json"
    path.write_text(json.dumps({**data, "start": {"agents": ["planner", "bob=human"], "mechanisms": ["protom"]}}))
    family, spec, start = read_scenario(path)
    assert "start" not in spec and start.agents == ("planner", "bob=human") and start.mechanisms == ("protom",)
    assert load_scenario(str(path))[1] == data["name"]
    for bad, where in (({"agents": "planner"}, "start.agents"), ({"agent": ["planner"]}, "start.agent"),
                       ({"mechanisms": ["a b"]}, "start.mechanisms"), ({"rounds": 0}, "start.rounds")):
        path.write_text(json.dumps({**data, "start": bad}))
        with pytest.raises(ScenarioError, match=f"{path}: field '{where}': "):
            read_scenario(path)


def test_the_generators_write_the_start_of_the_shipped_team_scenarios():
    from generators import make_joint, make_rush, make_teams

    for generator in (make_teams, make_rush, make_joint):
        assert generator.main(["--check"]) == 0
    hand_written = json.loads((ROOT / "scenarios" / "dkg" / "teams" / "team-01-six.json").read_text())
    assert hand_written["start"] == {"agents": ["tom-planner:k=cycle,horizon=3"],
                                     "mechanisms": ["teams:round_steps=6,max_size=eta,embedding=steps"]}


def test_an_llm_seat_on_the_embedded_model_says_it_is_a_smoke_test(qtbot, window, tmp_path, monkeypatch):
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(config))
    for name in ("TOM_ARENA_LLM_BASE_URL", "OPENAI_BASE_URL", "TOM_ARENA_LLM_MODEL_PATH"):
        monkeypatch.delenv(name, raising=False)
    window.fill_setup()
    setup = window.setup
    assert setup.select_scenario("protom-01-open-hall")
    assert not setup.model_note.isVisibleTo(setup)
    setup.seat_boxes["alice"].setCurrentText("llm")
    assert setup.model_note.isVisibleTo(setup)
    words = shown_text(setup.model_note.text())
    assert "smoke test" in words and "Gemma 3 270M" in words and "File > Settings > LLM" in words
    setup.seat_boxes["alice"].setCurrentText("planner")
    assert not setup.model_note.isVisibleTo(setup)
    monkeypatch.setenv("TOM_ARENA_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # a real endpoint: nothing to say
    setup.seat_boxes["alice"].setCurrentText("llm")
    assert not setup.model_note.isVisibleTo(setup)


# ------------------------------------------------------------------ the Minds dock


def test_llm_usage_shows_only_in_episodes_that_use_a_model(qtbot, window):
    tabs, usage = window.panels.tabs, window.panels.usage
    window.start_session(plan("protom-01-open-hall", ["planner", "planner"]), playing=False)
    window.panels.refresh(force=True)
    assert tabs.indexOf(usage) == -1 and tabs.count() == 0
    window.model.describe_seats({"alice": "llm", "bob": "planner"}, ())  # as a session with an LLM seat has
    window.panels.refresh(force=True)
    assert tabs.indexOf(usage) == tabs.count() - 1 and tabs.tabText(tabs.indexOf(usage)) == "LLM usage"
    assert "language model" in tabs.tabToolTip(tabs.indexOf(usage))
    window.close_episode()
    window.panels.refresh(force=True)
    assert tabs.indexOf(usage) == -1


def wrapped_height(fm: QFontMetrics, width: int, text: str) -> int:
    from PyQt6.QtCore import QRect

    return fm.boundingRect(QRect(0, 0, max(1, width), 100_000), int(Qt.TextFlag.TextWordWrap), text).height()


def test_belief_timeline_rows_show_whole_sentences_at_the_default_width(qtbot, window):
    window.start_session(plan("false-belief-unexpected-transfer", ["cobel", "cobel"]))
    wait_finished(qtbot, window, 120_000)
    window.panels.refresh(force=True)
    panel = window.panels.panel("Belief timeline")
    window.panels.tabs.setCurrentWidget(panel)
    qtbot.wait(50)
    tree = panel.tree
    assert panel.rows(), "the false belief is listed"
    fm = QFontMetrics(tree.font())
    delegate = tree.itemDelegate()
    for k in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(k)
        for j in range(top.childCount()):
            item, detail = top.child(j), top.child(j).child(0)
            assert "arose: " in detail.text(0) and item.text(2) in detail.text(0) and item.text(3) in detail.text(0)
            assert item.toolTip(1) and detail.toolTip(0)
            for row, column in ((item, 1), (detail, 0)):
                text = row.text(column)
                width = delegate.text_width(tree.indexFromItem(row, column))
                assert width >= 0.5 * tree.viewport().width()  # the sentence has the width
                # whole words fit, and the row is as tall as the wrapped text
                assert max(fm.horizontalAdvance(w) for w in text.split()) <= width, (text, width)
                assert tree.visualItemRect(row).height() >= wrapped_height(fm, width, text), (text, width)


def test_the_messages_tab_gives_the_message_the_width(qtbot, window):
    from sim.events import MessageEvent

    window.start_session(plan("false-belief-second-order", ["cobel", "cobel"]))
    wait_finished(qtbot, window, 120_000)
    timeline = window.model.timeline
    assert timeline.of_type(MessageEvent), "the episode has messages"
    window.panels.refresh(force=True)
    panel = window.panels.panel("Messages")
    holder = window.panels.widgets["Messages"]
    window.panels.tabs.setCurrentWidget(holder)
    qtbot.wait(50)
    viewport = panel.viewport().width()
    assert panel.columnWidth(3) >= 0.4 * viewport, (panel.columnWidth(3), viewport)
    fm = QFontMetrics(panel.font())
    for row in range(panel.rowCount()):
        text = panel.item(row, 3).text()
        assert panel.rowHeight(row) >= wrapped_height(fm, panel.columnWidth(3) - 8, text) - 2
        assert panel.item(row, 2).toolTip() == panel.item(row, 2).text()


# ------------------------------------------------------------------ the View menu


def test_view_reset_layout_puts_every_panel_back(qtbot, window):
    action = window.actions_by_name["reset_layout"]
    assert action.shortcut().toString() == "Ctrl+Shift+R"
    assert action in window.menuBar().actions()[3].menu().actions()  # View
    window.minds_dock.setFloating(True)
    window.setup_dock.hide()
    window.removeDockWidget(window.log_dock)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, window.log_dock)
    window.log_dock.show()
    action.trigger()
    qtbot.wait(50)
    docks: list[QDockWidget] = [window.setup_dock, window.minds_dock, window.feedback_dock, window.log_dock]
    assert all(d.isVisible() and not d.isFloating() for d in docks)
    assert window.dockWidgetArea(window.setup_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    for dock in (window.minds_dock, window.feedback_dock, window.log_dock):
        assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert window.setup_dock.width() >= 200 and window.minds_dock.width() >= 200


def test_a_level_opened_with_cooks_keeps_them_in_the_session_panel(qtbot, window):
    launch(window, targets=[str(LEVEL)], cooks=3, paused=True)
    window.fill_setup()  # the panel as it is once the catalogue is read
    setup = window.setup
    item = setup.tree.currentItem()
    assert len(setup.world.agents) == 3 and item.text(1) == "3"
    assert setup.select_scenario("two-rooms")
    setup.tree.setCurrentItem(item)
    assert len(setup.world.agents) == 3 and len(setup.seats()) == 3
    setup.start_button.click()
    assert setup.error.text() == "" and len(window.model.timeline.world.agents) == 3
