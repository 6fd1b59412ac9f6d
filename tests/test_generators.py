"""The scenario generators (generators/): a package run as ``python -m generators.<name>``, and
``scenarios/`` holds data only. The shipped files of each generator are checked by its own tests
(test_teams_generator, test_teams_rush, test_rounds, test_teams_kitchen_household,
test_household_episodes); the ones no other test runs are checked here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from generators import make_rounds, make_rules
from sim.registry import SCENARIO_DIR

ROOT = Path(__file__).resolve().parent.parent


def test_scenarios_hold_data_only():
    assert sorted(p.relative_to(ROOT).as_posix() for p in SCENARIO_DIR.rglob("*.py")) == []


def test_the_rounds_halls_and_the_rule_sets_are_what_their_generators_give(capsys):
    assert make_rounds.main(["--check"]) == 0
    assert "48 of 48 scenarios match seed 43" in capsys.readouterr().out
    assert make_rules.main(["--check"]) == 0


def test_the_rule_set_check_names_a_changed_file_and_a_stray_one(tmp_path, capsys):
    assert make_rules.main(["--out", str(tmp_path)]) == 0
    assert make_rules.main(["--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "alchemy" / "ruleset.json").write_text("{}\n")
    (tmp_path / "minecraft" / "stray.json").write_text("{}\n")
    assert make_rules.main(["--out", str(tmp_path), "--check"]) == 1
    err = capsys.readouterr().err
    assert "alchemy/ruleset.json: missing, extra or not what the tables give" in err
    assert "minecraft/stray.json" in err


def test_a_generator_runs_as_a_module():
    run = subprocess.run([sys.executable, "-m", "generators.make_rush", "--check"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "48 of 48 scenarios match seed 29" in run.stdout
