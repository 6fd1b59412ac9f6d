"""The study host against strangers on the network (docs/study.md, "Threat model").

The attacks run against a real headless host (``main.py study host`` as its own process, no display,
listening on 127.0.0.1) from raw sockets (``tests/ws_raw.py``) bound to other loopback addresses,
each one more stranger: a non-ASCII join code, an oversize frame, a dozen reconnecting idle
connections while participants join, a taken code, one connection asking for both seats, guessing,
a flood of bad connections against the log; then a hypothesis fuzz of frames and messages, after
which two participants with valid codes still join and play the study to its end. The rules
themselves (join codes, guesses, stranger caps, the log's rate) are checked in-process, and
``wss://`` with a self-signed certificate made for the test.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.study_support import RANDOM_OR_NONE, AppProcess, poll, write_study
from tests.ws_raw import BINARY, CLOSE, CONTINUATION, PING, PONG, TEXT, IdleCrowd, RawSocket, frame, text_frame
from ui.net import guard
from ui.net.host import NOT_ACCEPTED
from ui.net.protocol import (
    CODE_ALPHABET,
    CODE_LENGTH,
    HOST_MESSAGES,
    MAX_SEAT_MESSAGE_BYTES,
    PROTOCOL_VERSION as V,
    decode,
    new_join_code,
    read_join_code,
)

CODES = ("1111-1111", "2222-2222")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class HeadlessHost:
    """``main.py study host STUDY --listen 127.0.0.1 --codes 1111-1111 2222-2222`` with no display:
    how a lab server runs it."""

    def __init__(self, tmp_path: Path, *, trials: int = 1, extra: tuple[str, ...] = ()) -> None:
        study = write_study(tmp_path, trials=trials, max_ticks=3, tutorial=False, conditions=RANDOM_OR_NONE)
        self.port = _free_port()
        self.out = tmp_path / "out"
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
        env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONUNBUFFERED="1")
        self.app = AppProcess(["study", "host", str(study), "--port", str(self.port), "--listen", "127.0.0.1",
                               "--out", str(self.out), "--codes", *CODES, *extra], env, tmp_path / "host.out")
        # the host is ready once it printed the last participant's join command (after its listening line)
        poll(lambda: "participant 2: " in self.app.text() or not self.alive(), "the host to listen", [self.app])
        assert self.alive(), self.app.text()

    def alive(self) -> bool:
        assert self.app.proc is not None
        return self.app.proc.poll() is None

    def lines(self) -> list[str]:
        return self.app.text().splitlines()

    def stop(self) -> int | None:
        return self.app.stop()


@pytest.fixture
def host(tmp_path):
    running = HeadlessHost(tmp_path)
    yield running
    running.stop()
    text = running.app.text()
    assert "Traceback" not in text and "internal error" not in text, text[-3000:]


def _join(port: int, code: str, source: str = "127.0.0.1", *, url: bool = False) -> tuple[RawSocket, Any]:
    """A participant's connection: hello with ``code`` (with ``url``, the code in the handshake's URL
    first, as the participant's app opens it); the socket and what came back."""
    sock = RawSocket(port, source, timeout=10, path=f"/?code={code}" if url else "/")
    sock.hello(code)
    reply = sock.read(60, until=lambda r: "welcome" in r.kinds() or r.refusals())
    return sock, reply


def _refusal_of(port: int, code: Any, source: str) -> tuple[list[Any], int | None]:
    """What a stranger saying hello with ``code`` gets back: the messages and the close code."""
    sock = RawSocket(port, source)
    try:
        sock.hello(code)
        reply = sock.read(60)
    finally:
        sock.close()
    assert reply.closed
    return reply.messages, reply.close_code


# ------------------------------------------------------------------ the rules, in-process


def test_join_codes_carry_40_bits_and_read_as_people_type_them():
    assert len(CODE_ALPHABET) == 32 and CODE_LENGTH * 5 >= 40
    drawn = {new_join_code() for _ in range(200)}
    assert len(drawn) == 200
    for code in drawn:
        assert len(code) == 9 and code[4] == "-" and read_join_code(code) == code.replace("-", "")
    assert read_join_code("7kqm-x4pa") == read_join_code("7KQM X4PA") == read_join_code(" 7kqmx4pa ") == "7KQMX4PA"
    assert read_join_code("1O1I-1L11") == "10111111"  # O reads as 0, I and L as 1
    for bad in ("7KQM-X4P", "7KQM-X4PAA", "7KQM-X4PU", "7KQM-X4P\u00e9", "\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668",
                "7KQM\udc80X4PA", "", 12345678, None, ["7KQMX4PA"], "7" * 1000):
        assert read_join_code(bad) is None, bad


