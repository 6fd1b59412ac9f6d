"""The command line end to end: run, replay and list through ``main.main``, help texts through a
real ``python main.py --help``, and the errors a user can make."""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from main import build_parser, main
from sim.recording import load_recording
from sim.registry import list_scenarios

ROOT = Path(__file__).resolve().parent.parent


def subcommands(parser: argparse.ArgumentParser | None = None,
                prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command and nested command (``("llm", "serve")``) of the command line."""
    parser = parser or build_parser()
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[(*prefix, name)] = sub
                found.update(subcommands(sub, (*prefix, name)))
    return found


def command_names(parser: argparse.ArgumentParser) -> list[str]:
    """The commands one level below ``parser``, each listed with a one-line help."""
    names = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                assert choice.help, f"command {choice.dest!r} has no one-line help"
                names.append(choice.dest)
    return names


# ------------------------------------------------------------------------ run

def test_run_writes_recordings_metrics_and_a_summary(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", "two-rooms", "--agents", "planner", "boltzmann:temperature=1.0",
                 "--episodes", "3", "--seed", "4", "--out", str(out)])
    assert code == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["metrics.csv", "two-rooms-seed4.jsonl", "two-rooms-seed5.jsonl", "two-rooms-seed6.jsonl"]
    with open(out / "metrics.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["seed"] for r in rows] == ["4", "5", "6"]
    assert set(rows[0]) >= {"scenario", "seed", "agents", "success", "length", "ticks", "feedback", "errors",
                            "recording"}
    for row in rows:
        rec = load_recording(row["recording"])
        assert rec.complete
        assert rec.header["seed"] == int(row["seed"]) and rec.header["scenario"] == "two-rooms"
        assert rec.header["seats"]["alice"] == {"kind": "planner", "compliance": 1.0}
        assert rec.header["seats"]["bob"]["temperature"] == 1.0
        assert row["agents"] == "alice=planner bob=boltzmann:temperature=1.0"
        assert row["success"] == str(rec.footer["outcome"]["success"])
        assert row["ticks"] == str(rec.footer["metrics"]["ticks"]) == str(len(rec.steps))
        assert row["length"] == ("" if rec.footer["outcome"]["length"] is None else str(rec.footer["outcome"]["length"]))
    stdout = capsys.readouterr().out
    successes = sum(r["success"] == "True" for r in rows)
    assert f"two-rooms: {successes}/3 successful" in stdout
    assert "metrics.csv" in stdout


def test_run_shows_a_progress_bar_on_a_terminal(tmp_path):
    """tqdm draws only on a terminal, so give the process one."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a terminal's size
    try:
        proc = subprocess.run([sys.executable, "main.py", "run", "two-rooms", "--episodes", "3",
                               "--no-record", "--out", str(tmp_path)],
                              cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower,
                              timeout=120)
        os.close(follower)
        err = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed
                break
            if not chunk:
                break
            err += chunk
    finally:
        os.close(leader)
    assert proc.returncode == 0
    assert b"two-rooms: 100%" in err and b"3/3" in err


def test_run_options_gzip_no_record_and_named_seats(tmp_path, capsys):
    assert main(["run", "two-rooms", "--gzip", "--out", str(tmp_path / "gz"), "--quiet"]) == 0
    assert sorted(p.name for p in (tmp_path / "gz").iterdir()) == ["metrics.csv", "two-rooms-seed0.jsonl.gz"]
    assert load_recording(tmp_path / "gz" / "two-rooms-seed0.jsonl.gz").complete
    assert main(["run", "two-rooms", "--no-record", "--episodes", "2", "--out", str(tmp_path / "none"),
                 "--quiet"]) == 0
    assert [p.name for p in (tmp_path / "none").iterdir()] == ["metrics.csv"]
    assert main(["run", "two-rooms", "--agents", "bob=planner", "boltzmann", "--out", str(tmp_path / "named"),
                 "--quiet"]) == 0
    seats = load_recording(tmp_path / "named" / "two-rooms-seed0.jsonl").header["seats"]
    assert seats["alice"]["kind"] == "boltzmann" and seats["bob"]["kind"] == "planner"
    assert capsys.readouterr().out == ""  # --quiet


def test_run_no_record_without_out_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "two-rooms", "--no-record", "--episodes", "2"]) == 0
    assert list(tmp_path.iterdir()) == []  # no runs/<name>/metrics.csv in the working directory
    out = capsys.readouterr().out
    assert "two-rooms: 2/2 successful" in out and "metrics: not written (--no-record without --out)" in out


def test_run_a_scenario_file_and_replay_it_without_the_file(tmp_path, capsys):
    scenario = tmp_path / "tiny.json"
    scenario.write_text(json.dumps({
        "world": "dkg", "name": "tiny", "map": ["######", "#1*+2#", "######"],
        "legend": {"#": "wall", ".": "floor", "*": {"gem": "red"}, "+": {"gem": "blue"},
                   "1": {"agent": "alice"}, "2": {"agent": "bob"}},
        "goals": {"alice": "gem1", "bob": "gem2"}}))
    assert main(["run", str(scenario), "--out", str(tmp_path / "runs"), "--quiet"]) == 0
    recording = tmp_path / "runs" / "tiny-seed0.jsonl"
    scenario.unlink()  # the recording embeds the scenario
    capsys.readouterr()
    assert main(["replay", str(recording)]) == 0
    out = capsys.readouterr().out
    assert "tiny seed 0, 4 steps; showing step 4" in out
    assert "'success': True" in out


# --------------------------------------------------------------------- replay

