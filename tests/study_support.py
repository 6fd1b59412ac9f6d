"""Helpers of the study tests: a small study file, and participants who play through a study
hosted on loopback with real sockets, pressing keys and clicking buttons in their own window; and
the same with each app a separate process on an X display (``AppProcess``, ``JoiningApp``)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest

from ui.net.client import SeatClient
from ui.net.windows import SeatWindow

ROOT = Path(__file__).resolve().parent.parent
#: waits until a condition holds (what it waits for in words, for a time-out's message)
Until = Callable[[Callable[[], bool], str], None]
ITEMS = ["helpful", "appropriate", "explained", "understood"]


#: a facilitator that suggests at every step it may, against none
RANDOM_OR_NONE = [{"name": "random", "title": "random facilitator", "mechanisms": ["random:probability=1.0"],
                   "codename": "Assistant R"},
                  {"name": "none", "title": "no facilitator", "mechanisms": []}]


def write_study(folder: Path, *, trials: int = 1, max_ticks: int = 6, tutorial: bool = True,
                order: str = "random", conditions: list[dict[str, Any]] | None = None,
                scenarios: list[str] | None = None) -> Path:
    """A small study: two levels (two kitchens unless ``scenarios``), ProToM against no facilitator
    unless ``conditions``, short trials."""
    study = {
        "study": "mini-study",
        "title": "A small study",
        "scenarios": scenarios or ["protom/kitchen-15-walled-onion", "protom/kitchen-10-onion-for-bob"],
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


class Received:
    """What a joining app was sent (``received``, the messages in order): the last message of a
    kind, and the page or game frame it shows now."""

    @property
    def received(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def last(self, kind: str) -> dict[str, Any] | None:
        return next((m for m in reversed(self.received) if m["type"] == kind), None)

    def _now(self, kind: str) -> dict[str, Any] | None:
        """The ``kind`` (page or frame) shown now: the last of either, if it is one."""
        for m in reversed(self.received):
            if m["type"] in ("page", "frame"):
                return m[kind] if m["type"] == kind else None
        return None

    def page(self) -> dict[str, Any] | None:
        """The page shown now (None while the game is on)."""
        return self._now("page")

    def frame(self) -> dict[str, Any] | None:
        """The game's frame shown now (None while a page is)."""
        return self._now("frame")

    # Each of these reads what was received once: a joining app's log may grow between two reads.

    def on_page(self) -> bool:
        """A page other than the one that asks to wait is shown now."""
        page = self.page()
        return page is not None and page["kind"] != "wait"

    def left_page(self, page_id: Any) -> bool:
        """The page ``page_id`` is no longer shown."""
        page = self.page()
        return page is None or page["id"] != page_id

    def past_tick(self, tick: int) -> bool:
        """The game is past step ``tick``, or over."""
        frame = self.frame()
        return frame is None or frame["tick"] > tick


class Participant(Received):
    """One joining app: a SeatClient and its SeatWindow, driven by key presses and clicks."""

    def __init__(self, qtbot: Any, port: int, code: str) -> None:
        self.qtbot = qtbot
        self.client = SeatClient("127.0.0.1", port, code)
        self.window = SeatWindow(self.client)
        qtbot.addWidget(self.window)
        self.window.show()
        self.client.open()

    @property
    def received(self) -> list[dict[str, Any]]:
        return self.client.received

    def click_continue(self) -> None:
        QTest.mouseClick(self.window.page_view.button, Qt.MouseButton.LeftButton)

    def answer(self, answers: dict[str, int]) -> None:
        self.window.page_view.choose(answers)
        self.click_continue()

    def press(self, key: Qt.Key) -> None:
        QTest.keyClick(self.window, key)

    def frame_seat(self) -> str:
        """The seat this participant played (from the frames received)."""
        return next(m["frame"]["seat"] for m in reversed(self.received) if m["type"] == "frame")


def wait(qtbot: Any, condition: Any, timeout: int = 60_000) -> None:
    qtbot.waitUntil(condition, timeout=timeout)


def pass_page(qtbot: Any, people: list[Participant], kind: str | None = None) -> str:
    """Both see the same page (of ``kind``) and click its button; its kind."""
    return _pass_page(people, kind, lambda condition, _what: wait(qtbot, condition), Participant.click_continue)


def _pass_page(people: Sequence[Received], kind: str | None, until: Until, go_on: Callable[[Any], None]) -> str:
    """Both show the same page (of ``kind``) and ``go_on`` is done in each; its kind."""
    until(lambda: all(p.on_page() for p in people), f"page {kind}")
    shown = people[0].page()
    assert shown is not None
    if kind is not None:
        assert shown["kind"] == kind, shown
    for p in people:
        go_on(p)
    until(lambda: all(p.left_page(shown["id"]) for p in people), "the next page")
    return shown["kind"]


KEYS = [Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Space]


def play_steps(qtbot: Any, people: list[Participant], steps: int, start: int = 0) -> int:
    """Both press a key per step until ``steps`` steps were taken or the episode ended; returns
    the steps taken. Feedback pop-ups are followed (Enter) by the first, ignored (Esc) by the second."""
    def press(p: Participant, n: int, key: int) -> None:
        if p.window.open_feedback:
            p.press(Qt.Key.Key_Return if n == 0 else Qt.Key.Key_Escape)
        p.press(KEYS[key % len(KEYS)])

    return _play_steps(people, steps, start, lambda condition, _what: wait(qtbot, condition), press)


