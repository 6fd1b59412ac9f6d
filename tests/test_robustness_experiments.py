"""Experiment designs and command-line values thrown at their readers.

* Mutated copies of the shipped designs (``scenarios/experiments/*.json``: values replaced by
  nasty ones and by other types, keys deleted, added and given twice, bytes flipped, cuts,
  UTF-16/Latin-1, 70 to 100,000-deep nesting, 5000-digit integers, files over 8 MiB) go to
  ``load_design``: one ``ExperimentError`` naming the file, the field or line, and what was
  expected; or a design holding exactly what the file said.
* Designs whose references are wrong (scenarios, seat and mechanism specs, metric sources,
  hooks and their parameters) go through everything that runs before the first episode
  (``load_design``, ``resolve_scenarios``, ``plan``): one clean error, or a plan.
* Command-line values (tool arguments, repeated spec parameters, a team mechanism as
  facilitator, endpoints, settings files, output files where a folder stands, unknown
  instance sets) go to ``main.main``: exit status 2 with one ``error:`` line, or the work done.

Budget, seed, ``TOM_ARENA_FUZZ_EXAMPLES`` and ``TOM_ARENA_FUZZ_REPORT`` as in
tests/test_robustness_scenarios.py (docs/testing.md). Beside them: the hook registry never
imports a module a file names, every reference is checked before the first episode, output
files are checked up front, ``run`` appends metrics.csv rows as episodes end (kill -9 loses
none), and an experiment's pool workers end with its main process (kill -9, for real).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from experiments.design import Design, ExperimentError, check_hook, derive_hook, hooks, load_design
from experiments.runner import plan, resolve_scenarios
from main import main
from sim.registry import SCENARIO_DIR, ScenarioError
from test_robustness_cli import run_main
from test_robustness_scenarios import (Hang, clean_message, delete_at, dumps, fuzz_settings, json_value, paths_of,
                                       record, replace_at, time_limit, _get)

ROOT = Path(__file__).resolve().parent.parent
HANG_SECONDS = 20
DESIGNS = sorted((SCENARIO_DIR / "experiments").glob("*.json"))
DESIGN_DATA = {p: json.loads(p.read_text(encoding="utf-8")) for p in DESIGNS}
SWAPS = ["42", "true", True, False, 1, 0, -1, 2.5, None, [], {}, "", "__HUGE_INT__", "__1E400__", 10**40,
         "\ud800", "x" * 5000, ["none"], {"kind": "protom"}]


class Case(tuple):
    def __repr__(self) -> str:
        base, raw, data, refuse = self
        return f"Case({base.name}, {len(raw)} bytes: {raw[:300]!r}..., refuse={refuse})"


@st.composite
def mutated_design(draw) -> Case:
    base = draw(st.sampled_from(DESIGNS))
    data = DESIGN_DATA[base]
    how = draw(st.sampled_from(["replace", "replace", "swap", "swap", "delete", "add", "duplicate", "bytes",
                                "truncate", "encoding", "nest", "oversize"]))
    if how in ("replace", "swap"):
        path = draw(st.sampled_from(paths_of(data)))
        data = replace_at(data, path, draw(json_value if how == "replace" else st.sampled_from(SWAPS)))
    elif how == "delete":
        data = delete_at(data, draw(st.sampled_from([p for p in paths_of(data) if p])))
    elif how == "add":
        path = draw(st.sampled_from([p for p in paths_of(data) if isinstance(_get(data, p), dict)]))
        data = replace_at(data, path, {**_get(data, path), draw(st.text(max_size=8)): draw(json_value)})
    text = dumps(data)
    if how == "duplicate":
        key = draw(st.sampled_from(sorted(data)))
        text = text.replace("{", "{\n " + json.dumps(key) + ": " + json.dumps(data[key]) + ",", 1)
        return Case((base, text.encode(), None, True))
    raw = text.encode("utf-8", "surrogatepass")
    if how == "bytes":
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(raw) - 1))
            raw = raw[:i] + draw(st.binary(min_size=0, max_size=3)) + raw[i + 1:]
        return Case((base, raw, None, False))
    if how == "truncate":
        return Case((base, raw[:draw(st.integers(0, len(raw) - 1))], None, True))
    if how == "encoding":
        codec = draw(st.sampled_from(["utf-16", "utf-32", "utf-8-sig", "latin-1"]))
        text = text.replace('"title": "', '"title": "\u00e9 ', 1) if codec == "latin-1" else text
        refuse = codec in ("utf-16", "utf-32") or (codec == "latin-1" and "\u00e9" in text)
        return Case((base, text.encode(codec, "replace"), data if codec == "utf-8-sig" else None, refuse))
    if how == "nest":
        depth = draw(st.sampled_from([70, 1000, 100_000]))
        head, _, tail = raw.partition(b'"experiment": ')
        value, comma, rest = tail.partition(b",")
        return Case((base, head + b'"experiment": ' + b"[" * depth + value + b"]" * depth + comma + rest, None, True))
    if how == "oversize":
        pad = draw(st.sampled_from([9 * 1024 * 1024, 40 * 1024 * 1024]))
        return Case((base, raw.replace(b'"title": "', b'"title": "' + b"x" * pad, 1), None, True))
    return Case((base, raw, data, False))


def holds(given: Any, kept: Any, path: str = "") -> str | None:
    """Where an accepted design differs from what its file said (None: it holds every value given)."""
    if isinstance(given, dict):
        if not isinstance(kept, dict):
            return f"{path}: an object became {kept!r:.60}"
        for key, value in given.items():
            if key not in kept:
                return f"{path}.{key}: given, not kept"
            if key == "seeds" and isinstance(value, int) and not path:
                value = {"count": value}
            why = holds(value, kept[key], f"{path}.{key}")
            if why:
                return why
        return None
    if isinstance(given, list):
        if not isinstance(kept, list) or len(kept) != len(given):
            return f"{path}: the list {given!r:.60} became {kept!r:.60}"
        for k, (a, b) in enumerate(zip(given, kept)):
            why = holds(a, b, f"{path}[{k}]")
            if why:
                return why
        return None
    if type(given) is not type(kept) and not (type(given) is int and type(kept) is float):
        return f"{path}: {given!r:.60} ({type(given).__name__}) became {kept!r:.60} ({type(kept).__name__})"
    return None if given == kept else f"{path}: {given!r:.60} became {kept!r:.60}"


def judge_design(path: Path, data: Any, refuse: bool) -> tuple[str, str]:
    try:
        with time_limit(HANG_SECONDS):
            design = load_design(path)
    except Hang as exc:
        return "hang", str(exc)
    except ExperimentError as exc:
        problem = clean_message(str(exc), path)
        return ("clean error", str(exc)) if problem is None else ("unclear error", f"{problem}: {exc}")
    except Exception as exc:  # noqa: BLE001 - what the test is looking for
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    if refuse:
        return "silent nonsense", "accepted a file that must be refused"
    if data is not None:
        why = holds(data, design.model_dump(mode="json"))
        if why:
            return "silent nonsense", why
    return "accepted", ""


@fuzz_settings(300)
@given(case=mutated_design())
def test_mutated_designs(tmp_path_factory, case):
    base, raw, data, refuse = case
    path = tmp_path_factory.mktemp("designs") / base.name
    path.write_bytes(raw)
    outcome, detail = judge_design(path, data, refuse)
    record("design file", outcome, f"{base.name}: {detail}")


# ------------------------------------------------------------------ references, before the first episode

SMALL = {"experiment": "small", "scenarios": ["two-rooms"], "seeds": {"count": 1},
         "conditions": [{"name": "a"}, {"name": "b", "mechanisms": ["protom"]}], "baseline": "a", "reference": "b",
         "metrics": [{"name": "success", "source": "outcome.success", "kind": "binary"},
                     {"name": "length", "source": "metrics.ticks"}]}
# (value, must it be refused?)
SCENARIOS = [("two-rooms", False), ("dkg/two-rooms", False), ("nosuch", True), ("kitchen/two-rooms", True),
             ("[", True), ("x" * 300, True)]
AGENTS = [("planner", False), ("boltzmann:temperature=0.5", False), ("boltzmann:temperature=1,temperature=2", True),
          ("boltzmann:temperature=-1", True), ("boltzmann:nosuch=1", True), ("trader", True), ("alice=planner", True),
          ("carol=planner", True), ("nosuch", True), ("planner:", True)]
MECHANISMS = [("protom", False), ("protom:eps=0.2", False), ("protom:eps=2", True), ("protom:eps=0.1,eps=0.2", True),
              ("none", False), ("teams", False), ("nosuch", True), ({"kind": "protom", "params": {"eps": "x"}}, True),
              ({"kind": "protom", "params": {"goal_prior": {"gem1": 2.0}}}, False), ("random-teams:size=9", True)]
SOURCES = [("outcome.success", False), ("outcome.nosuch", True), ("metrics.ticks", False), ("metrics.nosuch", True),
           ("events.feedback", False), ("events.feedback_status.completed", False)]
DERIVED = [({"derive": "experiments.protom_dkg:speedup", "params": {"of": "length"}}, False),
           ({"derive": "experiments.protom_dkg:speedup", "params": {"of": "nosuch"}}, True),
           ({"derive": "experiments.protom_dkg:speedup", "params": {"off": "length"}}, True),
           ({"derive": "experiments.protom_dkg:speedup", "params": {"against": "episode"}}, True),
           ({"derive": "experiments.protom_dkg:speedup", "params": {"of": 1}}, True),
           ({"derive": "experiments.protom_dkg:check_category"}, True), ({"derive": "this:x"}, True),
           ({"derive": "os:system", "params": {"command": "true"}}, True)]
CHECKS = [({"hook": "experiments.protom_dkg:check_category"}, False), ({"hook": "experiments.cobel:check_task"}, True),
          ({"hook": "experiments.cobel:check_task", "params": {"task": "kitchen"}}, True),
          ({"hook": "experiments.teams:check_team_scenario", "params": {"min_agents": "2"}}, True),
          ({"hook": "this:x"}, True), ({"hook": "subprocess:run"}, True)]


@st.composite
def referring_design(draw) -> tuple[dict[str, Any], bool, list[str]]:
    data = json.loads(json.dumps(SMALL))
    bad_at: dict[str, bool] = {}  # a slot set again forgets its earlier value; appended entries all stay
    changes = []
    for _ in range(draw(st.integers(1, 3))):
        what = draw(st.sampled_from(["scenario", "agents", "condition agents", "mechanism", "source", "derive",
                                     "check"]))
        pool = {"scenario": SCENARIOS, "agents": AGENTS, "condition agents": AGENTS, "mechanism": MECHANISMS,
                "source": SOURCES, "derive": DERIVED, "check": CHECKS}[what]
        value, bad = draw(st.sampled_from(pool))
        slot = what if what in ("scenario", "agents", "condition agents", "mechanism") else f"{what}{len(changes)}"
        bad_at[slot] = bad
        changes.append(f"{what}={value!r:.80}")
        if what == "scenario":
            data["scenarios"] = [value]
        elif what == "agents":
            data["agents"] = [value]
        elif what == "condition agents":
            data["conditions"][0]["agents"] = [value]
        elif what == "mechanism":
            data["conditions"][1]["mechanisms"] = [value]
        elif what == "source":
            data["metrics"].append({"name": f"m{len(data['metrics'])}", "source": value})
        elif what == "derive":
            data["metrics"].append({"name": f"m{len(data['metrics'])}", **value})
        else:
            data.setdefault("checks", []).append(value)
    return data, any(bad_at.values()), changes


def prepare(path: Path) -> Any:
    """Everything the runner does before the first episode, except the pre-checks' own work."""
    design = load_design(path)
    return plan(design, resolve_scenarios(design.scenarios), design.seeds.seeds())


