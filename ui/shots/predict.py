"""Screenshots of Predict, then see (``ui/predict.py``) for the documentation, taken with the real
app on a private 1366 x 768 Xvfb display.

    .venv/bin/python -m ui.shots.predict [OUT_DIR]        (default docs/screenshots)

Unexpected transfer (Sally and Anne) with the app's seats (two first-order CoBel agents):

- ``predict-question.png``: the session waits after the ball moved; the card asks "Where will Sally
  look for it?" with its two choices;
- ``predict-result.png``: the viewer answered 1 (the basket), play went on, and the card shows what
  Sally did (the toy box: Anne told her) and what a 0th- and a 1st-order mind predicted.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ui.shots.common import _settle, _wait, shot_window, shots_main

SCENARIO = "false-belief-unexpected-transfer"


def take(out: Path) -> list[Path]:
    from sim.registry import load_scenario
    from ui.session.catalog import SessionPlan

    app, window = shot_window("tom-arena-predict-shots-", (1358, 728), speed=2.0)  # as a 1366 x 768 screen fits it
    world, name = load_scenario(SCENARIO)
    window.setup.select_scenario(name)
    window.actions_by_name["predict"].setChecked(True)
    window.start_session(SessionPlan(world=world, scenario=name, seats={a: "cobel" for a in world.agents}, seed=0))
    card = window.predict.card
    out.mkdir(parents=True, exist_ok=True)
    shots = []

    def grab(file: str) -> None:
        _settle(app, 0.6)
        path = out / file
        window.screen().grabWindow(0, 0, 0, window.frameGeometry().width(),
                                   window.frameGeometry().height()).save(str(path))
        shots.append(path)

    if not _wait(app, lambda: card.showing is not None and card.showing[0] == "question", 60):
        raise RuntimeError("the question did not show")
    grab("predict-question.png")
    card.shortcuts[0].activated.emit()  # the key 1
    if not _wait(app, lambda: card.showing is not None and card.showing[0] == "result", 60):
        raise RuntimeError("the result did not show")
    window.set_playing(False)
    grab("predict-result.png")
    window.shutdown()
    window.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    return shots_main("ui.shots.predict", take, argv)


if __name__ == "__main__":
    sys.exit(main())
