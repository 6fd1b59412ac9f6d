"""Helpers of the study tests: a small study file, and participants who play through a study
hosted on loopback with real sockets, pressing keys and clicking buttons in their own window."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest

from ui.net.client import SeatClient
from ui.net.windows import SeatWindow

ITEMS = ["helpful", "appropriate", "explained", "understood"]


def write_study(folder: Path, *, trials: int = 1, max_ticks: int = 6, tutorial: bool = True,
                order: str = "random", conditions: list[dict[str, Any]] | None = None) -> Path:
    """A small study: two levels, ProToM against no facilitator, short trials."""
    study = {
        "study": "mini-study",
        "title": "A small study",
        "scenarios": ["protom/kitchen-15-walled-onion", "protom/kitchen-10-onion-for-bob"],
        "conditions": conditions or [
            {"name": "protom", "title": "ProToM", "mechanisms": ["protom:phi=2.0,eps=0.3,particles=5,divergence=js"],
             "codename": "Assistant A"},
            {"name": "none", "title": "no facilitator", "mechanisms": []}],
        "baseline": "none",
        "trials_per_condition": trials,
        "order": {"draw": order, "seed": 3},
        "max_ticks": max_ticks,
        "consent": {"title": "Consent", "text": "Do you agree?"},
        "instructions": [{"title": "How to play", "text": "Arrow keys."}],
        "questionnaire": {"after": "facilitated", "scale": {"points": 7, "low": "Strongly disagree",
                                                             "high": "Strongly agree"},
                          "items": [{"id": i, "text": f"The assistant was {i}."} for i in ITEMS]},
        "reveal": {"other_goal": True, "completion": True, "feedback_history": True},
    }
    if tutorial:
        study["tutorial"] = {"scenario": "protom/kitchen-01-two-kitchens", "max_ticks": 2, "mechanisms": [],
                             "page": {"title": "Tutorial", "text": "Practice."}}
    path = folder / "mini-study.json"
    path.write_text(json.dumps(study), encoding="utf-8")
    return path


class Participant:
    """One joining app: a SeatClient and its SeatWindow, driven by key presses and clicks."""

    def __init__(self, qtbot: Any, port: int, code: str) -> None:
        self.qtbot = qtbot
        self.client = SeatClient("127.0.0.1", port, code)
        self.window = SeatWindow(self.client)
        qtbot.addWidget(self.window)
        self.window.show()
        self.client.open()

    def last(self, kind: str) -> dict[str, Any] | None:
        return next((m for m in reversed(self.client.received) if m["type"] == kind), None)

    def page(self) -> dict[str, Any] | None:
        """The page shown now (None while the game is on)."""
        for m in reversed(self.client.received):
            if m["type"] == "page":
                return m["page"]
            if m["type"] == "frame":
                return None
        return None

    def frame(self) -> dict[str, Any] | None:
        for m in reversed(self.client.received):
            if m["type"] == "frame":
                return m["frame"]
            if m["type"] == "page":
                return None
        return None

    def click_continue(self) -> None:
        QTest.mouseClick(self.window.page_view.button, Qt.MouseButton.LeftButton)

    def answer(self, answers: dict[str, int]) -> None:
        self.window.page_view.choose(answers)
        self.click_continue()

    def press(self, key: Qt.Key) -> None:
        QTest.keyClick(self.window, key)


def wait(qtbot: Any, condition: Any, timeout: int = 60_000) -> None:
    qtbot.waitUntil(condition, timeout=timeout)


def pass_page(qtbot: Any, people: list[Participant], kind: str | None = None) -> str:
    """Both see the same page (of ``kind``) and click its button; its kind."""
    wait(qtbot, lambda: all(p.page() is not None and p.page()["kind"] != "wait" for p in people))
    shown = people[0].page()
    assert shown is not None
    if kind is not None:
        assert shown["kind"] == kind, shown
    page_id = shown["id"]
    for p in people:
        p.click_continue()
    wait(qtbot, lambda: all(p.page() is None or p.page()["id"] != page_id for p in people))
    return shown["kind"]


KEYS = [Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Space]


def play_steps(qtbot: Any, people: list[Participant], steps: int, start: int = 0) -> int:
    """Both press a key per step until ``steps`` steps were taken or the episode ended; returns
    the steps taken. Feedback pop-ups are followed (Enter) by the first, ignored (Esc) by the second."""
    taken = 0
    for k in range(steps):
        wait(qtbot, lambda: all(p.frame() is not None for p in people) or any(p.page() is not None for p in people))
        frames = [p.frame() for p in people]
        if any(f is None or f["done"] for f in frames):
            break
        tick = frames[0]["tick"]
        for n, p in enumerate(people):
            if p.window.open_feedback:
                p.press(Qt.Key.Key_Return if n == 0 else Qt.Key.Key_Escape)
            p.press(KEYS[(start + k + n) % len(KEYS)])
        wait(qtbot, lambda tick=tick: all(p.frame() is None or p.frame()["tick"] > tick for p in people))
        taken += 1
    return taken


def play_study(qtbot: Any, people: list[Participant], answers: list[dict[str, int]]) -> int:
    """Both go through every page and game of a hosted study to its end (pages: Continue;
    questionnaires: ``answers[k]`` for participant k; games: keys until the episode ends);
    returns the games played."""
    games = 0
    while True:
        wait(qtbot, lambda: all(p.frame() is not None or (p.page() is not None and p.page()["kind"] != "wait")
                                for p in people))
        if all(p.frame() is not None for p in people):
            games += 1
            play_steps(qtbot, people, 10_000)
            wait(qtbot, lambda: all(p.page() is not None for p in people))
            continue
        page = people[0].page()
        assert page is not None
        if page["kind"] == "done":
            return games
        if page["kind"] == "questionnaire":
            page_id = page["id"]
            for p, given in zip(people, answers):
                p.answer(given)
            wait(qtbot, lambda page_id=page_id: all(p.page() is None or p.page()["id"] != page_id for p in people))
        else:
            pass_page(qtbot, people)
