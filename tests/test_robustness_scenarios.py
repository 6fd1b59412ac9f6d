"""Damaged and generated scenario files, TradeCraft instances and rule-set files thrown at the
public loaders (``load_spec``, ``load_ruleset``, ``load_paper_instances``).

Every outcome is one of: the project's own error whose message starts with the file and names
where (field, line, map cell) and what was expected; or an accepted input that builds a world
which then runs, holding exactly what the file said. Anything else (another exception, a hang,
an accepted file whose data came out different) fails the test.

CI runs a fixed budget with a fixed seed; people run more with
``TOM_ARENA_FUZZ_EXAMPLES=20000 bash scripts/test.sh tests/test_robustness_scenarios.py``
(docs/testing.md). ``TOM_ARENA_FUZZ_REPORT=FILE`` appends one line per case to FILE and lets
the run continue past failures, for counting (the table in docs/testing.md).
"""

from __future__ import annotations

import codecs
import contextlib
import copy
import json
import math
import os
import re
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sim.dkg.scenario import MAX_MAP_SIDE
from sim.inputs import InputError
from sim.registry import SCENARIO_DIR, ScenarioError, build_world, load_spec
from sim.tradecraft.instance import MAX_AMOUNT, load_paper_instances
from sim.tradecraft.rules import RuleSetError, load_ruleset

FUZZ_EXAMPLES = int(os.environ.get("TOM_ARENA_FUZZ_EXAMPLES", "0"))
REPORT = os.environ.get("TOM_ARENA_FUZZ_REPORT")
HANG_SECONDS = 20


def fuzz_settings(ci_examples: int) -> settings:
    """A fixed budget and seed in CI; TOM_ARENA_FUZZ_EXAMPLES=N runs N random cases instead."""
    return settings(max_examples=FUZZ_EXAMPLES or ci_examples, derandomize=not FUZZ_EXAMPLES, deadline=None,
                    database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float):
    def on_alarm(signum, frame):
        raise Hang(f"no answer after {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def record(suite: str, outcome: str, detail: str = "") -> None:
    """Count the case (with TOM_ARENA_FUZZ_REPORT) and fail it unless it is a clean outcome."""
    if REPORT:
        with open(REPORT, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"suite": suite, "outcome": outcome, "detail": detail[:400]}) + "\n")
        return
    assert outcome in ("clean error", "accepted"), f"{outcome}: {detail}"


WHERE = re.compile(r"field '|line \d|map row|column \d|the file|top level|JSON object|fields '|entry|folder")
EXPECTED = re.compile(r"expected|must|needs|required|invalid JSON|not UTF-8|cannot|no such|not |should|exactly")


def clean_message(message: str, path: Path | str) -> str | None:
    """Why an error message falls short (None when it names the file, where, and what was expected)."""
    if "\n" in message:
        return "the message has more than one line"
    if not message.startswith(f"{path}"):
        return "the message does not start with the file"
    rest = message[len(str(path)):]
    if not WHERE.search(rest):
        return "the message names no field, line or cell"
    if not EXPECTED.search(rest):
        return "the message does not say what was expected"
    return None


# ------------------------------------------------------------------ the seeds of every mutation

def shipped(family: str, limit: int | None = None) -> list[Path]:
    """The family's scenario files, at most ``limit`` from each folder, so that one folder of many
    generated scenarios does not crowd out the hand-made ones as mutation bases."""
    paths = sorted(p for p in (SCENARIO_DIR / family).rglob("*.json") if "rulesets" not in p.parts)
    if not limit:
        return paths
    taken: dict[Path, int] = {}
    out = []
    for p in paths:
        if taken.get(p.parent, 0) < limit:
            taken[p.parent] = taken.get(p.parent, 0) + 1
            out.append(p)
    return out


BASES = shipped("dkg", 24) + [p for sub in ("minecraft-1v1", "alchemy-1v1", "minecraft-3p")
                          for p in shipped(f"tradecraft/{sub}", 3)]
BASE_DATA = {p: json.loads(p.read_text(encoding="utf-8")) for p in BASES}

