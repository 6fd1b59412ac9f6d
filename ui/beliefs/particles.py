"""The facilitator's particles: what each agent is believed to believe about what it cannot see.

ProToM keeps N particles per agent over the unobserved state; in the kitchen it reports them each
step as ``particles`` belief snapshots, one per agent (``{"agent", "particles", "resampled",
"unseen": [{"at": [row, col], "item", "weight", "true"}]}``, docs/kitchen.md). This panel lists
them as a table. The map draws them where the world's renderer knows how (its
``overlay_beliefs`` names ``particles``; the kitchen's does): the window hands them to it in
``Overlays.beliefs``, and **View > Show particles on the map** (added by the panel while it is
shown) turns the drawing on and off (``MainWindow.show_beliefs_on_map``).

The rows are in the world's words (its belief adapter, ``ui.beliefs.view.beliefs_for``: the
kitchen's stations are "the top counter of the tomato room", not grid coordinates); a place the
agent has never seen is "never seen", not a false belief. Under the caption a legend says what
the map's chips mean (the adapter's ``particles_legend``).

The kitchen's plug-in names this panel (``panels``), and the app imports every plug-in's panels
at startup, so the panel also registers for the belief kind ``particles`` in any world.
"""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt
from PyQt6.QtGui import QAction, QBrush, QColor, QPainter, QPen, QPixmap, QPolygonF
from PyQt6.QtWidgets import (
    QGridLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sim.snapshots import Particles, read_snapshot
from ui.beliefs.view import ParticleRow, beliefs_for
from ui.panels.common import read_only_table, register_panel
from ui.session.timeline import Timeline

PARTICLES = Particles.kind


def particles_at(timeline: Timeline | None, tick: int) -> list[Particles]:
    """Each agent's latest ``particles`` snapshot at or before ``tick``, whoever reported them
    (one that does not fit its kind, from a hand-edited recording, is left out)."""
    found = (read_snapshot(Particles, data) for data in
             (timeline.latest_by_subject(PARTICLES, tick) if timeline is not None else ()))
    return [p for p in found if p is not None]


def legend_chip(symbol: str, size: int = 18) -> QPixmap:
    """A chip as the map draws it (``symbol``: "item", "empty", "unseen" or "false"): a light
    rounded square framed in a cook's colour, with what it believes, a red corner when false."""
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    box = QRectF(1, 1, size - 2, size - 2)
    p.setBrush(QBrush(QColor(250, 250, 250)))
    p.setPen(QPen(QColor(60, 120, 220), 2))
    p.drawRoundedRect(box, size / 5, size / 5)
    grey = QColor(110, 116, 130)
    mid = size / 2
    if symbol == "unseen":
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(grey))
        for k in (1, 2, 3):
            p.drawEllipse(QPointF(k * size / 4, mid), size / 14, size / 14)
    elif symbol == "empty":
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(QPen(grey, 1.5))
        rad = size / 3.2
        p.drawEllipse(QPointF(mid, mid), rad, rad)
        p.drawLine(QPointF(mid - rad, mid + rad), QPointF(mid + rad, mid - rad))
    else:  # a believed thing (a disc here; the map draws the thing's own picture)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(QColor(222, 70, 60) if symbol == "item" else QColor(240, 200, 60)))
        p.drawEllipse(QPointF(mid, mid), size / 4, size / 4)
    if symbol == "false":
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(QColor(210, 40, 40)))
        p.drawPolygon(QPolygonF([QPointF(size - 1, 1), QPointF(size - 1 - size / 2.5, 1),
                                 QPointF(size - 1, 1 + size / 2.5)]))
    p.end()
    return pix


class ParticleLegend(QWidget):
    """What the map's particle chips mean: each drawn chip with a few words, two to a row (the
    whole meaning in its tooltip), small enough for a short dock."""

    PER_ROW = 2

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(2, 0, 2, 2)
        self.grid.setHorizontalSpacing(4)
        self.grid.setVerticalSpacing(0)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        #: (symbol, words, meaning) shown (tests)
        self.entries: tuple[tuple[str, str, str], ...] = ()

    def set_entries(self, entries: tuple[tuple[str, str, str], ...]) -> None:
        if entries == self.entries:
            return
        self.entries = entries
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()  # type: ignore[union-attr]
        for k, (symbol, words, meaning) in enumerate(entries):
            row, column = divmod(k, self.PER_ROW)
            chip = QLabel()
            chip.setPixmap(legend_chip(symbol))
            chip.setFixedSize(QSize(20, 20))
            text = QLabel(words)
            for widget in (chip, text):
                widget.setToolTip(meaning)
            self.grid.addWidget(chip, row, 2 * column)
            self.grid.addWidget(text, row, 2 * column + 1)
        for column in range(self.PER_ROW):
            self.grid.setColumnStretch(2 * column + 1, 1)
        self.setVisible(bool(entries))


