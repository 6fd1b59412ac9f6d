"""Damaged and hostile files thrown at the secondary readers: PDDL problems, LLM settings files
(TOML and JSON), kitchen text levels, the rule set's ``generator`` block, household room
geometry, recording headers that claim an older version, and instance name prefixes.

Every case ends in one of two ways: the reader's own error (an InputError) on one line that
starts with the file; or an accepted input that holds what the file said and then works (a
scenario runs its first steps, a household draws its first state with the real renderer
offscreen, a rule set builds the trader's target pools and plays, settings hold the file's
values). Anything else (another exception, a hang, an accepted file that means something else)
fails the test.

Budget and seed as in tests/test_robustness_scenarios.py (TOM_ARENA_FUZZ_EXAMPLES,
TOM_ARENA_FUZZ_REPORT: one line per case, counted per reader; docs/testing.md).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st
from test_dkg_import import PDDL
from test_robustness_scenarios import (
    Hang,
    delete_at,
    dumps,
    fuzz_settings,
    json_value,
    paths_of,
    record,
    replace_at,
    run_briefly,
    time_limit,
)

from main import main
from sim.inputs import MAX_DEPTH, MAX_TEXT_BYTES, InputError
from sim.registry import SCENARIO_DIR, ScenarioError, build_world, load_spec

HANG_SECONDS = 20


def clean(exc: Exception, path: Path | str) -> tuple[str, str]:
    """("clean error", message) when the message is one line starting with the file."""
    message = str(exc)
    if "\n" in message or not message.startswith(str(path)):
        return "unclear error", message[:400]
    return "clean error", message[:400]


def mutate_bytes(draw, raw: bytes) -> bytes:
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, max(0, len(raw) - 1)))
        raw = raw[:i] + draw(st.binary(min_size=0, max_size=3)) + raw[i + 1:]
    return raw


# A refusal the reader must give, whatever else the file says: (bytes, must refuse)
def hostile(draw, text: str) -> tuple[bytes, bool]:
    how = draw(st.sampled_from(["oversize", "utf16", "latin1", "nul", "binary", "truncate"]))
    if how == "oversize":
        return text.encode() + b"\n" * (MAX_TEXT_BYTES + 1 - len(text.encode())) + b" ", True
    if how == "utf16":
        return text.encode("utf-16"), True
    if how == "latin1":
        i = draw(st.integers(0, len(text)))
        return text[:i].encode() + "é".encode("latin-1") + text[i:].encode(), True
    if how == "nul":
        i = draw(st.integers(0, len(text)))
        return text[:i].encode() + b"\0" + text[i:].encode(), True
    if how == "binary":
        return draw(st.binary(min_size=1, max_size=200)), False  # random bytes may spell a tiny valid file
    return text.encode()[:draw(st.integers(0, len(text.encode()) - 1))], False


# ------------------------------------------------------------------------ PDDL problems

def _pddl_tokens(text: str) -> list[re.Match]:
    return list(re.finditer(r"\(|\)|[^\s()]+", text))


@st.composite
def pddl_case(draw) -> tuple[bytes, bool]:
    text = PDDL
    how = draw(st.sampled_from(["token", "token", "delete", "duplicate", "number", "nest", "nest", "parens",
                                "bytes", "hostile"]))
    tokens = [m for m in _pddl_tokens(text) if m.group() not in "()"]
    if how == "token":  # a word or number swapped for another (types swapped)
        m = draw(st.sampled_from(tokens))
        new = draw(st.sampled_from(["0", "-1", "999999999", "1" * 12, "x", "true", "gem9", "red", "teal", "=",
                                    "walls", "and", "has", "human", "robot", "door1", "-", ":init", "\u00e9"]))
        return (text[:m.start()] + new + text[m.end():]).encode(), False
    if how == "delete":
        m = draw(st.sampled_from(_pddl_tokens(text)))
        return (text[:m.start()] + text[m.end():]).encode(), False
    if how == "duplicate":
        lines = text.splitlines(keepends=True)
        i = draw(st.integers(0, len(lines) - 1))
        return "".join(lines[:i] + [lines[i]] + lines[i:]).encode(), False
    if how == "number":
        m = draw(st.sampled_from([m for m in tokens if m.group().isdigit()]))
        digits = draw(st.sampled_from([10, 100, 5000]))
        return (text[:m.start()] + "9" * digits + text[m.end():]).encode(), True
    if how == "nest":  # a fact wrapped in many parentheses
        depth = draw(st.sampled_from([MAX_DEPTH + 1, 1000, 100_000]))
        lines = text.splitlines(keepends=True)
        i = draw(st.integers(11, 38))
        lines[i] = "(" * depth + lines[i].rstrip("\n") + ")" * depth + "\n"
        return "".join(lines).encode(), True
    if how == "parens":
        m = draw(st.sampled_from(_pddl_tokens(text)))
        new = draw(st.sampled_from(["(", ")", "()", "(())", ""]))
        return (text[:m.start()] + new + text[m.end():]).encode(), False
    if how == "bytes":
        return mutate_bytes(draw, text.encode()), False
    return hostile(draw, text)


def judge_scenario(path: Path, refuse: bool) -> tuple[str, str]:
    """Load ``path`` as any scenario and play its first steps."""
    try:
        with time_limit(HANG_SECONDS):
            family, spec = load_spec(path)
    except Hang as exc:
        return "hang", str(exc)
    except ScenarioError as exc:
        return clean(exc, path)
    except Exception as exc:  # noqa: BLE001 - what the test is looking for
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    if refuse:
        return "silent nonsense", "accepted a file that must be refused"
    try:
        with time_limit(HANG_SECONDS):
            run_briefly(family, spec)
    except Hang as exc:
        return "hang", f"running: {exc}"
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"accepted, then running raised {type(exc).__name__}: {exc}"[:400]
    return "accepted", ""


@fuzz_settings(150)
@given(case=pddl_case())
def test_mutated_pddl_problems(tmp_path_factory, case):
    raw, refuse = case
    path = tmp_path_factory.mktemp("pddl") / "problem.pddl"
    path.write_bytes(raw)
    outcome, detail = judge_scenario(path, refuse)
    if outcome == "accepted":  # dkg import reads it the same way
        from sim.dkg.reference import import_reference
        try:
            import_reference(path)
        except ScenarioError as exc:
            outcome, detail = "silent nonsense", f"run accepts it, dkg import refuses it: {exc}"
    record("pddl", outcome, detail)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
def test_deep_pddl_is_one_error_in_run_and_in_dkg_import(tmp_path, capsys, depth):
    path = tmp_path / "deep.pddl"
    path.write_text(PDDL.replace("(locked door1)", "(" * depth + "locked door1" + ")" * depth), encoding="utf-8")
    assert main(["run", str(path), "--episodes", "1", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {path}: line 25, column ") and f"deeper than {MAX_DEPTH}" in err[0]
    assert main(["dkg", "import", str(path), "--out", str(tmp_path / "imported")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"deeper than {MAX_DEPTH}" in err[0]
    ok = tmp_path / "ok.pddl"
    ok.write_text(PDDL.replace("(locked door1)", "(" * (MAX_DEPTH - 3) + "locked door1" + ")" * (MAX_DEPTH - 3)))
    with pytest.raises(ScenarioError, match="not a fact"):  # 64 levels parse; the fact is not one this reads
        load_spec(ok)


# ------------------------------------------------------------------------ kitchen text levels

KITCHEN_BASES = sorted(p for p in (SCENARIO_DIR / "kitchen").rglob("*.txt"))[:12]


@st.composite
def kitchen_case(draw) -> tuple[Path, bytes, bool]:
    base = draw(st.sampled_from(KITCHEN_BASES))
    text = base.read_text(encoding="utf-8")
    how = draw(st.sampled_from(["cells", "cells", "line", "header", "bytes", "hostile", "hostile", "wide", "tall"]))
    if how == "cells":
        chars = list(text)
        for _ in range(draw(st.integers(1, 10))):
            i = draw(st.integers(0, len(chars) - 1))
            if chars[i] != "\n":
                chars[i] = draw(st.sampled_from(list("-./*tlopD123456789 #x:") + ["\t", "\u00e9"]))
        return base, "".join(chars).encode(), False
    if how == "line":
        lines = text.splitlines(keepends=True)
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["drop", "dup", "blank"]))
        if op == "drop":
            lines = lines[:i] + lines[i + 1:]
        else:
            lines = lines[:i] + [lines[i] if op == "dup" else "\n"] + lines[i:]
        return base, "".join(lines).encode(), False
    if how == "header":
        value = draw(st.sampled_from(["0", "-1", "9" * 5000, "1e9", "true", "", "block", "share", "x" * 300]))
        key = draw(st.sampled_from(["t_max", "collisions", "name", "title", "category"]))
        return base, (f"{key}: {value}\n" + text).encode(), False
    if how == "bytes":
        return base, mutate_bytes(draw, text.encode()), False
    if how in ("wide", "tall"):  # a map over the side limit, well under the byte limit
        lines = text.splitlines()
        if "map:" in lines:
            k = lines.index("map:") + 1
        else:
            k = 0
        grid = lines[k:]
        if how == "wide":
            grid = [row + (row[-1] if row else "-") * 101 for row in grid]
        else:
            grid = grid[:1] + [grid[1]] * 101 + grid[1:]
        return base, "\n".join(lines[:k] + grid).encode() + b"\n", True
    raw, refuse = hostile(draw, text)
    return base, raw, refuse


@fuzz_settings(150)
@given(case=kitchen_case())
def test_mutated_kitchen_text_levels(tmp_path_factory, case):
    base, raw, refuse = case
    path = tmp_path_factory.mktemp("kitchen") / base.name
    path.write_bytes(raw)
    outcome, detail = judge_scenario(path, refuse)
    record("kitchen text", outcome, f"{base.name}: {detail}")


def test_a_huge_kitchen_level_is_refused_before_it_is_read(tmp_path, capsys):
    path = tmp_path / "huge.kitchen.txt"
    with open(path, "wb") as fh:
        fh.write(b"name: huge\nagent a: SimpleTomato\nmap:\n")
        fh.truncate(25 * 1024 * 1024)
    with pytest.raises(ScenarioError, match=r"larger than 1 MiB; expected a smaller file"):
        load_spec(path)
    assert main(["run", str(path), "--episodes", "1", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip() == (f"error: {path}: the file is larger than 1 MiB; expected a smaller "
                                               "file (see docs/limits.md)")


# ------------------------------------------------------------------------ LLM settings files

LLM_BASE = {"base_url": "http://127.0.0.1:9/v1", "model": "tiny", "temperature": 0.5, "max_tokens": 64,
            "timeout": 30.0, "max_retries": 1, "backoff": 0.25, "repair_attempts": 1,
            "structured_output": "json_object", "send_seed": False,
            "embedded": {"port": 0, "n_ctx": 2048, "threads": 2, "chat_format": "gemma", "startup_timeout": 60.0}}


def toml_text(data: dict[str, Any]) -> str | None:
    """TOML for simple data (None when a value has no TOML form here: null, nested lists of tables)."""
    def value(v: Any) -> str | None:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return repr(v) if v == v and abs(v) != float("inf") else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
        if isinstance(v, str):
            return json.dumps(v).replace("\\ud", "\\uD") if not re.search(r"[\ud800-\udfff]", v) else None
        if isinstance(v, list):
            parts = [value(x) for x in v]
            return None if None in parts else "[" + ", ".join(parts) + "]"
        if isinstance(v, dict):
            parts = [f"{json.dumps(k)} = {value(x)}" for k, x in v.items()]
            return None if any(p.endswith("None") for p in parts) else "{" + ", ".join(parts) + "}"
        return None

    lines = []
    for k, v in data.items():
        shown = value(v)
        if shown is None:
            return None
        lines.append(f"{json.dumps(k)} = {shown}")
    return "\n".join(lines) + "\n"


@st.composite
def llm_case(draw) -> tuple[str, bytes, Any, bool]:
    """(file name, bytes, the data they hold or None, must refuse)."""
    suffix = draw(st.sampled_from(["toml", "json"]))
    data = copy.deepcopy(LLM_BASE)
    how = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add", "bytes", "nest", "nest",
                                "number", "hostile", "duplicate"]))
    if how == "replace":
        data = replace_at(data, draw(st.sampled_from(paths_of(data)[1:])), draw(json_value))
    elif how == "delete":
        data = delete_at(data, draw(st.sampled_from(paths_of(data)[1:])))
    elif how == "add":
        data = {**data, draw(st.text(max_size=8)): draw(json_value)}
    text = toml_text(data) if suffix == "toml" else dumps(data)
    if text is None or "__HUGE_INT__" in text or "__1E400__" in text:  # no TOML form: the JSON file instead
        suffix, text = "json", dumps(data)
    if how == "duplicate":
        text = ('model = "again"\n' + text) if suffix == "toml" else text.replace("{", '{"model": "again",', 1)
        return suffix, text.encode(), None, True
    if how == "bytes":
        return suffix, mutate_bytes(draw, text.encode("utf-8", "surrogatepass")), None, False
    if how == "nest":
        depth = draw(st.sampled_from([MAX_DEPTH + 1, 1000, 100_000]))
        if suffix == "toml":
            text += "deep = " + "[" * depth + "]" * depth + "\n" if draw(st.booleans()) else \
                "[" + ".".join(["t"] * depth) + "]\nx = 1\n"
        else:
            text = text.replace("{", '{"deep": ' + "[" * depth + "]" * depth + ",", 1)
        return suffix, text.encode(), None, True
    if how == "number":
        digits = draw(st.sampled_from([31, 5000]))
        text = (text + f"max_tokens = {'9' * digits}\n") if suffix == "toml" else \
            text.replace('"max_tokens": 64', f'"max_tokens": {"9" * digits}')
        return suffix, text.encode(), None, True
    if how == "hostile":
        raw, refuse = hostile(draw, text)
        return suffix, raw, None, refuse
    return suffix, text.encode("utf-8", "surrogatepass"), data, False


def settings_nonsense(data: Any, settings: Any) -> str | None:
    """Where accepted settings differ from what the file said (None when they hold it)."""
    if isinstance(data, dict) and isinstance(data.get("llm"), dict) and len(data) == 1:
        data = data["llm"]
    if not isinstance(data, dict):
        return "a file that is not a table was accepted"
    held = settings.model_dump()
    for key, value in data.items():
        if key == "api_key":
            if settings.api_key.get_secret_value() != value:
                return "api_key differs"
            continue
        if key == "embedded":
            for k, v in value.items():
                if held["embedded"][k] != v or type(held["embedded"][k]) is not type(v) and not (
                        isinstance(v, int) and isinstance(held["embedded"][k], float)):
                    return f"embedded.{k}: file says {v!r:.40}, settings hold {held['embedded'][k]!r:.40}"
            continue
        kept = held[key]
        if kept != value or (type(kept) is not type(value) and not (isinstance(value, int) and not
                                                                     isinstance(value, bool) and isinstance(kept, float))):
            return f"{key}: file says {value!r:.40}, settings hold {kept!r:.40}"
    return None


def judge_settings(path: Path, data: Any, refuse: bool) -> tuple[str, str]:
    from agents.llm.config import LLMConfigError, load_settings

    try:
        with time_limit(HANG_SECONDS):
            settings = load_settings(path, env={})
    except Hang as exc:
        return "hang", str(exc)
    except LLMConfigError as exc:
        return clean(exc, path)
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    if refuse:
        return "silent nonsense", "accepted a file that must be refused"
    if data is not None:
        why = settings_nonsense(data, settings)
        if why:
            return "silent nonsense", why
    try:  # what the app and llm check do with settings
        json.dumps(settings.public_dict(), allow_nan=False)
        settings.with_overrides(model="other")
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"accepted, then using it raised {type(exc).__name__}: {exc}"[:400]
    return "accepted", ""


@fuzz_settings(200)
@given(case=llm_case())
def test_mutated_llm_settings_files(tmp_path_factory, case):
    suffix, raw, data, refuse = case
    path = tmp_path_factory.mktemp("llm") / f"llm.{suffix}"
    path.write_bytes(raw)
    outcome, detail = judge_settings(path, data, refuse)
    record("llm settings", outcome, detail)


def test_llm_settings_that_are_no_file(tmp_path):
    from agents.llm.config import LLMConfigError, load_settings

    folder = tmp_path / "llm.toml"
    folder.mkdir()
    with pytest.raises(LLMConfigError, match=rf"^{re.escape(str(folder))}: is a folder; expected a TOML settings file$"):
        load_settings(env={"TOM_ARENA_LLM_CONFIG": str(folder)})
    binary = tmp_path / "llm.json"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    with pytest.raises(LLMConfigError, match=r"llm.json: line 1, column 1: invalid JSON"):
        load_settings(binary, env={})
    text = tmp_path / "t.toml"
    text.write_text('temperature = "0.5"\nsend_seed = 1\n')
    with pytest.raises(LLMConfigError, match=r"t.toml: field 'temperature'.*got '0.5'"):
        load_settings(text, env={})
    text.write_text("a = " + "[" * 70 + "]" * 70 + "\n")
    with pytest.raises(LLMConfigError, match=r"t.toml: line 1, column 69: nested deeper than 64"):
        load_settings(text, env={})


# ------------------------------------------------------------------ the rule set's generator block

ALCHEMY = SCENARIO_DIR / "tradecraft" / "rulesets" / "alchemy"
ALCHEMY_META = json.loads((ALCHEMY / "ruleset.json").read_text(encoding="utf-8"))
INSTANCE = json.loads((SCENARIO_DIR / "tradecraft" / "alchemy-1v1" / "al1v1-01.json").read_text(encoding="utf-8"))
ITEM_NAMES = ["air", "fire", "brick", "alchemy:brick", "nosuch", "minecraft:stone", "", "#alchemy:x", "BRICK",
              "brick ", "alchemy:", ":brick", "x" * 300]


@st.composite
def generator_case(draw) -> tuple[Any, bool]:
    block = copy.deepcopy(ALCHEMY_META["generator"])
    how = draw(st.sampled_from(["replace", "replace", "item", "item", "delete", "empty", "add", "swap", "nest",
                                "whole"]))
    if how == "replace":
        block = replace_at(block, draw(st.sampled_from(paths_of(block))), draw(json_value))
    elif how == "item":
        key = draw(st.sampled_from(sorted(block)))
        k = draw(st.integers(0, len(block[key]) - 1))
        block[key][k] = draw(st.one_of(st.sampled_from(ITEM_NAMES), st.sampled_from(block[key]), st.text(max_size=8)))
    elif how == "delete":
        block = delete_at(block, draw(st.sampled_from(paths_of(block)[1:])))
    elif how == "empty":
        block[draw(st.sampled_from(sorted(block)))] = []
    elif how == "add":
        block[draw(st.text(max_size=10))] = draw(json_value)
    elif how == "swap":  # a pool's items moved to another pool
        a, b = draw(st.permutations(sorted(block)))[:2]
        block[a], block[b] = block[b], block[a]
    elif how == "nest":
        depth = draw(st.sampled_from([MAX_DEPTH + 1, 1000]))
        inner: Any = "brick"
        for _ in range(depth):
            inner = [inner]
        block["targets"] = inner
        return block, True
    else:
        block = draw(json_value)
    return block, False


def judge_ruleset(folder: Path, refuse: bool) -> tuple[str, str]:
    """Load an instance that plays the rule set in ``folder``; accepted: the generator pools hold
    items of the rule set, and traders (whose minds are built on the target pool) play."""
    from agents.registry import make_agent
    from sim.session import Session
    from sim.tradecraft.generator import pools
    from sim.tradecraft.rules import load_ruleset

    instance = folder.parent / "instance.json"
    instance.write_text(json.dumps({**INSTANCE, "rules": str(folder)}), encoding="utf-8")
    meta = folder / "ruleset.json"
    try:
        with time_limit(HANG_SECONDS):
            family, spec = load_spec(instance)
    except Hang as exc:
        return "hang", str(exc)
    except InputError as exc:
        message = str(exc)
        if "\n" in message or not (message.startswith(str(meta)) or message.startswith(str(instance))):
            return "unclear error", message[:400]
        return "clean error", message[:400]
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    if refuse:
        return "silent nonsense", "accepted a generator block that must be refused"
    try:
        with time_limit(HANG_SECONDS):
            rules = load_ruleset(folder)
            targets, raw, middle = pools(rules)
            if not targets or not raw or any(t not in rules.by_result for t in targets) or \
                    any(i not in rules.items for i in [*raw, *middle]):
                return "silent nonsense", f"pools {targets[:3]}, {raw[:3]} hold what the rule set does not"
            world = build_world(family, spec)
            Session(world, {a: make_agent("trader", family) for a in world.agents}, seed=0).run(max_steps=3)
    except Hang as exc:
        return "hang", f"playing: {exc}"
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"accepted, then the traders raised {type(exc).__name__}: {exc}"[:400]
    return "accepted", ""


@pytest.mark.slow
@fuzz_settings(100)
@given(case=generator_case())
def test_mutated_generator_blocks(tmp_path_factory, case):
    block, refuse = case
    folder = tmp_path_factory.mktemp("rules") / "alchemy"
    shutil.copytree(ALCHEMY, folder)
    (folder / "ruleset.json").write_bytes(dumps({**ALCHEMY_META, "generator": block}).encode("utf-8", "surrogatepass"))
    outcome, detail = judge_ruleset(folder, refuse)
    record("generator block", outcome, detail)


# ------------------------------------------------------------------------ household geometry

HOUSEHOLD_BASES = sorted((SCENARIO_DIR / "household").glob("*.json"))[::5]
NUMBERS = [0, -1, -3.5, 0.5, 1, 1.99, 2, 2.0, 7, 49.9, 50, 50.01, 200, 499, 500, 501, 1e6, 1e300, -1e300,
           10**12, True, "5", None, float("nan"), float("inf"), "__HUGE_INT__", "__1E400__"]


@st.composite
def household_case(draw) -> tuple[Path, bytes, Any]:
    base = draw(st.sampled_from(HOUSEHOLD_BASES))
    data = json.loads(base.read_text(encoding="utf-8"))
    rooms = data["rooms"]
    how = draw(st.sampled_from(["number", "number", "number", "move", "shape", "rooms", "replace"]))
    if how == "number":
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(rooms) - 1))
            key = draw(st.sampled_from(["xy", "size"]))
            value = list(rooms[i].get(key, [5.0, 5.0]))
            value[draw(st.integers(0, 1))] = draw(st.one_of(st.sampled_from(NUMBERS),
                                                            st.floats(-600, 600, allow_nan=False)))
            rooms[i] = {**rooms[i], key: value}
    elif how == "move":  # a room moved onto, next to or far from another
        i, j = draw(st.integers(0, len(rooms) - 1)), draw(st.integers(0, len(rooms) - 1))
        dx, dy = draw(st.sampled_from([0, 3.5, 7, 6.9, 7.1, 100, -100])), draw(st.sampled_from([0, 3, 6, 5.9, 6.1]))
        rooms[i] = {**rooms[i], "xy": [rooms[j]["xy"][0] + dx, rooms[j]["xy"][1] + dy]}
    elif how == "shape":
        i = draw(st.integers(0, len(rooms) - 1))
        rooms[i] = {**rooms[i], draw(st.sampled_from(["xy", "size"])): draw(st.sampled_from(
            [[], [1], [1, 2, 3], "7x6", {"w": 7}, [[7], [6]], [None, None], 7]))}
    elif how == "rooms":
        extra = [{"id": f"room{k}", "xy": [draw(st.integers(-600, 600)), draw(st.integers(-600, 600))],
                  "size": [draw(st.sampled_from([2, 7, 50, 60])), 6]} for k in range(draw(st.sampled_from([1, 3, 70])))]
        data["rooms"] = rooms + extra
        data["doors"] = data.get("doors", []) + [[rooms[0]["id"], r["id"]] for r in extra]
    else:
        path = draw(st.sampled_from(paths_of(data)))
        data = replace_at(data, path, draw(json_value))
    return base, dumps(data).encode("utf-8", "surrogatepass"), data


def judge_household(path: Path, data: Any) -> tuple[str, str]:
    import pygame

    from ui.render.household import HouseholdRenderer

    try:
        with time_limit(HANG_SECONDS):
            family, spec = load_spec(path)
    except Hang as exc:
        return "hang", str(exc)
    except ScenarioError as exc:
        return clean(exc, path)
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    given_rooms = data.get("rooms") if isinstance(data, dict) else None
    for k, room in enumerate(spec["rooms"]):
        given = given_rooms[k] if isinstance(given_rooms, list) and k < len(given_rooms) else {}
        for key in ("xy", "size"):
            if key in given and [float(v) for v in given[key]] != room[key]:
                return "silent nonsense", f"rooms[{k}].{key}: file says {given[key]}, spec holds {room[key]}"
            if key in given and any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in given[key]):
                return "silent nonsense", f"rooms[{k}].{key}: {given[key]} accepted as numbers"
    try:
        with time_limit(HANG_SECONDS):
            world = build_world(family, spec)
            state = world.reset(0)
            renderer = HouseholdRenderer(world)
            for size in ((960, 640), (320, 240)):
                surface = pygame.Surface(size)
                renderer.draw(surface, state)
                renderer.draw(surface, state, overlays=_viewer(world.agents[0]))
            run_briefly(family, spec)
    except Hang as exc:
        return "hang", f"drawing: {exc}"
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"accepted, then drawing raised {type(exc).__name__}: {exc}"[:400]
    return "accepted", ""


def _viewer(agent: str) -> Any:
    from ui.render.base import Overlays
    return Overlays(viewer=agent)


@pytest.fixture(scope="module")
def pygame_offscreen():
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame
    pygame.init()
    yield
    pygame.quit()


@pytest.mark.slow
@fuzz_settings(120)
@given(case=household_case())
def test_mutated_household_geometry(tmp_path_factory, pygame_offscreen, case):
    base, raw, data = case
    path = tmp_path_factory.mktemp("household") / base.name
    path.write_bytes(raw)
    outcome, detail = judge_household(path, data)
    record("household geometry", outcome, f"{base.name}: {detail}")


@pytest.mark.parametrize("room, fragment", [
    ({"size": [-3, 5]}, "field 'rooms[0].size[0]': expected a width from 2 to 50 metres, got -3.0"),
    ({"size": [7, 1e9]}, "field 'rooms[0].size[1]': expected a height from 2 to 50 metres"),
    ({"xy": [1e6, 3]}, "field 'rooms[0].xy[0]': expected a centre x from -500 to 500 metres"),
    ({"xy": [480, 3]}, "field 'rooms': the rooms span"),
])
def test_room_geometry_the_renderer_cannot_draw_is_refused(tmp_path, room, fragment):
    data = json.loads(HOUSEHOLD_BASES[0].read_text(encoding="utf-8"))
    data["rooms"][0] = {**data["rooms"][0], **room}
    path = tmp_path / "h.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_spec(path)
    assert str(info.value).startswith(f"{path}: ") and fragment in str(info.value), str(info.value)


def test_overlapping_rooms_are_refused_rooms_sharing_a_wall_are_not(tmp_path):
    data = json.loads(HOUSEHOLD_BASES[0].read_text(encoding="utf-8"))
    a, b = data["rooms"][0], data["rooms"][1]
    path = tmp_path / "h.json"
    data["rooms"][1] = {**b, "xy": [a["xy"][0] + 3, a["xy"][1]]}
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"field 'rooms\[1\]': room '\w+' overlaps room '\w+' \(rooms\[0\]\)"):
        load_spec(path)


# ------------------------------------------------------------------------ recording headers

@pytest.fixture(scope="module")
def chained(tmp_path_factory) -> Path:
    from test_robustness_recordings import write_episode
    return write_episode(tmp_path_factory.mktemp("rec") / "dkg.jsonl", "protom-15-locked-in", "boltzmann", ["oracle"])


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


@st.composite
def header_case(draw, base: list[dict[str, Any]]) -> tuple[bytes, str]:
    """(file bytes, what it is): 'claims v1' (v2 fields kept: must be refused or reported),
    'genuine v1' (must load with the loud warning), 'other' (judged as any edit)."""
    objs = copy.deepcopy(base)
    header = objs[0]
    how = draw(st.sampled_from(["claims-v1", "claims-v1", "claims-v1-unchained-header", "claims-v1-no-chain",
                                "genuine-v1", "version"]))
    if how == "claims-v1":
        header["version"] = draw(st.sampled_from([1, 1.0]))
        header["seed"] = draw(st.sampled_from([header["seed"], header["seed"] + 1, 0]))
        kind = "claims v1" if header["version"] == 1 and type(header["version"]) is int else "other"
    elif how == "claims-v1-unchained-header":  # the header's chain removed, the lines keep theirs
        header.pop("chain")
        header["version"] = 1
        if draw(st.booleans()):
            mechanisms = header.pop("mechanisms")
            header["facilitator"] = {k: v for k, v in mechanisms[0].items() if k != "name"} if mechanisms else None
        kind = "claims v1"
    elif how == "claims-v1-no-chain":  # every chain removed, mechanisms kept
        objs = [{k: v for k, v in o.items() if k != "chain"} for o in objs]
        objs[0]["version"] = 1
        kind = "claims v1"
    elif how == "genuine-v1":
        from test_robustness_recordings import as_version_1  # noqa: F401 - the same conversion, inline
        objs = [{k: v for k, v in o.items() if k != "chain"} for o in objs]
        mechanisms = objs[0].pop("mechanisms")
        objs[0]["version"] = 1
        objs[0]["facilitator"] = {k: v for k, v in mechanisms[0].items() if k != "name"} if mechanisms else None
        objs[0]["team"] = None
        if draw(st.booleans()):  # an edit that keeps every type: undetectable, hence the warning
            objs[0]["seed"] = draw(st.integers(0, 10**6))
        kind = "genuine v1"
    else:
        header["version"] = draw(st.sampled_from([0, -1, 2, 3, "1", "2", True, None, 2.0, 10**40, [1], {"v": 1}]))
        kind = "other"
    text = b"".join(json.dumps(o, separators=(",", ":"), ensure_ascii=False).encode() + b"\n" for o in objs)
    return text, kind


def judge_header(path: Path, kind: str, capsys: Any) -> tuple[str, str]:
    from sim.recording import RecordingError, load_recording
    from sim.replay import Replay

    try:
        with time_limit(HANG_SECONDS):
            recording = load_recording(path)
            replay = Replay(recording)
    except Hang as exc:
        return "hang", str(exc)
    except RecordingError as exc:
        return clean(exc, path)
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    said = recording.warnings + replay.warnings
    if kind == "claims v1":
        return ("clean error", said[0]) if said else ("silent nonsense", "a v2 file claiming v1 loaded without a word")
    if recording.file_version == 1:
        if not (replay.unverified and "nothing in it is verified" in replay.unverified):
            return "silent nonsense", "a version 1 file loaded without the warning that nothing is verified"
        main(["replay", str(path)])
        err = capsys.readouterr().err
        if f"warning: {path}: format version 1 has no hash chain: nothing in it is verified" not in err:
            return "silent nonsense", f"replay printed no warning: {err[:200]}"
    return ("clean error", said[0]) if said else ("accepted", "")


@pytest.mark.slow
@fuzz_settings(80)
@given(data=st.data())
def test_recording_headers_claiming_version_1(chained, tmp_path_factory, capsys, data):
    raw, kind = data.draw(header_case(_lines(chained)))
    path = tmp_path_factory.mktemp("header") / "run.jsonl"
    path.write_bytes(raw)
    outcome, detail = judge_header(path, kind, capsys)
    record("recording version", outcome, f"{kind}: {detail}")


def test_a_v2_header_that_says_version_1_is_refused_naming_the_field(chained, tmp_path, capsys):
    objs = _lines(chained)
    objs[0]["version"] = 1
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(json.dumps(o).encode() + b"\n" for o in objs))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {path}: header field 'chain': a version 2 field in a header that says "
                          '"version": 1') and "\n" not in err


def test_a_genuine_version_1_file_says_loudly_that_nothing_is_verified(chained, tmp_path, capsys):
    from test_robustness_recordings import as_version_1

    from sim.replay import Replay
    from ui.session.timeline import ReplayTimeline

    path = as_version_1(chained, tmp_path / "old.jsonl")
    assert main(["replay", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"warning: {path}: format version 1 has no hash chain: nothing in it is verified" in err
    timeline = ReplayTimeline(Replay(str(path)))
    assert timeline.warnings and "nothing in it is verified" in timeline.warnings[0]  # the app's status line
    assert main(["recording", "convert", str(path), str(tmp_path / "new.jsonl")]) == 0
    assert "nothing in it is verified" in capsys.readouterr().err
    assert Replay(str(tmp_path / "new.jsonl")).unverified is None


# ------------------------------------------------------------------------ instance name prefixes

PREFIXES = ["../../x", "..", ".", "a/b", "/tmp/x", "x\0y", "", "-x", "Custom", "ok", "ok-1_2", "a" * 58, "a" * 59,
            "x.y", "é", "a b", "~", "$HOME", "a\\b", "a\nb"]


@fuzz_settings(150)
@given(prefix=st.one_of(st.sampled_from(PREFIXES), st.text(alphabet=string.printable + "é/\\.\0", max_size=12)))
def test_instance_prefixes_stay_inside_the_output_folder(tmp_path_factory, prefix):
    from sim.tradecraft.generator import check_prefix, write_instances

    root = tmp_path_factory.mktemp("prefix")
    out = root / "a" / "b" / "out"
    spec = {**INSTANCE, "name": f"{prefix}-01"}
    try:
        check_prefix(prefix)
        paths = write_instances([spec], out)
    except ValueError as exc:
        message = str(exc)
        outcome = "clean error" if message.startswith("--prefix ") and "\n" not in message else "unclear error"
        record("instance prefix", outcome, message)
        return
    except Exception as exc:  # noqa: BLE001
        record("instance prefix", "traceback", f"{type(exc).__name__}: {exc}")
        return
    written = sorted(p for p in root.rglob("*") if p.is_file())
    if written != [out / f"{prefix}-01.json"] or paths != written:
        record("instance prefix", "silent nonsense", f"{prefix!r}: wrote {written}")
        return
    family, loaded = load_spec(written[0])  # what generate writes loads as an instance
    record("instance prefix", "accepted" if loaded["name"] == spec["name"] else "silent nonsense", prefix)


def test_generate_refuses_a_prefix_that_leaves_the_folder(tmp_path, capsys):
    out = tmp_path / "a" / "b" / "out"
    assert main(["tradecraft", "generate", "--rules", "alchemy", "--count", "1", "--out", str(out),
                 "--prefix", "../../x"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --prefix '../../x': expected a plain name") and "\n" not in err
    assert not any(tmp_path.rglob("*.json"))
