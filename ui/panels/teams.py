"""Team formation in the app, for any world and any team mechanism (docs/teams.md):

- **Alignment** (``alignment_matrix`` snapshots): phi(i, j) as a live N x N heatmap in [-1, 1]
  (row i predicted column j), unknown cells hatched, cells below eps outlined, the team's share
  of misaligned pairs as a bar against theta, agent names with their team and ToM level, and a
  tooltip per cell with phi and its sample count. While a person plays a live team episode, the
  rating strip above the matrix (``ui/panels/team_ratings.py``) takes the person's own alignment scores,
  which the mechanism turns into the person's row.
- **Team stability** (``team_state`` snapshots): welfare, the stability verdict, BAS, the
  monitor's phase and misaligned share, the last solve; per agent its team, ToM level and
  scores (a human seat is scored like the others); every team's lifetime and reason.
- **Teams** (``team`` events): membership over time, each (re)formation numbered with its
  reason, and under it the monitor's misaligned share against theta with its adaptation rounds.
- **ToM-level badges** over the agents on the map (``level_badges`` fills ``Overlays.badges``):
  k from the team mechanism's ``levels`` or each agent's ``predictions`` snapshot, in the
  colour of the agent's team.

Everything is painted with Qt or plain widgets and recomputed only when the timeline or the
cursor changed: a new 8 x 8 matrix is painted in about 2 ms, 20 x 20 in about 6 ms, where a
full matplotlib draw of the same picture takes 40 and 150 ms (``bench/bench_teams_panel.py``),
so the panels follow every step of a live episode.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from PyQt6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PyQt6.QtGui import QBrush, QColor, QFont, QFontMetrics, QHelpEvent, QLinearGradient, QPainter, QPaintEvent, QPen
from PyQt6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from sim.events import BeliefEvent, TeamEvent
from sim.snapshots import ABSENT, AlignmentMatrix, Predictions, TeamState, read_snapshot
from ui.panels.common import _scrolled, read_only_table, register_panel
from ui.panels.team_ratings import RatingStrip
from ui.session.timeline import Timeline

ALIGNMENT = AlignmentMatrix.kind
TEAM_STATE = TeamState.kind
PREDICTIONS = Predictions.kind

#: team colours in the order teams first appear in an episode
TEAM_PALETTE = [(30, 136, 229), (255, 143, 0), (0, 150, 136), (216, 27, 96), (124, 179, 66), (94, 53, 177),
                (0, 172, 193), (141, 110, 99)]
IDLE_COLOR = (150, 155, 165)
#: phi's diverging scale: -1 red, 0 near white, +1 blue (ColorBrewer RdBu, readable by colour-blind people)
PHI_STOPS = [(-1.0, (178, 24, 43)), (-0.5, (239, 138, 98)), (0.0, (247, 247, 247)), (0.5, (103, 169, 207)),
             (1.0, (33, 102, 172))]
BELOW_EPS = QColor(20, 20, 20)
OVER_THETA = QColor(211, 47, 47)
UNDER_THETA = QColor(56, 142, 60)
MUTED = QColor(110, 116, 128)
INK = QColor(40, 44, 52)
PAPER = QColor(250, 251, 253)


def when(tick: int) -> str:
    """When an event of ``tick`` happened, in words: "at the start" (tick 0) or "after step N"."""
    return "at the start" if tick == 0 else f"after step {tick}"


def phi_color(value: float | None) -> QColor:
    """The colour of phi on the diverging scale (unknown: a neutral grey)."""
    if value is None or not math.isfinite(value):
        return QColor(214, 218, 225)
    v = max(-1.0, min(1.0, float(value)))
    for (v0, c0), (v1, c1) in zip(PHI_STOPS, PHI_STOPS[1:]):
        if v <= v1:
            f = (v - v0) / (v1 - v0)
            return QColor(*(int(round(a + (b - a) * f)) for a, b in zip(c0, c1)))
    return QColor(*PHI_STOPS[-1][1])


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        else None


def monitor_value(value: float | None, theta: float | None, counter: str | None) -> str:
    """The monitor's value against theta in words: the share of misaligned team pairs, or with the
    printed counter (``counter == "literal"``) Algorithm 1's c / |T|."""
    literal = counter == "literal"
    name = "c / |T|" if literal else "misaligned team pairs"
    limit = "" if theta is None else f" (theta {theta:g})" if literal else f" (theta {theta:.0%})"
    if value is None:
        return f"{name}: none scored yet{limit}"
    verdict = "" if theta is None else (": over theta" if value > theta else "")
    return f"{name} {value:.2f}{limit}{verdict}" if literal else f"{name} {value:.0%}{limit}{verdict}"


# ---------------------------------------------------------------------- shared readings of a timeline

def team_events(timeline: Timeline, tick: int | None = None) -> list[TeamEvent]:
    """The timeline's team events in order (those visible at ``tick`` when given), from its index."""
    events = timeline.of_type(TeamEvent)
    return list(events) if tick is None else events[:timeline.count_of(TeamEvent, tick)]


def team_colors(events: Sequence[TeamEvent]) -> dict[str, tuple[int, int, int]]:
    """Each team name's colour, in the order the names first appear."""
    colors: dict[str, tuple[int, int, int]] = {}
    for event in events:
        for name in event.teams:
            if name not in colors:
                colors[name] = TEAM_PALETTE[len(colors) % len(TEAM_PALETTE)]
    return colors


def human_seats(timeline: Timeline) -> list[str]:
    """Agents played by a person, from the episode's header (live or recorded)."""
    seats = timeline.header.get("seats") or {}
    return [a for a, d in seats.items() if isinstance(d, Mapping) and d.get("kind") == "human"]


