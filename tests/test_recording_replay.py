"""Recordings (JSON Lines, plain and gzip) and Replay: round trip, seeking, recorded minds,
damaged and foreign files, changed rules, and taking over a recorded episode."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.dkg.agents import BoltzmannAgent, PlannerAgent
from sim import __version__
from sim.dkg import DKGState, DKGWorld, validate_dkg
from sim.events import BeliefEvent, Event, FeedbackEvent, FeedbackStatusEvent, OutcomeEvent, StepEvent
from sim.recording import FORMAT_NAME, FORMAT_VERSION, RecordingError, RecordingWriter, load_recording, read_header
from sim.replay import Replay
from sim.seats import Facilitator, Feedback
from sim.session import Session

SPEC = validate_dkg({
    "world": "dkg", "name": "recording-test",
    "map": ["##########",
            "#1..#...*#",
            "#...R....#",
            "#r..#..2+#",
            "##########"],
    "legend": {"#": "wall", ".": "floor", "r": {"key": "red"}, "R": {"door": "red"},
               "*": {"gem": "blue"}, "+": {"gem": "green"}, "1": {"agent": "alice"}, "2": {"agent": "bob"}},
    "goals": {"alice": "gem1", "bob": "gem2"},
}, "recording-test.json")


class AskBobToUnlock(Facilitator):
    """Suggests once, after the tenth step, that Bob unlock the door for Alice."""

    kind = "ask-bob"

    def suggest(self, step, busy) -> list[Feedback]:
        after = step.after
        if after.t != 10:
            return []
        return [Feedback(feedback_id=0, target="bob", text="Bob, please open the red door",
                         payload={"type": "unlock", "agent": "bob", "door": "door1", "for": "alice"},
                         explanation="Alice cannot reach her gem", utility=2.5)]


class Episode:
    """A recorded episode with every live state, for comparing replays against."""

    def __init__(self, path: Path, seed: int = 0, prefix: list[dict[str, Any]] | None = None,
                 compress: bool | None = None) -> None:
        self.world = DKGWorld(SPEC)
        seats = {"alice": BoltzmannAgent(temperature=0.7), "bob": BoltzmannAgent(temperature=0.7, compliance=0.5)}
        self.session = Session(self.world, seats, seed=seed, scenario="recording-test",
                               mechanisms=[AskBobToUnlock()], prefix=prefix or ())
        self.states: list[DKGState] = [self.session.state]
        self.path = path
        self.writer = RecordingWriter.attach(self.session, path, compress=compress)
        self.session.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, StepEvent):
            self.states.append(self.session.state)

    def run(self) -> "Episode":
        self.session.run()
        return self


@pytest.fixture(scope="module")
def episode(tmp_path_factory) -> Episode:
    return Episode(tmp_path_factory.mktemp("rec") / "episode.jsonl").run()


def lines_of(path: Path) -> list[bytes]:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.splitlines(keepends=True)


def dicts(events) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events]


def unchained(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != "chain"}


def sealed(objs: list[dict[str, Any]]) -> bytes:
    """Lines as a writer seals them (the format of docs/core.md, computed here independently):
    the header's chain is a digest of its own bytes, each later line's starts from the previous one."""
    out, previous = [], b""
    for obj in objs:
        content = json.dumps(unchained(obj), separators=(",", ":"), ensure_ascii=False).encode()
        previous = hashlib.blake2b(previous + content, digest_size=8).hexdigest().encode()
        out.append(content[:-1] + b',"chain":"' + previous + b'"}\n')
    return b"".join(out)


# ------------------------------------------------------------------- round trip

@pytest.mark.parametrize("name", ["episode.jsonl", "episode.jsonl.gz"])
def test_round_trip_writes_header_events_and_footer(tmp_path, name):
    ep = Episode(tmp_path / name).run()
    session = ep.session
    assert ep.writer.closed
    raw = (tmp_path / name).read_bytes()
    assert (raw[:2] == b"\x1f\x8b") == name.endswith(".gz")
    lines = lines_of(tmp_path / name)
    assert all(line.endswith(b"\n") for line in lines)
    objs = [json.loads(line) for line in lines]
    header, body, footer = objs[0], objs[1:-1], objs[-1]
    assert header["record"] == "header"
    assert header["format"] == FORMAT_NAME and header["version"] == FORMAT_VERSION
    assert header["app_version"] == __version__
    assert header["scenario"] == "recording-test" and header["seed"] == 0
    assert header["world"] == "dkg" and header["spec"] == SPEC
    assert header["seats"] == {"alice": {"kind": "boltzmann", "compliance": 1.0, "temperature": 0.7},
                               "bob": {"kind": "boltzmann", "compliance": 0.5, "temperature": 0.7}}
    assert header["mechanisms"] == [{"kind": "ask-bob", "name": "ask-bob"}]
    assert read_header(tmp_path / name) == header
    assert [unchained(b) for b in body] == dicts(session.events)  # one event per line, in order
    assert unchained(footer) == {"record": "footer", "outcome": session.outcome(), "metrics": session.metrics(),
                      "events": len(session.events)}

    rec = load_recording(tmp_path / name)
    assert rec.complete and rec.warnings == []
    assert rec.header == header and unchained(rec.footer) == unchained(footer)
    assert rec.events == session.events  # typed events come back equal
    kinds = {type(e) for e in rec.events}
    assert {StepEvent, BeliefEvent, FeedbackEvent, FeedbackStatusEvent, OutcomeEvent} <= kinds
    assert [s.tick for s in rec.steps] == list(range(len(ep.states) - 1))


def test_compression_is_detected_by_content_not_by_name(tmp_path):
    ep = Episode(tmp_path / "compressed.jsonl", compress=True).run()
    assert (tmp_path / "compressed.jsonl").read_bytes()[:2] == b"\x1f\x8b"
    assert load_recording(tmp_path / "compressed.jsonl").events == ep.session.events


@pytest.mark.parametrize("name", ["live.jsonl", "live.jsonl.gz"])
def test_every_line_is_on_disk_before_the_episode_ends(tmp_path, name):
    ep = Episode(tmp_path / name)
    seen: list[tuple[int, int, list[str]]] = []

    def read_back(event: Event) -> None:  # subscribed after the writer: it has written this event
        if isinstance(event, StepEvent) and event.tick in (0, 5, 17):
            rec = load_recording(tmp_path / name)
            assert rec.footer is None
            assert rec.events == ep.session.events
            seen.append((event.tick, len(rec.events), rec.warnings))

    ep.session.subscribe(read_back)
    ep.run()
    assert [tick for tick, _, _ in seen] == [0, 5, 17]
    for _, _, warnings in seen:
        assert len(warnings) == 1 and str(tmp_path / name) in warnings[0]


# ------------------------------------------------------------------- replay

def test_replay_rebuilds_every_live_state(episode):
    replay = Replay(episode.path)
    assert replay.warnings == []
    assert replay.num_steps == len(episode.states) - 1 > 20
    for k, live in enumerate(episode.states):
        assert replay.state_at(k) == live
        if k < replay.num_steps:
            assert replay.joint_action(k) == load_recording(episode.path).steps[k].joint_action
    with pytest.raises(IndexError):
        replay.state_at(replay.num_steps + 1)
    with pytest.raises(IndexError):
        replay.state_at(-1)


class CountingWorld(DKGWorld):
    """Counts world steps, to measure what a seek costs."""

    def __init__(self, spec: dict[str, Any]) -> None:
        super().__init__(spec)
        self.steps = 0

    def step(self, state, joint_action):
        self.steps += 1
        return super().step(state, joint_action)


@pytest.mark.parametrize("keyframe_every", [1, 7, 64])
def test_seek_in_any_order_costs_at_most_a_keyframe_interval(episode, keyframe_every):
    world = CountingWorld(SPEC)
    replay = Replay(episode.path, keyframe_every=keyframe_every, world=world)
    n = replay.num_steps
    order = np.random.default_rng(keyframe_every).permutation(n + 1)
    for k in order:
        before = world.steps
        assert replay.state_at(int(k)) == episode.states[k]
        assert world.steps - before <= keyframe_every - 1
    for walk in (range(n, -1, -1), range(n + 1)):  # backwards as cheap as forwards
        replay = Replay(episode.path, keyframe_every=keyframe_every, world=world)
        before = world.steps
        for k in walk:
            assert replay.state_at(k) == episode.states[k]
        assert world.steps - before <= n + keyframe_every


def test_replay_serves_recorded_minds(episode):
    replay = Replay(episode.path)
    events = episode.session.events
    for tick in range(replay.num_steps + 2):
        expected = [e for e in events if not isinstance(e, StepEvent) and e.tick == tick]
        assert list(replay.events_at(tick)) == expected
    beliefs = [e for e in events if isinstance(e, BeliefEvent)]
    assert replay.belief_keys() == sorted({(e.owner, e.kind) for e in beliefs})
    for owner, kind in replay.belief_keys():
        for tick in range(replay.num_steps + 2):
            earlier = [e for e in beliefs if e.owner == owner and e.kind == kind and e.tick <= tick]
            assert replay.belief_at(owner, kind, tick) == (earlier[-1] if earlier else None)
    assert replay.belief_at("alice", "plan", 0) is None  # no snapshot before the first step
    assert replay.belief_at("nobody", "plan", 5) is None
    feedback = [e for t in range(replay.num_steps + 1) for e in replay.events_at(t) if isinstance(e, FeedbackEvent)]
    assert len(feedback) == 1 and feedback[0].utility == 2.5 and feedback[0].tick == 10


def test_replay_never_recomputes_minds(episode, tmp_path):
    """Beliefs are read from the file: change one there and the replay shows the change."""
    lines = lines_of(episode.path)
    for i, line in enumerate(lines):
        obj = json.loads(line)
        if obj.get("type") == "belief" and obj["owner"] == "bob":
            obj["data"]["cost"] = 12345
            lines[i] = (json.dumps(obj) + "\n").encode()
            tick = obj["tick"]
            break
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(sealed([json.loads(line) for line in lines]))  # as if the mind had thought so
    replay = Replay(edited)
    assert replay.warnings == []
    assert replay.belief_at("bob", "plan", tick).data["cost"] == 12345
    # the same change made after the recording was written is reported where it was made
    unsealed = tmp_path / "unsealed.jsonl"
    unsealed.write_bytes(b"".join(lines))
    replay = Replay(unsealed)
    assert len(replay.warnings) == 1 and "the recording was changed after it was written: belief event" in \
        replay.warnings[0] and replay.belief_at("bob", "plan", tick) is None


# ------------------------------------------------------------ damaged files

def line_ends(path: Path) -> list[int]:
    """Byte offset just past each line of a plain recording."""
    ends, total = [], 0
    for line in path.read_bytes().splitlines(keepends=True):
        total += len(line)
        ends.append(total)
    return ends


def warning_line(warning: str) -> int:
    match = re.search(r"line (\d+)", warning)
    assert match, f"the warning names no line: {warning}"
    return int(match.group(1))


def test_truncated_plain_file_loads_up_to_the_cut(episode, tmp_path):
    data = episode.path.read_bytes()
    ends = line_ends(episode.path)
    n_lines = len(ends)  # header, events, footer
    cuts = {
        "after the header": ends[0],
        "mid-line early": ends[3] + 5,
        "mid-line": ends[n_lines // 2] + 17,
        "between two lines": ends[n_lines // 2],
        "one byte into a line": ends[40] + 1,
        "inside the footer": ends[-2] + 30,
        "after the last event": ends[-2],
    }
    for what, cut in cuts.items():
        path = tmp_path / f"cut-{cut}.jsonl"
        path.write_bytes(data[:cut])
        rec = load_recording(path)
        complete_lines = sum(end <= cut for end in ends)
        assert rec.events == episode.session.events[:complete_lines - 1], what
        assert rec.footer is None and not rec.complete, what
        assert len(rec.warnings) == 1, what
        warning = rec.warnings[0]
        assert str(path) in warning, what
        mid_line = cut not in ends
        # the line cut in two, or the last line that arrived whole
        assert warning_line(warning) == (complete_lines + 1 if mid_line else complete_lines), (what, warning)
        replay = Replay(rec)
        assert replay.num_steps == len(rec.steps)
        assert replay.state_at(replay.num_steps) == episode.states[replay.num_steps]


def test_file_cut_just_before_its_last_newline_loses_nothing(episode, tmp_path):
    path = tmp_path / "almost.jsonl"
    path.write_bytes(episode.path.read_bytes()[:-1])
    rec = load_recording(path)
    assert rec.complete and rec.events == episode.session.events


@pytest.mark.parametrize("name, cut", [("cut.jsonl", 50), ("cut.jsonl.gz", 5), ("cut.jsonl.gz", 60)])
def test_file_cut_inside_the_header_is_refused(tmp_path, name, cut):
    full = Episode(tmp_path / f"full-{name}").run().path
    path = tmp_path / name
    path.write_bytes(full.read_bytes()[:cut])
    for load in (load_recording, read_header, Replay):
        with pytest.raises(RecordingError) as info:
            load(path)
        assert str(info.value).startswith(f"{path}: ") and "inside its header (line 1)" in str(info.value)


def test_truncated_gzip_file_loads_up_to_the_cut(tmp_path):
    ep = Episode(tmp_path / "full.jsonl.gz").run()
    data = ep.path.read_bytes()
    for cut in sorted({len(data) * f // 10 for f in range(2, 10)} | {len(data) - 3, len(data) - 12}):
        path = tmp_path / f"cut-{cut}.jsonl.gz"
        path.write_bytes(data[:cut])
        available = zlib.decompressobj(wbits=31).decompress(data[:cut])  # what can still be read
        complete = available.count(b"\n")
        rec = load_recording(path)
        has_footer = complete == len(ep.session.events) + 2
        assert rec.events == ep.session.events[:min(complete - 1, len(ep.session.events))], cut
        assert (rec.footer is not None) == has_footer
        assert len(rec.warnings) == 1 and not rec.complete
        assert str(path) in rec.warnings[0] and warning_line(rec.warnings[0]) == complete, rec.warnings
        replay = Replay(rec)
        assert replay.state_at(replay.num_steps) == ep.states[replay.num_steps]


@pytest.mark.parametrize("damage", [b"\x00\xffnot json at all\n", b'{"type": "teleport", "tick": 3}\n',
                                    b'{"type": "step", "tick": 2}\n', b"[1, 2, 3]\n"])
def test_corrupted_middle_line_loads_what_came_before(episode, tmp_path, damage):
    lines = lines_of(episode.path)
    bad = len(lines) // 2
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"".join(lines[:bad] + [damage] + lines[bad + 1:]))
    rec = load_recording(path)
    assert rec.events == episode.session.events[:bad - 1]
    assert len(rec.warnings) == 1
    assert str(path) in rec.warnings[0] and f"line {bad + 1} " in rec.warnings[0]
    assert "damaged" in rec.warnings[0]


def test_missing_step_is_detected(episode, tmp_path):
    lines = lines_of(episode.path)
    step_lines = [i for i, line in enumerate(lines) if json.loads(line).get("type") == "step"]
    dropped = step_lines[5]
    path = tmp_path / "gap.jsonl"
    path.write_bytes(b"".join(lines[:dropped] + lines[dropped + 1:]))
    rec = load_recording(path)  # the chain breaks at the line after the gap
    assert len(rec.steps) == 5 and rec.changed_at is not None
    assert "changed after it was written" in rec.warnings[0] and f"line {dropped + 1} " in rec.warnings[0]
    # a gap in a file sealed that way (a writer's bug) is still caught by the step count
    resealed = tmp_path / "gap-sealed.jsonl"
    resealed.write_bytes(sealed([json.loads(line) for line in lines[:dropped] + lines[dropped + 1:]]))
    rec = load_recording(resealed)
    assert len(rec.steps) == 5
    assert "step 6 but step 5 was expected" in rec.warnings[0]


# ---------------------------------------------------------- foreign files

def rewrite_header(src: Path, dst: Path, **changes: Any) -> Path:
    lines = lines_of(src)
    header = json.loads(lines[0])
    header.update(changes)
    dst.write_bytes(b"".join([(json.dumps(header) + "\n").encode(), *lines[1:]]))
    return dst


def test_newer_format_version_is_refused(episode, tmp_path):
    path = rewrite_header(episode.path, tmp_path / "future.jsonl", version=99, app_version="9.0.0")
    for load in (load_recording, Replay, read_header):
        with pytest.raises(RecordingError) as info:
            load(path)
        message = str(info.value)
        assert str(path) in message and "format version 99" in message and "9.0.0" in message
        assert f"up to {FORMAT_VERSION}" in message and "Update ToM Arena" in message


def test_version_must_be_an_integer(episode, tmp_path):
    path = rewrite_header(episode.path, tmp_path / "v.jsonl", version="1")
    with pytest.raises(RecordingError, match="'version' must be an integer"):
        load_recording(path)


@pytest.mark.parametrize("content", [
    b"",
    b"hello world\n",
    b'{"world": "dkg", "name": "two-rooms"}\n',
    b'{"record": "header", "format": "something-else", "version": 1}\n',
    b'[1, 2]\n',
    gzip.compress(b"just text\n", mtime=0),
])
def test_non_recording_files_are_refused(tmp_path, content):
    path = tmp_path / "other.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordingError) as info:
        load_recording(path)
    assert str(path) in str(info.value) and "not a ToM Arena recording" in str(info.value)


def test_scenario_file_and_missing_file_are_refused(tmp_path):
    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "dkg" / "two-rooms.json"
    with pytest.raises(RecordingError, match="not a ToM Arena recording"):
        load_recording(scenario)
    with pytest.raises(RecordingError, match="no such file"):
        load_recording(tmp_path / "nothing-here.jsonl")


def test_changed_rules_replay_up_to_the_mismatch(episode, tmp_path):
    lines = lines_of(episode.path)
    k = 12
    for i, line in enumerate(lines):
        obj = json.loads(line)
        if obj.get("type") == "step" and obj["tick"] == k:
            obj["state_hash"] = "0" * 16
            lines[i] = (json.dumps(obj) + "\n").encode()
    path = tmp_path / "other-rules.jsonl"
    path.write_bytes(sealed([json.loads(line) for line in lines]))  # as rules that differ would write it
    assert load_recording(path).warnings == []  # the file itself is intact
    replay = Replay(path, keyframe_every=5)
    assert replay.num_steps == k
    assert len(replay.warnings) == 1
    warning = replay.warnings[0]
    assert str(path) in warning and f"after step {k}" in warning and "rules differ" in warning
    for j in range(k + 1):
        assert replay.state_at(j) == episode.states[j]
    with pytest.raises(IndexError):
        replay.state_at(k + 1)


class Clumsy(PlannerAgent):
    """Plans well, but asks for an impossible move at its third turn and crashes at its fifth."""

    kind = "clumsy"

    def reset(self, ctx) -> None:
        super().reset(ctx)
        self.turns = 0

    def act(self, observation, legal_actions):
        self.turns += 1
        if self.turns == 3:
            return "fly"
        if self.turns == 5:
            raise RuntimeError("lost its train of thought")
        return super().act(observation, legal_actions)


def test_faults_of_a_seat_are_recorded_and_the_episode_replays(tmp_path):
    world = DKGWorld(SPEC)
    session = Session(world, {"alice": Clumsy(), "bob": PlannerAgent()}, seed=0, scenario="recording-test")
    path = tmp_path / "faults.jsonl"
    RecordingWriter.attach(session, path)
    session.run()
    rec = load_recording(path)
    errors = [e for e in rec.events if e.type == "error"]
    assert [(e.tick, e.source, e.kind) for e in errors] == [(4, "alice", "illegal_action"), (8, "alice", "agent_crash")]
    assert "'fly' is not legal: not one of alice's legal actions now; took 'wait' instead" in errors[0].message
    assert "RuntimeError: lost its train of thought" in errors[1].message
    assert [rec.steps[t].joint_action for t in (4, 8)] == [{"alice": "wait"}, {"alice": "wait"}]
    assert rec.footer["metrics"]["errors"] == 2 and rec.footer["outcome"]["success"] is True
    replay = Replay(rec)
    assert replay.warnings == [] and replay.state_at(replay.num_steps) == session.state
    assert [e.kind for e in replay.events_at(8) if e.type == "error"] == ["agent_crash"]


# ---------------------------------------------------------------- take-over

def test_take_over_continues_from_the_recorded_state(episode, tmp_path):
    rec = load_recording(episode.path)
    k = 15
    prefix = [s.joint_action for s in rec.steps[:k]]
    world = DKGWorld(SPEC)
    session = Session(world, {"alice": PlannerAgent(), "bob": PlannerAgent()}, seed=0,
                      scenario="recording-test", prefix=prefix)
    assert session.state == episode.states[k] and session.tick == k
    states = [session.state]
    path = tmp_path / "taken-over.jsonl"
    RecordingWriter.attach(session, path)
    session.subscribe(lambda e: states.append(session.state) if isinstance(e, StepEvent) else None)
    session.run()
    assert session.outcome()["success"] is True

    taken = load_recording(path)
    assert taken.warnings == [] and taken.header["prefix"] == prefix
    assert [s.tick for s in taken.steps] == list(range(k, k + len(states) - 1))
    replay = Replay(path, keyframe_every=4)
    assert replay.warnings == [] and replay.prefix_length == k
    assert replay.num_steps == k + len(states) - 1
    for j in range(k + 1):  # from step 0, through the recorded prefix...
        assert replay.state_at(j) == episode.states[j]
    for j, state in enumerate(states):  # ...and on through what the new seats did
        assert replay.state_at(k + j) == state
    assert replay.joint_action(0) == prefix[0]
