"""Reference Doors-Keys-Gems problems (the PDDL problems and ASCII maps of the planning projects)
load as scenarios and play; a helper without a goal helps a human-like agent."""

from __future__ import annotations

import json

import pytest

from agents.dkg.agents import BoltzmannAgent, PlannerAgent
from main import main
from sim.dkg.reference import load_reference
from sim.dkg.world import DKGWorld
from sim.registry import ScenarioError, load_scenario
from sim.session import Session

# A map of our own in the reference format: the human's gem (G) lies behind a red door; the red
# key lies next to the robot, far from the human.
ASCII = """r.m.W.g
WWW.W.W
h...R.G
"""

# The same problem as a PDDL problem of the multi-agent domain (1-based x = column, y = row).
PDDL = """; a test problem in the format of the multi-agent Doors-Keys-Gems domain
(define (problem doors-keys-gems-problem)
  (:domain doors-keys-gems)
  (:objects door1 - door
            key1 - key
            gem1 gem2 - gem
            red yellow - color
            robot - robot
            human - human)
  (:init (= (walls) (new-bit-matrix false 3 7))
         (= (xloc key1) 1)
         (= (yloc key1) 1)
         (iscolor key1 red)
         (= (walls) (set-index walls true 1 5))
         (= (xloc gem1) 7)
         (= (yloc gem1) 1)
         (= (walls) (set-index walls true 2 1))
         (= (walls) (set-index walls true 2 2))
         (= (walls) (set-index walls true 2 3))
         (= (walls) (set-index walls true 2 5))
         (= (walls) (set-index walls true 2 7))
         (= (xloc door1) 5)
         (= (yloc door1) 3)
         (iscolor door1 red)
         (locked door1)
         (= (xloc gem2) 7)
         (= (yloc gem2) 3)
         (= (xloc human) 1)
         (= (yloc human) 3)
         (= (xloc robot) 3)
         (= (yloc robot) 1)
         (iscolor gem1 red)
         (iscolor gem2 yellow)
         (active human)
         (next-turn human robot)
         (next-turn robot human)
         (forbidden robot gem1)
         (forbidden robot gem2))
  (:goal (has human gem2))
)
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def play(spec, seed, human_temperature=0.3):
    world = DKGWorld(spec)
    seats = {"human": BoltzmannAgent(temperature=human_temperature), "robot": PlannerAgent()}
    session = Session(world, seats, seed=seed)
    steps = []
    session.subscribe(lambda e: steps.append(e.joint_action) if type(e).__name__ == "StepEvent" else None)
    session.run()
    return world.outcome(session.state), steps


def test_pddl_problem_loads_as_the_map_it_describes(tmp_path):
    spec, notes = load_reference(write(tmp_path, "p1.pddl", PDDL))
    assert spec["map"] == ["r.m.#.$", "###.#.#", "h...R.+"]  # gem1 red ($), gem2 yellow (+)
    world = DKGWorld(spec)
    assert world.agents == ("human", "robot")  # (active human), then next-turn
    assert spec["goals"] == {"human": "gem2"} and world.goal_of("robot") is None
    assert [world.rc(world.reset(0).item_locs[world.item_index[i]]) for i in ("key1", "gem1", "gem2")] == \
        [(0, 0), (0, 6), (2, 6)]
    assert world.rc(world.doors[0].cell) == (2, 4) and world.doors[0].color == "red"
    assert [world.items[world.item_index[g]].color for g in ("gem1", "gem2")] == ["red", "yellow"]
    assert any("forbidden" in n for n in notes)  # reported, not dropped silently


def test_ascii_map_loads_as_the_same_problem(tmp_path):
    from_pddl, _ = load_reference(write(tmp_path, "p1.pddl", PDDL))
    from_ascii, _ = load_reference(write(tmp_path, "p1.txt", ASCII))
    for field in ("map", "legend", "goals", "options"):
        assert from_ascii[field] == from_pddl[field], field


@pytest.mark.parametrize("seed", range(3))
def test_the_robot_without_a_goal_helps_the_human_to_success(tmp_path, seed):
    spec, _ = load_reference(write(tmp_path, "p1.pddl", PDDL))
    outcome, steps = play(spec, seed)
    assert outcome["success"] and outcome["holding_goal"] == {"human": True}
    robot = [a["robot"] for a in steps if "robot" in a]
    assert "pickup key1" in robot and ("unlock door1" in robot or "handover key1 human" in robot)
    assert not any(a.startswith("pickup gem") for a in robot)  # a helper never takes a gem
    # The human alone needs 8 steps to the key, a pickup, 8 back... at least 2 * 21 ticks.
    alone = DKGWorld(spec)
    from agents.dkg.planner import DKGPlanner, Task
    own = DKGPlanner(alone).plan(alone.reset(0), 0, Task.hold(alone.item_index["gem2"])).cost
    assert outcome["length"] < 2 * own - 1


def test_an_ascii_map_without_a_goal_asks_for_one_and_goal_flag_gives_it(tmp_path):
    path = write(tmp_path, "p2.txt", ASCII.replace("G", "g"))
    with pytest.raises(ScenarioError, match=r"p2.txt: no goal.*gem1, gem2.*--goal"):
        load_reference(path)
    spec, _ = load_reference(path, goals={"human": "gem2"})
    assert spec["goals"] == {"human": "gem2"}


@pytest.mark.parametrize("text, name, fragments", [
    (PDDL.replace("(locked door1)", "(locked door1) (glow door1)"), "x.pddl", ["line 25", "(glow door1)", "not a fact"]),
    (PDDL.replace("(iscolor key1 red)", "(iscolor key1 teal)"), "x.pddl", ["line 13", "colour 'teal'"]),
    (PDDL.replace("(= (yloc gem1) 1)", "(= (yloc gem1) 9)"), "x.pddl", ["gem1 at x 7, y 9", "outside the 7 x 3", "count from 1"]),
    (PDDL.replace("(:goal (has human gem2))", "(:goal (has human gem9))"), "x.pddl", ["line 39", "'gem9' is not a gem"]),
    (PDDL.replace("(= (xloc human) 1)", "(= (xpos) 1)"), "x.pddl", ["single-agent problem", "two or more agents"]),
    (PDDL + ")", "x.pddl", ["')' closes nothing"]),
    (ASCII.replace("h", "s"), "x.txt", ["line 3, column 1", "single-agent"]),
    (ASCII.replace("r.m", "rQm"), "x.txt", ["line 1, column 2", "character 'Q'"]),
    (ASCII.replace("WWW.W.W", "WWW.W."), "x.txt", ["line 2", "6 characters, expected 7"]),
])
def test_bad_problem_files_give_one_clear_error(tmp_path, text, name, fragments):
    path = write(tmp_path, name, text)
    with pytest.raises(ScenarioError) as info:
        load_reference(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def test_dkg_import_command_writes_scenarios_and_reports_each_file(tmp_path, capsys):
    src = tmp_path / "problems"
    src.mkdir()
    write(src, "1.pddl", PDDL)
    write(src, "1.txt", ASCII.replace("G", "g"))  # the map of 1.pddl: skipped, the .pddl has the goal
    write(src, "2.txt", ASCII)
    write(src, "3.txt", ASCII.replace("h", "s"))
    out = tmp_path / "out"
    assert main(["dkg", "import", str(src), "--out", str(out)]) == 1  # one file failed
    captured = capsys.readouterr()
    assert "2 of 3 imported" in captured.out and "3.txt: line 3, column 1" in captured.err
    assert sorted(p.name for p in out.iterdir()) == ["1.json", "2.json"]
    assert "robot helps" in captured.out
    world, _ = load_scenario(str(out / "1.json"))
    assert isinstance(world, DKGWorld) and world.goal_of("robot") is None
    assert json.loads((out / "2.json").read_text())["goals"] == {"human": "gem2"}
    # again without --force: nothing is overwritten
    assert main(["dkg", "import", str(src / "2.txt"), "--out", str(out)]) == 1
    assert "exists" in capsys.readouterr().err


def test_a_pddl_problem_runs_as_it_is(tmp_path, capsys):
    path = write(tmp_path, "p1.pddl", PDDL)
    assert main(["run", str(path), "--agents", "human=boltzmann", "robot=planner", "--out", str(tmp_path / "runs"),
                 "--quiet"]) == 0


def test_protom_and_the_category_check_refuse_a_helper_plainly(tmp_path):
    from agents.protom.categories import CategoryError, scenario_category
    from agents.protom.dkg import DKGAdapter

    spec, _ = load_reference(write(tmp_path, "p1.pddl", PDDL))
    world = DKGWorld(spec)
    with pytest.raises(ValueError, match="robot in 'p1' has no goal .a helper.; run this scenario without a facilitator"):
        DKGAdapter(world)
    with pytest.raises(CategoryError, match="robot has no goal"):
        scenario_category(world)
