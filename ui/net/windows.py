"""The windows of a networked study: the participant's (``SeatWindow``) and the host's
(``HostWindow``).

A participant's window shows what its ``SeatClient`` was sent and nothing else: pages (consent,
instructions, the questionnaire with one row of scale buttons per item, the reveal), or the game:
their own goal, the assistant's codename, the kitchen drawn by the app's own kitchen view
(``ui.render.kitchen``, its sprites, with the seat's eyes: rooms out of view dimmed, stations out of
view a question mark) from a World and state rebuilt from their frame alone
(``seat_view.seat_world``), the moves, a blue pop-up for a suggestion in plain words with the places
it names ringed on the map (Enter or Follow: follow it; Escape or Ignore: ignore it), a cue saying
whom the game waits for and for how long (the other player, you, or the assistant thinking), and a
banner while paused. Doors, Keys and Gems (fully observable) is drawn by ``DKGCanvas``.
Pages take the keyboard too: Enter presses the page's button; on a questionnaire, 1 to 9 answer the
first statement not yet answered.
"""

from __future__ import annotations

import time
from typing import Any

from PyQt6.QtCore import QPointF, QRectF, Qt, QTimer
from PyQt6.QtGui import QColor, QFont, QKeyEvent, QPainter, QPaintEvent, QPen, QPolygonF
from PyQt6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from study.seat_view import DKG_KEYS, KEY_ACTIONS, dkg_action, seat_world
from ui.net.client import SeatClient
from ui.render.kitchen_beliefs import kitchen_recipe_words

#: Doors, Keys and Gems colours by name (the scenario's legend names them)
DKG_COLORS = {"red": "#d64545", "blue": "#3f6fd8", "yellow": "#e6c229", "green": "#3fa34d", "cyan": "#2bb8c4",
              "pink": "#e27ab8", "orange": "#ee8a2f", "purple": "#8b5bd6", "white": "#f4f4f4", "black": "#202020"}
WALL, FLOOR = "#6b5b4b", "#f4efe6"