def test_guesses_strangers_and_the_log_limit_count_as_documented():
    assert guard.address_key("::ffff:10.0.0.7") == "10.0.0.7"
    assert guard.address_key("2001:db8:1:2:aaaa::1") == guard.address_key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert guard.address_key("10.0.0.7") != guard.address_key("10.0.0.8")

    guesses = guard.Guesses(guesses=5, seconds=30.0)
    for k in range(5):
        assert guesses.wait("a", 0.0) == 0 and guesses.left("a", 0.0) == 5 - k
        guesses.wrong("a", 0.0)
    assert guesses.wait("a", 1.0) == pytest.approx(29.0) and guesses.wait("b", 1.0) == 0
    assert guesses.wait("a", 30.0) == 0 and guesses.left("a", 30.0) == 1  # one more every 30 s
    guesses.wrong("a", 30.0)
    assert guesses.wait("a", 45.0) == pytest.approx(15.0)
    assert guesses.left("a", 30.0 + 5 * 30.0) == 5 and not guesses._buckets  # forgotten once whole again
    small = guard.Guesses(guesses=2, seconds=10.0, tracked=3)
    for n in range(10):
        small.wrong(f"x{n}", float(n))
    assert len(small._buckets) <= 3

    strangers: guard.Strangers[str] = guard.Strangers(per_address=2, total=3)
    assert strangers.admit("a1", "A", 0.0) == [] and strangers.admit("a2", "A", 1.0) == []
    assert strangers.admit("a3", "A", 2.0) == ["a1"]  # the address's oldest makes room
    assert strangers.admit("b1", "B", 3.0) == []
    assert strangers.admit("c1", "C", 4.0) == ["a2"]  # the oldest of all makes room
    assert len(strangers) == 3 and sorted(strangers.older_than(3.5)) == ["a3", "b1"]
    strangers.forget("b1")
    assert "b1" not in strangers and "c1" in strangers

    log = guard.LogLimit(lines=3, seconds=60.0)
    assert [log.line(f"10.0.0.{n}", float(n)) for n in range(6)] == [True] * 3 + [False] * 3
    assert log.summary(30.0) is None
    summary = log.summary(61.0)
    assert summary is not None and summary.startswith("3 more lines about connections that did not join (from 3 "
                                                      "addresses) in the last 61 s")
    assert log.summary(200.0) is None and log.line("x", 200.0)


# ------------------------------------------------------------------ attacks on a headless host


@pytest.mark.slow
def test_a_non_ascii_code_and_bad_messages_do_not_end_the_host(host):
    for n, code in enumerate(["1111-111\u00e9", "\u0661\u0662\u0663\u0664-\u0665\u0666\u0667\u0668",
                              "\ud800\udc00" * 4, 11111111, None, ["1111-1111"], {"code": 1}, "1" * 5000, 1e308]):
        messages, _ = _refusal_of(host.port, code, f"127.0.3.{n + 1}")
        assert messages, code
        assert messages[-1]["type"] == "refused" and messages[-1]["reason"], messages
    for n, text in enumerate([f'{{"v":{V},"type":"hello","code":"1111-1111"', "[" * 5000, f'{{"v":{V},"type":"hello","code":'
                              + "9" * 5000 + "}", '{"v":1e999,"type":"hello","code":"x"}', '"\\ud800"', "null",
                              f'{{"v":{V},"type":"key","action":"up"}}', "\u00e9" * 3000]):
        sock = RawSocket(host.port, f"127.0.4.{n + 1}")
        sock.send(text_frame(text))
        reply = sock.read(60)
        sock.close()
        assert reply.closed and reply.refusals(), (text[:40], reply)
    assert host.alive()
    sock, reply = _join(host.port, "1111 1111")  # with a space instead of the dash
    assert "welcome" in reply.kinds(), reply
    sock.close()


