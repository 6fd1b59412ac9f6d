"""k-level ToM planner agents of the kitchen (tom-cook) and the household (tom-helper): known
policies and predictions at each level on hand-made states, idle agents standing aside, the team
scenarios, and episodes with the teams mechanism that record and replay exactly."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agents.registry import AgentSpecError, make_agent, make_mechanism
from agents.teams.tom import TeamView, level_for_seat
from agents.teams.tom_household import HouseholdTeamPolicies, chosen_action
from agents.teams.tom_kitchen import KitchenTeam, KitchenTeamPolicies, seen_action
from sim.events import BeliefEvent, ErrorEvent, StepEvent, TeamEvent
from sim.household.scenario import validate_household
from sim.household.world import HouseholdWorld
from sim.kitchen.level import parse_kitchen_text
from sim.kitchen.world import KitchenWorld
from sim.recording import RecordingWriter, load_recording
from sim.registry import load_scenario
from sim.replay import Replay
from sim.session import Session

# al and bo cook in the hall; cy cooks in the alcove below, its onion (o) on the hall's side.
#          col 012345678
KITCHEN = """agent al: SimpleTomato
agent bo: SimpleLettuce
agent cy: SimpleOnion
collisions: {collisions}
map:
#t-l/pp-#
-.1..2..*
-.......-
o.......-
##-----##
##/.3.*##
##--p--##
"""
AL, BO, CY = 0, 1, 2


def kitchen(collisions: str = "share") -> KitchenWorld:
    return KitchenWorld(parse_kitchen_text(KITCHEN.format(collisions=collisions), "hall.kitchen.txt", "hall"))


def team_of(world, *members):
    return (KitchenTeam if isinstance(world, KitchenWorld) else TeamView)(world, list(members))


# ---------------------------------------------------------------------------------- kitchen


def test_kitchen_policies_at_each_level():
    world = kitchen()
    p = KitchenTeamPolicies(world)
    s = world.reset(0)
    everyone = KitchenTeam(world)
    assert p.stuck(s, CY) and not p.stuck(s, AL) and not p.stuck(s, BO)
    onion, counter = world.station_at[world.cell(3, 0)], world.station_at[world.cell(4, 3)]
    # al: 4 actions to pick the onion up from (3, 1), 3 more to leave it on the counter (4, 3)
    assert p.help_options(s, AL, everyone) == [(7, CY, onion, counter)]
    assert p.help_options(s, BO, everyone) == [(10, CY, onion, counter)]
    assert p.policy(0, s, AL, everyone) == "left"      # its own tomato at (0, 1)
    assert p.policy(1, s, AL, everyone) == "down"      # the onion for cy first
    assert p.policy(2, s, AL, everyone) == "left"      # expects bo (a level-1 in its model) to pass it
    assert p.policy(2, s, AL, team_of(world, "al", "cy")) == "down"  # nobody else can: it does
    assert p.policy(1, s, BO, team_of(world, "al", "cy")) == "stay"  # idle: stands aside
    assert p.policy(1, s, CY, everyone) == "stay"      # stuck in the alcove


def test_kitchen_predictions_at_each_level():
    world = kitchen()
    p = KitchenTeamPolicies(world)
    s = world.reset(0)
    everyone = KitchenTeam(world)
    # k = 0: the last move repeated; nothing to extrapolate from work at a station or no history
    assert p.predict(0, s, AL, everyone, [], 3) == ["stay"] * 3
    assert p.predict(0, s, AL, everyone, ["up", "left"], 3) == ["left"] * 3
    assert p.predict(0, s, AL, everyone, ["left", "work"], 2) == ["stay"] * 2
    # k = 1: al as a level-0 cook fetches its tomato, then heads for the hall's board (0, 4)
    assert p.predict(1, s, AL, everyone, [], 3) == ["left", "up", "right"]
    # k = 2: al as a level-1 cook fetches cy's onion
    assert p.predict(2, s, AL, everyone, [], 3) == ["down", "down", "left"]
    # an idle cook is predicted to stand aside at any level above 0; so is a stuck one
    assert p.predict(1, s, BO, team_of(world, "al", "cy"), ["left"], 2) == ["stay", "stay"]
    assert p.predict(2, s, CY, everyone, [], 2) == ["stay", "stay"]


def test_kitchen_pass_reaches_the_stuck_cook_and_seen_actions():
    world = kitchen()
    p = KitchenTeamPolicies(world)
    s = world.reset(0)
    everyone = KitchenTeam(world)
    before = s
    for _ in range(7):  # al, at level 1, carries the onion to the counter of cy's alcove
        s = world.step(s, {"al": p.policy(1, s, AL, everyone), "bo": "stay", "cy": "stay"}).state
    assert s.contents[world.station_at[world.cell(4, 3)]] == 7 and s.held[AL] == 0  # FreshOnion
    assert not p.stuck(s, CY) and p.own_job(s, CY).verb == "fetch"
    after = world.step(before, {"al": "down", "bo": "up", "cy": "up"}).state  # bo takes a plate
    assert [seen_action(world, before, after, a) for a in (AL, BO, CY)] == ["down", "work", "stay"]


def test_two_cooks_next_to_one_board_take_turns():
    world = kitchen()
    p = KitchenTeamPolicies(world)
    board = world.station_at[world.cell(0, 4)]
    s = replace(world.reset(0), positions=(world.cell(1, 4), world.cell(1, 4), world.cell(4, 4)), held=(1, 4, 0))
    everyone = KitchenTeam(world)
    turns = []
    for _ in range(2):
        joint = {"al": p.policy(0, s, AL, everyone), "bo": p.policy(0, s, BO, everyone), "cy": "stay"}
        turns.append(joint)
        s = world.step(s, joint).state
    assert turns[0] == {"al": "up", "bo": "stay", "cy": "stay"} and turns[1]["bo"] == "up"
    assert s.held[:2] == (2, 5) and s.contents[board] == 0  # both chopped, no clash


def test_idle_cooks_stand_aside_and_off_the_stations_where_agents_block():
    world = kitchen("block")
    p = KitchenTeamPolicies(world)
    s = world.reset(0)
    # bo next to the hall's top counters walks to a cell next to no station, then stays
    s = replace(s, positions=(s.positions[0], world.cell(1, 5), s.positions[2]))
    moves = []
    for _ in range(3):
        action = p.policy(1, s, BO, team_of(world, "al", "cy"))
        moves.append(action)
        s = world.step(s, {"al": "stay", "bo": action, "cy": "stay"}).state
    assert moves == ["down", "stay", "stay"] and s.positions[BO] == world.cell(2, 5)
    assert p.policy(1, s, BO, team_of(world, "al", "cy")) == "stay"
    assert KitchenTeamPolicies(kitchen("share")).aside(s, AL) == "stay"  # where cooks share cells, it just stays
    assert s.positions[BO] in p.parking


def _play(world, spec, mechanisms=(), seed=0):
    seats = {a: make_agent(spec, world.family) for a in world.agents}
    session = Session(world, seats, seed=seed, mechanisms=list(mechanisms))
    return session, session.run(), seats


def test_kitchen_episodes_at_each_level():
    world = kitchen()
    _, out, _ = _play(world, "tom-cook:k=1")
    assert out["success"]
    _, out, _ = _play(world, "tom-cook:k=0")  # nobody passes cy its onion
    assert out["delivered"]["cy"] is None and out["delivered"]["al"] and out["delivered"]["bo"]
    session, _, seats = _play(world, "tom-cook:k=cycle")
    assert [seats[a].level for a in world.agents] == [0, 1, 2]
    first = {}
    for e in session.events:
        if isinstance(e, BeliefEvent) and e.kind == "predictions":
            first.setdefault(e.owner, e.data)
    assert first["al"]["level"] == 0 and first["bo"]["level"] == 1 and first["cy"]["level"] == 2
    # after tick 0 (al left, bo down towards the onion), al's naive model repeats those moves
    assert first["al"]["about"] == {"bo": {"trajectory": ["down"] * 3}, "cy": {"trajectory": ["stay"] * 3}}
    skills = {e.owner: e.data["alpha"] for e in session.events if isinstance(e, BeliefEvent)
              and e.kind == "skill" and e.tick == 1}
    assert skills == {"al": 1.0, "bo": 1.0, "cy": 0.0}


def test_an_idle_cook_stands_aside_in_a_session():
    world = kitchen()
    mechanism = make_mechanism("random-teams:size=2", "kitchen")
    session, out, seats = _play(world, "tom-cook:k=1", [mechanism], seed=1)
    team = next(e for e in session.events if isinstance(e, TeamEvent)).teams["team"]
    idle = [a for a in world.agents if a not in team]
    assert len(idle) == 1 and all(seats[a].team.members == frozenset(world.agent_index[m] for m in team)
                                  for a in world.agents)
    actions = [e.joint_action[idle[0]] for e in session.events if isinstance(e, StepEvent) and e.tick >= 1]
    assert actions and set(actions) == {"stay"} and out["delivered"][idle[0]] is None


# -------------------------------------------------------------------------------- household

HOUSE = {
    "world": "household", "name": "three-rooms", "category": "set-up-table",
    "rooms": [{"id": "kitchen", "xy": [0, 0]}, {"id": "livingroom", "xy": [7, 0]}, {"id": "diningroom", "xy": [0, 7]}],
    "doors": [["kitchen", "livingroom"], ["kitchen", "diningroom"]],
    "places": [{"id": "kitchen_counter", "class": "counter", "room": "kitchen", "kind": "surface"},
               {"id": "livingroom_table", "class": "table", "room": "livingroom", "kind": "surface"},
               {"id": "diningroom_table", "class": "dinnertable", "room": "diningroom", "kind": "surface"}],
    "objects": [{"id": "plate_1", "class": "plate", "at": "kitchen_counter"},
                {"id": "plate_2", "class": "plate", "at": "livingroom_table"}],
    "agents": [{"id": "al", "room": "kitchen"}, {"id": "bo", "room": "kitchen"}, {"id": "cy", "room": "kitchen"}],
    "task": {"kind": "household", "budget": 40, "predicates": [
        {"relation": "ON", "object": "plate", "place": "diningroom_table", "count": 2}]},
}


@pytest.fixture
def house() -> HouseholdWorld:
    return HouseholdWorld(validate_household(HOUSE, "three-rooms.json"))


def explored(world: HouseholdWorld):
    """Everyone has explored the kitchen and the living room."""
    s = world.reset(0)
    return replace(s, explored=(0b011,) * 3)


def test_household_policies_at_each_level(house):
    p = HouseholdTeamPolicies(house)
    s = explored(house)
    everyone = TeamView(house)
    assert p.choice(0, s, BO, everyone) == ("grab plate_1", ("fetch", "plate_1", "kitchen"))
    # level 1: al, as a level-0 helper, takes plate_1 and gets it first (listed first); bo leaves it
    assert p.choice(1, s, BO, everyone) == ("walk livingroom", ("fetch", "plate_2", "livingroom"))
    assert p.choice(1, s, AL, everyone)[0] == "grab plate_1"      # nobody gets there before al
    assert p.choice(1, s, BO, team_of(house, "bo", "cy"))[0] == "grab plate_1"  # al idle: bo is first
    # level 2: al and bo, as level-1 helpers, take plate_1 and plate_2; cy looks for more
    assert p.choice(2, s, CY, everyone) == ("walk diningroom", ("explore", "diningroom"))
    assert p.choice(1, s, BO, team_of(house, "al", "cy")) == ("wait", ("wait",))  # idle


def test_household_predictions_at_each_level(house):
    p = HouseholdTeamPolicies(house)
    s = explored(house)
    everyone = TeamView(house)
    assert p.predict(0, s, BO, everyone, [], 2) == ["wait", "wait"]
    assert p.predict(0, s, BO, everyone, ["explore", "walk livingroom"], 2) == ["walk livingroom"] * 2
    assert p.predict(1, s, BO, everyone, [], 3) == ["grab plate_1", "walk diningroom", "put plate_1 diningroom_table"]
    assert p.predict(2, s, BO, everyone, [], 3) == ["walk livingroom", "grab plate_2", "walk diningroom"]
    assert p.predict(2, s, BO, team_of(house, "al", "cy"), ["grab plate_1"], 3) == ["wait"] * 3
    # a model knows only the rooms its helper explored: bo has seen nothing, so it explores
    fresh = replace(s, explored=(0b011, 0, 0b011))
    assert p.predict(1, fresh, BO, everyone, [], 1) == ["explore"]


def test_household_chosen_actions_are_read_off_the_states(house):
    s = explored(house)
    after = house.step(s, {"al": "grab plate_1", "bo": "walk livingroom", "cy": "wait"}).state
    assert [chosen_action(house, s, after, a) for a in (AL, BO, CY)] == ["grab plate_1", "walk livingroom", "wait"]
    later = house.step(after, {"al": "walk diningroom", "bo": "explore", "cy": "wait"}).state
    done = house.step(later, {"al": "put plate_1 diningroom_table", "bo": "wait", "cy": "wait"}).state
    assert chosen_action(house, later, done, AL) == "put plate_1 diningroom_table"


def test_household_episode_and_idle_helpers(house):
    _, out, _ = _play(house, "tom-helper:k=cycle")
    assert out["success"]
    mechanism = make_mechanism("random-teams:size=2", "household")
    session, out, seats = _play(house, "tom-helper:k=1", [mechanism], seed=2)
    team = next(e for e in session.events if isinstance(e, TeamEvent)).teams["team"]
    idle = [a for a in house.agents if a not in team]
    assert out["success"] and len(idle) == 1
    actions = [e.joint_action[idle[0]] for e in session.events if isinstance(e, StepEvent) and e.tick >= 1
               and idle[0] in e.joint_action]
    assert actions and set(actions) == {"wait"} and out["agents"][idle[0]]["delivered"] == 0


# ---------------------------------------------------------------------- specs and scenarios


def test_specs_and_cycle_levels():
    world = kitchen()
    assert [level_for_seat("cycle", world, a) for a in world.agents] == [0, 1, 2]
    for spec, family in (("tom-cook:k=3", "kitchen"), ("tom-cook:horizon=0", "kitchen"),
                         ("tom-helper:k=5", "household"), ("tom-helper:horizon=0", "household")):
        with pytest.raises(AgentSpecError, match=spec.split(":")[0]):
            make_agent(spec, family)
    with pytest.raises(AgentSpecError, match="does not play"):
        make_agent("tom-cook", "household")
    with pytest.raises(AgentSpecError, match="does not play"):
        make_agent("tom-helper", "kitchen")


@pytest.mark.parametrize("name, spec, mechanism", [
    ("kitchen-team-01-six", "tom-cook:k=cycle", "teams:theta=0.2"),
    ("kitchen-team-02-eight", "tom-cook:k=cycle", "teams"),
    ("house-team-01-six", "tom-helper:k=cycle", "teams"),
])
def test_team_scenarios_record_and_replay_exactly(tmp_path: Path, name, spec, mechanism):
    world, scenario = load_scenario(name)
    assert 5 <= len(world.agents) <= 8
    seats = {a: make_agent(spec, world.family) for a in world.agents}
    session = Session(world, seats, seed=0, mechanisms=[make_mechanism(mechanism, world.family)], scenario=scenario)
    writer = RecordingWriter.attach(session, tmp_path / "ep.jsonl")
    out = session.run()
    writer.close()
    assert not [e for e in session.events if isinstance(e, ErrorEvent)]
    teams = [e for e in session.events if isinstance(e, TeamEvent)]
    assert teams and teams[0].teams["team"] == list(world.agents)
    levels = {e.owner: e.data["level"] for e in session.events if isinstance(e, BeliefEvent) and e.kind == "predictions"}
    assert levels == {a: i % 3 for i, a in enumerate(world.agents)}

    replay = Replay(tmp_path / "ep.jsonl")
    assert replay.warnings == [] and replay.num_steps == session.tick
    assert world.state_hash(replay.state_at(session.tick)) == world.state_hash(session.state)
    recorded = load_recording(tmp_path / "ep.jsonl")
    assert [e for e in recorded.events if e.type == "team"] == [e for e in session.events if isinstance(e, TeamEvent)]

    # the same seats and seed play the same episode, event for event
    again = Session(world, {a: make_agent(spec, world.family) for a in world.agents}, seed=0,
                    mechanisms=[make_mechanism(mechanism, world.family)], scenario=scenario)
    assert again.run() == out
    assert [e.to_dict() for e in again.events] == [e.to_dict() for e in session.events]

    final = teams[-1].teams["team"]
    idle = [a for a in world.agents if a not in final]
    if world.family == "kitchen":
        if len(teams) > 1:
            assert idle and all(out["delivered"][a] is None for a in idle)
    else:
        assert out["success"]
        for a in idle:
            formed = teams[-1].tick
            assert {e.joint_action[a] for e in session.events if isinstance(e, StepEvent) and e.tick >= formed
                    and a in e.joint_action} <= {"wait"}


@pytest.mark.parametrize("name, spec", [("kitchen-team-01-six", "tom-cook:k=cycle"),
                                        ("house-team-01-six", "tom-helper:k=cycle")])
def test_seats_that_follow_the_episode_can_take_over_after_recorded_steps(name, spec):
    """The Session replays the steps of a taken-over episode to every seat (observe_state), so
    agents that predict from history take over as if they had watched from the start."""
    world, scenario = load_scenario(name)
    whole = Session(world, {a: make_agent(spec, world.family) for a in world.agents}, seed=0, scenario=scenario,
                    max_ticks=12)
    whole.run()
    steps = [e.joint_action for e in whole.events if isinstance(e, StepEvent)]
    taken = Session(world, {a: make_agent(spec, world.family) for a in world.agents}, seed=0, scenario=scenario,
                    max_ticks=12, prefix=steps[:6])
    taken.run()
    assert not [e for e in taken.events if isinstance(e, ErrorEvent)]
    assert [e.joint_action for e in taken.events if isinstance(e, StepEvent)] == steps[6:]
    assert world.state_hash(taken.state) == world.state_hash(whole.state)


@pytest.mark.slow
def test_the_kitchen_team_generator_writes_levels_the_cooks_can_do(tmp_path: Path, capsys):
    """generators/make_kitchen_teams.py: the shipped kitchen-team-03..18 are seed 61's
    levels; every level has its alcove cooks stuck without a pass (level 0) and every dish delivered
    by level-1 cooks; its command line writes elsewhere and refuses the hand-made numbers."""
    from generators import make_kitchen_teams as make

    assert make.main(["--check"]) == 0
    assert make.main(["--out", str(tmp_path), "--count", "2", "--seed", "3"]) == 0
    written = sorted(tmp_path.glob("*.kitchen.txt"))
    assert [p.name[:16] for p in written] == ["kitchen-team-03-", "kitchen-team-04-"]
    assert written[0].read_text() != (make.FOLDER / "kitchen-team-03-seven.kitchen.txt").read_text()  # another seed
    for path in written:
        world, _ = load_scenario(str(path))
        stuck = [a for a, goal in world.goals.items() if goal == "SimpleOnion"]
        assert len(stuck) == (3 if len(world.agents) >= 7 else 2)
        assert all(t is not None for t in make.delivered(world.spec(), 1).values())
        unhelped = make.delivered(world.spec(), 0)
        assert all(unhelped[a] is None for a in stuck)
    assert make.main(["--first", "1", "--count", "1"]) == 2  # 01 and 02 are hand-made
    assert "are not this generator's" in capsys.readouterr().err
