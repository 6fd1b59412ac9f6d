"""Crafting with exact fractions: shaped, shapeless, tags, smelting with fuel, fractions, flooring."""

from fractions import Fraction as F

import pytest

from sim.tradecraft.crafting import Craft, CraftError, apply_craft, check_craft, floor_hand, max_times
from sim.tradecraft.instance import rules_folder
from sim.tradecraft.rules import load_ruleset
from sim.tradecraft.solver import RecipeGraph, plan_crafts


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(rules_folder("minecraft"))


def hand(rules, **items):
    return {rules.resolve(k): F(v) for k, v in items.items()}


def short(rules, h):
    return {rules.display(k): v for k, v in h.items()}


def test_shaped_craft_uses_the_pattern_counts(rules):
    after = apply_craft(rules, hand(rules, iron_ingot=3), Craft.make("minecraft:shears"))
    assert short(rules, after) == {"iron_ingot": 1, "shears": 1}
    with pytest.raises(CraftError, match="needs iron_ingot \\* 2, the hand has 1"):
        apply_craft(rules, hand(rules, iron_ingot=1), Craft.make("minecraft:shears"))


def test_shapeless_craft_uses_each_ingredient(rules):
    after = apply_craft(rules, hand(rules, iron_ingot=1, flint=2), Craft.make("minecraft:flint_and_steel"))
    assert short(rules, after) == {"flint": 1, "flint_and_steel": 1}


def test_tag_slot_takes_the_chosen_member(rules):
    h = hand(rules, oak_planks=2, birch_planks=2)
    after = apply_craft(rules, h, Craft.make("minecraft:stick", 1, {"#": "minecraft:birch_planks"}))
    assert short(rules, after) == {"oak_planks": 2, "stick": 4}
    bad = check_craft(rules, h, Craft.make("minecraft:stick", 1, {"#": "minecraft:stone"}))
    assert not bad.ok and "does not fit slot '#'" in bad.reason
    auto = check_craft(rules, hand(rules, oak_planks=1, birch_planks=3), Craft.make("minecraft:stick"))
    assert auto.ok and dict(auto.craft.choices) == {"#": "minecraft:birch_planks"}


def test_smelting_burns_an_eighth_coal_per_item(rules):
    h = hand(rules, raw_iron=2, coal=1)
    after = apply_craft(rules, h, Craft.make("minecraft:iron_ingot_from_smelting_raw_iron", 2,
                                             fuel="minecraft:coal"))
    assert short(rules, after) == {"coal": F(3, 4), "iron_ingot": 2}


@pytest.mark.parametrize("fuel, used", [("oak_planks", F(2, 3)), ("stick", F(2)), ("coal_block", F(1, 80)),
                                        ("oak_log", F(2, 3))])
def test_fuel_values_per_item(rules, fuel, used):
    h = hand(rules, raw_iron=1, **{fuel: 3})
    after = apply_craft(rules, h, Craft.make("minecraft:iron_ingot_from_smelting_raw_iron", 1,
                                             fuel=rules.resolve(fuel)))
    assert after[rules.resolve(fuel)] == 3 - used


def test_smelting_without_fuel_is_refused_and_campfire_needs_none(rules):
    result = check_craft(rules, hand(rules, raw_iron=1, diamond=1),
                         Craft.make("minecraft:iron_ingot_from_smelting_raw_iron"))
    assert not result.ok and "needs fuel" in result.reason
    after = apply_craft(rules, hand(rules, beef=1), Craft.make("minecraft:cooked_beef_from_campfire_cooking"))
    assert short(rules, after) == {"cooked_beef": 1}


def test_fractional_crafts_and_flooring_the_reference_example(rules):
    # from {raw_iron 2, coal 1, oak_planks 1}: smelt one raw_iron with 1/8 coal, and one stick from
    # 1/2 plank (the 2 planks -> 4 sticks recipe at 1/4 scale); at craft-done 7/8 coal and 1/2 plank are lost
    h = hand(rules, raw_iron=2, coal=1, oak_planks=1)
    h = apply_craft(rules, h, Craft.make("minecraft:iron_ingot_from_smelting_raw_iron", 1, fuel="minecraft:coal"))
    h = apply_craft(rules, h, Craft.make("minecraft:stick", "1/4", {"#": "minecraft:oak_planks"}))
    assert short(rules, h) == {"raw_iron": 1, "coal": F(7, 8), "oak_planks": F(1, 2), "iron_ingot": 1, "stick": 1}
    assert short(rules, floor_hand(h)) == {"raw_iron": 1, "iron_ingot": 1, "stick": 1}


def test_max_times_shares_an_item_between_slot_and_fuel(rules):
    # charcoal from logs while burning logs: each charcoal costs 1 log + 2/3 log of fuel
    times, craft = max_times(rules, hand(rules, oak_log=5), rules.recipes["minecraft:charcoal"])
    assert times == F(5) / (1 + F(2, 3)) and craft.fuel == "minecraft:oak_log"


def test_exact_plan_mixes_tag_members_across_partial_crafts(rules):
    graph = RecipeGraph(rules)
    start = hand(rules, oak_planks=1, birch_planks=1)
    crafts = plan_crafts(graph, start, "minecraft:bowl", 2)  # 3 planks -> 4 bowls; 2 bowls need 3/2 planks
    assert crafts is not None and len(crafts) == 2
    h = start
    for c in crafts:
        h = apply_craft(rules, h, c)
    assert h["minecraft:bowl"] == 2 and sum(v for k, v in h.items() if k.endswith("planks")) == F(1, 2)


def test_exact_plan_through_smelting_and_several_steps(rules):
    graph = RecipeGraph(rules)
    start = hand(rules, raw_iron=6, cobblestone=2, redstone=1, oak_planks=2)
    crafts = plan_crafts(graph, start, "minecraft:detector_rail")
    h = start
    for c in crafts:
        h = apply_craft(rules, h, c)
    assert floor_hand(h)["minecraft:detector_rail"] == 1
    assert plan_crafts(graph, hand(rules, raw_iron=6, cobblestone=2, oak_planks=2), "minecraft:detector_rail") is None
