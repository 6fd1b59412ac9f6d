"""A person's alignment self-evaluation in a team episode (seed 000, Appendix A), in the
Alignment tab: for every other agent, "did they act as you expected?" on a 5-point scale
(1 not at all = phi -1 ... 5 exactly = +1, ``agents.human.seat.RATING_SCORES``), or not rated.

- The ratings go to the human seat at once (``HumanAgent.rate``) and are remembered until the
  person changes them; the seat reports the ratings in force at the end of every round of the
  team mechanism shown (its ``round_steps``, read from the episode's header), and the mechanism
  reads them as the person's row of phi. Nothing rated: the row stays unknown.
- The person is asked at the end of each team round: the strip's question names the round and
  turns amber until the person rates or answers; after the first round the status bar says
  where to rate (once, and only when it is not saying something else). Play never waits.
- Folded, the strip is one line: the question (amber when a round ended unanswered) and the
  ratings in force. Ctrl+R (the window's action) or its *Rate…* button unfolds it: a line per
  agent, teammates first, with the buttons 1-5 and "–" (not rated). Keys: Up/Down choose an
  agent, 1-5 rate it (the next one is chosen), Left/Right lower or raise a rating, 0, Delete or
  Backspace leave it unrated, Enter keeps the ratings for this round and Escape goes back; both
  fold the strip and return the keys to the map. Every button can be clicked.

Shown only while a person plays a live team episode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QColor, QKeyEvent
from PyQt6.QtWidgets import QComboBox, QFrame, QGridLayout, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from agents.human.seat import RATING_SCORES, RATING_WORDS
from sim.rounds import TASK_ROUND
from sim.snapshots import TeamState, read_snapshot

TEAM_STATE = TeamState.kind
ASKING = "#fff3cd"  # the question's background while a round's answer is awaited
DIGITS = {getattr(Qt.Key, f"Key_{k}"): k for k in RATING_SCORES}
CLEAR_KEYS = (Qt.Key.Key_0, Qt.Key.Key_Delete, Qt.Key.Key_Backspace, Qt.Key.Key_Minus)


def round_steps_of(header: Mapping[str, Any], owner: str | None) -> int | str:
    """The round length of mechanism ``owner`` as the episode's header describes it: world steps, or
    ``"task"`` (each task round); 1 if unsaid."""
    for entry in header.get("mechanisms") or []:
        if isinstance(entry, Mapping) and entry.get("name") == owner:
            steps = entry.get("round_steps")
            if steps == TASK_ROUND:
                return TASK_ROUND
            return steps if isinstance(steps, int) and not isinstance(steps, bool) and steps >= 1 else 1
    return 1


class _Row:
    """One agent's line: name, five rating buttons, a "not rated" button and the phi it gives."""

    def __init__(self, strip: "RatingStrip", other: str, grid: QGridLayout, r: int) -> None:
        self.other = other
        self.name = QLabel(other)
        self.name.setMinimumWidth(60)
        grid.addWidget(self.name, r, 0)
        self.buttons: dict[int, QToolButton] = {}
        for k in RATING_SCORES:
            button = QToolButton()
            button.setText(str(k))
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setToolTip(f"{k}: {RATING_WORDS[k]} as you expected (phi {RATING_SCORES[k]:+g})")
            button.clicked.connect(lambda _c=False, k=k: strip.rate(other, k, advance=True))
            grid.addWidget(button, r, k)
            self.buttons[k] = button
        self.clear = QToolButton()
        self.clear.setText("–")
        self.clear.setAutoRaise(True)
        self.clear.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.clear.setToolTip(f"not rated: your phi about {other} stays unknown (0, Delete)")
        self.clear.clicked.connect(lambda _c=False: strip.rate(other, None, advance=False))
        grid.addWidget(self.clear, r, len(RATING_SCORES) + 1)
        self.value = QLabel("?")
        self.value.setMinimumWidth(42)
        grid.addWidget(self.value, r, len(RATING_SCORES) + 2)
        self.widgets = [self.name, *self.buttons.values(), self.clear, self.value]

    def show(self, rating: int | None, teammate: bool, selected: bool, color: tuple[int, int, int] | None) -> None:
        for k, button in self.buttons.items():
            button.setChecked(k == rating)
        mark = "▸ " if selected else "   "
        swatch = QColor(*color).name() if color is not None else "#9aa0aa"
        weight = "bold" if teammate else "normal"
        ink = "#282c34" if teammate else "#6e7480"
        self.name.setText(f"<span style='color:{swatch}'>■</span> <span style='font-weight:{weight};color:{ink}'>"
                          f"{mark}{self.other}</span>")
        self.name.setToolTip(f"{self.other}: {'your teammate' if teammate else 'not in your team now'}")
        self.value.setText("?" if rating is None else f"{RATING_SCORES[rating]:+.2f}")
        self.value.setToolTip("unknown: not rated" if rating is None else
                              f"rated {rating} ({RATING_WORDS[rating]}): phi {RATING_SCORES[rating]:+g}")

    def remove(self) -> None:
        for widget in self.widgets:
            widget.setParent(None)
            widget.deleteLater()