@pytest.mark.slow
def test_an_oversize_frame_closes_its_connection_unbuffered(host):
    """A frame announcing more than 16 KiB is refused from its header: the host closes the
    connection without waiting for (or buffering) the payload, and answers others meanwhile."""
    for n, size in enumerate([MAX_SEAT_MESSAGE_BYTES + 1, 256 * 1024 + 1, 1 << 31, (1 << 63) - 1]):
        big = RawSocket(host.port, f"127.0.5.{n + 1}")
        big.send(frame(TEXT, b"x" * 1024, length=size))  # the header, and only 1 KiB of what it announces
        reply = big.read(60)
        assert reply.closed, size
        big.close()
    # a whole 300 KiB frame on one connection while another is answered
    big = RawSocket(host.port, "127.0.5.9")
    sent = big.send(text_frame(f'{{"v":{V},"type":"hello","code":"' + "x" * 300 * 1024 + '"}'))
    other_messages, _ = _refusal_of(host.port, "ZZZZ-ZZZZ", "127.0.5.10")
    assert other_messages[-1]["reason"] == NOT_ACCEPTED
    assert big.read(60).closed or not sent
    big.close()
    assert host.alive()
    sock, reply = _join(host.port, CODES[0])
    assert "welcome" in reply.kinds()
    sock.close()


@pytest.mark.slow
def test_a_dozen_idle_connections_do_not_keep_participants_out(host):
    """Twelve idle connections from the participants' own address, each opened again the moment
    the host closes it: every join with a valid code the way the participant's app joins (the code
    in the handshake's URL) gets in, and so does every plain ``hello`` from another address."""
    crowd = IdleCrowd(host.port)
    try:
        poll(lambda: crowd.opened >= 12, "the idle connections", [host.app])
        joined = 0
        for n in range(20):
            sock, reply = _join(host.port, CODES[n % 2], url=True)
            joined += "welcome" in reply.kinds()
            sock.close()
        assert joined == 20
        for n in range(10):
            sock, reply = _join(host.port, CODES[n % 2], "127.0.2.1")
            joined += "welcome" in reply.kinds()
            sock.close()
        assert joined == 30
        assert crowd.opened > 12  # the host closed idle ones to let the participants in, and they came back
    finally:
        crowd.stop()
    assert host.alive()


@pytest.mark.slow
def test_a_taken_code_gets_the_same_reply_as_an_unknown_one_and_one_connection_holds_one_seat(host):
    first, reply = _join(host.port, CODES[0])
    assert "welcome" in reply.kinds()
    taken = _refusal_of(host.port, CODES[0], "127.0.6.1")
    unknown = _refusal_of(host.port, "ZZZZ-ZZZZ", "127.0.6.2")
    mistyped = _refusal_of(host.port, "not a code", "127.0.6.3")
    assert taken == unknown == mistyped == ([{"v": V, "type": "refused", "reason": NOT_ACCEPTED}], 1008)
    # the joined connection asks for the other seat too: the same reply, and it is closed
    first.hello(CODES[1])
    reply = first.read(60)
    assert reply.closed and reply.refusals() == [NOT_ACCEPTED]
    assert sum(m["type"] == "welcome" for m in reply.messages) == 1
    # the other seat is still free for its participant, and the first seat for its own again
    second, reply2 = _join(host.port, CODES[1])
    assert "welcome" in reply2.kinds()
    again, reply1 = _join(host.port, CODES[0])
    assert "welcome" in reply1.kinds()
    seats = {m["seat"] for r in (reply, reply1, reply2) for m in r.messages if m["type"] == "welcome"}
    assert len(seats) == 2
    second.close()
    again.close()
    first.close()


@pytest.mark.slow
def test_guesses_are_limited_per_address(host):
    """Five wrong codes from one address; then even the right code is refused unread there, while
    another address joins."""
    for n in range(guard.GUESSES):
        messages, _ = _refusal_of(host.port, f"ZZZZ-ZZZ{n}", "127.0.7.1")
        assert messages[-1]["reason"] == NOT_ACCEPTED
    sock = RawSocket(host.port, "127.0.7.1")
    reply = sock.read(60)  # refused at once, before any hello
    sock.close()
    assert reply.closed and "too many wrong join codes" in reply.refusals()[0]
    messages, _ = _refusal_of(host.port, CODES[0], "127.0.7.1")
    assert "too many wrong join codes" in messages[-1]["reason"]
    sock, reply = _join(host.port, CODES[0], "127.0.7.2")
    assert "welcome" in reply.kinds()
    sock.close()