class DKGCanvas(QWidget):
    """Draws a Doors, Keys and Gems frame (``seat_view``): walls, doors (a colour; open ones
    hollow), keys (small squares) and gems (diamonds) on the floor, the players with what they hold."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.frame: dict[str, Any] | None = None
        self.setMinimumSize(420, 240)

    def set_frame(self, frame: dict[str, Any]) -> None:
        self.frame = frame
        self.update()

    def paintEvent(self, event: QPaintEvent | None) -> None:  # noqa: N802 - Qt's name
        frame = self.frame
        if frame is None or frame["world"] != "dkg":
            return
        layout = frame["layout"]
        rows, cols = len(layout), max(len(r) for r in layout)
        size = min(self.width() / cols, self.height() / rows)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = QFont()
        font.setPixelSize(max(8, int(size * 0.28)))
        p.setFont(font)
        for r, line in enumerate(layout):
            for c, ch in enumerate(line):
                rect = QRectF(c * size, r * size, size, size)
                p.fillRect(rect, QColor(WALL if ch == "#" else FLOOR))
                p.setPen(QColor("#00000030"))
                p.drawRect(rect)
        for d in frame["doors"]:
            rect = QRectF(d["col"] * size + 2, d["row"] * size + 2, size - 4, size - 4)
            color = QColor(DKG_COLORS.get(d["color"], "#888888"))
            if d["open"]:
                p.setPen(color)
                p.setBrush(Qt.BrushStyle.NoBrush)
            else:
                p.setPen(QColor("#303030"))
                p.setBrush(color)
            p.drawRect(rect)
        for it in frame["items"]:
            x, y = it["col"] * size, it["row"] * size
            p.setPen(QColor("#303030"))
            p.setBrush(QColor(DKG_COLORS.get(it["color"], "#888888")))
            if it["kind"] == "gem":
                p.drawPolygon(QPolygonF([QPointF(x + size / 2, y + size * 0.2), QPointF(x + size * 0.8, y + size / 2),
                                         QPointF(x + size / 2, y + size * 0.8), QPointF(x + size * 0.2, y + size / 2)]))
            else:
                p.drawRect(QRectF(x + size * 0.3, y + size * 0.35, size * 0.4, size * 0.3))
        for k, a in enumerate(frame["agents"]):
            rect = QRectF(a["col"] * size + size * 0.15, a["row"] * size + size * 0.15, size * 0.7, size * 0.7)
            blue = a["name"] == frame["seat"] if frame["seat"] else k == 0
            p.setBrush(QColor("#3a78d8" if blue else "#d8563a"))
            if a["name"] == frame.get("turn"):
                p.setPen(QPen(QColor("#ffc400"), max(2.0, size * 0.08)))
            else:
                p.setPen(Qt.PenStyle.NoPen)
            p.drawEllipse(rect)
            p.setPen(QColor("white"))
            held = "".join(h["color"][:1] + ("*" if h["kind"] == "gem" else "k") for h in a["holds"])
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, a["name"][:1].upper() + (":" + held if held else ""))
        p.end()


class PageView(QWidget):
    """A page: title, text, questionnaire items (one row of scale buttons each) and a button."""

    def __init__(self, window: "SeatWindow") -> None:
        super().__init__(window)
        self.window_ = window
        self.page: dict[str, Any] = {}
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 18px; font-weight: bold")
        self.text = QLabel()
        self.text.setStyleSheet("font-size: 15px")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.items = QWidget()
        self.items_grid = QGridLayout(self.items)
        self.groups: dict[str, QButtonGroup] = {}
        self.button = QPushButton("Continue")
        self.button.clicked.connect(self.submit)
        box = QVBoxLayout(self)
        for w in (self.title, self.text, self.items):
            box.addWidget(w)
        box.addStretch(1)
        box.addWidget(self.button)

    def show_page(self, page: dict[str, Any]) -> None:
        self.page = page
        self.title.setText(page.get("title", ""))
        self.text.setText(page.get("text", ""))
        while self.items_grid.count():
            item = self.items_grid.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()
        self.groups = {}
        scale = page.get("scale")
        if page.get("kind") == "questionnaire" and isinstance(scale, dict):
            points = int(scale["points"])
            self.items_grid.addWidget(QLabel(f"1 = {scale['low']}, {points} = {scale['high']}"), 0, 0, 1, points + 1)
            for r, item in enumerate(page.get("items", []), start=1):
                self.items_grid.addWidget(QLabel(item["text"]), r, 0)
                group = QButtonGroup(self)
                for k in range(1, points + 1):
                    radio = QRadioButton(str(k))
                    group.addButton(radio, k)
                    self.items_grid.addWidget(radio, r, k)
                self.groups[item["id"]] = group
        self.items.setVisible(bool(self.groups))
        self.button.setVisible(page.get("kind") not in ("wait", "done"))
        self.button.setText(page.get("button", "Send answers" if self.groups else "Continue"))

    def choose(self, answers: dict[str, int]) -> None:
        """Tick the scale buttons for ``answers`` (item id -> 1..points), as a person would click them."""
        for item, value in answers.items():
            button = self.groups[item].button(value)
            if button is not None:
                button.setChecked(True)

    def answer_next(self, value: int) -> str | None:
        """Tick ``value`` for the first statement not yet answered (keys 1-9); its id, or None
        when every statement is answered or ``value`` is off the scale."""
        for item, group in self.groups.items():
            if group.checkedId() < 1:
                button = group.button(value)
                if button is None:
                    return None
                button.setChecked(True)
                return item
        return None

    def submit(self) -> None:
        page_id = str(self.page.get("id", ""))
        if self.groups:
            answers = {item: g.checkedId() for item, g in self.groups.items()}
            missing = [k for k, v in answers.items() if v < 1]
            if missing:
                self.window_.say(f"please answer every statement ({len(missing)} left)")
                return
            self.window_.client.answer(page_id, answers)
        else:
            self.window_.client.continue_page(page_id)


DKG_MOVES = ("Arrow keys or W/A/S/D: walk. P: pick up what lies on your cell. U: unlock the door next to "
             "you (with a key of its colour). H: hand what you hold to the other player next to you. "
             "Space: wait. You take turns.<br><small>Legend: diamonds are gems, small squares keys, filled "
             "squares locked doors (hollow: open); you are the blue circle, ringed in gold on your turn.</small>")


KITCHEN_MOVES = ("Arrow keys or W/A/S/D: walk; walking into a counter, cutting board or delivery hatch works it "
                 "(pick up, put down, chop, put on a plate, deliver). Space: wait.<br><small>The green cells are "
                 "where you can walk now. Rooms you cannot see from where you stand are dimmed; a question mark "
                 "is a counter or board you cannot see into. The strip under the kitchen shows each cook, what "
                 "they hold and the dish they want (the other cook's dish is yours to find out).</small>")


def suggestion_places(payload: Any, world: Any) -> dict[str, Any] | None:
    """A kitchen suggestion's data as the kitchen view draws it (who, what, the station it is on,
    where to leave it, for whom), checked against ``world``; None for anything else, so that a
    malformed message from the network draws nothing rather than failing."""
    if not isinstance(payload, dict) or world is None or payload.get("type") not in ("pickup", "pass"):
        return None

    def place(value: Any) -> list[int] | None:
        if (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                for v in value)
                and 0 <= value[0] < world.height and 0 <= value[1] < world.width):
            return [value[0], value[1]]
        return None

    at, agent = place(payload.get("at")), payload.get("agent")
    if at is None or agent not in world.agent_index:
        return None
    shown: dict[str, Any] = {"type": payload["type"], "agent": agent, "at": at, "item": str(payload.get("item", ""))}
    if payload["type"] == "pass":
        if payload.get("to") in world.agent_index:
            shown["to"] = payload["to"]
        via = place(payload.get("via"))
        if via is not None:
            shown["via"] = via
    return shown


def wait_words(seat: str, players: list[str], assistant: str, seconds: int, partner: str = "") -> str:
    """Whom the game waits for, as ``seat``'s cue says it (empty: nobody); ``partner``: the other
    player's name."""
    if assistant:
        return f"{assistant} is thinking... {seconds} s (both moves are in; the game goes on when it is done)"
    others = [p for p in players if p != seat]
    if not players:
        return ""
    if seat in players and others:
        return f"Your move. Waiting for both of you: {seconds} s"
    if seat in players:
        return f"Your move: {partner or 'the other player'} has moved and is waiting for you ({seconds} s)"
    return f"Waiting for {' and '.join(others)} to move... {seconds} s"


