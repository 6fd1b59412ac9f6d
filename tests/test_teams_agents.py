"""k-level ToM planner agents of Doors, Keys and Gems teams: known predictions at each level on
hand-made states, the level-2 pitfall, idle agents standing aside, formation leaving out the
agents nobody can predict, and a human seat scored like any teammate."""

from __future__ import annotations

import dataclasses

import pytest

from agents.human.seat import HumanAgent
from agents.registry import AgentSpecError, make_agent, make_mechanism
from agents.teams.mechanism import TeamBroadcast
from agents.teams.tom import level_for_seat
from agents.teams.tom_dkg import DKGTeam, DKGTeamPolicies, infer_action, tom_planner
from experiments.teams import final_team_score
from sim.dkg.scenario import validate_dkg
from sim.dkg.world import DKGWorld
from sim.events import BeliefEvent, TeamEvent
from sim.session import Session, TickStatus

# al and bo walk the hall; cy is locked in below the red door, its gem (+) at the far left.
#   col: 0123456789AB
HALL = ["############",
        "#+..r.1.2*%#",
        "####R#######",
        "####3#######",
        "############"]


def hall_world(t_max: int = 60, order=("al", "bo", "cy")) -> DKGWorld:
    data = {"world": "dkg", "name": "hall", "map": HALL,
            "legend": {"#": "wall", ".": "floor", "+": {"gem": "cyan"}, "*": {"gem": "pink"}, "%": {"gem": "orange"},
                       "r": {"key": "red"}, "R": {"door": "red"},
                       "1": {"agent": "al"}, "2": {"agent": "bo"}, "3": {"agent": "cy"}},
            "goals": {"cy": "gem1", "al": "gem2", "bo": "gem3"},
            "options": {"t_max": t_max, "turn_order": list(order)}}
    return DKGWorld(validate_dkg(data, "hall"))


AL, BO, CY = 0, 1, 2


@pytest.fixture
def world() -> DKGWorld:
    return hall_world()


def test_policies_at_each_level(world):
    p = DKGTeamPolicies(world)
    s = world.reset(0)
    everyone = DKGTeam(world)
    assert p.stuck(s, CY) and not p.stuck(s, AL)
    assert p.freeing_doors(s, CY) == [0]
    # al: 2 steps to the key, pick it up, unlock from beside the door = 4 of its own actions
    assert p.help_options(s, AL, everyone) == [(4, CY, 0)]
    assert p.policy(0, s, AL, everyone) == "right"        # its own gem, nothing else
    assert p.policy(1, s, AL, everyone) == "left"         # frees cy first
    assert p.policy(2, s, AL, everyone) == "right"        # expects bo (a level-1 in its model) to free cy
    assert p.policy(2, s, AL, DKGTeam(world, ["al", "cy"])) == "left"  # nobody else can: it does
    assert p.policy(1, s, BO, DKGTeam(world, ["al", "cy"])) == "wait"  # idle: stands aside
    assert p.policy(0, s, CY, everyone) == "wait"         # locked in, already as close as it gets


def test_predictions_at_each_level(world):
    p = DKGTeamPolicies(world)
    s = world.reset(0)
    everyone = DKGTeam(world)
    # k = 0: the last move repeated; nothing to extrapolate from a pickup or an empty history
    assert p.predict(0, s, AL, everyone, [], 3) == ["wait"] * 3
    assert p.predict(0, s, AL, everyone, ["right", "left"], 3) == ["left"] * 3
    assert p.predict(0, s, AL, everyone, ["left", "pickup key1"], 2) == ["wait"] * 2
    # k = 1: al as a level-0 agent walks to its gem (1, 9) and picks it up
    assert p.predict(1, s, AL, everyone, [], 4) == ["right", "right", "right", "pickup gem2"]
    # k = 2: al as a level-1 agent fetches the key and frees cy
    assert p.predict(2, s, AL, everyone, [], 4) == ["left", "left", "pickup key1", "unlock door1"]
    # an idle agent is predicted to stand aside at any level above 0
    assert p.predict(1, s, BO, DKGTeam(world, ["al", "cy"]), ["left"], 2) == ["wait", "wait"]
    assert p.predict(2, s, CY, everyone, [], 2) == ["wait", "wait"]


