"""The live V0 / V1 / V2 heatmap: every player's latest value report (``tom_values`` belief
events) at the shown step, items as rows and each reporter's V0, V1, V2 as columns, on the
paper's 0-10 scale; with KL(opponent's V0 ‖ V1) when both reports exist (Figure 4's
measure). Painted with Qt (one repaint costs about a millisecond), only when the timeline
or the step changed.
"""

from __future__ import annotations

import math
from typing import Any

from PyQt6.QtCore import QRectF, QSize, Qt
from PyQt6.QtGui import QColor, QFont, QLinearGradient, QPainter, QPaintEvent, QPen
from PyQt6.QtWidgets import QScrollArea, QSizePolicy, QWidget

from ui.tradecraft.icons import item_pixmap

TOM_VALUES = "tom_values"
#: viridis at five stops (perceptually even, readable by colour-blind people)
STOPS = [(0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)), (0.75, (94, 201, 98)),
         (1.0, (253, 231, 37))]
ROW = 20
NAME_W = 150   # item names, at their widest
CELL_W = 40    # value cells, at their widest
MIN_NAME_W = 84
MIN_CELL_W = 24


def value_color(v: float) -> QColor:
    t = max(0.0, min(1.0, v / 10.0))
    for (t0, c0), (t1, c1) in zip(STOPS, STOPS[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            return QColor(*(int(a + (b - a) * f) for a, b in zip(c0, c1)))
    return QColor(*STOPS[-1][1])


def kl(p_values: dict[str, float], q_values: dict[str, float], alpha: float = 0.5) -> float:
    """KL(P || Q) of two value maps as distributions over their items (as in sim.analysis.tradecraft)."""
    items = sorted(set(p_values) | set(q_values))
    p = [max(0.0, p_values.get(i, 0.0)) + alpha for i in items]
    q = [max(0.0, q_values.get(i, 0.0)) + alpha for i in items]
    sp, sq = sum(p), sum(q)
    return sum(a / sp * math.log((a / sp) / (b / sq)) for a, b in zip(p, q))


class ToMValuesView(QWidget):
    """The painted heatmap (inside the panel's scroll area)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.reports: dict[str, Any] = {}  # owner -> BeliefEvent
        self.owners: list[str] = []
        self.items: list[str] = []
        self.columns: list[tuple[str, str]] = []  # (owner, "V0"...)
        self.display = lambda item: item.split(":", 1)[-1]
        self.agent_color = lambda agent: (60, 60, 70)
        self.paints = 0
        self.setToolTip("V0: what an item is worth to the trader itself; V1: what it believes the item is worth to "
                        "the other player; V2: what it believes the other thinks the item is worth to it (0 useless, "
                        "10 critical).\nKL: how far its V1 is from the other's own V0 (0: a perfect guess).")

    def set_reports(self, reports: dict[str, Any], order: list[str]) -> None:
        self.reports = reports
        self.owners = [o for o in order if o in reports] + sorted(o for o in reports if o not in order)
        items: set[str] = set()
        self.columns = []
        for owner in self.owners:
            data = reports[owner].data
            items |= set(data.get("items") or [])
            for k in ("V0", "V1", "V2"):
                if isinstance(data.get(k), dict):
                    self.columns.append((owner, k))
                    items |= set(data[k])
        self.items = sorted(items, key=self.display)
        self.setMinimumHeight(self._height())
        # every column fits a narrow dock: cells and names shrink before anything is cut off
        self.setMinimumWidth(MIN_NAME_W + MIN_CELL_W * max(1, len(self.columns)) + 12)
        self.update()

    @property
    def name_w(self) -> int:
        return max(MIN_NAME_W, min(NAME_W, self.width() // 3))

    @property
    def cell_w(self) -> int:
        return max(MIN_CELL_W, min(CELL_W, (self.width() - self.name_w - 12) // max(1, len(self.columns))))

    def matrix(self) -> list[list[float | None]]:
        """Values shown, rows = items, columns = (owner, V_k) (None where not reported)."""
        out = []
        for item in self.items:
            row = []
            for owner, k in self.columns:
                v = self.reports[owner].data.get(k, {}).get(item)
                row.append(None if v is None else float(v))
            out.append(row)
        return out

    def kl_of(self, owner: str) -> float | None:
        """KL(opponent's V0 ‖ owner's V1) for the shown reports, when both exist."""
        data = self.reports[owner].data
        opponent = data.get("opponent")
        if not isinstance(data.get("V1"), dict) or opponent not in self.reports:
            return None
        theirs = self.reports[opponent].data.get("V0")
        return kl(theirs, data["V1"]) if isinstance(theirs, dict) else None

    def grid_top(self) -> int:
        """y of the first item row: two lines per reporter (what, and its KL), then two header rows."""
        return 8 + 2 * ROW * len(self.owners) + 4 + 2 * ROW

    def cell_rect(self, row: int, col: int) -> QRectF:
        return QRectF(self.name_w + col * self.cell_w + 1, self.grid_top() + row * ROW + 1, self.cell_w - 2, ROW - 2)

    def _header_lines(self) -> int:
        return 2 + 2 * len(self.owners)

    def _height(self) -> int:
        return 16 + ROW * self._header_lines() + ROW * max(1, len(self.items)) + 40

    def sizeHint(self) -> QSize:
        return QSize(NAME_W + CELL_W * max(3, len(self.columns)) + 20, self._height())

    def header_lines(self) -> list[str]:
        """The lines above the grid, as painted (tests)."""
        out = []
        for owner in self.owners:
            data = self.reports[owner].data
            extra = f" · model {data['model']}" if data.get("model") else ""
            out.append(f"{owner}: {data.get('stage', '?')} · turn {int(data.get('turn', 0)) + 1} · about "
                       f"{data.get('opponent', '?')} · reasons {data.get('order', '?')} level(s) deep{extra}")
            value = self.kl_of(owner)
            out.append(f"KL({data.get('opponent')}'s V0 ‖ {owner}'s V1) = {value:.2f}  (0: a perfect guess)"
                       if value is not None else f"KL: waiting for {data.get('opponent', 'the other')}'s own values")
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        self.paints += 1
        p = QPainter(self)
        try:
            p.fillRect(self.rect(), QColor(250, 251, 253))
            small = QFont(self.font())
            small.setPointSizeF(max(7.0, small.pointSizeF() * 0.9))
            p.setFont(small)
            if not self.reports:
                p.setPen(QColor(110, 116, 128))
                p.drawText(self.rect().adjusted(10, 10, -10, -10), Qt.TextFlag.TextWordWrap,
                           "Item values V0 / V1 / V2 (0-10) appear here when a trader reports them: planner "
                           "traders (trader) and LLM traders (llm-trader) do at every proposal and decision.")
                return
            y = 8
            # two lines per reporter: stage, turn, about whom; then its KL (each fits the width)
            lines = self.header_lines()
            for k, owner in enumerate(self.owners):
                for line, bold_line in ((lines[2 * k], True), (lines[2 * k + 1], False)):
                    font = QFont(small)
                    font.setBold(bold_line)
                    p.setFont(font)
                    p.setPen(QColor(*self.agent_color(owner)) if bold_line else QColor(70, 76, 88))
                    p.drawText(QRectF(8, y, self.width() - 16, ROW), Qt.AlignmentFlag.AlignVCenter,
                               p.fontMetrics().elidedText(line, Qt.TextElideMode.ElideRight, self.width() - 16))
                    y += ROW
            p.setFont(small)
            # column headers: owner / V_k
            x0, cw, nw = self.name_w, self.cell_w, self.name_w
            y += 4
            for c, (owner, k) in enumerate(self.columns):
                x = x0 + c * cw
                p.setPen(QColor(*self.agent_color(owner)))
                p.drawText(QRectF(x, y, cw, ROW), Qt.AlignmentFlag.AlignCenter, owner[: max(2, cw // 8)])
                p.setPen(QColor(60, 64, 72))
                p.drawText(QRectF(x, y + ROW, cw, ROW), Qt.AlignmentFlag.AlignCenter, k)
            y += 2 * ROW
            y = self.grid_top()
            # rows
            matrix = self.matrix()
            for r, item in enumerate(self.items):
                ry = y + r * ROW
                p.drawPixmap(6, ry + 2, item_pixmap(item, 16))
                p.setPen(QColor(40, 44, 52))
                p.drawText(QRectF(26, ry, nw - 30, ROW), Qt.AlignmentFlag.AlignVCenter,
                           p.fontMetrics().elidedText(self.display(item), Qt.TextElideMode.ElideRight, nw - 30))
                for c, v in enumerate(matrix[r]):
                    cell = self.cell_rect(r, c)
                    if v is None:
                        p.fillRect(cell, QColor(236, 238, 242))
                        continue
                    color = value_color(v)
                    p.fillRect(cell, color)
                    light = 0.299 * color.red() + 0.587 * color.green() + 0.114 * color.blue() > 140
                    p.setPen(QColor(20, 20, 20) if light else QColor(250, 250, 250))
                    p.drawText(cell, Qt.AlignmentFlag.AlignCenter, f"{v:g}")
            # separators between reporters
            p.setPen(QPen(QColor(255, 255, 255), 2))
            for c in range(1, len(self.columns)):
                if self.columns[c][0] != self.columns[c - 1][0]:
                    x = x0 + c * cw
                    p.drawLine(x, y, x, y + ROW * len(self.items))
            # colour bar 0..10
            by = y + ROW * len(self.items) + 10
            width = max(120, min(260, self.width() - x0 - 20))
            gradient = QLinearGradient(x0, 0, x0 + width, 0)
            for t, rgb in STOPS:
                gradient.setColorAt(t, QColor(*rgb))
            p.fillRect(QRectF(x0, by, width, 10), gradient)
            p.setPen(QColor(90, 96, 108))
            for v in (0, 5, 10):
                p.drawText(QRectF(x0 + (width - 1) * v / 10 - 10, by + 11, 20, 14), Qt.AlignmentFlag.AlignCenter,
                           str(v))
            p.drawText(QRectF(8, by - 2, nw - 12, 14), Qt.AlignmentFlag.AlignVCenter, "0 useless · 10 critical")
        finally:
            p.end()


class ToMValuesPanel(QScrollArea):
    """The Minds tab "ToM values": the heatmap at the window's cursor."""

    panel_title = "ToM values"
    panel_tooltip = ("How much each trader values each item for itself (V0), for the other player as it "
                     "believes (V1), and what it believes the other believes of it (V2), on a 0-10 scale")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = ToMValuesView()
        self.setWidget(self.view)
        self.setWidgetResizable(True)
        self._shown: tuple = ()
        self.window_: Any = None

    def bind_window(self, window: Any) -> None:
        self.window_ = window

    def show_at(self, timeline: Any, tick: int) -> None:
        if timeline is None:
            return
        reports = {}
        for owner in timeline.belief_owners(TOM_VALUES):
            event = timeline.belief_at(owner, TOM_VALUES, tick)
            if event is not None:
                reports[owner] = event
        key = (id(timeline),) + tuple((o, id(e)) for o, e in sorted(reports.items()))
        if key == self._shown:
            return
        self._shown = key
        world = timeline.world
        rules = getattr(world, "rules", None)
        if rules is not None:
            self.view.display = rules.display
        renderer = getattr(self.window_, "renderer", None)
        if renderer is not None:
            self.view.agent_color = renderer.agent_color
        self.view.set_reports(reports, list(world.agents))
