"""The study host: a QWebSocketServer, one Session at a time, and a study's pages in order.

Each participant joins with their join code (``hello``) and plays one seat of every episode
(participant k plays the level's k-th cook). The host walks the pair through the study's stages:
consent, instruction pages, the tutorial (a page, then an episode), then for every drawn trial its
episode, the end-of-episode reveal and, after facilitated trials, the questionnaire; a page stage
ends when both answered it. During an episode the host sends each seat only its own frame
(``seat_view.seat_frame``), the feedback addressed to it and the messages it receives, and takes
its keys and its answers to feedback; everything else stays here (the whole state goes only to the
host's own window, through the ``watched`` signal).

Connections from the network are held to the limits of the threat model (docs/study.md; the rules
themselves in ``ui.net.guard``): a frame or message longer than ``MAX_SEAT_MESSAGE_BYTES`` is refused
by Qt's frame reader before it is buffered, a binary frame is refused, a connection that has not
joined must say a valid ``hello`` first and within ``HELLO_SECONDS`` or it is closed, idle
connections past the per-address cap make room for new ones (a connection whose URL carries its join
code, as the participant's app opens it, joins as it connects, so it is never one of those), wrong
join codes are counted per
address, and every join code that is not let in (wrong, or its seat connected, or the other seat's
on a joined connection) gets the same reply, ``NOT_ACCEPTED``. Lines about connections that did not
join are rate-limited. With ``tls`` (``ui.net.tls.host_tls``) the host speaks ``wss://``.
While an episode waits, both seats are told for whom (``waiting``): the players whose move is
still missing, or, once both moved and the step takes longer than ``ASSISTANT_CUE_SECONDS``, the
assistant that is thinking (its suggestions are worked out before the step is shown), with the
seconds waited so far. Suggestions go in the world's words (``WorldRenderer.feedback_words``, as
the app's pop-up says them) with their data, so that the seat's map rings the places they name.

A dropped connection pauses the episode (keys are refused until both are back; the Session simply
waits for the missing seat's action); the participant rejoins with the same code and gets the
current page or frame and any suggestion still open. Episodes are recorded by the session runner
(crash-safe, flushed every line); answers and the episode index are appended row by row and
flushed (``study.design.AppendCSV``), so a crash or a drop loses nothing written.
"""

from __future__ import annotations

import math
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QObject, QTimer, QUrl, QUrlQuery, pyqtSignal
from PyQt6.QtNetwork import QAbstractSocket, QHostAddress, QSslConfiguration
from PyQt6.QtWebSockets import QWebSocket, QWebSocketProtocol, QWebSocketServer

from agents.human import HumanAgent
from sim.events import FeedbackEvent, FeedbackStatusEvent, MessageEvent
from sim.inputs import read_json
from sim.registry import load_questions, load_scenario
from sim.session import Session
from study.design import (
    ANSWER_COLUMNS,
    EPISODE_COLUMNS,
    AppendCSV,
    Study,
    StudyError,
    Trial,
    draw_trials,
    next_pair,
    participant_id,
    reveal,
)
from study.seat_view import experimenter_frame, seat_frame
from ui.net.guard import Guesses, LogLimit, Strangers, address_key
from ui.net.protocol import (
    JOIN_QUERY,
    MAX_SEAT_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    SEAT_MESSAGES,
    ProtocolError,
    VersionMismatch,
    decode,
    encode,
    new_join_code,
    read_join_code,
    refusal,
    show_join_code,
)
from ui.render import explanation_words, feedback_words
from ui.render.kitchen_beliefs import kitchen_recipe_words
from ui.session import catalog
from ui.session.runner import Batch, SessionRunner

#: participants per pair (the kitchen's two cooks)
SEATS = 2
#: seconds a connection may stay open without saying hello with a join code
HELLO_SECONDS = 5.0
#: milliseconds the WebSocket handshake (and the TLS one, with wss://) may take
HANDSHAKE_MS = 3000
#: seconds between pings to a joined seat; one silent for SILENT_SECONDS counts as dropped
PING_SECONDS = 5.0
SILENT_SECONDS = 30.0
#: seconds a closed connection may take to go; then it is cut
CLOSING_SECONDS = 2.0
#: bytes Qt reads ahead from one connection (a seat's message is at most MAX_SEAT_MESSAGE_BYTES)
READ_BUFFER_BYTES = 4 * MAX_SEAT_MESSAGE_BYTES
#: the one reply to every join code that is not let in: wrong, mistyped, or its seat connected
NOT_ACCEPTED = ("join code not accepted: it is mistyped or already in use on another computer; check it with "
                "the researcher (after a dropped connection, wait half a minute and join again)")
#: how often the host looks at whom an episode waits for (seconds)
WAIT_POLL_SECONDS = 0.25
#: a step that takes longer than this after both moved is announced as the assistant thinking
ASSISTANT_CUE_SECONDS = 0.5


@dataclass
class Slot:
    """One participant: their join code, anonymous id, connection and the page they still owe."""

    index: int
    code: str  #: as shown (``7KQM-X4PA``)
    participant: str
    socket: QWebSocket | None = None
    joined: bool = False
    answered: set[str] = field(default_factory=set)
    #: feedback shown to them and not yet answered: id -> the feedback message
    open_feedback: dict[int, str] = field(default_factory=dict)


