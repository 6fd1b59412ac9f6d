"""A rule-set folder laid out like the TradeCraft authors' published Minecraft set.

The test writes a few dozen recipes in the exact Minecraft 1.20 JSON the authors ship
(``recipes/*.json``), vanilla item tags (``tags/items``), one of their extra tags
(``tags/_custom``), block tags the fuel list needs (``tags/blocks``: ``#minecraft:beehives``
and ``#minecraft:all_signs`` live only there, the latter pulling in three more), their fuel list
(``tags/items/fuel.json`` with plain ids, tags and ``{"value": ..., "count": n}`` entries, one
item listed twice) and recipe types the game does not use; then checks every recipe and every
fuel value the loader produces, and crafts that fill one slot with two members of a tag.
"""

import json
import os
import time
from fractions import Fraction as F

import pytest

from main import main
from sim.tradecraft.rules import FUEL_PER_SMELT, RuleSetError, load_ruleset

MC = "minecraft:"

TAGS = {
    "planks": ["minecraft:oak_planks", "minecraft:birch_planks", "minecraft:spruce_planks",
               "minecraft:cherry_planks"],
    "oak_logs": ["minecraft:oak_log", "minecraft:oak_wood"],
    "birch_logs": ["minecraft:birch_log"],
    "logs_that_burn": ["#minecraft:oak_logs", "#minecraft:birch_logs"],
    "logs": ["#minecraft:logs_that_burn"],
    "coals": ["minecraft:coal", "minecraft:charcoal"],
    "wooden_slabs": ["minecraft:oak_slab", "minecraft:birch_slab"],
    "wool": ["minecraft:white_wool", "minecraft:black_wool"],
    "stone_tool_materials": ["minecraft:cobblestone", "minecraft:blackstone"],
    "boats": ["minecraft:oak_boat"],
}

# block tags, as the authors' folder has them: read by file name, only where no item tag exists
BLOCK_TAGS = {
    "beehives": ["minecraft:beehive", "minecraft:bee_nest"],
    "all_signs": ["#minecraft:signs", "#minecraft:all_hanging_signs"],
    "signs": ["#minecraft:standing_signs", "#minecraft:wall_signs"],
    "standing_signs": ["minecraft:oak_sign"],
    "wall_signs": ["minecraft:oak_wall_sign"],
    "all_hanging_signs": ["minecraft:oak_hanging_sign"],
    "planks": ["minecraft:mangrove_planks"],  # an item tag of that name exists: that one counts
    "mineable/axe_only": ["minecraft:note_block"],  # never referenced: never read
}

# the authors' fuel list, abridged, in their format (count = how many of the item burn like one coal)
FUEL = {"values": [
    "#minecraft:coals",
    {"value": "minecraft:dried_kelp_block", "count": 0.4},
    {"value": "minecraft:blaze_rod", "count": 0.666666667},
    {"value": "minecraft:trapped_chest", "count": 5.333333333},
    {"value": "#minecraft:wooden_slabs", "count": 10.66666667},
    {"value": "minecraft:wooden_pickaxe", "count": 8},
    {"value": "minecraft:stick", "count": 16},
    {"value": "#minecraft:wool", "count": 16},
    {"value": "minecraft:red_carpet", "count": 23.88059701},
    {"value": "minecraft:bamboo", "count": 32},
    {"value": "#minecraft:planks", "count": 5.333333},
    {"value": "#minecraft:logs_that_burn", "count": 5.333333},
    {"value": "#minecraft:boats", "count": 1.333333},
    {"value": "minecraft:coal_block", "count": 0.1},
    {"value": "minecraft:trapped_chest", "count": 1.333333},
    {"value": "#minecraft:beehives", "count": 5.333333},
    {"value": "#minecraft:all_signs", "count": 8},
]}
FUEL_EXPECTED = {
    "coal": F(1), "charcoal": F(1), "dried_kelp_block": F(5, 2), "blaze_rod": F(3, 2),
    "oak_slab": F(3, 32), "birch_slab": F(3, 32), "wooden_pickaxe": F(1, 8), "stick": F(1, 16),
    "white_wool": F(1, 16), "black_wool": F(1, 16), "red_carpet": F(67, 1600), "bamboo": F(1, 32),
    "oak_planks": F(3, 16), "birch_planks": F(3, 16), "spruce_planks": F(3, 16), "cherry_planks": F(3, 16),
    "beehive": F(3, 16), "bee_nest": F(3, 16), "oak_sign": F(1, 8), "oak_wall_sign": F(1, 8),
    "oak_hanging_sign": F(1, 8),
    "oak_log": F(3, 16), "oak_wood": F(3, 16), "birch_log": F(3, 16), "oak_boat": F(3, 4),
    "coal_block": F(10), "trapped_chest": F(3, 4),  # listed twice: the last entry counts
}