# values that have broken loaders before, beside whatever hypothesis makes up
NASTY = [True, False, None, 0, -1, 1.5, "80", "", [], {}, [[]], {"a": {}}, 10**12, 10**11, 2**63,
         "__HUGE_INT__", "__1E400__", 1e300, float("nan"), float("inf"), -float("inf"), "\ud800", "a\udfffb", "x" * 250,
         "bob\n", "Two Rooms", {"agent": {"x": 1}}, {"key": "red"}, {"gem": "blue"}, ["alice", "alice"],
         [{"coal": 1}], {"minecraft:coal": 1, "coal": 2}]
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**13, 10**13),
                      st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.sampled_from(NASTY))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                          max_leaves=12)


def paths_of(data: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(data, dict):
        for k, v in data.items():
            out += paths_of(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += paths_of(v, (*prefix, i))
    return out


def replace_at(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    data = copy.copy(data)
    data[path[0]] = replace_at(data[path[0]], path[1:], value)
    return data


def delete_at(data: Any, path: tuple) -> Any:
    if len(path) == 1:
        data = copy.copy(data)
        del data[path[0]]
        return data
    data = copy.copy(data)
    data[path[0]] = delete_at(data[path[0]], path[1:])
    return data


def dumps(data: Any) -> str:
    """JSON text with NaN, Infinity and \\ud800 escapes as Python writes them, and the literals
    no Python value dumps to (a 5000-digit integer, 1e400) where the markers stand."""
    text = json.dumps(data, indent=1)
    return text.replace('"__HUGE_INT__"', "9" * 5000).replace('"__1E400__"', "1e400")


class Case(tuple):
    """(base file, new bytes, the data they hold or None, must the loader refuse them?), shown short."""

    def __repr__(self) -> str:
        base, raw, data, refuse = self
        return f"Case({base.name}, {len(raw)} bytes: {raw[:300]!r}..., refuse={refuse})"


@st.composite
def mutated_file(draw) -> Case:
    return Case(draw(_mutated_file()))


@st.composite
def _mutated_file(draw) -> tuple[Path, bytes, Any, bool]:
    base = draw(st.sampled_from(BASES))
    data = BASE_DATA[base]
    how = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add", "map", "map", "duplicate",
                                "bytes", "truncate", "encoding", "nest", "amount", "big-map"]))
    if how == "replace":
        path = draw(st.sampled_from(paths_of(data)))
        data = replace_at(data, path, draw(json_value))
    elif how == "delete":
        path = draw(st.sampled_from([p for p in paths_of(data) if p]))
        data = delete_at(data, path)
    elif how == "add":
        path = draw(st.sampled_from([p for p in paths_of(data) if isinstance(_get(data, p), dict)]))
        data = replace_at(data, path, {**_get(data, path), draw(st.text(max_size=8)): draw(json_value)})
    elif how == "map" and data.get("world") == "dkg":
        rows = [list(r) for r in data["map"]]
        chars = sorted(data["legend"]) + ["#", "."]
        for _ in range(draw(st.integers(1, 12))):
            r = draw(st.integers(0, len(rows) - 1))
            c = draw(st.integers(0, len(rows[r]) - 1))
            rows[r][c] = draw(st.sampled_from(chars))
        data = {**data, "map": ["".join(r) for r in rows]}
    elif how == "amount" and data.get("world") == "tradecraft":
        k = draw(st.integers(0, len(data["hands"]) - 1))
        hand = dict(data["hands"][k])
        item = draw(st.sampled_from(sorted(hand)))
        hand[item] = draw(st.sampled_from([0, -3, 2.5, 3.0, MAX_AMOUNT, MAX_AMOUNT + 1, 10**30, 1e308, "7", True]))
        data = {**data, "hands": [hand if i == k else h for i, h in enumerate(data["hands"])]}
    elif how == "big-map" and data.get("world") == "dkg":
        side = draw(st.sampled_from([MAX_MAP_SIDE, MAX_MAP_SIDE + 1, 400]))
        rows = ["#" * side] + ["#" + "." * (side - 2) + "#"] * (side - 2) + ["#" * side]
        rows[1] = "#" + "1" + "." * (side - 5) + "*2#"
        rows[2] = "#" + "+" + "." * (side - 3) + "#"
        data = {**data, "map": rows, "legend": {"#": "wall", ".": "floor", "1": {"agent": "alice"},
                                                "2": {"agent": "bob"}, "*": {"gem": "blue"}, "+": {"gem": "red"}},
                "goals": {"alice": "gem1", "bob": "gem2"}, "options": {}}
    text = dumps(data)
    refuse = False
    if how == "duplicate":
        key = draw(st.sampled_from(sorted(data)))
        text = text.replace("{", "{\n " + json.dumps(key) + ": " + json.dumps(data[key]) + ",", 1)
        return base, text.encode(), None, True
    raw = text.encode("utf-8", "surrogatepass")
    if how == "bytes":
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(raw) - 1))
            raw = raw[:i] + draw(st.binary(min_size=0, max_size=3)) + raw[i + 1:]
        return base, raw, None, False
    if how == "truncate":
        return base, raw[:draw(st.integers(0, len(raw) - 1))], None, True
    if how == "encoding":
        codec = draw(st.sampled_from(["utf-16", "utf-16-le", "utf-32", "utf-8-sig", "latin-1"]))
        text = text.replace('"title": "', '"title": "\u00e9\u00e0 ', 1) if codec == "latin-1" else text
        raw = text.encode(codec, "replace")
        refuse = codec not in ("utf-8-sig",) and not (codec == "latin-1" and "\u00e9" not in text)
        return base, raw, (data if codec == "utf-8-sig" else None), refuse
    if how == "nest":
        depth = draw(st.sampled_from([70, 1000, 100_000]))
        raw = text.replace('"title": ', '"title": ' + "[" * depth, 1).encode()
        raw = raw.replace(b'"title": ' + b"[" * depth, b'"title": ' + b"[" * depth, 1)
        # close the lists right after the title's value
        head, _, tail = raw.partition(b'"title": ' + b"[" * depth)
        value, comma, rest = tail.partition(b",\n")
        raw = head + b'"title": ' + b"[" * depth + value + b"]" * depth + comma + rest
        return base, raw, None, True
    return base, raw, data, False


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