class RatingStrip(QFrame):
    """The rating input (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolTip("Your own alignment scores (seed 000, Appendix A): did each agent act as you expected? "
                        "They count at the end of every team round, like the agents' predictions")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.setSpacing(2)
        top = QHBoxLayout()
        self.prompt = QLabel()
        self.prompt.setWordWrap(True)
        top.addWidget(self.prompt, 1)
        self.seat_box = QComboBox()
        self.seat_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.seat_box.setToolTip("Several people play: whose ratings these are")
        self.seat_box.currentTextChanged.connect(lambda _: self._fill())
        self.seat_box.hide()
        top.addWidget(self.seat_box)
        self.toggle = QToolButton()
        self.toggle.setText("Rate…")
        self.toggle.setCheckable(True)
        self.toggle.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.toggle.setToolTip("Show or hide the ratings (Ctrl+R: with the keys)")
        self.toggle.clicked.connect(self._toggled)
        top.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        self.body = QWidget()
        self.grid = QGridLayout(self.body)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(2)
        self.grid.setVerticalSpacing(0)
        self.grid.setColumnStretch(len(RATING_SCORES) + 3, 1)  # the buttons stay next to the names
        layout.addWidget(self.body)
        self.keys = QLabel("<small>↑/↓ choose, 1–5 rate (1 not at all … 5 exactly), 0 not rated, Enter keep, "
                           "Esc back to the map</small>")
        self.keys.setStyleSheet("color: #6e7480")
        self.keys.setWordWrap(True)  # else its one line widens the Minds dock past a laptop screen
        layout.addWidget(self.keys)
        self.body.hide()
        self.keys.hide()
        self.window_: Any = None
        self.rows: dict[str, _Row] = {}
        self.order: list[str] = []
        self.teams: dict[str, list[str]] = {}  # the latest teams of the mechanism shown
        self.teammates: list[str] = []
        self.colors: dict[str, tuple[int, int, int]] = {}
        self.selected = 0
        self.round = 0  # the latest round the team mechanism finished
        self.answered = 0  # the latest round the person answered (rated or kept the ratings)
        self.round_steps: int | str = 1
        self.hinted = False
        self._episode: Any = None
        self.hide()

    # ------------------------------------------------------------------ state

    @property
    def seat(self) -> str | None:
        return self.seat_box.currentText() or None

    def _agent(self) -> Any:
        humans = self.window_.model.humans if self.window_ is not None else {}
        return humans.get(self.seat) if self.seat else None

    def ratings(self) -> dict[str, int]:
        agent = self._agent()
        return agent.ratings if agent is not None else {}

    @property
    def open(self) -> bool:
        """True while the rows of buttons are shown (Ctrl+R, or the Rate… button)."""
        return not self.body.isHidden()

    def set_open(self, shown: bool) -> None:
        self.body.setVisible(shown)
        self.keys.setVisible(shown)
        self.toggle.setChecked(shown)
        self._fill()

    def _toggled(self, checked: bool) -> None:
        self.set_open(checked)
        if checked:
            self.setFocus(Qt.FocusReason.MouseFocusReason)

    def asking(self) -> bool:
        """True while the latest round's answer is awaited (the question is highlighted)."""
        return self.round > self.answered

    def prompt_text(self) -> str:
        return self.prompt.property("plain") or ""

    def row_texts(self) -> list[tuple[str, str]]:
        """(agent, phi shown) per line, in the order shown."""
        return [(a, self.rows[a].value.text()) for a in self.order]

    def selected_agent(self) -> str | None:
        return self.order[self.selected] if self.order else None

    # ------------------------------------------------------------------ from the panel

    def bind_window(self, window: Any) -> None:
        self.window_ = window

    def update_from(self, timeline: Any, owner: str | None, teams: Mapping[str, Sequence[str]],
                    colors: Mapping[str, tuple[int, int, int]]) -> None:
        """Follow the live episode: who is rated (teammates first), the round length, the rounds."""
        window = self.window_
        seats = window.model.humans if window is not None else {}
        humans = [a for a in timeline.world.agents if a in seats] if timeline is not None else []
        live = (timeline is not None and getattr(timeline, "live", False) and window is not None
                and window.model.runner is not None and timeline.outcome is None)
        if not live or not humans or owner is None:
            self.hide()
            return
        if self._episode is not timeline:  # a new episode: nothing answered or hinted yet
            self._episode, self.round, self.answered, self.hinted, self.selected = timeline, 0, 0, False, 0
        if [self.seat_box.itemText(i) for i in range(self.seat_box.count())] != humans:
            self.seat_box.blockSignals(True)
            self.seat_box.clear()
            self.seat_box.addItems(humans)
            self.seat_box.blockSignals(False)
        self.seat_box.setVisible(len(humans) > 1)
        self.round_steps = round_steps_of(timeline.header, owner)
        for agent in humans:
            seat = window.model.humans[agent]
            if seat.rating_round != self.round_steps:
                seat.set_rating_round(self.round_steps)
        latest = timeline.belief_at(owner, TEAM_STATE, timeline.num_steps)
        state = read_snapshot(TeamState, latest.data) if latest is not None else None
        rounds = state.rounds if state is not None else None
        if rounds is not None and rounds > self.round:
            self.round = rounds
            self._hint()
        self.teams = {t: list(members) for t, members in teams.items()}
        self.colors = {a: colors[t] for t, members in teams.items() if t in colors for a in members}
        self.show()
        self._fill()

    def _hint(self) -> None:
        """Once per episode, after the first round that ends with nothing rated, say where to rate."""
        window = self.window_
        if self.hinted or self.ratings() or window is None:
            return
        self.hinted = True
        bar = window.statusBar()
        if not bar.currentMessage():
            bar.showMessage(f"Round {self.round} ended: did your teammates act as you expected? Rate them in the "
                            "Alignment tab (Ctrl+R), or play on", 6000)

    def _fill(self) -> None:
        me = self.seat
        timeline = self._episode
        if me is None or timeline is None:
            return
        team = next((t for t, members in self.teams.items() if me in members), None)
        self.teammates = [a for a in self.teams.get(team, []) if a != me] if team is not None else []
        others = [a for a in timeline.world.agents if a != me]
        order = [a for a in others if a in self.teammates] + [a for a in others if a not in self.teammates]
        if order != self.order:
            for row in self.rows.values():
                row.remove()
            self.rows = {a: _Row(self, a, self.grid, r) for r, a in enumerate(order)}
            chosen = self.selected_agent()
            self.order = order
            self.selected = order.index(chosen) if chosen in order else 0
        ratings = self.ratings()
        for k, agent in enumerate(order):
            self.rows[agent].show(ratings.get(agent), agent in self.teammates, k == self.selected and self.hasFocus(),
                                  self.colors.get(agent))
        every = ("every task round" if self.round_steps == TASK_ROUND else "every step" if self.round_steps == 1
                 else f"every {self.round_steps} steps")
        rated = " · ".join(f"{a} {'?' if ratings.get(a) is None else format(RATING_SCORES[ratings[a]], '+.2f')}"
                           for a in order)
        if self.asking():
            text = f"Round {self.round} ended — did they act as {me} expected? {rated}"
            self.prompt.setStyleSheet(f"background: {ASKING}; padding: 1px")
        else:
            text = f"{me}'s ratings, counted at the end of each round ({every}) until changed: {rated}"
            self.prompt.setStyleSheet("padding: 1px")
        if not self.open:
            text += " — Ctrl+R to rate"
        self.prompt.setProperty("plain", text)
        self.prompt.setText(text)

    # ------------------------------------------------------------------ the person's input

    def rate(self, other: str, rating: int | None, advance: bool) -> None:
        """Rate ``other`` (None: not rated) for the seat shown; ``advance`` chooses the next agent."""
        agent = self._agent()
        if agent is None:
            return
        agent.rate(other, rating)
        self.answered = self.round
        if other in self.order:
            self.selected = self.order.index(other)
            if advance and self.selected + 1 < len(self.order):
                self.selected += 1
        window = self.window_
        if window is not None:
            words = "not rated (unknown)" if rating is None else f"{rating} — {RATING_WORDS[rating]}"
            window.statusBar().showMessage(f"{self.seat} rates {other}: {words}; counted at the end of the round",
                                           3000)
        self._fill()

    def take_keys(self) -> bool:
        """Give the strip the keyboard (Ctrl+R); False when there is nothing to rate."""
        if self.isHidden() or not self.order:
            return False
        self.set_open(True)
        self.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return True

    def _back_to_map(self) -> None:
        self.set_open(False)
        window = self.window_
        if window is not None and hasattr(window, "focus_view"):
            window.focus_view()

    def focusInEvent(self, event: Any) -> None:
        super().focusInEvent(event)
        self._fill()

    def focusOutEvent(self, event: Any) -> None:
        super().focusOutEvent(event)
        self._fill()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        other = self.selected_agent()
        if other is None:
            super().keyPressEvent(event)
            return
        current = self.ratings().get(other)
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            step = -1 if key == Qt.Key.Key_Up else 1
            self.selected = max(0, min(len(self.order) - 1, self.selected + step))
            self._fill()
        elif key in DIGITS:
            self.rate(other, DIGITS[key], advance=True)
        elif key in CLEAR_KEYS:
            self.rate(other, None, advance=False)
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            base = 3 if current is None else current
            value = max(1, min(5, base + (-1 if key == Qt.Key.Key_Left else 1) * (current is not None)))
            self.rate(other, value, advance=False)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.answered = self.round  # the ratings in force are this round's answer
            self._fill()
            self._back_to_map()
        elif key == Qt.Key.Key_Escape:
            self._back_to_map()
        else:
            super().keyPressEvent(event)