class GameView(QWidget):
    """The game: goal and assistant, the board (the app's kitchen view, or the Doors, Keys and Gems
    canvas), the waiting cue, the suggestion pop-up, the pause banner and the moves."""

    def __init__(self, window: "SeatWindow") -> None:
        super().__init__(window)
        from ui.render.worldview import WorldView

        self.window_ = window
        self.header = QLabel()
        self.header.setStyleSheet("font-size: 15px")
        self.header.setWordWrap(True)
        self.banner = QLabel()
        self.banner.setStyleSheet("background: #f6c343; padding: 6px; font-weight: bold")
        self.banner.hide()
        self.wait_cue = QLabel()
        self.wait_cue.setStyleSheet("background: #e8eefc; color: #1d3f8f; padding: 4px 8px; font-size: 14px")
        self.wait_cue.hide()
        #: the frame shown now
        self.frame: dict[str, Any] | None = None
        #: the kitchen: the app's own view, drawing a World and state rebuilt from the frame
        self.view = WorldView()
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys go to the window, which sends them
        self.view.animation_seconds = 0.12
        self._view_key: tuple[Any, ...] | None = None
        self.world: Any = None
        self.state: Any = None
        #: Doors, Keys and Gems
        self.canvas = DKGCanvas()
        self.canvas.hide()
        self.moves = QLabel(KITCHEN_MOVES)
        self.moves.setWordWrap(True)
        self.popup = QWidget()
        self.popup.setStyleSheet("background: #2a62c9; color: white; padding: 6px")
        self.popup_text = QLabel()
        self.popup_text.setWordWrap(True)
        follow, ignore = QPushButton("Follow (Enter)"), QPushButton("Ignore (Esc)")
        for button in (follow, ignore):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        follow.clicked.connect(lambda: window.decide(True))
        ignore.clicked.connect(lambda: window.decide(False))
        row = QHBoxLayout(self.popup)
        row.addWidget(self.popup_text, 1)
        row.addWidget(follow)
        row.addWidget(ignore)
        self.popup.hide()
        box = QVBoxLayout(self)
        for w in (self.header, self.banner, self.wait_cue, self.view, self.canvas, self.popup, self.moves):
            box.addWidget(w)
        box.setStretch(3, 1)
        box.setStretch(4, 1)
        #: whom the game waits for: (players, assistant, seconds when told, when told)
        self.waiting: tuple[list[str], str, int, float] = ([], "", 0, 0.0)
        self._clock = QTimer(self)
        self._clock.setInterval(1000)
        self._clock.timeout.connect(self.show_wait)

    def show_frame(self, frame: dict[str, Any]) -> None:
        self.frame = frame
        assistant = f"   Assistant: {frame['assistant']}" if frame.get("assistant") else ""
        if frame["world"] == "dkg":
            self.moves.setText(DKG_MOVES)
            held = "   (you hold it!)" if frame["delivered"] else ""
            turn = "" if frame["done"] else ("   Your turn." if frame["turn"] == frame["seat"] else
                                             f"   {frame['turn']}'s turn.")
            goal = f"the {frame['goal_color']} gem ({frame['goal']})" if frame["goal"] else "none (help the other)"
            self.header.setText(f"You are {frame['seat']}. Your gem: {goal}{held}   "
                                f"Step {frame['tick']} of {frame['t_max']}{turn}{assistant}")
            self.view.hide()
            self.canvas.show()
            self.canvas.set_frame(frame)
            return
        try:
            world, state = seat_world(frame)
        except ValueError as exc:
            self.window_.say(str(exc))
            return
        done = "   (delivered!)" if frame["delivered"] else ""
        self.header.setText(f"You are {frame['seat']}. Your dish: {kitchen_recipe_words(str(frame['goal']))}{done}   "
                            f"Step {frame['tick']} of {frame['t_max']}{assistant}")
        self.moves.setText(KITCHEN_MOVES)
        self.canvas.hide()
        self.view.show()
        key = (tuple(frame["layout"]), tuple(frame["cooks"]), frame["rules"], frame["t_max"], frame["goal"])
        previous = self.state
        if key != self._view_key:
            from ui.render import renderer_for

            self._view_key, previous = key, None
            self.view.set_renderer(renderer_for(world))
        elif previous is not None and state.t < previous.t:
            previous = None
        self.world, self.state = world, state
        self.view.show_state(state, previous)
        self.refresh_overlays()

    def refresh_overlays(self) -> None:
        """The seat's eyes, the cells it can walk to while its move is awaited, and the first open
        suggestion's places ringed (with its arrow)."""
        from ui.render import Overlays

        frame = self.frame
        if frame is None or frame["world"] == "dkg" or self.state is None:
            return
        seat = frame["seat"]
        players, _assistant, _s, _t = self.waiting
        mine = seat in players and not frame["done"]
        payload = self.window_.open_feedback[0][2] if self.window_.open_feedback else None
        legal = tuple(a for a in frame.get("actions", ()) if isinstance(a, str)) if mine else ()
        self.view.set_overlays(Overlays(viewer=seat, human=seat if mine else None, legal=legal,
                                        feedback=suggestion_places(payload, self.world)))

    def set_waiting(self, players: list[str], assistant: str, seconds: int) -> None:
        self.waiting = (players, assistant, seconds, time.monotonic())
        self.show_wait()
        self.refresh_overlays()

    def show_wait(self) -> None:
        """The waiting cue, its seconds counted on from what the host said."""
        players, assistant, seconds, since = self.waiting
        frame = self.frame or {}
        seat = frame.get("seat", "")
        names = frame.get("cooks") or [a.get("name", "") for a in frame.get("agents", [])]
        partner = next((n for n in names if n != seat), "")
        text = wait_words(seat, players, assistant, seconds + int(time.monotonic() - since), partner) \
            if self.banner.isHidden() else ""
        self.wait_cue.setText(text)
        self.wait_cue.setVisible(bool(text))
        if text and not self._clock.isActive():
            self._clock.start()
        elif not text:
            self._clock.stop()


