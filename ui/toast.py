"""The facilitator's feedback as a blue pop-up box over the world (as in the ProToM human
study): the suggestion, its explanation, and for a human recipient Accept / Ignore.
A toast, not a modal dialog: the game and the keyboard go on while it shows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PyQt6.QtCore import QRect, Qt, QTimer, pyqtSignal
from PyQt6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from sim.events import FeedbackEvent, StepEvent
from ui.render import explanation_words, feedback_words

STYLE = """
QFrame#feedbackToast { background: #1e6eeb; border: 2px solid #0d47a1; border-radius: 10px; }
QFrame#feedbackToast QLabel { color: white; background: transparent; }
QFrame#feedbackToast QLabel#toastTitle { font-weight: bold; }
QFrame#feedbackToast QLabel#toastExplanation { color: #e3eeff; font-style: italic; }
QFrame#feedbackToast QPushButton { background: white; color: #0d47a1; border-radius: 5px;
    padding: 4px 14px; font-weight: bold; }
QFrame#feedbackToast QPushButton#toastIgnore { background: #bbd4fb; }
QFrame#feedbackToast QPushButton#toastOff { background: transparent; color: #e3eeff; font-weight: normal;
    text-decoration: underline; padding: 4px 2px; }
"""


class FeedbackToast(QFrame):
    #: (feedback_id, accepted)
    decided = pyqtSignal(int, bool)
    #: the person turned pop-ups off for the episode
    popups_off = pyqtSignal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("feedbackToast")
        self.setStyleSheet(STYLE)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.title = QLabel(objectName="toastTitle")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.explanation = QLabel(objectName="toastExplanation")
        self.explanation.setWordWrap(True)
        for label in (self.title, self.text, self.explanation):  # a model's words, shown as written
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.accept_button = QPushButton("Accept  (Enter)")
        self.ignore_button = QPushButton("Ignore  (Esc)", objectName="toastIgnore")
        self.close_button = QPushButton("OK")
        self.off_button = QPushButton("No more pop-ups", objectName="toastOff")
        self.off_button.setToolTip("Stop showing suggestions for the rest of this episode. Suggestions to a seat "
                                   "you play are then declined for you (the history says Ignored).")
        self.off_button.clicked.connect(self.popups_off.emit)
        for b in (self.accept_button, self.ignore_button, self.close_button, self.off_button):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the world view
            b.setCursor(Qt.CursorShape.PointingHandCursor)
        self.accept_button.clicked.connect(lambda: self._decide(True))
        self.ignore_button.clicked.connect(lambda: self._decide(False))
        self.close_button.clicked.connect(self.dismiss)
        buttons = QHBoxLayout()
        buttons.addWidget(self.off_button)
        buttons.addStretch(1)
        buttons.addWidget(self.ignore_button)
        buttons.addWidget(self.accept_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.addWidget(self.title)
        layout.addWidget(self.text)
        layout.addWidget(self.explanation)
        layout.addLayout(buttons)
        self.feedback: FeedbackEvent | None = None
        self.awaiting_decision = False
        #: what the box must not cover, in its parent's coordinates (the window sets it)
        self.keep_clear: Callable[[], list[QRect]] = lambda: []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        self.hide()

    def show_feedback(self, feedback: FeedbackEvent, *, ask: bool, seconds: float = 6.0,
                      status: str | None = None, world: Any = None) -> None:
        """Show ``feedback``; with ``ask`` the recipient (a human seat) accepts or ignores it,
        otherwise the toast goes away by itself after ``seconds``."""
        self.feedback = feedback
        self.awaiting_decision = ask
        self.title.setText(f"Feedback for {feedback.target}  ·  from {feedback.facilitator}  ·  step {feedback.tick}")
        # places in words ("the onion on the left counter of the west room"; the map rings them)
        self.text.setText(feedback_words(world, feedback.feedback, feedback.text))
        self.explanation.setText(explanation_words(world, feedback.explanation))
        self.explanation.setVisible(bool(feedback.explanation))
        self.accept_button.setVisible(ask)
        self.ignore_button.setVisible(ask)
        self.close_button.setVisible(not ask)
        self.close_button.setText(f"OK  ({status})" if status else "OK")
        self._timer.stop()
        if not ask and seconds > 0:
            self._timer.start(int(seconds * 1000))
        self.place()
        self.show()
        self.raise_()

    def place(self) -> None:
        """At the top centre, unless that covers what the player needs (``keep_clear``: their
        own agent, the cells highlighted for their move): then the first of the bottom centre,
        the corners and the sides that covers none of it, else the one that covers least."""
        parent = self.parentWidget()
        if parent is None:
            return
        width = min(560, max(260, parent.width() - 40))
        self.setFixedWidth(width)
        self.adjustSize()
        w, h = parent.width(), parent.height()
        bottom = max(14, h - self.height() - 14)
        spots = [((w - width) // 2, 14), ((w - width) // 2, bottom), (14, 14), (w - width - 14, 14),
                 (14, bottom), (w - width - 14, bottom), (14, max(14, (h - self.height()) // 2)),
                 (w - width - 14, max(14, (h - self.height()) // 2))]
        avoid = self.keep_clear()

        def covered(spot: tuple[int, int]) -> int:
            box = QRect(max(0, spot[0]), spot[1], width, self.height())
            return sum(box.intersected(r).width() * box.intersected(r).height() for r in avoid
                       if box.intersects(r))

        x, y = min(spots, key=covered)  # the first that covers nothing, in the order above
        self.move(max(0, x), y)

    def _decide(self, accept: bool) -> None:
        if not self.awaiting_decision or self.feedback is None:
            return
        fid = self.feedback.feedback_id
        self.awaiting_decision = False
        self.hide()
        self.decided.emit(fid, accept)

    def accept_feedback(self) -> None:
        self._decide(True)

    def ignore_feedback(self) -> None:
        self._decide(False)

    def dismiss(self) -> None:
        if self.awaiting_decision:
            return  # a person must answer: the seat waits for the decision
        self._timer.stop()
        self.hide()


# ---------------------------------------------------------------------- cards: summary and hints

CARD_STYLE = """
QFrame#infoCard { background: #fdfdfd; border: 2px solid #1e6eeb; border-radius: 10px; }
QFrame#infoCard QLabel { color: #1f2430; background: transparent; }
QFrame#infoCard QLabel#cardTitle { font-weight: bold; font-size: 15px; color: #0d47a1; }
QFrame#infoCard QPushButton { padding: 4px 12px; }
QFrame#infoCard QPushButton#cardClose { border: none; font-weight: bold; padding: 0 6px; }
"""


class InfoCard(QFrame):
    """A card over the world view with a title, a few lines and buttons: the end-of-episode
    summary and the first-run hint. Not modal: the window goes on while it shows."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("infoCard")
        self.setStyleSheet(CARD_STYLE)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.title = QLabel(objectName="cardTitle")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        close = QPushButton("×", objectName="cardClose")
        close.setToolTip("close (the episode stays as it is)")
        close.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        close.clicked.connect(self.hide)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.buttons = QHBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 10, 12, 12)
        layout.addLayout(head)
        layout.addWidget(self.body)
        layout.addLayout(self.buttons)
        self.kind = ""
        self.button_widgets: dict[str, QPushButton] = {}
        self.hide()

    def show_card(self, kind: str, title: str, body: str,
                  buttons: Sequence[tuple[str, str, Callable[[], Any]]] = ()) -> None:
        """Show ``title`` and ``body`` (rich text) with buttons (label, tooltip, action)."""
        self.kind = kind
        self.title.setText(title)
        self.body.setText(body)
        while self.buttons.count():
            item = self.buttons.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.button_widgets = {}
        self.buttons.addStretch(1)
        for label, tip, action in buttons:
            button = QPushButton(label)
            button.setToolTip(tip)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(lambda _c=False, a=action: a())
            self.buttons.addWidget(button)
            self.button_widgets[label.replace("&", "")] = button
        self.place()
        self.show()
        self.raise_()

    def place(self) -> None:
        parent = self.parentWidget()
        if parent is None:
            return
        width = min(520, max(260, parent.width() - 40))
        self.setFixedWidth(width)
        # wrapped lines need the height for this width (adjustSize alone cuts the last ones off)
        margins = self.layout().contentsMargins()
        inner = width - margins.left() - margins.right()
        spacing = max(0, self.layout().spacing())
        buttons = max((b.sizeHint().height() for b in self.button_widgets.values()), default=0)
        height = (margins.top() + margins.bottom() + self.title.heightForWidth(inner - 40) + spacing
                  + self.body.heightForWidth(inner) + (spacing + buttons if buttons else 0) + 4)
        self.setFixedHeight(height)
        self.move((parent.width() - width) // 2, max(10, (parent.height() - self.height()) // 2))


#: outcome fields in words (others: the field's name with spaces)
OUTCOME_WORDS = {"pass_at_1": "pass@1 (first submissions that pass)", "final_pass": "functions passing at the end",
                 "tests_passed": "hidden tests passed", "sat_out": "turns sat out"}
#: outcome fields that are shares of a whole (shown as percentages)
SHARES = ("pass", "rate", "share", "fraction", "accuracy")


def outcome_value(key: str, value: Any) -> str:
    """An outcome value for people: shares as percentages, other numbers rounded, booleans as yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if 0.0 <= value <= 1.0 and any(word in key for word in SHARES):
            return f"{value:.0%}"
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def episode_summary(timeline: Any) -> tuple[str, list[str]]:
    """(title, lines) of a finished episode in plain words, for any world: who reached what and
    when, how long it took, and the facilitator's feedback (sent, accepted, completed)."""
    outcome = dict(timeline.outcome.outcome) if timeline.outcome is not None else {}
    world = timeline.world
    if "turns" in outcome and ("winners" in outcome or "ticks" not in outcome):  # games count turns
        ticks, unit = outcome["turns"], "turn"
    else:
        ticks, unit = outcome.get("ticks", timeline.num_steps), "tick"
    unit += "" if ticks == 1 else "s"
    lines: list[str] = []
    if outcome.get("stopped"):
        title = f"Episode stopped after {timeline.num_steps} steps"
    elif outcome.get("winners") is not None:
        winners = list(outcome.get("winners") or [])
        title = (f"{' and '.join(winners)} won" if winners else "Nobody won") + f" after {ticks} {unit}"
    elif isinstance(outcome.get("winner"), str):  # a judged contest: one side won, or a tie
        winner = outcome["winner"]
        title = (f"Tie after {ticks} {unit}" if winner == "tie" else f"{winner.capitalize()} won after {ticks} {unit}")
    elif outcome.get("success") is True:
        title = f"Solved in {ticks} {unit}"
    elif outcome.get("success") is False:
        title = f"Not solved ({ticks} {unit})"
    else:
        title = f"Episode over after {timeline.num_steps} steps"
    rounds = outcome.get("rounds")
    if isinstance(rounds, int) and rounds > 1 and "round_outcomes" in outcome and not outcome.get("stopped"):
        # task rounds: the last one's
        title = f"Round {rounds} of {rounds}: {title[:1].lower()}{title[1:]}"
        for k, ended in enumerate(outcome.get("round_outcomes") or [], start=1):
            if isinstance(ended, dict):
                verdict = {True: "solved", False: "not solved"}.get(ended.get("success"), "over")
                took = ended.get("ticks")
                lines.append(f"round {k}: {verdict}" + (f" in {took} ticks" if isinstance(took, int) else ""))
    goal_tick = outcome.get("goal_tick")
    if isinstance(goal_tick, dict):
        for agent in world.agents:
            reached = goal_tick.get(agent)
            lines.append(f"{agent} reached its goal at tick {reached}" if reached is not None
                         else f"{agent} did not reach its goal")
    elif isinstance(outcome.get("winners"), list):
        for agent in world.agents:
            lines.append(f"{agent} {'reached its target' if agent in outcome['winners'] else 'did not reach its target'}")
    else:
        plain = [(k, v) for k, v in outcome.items() if isinstance(v, (int, float, str, bool))
                 and k not in ("success", "stopped", "ticks", "turns", "winner")]
        lines += [f"{OUTCOME_WORDS.get(k, k.replace('_', ' '))}: {outcome_value(k, v)}" for k, v in plain[:6]]
    records = list(timeline.feedback.values())
    if records:
        final = [r.status_at(10**9) for r in records]
        accepted = sum(1 for r in records if any(s == "accepted" for _, s in r.statuses))
        lines.append(f"feedback: {len(records)} sent, {accepted} accepted, {final.count('completed')} completed, "
                     f"{final.count('ignored')} ignored")
    elif any(isinstance(e, StepEvent) for e in timeline.events[:1]) or timeline.num_steps:
        lines.append("no feedback was sent")
    return title, lines


__all__ = ["FeedbackToast", "InfoCard", "episode_summary"]
