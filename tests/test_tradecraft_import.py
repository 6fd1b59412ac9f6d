"""Importing the authors' instance lists entry by entry, and playing the imported folder."""

import json

import pytest

from main import main
from sim.registry import ScenarioError, load_spec
from sim.tradecraft.instance import import_paper_instances, load_paper_instances

MC = "minecraft:"

# entries in the authors' game_task.json format; entry [2] is theirs too and lacks a feather for the arrow
GAMES = [
    {"hands": [{MC + "cherry_planks": 1, MC + "coal": 1, MC + "iron_ingot": 1, MC + "raw_copper": 1,
                MC + "cobblestone": 1},
               {MC + "oak_planks": 1, MC + "raw_iron": 5, MC + "cobblestone": 1, MC + "raw_copper": 2}],
     "targets": [{MC + "shears": 1}, {MC + "torch": 1}], "max_turn": 30},
    {"hands": [{MC + "iron_ingot": 1, MC + "coal": 1}, {MC + "iron_ingot": 1, MC + "stick": 1}],
     "targets": [{MC + "shears": 1}, {MC + "torch": 1}]},
    {"hands": [{MC + "oak_log": 3, MC + "iron_ore": 2, MC + "flint": 3, MC + "melon_seeds": 1},
               {MC + "oak_planks": 3, MC + "coal": 2, MC + "string": 1, MC + "flower_pot": 1}],
     "targets": [{MC + "shield": 1}, {MC + "arrow": 1}]},
    {"hands": [{MC + "coal": 1, MC + "stick": 1}], "targets": [{MC + "torch": 1}]},  # one player
]


@pytest.fixture
def tasks(tmp_path):
    path = tmp_path / "game_task.json"
    path.write_text(json.dumps(GAMES, indent=2))
    return path


def test_an_unsolvable_entry_is_reported_and_the_rest_imported(tasks):
    report = import_paper_instances(tasks)
    assert report.total == 4
    assert [s["name"] for s in report.specs] == ["game_task-01", "game_task-02", "game_task-04"]
    assert [k for k, _ in report.problems] == [2]
    assert "bob's target arrow * 1 cannot be crafted" in report.problems[0][1]
    assert "feather" in report.problems[0][1]
    lines = report.lines()
    assert lines[0].startswith("entry [0]: imported as game_task-01 (2 players, targets shears * 1 / torch * 1, "
                               "max_turns 30)")
    assert lines[2].startswith("entry [2]: skipped: field 'targets[1]': bob's target arrow")
    assert lines[3].startswith("entry [3]: imported as game_task-04 (1 player")


def test_per_game_turn_limits_and_one_player_games_are_kept(tasks):
    specs = {s["name"]: s for s in import_paper_instances(tasks, options={"max_turns": 20}).specs}
    assert specs["game_task-01"]["options"]["max_turns"] == 30  # the entry's own max_turn wins
    assert specs["game_task-02"]["options"]["max_turns"] == 20
    solo = specs["game_task-04"]
    assert solo["players"] == ["alice"] and solo["category"] == "minecraft 1 player"


def test_bad_entries_say_which_and_why(tmp_path):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps([
        {"hands": [{"coal": 1}], "targets": [{"torch": 1}], "max_turn": "30"},
        "not a game",
        {"hands": [{"coal": 1}]},
        {"hands": [{"coal": 1, "stick": 1}], "targets": [{"torch": 1}], "comment": "x"},
    ]))
    report = import_paper_instances(path)
    problems = dict(report.problems)
    assert problems[0].startswith("field 'options.max_turns': expected a whole number (a number in quotes is text), got '30'")
    assert problems[1] == "expected an object with 'hands' and 'targets', got str"
    assert problems[2] == "missing field(s) targets"
    assert [s["name"] for s in report.specs] == ["odd-04"]
    assert report.notes == [(3, "ignored field(s) comment (known: hands, targets, max_turn, max_turns, players, "
                                "name, title)")]
    with pytest.raises(ScenarioError, match=r"odd.json entry \[0\]: field 'options.max_turns'"):
        load_paper_instances(path)  # the all-or-nothing loader names the first refused entry


def test_import_command_then_selfplay_on_the_folder(tasks, tmp_path, capsys):
    out = tmp_path / "imported"
    assert main(["tradecraft", "import", str(tasks), "--out", str(out), "--crafting", "original"]) == 1
    text = capsys.readouterr().out
    assert "entry [2]: skipped:" in text and "imported 3 of 4 entries" in text and "1 skipped" in text
    files = sorted(p.name for p in out.glob("*.json"))
    assert files == ["game_task-01.json", "game_task-02.json", "game_task-04.json"]
    family, spec = load_spec(out / "game_task-01.json")
    assert family == "tradecraft" and spec["options"]["max_turns"] == 30 and spec["options"]["crafting"] == "original"
    runs = tmp_path / "runs"
    assert main(["tradecraft", "selfplay", str(out), "--out", str(runs), "--quiet"]) == 0
    rows = (runs / "selfplay.csv").read_text().splitlines()
    assert len(rows) == 4 and {r.split(",")[0] for r in rows[1:]} == {"game_task-01", "game_task-02", "game_task-04"}
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["tradecraft", "selfplay", str(empty), "--quiet"]) == 2
    assert "holds no instance files" in capsys.readouterr().err


def test_import_with_nothing_valid_fails(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([GAMES[2]]))
    assert main(["tradecraft", "import", str(path), "--out", str(tmp_path / "x")]) == 2
    assert "imported 0 of 1 entries" in capsys.readouterr().out
    assert not (tmp_path / "x").exists()
    path.write_text("{")
    assert main(["tradecraft", "import", str(path), "--out", str(tmp_path / "x")]) == 2
    assert "bad.json" in capsys.readouterr().err


def test_generate_guards_the_shipped_sets_and_ranges(tmp_path, capsys):
    assert main(["tradecraft", "generate"]) == 2
    assert "add --force" in capsys.readouterr().err
    for players in ("0", "1", "9"):
        assert main(["tradecraft", "generate", "--players", players, "--out", str(tmp_path / "g")]) == 2
        assert "--players must be 2 to 8" in capsys.readouterr().err
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "precious.json").write_text("{}")
    assert main(["tradecraft", "generate", "--count", "1", "--out", str(keep)]) == 2
    assert "already holds 1 .json file(s)" in capsys.readouterr().err
    assert (keep / "precious.json").exists()