def shaped(pattern, key, result, count=1, **extra):
    data = {"type": "minecraft:crafting_shaped", "category": "misc", "key": key, "pattern": pattern,
            "result": {"item": MC + result} if count == 1 else {"count": count, "item": MC + result}}
    data.update(extra)
    return data


def shapeless(ingredients, result, count=1):
    return {"type": "minecraft:crafting_shapeless", "category": "misc", "ingredients": ingredients,
            "result": {"item": MC + result} if count == 1 else {"count": count, "item": MC + result}}


def cooking(kind, ingredient, result, time_, xp=0.1):
    return {"type": f"minecraft:{kind}", "category": "misc", "cookingtime": time_, "experience": xp,
            "ingredient": ingredient, "result": MC + result}


def item(name):
    return {"item": MC + name}


def tag(name):
    return {"tag": MC + name}


PLANKS = ("oak_planks", "birch_planks", "spruce_planks", "cherry_planks")
LOGS = ("oak_log", "oak_wood", "birch_log")

# file name -> (recipe JSON as the authors ship it,
#               expected (type, result, count, {options: amount}, fuel per craft, cooking time))
RECIPES = {
    "stick": (shaped(["#", "#"], {"#": tag("planks")}, "stick", 4, group="sticks"),
              ("crafting_shaped", "stick", 4, {PLANKS: 2}, 0, None)),
    "stick_from_bamboo_item": (shaped(["#", "#"], {"#": item("bamboo")}, "stick", group="sticks"),
                               ("crafting_shaped", "stick", 1, {("bamboo",): 2}, 0, None)),
    "torch": (shaped(["X", "#"], {"#": item("stick"), "X": [item("coal"), item("charcoal")]}, "torch", 4),
              ("crafting_shaped", "torch", 4, {("stick",): 1, ("coal", "charcoal"): 1}, 0, None)),
    "shears": (shaped([" #", "# "], {"#": item("iron_ingot")}, "shears"),
               ("crafting_shaped", "shears", 1, {("iron_ingot",): 2}, 0, None)),
    "bucket": (shaped(["# #", " # "], {"#": item("iron_ingot")}, "bucket"),
               ("crafting_shaped", "bucket", 1, {("iron_ingot",): 3}, 0, None)),
    "chain": (shaped(["N", "I", "N"], {"I": item("iron_ingot"), "N": item("iron_nugget")}, "chain"),
              ("crafting_shaped", "chain", 1, {("iron_nugget",): 2, ("iron_ingot",): 1}, 0, None)),
    "lever": (shaped(["X", "#"], {"#": item("cobblestone"), "X": item("stick")}, "lever"),
              ("crafting_shaped", "lever", 1, {("stick",): 1, ("cobblestone",): 1}, 0, None)),
    "stone_shovel": (shaped(["X", "#", "#"], {"#": item("stick"), "X": tag("stone_tool_materials")},
                            "stone_shovel"),
                     ("crafting_shaped", "stone_shovel", 1, {("cobblestone", "blackstone"): 1, ("stick",): 2},
                      0, None)),
    "wooden_pickaxe": (shaped(["XXX", " # ", " # "], {"#": item("stick"), "X": tag("planks")}, "wooden_pickaxe"),
                       ("crafting_shaped", "wooden_pickaxe", 1, {PLANKS: 3, ("stick",): 2}, 0, None)),
    "crafting_table": (shaped(["##", "##"], {"#": tag("planks")}, "crafting_table"),
                       ("crafting_shaped", "crafting_table", 1, {PLANKS: 4}, 0, None)),
    "chest": (shaped(["###", "# #", "###"], {"#": tag("planks")}, "chest"),
              ("crafting_shaped", "chest", 1, {PLANKS: 8}, 0, None)),
    "trapped_chest": (shapeless([item("chest"), item("tripwire_hook")], "trapped_chest"),
                      ("crafting_shapeless", "trapped_chest", 1, {("chest",): 1, ("tripwire_hook",): 1}, 0, None)),
    "oak_planks": (shapeless([tag("oak_logs")], "oak_planks", 4),
                   ("crafting_shapeless", "oak_planks", 4, {("oak_log", "oak_wood"): 1}, 0, None)),
    "oak_slab": (shaped(["###"], {"#": item("oak_planks")}, "oak_slab", 6),
                 ("crafting_shaped", "oak_slab", 6, {("oak_planks",): 3}, 0, None)),
    "iron_nugget": (shapeless([item("iron_ingot")], "iron_nugget", 9),
                    ("crafting_shapeless", "iron_nugget", 9, {("iron_ingot",): 1}, 0, None)),
    "iron_ingot_from_nuggets": (shaped(["###", "###", "###"], {"#": item("iron_nugget")}, "iron_ingot"),
                                ("crafting_shaped", "iron_ingot", 1, {("iron_nugget",): 9}, 0, None)),
    "coal_block": (shaped(["###", "###", "###"], {"#": item("coal")}, "coal_block"),
                   ("crafting_shaped", "coal_block", 1, {("coal",): 9}, 0, None)),
    "coal": (shapeless([item("coal_block")], "coal", 9),
             ("crafting_shapeless", "coal", 9, {("coal_block",): 1}, 0, None)),
    "dried_kelp_block": (shapeless([item("dried_kelp")] * 9, "dried_kelp_block"),
                         ("crafting_shapeless", "dried_kelp_block", 1, {("dried_kelp",): 9}, 0, None)),
    "flint_and_steel": (shapeless([item("iron_ingot"), item("flint")], "flint_and_steel"),
                        ("crafting_shapeless", "flint_and_steel", 1, {("iron_ingot",): 1, ("flint",): 1}, 0, None)),
    "iron_ingot_from_smelting_raw_iron": (cooking("smelting", item("raw_iron"), "iron_ingot", 200, 0.7),
                                          ("smelting", "iron_ingot", 1, {("raw_iron",): 1}, FUEL_PER_SMELT, 200)),
    "iron_ingot_from_blasting_raw_iron": (cooking("blasting", item("raw_iron"), "iron_ingot", 100, 0.7),
                                          ("blasting", "iron_ingot", 1, {("raw_iron",): 1}, FUEL_PER_SMELT, 100)),
    "charcoal": (cooking("smelting", tag("logs_that_burn"), "charcoal", 200, 0.15),
                 ("smelting", "charcoal", 1, {LOGS: 1}, FUEL_PER_SMELT, 200)),
    "dried_kelp_from_smelting": (cooking("smelting", item("kelp"), "dried_kelp", 200),
                                 ("smelting", "dried_kelp", 1, {("kelp",): 1}, FUEL_PER_SMELT, 200)),
    "dried_kelp_from_smoking": (cooking("smoking", item("kelp"), "dried_kelp", 100),
                                ("smoking", "dried_kelp", 1, {("kelp",): 1}, FUEL_PER_SMELT, 100)),
    "dried_kelp_from_campfire_cooking": (cooking("campfire_cooking", item("kelp"), "dried_kelp", 600),
                                         ("campfire_cooking", "dried_kelp", 1, {("kelp",): 1}, 0, 600)),
    "cobblestone_slab_from_cobblestone_stonecutting": (
        {"type": "minecraft:stonecutting", "count": 2, "ingredient": item("cobblestone"),
         "result": "minecraft:cobblestone_slab"},
        ("stonecutting", "cobblestone_slab", 2, {("cobblestone",): 1}, 0, None)),
    "cobblestone_slab": (shaped(["###"], {"#": item("cobblestone")}, "cobblestone_slab", 6),
                         ("crafting_shaped", "cobblestone_slab", 6, {("cobblestone",): 3}, 0, None)),
    "white_wool_from_string": (shaped(["##", "##"], {"#": item("string")}, "white_wool"),
                               ("crafting_shaped", "white_wool", 1, {("string",): 4}, 0, None)),
    "red_carpet": (shaped(["##"], {"#": item("red_wool")}, "red_carpet", 3),
                   ("crafting_shaped", "red_carpet", 3, {("red_wool",): 2}, 0, None)),
    "oak_boat": (shaped(["# #", "###"], {"#": item("oak_planks")}, "oak_boat"),
                 ("crafting_shaped", "oak_boat", 1, {("oak_planks",): 5}, 0, None)),
    "netherite_sword_smithing": (
        {"type": "minecraft:smithing_transform", "addition": item("netherite_ingot"), "base": item("diamond_sword"),
         "result": item("netherite_sword"), "template": item("netherite_upgrade_smithing_template")},
        ("smithing_transform", "netherite_sword", 1, {("netherite_upgrade_smithing_template",): 1,
                                                      ("diamond_sword",): 1, ("netherite_ingot",): 1}, 0, None)),
}

