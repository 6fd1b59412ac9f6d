"""Joint tasks in Doors, Keys and Gems: plate doors that open only while agents stand on all their
plates at once, the k-level ToM planners' choice of plates (a level-k agent leaves teammates the
plates its level-(k-1) model of them heads for, and from level 1 on helps a teammate's vault), the
joint score of the team (the vaults it opens together) and the generator generators/make_joint.py."""

from __future__ import annotations

import pytest

from agents.registry import make_agent
from agents.teams.tom_dkg import DKGTeam, DKGTeamPolicies
from experiments.design import ExperimentError
from experiments.teams import check_team_scenario, vault_score_of
from generators import make_joint
from sim.dkg.scenario import validate_dkg
from sim.dkg.world import DKGWorld
from sim.registry import ScenarioError, build_world, load_spec, split_start
from sim.session import Session

# One vault behind a red plate door (row 3, column 4); its two red plates at the hall's two ends.
#   col: 0123456789
HALL = ["##########",
        "#a12....a#",
        "#.......3#",
        "####A#####",
        "###+*#####",
        "##########"]


def hall(goals=None, order=("al", "bo", "cy")) -> DKGWorld:
    data = {"world": "dkg", "name": "plates", "map": HALL,
            "legend": {"#": "wall", ".": "floor", "a": {"plate": "red"}, "A": {"door": "red"},
                       "+": {"gem": "cyan"}, "*": {"gem": "pink"},
                       "1": {"agent": "al"}, "2": {"agent": "bo"}, "3": {"agent": "cy"}},
            "goals": goals or {"al": "gem1", "bo": "gem2"},
            "options": {"t_max": 90, "turn_order": list(order)}}
    return DKGWorld(validate_dkg(data, "plates"))


AL, BO, CY = 0, 1, 2


def walk(world, state, agent, action):
    """``agent`` takes ``action`` (its turn made so)."""
    import dataclasses
    s = dataclasses.replace(state, turn=world.agent_index[agent])
    return world.step(s, {agent: action})


def test_a_plate_door_opens_only_while_every_plate_has_an_agent_on_it():
    world = hall()
    s = world.reset(0)
    assert world.plate_doors == (0,) and world.door_plates[0] == (world.cell(1, 1), world.cell(1, 8))
    assert len(s.key()) == 7 and s.plate_ticks == (-1,)
    s = walk(world, s, "al", "left").state  # al on the left plate: not enough
    assert not s.open_doors
    s = walk(world, s, "al", "right").state  # off again
    cy = world.agent_index["cy"]
    s = walk(world, s, "cy", "up").state  # cy on the right plate, nobody on the left one
    assert s.agent_cells[cy] == world.cell(1, 8) and not s.open_doors
    result = walk(world, s, "al", "left")  # now both plates at once
    assert result.state.open_doors == 1 and result.state.plate_ticks == (result.state.t,)
    (event,) = [e for e in result.events if e.kind == "plates_open"]
    assert event.data == {"door": "door1", "agents": ["al", "cy"]}
    # open for good: both may leave
    s = walk(world, result.state, "al", "right").state
    assert s.open_doors == 1
    out = world.outcome(s)
    assert out["vaults"] == {"door1": {"opened": result.state.t, "for": ["al", "bo"]}}
    assert "plates" in world.render_text(s)


def test_worlds_without_plates_keep_their_state_key_and_outcome():
    data = load_spec(make_joint.SCENARIO_DIR / "dkg" / "two-rooms.json")[1]
    world = DKGWorld(data)
    s = world.reset(0)
    assert world.plate_doors == () and s.plate_ticks == () and len(s.key()) == 6
    assert "vaults" not in world.outcome(s)


def test_a_goal_behind_plates_is_reachable_and_a_hall_without_them_is_refused():
    bad = [row.replace("a", ".") for row in HALL]
    data = {"world": "dkg", "name": "noplates", "map": bad,
            "legend": {"#": "wall", ".": "floor", "A": {"door": "red"}, "+": {"gem": "cyan"}, "*": {"gem": "pink"},
                       "1": {"agent": "al"}, "2": {"agent": "bo"}, "3": {"agent": "cy"}},
            "goals": {"al": "gem1"}}
    with pytest.raises(ScenarioError, match="can never be reached.*no key or plate"):
        validate_dkg(data, "noplates")


