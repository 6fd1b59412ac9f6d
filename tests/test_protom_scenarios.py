"""The shipped ProToM scenarios: their declared categories are the computed ones, and the
facilitator's rollout model predicts what planner agents really do."""

from __future__ import annotations

import json

import pytest

from agents.protom.categories import CategoryError, joint_optimum, scenario_category
from agents.protom.dkg import DKGAdapter
from agents.registry import make_agent
from sim.dkg.scenario import validate_dkg
from sim.dkg.world import DKGWorld
from sim.registry import load_scenario, scenario_paths
from sim.session import Session

PROTOM = sorted(p for p in scenario_paths() if p.parent.name == "dkg" and p.stem.startswith("protom-"))


def test_twenty_scenarios_in_the_papers_proportions():
    categories = [json.loads(p.read_text())["category"] for p in PROTOM]
    assert len(PROTOM) == 20
    assert categories.count("not_needed") == 6
    assert categories.count("useful") == 8
    assert categories.count("necessary") == 6
    for p in PROTOM:
        world, _ = load_scenario(str(p))
        assert len(world.gem_ids) >= 2, f"{p.name}: goal inference needs several gems"


@pytest.mark.parametrize("path", PROTOM, ids=[p.stem for p in PROTOM])
def test_declared_category_is_the_computed_one(path):
    world, _ = load_scenario(str(path))
    report = scenario_category(world)
    declared = json.loads(path.read_text())["category"]
    assert report.category == declared, report.describe()
    if declared == "necessary":
        assert report.independent_length is None
    else:
        assert report.independent_length is not None
        assert (report.joint_length < report.independent_length) == (declared == "useful")


@pytest.mark.parametrize("path", PROTOM[:14], ids=[p.stem for p in PROTOM[:14]])
def test_rollout_matches_planner_agents(path):
    """Without feedback, the rollout's finishing ticks are those of a real Session of planners."""
    world, name = load_scenario(str(path))
    session = Session(world, {a: make_agent("planner:show_plan=false") for a in world.agents}, seed=0)
    outcome = session.run()
    rollout = DKGAdapter(world).rollout(world.reset(0), tuple(world.goals[a] for a in world.agents), None)
    assert rollout.finish == tuple(outcome["goal_tick"][a] for a in world.agents)


def _world(rows, goals):
    legend = {"#": "wall", ".": "floor", "r": {"key": "red"}, "R": {"door": "red"}, "*": {"gem": "cyan"},
              "+": {"gem": "pink"}, "1": {"agent": "alice"}, "2": {"agent": "bob"}}
    return DKGWorld(validate_dkg({"world": "dkg", "name": "t", "map": rows, "legend": legend, "goals": goals}, "t",
                                 require_reachable=False))  # the category check must refuse hopeless maps itself


def test_joint_optimum_by_hand():
    # Alice is locked in; the red key lies between Bob and her door. Jointly: Bob steps up
    # (tick 1), picks the key up (3) and unlocks (5) while Alice waits (0, 2, 4); Alice walks in
    # (6, 8, 10) and picks her gem up (12): done at 13. Bob goes down (7), right (9) and picks
    # his gem up (11): done at 12. Nothing can open the door sooner, so the optimum is 13 ticks.
    world = _world(["#########",
                    "#1R.*####",
                    "##r######",
                    "##2+#####",
                    "#########"], {"alice": "gem1", "bob": "gem2"})
    ticks, _ = joint_optimum(world)
    assert ticks == 13
    report = scenario_category(world)
    assert report.category == "necessary" and report.joint_length == 13


def test_unsolvable_map_is_an_error():
    world = _world(["########",
                    "#1#R*2+#",
                    "########"], {"alice": "gem1", "bob": "gem2"})
    with pytest.raises(CategoryError, match="cannot all get their gems"):
        scenario_category(world)