# types the game does not use: skipped and counted, never a failure
SKIPPED = {
    "coast_armor_trim_smithing_template_smithing_trim": {
        "type": "minecraft:smithing_trim", "addition": tag("trim_materials"), "base": tag("trimmable_armor"),
        "template": item("coast_armor_trim_smithing_template")},
    "armor_dye": {"type": "minecraft:crafting_special_armordye", "category": "misc"},
    "banner_duplicate": {"type": "minecraft:crafting_special_bannerduplicate", "category": "misc"},
    "map_cloning": {"type": "minecraft:crafting_special_mapcloning", "category": "misc"},
    "decorated_pot": {"type": "minecraft:crafting_decorated_pot", "category": "misc"},
}


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


@pytest.fixture
def authors_set(tmp_path):
    root = tmp_path / "minecraft"
    for name, (data, _) in RECIPES.items():
        write(root / "recipes" / f"{name}.json", data)
    for name, data in SKIPPED.items():
        write(root / "recipes" / f"{name}.json", data)
    for name, values in TAGS.items():
        write(root / "tags" / "items" / f"{name}.json", {"values": values})
    write(root / "tags" / "items" / "fuel.json", FUEL)
    write(root / "tags" / "_custom" / "non_white_wool.json", {"values": ["minecraft:black_wool"]})
    for name, values in BLOCK_TAGS.items():
        write(root / "tags" / "blocks" / f"{name}.json", {"values": values})
    return root


