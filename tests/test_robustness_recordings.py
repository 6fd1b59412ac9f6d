"""Damaged, edited and old recordings thrown at ``load_recording`` and ``Replay``.

A recording either loads and replays exactly the episode that was written, or the reader says
what is wrong: a RecordingError naming the file (nothing to load), or warnings naming the line
or step where the trouble starts ("the recording was changed after it was written: step 12"),
with the replay stopped before it. Never another exception, never a hang, never a different
episode replayed as if nothing happened. Version 1 files (no hash chain) load with their header
upgraded; their edits of the wrong type are reported too.

Budget and seed as in tests/test_robustness_scenarios.py (TOM_ARENA_FUZZ_EXAMPLES,
TOM_ARENA_FUZZ_REPORT; docs/testing.md).
"""

from __future__ import annotations

import copy
import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st
from test_robustness_scenarios import NASTY, Hang, fuzz_settings, record, time_limit

from agents.registry import make_agent, make_mechanisms
from main import main
from sim.recording import FORMAT_VERSION, Recording, RecordingError, RecordingWriter, convert_recording, load_recording
from sim.registry import load_scenario
from sim.replay import Replay
from sim.session import Session

HANG_SECONDS = 20


def write_episode(path: Path, scenario: str, agent: str, mechanisms: list[str], seed: int = 0) -> Path:
    world, name = load_scenario(scenario)
    session = Session(world, {a: make_agent(agent, world.family) for a in world.agents}, seed=seed, scenario=name,
                      mechanisms=make_mechanisms(mechanisms, world.family))
    RecordingWriter.attach(session, path)
    session.run()
    return path


def plain_lines(path: Path) -> list[bytes]:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.splitlines(keepends=True)


def as_version_1(src: Path, dst: Path) -> Path:
    """``src`` as the format version 1 wrote it: no chain, the facilitator and team fields in the
    header instead of the mechanism list, no questions."""
    lines = [json.loads(line) for line in plain_lines(src)]
    header = {k: v for k, v in lines[0].items() if k not in ("chain", "mechanisms", "questions")}
    mechanisms = lines[0].get("mechanisms") or []
    header["version"] = 1
    header["facilitator"] = {k: v for k, v in mechanisms[0].items() if k != "name"} if mechanisms else None
    header["team"] = None
    body = [{k: v for k, v in obj.items() if k != "chain"} for obj in lines[1:]]
    dst.write_bytes(b"".join((json.dumps(obj) + "\n").encode() for obj in [header, *body]))
    return dst


@pytest.fixture(scope="module")
def bases(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bases")
    out = {
        "dkg": write_episode(folder / "dkg.jsonl", "protom-15-locked-in", "boltzmann", ["oracle"]),
        "dkg.gz": write_episode(folder / "dkg.jsonl.gz", "protom-09-far-key", "planner", []),
        "tradecraft": write_episode(folder / "tc.jsonl", "mc1v1-02", "trader", []),
    }
    out["dkg-v1"] = as_version_1(out["dkg"], folder / "dkg-v1.jsonl")
    out["tradecraft-v1"] = as_version_1(out["tradecraft"], folder / "tc-v1.jsonl")
    return out


# --------------------------------------------------------------------------------- judging

def judge(path: Path, original: Recording, must_report: bool, exact: bool) -> tuple[str, str]:
    """Load and replay ``path``; classify what happened. ``exact``: any difference from
    ``original`` must be reported (a file with a hash chain)."""
    try:
        with time_limit(HANG_SECONDS):
            recording = load_recording(path)
            replay = Replay(recording, keyframe_every=7)
            for k in range(replay.num_steps + 1):  # every state, and what the CLI prints
                replay.world.render_text(replay.state_at(k))
            replay.events_until(replay.num_steps)
    except Hang as exc:
        return "hang", str(exc)
    except RecordingError as exc:
        message = str(exc)
        if not message.startswith(f"{path}: ") or "\n" in message:
            return "unclear error", message
        return "clean error", message
    except Exception as exc:  # noqa: BLE001 - what the test is looking for
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    reported = recording.warnings + replay.warnings
    bad = [w for w in reported if not w.startswith(f"{path}: ") or "\n" in w]
    if bad:
        return "unclear error", bad[0]
    if reported:
        return "clean error", reported[0]
    same = (recording.header == original.header and recording.events == original.events
            and _unchained(recording.footer) == _unchained(original.footer))
    if must_report or (exact and not same):
        return "silent nonsense", "a changed file replayed without a word" + ("" if same else " (and differently)")
    return "accepted", ""


def _unchained(footer: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if footer is None else {k: v for k, v in footer.items() if k != "chain"}


# ------------------------------------------------------------------------------- mutations

def leaf_paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    if isinstance(data, dict) and data:
        return [p for k, v in data.items() for p in leaf_paths(v, (*prefix, k))]
    if isinstance(data, list) and data:
        return [p for i, v in enumerate(data) for p in leaf_paths(v, (*prefix, i))]
    return [prefix]


def set_path(data: Any, path: tuple, value: Any) -> Any:
    data = copy.deepcopy(data)
    target = data
    for part in path[:-1]:
        target = target[part]
    if path:
        target[path[-1]] = value
        return data
    return value


SAFE_NASTY = [v for v in NASTY if not (isinstance(v, str) and v.startswith("__"))]
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False),
                      st.text(max_size=8), st.sampled_from(SAFE_NASTY + ["rigxt", "up", "wait", "pickup"]))


