"""The *Belief timeline* tab: each agent's false beliefs (``ui.beliefs.timeline``) as a strip of
bars per agent (when each arose and how long it lasted, the shown step as a line) and a list
in words: when it arose and why, how long it lasted and what ended it. Clicking a bar or a row
goes to the step where that belief arose (the app model's ``seek``).

Every false belief a believed-world view draws is listed, as the world's belief adapter gives
them (``ui.beliefs.view.beliefs_for``, ``WorldBeliefs.kinds``): an agent's own, what it thinks
another agent believes (first order), a believed-empty place where something lies ("it is not
there"), a facilitator's particles about an agent and its goal inference. It shows for episodes
that hold snapshots of one of those kinds.
"""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import QRect, QSize, Qt, pyqtSignal
from PyQt6.QtGui import QBrush, QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PyQt6.QtWidgets import (
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.beliefs.timeline import BeliefHistory, FalseBelief
from ui.beliefs.view import beliefs_for
from ui.panels.common import PANELS, PanelKind
from ui.session.timeline import Timeline

ROW_H = 16
#: the height of one lane when an agent's bars need several (they overlap in time)
LANE_H = 8


class BeliefStrip(QWidget):
    """A band per agent; a bar per false belief from the step it arose to the step it ended, bars
    that overlap in time on thinner lanes of the band (an agent with beliefs of several orders
    holds many at once)."""

    clicked = pyqtSignal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.agents: list[str] = []
        self.beliefs: list[FalseBelief] = []
        self.steps = 1
        self.tick = 0
        self.bars: list[tuple[QRect, FalseBelief]] = []
        self.setMouseTracking(True)

    def set_data(self, agents: list[str], beliefs: list[FalseBelief], steps: int, tick: int) -> None:
        self.agents, self.beliefs, self.steps, self.tick = agents, beliefs, max(1, steps), tick
        self.setMinimumHeight(self.sizeHint().height())
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(240, 6 + sum(self._band(a) + 2 for a in self.agents))

    def _band(self, agent: str) -> int:
        """The height of ``agent``'s band."""
        lanes = self._lanes(agent)
        return ROW_H if lanes <= 1 else max(ROW_H, lanes * LANE_H)

    def _lanes(self, agent: str) -> int:
        return len(self._layout(agent))

    def _layout(self, agent: str) -> list[list[FalseBelief]]:
        """Bars of ``agent`` packed into lanes so that none overlaps another."""
        lanes: list[list[FalseBelief]] = []
        for b in (x for x in self.beliefs if x.agent == agent):
            for lane in lanes:
                last = lane[-1]
                if (last.end if last.end is not None else self.steps) <= b.start:
                    lane.append(b)
                    break
            else:
                lanes.append([b])
        return lanes

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        name_w = 60
        width = max(10, self.width() - name_w - 6)
        scale = width / self.steps
        y = 3
        self.bars = []
        painter.fillRect(self.rect(), QColor(250, 250, 252))
        for agent in self.agents:
            lanes = self._layout(agent) or [[]]
            band = self._band(agent)
            lane_h = band // len(lanes)
            painter.setPen(QColor(40, 44, 56))
            painter.drawText(QRect(2, y, name_w - 4, ROW_H), Qt.AlignmentFlag.AlignVCenter, agent)
            for k, lane in enumerate(lanes):
                for b in lane:
                    end = b.end if b.end is not None else self.steps
                    rect = QRect(name_w + int(b.start * scale), y + k * lane_h + 1,
                                 max(3, int((end - b.start) * scale)), max(3, lane_h - 2))
                    color = QColor(214, 40, 40) if b.end is None or b.end > self.tick else QColor(230, 150, 150)
                    if b.start > self.tick:
                        color = QColor(220, 220, 226)
                    painter.fillRect(rect, QBrush(color))
                    self.bars.append((rect, b))
            y += band + 2
        x = name_w + int(self.tick * scale)
        painter.setPen(QPen(QColor(30, 110, 235), 2))
        painter.drawLine(x, 0, x, self.height())
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        for rect, b in self.bars:
            if rect.adjusted(-2, -2, 2, 2).contains(pos):
                self.clicked.emit(b.start)
                return
        super().mousePressEvent(event)

    def tip_at(self, x: int, y: int) -> str:
        for rect, b in self.bars:
            if rect.contains(x, y):
                return b.summary(self.steps)
        return ""

    def event(self, event: Any) -> bool:
        if event.type() == event.Type.ToolTip:
            text = self.tip_at(int(event.pos().x()), int(event.pos().y()))
            self.setToolTip(text)
        return super().event(event)


class WrappingDelegate(QStyledItemDelegate):
    """Rows as tall as their text wrapped at the width it is drawn in: its column's, or the whole
    row's for a row whose first column spans the others (a tree view otherwise sizes a row for one
    line, however narrow the column)."""

    #: the cell's text margins, both sides
    MARGIN = 10

    def __init__(self, view: QTreeWidget) -> None:
        super().__init__(view)
        self.view = view

    def text_width(self, index: Any) -> int:
        """The width the text of ``index`` wraps at."""
        if self.view.isFirstColumnSpanned(index.row(), index.parent()):
            depth, parent = 1, index.parent()
            while parent.isValid():
                depth, parent = depth + 1, parent.parent()
            return max(1, self.view.viewport().width() - self.view.indentation() * depth - self.MARGIN)
        return max(1, self.view.columnWidth(index.column()) - self.MARGIN)

    def sizeHint(self, option: Any, index: Any) -> QSize:
        hint = super().sizeHint(option, index)
        text = index.data(Qt.ItemDataRole.DisplayRole)
        spanned = self.view.isFirstColumnSpanned(index.row(), index.parent())
        if not text or (index.column() == 0 and not spanned):
            return hint
        wrapped = option.fontMetrics.boundingRect(QRect(0, 0, self.text_width(index), 100_000),
                                                  int(Qt.TextFlag.TextWordWrap), str(text)).height() + 4
        return QSize(hint.width(), max(hint.height(), wrapped))


class BeliefTimelinePanel(QWidget):
    """Each agent's false beliefs over the episode (module doc)."""

    panel_title = "Belief timeline"
    panel_tooltip = ("Each mind's false beliefs (its own, what it thinks another believes, a facilitator's particles "
                     "and goal inference): when each arose and why, how long it lasted and what ended it (its own "
                     "observation, a message, a facilitator's feedback); click one to go to that step")
    COLUMNS = ("steps", "false belief", "arose", "ended by")
    #: the grey of the line under a belief that says how it arose and what ended it
    DETAIL = QColor(95, 100, 115)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel("No false belief yet.")
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption)
        self.strip = BeliefStrip()
        self.strip.clicked.connect(self.seek)
        layout.addWidget(self.strip)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(self.COLUMNS))
        self.tree.setHeaderLabels(list(self.COLUMNS))
        # A narrow dock shows whole sentences, never "sally thinks t…": two columns (the steps and
        # the belief, which takes the rest of the width) and under each belief a line across the
        # row that says how it arose and what ended it (the "arose" and "ended by" columns keep
        # their text, hidden); rows are as tall as their wrapped text, a row's tooltip says it all
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.tree.setItemDelegate(WrappingDelegate(self.tree))
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for column in (2, 3):
            self.tree.setColumnHidden(column, True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.sectionResized.connect(lambda *_: self.tree.doItemsLayout())  # heights follow widths
        self.tree.itemClicked.connect(lambda item, _c: self._clicked(item))
        layout.addWidget(self.tree, 1)
        self.history = BeliefHistory()
        self.window_: Any = None
        self._key: tuple = ()
        #: the rows shown (tests): (agent, FalseBelief)
        self.shown: list[FalseBelief] = []

    def bind_window(self, window: Any) -> None:
        self.window_ = window

    def seek(self, tick: int) -> None:
        model = getattr(self.window_, "model", None)
        if model is not None:
            model.set_playing(False)
            model.seek(tick)

    def _clicked(self, item: QTreeWidgetItem) -> None:
        tick = item.data(0, Qt.ItemDataRole.UserRole)
        if isinstance(tick, int):
            self.seek(tick)

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        beliefs = self.history.update(timeline)
        key = (id(timeline), len(beliefs), sum(b.end is not None for b in beliefs), tick,
               timeline.num_steps if timeline is not None else 0)
        if key == self._key:
            return
        self._key = key
        if timeline is None:
            self.tree.clear()
            self.shown = []
            return
        agents = holders(timeline, beliefs)
        self.strip.set_data([*timeline.world.agents, *(a for a in agents if a not in timeline.world.agents)],
                            beliefs, timeline.num_steps, tick)
        arisen = [b for b in beliefs if b.start <= tick]
        held = [b for b in arisen if b.end is None or b.end > tick]
        self.caption.setText(f"{len(arisen)} false belief{'s' if len(arisen) != 1 else ''} by step {tick}, "
                             f"{len(held)} held now; {len(beliefs)} in the episode so far. Click one to go there."
                             if beliefs else "No false belief so far.")
        self.tree.clear()
        self.shown = []
        for agent in agents:
            # its own beliefs first, then what it thinks each other believes, each in the order they arose
            mine = sorted((b for b in beliefs if b.agent == agent), key=lambda b: (b.about is not None, b.about or ""))
            top = QTreeWidgetItem([agent, f"{len(mine)} false belief{'s' if len(mine) != 1 else ''}", "", ""])
            self.tree.addTopLevelItem(top)
            for b in mine:
                ended = (f"{b.ended_by} (step {b.end}, after {b.steps(0)} step{'s' if b.steps(0) != 1 else ''})"
                         if b.end is not None else "still held")
                span = f"{b.start}–{b.end}" if b.end is not None else f"{b.start}–"
                item = QTreeWidgetItem([span, b.text, b.arose, ended])
                kind = f"{b.order}; " if b.about is not None else ""
                detail = QTreeWidgetItem([f"{kind}arose: {b.arose}; ended by: {ended}"])
                summary = b.summary(timeline.num_steps)
                for row in (item, detail):
                    row.setData(0, Qt.ItemDataRole.UserRole, b.start)
                    for column in range(len(self.COLUMNS)):
                        row.setToolTip(column, summary)
                detail.setForeground(0, QBrush(self.DETAIL))
                if b.start > tick:
                    for c in range(len(self.COLUMNS)):
                        item.setForeground(c, QBrush(QColor(150, 150, 160)))
                    detail.setForeground(0, QBrush(QColor(150, 150, 160)))
                elif b.end is None or b.end > tick:
                    item.setForeground(1, QBrush(QColor(170, 30, 30)))
                top.addChild(item)
                item.addChild(detail)
                detail.setFirstColumnSpanned(True)
                item.setExpanded(True)
                self.shown.append(b)
            top.setExpanded(True)

    def rows(self) -> list[FalseBelief]:
        return list(self.shown)


def holders(timeline: Timeline, beliefs: list[FalseBelief]) -> list[str]:
    """Whose false beliefs ``beliefs`` holds: the world's agents in order, then the others (the
    facilitators) as they first appear."""
    mine = {b.agent for b in beliefs}
    out = [a for a in timeline.world.agents if a in mine]
    for b in beliefs:
        if b.agent not in out:
            out.append(b.agent)
    return out


def _shows(timeline: Timeline) -> bool:
    return any(timeline.has_belief_kind(kind) for kind in beliefs_for(timeline.world).kinds)


def _register() -> None:
    kind = PanelKind(BeliefTimelinePanel.panel_title, lambda: BeliefTimelinePanel(), _shows,
                     BeliefTimelinePanel.panel_tooltip)
    for i, existing in enumerate(PANELS):
        if existing.title == kind.title:
            PANELS[i] = kind
            return
    PANELS.append(kind)


_register()