def test_the_authors_layout_loads_every_recipe_as_written(authors_set):
    rules = load_ruleset(authors_set)
    assert set(rules.recipes) == {MC + name for name in RECIPES}
    for name, (_, (kind, result, count, ingredients, fuel, cooking_time)) in RECIPES.items():
        recipe = rules.recipes[MC + name]
        got = {tuple(o.removeprefix(MC) for o in ing.options): ing.amount for ing in recipe.ingredients}
        assert (recipe.type, recipe.result, recipe.count, got, recipe.fuel, recipe.cooking_time) == \
            (kind, MC + result, count, ingredients, fuel, cooking_time), name


def test_unused_recipe_types_are_skipped_with_a_summary(authors_set, capsys):
    rules = load_ruleset(authors_set)
    assert rules.skipped == {"smithing_trim": 1, "crafting_special_armordye": 1,
                             "crafting_special_bannerduplicate": 1, "crafting_special_mapcloning": 1,
                             "crafting_decorated_pot": 1}
    assert main(["tradecraft", "rules", "--rules", str(authors_set)]) == 0
    out = capsys.readouterr().out
    assert f"{len(RECIPES)} recipes" in out
    assert "skipped 5 recipe(s) of types the game does not use" in out and "smithing_trim 1" in out
    assert "fuel values from tags/items/fuel.json" in out
    assert "trapped_chest (3/16 then 3/4)" in out  # the duplicate is named, the last value kept


