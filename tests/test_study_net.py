"""Networked seats: a study host and two joining app windows on loopback (real WebSockets,
offscreen Qt), key presses from both, fog of war checked on every message received, a drop and a
rejoin mid-episode, the questionnaire, and what the study folder holds afterwards."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtNetwork import QHostAddress

from sim.recording import load_recording
from sim.replay import Replay
from study.design import ANSWER_COLUMNS, load_study
from study.seat_view import experimenter_frame, seat_frame
from tests.study_support import (
    ITEMS,
    KEYS,
    RANDOM_OR_NONE,
    AppProcess,
    JoiningApp,
    Participant,
    _play_steps,
    apps_pass_page,
    apps_play_steps,
    pass_page,
    play_steps,
    play_study,
    poll,
    wait,
    write_study,
)
from ui.net.host import NOT_ACCEPTED, StudyHost
from ui.net.protocol import (
    HOST_MESSAGES,
    PROTOCOL_VERSION,
    SEAT_MESSAGES,
    ProtocolError,
    VersionMismatch,
    decode,
    encode,
    refusal,
)

#: grid coordinates as suggestions used to give them: "(3, 12)"
COORDINATES = re.compile(r"\(\s*\d+\s*,\s*\d+\s*\)")


def _host(tmp_path: Path, **kw) -> StudyHost:
    path = write_study(tmp_path, **kw)
    return StudyHost(load_study(path), path, tmp_path / "out", port=0,
                     address=QHostAddress(QHostAddress.SpecialAddress.LocalHost), codes=("1111-1111", "2222-2222"))


def _join_both(qtbot, host: StudyHost) -> tuple[Participant, Participant]:
    """The two participants of the study's codes, once both are welcome."""
    a = Participant(qtbot, host.port, "1111-1111")
    b = Participant(qtbot, host.port, "2222-2222")
    wait(qtbot, lambda: a.client.welcome is not None and b.client.welcome is not None)
    return a, b


def _episode_recordings(out: Path) -> list[Path]:
    """The recordings in the order they were played: the tutorial, then the trials."""
    return sorted((out / "recordings").rglob("*.jsonl"), key=lambda r: (not r.name.startswith("tutorial"), r.name))


def _check_fog(received: list[list[dict]], out: Path) -> int:
    """Every frame a window received (``received``: each window's messages, in order) is exactly its seat's observation of the recorded state at that
    tick (only stations and cooks the seat sees), and no frame or suggestion names the other cook's
    goal. Returns the frames checked."""
    checked = 0
    recordings = _episode_recordings(out)
    for messages in received:
        episodes: list[list[dict]] = []
        after_page = True
        for m in messages:
            if m["type"] == "page":
                after_page = True
            elif m["type"] == "frame":
                if after_page:
                    episodes.append([])
                    after_page = False
                episodes[-1].append(m["frame"])
        assert len(episodes) == len(recordings)
        for frames, rec in zip(episodes, recordings):
            replay = Replay(str(rec))
            world = replay.world
            seat = frames[0]["seat"]
            i = world.agent_index[seat]
            other = next(a for a in world.agents if a != seat)
            for f in frames:
                state = replay.state_at(f["tick"])
                assert f == seat_frame(world, state, seat, max_ticks=f["t_max"], assistant=f["assistant"])
                checked += 1
                if world.family == "dkg":  # the whole map, and of the goals its own only
                    assert f["goal"] == (world.goal_of(seat) or "") and "goals" not in f
                    continue
                here = state.positions[i]
                visible = {world.station_cells[s] for s in world.visible_stations[here]}
                assert all(s["row"] * world.width + s["col"] in visible for s in f["stations"])
                assert all(a["name"] == seat or world.sees(here, state.positions[world.agent_index[a["name"]]])
                           for a in f["agents"])
                assert world.goals[other] == world.goals[seat] or world.goals[other] not in json.dumps(f)
        hidden = [m for m in messages if m["type"] in ("feedback", "frame", "message")]
        assert all("goals" not in json.dumps(m) for m in hidden)
    return checked