def test_infer_action_reconstructs_what_the_other_did(world):
    s = world.reset(0)
    for action in ("left", "wait", "right"):
        after = world.step(s, {"al": action}).state
        assert infer_action(world, s, after) == action
    s1 = world.step(world.step(s, {"al": "left"}).state, {"bo": "left"}).state
    assert infer_action(world, s, s1) is None  # two steps apart


def _play(world, specs, mechanisms=(), seed=0):
    seats = {a: make_agent(spec, "dkg") for a, spec in zip(world.agents, specs)}
    session = Session(world, seats, seed=seed, mechanisms=list(mechanisms))
    return session, session.run(), seats


def test_level_one_frees_the_locked_in_teammate_and_two_level_twos_wait_for_each_other(world):
    _, out, _ = _play(world, ["tom-planner:k=1", "tom-planner:k=2", "tom-planner:k=0"])
    assert out["success"] and all(out["holding_goal"].values())
    # the seed-000 pitfall: each level-2 agent leaves the job to the other
    _, out, _ = _play(world, ["tom-planner:k=2", "tom-planner:k=2", "tom-planner:k=0"])
    assert out["holding_goal"] == {"al": True, "bo": True, "cy": False}


def test_snapshots_carry_predictions_level_and_skill(world):
    session, _, seats = _play(world, ["tom-planner:k=2", "tom-planner:k=1", "tom-planner:k=0"])
    first = {}
    for e in session.events:
        if isinstance(e, BeliefEvent) and e.kind == "predictions":
            first.setdefault(e.owner, e.data)
    # al acted first ("right"); at tick 1 its level-2 model of bo (a level-1 helper) goes for the key
    assert first["al"]["level"] == 2
    assert first["al"]["about"]["bo"]["trajectory"] == ["left", "left", "left"]
    assert first["al"]["about"]["cy"]["trajectory"] == ["wait", "wait", "wait"]
    assert first["bo"]["level"] == 1 and first["cy"]["level"] == 0
    skills = {e.owner: e.data["alpha"] for e in session.events if isinstance(e, BeliefEvent) and e.kind == "skill"
              and e.tick == 3}
    assert skills == {"cy": 0.0}  # cy acted at tick 2, still locked in
    assert seats["al"].predictions(world.reset(0)).about["bo"]["trajectory"] == ["left", "left", "left"]


def test_idle_agents_stand_aside_after_a_team_assignment(world):
    mechanism = make_mechanism("random-teams:size=2", "dkg")
    session, _, seats = _play(world, ["tom-planner:k=1"] * 3, [mechanism], seed=3)
    team = next(e for e in session.events if isinstance(e, TeamEvent)).teams["team"]
    idle = [a for a in world.agents if a not in team]
    assert len(idle) == 1
    # every agent heard the assignment; the idle one waited from then on
    assert all(seats[a].team.members == frozenset(world.agent_index[m] for m in team) for a in world.agents)
    idle_actions = [e.joint_action[idle[0]] for e in session.events
                    if getattr(e, "type", "") == "step" and idle[0] in e.joint_action and e.tick >= 3]
    assert idle_actions and set(idle_actions) == {"wait"}


def test_cycle_levels_and_bad_specs(world):
    assert [level_for_seat("cycle", world, a) for a in world.agents] == [0, 1, 2]
    assert level_for_seat(2, world, "al") == 2
    for spec in ("tom-planner:k=3", "tom-planner:horizon=0", "tom-planner:noise=2"):
        with pytest.raises(AgentSpecError, match="tom-planner"):
            make_agent(spec, "dkg")
    with pytest.raises(AgentSpecError, match="does not play"):
        make_agent("tom-planner", "kitchen")


# Six agents in an open hall, each with its gem straight ahead; two move at random.
OPEN = ["##########",
        "#1......a#",
        "#2......b#",
        "#3......c#",
        "#4......d#",
        "#5......e#",
        "#6......f#",
        "##########"]