def test_the_authors_fuel_list_replaces_the_builtin_table(authors_set):
    rules = load_ruleset(authors_set)
    assert rules.fuels == {MC + k: v for k, v in FUEL_EXPECTED.items()}
    assert "minecraft:lava_bucket" not in rules.fuels  # in the built-in table, not in theirs
    assert rules.fuel_source.startswith("tags/items/fuel.json")
    # the tags still work as tags, the authors' extra tag folder too
    assert rules.tags["minecraft:coals"] == ("minecraft:coal", "minecraft:charcoal")
    assert rules.tags["minecraft:non_white_wool"] == ("minecraft:black_wool",)
    assert "minecraft:dried_kelp_block" in rules.tags["minecraft:fuel"]


def test_smelting_with_the_authors_fuel_values(authors_set):
    from sim.tradecraft.crafting import Craft, check_craft

    rules = load_ruleset(authors_set)
    hand = {MC + "raw_iron": F(2), MC + "oak_planks": F(1), MC + "stick": F(2)}
    check = check_craft(rules, hand, Craft.make(MC + "iron_ingot_from_smelting_raw_iron", 1, fuel=MC + "oak_planks"))
    assert check.ok and dict(check.consumed)[MC + "oak_planks"] == F(2, 3)  # 2/3 plank per smelt
    check = check_craft(rules, hand, Craft.make(MC + "iron_ingot_from_smelting_raw_iron", 1, fuel=MC + "stick"))
    assert check.ok and dict(check.consumed)[MC + "stick"] == 2  # 2 sticks per smelt


@pytest.mark.parametrize("entry, shown", [
    ({"valu": "minecraft:coal", "count": 2}, '{"valu": "minecraft:coal", "count": 2}'),
    ({"value": 7}, '{"value": 7}'),
    (None, "null"),
])
def test_a_bad_fuel_entry_is_named_as_written(authors_set, entry, shown):
    write(authors_set / "tags" / "items" / "fuel.json", {"values": ["#minecraft:coals", entry]})
    with pytest.raises(RuleSetError) as err:
        load_ruleset(authors_set)
    message = str(err.value)
    assert "fuel.json: values[1]:" in message and message.endswith(f"got {shown}")


def test_a_bad_fuel_count_names_the_field(authors_set):
    write(authors_set / "tags" / "items" / "fuel.json", {"values": [{"value": "minecraft:stick", "count": 0}]})
    with pytest.raises(RuleSetError, match=r"fuel.json: values\[0\]: field 'count': expected a positive number, got 0"):
        load_ruleset(authors_set)


def test_the_cache_sees_an_edited_file(authors_set):
    assert load_ruleset(authors_set).fuel_value(MC + "stick") == F(1, 16)
    path = authors_set / "tags" / "items" / "fuel.json"
    edited = {"values": [{"value": "minecraft:stick", "count": 8}]}
    before = os.stat(path)
    write(path, edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))  # a later time, same folder times
    assert load_ruleset(authors_set).fuel_value(MC + "stick") == F(1, 8)
    recipe = authors_set / "recipes" / "shears.json"
    write(recipe, shaped(["#"], {"#": item("iron_ingot")}, "shears"))
    os.utime(recipe, ns=(time.time_ns(), time.time_ns() + 2_000_000))
    assert load_ruleset(authors_set).recipes[MC + "shears"].ingredients[0].amount == 1


def test_block_tags_are_read_by_name_where_no_item_tag_exists(authors_set):
    rules = load_ruleset(authors_set)
    assert rules.tags["minecraft:beehives"] == ("minecraft:beehive", "minecraft:bee_nest")
    assert rules.tags["minecraft:all_signs"] == ("minecraft:oak_sign", "minecraft:oak_wall_sign",
                                                 "minecraft:oak_hanging_sign")
    assert "minecraft:mangrove_planks" not in rules.tags["minecraft:planks"]  # the item tag wins
    assert "minecraft:axe_only" not in rules.tags and "minecraft:note_block" not in rules.items
    note = next(n for n in rules.notes if "tags/blocks" in n)
    assert "6 tag(s)" in note and "#minecraft:beehives" in note


