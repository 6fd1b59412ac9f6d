"""The window on a 1366 x 768 laptop screen (offscreen, the screen's available area given to
the window as it would come from QScreen.availableGeometry): a fresh window fits it with its play
controls on screen, every world's layout fits it, and the Minds tabs keep their whole labels."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import QPoint, QRect, Qt
from ui_support import make_window, open_window

from agents.registry import seat_specs
from sim.registry import load_scenario
from ui.mainwindow import PREFERRED_SIZE
from ui.session import catalog
from ui.session.catalog import SessionPlan

LAPTOP = QRect(0, 0, 1366, 768)
#: what a desktop leaves of 1366 x 768 under a top bar and a window title (GNOME: 27 + 37)
LAPTOP_ROOM = (1366, 768 - 64)


@pytest.fixture
def window(qtbot, tmp_path):
    with open_window(qtbot, tmp_path, record=False) as w:
        yield w


def inside(window, widget) -> bool:
    top_left = widget.mapTo(window, QPoint(0, 0))
    return window.rect().contains(QRect(top_left, widget.size()))


def test_a_fresh_window_fits_the_available_screen_with_its_play_controls(qtbot, window):
    window.fit_to_screen(LAPTOP, fresh=True)
    qtbot.waitUntil(lambda: window.width() <= 1366 and window.height() <= 768)
    frame = window.frameGeometry()
    assert LAPTOP.contains(frame), (frame, LAPTOP)
    assert inside(window, window.playback) and window.playback.isVisible()
    # a large screen gets the preferred size, not the whole screen
    window.fit_to_screen(QRect(0, 0, 2560, 1440), fresh=True)
    qtbot.waitUntil(lambda: window.size() == PREFERRED_SIZE)


def test_a_remembered_window_larger_than_the_screen_shrinks_to_it(qtbot, window):
    window.resize(1600, 1000)
    window.fit_to_screen(LAPTOP)
    qtbot.waitUntil(lambda: window.width() <= 1366 and window.height() <= 768)
    window.resize(1200, 650)
    window.fit_to_screen(LAPTOP)  # one that fits is left as it is
    qtbot.waitUntil(lambda: (window.width(), window.height()) == (1200, 650))



@pytest.mark.parametrize("scenario,mechanisms", [
    ("team-04-seven", ("teams",)), ("divided-kitchen", ("protom",)),
    ("household-prepare-meal-01", ()), ("al1v1-01", ()), ("car-free-centres", ("teams:round_steps=2",))])
def test_every_world_fits_a_laptop_screen(qtbot, window, scenario, mechanisms):
    world, name = load_scenario(scenario)
    seats = seat_specs(world.agents, [catalog.default_agent(world.family)])
    window.start_session(SessionPlan(world=world, scenario=name, seats=seats, mechanisms=mechanisms, seed=0),
                         playing=True)
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 3 or window.model.timeline.outcome is not None,
                    timeout=60_000)
    window.set_playing(False)
    window.panels.refresh(force=True)
    qtbot.wait(50)
    hint = window.minimumSizeHint()
    assert hint.width() <= LAPTOP_ROOM[0] and hint.height() <= LAPTOP_ROOM[1], (scenario, hint)
    window.fit_to_screen(LAPTOP, fresh=True)
    qtbot.waitUntil(lambda: window.width() <= 1366 and window.height() <= 768)
    assert inside(window, window.playback), scenario
    tabs = window.panels.tabs
    labels = [tabs.tabText(i) for i in range(tabs.count())]
    assert len(set(labels)) == len(labels) and not any("…" in t for t in labels), labels
    assert tabs.elideMode() == Qt.TextElideMode.ElideNone and tabs.usesScrollButtons()


def test_goal_rows_hold_every_goal_with_its_whole_label(qtbot, window):
    """An agent with many possible goals (a team task's gems) gets a row tall enough for a bar
    per goal, each label on a line of its own height and as wide as the longest goal name."""
    from PyQt6.QtGui import QFontMetrics

    from ui.panels.common import GoalPosteriorPanel, GoalSeries

    world, name = load_scenario("team-04-seven")
    seats = seat_specs(world.agents, [catalog.default_agent(world.family)])
    window.start_session(SessionPlan(world=world, scenario=name, seats=seats, mechanisms=(), seed=0), playing=False)
    panel = GoalPosteriorPanel()
    qtbot.addWidget(panel)
    goals = {f"gem-{colour}-{k}": 1 / 12 for colour in ("red", "green", "blue", "yellow") for k in range(3)}
    for agent in world.agents:
        series = GoalSeries()
        series.add(0, goals)
        panel.series[agent] = series
    panel.timeline = window.model.timeline
    panel.resize(420, 900)
    panel.show()
    qtbot.waitUntil(lambda: len(panel.painted_rows) == len(world.agents))
    metrics = QFontMetrics(panel._small_font())
    widest = max(metrics.horizontalAdvance(g) for g in goals)
    for agent, top, height, bars_bottom, label_w in panel.painted_rows:
        assert bars_bottom <= top + height, (agent, top, height, bars_bottom)
        assert label_w >= widest
    assert panel._bar_height() > metrics.height()


def test_the_tradecraft_board_keeps_its_room_after_maximize_another_world_and_a_restart(qtbot, tmp_path):
    from PyQt6.QtCore import QRect

    from ui.mainwindow import MainWindow
    from ui.settings import AppSettings

    def board_dock(w):
        return w.panels.docks["TradeCraft board"]

    def play(w, scenario, agent):
        world, name = load_scenario(scenario)
        w.start_session(SessionPlan(world=world, scenario=name, seats=seat_specs(world.agents, [agent]),
                                    mechanisms=(), seed=0), playing=False)
        w.panels.refresh(force=True)
        qtbot.wait(50)

    first = make_window(qtbot, tmp_path, record=False)
    first.setGeometry(QRect(0, 0, 1366, 740))  # as maximized on a laptop screen
    play(first, "divided-kitchen", "kitchen-heuristic")
    play(first, "mc1v1-01", "trader")
    dock = board_dock(first)
    qtbot.waitUntil(lambda: dock.height() >= 200 and dock.width() >= 400)
    assert not dock.isFloating()
    first.close()
    first.shutdown()
    again = MainWindow(AppSettings.at(tmp_path / "settings.ini"))
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    try:
        play(again, "mc1v1-01", "trader")
        dock = board_dock(again)
        qtbot.waitUntil(lambda: dock.height() >= 200 and dock.width() >= 400)
        assert not dock.isFloating()
    finally:
        again.shutdown()


def test_the_tradecraft_answer_and_proposal_buttons_are_in_view_on_a_laptop_screen(qtbot, tmp_path):
    """A fresh window as maximized on 1366 x 768: the board's dock at its default height shows
    Accept and Reject of alice's proposal, the craft's Check, Apply and Done, and then Propose and
    Pass of bob's turn, without scrolling (they were below the fold)."""
    from agents.tradecraft.selfplay import with_options
    from sim.registry import find_scenario, load_spec
    from sim.tradecraft.world import CRAFT, PROPOSE, RESPOND, TradeCraftWorld

    _, spec = load_spec(find_scenario("mc1v1-01"))
    world = TradeCraftWorld(with_options(spec, {"stop": "all", "max_turns": 4}))
    window = make_window(qtbot, tmp_path, record=False)
    window.setGeometry(QRect(0, 0, 1358, 728))  # a 1366 x 768 screen less a window manager's frame
    try:
        window.start_session(SessionPlan(world=world, scenario="mc1v1-01",
                                         seats={"alice": "trader:beta=0", "bob": "human"}, seed=0))
        board = window.panels.panel("TradeCraft board")
        holder = window.panels.docks["TradeCraft board"].widget()

        def at(phase):
            window.panels.refresh()
            return board.can_act and board.obs is not None and board.obs.phase == phase

        def in_view(widget) -> bool:
            viewport = holder.viewport()
            top_left = widget.mapTo(viewport, QPoint(0, 0))
            return (widget.isVisible() and viewport.rect().contains(QRect(top_left, widget.size()))
                    and inside(window, widget))

        qtbot.waitUntil(lambda: at(RESPOND), timeout=20_000)
        qtbot.waitUntil(lambda: holder.height() >= 200)
        assert holder.height() <= window.height() // 3 + 20  # the dock's default height, not more
        trade = board.trade
        assert trade.trade_pages.currentWidget() is trade.incoming_page
        assert in_view(trade.accept_button) and in_view(trade.reject_button)
        assert in_view(trade.give_list) and in_view(trade.receive_list)
        trade.accept_button.click()
        qtbot.waitUntil(lambda: at(CRAFT), timeout=20_000)
        crafting = board.crafting
        assert all(in_view(w) for w in (crafting.recipe_box, crafting.check_button, crafting.apply_button,
                                        crafting.done_button))
        crafting.done_button.click()
        qtbot.waitUntil(lambda: at(PROPOSE), timeout=20_000)
        assert trade.trade_pages.currentWidget() is trade.composer_page
        assert in_view(trade.propose_button) and in_view(trade.pass_button)
    finally:
        window.shutdown()
