"""Generated command lines thrown at ``main.main([...])``.

Every command line ends in one of: exit status 0 having done its work (files where it says),
or exit status 2 with one ``error:`` line (argparse's usage errors included). Never a traceback,
a hang, or a run that accepted a value outside its documented range (docs/limits.md). Output
folders are checked before any episode runs, so an unwritable ``--out`` never costs a run.

Budget and seed as in tests/test_robustness_scenarios.py (TOM_ARENA_FUZZ_EXAMPLES,
TOM_ARENA_FUZZ_REPORT; docs/testing.md). Agent and mechanism parameters (``KIND:param=value``)
are the subject of tests of their own; here every spec is a valid one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from test_robustness_scenarios import Hang, fuzz_settings, record, time_limit

from main import MAX_SEED, main
from sim.registry import SCENARIO_DIR

HANG_SECONDS = 60


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> dict[str, str]:
    """Odd and ordinary paths, and a recording to replay; the test runs inside a scratch folder so a
    default output folder (runs/...) never lands in the project."""
    root = tmp_path_factory.mktemp("cli")
    (root / "a-file.txt").write_text("not a folder", encoding="utf-8")
    broken = root / "broken.json"
    broken.write_text('{"world": "dkg", "name": "x", "name": "y"}', encoding="utf-8")
    utf16 = root / "utf16.json"
    utf16.write_text((SCENARIO_DIR / "dkg" / "two-rooms.json").read_text(), encoding="utf-16")
    recording = root / "rec" / "two-rooms-seed0.jsonl"
    old = os.getcwd()
    os.chdir(root)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["run", "two-rooms", "--out", str(root / "rec"), "--quiet"]) == 0
    yield {"root": str(root), "file": str(root / "a-file.txt"), "broken": str(broken), "utf16": str(utf16),
           "recording": str(recording), "folder": str(root)}
    os.chdir(old)


NUMBERS = ["-5", "-1", "0", "1", "2", "3", str(MAX_SEED), str(MAX_SEED + 1), "10" * 12, "abc", "1.5", "nan", "inf",
           "", "1e3"]
PATH_KINDS = ["fresh", "fresh", "file", "under-file", "empty", "long", "proc", "nul", "folder"]


def a_path(kind: str, place: dict[str, str], n: int) -> str:
    return {"fresh": f"{place['root']}/out-{n}/sub", "file": place["file"], "under-file": f"{place['file']}/x",
            "empty": "", "long": f"{place['root']}/{'x' * 300}", "proc": "/proc/no-such-dir/x",
            "nul": f"{place['root']}/a\x00b", "folder": place["folder"]}[kind]


@st.composite
def command_line(draw, place: dict[str, str]) -> list[str]:
    n = draw(st.integers(0, 10**9))
    num = lambda: draw(st.sampled_from(NUMBERS))  # noqa: E731
    path = lambda: a_path(draw(st.sampled_from(PATH_KINDS)), place, n)  # noqa: E731
    command = draw(st.sampled_from(["run", "run", "run", "replay", "list", "experiment", "convert", "selfplay",
                                    "rules", "import", "tool"]))
    options: list[tuple[str, ...]] = []
    if command == "run":
        scenario = draw(st.sampled_from(["two-rooms", "protom-15-locked-in", "mc1v1-01", "nosuch", "", "x" * 250,
                                         "a\x00b", "\ud800", place["broken"], place["utf16"], place["folder"]]))
        argv = ["run", scenario]
        options = [("--episodes", num()), ("--seed", num()), ("--out", path()), ("--gzip",), ("--no-record",),
                   ("--quiet",), ("--agents", draw(st.sampled_from(["planner", "boltzmann", "trader"]))),
                   ("--facilitator", draw(st.sampled_from(["none", "oracle", "random"])))]
    elif command == "replay":
        argv = ["replay", draw(st.sampled_from([place["recording"], place["folder"], place["file"], place["broken"],
                                                "", "nosuch.jsonl", "a\x00b", "x" * 300]))]
        options = [("--step", num())]
    elif command == "list":
        argv = ["list"]
        options = [("--agents",), ("--world", draw(st.sampled_from(["dkg", "tradecraft", "nosuch", "", "\ud800"])))]
    elif command == "experiment":
        argv = ["experiment", draw(st.sampled_from(["nosuch", place["broken"], place["file"], "protom-dkg"]))]
        options = [("--seeds", num()), ("--out", path()), ("--jobs", num()), ("--quiet",)]
    elif command == "convert":
        argv = ["recording", "convert", draw(st.sampled_from([place["recording"], place["file"], place["folder"],
                                                             "nosuch", ""])), path()]
    elif command == "selfplay":
        argv = ["tradecraft", "selfplay", draw(st.sampled_from(["mc1v1-01", "nosuch", place["broken"]]))]
        options = [("--seeds", num()), ("--seed", num()), ("--out", path()), ("--max-turns", num()), ("--quiet",),
                   ("--no-record",)]
    elif command == "rules":
        argv = ["tradecraft", "rules"]
        options = [("--rules", draw(st.sampled_from(["alchemy", "nosuch", place["folder"], place["file"], "",
                                                     "a\x00b", "x" * 300])))]
    elif command == "import":
        argv = ["tradecraft", "import", draw(st.sampled_from([place["broken"], place["utf16"], place["file"],
                                                             place["folder"], "nosuch"])), "--out", path()]
        options = [("--rules", draw(st.sampled_from(["alchemy", "nosuch"])))]
    else:
        argv = ["tradecraft", "tool", draw(st.sampled_from(["item_info", "possible_recipes"])),
                draw(st.sampled_from(["glass", "paper=1", "paper=-1", "paper=abc", "nosuch", "=", "paper=1e400"]))]
        options = [("--rules", draw(st.sampled_from(["alchemy", "nosuch"])))]
    chosen = draw(st.lists(st.sampled_from(options), unique=True, max_size=len(options))) if options else []
    for option in chosen:
        argv += option
    return argv


def out_of_range(argv: list[str]) -> str | None:
    """A value a successful run must not have accepted (docs/limits.md), or None."""
    def value(option: str) -> int | None:
        if option in argv:
            try:
                return int(argv[argv.index(option) + 1])
            except (ValueError, IndexError):
                return None
        return None

    seed = value("--seed")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        return f"--seed {seed}"
    for option in ("--episodes", "--seeds", "--max-turns", "--jobs"):
        v = value(option)
        if v is not None and v < 1:
            return f"{option} {v}"
    if "--world" in argv and argv[argv.index("--world") + 1] not in ("dkg", "tradecraft"):
        return "--world of no world"
    return None


def run_main(argv: list[str]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(HANG_SECONDS), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except Hang as exc:
        return "hang", str(exc)
    except SystemExit as exc:  # argparse: usage errors (2) and --help (0)
        code = exc.code
        if code not in (0, 2) or (code == 2 and "error:" not in err.getvalue()):
            return "traceback", f"SystemExit({code!r}): {err.getvalue()[-300:]}"
    except Exception as exc:  # noqa: BLE001 - what the test is looking for
        return "traceback", f"{type(exc).__name__}: {exc}"[:400]
    text = err.getvalue()
    if code == 2:
        errors = [line for line in text.splitlines() if "error:" in line]
        if len(errors) != 1:
            return "unclear error", text[-400:]
        return "clean error", errors[0]
    if code != 0:
        return "traceback", f"exit status {code}: {text[-300:]}"
    problem = out_of_range(argv)
    if problem:
        return "silent nonsense", f"accepted {problem}"
    if argv[0] == "run" and "--out" in argv:
        folder = Path(argv[argv.index("--out") + 1])
        if not (folder / "metrics.csv").exists():
            return "silent nonsense", "run succeeded without metrics.csv"
    return "accepted", ""


@fuzz_settings(60)
@given(data=st.data())
def test_generated_command_lines_end_cleanly(place, data):
    argv = data.draw(command_line(place), label="argv")
    if argv[:2] == ["experiment", "protom-dkg"] and out_of_range(argv) is None and "--out" not in argv:
        argv += ["--seeds", "0"]  # a whole experiment is too long for this suite; its errors are not
    outcome, detail = run_main(argv)
    record("command line", outcome, f"{argv!r:.200}: {detail}")


# ------------------------------------------------------------------------ known answers

@pytest.mark.parametrize("argv, fragment", [
    (["run", "two-rooms", "--seed", "-1"], "--seed must be a non-negative integer"),
    (["run", "two-rooms", "--episodes", "0"], "--episodes must be at least 1"),
    (["tradecraft", "selfplay", "mc1v1-01", "--max-turns", "-5"], "--max-turns must be at least 1, got -5"),
    (["list", "--world", "nosuch"], "--world 'nosuch': no such world; known worlds: dkg"),
    (["run", "two-rooms", "--out", ""], "expected a folder name"),
])
def test_values_out_of_range_are_refused(place, capsys, argv, fragment):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and fragment in err and err.count("\n") == 1


@pytest.mark.parametrize("kind", ["file", "under-file", "long", "proc", "nul"])
def test_an_unwritable_out_is_refused_before_any_episode(place, capsys, kind):
    target = a_path(kind, place, 0)
    for argv in (["run", "two-rooms", "--episodes", "50"], ["run", "two-rooms", "--no-record"],
                 ["experiment", "protom-dkg"], ["tradecraft", "selfplay", "mc1v1-01"]):
        assert main([*argv, "--out", target]) == 2
        err = capsys.readouterr()
        assert err.err.startswith("error: --out ") and err.out == "" and err.err.count("\n") == 1


def test_replay_of_a_folder_is_one_error_line(place, capsys):
    assert main(["replay", place["folder"]]) == 2
    assert capsys.readouterr().err == f"error: {place['folder']}: is a folder; expected a recording file " \
                                      "(.jsonl or .jsonl.gz)\n"


def test_a_scenario_whose_name_would_make_too_long_file_names(place, tmp_path, capsys):
    data = json.loads((SCENARIO_DIR / "dkg" / "two-rooms.json").read_text())
    for name, fragment in [("x" * 250, "at most 64 characters"), ("\ud800", "lone surrogate")]:
        path = tmp_path / "s.json"
        path.write_text(json.dumps({**data, "name": name if name.isascii() else "ok", "title": name}
                                   if not name.isascii() else {**data, "name": name}), encoding="utf-8")
        assert main(["run", str(path), "--out", str(tmp_path / "o")]) == 2
        assert fragment in capsys.readouterr().err
        assert not (tmp_path / "o").exists()