def test_each_level_leaves_teammates_the_plates_its_model_of_them_heads_for():
    world = hall()
    p = DKGTeamPolicies(world)
    s = world.reset(0)
    pair = DKGTeam(world, ["al", "bo"])
    left, right = world.cell(1, 1), world.cell(1, 8)
    # level 0: the nearest plate of its own vault, for both the left one
    assert p.plate_target(0, s, AL, pair) == left and p.plate_target(0, s, BO, pair) == left
    assert p.policy(0, s, BO, pair) == "left"
    # level 1: bo models al as level 0 (al takes the left plate) and goes right
    assert p.plate_target(1, s, BO, pair) == right and p.policy(1, s, BO, pair) == "right"
    # two level-1 agents each leave the left plate to the other: both head right (a ToM pitfall)
    assert p.plate_target(1, s, AL, pair) == right
    # level 2: al models bo as level 1 (bo goes right) and takes the left plate
    assert p.plate_target(2, s, AL, pair) == left
    # a plate another agent stands on is taken, whatever the level
    on = s.__class__(**{**{f: getattr(s, f) for f in s.__slots__}, "agent_cells": (left, left, s.agent_cells[CY])})
    assert p.plate_target(0, on, AL, pair) == left and p.plate_target(0, on, BO, pair) == right


def test_a_helper_from_level_1_stands_on_a_teammates_plate():
    world = hall(goals={"al": "gem1"})  # bo and cy have no gem of their own
    p = DKGTeamPolicies(world)
    s = world.reset(0)
    team = DKGTeam(world, ["al", "cy"])
    left, right = world.cell(1, 1), world.cell(1, 8)
    assert p.plate_target(0, s, CY, team) is None and p.policy(0, s, CY, team) == "wait"
    assert p.plate_target(1, s, CY, team) == right and p.policy(1, s, CY, team) == "up"
    # outside the team al's vault is nobody's job
    assert p.plate_target(1, s, CY, DKGTeam(world, ["cy"])) is None
    assert p.plate_target(0, s, AL, team) == left


def test_a_team_of_levels_0_and_1_opens_the_vault_and_both_get_their_gems():
    world = hall()
    seats = {"al": make_agent("tom-planner:k=0", "dkg"), "bo": make_agent("tom-planner:k=1", "dkg"),
             "cy": make_agent("tom-planner:k=0", "dkg")}
    session = Session(world, seats, seed=0)
    session.run()
    out = session.outcome()
    assert out["success"] and out["vaults"]["door1"]["opened"] is not None
    assert vault_score_of(out, ["al", "bo"]) == pytest.approx(1 - out["vaults"]["door1"]["opened"] / 90)


def test_the_joint_score_is_the_teams_vaults_opened_by_time():
    out = {"t_max": 100, "vaults": {"door1": {"opened": 20, "for": ["a", "b"]},
                                    "door2": {"opened": None, "for": ["c"]},
                                    "door3": {"opened": 50, "for": ["d", "e"]}}}
    assert vault_score_of(out, ["a", "c"]) == pytest.approx((0.8 + 0.0) / 2)
    assert vault_score_of(out, ["a", "b", "d"]) == pytest.approx((0.8 + 0.5) / 2)
    assert vault_score_of(out, ["a", "c", "d"], timed=False) == pytest.approx(2 / 3)
    with pytest.raises(ExperimentError, match="reads the outcome's 'vaults'.*holding_goal"):
        vault_score_of({"holding_goal": {}}, ["a"])
    with pytest.raises(ExperimentError, match="no vault holds a gem of the team"):
        vault_score_of(out, ["z"])


