"""Reference Doors-Keys-Gems problems (the PDDL problems and ASCII maps of the planning projects)
load as scenarios and play; a helper without a goal helps a human-like agent."""

from __future__ import annotations

import json
import os
import re
import zipfile
from pathlib import Path

import pytest

from agents.dkg.agents import BoltzmannAgent, PlannerAgent
from main import main
from sim.dkg.reference import import_reference, load_reference
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


def test_a_map_without_a_goal_asks_for_one_and_goal_flag_gives_it(tmp_path):
    # a single-agent map (no robot) takes the 'G' marker; without one it asks
    path = write(tmp_path, "p2.txt", ASCII.replace("G", "g").replace("m", "."))
    with pytest.raises(ScenarioError, match=r"p2.txt: no goal.*gem1 \(row 1, column 7\), gem2 .*--goal"):
        load_reference(path)
    spec, _ = load_reference(path, goals={"human": "gem1"})
    assert spec["goals"] == {"human": "gem1"}
    # a map with a robot takes the last gem, 'G' or not, as the multi-agent loaders do
    spec, notes = load_reference(write(tmp_path, "p3.txt", ASCII.replace("G", "g")))
    assert spec["goals"] == {"human": "gem2"} and any("the last gem (gem2)" in n for n in notes)


@pytest.mark.parametrize("text, name, fragments", [
    (PDDL.replace("(locked door1)", "(locked door1) (glow door1)"), "x.pddl", ["line 25", "(glow door1)", "not a fact"]),
    (PDDL.replace("(iscolor key1 red)", "(iscolor key1 teal)"), "x.pddl", ["line 13", "colour 'teal'"]),
    (PDDL.replace("(= (yloc gem1) 1)", "(= (yloc gem1) 9)"), "x.pddl", ["gem1 at x 7, y 9", "outside the 7 x 3", "count from 1"]),
    (PDDL.replace("(:goal (has human gem2))", "(:goal (has human gem9))"), "x.pddl", ["line 39", "'gem9' is not a gem"]),
    (PDDL.replace("(= (xloc human) 1)", "(= (xloc human) 9)"), "x.pddl", ["human at x 9, y 3", "outside"]),
    (PDDL + ")", "x.pddl", ["')' closes nothing"]),
    (ASCII.replace("h", "s"), "x.txt", ["line 3, column 1", "character 's'"]),
    ("(define (domain doors-keys-gems) (:predicates (has ?a ?i)))", "d.pddl", ["a PDDL domain", "not a problem"]),
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
    write(src, "domain.pddl", "; the domain\n(define (domain doors-keys-gems) (:requirements :adl))\n")
    out = tmp_path / "out"
    assert main(["dkg", "import", str(src), "--out", str(out)]) == 1  # one file failed
    captured = capsys.readouterr()
    assert "2 of 3 imported" in captured.out and "3.txt: line 3, column 1" in captured.err
    assert "domain.pddl: a PDDL domain, not a problem: skipped" in captured.out  # not counted as failed
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


# ----------------------------------------------------------------- the reference formats

FIXTURES = Path(__file__).parent / "fixtures" / "dkg_reference"

# every problem file of the fixtures: the goal its reference loader gives (agent -> gem, in
# this world's reading-order ids, which are the files' own here) and the rule applied, or the
# reason it is refused
EXPECTED = {
    "clips/1.pddl": ({"human": "gem2"}, "the problem's (:goal ...)"),
    "clips/1.txt": ({"human": "gem2"}, "the last gem (gem2)"),
    "clips/2.txt": ({"human": "gem3"}, "the 'G' on gem1 is not the goal"),  # G on gem1, last gem gem3
    "clips/3.txt": ({"human": "gem3"}, "the last gem (gem3)"),  # two 'h', two 'G'
    "plinf/p1.pddl": ({"human": "gem1"}, "the problem's (:goal ...)"),
    "plinf/p2.txt": ({"human": "gem2"}, "the last gem (gem2)"),  # a robot, no 'G'
    "plinf/p3.pddl": ({"human": "gem2"}, "the problem's (:goal ...)"),  # single agent, (has gem2)
    "plinf/p4.txt": ({"human": "gem1"}, "the gem marked 'G' (gem1)"),  # no robot: the marker
    "plinf/p5.txt": "no goal: the single-agent ascii_to_pddl names no goal on this map (it marks no 'G'); the gems: gem1",
    "plinf/p6.txt": ({"human": "gem2"}, "2 gems are written 'G' (gem1, gem2), the last one counts"),
    "plinf/p7.txt": "line 1, column 4: character 'Q'",
    "plinf/social.pddl": ({"human": "gem1"}, "the problem's (:goal ...)"),
    "clips/domain.pddl": "a PDDL domain '(define (domain ...) ...)', not a problem",
    # Plinf's folders, each read by its own loader (docs/dkg.md): multi-agent takes the last 'G'
    "plinf/multi-agent/m1.txt": ({"human": "gem1"}, "the gem marked 'G' (gem1); the last gem (gem3) is not the goal"),
    "plinf/multi-agent/m1.pddl": ({"human": "gem1"}, "the problem's (:goal ...)"),
    "plinf/multi-agent/m2.txt": "no goal: Plinf's multi-agent/ascii.jl names no goal on this map (it marks no 'G'); "
                                "the gems: gem1 (row 1, column 1), gem2 (row 1, column 7), gem3 (row 3, column 7)",
    "plinf/multi-agent/domain.pddl": "a PDDL domain '(define (domain ...) ...)', not a problem",  # opens commented out
    "plinf/Assistive/a1.txt": ({"human": "gem2"}, "the last gem (gem2), 'g' or 'G'; the 'G' on gem1 is not the goal"),
    "plinf/Assistive/a1.pddl": ({"human": "gem2"}, "the problem's (:goal ...)"),
    "plinf/Reasoning/r1.txt": ({"human": "gem3"}, "the last gem (gem3)"),  # 'c' gems, 'g'/'G' green key and door
    "plinf/Reasoning/r1.pddl": ({"human": "gem3"}, "the problem's (:goal ...)"),  # doors-keys-goals, goal3
}


def test_the_fixtures_hold_every_format_listed():
    files = {p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.suffix in (".pddl", ".txt")
             and "plans" not in p.parts}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_reference_file_loads_with_its_loaders_goal_or_is_refused_with_a_reason(name):
    path = FIXTURES / name
    expected = EXPECTED[name]
    if isinstance(expected, str):
        with pytest.raises(ScenarioError) as info:
            load_reference(path)
        message = str(info.value)
        assert message.startswith(str(path)) and expected in message and "\n" not in message
        return
    goals, rule = expected
    spec, notes = load_reference(path)
    assert spec["goals"] == goals
    assert any(n.startswith("goal: ") and rule in n for n in notes), notes  # the rule applied is said
    world = DKGWorld(spec)
    outcome, _ = play_planners(spec)
    assert outcome["success"], name  # every one of them can be played to the goal
    assert len(world.agents) in (1, 2)


def play_planners(spec):
    world = DKGWorld(spec)
    seats = {a: PlannerAgent() for a in world.agents}
    session = Session(world, seats, seed=0)
    session.run()
    return world.outcome(session.state), session


def test_a_second_h_or_g_keeps_the_last_with_a_note():
    spec, notes = load_reference(FIXTURES / "clips" / "3.txt")
    world = DKGWorld(spec)
    assert world.rc(world.reset(0).agent_cells[world.agent_index["human"]]) == (3, 0)  # the last 'h'
    assert any("human is written 2 times" in n and "the last one counts" in n for n in notes)


def test_single_agent_problems_play_with_one_seat(tmp_path, capsys):
    for name in ("plinf/p3.pddl", "plinf/p4.txt", "plinf/social.pddl"):
        spec, _ = load_reference(FIXTURES / name)
        assert DKGWorld(spec).agents == ("human",)
    assert main(["run", str(FIXTURES / "plinf" / "p3.pddl"), "--agents", "human=planner", "--out",
                 str(tmp_path / "runs"), "--quiet"]) == 0
    from agents.protom.dkg import DKGAdapter
    with pytest.raises(ValueError, match="ProToM facilitates two or more agents"):
        DKGAdapter(DKGWorld(load_reference(FIXTURES / "plinf" / "p3.pddl")[0]))


def test_forbidden_facts_are_rules():
    spec, _ = load_reference(FIXTURES / "clips" / "1.pddl")
    assert spec["options"]["forbidden"] == {"robot": ["gem1", "gem2"]}
    world = DKGWorld(spec)
    state = world.reset(0)
    # walk the robot onto gem1's cell along the top row: it may not pick it up
    from sim.dkg.world import DKGState
    robot = world.agent_index["robot"]
    gem1 = world.item_index["gem1"]
    on_gem = DKGState(t=0, turn=robot, agent_cells=tuple(state.item_locs[gem1] if a == robot else c
                                                         for a, c in enumerate(state.agent_cells)),
                      item_locs=state.item_locs, open_doors=state.open_doors, reached_at=state.reached_at)
    assert "pickup gem1" not in world.legal_actions(on_gem, "robot")
    from sim.world import IllegalAction
    with pytest.raises(IllegalAction, match="forbidden to robot"):
        world.step(on_gem, {"robot": "pickup gem1"})
    # the human may: the same cell, its turn
    human_on_gem = DKGState(t=0, turn=world.agent_index["human"],
                            agent_cells=tuple(state.item_locs[gem1] for _ in state.agent_cells),
                            item_locs=state.item_locs, open_doors=state.open_doors, reached_at=state.reached_at)
    assert "pickup gem1" in world.legal_actions(human_on_gem, "human")
    # and the planner never plans what is forbidden
    from agents.dkg.planner import DKGPlanner, Task
    assert DKGPlanner(world).plan(state, robot, Task.hold(gem1)).cost == float("inf")


def test_a_forbidden_entry_is_checked(tmp_path):
    from sim.dkg.scenario import validate_dkg
    data, _, _ = import_reference(FIXTURES / "clips" / "1.pddl")
    data["options"]["forbidden"] = {"robot": ["gem7"]}
    with pytest.raises(ScenarioError, match=r"field 'options.forbidden.robot\[0\]': expected a key or gem id"):
        validate_dkg(data, "x.json")
    data["options"]["forbidden"] = {"human": ["gem2"]}
    with pytest.raises(ScenarioError, match="gem2 is forbidden to 'human'"):
        validate_dkg(data, "x.json")


def test_a_reference_plan_replays_observed_then_completed(tmp_path, capsys):
    from sim.dkg.reference import load_plan
    from sim.recording import load_recording

    problem = FIXTURES / "clips" / "1.pddl"
    observed = FIXTURES / "clips" / "plans" / "observed" / "1.1.keys.pddl"
    completed = FIXTURES / "clips" / "plans" / "completed" / "1.1.keys.pddl"
    spec, steps, _ = load_plan(problem, [observed, completed])
    assert len(steps) == 25 and ("robot", "pickup key1", 6) in steps
    assert ("robot", "unlock door1 key1", 12) in steps and steps[-1] == ("human", "pickup gem2", 19)
    record = tmp_path / "plan.jsonl"
    assert main(["dkg", "plan", str(problem), str(observed), str(completed), "--record", str(record)]) == 0
    assert "25 steps replayed" in capsys.readouterr().out
    assert load_recording(record).footer["outcome"]["success"]
    # a completion alone starts in the wrong place: the step that fails names its file and line
    with pytest.raises(ScenarioError, match=r"completed/1.1.keys.pddl: line 4: 'right' is not legal here.*give both"):
        load_plan(problem, completed)
    # a step out of turn, or one the rules refuse, names its line
    bad = tmp_path / "bad.pddl"
    bad.write_text(observed.read_text().replace("(pickup robot key1)", "(pickup robot gem1)"))
    with pytest.raises(ScenarioError, match=r"bad.pddl: line 6: 'pickup gem1' is not legal here: robot cannot pick up 'gem1': it is not on its cell$"):
        load_plan(problem, bad)
    bad.write_text("(left robot)\n")
    with pytest.raises(ScenarioError, match=r"line 1: an action of robot, but it is human's turn"):
        load_plan(problem, bad)
    assert main(["dkg", "plan", str(problem), str(bad)]) == 2


# ----------------------------------------------------------------- each folder by its own loader

PAIRS = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.txt") if p.with_suffix(".pddl").is_file())


def test_the_fixtures_have_a_twin_in_each_folder():
    assert PAIRS == ["clips/1.txt", "plinf/Assistive/a1.txt", "plinf/Reasoning/r1.txt", "plinf/multi-agent/m1.txt"]


@pytest.mark.parametrize("name", PAIRS)
def test_each_map_and_its_pddl_twin_give_the_same_goal_cell_permissions_and_optimum(name):
    from bench.bench_dkg_helper import joint_optimum
    from bench.bench_dkg_reference import reading

    a, b = reading(FIXTURES / name), reading((FIXTURES / name).with_suffix(".pddl"))
    assert a["goal"] == b["goal"] and a["forbidden"] == b["forbidden"]
    if len(a["spec"]["options"]["turn_order"]) == 2:
        assert joint_optimum(a["spec"]) == joint_optimum(b["spec"]) is not None


def test_the_robot_takes_no_gem_under_clips_nor_plinfs_domain_and_the_loader_can_be_chosen():
    for name in ("clips/1.txt", "clips/1.pddl", "plinf/multi-agent/m1.txt", "plinf/multi-agent/m1.pddl",
                 "plinf/Assistive/a1.txt", "plinf/Assistive/a1.pddl"):
        spec, notes = load_reference(FIXTURES / name)
        gems = sorted(g for g in spec["options"]["forbidden"]["robot"])
        assert gems == [f"gem{i + 1}" for i in range(len(gems))] and gems, name
    _, notes = load_reference(FIXTURES / "plinf" / "Assistive" / "a1.pddl")
    assert any("pickupr takes a key" in n for n in notes)
    from sim.dkg.cli import LOADER_NAMES
    from sim.dkg.reference import LOADERS
    assert LOADER_NAMES == tuple(LOADERS)  # the command line offers every loader
    # the same map under another folder's loader: CLIPS.jl's takes the last gem
    spec, notes = load_reference(FIXTURES / "plinf" / "multi-agent" / "m1.txt", loader="clips")
    assert spec["goals"] == {"human": "gem3"} and notes[0].startswith("read as CLIPS.jl's ascii_to_pddl")
    with pytest.raises(ScenarioError, match=r"r1.txt: line 1, column 1: character 'c'.*Plinf's multi-agent"):
        load_reference(FIXTURES / "plinf" / "Reasoning" / "r1.txt", loader="plinf-multi-agent")


def test_reasonings_alphabet_c_gems_and_green_g(tmp_path):
    spec, notes = load_reference(FIXTURES / "plinf" / "Reasoning" / "r1.txt")
    world = DKGWorld(spec)
    assert world.agents == ("human",) and [d.color for d in world.doors] == ["green", "red"]
    assert [it.color for it in world.items if it.kind == "key"] == ["green", "red"]
    # outside a folder named Reasoning a map with 'c' is still Reasoning's
    moved = write(tmp_path, "r1.txt", (FIXTURES / "plinf" / "Reasoning" / "r1.txt").read_text())
    assert load_reference(moved)[0]["goals"] == {"human": "gem3"}


def test_plinfs_folders_import_whole(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["dkg", "import", str(FIXTURES / "plinf" / "multi-agent"), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "domain.pddl: a PDDL domain, not a problem: skipped" in captured.out
    assert "m2.txt: no goal: Plinf's multi-agent/ascii.jl names no goal" in captured.out  # no failure: left open
    assert "1 of 2 imported" in captured.out and "1 with no goal" in captured.out and captured.err == ""
    assert main(["dkg", "import", str(FIXTURES / "plinf" / "multi-agent" / "m2.txt"), "--out", str(out)]) == 1
    assert "gem1 (row 1, column 1)" in capsys.readouterr().err  # the one file asked for: an error
    for folder in ("Assistive", "Reasoning"):
        assert main(["dkg", "import", str(FIXTURES / "plinf" / folder), "--out", str(out)]) == 0
        assert "1 of 1 imported" in capsys.readouterr().out
    assert json.loads((out / "r1.json").read_text())["goals"] == {"human": "gem3"}


def test_a_domain_opening_with_a_long_commented_copy_and_a_plan_file_are_skipped(tmp_path, capsys):
    src = tmp_path / "folder"
    src.mkdir()
    commented = "".join(f"; (:action a{i} :parameters (?a - agent) :effect (done ?a))\n" for i in range(200))
    write(src, "domain.pddl", commented + "(define (domain doors-keys-gems) (:requirements :adl))\n")
    write(src, "1.pddl", PDDL)
    write(src, "plan.txt", "; I need the red key\n(left human)\n(noop robot)\n")
    assert len(commented) > 8192
    assert main(["dkg", "import", str(src), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "domain.pddl: a PDDL domain, not a problem: skipped" in out
    assert "plan.txt: a plan file, not a problem: skipped" in out and "1 of 1 imported" in out


def test_plinfs_plan_files_replay_with_its_action_names(tmp_path, capsys):
    from sim.dkg.reference import load_plan

    plan = FIXTURES / "plinf" / "multi-agent" / "plans" / "m1.pddl"
    for problem in ("m1.txt", "m1.pddl"):
        spec, steps, _ = load_plan(FIXTURES / "plinf" / "multi-agent" / problem, plan)
        assert ("robot", "wait", 3) in steps and ("robot", "pickup key1", 9) in steps
        assert steps[-1] == ("human", "pickup gem1", 18)
    assert main(["dkg", "plan", str(FIXTURES / "plinf" / "multi-agent" / "m1.txt"), str(plan)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("human holds gem1 (its goal gem1: reached)")
    # a map whose loader names no goal: the plan's last pickup names it
    goalless = tmp_path / "multi-agent" / "m2.txt"
    goalless.parent.mkdir()
    goalless.write_text((FIXTURES / "plinf" / "multi-agent" / "m2.txt").read_text())
    spec, _, notes = load_plan(goalless, plan)
    assert spec["goals"] == {"human": "gem1"} and any("the plan's last action picks up" in n for n in notes)
    bad = tmp_path / "bad.pddl"
    for line, message in (("(pickupr human key1)", "pickupr is the robot's action in Plinf's domain, not human's"),
                          ("(pickupr robot gem2)", "pickupr takes a key in Plinf's domain")):
        bad.write_text(f"{line}\n")
        with pytest.raises(ScenarioError, match=re.escape(message)):
            load_plan(FIXTURES / "plinf" / "multi-agent" / "m1.pddl", bad)


def test_dkg_plan_says_which_gem_the_human_holds_and_checks_the_stimulus_goal(tmp_path, capsys):
    # the problem file names gem1, the completed plan ends by picking up gem2: CLIPS.jl's stimulus goal
    problem = write(tmp_path, "1.pddl", (FIXTURES / "clips" / "1.pddl").read_text()
                    .replace("(:goal (has human gem2))", "(:goal (has human gem1))"))
    assert "(has human gem1)" in problem.read_text()
    plans = [FIXTURES / "clips" / "plans" / k / "1.1.keys.pddl" for k in ("observed", "completed")]
    assert main(["dkg", "plan", str(problem), *map(str, plans)]) == 0
    out = capsys.readouterr().out
    assert "goal of human: gem2, which the plan's last action picks up" in out and "the problem file says gem1" in out
    assert out.splitlines()[-1].endswith("human holds gem2 (its goal gem2: reached)")
    # --goal wins over the plan: the human then holds gem2 but not its goal
    assert main(["dkg", "plan", str(problem), *map(str, plans), "--goal", "human=gem1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("human holds gem2 (its goal gem1: not reached)")


REFERENCE = os.environ.get("TOM_ARENA_DKG_REFERENCE", "")


@pytest.mark.skipif(not REFERENCE, reason="TOM_ARENA_DKG_REFERENCE names no folder with the CLIPS.jl and Plinf.jl "
                                          "checkouts (docs/testing.md)")
def test_the_reference_repositories_folders_as_their_loaders_read_them(tmp_path, capsys):
    from bench.bench_dkg_reference import compare
    from sim.dkg.reference import load_plan

    root = Path(REFERENCE)
    clips = root / "CLIPS.jl" / "doors-keys-gems" / "dataset"
    plinf = root / "Plinf.jl" / "domains"
    folders = [clips / "problems", plinf / "multi-agent", plinf / "Assistive", plinf / "Reasoning"]
    # every map and its .pddl twin: the same goal cell, permissions and joint optimum, except where
    # the twin names another gem than the map's own loader gives (the reference's files disagree)
    twin_names_another = {"problems": ["demo0.txt", "demo1.txt", "demo2.txt"], "Reasoning": ["social.txt"]}
    with zipfile.ZipFile(plinf / "multi-agent.zip") as archive:  # the earlier multi-agent set
        archive.extractall(tmp_path / "archive")
    for n, folder in enumerate([*folders, tmp_path / "archive" / "multi-agent"]):
        assert main(["dkg", "import", str(folder), "--out", str(tmp_path / f"out{n}")]) == 0, folder
        lines, pairs, bad = compare(folder, optimum=True, cap=400_000)
        assert pairs and bad == 0, (folder, lines)
        assert all("optimum None" not in line for line in lines), lines  # every optimum found
        assert [line.split(":")[0] for line in lines if "another gem" in line] == twin_names_another.get(folder.name, [])
    capsys.readouterr()
    completed = sorted((clips / "plans" / "completed").glob("*.pddl"))
    for plan in completed:  # each stimulus replays to its own goal
        problem = clips / "problems" / f"{plan.name.split('.')[0]}.pddl"
        assert main(["dkg", "plan", str(problem), str(clips / "plans" / "observed" / plan.name), str(plan)]) == 0
        assert capsys.readouterr().out.splitlines()[-1].endswith(": reached)"), plan
    for plan in sorted((plinf / "Assistive" / "plans").glob("p*.pddl")):  # pN replays on problem N
        for suffix in (".txt", ".pddl"):
            load_plan(plinf / "Assistive" / f"{plan.stem[1:]}{suffix}", plan)
