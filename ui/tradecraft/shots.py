"""The screenshot of the TradeCraft board for the documentation, taken with the real app on a
private Xvfb display.

    .venv/bin/python -m ui.tradecraft.shots [OUT_DIR]        (default docs/screenshots)

Writes ``tradecraft-board.png``: a person plays bob in ``mc1v1-01`` against a planner trader;
alice has just proposed a trade, so the board shows the incoming proposal with Accept /
Reject, the crafting table with the possible recipes of bob's hand, the recipe browser on
bob's target, a checked fractional craft, and alice's value report in the ToM values heatmap.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
NAME = "tradecraft-board.png"


def _wait(app: Any, condition: Callable[[], bool], seconds: float = 60.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def take(out: Path) -> Path:
    from PyQt6.QtCore import Qt

    from agents.tradecraft.selfplay import with_options
    from sim.registry import find_scenario, load_spec
    from sim.tradecraft.world import RESPOND, TradeCraftWorld
    from ui.app import application
    from ui.catalog import SessionPlan
    from ui.mainwindow import MainWindow
    from ui.settings import AppSettings
    from ui.tradecraft.board import TradeCraftBoard
    from ui.tradecraft.heatmap import ToMValuesPanel

    app = application()
    work = Path(tempfile.mkdtemp(prefix="tom-arena-tc-shots-"))
    settings = AppSettings.at(work / "settings.ini")
    settings.set("recordings_dir", str(work / "recordings"))
    settings.set("speed", 8.0)
    window = MainWindow(settings)
    window.resize(1560, 980)
    window.move(0, 0)
    window.show()
    window.activateWindow()
    _wait(app, lambda: False, 0.3)
    _, spec = load_spec(find_scenario("mc1v1-01"))
    world = TradeCraftWorld(with_options(spec, {"stop": "all"}))
    window.setup.select_scenario("mc1v1-01")
    window.setup.set_seat("alice", "trader")
    window.setup.set_seat("bob", "human")
    window.start_session(SessionPlan(world=world, scenario="mc1v1-01", seats={"alice": "trader", "bob": "human"},
                                     seed=0))
    board = next(p for _t, p in window.world_panel_widgets if isinstance(p, TradeCraftBoard))
    values = next(p for _t, p in window.world_panel_widgets if isinstance(p, ToMValuesPanel))
    ready = _wait(app, lambda: (window.refresh_panels() or True) and board.can_act and board.obs is not None
                  and board.obs.phase == RESPOND, 30)
    if not ready:
        raise RuntimeError("the human seat never got alice's proposal")
    window.panel_tabs.setCurrentWidget(values)
    window.minds_dock.raise_()
    window.feedback_dock.hide()  # no facilitator in TradeCraft: room for the heatmap
    window.resizeDocks([window.minds_dock], [470], Qt.Orientation.Horizontal)
    window.resizeDocks([window.minds_dock, window.log_dock], [380, 120], Qt.Orientation.Vertical)
    board.look_up("iron_helmet")
    board.recipe_box.setCurrentText("minecraft:iron_nugget")
    board.times.setText("1/3")
    board.check()
    _wait(app, lambda: False, 0.8)
    out.mkdir(parents=True, exist_ok=True)
    path = out / NAME
    window.screen().grabWindow(0, 0, 0, window.frameGeometry().width(), window.frameGeometry().height()).save(str(path))
    window.shutdown()
    window.close()
    return path


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    out = Path(argv[0]) if argv else ROOT / "docs" / "screenshots"
    from ui.shots import on_virtual_display

    code = on_virtual_display("ui.tradecraft.shots", out)
    if code is not None:
        return code
    print(take(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
