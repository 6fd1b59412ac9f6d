"""Rule options: the paper's reading (default) and the original TradeCraft server's (named alternative).

crafting (fractional | original), rejections (hidden | announced), recipe_list (any_scale |
full_scale); the decision message that only the proposer reads; item_info's length.
"""

import copy
from fractions import Fraction as F

import pytest

from agents.registry import make_agent
from sim.registry import load_scenario
from sim.session import Session
from sim.tradecraft.crafting import Craft, check_craft, legal_scale, possible_recipes
from sim.tradecraft.instance import rules_folder, validate_instance
from sim.tradecraft.rules import load_ruleset
from sim.tradecraft.tools import TradeCraftTools, item_info, possible_recipes_from_hands
from sim.tradecraft.world import TradeCraftWorld
from sim.world import IllegalAction

MC = "minecraft:"


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(rules_folder("minecraft"))


def world_of(options=None, players=3):
    hands = [{"coal": 1, "oak_planks": 1}, {"flint": 1, "stick": 2}, {"raw_iron": 1, "bamboo": 2}][:players]
    targets = [{"torch": 1}, {"iron_ingot": 1}, {"flint_and_steel": 1}][:players]
    spec = validate_instance({"world": "tradecraft", "name": "opts", "rules": "minecraft", "hands": hands,
                              "targets": targets, "options": dict(options or {})}, "test")
    return TradeCraftWorld(spec)


def step(world, state, joint):
    return world.step(state, joint).state


# ------------------------------------------------------------------ crafting scale

@pytest.mark.parametrize("recipe, times, fractional, original", [
    ("torch", F(1, 4), True, False),      # 1/4 coal + 1/4 stick -> 1 torch: refused by the original
    ("stick", F(1, 4), True, True),       # 1/2 plank -> 1 stick: accepted (2 bamboo -> 1 stick exists)
    ("stick", F(1, 8), True, False),      # 1/4 plank -> 1/2 stick: fractional output
    ("torch", F(1, 8), True, False),
    ("torch", F(1), True, True),          # whole runs are always fine
    ("stick", F(1, 2), True, True),       # 1 plank -> 2 sticks: bamboo makes 2 sticks in 2 runs
    ("iron_ingot_from_smelting_raw_iron", F(1, 2), True, False),  # 1/2 ingot
])
def test_crafting_scale_under_both_rules(rules, recipe, times, fractional, original):
    hand = {MC + "coal": F(1), MC + "stick": F(1), MC + "oak_planks": F(1), MC + "raw_iron": F(1)}
    craft = Craft.make(MC + recipe, times)
    assert check_craft(rules, hand, craft).ok is fractional
    check = check_craft(rules, hand, craft, "original")
    assert check.ok is original
    if not original:
        assert "original crafting rule" in check.reason


def test_the_original_rule_in_the_world_says_why(rules):
    world = world_of({"crafting": "original"})
    s = step(world, world.reset(0), {"alice": {"type": "pass"}})
    quarter = {"type": "craft", "crafts": [{"recipe": "torch", "times": "1/4"}], "done": True}
    reason = world.why_illegal(s, "alice", quarter)
    assert reason.startswith("crafts[0]: torch: x1/4 is a fractional run; under the original crafting rule")
    assert world_of().why_illegal(world_of().reset(0), "alice", quarter)  # not alice's craft phase yet
    stick = {"type": "craft", "crafts": [{"recipe": "stick", "times": "1/4"}], "done": True}
    assert world.why_illegal(s, "alice", stick) is None
    assert legal_scale(rules, rules.recipes[MC + "torch"], F(1, 4), "original") == 1
    assert legal_scale(rules, rules.recipes[MC + "stick"], F(1, 16), "original") == F(1, 4)


def test_planner_traders_craft_legally_under_the_original_rule():
    world, name = load_scenario("mc1v1-07")
    spec = copy.deepcopy(world.spec())
    spec["options"]["crafting"] = "original"
    spec["options"]["recipe_list"] = "full_scale"
    strict = TradeCraftWorld(spec)
    session = Session(strict, {a: make_agent("trader", "tradecraft") for a in strict.agents}, seed=0, scenario=name)
    outcome = session.run()
    errors = [e for e in session.events if type(e).__name__ == "ErrorEvent"]
    assert not errors, errors[:2]
    crafts = [c for e in session.events if type(e).__name__ == "StepEvent" for we in e.world_events
              if we["kind"] == "craft" for c in we["data"]["crafts"]]
    assert crafts and outcome["winners"]  # a lever from 1/2 plank -> 1 stick, whole items only
    for c in crafts:
        recipe = strict.rules.recipes[c["recipe"]]
        assert (F(c["times"]) * recipe.count).denominator == 1


