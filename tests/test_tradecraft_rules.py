"""Rule sets: the datapack recipe loader (all recipe types, tags, fuels) and the shipped rule sets."""

import json
from fractions import Fraction

import pytest

from sim.tradecraft.instance import rules_folder
from sim.tradecraft.rules import FUEL_PER_SMELT, RuleSetError, load_ruleset


def write(folder, rel, data):
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


@pytest.fixture
def pack(tmp_path):
    """A small datapack in the 1.20 layout with every recipe type and nested tags."""
    root = tmp_path / "pack"
    d = "data/minecraft"
    write(root, f"{d}/tags/items/oak_logs.json", {"values": ["minecraft:oak_log", "minecraft:oak_wood"]})
    write(root, f"{d}/tags/items/logs_that_burn.json", {"values": ["#minecraft:oak_logs"]})
    write(root, f"{d}/tags/items/logs.json", {"values": ["#minecraft:logs_that_burn",
                                                         {"id": "#minecraft:missing", "required": False}]})
    write(root, f"{d}/tags/items/planks.json", {"values": ["minecraft:oak_planks", "minecraft:birch_planks"]})
    write(root, f"{d}/recipes/stick.json", {"type": "minecraft:crafting_shaped", "pattern": ["#", "#"],
                                            "key": {"#": {"tag": "minecraft:planks"}},
                                            "result": {"item": "minecraft:stick", "count": 4}})
    write(root, f"{d}/recipes/diamond_hoe.json", {
        "type": "minecraft:crafting_shaped", "key": {"#": {"item": "minecraft:stick"},
                                                     "X": {"item": "minecraft:diamond"}},
        "pattern": ["XX", "#", "#"], "result": {"item": "minecraft:diamond_hoe"}})
    write(root, f"{d}/recipes/oak_planks.json", {"type": "minecraft:crafting_shapeless",
                                                 "ingredients": [{"tag": "minecraft:oak_logs"}],
                                                 "result": {"item": "minecraft:oak_planks", "count": 4}})
    write(root, f"{d}/recipes/flint_and_steel.json", {"type": "minecraft:crafting_shapeless",
                                                      "ingredients": ["minecraft:iron_ingot", "minecraft:flint"],
                                                      "result": {"id": "minecraft:flint_and_steel"}})
    write(root, f"{d}/recipes/iron_ingot.json", {"type": "minecraft:smelting", "ingredient": {"item": "minecraft:raw_iron"},
                                                 "result": "minecraft:iron_ingot", "experience": 0.7,
                                                 "cookingtime": 200})
    write(root, f"{d}/recipes/iron_ingot_from_blasting.json", {"type": "minecraft:blasting",
                                                               "ingredient": "minecraft:raw_iron",
                                                               "result": {"id": "minecraft:iron_ingot"}})
    write(root, f"{d}/recipes/cooked_beef_from_smoking.json", {"type": "minecraft:smoking",
                                                               "ingredient": {"item": "minecraft:beef"},
                                                               "result": "minecraft:cooked_beef", "cookingtime": 100})
    write(root, f"{d}/recipes/cooked_beef_from_campfire.json", {"type": "minecraft:campfire_cooking",
                                                                "ingredient": {"item": "minecraft:beef"},
                                                                "result": "minecraft:cooked_beef", "cookingtime": 600})
    write(root, f"{d}/recipes/stone_slab_stonecutting.json", {"type": "minecraft:stonecutting",
                                                              "ingredient": {"item": "minecraft:stone"},
                                                              "result": "minecraft:stone_slab", "count": 2})
    write(root, f"{d}/recipes/charcoal.json", {"type": "minecraft:smelting", "ingredient": "#minecraft:logs_that_burn",
                                               "result": "minecraft:charcoal"})
    write(root, f"{d}/recipes/netherite_hoe_smithing.json", {
        "type": "minecraft:smithing_transform", "template": {"item": "minecraft:netherite_upgrade_smithing_template"},
        "base": {"item": "minecraft:diamond_hoe"}, "addition": {"item": "minecraft:netherite_ingot"},
        "result": {"item": "minecraft:netherite_hoe"}})
    write(root, f"{d}/recipes/armor_dye.json", {"type": "minecraft:crafting_special_armordye"})
    return root


def test_datapack_loads_every_recipe_type(pack):
    rules = load_ruleset(pack)
    types = {r.type for r in rules.recipes.values()}
    assert types == {"crafting_shaped", "crafting_shapeless", "smelting", "blasting", "smoking",
                     "campfire_cooking", "stonecutting", "smithing_transform"}
    assert rules.skipped == {"crafting_special_armordye": 1}


def test_shaped_recipe_counts_pattern_symbols(pack):
    hoe = load_ruleset(pack).recipes["minecraft:diamond_hoe"]
    amounts = {ing.options[0]: ing.amount for ing in hoe.ingredients}
    assert amounts == {"minecraft:diamond": 2, "minecraft:stick": 2}
    assert hoe.pattern == ("XX", "#", "#") and hoe.count == 1


