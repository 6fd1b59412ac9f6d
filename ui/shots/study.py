"""Screenshots of the participants' windows of a human study for the documentation, taken with
the real windows on a private Xvfb display at 1366 x 768 (a laptop screen, each window filling it).

    .venv/bin/python -m ui.shots.study [OUT_DIR]        (default docs/screenshots)

A study host on loopback and two participants' windows joined to it in this process, keys
pressed in the windows (Qt's test key events). The study: ``protom/kitchen-15-walled-onion``, a
trial with ProToM ("Assistant A") and then one with the LLM facilitator ("Assistant B", the
model ``study host`` would use here: the embedded one unless an endpoint is configured). The
cooks walk as two simulated humans do in that kitchen with the trial's seed (their moves played
as keys), so that ProToM's first suggestion comes after the first step:

- ``study-waiting.png``: alice has moved, bob has not: alice's window says whom it waits for;
- ``study-suggestion.png``: bob's window with ProToM's suggestion in words and its places ringed;
- ``study-reveal.png``: the end of the trial: both outcomes, the other's dish, the suggestions;
- ``study-thinking.png``: the LLM trial, both moved: the assistant is thinking.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from ui.shots.common import _settle, _wait, shots_main

SCENARIO = "protom/kitchen-15-walled-onion"
SIZE = (1366, 768)
KEYS = {"up": "Key_Up", "down": "Key_Down", "left": "Key_Left", "right": "Key_Right", "stay": "Key_Space"}


def _study(folder: Path) -> Path:
    study = {
        "study": "study-shots", "title": "Cooking together with an assistant",
        "scenarios": [SCENARIO],
        "conditions": [
            {"name": "protom", "title": "ProToM", "mechanisms": ["protom:phi=2.0,eps=0.3,particles=5,divergence=js"],
             "codename": "Assistant A"},
            {"name": "llm", "title": "LLM facilitator", "mechanisms": ["llm"], "codename": "Assistant B"}],
        "baseline": "protom", "trials_per_condition": 1, "order": {"draw": "latin_square", "seed": 0},
        "max_ticks": 4,
        "consent": {"title": "Before we start", "text": "Do you agree?"},
        "questionnaire": {"scale": {"points": 7, "low": "Strongly disagree", "high": "Strongly agree"},
                          "items": [{"id": "helpful", "text": "The assistant's suggestions were helpful."}]},
    }
    path = folder / "study-shots.json"
    path.write_text(json.dumps(study), encoding="utf-8")
    return path


def _moves(seed: int) -> list[dict[str, str]]:
    """The joint moves two simulated humans make in the kitchen with ``seed`` (headless)."""
    from agents.registry import make_agent
    from sim.events import StepEvent
    from sim.registry import load_scenario
    from sim.session import Session

    world, name = load_scenario(SCENARIO)
    session = Session(world, {a: make_agent("kitchen-heuristic", world.family) for a in world.agents}, seed=seed,
                      scenario=name, max_ticks=10)
    session.run()
    return [dict(e.joint_action) for e in session.events if isinstance(e, StepEvent)]


def take(out: Path) -> list[Path]:
    from PyQt6.QtCore import Qt
    from PyQt6.QtNetwork import QHostAddress
    from PyQt6.QtTest import QTest

    from study.design import load_study
    from ui.app import application
    from ui.net.client import SeatClient
    from ui.net.host import StudyHost
    from ui.net.windows import SeatWindow

    app = application()
    work = Path(tempfile.mkdtemp(prefix="tom-arena-study-shots-"))
    path = _study(work)
    study = load_study(path)
    host = StudyHost(study, path, work / "out", port=0, address=QHostAddress(QHostAddress.SpecialAddress.LocalHost),
                     codes=("111111", "222222"))
    windows: list[Any] = []
    for code in ("111111", "222222"):
        client = SeatClient("127.0.0.1", host.port, code)
        window = SeatWindow(client)
        client.setParent(window)
        window.resize(*SIZE)
        window.move(0, 0)
        window.show()
        client.open()
        windows.append(window)
    alice, bob = windows  # participant k plays the level's k-th cook
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []

    def received(w: Any, kind: str) -> dict[str, Any] | None:
        return next((m for m in reversed(w.client.received) if m["type"] == kind), None)

    def now(w: Any) -> dict[str, Any] | None:
        return next((m for m in reversed(w.client.received) if m["type"] in ("page", "frame")), None)

    def pass_page(kind: str) -> dict[str, Any]:
        if not _wait(app, lambda: all((m := now(w)) is not None and m["type"] == "page" and m["page"]["kind"] == kind
                                      for w in windows)):
            raise RuntimeError(f"no {kind} page: {[now(w) for w in windows]}")
        page = now(alice)["page"]  # type: ignore[index]
        for w in windows:
            QTest.keyClick(w, Qt.Key.Key_Return)
        _wait(app, lambda: all((m := now(w)) is None or m["type"] != "page" or m["page"]["id"] != page["id"]
                               for w in windows))
        return page

    def press(w: Any, action: str) -> None:
        w.activateWindow()
        QTest.keyClick(w, getattr(Qt.Key, KEYS[action]))

    def tick(w: Any) -> int:
        m = now(w)
        return m["frame"]["tick"] if m is not None and m["type"] == "frame" else -1

    def grab(w: Any, file: str) -> None:
        _settle(app, 0.6)
        if w.game.view.isVisible():
            w.game.view.render_frame()
            w.game.view.update()
            _settle(app, 0.2)
        target = out / file
        if not w.grab().save(str(target)):
            raise RuntimeError(f"could not write {target}")
        shots.append(target)

    try:
        _wait(app, lambda: all(w.client.welcome is not None for w in windows))
        pass_page("consent")
        pass_page("instructions")  # Game 1 of 2
        moves = _moves(study.order.seed + 1000 * host.pair + 1)
        _wait(app, lambda: tick(alice) == 0 and tick(bob) == 0)
        # alice moves, bob not yet: alice is told whom the game waits for
        press(alice, moves[0]["alice"])
        _wait(app, lambda: "Waiting for bob" in alice.game.wait_cue.text())
        _settle(app, 3.2)
        grab(alice, "study-waiting.png")
        press(bob, moves[0]["bob"])
        _wait(app, lambda: tick(bob) == 1 and tick(alice) == 1)
        # ProToM's first suggestion, to bob; alice moves first
        if not _wait(app, lambda: bool(bob.open_feedback), 30):
            raise RuntimeError("ProToM made no suggestion after the first step")
        press(alice, moves[1]["alice"])
        _wait(app, lambda: "waiting for you" in bob.game.wait_cue.text())
        _settle(app, 2.2)
        grab(bob, "study-suggestion.png")
        QTest.keyClick(bob, Qt.Key.Key_Return)  # follow it
        for k in range(1, 10):
            if now(alice) is not None and now(alice)["type"] == "page":  # type: ignore[index]
                break
            t = tick(alice)
            if received(bob, "frame")["frame"]["tick"] == t and k > 1:  # type: ignore[index]
                press(alice, moves[k]["alice"])
            press(bob, moves[k]["bob"])
            _wait(app, lambda t=t: tick(alice) != t and tick(bob) != t)
        _wait(app, lambda: all((m := now(w)) is not None and m["type"] == "page" and m["page"]["kind"] == "reveal"
                               for w in windows))
        grab(alice, "study-reveal.png")
        pass_page("reveal")
        _wait(app, lambda: all((m := now(w)) is not None and m["type"] == "page"
                               and m["page"]["kind"] == "questionnaire" for w in windows))
        for w in windows:
            for key in (Qt.Key.Key_6, Qt.Key.Key_Return):
                QTest.keyClick(w, key)
        pass_page("instructions")  # Game 2 of 2: the LLM facilitator
        _wait(app, lambda: tick(alice) == 0 and tick(bob) == 0)
        press(alice, moves[0]["alice"])
        press(bob, moves[0]["bob"])
        if not _wait(app, lambda: "is thinking" in bob.game.wait_cue.text(), 120):
            raise RuntimeError("the assistant was never announced as thinking")
        _settle(app, 4.2)
        grab(bob, "study-thinking.png")
    finally:
        host.shutdown()
        for w in windows:
            w.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    return shots_main("ui.shots.study", take, argv)


if __name__ == "__main__":
    sys.exit(main())
