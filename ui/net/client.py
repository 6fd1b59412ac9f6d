"""The joining side: a QWebSocket to the study host, for one seat.

``SeatClient`` opens the host's URL with the join code in it (``?code=CODE``: the host seats it in
the handshake) and says hello with the code, checks every frame it receives with the protocol's
strict reader, keeps every message it received (``received``: what this computer was ever told,
which the tests inspect for hidden state), and sends the person's keys, answers to suggestions and
pages. A dropped connection can be opened again with the same code (``reconnect``). With ``tls``
(``ui.net.tls.seat_tls``) it joins over ``wss://`` and refuses a host whose certificate does not
check out.

With ``log_path`` (``join --log-received FILE``) every frame received is also appended to that file
as it arrives, one JSON object per line, flushed at once and scrubbed of secrets (``sim.redact``):
an audit of exactly what this computer was told (a frame the protocol refused is logged as
``{"refused_frame": ..., "error": ...}``). The file is opened for appending, so a participant who
joins again with the same file continues it.
"""

from __future__ import annotations

import os
from typing import Any

from PyQt6.QtCore import QObject, QUrl, QUrlQuery, pyqtSignal
from PyQt6.QtNetwork import QSslConfiguration
from PyQt6.QtWebSockets import QWebSocket

from sim.redact import dumps
from ui.net.protocol import HOST_MESSAGES, JOIN_QUERY, MAX_MESSAGE_BYTES, ProtocolError, decode, encode


def parse_url(text: str) -> tuple[bool, str, int]:
    """``HOST:PORT``, ``ws://HOST:PORT`` or ``wss://HOST:PORT`` as (secure, host, port); ValueError
    with the reason."""
    rest, secure = text.strip(), False
    for scheme in ("wss://", "ws://"):
        if rest.lower().startswith(scheme):
            rest, secure = rest[len(scheme):], scheme == "wss://"
            break
    host, sep, port = rest.rstrip("/").rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r:.80} is not an address; expected HOST:PORT or wss://HOST:PORT, "
                         "e.g. 192.168.1.20:8765")
    return secure, host.strip("[]"), int(port)


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``ws://HOST:PORT``) as (host, port); ValueError with the reason (a
    ``wss://`` address is joined with ``join wss://HOST:PORT``, which takes the certificate too)."""
    secure, host, port = parse_url(text)
    if secure:
        raise ValueError(f"{text.strip()[:80]!r} is a wss:// address; join it from the command line: "
                         f"python main.py join {text.strip()[:80]} --code CODE [--ca CERTIFICATE]")
    return host, port


class SeatClient(QObject):
    """One seat's connection (see the module doc)."""

    message = pyqtSignal(object)      # a checked message (dict)
    connected = pyqtSignal()
    disconnected = pyqtSignal()
    problem = pyqtSignal(str)         # a frame refused, or the host refused us

    def __init__(self, host: str, port: int, code: str, parent: QObject | None = None, *,
                 log_path: str | os.PathLike | None = None, tls: QSslConfiguration | None = None) -> None:
        super().__init__(parent)
        self.host, self.port, self.code, self.tls = host, port, code, tls
        #: the audit log of received frames (see the module doc), or None
        self.log = open(log_path, "a", encoding="utf-8") if log_path is not None else None  # noqa: SIM115
        self.received: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self.is_open = False
        self.socket: QWebSocket | None = None

    def open(self) -> None:
        sock = QWebSocket("", parent=self)
        sock.setMaxAllowedIncomingFrameSize(MAX_MESSAGE_BYTES)
        sock.setMaxAllowedIncomingMessageSize(MAX_MESSAGE_BYTES)
        sock.connected.connect(self._on_connected)
        sock.disconnected.connect(self._on_disconnected)
        sock.textMessageReceived.connect(self._on_text)
        self.socket = sock
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.tls is not None:
            sock.setSslConfiguration(self.tls)
            sock.sslErrors.connect(self._on_ssl_errors)
        url = QUrl(f"{'wss' if self.tls is not None else 'ws'}://{host}:{self.port}/")
        query = QUrlQuery()
        query.addQueryItem(JOIN_QUERY, self.code)
        url.setQuery(query)
        sock.open(url)  # the code in the URL too: the host seats this connection in its handshake

    def _on_ssl_errors(self, errors: list[Any]) -> None:
        """The host's certificate does not check out: the connection is refused (never ignored)."""
        if self.sender() is self.socket:
            said = "; ".join(e.errorString() for e in errors[:3])
            self.problem.emit(f"the host's certificate was refused ({said}); ask the researcher for the host's "
                              "certificate file and join with --ca FILE")

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

    def _log(self, entry: dict[str, Any]) -> None:
        if self.log is not None:
            self.log.write(dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
            self.log.flush()

    def close_log(self) -> None:
        if self.log is not None:
            self.log.close()
            self.log = None

    def _on_text(self, text: str) -> None:
        try:
            message = decode(text, "message from the host", HOST_MESSAGES)
        except ProtocolError as exc:
            self._log({"refused_frame": text[:2000], "error": str(exc)})
            self.problem.emit(str(exc))
            return
        self._log(message)
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