@pytest.mark.slow
def test_two_seats_play_drop_rejoin_and_answer(qtbot, tmp_path):
    from ui.net.windows import HostWindow

    host = _host(tmp_path)
    out = tmp_path / "out"
    host_window = HostWindow(host)
    qtbot.addWidget(host_window)
    watched: list[dict] = []
    host.watched.connect(watched.append)
    try:
        a, b = _join_both(qtbot, host)
        assert a.client.welcome["participant"] != b.client.welcome["participant"]
        assert pass_page(qtbot, [a, b], "consent") == "consent"
        pass_page(qtbot, [a, b], "instructions")
        pass_page(qtbot, [a, b], "instructions")  # the tutorial's page
        play_steps(qtbot, [a, b], 10)  # the tutorial (2 steps)
        trials = 0
        dropped = False
        while True:
            wait(qtbot, lambda: a.page() is not None and b.page() is not None and a.page()["kind"] != "wait")
            kind = a.page()["kind"]
            if kind == "done":
                break
            if kind == "questionnaire":
                page_id = a.page()["id"]
                b.answer({i: 0 for i in []})  # nothing ticked: the window asks for every statement
                assert "answer every statement" in b.window.status.text()
                a.answer({i: 5 for i in ITEMS})
                b.answer({i: k + 2 for k, i in enumerate(ITEMS)})
                wait(qtbot, lambda page_id=page_id: a.left_page(page_id))
                continue
            if kind == "instructions":  # a game's start page
                pass_page(qtbot, [a, b], "instructions")
                trials += 1
                wait(qtbot, lambda: a.frame() is not None and b.frame() is not None)
                played = play_steps(qtbot, [a, b], 2)
                # the host's window draws the whole state: both cooks, every station, both goals
                shown = host_window.frame
                assert shown is watched[-1] and shown["tick"] == a.frame()["tick"] == b.frame()["tick"]
                assert {x["name"] for x in shown["agents"]} == {a.frame()["seat"], b.frame()["seat"]}
                assert len(shown["stations"]) >= max(len(a.frame()["stations"]), len(b.frame()["stations"]))
                assert set(shown["goals"].values()) == {a.frame()["goal"], b.frame()["goal"]}
                assert "Step" in host_window.game_header.text() and not host_window.grab().isNull()
                # the host's window draws the host's own state with the app's kitchen view
                assert type(host_window.view.renderer).__name__ == "KitchenRenderer"
                assert host_window.view.state == host._last_state
                if not dropped:
                    dropped = True
                    b.client.drop()
                    wait(qtbot, lambda: a.last("paused") is not None)
                    before = a.frame()["tick"]
                    a.press(Qt.Key.Key_Right)
                    wait(qtbot, lambda: a.last("refused") is not None)
                    assert "paused" in a.last("refused")["reason"]
                    b.client.reconnect()
                    wait(qtbot, lambda: a.last("resumed") is not None and b.frame() is not None)
                    assert b.frame()["tick"] == before == a.frame()["tick"]
                play_steps(qtbot, [a, b], 20, start=played)
                continue
            assert kind == "reveal", kind
            page = a.page()
            assert page["other_goals"] and page["completed"] in (True, False)
            # both outcomes, worded the same on both screens (neither is told only of the other)
            assert page["outcomes"] == b.page()["outcomes"] and len(page["outcomes"]) == 2
            assert all(line in p.page()["text"] for p in (a, b) for line in page["outcomes"])
            assert all(f["status"] in ("Completed", "Ignored", "Not Executable", "Accepted, not finished",
                                       "Not answered") for f in page["feedback"])
            pass_page(qtbot, [a, b], "reveal")
        assert trials == 2
        wait(qtbot, lambda: host.finished)
    finally:
        host.shutdown()

    # every window saw its own seat's observation only
    assert _check_fog([a.client.received, b.client.received], out) > 10
    # the host's view was the recorded state, whole
    episodes: list[list[dict]] = []
    for frame in watched:  # a game's frames count its steps up; the next game starts again at 0
        if not episodes or frame["tick"] < episodes[-1][-1]["tick"]:
            episodes.append([])
        episodes[-1].append(frame)
    recordings = _episode_recordings(out)
    assert len(episodes) == len(recordings)
    for frames, rec in zip(episodes, recordings):
        replay = Replay(str(rec))
        for frame in frames:
            assert frame == experimenter_frame(replay.world, replay.state_at(frame["tick"]), max_ticks=frame["t_max"])
    # the recordings: complete, replayable, one per episode (tutorial included)
    recordings = sorted((out / "recordings").rglob("*.jsonl"))
    assert len(recordings) == 3
    for rec in recordings:
        loaded = load_recording(rec)
        assert loaded.complete and loaded.footer is not None
    # the answers: one row per participant and item after the facilitated trial
    with open(out / "answers.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0].keys()) == ANSWER_COLUMNS
    assert len(rows) == 2 * len(ITEMS)
    assert {r["condition"] for r in rows} == {"protom"}
    assert sorted(int(r["answer"]) for r in rows if r["item"] == "helpful") == [2, 5]
    # the analysis reads all of it
    from experiments.study_analysis import analyze_study
    report = analyze_study(out, out / "analysis")
    text = (out / "analysis" / "report.md").read_text(encoding="utf-8")
    assert "n = 1 pair" in text and (out / "analysis" / "figure.png").stat().st_size > 0
    assert report["pairs"] == 1


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_host_and_two_joining_apps_under_xvfb(tmp_path):
    """Three app instances, each its own process on a private Xvfb display: ``study host`` and two
    ``join`` apps. Keys are pressed in each joining window with xdotool; what each app received is
    read from its ``--log-received`` audit log. One app is killed (SIGKILL) mid-episode and started
    again with the same code; the questionnaire is answered with the number keys."""
    import shutil
    import subprocess
    import sys

    from ui.shots.xvfb import display_env, virtual_display

    if shutil.which("Xvfb") is None or shutil.which("xdotool") is None:
        pytest.skip("needs Xvfb and xdotool (scripts/setup.sh installs both): keys are pressed in the joining "
                    "apps' X windows, which the offscreen platform does not have")
    study = write_study(tmp_path)
    out = tmp_path / "out"
    port = _free_port()
    with virtual_display(1600, 1000, 24) as display:
        env = display_env(display)
        host = AppProcess(["study", "host", str(study), "--port", str(port), "--listen", "127.0.0.1", "--out", str(out),
                           "--codes", "1111-1111", "2222-2222"], env, tmp_path / "host.out")
        apps: list[AppProcess] = [host]
        try:
            poll(lambda: f"on port {port}" in host.text(), "the host to listen", apps)
            a = JoiningApp(port, "1111-1111", env, tmp_path)
            b = JoiningApp(port, "2222-2222", env, tmp_path)
            apps += [a, b]
            both = [a, b]
            poll(lambda: a.last("welcome") is not None and b.last("welcome") is not None, "both welcomes", apps)
            assert a.last("welcome")["participant"] != b.last("welcome")["participant"]
            apps_pass_page(both, "consent", apps)
            apps_pass_page(both, "instructions", apps)
            apps_pass_page(both, "instructions", apps)  # the tutorial's page
            apps_play_steps(both, 10, apps)  # the tutorial (2 steps)
            trials, dropped = 0, False
            while True:
                poll(lambda: all(x.on_page() for x in both), "a page", apps)
                page = a.page()
                assert page is not None
                if page["kind"] == "done":
                    break
                if page["kind"] == "questionnaire":
                    a.press("5", "5", "5", "5", "Return")
                    b.press("2", "3", "4", "5", "Return")
                    poll(lambda page=page: all(x.left_page(page["id"]) for x in both), "the answers to be taken", apps)
                    continue
                if page["kind"] == "instructions":  # a game's start page
                    apps_pass_page(both, "instructions", apps)
                    trials += 1
                    poll(lambda: a.frame() is not None and b.frame() is not None, "the game", apps)
                    played = apps_play_steps(both, 2, apps)
                    if not dropped:
                        dropped = True
                        before = a.frame()["tick"]
                        b.kill()
                        poll(lambda: a.last("paused") is not None, "the pause", apps)
                        a.press("Right")
                        poll(lambda: a.last("refused") is not None, "the key refused while paused", apps)
                        assert "paused" in a.last("refused")["reason"]
                        b.start()  # the same command again: same code, same audit log (appended)
                        def resumed() -> bool:  # a "resumed" after the last "paused" (waiting cues may follow it)
                            kinds = [m["type"] for m in a.received]
                            return "resumed" in kinds[len(kinds) - kinds[::-1].index("paused"):]

                        poll(lambda: len([m for m in b.received if m["type"] == "welcome"]) == 2
                             and b.frame() is not None and resumed(), "the rejoin", apps)
                        assert b.frame()["tick"] == before == a.frame()["tick"]
                    apps_play_steps(both, 20, apps, start=played)
                    continue
                assert page["kind"] == "reveal", page
                assert page["other_goals"] and page["completed"] in (True, False)
                apps_pass_page(both, "reveal", apps)
            assert trials == 2  # the host sends the last page once the study's files are closed
        finally:
            codes = [app.stop() for app in reversed(apps)]
    assert codes[-1] == 0, host.text()  # the host quit cleanly on SIGTERM
    assert "Traceback" not in "".join(app.text() for app in apps)

    # what each joining app received: its own seat's observation only, never the other's goal
    assert _check_fog([a.received, b.received], out) > 10
    for app in (a, b):
        lines = app.log.read_text(encoding="utf-8").splitlines()
        assert all("goals" not in line for line in lines if '"kind":"reveal"' not in line)
    # the recordings: complete and replayable, the interrupted one with every step
    recordings = _episode_recordings(out)
    assert len(recordings) == 3
    for rec in recordings:
        loaded = load_recording(rec)
        assert loaded.complete and loaded.footer is not None and not loaded.footer.get("stopped")
        replay = Replay(str(rec))  # checks the final state against the footer's hash
        assert replay.num_steps > 0 and "stopped" not in loaded.footer
    # the answers, typed with the number keys
    with open(out / "answers.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0].keys()) == ANSWER_COLUMNS and len(rows) == 2 * len(ITEMS)
    assert sorted(int(r["answer"]) for r in rows if r["item"] == "helpful") == [2, 5]
    assert sorted(int(r["answer"]) for r in rows if r["item"] == "understood") == [5, 5]
    # and the analysis, by the command a researcher runs
    done = subprocess.run([sys.executable, "main.py", "study", "analyze", str(out)], cwd=Path(__file__).parent.parent,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "n = 1 pair" in done.stdout and (out / "analysis" / "figure.png").stat().st_size > 0


def test_protocol_refuses_bad_frames():
    ok = decode(encode("key", action="up"), "test", SEAT_MESSAGES)
    assert ok["action"] == "up" and ok["v"] == PROTOCOL_VERSION == 2
    v = PROTOCOL_VERSION
    for text, words in [(f'{{"v": {v}, "type": "key", "action": "up", "action": "down"}}', "twice"),
                        (f'{{"v": {v + 1}, "type": "key", "action": "up"}}', "runs a newer ToM Arena"),
                        ('{"v": 1, "type": "key", "action": "up"}', "runs an older ToM Arena"),
                        ('{"v": true, "type": "key", "action": "up"}', "protocol version True"),
                        (f'{{"v": {v}, "type": "launch", "action": "up"}}', "field 'type'"),
                        (f'{{"v": {v}, "type": "key"}}', "'action' is missing"),
                        (f'{{"v": {v}, "type": "key", "action": 3}}', "expected str"),
                        (f'{{"v": {v}, "type": "decide", "feedback_id": 1, "accept": 1}}', "expected bool"),
                        (f'{{"v": {v}, "type": "key", "action": "up", "x": 1}}', "unknown field"),
                        ('[1]', "expected a JSON object"),
                        (f'{{"v": {v}, "type": "key", "action": "' + "u" * 300_000 + '"}', "longer than")]:
        with pytest.raises(ProtocolError, match=words):
            decode(text, "test", SEAT_MESSAGES)


def test_a_seat_of_the_first_version_is_refused_in_words_its_own_decoder_reads():
    """Version 2 added the ``waiting`` message: a version-1 app joining is refused with a
    ``refused`` of version 1 (whose fields never changed), so that it shows why."""
    import json

    with pytest.raises(VersionMismatch) as caught:
        decode('{"v": 1, "type": "hello", "code": "1111-1111"}', "message from 127.0.0.1", SEAT_MESSAGES)
    assert caught.value.older and caught.value.version == 1
    answer = json.loads(refusal(str(caught.value), caught.value.version))
    # what a version-1 decoder checks: v == 1, a known type, its fields
    assert answer == {"v": 1, "type": "refused", "reason": str(caught.value)}
    assert "older ToM Arena (study protocol 1; this one speaks 2)" in answer["reason"]
    assert set(HOST_MESSAGES["refused"]) == {"reason"}
    with pytest.raises(ValueError):
        refusal("no", 0)


@pytest.mark.slow
def test_feedback_reaches_only_its_seat_and_the_reveal_lists_its_status(qtbot, tmp_path):
    """A facilitator that suggests at every step it may: each suggestion pops up in its target's
    window only; the first participant follows theirs (Enter), the second ignores theirs (Esc); the
    reveal lists every suggestion with the status the recording ends with."""
    host = _host(tmp_path, conditions=RANDOM_OR_NONE, max_ticks=8, tutorial=False)
    out = tmp_path / "out"
    try:
        a, b = _join_both(qtbot, host)
        stranger = Participant(qtbot, host.port, "9999-9999")
        wait(qtbot, lambda: stranger.last("refused") is not None)
        assert stranger.last("refused")["reason"] == NOT_ACCEPTED
        twin = Participant(qtbot, host.port, "1111-1111")
        wait(qtbot, lambda: twin.last("refused") is not None)
        assert twin.last("refused")["reason"] == NOT_ACCEPTED and twin.client.welcome is None  # the same reply
        reveals: list[tuple] = []
        ringed: list[tuple] = []

        def press(p: Participant, n: int, key: int) -> None:
            """A suggestion shown: its words carry no grid coordinates, and the seat's map (the app's
            kitchen view) rings the places it names; the first follows it, the second ignores it."""
            if p.window.open_feedback:
                _fid, words, payload = p.window.open_feedback[0]
                assert words == p.window.game.popup_text.text() and not COORDINATES.search(words), words
                view = p.window.game.view
                view.render_frame()
                assert view.overlays.feedback["at"] == payload["at"] and view.overlays.viewer == p.frame_seat()
                ringed.append((tuple(payload["at"]), view.renderer.feedback_spots))
                p.press(Qt.Key.Key_Return if n == 0 else Qt.Key.Key_Escape)
            p.press(KEYS[key % len(KEYS)])

        def play() -> None:
            _play_steps([a, b], 10_000, 0, lambda condition, _what: wait(qtbot, condition), press)

        play_study(qtbot, [a, b], [{i: 7 for i in ITEMS}, {i: 1 for i in ITEMS}], play=play, reveals=reveals)
    finally:
        host.shutdown()
    assert ringed and all(list(at) == list(spots[0]) for at, spots in ringed)
    for p in (a, b):  # every suggestion in plain words, with the data its places are ringed from
        for m in p.client.received:
            if m["type"] == "feedback":
                assert not COORDINATES.search(m["text"]) and "please" in m["text"] and m["payload"]["at"]
            if m["type"] == "page" and m["page"]["kind"] == "reveal":
                assert not COORDINATES.search(m["page"]["text"])
    recording = next(r for r in _episode_recordings(out) if "-random-" in r.name)
    events = load_recording(recording).events
    given = [e for e in events if type(e).__name__ == "FeedbackEvent"]
    final = {e.feedback_id: e.status for e in events if type(e).__name__ == "FeedbackStatusEvent"}
    assert given, "the facilitator suggested nothing"
    seats = {p: next(m["frame"]["seat"] for m in p.client.received if m["type"] == "frame") for p in (a, b)}
    shown = {}
    for p in (a, b):
        shown[p] = {m["feedback_id"] for m in p.client.received if m["type"] == "feedback"}
        # only suggestions to this seat (one the seat declines as a repeat is never shown)
        assert shown[p] <= {e.feedback_id for e in given if e.target == seats[p]}
        assert all(m["facilitator"] == "Assistant R" for m in p.client.received if m["type"] == "feedback")
    assert shown[a] | shown[b]
    assert all(final.get(f) in ("accepted", "completed", "not_executable") for f in shown[a])
    assert all(final.get(f) == "ignored" for f in shown[b])
    words = {"completed": "Completed", "ignored": "Ignored", "not_executable": "Not Executable",
             "accepted": "Accepted, not finished"}
    random_reveal = next(r for r in reveals if r[0]["feedback"])
    for page in random_reveal:
        assert [(f["id"], f["status"]) for f in page["feedback"]] == \
            [(e.feedback_id, words.get(final.get(e.feedback_id, "sent"), "Not answered")) for e in given]


def test_a_connection_without_hello_is_closed(qtbot, tmp_path, monkeypatch):
    from PyQt6.QtCore import QUrl
    from PyQt6.QtWebSockets import QWebSocket

    import ui.net.host as host_module

    host = _host(tmp_path)
    try:
        sock = QWebSocket()
        closed = []
        sock.disconnected.connect(lambda: closed.append(True))
        sock.open(QUrl(f"ws://127.0.0.1:{host.port}"))
        wait(qtbot, lambda: len(host._sockets) == 1)
        host._sweep()  # within the time allowed: kept
        assert not closed
        monkeypatch.setattr(host_module, "HELLO_SECONDS", -1.0)
        host._sweep()
        wait(qtbot, lambda: bool(closed) and not host._sockets)
    finally:
        host.shutdown()


@pytest.mark.slow
def test_the_file_menu_hosts_and_joins_a_study(qtbot, tmp_path, monkeypatch):
    """File > Host a study… and File > Join a study… open the host's and a participant's windows
    (the person's answers to the dialogs given by the test)."""
    import socket

    from PyQt6.QtWidgets import QInputDialog

    from tests.ui_support import make_window

    monkeypatch.chdir(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    window = make_window(qtbot, tmp_path)
    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(lambda *a, **k: ("protom-kitchen-human", True)))
    monkeypatch.setattr(QInputDialog, "getInt", staticmethod(lambda *a, **k: (port, True)))
    window.actions_by_name["host_study"].trigger()
    host_window = window.study_windows[-1]
    host = host_window.host
    assert host.port == port and f"join code {host.slots[0].code}" in host_window.status.text()
    answers = iter([f"127.0.0.1:{port}", host.slots[0].code])
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: (next(answers), True)))
    window.actions_by_name["join_study"].trigger()
    seat = window.study_windows[-1]
    wait(qtbot, lambda: seat.client.welcome is not None and seat.page_view.page.get("kind") == "consent")
    assert "connected" in host_window.status.text()
    seat.close()
    wait(qtbot, lambda: "dropped" in host_window.status.text())
    host_window.close()
    assert (tmp_path / "runs" / "studies" / "protom-kitchen-human" / "study.json").is_file()


def test_a_folder_keeps_one_version_of_one_study(qtbot, tmp_path):
    from study.design import StudyError

    host = _host(tmp_path)
    try:
        with pytest.raises(StudyError, match="cannot listen on port"):
            StudyHost(host.study, tmp_path / "mini-study.json", tmp_path / "other", port=host.port,
                      address=QHostAddress(QHostAddress.SpecialAddress.LocalHost))
        assert not (tmp_path / "other").exists()
    finally:
        host.shutdown()
    edited = json.loads((tmp_path / "mini-study.json").read_text())
    edited["trials_per_condition"] = 3
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited))
    with pytest.raises(StudyError, match="another version of this one"):
        StudyHost(load_study(path), path, tmp_path / "out", port=0)
    second = StudyHost(host.study, tmp_path / "mini-study.json", tmp_path / "out", port=0)
    assert second.pair == 2
    second.shutdown()


