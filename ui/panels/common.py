"""Side panels that read a Timeline at the cursor: goal posteriors over time, the event log,
the feedback history. They are painted with Qt (a full matplotlib redraw costs 140-300 ms
here; these cost about a millisecond) and refreshed by the window at 10 Hz or more, only
when the timeline or the cursor changed."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PyQt6.QtCore import QAbstractListModel, QModelIndex, QRectF, QSize, Qt
from PyQt6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPen
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QListView,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from sim.events import (
    ErrorEvent,
    Event,
    FeedbackEvent,
    FeedbackStatusEvent,
    LLMCallEvent,
    MessageEvent,
    OutcomeEvent,
    PredictionEvent,
    RoundEvent,
    StepEvent,
    TeamEvent,
)
from sim.snapshots import ABSENT, FeedbackCandidates, GoalPosterior, read_snapshot
from ui.render import explanation_words, feedback_words
from ui.session.timeline import Timeline

FALLBACK_COLORS = [(120, 144, 156), (255, 167, 38), (102, 187, 106), (171, 71, 188), (41, 182, 246),
                   (239, 83, 80), (141, 110, 99), (212, 225, 87)]

if TYPE_CHECKING:
    import numpy as np


GOAL_POSTERIOR = "goal_posterior"


class GoalSeries:
    """One agent's goal posterior over time, as a mind reported it."""

    def __init__(self) -> None:
        self.goals: list[str] = []
        self.ticks: list[int] = []
        self.rows: list[list[float]] = []

    def add(self, tick: int, goals: dict[str, float]) -> None:
        for g in goals:
            if g not in self.goals:
                self.goals.append(g)
                for row in self.rows:
                    row.append(0.0)
        row = [float(goals.get(g, 0.0)) for g in self.goals]
        if self.ticks and self.ticks[-1] == tick:
            self.rows[-1] = row
        else:
            self.ticks.append(tick)
            self.rows.append(row)

    def until(self, tick: int, last: int | None = None) -> tuple[list[int], np.ndarray]:
        """Ticks and probabilities (rows x goals) reported at or before ``tick``."""
        import numpy as np  # loaded by the first drawing of a goal, not by the window's start

        n = bisect.bisect_right(self.ticks, tick)
        start = 0 if last is None else max(0, n - last)
        return self.ticks[start:n], np.asarray(self.rows[start:n], dtype=float).reshape(-1, len(self.goals))


