"""The goal-less helper in Doors, Keys and Gems plans with the others' needs and is never slower
than the human alone: over every two-agent problem the project ships or imports in its tests
(bench/bench_dkg_helper.py lists them), with planner agents."""

from __future__ import annotations

import pytest

from agents.dkg.agents import GREEDY, STAY, choose_help, planner_for, rollout
from bench.bench_dkg_helper import helper_problems, play
from sim.dkg.reference import load_reference
from sim.dkg.world import DKGWorld

PROBLEMS = helper_problems()


def test_the_problem_set_holds_shipped_and_imported_problems():
    names = [name for name, _ in PROBLEMS]
    assert len(names) == len(set(names)) >= 39
    assert any(n.startswith("protom-") for n in names) and any(n.startswith("clips/") for n in names)


@pytest.mark.parametrize("name", [name for name, _ in PROBLEMS])
def test_the_helper_is_never_slower_than_the_human_alone(name):
    spec = dict(PROBLEMS)[name]
    alone, helped = play(spec, helped=False), play(spec, helped=True)
    if alone["success"]:
        assert helped["success"] and helped["length"] <= alone["length"], (alone, helped)
    # the first decision's prediction is what happens (the others are planner agents)
    world = DKGWorld(spec)
    helper = next(a for a in range(len(world.agents)) if world.goal_item[a] is None)
    planner = planner_for(world)
    policy = choose_help(world, planner, world.reset(0), helper, None)
    predicted = rollout(world, planner, world.reset(0), helper, policy)
    assert predicted <= rollout(world, planner, world.reset(0), helper, STAY)
    if helped["success"]:
        assert predicted[1] >= helped["length"]  # switching later only ever shortened it


def test_the_helper_stays_out_of_the_way_when_help_would_not_shorten_anything(tmp_path):
    # the human stands next to its gem; the helper could fetch the far key, which nobody needs
    path = tmp_path / "near.txt"
    path.write_text("hg....r\nWWWWW.W\n.....m.\n", encoding="utf-8")
    spec, _ = load_reference(path)
    world = DKGWorld(spec)
    helper = world.agent_index["robot"]
    assert choose_help(world, planner_for(world), world.reset(0), helper, None) == STAY
    assert play(spec, helped=True)["length"] == play(spec, helped=False)["length"] == 3  # right, (wait), pickup


def test_the_helper_helps_when_it_shortens_the_way():
    spec, _ = load_reference("tests/fixtures/dkg_reference/clips/1.pddl")
    world = DKGWorld(spec)
    policy = choose_help(world, planner_for(world), world.reset(0), world.agent_index["robot"], None)
    assert policy not in (STAY,) and (policy == GREEDY or policy[0] == "task")
    assert play(spec, helped=True)["length"] < play(spec, helped=False)["length"]


def test_a_chain_works_on_its_tasks_in_turn():
    import dataclasses

    from agents.dkg.agents import policy_task
    from agents.dkg.planner import Task

    spec, _ = load_reference("tests/fixtures/dkg_reference/clips/1.pddl")
    world = DKGWorld(spec)
    planner, robot, human = planner_for(world), world.agent_index["robot"], world.agent_index["human"]
    start = world.reset(0)
    key = world.item_index["key1"]
    first, second = Task.give(key, human), Task.open(0)
    chain = ("task", first, second)
    assert policy_task(world, planner, start, robot, chain) == first  # the first task while it is to do
    handed = dataclasses.replace(start, item_locs=tuple(-1 - human if i == key else loc
                                                        for i, loc in enumerate(start.item_locs)))
    assert policy_task(world, planner, handed, robot, chain) is None  # done, and the second can no longer be
    opened = dataclasses.replace(start, open_doors=1)
    assert policy_task(world, planner, opened, robot, ("task", second, first)) == first  # the first is done
