"""gym-cooking's nine level files (tests/fixtures/gym_cooking/, unchanged) under their own names:
recognised by content, or by ``--format``; what loads plays, what cannot be expressed says why."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from agents.registry import make_agent
from main import main
from sim.registry import ScenarioError, file_formats, load_scenario, load_spec
from sim.session import Session

LEVELS = Path(__file__).parent / "fixtures" / "gym_cooking"
NAMES = sorted(p.name for p in LEVELS.glob("*.txt"))
SALAD = [n for n in NAMES if n.endswith("_salad.txt")]
PLAYABLE = [n for n in NAMES if n not in SALAD]


def test_the_nine_files_are_there():
    assert len(NAMES) == 9 and len(SALAD) == 3


@pytest.mark.parametrize("name", PLAYABLE)
def test_a_level_loads_by_its_own_name_and_plays(name):
    world, level = load_scenario(str(LEVELS / name))
    assert level == name[:-4] and world.spec()["format"] == "gym-cooking"
    recipes = 2 if name.endswith("_tl.txt") else 1  # one cook per recipe, as gym-cooking's --num-agents
    assert len(world.agents) == recipes
    session = Session(world, {a: make_agent("kitchen-heuristic") for a in world.agents}, seed=0)
    session.run()
    assert session.tick > 0


@pytest.mark.parametrize("name", SALAD)
def test_a_salad_level_is_refused_in_one_line_naming_the_recipe(name):
    with pytest.raises(ScenarioError, match=rf"{name}: line 9, column 1 .*recipe 'Salad' cannot be expressed"):
        load_spec(LEVELS / name)


def test_the_format_can_be_named(tmp_path):
    assert set(file_formats()) >= {"json", "kitchen", "gym-cooking"}
    copy = tmp_path / "level.dat"
    copy.write_text((LEVELS / "open-divider_tl.txt").read_text())
    family, spec = load_spec(copy, "gym-cooking")
    assert family == "kitchen" and spec["name"] == "level" and len(spec["agents"]) == 2
    assert load_spec(copy)[1] == spec  # recognised by content as well
    with pytest.raises(ScenarioError, match="invalid JSON"):
        load_spec(copy, "json")
    with pytest.raises(ScenarioError, match="unknown format 'nosuch'; expected one of gym-cooking, json, kitchen"):
        load_spec(copy, "nosuch")
    other = tmp_path / "notes.txt"
    other.write_text("shopping list: eggs\n")
    with pytest.raises(ScenarioError, match="neither JSON nor a level format .* --format"):
        load_spec(other)


def test_the_command_line_runs_a_level_by_its_file_name(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(LEVELS / "partial-divider_tl.txt"), "--episodes", "2", "--out", str(out),
                 "--no-record", "--quiet"]) == 0
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert [r["scenario"] for r in rows] == ["partial-divider_tl"] * 2
    assert main(["run", str(LEVELS / "full-divider_salad.txt"), "--quiet", "--no-record"]) == 2
    assert main(["run", str(LEVELS / "open-divider_tl.txt"), "--format", "kitchen", "--quiet", "--no-record"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error: ") for line in err)
    assert "Salad" in err[0] and "expected a header line" in err[1]