@dataclass
class Stage:
    """One step of the study: a page (``consent``, ``instructions``, ``reveal``, ``questionnaire``,
    ``done``) or an ``episode``; ``trial`` is 0 for the tutorial."""

    kind: str
    page: dict[str, Any] | None = None
    trial: Trial | None = None
    tutorial: bool = False


def _plain(text: str, limit: int = 300) -> str:
    """Text from the network as a log line may hold it: ASCII, one line, at most ``limit`` characters."""
    text = text.encode("ascii", "backslashreplace").decode("ascii").replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[:limit] + "..."


class StudyHost(QObject):
    """Hosts one pair's run of a study (see the module doc)."""

    changed = pyqtSignal()      # connections or the stage changed (the host window redraws)
    logged = pyqtSignal(str)    # a line for the host's log
    ended = pyqtSignal()        # the pair finished the study
    watched = pyqtSignal(object)  # the whole state of the running game (``experimenter_frame``), for the host window

    def __init__(self, study: Study, study_path: Path, out: Path, *, port: int = 0,
                 address: QHostAddress | None = None, codes: tuple[str, ...] | None = None,
                 speed: float = 20.0, tls: QSslConfiguration | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        codes = codes or tuple(new_join_code() for _ in range(SEATS))
        keys = [read_join_code(c) for c in codes]
        if len(codes) != SEATS or None in keys or len(set(keys)) != SEATS:
            raise StudyError(f"expected {SEATS} different join codes of 8 letters and digits (e.g. 7KQM-X4PA), got "
                             f"{' '.join(repr(c)[:40] for c in codes)}")
        #: the time now, in seconds (the limits on strangers count with it)
        self.clock: Callable[[], float] = time.monotonic
        mode = QWebSocketServer.SslMode.SecureMode if tls is not None else QWebSocketServer.SslMode.NonSecureMode
        self.scheme = "wss" if tls is not None else "ws"
        self.server = QWebSocketServer("tom-arena-study", mode, self)
        if tls is not None:
            self.server.setSslConfiguration(tls)
        self.server.setMaxPendingConnections(8)
        self.server.setHandshakeTimeout(HANDSHAKE_MS)
        if not self.server.listen(address or QHostAddress(QHostAddress.SpecialAddress.Any), port):
            raise StudyError(f"cannot listen on port {port}: {self.server.errorString()}")
        self.port = self.server.serverPort()
        self.study, self.out = study, Path(out)
        self._keep_study_file(Path(study_path))
        self.pair = next_pair(self.out)
        self.pair_name = f"pair-{self.pair:02d}"
        (self.out / "recordings" / self.pair_name).mkdir(parents=True, exist_ok=True)
        self.trials = draw_trials(study, self.pair)
        self.slots = [Slot(k, show_join_code(str(keys[k])), participant_id()) for k in range(SEATS)]
        self._keys = [str(key) for key in keys]
        self.speed = speed
        self.answers = AppendCSV(self.out / "answers.csv", ANSWER_COLUMNS)
        self.episodes = AppendCSV(self.out / "episodes.csv", EPISODE_COLUMNS)
        self.stages = self._plan()
        self.stage_index = -1
        self.session: Session | None = None
        self.runner: SessionRunner | None = None
        self.episode_events: list[Any] = []
        self.recording: Path | None = None
        self._last_state: Any = None
        self._max_ticks: int | None = None
        self._assistant = ""
        self.paused = False
        self.finished = False
        self._sockets: list[QWebSocket] = []
        self._peers: dict[int, tuple[str, str]] = {}  # id(socket) -> (the address limits count against, as shown)
        self._strangers: Strangers[QWebSocket] = Strangers()
        self._guesses = Guesses()
        self._closing: dict[int, tuple[QWebSocket, float]] = {}  # id(socket) -> (it, when it was closed)
        self._heard: dict[int, float] = {}  # id(a seat's socket) -> when it last sent anything (a pong too)
        self._pinged = self.clock()
        self._stranger_log = LogLimit(about="connections that did not join")
        self._seat_logs = [LogLimit(about=f"participant {k + 1}'s refused messages", by=None) for k in range(SEATS)]
        self._sweeper = QTimer(self)
        self._sweeper.setInterval(1000)
        self._sweeper.timeout.connect(self._sweep)
        self._sweeper.start()
        #: whom the running episode waits for: (the step, players whose move is missing, the assistant
        #: thinking), since when, and what the seats were last told
        self._wait: tuple[int, tuple[str, ...], str] = (0, (), "")
        self._wait_since = time.monotonic()
        self._wait_told: tuple[int, tuple[str, ...], str] = (0, (), "")
        self._waiter = QTimer(self)
        self._waiter.setInterval(int(WAIT_POLL_SECONDS * 1000))
        self._waiter.timeout.connect(self._look_at_wait)
        self.server.newConnection.connect(self._on_connection)
        self.server.serverError.connect(self._on_server_error)
        self.server.acceptError.connect(self._on_server_error)
        self._advance()

    # ------------------------------------------------------------------ setup

    def _keep_study_file(self, path: Path) -> None:
        """The study folder keeps a copy of its study file; a folder of another study, or of another
        version of this one, is refused (its pairs would not be comparable)."""
        self.out.mkdir(parents=True, exist_ok=True)
        kept = self.out / "study.json"
        if kept.exists():
            if read_json(kept, StudyError) != read_json(path, StudyError):
                self.server.close()
                raise StudyError(f"{self.out}: holds pairs of another study or another version of this one "
                                 f"({kept} differs from {path}); expected a new folder (--out)")
        else:
            shutil.copyfile(path, kept)

    def _plan(self) -> list[Stage]:
        study = self.study
        stages = [Stage("consent", {"title": study.consent.title, "text": study.consent.text,
                                    "button": "I agree, continue"})]
        stages += [Stage("instructions", {"title": p.title, "text": p.text}) for p in study.instructions]
        if study.tutorial is not None:
            stages.append(Stage("instructions", {"title": study.tutorial.page.title, "text": study.tutorial.page.text,
                                                 "button": "Start the tutorial"}))
            stages.append(Stage("episode", trial=Trial(0, "tutorial", study.tutorial.scenario), tutorial=True))
        for trial in self.trials:
            stages.append(Stage("instructions", {"title": f"Game {trial.number} of {len(self.trials)}",
                                                 "text": "Press Start when you are ready.", "button": "Start"}))
            stages.append(Stage("episode", trial=trial))
            if study.reveal.other_goal or study.reveal.completion or study.reveal.feedback_history:
                stages.append(Stage("reveal", trial=trial))
            if study.asks_after(trial.condition):
                q = study.questionnaire
                stages.append(Stage("questionnaire", {
                    "title": q.title, "text": "How much do you agree with each statement?",
                    "items": [{"id": i.id, "text": i.text} for i in q.items],
                    "scale": {"points": q.scale.points, "low": q.scale.low, "high": q.scale.high}}, trial=trial))
        stages.append(Stage("done", {"title": "Thank you", "text": "The study is over. Thank you for taking part!"}))
        return stages

    @property
    def stage(self) -> Stage | None:
        return self.stages[self.stage_index] if 0 <= self.stage_index < len(self.stages) else None

    def _page_id(self) -> str:
        return f"{self.stage_index}"

    def status(self) -> list[str]:
        """Lines for the host window: codes, who is connected, the stage."""
        lines = [f"{self.study.title}", f"pair {self.pair_name}, listening on port {self.port}"]
        for s in self.slots:
            state = "connected" if s.socket is not None else "dropped" if s.joined else "not joined yet"
            lines.append(f"participant {s.index + 1} ({s.participant}): join code {s.code} - {state}")
        stage = self.stage
        if stage is not None:
            what = stage.kind if stage.trial is None else f"{stage.kind}, " + (
                "tutorial" if stage.tutorial else f"trial {stage.trial.number} ({stage.trial.condition}, "
                                                  f"{stage.trial.scenario})")
            lines.append(f"stage {self.stage_index + 1}/{len(self.stages)}: {what}" + (" - PAUSED" if self.paused else ""))
        return lines

    # ------------------------------------------------------------------ connections

    def _on_connection(self) -> None:
        while self.server.hasPendingConnections():
            sock = self.server.nextPendingConnection()
            if sock is None:
                return
            sock.setParent(self)
            sock.setMaxAllowedIncomingFrameSize(MAX_SEAT_MESSAGE_BYTES)
            sock.setMaxAllowedIncomingMessageSize(MAX_SEAT_MESSAGE_BYTES)
            sock.setReadBufferSize(READ_BUFFER_BYTES)
            shown = _plain(sock.peerAddress().toString() or "an unknown address", 80)
            key = address_key(shown)
            now = self.clock()
            self._sockets.append(sock)
            self._peers[id(sock)] = (key, shown)
            sock.textMessageReceived.connect(self._on_socket_text)
            sock.binaryMessageReceived.connect(self._on_socket_binary)
            sock.pong.connect(self._on_socket_pong)
            sock.aboutToClose.connect(self._on_socket_closing)
            sock.disconnected.connect(self._on_socket_disconnected)
            wait = self._guesses.wait(key, now)
            if wait > 0:
                self._log_stranger(key, f"refused a connection from {shown}: too many wrong join codes from there")
                self._close(sock, self._locked_out(wait))
                continue
            query = QUrlQuery(sock.requestUrl())
            if query.hasQueryItem(JOIN_QUERY):  # the code came with the handshake: no time as a stranger
                self._claim(sock, query.queryItemValue(JOIN_QUERY, QUrl.ComponentFormattingOption.FullyDecoded))
                continue
            for old in self._strangers.admit(sock, key, now):
                old_shown = self._peers.get(id(old), ("", "?"))[1]
                self._log_stranger(key, f"closed a connection from {old_shown} that had not joined, to make room "
                                        "for a new one")
                self._close(old, "closed to make room for a new connection: join with your code at once")

    @staticmethod
    def _locked_out(wait: float) -> str:
        return (f"too many wrong join codes from this computer; try again in {math.ceil(wait)} s "
                "(check the code with the researcher)")

    def _sweep(self) -> None:
        """Once a second: close connections that did not say hello in time and cut those that take
        too long to close; ping the seats and drop one that went silent; write the log's summaries."""
        now = self.clock()
        for sock in self._strangers.older_than(now - HELLO_SECONDS):
            key, shown = self._peers.get(id(sock), ("?", "?"))
            self._log_stranger(key, f"closed a connection from {shown}: no hello within {HELLO_SECONDS:g} s")
            self._close(sock, f"no hello with a join code within {HELLO_SECONDS:g} s")
        for sock, since in list(self._closing.values()):
            if now - since > CLOSING_SECONDS:
                sock.abort()
                if id(sock) in self._closing and sock.state() == QAbstractSocket.SocketState.UnconnectedState:
                    self._on_disconnected(sock)  # gone without a word: forget it all the same
        ping = now - self._pinged >= PING_SECONDS
        if ping:
            self._pinged = now
        for slot in self.slots:
            sock = slot.socket
            if sock is None:
                continue
            if now - self._heard.get(id(sock), now) > SILENT_SECONDS:
                self.logged.emit(f"participant {slot.index + 1} ({slot.participant}): no answer for "
                                 f"{SILENT_SECONDS:g} s; counted as dropped")
                sock.abort()
                if slot.socket is sock:  # Qt told nothing of the end: the seat is free all the same
                    self._on_disconnected(sock)
            elif ping:
                sock.ping()
        for limit in (self._stranger_log, *self._seat_logs):
            summary = limit.summary(now)
            if summary:
                self.logged.emit(summary)

    def _log_stranger(self, key: str, line: str) -> None:
        """A line about a connection that has not joined, if the log's rate allows it now."""
        now = self.clock()
        summary = self._stranger_log.summary(now)
        if summary:
            self.logged.emit(summary)
        if self._stranger_log.line(key, now):
            self.logged.emit(line)

    def _log_seat(self, slot: Slot, line: str) -> None:
        limit, now = self._seat_logs[slot.index], self.clock()
        summary = limit.summary(now)
        if summary:
            self.logged.emit(summary)
        if limit.line(slot.participant, now):
            self.logged.emit(line)

    def _on_server_error(self, *error: Any) -> None:
        """A connection that failed before it was one: its WebSocket or TLS handshake."""
        self._log_stranger("?", f"a connection failed its handshake: {_plain(self.server.errorString())}")

    def _on_socket_text(self, text: str) -> None:
        sock = self.sender()
        if not isinstance(sock, QWebSocket):
            return
        try:
            self._on_text(sock, text)
        except Exception as exc:  # noqa: BLE001 - the last guard: no message may end the host
            key, shown = self._peers.get(id(sock), ("?", "?"))
            self._log_stranger(key, f"internal error on a message from {shown}: {type(exc).__name__}: "
                                    f"{_plain(str(exc))}; its connection is closed")
            self._close(sock, "the host could not handle this message")

    def _on_socket_binary(self, data: Any) -> None:
        sock = self.sender()
        if not isinstance(sock, QWebSocket) or id(sock) in self._closing:
            return
        slot = self._slot_of(sock)
        reason = "a binary frame; expected text frames holding JSON messages"
        if slot is None:
            key, shown = self._peers.get(id(sock), ("?", "?"))
            self._strangers.forget(sock)
            self._log_stranger(key, f"closed a connection from {shown}: {reason}")
            self._close(sock, reason)
        else:
            self._heard[id(sock)] = self.clock()
            self._log_seat(slot, f"participant {slot.index + 1} ({slot.participant}): refused {reason}")
            self._send(slot, "refused", reason=reason)

    def _on_socket_pong(self, *_: Any) -> None:
        sock = self.sender()
        if isinstance(sock, QWebSocket) and self._slot_of(sock) is not None:
            self._heard[id(sock)] = self.clock()

    def _on_socket_closing(self) -> None:
        """A connection closes. Closed by Qt (a frame too long or not of the WebSocket protocol) or
        by the other end, it is cut at once: what it still has in flight is never read (Qt would
        otherwise go on reading a closed connection's rest, freezing the host for a minute and
        more). Closed by the host (``_close``), it may take CLOSING_SECONDS to deliver the reason."""
        sock = self.sender()
        if isinstance(sock, QWebSocket) and sock in self._sockets and id(sock) not in self._closing:
            self._strangers.forget(sock)
            self._closing[id(sock)] = (sock, self.clock())
            sock.abort()

    def _on_socket_disconnected(self) -> None:
        sock = self.sender()
        if isinstance(sock, QWebSocket):
            self._on_disconnected(sock)

    def _slot_of(self, sock: QWebSocket) -> Slot | None:
        return next((s for s in self.slots if s.socket is sock), None)

    def _send(self, slot: Slot, kind: str, **fields: Any) -> None:
        if slot.socket is not None:
            slot.socket.sendTextMessage(encode(kind, **fields))

    def _close(self, sock: QWebSocket, reason: str, version: int = PROTOCOL_VERSION) -> None:
        """Tell a connection why (a ``refused`` message, in the protocol ``version`` it speaks) and
        close it; a seat it held is free at once."""
        self._strangers.forget(sock)
        self._closing.setdefault(id(sock), (sock, self.clock()))
        sock.sendTextMessage(refusal(reason, version))
        sock.close(QWebSocketProtocol.CloseCode.CloseCodePolicyViolated, reason[:100])
        slot = self._slot_of(sock)
        if slot is not None:
            self._dropped(slot)

    def _on_text(self, sock: QWebSocket, text: str) -> None:
        if id(sock) in self._closing or sock not in self._sockets:
            return  # closed already: what it still sends is not read
        slot = self._slot_of(sock)
        if slot is None:
            self._on_stranger_text(sock, text)
            return
        self._heard[id(sock)] = self.clock()
        source = f"message from participant {slot.index + 1}"
        try:
            message = decode(text, source, SEAT_MESSAGES, limit=MAX_SEAT_MESSAGE_BYTES)
        except VersionMismatch as exc:  # an app of another version cannot play: its seat is free again
            self._log_seat(slot, f"participant {slot.index + 1} ({slot.participant}): closed, {_plain(str(exc))}")
            self._close(sock, str(exc), exc.version if exc.older else PROTOCOL_VERSION)
            return
        except ProtocolError as exc:
            self._log_seat(slot, f"participant {slot.index + 1} ({slot.participant}): refused {_plain(str(exc))}")
            self._send(slot, "refused", reason=str(exc))
            return
        if message["type"] == "hello":  # one connection, one seat: its own code again is nothing new
            if self._seat_of_code(message["code"]) is not slot:
                key, shown = self._peers.get(id(sock), ("?", "?"))
                self._guesses.wrong(key, self.clock())
                self._log_seat(slot, f"participant {slot.index + 1} ({slot.participant}): said hello with another "
                                     "join code; closed")
                self._close(sock, NOT_ACCEPTED)
            return
        getattr(self, "_on_" + message["type"])(slot, message)

    def _seat_of_code(self, code: Any) -> Slot | None:
        """The slot whose join code ``code`` spells, or None (the same work for every code)."""
        key = read_join_code(code) or "-" * len(self._keys[0])
        found = None
        for slot, expected in zip(self.slots, self._keys):
            if secrets.compare_digest(key.encode("ascii"), expected.encode("ascii")):
                found = slot
        return found

    def _on_stranger_text(self, sock: QWebSocket, text: str) -> None:
        """The first message of a connection that has not joined: a valid ``hello`` with a join code
        whose seat is free joins it; anything else closes the connection."""
        key, shown = self._peers.get(id(sock), ("?", "?"))
        try:
            message = decode(text, f"message from {shown}", SEAT_MESSAGES, limit=MAX_SEAT_MESSAGE_BYTES)
        except ProtocolError as exc:
            self._log_stranger(key, f"closed a connection from {shown}: {_plain(str(exc))}")
            self._close(sock, str(exc), exc.version if isinstance(exc, VersionMismatch) and exc.older
                        else PROTOCOL_VERSION)
            return
        if message["type"] != "hello":
            self._log_stranger(key, f"closed a connection from {shown}: a {message['type']} message before hello")
            self._close(sock, "say hello with your join code first")
            return
        self._claim(sock, message["code"])

    def _claim(self, sock: QWebSocket, code: Any) -> None:
        """A connection that has not joined gives a join code (in its ``hello``, or in the URL it
        opened): it joins that code's seat if the seat is free, or is refused with ``NOT_ACCEPTED``
        and closed; while its address has no wrong codes left, the code is not even read."""
        key, shown = self._peers.get(id(sock), ("?", "?"))
        now = self.clock()
        wait = self._guesses.wait(key, now)
        if wait > 0:
            self._log_stranger(key, f"refused a join code from {shown} unread: too many wrong ones from there")
            self._close(sock, self._locked_out(wait))
            return
        slot = self._seat_of_code(code)
        if slot is None or slot.socket is not None:
            self._guesses.wrong(key, now)
            self._log_stranger(key, f"refused a join code from {shown} ({self._guesses.left(key, now)} more tries "
                                    "before it must wait)")
            self._close(sock, NOT_ACCEPTED)
            return
        self._strangers.forget(sock)
        self._join(slot, sock)

    def _join(self, slot: Slot, sock: QWebSocket) -> None:
        """``sock`` gave ``slot``'s code: it holds that seat (again, after a drop)."""
        self._heard[id(sock)] = self.clock()
        rejoin = slot.joined
        slot.socket, slot.joined = sock, True
        self.logged.emit(f"participant {slot.index + 1} ({slot.participant}) {'re' if rejoin else ''}joined")
        self._send(slot, "welcome", participant=slot.participant, seat=self._seat_name(slot), study=self.study.title,
                   pair=self.pair)
        self._show_current(slot)
        if self.paused and all(s.socket is not None for s in self.slots):
            self.paused = False
            for other in self.slots:
                self._send(other, "resumed")
            self.logged.emit("both participants are back: the episode goes on")
        self.changed.emit()

    def _on_disconnected(self, sock: QWebSocket) -> None:
        slot = self._slot_of(sock)
        if sock in self._sockets:
            self._sockets.remove(sock)
        self._peers.pop(id(sock), None)
        self._strangers.forget(sock)
        self._closing.pop(id(sock), None)
        self._heard.pop(id(sock), None)
        sock.deleteLater()
        if slot is not None:
            self._dropped(slot)

    def _dropped(self, slot: Slot) -> None:
        """``slot``'s connection is gone: the seat waits for its participant to join again."""
        slot.socket = None
        self.logged.emit(f"participant {slot.index + 1} ({slot.participant}) dropped")
        stage = self.stage
        if stage is not None and stage.kind == "episode" and not self.finished:
            self.paused = True
            for other in self.slots:
                self._send(other, "paused", reason="the other participant's connection dropped; waiting for them "
                                                   "to join again")
        self.changed.emit()

    def _seat_name(self, slot: Slot) -> str:
        if self.session is not None:
            return self.session.world.agents[slot.index]
        return f"player {slot.index + 1}"

    # ------------------------------------------------------------------ stages

    def _advance(self) -> None:
        """Go to the next stage and show it to both."""
        self.stage_index += 1
        for slot in self.slots:
            slot.answered.clear()
        stage = self.stage
        if stage is None:
            return
        self.logged.emit(f"stage {self.stage_index + 1}/{len(self.stages)}: {stage.kind}")
        if stage.kind == "episode":
            assert stage.trial is not None
            self._start_episode(stage.trial, stage.tutorial)
        elif stage.kind == "done":
            self.finished = True
            self.answers.close()
            self.episodes.close()
            self.ended.emit()
        for slot in self.slots:
            self._show_current(slot)
        self.changed.emit()

    def _page_for(self, slot: Slot) -> dict[str, Any] | None:
        stage = self.stage
        if stage is None or stage.kind == "episode":
            return None
        if self._page_id() in slot.answered:
            return {"kind": "wait", "id": self._page_id(), "title": "Please wait",
                    "text": "Waiting for the other participant..."}
        if stage.kind == "reveal":
            return {"kind": "reveal", "id": self._page_id(), **self._reveal_page(slot)}
        return {"kind": stage.kind, "id": self._page_id(), **(stage.page or {})}

    def _show_current(self, slot: Slot) -> None:
        if slot.socket is None:
            return
        stage = self.stage
        if stage is not None and stage.kind == "episode" and self.session is not None:
            self._send(slot, "frame", frame=self._frame(slot.index, self._last_state))
            for text in slot.open_feedback.values():
                slot.socket.sendTextMessage(text)
            if self.paused:
                self._send(slot, "paused", reason="waiting for the other participant to join again")
            else:
                self._tell_wait(slot)
            return
        page = self._page_for(slot)
        if page is not None:
            self._send(slot, "page", page=page)

    def _on_continue(self, slot: Slot, message: dict[str, Any]) -> None:
        stage = self.stage
        if stage is None or stage.kind in ("episode", "questionnaire", "done") or message["page_id"] != self._page_id():
            return  # a late click on a page already left
        self._answered(slot)

    def _on_answer(self, slot: Slot, message: dict[str, Any]) -> None:
        stage = self.stage
        if stage is None or stage.kind != "questionnaire" or message["page_id"] != self._page_id():
            return
        if self._page_id() in slot.answered:
            return
        q, answers = self.study.questionnaire, message["answers"]
        ids = [i.id for i in q.items]
        missing = [i for i in ids if i not in answers]
        unknown = [k for k in answers if k not in ids]
        bad = [k for k in ids if k in answers and (isinstance(answers[k], bool) or not isinstance(answers[k], int)
                                                   or not 1 <= answers[k] <= q.scale.points)]
        if missing or unknown or bad:
            reason = (f"please answer every statement ({', '.join(missing)})" if missing else
                      f"unknown item {unknown[0]!r:.40}" if unknown else
                      f"answers are 1 to {q.scale.points}; {bad[0]} is not")
            self._send(slot, "refused", reason=reason)
            return
        trial = stage.trial
        assert trial is not None
        for item in ids:
            self.answers.add({"study": self.study.study, "pair": self.pair_name, "participant": slot.participant,
                              "seat": self.session.world.agents[slot.index] if self.session else "",
                              "condition": trial.condition, "trial": trial.number, "scenario": trial.scenario,
                              "item": item, "answer": answers[item], "scale_points": q.scale.points})
        self._answered(slot)

    def _answered(self, slot: Slot) -> None:
        slot.answered.add(self._page_id())
        if all(self._page_id() in s.answered for s in self.slots):
            self._advance()
        else:
            self._show_current(slot)
            self.changed.emit()

    def _reveal_page(self, slot: Slot) -> dict[str, Any]:
        assert self.session is not None
        agents = self.session.world.agents
        seat = agents[slot.index]
        world = self.session.world
        shown = reveal(self.episode_events, self.session.outcome(), seat, agents, goals=dict(world.goals))
        rv = self.study.reveal
        if world.family == "dkg":
            goal, who = "goal gem", "player"
            finished = "The episode was completed: both of you held your gems."
        else:
            goal, who = "dish", "cook"
            finished = "The episode was completed: both dishes were delivered."
        lines = [f"You were {seat}; your {goal}: {self._goal_words(shown['own_goal']) or 'none'}."]
        if rv.other_goal:
            lines += [f"The other {who}, {o['name']}, had to " + ("make" if who == "cook" else "get") +
                      f": {self._goal_words(o['goal']) or 'nothing (a helper)'}." for o in shown["others"]]
        outcomes = [self._outcome_words(o, world.family) for o in shown["outcomes"]] if rv.completion else []
        if rv.completion:
            # both outcomes, every player in the level's order, in the same words on both screens
            if shown["completed"]:
                lines.append(finished)
            else:
                limit = self._max_ticks if self._max_ticks is not None else world.t_max
                why = (" (the game was stopped)" if shown["stopped"] else
                       f" (the step limit, {min(limit, world.t_max)} steps, was reached)" if shown["ticks"] >= min(limit, world.t_max)
                       else "")
                lines.append(f"The episode was not completed{why}:")
            lines += [f"  {line}" for line in outcomes]
        if rv.feedback_history:
            lines.append("Suggestions in this episode:" if shown["feedback"] else "There were no suggestions.")
            shown_fb = [{**f, "text": feedback_words(world, f["payload"], f["text"]),
                         "explanation": explanation_words(world, f["explanation"])} for f in shown["feedback"]]
            lines += [f"  step {f['tick']}, to {f['to']}: {f['text']} - {f['status']}" for f in shown_fb]
        else:
            shown_fb = []
        return {"title": "The episode is over", "text": "\n".join(lines), "feedback": shown_fb,
                "other_goals": {o["name"]: o["goal"] for o in shown["others"]} if rv.other_goal else {},
                "completed": shown["completed"] if rv.completion else None, "outcomes": outcomes}

    def _goal_words(self, goal: str) -> str:
        """A goal in words: "the onion dish", "the pink gem (gem2)"."""
        assert self.session is not None
        world = self.session.world
        if world.family == "dkg":
            i = world.item_index.get(goal)
            return f"the {world.items[i].color} gem ({goal})" if i is not None else goal
        return kitchen_recipe_words(goal)

    @staticmethod
    def _outcome_words(outcome: dict[str, Any], family: str) -> str:
        """One player's outcome, worded the same whoever reads it."""
        name = outcome["name"]
        if family == "dkg":
            if not outcome["wanted"]:
                return f"{name} had no gem to get (a helper)."
            return f"{name} held their gem at the end." if outcome["delivered"] else f"{name} did not get their gem."
        if outcome["delivered"]:
            return f"{name} delivered their dish" + (f" at step {outcome['tick']}." if outcome["tick"] is not None else ".")
        return f"{name} did not deliver their dish."

    # ------------------------------------------------------------------ episodes

    def _start_episode(self, trial: Trial, tutorial: bool) -> None:
        study = self.study
        world, scenario = load_scenario(trial.scenario)
        if tutorial:
            assert study.tutorial is not None
            specs, max_ticks, assistant = study.tutorial.mechanisms, study.tutorial.max_ticks, ""
        else:
            condition = study.condition(trial.condition)
            specs, max_ticks, assistant = condition.mechanisms, study.max_ticks, condition.codename
        seats = {a: HumanAgent(name=self.slots[k].participant) for k, a in enumerate(world.agents)}
        seed = study.order.seed + 1000 * self.pair + trial.number
        session = Session(world, seats, seed=seed, scenario=scenario,
                          mechanisms=catalog.make_mechanisms(list(specs), world), max_ticks=max_ticks,
                          questions=load_questions(trial.scenario))
        name = "tutorial" if tutorial else f"trial-{trial.number:02d}-{trial.condition}"
        self.recording = self.out / "recordings" / self.pair_name / f"{name}-{scenario}.jsonl"
        self.session, self.episode_events = session, []
        self._last_state = session.state
        self._max_ticks, self._assistant = max_ticks, assistant
        for slot in self.slots:
            slot.open_feedback.clear()
        self.paused = any(s.socket is None for s in self.slots)
        self._wait, self._wait_told, self._wait_since = (0, (), ""), (0, (), ""), time.monotonic()
        runner = SessionRunner(session, speed=self.speed, playing=True, recording_path=str(self.recording),
                               parent=self)
        runner.published.connect(self._on_batch)
        self.runner = runner
        runner.start()
        self._waiter.start()

    def _frame(self, index: int, state: Any) -> dict[str, Any]:
        assert self.session is not None
        world = self.session.world
        return seat_frame(world, state, world.agents[index], max_ticks=self._max_ticks, assistant=self._assistant)

    def _on_key(self, slot: Slot, message: dict[str, Any]) -> None:
        stage, runner, session = self.stage, self.runner, self.session
        if stage is None or stage.kind != "episode" or runner is None or session is None or session.finished:
            return
        seat = session.world.agents[slot.index]
        action = message["action"]
        if self.paused:
            self._send(slot, "refused", reason="the game is paused until the other participant is back")
        elif seat not in session.world.active_agents(self._last_state) and not session.world.done(self._last_state):
            self._send(slot, "refused", reason="it is the other player's turn")
        elif action not in session.world.legal_actions(self._last_state, seat):
            self._send(slot, "refused", reason=f"{action!r:.40} is not a move here")
        elif seat in runner.submitted_since_step():
            self._send(slot, "note", text="waiting for the other player's move")
        else:
            runner.submit_human(seat, action)
            self._look_at_wait()

    def _on_decide(self, slot: Slot, message: dict[str, Any]) -> None:
        runner, session = self.runner, self.session
        fid = message["feedback_id"]
        if runner is None or session is None or fid not in slot.open_feedback:
            return
        del slot.open_feedback[fid]
        runner.decide_feedback(session.world.agents[slot.index], fid, bool(message["accept"]))

    def _on_batch(self, batch: Batch) -> None:
        runner, session = self.runner, self.session
        if self.sender() is not runner or session is None or runner is None:
            return
        agents = session.world.agents
        self.episode_events.extend(batch.events)
        for event in batch.events:
            if isinstance(event, FeedbackEvent) and event.target in agents:
                if event.feedback_id in runner.auto_declined:
                    continue
                slot = self.slots[agents.index(event.target)]
                text = encode("feedback", feedback_id=event.feedback_id,
                              text=feedback_words(session.world, event.feedback, event.text),
                              explanation=explanation_words(session.world, event.explanation),
                              facilitator=self._assistant or "the assistant", payload=dict(event.feedback))
                slot.open_feedback[event.feedback_id] = text
                if slot.socket is not None:
                    slot.socket.sendTextMessage(text)
            elif isinstance(event, FeedbackStatusEvent) and event.agent in agents:
                slot = self.slots[agents.index(event.agent)]
                slot.open_feedback.pop(event.feedback_id, None)
                self._send(slot, "feedback_status", feedback_id=event.feedback_id, status=event.status)
            elif isinstance(event, MessageEvent):
                for a in event.recipients:
                    if a in agents:
                        self._send(self.slots[agents.index(a)], "message", sender=event.sender, text=event.text)
        if batch.state is not None:
            self._last_state = batch.state
            for slot in self.slots:
                self._send(slot, "frame", frame=self._frame(slot.index, batch.state))
            self.watched.emit(experimenter_frame(session.world, batch.state, max_ticks=self._max_ticks))
            self._look_at_wait()
        if batch.finished:
            self._episode_over()

    # ------------------------------------------------------------------ whom the game waits for

    def _wait_now(self) -> tuple[int, tuple[str, ...], str]:
        """(the step, the players whose move is missing, ""), or (the step, (), the assistant) once
        both moved and the step is being worked out (a facilitator deciding on its suggestions), or
        (-1, (), "") when nothing is waited for."""
        runner, session, state = self.runner, self.session, self._last_state
        if runner is None or session is None or state is None or self.paused or session.finished:
            return -1, (), ""
        world = session.world
        if world.done(state) or (self._max_ticks is not None and state.t >= self._max_ticks):
            return -1, (), ""
        moved = runner.submitted_since_step()
        players = tuple(a for a in world.active_agents(state) if a not in moved)
        return (state.t, players, "") if players else (state.t, (), self._assistant)

    def _look_at_wait(self) -> None:
        """Tell both seats when whom the game waits for changed (an assistant only once it has
        thought for ``ASSISTANT_CUE_SECONDS``)."""
        now = time.monotonic()
        wait = self._wait_now()
        if wait != self._wait:
            self._wait, self._wait_since = wait, now
        told = wait if not wait[2] or now - self._wait_since >= ASSISTANT_CUE_SECONDS else (wait[0], (), "")
        if told != self._wait_told:
            self._wait_told = told
            for slot in self.slots:
                self._tell_wait(slot)

    def _tell_wait(self, slot: Slot) -> None:
        _step, players, assistant = self._wait_told
        seconds = int(time.monotonic() - self._wait_since) if players or assistant else 0
        self._send(slot, "waiting", players=list(players), assistant=assistant, seconds=seconds)

    def _episode_over(self) -> None:
        self._waiter.stop()
        session, stage = self.session, self.stage
        assert session is not None and stage is not None and stage.trial is not None
        outcome = session.outcome()
        last = next((e for e in reversed(self.episode_events) if type(e).__name__ == "OutcomeEvent"), None)
        if last is not None:
            outcome = dict(last.outcome)
        self.runner = None
        trial = stage.trial
        self.episodes.add({"study": self.study.study, "pair": self.pair_name, "trial": trial.number,
                           "condition": "tutorial" if stage.tutorial else trial.condition,
                           "scenario": trial.scenario,
                           "recording": str(self.recording.relative_to(self.out)) if self.recording else "",
                           "participants": ";".join(s.participant for s in self.slots),
                           "success": bool(outcome.get("success")), "length": outcome.get("length") or "",
                           "ticks": outcome.get("ticks", ""), "stopped": bool(outcome.get("stopped"))})
        self.paused = False
        self.logged.emit(f"episode over: {'completed' if outcome.get('success') else 'not completed'} "
                         f"after {outcome.get('ticks')} steps")
        self._advance()  # the tutorial has no reveal stage: the next game's page follows

    # ------------------------------------------------------------------ the end

    def shutdown(self) -> None:
        """Stop a running episode (its recording gets its footer) and close every connection."""
        self._sweeper.stop()
        self._waiter.stop()
        if self.runner is not None:
            self.runner.stop(10.0)
            self.runner = None
        for sock in self._sockets:  # quietly: nothing is told of these drops any more
            sock.blockSignals(True)
            sock.flush()  # what was sent last (the study's last page) still goes out
            sock.close(QWebSocketProtocol.CloseCode.CloseCodeGoingAway, "the study host stopped")
        self._sockets.clear()
        self._peers.clear()
        self._closing.clear()
        for slot in self.slots:
            slot.socket = None
        self.server.close()
        if not self.finished:
            self.answers.close()
            self.episodes.close()
