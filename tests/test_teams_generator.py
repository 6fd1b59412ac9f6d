"""The Doors, Keys and Gems team scenario generator (generators/make_teams.py): its
scenarios validate, follow the recipe, depend on the seed only, and are the files shipped for
the teams-dkg-confirm design."""

from __future__ import annotations

import json

import pytest

from experiments.runner import SCENARIO_DIR
from experiments.teams import check_team_scenario
from generators import make_teams
from generators.common import text
from sim.dkg.scenario import COLORS, validate_dkg
from sim.registry import build_world, load_spec, split_start

TEAMS = SCENARIO_DIR / "dkg" / "teams"


@pytest.fixture(scope="module")
def shipped():
    return make_teams.generate()


def test_same_seed_same_scenarios_other_seed_others(shipped):
    assert make_teams.generate() == shipped
    assert json.dumps(make_teams.generate(seed=14)) != json.dumps(shipped)


def test_the_shipped_files_are_the_generators_output(shipped):
    assert [d["name"] for d in shipped] == [f"team-{i:02d}-{d['name'].split('-')[2]}" for i, d in
                                            zip(range(9, 57), shipped)]
    for d in shipped:
        assert (TEAMS / f"{d['name']}.json").read_text() == text(d)
    assert make_teams.main(["--check"]) == 0


def test_scenarios_follow_the_recipe(shipped):
    sizes = [len(d["goals"]) for d in shipped]
    assert sorted(sizes) == sorted([5, 6, 7, 8] * 12)
    for d in shipped:
        validate_dkg(split_start(d, d["name"])[0], d["name"])  # as the loader reads it
        n = len(d["goals"])
        grid = d["map"]
        assert len(grid) == 10 and {len(row) for row in grid} == {21}
        kind = {ch: (e if isinstance(e, str) else next(iter(e))) for ch, e in d["legend"].items()}
        doors = [ch for ch in grid[6] if kind[ch] == "door"]
        assert 2 <= len(doors) <= n // 2
        assert grid[6].replace(".", "#") == grid[6]  # the wall row holds walls and doors only
        assert all(kind[ch] in ("floor", "agent", "key", "gem") for row in grid[1:6] for ch in row[1:20])
        hall = "".join(row[1:20] for row in grid[1:6])
        rooms = "".join(grid[7] + grid[8])
        assert sum(kind[ch] == "key" for ch in hall) == len(doors)  # every key in the hall
        assert sum(kind[ch] == "gem" for ch in hall) == n  # every gem in the hall
        assert sum(kind[ch] == "agent" for ch in rooms) == len(doors)  # one agent per room
        assert [d["legend"][ch]["door"] for ch in doors] == list(COLORS[:len(doors)])
        assert sorted(d["goals"].values()) == sorted(f"gem{i + 1}" for i in range(n))
        assert sorted(d["options"]["turn_order"]) == sorted(d["goals"])
        assert d["options"]["t_max"] == 40 * n


def test_room_agents_and_only_they_are_stuck_at_the_start(shipped):
    for d in shipped:
        path = TEAMS / f"{d['name']}.json"
        family, spec = load_spec(path)
        rooms = sum(d["legend"][ch] != "wall" and "door" in d["legend"][ch] for ch in d["map"][6])
        assert check_team_scenario(str(path), build_world(family, spec), spec) == {
            "agents": len(d["goals"]), "locked_in": rooms}


def test_command_line(tmp_path, capsys):
    assert make_teams.main(["--out", str(tmp_path), "--first", "1", "--count", "3", "--seed", "5"]) == 0
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(written) == 3 and written[0].startswith("team-01-")
    assert make_teams.main(["--out", str(tmp_path), "--first", "1", "--count", "3", "--seed", "5", "--check"]) == 0
    (tmp_path / written[1]).write_text("{}")
    assert make_teams.main(["--out", str(tmp_path), "--first", "1", "--count", "3", "--seed", "5", "--check"]) == 1
    assert f"{written[1]}: missing or not what seed 5 gives" in capsys.readouterr().err
    # the eight hand-kept scenarios are never overwritten, and numbers stop at 99
    assert make_teams.main(["--first", "1", "--count", "8"]) == 2
    assert "are not this generator's" in capsys.readouterr().err
    assert make_teams.main(["--out", str(tmp_path), "--first", "90", "--count", "20"]) == 2
    assert "scenario numbers run from 1 to 99" in capsys.readouterr().err