# --------------------------------------------------------------------- what must hold when accepted

def nonsense_in(family: str, data: Any, spec: dict[str, Any]) -> str | None:
    """Where an accepted file's spec differs from what the file says (None when it holds it)."""
    if not isinstance(data, dict):
        return "a file that is not an object was accepted"
    for key in ("name", "title", "description"):
        if key in data and spec.get(key) != data[key]:
            return f"{key}: file says {data[key]!r:.60}, spec holds {spec.get(key)!r:.60}"
    options = data.get("options") or {}
    if family == "dkg":
        if spec["map"] != data["map"] or spec["goals"] != data["goals"]:
            return "map or goals changed"
        for key in ("t_max", "turn_order"):
            if key in options and (spec["options"][key] != options[key] or type(spec["options"][key]) is not type(options[key])):
                return f"options.{key}: file says {options[key]!r}, spec holds {spec['options'][key]!r}"
    else:
        for side in ("hands", "targets"):
            for k, (given, kept) in enumerate(zip(data[side], spec[side])):
                if sorted(int(v) for v in given.values()) != sorted(kept.values()):
                    return f"{side}[{k}]: amounts {given} became {kept}"
                if any(isinstance(v, bool) or not (isinstance(v, int) or float(v).is_integer()) for v in given.values()):
                    return f"{side}[{k}]: non-whole amounts accepted: {given}"
        if "max_turns" in options and (spec["options"]["max_turns"] != options["max_turns"]
                                       or isinstance(options["max_turns"], bool)):
            return f"options.max_turns: file says {options['max_turns']!r}"
        if "players" in data and data["players"] is not None and spec["players"] != data["players"]:
            return "players changed"
    return None


