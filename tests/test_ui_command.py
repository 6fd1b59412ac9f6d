"""`python main.py gui ...` as a user runs it: the real app in its own process (offscreen)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.recording import load_recording

ROOT = Path(__file__).resolve().parent.parent


def run_main(*args: str, env_extra: dict | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env_extra or {})}
    return subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def settings_file(tmp_path: Path) -> Path:
    ini = tmp_path / "settings.ini"
    ini.write_text(f"[General]\nrecordings_dir={tmp_path / 'recordings'}\n")
    return ini


@pytest.mark.slow
def test_the_default_command_opens_the_app_on_a_scenario_that_plays_by_itself(tmp_path):
    result = run_main("gui", "--speed", "64", "--exit-when-done", "--settings", str(settings_file(tmp_path)))
    assert result.returncode == 0, result.stderr[-2000:]
    files = list((tmp_path / "recordings").glob("*.jsonl"))
    assert len(files) == 1
    recording = load_recording(files[0])
    assert recording.complete and recording.footer["outcome"]["stopped"] is False
    assert [m["kind"] for m in recording.header["mechanisms"]] == ["protom"]
    assert {s["kind"] for s in recording.header["seats"].values()} == {"boltzmann"}


def test_gui_replays_a_recording_given_on_the_command_line_and_reports_bad_input(tmp_path):
    made = subprocess.run([sys.executable, "main.py", "run", "two-rooms", "--agents", "planner", "--out",
                           str(tmp_path / "runs"), "--quiet"], cwd=ROOT, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    recording = tmp_path / "runs" / "two-rooms-seed0.jsonl"
    played = run_main("gui", str(recording), "--speed", "64", "--exit-when-done",
                      "--settings", str(settings_file(tmp_path)))
    assert played.returncode == 0, played.stderr[-2000:]
    from ui.settings import AppSettings
    assert AppSettings.at(tmp_path / "settings.ini").recent_files() == [str(recording.resolve())]
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{}\n")
    bad = run_main("gui", str(broken), "--settings", str(settings_file(tmp_path)))
    assert bad.returncode == 2 and "not a 'tom-arena-recording' header" in bad.stderr
    bad = run_main("gui", "no-such-scenario", "--settings", str(settings_file(tmp_path)))
    assert bad.returncode == 2 and "no scenario named 'no-such-scenario'" in bad.stderr
    bad = run_main("gui", "two-rooms", "--agents", "wizard", "--settings", str(settings_file(tmp_path)))
    assert bad.returncode == 2 and "unknown agent kind 'wizard'" in bad.stderr


def test_gui_plays_a_gym_cooking_level_with_cooks_and_refuses_cooks_where_run_does(tmp_path):
    level = "tests/fixtures/gym_cooking/full-divider_tl.txt"
    played = run_main("gui", level, "--cooks", "3", "--facilitator", "none", "--speed", "64", "--exit-when-done",
                      "--settings", str(settings_file(tmp_path)))
    assert played.returncode == 0, played.stderr[-2000:]
    files = list((tmp_path / "recordings").glob("full-divider_tl-*.jsonl"))
    assert len(files) == 1
    recording = load_recording(files[0])
    assert recording.complete and list(recording.header["seats"]) == ["alice", "bob", "carol"]
    assert {s["kind"] for s in recording.header["seats"].values()} == {"kitchen-heuristic"}
    # the same one-line errors as 'run', before any episode
    for args, message in (([level, "--cooks", "5"], "--cooks: expected a number of cooks from 1 to 4, got 5"),
                          (["two-rooms", "--cooks", "3"], "this file is a 'json' level, which names its own cooks"),
                          (["--cooks", "3"], "give the level's file as TARGET")):
        bad = run_main("gui", *args, "--settings", str(settings_file(tmp_path)))
        errors = [line for line in bad.stderr.splitlines() if line.startswith("error:")]
        assert bad.returncode == 2 and len(errors) == 1 and message in errors[0], bad.stderr[-2000:]
        if args[0] != "--cooks":
            ran = subprocess.run([sys.executable, "main.py", "run", *args, "--quiet", "--no-record", "--out",
                                  str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True)
            assert ran.returncode == 2 and ran.stderr.strip() == errors[0], ran.stderr
    assert len(list((tmp_path / "recordings").glob("*.jsonl"))) == 1


def test_without_a_display_the_app_says_so_instead_of_crashing(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = subprocess.run([sys.executable, "main.py", "gui"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 1 and "no display" in result.stderr


def test_gui_help_lists_its_options():
    result = subprocess.run([sys.executable, "main.py", "gui", "--help"], cwd=ROOT, capture_output=True, text=True)
    for option in ("--agents", "--facilitator", "--seed", "--speed", "--paused", "--exit-when-done", "--settings"):
        assert option in result.stdout