def test_the_shipped_joint_halls_are_the_generators_and_follow_the_recipe(capsys):
    assert make_joint.main(["--check"]) == 0
    assert "16 of 16 scenarios match seed 71" in capsys.readouterr().out
    for data in make_joint.generate():
        world = build_world("dkg", validate_dkg(split_start(data, data["name"])[0], data["name"]))
        n = len(world.agents)
        vaults = world.vault_agents()
        assert len(world.plate_doors) == (n + 1) // 2 and sorted(a for v in vaults.values() for a in v) == \
            sorted(world.agents)
        assert all(1 <= len(v) <= 2 for v in vaults.values())
        for d in world.plate_doors:
            (r1, c1), (r2, c2) = (world.rc(c) for c in world.door_plates[d])
            assert abs(r1 - r2) + abs(c1 - c2) >= make_joint.PLATE_GAP
        assert world.t_max == 40 * n
        # nobody gets its gem alone
        assert check_team_scenario(data["name"], world, data) == {"agents": n, "locked_in": n}
    assert make_joint.generate(seed=5)[0] != make_joint.generate()[0]


def test_the_generator_refuses_what_it_cannot_write(tmp_path, capsys):
    assert make_joint.main(["--out", str(tmp_path), "--count", "2"]) == 0
    assert make_joint.main(["--out", str(tmp_path), "--count", "2", "--check"]) == 0
    (tmp_path / "joint-01-five.json").write_text("{}\n")
    assert make_joint.main(["--out", str(tmp_path), "--count", "2", "--check"]) == 1
    assert "joint-01-five.json: missing or not what seed 71 gives" in capsys.readouterr().err
    assert make_joint.main(["--count", "0"]) == 2


def test_the_declared_confirmation_plays_its_own_halls_with_final_teams_of_one_size():
    """teams-joint-confirm (docs/reports/teams-joint-confirm.md): its 16 halls are
    generators.make_jointconfirm's output for seed 97, and both conditions form the first team
    after the same warm-up round, so every final team has ceil(n/2) members."""
    import json

    from experiments.design import load_design
    from experiments.runner import SCENARIO_DIR
    from generators import make_jointconfirm

    assert make_jointconfirm.main(["--check"]) == 0
    path = SCENARIO_DIR / "experiments" / "teams-joint-confirm.json"
    design = load_design(path)
    data = json.loads(path.read_text())
    assert data["rounds"] == 2 and data["scenarios"] == ["dkg/jointconfirm-*"]
    assert [c.name for c in design.conditions] == ["teams", "random-teams", "all-teams", "best-team"]
    assert (design.floor, design.ceiling, design.comparisons()) == ("all-teams", "best-team", [("teams", "random-teams")])
    assert [c.over_teams for c in design.conditions] == [None, None, "mean", "best"]
    assert all("warmup=1" in c["mechanisms"][0] and "embedding=features" in c["mechanisms"][0]
               for c in data["conditions"])
    assert len({c["mechanisms"][0] for c in data["conditions"][1:]}) == 1  # the same draw, every team of it
    assert "max_size=eta" in data["conditions"][0]["mechanisms"][0]
    assert [m["name"] for m in data["metrics"] if m.get("test", True)] == ["score", "bas"]


def test_the_map_draws_each_plate_in_the_colour_of_the_door_it_opens():
    import os

    import pygame

    from sim.registry import load_scenario
    from ui.render import renderer_for
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame.init()
    world, _ = load_scenario("joint-01-six")
    assert world.plate_doors
    renderer = renderer_for(world)
    renderer.layout(800, 600)
    surface = pygame.Surface((800, 600))
    renderer.draw(surface, world.reset(0))
    expected = {(cell, world.doors[d].color) for d in world.plate_doors for cell in world.door_plates[d]}
    assert set(renderer.drawn_plates) == expected
    from ui.render import sprites
    for cell, color in expected:
        rect = renderer.cell_rect(*world.rc(cell))
        row = {tuple(surface.get_at((x, rect.centery)))[:3] for x in range(rect.left, rect.right)}
        assert sprites.ITEM_COLORS[color] in row  # the plate's rim