@fuzz_settings(150)
@given(case=referring_design())
def test_every_reference_is_checked_before_the_first_episode(tmp_path_factory, case):
    data, refuse, changes = case
    path = tmp_path_factory.mktemp("refs") / "small.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        with time_limit(HANG_SECONDS):
            prepare(path)
    except Hang as exc:
        outcome, detail = "hang", str(exc)
    except (ExperimentError, ScenarioError) as exc:
        message = str(exc)
        outcome, detail = ("clean error" if message and "\n" not in message else "unclear error"), message
    except Exception as exc:  # noqa: BLE001
        outcome, detail = "traceback", f"{type(exc).__name__}: {exc}"[:400]
    else:
        outcome, detail = ("silent nonsense", "planned a design with a wrong reference") if refuse else ("accepted", "")
    record("design references", outcome, f"{'; '.join(changes)}: {detail}")


# ------------------------------------------------------------------------------ command-line values

@pytest.fixture(scope="module")
def spot(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("values")
    (root / "a-file.txt").write_text("x", encoding="utf-8")
    (root / "binary.ini").write_bytes(b"\x00\x01\xff" * 100)
    (root / "good.ini").write_text("[General]\nspeed=4\n", encoding="utf-8")
    (root / "big.ini").write_bytes(b"a=1\n" * (300 * 1024))
    (root / "csv-folder" / "metrics.csv").mkdir(parents=True)
    (root / "rec-folder" / "two-rooms-seed0.jsonl").mkdir(parents=True)
    old = os.getcwd()
    os.chdir(root)
    yield {"root": str(root), "file": str(root / "a-file.txt"), "binary": str(root / "binary.ini"),
           "good": str(root / "good.ini"), "big": str(root / "big.ini"), "csv": str(root / "csv-folder"),
           "rec": str(root / "rec-folder")}
    os.chdir(old)


AMOUNTS = [("1", False), ("64", False), ("-1", True), ("0", True), ("abc", True), ("1.5", True), ("1e400", True),
           ("", True), ("9" * 40, True), ("\u0663", True), (" 2", False)]
ITEMS = [("oak_planks", False), ("minecraft:oak_planks", False), ("UNKNOWN", True), ("", True), ("\ud800", True)]
BASE_URLS = [("http://127.0.0.1:9/v1", False), ("https://api.example.com/v1", False), ("embedded", False),
             ("ftp://x/v1", True), ("file:///etc/passwd", True), ("http://", True), ("x", True),
             ("http://h:99999/v1", True), ("http://[::1/v1", True), ("javascript:alert(1)", True)]
FACILITATORS = [("none", False), ("protom", False), ("oracle:eps=0.1", False), ("teams", True),
                ("random-teams", True), ("nosuch", True), ("protom:eps=0.1,eps=0.2", True)]
SPECS = [("planner", False), ("boltzmann:temperature=1", False), ("boltzmann:temperature=1,temperature=2", True),
         ("boltzmann:compliance=0.5,compliance=0.5", True), ("alice=planner", True)]


@st.composite
def cli_values(draw, spot: dict[str, str]) -> tuple[list[str], bool]:
    n = draw(st.integers(0, 10**9))
    out = f"{spot['root']}/out-{n}"
    what = draw(st.sampled_from(["recipes", "item", "spec", "facilitator", "base-url", "settings", "out-file", "set"]))
    if what == "recipes":
        parts = [(f"{draw(st.sampled_from(ITEMS))[0]}={a}", bad) for a, bad in draw(st.lists(st.sampled_from(AMOUNTS),
                                                                                              min_size=1, max_size=3))]
        argv = ["tradecraft", "tool", "possible_recipes", *(p for p, _ in parts)]
        items = [p.partition("=")[0] for p, _ in parts]
        refuse = any(bad for _, bad in parts) or any(dict(ITEMS).get(i, True) for i in items) \
            or len({i.removeprefix("minecraft:") for i in items}) < len(items)
        return argv, refuse
    if what == "item":
        item, bad = draw(st.sampled_from(ITEMS))
        return ["tradecraft", "tool", "item_info", item], bad
    if what == "spec":
        spec, bad = draw(st.sampled_from(SPECS))
        return ["run", "two-rooms", "--agents", spec, "--no-record", "--out", out, "--quiet"], bad
    if what == "facilitator":
        spec, bad = draw(st.sampled_from(FACILITATORS))
        return ["run", "two-rooms", "--facilitator", spec, "--no-record", "--out", out, "--quiet"], bad
    if what == "base-url":
        url, bad = draw(st.sampled_from(BASE_URLS))
        return ["llm", "check", "--base-url", url, "--no-call"], bad
    if what == "settings":
        # only paths that cannot be settings files: a good one would open the window
        kind = draw(st.sampled_from(["root", "file/x", "binary", "big", "empty", "nul"]))
        target = {"root": spot["root"], "file/x": spot["file"] + "/x", "binary": spot["binary"], "big": spot["big"],
                  "empty": "", "nul": "a\x00b"}[kind]
        return ["gui", "--settings", target, "--exit-when-done"], True
    if what == "out-file":
        folder, bad = draw(st.sampled_from([(spot["csv"], True), (spot["rec"], True), (out, False)]))
        argv = ["run", "two-rooms", "--out", folder, "--quiet"]
        if draw(st.booleans()):
            argv.append("--no-record")
            bad = bad and folder == spot["csv"]
        return argv, bad
    name = draw(st.sampled_from(["nosuch-set", "", "minecraft-1v1", "../x"]))
    argv = ["tradecraft", "generate", "--set", name]
    if draw(st.booleans()):
        argv += ["--out", out]
    return argv, True  # without --force a shipped set is never rewritten; with --out, --set has no place


@fuzz_settings(80)
@given(data=st.data())
def test_generated_cli_values_end_cleanly(spot, data):
    argv, refuse = data.draw(cli_values(spot), label="argv")
    outcome, detail = run_main(argv)
    if outcome == "accepted" and refuse:
        outcome, detail = "silent nonsense", "accepted a value that must be refused"
    record("command-line values", outcome, f"{argv!r:.200}: {detail}")


# ------------------------------------------------------------------------------------ known answers

def write(tmp_path: Path, data: Any, name: str = "d.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_hook_named_in_a_file_is_never_imported(tmp_path):
    sys.modules.pop("this", None)
    path = write(tmp_path, {**SMALL, "checks": [{"hook": "this:x"}]})
    with pytest.raises(ExperimentError, match=r"field 'checks\[0\]\.hook': no pre-check hook 'this:x'; hooks are "
                                              r"looked up in the registry, never imported; expected one of experiments\."):
        load_design(path)
    assert "this" not in sys.modules
    assert set(hooks()) >= {"experiments.protom_dkg:check_category", "experiments.protom_dkg:speedup",
                            "experiments.teams:team_value", "experiments.cobel:check_task"}


def test_hooks_with_wrong_signatures_cannot_be_registered():
    def no_world(path, spec):
        return {}

    def star_params(episodes, design, *args):
        return {}

    with pytest.raises(TypeError, match="must take .path, world, spec"):
        check_hook(no_world)
    with pytest.raises(TypeError, match="must be a named one"):
        derive_hook()(star_params)


@pytest.mark.parametrize("metric, fragment", [
    ({"name": "s", "derive": "experiments.protom_dkg:speedup", "params": {"off": "length"}},
     "field 'metrics[2].params': experiments.protom_dkg:speedup has no parameter 'off'; expected one of of"),
    ({"name": "s", "derive": "experiments.protom_dkg:speedup", "params": {"of": "nosuch"}},
     "'of': 'nosuch' is not a metric computed before 's'; expected one of success, length"),
    ({"name": "s", "derive": "experiments.teams:team_value", "params": {"equal_sizes": "false"}},
     "field 'metrics[2].params.equal_sizes': expected true or false, got 'false'"),
    ({"name": "s", "source": "metrics.ticks", "params": {"of": "length"}}, "only a derived metric"),
])
def test_metric_parameters_are_checked_when_the_design_is_loaded(tmp_path, metric, fragment):
    with pytest.raises(ExperimentError) as info:
        load_design(write(tmp_path, {**SMALL, "metrics": [*SMALL["metrics"], metric]}))
    assert fragment in str(info.value) and str(info.value).startswith(str(tmp_path))


def test_design_values_are_never_converted(tmp_path):
    for change, fragment in [({"seeds": {"count": "42"}}, "field 'seeds.count': expected a whole number (a number in "
                                                          "quotes is text), got '42'"),
                             ({"seeds": {"count": True}}, "field 'seeds.count': expected a whole number, got True"),
                             ({"max_ticks": 1.0}, "field 'max_ticks': expected a whole number"),
                             ({"llm_cache": 1}, "field 'llm_cache': expected true, false or a folder name")]:
        with pytest.raises(ExperimentError, match=None) as info:
            load_design(write(tmp_path, {**SMALL, **change}))
        assert fragment in str(info.value)
    raw = json.dumps(SMALL).replace('{"experiment"', '{"experiment": "other", "experiment"', 1)
    (tmp_path / "dup.json").write_text(raw)
    with pytest.raises(ExperimentError, match="line 1, column 1: the key 'experiment' occurs twice"):
        load_design(tmp_path / "dup.json")


def test_a_misspelt_metric_source_is_refused_before_the_first_episode(tmp_path):
    path = write(tmp_path, {**SMALL, "metrics": [*SMALL["metrics"], {"name": "x", "source": "outcome.sucess"}]})
    with pytest.raises(ExperimentError, match=r"metric 'x' \(metrics\[2\]\.source\): 'outcome.sucess' is not in the "
                                              r"outcome of two-rooms \(dkg\) episodes; expected outcome\.X with X one of"):
        prepare(path)


def test_a_folder_where_an_output_file_goes_is_refused_before_any_episode(tmp_path, capsys):
    design = write(tmp_path, SMALL)
    out = tmp_path / "out"
    (out / "episodes.csv").mkdir(parents=True)
    assert main(["experiment", str(design), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: cannot write {out / 'episodes.csv'}: {out / 'episodes.csv'} is a folder; expected a file " \
                  "(or nothing) there\n"
    assert not (out / "episodes.jsonl").exists()
    run_out = tmp_path / "run"
    (run_out / "metrics.csv").mkdir(parents=True)
    assert main(["run", "two-rooms", "--out", str(run_out), "--episodes", "3"]) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot write {run_out / 'metrics.csv'}: ")
    assert sorted(p.name for p in run_out.iterdir()) == ["metrics.csv"]  # no episode ran
    (run_out / "metrics.csv").rmdir()
    (run_out / "two-rooms-seed2.jsonl").mkdir()
    assert main(["run", "two-rooms", "--out", str(run_out), "--episodes", "3"]) == 2
    assert "two-rooms-seed2.jsonl is a folder" in capsys.readouterr().err
    assert not (run_out / "metrics.csv").exists()


@pytest.mark.parametrize("argv, fragment", [
    (["tradecraft", "tool", "possible_recipes", "oak_planks=-1"], "the amount '-1' is not a whole number"),
    (["tradecraft", "tool", "item_info", "UNKNOWN"], "unknown item 'UNKNOWN'"),
    (["tradecraft", "generate", "--set", "nosuch-set"], "--set 'nosuch-set': no such shipped set; expected one of"),
    (["run", "two-rooms", "--agents", "boltzmann:temperature=1,temperature=2"], "'temperature' is given twice"),
    (["run", "two-rooms", "--facilitator", "teams"], "'teams' is a team mechanism, not a facilitator"),
    (["llm", "check", "--base-url", "ftp://x/v1", "--no-call"], "expected an http:// or https:// URL"),
    (["gui", "--settings", "/"], "expected a file name, got a folder"),
    (["tradecraft", "play", "mc1v1-01", "--record", "/"], "--record '/': "),
])
def test_cli_values_that_were_accepted_silently(tmp_path, capsys, argv, fragment):
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(argv) == 2
    finally:
        os.chdir(old)
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and fragment in err, err


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_killing_the_experiment_ends_its_pool_workers(tmp_path):
    design = write(tmp_path, {**SMALL, "scenarios": ["dkg/protom-1*"], "seeds": {"count": 20},
                              "conditions": [{"name": "a"}, {"name": "b", "mechanisms": ["random"]}]})
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "main.py", "experiment", str(design), "--out", str(out), "--jobs", "2",
                             "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            lines = (out / "episodes.jsonl").read_text().count('"record":"episode"') \
                if (out / "episodes.jsonl").exists() else 0
            workers = {p for p in children_of(proc.pid) if alive(p)}
            if lines >= 2 and len(workers) >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None and len(workers) >= 2, "the sweep ended before its workers could be seen"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(alive(p) for p in workers):
            time.sleep(0.1)
        left = [p for p in workers if alive(p)]
        assert not left, f"pool workers {left} outlived the killed main process"
    finally:
        if proc.poll() is None:
            proc.kill()
        for p in workers:
            with contextlib.suppress(OSError):
                if alive(p):
                    os.kill(p, signal.SIGKILL)


@pytest.mark.slow
def test_run_appends_a_metrics_row_as_each_episode_ends(tmp_path):
    out = tmp_path / "out"
    table = out / "metrics.csv"
    proc = subprocess.Popen([sys.executable, "main.py", "run", "two-rooms", "--episodes", "100000", "--out", str(out),
                             "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if table.exists() and table.read_text().count("\n") >= 4:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    import csv

    text = table.read_text()
    rows = list(csv.DictReader(io.StringIO(text[:text.rfind("\n") + 1])))
    assert len(rows) >= 3
    assert [int(r["seed"]) for r in rows] == list(range(len(rows)))
    for r in rows:  # each row's recording is there, with the outcome the row says
        from sim.recording import load_recording

        footer = load_recording(r["recording"]).footer
        assert footer is not None and str(footer["outcome"]["success"]) == r["success"]
