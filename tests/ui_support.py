"""Helpers shared by the GUI tests (offscreen pytest-qt and the Xvfb cases)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest

from agents.dkg.agents import goal_task, planner_for, task_from_feedback
from sim.events import FeedbackStatusEvent
from sim.registry import load_scenario
from ui.mainwindow import MainWindow
from ui.session.catalog import SessionPlan
from ui.settings import AppSettings

ARROWS = {"up": Qt.Key.Key_Up, "down": Qt.Key.Key_Down, "left": Qt.Key.Key_Left, "right": Qt.Key.Key_Right}
DIGITS = [getattr(Qt.Key, f"Key_{i}") for i in range(1, 10)]


def make_window(qtbot: Any, tmp_path: Path, **settings: Any) -> MainWindow:
    store = AppSettings.at(tmp_path / "settings.ini")
    store.set("recordings_dir", str(tmp_path / "recordings"))
    store.set("speed", 64.0)
    for key, value in settings.items():
        store.set(key, value)
    window = MainWindow(store)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


@contextmanager
def open_window(qtbot: Any, tmp_path: Path, **settings: Any) -> Iterator[MainWindow]:
    """``make_window``, shut down afterwards (which waits for the session's worker thread): no
    session thread is left."""
    window = make_window(qtbot, tmp_path, **settings)
    yield window
    window.shutdown()
    assert not any(t.name == "tom-arena-session" for t in threading.enumerate())


def feedback_statuses(window: MainWindow, fid: int) -> list[str]:
    """The statuses the feedback ``fid`` was given in the window's episode, in order."""
    return [e.status for e in window.model.timeline.events
            if isinstance(e, FeedbackStatusEvent) and e.feedback_id == fid]


def plan(scenario: str, seats: dict[str, str] | list[str], facilitator: str = "none", seed: int = 0,
         mechanisms: tuple[str, ...] = ()) -> SessionPlan:
    world, name = load_scenario(scenario)
    if isinstance(seats, list):
        seats = dict(zip(world.agents, seats))
    chosen = tuple(m for m in (facilitator, *mechanisms) if m and m != "none")
    return SessionPlan(world=world, scenario=name, seats=seats, mechanisms=chosen, seed=seed)


def wait_finished(qtbot: Any, window: MainWindow, timeout: int = 30_000) -> None:
    qtbot.waitUntil(lambda: window.model.timeline is not None and window.model.timeline.outcome is not None
                    and (window.model.runner is None or not window.model.runner.alive), timeout=timeout)


def wait_drawn(qtbot: Any, window: MainWindow, timeout: int = 30_000) -> None:
    """Until the view has drawn the state at the cursor (what the renderer's ``cards`` and
    ``lines`` say, and the picture, are then of that state)."""
    def drawn() -> bool:
        timeline = window.model.timeline
        return (timeline is not None and window.view.state is timeline.state_at(window.model.cursor)
                and window.view.drawn_state is window.view.state and not window.view.animating)
    qtbot.waitUntil(drawn, timeout=timeout)


def human_action(window: MainWindow, agent: str) -> str:
    """What a sensible person would do: follow an accepted suggestion, else go for their gem."""
    world = window.model.timeline.world
    state = window.model.timeline.state_at(window.model.cursor)
    human = window.model.humans[agent]
    task = (task_from_feedback(world, human.following.payload) if human.following is not None
            else goal_task(world, agent))
    planner = planner_for(world)
    a = world.agent_index[agent]
    plan_ = planner.plan(state, a, task)
    action = planner.first_action(state, a, plan_)
    legal = world.legal_actions(state, agent)
    return action if action in legal else "wait"


def press_action(window: MainWindow, agent: str, action: str) -> None:
    """Send the key press(es) that mean ``action`` to the world view, as a person would."""
    view = window.view
    if action in ARROWS:
        QTest.keyClick(view, ARROWS[action])
    elif action == "wait":
        QTest.keyClick(view, Qt.Key.Key_Space)
    else:
        state = window.model.timeline.state_at(window.model.cursor)
        legal = list(window.model.timeline.world.legal_actions(state, agent))
        QTest.keyClick(view, DIGITS[legal.index(action)])


def play_human_until(qtbot: Any, window: MainWindow, agent: str, done: Any, timeout: float = 60.0) -> None:
    """Play ``agent`` with key presses until ``done()`` (answering no pop-ups)."""
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, "the condition did not come true while playing"
        if window.model.human_to_move() == agent and not window.toast.awaiting_decision:
            before = window.model.timeline.num_steps
            press_action(window, agent, human_action(window, agent))
            qtbot.waitUntil(lambda before=before: window.model.timeline.num_steps > before or done(), timeout=10_000)
        else:
            qtbot.wait(20)


def pixel(image: Any, x: float, y: float) -> tuple[int, int, int]:
    c = image.pixelColor(int(x), int(y))
    return c.red(), c.green(), c.blue()


def close_to(a: tuple[int, int, int], b: tuple[int, int, int], tol: int = 12) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b))