class GoalPosteriorPanel(QWidget):
    """For each agent, a mind's belief about its goal (``goal_posterior`` snapshots, whoever
    emits them): the current probabilities as bars, and their history as stacked columns,
    one per step (the newest on the right)."""

    ROW_HEIGHT = 92

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.timeline: Timeline | None = None
        self.tick = 0
        self.goal_color: Callable[[str], tuple[int, int, int] | None] = lambda goal: None
        self.agent_color: Callable[[str], tuple[int, int, int]] = lambda agent: (200, 200, 200)
        self.series: dict[str, GoalSeries] = {}
        self._read = (None, 0)  # (timeline, snapshots read into ``series``)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumHeight(120)
        self.paints = 0
        self.window_: Any = None
        self.painted_rows: list[tuple[str, int, int, int, int]] = []

    def bind_window(self, window: Any) -> None:
        self.window_ = window

    def sizeHint(self) -> QSize:
        return QSize(360, 2 * self.ROW_HEIGHT + 30)

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        self.timeline, self.tick = timeline, tick
        renderer = getattr(self.window_, "renderer", None)
        if renderer is not None:
            self.goal_color, self.agent_color = renderer.goal_color, renderer.agent_color
        snapshots = timeline.belief_log.get(GOAL_POSTERIOR, []) if timeline is not None else []
        seen_timeline, read = self._read
        if seen_timeline is not timeline or read > len(snapshots):
            self.series, read = {}, 0
        for event in snapshots[read:]:
            posterior = read_snapshot(GoalPosterior, event.data)
            if posterior is not None:
                self.series.setdefault(posterior.agent, GoalSeries()).add(event.tick, posterior.goals)
        self._read = (timeline, len(snapshots))
        self.setMinimumHeight(max(120, sum(self.row_height(s) for s in self.series.values()) + 12))
        self.update()

    def _small_font(self) -> QFont:
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.9))
        return small

    def _bar_height(self) -> int:
        """A goal's bar: as tall as its label's line, so the label is never cut."""
        return max(12, QFontMetrics(self._small_font()).height() + 1)

    def row_height(self, series: GoalSeries) -> int:
        """An agent's row: its name, one bar per goal (as many as it has), the ticks under them."""
        return max(self.ROW_HEIGHT, 28 + len(series.goals) * (self._bar_height() + 3) + 4)

    def label_width(self, series: GoalSeries) -> int:
        metrics = QFontMetrics(self._small_font())
        return max(46, max((metrics.horizontalAdvance(g) for g in series.goals), default=0) + 4)

    def _color(self, goal: str, index: int) -> QColor:
        rgb = self.goal_color(goal) or FALLBACK_COLORS[index % len(FALLBACK_COLORS)]
        return QColor(*rgb)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.paints += 1
        p = QPainter(self)
        try:
            p.fillRect(self.rect(), QColor(250, 251, 253))
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            tl = self.timeline
            p.setFont(self._small_font())
            if tl is None or not self.series:
                p.setPen(QColor(110, 116, 128))
                p.drawText(self.rect().adjusted(10, 10, -10, -10), Qt.TextFlag.TextWordWrap,
                           "Goal inference appears here once a mind reports it.")
                return
            width = self.width()
            y = 6
            #: (agent, row top, row height, bottom of its last bar, label width) as painted (tests)
            self.painted_rows: list[tuple[str, int, int, int, int]] = []
            for agent in sorted(self.series):
                series = self.series[agent]
                row = self.row_height(series)
                self._paint_agent(p, agent, series, y, width, row)
                y += row
        finally:
            p.end()

    def _paint_agent(self, p: QPainter, agent: str, series: Any, y: int, width: int, row: int) -> None:
        p.setPen(QColor(*self.agent_color(agent)))
        bold = QFont(p.font())
        bold.setBold(True)
        p.save()
        p.setFont(bold)
        p.drawText(8, y + 12, f"{agent}")
        p.restore()
        p.setPen(QColor(110, 116, 128))
        p.drawText(8 + 8 * (len(agent) + 2), y + 12, "goal as inferred by the watching mind")
        top, height = y + 18, row - 28
        label_w = min(self.label_width(series), max(46, width // 4))
        bars_w = min(max(150, label_w + 104), width // 2)
        goals = series.goals
        # Current probabilities as labelled horizontal bars.
        ticks, probs = series.until(self.tick, last=max(1, (width - bars_w - 24) // 3))
        current = probs[-1] if len(probs) else [0.0] * len(goals)
        bar_h = max(self._bar_height(), min(16, height // max(1, len(goals)) - 3))
        left = 10 + label_w
        by = top
        for i, goal in enumerate(goals):
            by = top + i * (bar_h + 3)
            p.setPen(QColor(60, 64, 72))
            p.drawText(QRectF(8, by, label_w, bar_h), Qt.AlignmentFlag.AlignVCenter, goal)
            p.fillRect(QRectF(left, by, bars_w - left - 4, bar_h), QColor(232, 235, 240))
            p.fillRect(QRectF(left, by, (bars_w - left - 4) * float(current[i]), bar_h), self._color(goal, i))
            p.drawText(QRectF(left, by, bars_w - left - 6, bar_h),
                       Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, f"{float(current[i]):.2f}")
        self.painted_rows.append((agent, y, row, by + bar_h if goals else top, label_w))
        # History: one stacked column per reported step, newest at the right edge.
        x0, x1 = bars_w + 8, width - 8
        p.fillRect(QRectF(x0, top, x1 - x0, height), QColor(238, 240, 244))
        n = len(probs)
        if n:
            col_w = max(2.0, min(8.0, (x1 - x0) / n))
            x = x1 - col_w * n
            colors = [self._color(g, i) for i, g in enumerate(goals)]
            for row in probs:
                base = top + height
                for i, v in enumerate(row):
                    h = height * float(v)
                    if h > 0.2:
                        p.fillRect(QRectF(x, base - h, col_w, h), colors[i])
                    base -= h
                x += col_w
        p.setPen(QPen(QColor(190, 195, 205)))
        p.drawRect(QRectF(x0, top, x1 - x0, height))
        if ticks:
            p.setPen(QColor(110, 116, 128))
            p.drawText(QRectF(x0, top + height, x1 - x0, 12), Qt.AlignmentFlag.AlignRight, f"t={ticks[-1]}")
            p.drawText(QRectF(x0, top + height, x1 - x0, 12), Qt.AlignmentFlag.AlignLeft, f"t={ticks[0]}")


ActionLabel = Callable[[str, Any], str]


def describe_event(event: Event, action_label: ActionLabel | None = None) -> str:
    """One line of the event log; ``action_label(agent, encoded_action)`` words actions the
    world's way (a trade offer as "to bob: 2 paper for 1 torch", not a raw dict)."""
    if isinstance(event, StepEvent):
        label = action_label or (lambda _agent, x: str(x))
        acts = ", ".join(f"{a}: {label(a, x)}" for a, x in event.joint_action.items())
        extra = "; ".join(_world_event(w) for w in event.world_events)
        return f"{event.tick:>4}  {acts}" + (f"   ({extra})" if extra else "")
    if isinstance(event, FeedbackEvent):
        return f"{event.tick:>4}  ▶ {event.facilitator} → {event.target}: {event.text}"
    if isinstance(event, FeedbackStatusEvent):
        return f"{event.tick:>4}  feedback #{event.feedback_id}: {event.agent} {event.status.replace('_', ' ')}"
    if isinstance(event, MessageEvent):
        return f"{event.tick:>4}  {event.sender} → {', '.join(event.recipients)}: {event.text}"
    if isinstance(event, LLMCallEvent):
        cost = f"{event.prompt_tokens}+{event.completion_tokens} tokens, {event.seconds:.1f} s"
        return f"{event.tick:>4}  {event.agent} asked the model ({event.module}; {cost})" + (
            f" — {event.error}" if event.error else "")
    if isinstance(event, ErrorEvent):
        return f"{event.tick:>4}  ⚠ {event.source}: {event.kind}: {event.message.splitlines()[0]}"
    if isinstance(event, TeamEvent):
        teams = "; ".join(f"{name}: {', '.join(members) or 'nobody'}" for name, members in event.teams.items())
        return f"{event.tick:>4}  ⚑ {event.mechanism}: {teams} — {event.reason}"
    if isinstance(event, OutcomeEvent):
        o = event.outcome
        verdict = "stopped" if o.get("stopped") else ("success" if o.get("success") else "not solved")
        return f"{event.tick:>4}  episode over: {verdict}"
    if isinstance(event, PredictionEvent):
        return f"{event.tick:>4}  ? {event.viewer} predicted: {event.choice_text or event.choice} — {event.text}"
    if isinstance(event, RoundEvent):
        verdict = "success" if event.outcome.get("success") else "not solved"
        return (f"{event.tick:>4}  ↻ round {event.round} over: {verdict}; "
                f"round {event.round + 1} starts from the beginning")
    d = event.to_dict()
    d.pop("tick", None)
    kind = d.pop("type", "event")
    return f"{event.tick:>4}  {kind}: {d}"


def _world_event(w: dict[str, Any]) -> str:
    data = w.get("data") or {}
    details = " ".join(_field(k, v) for k, v in data.items())
    return f"{w.get('agent') or ''} {str(w.get('kind', '')).replace('_', ' ')} {details}".strip()


def _field(key: str, value: Any) -> str:
    """One field of a world event: names plain, flags and counts with their meaning."""
    if isinstance(value, bool):
        return _short(key) if value else f"not {_short(key)}"
    if isinstance(value, (int, float)):
        return f"{_short(key)} {_plain_value(value)}"
    return _plain_value(value)


def _plain_value(value: Any) -> str:
    """A world event's field without Python's brackets: {'paper': 2} -> "2 paper"."""
    if isinstance(value, dict):
        return ", ".join(f"{_plain_value(v)} {_short(k)}" if isinstance(v, (int, float)) else f"{_short(k)} {_plain_value(v)}"
                         for k, v in value.items()) or "nothing"
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain_value(v) for v in value) or "nothing"
    if isinstance(value, float):
        return f"{value:g}"
    return _short(str(value))


def _short(name: Any) -> str:
    return str(name).split(":", 1)[-1].replace("_", " ")


class EventLogModel(QAbstractListModel):
    """The log entries of a Timeline visible at the cursor (a prefix of the whole log)."""

    COLORS = {FeedbackEvent: QColor(30, 110, 235), FeedbackStatusEvent: QColor(30, 90, 180),
              ErrorEvent: QColor(190, 40, 40), OutcomeEvent: QColor(20, 130, 60),
              MessageEvent: QColor(120, 60, 160), LLMCallEvent: QColor(110, 110, 110)}

    def __init__(self) -> None:
        super().__init__()
        self.timeline: Timeline | None = None
        self.count = 0
        self.action_label: ActionLabel | None = None

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        count = timeline.log_count(tick) if timeline is not None else 0
        if timeline is not self.timeline or count < self.count:
            self.beginResetModel()
            self.timeline, self.count = timeline, count
            self.endResetModel()
        elif count > self.count:
            self.beginInsertRows(QModelIndex(), self.count, count - 1)
            self.count = count
            self.endInsertRows()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else self.count

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.timeline is None or index.row() >= self.count:
            return None
        event = self.timeline.log[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return describe_event(event, self.action_label)
        if role == Qt.ItemDataRole.ForegroundRole:
            color = self.COLORS.get(type(event))
            return QBrush(color) if color is not None else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if isinstance(event, FeedbackEvent):
                return event.explanation
            if isinstance(event, ErrorEvent):
                return event.message
        return None


class EventLogPanel(QListView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_ = EventLogModel()
        self.setModel(self.model_)
        self.setUniformItemSizes(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        mono = QFont("DejaVu Sans Mono")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        mono.setPointSizeF(max(7.0, self.font().pointSizeF() * 0.9))
        self.setFont(mono)

    def set_action_label(self, label: ActionLabel | None) -> None:
        self.model_.action_label = label

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        before = self.model_.count
        self.model_.show_at(timeline, tick)
        if self.model_.count != before:
            self.scrollToBottom()

    def lines(self) -> list[str]:
        """The entries as shown (tests, exports)."""
        model = self.model_
        return [model.data(model.index(i)) for i in range(model.count)]


def read_only_table(table: QTableWidget, columns: Sequence[str], stretch: int | None = None) -> None:
    """Headers, no row numbers, no focus, no editing, no selection; columns fit their contents
    except ``stretch``, which takes the remaining width."""
    table.setHorizontalHeaderLabels(columns)
    table.verticalHeader().setVisible(False)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    if stretch is not None:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)


class MessageLogPanel(QTableWidget):
    """Every message so far: when, who to whom, the text, and what it cost."""

    COLUMNS = ("tick", "from", "to", "message", "words", "cost")

    #: the share of the width the recipients may take at most (the message takes the rest)
    RECIPIENTS_SHARE = 0.2

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(self.COLUMNS), parent)
        read_only_table(self, self.COLUMNS, stretch=3)
        # in a narrow dock the message keeps the width: the recipients' column is capped (the
        # whole list in its tooltip) and a long message wraps onto more lines
        self.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Fixed)
        self.setWordWrap(True)
        self._shown: list[tuple] = []
        self._timeline: Timeline | None = None
        #: messages read by the last refresh (it reads only those it had not drawn)
        self.visited = 0

    def _fit_recipients(self) -> None:
        wanted = max(self.sizeHintForColumn(2), self.horizontalHeader().sectionSizeHint(2))
        self.setColumnWidth(2, max(40, min(wanted, int(self.viewport().width() * self.RECIPIENTS_SHARE))))

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._fit_recipients()
        self.resizeRowsToContents()

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        count = timeline.count_of(MessageEvent, tick) if timeline is not None else 0
        if timeline is not self._timeline:
            self._timeline, self._shown = timeline, []
            self.setRowCount(0)
        self.visited = 0
        if count == len(self._shown):
            return
        if count < len(self._shown):  # looking back: drop the rows after the cursor
            del self._shown[count:]
            self.setRowCount(count)
            return
        new = timeline.of_type(MessageEvent)[len(self._shown):count] if timeline is not None else []
        self.visited = len(new)
        self.setRowCount(count)
        for e in new:
            row = (e.tick, e.sender, ", ".join(e.recipients), e.text, e.words, e.cost)
            for j, value in enumerate(row):
                item = QTableWidgetItem(f"{value:g}" if isinstance(value, float) else str(value))
                if j in (2, 3):
                    item.setToolTip(str(value))
                self.setItem(len(self._shown), j, item)
            self._shown.append(row)
        self._fit_recipients()
        for k in range(count - len(new), count):
            self.resizeRowToContents(k)
        self.scrollToBottom()

    def texts(self) -> list[str]:
        return [row[3] for row in self._shown]


STATUS_LABELS = {"sent": "sent", "accepted": "accepted", "ignored": "Ignored", "completed": "Completed",
                 "not_executable": "Not Executable"}


class FeedbackHistoryPanel(QTableWidget):
    """Every feedback so far with its status, as the ProToM study showed players."""

    COLUMNS = ("#", "tick", "to", "suggestion", "status")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(self.COLUMNS), parent)
        read_only_table(self, self.COLUMNS, stretch=3)
        self.horizontalHeaderItem(4).setToolTip("sent: not answered yet; accepted: being carried out; Completed: "
                                                "done; Ignored: declined; Not Executable: could no longer be done")
        self._reset(None)

    def _reset(self, timeline: Timeline | None) -> None:
        self._timeline = timeline
        #: one row per feedback given up to the cursor: (id, tick, to, text, status, explanation)
        self._shown: list[tuple] = []
        self._row_of: dict[int, int] = {}
        self._statuses_read = 0
        #: the rows as drawn: the same suggestion ignored again and again is one row with a count
        self.rows_shown: list[tuple] = []
        self._folded_from: list[int] = []  # the first of ``_shown``'s rows each drawn row folds
        #: events and rows read by the last refresh (it reads only what it had not drawn)
        self.visited = 0
        self.setRowCount(0)

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        given = timeline.count_of(FeedbackEvent, tick) if timeline is not None else 0
        answered = timeline.count_of(FeedbackStatusEvent, tick) if timeline is not None else 0
        if timeline is not self._timeline or given < len(self._shown) or answered < self._statuses_read:
            self._reset(timeline)  # another episode, or looking back: read again from the start
        self.visited = 0
        if timeline is None or (given == len(self._shown) and answered == self._statuses_read):
            return
        changed = len(self._shown)
        for event in timeline.of_type(FeedbackEvent)[len(self._shown):given]:
            self._row_of[event.feedback_id] = len(self._shown)
            # the suggestion in its world's own words (its view's hook), as the pop-up says them
            self._shown.append((event.feedback_id, event.tick, event.target,
                                feedback_words(timeline.world, event.feedback, event.text), "sent",
                                explanation_words(timeline.world, event.explanation)))
        for event in timeline.of_type(FeedbackStatusEvent)[self._statuses_read:answered]:
            row = self._row_of.get(event.feedback_id)
            if row is not None:
                self._shown[row] = self._shown[row][:4] + (event.status,) + self._shown[row][5:]
                changed = min(changed, row)
        self.visited = (given - changed) + (answered - self._statuses_read)
        self._statuses_read = answered
        self._fold_from(changed)
        self.scrollToBottom()

    def _fold_from(self, changed: int) -> None:
        """Fold and draw the rows again from the drawn row before the one holding row ``changed``
        (a row newly ignored may fold into the one before it); the rows above stay as drawn."""
        drawn = max(0, bisect.bisect_right(self._folded_from, changed) - 2)
        start = self._folded_from[drawn] if self._folded_from else 0
        del self.rows_shown[drawn:], self._folded_from[drawn:]
        folded: list[list[Any]] = []
        for i in range(start, len(self._shown)):
            fid, t, target, text, status, explanation = self._shown[i]
            last = folded[-1] if folded else None
            self.visited += 1
            if last is not None and status == "ignored" and last[4] == "ignored" and (last[2], last[3]) == (target, text):
                last[6] += 1
                continue
            folded.append([fid, t, target, text, status, explanation, 1])
            self._folded_from.append(i)
        self.rows_shown += [tuple(r) for r in folded]
        self.setRowCount(len(self.rows_shown))
        for i in range(drawn, len(self.rows_shown)):
            self._draw_row(i, *self.rows_shown[i])

    def _draw_row(self, i: int, fid: int, t: int, target: str, text: str, status: str, explanation: str,
                  repeats: int) -> None:
        shown_status = STATUS_LABELS.get(status, status) + (f" ×{repeats}" if repeats > 1 else "")
        for j, value in enumerate((fid, t, target, text, shown_status)):
            item = QTableWidgetItem(str(value))
            item.setToolTip(explanation + (f"\n(suggested {repeats} times, ignored each time)" if repeats > 1 else ""))
            if j == 4:
                rgb = {"completed": (20, 130, 60), "ignored": (150, 90, 20),
                       "not_executable": (190, 40, 40)}.get(status, (30, 90, 180))
                item.setForeground(QBrush(QColor(*rgb)))
            self.setItem(i, j, item)

    def statuses(self) -> dict[int, str]:
        """Feedback id -> status as shown (for tests and exports)."""
        return {fid: status for fid, _, _, _, status, _ in self._shown}


def approximation_words(weighed: FeedbackCandidates) -> str:
    """What a ``feedback_candidates`` snapshot that weighed some joint goal hypotheses only
    (``hypotheses_total`` present) says of it, e.g. "Time saved is summed over 4 of 40,320 joint
    goal hypotheses (the likeliest, holding 0.0099% of the probability; the others count as saving
    nothing): an approximation". Older recordings have no ``hypotheses_mass``: no share then."""
    held = ("" if weighed.hypotheses_mass is ABSENT
            else f", holding {_percent(weighed.hypotheses_mass)} of the probability")
    return (f"Time saved is summed over {weighed.hypotheses:,} of {weighed.hypotheses_total:,} joint goal "
            f"hypotheses (the likeliest{held}; the others count as saving nothing): an approximation")


def _percent(share: float) -> str:
    """``share`` (0 to 1) as a percentage of three significant digits that reads 100% only for 1."""
    if share >= 1:
        return "100%"
    if share >= 0.9995:
        return "over 99.9%"
    if share < 0.000001:
        return "under 0.0001%"
    return f"{share * 100:.3g}%"


class FeedbackCandidatesPanel(QWidget):
    """A facilitator's last evaluation of possible feedback (``feedback_candidates`` snapshots:
    the expected utility of each candidate and the divergence it would cause), as of the
    shown step."""

    COLUMNS = ("to", "suggestion", "time saved", "change", "")
    TIPS = ("", "", "utility: how many ticks the team would save on average, over the facilitator's guesses of "
                    "what each agent wants",
            "divergence: how different the suggestion is from what the agent would do anyway (0: it would do it "
            "anyway, 1: it never would)", "")

    def __init__(self, parent: QWidget | None = None) -> None:
        from PyQt6.QtWidgets import QLabel, QVBoxLayout

        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption)
        #: shown only when the time saved was averaged over some of the joint goal hypotheses
        self.approximation = QLabel()
        self.approximation.setWordWrap(True)
        self.approximation.setToolTip(
            "With many agents, the facilitator's guesses of what all of them want together are too many to "
            "weigh each step: it weighs the likeliest ones only (ProToM's max_hypotheses=auto, when more than "
            "120 are left). max_hypotheses=all weighs every one")
        self.approximation.hide()
        layout.addWidget(self.approximation)
        self.table = QTableWidget(0, len(self.COLUMNS))
        read_only_table(self.table, self.COLUMNS, stretch=1)
        for j, tip in enumerate(self.TIPS):
            if tip:
                self.table.horizontalHeaderItem(j).setToolTip(tip)
        layout.addWidget(self.table)
        self._shown: Any = None

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        belief = timeline.latest_belief("feedback_candidates", tick) if timeline is not None else None
        if belief is self._shown:
            return
        self._shown = belief
        self.approximation.hide()
        if belief is None:
            self.caption.setText("No feedback has been weighed yet.")
            self.table.setRowCount(0)
            return
        weighed = read_snapshot(FeedbackCandidates, belief.data)
        if weighed is None:
            self.caption.setText(f"The suggestions {belief.owner} weighed after step {belief.tick} cannot be read.")
            self.table.setRowCount(0)
            return
        rows, chosen = list(weighed.candidates), weighed.chosen
        self.caption.setText(f"Suggestions {belief.owner} weighed after step {belief.tick}: it sends one that saves "
                             f"more than {weighed.phi} ticks and changes more than {weighed.eps} of what the agent "
                             f"would do (φ, ε)")
        if weighed.hypotheses_total is not ABSENT:
            self.approximation.setText(approximation_words(weighed))
            self.approximation.show()
        self.table.setRowCount(len(rows))
        order = sorted(range(len(rows)), key=lambda k: -(rows[k].get("utility") or 0.0))
        for i, k in enumerate(order):
            row = rows[k]
            divergence = row.get("divergence")
            values = (row.get("target", ""), row.get("text") or row.get("label", ""),
                      f"{row.get('utility', 0.0):.3f}", "" if divergence is None else f"{divergence:.3f}",
                      "sent" if k == chosen else "")
            for j, value in enumerate(values):
                item = QTableWidgetItem(str(value))
                if k == chosen:
                    item.setForeground(QBrush(QColor(30, 110, 235)))
                self.table.setItem(i, j, item)


# ---------------------------------------------------------------------- the panel registry
# A panel registers for what it shows (a kind of belief snapshot, or a type of event), not for a
# world: the window adds it to the Minds dock as soon as the shown episode has that kind of
# data, in any world. Panels only one world family has are named by its plug-in (``panels``).
# A panel is a QWidget with ``show_at(timeline, tick)``, called when something changed; it may
# have ``bind_window(window)`` (to send intents, or read the renderer's colours) and
# ``dock_area`` (a dock of its own instead of a tab). The team panels (Teams, Alignment, Team
# stability) register in ``ui.panels.teams``.


@dataclass(frozen=True)
class PanelKind:
    title: str
    factory: Callable[[], QWidget]
    #: does this timeline hold what the panel shows?
    shows: Callable[[Timeline], bool]
    tooltip: str = ""


PANELS: list[PanelKind] = []


def register_panel(title: str, factory: Callable[[], QWidget], *, belief_kind: str | None = None,
                   event_type: str | None = None, tooltip: str = "") -> PanelKind:
    """Show ``factory()``'s panel for every episode with ``belief_kind`` snapshots or
    ``event_type`` events."""
    if (belief_kind is None) == (event_type is None):
        raise ValueError("a panel registers for exactly one belief_kind or event_type")
    if belief_kind is not None:
        kind = PanelKind(title, factory, lambda tl, k=belief_kind: tl.has_belief_kind(k), tooltip)
    else:
        kind = PanelKind(title, factory, lambda tl, t=event_type: tl.event_count(t) > 0, tooltip)
    for i, existing in enumerate(PANELS):
        if existing.title == title:
            PANELS[i] = kind
            return kind
    PANELS.append(kind)
    return kind


@contextmanager
def panels_restored(*titles: str) -> Iterator[None]:
    """Keep the panels registered under ``titles`` for the block only, however they are registered
    in it (``register_panel``, directly or by a module the block imports): when it ends (however it
    ends) each title is bound again to the panel it had before, or removed. Other
    titles are left alone: a shipped panel whose module the block imported first stays, since
    importing that module again would not register it again."""
    before = {title: next((k for k in PANELS if k.title == title), None) for title in titles}
    try:
        yield
    finally:
        for title, previous in before.items():
            at = next((i for i, k in enumerate(PANELS) if k.title == title), None)
            if previous is None:
                PANELS[:] = [k for k in PANELS if k.title != title]
            elif at is None:
                PANELS.append(previous)
            else:
                PANELS[at] = previous


def load_plugin_panels() -> list[str]:
    """Import the panel modules every world plug-in names (``WorldPlugin.panels``), so that what
    they register by kind of data (the belief-world panel, the facilitator's particles) shows for
    any world's episodes from the start; the app calls this once. Returns the problems (a panel
    that cannot be imported), each also logged; never raises."""
    import logging

    from sim.plugins import plugins, resolve

    problems = []
    for family, found in sorted(plugins().items()):
        for reference in found.panels:
            try:
                resolve(reference)
            except Exception as exc:  # noqa: BLE001 - one broken panel must not stop the app
                problems.append(f"the {family} world's panel {reference} cannot be loaded: "
                                f"{type(exc).__name__}: {exc}")
                logging.getLogger(__name__).warning(problems[-1])
    return problems


def family_panels(family: str) -> list[PanelKind]:
    """The panels a world family's plug-in names (always shown for that family)."""
    from sim.plugins import plugins, resolve

    found = plugins().get(family)
    kinds = []
    for reference in (found.panels if found else ()):
        cls = resolve(reference)
        kinds.append(PanelKind(getattr(cls, "panel_title", cls.__name__), cls, lambda tl: True,
                               getattr(cls, "panel_tooltip", "")))
    return kinds


register_panel("Goal inference", lambda: _scrolled(GoalPosteriorPanel()), belief_kind="goal_posterior",
               tooltip="What a facilitator believes each agent wants: the current probability of each "
                       "goal, and how it changed step by step")
register_panel("Feedback candidates", lambda: FeedbackCandidatesPanel(), belief_kind="feedback_candidates",
               tooltip="The suggestions a facilitator weighed: the time each would save (utility) and how "
                       "much it would change what the agent does (divergence)")
register_panel("Messages", lambda: MessageLogPanel(), event_type="message",
               tooltip="Every message agents sent, with its cost and size")


def _scrolled(panel: QWidget) -> QWidget:
    from PyQt6.QtWidgets import QScrollArea

    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setWidget(panel)
    area.show_at = panel.show_at  # type: ignore[attr-defined]
    area.inner = panel  # type: ignore[attr-defined]
    if hasattr(panel, "bind_window"):
        area.bind_window = panel.bind_window  # type: ignore[attr-defined]
    return area