def run_briefly(family: str, spec: dict[str, Any]) -> None:
    """Build the world and play its first legal actions: an accepted file must run."""
    world = build_world(family, spec)
    state = world.reset(0)
    for _ in range(12):
        if world.done(state):
            break
        joint = {a: world.legal_actions(state, a)[0] for a in world.active_agents(state)}
        state = world.step(state, joint).state
    world.render_text(state)
    world.outcome(state)


def judge_load(path: Path, data: Any, refuse: bool) -> tuple[str, str]:
    try:
        with time_limit(HANG_SECONDS):
            family, spec = load_spec(path)
    except Hang as exc:
        return "hang", str(exc)
    except ScenarioError as exc:
        problem = clean_message(str(exc), path)
        return ("clean error", str(exc)) if problem is None else ("unclear error", f"{problem}: {exc}")
    except Exception as exc:  # noqa: BLE001 - what the test is looking for
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    if refuse:
        return "silent nonsense", "accepted a file that must be refused"
    if data is not None:
        why = nonsense_in(family, data, spec)
        if why:
            return "silent nonsense", why
    try:
        with time_limit(HANG_SECONDS):
            run_briefly(family, spec)
    except Hang as exc:
        return "hang", f"running: {exc}"
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"accepted, then running raised {type(exc).__name__}: {exc}"[:400]
    return "accepted", ""


@fuzz_settings(300)
@given(case=mutated_file())
def test_mutated_scenario_files(tmp_path_factory, case):
    base, raw, data, refuse = case
    path = tmp_path_factory.mktemp("fuzz") / base.name
    path.write_bytes(raw)
    outcome, detail = judge_load(path, data, refuse)
    record("scenario", outcome, f"{base.name}: {detail}")


# ----------------------------------------------------------------------------- generated DKG maps

@st.composite
def generated_dkg(draw) -> dict[str, Any]:
    height = draw(st.integers(3, 7))
    width = draw(st.integers(3, 8))
    cells = draw(st.lists(st.sampled_from("###.....rRbB*+"), min_size=height * width, max_size=height * width))
    rows = ["".join(cells[r * width:(r + 1) * width]) for r in range(height)]
    free = [(r, c) for r in range(height) for c in range(width)]
    a = draw(st.sampled_from(free))
    b = draw(st.sampled_from([f for f in free if f != a]))
    rows = [list(r) for r in rows]
    rows[a[0]][a[1]] = "1"
    rows[b[0]][b[1]] = "2"
    rows = ["".join(r) for r in rows]
    gems = sum(r.count("*") + r.count("+") for r in rows)
    goals = {"alice": f"gem{draw(st.integers(1, max(gems, 1)))}", "bob": f"gem{draw(st.integers(1, max(gems, 1)))}"}
    return {"world": "dkg", "name": "generated", "map": rows,
            "legend": {"#": "wall", ".": "floor", "r": {"key": "red"}, "R": {"door": "red"},
                       "b": {"key": "blue"}, "B": {"door": "blue"}, "*": {"gem": "green"}, "+": {"gem": "pink"},
                       "1": {"agent": "alice"}, "2": {"agent": "bob"}},
            "goals": goals, "options": {"t_max": draw(st.integers(1, 60))}}


def goal_reachable_somehow(data: dict[str, Any], agent: str, limit: int = 20_000) -> bool | None:
    """Brute force over the real rules: can ``agent`` ever hold its gem, whatever everyone does?
    Breadth-first search over states (without the clock) from the start; None when the search
    is cut at ``limit`` states without an answer."""
    from sim.dkg.scenario import DKGScenario
    from sim.dkg.world import DKGWorld

    # the schema's normal form without validate_dkg's semantic checks (the one under test)
    spec = DKGScenario.model_validate({**data, "options": {"t_max": 100_000}}).model_dump()
    spec["options"]["turn_order"] = ["alice", "bob"]
    world = DKGWorld(spec)
    index = world.agents.index(agent)

    def key(state):
        return state.turn, state.agent_cells, state.item_locs, state.open_doors

    start = world.reset(0)
    seen = {key(start)}
    frontier = [start]
    while frontier:
        following = []
        for state in frontier:
            if world.holds_goal(state, index):
                return True
            active = world.active_agents(state)[0]
            for action in world.legal_actions(state, active):
                after = world.step(state, {active: action}).state
                if key(after) not in seen:
                    if len(seen) >= limit:
                        return None
                    seen.add(key(after))
                    following.append(after)
        frontier = following
    return False