class SeatWindow(QWidget):
    """A participant's window (see the module doc)."""

    def __init__(self, client: SeatClient) -> None:
        super().__init__()
        self.client = client
        self.setWindowTitle("ToM Arena study")
        self.stack = QStackedWidget()
        self.page_view = PageView(self)
        self.game = GameView(self)
        self.stack.addWidget(self.page_view)
        self.stack.addWidget(self.game)
        self.status = QLabel("connecting...")
        box = QVBoxLayout(self)
        box.addWidget(self.stack, 1)
        box.addWidget(self.status)
        #: suggestions shown and not yet answered, oldest first: (id, text, data or None)
        self.open_feedback: list[tuple[int, str, Any]] = []
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.resize(1180, 720)  # the kitchen view needs room; fits a 1366 x 768 screen
        client.message.connect(self.on_message)
        client.problem.connect(self.say)
        client.disconnected.connect(lambda: self.say("the connection to the host dropped: press F5 to join again "
                                                     "with the same code"))
        client.connected.connect(lambda: self.say("connected"))

    def say(self, text: str) -> None:
        self.status.setText(text)

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        self.client.drop()
        super().closeEvent(event)

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "page":
            self.stack.setCurrentWidget(self.page_view)
            self.page_view.show_page(message["page"])
            self.setFocus()
            self.open_feedback.clear()
            self.game.popup.hide()
            self.game.set_waiting([], "", 0)
        elif kind == "frame":
            if self.game.frame is None or message["frame"]["tick"] != self.game.frame["tick"]:
                self.say("")
            self.stack.setCurrentWidget(self.game)
            self.game.show_frame(message["frame"])
            self.setFocus()
        elif kind == "feedback":
            if all(f[0] != message["feedback_id"] for f in self.open_feedback):
                words = message["text"] + (f"\n{message['explanation']}" if message["explanation"] else "")
                self.open_feedback.append((message["feedback_id"], f"{message['facilitator']}: {words}",
                                           message.get("payload")))
            self._show_popup()
        elif kind == "feedback_status":
            self.open_feedback = [f for f in self.open_feedback if f[0] != message["feedback_id"]]
            self._show_popup()
        elif kind == "waiting":
            players = message["players"]
            self.game.set_waiting([p for p in players if isinstance(p, str)][:8], message["assistant"][:80],
                                  max(0, min(message["seconds"], 10**6)))
        elif kind == "paused":
            self.game.banner.setText("Paused: " + message["reason"])
            self.game.banner.show()
            self.game.show_wait()
        elif kind == "resumed":
            self.game.banner.hide()
            self.game.show_wait()
        elif kind in ("note", "message"):
            self.say(message.get("text", "") if kind == "note" else f"{message['sender']}: {message['text']}")
        elif kind == "welcome":
            self.setWindowTitle(f"ToM Arena study - {message['participant']}")

    def _show_popup(self) -> None:
        if self.open_feedback:
            self.game.popup_text.setText(self.open_feedback[0][1])
            self.game.popup.show()
        else:
            self.game.popup.hide()
        self.game.refresh_overlays()

    def decide(self, accept: bool) -> None:
        if self.open_feedback:
            fid = self.open_feedback.pop(0)[0]
            self.client.decide(fid, accept)
            self._show_popup()

    def _page_key(self, event: QKeyEvent) -> bool:
        """A page's keys: Enter presses its button; on a questionnaire, 1 to 9 answer the first
        statement not yet answered. True when the key was used."""
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.page_view.button.isVisible():
            self.page_view.submit()
            return True
        if self.page_view.groups and Qt.Key.Key_1 <= key <= Qt.Key.Key_9:
            item = self.page_view.answer_next(key - Qt.Key.Key_0)
            left = sum(g.checkedId() < 1 for g in self.page_view.groups.values())
            self.say(f"{item}: {key - Qt.Key.Key_0}; " + (f"{left} left" if left else "Enter sends the answers")
                     if item else "every statement is answered: Enter sends, or click a button to change one")
            return True
        return False

    def keyPressEvent(self, event: QKeyEvent | None) -> None:  # noqa: N802 - Qt's name
        if event is not None and event.key() == Qt.Key.Key_F5 and not self.client.is_open:
            self.say("joining again...")
            self.client.reconnect()
            return
        if event is not None and self.stack.currentWidget() is self.page_view and self._page_key(event):
            return
        if event is None or self.stack.currentWidget() is not self.game:
            super().keyPressEvent(event)
            return
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.open_feedback:
            self.decide(True)
            return
        if key == Qt.Key.Key_Escape and self.open_feedback:
            self.decide(False)
            return
        name = {Qt.Key.Key_Up: "Up", Qt.Key.Key_Down: "Down", Qt.Key.Key_Left: "Left", Qt.Key.Key_Right: "Right",
                Qt.Key.Key_Space: "Space", Qt.Key.Key_W: "W", Qt.Key.Key_A: "A", Qt.Key.Key_S: "S",
                Qt.Key.Key_D: "D", Qt.Key.Key_P: "P", Qt.Key.Key_U: "U", Qt.Key.Key_H: "H"}.get(Qt.Key(key))
        frame = self.game.frame
        if frame is not None and frame["world"] == "dkg" and name in DKG_KEYS:
            if frame["turn"] != frame["seat"]:
                self.say("it is the other player's turn")
                return
            action = dkg_action(DKG_KEYS[name], frame["actions"])
            if action is None:
                self.say(f"{DKG_KEYS[name]}: not possible here")
            elif self.client.key(action):
                self.say(f"{action}: sent")
            return
        if name in KEY_ACTIONS:
            if self.client.key(KEY_ACTIONS[name]):
                self.say(f"{KEY_ACTIONS[name]}: sent")  # the waiting cue says what the game waits for now
            return
        super().keyPressEvent(event)


