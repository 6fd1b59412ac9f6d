"""The joining side: a QWebSocket to the study host, for one seat.

``SeatClient`` says hello with the join code, checks every frame it receives with the protocol's
strict reader, keeps every message it received (``received``: what this computer was ever told,
which the tests inspect for hidden state), and sends the person's keys, answers to suggestions and
pages. A dropped connection can be opened again with the same code (``reconnect``).
"""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import QObject, QUrl, pyqtSignal
from PyQt6.QtWebSockets import QWebSocket

from ui.net.protocol import HOST_MESSAGES, MAX_MESSAGE_BYTES, ProtocolError, decode, encode


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``ws://HOST:PORT``) as (host, port); ValueError with the reason."""
    rest = text.strip().removeprefix("ws://").rstrip("/")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r:.80} is not an address; expected HOST:PORT, e.g. 192.168.1.20:8765")
    return host.strip("[]"), int(port)


class SeatClient(QObject):
    """One seat's connection (see the module doc)."""

    message = pyqtSignal(object)      # a checked message (dict)
    connected = pyqtSignal()
    disconnected = pyqtSignal()
    problem = pyqtSignal(str)         # a frame refused, or the host refused us

    def __init__(self, host: str, port: int, code: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host, self.port, self.code = host, port, code
        self.received: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self.is_open = False
        self.socket: QWebSocket | None = None

    def open(self) -> None:
        sock = QWebSocket("", parent=self)
        sock.setMaxAllowedIncomingMessageSize(MAX_MESSAGE_BYTES)
        sock.connected.connect(self._on_connected)
        sock.disconnected.connect(self._on_disconnected)
        sock.textMessageReceived.connect(self._on_text)
        self.socket = sock
        sock.open(QUrl(f"ws://{self.host}:{self.port}"))

    def reconnect(self) -> None:
        """Join again with the same code (after a drop)."""
        self.drop()
        self.open()

    def drop(self) -> None:
        """Close the connection (as a cable pulled would)."""
        sock, self.socket = self.socket, None
        self.is_open = False
        if sock is not None:
            sock.disconnected.disconnect(self._on_disconnected)
            sock.abort()
            sock.deleteLater()

    def _on_connected(self) -> None:
        self.is_open = True
        self.send("hello", code=self.code)
        self.connected.emit()

    def _on_disconnected(self) -> None:
        if self.sender() is self.socket:
            self.is_open = False
            self.disconnected.emit()

    def _on_text(self, text: str) -> None:
        try:
            message = decode(text, "message from the host", HOST_MESSAGES)
        except ProtocolError as exc:
            self.problem.emit(str(exc))
            return
        self.received.append(message)
        if message["type"] == "welcome":
            self.welcome = message
        elif message["type"] == "refused":
            self.problem.emit(message["reason"])
        self.message.emit(message)

    def send(self, kind: str, **fields: Any) -> bool:
        if self.socket is None or not self.is_open:
            return False
        self.socket.sendTextMessage(encode(kind, **fields))
        return True

    def key(self, action: str) -> bool:
        return self.send("key", action=action)

    def decide(self, feedback_id: int, accept: bool) -> bool:
        return self.send("decide", feedback_id=feedback_id, accept=accept)

    def continue_page(self, page_id: str) -> bool:
        return self.send("continue", page_id=page_id)

    def answer(self, page_id: str, answers: dict[str, int]) -> bool:
        return self.send("answer", page_id=page_id, answers=answers)