def test_shapeless_and_new_format_strings(pack):
    rules = load_ruleset(pack)
    fs = rules.recipes["minecraft:flint_and_steel"]
    assert sorted(ing.options[0] for ing in fs.ingredients) == ["minecraft:flint", "minecraft:iron_ingot"]
    assert fs.result == "minecraft:flint_and_steel"
    assert rules.recipes["minecraft:iron_ingot_from_blasting"].result == "minecraft:iron_ingot"


def test_nested_tags_expand_recursively(pack):
    rules = load_ruleset(pack)
    assert rules.tags["minecraft:logs"] == ("minecraft:oak_log", "minecraft:oak_wood")
    charcoal = rules.recipes["minecraft:charcoal"]
    assert charcoal.ingredients[0].options == ("minecraft:oak_log", "minecraft:oak_wood")
    assert charcoal.ingredients[0].source == "#minecraft:logs_that_burn"


def test_cooking_times_fuel_and_stonecutting_counts(pack):
    rules = load_ruleset(pack)
    assert rules.recipes["minecraft:iron_ingot"].fuel == FUEL_PER_SMELT == Fraction(1, 8)
    assert rules.recipes["minecraft:iron_ingot_from_blasting"].cooking_time == 100
    assert rules.recipes["minecraft:cooked_beef_from_smoking"].fuel == Fraction(1, 8)
    assert rules.recipes["minecraft:cooked_beef_from_campfire"].fuel == 0
    assert rules.recipes["minecraft:stone_slab_stonecutting"].count == 2


def test_vanilla_fuel_table_applies_without_fuels_json(pack):
    rules = load_ruleset(pack)
    assert rules.fuel_value("minecraft:oak_planks") == Fraction(3, 16)  # 2/3 plank per smelt
    assert rules.fuel_value("minecraft:stick") == Fraction(1, 16)  # 2 sticks per smelt
    assert rules.fuel_value("minecraft:oak_log") == Fraction(3, 16)
    assert rules.fuel_value("minecraft:diamond") == 0


def test_tag_cycle_is_refused_with_the_cycle(tmp_path):
    root = tmp_path / "cyc"
    write(root, "recipes/a.json", {"type": "minecraft:crafting_shapeless", "ingredients": ["#minecraft:x"],
                                   "result": "minecraft:a"})
    write(root, "tags/items/x.json", {"values": ["#minecraft:y"]})
    write(root, "tags/items/y.json", {"values": ["#minecraft:x"]})
    with pytest.raises(RuleSetError, match="cycle"):
        load_ruleset(root)


def test_errors_name_file_and_field(tmp_path):
    root = tmp_path / "bad"
    write(root, "recipes/a.json", {"type": "minecraft:crafting_shaped", "pattern": ["#X"],
                                   "key": {"#": {"item": "minecraft:stick"}}, "result": {"item": "minecraft:a"}})
    with pytest.raises(RuleSetError, match=r"a\.json.*symbol 'X' has no entry in 'key'"):
        load_ruleset(root)
    root2 = tmp_path / "bad2"
    write(root2, "recipes/b.json", {"type": "minecraft:crafting_shapeless", "ingredients": ["#minecraft:nope"],
                                    "result": "minecraft:b"})
    with pytest.raises(RuleSetError, match="tag #minecraft:nope is not defined"):
        load_ruleset(root2)
    root3 = tmp_path / "bad3"
    write(root3, "recipes/c.json", "{not json")
    with pytest.raises(RuleSetError, match=r"c\.json: line 1, column 2: invalid JSON"):
        load_ruleset(root3)
    with pytest.raises(RuleSetError, match="not a rule set"):
        load_ruleset(tmp_path)


def test_shipped_minecraft_rule_set_is_broad():
    rules = load_ruleset(rules_folder("minecraft"))
    summary = rules.summary()
    assert summary["recipes"] >= 500
    for kind in ("crafting_shaped", "crafting_shapeless", "smelting", "blasting", "smoking", "campfire_cooking",
                 "stonecutting", "smithing_transform"):
        assert summary["by_type"].get(kind, 0) >= 5, kind
    assert "minecraft:oak_log" in rules.tags["minecraft:logs"]  # logs -> logs_that_burn -> oak_logs
    assert rules.fuel_value("minecraft:coal") == 1


def test_shipped_alchemy_rule_set_is_pairwise():
    rules = load_ruleset(rules_folder("alchemy"))
    assert len(rules.recipes) >= 100
    for recipe in rules.recipes.values():
        assert recipe.type == "crafting_shapeless"
        assert sum(ing.amount for ing in recipe.ingredients) == 2
    assert not (set(rules.by_result) & {"alchemy:air", "alchemy:earth", "alchemy:fire", "alchemy:water"})


def test_short_names_resolve():
    rules = load_ruleset(rules_folder("minecraft"))
    assert rules.resolve("torch") == "minecraft:torch"
    assert rules.display("minecraft:torch") == "torch"
    with pytest.raises(KeyError, match="unknown item"):
        rules.resolve("unobtainium")