def _play_steps(people: Sequence[Received], steps: int, start: int, until: Until,
                press: Callable[[Any, int, int], None]) -> int:
    """Each of ``people`` (the n-th) does ``press(person, n, start + step + n)`` once a step, until
    ``steps`` steps were taken or the episode ended; the steps taken."""
    taken = 0
    for k in range(steps):
        until(lambda: all(p.frame() is not None for p in people) or any(p.page() is not None for p in people),
              "a frame")
        frames = [p.frame() for p in people]
        if any(f is None or f["done"] for f in frames):
            break
        tick = frames[0]["tick"]
        for n, p in enumerate(people):
            press(p, n, start + k + n)
        until(lambda tick=tick: all(p.past_tick(tick) for p in people), "the next step")
        taken += 1
    return taken


def play_study(qtbot: Any, people: list[Participant], answers: list[dict[str, int]], *,
               play: Callable[[], Any] | None = None, reveals: list[tuple[Any, ...]] | None = None) -> int:
    """Both go through every page and game of a hosted study to its end (pages: Continue;
    questionnaires: ``answers[k]`` for participant k; games: ``play()``, by default keys until the
    episode ends); each reveal's pages (one a participant) are added to ``reveals`` when given.
    Returns the games played."""
    games = 0
    while True:
        wait(qtbot, lambda: all(p.frame() is not None or p.on_page() for p in people))
        if people[0].frame() is not None:
            games += 1
            if play is None:
                play_steps(qtbot, people, 10_000)
            else:
                play()
            wait(qtbot, lambda: all(p.page() is not None for p in people))
            continue
        page = people[0].page()
        assert page is not None
        if page["kind"] == "done":
            return games
        if page["kind"] == "reveal" and reveals is not None:
            reveals.append(tuple(p.page() for p in people))
        if page["kind"] == "questionnaire":
            page_id = page["id"]
            for p, given in zip(people, answers):
                p.answer(given)
            wait(qtbot, lambda page_id=page_id: all(p.left_page(page_id) for p in people))
        else:
            pass_page(qtbot, people)


# ------------------------------------------------------------------ separate app processes


class AppProcess:
    """One app instance started as its own process (``python main.py ...``) on a display, its
    output kept in ``output``; ``stop`` ends it (SIGTERM, then SIGKILL) if it still runs."""

    def __init__(self, args: list[str], env: dict[str, str], output: Path) -> None:
        self.args, self.env, self.output = args, env, output
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        with open(self.output, "a", encoding="utf-8") as out:
            self.proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), *self.args], cwd=ROOT,
                                         env=self.env, stdout=out, stderr=subprocess.STDOUT)

    def text(self) -> str:
        return self.output.read_text(encoding="utf-8", errors="replace")

    def kill(self) -> None:
        """SIGKILL: the process dies at once, as a crashed or unplugged computer would."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(30)

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
        return self.proc.returncode


class JoiningApp(AppProcess, Received):
    """``python main.py join 127.0.0.1:PORT --code CODE --log-received LOG`` on an X display:
    what it received is read back from its log, and keys are pressed in its window with xdotool
    (the X server's test extension: real key events, as a keyboard gives)."""

    def __init__(self, port: int, code: str, env: dict[str, str], folder: Path) -> None:
        self.log = folder / f"received-{code}.jsonl"
        self.window_id: str | None = None
        super().__init__(["join", f"127.0.0.1:{port}", "--code", code, "--log-received", str(self.log)],
                         env, folder / f"join-{code}.out")

    def start(self) -> None:
        self.window_id = None
        super().start()

    @property
    def received(self) -> list[dict[str, Any]]:
        """Every message the process logged (complete lines only)."""
        if not self.log.exists():
            return []
        text = self.log.read_text(encoding="utf-8")
        return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines()]

    def press(self, *keys: str) -> None:
        """Focus this app's window and press ``keys`` (X key names: Return, Right, 5, ...)."""
        assert self.proc is not None
        if self.window_id is None:
            found = subprocess.run(["xdotool", "search", "--sync", "--all", "--onlyvisible", "--pid",
                                    str(self.proc.pid), "--name", "^ToM Arena study"],
                                   env=self.env, capture_output=True, text=True, timeout=120)
            self.window_id = found.stdout.split()[0]
        subprocess.run(["xdotool", "windowfocus", "--sync", self.window_id, "key", "--delay", "30", *keys],
                       env=self.env, check=True, capture_output=True, timeout=60)


def poll(condition: Any, what: str, apps: list[AppProcess], timeout: float = 180.0) -> None:
    """Wait until ``condition()`` holds (checking every 50 ms); on a time-out fail with the apps'
    output (a hang must not pass silently)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            outputs = "\n".join(f"--- {' '.join(a.args[:2])}:\n{a.text()[-2000:]}" for a in apps)
            raise AssertionError(f"timed out waiting for {what}\n{outputs}")
        time.sleep(0.05)


def apps_pass_page(apps: list[JoiningApp], kind: str | None, others: list[AppProcess]) -> str:
    """Both apps show the same page (of ``kind``); Enter in each; its kind."""
    return _pass_page(apps, kind, lambda condition, what: poll(condition, what, others), lambda a: a.press("Return"))


APP_KEYS = ["Right", "Down", "Left", "Up", "space"]


def apps_play_steps(apps: list[JoiningApp], steps: int, others: list[AppProcess], start: int = 0) -> int:
    """Both apps press a key per step until ``steps`` steps were taken or the episode ended; a
    suggestion is followed (Return) by the first and ignored (Escape) by the second."""
    def press(a: JoiningApp, n: int, key: int) -> None:
        shown = {m["feedback_id"] for m in a.received if m["type"] == "feedback"}
        closed = {m["feedback_id"] for m in a.received if m["type"] == "feedback_status"}
        a.press(*["Return" if n == 0 else "Escape"] * len(shown - closed), APP_KEYS[key % len(APP_KEYS)])

    return _play_steps(apps, steps, start, lambda condition, what: poll(condition, what, others), press)
