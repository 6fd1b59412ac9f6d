"""Networked seats: a study host and two joining app windows on loopback (real WebSockets,
offscreen Qt), key presses from both, fog of war checked on every message received, a drop and a
rejoin mid-episode, the questionnaire, and what the study folder holds afterwards."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtNetwork import QHostAddress

from sim.recording import load_recording
from sim.replay import Replay
from tests.study_support import ITEMS, Participant, pass_page, play_steps, wait, write_study
from ui.net.host import StudyHost
from ui.net.protocol import SEAT_MESSAGES, ProtocolError, decode, encode
from ui.net.seat_view import seat_frame
from ui.net.study import ANSWER_COLUMNS, load_study


def _host(tmp_path: Path, **kw) -> StudyHost:
    path = write_study(tmp_path, **kw)
    return StudyHost(load_study(path), path, tmp_path / "out", port=0,
                     address=QHostAddress(QHostAddress.SpecialAddress.LocalHost), codes=("111111", "222222"))


def _episode_recordings(out: Path) -> list[Path]:
    """The recordings in the order they were played: the tutorial, then the trials."""
    return sorted((out / "recordings").rglob("*.jsonl"), key=lambda r: (not r.name.startswith("tutorial"), r.name))


def _check_fog(people: list[Participant], out: Path) -> int:
    """Every frame a window received is exactly its seat's observation of the recorded state at that
    tick (only stations and cooks the seat sees), and no frame or suggestion names the other cook's
    goal. Returns the frames checked."""
    checked = 0
    recordings = _episode_recordings(out)
    for p in people:
        episodes: list[list[dict]] = []
        after_page = True
        for m in p.client.received:
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
                here = state.positions[i]
                visible = {world.station_cells[s] for s in world.visible_stations[here]}
                assert all(s["row"] * world.width + s["col"] in visible for s in f["stations"])
                assert all(a["name"] == seat or world.sees(here, state.positions[world.agent_index[a["name"]]])
                           for a in f["agents"])
                assert world.goals[other] == world.goals[seat] or world.goals[other] not in json.dumps(f)
                checked += 1
        hidden = [m for m in p.client.received if m["type"] in ("feedback", "frame", "message")]
        assert all("goals" not in json.dumps(m) for m in hidden)
    return checked


@pytest.mark.slow
def test_two_seats_play_drop_rejoin_and_answer(qtbot, tmp_path):
    host = _host(tmp_path)
    out = tmp_path / "out"
    try:
        a = Participant(qtbot, host.port, "111111")
        b = Participant(qtbot, host.port, "222222")
        wait(qtbot, lambda: a.client.welcome is not None and b.client.welcome is not None)
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
                wait(qtbot, lambda page_id=page_id: a.page() is None or a.page()["id"] != page_id)
                continue
            if kind == "instructions":  # a game's start page
                pass_page(qtbot, [a, b], "instructions")
                trials += 1
                wait(qtbot, lambda: a.frame() is not None and b.frame() is not None)
                played = play_steps(qtbot, [a, b], 2)
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
            assert all(f["status"] in ("Completed", "Ignored", "Not Executable", "Accepted, not finished",
                                       "Not answered") for f in page["feedback"])
            pass_page(qtbot, [a, b], "reveal")
        assert trials == 2
        wait(qtbot, lambda: host.finished)
    finally:
        host.shutdown()

    # every window saw its own seat's observation only
    assert _check_fog([a, b], out) > 10
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


def test_protocol_refuses_bad_frames():
    ok = decode(encode("key", action="up"), "test", SEAT_MESSAGES)
    assert ok["action"] == "up"
    for text, words in [('{"v": 1, "type": "key", "action": "up", "action": "down"}', "twice"),
                        ('{"v": 2, "type": "key", "action": "up"}', "protocol version"),
                        ('{"v": 1, "type": "launch", "action": "up"}', "field 'type'"),
                        ('{"v": 1, "type": "key"}', "'action' is missing"),
                        ('{"v": 1, "type": "key", "action": 3}', "expected str"),
                        ('{"v": 1, "type": "decide", "feedback_id": 1, "accept": 1}', "expected bool"),
                        ('{"v": 1, "type": "key", "action": "up", "x": 1}', "unknown field"),
                        ('[1]', "expected a JSON object"),
                        ('{"v": 1, "type": "key", "action": "' + "u" * 300_000 + '"}', "longer than")]:
        with pytest.raises(ProtocolError, match=words):
            decode(text, "test", SEAT_MESSAGES)


@pytest.mark.slow
def test_feedback_reaches_only_its_seat_and_the_reveal_lists_its_status(qtbot, tmp_path):
    """A facilitator that suggests at every step it may: each suggestion pops up in its target's
    window only; the first participant follows theirs (Enter), the second ignores theirs (Esc); the
    reveal lists every suggestion with the status the recording ends with."""
    conditions = [{"name": "random", "title": "random facilitator", "mechanisms": ["random:probability=1.0"],
                   "codename": "Assistant R"},
                  {"name": "none", "title": "no facilitator", "mechanisms": []}]
    host = _host(tmp_path, conditions=conditions, max_ticks=8, tutorial=False)
    out = tmp_path / "out"
    try:
        a = Participant(qtbot, host.port, "111111")
        b = Participant(qtbot, host.port, "222222")
        stranger = Participant(qtbot, host.port, "999999")
        wait(qtbot, lambda: stranger.last("refused") is not None)
        assert "unknown join code" in stranger.last("refused")["reason"]
        twin = Participant(qtbot, host.port, "111111")
        wait(qtbot, lambda: a.client.welcome is not None and b.client.welcome is not None
             and twin.last("refused") is not None)
        assert "in use" in twin.last("refused")["reason"] and twin.client.welcome is None
        reveals = []
        while True:
            wait(qtbot, lambda: all(p.frame() is not None or (p.page() is not None and p.page()["kind"] != "wait")
                                    for p in (a, b)))
            if a.frame() is not None:
                play_steps(qtbot, [a, b], 100)
                wait(qtbot, lambda: a.page() is not None and b.page() is not None)
                continue
            page = a.page()
            if page["kind"] == "done":
                break
            if page["kind"] == "reveal":
                reveals.append((a.page(), b.page()))
            if page["kind"] == "questionnaire":
                a.answer({i: 7 for i in ITEMS})
                b.answer({i: 1 for i in ITEMS})
                wait(qtbot, lambda page=page: a.page() is None or a.page()["id"] != page["id"])
            else:
                pass_page(qtbot, [a, b])
    finally:
        host.shutdown()
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
    from ui.net.study import StudyError

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