@fuzz_settings(150)
@given(data=generated_dkg())
def test_generated_maps_are_refused_only_when_a_goal_can_never_be_reached(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("maps") / "generated.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    outcome, detail = judge_load(path, data, refuse=False)
    if outcome == "clean error" and "can never be reached" in detail:
        agent = re.search(r"field 'goals\.(\w+)'", detail).group(1)
        if goal_reachable_somehow(data, agent) is True:
            outcome, detail = "silent nonsense", f"refused a goal that can be reached: {detail}"
    record("generated map", outcome, detail)


# --------------------------------------------------------------------------------- rule-set files

RULESET = SCENARIO_DIR / "tradecraft" / "rulesets" / "alchemy"
RULE_FILES = sorted(p.relative_to(RULESET) for p in RULESET.rglob("*.json"))


@fuzz_settings(120)
@given(rel=st.sampled_from(RULE_FILES), how=st.sampled_from(["replace", "replace", "delete", "bytes", "duplicate"]),
       data=st.data())
def test_mutated_rule_set_files(tmp_path_factory, rel, how, data):
    folder = tmp_path_factory.mktemp("rules") / "alchemy"
    shutil.copytree(RULESET, folder)
    target = folder / rel
    content = json.loads(target.read_text(encoding="utf-8"))
    if how == "replace":
        content = replace_at(content, data.draw(st.sampled_from(paths_of(content))), data.draw(json_value))
        raw = dumps(content).encode("utf-8", "surrogatepass")
    elif how == "delete" and len(paths_of(content)) > 1:
        raw = dumps(delete_at(content, data.draw(st.sampled_from(paths_of(content)[1:])))).encode()
    elif how == "bytes":
        raw = bytearray(target.read_bytes())
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
        raw = bytes(raw)
    else:
        text = dumps(content)
        key = next(iter(content)) if isinstance(content, dict) and content else None
        raw = (text.replace("{", "{" + json.dumps(key) + ": 1,", 1) if key else text).encode()
    target.write_bytes(raw)
    try:
        with time_limit(HANG_SECONDS):
            rules = load_ruleset(folder)
            rules.summary()
    except Hang as exc:
        record("rule set", "hang", str(exc))
    except RuleSetError as exc:
        message = str(exc)
        ok = message.startswith(str(folder.resolve())) or message.startswith("tag ")
        record("rule set", "clean error" if ok and "\n" not in message else "unclear error", message)
    except Exception as exc:  # noqa: BLE001
        record("rule set", "traceback", f"{rel}: {type(exc).__name__}: {exc}")
    else:
        record("rule set", "accepted" if how != "duplicate" or key is None else "silent nonsense",
               f"{rel}: {how}")


# ------------------------------------------------------------------------ fixed, known answers

@pytest.mark.parametrize("raw, fragments", [
    (b'{"world": "dkg", "world": "dkg"}', ["line 1, column 1", "'world' occurs twice"]),
    ('{"world": "dkg"}'.encode("utf-16"), ["UTF-16", "save it as UTF-8"]),
    (b'{"world": "dkg", "name": "\xff"}', ["line 1, column 27", "not UTF-8"]),
    (b'{"world": "dkg", "t": ' + b"9" * 5000 + b"}", ["line 1, column 23", "5000 digits"]),
    (b'{"world": "dkg", "t": 1e400}', ["line 1, column 23", "1e400", "finite"]),
    (b'{"world": "dkg", "t": NaN}', ["line 1, column 23", "NaN"]),
    (b'{"world": "dkg", "t": ' + b"[" * 1000 + b"]" * 1000 + b"}", ["line 1, column 86", "nested", "64"]),
    (b'{"world": "dkg", "title": "\\ud800"}', ["field 'title'", "lone surrogate"]),
])
def test_unreadable_json_gives_one_clear_error(tmp_path, raw, fragments):
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    with pytest.raises(ScenarioError) as info:
        load_spec(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


BASE = json.loads((SCENARIO_DIR / "dkg" / "two-rooms.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("change, fragments", [
    ({"options": {"t_max": True}}, ["field 'options.t_max'", "expected a whole number", "True"]),
    ({"options": {"t_max": "80"}}, ["field 'options.t_max'", "expected a whole number", "quotes is text", "'80'"]),
    ({"options": {"turn_order": []}}, ["field 'options.turn_order'", "at least 1"]),
    ({"name": "x" * 250}, ["field 'name'", "at most 64"]),
    ({"name": "bob\n"}, ["field 'name'", "lowercase letters, digits"]),
])
def test_values_are_never_converted(tmp_path, change, fragments):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({**BASE, **change}), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_spec(path)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_a_goal_walled_in_for_good_is_refused(tmp_path):
    data = {"world": "dkg", "name": "walled", "map": ["#######", "#1.#*2#", "#..#..#", "#######"],
            "legend": {"#": "wall", ".": "floor", "*": {"gem": "red"}, "1": {"agent": "alice"},
                       "2": {"agent": "bob"}}, "goals": {"alice": "gem1", "bob": "gem1"}}
    data["map"][1] = "#1.#*2#"
    data["map"].insert(2, "#+.#..#")
    data["legend"]["+"] = {"gem": "blue"}
    data["goals"] = {"alice": "gem2", "bob": "gem1"}
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    load_spec(path)  # each reaches its own
    data["goals"] = {"alice": "gem1", "bob": "gem2"}
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"field 'goals.alice': gem1 \(row 1, column 4\) can never be reached"):
        load_spec(path)
    # a door with a key of its colour somewhere reachable opens the way; without the key it does not
    data["map"][1] = "#1.R*2#"
    data["legend"]["R"] = {"door": "red"}
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match="can never be reached"):
        load_spec(path)
    data["map"][3] = "#r.#..#"
    data["legend"]["r"] = {"key": "red"}
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_spec(path)[1]["goals"] == {"alice": "gem1", "bob": "gem2"}