def test_instances_are_checked_under_their_crafting_rule():
    # one coal and one stick make 4 torches at x1; with 1/4 coal + 1/4 stick only fractional crafting works
    base = {"world": "tradecraft", "name": "t", "hands": [{"coal": 1, "stick": 1}], "targets": [{"torch": 1}]}
    assert validate_instance(base, "t")["options"]["crafting"] == "fractional"
    assert validate_instance({**base, "options": {"crafting": "original"}}, "t")
    with pytest.raises(Exception, match="crafting.*'fractional' or 'original'"):
        validate_instance({**base, "options": {"crafting": "exact"}}, "t")


# ------------------------------------------------------------------ rejections and messages

def rejected_game(options=None):
    world = world_of(options)
    s = step(world, world.reset(0), {"alice": {"type": "propose", "to": "bob", "offer": {"coal": 1},
                                               "request": {"flint": 1}, "message": "deal?"}})
    s = step(world, s, {"bob": {"type": "reject", "message": "I need my flint"}})
    during = s
    s = step(world, s, {a: {"type": "done"} for a in world.agents})
    return world, during, s


def test_a_rejection_is_invisible_to_the_third_player_by_default():
    world, during, s = rejected_game()
    carol = world.observe(s, "carol")
    view = carol.history[0]
    assert view.hidden and view.to is None and view.offer is None and view.accepted is None
    text = world.describe_observation(carol)
    assert "alice's turn ended without a trade" in text
    assert "bob" not in text.split("Trade history:")[1]  # the partner is not revealed
    assert "deal?" not in text and "flint" not in text.split("Trade history:")[1]
    # a pass looks exactly the same to a third player
    w2 = world_of()
    s2 = step(w2, w2.reset(0), {"alice": {"type": "pass"}})
    s2 = step(w2, s2, {a: {"type": "done"} for a in w2.agents})
    assert w2.observe(s2, "carol").history[0] == view
    # during the craft phase too
    assert world.observe(during, "carol").current == view


def test_the_announced_option_tells_others_only_that_it_was_rejected():
    world, _, s = rejected_game({"rejections": "announced"})
    view = world.observe(s, "carol").history[0]
    assert view.hidden and view.to is None and view.accepted is False and view.message is None
    text = world.describe_observation(world.observe(s, "carol"))
    assert "alice's proposal was rejected (partner and contents hidden)" in text
    assert "bob" not in text.split("Trade history:")[1]


def test_the_decision_message_reaches_the_proposer_only():
    world, during, s = rejected_game()
    assert world.observe(during, "alice").current.reply == "I need my flint"
    assert "private reply from bob: \"I need my flint\"" in world.describe_observation(world.observe(during, "alice"))
    for viewer in ("alice", "bob"):
        assert world.observe(s, viewer).history[0].reply == "I need my flint"
    assert "I need my flint" not in world.describe_observation(world.observe(s, "carol"))
    assert world.encode_action(world.decode_action({"type": "accept", "message": "ok"})) == \
        {"type": "accept", "message": "ok"}
    with pytest.raises(IllegalAction, match="reject: field 'message' must be text"):
        world.decode_action({"type": "reject", "message": 5})


# ------------------------------------------------------------------ tool output

def test_recipe_list_full_scale_lists_only_recipes_run_in_full(rules):
    hand = {MC + "oak_planks": 1, MC + "coal": 1, MC + "raw_iron": 2, MC + "stick": 1}
    any_scale = possible_recipes_from_hands(rules, hand)
    full = possible_recipes_from_hands(rules, hand, recipe_list="full_scale")
    assert "minecraft:torch [shaped]" in full  # 1 coal + 1 stick: a full run
    assert "minecraft:stick [shaped]" not in full and "minecraft:stick [shaped]" in any_scale  # 1 of 2 planks
    for line in full.splitlines():
        if line.lstrip().startswith("up to x"):
            assert F(line.split("up to x")[1].split(":")[0]) >= 1, line
    # the default lists nothing that makes less than one item
    for recipe, times, _ in possible_recipes(rules, {k: F(v) for k, v in hand.items()}):
        assert (f"{recipe.id} [" in any_scale) == (times * recipe.count >= 1)
    tools = TradeCraftTools.for_world(world_of({"recipe_list": "full_scale", "crafting": "original"}))
    assert tools.possible_recipes_from_hands(hand) == possible_recipes_from_hands(rules, hand, "original",
                                                                                 "full_scale")


def test_item_info_stays_short(rules):
    text = item_info(rules, "stick")
    assert len(text) <= 2500
    assert "minecraft:torch [shaped]: {coal|charcoal * 1, stick * 1} -> {torch * 4}" in text
    assert "and 9 like it: birch_fence" in text  # the fences of every wood share a line
    assert max(len(item_info(rules, i)) for i in rules.items) <= 2500