@pytest.mark.slow
def test_strangers_cannot_flood_the_log(host):
    before = len(host.lines())
    for n in range(40):
        sock = RawSocket(host.port, f"127.0.8.{n + 1}")
        sock.send(text_frame("not json"))
        sock.read(60)
        sock.close()
    sock, reply = _join(host.port, CODES[1])  # a line the log must still have
    assert "welcome" in reply.kinds()
    poll(lambda: any("participant 2" in line and "joined" in line for line in host.lines()), "the join line",
         [host.app])
    sock.close()
    about = [line for line in host.lines()[before:] if "127.0.8." in line]
    assert 1 <= len(about) <= guard.LOG_LINES


# ------------------------------------------------------------------ the fuzz, then a whole study


def _play_through(port: int, codes: tuple[str, str], source: str = "127.0.0.1", timeout: float = 300.0) -> int:
    """Two participants join with ``codes`` and play the study to its end (Continue on pages, the
    middle of the scale on questionnaires, ignoring suggestions, ``stay`` every step); the frames
    seen."""
    people = [RawSocket(port, source) for _ in codes]
    for sock, code in zip(people, codes):
        sock.hello(code)
    acted: list[Any] = [None, None]
    decided: list[set[int]] = [set(), set()]
    frames = 0
    deadline = time.monotonic() + timeout
    done = [False, False]
    while not all(done):
        assert time.monotonic() < deadline, [p.reply.messages[-5:] for p in people]
        for k, sock in enumerate(people):
            if done[k]:
                continue
            reply = sock.read(0.05)
            now = next((m for m in reversed(reply.messages) if m["type"] in ("page", "frame")), None)
            if now is not None and now["type"] == "page" and now["page"]["kind"] == "done":
                done[k] = True  # the host ends with the study (headless) and closes the connection
                continue
            assert not reply.closed, reply.messages[-5:]
            if now is None:
                continue
            if now["type"] == "page":
                page = now["page"]
                if page["kind"] != "wait" and acted[k] != ("page", page["id"]):
                    acted[k] = ("page", page["id"])
                    if page["kind"] == "questionnaire":
                        sock.send_json({"v": V, "type": "answer", "page_id": page["id"],
                                        "answers": {i["id"]: 4 for i in page["items"]}})
                    else:
                        sock.send_json({"v": V, "type": "continue", "page_id": page["id"]})
                continue
            game = now["frame"]
            for m in reply.messages:
                if m["type"] == "feedback" and m["feedback_id"] not in decided[k]:
                    decided[k].add(m["feedback_id"])
                    sock.send_json({"v": V, "type": "decide", "feedback_id": m["feedback_id"], "accept": False})
            if not game["done"] and acted[k] != ("frame", game["tick"]):
                acted[k] = ("frame", game["tick"])
                frames += 1
                sock.send_json({"v": V, "type": "key", "action": "stay"})
    for sock in people:
        for m in sock.reply.messages:
            decode(json.dumps(m), "test", HOST_MESSAGES)  # everything the host sent is of the protocol
        sock.close()
    return frames


_ANY_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                         | st.text(max_size=12), lambda inner: st.lists(inner, max_size=3)
                         | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
_CODES = st.one_of(st.sampled_from(list(CODES) + ["1111 1111", "2222-222", "ZZZZ-ZZZZ", "iiii-llll", ""]),
                   st.text(max_size=12), st.text(alphabet=CODE_ALPHABET + "-ilo ", max_size=10), _ANY_JSON)
_SEAT = st.sampled_from(["hello", "key", "decide", "continue", "answer", "welcome", "launch"])
_MESSAGES = st.one_of(
    st.fixed_dictionaries({"v": st.just(V), "type": st.just("hello"), "code": _CODES}),
    st.fixed_dictionaries({"v": st.one_of(st.just(V), st.just(1), _ANY_JSON), "type": _SEAT},
                          optional={"code": _CODES, "action": st.sampled_from(["up", "stay", "left"]) | _ANY_JSON,
                                    "feedback_id": st.integers() | _ANY_JSON, "accept": st.booleans() | _ANY_JSON,
                                    "page_id": st.sampled_from(["0", "1", "2"]) | _ANY_JSON,
                                    "answers": st.dictionaries(st.text(max_size=12), st.integers(-2, 12) | _ANY_JSON,
                                                               max_size=5),
                                    "extra": _ANY_JSON}),
    _ANY_JSON)
