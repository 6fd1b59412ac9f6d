"""The screenshot of the TradeCraft board for the documentation, taken with the real app on a
private Xvfb display.

    .venv/bin/python -m ui.tradecraft.shots [OUT_DIR]        (default docs/screenshots)

Writes ``tradecraft-board.png`` at 1366 x 768 (a laptop screen): a person plays bob in ``mc1v1-01`` against a planner trader;
alice has just proposed a trade, so the board shows the incoming proposal with Accept /
Reject, the crafting table with the possible recipes of bob's hand, the recipe browser on
bob's target, a checked fractional craft, and alice's value report in the ToM values heatmap.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ui.shots import ROOT, _wait, on_virtual_display, shot_window

NAME = "tradecraft-board.png"


def take(out: Path) -> Path:
    from PyQt6.QtCore import Qt

    from agents.tradecraft.selfplay import with_options
    from sim.registry import find_scenario, load_spec
    from sim.tradecraft.world import RESPOND, TradeCraftWorld
    from ui.catalog import SessionPlan
    from ui.tradecraft.board import TradeCraftBoard
    from ui.tradecraft.heatmap import ToMValuesPanel

    app, window = shot_window("tom-arena-tc-shots-", (1366, 740), speed=8.0)  # a 1366 x 768 laptop
    _, spec = load_spec(find_scenario("mc1v1-01"))
    world = TradeCraftWorld(with_options(spec, {"stop": "all"}))
    window.setup.select_scenario("mc1v1-01")
    window.setup.set_seat("alice", "trader")
    window.setup.set_seat("bob", "human")
    window.start_session(SessionPlan(world=world, scenario="mc1v1-01", seats={"alice": "trader", "bob": "human"},
                                     seed=0))
    board = window.panels.panel(TradeCraftBoard.panel_title)
    values = window.panels.widgets[ToMValuesPanel.panel_title]
    ready = _wait(app, lambda: (window.panels.refresh() or True) and board.can_act and board.obs is not None
                  and board.obs.phase == RESPOND, 30)
    if not ready:
        raise RuntimeError("the human seat never got alice's proposal")
    window.panels.tabs.setCurrentWidget(values)
    window.minds_dock.raise_()
    window.feedback_dock.hide()  # no facilitator in TradeCraft: room for the heatmap
    window.setup_dock.hide()  # the scenario is chosen: room for the board on a laptop screen
    window.resizeDocks([window.minds_dock], [400], Qt.Orientation.Horizontal)
    window.resizeDocks([window.minds_dock, window.log_dock], [330, 110], Qt.Orientation.Vertical)
    window.resizeDocks([window.panels.docks[TradeCraftBoard.panel_title]], [300], Qt.Orientation.Vertical)
    board.look_up("iron_helmet")
    board.crafting.recipe_box.setCurrentText("minecraft:iron_nugget")
    board.crafting.times.setText("1/3")
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
    code = on_virtual_display("ui.tradecraft.shots", out)
    if code is not None:
        return code
    print(take(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