def test_a_tag_missing_from_every_folder_is_still_refused(authors_set):
    (authors_set / "tags" / "blocks" / "beehives.json").unlink()
    with pytest.raises(RuleSetError, match=r"fuel.json: values\[15\]: tag #minecraft:beehives is not defined"):
        load_ruleset(authors_set)


def test_one_slot_filled_by_two_members_of_its_tag(authors_set):
    """The original server lets 4 oak and 4 cherry planks make a chest; so do the rules under
    ``crafting original``, as an explicit mix, automatically, in the server's {input, output}
    form, in the possible-recipes tool and in the planner."""
    from sim.tradecraft.crafting import Craft, apply_craft, check_craft, craft_from_dict, possible_recipes
    from sim.tradecraft.solver import RecipeGraph, plan_crafts
    from sim.tradecraft.tools import possible_recipes_from_hands

    rules = load_ruleset(authors_set)
    hand = {MC + "oak_planks": F(4), MC + "cherry_planks": F(4)}
    mixed = craft_from_dict(rules, {"recipe": "chest", "choices": {"#": {"oak_planks": 4, "cherry_planks": 4}}})
    assert mixed.mixes == (("#", ((MC + "cherry_planks", F(4)), (MC + "oak_planks", F(4)))),)
    for crafting in ("original", "fractional"):
        assert apply_craft(rules, hand, mixed, crafting) == {MC + "chest": F(1)}
    auto = check_craft(rules, hand, Craft.make(MC + "chest"), "original")
    assert auto.ok and auto.craft.mixes == mixed.mixes
    assert not check_craft(rules, hand, Craft.make(MC + "chest"), "fractional").ok  # one item per slot there
    server = craft_from_dict(rules, {"input": {"minecraft:oak_planks": 4, "minecraft:cherry_planks": 4.0},
                                     "output": {"minecraft:chest": 1}})
    assert server.recipe == MC + "chest" and server.mixes == mixed.mixes
    bad = check_craft(rules, hand, Craft.make(MC + "chest", 1, {"#": {MC + "oak_planks": 4, MC + "cherry_planks": 3}}))
    assert not bad.ok and "adds up to 7 per run; the slot takes 8" in bad.reason
    listed = {r.id: (t, c) for r, t, c in possible_recipes(rules, hand, "original")}
    assert listed[MC + "chest"][0] == 1 and listed[MC + "chest"][1].mixes == mixed.mixes
    assert '"#": {"minecraft:cherry_planks": "4", "minecraft:oak_planks": "4"}' in \
        possible_recipes_from_hands(rules, hand, "original")
    assert plan_crafts(RecipeGraph(rules), hand, MC + "chest", 1, "original") == [mixed]


def test_the_server_craft_message_and_a_log_burnt_as_input_and_fuel(authors_set):
    from sim.tradecraft.crafting import Craft, CraftError, check_craft, craft_from_dict

    rules = load_ruleset(authors_set)
    smelt = craft_from_dict(rules, {"input": {"coal": 0.125, "raw_iron": 1}, "output": {"iron_ingot": 1}})
    assert smelt.fuel == MC + "coal" and smelt.times == 1 and "smelting" in smelt.recipe + "smelting"
    both = craft_from_dict(rules, {"input": {"oak_log": "5/3"}, "output": {"charcoal": 1}})
    assert (both.recipe, both.choices, both.fuel) == (MC + "charcoal", (("ingredient", MC + "oak_log"),), MC + "oak_log")
    assert check_craft(rules, {MC + "oak_log": F(2)}, both, "original").consumed == ((MC + "oak_log", F(5, 3)),)
    refused = check_craft(rules, {MC + "oak_log": F(1)}, Craft.make(MC + "charcoal"), "original")
    assert "oak_log burns but all 1 of it is used as input (input and fuel together need 5/3)" in refused.reason
    with pytest.raises(CraftError, match=r"no recipe makes chest \* 1 from exactly oak_planks \* 4"):
        craft_from_dict(rules, {"input": {"oak_planks": 4}, "output": {"chest": 1}})
    with pytest.raises(CraftError, match="unknown field"):
        craft_from_dict(rules, {"input": {"oak_planks": 8}, "output": {"chest": 1}, "times": 1})
