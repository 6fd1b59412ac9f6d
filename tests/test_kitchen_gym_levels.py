"""gym-cooking's nine level files (tests/fixtures/gym_cooking/, unchanged) under their own names:
recognised by content, or by ``--format``; every one loads and plays by gym-cooking's rules
(shared orders, ``--cooks N``), and the heuristic cooks solve the full-divider levels, where
objects must pass over the divider, in most seeds."""

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
FULL_DIVIDER = [n for n in NAMES if n.startswith("full-divider")]


def test_the_nine_files_are_there():
    assert len(NAMES) == 9 and len(SALAD) == 3 and len(FULL_DIVIDER) == 3


@pytest.mark.parametrize("name", NAMES)
def test_a_level_loads_by_its_own_name_and_plays_with_two_cooks(name):
    world, level = load_scenario(str(LEVELS / name))
    assert level == name[:-4] and world.spec()["format"] == "gym-cooking"
    assert world.agents == ("alice", "bob")  # gym-cooking's --num-agents 2, our default
    expected = {"tomato": ("SimpleTomato",), "tl": ("SimpleTomato", "SimpleLettuce"), "salad": ("Salad",)}
    assert world.orders == expected[name[:-4].split("_")[1]]
    session = Session(world, {a: make_agent("kitchen-heuristic") for a in world.agents}, seed=0)
    session.run()
    assert session.tick > 0


@pytest.mark.parametrize("name", FULL_DIVIDER)
def test_the_heuristic_cooks_pass_over_the_full_divider_in_most_seeds(name):
    # the "solved in most seeds": at least 6 of seeds 0-9 with 2 cooks (docs/kitchen.md
    # has the measured table)
    world, _ = load_scenario(str(LEVELS / name))
    solved = 0
    for seed in range(10):
        session = Session(world, {a: make_agent("kitchen-heuristic") for a in world.agents}, seed=seed)
        session.run()
        solved += bool(world.outcome(session.state)["success"])
    assert solved >= 6, (name, solved)


def test_the_format_can_be_named(tmp_path):
    assert set(file_formats()) >= {"json", "kitchen", "gym-cooking"}
    copy = tmp_path / "level.dat"
    copy.write_text((LEVELS / "open-divider_tl.txt").read_text())
    family, spec = load_spec(copy, "gym-cooking")
    assert family == "kitchen" and spec["name"] == "level" and len(spec["agents"]) == 2
    assert load_spec(copy)[1] == spec  # recognised by content as well
    assert len(load_spec(copy, "gym-cooking", {"cooks": 3})[1]["agents"]) == 3
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
    assert main(["run", str(LEVELS / "full-divider_salad.txt"), "--cooks", "4", "--out", str(tmp_path / "salad"),
                 "--quiet", "--no-record"]) == 0
    assert main(["run", str(LEVELS / "open-divider_tl.txt"), "--format", "kitchen", "--quiet", "--no-record"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "expected a header line" in err[0]