@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("replay")
    assert main(["run", "two-rooms", "--agents", "boltzmann", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    return out / "two-rooms-seed1.jsonl"


def test_replay_prints_the_state_at_a_step(recording, capsys):
    rec = load_recording(recording)
    assert main(["replay", str(recording), "--step", "3"]) == 0
    out = capsys.readouterr().out
    assert f"{recording}: two-rooms seed 1, {len(rec.steps)} steps; showing step 3" in out
    assert "tick 3/80" in out
    assert f"next: {rec.steps[3].joint_action}" in out
    assert "recorded at this step:" in out and "belief:" in out
    assert "outcome:" not in out


def test_replay_defaults_to_the_last_step_and_shows_the_outcome(recording, capsys):
    rec = load_recording(recording)
    assert main(["replay", str(recording)]) == 0
    out = capsys.readouterr().out
    assert f"showing step {len(rec.steps)}" in out and "next:" not in out
    assert f"outcome: {rec.footer['outcome']}" in out


def test_replay_of_a_damaged_file_warns_and_shows_what_it_has(recording, tmp_path, capsys):
    data = recording.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[:len(data) // 2])
    assert main(["replay", str(cut), "--step", "0"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith(f"warning: {cut}: line ")
    assert "showing step 0" in captured.out


def test_replay_errors(recording, tmp_path, capsys):
    n = len(load_recording(recording).steps)
    for step in (str(n + 1), "-1"):
        assert main(["replay", str(recording), "--step", step]) == 2
        assert capsys.readouterr().err.strip() == f"error: --step must be between 0 and {n}, got {step}"
    with pytest.raises(SystemExit) as info:
        main(["replay", str(recording), "--step", "three"])
    assert info.value.code == 2
    assert "invalid int value: 'three'" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    future = tmp_path / "future.jsonl"
    lines = recording.read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["version"] = 99
    future.write_bytes(b"".join([(json.dumps(header) + "\n").encode(), *lines[1:]]))
    assert main(["replay", str(future)]) == 2
    assert "Update ToM Arena" in capsys.readouterr().err


# ----------------------------------------------------------------------- list

def test_list_shows_scenarios_and_agent_kinds(capsys):
    assert main(["list", "--agents"]) == 0
    out = capsys.readouterr().out
    table, _, kinds = out.partition("agent kinds (for --agents):")
    kinds, _, mechanisms = kinds.partition("mechanism kinds")
    for info in list_scenarios():
        assert info.name in table and ", ".join(info.agents) in table
    assert "Doors, Keys and Gems" in table
    kind_names = [line.split()[0] for line in kinds.strip().splitlines()]
    assert {"planner", "boltzmann", "human"} <= set(kind_names)
    assert "held" not in kind_names  # a kind for the tests (for_tests): made by name, never listed
    mechanism_names = [line.split()[0] for line in mechanisms.strip().splitlines()[3:]]
    assert {"protom", "oracle", "random"} <= set(mechanism_names)


# --------------------------------------------------------------------- errors

@pytest.mark.parametrize("argv, message", [
    (["run", "nowhere"], "error: no scenario named 'nowhere'; 'python main.py list' shows them"),
    (["run", "two-rooms", "--agents", "wizard"], "unknown agent kind 'wizard'; known kinds: "),
    (["run", "two-rooms", "--agents", "boltzmann:temperature=-1"], "parameter 'temperature': expected above 0, got -1"),
    (["run", "two-rooms", "--agents", "planner:compliance=2"], "parameter 'compliance': expected at most 1, got 2"),
    (["run", "two-rooms", "--agents", "planner:compliance"], "expected param=value, got 'compliance'"),
    (["run", "two-rooms", "--agents", "boltzmann:temp=1"], "'temp'"),
    (["run", "two-rooms", "--agents", "planner", "planner", "planner"],
     "--agents gives 3 unnamed spec(s) for 2 free seat(s) (alice, bob)"),
    (["run", "two-rooms", "--episodes", "0"], "--episodes must be at least 1"),
])
def test_run_errors(tmp_path, capsys, argv, message):
    assert main([*argv, "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err, err
    assert not any(tmp_path.iterdir())  # nothing written


def test_run_error_for_an_invalid_scenario_file_names_file_and_field(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"world": "dkg", "name": "bad", "map": ["#1#", "#2"], "legend": {},
                               "goals": {}}))
    assert main(["run", str(bad), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert capsys.readouterr().err.startswith(f"error: {bad}: ")


# ----------------------------------------------------------------------- help

def test_help_lists_every_command_in_a_real_process():
    result = subprocess.run([sys.executable, "main.py", "--help"], cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    names = command_names(build_parser())
    assert {"run", "replay", "list"} <= set(names)
    for name in names:  # argparse puts the help of a long name on the next line
        assert re.search(rf"\n    {re.escape(name)}\s", result.stdout), f"{name} missing from --help"
    assert "examples:" in result.stdout


@pytest.mark.parametrize("command", sorted(subcommands()), ids=" ".join)
def test_each_command_help_documents_every_option(command, capsys):
    parser = subcommands()[command]
    assert parser.description, f"'{' '.join(command)}' has no description"
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name in command_names(parser):  # nested commands: listed here, checked on their own
                assert re.search(rf"\s{re.escape(name)}\s", text), f"{name} missing"
            continue
        assert action.help and action.help != argparse.SUPPRESS, f"{command}: {action.dest} has no help"
        for option in action.option_strings:
            assert option in text
        if not action.option_strings:
            assert (action.metavar or action.dest) in text
        assert " ".join(action.help.split()).split("%")[0][:40] in text