def tom_levels(timeline: Timeline, tick: int) -> dict[str, int]:
    """Each agent's ToM level k at ``tick``: its own latest ``predictions`` snapshot's ``level``,
    or the level a team mechanism reports in ``team_state`` (which wins: it is what the
    mechanism used)."""
    levels: dict[str, int] = {}
    for agent in timeline.world.agents:
        belief = timeline.belief_at(agent, PREDICTIONS, tick)
        predictions = read_snapshot(Predictions, belief.data) if belief is not None else None
        if predictions is not None and predictions.level is not ABSENT:
            levels[agent] = predictions.level
    state = timeline.latest_belief(TEAM_STATE, tick) if timeline.has_belief_kind(TEAM_STATE) else None
    typed = read_snapshot(TeamState, state.data) if state is not None else None
    if typed is not None:
        for agent, level in typed.levels.items():
            if agent in timeline.world.agents and isinstance(level, int) and not isinstance(level, bool):
                levels[agent] = level
    return levels


def level_badges(timeline: Timeline, tick: int) -> dict[str, tuple[str, tuple[int, int, int]]]:
    """The map's badges at ``tick``: agent -> ("k1", its team's colour, grey when idle), for the
    agents whose ToM level is known."""
    levels = tom_levels(timeline, tick)
    if not levels:
        return {}
    shown = team_events(timeline, tick)
    colors = team_colors(team_events(timeline))
    latest = shown[-1].teams if shown else {}
    badges = {}
    for agent, level in levels.items():
        team = next((t for t, members in latest.items() if agent in members), None)
        badges[agent] = (f"k{level}", colors.get(team, IDLE_COLOR) if team is not None else IDLE_COLOR)
    return badges


def team_of(teams: Mapping[str, Sequence[str]], agent: str) -> str | None:
    return next((t for t, members in teams.items() if agent in members), None)


def pair_scores(phi: Sequence[Sequence[float | None]], agents: Sequence[str], team: Sequence[str],
                agent: str) -> tuple[float | None, float | None]:
    """(B_i(T): how well ``agent`` predicts its teammates, Eq. 2 with unknown phi as 0 and None
    when it has predicted none of them; how well the team predicts ``agent``: the mean of the
    known phi(j, agent) over members j != agent, None when none is known)."""
    index = {a: k for k, a in enumerate(agents)}
    if agent not in index:
        return None, None
    i = index[agent]
    mates = [index[j] for j in team if j in index and j != agent]
    given = None
    if agent in team and mates:
        row = [phi[i][j] for j in mates]
        if any(v is not None for v in row):
            given = sum(v for v in row if v is not None) / len(mates)
    about = [phi[j][i] for j in mates if phi[j][i] is not None]
    received = sum(about) / len(about) if about else None
    return given, received


