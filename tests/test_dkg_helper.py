"""The goal-less helper in Doors, Keys and Gems plans with the others' needs and is never slower
than the human alone: over every two-agent problem the project ships or imports in its tests
(bench/bench_dkg_helper.py lists them), with planner agents."""

from __future__ import annotations

import pytest

from agents.dkg.agents import STAY, WAIT, choose_help, planner_for, rollout
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
    plan, predicted = choose_help(world, planner, world.reset(0), helper)
    assert predicted == rollout(world, planner, world.reset(0), helper, plan)
    assert predicted <= rollout(world, planner, world.reset(0), helper, STAY)
    if helped["success"]:
        assert predicted[1] == helped["length"]  # the prediction is what happens


def test_the_helper_stays_out_of_the_way_when_help_would_not_shorten_anything(tmp_path):
    # the human stands next to its gem; the helper could fetch the far key, which nobody needs
    path = tmp_path / "near.txt"
    path.write_text("hg....r\nWWWWW.W\n.....m.\n", encoding="utf-8")
    spec, _ = load_reference(path)
    world = DKGWorld(spec)
    helper = world.agent_index["robot"]
    assert choose_help(world, planner_for(world), world.reset(0), helper)[0] == STAY
    assert play(spec, helped=True)["length"] == play(spec, helped=False)["length"] == 3  # right, (wait), pickup


def test_the_helper_helps_when_it_shortens_the_way():
    spec, _ = load_reference("tests/fixtures/dkg_reference/clips/1.pddl")
    world = DKGWorld(spec)
    plan, _ = choose_help(world, planner_for(world), world.reset(0), world.agent_index["robot"])
    assert plan != STAY
    assert play(spec, helped=True)["length"] < play(spec, helped=False)["length"]


def test_a_plan_works_on_its_steps_in_turn():
    import dataclasses

    from agents.dkg.agents import plan_step
    from agents.dkg.planner import Task

    spec, _ = load_reference("tests/fixtures/dkg_reference/clips/1.pddl")
    world = DKGWorld(spec)
    planner, robot, human = planner_for(world), world.agent_index["robot"], world.agent_index["human"]
    start = world.reset(0)
    key = world.item_index["key1"]
    first, second = Task.give(key, human), Task.open(0)
    plan = (first, second)
    assert plan_step(world, planner, start, robot, plan) == (first, plan)  # the first task while it is to do
    handed = dataclasses.replace(start, item_locs=tuple(-1 - human if i == key else loc
                                                        for i, loc in enumerate(start.item_locs)))
    assert plan_step(world, planner, handed, robot, plan) == (None, STAY)  # done, and the second can no longer be
    opened = dataclasses.replace(start, open_doors=1)
    assert plan_step(world, planner, opened, robot, (second, first)) == (first, (first,))  # the first is done
    assert plan_step(world, planner, start, robot, (WAIT, first)) == (None, (first,))  # a wait is one turn


WAIT_FIRST = """\
WWWWWWWWWWWW
WW.h....b..W
WW.WWWWWWW.W
WW.WWWWWWW.W
WWmWWWWWWW.W
r......r...W
WWWWWWWWWWRW
WWWWWWWWWWBW
WWWWWWWWWWgW
"""


def test_the_helper_plans_its_steps_by_search_against_the_predicted_human(tmp_path):
    # the human walks for the blue key, then down and back for the near red key; the helper opens
    # the red door by the time it arrives only by waiting one turn first: it would take the near
    # red key at once, and the human, finding it gone before it turned down, would go back for the
    # far one (49 ticks, as alone)
    from agents.dkg.planner import Task

    path = tmp_path / "wait.txt"
    path.write_text(WAIT_FIRST, encoding="utf-8")
    spec, _ = load_reference(path)
    world = DKGWorld(spec)
    planner, robot = planner_for(world), world.agent_index["robot"]
    plan, predicted = choose_help(world, planner, world.reset(0), robot)
    assert plan == (WAIT, Task.open(0)) and predicted == (False, 33, -1)
    assert rollout(world, planner, world.reset(0), robot, (Task.open(0),)) == (False, 49, -1)
    assert play(spec, helped=True)["length"] == 33 and play(spec, helped=False)["length"] == 49
