"""Helpers for taking screenshots of the real app on a private Xvfb display (``ui/shots/teams.py``).

The documentation's screenshots of the app come from the scripted walk (``python -m ui.shots.walk``);
the team formation panels after a re-formation from ``python -m ui.shots.teams``; a human study's
participant windows from ``python -m ui.shots.study``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]


def _wait(app: Any, condition: Callable[[], bool], seconds: float = 60.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def _settle(app: Any, seconds: float = 0.4) -> None:
    _wait(app, lambda: False, seconds)


def shot_window(prefix: str, size: tuple[int, int], speed: float) -> tuple[Any, Any]:
    """(application, main window) shown at the top left, with throw-away settings and recordings."""
    from ui.app import application
    from ui.mainwindow import MainWindow
    from ui.settings import AppSettings

    app = application()
    work = Path(tempfile.mkdtemp(prefix=prefix))
    settings = AppSettings.at(work / "settings.ini")
    settings.set("recordings_dir", str(work / "recordings"))
    settings.set("speed", speed)
    window = MainWindow(settings)
    window.resize(*size)
    window.move(0, 0)
    window.show()
    window.activateWindow()
    window.fill_setup()  # the Session panel as it is once the window runs (filled after the first frame)
    _settle(app)
    return app, window


def first_feedback_target(scenario: str, facilitator: str) -> str | None:
    """The agent the facilitator first advises when planners play ``scenario`` (headless)."""
    from agents.registry import make_agent
    from sim.events import FeedbackEvent
    from sim.registry import load_scenario
    from sim.session import Session
    from ui.session import catalog

    world, _ = load_scenario(scenario)
    fac = catalog.make_mechanism(facilitator, world.family)
    if fac is None:
        return None
    session = Session(world, {a: make_agent("planner") for a in world.agents}, seed=0, mechanisms=[fac])
    session.run()
    return next((e.target for e in session.events if isinstance(e, FeedbackEvent)), None)


def on_virtual_display(module: str, out: Path, *extra: str) -> int | None:
    """Unless this process already draws on X, run ``python -m module out`` on a fresh virtual
    display and return its exit code; None when the caller should take its pictures itself."""
    if os.environ.get("QT_QPA_PLATFORM") == "xcb":
        return None
    from ui.shots.xvfb import display_env, virtual_display

    with virtual_display(1366, 768, 24) as display:  # a laptop screen, as the walk's
        return subprocess.call([sys.executable, "-m", module, str(out.resolve()), *extra], env=display_env(display),
                               cwd=ROOT)


def shots_main(module: str, take: Callable[[Path], list[Path]], argv: list[str] | None = None) -> int:
    """The command of a screenshot module: ``python -m MODULE [OUT]`` (default docs/screenshots)
    takes its pictures with ``take`` on a 1366 x 768 virtual display and prints their paths."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = Path(args[0]) if args else ROOT / "docs" / "screenshots"
    code = on_virtual_display(module, out)
    if code is not None:
        return code
    for path in take(out):
        print(path)
    return 0
