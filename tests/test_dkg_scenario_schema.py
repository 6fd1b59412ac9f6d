"""Scenario files of Doors, Keys and Gems: each kind of mistake gives exactly one ScenarioError
whose message names the file, the field or map cell, and what was expected."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from main import main
from sim.registry import ScenarioError, list_scenarios, load_scenario, load_spec, scenario_paths

VALID: dict[str, Any] = {
    "world": "dkg",
    "name": "schema-test",
    "title": "Schema test",
    "map": ["#########",
            "#1..#..*#",
            "#...R...#",
            "#r..#.2+#",
            "#########"],
    "legend": {"#": "wall", ".": "floor", "r": {"key": "red"}, "R": {"door": "red"},
               "*": {"gem": "blue"}, "+": {"gem": "green"},
               "1": {"agent": "alice"}, "2": {"agent": "bob"}},
    "goals": {"alice": "gem1", "bob": "gem2"},
    "options": {"t_max": 80, "turn_order": ["alice", "bob"]},
}


def write(tmp_path: Path, name: str, data: Any = None, text: str | None = None) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data) if text is None else text, encoding="utf-8")
    return path


def edited(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    data = copy.deepcopy(VALID)
    change(data)
    return data


def set_row(r: int, row: str) -> Callable[[dict[str, Any]], Any]:
    return lambda d: d["map"].__setitem__(r, row)


def one_agent(d: dict[str, Any]) -> None:
    d["map"][3] = "#r..#..+#"
    del d["legend"]["2"], d["goals"]["bob"]
    d["options"]["turn_order"] = ["alice"]


def no_agent(d: dict[str, Any]) -> None:
    one_agent(d)
    d["map"][1] = d["map"][1].replace("1", ".")
    del d["legend"]["1"], d["goals"]["alice"]
    d["options"]["turn_order"] = ["alice"]


# (case, scenario data or raw text, fragments the message must contain: where, and what was expected)
CASES = [
    ("invalid-json", '{"world": "dkg", "name": }', ["line 1, column 26", "invalid JSON"]),
    ("not-an-object", "[1, 2]", ["expected a JSON object"]),
    ("unknown-world", edited(lambda d: d.__setitem__("world", "chess")), ["field 'world'", "'dkg'", "'chess'"]),
    ("missing-map", edited(lambda d: d.pop("map")), ["field 'map'", "required"]),
    ("missing-goals", edited(lambda d: d.pop("goals")), ["field 'goals'", "required"]),
    ("t-max-not-int", edited(lambda d: d["options"].__setitem__("t_max", "eighty")),
     ["field 'options.t_max'", "expected a whole number", "'eighty'"]),
    ("t-max-zero", edited(lambda d: d["options"].__setitem__("t_max", 0)),
     ["field 'options.t_max'", "greater than or equal to 1", "got 0"]),
    ("map-not-list", edited(lambda d: d.__setitem__("map", "#####")), ["field 'map'", "expected a list"]),
    ("map-row-not-string", edited(set_row(1, 5)), ["field 'map[1]'", "expected text", "got 5"]),
    ("empty-rows", edited(lambda d: d.__setitem__("map", ["", ""])), ["field 'map'", "must not be empty"]),
    ("bad-name", edited(lambda d: d.__setitem__("name", "Two Rooms")), ["field 'name'", "lowercase letters, digits", "'Two Rooms'"]),
    ("bad-category", edited(lambda d: d.__setitem__("category", "maybe")),
     ["field 'category'", "'necessary'", "'maybe'"]),
    ("unknown-field", edited(lambda d: d.__setitem__("colour", "red")),
     ["field 'colour'", "unknown", "world", "legend", "goals", "options"]),
    ("unknown-option", edited(lambda d: d["options"].__setitem__("tmax", 3)),
     ["field 'options.tmax'", "unknown", "t_max", "turn_order"]),
    ("bad-legend-entry", edited(lambda d: d["legend"].__setitem__("#", "lava")),
     ["field 'legend'", "entry '#'", "'wall', 'floor'", "'lava'"]),
    ("legend-entry-two-kinds", edited(lambda d: d["legend"].__setitem__("r", {"key": "red", "door": "red"})),
     ["field 'legend'", "entry 'r'", "one of the fields"]),
    ("legend-entry-unknown-kind", edited(lambda d: d["legend"].__setitem__("r", {"portal": "red"})),
     ["field 'legend'", "entry 'r'", "key/door/gem", "'portal'"]),
    ("legend-key-too-long", edited(lambda d: d["legend"].__setitem__("##", "wall")),
     ["field 'legend'", "'##'", "single characters"]),
    ("bad-colour", edited(lambda d: d["legend"].__setitem__("r", {"key": "magenta"})),
     ["field 'legend'", "entry 'r'", "red, blue", "'magenta'"]),
    ("bad-agent-name", edited(lambda d: d["legend"].__setitem__("2", {"agent": "Bob"})),
     ["field 'legend'", "entry '2'", "lowercase", "'Bob'"]),
    ("ragged-row", edited(set_row(2, "#...R..#")), ["map row 2", "8 cells", "expected 9"]),
    ("unknown-map-character", edited(set_row(2, "#...X...#")),
     ["map row 2, column 4", "'X'", "not in the legend"]),
    ("agent-twice-on-map", edited(set_row(2, "#...R.1.#")),
     ["map row 2, column 6", "'alice'", "second time", "row 1, column 1"]),
    ("agent-twice-in-legend", edited(lambda d: d["legend"].__setitem__("3", {"agent": "alice"})),
     ["field 'legend'", "'alice'", "'1'", "'3'", "exactly one"]),
    ("agent-in-legend-not-on-map", edited(lambda d: d["legend"].__setitem__("3", {"agent": "carol"})),
     ["field 'map'", "'carol'", "not on the map"]),
    ("no-agent", edited(no_agent), ["field 'map'", "no agent on the map"]),
    ("turn-order-unknown-agent", edited(lambda d: d["options"].__setitem__("turn_order", ["alice", "carol"])),
     ["field 'options.turn_order'", "['alice', 'bob'] exactly once", "'carol'"]),
    ("turn-order-duplicate", edited(lambda d: d["options"].__setitem__("turn_order", ["alice", "alice", "bob"])),
     ["field 'options.turn_order'", "exactly once"]),
    ("turn-order-incomplete", edited(lambda d: d["options"].__setitem__("turn_order", ["bob"])),
     ["field 'options.turn_order'", "exactly once", "['bob']"]),
    ("turn-order-not-list", edited(lambda d: d["options"].__setitem__("turn_order", "alice bob")),
     ["field 'options.turn_order'", "expected a list"]),
    ("goal-not-a-gem", edited(lambda d: d["goals"].__setitem__("bob", "key1")),
     ["field 'goals.bob'", "gem id (gem1, gem2)", "'key1'"]),
    ("no-goal-at-all", edited(lambda d: d.__setitem__("goals", {})),
     ["field 'goals'", "no agent has a goal", "gem1, gem2", "helpers"]),
    ("t-max-as-text", edited(lambda d: d["options"].__setitem__("t_max", "80")),
     ["field 'options.t_max'", "expected a whole number (a number in quotes is text)", "'80'"]),
    ("bad-handover-rule", edited(lambda d: d["options"].__setitem__("handover", "anywhere")),
     ["field 'options.handover'", "'adjacent' or 'same_cell_or_adjacent'", "'anywhere'"]),
    ("goal-of-a-stranger", edited(lambda d: d["goals"].__setitem__("carol", "gem1")),
     ["field 'goals.carol'", "not an agent", "alice, bob"]),
    ("goal-not-string", edited(lambda d: d["goals"].__setitem__("bob", 2)),
     ["field 'goals.bob'", "expected text"]),
    ("same-goal-twice", edited(lambda d: d["goals"].__setitem__("bob", "gem1")),
     ["field 'goals.bob'", "gem1 is already the goal of 'alice'", "different gem"]),
]


def test_the_valid_base_scenario_loads(tmp_path):
    family, spec = load_spec(write(tmp_path, "valid", VALID))
    assert family == "dkg" and spec["name"] == "schema-test"
    defaults = edited(lambda d: d.pop("options"))
    _, spec = load_spec(write(tmp_path, "defaults", defaults))
    assert spec["options"] == {"t_max": 80, "turn_order": ["alice", "bob"], "handover": "adjacent"}


@pytest.mark.parametrize("case, data, fragments", CASES, ids=[c[0] for c in CASES])
def test_each_mistake_gives_one_clear_error(tmp_path, case, data, fragments):
    path = write(tmp_path, case, text=data) if isinstance(data, str) else write(tmp_path, case, data)
    with pytest.raises(ScenarioError) as info:
        load_spec(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message  # names the file first
    assert "\n" not in message, message  # one problem, one line
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from: {message}"


def test_a_scenario_by_path_reports_the_same_error(tmp_path):
    path = write(tmp_path, "ragged", edited(set_row(2, "#...R..#")))
    with pytest.raises(ScenarioError, match=r"ragged\.json: map row 2"):
        load_scenario(str(path))


def test_an_unknown_scenario_name_says_how_to_list_them():
    with pytest.raises(ScenarioError, match="no scenario named 'no-such-map'.*main.py list"):
        load_scenario("no-such-map")


def test_main_list_lists_every_shipped_scenario(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines()[2:] if line.strip()]
    assert sorted(listed) == sorted(info.name for info in list_scenarios())
    assert len(listed) == len(scenario_paths())


def test_a_scenario_with_one_agent_loads():
    from sim.dkg.scenario import validate_dkg

    data = copy.deepcopy(VALID)
    one_agent(data)
    spec = validate_dkg(data, "one.json")
    assert spec["options"]["turn_order"] == ["alice"] and spec["goals"] == {"alice": "gem1"}
