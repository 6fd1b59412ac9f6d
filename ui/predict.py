"""Predict, then see: the teaching mode (Playback > Predict, then see; Ctrl+Shift+P).

Where a scenario declares teaching questions (``sim/questions.py``), the live session waits before
the step a question is due at (``SessionRunner.hold_while``), and a strip under the map asks the
viewer, with the choices as buttons (keys 1..n). The answer goes into the episode's stream as a
``PredictionEvent`` (the recording keeps it), play goes on, and once the stream shows what
happened the card says whether the prediction matched, and what each order of Theory of Mind
predicted, from the minds of the episode. A replay shows the recorded answers' results, for the
questions its recording's header keeps (``Timeline.questions``).

Everything the card says is derived from the timeline's events; the window only lays it out."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PyQt6.QtCore import QObject, Qt
from PyQt6.QtGui import QKeySequence, QShortcut
from PyQt6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from sim.events import PredictionEvent
from sim.questions import Question, Result, answers, ask_tick, due, ordinal, result
from ui.session.timeline import LiveTimeline, Timeline

#: the status line's hint when a scenario with questions starts while the mode is off
QUESTIONS_HINT = "this scenario asks teaching questions: Playback > Predict, then see (Ctrl+Shift+P)"


class PredictCard(QFrame):
    """A non-modal strip under the map (nothing on the map is covered): a question with its
    choices as buttons, or a result. Keys 1..n answer while a question shows."""

    def __init__(self, window: QWidget) -> None:
        super().__init__()
        self.setObjectName("predictCard")
        self.setStyleSheet("#predictCard { background: #fffde7; border-top: 2px solid #f9a825; }"
                           "#predictTitle { font-weight: bold; color: #6d4c00; }")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.title = QLabel(objectName="predictTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setToolTip("the teaching mode (Playback > Predict, then see); Ctrl+Shift+P turns it off")
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.RichText)
        close = self.close_button = QPushButton("×")
        close.setFlat(True)
        close.setFixedWidth(28)
        close.setToolTip("close (Predict, then see stays on; Ctrl+Shift+P turns it off)")
        close.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        close.clicked.connect(self.dismiss)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.choices = QHBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 4, 6, 8)
        layout.setSpacing(4)
        layout.addLayout(head)
        layout.addWidget(self.body)
        layout.addLayout(self.choices)
        self.buttons: list[QPushButton] = []
        #: what the card shows: ("question" | "waiting" | "result", question id), or None
        self.showing: tuple[str, str] | None = None
        self.dismissed: set[tuple[str, str]] = set()
        self._answer: Callable[[int], None] | None = None
        self.shortcuts = []
        for n in range(1, 10):
            shortcut = QShortcut(QKeySequence(str(n)), window)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.setEnabled(False)
            shortcut.activated.connect(lambda n=n: self._pick(n - 1))
            self.shortcuts.append(shortcut)
        self.hide()

    def show_question(self, q: Question, answer: Callable[[int], None]) -> None:
        self._answer = answer
        self._fill("question", q.id, "Predict, then see — play waits for your prediction (a button or its number)",
                   f"<b>{html.escape(q.text)}</b>", [f"{i + 1}.  {c.text}" for i, c in enumerate(q.choices)])

    def show_waiting(self, q: Question, choice: str) -> None:
        self._fill("waiting", q.id, "Predict, then see", f"<b>{html.escape(q.text)}</b><br>You predicted: "
                   f"<b>{html.escape(choice)}</b>. Playing on to see…", [])

    def show_result(self, r: Result, seats: Mapping[str, str] | None = None) -> None:
        self._fill("result", r.question.id, "Predict, then see: what happened", result_html(r, seats), [])

    def _fill(self, kind: str, qid: str, title: str, body: str, choices: Sequence[str]) -> None:
        if self.showing == (kind, qid) and self.isVisible():
            return
        if (kind, qid) in self.dismissed:
            self.hide_card()
            return
        self.showing = (kind, qid)
        self.title.setText(title)
        self.title.setWordWrap(True)
        self.body.setText(body)
        # a question is not closed, it is answered (or the mode turned off): play waits for it
        self.close_button.setVisible(kind != "question")
        for button in self.buttons:
            self.choices.removeWidget(button)
            button.hide()
            button.deleteLater()
        self.buttons = []
        for i, text in enumerate(choices):
            button = QPushButton(text)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setStyleSheet("padding: 4px 10px;")
            button.setToolTip(f"predict this (key {i + 1})")
            button.clicked.connect(lambda _c=False, i=i: self._pick(i))
            self.choices.addWidget(button)
            self.buttons.append(button)
        for n, shortcut in enumerate(self.shortcuts):
            shortcut.setEnabled(n < len(choices))
        self.show()

    def _pick(self, index: int) -> None:
        if self.showing is not None and self.showing[0] == "question" and index < len(self.buttons) \
                and self._answer is not None:
            self._answer(index)

    def dismiss(self) -> None:
        if self.showing is not None:
            self.dismissed.add(self.showing)
        self.hide_card()

    def hide_card(self) -> None:
        self.showing = None
        for shortcut in self.shortcuts:
            shortcut.setEnabled(False)
        self.hide()


def result_html(r: Result, seats: Mapping[str, str] | None = None) -> str:
    """The result card's text: the question, the viewer's prediction, what happened, each order,
    the scenario's explanation and who played (``seats``: agent -> spec; what happened depends on
    them: a level-0 Anne, ``cobel:order=0``, does not tell Sally)."""
    q, seen = r.question, r.seen
    mark = {True: " <span style='color:#1b5e20'>✓ matched</span>", False: " <span style='color:#b71c1c'>✗ did not "
            "match</span>", None: ""}
    lines = [f"<b>{html.escape(q.text)}</b>"]
    lines.append(f"You predicted: <b>{html.escape(r.answer.text)}</b>{mark[r.right]}" if r.answer is not None
                 else "You gave no prediction.")
    happened = html.escape(seen.choice.text) if seen.choice is not None else "none of the choices"
    why = html.escape(seen.detail) + (f"; {html.escape(', '.join(seen.messages))}" if seen.messages else "")
    lines.append(f"{html.escape(q.says)}: <b>{happened}</b> <span style='color:#555'>({why})</span>")
    for p in r.orders:
        said = html.escape(p.choice.text) if p.choice is not None else "cannot tell"
        right = p.choice is not None and seen.choice is not None and p.choice.id == seen.choice.id
        lines.append(f"A {ordinal(p.order)}-order mind predicts <b>{said}</b> "
                     f"<span style='color:#555'>({html.escape(p.basis)})</span>{' ✓' if right else ''}")
    if q.explain:
        lines.append(f"<span style='color:#333'>{html.escape(q.explain)}</span>")
    if seats:
        played = ", ".join(f"{agent}: {spec}" for agent, spec in seats.items())
        lines.append(f"<span style='color:#555'>Played by {html.escape(played)}; to try other seats, take over "
                     "from the start (Home, then T)</span>")
    return "<br>".join(lines)


class PredictController(QObject):
    """The mode of a MainWindow ``w``: its questions, the hold on the live session, the card."""

    def __init__(self, w: Any) -> None:
        super().__init__(w)
        self.w, self.model = w, w.model
        self.enabled = False
        #: the questions of the episode shown (``Timeline.questions``: those it was played with)
        self.questions: tuple[Question, ...] = ()
        #: questions answered in this window (id -> the choice's words); the event may still be on its
        #: way through the worker
        self.sent: dict[str, str] = {}
        self.card = PredictCard(w)
        # under the map, above the action bar and playback: the map shrinks, nothing on it is covered
        w.centralWidget().layout().insertWidget(1, self.card)
        self.model.subscribe(self._on_model_changed)

    # ------------------------------------------------------------------ the mode

    def set_enabled(self, on: bool) -> None:
        self.enabled = bool(on)
        self._hold()
        self.refresh()
        if self.enabled and not self.questions and self.model.timeline is not None:
            self.w.statusBar().showMessage("Predict, then see: this episode has no teaching questions", 5000)

    def _on_model_changed(self, change: str) -> None:
        if change == "timeline":
            self._load(self.model.timeline)
        if change in ("timeline", "cursor", "extended", "playing"):
            self.refresh()

    def _load(self, timeline: Timeline | None) -> None:
        self.sent = {}
        self.card.dismissed = set()
        self.card.hide_card()
        self.questions = timeline.questions if timeline is not None else ()
        self._hold()
        bar = self.w.statusBar()
        if self.questions and not self.enabled and timeline is not None and timeline.live:
            bar.showMessage(QUESTIONS_HINT, 8000)
        elif bar.currentMessage() == QUESTIONS_HINT:  # said of the scenario shown before
            bar.clearMessage()

    def _hold(self) -> None:
        runner = self.model.runner
        if runner is None:
            return
        if not self.questions:
            runner.hold_while(None)
            return
        questions, world = self.questions, self.model.timeline.world
        # a take-over's timeline starts with the earlier episode's events (its steps, its answers),
        # which its new Session does not hold: the worker reads both, as the card does
        earlier = list(self.model.timeline.events)

        def waiting_for_answer(session: Any) -> bool:  # worker thread: reads the Session it runs
            return self.enabled and due(questions, earlier + session.events, session.tick,
                                        world.active_agents(session.state)) is not None

        runner.hold_while(waiting_for_answer)

    # ------------------------------------------------------------------ the card

    def current(self) -> tuple[str, Question, Any] | None:
        """What the card should show: ("question", q, None), ("waiting", q, choice text) or
        ("result", q, Result), or None."""
        timeline = self.model.timeline
        if not self.enabled or not self.questions or timeline is None:
            return None
        events = timeline.events
        if isinstance(timeline, LiveTimeline) and self.model.runner is not None:
            tick = timeline.num_steps
            asked = due(self.questions, events, tick, timeline.world.active_agents(timeline.state_at(tick)))
            if asked is not None and asked.id not in self.sent:
                return "question", asked, None
        shown = timeline.events_until(self.model.cursor)
        given = answers(events)
        for q in reversed(self.questions):
            at = ask_tick(q, shown)
            if at is None or self.model.cursor < at:
                continue
            r = result(q, shown, lambda tick, obj: timeline.world.locate(timeline.state_at(tick), obj))
            if r is not None:
                return "result", q, r
            if q.id in given:
                return "waiting", q, given[q.id].choice_text or given[q.id].choice
            if q.id in self.sent:
                return "waiting", q, self.sent[q.id]
        return None

    def refresh(self) -> None:
        found = self.current()
        if found is None:
            self.card.hide_card()
            return
        kind, q, data = found
        if kind == "question":
            self.card.show_question(q, lambda index, q=q: self.answer(q, index))
        elif kind == "waiting":
            self.card.show_waiting(q, data)
        else:
            self.card.show_result(data, self.model.seat_specs)

    def answer(self, q: Question, index: int) -> None:
        """The viewer chose ``q.choices[index]``: into the stream, and play on."""
        runner, timeline = self.model.runner, self.model.timeline
        if runner is None or timeline is None or q.id in self.sent:
            return
        choice = q.choices[index]
        self.sent[q.id] = choice.text
        at = ask_tick(q, timeline.events)
        runner.record(PredictionEvent(tick=at if at is not None else timeline.num_steps, question=q.id,
                                      choice=choice.id, text=q.text, choice_text=choice.text))
        self.card.show_waiting(q, choice.text)
        if not self.model.playing:
            self.w.set_playing(True)
