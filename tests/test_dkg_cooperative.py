"""The cooperative human of Doors, Keys and Gems (CLIPS.jl's principal): it acts by a joint plan
with the helper, which predicts it as such from its seat's kind, and acts alone once the helper
puts that plan off."""

from __future__ import annotations

import pytest

from agents.dkg.agents import (
    ALONE,
    CooperativeAgent,
    Humans,
    PlannerAgent,
    choose_help,
    cooperative_action,
    planner_action,
    planner_for,
)
from agents.dkg.joint import joint_step
from agents.dkg.planner import Task
from agents.registry import agent_kinds, make_agent
from bench.bench_dkg_helper import helper_optimum, joint_optimum, joint_policy_helper, play
from sim.dkg.reference import PlanFollower, load_reference
from sim.dkg.world import DKGWorld
from sim.session import Session

# The human's own red key lies far to the left; the robot, behind the wall, can fetch the other
# red key and unlock the door from the gem's side. Together: the human walks to the door and
# waits there (19 ticks). The planner human walks for its own key and turns back once the door
# opens (35 ticks with the best any helper can do, 43 alone).
WAIT_AT_THE_DOOR = "r......h..R.g\nWWWWWWWWWWW.W\nWWWWWWWWWWWmr\n"


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "wait.txt"
    path.write_text(WAIT_AT_THE_DOOR, encoding="utf-8")
    return load_reference(path)[0]


def episode(spec, human, helper):
    world = DKGWorld(spec)
    seats = {"human": human, "robot": helper}
    session = Session(world, seats, seed=0)
    session.run()
    return world, session


def test_the_kind_is_registered_for_dkg_with_its_parameters():
    kind = agent_kinds(listed=True)["cooperative"]
    assert kind.plays("dkg") and not kind.plays("kitchen") and "joint plan" in kind.summary
    assert isinstance(make_agent("cooperative:compliance=0.5"), CooperativeAgent)
    with pytest.raises(Exception, match="humans"):
        make_agent("planner:humans=nobody")


def test_the_cooperative_human_reaches_the_joint_optimum_where_the_planner_human_cannot(spec):
    assert joint_optimum(spec) == 19
    assert play(spec, helped=False)["length"] == 43
    assert helper_optimum(spec) == play(spec, helped=True)["length"] == 35  # the planner human at best
    assert play(spec, helped=True, human="cooperative")["length"] == 19
    assert joint_policy_helper(spec) == 19


def test_the_helper_predicts_the_human_by_its_seat_kind_and_the_prediction_is_what_happens(spec):
    helper = PlannerAgent()
    world, session = episode(spec, CooperativeAgent(), helper)
    assert helper.humans == Humans(frozenset({world.agent_index["human"]}))
    assert world.outcome(session.state)["length"] == 19
    # seated with a planner human, the same helper predicts a planner human
    helper = PlannerAgent()
    episode(spec, PlannerAgent(), helper)
    assert helper.humans == Humans()


def test_the_cooperative_human_acts_alone_once_the_helper_does_not_cooperate(spec):
    world = DKGWorld(spec)
    planner = planner_for(world)
    human = CooperativeAgent()
    _, session = episode(spec, human, PlanFollower([]))  # a helper that only waits
    steps = [e for e in session.events if e.type == "step"]
    states = [world.reset(0)]
    for e in steps:
        states.append(world.step(states[-1], e.joint_action).state)
    human_turns = [(s, e.joint_action["human"]) for s, e in zip(states, steps) if "human" in e.joint_action]
    # its first action is its part of the joint plan: towards the door, not its own key
    first_state, first = human_turns[0]
    assert first == joint_step(world, planner, first_state)[1] == "right"
    assert planner_action(world, planner, first_state, 0, Task.hold(world.goal_item[0])) == "left"
    # the robot's wait puts the joint plan's end off: from its next turn on it acts as the planner
    planned = joint_step(world, planner, first_state)[0]
    assert cooperative_action(world, planner, human_turns[1][0], planned) == (None, ALONE)
    assert human.memory[0] == ALONE
    for s, action in human_turns[1:]:
        assert action == planner_action(world, planner, s, 0, Task.hold(world.goal_item[0]))
    assert world.outcome(session.state)["length"] == 47  # its first step was wasted, and the step back


def test_a_cooperating_helper_is_never_judged_not_cooperating(spec):
    human = CooperativeAgent()
    world, session = episode(spec, human, PlannerAgent())
    assert ALONE not in human.memory and world.outcome(session.state)["length"] == 19


def test_a_helper_told_to_predict_a_planner_human_predicts_the_planner_human(spec):
    # the prediction follows the declared kind unless told otherwise; on this map both
    # predictions lead the helper to the same help (fetch the key, open the door), and only the
    # cooperative one foresees the human waiting at the door
    helper = make_agent("planner:humans=planner")
    world, session = episode(spec, CooperativeAgent(), helper)
    assert helper.humans == Humans()
    assert world.outcome(session.state)["length"] == 19
    planner = planner_for(world)
    after = world.step(world.reset(0), {"human": "right"}).state
    assert choose_help(world, planner, after, 1)[1][1] > 19
    humans = Humans(frozenset({0}))
    memory = humans.observe(world, planner, world.reset(0), humans.start(world))
    assert choose_help(world, planner, after, 1, humans=humans, memory=memory)[1] == (False, 19, -1)


def test_run_takes_the_cooperative_human_from_the_command_line_and_from_a_scenario_file(tmp_path, capsys):
    import json

    from main import main

    path = tmp_path / "wait.txt"
    path.write_text(WAIT_AT_THE_DOOR, encoding="utf-8")
    assert main(["dkg", "import", str(path), "--out", str(tmp_path / "out")]) == 0
    scenario = tmp_path / "out" / "wait.json"
    capsys.readouterr()
    code = main(["run", str(scenario), "--agents", "human=cooperative", "robot=planner", "--no-record"])
    out = capsys.readouterr().out
    assert code == 0 and "mean length 19.0 ticks" in out, out
    data = json.loads(scenario.read_text(encoding="utf-8"))
    data["start"] = {"agents": ["human=cooperative", "robot=planner"]}
    scenario.write_text(json.dumps(data), encoding="utf-8")
    # the seats a scenario file declares (what the app starts it with)
    from agents.registry import seat_specs
    from sim.registry import load_scenario_start

    world, _, start = load_scenario_start(str(scenario))
    seats = {a: make_agent(spec, "dkg") for a, spec in seat_specs(world.agents, start.agents).items()}
    session = Session(world, seats, seed=0)
    session.run()
    assert seats["human"].kind == "cooperative" and world.outcome(session.state)["length"] == 19


def test_without_a_helper_the_cooperative_kind_acts_alone_from_the_start():
    from sim.registry import load_scenario

    lengths = {}
    for kind in ("planner", "cooperative"):
        world, _ = load_scenario("two-rooms")
        seats = {a: make_agent(kind, "dkg") for a in world.agents}
        session = Session(world, seats, seed=0)
        session.run()
        lengths[kind] = [e.joint_action for e in session.events if e.type == "step"]
        if kind == "cooperative":
            assert all(seat.memory == (ALONE, ALONE) for seat in seats.values())
    assert lengths["planner"] == lengths["cooperative"]