class ParticlesPanel(QWidget):
    """What each agent is believed to believe about stations out of its sight (share of particles)."""

    panel_title = "Particles"
    panel_tooltip = ("The facilitator's particles: for each agent, what it is believed to believe lies on the "
                     "places it cannot see, with the share of particles that believe it; red: a false belief "
                     "(a place it has never seen is not one)")
    #: short headers for a narrow dock (the whole meaning in each header's tooltip)
    COLUMNS = ("agent", "place", "believes", "share", "true?")
    HEADER_TIPS = ("the agent whose beliefs these are",
                   "a place out of the agent's sight",
                   "what the agent is believed to believe lies there",
                   "the share of the agent's particles that believe it",
                   "yes: it is there; no: a false belief (red); never seen: the agent does not know, "
                   "which is not a false belief")
    #: the columns that share the width left by the others, their text wrapped onto more lines
    WRAPPED = (1, 2)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel("No particles yet.")
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption)
        self.legend = ParticleLegend()
        self.legend.setVisible(False)
        layout.addWidget(self.legend)
        self.table = QTableWidget(0, len(self.COLUMNS))
        read_only_table(self.table, self.COLUMNS)
        # legible in the default dock width (about 300 px at 1366x768): agent and share fit their
        # text, the verdict its longest word ("never seen" on two lines), place and belief share the
        # rest (the place more) and wrap; a row is as tall as its text
        header = self.table.horizontalHeader()
        for column in self.WRAPPED:
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Fixed)
        words = (self.COLUMNS[4], "never", "seen", "yes", "no")
        header.resizeSection(4, max(max(header.fontMetrics().horizontalAdvance(w) for w in words),
                                    max(self.table.fontMetrics().horizontalAdvance(w) for w in words)) + 14)
        for column, tip in enumerate(self.HEADER_TIPS):
            self.table.horizontalHeaderItem(column).setToolTip(tip)  # type: ignore[union-attr]
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # always there, so that fitting the columns to the width never makes it come and go
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.table.viewport().installEventFilter(self)  # type: ignore[union-attr]
        layout.addWidget(self.table)
        self.window_: Any = None
        self.action = QAction("Show &particles on the map", self)  # owned by the panel: goes with it
        self.action.setCheckable(True)
        self.action.setChecked(True)
        self.action.setToolTip("Draw what each agent is believed to believe about rooms it cannot see")
        self.action.toggled.connect(self.set_on_map)
        self.snapshots: list[Particles] = []
        #: the rows shown (tests)
        self.rows: list[ParticleRow] = []
        self._shown: Any = None

    #: the place's share of the width the wrapped columns have (the belief gets the rest)
    PLACE_SHARE = 0.6

    def eventFilter(self, watched: QObject | None, event: QEvent | None) -> bool:
        if event is not None and event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return False

    def fit_columns(self) -> None:
        """Give the place and the belief the width the other columns leave."""
        header = self.table.horizontalHeader()
        taken = sum(header.sectionSize(c) for c in range(len(self.COLUMNS)) if c not in self.WRAPPED)
        free = max(2 * 40, self.table.viewport().width() - taken)  # type: ignore[union-attr]
        place = int(free * self.PLACE_SHARE)
        header.resizeSection(1, place)
        header.resizeSection(2, free - place)

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
        adapter = beliefs_for(timeline.world) if timeline is not None else None
        rows = [row for snap in snapshots for row in adapter.particle_rows(snap)] if adapter is not None else []
        self.rows = rows
        self.legend.set_entries(adapter.particles_legend if adapter is not None and snapshots else ())
        if not snapshots:
            self.caption.setText("No particles yet.")
        else:
            counts = ", ".join(f"{s.particles} for {s.agent}" for s in snapshots)
            wrong = sum(1 for r in rows if r.false)
            unseen = sum(1 for r in rows if r.verdict not in ("yes", "no"))
            self.caption.setText(f"{len(rows)} beliefs about places out of sight (particles: {counts}): "
                                 f"{wrong} false, {unseen} never seen (not false). On the map:")
            self.caption.setToolTip("View > Show particles on the map turns the map's chips on and off")
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            values = (row.agent, row.where, row.believed, f"{row.share:.2f}", row.verdict)
            for j, value in enumerate(values):
                item = QTableWidgetItem(str(value))
                item.setToolTip(_tip(row))
                if row.false:
                    item.setForeground(QBrush(QColor(190, 40, 40)))
                self.table.setItem(i, j, item)
        self.table.resizeColumnToContents(0)
        self.table.resizeColumnToContents(3)
        self.fit_columns()


def _tip(row: ParticleRow) -> str:
    share = f"{row.share:.0%} of the particles"
    if row.verdict not in ("yes", "no"):
        return f"{row.agent} has never seen {row.where} ({share}): it does not know, which is not a false belief"
    return (f"{row.agent} is believed to believe {row.believed} lies on {row.where} ({share}): "
            + ("true" if row.verdict == "yes" else "a false belief"))


register_panel(ParticlesPanel.panel_title, lambda: ParticlesPanel(), belief_kind=PARTICLES,
               tooltip=ParticlesPanel.panel_tooltip)
