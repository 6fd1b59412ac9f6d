"""Screenshots of the real app for the documentation, taken on a private Xvfb display.

    .venv/bin/python -m ui.shots [OUT_DIR]        (default docs/screenshots)

Opens the main window on a real X server, plays scenarios and grabs the screen:
``live.png`` (agents playing, plans on the map, goal posteriors, feedback history),
``feedback.png`` (the facilitator's blue pop-up for a human recipient),
``human.png`` (that human's next turn: legal moves highlighted, the accepted suggestion),
``replay.png`` (a recording being replayed, with the take-over panel);
and what a newcomer meets (``--newcomer`` takes only these), at 1366 x 768:
``first-screen.png`` (the first run: paused, with the welcome card), ``summary.png`` (a finished
episode's summary card), ``how-to-play.png`` (the help window on the shown world).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent


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
    _settle(app)
    return app, window


def first_feedback_target(scenario: str, facilitator: str) -> str | None:
    """The agent the facilitator first advises when planners play ``scenario`` (headless)."""
    from agents.registry import make_agent
    from sim.events import FeedbackEvent
    from sim.registry import load_scenario
    from sim.session import Session
    from ui import catalog

    world, _ = load_scenario(scenario)
    fac = catalog.make_mechanism(facilitator, world.family)
    if fac is None:
        return None
    session = Session(world, {a: make_agent("planner") for a in world.agents}, seed=0, mechanisms=[fac])
    session.run()
    return next((e.target for e in session.events if isinstance(e, FeedbackEvent)), None)


def take(out: Path) -> list[Path]:
    from agents.dkg.agents import goal_task, planner_for
    from sim.registry import load_scenario
    from ui import catalog
    from ui.catalog import SessionPlan, scenarios as list_scenarios

    app, window = shot_window("tom-arena-shots-", (1440, 900), speed=4.0)
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []

    def grab(name: str) -> None:
        _settle(app, 0.5)
        path = out / name
        window.screen().grabWindow(0, 0, 0, window.frameGeometry().width(), window.frameGeometry().height()).save(str(path))
        shots.append(path)

    infos = list_scenarios()
    necessary = next((i for i in infos if i.category == "necessary" and i.family == "dkg"), None)
    info = necessary or catalog.default_scenario(infos)
    facilitator = catalog.default_mechanism("facilitator", info.family, info.category)
    world, name = load_scenario(str(info.path))
    window.setup.select_scenario(name)

    # 1. agents playing with the facilitator watching
    window.start_session(SessionPlan(world=world, scenario=name, seats={a: "boltzmann" for a in world.agents},
                                     mechanisms=(facilitator,), seed=3))
    _wait(app, lambda: window.model.timeline.num_steps >= 9, 30)
    window.set_playing(False)
    grab("live.png")
    window.playback.set_speed(64)
    window.set_playing(True)
    _wait(app, lambda: window.model.timeline.outcome is not None, 60)
    played = window.model.recording_path

    # 2. and 3. a human seat: highlighted moves, then the feedback pop-up
    target = first_feedback_target(str(info.path), facilitator) or world.agents[0]
    window.stop_session()
    world, name = load_scenario(str(info.path))
    seats = {a: "planner" for a in world.agents}
    seats[target] = "human"
    window.start_session(SessionPlan(world=world, scenario=name, seats=seats, mechanisms=(facilitator,), seed=0))
    _wait(app, lambda: window.model.human_to_move() == target, 30)
    planner = planner_for(world)
    end = time.monotonic() + 60
    while time.monotonic() < end and not window.toast.awaiting_decision and window.model.timeline.outcome is None:
        if window.model.human_to_move() == target:
            state = window.model.timeline.state_at(window.model.cursor)
            a = world.agent_index[target]
            plan = planner.plan(state, a, goal_task(world, target))
            action = planner.first_action(state, a, plan) or "wait"
            legal = world.legal_actions(state, target)
            before = window.model.timeline.num_steps
            window.model.runner.submit_human(target, action if action in legal else "wait")
            _wait(app, lambda before=before: window.model.timeline.num_steps > before or window.toast.awaiting_decision, 10)
        else:
            _settle(app, 0.05)
    if window.toast.awaiting_decision:
        grab("feedback.png")
        window.toast.accept_feedback()
    # the human's next turn: legal moves highlighted, the accepted suggestion as an arrow
    before = window.model.timeline.num_steps
    if window.model.human_to_move() == target:
        window.model.runner.submit_human(target, "left" if "left" in world.legal_actions(
            window.model.timeline.state_at(window.model.cursor), target) else "wait")
    _wait(app, lambda before=before: window.model.timeline.num_steps > before and window.model.human_to_move() == target, 30)
    grab("human.png")
    window.stop_session()

    # 4. the first episode replayed at its first feedback, with the take-over panel open
    if played is not None and window.open_recording(played):
        window.model.seek(window.model.timeline.next_feedback_tick(0) or window.model.timeline.num_steps // 2)
        window.take_over()
        window.setup.set_seat(target, "human")
        grab("replay.png")
    window.shutdown()
    window.close()
    return shots


def take_newcomer(out: Path) -> list[Path]:
    """The first screen, a finished episode's summary and the How-to-play page, at 1366 x 768."""
    from ui.app import launch

    app, window = shot_window("tom-arena-newcomer-", (1366, 740), speed=16.0)
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []

    def grab(name: str, widget: Any = None) -> None:
        _settle(app, 0.5)
        path = out / name
        if widget is None:
            window.screen().grabWindow(0, 0, 0, window.frameGeometry().width(),
                                       window.frameGeometry().height()).save(str(path))
        else:
            widget.grab().save(str(path))
        shots.append(path)

    launch(window, paused=True)
    window.show_hint(window.model.timeline.scenario)
    grab("first-screen.png")
    window.card.hide()
    window.set_playing(True)
    _wait(app, lambda: window.model.timeline.outcome is not None and window.card.isVisible(), 120)
    grab("summary.png")
    window.dialogs.show_rules()
    dialog = window.dialogs.help_dialog
    dialog.resize(900, 640)
    grab("how-to-play.png", dialog)
    dialog.close()
    window.shutdown()
    window.close()
    return shots


def on_virtual_display(module: str, out: Path, *extra: str) -> int | None:
    """Unless this process already draws on X, run ``python -m module out`` on a fresh virtual
    display and return its exit code; None when the caller should take its pictures itself."""
    if os.environ.get("QT_QPA_PLATFORM") == "xcb":
        return None
    from ui.xvfb import display_env, virtual_display

    with virtual_display(1600, 1000, 24) as display:
        return subprocess.call([sys.executable, "-m", module, str(out.resolve()), *extra], env=display_env(display),
                               cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    only_newcomer = "--newcomer" in argv
    argv = [a for a in argv if a != "--newcomer"]
    out = Path(argv[0]) if argv else ROOT / "docs" / "screenshots"
    code = on_virtual_display("ui.shots", out, *(["--newcomer"] if only_newcomer else []))
    if code is not None:
        return code
    for path in ([] if only_newcomer else take(out)) + take_newcomer(out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