_TEXTS = st.one_of(_MESSAGES.map(lambda m: json.dumps(m)), st.text(max_size=300),
                   st.integers(1, 3000).map(lambda n: "[" * n), st.integers(30, 400).map(lambda n: "9" * n),
                   st.just(f'{{"v":{V},"type":"hello","code":"\\ud800\\udc00"}}'),
                   st.just(f'{{"v":{V},"type":"hello","code":"1111-1111","code":"2222-2222"}}'))


@st.composite
def _frames(draw: Any) -> bytes:
    """One frame: mostly a text frame of a message, else any opcode, flags, mask, and a length that
    may lie about its payload."""
    kind = draw(st.sampled_from(["text", "text", "text", "raw", "binary", "fragment", "control"]))
    if kind == "text":
        return text_frame(draw(_TEXTS))
    if kind == "binary":
        return frame(BINARY, draw(st.binary(max_size=200)))
    if kind == "fragment":
        first = draw(_TEXTS).encode("utf-8", "surrogatepass")
        cut = draw(st.integers(0, len(first)))
        return frame(TEXT, first[:cut], fin=False) + frame(CONTINUATION, first[cut:], fin=draw(st.booleans()))
    if kind == "control":
        return frame(draw(st.sampled_from([PING, PONG, CLOSE])), draw(st.binary(max_size=130)))
    payload = draw(st.binary(max_size=200))
    return frame(draw(st.integers(0, 15)), payload, fin=draw(st.booleans()), rsv=draw(st.integers(0, 7)),
                 mask=draw(st.booleans()),
                 length=draw(st.one_of(st.none(), st.sampled_from([0, 125, 126, 65535, 65536, 17000, 1 << 40]))))


_CONVERSATIONS = st.tuples(st.integers(1, 8), st.booleans(), st.lists(_frames(), min_size=1, max_size=5),
                           st.one_of(st.none(), _CODES.map(str)),
                           st.one_of(st.none(), st.none(), st.none(), st.binary(max_size=300)))


