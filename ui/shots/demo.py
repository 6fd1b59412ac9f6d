"""Screenshots of what a newcomer and a demo meet (issue 41), taken with the real app on a private
Xvfb display of 1366 x 768 with a fresh profile, for docs/gui.md.

    .venv/bin/python -m ui.shots.demo [OUT_DIR]        (default docs/screenshots)

- ``session-panel.png``: the Session panel on ``false-belief-unexpected-contents``: its
  description as written (``'<sugar>(2) IN <sugar_jar>(1001)'``);
- ``session-llm.png``: sally's seat given to ``llm``: the note that the embedded model is a smoke
  test and how to set an endpoint;
- ``session-team.png``: ``team-01-six`` as its file's ``start`` opens it: k-level ToM planners and
  the team mechanism;
- ``level-opened.png``: a gym-cooking level opened by path, listed under its world in "opened
  files" with its world's seats;
- ``belief-timeline.png``: the Belief timeline of a finished Sally-Anne episode at the default
  width, sentences wrapped;
- ``messages.png``: the Messages tab of the second-order false-belief episode;
- ``clip-sally.gif``: a clip exported as ``main.py export`` writes it, "As sally believes it";
- ``particles.png``: ``kitchen-23-plate-gone-downstairs`` with ProToM at step 10: the Particles
  tab in words with its legend, the map's chips (never-seen counters without a red corner);
- ``belief-timeline-kitchen.png``: the same episode finished: the Belief timeline lists alice's
  false beliefs (a plate gone, a counter believed empty) and ProToM's particles about her.
- ``tradecraft-answer.png``: the TradeCraft board with alice's proposal to bob (the person),
  Accept and Reject in view in the dock's default height.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ui.shots.common import ROOT, _settle, _wait, shot_window, shots_main

SIZE = (1358, 728)  # the window on a 1366 x 768 screen, less a window manager's frame
LEVEL = ROOT / "tests" / "fixtures" / "gym_cooking" / "full-divider_salad.txt"


def take(out: Path) -> list[Path]:
    from ui.app import launch
    from ui.export import clip as export

    app, window = shot_window("tom-arena-demo-shots-", SIZE, speed=16.0)
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []

    def grab(file: str) -> None:
        window.panels.refresh(force=True)
        _settle(app, 0.6)
        path = out / file
        window.screen().grabWindow(0, 0, 0, window.frameGeometry().width(),
                                   window.frameGeometry().height()).save(str(path))
        shots.append(path)

    tradecraft_answer(app, window)
    grab("tradecraft-answer.png")
    setup = window.setup
    # the Session panel: a description with angle brackets, and an LLM seat on the embedded model
    setup.select_scenario("false-belief-unexpected-contents")
    holder = window.setup_dock.widget()
    holder.ensureWidgetVisible(setup.description)
    grab("session-panel.png")
    setup.seat_boxes["sally"].setCurrentText("llm")
    _settle(app, 0.2)
    holder.ensureWidgetVisible(setup.model_note)
    grab("session-llm.png")
    # a team scenario as its file's start opens it
    setup.select_scenario("team-01-six")
    holder.ensureWidgetVisible(setup.mechanism_boxes["team"])
    grab("session-team.png")
    # a level opened by path
    launch(window, targets=[str(LEVEL)], paused=True)
    window.card.hide()
    holder.ensureWidgetVisible(setup.tree)
    setup.tree.scrollToItem(setup.tree.currentItem())
    grab("level-opened.png")
    # a finished Sally-Anne episode: the Belief timeline at the default width
    launch(window, targets=["false-belief-unexpected-transfer"], agents=["cobel"])
    _wait(app, lambda: window.model.timeline.outcome is not None, 120)
    window.card.hide()
    window.model.seek(2)
    window.panels.refresh(force=True)
    window.panels.tabs.setCurrentWidget(window.panels.widgets["Belief timeline"])
    grab("belief-timeline.png")
    # the second-order scenario: the Messages tab
    launch(window, targets=["false-belief-second-order"], agents=["cobel"])
    _wait(app, lambda: window.model.timeline.outcome is not None, 120)
    window.card.hide()
    window.panels.refresh(force=True)
    window.panels.tabs.setCurrentWidget(window.panels.widgets["Messages"])
    grab("messages.png")
    # a clip of the Sally-Anne recording, as sally believes it
    recording = next(p for p in sorted(window.settings.recordings_dir.glob("false-belief-unexpected-transfer-*")))
    clip = export.export_clip(recording, out / "clip-sally.gif", first=0, last=5, view="As sally believes it",
                              size=(480, 320), fps=2)
    shots.append(clip.path)
    # ProToM's particles in the kitchen: the Particles tab with its legend, then the Belief timeline
    launch(window, targets=["kitchen-23-plate-gone-downstairs"], agents=["kitchen-heuristic"])  # ProToM by default
    _wait(app, lambda: window.model.timeline.outcome is not None, 120)
    window.card.hide()
    window.model.seek(10)
    window.panels.refresh(force=True)
    window.panels.tabs.setCurrentWidget(window.panels.widgets["Particles"])
    grab("particles.png")
    window.model.seek(window.model.timeline.num_steps)
    window.panels.tabs.setCurrentWidget(window.panels.widgets["Belief timeline"])
    grab("belief-timeline-kitchen.png")
    window.shutdown()
    window.close()
    return shots


def tradecraft_answer(app: Any, window: Any) -> Any:
    """Play mc1v1-01 with bob as the person until alice's proposal waits for his answer; the board."""
    from sim.registry import load_scenario
    from sim.tradecraft.world import RESPOND
    from ui.session.catalog import SessionPlan

    world, name = load_scenario("mc1v1-01")
    window.start_session(SessionPlan(world=world, scenario=name, seats={"alice": "trader:beta=0", "bob": "human"},
                                     seed=0), playing=True)
    board = window.panels.panel("TradeCraft board")

    def answering() -> bool:
        window.panels.refresh()
        return board is not None and board.can_act and board.obs is not None and board.obs.phase == RESPOND

    _wait(app, answering, 120)
    return board


def main(argv: list[str] | None = None) -> int:
    return shots_main("ui.shots.demo", take, argv)


if __name__ == "__main__":
    sys.exit(main())