class Edit(tuple):
    """(base name, new file bytes, must the reader report something?, what was done), shown short."""

    def __new__(cls, name: str, raw: bytes, must: bool, how: str) -> "Edit":
        return super().__new__(cls, (name, raw, must, how))

    def __repr__(self) -> str:
        name, raw, must, how = self
        return f"Edit({name}, {how}, must report: {must}, {len(raw)} bytes)"


@st.composite
def edited_recording(draw, bases: dict[str, Path]) -> "Edit":
    name = draw(st.sampled_from(sorted(bases)))
    raw = bases[name].read_bytes()
    lines = plain_lines(bases[name])
    compressed = raw[:2] == b"\x1f\x8b"
    version_1 = name.endswith("-v1")
    how = draw(st.sampled_from(["flip", "flip", "delete", "insert", "truncate", "drop-line", "dup-line",
                                "swap-lines", "edit", "edit", "edit-header", "edit-action", "cut-steps",
                                "compressed-bytes"]))
    if how == "compressed-bytes" and not compressed:
        how = "flip"
    if how == "compressed-bytes":
        data = bytearray(raw)
        i = draw(st.integers(0, len(data) - 1))
        data[i] ^= draw(st.integers(1, 255))
        return Edit(name, bytes(data), False, how)  # a gzip header byte may change nothing that is read: judged exactly
    plain = b"".join(lines)
    must = True
    if how == "flip":
        i = draw(st.integers(0, len(plain) - 1))
        new = draw(st.integers(0, 255))
        must = new != plain[i] and not version_1
        plain = plain[:i] + bytes([new]) + plain[i + 1:]
    elif how == "delete":
        i = draw(st.integers(0, len(plain) - 2))
        plain = plain[:i] + plain[i + draw(st.integers(1, 40)):]
        must = not version_1
    elif how == "insert":
        i = draw(st.integers(0, len(plain)))
        plain = plain[:i] + draw(st.binary(min_size=1, max_size=6)) + plain[i:]
        must = not version_1
    elif how == "truncate":
        cut = draw(st.integers(0, len(plain) - 1))
        plain = plain[:cut]
        must = cut < len(b"".join(lines)) - 1  # only the last newline gone loses nothing (crash recovery)
    elif how in ("drop-line", "dup-line", "swap-lines"):
        i = draw(st.integers(1, len(lines) - 1))
        j = draw(st.integers(1, len(lines) - 1))
        steps = [_is_step(lines[i]), _is_step(lines[j])]
        last = i == len(lines) - 1  # the footer
        same = lines[i] == lines[j]
        if how == "drop-line":
            lines = lines[:i] + lines[i + 1:]
            must = not version_1 or steps[0] or last  # version 1: a gap in the steps, or no footer
        elif how == "dup-line":
            lines = lines[:i] + [lines[i]] + lines[i:]
            must = not version_1 or steps[0] or last
        else:
            lines[i], lines[j] = lines[j], lines[i]
            must = not same and (not version_1 or all(steps) or i == len(lines) - 1 or j == len(lines) - 1)
        plain = b"".join(lines)
    elif how in ("edit", "edit-header", "edit-action", "cut-steps"):
        objs = [json.loads(line) for line in lines]
        if how == "edit-header":
            k = 0
            path = draw(st.sampled_from([p for p in leaf_paths(objs[0]) if p[0] not in ("record", "format", "chain")]))
            value = draw(json_leaf)
        elif how == "edit-action":
            steps = [i for i, o in enumerate(objs) if o.get("type") == "step"]
            k = draw(st.sampled_from(steps))
            agent = draw(st.sampled_from(sorted(objs[k]["joint_action"])))
            path = ("joint_action", agent)
            value = draw(json_leaf)
        elif how == "cut-steps":  # the last steps removed, the footer kept
            steps = [i for i, o in enumerate(objs) if o.get("type") == "step"]
            first = draw(st.sampled_from(steps))
            objs = objs[:first] + [o for o in objs[first:] if o.get("record") == "footer"]
            body = [json.dumps({k: v for k, v in o.items() if not version_1 or k != "chain"}) for o in objs]
            return Edit(name, _pack("\n".join(body).encode() + b"\n", compressed), True, how)
        else:
            k = draw(st.integers(1, len(objs) - 1))
            path = draw(st.sampled_from([p for p in leaf_paths(objs[k]) if p and p[0] != "chain"]))
            value = draw(json_leaf)
        old = objs[k]
        try:
            current = old
            for part in path:
                current = current[part]
        except (KeyError, IndexError, TypeError):
            current = object()
        objs[k] = set_path(old, path, value)
        changed = current != value or type(current) is not type(value)
        if version_1:  # no chain: only edits of the wrong type or of actions can be noticed
            must = changed and (how == "edit-action" and value != current or (how == "edit-header" and path[0] in (
                "seed", "prefix", "world", "spec", "version") and not isinstance(value, type(current))))
            if how == "edit-header" and path[0] == "spec":
                must = False  # a different map may replay too: version 1 cannot tell (no chain)
        else:
            must = changed
        body = b"".join((json.dumps(o, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
                         + b"\n") for o in objs)
        return Edit(name, _pack(body, compressed), must, how)
    return Edit(name, _pack(plain, compressed), must, how)


def _is_step(line: bytes) -> bool:
    return b'"type": "step"' in line or b'"type":"step"' in line


def _pack(plain: bytes, compressed: bool) -> bytes:
    return gzip.compress(plain, mtime=0) if compressed else plain


@fuzz_settings(200)
@given(data=st.data())
def test_edited_recordings_are_reported_never_replayed_as_written(bases, tmp_path_factory, data):
    name, raw, must, how = data.draw(edited_recording(bases), label="case")
    path = tmp_path_factory.mktemp("edited") / bases[name].name
    path.write_bytes(raw)
    outcome, detail = judge(path, load_recording(bases[name]), must, exact=not name.endswith("-v1"))
    record("recording", outcome, f"{name} ({how}): {detail}")


# ------------------------------------------------------------------------ known answers

def test_the_bases_replay_cleanly(bases):
    for name, path in bases.items():
        recording = load_recording(path)
        replay = Replay(recording)
        assert replay.warnings == [] and recording.footer is not None, name
        assert replay.num_steps == len(recording.steps) > 0
        assert recording.file_version == (1 if name.endswith("-v1") else FORMAT_VERSION)


def test_a_version_1_file_loads_with_its_header_upgraded(bases):
    old, new = load_recording(bases["dkg-v1"]), load_recording(bases["dkg"])
    assert old.header["mechanisms"] == new.header["mechanisms"]
    assert [(m["kind"], m["name"]) for m in old.header["mechanisms"]] == [("oracle", "oracle")]
    assert "facilitator" not in old.header and "team" not in old.header
    assert old.header["version"] == FORMAT_VERSION and old.file_version == 1
    # a version 1 file did not keep the teaching questions: null (the scenario file's are read)
    assert old.header["questions"] is None and new.header["questions"] == []
    unkept = ("chain", "questions")
    assert {k: v for k, v in old.header.items() if k not in unkept} == \
        {k: v for k, v in new.header.items() if k not in unkept}
    assert old.events == new.events and old.warnings == []
    assert len(old.notes) == 1 and "teaching questions" in old.notes[0] and "recording convert" in old.notes[0]


def test_convert_writes_the_current_version_that_replays_the_same_episode(bases, tmp_path, capsys):
    dst = tmp_path / "converted.jsonl"
    assert main(["recording", "convert", str(bases["dkg-v1"]), str(dst)]) == 0
    assert f"format version {FORMAT_VERSION}" in capsys.readouterr().out
    converted, original = load_recording(dst), load_recording(bases["dkg"])
    assert converted.file_version == FORMAT_VERSION and converted.notes == [] and converted.warnings == []
    assert converted.events == original.events and _unchained(converted.footer) == _unchained(original.footer)
    # what the writer wrote, but for the questions a version 1 file did not keep (null): every line
    # after the header holds what the writer's did (its chain value differs: it follows the header)
    assert converted.header["questions"] is None and original.header["questions"] == []
    assert {k: v for k, v in converted.header.items() if k not in ("chain", "questions")} == \
        {k: v for k, v in original.header.items() if k not in ("chain", "questions")}
    assert [_unchained(json.loads(line)) for line in plain_lines(dst)[1:]] == \
        [_unchained(json.loads(line)) for line in plain_lines(bases["dkg"])[1:]]
    assert Replay(converted).warnings == []
    # never over an existing file, never in place
    assert main(["recording", "convert", str(bases["dkg-v1"]), str(dst)]) == 2
    assert "already exists" in capsys.readouterr().err
    with pytest.raises(RecordingError, match="already exists"):
        convert_recording(bases["dkg-v1"], bases["dkg-v1"])
    gz = tmp_path / "converted.jsonl.gz"
    convert_recording(bases["tradecraft-v1"], gz)
    assert gz.read_bytes()[:2] == b"\x1f\x8b" and load_recording(gz).events == load_recording(bases["tradecraft"]).events


def edit(src: Path, dst: Path, change) -> Path:
    """``src`` with ``change`` applied to its parsed lines; untouched lines keep their bytes."""
    lines = plain_lines(src)
    objs = [json.loads(line) for line in lines]
    before = copy.deepcopy(objs)
    change(objs)
    kept = {json.dumps(o, sort_keys=True): line for o, line in zip(before, lines)}
    dst.write_bytes(b"".join(kept.get(json.dumps(o, sort_keys=True)) or (json.dumps(o) + "\n").encode()
                             for o in objs))
    return dst


def test_an_edited_header_is_refused(bases, tmp_path):
    def wall_off(objs):
        objs[0]["spec"]["map"][1] = objs[0]["spec"]["map"][1].replace(".", "#", 1)

    path = edit(bases["dkg"], tmp_path / "map.jsonl", wall_off)
    with pytest.raises(RecordingError, match=r"changed after it was written: header \(line 1"):
        load_recording(path)


def test_an_edited_action_stops_the_replay_before_it(bases, tmp_path):
    def misspell(objs):
        step = [o for o in objs if o.get("type") == "step"][7]
        agent = next(iter(step["joint_action"]))
        step["joint_action"][agent] = "rigxt"

    path = edit(bases["dkg"], tmp_path / "action.jsonl", misspell)
    replay = Replay(path)
    assert replay.num_steps == 7 and len(replay.warnings) == 1
    assert "the recording was changed after it was written: step 7 (line" in replay.warnings[0]
    v1 = edit(bases["dkg-v1"], tmp_path / "action-v1.jsonl", misspell)
    replay = Replay(v1)
    assert replay.num_steps == 7 and "step 7: the recorded actions" in replay.warnings[0]
    assert "'rigxt'" in replay.warnings[0]


@pytest.mark.parametrize("field, value, fragment", [
    ("seed", None, "header field 'seed': missing; expected a non-negative integer"),
    ("seed", 1.5, "header field 'seed': expected a non-negative integer, got 1.5"),
    ("seed", True, "header field 'seed': expected a non-negative integer, got True"),
    ("seed", -1, "header field 'seed': expected a non-negative integer, got -1"),
    ("prefix", True, "header field 'prefix': expected a list of joint actions"),
    ("spec", None, "header field 'spec': missing"),
    ("world", "chess", "header field 'world': unknown world 'chess'"),
    ("facilitator", "protom", "header field 'facilitator': expected null or a {kind, ...} object"),
])
def test_version_1_headers_of_the_wrong_shape_are_refused(bases, tmp_path, field, value, fragment):
    def change(objs):
        if value is None:
            del objs[0][field]
        else:
            objs[0][field] = value

    path = edit(bases["dkg-v1"], tmp_path / "h.jsonl", change)
    with pytest.raises(RecordingError) as info:
        Replay(path)
    assert str(info.value).startswith(f"{path}: ") and fragment in str(info.value)


def test_a_version_1_header_with_a_map_that_does_not_build_is_refused(bases, tmp_path):
    path = edit(bases["dkg-v1"], tmp_path / "m.jsonl", lambda objs: objs[0]["spec"].__setitem__("map", 5))
    with pytest.raises(RecordingError, match=r"header field 'spec': not the data of a dkg world"):
        Replay(path)


def test_steps_removed_at_the_end_contradict_the_footer(bases, tmp_path):
    def cut(objs):
        last = max(i for i, o in enumerate(objs) if o.get("type") == "step")
        del objs[last]

    replay = Replay(edit(bases["dkg-v1"], tmp_path / "cut-v1.jsonl", cut))
    assert len(replay.warnings) == 1 and "the footer says" in replay.warnings[0]
    assert "steps are missing at the end" in replay.warnings[0]
    replay = Replay(edit(bases["dkg"], tmp_path / "cut.jsonl", cut))
    assert "changed after it was written" in replay.warnings[0]


def test_a_duplicate_key_in_a_version_1_header_is_refused(bases, tmp_path):
    lines = plain_lines(bases["dkg-v1"])
    lines[0] = lines[0].replace(b'{"record": "header",', b'{"record": "header", "seed": 5,', 1)
    path = tmp_path / "dup.jsonl"
    path.write_bytes(b"".join(lines))
    with pytest.raises(RecordingError, match="'seed' occurs twice"):
        load_recording(path)


@pytest.mark.parametrize("name", ["folder", "missing", "nul\x00byte", "x" * 300])
def test_paths_that_are_not_files_are_refused(tmp_path, name):
    path = tmp_path / name
    if name == "folder":
        path.mkdir()
    with pytest.raises(RecordingError) as info:
        load_recording(path)
    assert "\n" not in str(info.value)


def test_crash_recovery_still_loads_a_cut_file(bases, tmp_path):
    data = bases["dkg"].read_bytes()
    path = tmp_path / "cut.jsonl"
    path.write_bytes(data[:len(data) * 2 // 3])
    recording = load_recording(path)
    assert len(recording.warnings) == 1 and "cut off" in recording.warnings[0]
    assert recording.events == load_recording(bases["dkg"]).events[:len(recording.events)]
    assert os.path.getsize(path) < len(data)


@pytest.mark.parametrize("kind", [{}, [], None, 3, "x" * 500])
def test_an_event_type_that_is_not_a_known_name_is_one_short_error(kind):
    from sim.events import EventFormatError, event_from_dict, event_type

    assert event_type(kind) is None
    with pytest.raises(EventFormatError, match="unknown event type") as info:
        event_from_dict({"type": kind, "tick": 0})
    assert len(str(info.value)) < 120