def test_the_received_log_holds_every_message_scrubbed(qtbot, tmp_path, monkeypatch, capsys):
    """``join --log-received FILE``: every message received is appended as it arrives, one JSON
    object a line, through the project's scrubbing writer; an unwritable FILE is one error line."""
    from main import main
    from sim import redact
    from ui.net.client import SeatClient

    for name, value in (("_secrets", ()), ("_forms", ()), ("_forms_pattern", None), ("_windows", frozenset()),
                        ("_active", False)):
        monkeypatch.setattr(redact, name, value)
    secret = "sk-study-0123456789abcdef"
    redact.register_secret(secret)
    path = write_study(tmp_path, tutorial=False)
    edited = json.loads(path.read_text())
    edited["consent"]["text"] = f"Do you agree? ({secret})"
    path.write_text(json.dumps(edited))
    host = StudyHost(load_study(path), path, tmp_path / "out", port=0,
                     address=QHostAddress(QHostAddress.SpecialAddress.LocalHost), codes=("1111-1111", "2222-2222"))
    log = tmp_path / "received.jsonl"
    log.write_text('{"earlier": "lines are kept"}\n')
    client = SeatClient("127.0.0.1", host.port, "1111-1111", log_path=log)
    try:
        client.open()
        wait(qtbot, lambda: any(m["type"] == "page" for m in client.received))
    finally:
        client.drop()
        client.close_log()
        host.shutdown()
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert lines[0] == {"earlier": "lines are kept"}
    assert [m["type"] for m in lines[1:]] == [m["type"] for m in client.received] == ["welcome", "page"]
    assert secret in client.received[1]["page"]["text"]  # the window shows what it was sent
    assert lines[2]["page"]["text"] == "Do you agree? ([redacted])"

    capsys.readouterr()
    missing = tmp_path / "no-such-folder" / "log.jsonl"
    assert main(["join", "127.0.0.1:8765", "--code", "1111-1111", "--log-received", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --log-received: cannot write") and str(missing) in err[0]


DKG_PRESS = {"up": Qt.Key.Key_Up, "down": Qt.Key.Key_Down, "left": Qt.Key.Key_Left, "right": Qt.Key.Key_Right,
             "wait": Qt.Key.Key_Space, "pickup": Qt.Key.Key_P, "unlock": Qt.Key.Key_U, "handover": Qt.Key.Key_H}


def _play_turns(qtbot, a: Participant, b: Participant, turns: set[str], host_window=None) -> None:
    """Play a Doors, Keys and Gems game by turns: the one whose turn it is presses a key that is
    legal now (P to pick up, or a move); the other's key is answered that it is not their turn."""
    from study.seat_view import DKG_KEYS, dkg_action

    while a.frame() is not None and not a.frame()["done"]:
        frame = a.frame()
        mover = next(p for p in (a, b) if p.frame()["seat"] == frame["turn"])
        other = b if mover is a else a
        other.press(Qt.Key.Key_Right)  # not their turn: the window says so and sends nothing
        assert "other player's turn" in other.window.status.text()
        for p in (a, b):
            while p.window.open_feedback:
                p.press(Qt.Key.Key_Escape)
        legal = mover.frame()["actions"]
        kind = next(k for k in ("pickup", "right", "down", "left", "up", "wait")
                    if dkg_action(k, legal) is not None)
        assert DKG_KEYS[{"pickup": "P", "right": "Right", "down": "Down", "left": "Left", "up": "Up",
                         "wait": "Space"}[kind]] == kind
        turns.add(mover.frame()["seat"])
        mover.press(DKG_PRESS[kind])
        tick = frame["tick"]
        wait(qtbot, lambda tick=tick: all(p.past_tick(tick) for p in (a, b)))
        if host_window is not None:
            whole = host_window.frame  # the experimenter's view: both goals
            assert whole["world"] == "dkg" and len(whole["goals"]) == 2 and whole["tick"] > tick


@pytest.mark.slow
def test_two_seats_play_doors_keys_and_gems(qtbot, tmp_path):
    """A Doors, Keys and Gems study: the players take turns (the one whose turn it is presses a key
    that is legal now: P to pick up, or a move), each window sees the whole map but only its own
    goal gem, the host's window sees both, and the reveal names the other's gem."""
    from ui.net.windows import HostWindow

    host = _host(tmp_path, conditions=RANDOM_OR_NONE, max_ticks=8, tutorial=False,
                 scenarios=["dkg/protom-01-open-hall", "dkg/protom-02-own-keys"])
    host_window = HostWindow(host)
    qtbot.addWidget(host_window)
    out = tmp_path / "out"
    reveals: list[tuple] = []
    turns: set[str] = set()

    def play_turns() -> None:
        _play_turns(qtbot, a, b, turns, host_window)

    try:
        a, b = _join_both(qtbot, host)
        games = play_study(qtbot, [a, b], [{i: 6 for i in ITEMS}, {i: 2 for i in ITEMS}], play=play_turns,
                           reveals=reveals)
    finally:
        host.shutdown()
    assert games == 2 and len(turns) == 2
    # every frame: exactly the seat's view of the recorded state (the whole map), own goal only
    assert _check_fog([a.client.received, b.client.received], out) > 4
    for p in (a, b):
        seat_goals = {m["frame"]["goal"] for m in p.client.received if m["type"] == "frame"}
        assert all("goals" not in json.dumps(m) for m in p.client.received if m["type"] != "page")
        assert len(seat_goals) <= 2
    for page_a, page_b in reveals:
        assert "gem" in page_a["text"] and page_a["other_goals"] and page_b["other_goals"]
        assert set(page_a["other_goals"]).isdisjoint(page_b["other_goals"])
        assert page_a["outcomes"] == page_b["outcomes"] and len(page_a["outcomes"]) == 2
    with open(out / "answers.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * len(ITEMS) and {r["condition"] for r in rows} == {"random"}
    from experiments.study_analysis import analyze_study
    assert analyze_study(out, out / "analysis")["pairs"] == 1


def _drawn(world, state, viewer):
    """What the app's view of ``world`` draws of ``state`` with ``viewer``'s eyes: the renderer and the pixels."""
    import pygame

    from ui.render import Overlays, renderer_for
    from ui.render.worldview import init_pygame

    init_pygame()
    renderer = renderer_for(world)
    surface = pygame.Surface((900, 560))
    renderer.draw(surface, state, overlays=Overlays(viewer=viewer))
    return renderer, pygame.image.tobytes(surface, "RGB")


def test_a_seat_draws_its_frame_as_the_app_draws_the_kitchen_with_its_eyes():
    """``seat_world``: the World and state rebuilt from a seat's frame alone, drawn by the app's
    kitchen view with the seat's eyes, are the same picture, pixel for pixel, as the real kitchen
    drawn with those eyes, at every step of walks in which the cooks pick things up and come into
    and out of each other's view; the other cook's dish is drawn as unknown."""
    import random

    from sim.registry import load_scenario
    from study.seat_view import seat_world

    for name in ("protom/kitchen-15-walled-onion", "protom/kitchen-10-onion-for-bob", "protom/kitchen-01-two-kitchens"):
        world, _ = load_scenario(name)
        rng = random.Random(7)
        state = world.reset(0)
        views = set()
        for _ in range(30):
            for seat in world.agents:
                frame = seat_frame(world, state, seat)
                rebuilt_world, rebuilt = seat_world(frame)
                assert rebuilt_world.goals[seat] == world.goals[seat]
                real_view, real = _drawn(world, state, seat)
                seat_view, mine = _drawn(rebuilt_world, rebuilt, seat)
                assert type(seat_view).__name__ == "KitchenRenderer"
                assert (seat_view.drawn_items, seat_view.drawn_agents) == (real_view.drawn_items, real_view.drawn_agents)
                assert mine == real, (name, seat, state)
                views.add(len(real_view.drawn_agents))
            state = world.step(state, {a: rng.choice(world.legal_actions(state, a)) for a in world.agents}).state
        assert views  # the walks were drawn
    with pytest.raises(ValueError, match="not a kitchen seat's frame"):
        seat_world({"seat": "alice", "cooks": ["bob"], "layout": ["..."]})
    frame = seat_frame(world, world.reset(0), world.agents[0])
    for broken in ({**frame, "agents": [{**frame["agents"][0], "row": 99}]}, {**frame, "stations": [{"row": 0, "col": 0,
                                                                                                     "holds": "Gold"}]},
                   {**frame, "layout": frame["layout"][:-1] + ["x"]}, {**frame, "tick": "soon"},
                   {**frame, "layout": ["." * 100] * 100}):
        with pytest.raises(ValueError, match="not a kitchen seat's frame"):
            seat_world(broken)
    # a suggestion's data from the network is drawn only when it fits the kitchen
    from ui.net.windows import suggestion_places

    good = {"type": "pass", "agent": world.agents[0], "item": "FreshOnion", "at": [0, 1], "to": world.agents[1],
            "via": [1, 0]}
    assert suggestion_places(good, world) == good
    for bad in ({**good, "at": ["a", "b"]}, {**good, "at": "ab"}, {**good, "agent": "nobody"}, {**good, "at": [99, 0]},
                {**good, "type": "launch"}, [1, 2], None):
        assert suggestion_places(bad, world) is None
    assert "via" not in suggestion_places({**good, "via": [True, 0]}, world)


@pytest.mark.slow
def test_the_waiting_cue_names_the_player_or_the_assistant_thinking(qtbot, tmp_path, monkeypatch):
    """While the game waits, each window says for whom and for how long: after one participant's
    key the other is told they are waited for and the first whom they wait for; with an assistant
    whose model takes its time (a real endpoint on loopback that answers after 1.5 s) both are told
    the assistant is thinking."""
    from tests.llm_loopback import LoopbackLLM

    conditions = [{"name": "llm", "title": "LLM facilitator", "mechanisms": ["llm"], "codename": "Assistant B"},
                  {"name": "none", "title": "no facilitator", "mechanisms": []}]
    with LoopbackLLM("timeout", delay=1.5) as llm:
        monkeypatch.setenv("TOM_ARENA_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("TOM_ARENA_LLM_MODEL", "loopback")
        host = _host(tmp_path, conditions=conditions, max_ticks=2, tutorial=False)
        cues: dict[str, list[str]] = {"players": [], "assistant": []}

        def play() -> None:
            wait(qtbot, lambda: a.frame() is not None and b.frame() is not None)
            seat_a, seat_b = a.frame()["seat"], b.frame()["seat"]
            wait(qtbot, lambda: "Your move" in a.window.game.wait_cue.text())
            a.press(Qt.Key.Key_Space)
            wait(qtbot, lambda: f"Waiting for {seat_b} to move" in a.window.game.wait_cue.text()
                 and f"{seat_a} has moved and is waiting for you" in b.window.game.wait_cue.text())
            cues["players"] += [a.window.game.wait_cue.text(), b.window.game.wait_cue.text()]
            assert b.last("waiting")["players"] == [seat_b]
            tick = a.frame()["tick"]
            b.press(Qt.Key.Key_Space)
            if a.frame()["assistant"]:  # the model takes 1.5 s: both are told it is thinking
                wait(qtbot, lambda: all("Assistant B is thinking" in p.window.game.wait_cue.text() for p in (a, b)))
                cues["assistant"].append(a.window.game.wait_cue.text())
                assert a.past_tick(tick) is False  # the step waits for the assistant
            wait(qtbot, lambda: a.past_tick(tick) and b.past_tick(tick))
            play_steps(qtbot, [a, b], 10)

        try:
            a, b = _join_both(qtbot, host)
            games = play_study(qtbot, [a, b], [{i: 4 for i in ITEMS}, {i: 4 for i in ITEMS}], play=play)
        finally:
            host.shutdown()
        assert games == 2 and len(llm.requests) >= 1
    assert len(cues["players"]) == 4 and len(cues["assistant"]) == 1
    assert all(c.endswith(" s") or c.endswith(" s)") for c in cues["players"])
    assert all("both moves are in" in c for c in cues["assistant"])


@pytest.mark.slow
def test_the_shipped_doors_keys_and_gems_study_loads_and_plays(qtbot, tmp_path, monkeypatch, capsys):
    """``scenarios/studies/protom-dkg-human.json`` loads, says which model answers for its LLM
    condition, and a pair plays it through (its trials shortened; the LLM condition answered by a
    real endpoint on loopback): tutorial, one trial of each condition by turns, questionnaires,
    reveals with both outcomes."""
    from main import main
    from study.design import find_study
    from tests.llm_loopback import LoopbackLLM

    with LoopbackLLM("ok") as llm:
        monkeypatch.setenv("TOM_ARENA_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("TOM_ARENA_LLM_MODEL", "loopback")
        shipped = find_study("protom-dkg-human")
        study = load_study(shipped)
        assert [c.name for c in study.conditions] == ["protom", "llm", "none"]
        capsys.readouterr()
        assert main(["study", "check", "protom-dkg-human", "--pairs", "3"]) == 0
        printed = capsys.readouterr().out
        assert f"condition llm (Assistant B): the LLM facilitator answers with loopback at {llm.base_url}" in printed
        assert printed.count("pair-0") == 3
        short = json.loads(shipped.read_text(encoding="utf-8"))
        short.update(trials_per_condition=1, max_ticks=6)
        short["tutorial"]["max_ticks"] = 2
        path = tmp_path / "dkg-short.json"
        path.write_text(json.dumps(short), encoding="utf-8")
        host = StudyHost(load_study(path), path, tmp_path / "out", port=0,
                         address=QHostAddress(QHostAddress.SpecialAddress.LocalHost), codes=("1111-1111", "2222-2222"))
        reveals: list[tuple] = []
        turns: set[str] = set()
        try:
            a, b = _join_both(qtbot, host)
            games = play_study(qtbot, [a, b], [{i: 5 for i in ITEMS}, {i: 3 for i in ITEMS}],
                               play=lambda: _play_turns(qtbot, a, b, turns), reveals=reveals)
            wait(qtbot, lambda: host.finished)
        finally:
            host.shutdown()
    assert games == 4 and len(turns) == 2 and len(reveals) == 3  # the tutorial has no reveal
    for page_a, page_b in reveals:
        assert page_a["outcomes"] == page_b["outcomes"] and "gem" in page_a["text"]
    with open(tmp_path / "out" / "answers.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["condition"] for r in rows} == {"protom", "llm"} and len(rows) == 2 * 2 * len(ITEMS)


def test_a_study_whose_llm_condition_has_no_model_says_how_to_get_one(monkeypatch, capsys, tmp_path):
    """Without the embedded model and without an endpoint, the shipped study is refused at load in
    one line naming the condition's field and the ways to give it a model."""
    import importlib.util

    from main import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llama_cpp" else real(name, *a))
    for name in ("TOM_ARENA_LLM_BASE_URL", "OPENAI_BASE_URL", "TOM_ARENA_LLM_CONFIG", "TOM_ARENA_LLM_MODEL_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path))  # no llm.toml of the user's
    capsys.readouterr()
    assert main(["study", "check", "protom-kitchen-human"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "field 'conditions[1].mechanisms'" in err[0]
    assert "bash scripts/run.sh installs the embedded one" in err[0] and "OPENAI_BASE_URL" in err[0]