class HostWindow(QWidget):
    """The researcher's window: join codes, who is connected, the stage, a log, and the running
    game drawn whole (every cook, every station's content, both goals: the experimenter's read-only
    view, the kitchen by the app's own kitchen view from the host's state; the participants' windows
    get their own seat's frame only)."""

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.setWindowTitle(f"ToM Arena study host - port {host.port}")
        self.status = QLabel()
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        from study.design import model_lines

        #: which model answers for each condition whose assistant is a language model
        self.models = QLabel("\n".join(model_lines(host.study)))
        self.models.setWordWrap(True)
        self.models.setVisible(bool(self.models.text()))
        self.game_header = QLabel("no game yet")
        from ui.render.worldview import WorldView

        #: the frame shown now (``seat_view.experimenter_frame``)
        self.frame: dict[str, Any] | None = None
        self.view = WorldView()
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._view_world: Any = None
        self.canvas = DKGCanvas()
        self.canvas.hide()
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        box = QVBoxLayout(self)
        box.addWidget(self.status)
        box.addWidget(self.models)
        box.addWidget(self.game_header)
        box.addWidget(self.view, 2)
        box.addWidget(self.canvas, 2)
        box.addWidget(self.log, 1)
        host.changed.connect(self.refresh)
        host.logged.connect(self.log.appendPlainText)
        host.watched.connect(self.show_game)
        self.resize(720, 720)
        self.refresh()

    def show_game(self, frame: dict[str, Any]) -> None:
        """Draw the whole state of the running game (``seat_view.experimenter_frame``)."""
        goals = ", ".join(f"{a} wants {g}" + (" (delivered)" if frame["delivered"][a] else "")
                          for a, g in frame["goals"].items())
        self.game_header.setText(f"Step {frame['tick']} of {frame['t_max']}: {goals}"
                                 + ("   - over" if frame["done"] else ""))
        self.frame = frame
        session, state = self.host.session, self.host._last_state
        if frame["world"] == "dkg" or session is None or state is None:
            self.view.hide()
            self.canvas.show()
            self.canvas.set_frame(frame)
            return
        self.canvas.hide()
        self.view.show()
        if session.world is not self._view_world:
            from ui.render import renderer_for

            self._view_world = session.world
            self.view.set_renderer(renderer_for(session.world))
        self.view.show_state(state, self.view.state if self.view.state is not None and self.view.state.t < state.t
                             else None)

    def refresh(self) -> None:
        self.status.setText("\n".join(self.host.status()))

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        """Closing the host's window ends the running episode (recorded as stopped) and every connection."""
        self.host.shutdown()
        super().closeEvent(event)


