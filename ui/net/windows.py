"""The windows of a networked study: the participant's (``SeatWindow``) and the host's
(``HostWindow``).

A participant's window shows what its ``SeatClient`` was sent and nothing else: pages (consent,
instructions, the questionnaire with one row of scale buttons per item, the reveal), or the game:
their own goal, the assistant's codename, the kitchen as their frame describes it (cells they do not
see are greyed, station contents they do not see are a question mark), the moves, a blue pop-up for
a suggestion (Enter or Follow: follow it; Escape or Ignore: ignore it) and a banner while paused.
"""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import QRectF, Qt
from PyQt6.QtGui import QColor, QFont, QKeyEvent, QPainter, QPaintEvent
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

from ui.net.client import SeatClient
from ui.net.seat_view import KEY_ACTIONS

CELL_COLORS = {"#": "#6b5b4b", "-": "#c8a878", "/": "#9fd39f", "*": "#f0d060", ".": "#f4efe6", "D": "#d9c7a0"}
ITEM_SHORT = {"nothing": "", "FreshTomato": "tom", "ChoppedTomato": "tom/", "ChoppedTomato-Plate": "TOM",
              "FreshLettuce": "let", "ChoppedLettuce": "let/", "ChoppedLettuce-Plate": "LET",
              "FreshOnion": "oni", "ChoppedOnion": "oni/", "ChoppedOnion-Plate": "ONI", "Plate": "plate"}


