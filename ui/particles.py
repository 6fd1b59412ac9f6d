"""The facilitator's particles: what each agent is believed to believe about what it cannot see.

ProToM keeps N particles per agent over the unobserved state; in the kitchen it reports them each
step as ``particles`` belief snapshots, one per agent (``{"agent", "particles", "resampled",
"unseen": [{"at": [row, col], "item", "weight", "true"}]}``, docs/kitchen.md). This panel lists
them as a table and hands them to the world view, whose renderer draws them on the map when it
knows how (``renderer.particles``; the kitchen's does); **View > Show particles on the map**
(added by the panel while it is shown) turns the drawing on and off.

The panel registers itself for the belief kind ``particles`` when this module is imported.
"""

from __future__ import annotations

import bisect
from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QAction, QBrush, QColor
from PyQt6.QtWidgets import QLabel, QMenu, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from ui.panels import read_only_table, register_panel
from ui.timeline import Timeline

PARTICLES = "particles"


def particles_at(timeline: Timeline | None, tick: int) -> list[dict[str, Any]]:
    """Each agent's latest ``particles`` snapshot at or before ``tick`` (from the newest step that
    has any), whoever reported them. Several agents' snapshots share one owner and tick, so they
    are read from the belief log, not the per-owner index (which keeps one per tick)."""
    if timeline is None:
        return []
    log = timeline.belief_log.get(PARTICLES, [])
    end = bisect.bisect_right([e.tick for e in log], tick)
    latest: dict[str, dict[str, Any]] = {}
    for event in log[:end]:
        latest[str(event.data.get("agent", event.owner))] = dict(event.data)
    return list(latest.values())


class ParticlesPanel(QWidget):
    """What each agent is believed to believe about stations out of its sight (share of particles)."""

    panel_title = "Particles"
    panel_tooltip = ("The facilitator's particles: for each agent, what it is believed to believe lies on the "
                     "stations it cannot see, with the share of particles that believe it; red: a false belief")
    COLUMNS = ("agent", "at", "believed", "share", "true")
    #: draw on the map (kept across episodes while the application runs)
    on_map = True

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel("No particles yet.")
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption)
        self.table = QTableWidget(0, len(self.COLUMNS))
        read_only_table(self.table, self.COLUMNS, stretch=2)
        layout.addWidget(self.table)
        self.window_: Any = None
        self.action = QAction("Show &particles on the map", self)  # owned by the panel: goes with it
        self.action.setCheckable(True)
        self.action.setChecked(ParticlesPanel.on_map)
        self.action.setToolTip("Draw what each agent is believed to believe about rooms it cannot see")
        self.action.toggled.connect(self.set_on_map)
        self.snapshots: list[dict[str, Any]] = []
        self._shown: Any = None

    def bind_window(self, window: Any) -> None:
        """Add the View menu action (the window's View menu; a menu of its own if there is none)."""
        self.window_ = window
        menu = next((a.menu() for a in window.menuBar().actions()
                     if a.menu() is not None and a.text().replace("&", "") == "View"), None)
        if menu is None:
            menu = QMenu("&View", window)
            window.menuBar().addMenu(menu)
        menu.addAction(self.action)
        window.addAction(self.action)

    def set_on_map(self, on: bool) -> None:
        ParticlesPanel.on_map = bool(on)
        self._push()

    def _push(self) -> None:
        """Hand the snapshots to the world view's renderer and redraw the map."""
        window = self.window_
        renderer = getattr(window, "renderer", None)
        if renderer is None or not hasattr(renderer, "particles"):
            return
        renderer.particles = self.snapshots
        renderer.show_particles = ParticlesPanel.on_map
        view = window.view
        view._dirty = True  # the state did not change, the picture did
        view.update()

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        snapshots = particles_at(timeline, tick)
        key = (id(timeline), tuple(id(s) for s in snapshots), repr(snapshots))
        if key == self._shown:
            return
        self._shown = key
        self.snapshots = snapshots
        self._push()
        rows = [(s.get("agent", ""), e) for s in snapshots for e in s.get("unseen") or ()]
        if not snapshots:
            self.caption.setText("No particles yet.")
        else:
            counts = ", ".join(f"{s.get('agent')}: {s.get('particles', '?')}" for s in snapshots)
            wrong = sum(1 for _, e in rows if not e.get("true", True))
            self.caption.setText(f"Particles per agent ({counts}); {len(rows)} beliefs about unseen stations, "
                                 f"{wrong} false. View > Show particles on the map draws them.")
        self.table.setRowCount(len(rows))
        for i, (agent, entry) in enumerate(rows):
            at = entry.get("at") or ("?", "?")
            values = (agent, f"({at[0]}, {at[1]})", entry.get("item", ""), f"{float(entry.get('weight', 0)):.2f}",
                      "yes" if entry.get("true", True) else "no")
            for j, value in enumerate(values):
                item = QTableWidgetItem(str(value))
                if not entry.get("true", True):
                    item.setForeground(QBrush(QColor(190, 40, 40)))
                self.table.setItem(i, j, item)


register_panel(ParticlesPanel.panel_title, lambda: ParticlesPanel(), belief_kind=PARTICLES,
               tooltip=ParticlesPanel.panel_tooltip)