def open_host_dialog(parent: QWidget) -> HostWindow | None:
    """File > Host a study…: choose a shipped study and a port; the host's window, or None."""
    from PyQt6.QtWidgets import QInputDialog, QMessageBox

    from study.design import STUDIES_DIR, StudyError, load_study
    from ui.net.host import StudyHost

    names = sorted(p.stem for p in STUDIES_DIR.glob("*.json"))
    name, ok = QInputDialog.getItem(parent, "Host a study", "Study (scenarios/studies/):", names, 0, False)
    if not ok or not name:
        return None
    port, ok = QInputDialog.getInt(parent, "Host a study", "Port the participants join:", 8765, 1, 65535)
    if not ok:
        return None
    path = STUDIES_DIR / f"{name}.json"
    try:
        study = load_study(path)
        from pathlib import Path

        host = StudyHost(study, path, Path("runs") / "studies" / study.study, port=port)
    except (StudyError, OSError) as exc:
        QMessageBox.warning(parent, "Host a study", str(exc))
        return None
    window = HostWindow(host)
    window.show()
    return window


def open_join_dialog(parent: QWidget) -> SeatWindow | None:
    """File > Join a study…: the host's address and your code; your window, or None."""
    from PyQt6.QtWidgets import QInputDialog, QMessageBox

    from ui.net.client import parse_address

    address, ok = QInputDialog.getText(parent, "Join a study", "The host's address (HOST:PORT):")
    if not ok or not address.strip():
        return None
    try:
        host, port = parse_address(address)
    except ValueError as exc:
        QMessageBox.warning(parent, "Join a study", str(exc))
        return None
    code, ok = QInputDialog.getText(parent, "Join a study", "Your join code:")
    if not ok or not code.strip():
        return None
    client = SeatClient(host, port, code.strip())
    window = SeatWindow(client)
    client.setParent(window)
    window.show()
    client.open()
    return window