class _OwnerChoice:
    """Which mechanism's snapshots a panel shows, when several team mechanisms run."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.box = QComboBox()
        self.box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.box.setToolTip("Several team mechanisms run in this episode: the one shown here")
        self.box.hide()

    def current(self, timeline: Timeline) -> str | None:
        owners = sorted(timeline.belief_owners(self.kind))
        if [self.box.itemText(i) for i in range(self.box.count())] != owners:
            chosen = self.box.currentText()
            self.box.blockSignals(True)
            self.box.clear()
            self.box.addItems(owners)
            if chosen in owners:
                self.box.setCurrentText(chosen)
            self.box.blockSignals(False)
            self.box.setVisible(len(owners) > 1)
        return self.box.currentText() or None


# ---------------------------------------------------------------------- the alignment matrix

class AlignmentMatrixView(QWidget):
    """The painted matrix (inside the Alignment panel's scroll area)."""

    MAX_CELL = 46
    MIN_CELL = 18

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMouseTracking(True)
        self.agents: list[str] = []
        self.phi: list[list[float | None]] = []
        self.samples: list[list[int]] = []
        self.eps: float | None = None
        self.theta: float | None = None
        self.team: list[str] = []
        self.misaligned: float | None = None
        self.counter: str | None = None  # the monitor's test: "share" or "literal" (c / |T|)
        self.levels: dict[str, int] = {}
        self.humans: set[str] = set()
        self.colors: dict[str, tuple[int, int, int]] = {}
        self.team_name: str | None = None
        self.caption = ""
        self.paints = 0
        self._names, self._header = 40, 20

    # ------------------------------------------------------------------ data

    def set_data(self, matrix: BeliefEvent | None, state: BeliefEvent | None, *, humans: Sequence[str] = (),
                 levels: Mapping[str, int] | None = None, colors: Mapping[str, tuple[int, int, int]] | None = None
                 ) -> None:
        data = read_snapshot(AlignmentMatrix, matrix.data) if matrix is not None else None
        agents = list(data.agents) if data is not None else []
        n = len(agents)
        phi = data.phi if data is not None else []
        samples = data.samples if data is not None else []

        def cell(rows: Any, i: int, j: int) -> Any:
            return rows[i][j] if i < len(rows) and isinstance(rows[i], list) and j < len(rows[i]) else None

        self.agents = agents
        self.phi = [[None if i == j else _number(cell(phi, i, j)) for j in range(n)] for i in range(n)]
        self.samples = [[int(cell(samples, i, j) or 0) if isinstance(cell(samples, i, j), int) else 0
                         for j in range(n)] for i in range(n)]
        self.eps, self.theta = (_number(data.eps), _number(data.theta)) if data is not None else (None, None)
        sdata = read_snapshot(TeamState, state.data) if state is not None else None
        teams = sdata.teams if sdata is not None else {}
        self.team_name = next(iter(teams), None)
        self.team = [a for a in agents if self.team_name is not None and a in (teams.get(self.team_name) or [])]
        reported = _number(sdata.misaligned) if sdata is not None else None
        self.counter = sdata.counter if sdata is not None else None
        self.misaligned = reported if reported is not None else self.computed_misaligned()
        self.levels = dict(levels or {})
        self.humans = set(humans)
        self.colors = dict(colors or {})
        self.caption = (f"{matrix.owner}, {when(matrix.tick)}: row i predicted column j"
                        if matrix is not None else "")
        self._measure()
        self.setMinimumHeight(self._grid_top() + n * self._cell() + 30)
        self.setMinimumWidth(self._name_w() + n * self.MIN_CELL + 16)
        self.update()

    def computed_misaligned(self) -> float | None:
        """The share of the team's ordered pairs with a known phi below eps (Algorithm 1's monitor)."""
        if self.eps is None:
            return None
        idx = [self.agents.index(a) for a in self.team]
        known = [self.phi[i][j] for i in idx for j in idx if i != j and self.phi[i][j] is not None]
        return sum(v < self.eps for v in known) / len(known) if known else None

    def below_eps(self) -> list[tuple[str, str]]:
        """The (predictor, predicted) pairs outlined: phi known and below eps."""
        if self.eps is None:
            return []
        n = len(self.agents)
        return [(self.agents[i], self.agents[j]) for i in range(n) for j in range(n)
                if self.phi[i][j] is not None and self.phi[i][j] < self.eps]

    def cell_text(self, i: int, j: int) -> str:
        """What a cell says: its phi to two decimals, '?' when unknown, '' on the diagonal."""
        if i == j:
            return ""
        value = self.phi[i][j]
        return "?" if value is None else f"{value:+.2f}"

    def tooltip_for(self, i: int, j: int) -> str:
        a, b = self.agents[i], self.agents[j]
        if i == j:
            return f"{a}: an agent does not predict itself"
        value, count = self.phi[i][j], self.samples[i][j]
        person = a in self.humans
        if value is None:
            return (f"{a} (you) about {b}: unknown — not rated yet (rate {b} above the matrix, Ctrl+R)" if person
                    else f"{a} about {b}: unknown — none of {a}'s predictions of {b} has been checked yet")
        line = (f"{a} (you) about {b}: phi {value:+.3f} from your rating{'s' if count != 1 else ''} of "
                f"{count} round{'s' if count != 1 else ''}" if person else
                f"{a} about {b}: phi {value:+.3f} from {count} sample{'s' if count != 1 else ''}")
        if self.eps is not None:
            line += (f"\nbelow eps {self.eps:g}: {a} does not trust {b}'s predictability" if value < self.eps
                     else f"\nat or above eps {self.eps:g}")
        return line

    # ------------------------------------------------------------------ geometry

    def _measure(self) -> None:
        """The widths of the names, measured once per snapshot (not once per cell)."""
        metrics = QFontMetrics(self.font())
        longest = max((metrics.horizontalAdvance(self._row_label(a)) for a in self.agents), default=40)
        self._names = min(150, longest + 22)
        self._header = min(110, max((metrics.horizontalAdvance(a) for a in self.agents), default=20) + 10)

    def _name_w(self) -> int:
        return self._names

    def _row_label(self, agent: str) -> str:
        level = self.levels.get(agent)
        return agent + (" (you)" if agent in self.humans else "") + (f"  k{level}" if level is not None else "")

    def _cell(self) -> int:
        n = max(1, len(self.agents))
        return int(max(self.MIN_CELL, min(self.MAX_CELL, (self.width() - self._name_w() - 16) // n)))

    def _header_h(self) -> int:
        return self._header

    def _grid_top(self) -> int:
        return 8 + 18 + 44 + 36 + self._header_h()  # caption, colour scale, theta bar, column names

    def cell_rect(self, i: int, j: int) -> QRectF:
        c = self._cell()
        return QRectF(self._name_w() + j * c, self._grid_top() + i * c, c, c)

    def cell_at(self, x: float, y: float) -> tuple[int, int] | None:
        c = self._cell()
        j, i = math.floor((x - self._name_w()) / c), math.floor((y - self._grid_top()) / c)
        n = len(self.agents)
        return (i, j) if 0 <= i < n and 0 <= j < n else None

    def sizeHint(self) -> QSize:
        n = max(2, len(self.agents))
        return QSize(self._name_w() + n * 40 + 16, self._grid_top() + n * 40 + 30)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            cell = self.cell_at(event.pos().x(), event.pos().y())
            if cell is not None:
                QToolTip.showText(event.globalPos(), self.tooltip_for(*cell), self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    # ------------------------------------------------------------------ painting

    def paintEvent(self, event: QPaintEvent) -> None:
        self.paints += 1
        p = QPainter(self)
        try:
            p.fillRect(self.rect(), PAPER)
            small = QFont(self.font())
            small.setPointSizeF(max(7.0, small.pointSizeF() * 0.9))
            p.setFont(small)
            if not self.agents:
                p.setPen(MUTED)
                p.drawText(self.rect().adjusted(10, 10, -10, -10), Qt.TextFlag.TextWordWrap,
                           "The alignment matrix appears here once a team mechanism has scored predictions.")
                return
            width = self.width()
            p.setPen(INK)
            p.drawText(QRectF(8, 6, width - 16, 16), Qt.AlignmentFlag.AlignLeft, self.caption)
            self._paint_scale(p, QRectF(8, 30, min(260, width - 16), 12))
            self._paint_theta(p, QRectF(8, 76, min(260, width - 16), 12))
            self._paint_names(p)
            self._paint_cells(p, small)
        finally:
            p.end()

    def _paint_scale(self, p: QPainter, bar: QRectF) -> None:
        gradient = QLinearGradient(bar.left(), 0, bar.right(), 0)
        for value, _ in PHI_STOPS:
            gradient.setColorAt((value + 1) / 2, phi_color(value))
        p.fillRect(bar, QBrush(gradient))
        p.setPen(QColor(170, 175, 185))
        p.drawRect(bar)
        p.setPen(MUTED)
        label_y = bar.bottom() + 1
        for value, text in ((-1.0, "-1"), (0.0, "0"), (1.0, "+1")):
            x = bar.left() + (value + 1) / 2 * bar.width()
            p.drawText(QRectF(x - 14, label_y, 28, 13), Qt.AlignmentFlag.AlignHCenter, text)
        if self.eps is not None:
            x = bar.left() + (max(-1.0, min(1.0, self.eps)) + 1) / 2 * bar.width()
            p.setPen(QPen(BELOW_EPS, 2))
            p.drawLine(QPointF(x, bar.top() - 3), QPointF(x, bar.bottom() + 3))
            p.setPen(INK)
            p.drawText(QRectF(bar.left(), label_y + 13, self.width() - 16, 14), Qt.AlignmentFlag.AlignLeft,
                       f"eps {self.eps:g} (the mark): cells below it are outlined")

    def _paint_theta(self, p: QPainter, bar: QRectF) -> None:
        share, theta = self.misaligned, self.theta
        p.fillRect(bar, QColor(232, 235, 240))
        if share is not None:
            over = theta is not None and share > theta
            p.fillRect(QRectF(bar.left(), bar.top(), bar.width() * max(0.0, min(1.0, share)), bar.height()),
                       OVER_THETA if over else UNDER_THETA)
        if theta is not None:
            x = bar.left() + bar.width() * theta
            p.setPen(QPen(INK, 2))
            p.drawLine(QPointF(x, bar.top() - 3), QPointF(x, bar.bottom() + 3))
        p.setPen(INK)
        p.drawText(QRectF(bar.left(), bar.bottom() + 2, self.width() - 16, 14), Qt.AlignmentFlag.AlignLeft,
                   self.theta_text())

    def theta_text(self) -> str:
        """The words beside the theta bar."""
        return monitor_value(self.misaligned, self.theta, self.counter)

    def _paint_names(self, p: QPainter) -> None:
        c, top, left = self._cell(), self._grid_top(), self._name_w()
        normal = QFont(p.font())
        bold = QFont(normal)
        bold.setBold(True)
        for k, agent in enumerate(self.agents):
            member = agent in self.team
            color = QColor(*self.colors.get(self.team_name or "", TEAM_PALETTE[0])) if member else QColor(*IDLE_COLOR)
            p.fillRect(QRectF(4, top + k * c + c / 2 - 5, 10, 10), color)
            p.setFont(bold if member else normal)
            p.setPen(INK if member else MUTED)
            p.drawText(QRectF(18, top + k * c, left - 20, c), Qt.AlignmentFlag.AlignVCenter, self._row_label(agent))
            p.save()
            p.translate(left + k * c + c / 2 + 5, top - 4)
            p.rotate(-90)
            p.drawText(QRectF(0, -12, self._header_h() - 6, 14), Qt.AlignmentFlag.AlignLeft, agent)
            p.restore()
        p.setFont(normal)

    def _paint_cells(self, p: QPainter, font: QFont) -> None:
        n = len(self.agents)
        team = {self.agents.index(a) for a in self.team}
        hatch = QBrush(QColor(160, 166, 176), Qt.BrushStyle.BDiagPattern)
        for i in range(n):
            for j in range(n):
                rect = self.cell_rect(i, j).adjusted(1, 1, -1, -1)
                value = self.phi[i][j]
                if i == j:
                    p.fillRect(rect, QColor(70, 74, 84))
                    continue
                color = phi_color(value)
                if team and not (i in team and j in team):
                    color = QColor(color.red(), color.green(), color.blue(), 110)  # outside the team: faded
                p.fillRect(rect, color)
                if value is None:
                    p.fillRect(rect, hatch)
                if rect.width() >= 26:
                    dark = value is not None and abs(value) > 0.55
                    p.setPen(QColor(255, 255, 255) if dark else INK)
                    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.cell_text(i, j))
                if value is not None and self.eps is not None and value < self.eps:
                    p.setPen(QPen(BELOW_EPS, 2))
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawRect(rect.adjusted(1, 1, -1, -1))


class AlignmentPanel(QWidget):
    """The Alignment tab: the matrix of the chosen team mechanism at the shown step."""

    panel_title = "Alignment"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.owner = _OwnerChoice(ALIGNMENT)
        self.owner.box.currentTextChanged.connect(lambda _: self._redraw())
        layout.addWidget(self.owner.box)
        self.ratings = RatingStrip()
        layout.addWidget(self.ratings)
        self.view = AlignmentMatrixView()
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setWidget(self.view)
        layout.addWidget(area)
        self.timeline: Timeline | None = None
        self.tick = 0
        self._shown: Any = None

    def bind_window(self, window: Any) -> None:
        self.ratings.bind_window(window)

    def focus_ratings(self) -> bool:
        """Give the rating strip the keys (False: no person plays a live team episode here)."""
        return self.ratings.take_keys()

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        self.timeline, self.tick = timeline, tick
        self._redraw()

    def _redraw(self) -> None:
        timeline, tick = self.timeline, self.tick
        if timeline is None:
            self._shown = None
            self.view.set_data(None, None)
            self.ratings.update_from(None, None, {}, {})
            return
        owner = self.owner.current(timeline)
        matrix = timeline.belief_at(owner, ALIGNMENT, tick) if owner else None
        state = timeline.belief_at(owner, TEAM_STATE, tick) if owner else None
        latest = timeline.belief_at(owner, TEAM_STATE, timeline.num_steps) if owner else None
        typed = read_snapshot(TeamState, latest.data) if latest is not None else None
        self.ratings.update_from(timeline, owner, typed.teams if typed is not None else {},
                                 team_colors(team_events(timeline)))
        key = (id(timeline), matrix, state, self.view.width())
        if key == self._shown:
            return
        self._shown = key
        self.view.set_data(matrix, state, humans=human_seats(timeline), levels=tom_levels(timeline, tick),
                           colors=team_colors(team_events(timeline)))


# ---------------------------------------------------------------------- welfare and stability

class TeamStabilityPanel(QWidget):
    """The Team stability tab: the chosen mechanism's ``team_state`` at the shown step."""

    panel_title = "Team stability"
    INDICATORS = (("welfare", "welfare", "W(T), Eq. 4: the sum of the members' preferences for their team"),
                  ("stable", "stable", "Eq. 3: no group of at least half the agents inside the team would all be "
                                       "better off on their own"),
                  ("bas", "BAS", "belief alignment score: the members' mean alignment with their teammates"),
                  ("phase", "monitor", "monitoring: alignment is checked every round; adapting: alignment fell "
                                       "below the threshold and the team has a round to recover before re-forming"),
                  ("misaligned", "misaligned", "the share of the team's ordered pairs whose phi is below eps, "
                                               "against theta (re-formation when it stays above); with "
                                               "counter=literal, Algorithm 1's c / |T|: such pairs counted every "
                                               "round since Eq. 5 last chose, per member"),
                  ("rounds", "round", "cooperation rounds so far"),
                  ("solver", "last solve", "how the last team was chosen: exact or anytime search, and whether it "
                                           "is proved optimal (gap 0)"))
    MEMBERS = ("agent", "team", "k", "predicts", "predicted", "FTM")
    MEMBER_TIPS = ("(you): the seat you play", "", "ToM level", "B_i(T), Eq. 2: the agent's mean phi about its "
                   "teammates (a person's: from their ratings; unknown counts 0; — when it has predicted or rated "
                   "none)", "the teammates' mean known phi "
                   "about this agent: how predictable it is to them", "fraction of trusted members: the share of "
                   "the others it predicts with phi >= eps (— when it has predicted none)")
    LIFETIMES = ("#", "members", "formed", "rounds", "reason")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.owner = _OwnerChoice(TEAM_STATE)
        self.owner.box.currentTextChanged.connect(lambda _: self._redraw())
        layout.addWidget(self.owner.box)
        self.you = QLabel()
        self.you.setWordWrap(True)
        self.you.hide()
        layout.addWidget(self.you)
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        self.indicators: dict[str, QLabel] = {}
        for k, (key, title, tip) in enumerate(self.INDICATORS):
            name = QLabel(f"<small>{title}</small>")
            value = QLabel("—")
            for label in (name, value):
                label.setToolTip(tip)
            grid.addWidget(name, 2 * (k // 4), k % 4)
            grid.addWidget(value, 2 * (k // 4) + 1, k % 4)
            self.indicators[key] = value
        layout.addLayout(grid)
        self.members = QTableWidget(0, len(self.MEMBERS))
        read_only_table(self.members, self.MEMBERS)
        for j, tip in enumerate(self.MEMBER_TIPS):
            if tip:
                self.members.horizontalHeaderItem(j).setToolTip(tip)
        layout.addWidget(self.members)
        self.lifetimes = QTableWidget(0, len(self.LIFETIMES))
        read_only_table(self.lifetimes, self.LIFETIMES, stretch=4)
        self.lifetimes.setWordWrap(True)
        for table in (self.members, self.lifetimes):
            table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.lifetimes.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        self.lifetimes.setColumnWidth(1, 90)
        layout.addWidget(self.lifetimes)
        layout.addStretch(1)
        self.timeline: Timeline | None = None
        self.tick = 0
        self._shown: Any = None

    def value(self, key: str) -> str:
        """An indicator's text as shown (without markup)."""
        return self.indicators[key].property("plain") or self.indicators[key].text()

    def member_rows(self) -> list[list[str]]:
        """The per-agent table as shown: agent, team, k, predicts, predicted, FTM."""
        return [[self.members.item(i, j).text() if self.members.item(i, j) else "" for j in range(len(self.MEMBERS))]
                for i in range(self.members.rowCount())]

    def lifetime_rows(self) -> list[list[str]]:
        return [[self.lifetimes.item(i, j).text() if self.lifetimes.item(i, j) else ""
                 for j in range(len(self.LIFETIMES))] for i in range(self.lifetimes.rowCount())]

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        self.timeline, self.tick = timeline, tick
        self._redraw()

    def _set(self, key: str, text: str, color: QColor | None = None) -> None:
        label = self.indicators[key]
        label.setProperty("plain", text)
        label.setText(f"<b style='color:{color.name()}'>{text}</b>" if color is not None else f"<b>{text}</b>")

    def _redraw(self) -> None:
        timeline, tick = self.timeline, self.tick
        owner = self.owner.current(timeline) if timeline is not None else None
        state = timeline.belief_at(owner, TEAM_STATE, tick) if owner else None
        matrix = timeline.belief_at(owner, ALIGNMENT, tick) if owner else None
        key = (id(timeline), state, matrix)
        if key == self._shown:
            return
        self._shown = key
        data = read_snapshot(TeamState, state.data) if state is not None else None
        mdata = read_snapshot(AlignmentMatrix, matrix.data) if matrix is not None else None
        theta = _number(mdata.theta) if mdata is not None else None
        welfare, bas = (_number(data.welfare), _number(data.bas)) if data is not None else (None, None)
        self._set("welfare", "—" if welfare is None else f"{welfare:.3f}")
        stable = data.stable if data is not None else None
        self._set("stable", "—" if not isinstance(stable, bool) else ("yes" if stable else "no"),
                  None if not isinstance(stable, bool) else (UNDER_THETA if stable else OVER_THETA))
        self._set("bas", "—" if bas is None else f"{bas:+.3f}")
        phase = data.phase if data is not None else None
        self._set("phase", str(phase) if phase else "—", QColor(230, 81, 0) if phase == "adapting" else None)
        share = _number(data.misaligned) if data is not None else None
        over = share is not None and theta is not None and share > theta
        literal = data is not None and data.counter == "literal"
        self._set("misaligned", "—" if share is None else (f"{share:.2f} = c / |T|" if literal else f"{share:.0%}")
                  + ("" if theta is None else f" (theta {theta:g})" if literal else f" (theta {theta:.0%})"),
                  None if share is None or theta is None else (OVER_THETA if over else UNDER_THETA))
        self._set("rounds", str(data.rounds) if data is not None else "—")
        solver = data.solver if data is not None else None
        if solver:
            gap = _number(solver.get("gap"))
            proof = "optimal" if solver.get("optimal") else (f"gap {gap:.1%}" if gap is not None else "not proved")
            self._set("solver", f"{solver.get('method', '?')}, {proof}")
        else:
            self._set("solver", "—" if data is None else "initial team")
        self._fill_members(timeline, tick, data, mdata)
        self._fill_lifetimes(data)

    def _fill_members(self, timeline: Timeline | None, tick: int, data: TeamState | None,
                      mdata: AlignmentMatrix | None) -> None:
        if timeline is None or data is None:
            self.members.setRowCount(0)
            self.you.hide()
            return
        agents = list(timeline.world.agents)
        teams = data.teams
        levels = tom_levels(timeline, tick)
        humans = set(human_seats(timeline))
        phi_agents = list(mdata.agents) if mdata is not None else []
        phi = mdata.phi if mdata is not None and len(mdata.phi) == len(phi_agents) else None
        ftm = data.ftm
        self.members.setRowCount(len(agents))
        for r, agent in enumerate(agents):
            team = team_of(teams, agent)
            members = list(teams.get(team, [])) if team is not None else \
                list(next(iter(teams.values()), [])) if teams else []
            given = received = None
            if phi is not None:
                rows = [[_number(v) for v in row] if isinstance(row, list) else [None] * len(phi_agents) for row in phi]
                given, received = pair_scores(rows, phi_agents, members, agent)
                predicted_any = agent in phi_agents and any(
                    v is not None for k, v in enumerate(rows[phi_agents.index(agent)]) if phi_agents[k] != agent)
            else:
                predicted_any = False
            trust = _number(ftm.get(agent)) if predicted_any else None
            values = (agent + (" (you)" if agent in humans else ""), team or "idle",
                      "" if agent not in levels else str(levels[agent]),
                      "—" if given is None else f"{given:+.2f}", "—" if received is None else f"{received:+.2f}",
                      "—" if trust is None else f"{trust:.2f}")
            for j, value in enumerate(values):
                item = QTableWidgetItem(value)
                if agent in humans:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                if j == 1 and team is None:
                    item.setForeground(QBrush(MUTED))
                self.members.setItem(r, j, item)
        _fit_height(self.members)
        mine = [a for a in agents if a in humans]
        if mine:
            words = []
            for agent in mine:
                team = team_of(teams, agent)
                if team is None:
                    words.append(f"You play <b>{agent}</b>: not in a team (idle) now.")
                else:
                    mates = [m for m in teams[team] if m != agent]
                    words.append(f"You play <b>{agent}</b>: in <b>{team}</b>"
                                 + (f" with {', '.join(mates)}." if mates else ", alone."))
            self.you.setText(" ".join(words))
            self.you.show()
        else:
            self.you.hide()

    def _fill_lifetimes(self, data: TeamState | None) -> None:
        entries = [e for e in (data.lifetimes if data is not None else []) if isinstance(e, Mapping)]
        self.lifetimes.setRowCount(len(entries))
        for r, entry in enumerate(reversed(entries)):  # the newest first
            formed = entry.get("formed_tick")
            when_formed = "" if formed is None else "start" if formed == 0 else f"step {formed}"
            values = (str(len(entries) - r), ", ".join(str(a) for a in entry.get("team") or []) or "nobody",
                      when_formed, str(entry.get("rounds", "")), str(entry.get("reason", "")))
            for j, value in enumerate(values):
                item = QTableWidgetItem(value)
                if j == 4:
                    item.setToolTip(value)
                self.lifetimes.setItem(r, j, item)
        self.lifetimes.resizeRowsToContents()
        _fit_height(self.lifetimes)


def _fit_height(table: QTableWidget) -> None:
    """A table as tall as its rows (the panel scrolls, not the table)."""
    table.setFixedHeight(table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
                         + sum(table.rowHeight(r) for r in range(table.rowCount())))


# ---------------------------------------------------------------------- the team timeline

class TeamTimelinePanel(QWidget):
    """Team membership over time (``team`` events of any mechanism): one row per agent, its
    team's colour from each (re)formation on (idle: hatched), numbered marks at every change and
    the list of reasons; under the rows, the team mechanism's misaligned share step by step
    against theta, with its adaptation rounds shaded."""

    ROW = 22
    MONITOR = 44

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.timeline: Timeline | None = None
        self.tick = 0
        self.changes: list[TeamEvent] = []  # team events up to the cursor
        self.colors: dict[str, tuple[int, int, int]] = {}
        self.levels: dict[str, int] = {}
        self.humans: list[str] = []
        self.theta: float | None = None
        self._series: tuple[Any, str | None, int, list[tuple[int, float | None, str]]] = (None, None, 0, [])
        self.counter: str | None = None  # the monitor's test, from the latest team state read
        self.window_: Any = None
        self._told: dict[str, tuple[str | None, tuple[str, ...]]] = {}
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumHeight(80)
        self.paints = 0

    def bind_window(self, window: Any) -> None:
        self.window_ = window

    def sizeHint(self) -> QSize:
        return QSize(360, 220)

    @property
    def left(self) -> int:
        metrics = QFontMetrics(self.font())
        names = [self._label(a) for a in (self.timeline.world.agents if self.timeline is not None else [])]
        return min(170, max((metrics.horizontalAdvance(n) for n in names), default=50) + 14)

    def _label(self, agent: str) -> str:
        level = self.levels.get(agent)
        return agent + (" (you)" if agent in self.humans else "") + (f" k{level}" if level is not None else "")

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        self.timeline, self.tick = timeline, tick
        if timeline is None:
            self.changes, self.colors, self.levels, self.humans = [], {}, {}, []
            self.update()
            return
        self.changes = team_events(timeline, tick)
        self.colors = team_colors(team_events(timeline))
        self.levels = tom_levels(timeline, tick)
        self.humans = human_seats(timeline)
        owner = self.changes[-1].mechanism if self.changes else None
        matrix = timeline.belief_at(owner, ALIGNMENT, tick) if owner else None
        typed = read_snapshot(AlignmentMatrix, matrix.data) if matrix is not None else None
        self.theta = _number(typed.theta) if typed is not None else None
        self._read_series(timeline, owner)
        self.setMinimumHeight(self._content_height())
        self.setToolTip("\n".join(f"{when(e.tick)}: {e.reason}" for e in self.changes[-8:]))
        self._tell_humans(timeline, tick)
        self.update()

    def _read_series(self, timeline: Timeline, owner: str | None) -> None:
        """The owner's misaligned share and phase, one entry per snapshot, read incrementally."""
        seen, who, read, series = self._series
        snapshots = timeline.belief_log.get(TEAM_STATE, [])
        if seen is not timeline or who != owner or read > len(snapshots):
            series, read = [], 0
        for event in snapshots[read:]:
            state = read_snapshot(TeamState, event.data) if event.owner == owner else None
            if state is None:
                continue
            entry = (event.tick, _number(state.misaligned), state.phase)
            self.counter = state.counter
            if series and series[-1][0] == event.tick:
                series[-1] = entry
            else:
                series.append(entry)
        self._series = (timeline, owner, len(snapshots), series)

    def monitor_series(self) -> list[tuple[int, float | None, str]]:
        """(tick, misaligned share, phase) up to the cursor, as drawn under the rows."""
        return [entry for entry in self._series[3] if entry[0] <= self.tick]

    def memberships(self) -> dict[str, str | None]:
        """Each agent's team after the latest change shown (None: in no team)."""
        if self.timeline is None:
            return {}
        last = self.changes[-1].teams if self.changes else {}
        return {a: team_of(last, a) for a in self.timeline.world.agents}

    def segments(self, agent: str) -> list[tuple[int, int, str | None]]:
        """(from tick, to tick, team or None) of ``agent``'s row, as drawn."""
        end = max(1, self.tick)
        out = []
        for k, change in enumerate(self.changes):
            stop = self.changes[k + 1].tick if k + 1 < len(self.changes) else end
            if stop > change.tick:
                out.append((change.tick, stop, team_of(change.teams, agent)))
        return out

    def reasons(self) -> list[str]:
        """The listed (re)formations, numbered as on the marks: "2. after step 9 (teams): ..."."""
        return [f"{k + 1}. {when(e.tick)} ({e.mechanism}): {e.reason}" for k, e in enumerate(self.changes)]

    def _tell_humans(self, timeline: Timeline, tick: int) -> None:
        """At the live edge, a person whose team or teammates changed reads it in the status bar."""
        window = self.window_
        if window is None or not timeline.live or tick != timeline.num_steps or not self.changes:
            return
        teams = self.changes[-1].teams
        for agent in self.humans:
            team = team_of(teams, agent)
            mates = tuple(m for m in teams.get(team, []) if m != agent) if team else ()
            if agent in self._told and self._told[agent] != (team, mates):
                text = (f"{agent}: you are now in {team}" + (f" with {', '.join(mates)}" if mates else ", alone")
                        if team else f"{agent}: you are now idle (in no team)")
                window.statusBar().showMessage(f"{text} — {self.changes[-1].reason}", 8000)
            self._told[agent] = (team, mates)

    # ------------------------------------------------------------------ painting

    def _rows_bottom(self) -> int:
        n = len(self.timeline.world.agents) if self.timeline is not None else 0
        return 22 + n * self.ROW

    def _small(self) -> QFont:
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.9))
        return small

    def _reason_lines(self) -> list[tuple[str, int]]:
        """The listed reasons, the newest first (at most 8), with the height each wraps to."""
        metrics = QFontMetrics(self._small())
        width = max(100, self.width() - 12)
        return [(line, metrics.boundingRect(0, 0, width, 10_000, Qt.TextFlag.TextWordWrap, line).height() + 4)
                for line in list(reversed(self.reasons()))[:8]]

    def _content_height(self) -> int:
        monitor = self.MONITOR + 16 if self._series[3] else 0
        return self._rows_bottom() + 16 + monitor + 18 + sum(h for _, h in self._reason_lines()) + 8

    def resizeEvent(self, event: Any) -> None:
        self.setMinimumHeight(self._content_height())  # reasons wrap to the new width
        super().resizeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.paints += 1
        p = QPainter(self)
        try:
            p.fillRect(self.rect(), PAPER)
            small = self._small()
            p.setFont(small)
            tl = self.timeline
            if tl is None or not self.changes:
                p.setPen(MUTED)
                p.drawText(self.rect().adjusted(10, 10, -10, -10), Qt.TextFlag.TextWordWrap,
                           "Teams appear here once a team mechanism forms them.")
                return
            agents = list(tl.world.agents)
            end = max(1, self.tick)
            x0, x1 = self.left, self.width() - 10
            scale = (x1 - x0) / end
            hatch = QBrush(QColor(175, 180, 190), Qt.BrushStyle.BDiagPattern)
            bold = QFont(small)
            bold.setBold(True)
            for r, agent in enumerate(agents):
                y = 22 + r * self.ROW
                p.setFont(bold if agent in self.humans else small)
                p.setPen(INK)
                p.drawText(QRectF(6, y, x0 - 10, self.ROW - 4), Qt.AlignmentFlag.AlignVCenter, self._label(agent))
                p.fillRect(QRectF(x0, y + 3, x1 - x0, self.ROW - 8), QColor(236, 238, 242))
                for start, stop, team in self.segments(agent):
                    rect = QRectF(x0 + start * scale, y + 3, (stop - start) * scale, self.ROW - 8)
                    if team is None:
                        p.fillRect(rect, hatch)
                    else:
                        p.fillRect(rect, QColor(*self.colors.get(team, TEAM_PALETTE[0])))
            p.setFont(small)
            bottom = self._rows_bottom()
            for k, change in enumerate(self.changes):
                x = x0 + change.tick * scale
                p.setPen(QPen(INK, 2))
                p.drawLine(QPointF(x, 16), QPointF(x, bottom))
                p.drawText(QRectF(x - 12, 2, 24, 14), Qt.AlignmentFlag.AlignHCenter, str(k + 1))
            p.setPen(MUTED)
            p.drawText(QRectF(x0, bottom, x1 - x0, 14), Qt.AlignmentFlag.AlignRight, f"step {end}")
            y = bottom + 16
            series = self.monitor_series()
            if series:
                self._paint_monitor(p, QRectF(x0, y, x1 - x0, self.MONITOR - 8), series, scale)
                p.setPen(MUTED)
                p.drawText(QRectF(6, y, x0 - 10, self.MONITOR - 8), Qt.AlignmentFlag.AlignVCenter, "θ")
                literal = self.counter == "literal"
                theta = "theta" if self.theta is None else f"theta {self.theta:g}" if literal else \
                    f"theta {self.theta:.0%}"
                p.drawText(QRectF(6, y + self.MONITOR - 8, self.width() - 12, 14), Qt.AlignmentFlag.AlignLeft,
                           f"red: {'c / |T|' if literal else 'misaligned pairs'}; dashed: {theta}; orange: adapting")
                y += self.MONITOR + 16
            legend = "   ".join(f"{t}: {', '.join(m) or 'nobody'}" for t, m in self.changes[-1].teams.items())
            p.setPen(INK)
            p.drawText(QRectF(6, y, self.width() - 12, 16), Qt.AlignmentFlag.AlignLeft, f"now — {legend}")
            y += 18
            for line, height in self._reason_lines():
                p.drawText(QRectF(6, y, self.width() - 12, height), Qt.TextFlag.TextWordWrap, line)
                y += height
        finally:
            p.end()

    def _paint_monitor(self, p: QPainter, box: QRectF, series: list[tuple[int, float | None, str]],
                       scale: float) -> None:
        p.fillRect(box, QColor(238, 240, 244))
        ticks = [t for t, _, _ in series]
        for k, (t, _, phase) in enumerate(series):  # adaptation rounds shaded
            if phase == "adapting":
                start = ticks[k - 1] if k else t - 1
                p.fillRect(QRectF(box.left() + start * scale, box.top(), (t - start) * scale, box.height()),
                           QColor(255, 183, 77, 140))
        # a share lies in [0, 1]; the printed counter's c / |T| can pass 1, and then sets the top
        top = max([1.0] + [share for _, share, _ in series if share is not None])
        if self.theta is not None:
            y = box.bottom() - self.theta / top * box.height()
            p.setPen(QPen(INK, 1, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(box.left(), y), QPointF(box.right(), y))
        p.setPen(QPen(OVER_THETA, 2))
        last: QPointF | None = None
        for t, share, _ in series:
            if share is None:
                last = None
                continue
            point = QPointF(box.left() + t * scale, box.bottom() - share / top * box.height())
            if last is not None:
                p.drawLine(last, QPointF(point.x(), last.y()))
                p.drawLine(QPointF(point.x(), last.y()), point)
            last = point
        p.setPen(QColor(190, 195, 205))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(box)


register_panel(AlignmentPanel.panel_title, lambda: AlignmentPanel(), belief_kind=ALIGNMENT,
               tooltip="How well each agent predicted each other one (phi, -1 to +1; row i predicted column j): "
                       "outlined cells are below the trust threshold eps, the bar compares the team's share of "
                       "such pairs with theta, which triggers re-forming the team")
register_panel(TeamStabilityPanel.panel_title, lambda: _scrolled(TeamStabilityPanel()), belief_kind=TEAM_STATE,
               tooltip="The team's welfare and stability, the re-formation monitor, each agent's team, ToM level "
                       "and scores, and how long each team lasted and why it formed")
register_panel("Teams", lambda: TeamTimelinePanel(), event_type="team",
               tooltip="Who is in which team over the episode; each numbered mark is a (re)formation, listed "
                       "with its reason; below, the share of misaligned pairs against theta")
