"""The facilitator's feedback as a blue pop-up box over the world (as in the ProToM human
study): the suggestion, its explanation, and for a human recipient Accept / Ignore.
A toast, not a modal dialog: the game and the keyboard go on while it shows."""

from __future__ import annotations

from PyQt6.QtCore import Qt, QTimer, pyqtSignal
from PyQt6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from sim.events import FeedbackEvent

STYLE = """
QFrame#feedbackToast { background: #1e6eeb; border: 2px solid #0d47a1; border-radius: 10px; }
QFrame#feedbackToast QLabel { color: white; background: transparent; }
QFrame#feedbackToast QLabel#toastTitle { font-weight: bold; }
QFrame#feedbackToast QLabel#toastExplanation { color: #e3eeff; font-style: italic; }
QFrame#feedbackToast QPushButton { background: white; color: #0d47a1; border-radius: 5px;
    padding: 4px 14px; font-weight: bold; }
QFrame#feedbackToast QPushButton#toastIgnore { background: #bbd4fb; }
"""


class FeedbackToast(QFrame):
    #: (feedback_id, accepted)
    decided = pyqtSignal(int, bool)

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
        self.accept_button = QPushButton("Accept  (Enter)")
        self.ignore_button = QPushButton("Ignore  (Esc)", objectName="toastIgnore")
        self.close_button = QPushButton("OK")
        for b in (self.accept_button, self.ignore_button, self.close_button):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the world view
            b.setCursor(Qt.CursorShape.PointingHandCursor)
        self.accept_button.clicked.connect(lambda: self._decide(True))
        self.ignore_button.clicked.connect(lambda: self._decide(False))
        self.close_button.clicked.connect(self.dismiss)
        buttons = QHBoxLayout()
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
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        self.hide()

    def show_feedback(self, feedback: FeedbackEvent, *, ask: bool, seconds: float = 6.0,
                      status: str | None = None) -> None:
        """Show ``feedback``; with ``ask`` the recipient (a human seat) accepts or ignores it,
        otherwise the toast goes away by itself after ``seconds``."""
        self.feedback = feedback
        self.awaiting_decision = ask
        self.title.setText(f"Feedback for {feedback.target}  ·  from {feedback.facilitator}  ·  step {feedback.tick}")
        self.text.setText(feedback.text)
        self.explanation.setText(feedback.explanation)
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
        parent = self.parentWidget()
        if parent is None:
            return
        width = min(560, max(260, parent.width() - 40))
        self.setFixedWidth(width)
        self.adjustSize()
        self.move((parent.width() - width) // 2, 14)

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
