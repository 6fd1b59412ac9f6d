"""GUI cases that run on a real X server (Xvfb, the xcb platform); started by test_ui_xvfb.py."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtGui import QGuiApplication
from PyQt6.QtTest import QTest
from ui_support import close_to, make_window, pixel, plan, play_human_until, wait_finished

from sim.events import FeedbackStatusEvent
from sim.recording import load_recording
from ui.render import sprites
from ui.session.timeline import LiveTimeline, ReplayTimeline


@pytest.fixture
def window(qtbot, tmp_path):
    w = make_window(qtbot, tmp_path)
    w.move(0, 0)
    w.activateWindow()  # no window manager gives focus under Xvfb
    yield w
    w.shutdown()


def test_qt_runs_on_the_x_server(qapp):
    assert QGuiApplication.platformName() == "xcb"


def test_screenshot_from_the_x_server_shows_walls_and_agents(qtbot, window):
    window.start_session(plan("two-rooms", ["human", "human"]))
    qtbot.waitUntil(lambda: window.view.frames_drawn > 0)
    origin = window.view.mapToGlobal(window.view.rect().topLeft())
    screen = window.screen()
    renderer, t = window.renderer, window.renderer.tile
    wall = renderer.cell_rect(0, 0)
    shots = []

    def at(x, y):
        shot = shots[-1]
        ratio = shot.devicePixelRatio()
        return pixel(shot, (origin.x() + x) * ratio, (origin.y() + y) * ratio)

    def wall_shown():  # the X server's own pixels, not a widget render, once they show the frame
        shots[:] = [screen.grabWindow(0).toImage()]
        return close_to(at(wall.x + t * 0.3, wall.y + t * 0.25), sprites.WALL)

    qtbot.waitUntil(wall_shown, timeout=30_000)
    shot = shots[-1]
    for a in range(2):
        x, y = renderer.agent_point(window.model.timeline.state_at(0), a)
        assert close_to(at(x + t * 0.5, y + t * 0.30), sprites.agent_color(a))
    shot.save(str(window.settings.recordings_dir.parent / "xvfb-window.png"))


def test_human_key_presses_under_x(qtbot, window):
    window.start_session(plan("two-rooms", {"alice": "human", "bob": "planner"}))
    qtbot.waitUntil(lambda: window.model.human_to_move() == "alice")
    window.focus_view()
    qtbot.waitUntil(lambda: window.view.hasFocus())
    QTest.keyClick(window.view, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 2)
    assert window.model.timeline.joint_action(0) == {"alice": "down"}
    play_human_until(qtbot, window, "alice", lambda: window.model.timeline.outcome is not None)
    assert window.model.timeline.outcome.outcome["success"] is True


def test_record_reopen_seek_back_and_take_over_under_x(qtbot, window):
    window.start_session(plan("two-rooms", ["planner", "boltzmann"]))
    wait_finished(qtbot, window)
    path = window.model.recording_path
    assert load_recording(path).complete
    assert window.open_recording(path)
    assert isinstance(window.model.timeline, ReplayTimeline)
    window.model.seek_end()
    end = window.model.cursor
    QTest.keyClick(window.view, Qt.Key.Key_J)
    QTest.keyClick(window.view, Qt.Key.Key_J)
    assert window.model.cursor == end - 2
    window.model.seek(4)
    QTest.keyClick(window.view, Qt.Key.Key_T)
    window.setup.set_seat("bob", "human")
    QTest.mouseClick(window.setup.start_button, Qt.MouseButton.LeftButton)
    assert isinstance(window.model.timeline, LiveTimeline) and window.model.timeline.num_steps >= 4
    play_human_until(qtbot, window, "bob", lambda: window.model.timeline.num_steps >= 8)


def test_receive_and_accept_feedback_under_x(qtbot, window):
    from test_ui_feedback import feedback_case

    scenario, target = feedback_case()
    other = next(a for a in plan(scenario, {}).world.agents if a != target)
    window.start_session(plan(scenario, {target: "human", other: "planner"}, facilitator="protom"))
    play_human_until(qtbot, window, target, lambda: window.toast.awaiting_decision, timeout=120)
    fid = window.toast.feedback.feedback_id
    QTest.keyClick(window.view, Qt.Key.Key_Return)  # accept
    qtbot.waitUntil(lambda: any(isinstance(e, FeedbackStatusEvent) and e.feedback_id == fid
                                and e.status == "accepted" for e in window.model.timeline.events))
