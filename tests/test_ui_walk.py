"""The scripted walk of ``ui/shots/walk.py`` as a newcomer meets the app on a laptop: a private Xvfb at
1366 x 768 x 24, a fresh profile (empty HOME and XDG_CONFIG_HOME), real key presses and clicks
through the X server (xdotool). For every world it opens a scenario from the Session panel, plays
a human seat with that world's keys and reaches every control (playback keys and buttons, the
scrubber, speed, each menu, each dock and Minds tab), checking each is on the screen whole and
does what it says; the screenshots of docs/screenshots are taken on the same walk."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sim.plugins import plugins
from sim.registry import SCENARIO_DIR, load_scenario, scenario_paths
from ui.shots.walk import WORLDS

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def test_the_walk_covers_every_world():
    """Every world that ships scenarios (test plug-ins registered by other test modules aside)."""
    shipped = {path.relative_to(SCENARIO_DIR).parts[0] for path in scenario_paths()}
    walked = {"dkg"} | {load_scenario(scenario)[0].family for _title, scenario, _humans, _mech in WORLDS}
    assert shipped <= set(plugins()) and walked == shipped, f"worlds the walk does not visit: {shipped - walked}"


def test_every_control_of_every_world_is_reached_at_1366x768(tmp_path):
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed: the walk needs a real X server (bash scripts/setup.sh test installs it)")
    assert shutil.which("xdotool"), "xdotool is not installed: bash scripts/setup.sh test installs it"
    report = tmp_path / "walk.json"
    shots = tmp_path / "shots"
    proc = subprocess.run([sys.executable, "-m", "ui.shots.walk", str(shots), "--report", str(report)], cwd=ROOT,
                          capture_output=True, text=True, timeout=1500)
    assert report.exists(), f"the walk wrote no report:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    result = json.loads(report.read_text())
    checks = result["checks"]
    failed = [f"{c['world']}: {c['control']} — {c['detail']}" for c in checks if not c["ok"]]
    assert not failed, f"{len(failed)} of {len(checks)} checks failed:\n" + "\n".join(failed)
    assert proc.returncode == 0, proc.stderr[-3000:]
    worlds = {c["world"] for c in checks}
    assert worlds >= {"Doors, Keys and Gems", *(title for title, *_ in WORLDS)}, worlds
    for title, *_ in WORLDS:  # each world: its scenario opened, a human key taken, playback and menus reached
        done = [c["control"] for c in checks if c["world"] == title]
        assert any(c.startswith("Start opens") for c in done), title
        assert any(" acts with the key " in c for c in done), title
        assert any(c.startswith("L steps forward") for c in done), title
        assert sum(c.endswith(" menu on screen") for c in done) >= 5, title
    names = {Path(p).name for p in result["screenshots"]}
    assert {"first-screen.png", "live.png", "feedback.png", "human.png", "kitchen.png", "household.png",
            "tradecraft-board.png", "summary.png", "replay.png", "beliefs.png"} <= names, names
    assert all(Path(p).stat().st_size > 10_000 for p in result["screenshots"])