def test_amounts_and_limits_of_instances(tmp_path):
    base = json.loads((SCENARIO_DIR / "tradecraft" / "alchemy-1v1" / "al1v1-01.json").read_text())
    for amount, ok in [(MAX_AMOUNT, True), (MAX_AMOUNT + 1, False), (10**400, False), (3.0, True), (2.5, False)]:
        data = copy.deepcopy(base)
        data["hands"][0]["glass"] = amount
        path = tmp_path / "i.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        if ok:
            assert load_spec(path)[1]["hands"][0]["alchemy:glass"] == int(amount)
        else:
            with pytest.raises(ScenarioError, match=r"field 'hands\[0\]\.glass'|digits"):
                load_spec(path)
    data = copy.deepcopy(base)
    data["hands"][0]["alchemy:glass"] = 1
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match="name the same item"):
        load_spec(path)


def test_paper_instances_file_is_read_strictly(tmp_path):
    path = tmp_path / "paper.json"
    path.write_text('[{"hands": [{"glass": 1}], "hands": [], "targets": []}]', encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"line 1, column 2: the key 'hands' occurs twice"):
        load_paper_instances(path, rules="alchemy")


def test_a_rule_set_file_with_a_duplicate_key_is_refused(tmp_path):
    folder = tmp_path / "alchemy"
    shutil.copytree(RULESET, folder)
    recipe = next((folder / "recipes").rglob("*.json"))
    recipe.write_text('{"type": "crafting_shapeless", "type": "smelting"}', encoding="utf-8")
    with pytest.raises(RuleSetError, match="'type' occurs twice"):
        load_ruleset(folder)


def test_input_errors_are_value_errors_of_one_family():
    assert issubclass(ScenarioError, InputError) and issubclass(RuleSetError, InputError)
    assert issubclass(InputError, ValueError) and math.isfinite(1.0)
    assert codecs.lookup("utf-8")
