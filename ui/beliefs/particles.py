"""The facilitator's particles: what each agent is believed to believe about what it cannot see.

ProToM keeps N particles per agent over the unobserved state; in the kitchen it reports them each
step as ``particles`` belief snapshots, one per agent (``{"agent", "particles", "resampled",
"unseen": [{"at": [row, col], "item", "weight", "true"}]}``, docs/kitchen.md). This panel lists
them as a table. The map draws them where the world's renderer knows how (its
``overlay_beliefs`` names ``particles``; the kitchen's does): the window hands them to it in
``Overlays.beliefs``, and **View > Show particles on the map** (added by the panel while it is
shown) turns the drawing on and off (``MainWindow.show_beliefs_on_map``).

The kitchen's plug-in names this panel (``panels``), and the app imports every plug-in's panels
at startup, so the panel also registers for the belief kind ``particles`` in any world.
"""

from __future__ import annotations

from typing import Any

from PyQt6.QtGui import QAction, QBrush, QColor
from PyQt6.QtWidgets import QLabel, QMenu, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from sim.snapshots import Particles, read_snapshot
from ui.panels.common import read_only_table, register_panel
from ui.session.timeline import Timeline

PARTICLES = Particles.kind


def particles_at(timeline: Timeline | None, tick: int) -> list[Particles]:
    """Each agent's latest ``particles`` snapshot at or before ``tick``, whoever reported them
    (one that does not fit its kind, from a hand-edited recording, is left out)."""
    found = (read_snapshot(Particles, data) for data in
             (timeline.latest_by_subject(PARTICLES, tick) if timeline is not None else ()))
    return [p for p in found if p is not None]


class ParticlesPanel(QWidget):
    """What each agent is believed to believe about stations out of its sight (share of particles)."""

    panel_title = "Particles"
    panel_tooltip = ("The facilitator's particles: for each agent, what it is believed to believe lies on the "
                     "stations it cannot see, with the share of particles that believe it; red: a false belief")
    COLUMNS = ("agent", "at", "believed", "share", "true")

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
        self.action.setChecked(True)
        self.action.setToolTip("Draw what each agent is believed to believe about rooms it cannot see")
        self.action.toggled.connect(self.set_on_map)
        self.snapshots: list[Particles] = []
        self._shown: Any = None

    def bind_window(self, window: Any) -> None:
        """Add the View menu action (the window's View menu; a menu of its own if there is none),
        checked as the window draws particles now (the choice outlives the episode)."""
        self.window_ = window
        hidden = window.model.hidden_beliefs
        self.action.blockSignals(True)
        self.action.setChecked(PARTICLES not in hidden)
        self.action.blockSignals(False)
        menu = next((a.menu() for a in window.menuBar().actions()
                     if a.menu() is not None and a.text().replace("&", "") == "View"), None)
        if menu is None:
            menu = QMenu("&View", window)
            window.menuBar().addMenu(menu)
        menu.addAction(self.action)
        window.addAction(self.action)

    def set_on_map(self, on: bool) -> None:
        """Draw the particles on the map, or not (the window keeps the choice)."""
        if self.window_ is not None:
            self.window_.model.show_beliefs(PARTICLES, bool(on))

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        snapshots = particles_at(timeline, tick)
        key = (id(timeline), tuple(id(s) for s in snapshots), repr(snapshots))
        if key == self._shown:
            return
        self._shown = key
        self.snapshots = snapshots
        rows = [(s.agent, e) for s in snapshots for e in s.unseen]
        if not snapshots:
            self.caption.setText("No particles yet.")
        else:
            counts = ", ".join(f"{s.agent}: {s.particles}" for s in snapshots)
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
