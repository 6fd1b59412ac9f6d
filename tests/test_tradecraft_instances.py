"""Instances: validation with reasons, the shipped sets, the generator and its difficulty measures."""

import json
from fractions import Fraction

import pytest

from sim.registry import ScenarioError, load_spec, scenario_paths
from sim.tradecraft.generator import GeneratorConfig, generate
from sim.tradecraft.instance import difficulty, load_paper_instances, rules_folder, validate_instance
from sim.tradecraft.rules import load_ruleset
from sim.tradecraft.solver import plan_crafts
from sim.tradecraft.world import graph_for


def inst(**changes):
    data = {"world": "tradecraft", "name": "x", "rules": "minecraft",
            "hands": [{"raw_iron": 2, "coal": 1}, {"oak_planks": 1, "coal": 1}],
            "targets": [{"shears": 1}, {"torch": 1}]}
    data.update(changes)
    return data


def test_a_valid_instance_is_normalized():
    spec = validate_instance(inst(), "x.json")
    assert spec["players"] == ["alice", "bob"]
    assert spec["hands"][0] == {"minecraft:coal": 1, "minecraft:raw_iron": 2}
    assert spec["options"] == {"max_turns": 15, "ties": "share", "stop": "first", "max_craft_steps": 32,
                               "crafting": "fractional", "rejections": "hidden", "recipe_list": "any_scale"}


@pytest.mark.parametrize("changes, message", [
    ({"hands": [{"unobtainium": 1}, {}]}, "field 'hands[0]': unknown item 'unobtainium'"),
    ({"hands": [{"coal": 1.5}, {}]}, "field 'hands[0].coal': expected a whole amount"),
    ({"hands": [{"coal": 0}, {}]}, "expected a whole amount of at least 1"),
    ({"targets": [{"shears": 1}, {"torch": 1}, {"bucket": 1}]}, "one entry per player"),
    ({"targets": [{"coal": 1}, {"torch": 1}]}, "holds its target from the start"),
    ({"targets": [{"diamond_hoe": 1}, {"torch": 1}]}, "cannot be crafted from the union of all initial hands"),
    ({"targets": [{"shears": 2}, {"torch": 1}]}, "not in the amounts needed"),
    ({"rules": "nosuchset"}, "field 'rules': no rule set 'nosuchset'"),
    ({"players": ["alice", "alice"]}, "names must differ"),
    ({"options": {"max_turns": 0}}, "field 'options.max_turns'"),
])
def test_invalid_instances_are_refused_with_the_reason(changes, message):
    with pytest.raises(ScenarioError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]").replace(".", r"\.")):
        validate_instance(inst(**changes), "x.json")


def test_infeasible_target_names_what_is_missing():
    with pytest.raises(ScenarioError, match="nothing leads to .*diamond"):
        validate_instance(inst(targets=[{"diamond_hoe": 1}, {"torch": 1}]), "x.json")


def test_shipped_instance_sets():
    paths = [p for p in scenario_paths() if "tradecraft" in p.parts]
    sets: dict[str, list] = {}
    for p in paths:
        family, spec = load_spec(p)
        assert family == "tradecraft"
        sets.setdefault(p.parent.name, []).append(spec)
    assert len(sets["minecraft-1v1"]) >= 40
    assert len(sets["minecraft-3p"]) >= 10 and all(len(s["players"]) == 3 for s in sets["minecraft-3p"])
    assert len(sets["alchemy-1v1"]) >= 5
    lengths = {s["difficulty"]["chain_length"] for s in sets["minecraft-1v1"]}
    assert len(lengths) >= 4  # a range of difficulty
    assert {s["difficulty"]["min_trades"] for s in sets["minecraft-3p"]} >= {1, 2}


def test_shipped_instances_need_trades_and_are_feasible_for_each_target():
    rules = load_ruleset(rules_folder("minecraft"))
    graph = graph_for(rules)
    for p in [p for p in scenario_paths() if p.parent.name == "minecraft-1v1"][:12]:
        _, spec = load_spec(p)
        union: dict = {}
        for h in spec["hands"]:
            for i, n in h.items():
                union[i] = union.get(i, 0) + Fraction(n)
        for hand, target in zip(spec["hands"], spec["targets"]):
            item = next(iter(target))
            assert plan_crafts(graph, {i: Fraction(n) for i, n in hand.items()}, item) is None
            assert plan_crafts(graph, union, item) is not None


def test_generator_output_is_valid_and_its_difficulty_is_recomputable():
    specs = generate(GeneratorConfig(count=4, seed=11, prefix="t"))
    assert [s["name"] for s in specs] == ["t-01", "t-02", "t-03", "t-04"]
    rules = load_ruleset(rules_folder("minecraft"))
    graph = graph_for(rules)
    for spec in specs:
        normalized = validate_instance(spec, "generated")  # valid
        recomputed = difficulty(rules, normalized["hands"], normalized["targets"])
        assert recomputed == spec["difficulty"]
        for p, (hand, target) in enumerate(zip(normalized["hands"], normalized["targets"])):
            item = next(iter(target))
            assert plan_crafts(graph, {i: Fraction(n) for i, n in hand.items()}, item) is None, "must trade"
            assert spec["difficulty"]["players"][p]["min_trades"] >= 1
            assert spec["difficulty"]["players"][p]["chain_length"] >= 1
    assert generate(GeneratorConfig(count=4, seed=11, prefix="t")) == specs  # deterministic


def test_difficulty_measures_on_a_known_instance():
    rules = load_ruleset(rules_folder("minecraft"))
    d = difficulty(rules, [{"minecraft:raw_iron": 1, "minecraft:coal": 1}, {"minecraft:iron_ingot": 1}],
                   [{"minecraft:shears": 1}, {"minecraft:iron_nugget": 1}])
    alice = d["players"][0]
    assert alice["chain_length"] == 2 and alice["chain_depth"] == 2  # smelt the raw iron, then shears
    assert alice["min_trades"] == 1 and alice["min_trade_items"] == 1 and alice["min_trade_types"] == 1
    bob = d["players"][1]
    assert bob["chain_length"] == 1 and bob["min_trades"] == 0  # bob makes nuggets from his own ingot


def test_paper_format_instances_import(tmp_path):
    paper = [{"hands": [{"minecraft:cherry_planks": 1, "minecraft:coal": 1, "minecraft:iron_ingot": 1,
                         "minecraft:raw_copper": 1, "minecraft:cobblestone": 1},
                        {"minecraft:oak_planks": 1, "minecraft:raw_iron": 5, "minecraft:cobblestone": 1,
                         "minecraft:raw_copper": 2}],
              "targets": [{"minecraft:shears": 1}, {"minecraft:torch": 1}]}]
    path = tmp_path / "problem.json"
    path.write_text(json.dumps(paper))
    specs = load_paper_instances(path)
    assert len(specs) == 1 and specs[0]["name"] == "problem-01"
    assert specs[0]["targets"] == [{"minecraft:shears": 1}, {"minecraft:torch": 1}]
