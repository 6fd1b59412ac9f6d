"""The agent tools and the text interface: item_info, possible_recipes_from_hands, observation text."""

from fractions import Fraction

import pytest

from sim.registry import load_scenario, load_spec, scenario_paths
from sim.tradecraft.crafting import possible_recipes, possible_recipes_scan
from sim.tradecraft.instance import rules_folder
from sim.tradecraft.rules import load_ruleset
from sim.tradecraft.tools import TradeCraftTools, item_info, possible_recipes_from_hands


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(rules_folder("minecraft"))


def test_item_info_lists_recipes_both_ways_with_tags_resolved(rules):
    text = item_info(rules, "stick")
    assert text.startswith("item: stick (minecraft:stick)")
    assert "made by 2 recipes:" in text
    assert "tag:minecraft:planks (oak_planks|spruce_planks" in text
    assert "-> {stick * 4}" in text
    assert "used in" in text and "minecraft:torch [shaped]: {coal|charcoal * 1, stick * 1} -> {torch * 4}" in text
    assert "fuel: 1/16 coal-equivalent per item (2 of it smelts one item)" in text


def test_item_info_for_smelting_and_raw_items(rules):
    text = item_info(rules, "iron_ingot")
    assert "[smelting, 200 ticks]: {raw_iron * 1, fuel * 1/8} -> {iron_ingot * 1}" in text
    assert "made by: no recipe (a raw item: get it by trading)" in item_info(rules, "flint")
    assert "did you mean" in item_info(rules, "plank")


def test_possible_recipes_from_hands_text(rules):
    text = possible_recipes_from_hands(rules, {"minecraft:oak_planks": 2, "minecraft:coal": 1})
    assert text.startswith("possible recipes from your hand (")
    assert "up to x1: minecraft:stick [shaped]" in text
    assert 'craft: {"recipe": "minecraft:stick", "times": "1", "choices": {"#": "minecraft:oak_planks"}}' in text
    assert possible_recipes_from_hands(rules, {}) == "possible recipes from your hand: none"


def test_indexed_search_matches_a_full_scan(rules):
    for path in [p for p in scenario_paths() if "tradecraft" in p.parts and "minecraft" in p.parent.name][:20]:
        _, spec = load_spec(path)
        for hand in spec["hands"]:
            h = {i: Fraction(n) for i, n in hand.items()}
            fast = [(r.id, t) for r, t, _ in possible_recipes(rules, h)]
            slow = [(r.id, t) for r, t, _ in possible_recipes_scan(rules, h)]
            assert fast == slow


def test_tool_dispatch_and_check_craft(rules):
    tools = TradeCraftTools(rules)
    hand = {"minecraft:oak_planks": Fraction(1)}
    assert tools.call("check_craft", {"recipe": "stick", "times": "1/4"}, hand) == \
        "ok: uses oak_planks * 1/2 -> makes stick * 1"
    assert "cannot craft" in tools.call("check_craft", {"recipe": "stick", "times": "1"}, hand)
    assert tools.call("nope", {}, hand).startswith("unknown tool")


def test_observation_text_names_target_hands_and_action_format():
    world, _ = load_scenario("mc1v1-01")
    s = world.reset(0)
    text = world.describe_observation(world.observe(s, "alice"))
    target = next(iter(world.target_of("alice")))
    assert f"Your secret target: {world.rules.display(target)} * 1." in text
    assert "Public hands:" in text and "bob:" in text
    assert 'Answer with one JSON action: {"type": "propose"' in text
    other = world.describe_observation(world.observe(s, "bob"))
    assert world.rules.display(target) + " * 1." not in other.split("Your secret target:")[1].split("\n")[0] or \
        world.target_of("alice") == world.target_of("bob")


def test_terminal_seat_reads_commands_and_explains_refusals():
    from agents.registry import make_agent
    from agents.tradecraft.terminal import TerminalTrader
    from sim.session import Session

    lines = iter(["info torch", "propose bob offer coal=5 request flint=1", "pass", "done"])
    shown: list[str] = []
    world, name = load_scenario("mc1v1-03")
    seat = TerminalTrader(read=lambda prompt: next(lines), write=shown.append)
    session = Session(world, {"alice": seat, "bob": make_agent("trader", "tradecraft")}, seed=0, max_ticks=2)
    session.run()
    text = "\n".join(shown)
    assert "You are alice" in text and "item: torch" in text
    assert "not allowed: offer: alice holds 0 coal, not 5" in text
    assert session.state.history[0].proposal is None  # alice passed, then finished crafting
