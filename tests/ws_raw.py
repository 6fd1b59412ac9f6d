"""A WebSocket client on a plain TCP socket, for tests that must send what no well-behaved client
sends (binary, oversize, malformed or lying frames) from a chosen loopback address (all of
127.0.0.0/8 reaches this computer on Linux, so each test address is one more stranger).

``RawSocket`` does the HTTP upgrade by hand (to ``path``: ``/?code=CODE`` joins in the handshake,
as the participant's app does) and then sends any frame ``frame`` builds; ``read``
returns the host's messages (text frames decoded as JSON where they parse) until the host closes
the connection or the time given passes. Pings from the host are answered with pongs, as a browser
or Qt would, unless ``answer_pings`` is False.
"""

from __future__ import annotations

import base64
import json
import os
import select
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Any

TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0


def frame(opcode: int, payload: bytes, *, fin: bool = True, rsv: int = 0, mask: bool = True,
          length: int | None = None) -> bytes:
    """One WebSocket frame's bytes: ``length`` is the length its header announces (the true one
    unless given: a frame may lie)."""
    n = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | ((rsv & 7) << 4) | (opcode & 0xF)])
    bit = 0x80 if mask else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 1 << 16:
        head += bytes([bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", n & ((1 << 64) - 1))
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def text_frame(text: str) -> bytes:
    return frame(TEXT, text.encode("utf-8", "surrogatepass"))


@dataclass
class Reply:
    """What the host sent on one connection: messages (JSON objects; text that is not JSON as a
    string) and, once it closed, the close code (None: the TCP connection ended without one)."""

    messages: list[Any] = field(default_factory=list)
    closed: bool = False
    close_code: int | None = None

    def refusals(self) -> list[str]:
        return [m["reason"] for m in self.messages if isinstance(m, dict) and m.get("type") == "refused"]

    def kinds(self) -> list[str]:
        return [m.get("type") for m in self.messages if isinstance(m, dict)]


class RawSocket:
    """One connection to ``127.0.0.1:port`` from ``source`` (see the module doc)."""

    def __init__(self, port: int, source: str = "127.0.0.1", *, timeout: float = 30.0, answer_pings: bool = True,
                 host: str = "127.0.0.1", path: str = "/") -> None:
        self.answer_pings = answer_pings
        self.sock = socket.create_connection((host, port), timeout=timeout, source_address=(source, 0))
        self.buffer = b""
        self.reply = Reply()
        self._fragments: list[bytes] = []
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.buffer:
            chunk = self._recv(deadline)
            if not chunk:
                raise ConnectionError(f"the host closed the connection during the handshake: {self.buffer[:200]!r}")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(f"the host refused the upgrade: {head[:200]!r}")
        self._parse()

    def _recv(self, deadline: float) -> bytes:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        ready, _, _ = select.select([self.sock], [], [], left)
        if not ready:
            raise TimeoutError
        try:
            return self.sock.recv(65536)
        except (ConnectionResetError, ConnectionAbortedError):
            return b""

    def send(self, data: bytes) -> bool:
        """Send bytes; False when the host has closed the connection already."""
        try:
            self.sock.sendall(data)
            return True
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError, OSError):
            return False

    def send_json(self, message: Any) -> bool:
        return self.send(text_frame(message if isinstance(message, str) else json.dumps(message)))

    def hello(self, code: Any, version: int | None = None) -> bool:
        """A ``hello`` with ``code``, in this protocol version unless ``version`` (an older app's)."""
        from ui.net.protocol import PROTOCOL_VERSION

        return self.send_json({"v": version or PROTOCOL_VERSION, "type": "hello", "code": code})

    def _parse(self) -> None:
        """Take every whole frame out of the buffer."""
        while len(self.buffer) >= 2:
            b0, b1 = self.buffer[0], self.buffer[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                if len(self.buffer) < 4:
                    return
                n, at = struct.unpack("!H", self.buffer[2:4])[0], 4
            elif n == 127:
                if len(self.buffer) < 10:
                    return
                n, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
            if b1 & 0x80:
                at += 4  # the host never masks; a test would see it here
            if len(self.buffer) < at + n:
                return
            payload, self.buffer = self.buffer[at:at + n], self.buffer[at + n:]
            opcode = b0 & 0xF
            if opcode == PING:
                if self.answer_pings:
                    self.send(frame(PONG, payload))
            elif opcode == CLOSE:
                self.reply.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                self.reply.closed = True
            elif opcode in (TEXT, BINARY, CONTINUATION):
                self._fragments.append(payload)
                if b0 & 0x80:
                    data, self._fragments = b"".join(self._fragments), []
                    text = data.decode("utf-8", "replace")
                    try:
                        self.reply.messages.append(json.loads(text))
                    except ValueError:
                        self.reply.messages.append(text)

    def read(self, seconds: float, *, until: Any = None) -> Reply:
        """Read for up to ``seconds``, or until the host closes, or until ``until(reply)`` holds."""
        deadline = time.monotonic() + seconds
        while not self.reply.closed and not (until is not None and until(self.reply)):
            try:
                chunk = self._recv(deadline)
            except TimeoutError:
                break
            if not chunk:
                self.reply.closed = True
                break
            self.buffer += chunk
            self._parse()
        return self.reply

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class IdleCrowd:
    """``count`` threads that each hold one idle connection to ``port`` from ``source`` (no
    ``hello``), open a new one whenever the host closes theirs, and count the connections opened
    (``opened``); ``stop()`` ends them."""

    def __init__(self, port: int, count: int = 12, source: str = "127.0.0.1") -> None:
        import threading

        self.port, self.source, self.opened = port, source, 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._hold, daemon=True) for _ in range(count)]
        for t in self._threads:
            t.start()

    def _hold(self) -> None:
        while not self._stop.is_set():
            try:
                sock = RawSocket(self.port, self.source, timeout=10)
            except (OSError, ConnectionError, TimeoutError):
                continue
            with self._lock:
                self.opened += 1
            while not self._stop.is_set() and not sock.read(0.2).closed:
                pass
            sock.close()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(30)
