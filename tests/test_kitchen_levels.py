"""Kitchen levels: our text format, gym-cooking's text format (Wu et al. 2021), the shipped
levels, and one message naming file, line and column for every bad level."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim.kitchen.level import load_level_text, parse_gym_cooking_text, parse_kitchen_text, spec_text, validate_kitchen
from sim.kitchen.world import KitchenWorld
from sim.registry import SCENARIO_DIR, ScenarioError, build_world, load_spec

KITCHEN_DIR = SCENARIO_DIR / "kitchen"
OURS = sorted(KITCHEN_DIR.glob("*.kitchen.txt"))
GYM_LAYOUTS = ("open-kitchen", "divided-kitchen")  # gym-cooking's layouts with per-cook goals, in our format

GOOD = """\
# a comment
title: Test kitchen
t_max: 60
agent alice: SimpleTomato
agent bob: SimpleOnion
map:
#-t-#-o-#
/.1.D.2.*
p...#...p
#---#-/-#
"""

GYM_GOOD = "-----t-\n/     l\n/     -\n*     -\n-     -\n-     p\n-----p-\n\nSimpleTomato\nSimpleLettuce\n\n2 1\n4 1\n4 4\n2 4\n"


def load_text(tmp_path: Path, name: str, text: str) -> dict:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    family, spec = load_spec(path)
    assert family == "kitchen"
    return spec


def error_of(tmp_path: Path, name: str, text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        load_text(tmp_path, name, text)
    message = str(info.value)
    assert "\n" not in message  # one message
    return message


def where(message: str) -> tuple[int, int | None]:
    match = re.search(r": line (\d+)(?:, column (\d+))? \(1-based\): ", message)
    assert match, message
    return int(match.group(1)), (int(match.group(2)) if match.group(2) else None)


# ----------------------------------------------------------------------------- our format

def test_our_format_loads_with_header_grid_and_starts(tmp_path):
    spec = load_text(tmp_path, "test.kitchen.txt", GOOD)
    assert spec["name"] == "test" and spec["title"] == "Test kitchen" and spec["t_max"] == 60
    assert spec["agents"] == [{"name": "alice", "goal": "SimpleTomato", "start": [1, 2]},
                              {"name": "bob", "goal": "SimpleOnion", "start": [1, 6]}]
    assert spec["map"][1] == "/...D...*" and spec["collisions"] == "share" and spec["format"] == "kitchen"
    world = build_world("kitchen", spec)
    assert isinstance(world, KitchenWorld) and world.n_rooms == 2 and world.t_max == 60


def _replace_line(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("change, line, column, words", [
    (("p...#...p", "p..X#...p"), 9, 4, "unknown map character 'X'"),
    (("p...#...p", "p...#..p"), 9, 9, "expected every row to have 9 characters"),
    (("/.1.D.2.*", "/.1.D.3.*"), 8, 7, "agent start '3' but only 2 agents"),
    (("/.1.D.2.*", "/.1.D.1.*"), 8, 7, "agent start '1' appears twice"),
    (("/.1.D.2.*", "/.1.D...*"), 5, 1, "agent 'bob' (number 2) has no start cell"),
    (("agent bob: SimpleOnion", "agent bob: Salad"), 5, 12, "expected a recipe"),
    (("t_max: 60", "t_max: soon"), 3, 8, "t_max to be a whole number"),
    (("t_max: 60", "colour: red"), 3, 1, "unknown header key 'colour'"),
    (("t_max: 60", "collisions: bounce"), 3, 13, "'share' or 'block'"),
    (("map:\n", "grid:\n"), 6, 1, "unknown header key 'grid'"),
    (("p...#...p", "pD..#...p"), 9, 2, "a door must join two walkable cells"),
    (("agent bob: SimpleOnion", "agent bob: SimpleLettuce"), 5, 1, "bob wants SimpleLettuce but the map holds 0 Lettuce"),
    (("p...#...p", "-...#...p"), 5, 1, "2 agents need 2 plates"),
    (("agent alice: SimpleTomato", "agent Alice!: SimpleTomato"), 4, 7, "expected an agent name"),
])
def test_every_bad_level_of_ours_gets_one_message_with_line_and_column(tmp_path, change, line, column, words):
    message = error_of(tmp_path, "bad.kitchen.txt", _replace_line(GOOD, *change))
    assert message.startswith(f"{tmp_path / 'bad.kitchen.txt'}: line {line}, column {column} (1-based): "), message
    assert words in message


def test_a_file_without_map_names_its_last_line(tmp_path):
    message = error_of(tmp_path, "bad.kitchen.txt", "agent alice: SimpleTomato\ntitle: x\n")
    assert where(message)[0] == 2 and "expected a line 'map:'" in message


# ----------------------------------------------------------------------------- gym-cooking's format

def test_gym_cooking_level_loads_as_it_is(tmp_path):
    spec = load_text(tmp_path, "open.gym-cooking.txt", GYM_GOOD)
    assert spec["format"] == "gym-cooking" and spec["collisions"] == "block" and spec["t_max"] == 100
    # x y is column, row: "2 1" -> row 1, column 2; the 3rd and 4th starts are unused (2 cooks by
    # default); the recipes are the orders all cooks share (gym-cooking's rules)
    assert spec["agents"] == [{"name": "alice", "start": [1, 2]}, {"name": "bob", "start": [1, 4]}]
    assert spec["orders"] == ["SimpleTomato", "SimpleLettuce"]
    assert spec["map"][0] == "-----t-" and spec["map"][1] == "/.....l"
    world = build_world("kitchen", spec)
    assert world.n_rooms == 1 and len(world.boards) == 2 and len(world.deliveries) == 1


def test_the_number_of_cooks_is_not_the_number_of_recipes(tmp_path):
    text = GYM_GOOD.replace("SimpleTomato\nSimpleLettuce\n", "SimpleTomato\n")
    spec = load_text(tmp_path, "solo.gym-cooking.txt", text)
    assert [a["name"] for a in spec["agents"]] == ["alice", "bob"] and spec["orders"] == ["SimpleTomato"]


def test_trailing_blanks_trimmed_by_an_editor_are_floor(tmp_path):
    trimmed = "-------\n/     -\n/\n*     -\n-     -\n-    lp\n----tp-\n\nSimpleTomato\nSimpleLettuce\n\n1 1\n2 1\n"
    spec = load_text(tmp_path, "trim.gym-cooking.txt", trimmed)
    assert spec["map"][2] == "/......"


@pytest.mark.parametrize("old, new, line, column, words", [
    ("SimpleLettuce\n", "Soup\n", 10, 1, "expected a recipe name"),
    ("SimpleLettuce\n", "  Pizza\n", 10, 3, "expected a recipe name"),
    ("/     l\n", "/  x  l\n", 2, 4, "unknown gym-cooking grid character 'x'"),
    ("2 1\n", "0 1\n", 12, 1, "is on a cutting board"),
    ("2 1\n", "9 1\n", 12, 1, "outside the 7x7 grid"),
    ("4 1\n", "4,1\n", 13, 1, "expected an agent start 'x y'"),
    ("4 1\n4 4\n2 4\n", "", 13, None, "2 cooks (--cooks) but the level has 1 agent start line"),
    ("2 4\n", "2 4\n\nextra\n", 17, 1, "unexpected text after the agent start positions"),
    ("\nSimpleTomato\nSimpleLettuce\n\n2 1\n4 1\n4 4\n2 4\n", "\n", 8, None, "expected a blank line and then recipe names"),
])
def test_every_bad_gym_cooking_level_gets_one_message_with_line_and_column(tmp_path, old, new, line, column, words):
    text = GYM_GOOD.replace(old, new, 1)
    message = error_of(tmp_path, "bad.gym-cooking.txt", text)
    assert where(message) == (line, column), message
    assert words in message and message.startswith(str(tmp_path / "bad.gym-cooking.txt"))


def test_a_level_without_delivery_is_refused_at_the_grid(tmp_path):
    message = error_of(tmp_path, "bad.gym-cooking.txt", GYM_GOOD.replace("*", "-"))
    assert where(message) == (1, 1) and "no delivery station" in message


def test_either_format_is_recognised_by_its_shape(tmp_path):
    (tmp_path / "a.txt").write_text(GYM_GOOD)
    (tmp_path / "b.txt").write_text(GOOD)
    assert load_level_text(tmp_path / "a.txt")["format"] == "gym-cooking"
    assert load_level_text(tmp_path / "b.txt")["format"] == "kitchen"


def test_a_gym_cooking_level_exports_to_our_format_and_back():
    spec = parse_gym_cooking_text(GYM_GOOD, "open.gym-cooking.txt", "open")
    again = parse_kitchen_text(spec_text(spec), "open.kitchen.txt", "open")
    for key in ("map", "agents", "orders", "collisions", "t_max", "name"):
        assert again[key] == spec[key]


# ----------------------------------------------------------------------------- JSON form

def test_the_normalized_spec_validates_as_json_with_field_messages():
    spec = parse_kitchen_text(GOOD, "x.kitchen.txt", "x")
    data = {**spec, "format": "json"}
    assert validate_kitchen(data, "x.json")["map"] == spec["map"]
    bad = {**data, "map": [spec["map"][0], spec["map"][1].replace("/", "?")] + spec["map"][2:]}
    with pytest.raises(ScenarioError, match=r"x\.json: field 'map', row 2, column 1 \(1-based\): unknown character '\?'"):
        validate_kitchen(bad, "x.json")
    few_plates = {**data, "map": [row.replace("p", "-") for row in spec["map"]]}
    with pytest.raises(ScenarioError, match=r"field 'agents', entry 2 \(1-based\): 2 agents need 2 plates"):
        validate_kitchen(few_plates, "x.json")


# ----------------------------------------------------------------------------- shipped levels

def test_the_shipped_levels_load_with_rooms_doors_two_cooks_and_every_recipe():
    assert len(OURS) >= 8
    recipes = set()
    for path in OURS:
        family, spec = load_spec(path)
        world = build_world(family, spec)
        assert family == "kitchen" and len(world.agents) == 2, path
        recipes |= set(world.goals.values())
        if spec["name"] not in GYM_LAYOUTS:
            assert "D" in "".join(spec["map"]) and world.n_rooms >= 2, path
    assert recipes == {"SimpleTomato", "SimpleLettuce", "SimpleOnion"}


def test_the_shipped_gym_cooking_layouts_keep_gym_cookings_grids_and_rules():
    fixtures = Path(__file__).parent / "fixtures" / "gym_cooking"
    for name, original in (("open-kitchen", "open-divider_tl"), ("divided-kitchen", "partial-divider_tl")):
        spec = load_spec(KITCHEN_DIR / f"{name}.kitchen.txt")[1]
        gym = load_spec(fixtures / f"{original}.txt")[1]
        assert spec["collisions"] == "block" and "gym-cooking" in spec["description"]
        differ = [(r, c) for r, (a, b) in enumerate(zip(spec["map"], gym["map"])) for c in range(7) if a[c] != b[c]]
        assert differ == ([] if name == "open-kitchen" else [(4, 6)])  # an onion added