@pytest.mark.slow
def test_fuzzed_frames_and_messages_then_a_whole_study(tmp_path):
    """Hypothesis sends frames and messages (bounded: 150 conversations of up to 5 frames, each read
    for at most 0.3 s; some with any code in the handshake's URL, some no handshake but bytes) from
    eight loopback addresses, some joining a seat first with a valid code;
    the host answers only with messages of the protocol, never refuses a join code with anything but
    the one reply, and afterwards two participants with valid codes play the whole study."""
    running = HeadlessHost(tmp_path, trials=1)
    try:
        @settings(max_examples=150, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(_CONVERSATIONS)
        def converse(conversation: tuple[int, bool, list[bytes], str | None, bytes | None]) -> None:
            source, seated, frames, url_code, garbage = conversation
            if garbage is not None:  # bytes that are no WebSocket handshake at all
                with socket.create_connection(("127.0.0.1", running.port), timeout=30,
                                              source_address=(f"127.0.9.{source}", 0)) as raw:
                    raw.sendall(garbage)
                assert running.alive()
                return
            path = "/" if url_code is None else "/?code=" + urllib.parse.quote(url_code, safe="")
            try:
                sock = RawSocket(running.port, f"127.0.9.{source}", timeout=30, path=path)
            except (ConnectionError, OSError):
                assert running.alive()
                return
            try:
                if seated:
                    sock.hello(CODES[source % 2])
                for data in frames:
                    if not sock.send(data):
                        break
                reply = sock.read(0.3)
            finally:
                sock.close()
            for m in reply.messages:
                assert isinstance(m, dict), m
                decode(json.dumps(m), "fuzz", HOST_MESSAGES)
                if m["type"] == "refused" and "join code" in m["reason"] and "too many" not in m["reason"]:
                    assert m["reason"] == NOT_ACCEPTED
            assert running.alive(), running.app.text()[-3000:]

        converse()
        assert running.alive()
        frames = _play_through(running.port, CODES)
        assert frames >= 2
        poll(lambda: not running.alive(), "the host to end with the study", [running.app])
        assert running.app.proc is not None and running.app.proc.returncode == 0
    finally:
        running.stop()
    text = running.app.text()
    assert "Traceback" not in text and "internal error" not in text, text[-3000:]
    rows = (running.out / "episodes.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + 2  # the header and both trials
    from sim.recording import load_recording

    for rec in (running.out / "recordings").rglob("*.jsonl"):
        assert load_recording(rec).complete


# ------------------------------------------------------------------ wss://


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made with openssl for this test."""
    cert, key = folder / "host.crt", folder / "host.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=study-host",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
    return cert, key


def test_wss_with_a_certificate_file(qtbot, tmp_path, capsys):
    from PyQt6.QtNetwork import QHostAddress

    from main import main
    from study.design import load_study
    from ui.net.client import SeatClient, parse_address, parse_url
    from ui.net.host import StudyHost
    from ui.net.tls import TLSError, host_tls, seat_tls, tls_missing

    if shutil.which("openssl") is None:
        pytest.skip("needs openssl to make the test's certificate")
    missing = tls_missing()
    if missing:
        pytest.skip(missing)
    cert, key = _certificate(tmp_path)
    path = write_study(tmp_path, tutorial=False)
    host = StudyHost(load_study(path), path, tmp_path / "out", port=0,
                     address=QHostAddress(QHostAddress.SpecialAddress.LocalHost), codes=CODES, tls=host_tls(cert, key))
    assert host.scheme == "wss"
    clients = []
    try:
        trusted = SeatClient("127.0.0.1", host.port, CODES[0], tls=seat_tls(cert))
        untrusted = SeatClient("127.0.0.1", host.port, CODES[1], tls=seat_tls())  # the system's authorities only
        plain = SeatClient("127.0.0.1", host.port, CODES[1])  # ws:// to a wss:// host
        clients = [trusted, untrusted, plain]
        problems: list[str] = []
        untrusted.problem.connect(problems.append)
        for c in clients:
            c.open()
        qtbot.waitUntil(lambda: trusted.welcome is not None and bool(problems), timeout=60_000)
        assert "certificate was refused" in problems[0]
        qtbot.wait(300)
        assert untrusted.welcome is None and plain.welcome is None
        assert any(m["type"] == "page" for m in trusted.received)
    finally:
        for c in clients:
            c.drop()
        host.shutdown()

    assert parse_url("wss://127.0.0.1:8765") == (True, "127.0.0.1", 8765)
    assert parse_url("WS://[::1]:8765/") == (False, "::1", 8765)
    with pytest.raises(ValueError, match="join it from the command line"):
        parse_address("wss://10.0.0.1:8765")
    with pytest.raises(TLSError, match="no PEM certificate"):
        host_tls(key, key)
    with pytest.raises(TLSError, match="no RSA, EC or DSA private key"):
        host_tls(cert, cert)
    capsys.readouterr()
    assert main(["study", "host", str(path), "--cert", str(cert)]) == 2
    assert "--cert and --key go together" in capsys.readouterr().err
    assert main(["study", "host", str(path), "--cert", str(tmp_path / "none.crt"), "--key", str(key)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --cert/--key: ") and "none.crt: cannot read the file" in err
    assert main(["join", "127.0.0.1:8765", "--code", "1111-1111", "--ca", str(cert)]) == 2
    assert "--ca is for a host serving wss://" in capsys.readouterr().err
    assert main(["join", "127.0.0.1:8765", "--code", "482913"]) == 2
    assert "is not a join code" in capsys.readouterr().err
    assert main(["study", "host", str(path), "--codes", "111111", "222222"]) == 2
    assert "--codes: expected two different join codes" in capsys.readouterr().err
    assert main(["study", "host", str(path), "--listen", "not-an-address"]) == 2
    assert "--listen: 'not-an-address' is not an IP address" in capsys.readouterr().err


@pytest.mark.slow
def test_study_host_serves_wss_with_cert_and_key(qtbot, tmp_path):
    """``study host --cert FILE --key FILE`` (headless, its own process) prints the wss:// join
    command, and a participant trusting the certificate joins."""
    from ui.net.client import SeatClient
    from ui.net.tls import seat_tls, tls_missing

    if shutil.which("openssl") is None or tls_missing():
        pytest.skip(tls_missing() or "needs openssl to make the test's certificate")
    cert, key = _certificate(tmp_path)
    running = HeadlessHost(tmp_path, extra=("--cert", str(cert), "--key", str(key)))
    client = SeatClient("127.0.0.1", running.port, CODES[1].lower().replace("-", ""), tls=seat_tls(cert))
    try:
        text = running.app.text()
        assert "(wss://)" in text
        assert f"join wss://127.0.0.1:{running.port} --code {CODES[1]} --ca host.crt" in text
        client.open()
        qtbot.waitUntil(lambda: client.welcome is not None, timeout=60_000)
        assert any(m["type"] == "page" for m in client.received)
    finally:
        client.drop()
        running.stop()
    assert "Traceback" not in running.app.text()


# ------------------------------------------------------------------ a seat that went silent


def test_a_silent_seat_is_dropped_so_its_participant_can_join_again(qtbot, tmp_path):
    """A seat's connection is pinged; one that answers nothing for SILENT_SECONDS (a pulled cable
    leaves such a connection open) is dropped, and its code joins again; one that answers stays."""
    from PyQt6.QtNetwork import QHostAddress

    from study.design import load_study
    from ui.net import host as host_module
    from ui.net.client import SeatClient
    from ui.net.host import StudyHost

    path = write_study(tmp_path, tutorial=False)
    host = StudyHost(load_study(path), path, tmp_path / "out", port=0,
                     address=QHostAddress(QHostAddress.SpecialAddress.LocalHost), codes=CODES)
    now = [time.monotonic()]
    host.clock = lambda: now[0]
    lines: list[str] = []
    host.logged.connect(lines.append)
    joined: dict[str, Any] = {}

    def silent() -> None:  # a raw connection that joins and then never answers a ping
        sock = RawSocket(host.port, answer_pings=False, path=f"/?code={CODES[0]}")
        joined["reply"] = sock.read(30, until=lambda r: "welcome" in r.kinds())
        joined["sock"] = sock

    worker = threading.Thread(target=silent, daemon=True)
    worker.start()
    answering = SeatClient("127.0.0.1", host.port, CODES[1])
    rejoining = SeatClient("127.0.0.1", host.port, CODES[0])
    try:
        answering.open()
        qtbot.waitUntil(lambda: not worker.is_alive() and answering.welcome is not None, timeout=60_000)
        assert "welcome" in joined["reply"].kinds() and all(s.socket is not None for s in host.slots)
        pongs = []
        host.slots[1].socket.pong.connect(lambda *a: pongs.append(a))
        now[0] += host_module.PING_SECONDS
        host._sweep()  # pings both seats
        qtbot.waitUntil(lambda: bool(pongs), timeout=30_000)
        now[0] += host_module.SILENT_SECONDS - host_module.PING_SECONDS + 1
        host._sweep()
        qtbot.waitUntil(lambda: host.slots[0].socket is None, timeout=30_000)
        assert host.slots[1].socket is not None  # it answered the ping
        assert any("no answer for 30 s" in line for line in lines)
        rejoining.open()
        qtbot.waitUntil(lambda: rejoining.welcome is not None, timeout=60_000)
    finally:
        answering.drop()
        rejoining.drop()
        if "sock" in joined:
            joined["sock"].close()
        host.shutdown()


@pytest.mark.slow
def test_an_app_of_the_first_protocol_version_is_told_in_its_own_version_and_its_seat_stays_free(host):
    """Version 2 added ``waiting``: a version-1 app is refused with a ``refused`` its decoder reads
    (v 1), saying the other computer runs an older ToM Arena, whether it joined by the URL's code
    (seated in the handshake) or by ``hello``; the seat is free for a current app at once."""
    for url in (False, True):
        sock = RawSocket(host.port, "127.0.8.1", path=f"/?code={CODES[0]}" if url else "/")
        sock.hello(CODES[0], version=1)
        reply = sock.read(60)
        sock.close()
        assert reply.closed, reply
        refused = [m for m in reply.messages if m["type"] == "refused"]
        assert refused and refused[-1]["v"] == 1 and "older ToM Arena" in refused[-1]["reason"], reply.messages
        current, answer = _join(host.port, CODES[0])
        assert "welcome" in answer.kinds(), answer
        current.close()
    assert host.alive()