class KitchenCanvas(QWidget):
    """Draws one seat's frame: the public layout, and on it only what the frame lists."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.frame: dict[str, Any] | None = None
        self.setMinimumSize(420, 240)

    def set_frame(self, frame: dict[str, Any]) -> None:
        self.frame = frame
        self.update()

    def paintEvent(self, event: QPaintEvent | None) -> None:  # noqa: N802 - Qt's name
        frame = self.frame
        if frame is None:
            return
        layout = frame["layout"]
        rows, cols = len(layout), max(len(r) for r in layout)
        size = min(self.width() / cols, self.height() / rows)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        seen = {(s["row"], s["col"]): s["holds"] for s in frame["stations"]}
        font = QFont()
        font.setPixelSize(max(8, int(size * 0.3)))
        p.setFont(font)
        for r, line in enumerate(layout):
            for c, ch in enumerate(line):
                rect = QRectF(c * size, r * size, size, size)
                p.fillRect(rect, QColor(CELL_COLORS.get(ch, "#cccccc")))
                p.setPen(QColor("#00000030"))
                p.drawRect(rect)
                if ch in "-/":
                    text = ITEM_SHORT.get(seen[(r, c)], "?") if (r, c) in seen else "?"
                    p.setPen(QColor("#202020" if (r, c) in seen else "#808080"))
                    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        for a in frame["agents"]:
            rect = QRectF(a["col"] * size + size * 0.1, a["row"] * size + size * 0.1, size * 0.8, size * 0.8)
            mine = a["name"] == frame["seat"]
            p.setBrush(QColor("#3a78d8" if mine else "#d8563a"))
            p.setPen(Qt.PenStyle.NoPen)
            p.drawEllipse(rect)
            p.setPen(QColor("white"))
            label = a["name"][:1].upper() + (":" + ITEM_SHORT.get(a["holds"], "") if a["holds"] != "nothing" else "")
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
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


class GameView(QWidget):
    """The game: goal and assistant, the kitchen, the moves, the suggestion pop-up, the pause banner."""

    def __init__(self, window: "SeatWindow") -> None:
        super().__init__(window)
        self.window_ = window
        self.header = QLabel()
        self.header.setStyleSheet("font-size: 15px")
        self.banner = QLabel()
        self.banner.setStyleSheet("background: #f6c343; padding: 6px; font-weight: bold")
        self.banner.hide()
        self.canvas = KitchenCanvas()
        self.moves = QLabel("Arrow keys or W/A/S/D: walk (into a counter, board or delivery: work it). Space: wait.<br>"
                            "<small>Legend: tan counter, green cutting board, yellow delivery, dark wall, light floor; "
                            "? what you cannot see from here; you are the blue circle. Rows and columns count "
                            "from 0 at the top left. tom/let/oni: a fresh tomato/lettuce/onion, tom/ chopped, "
                            "TOM on a plate.</small>")
        self.popup = QWidget()
        self.popup.setStyleSheet("background: #2a62c9; color: white; padding: 6px")
        self.popup_text = QLabel()
        self.popup_text.setWordWrap(True)
        follow, ignore = QPushButton("Follow (Enter)"), QPushButton("Ignore (Esc)")
        follow.clicked.connect(lambda: window.decide(True))
        ignore.clicked.connect(lambda: window.decide(False))
        row = QHBoxLayout(self.popup)
        row.addWidget(self.popup_text, 1)
        row.addWidget(follow)
        row.addWidget(ignore)
        self.popup.hide()
        box = QVBoxLayout(self)
        for w in (self.header, self.banner, self.canvas, self.popup, self.moves):
            box.addWidget(w)
        box.setStretch(2, 1)

    def show_frame(self, frame: dict[str, Any]) -> None:
        assistant = f"   Assistant: {frame['assistant']}" if frame.get("assistant") else ""
        done = "   (delivered!)" if frame["delivered"] else ""
        self.header.setText(f"You are {frame['seat']}. Your dish: {frame['goal']}{done}   "
                            f"Step {frame['tick']} of {frame['t_max']}{assistant}")
        self.canvas.set_frame(frame)


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
        #: suggestions shown and not yet answered, oldest first: (id, text)
        self.open_feedback: list[tuple[int, str]] = []
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.resize(760, 560)
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
            self.open_feedback.clear()
            self.game.popup.hide()
        elif kind == "frame":
            if self.game.canvas.frame is None or message["frame"]["tick"] != self.game.canvas.frame["tick"]:
                self.say("")
            self.stack.setCurrentWidget(self.game)
            self.game.show_frame(message["frame"])
            self.setFocus()
        elif kind == "feedback":
            if all(fid != message["feedback_id"] for fid, _ in self.open_feedback):
                words = message["text"] + (f"\n{message['explanation']}" if message["explanation"] else "")
                self.open_feedback.append((message["feedback_id"], f"{message['facilitator']}: {words}"))
            self._show_popup()
        elif kind == "feedback_status":
            self.open_feedback = [(f, t) for f, t in self.open_feedback if f != message["feedback_id"]]
            self._show_popup()
        elif kind == "paused":
            self.game.banner.setText("Paused: " + message["reason"])
            self.game.banner.show()
        elif kind == "resumed":
            self.game.banner.hide()
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

    def decide(self, accept: bool) -> None:
        if self.open_feedback:
            fid, _ = self.open_feedback.pop(0)
            self.client.decide(fid, accept)
            self._show_popup()

    def keyPressEvent(self, event: QKeyEvent | None) -> None:  # noqa: N802 - Qt's name
        if event is not None and event.key() == Qt.Key.Key_F5 and not self.client.is_open:
            self.say("joining again...")
            self.client.reconnect()
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
                Qt.Key.Key_D: "D"}.get(Qt.Key(key))
        if name in KEY_ACTIONS:
            if self.client.key(KEY_ACTIONS[name]):
                self.say(f"{KEY_ACTIONS[name]}: sent; the game moves on when the other player has moved too")
            return
        super().keyPressEvent(event)


class HostWindow(QWidget):
    """The researcher's window: join codes, who is connected, the stage, and a log."""

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.setWindowTitle(f"ToM Arena study host - port {host.port}")
        self.status = QLabel()
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        box = QVBoxLayout(self)
        box.addWidget(self.status)
        box.addWidget(self.log, 1)
        host.changed.connect(self.refresh)
        host.logged.connect(self.log.appendPlainText)
        self.resize(620, 420)
        self.refresh()

    def refresh(self) -> None:
        self.status.setText("\n".join(self.host.status()))

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        """Closing the host's window ends the running episode (recorded as stopped) and every connection."""
        self.host.shutdown()
        super().closeEvent(event)


def open_host_dialog(parent: QWidget) -> HostWindow | None:
    """File > Host a study…: choose a shipped study and a port; the host's window, or None."""
    from PyQt6.QtWidgets import QInputDialog, QMessageBox

    from ui.net.host import StudyHost
    from ui.net.study import STUDIES_DIR, StudyError, load_study

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