def open_world() -> DKGWorld:
    names = ["p1", "p2", "p3", "p4", "r5", "r6"]
    legend = {"#": "wall", ".": "floor"}
    for i, (name, gem) in enumerate(zip(names, "abcdef")):
        legend[str(i + 1)] = {"agent": name}
        legend[gem] = {"gem": ["red", "blue", "yellow", "green", "purple", "orange"][i]}
    data = {"world": "dkg", "name": "open", "map": OPEN, "legend": legend,
            "goals": {n: f"gem{i + 1}" for i, n in enumerate(names)}, "options": {"t_max": 120}}
    return DKGWorld(validate_dkg(data, "open"))


def test_formation_picks_the_agents_whose_predictions_hold():
    world = open_world()
    specs = ["tom-planner:k=1"] * 4 + ["tom-planner:k=1,noise=1.0"] * 2
    mechanism = make_mechanism("teams:round_steps=6,max_size=eta", "dkg")
    session, _, _ = _play(world, specs, [mechanism], seed=1)
    teams = [e for e in session.events if isinstance(e, TeamEvent)]
    assert teams[0].teams["team"] == list(world.agents)
    assert len(teams) >= 2 and "re-formed" in teams[1].reason
    formed = set(teams[1].teams["team"])
    assert len(formed) == 3 and formed <= {"p1", "p2", "p3", "p4"}
    summary = mechanism.episode_summary()
    assert summary["team"] == teams[-1].teams["team"] and summary["teams_formed"] == len(teams)
    assert summary["levels"] == {a: 1 for a in world.agents}
    assert summary["bas_episode"] > 0.5


def test_skill_scores_reach_the_mechanism_and_a_human_seat_is_scored_like_the_others(world):
    policies = DKGTeamPolicies(world)
    human = HumanAgent()
    seats = {"al": make_agent("tom-planner:k=1", "dkg"), "bo": human, "cy": make_agent("tom-planner:k=0", "dkg")}
    mechanism = make_mechanism("teams:alpha=self,embedding=steps", "dkg")
    session = Session(world, seats, seed=0, mechanisms=[mechanism])
    while True:
        status = session.advance()
        if status is TickStatus.DONE:
            break
        if status is TickStatus.WAITING:  # the person plays bo: straight to its gem
            state = session.state
            human.submit(policies.own_goal_action(0, dataclasses.replace(state, turn=BO), BO, DKGTeam(world)))
    out = session.outcome()
    assert out["success"]
    team = mechanism.episode_summary()["team"]
    assert team == ["al", "bo", "cy"]  # everyone stayed aligned: the initial team of every agent
    assert mechanism.tracker.skills == {"al": 1.0, "cy": 1.0}  # cy was freed; the person reports none
    t_max = out["t_max"]  # the score's clock is the scenario's time limit, not the episode's length
    expected = sum(1 - out["goal_tick"][a] / t_max for a in team) / 3
    assert final_team_score("dkg", out, team) == pytest.approx(expected)
    # the person's gem counts: without it the score drops by its share
    without = dict(out, holding_goal={**out["holding_goal"], "bo": False})
    assert final_team_score("dkg", without, team) == pytest.approx(expected - (1 - out["goal_tick"]["bo"] / t_max) / 3)
    # the person heard the team assignment like everyone else, without any error
    assert session.counters["errors"] == 0
    assert any(isinstance(e, TeamEvent) for e in session.events)


def test_team_broadcast_reaches_idle_agents():
    b = TeamBroadcast(0, {"team": ("a", "b")}, "why", everyone=("a", "b", "c"))
    assert b.recipients() == ("a", "b", "c") and b.team_of("c") is None
    assert TeamBroadcast(0, {"team": ("a",)}, "why").recipients() == ("a",)


def test_agent_describes_itself():
    agent = tom_planner(k="cycle", horizon=2, noise=0.1)
    assert agent.describe() == {"kind": "tom-planner", "k": "cycle", "horizon": 2, "noise": 0.1}
