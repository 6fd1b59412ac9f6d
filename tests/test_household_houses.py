"""The houses set and what makes talk worth it there: a report is acted on without exploring (and a
wrong one is found out on arrival), the generator's houses (6-12 rooms, 2-4 agents), every
baseline and CoBel ablation playing a house, and the count of messages that changed a plan."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from agents.cobel.agent import CoBelAgent
from agents.household.coela import CoELAAgent
from agents.registry import make_agent
from sim.events import BeliefEvent, ErrorEvent, MessageEvent, StepEvent
from sim.household.world import HouseholdWorld
from sim.registry import load_scenario
from sim.seats import SeatContext
from sim.session import Session
from tests.test_household_world import run, tiny, world_of

ROOT = Path(__file__).resolve().parent.parent
HOUSES = ROOT / "scenarios" / "household" / "houses"


def seat(cls, world, name: str, **params):
    agent = cls(**params)
    agent.reset(SeatContext(world=world, agent_id=name, seed=0, rng=np.random.default_rng(0),
                            emit=lambda e: None, clock=lambda: 0))
    return agent


def told_world() -> HouseholdWorld:
    """tiny's household task, bob in the bedroom: he has explored nothing."""
    data = tiny("household")
    data["agents"] = [{"id": "alice", "room": "kitchen"}, {"id": "bob", "room": "bedroom"}]
    return world_of(data)


def follow(world: HouseholdWorld, state, agent, steps: int) -> tuple[list[str], object]:
    """Let ``agent`` act alone for ``steps`` steps (its partner waits); its actions and the state."""
    actions = []
    for _ in range(steps):
        obs = world.observe(state, agent.me)
        action = agent.act(obs, world.legal_actions(state, agent.me))
        actions.append(action)
        state, _ = run(world, state, {agent.me: action})
    return actions, state


# ---------------------------------------------------------------- a report is actionable


def test_the_world_lets_an_agent_grab_by_name_in_a_room_it_did_not_explore() -> None:
    w = told_world()
    s, _ = run(w, w.reset(0), {"bob": "walk kitchen"})
    assert not w.observe(s, "bob").room_explored and w.observe(s, "bob").objects == ()
    s, _ = run(w, s, {"bob": "grab apple_1"})
    assert w.observe(s, "bob").holding == ("apple_1", None)
    assert w.grab_problem(s, "bob", "milk_1") == "milk_1 is out of reach (the fridge is closed)"
    assert w.grab_problem(s, "bob", "pen_1") == "pen_1 is not in kitchen"


@pytest.mark.parametrize("cls", [CoELAAgent, CoBelAgent])
def test_an_agent_told_where_an_object_lies_goes_and_grabs_it_without_exploring(cls) -> None:
    w = told_world()
    bob = seat(cls, w, "bob")
    s = w.reset(0)
    obs = w.observe(s, "bob")
    assert bob.act(obs, w.legal_actions(s, "bob")) == "explore"  # alone, it would search its room first
    bob = seat(cls, w, "bob")
    if cls is CoELAAgent:
        text = "I am in the kitchen. I saw apple_1 at table, apple_2 at table. I am holding nothing. I will explore the fridge."
    else:
        n = bob.names  # alice leaves the apples to whoever comes: she goes on exploring
        text = (f"alice AT {n.room('kitchen')}\nalice WILL_EXPLORE {n.room('livingroom')}\n"
                f"{n.placement('apple_1', 'table')}\n{n.placement('apple_2', 'table')}")
    told = replace(obs, inbox=(("alice", text),))
    actions = [bob.act(told, w.legal_actions(s, "bob"))]
    s, _ = run(w, s, {"bob": actions[0]})
    more, s = follow(w, s, bob, 2)
    actions += more
    assert actions[0] == "walk kitchen" and sorted(actions[1:]) == ["grab apple_1", "grab apple_2"], actions
    assert "explore" not in actions and not w.observe(s, "bob").room_explored
    assert sorted(w.observe(s, "bob").holding) == ["apple_1", "apple_2"]


@pytest.mark.parametrize("cls", [CoELAAgent, CoBelAgent])
def test_a_wrong_report_is_found_out_on_arrival_and_forgotten(cls) -> None:
    w = told_world()
    s = w.reset(0)
    # apple_1 was moved to the coffee table before bob arrives: the report is stale
    locs = list(s.locs)
    locs[w.object_index["apple_1"]] = w.place_index["coffeetable"]
    s = replace(s, locs=tuple(locs))
    bob = seat(cls, w, "bob")
    if cls is CoELAAgent:
        text = "I am in the kitchen. I saw apple_1 at table. I am holding nothing. I will explore the fridge."
    else:
        n = bob.names
        text = f"alice AT {n.room('kitchen')}\nalice WILL_EXPLORE {n.room('livingroom')}\n{n.placement('apple_1', 'table')}"
    obs = replace(w.observe(s, "bob"), inbox=(("alice", text),))
    first = bob.act(obs, ())
    s, _ = run(w, s, {"bob": first})
    actions, s = follow(w, s, bob, 2)
    assert [first, *actions] == ["walk kitchen", "grab apple_1", actions[1]]
    assert w.observe(s, "bob").last_failure in ("", "apple_1 is not in kitchen")
    assert "apple_1" not in bob.memory or bob.memory["apple_1"].at != "table"  # no longer believed there
    assert actions[1] != "grab apple_1"  # it plans again rather than retrying
    if cls is CoBelAgent:
        table = bob.names.placement("apple_1", "table")
        assert bob.beliefs.zero.p(table) == 0.0


# ---------------------------------------------------------------- the houses set


def _generator():
    from generators import make_household_episodes

    return make_household_episodes


def test_the_houses_are_the_generators_output_with_6_to_12_rooms_and_2_to_4_agents() -> None:
    gen = _generator()
    houses = gen.generate_houses()
    assert houses == gen.generate_houses()
    assert sorted(houses) == sorted(p.name for p in HOUSES.glob("*.json"))
    for name, episode in houses.items():
        assert (HOUSES / name).read_text(encoding="utf-8") == gen.render(episode), f"{name} is stale"
    kinds: dict[tuple[str, int], int] = {}
    rooms = set()
    for path in sorted(HOUSES.glob("*.json")):
        world, _ = load_scenario(str(path))
        assert isinstance(world, HouseholdWorld)
        assert 6 <= len(world.room_ids) <= 12 and 2 <= len(world.agents) <= 4, path.name
        assert len({world.room_of_place(f"{r}_floor") for r in world.room_ids}) == len(world.room_ids)
        assert len({s for s in world.reset(0).rooms}) == 1  # the agents start together
        kinds[(world.task, len(world.agents))] = kinds.get((world.task, len(world.agents)), 0) + 1
        rooms.add(len(world.room_ids))
        if world.task == "household":
            assert 5 <= world.total_goals <= 8 and world.walk_cost(0, 1) >= 1
            assert max(world.walk_cost(a, b) for a in range(len(world.room_ids))
                       for b in range(len(world.room_ids))) > 1  # walking far costs more than one step
            placed = {world.places[loc].room for o, loc in enumerate(world.reset(0).locs)
                      if any(world.objects[o].cls == cls for _, cls, _, _ in world.predicates)}
            assert len(placed) >= 2  # the needed objects are spread over rooms
        else:
            per_room: dict[int, int] = {}
            for o in world.targets:
                room = world.places[world.reset(0).locs[o]].room
                per_room[room] = per_room.get(room, 0) + 1
            assert max(per_room.values()) <= 3 and len(per_room) >= 4
    assert kinds == {("transport", 2): 24, ("household", 2): 20, ("household", 3): 10, ("household", 4): 10}
    assert min(rooms) == 6 or max(rooms) == 12
    easy = gen.generate()["household-prepare-tea-01.json"]  # a 4-room home of the easy set
    with pytest.raises(ValueError, match="expected 6-12 rooms, found 4"):
        gen.check_house(easy, "easy.json")


def test_the_unseen_houses_are_the_generators_output_and_apart_from_the_houses_set() -> None:
    gen = _generator()
    unseen = gen.generate_unseen()
    folder = HOUSES.parent / "unseen"
    assert sorted(unseen) == sorted(p.name for p in folder.glob("*.json")) and len(unseen) == 16
    for name, episode in unseen.items():
        assert (folder / name).read_text(encoding="utf-8") == gen.render(episode), f"{name} is stale"
    assert sum("transport" in name for name in unseen) == 8
    houses = [json.loads(p.read_text(encoding="utf-8")) for p in HOUSES.glob("*.json")]
    rooms_of = {json.dumps(h["rooms"]) for h in houses}
    assert not any(json.dumps(e["rooms"]) in rooms_of for e in unseen.values())  # other houses


def test_the_voi_houses_are_the_generators_output_and_apart_from_the_other_sets() -> None:
    gen = _generator()
    voi = gen.generate_voi()
    folder = HOUSES.parent / "voi"
    assert sorted(voi) == sorted(p.name for p in folder.glob("*.json")) and len(voi) == 10
    for name, episode in voi.items():
        assert (folder / name).read_text(encoding="utf-8") == gen.render(episode)
    assert all(e["task"]["kind"] == "household" and len(e["agents"]) == 2 for e in voi.values())
    rooms_of = {json.dumps(e["rooms"]) for e in [*gen.generate_houses().values(), *gen.generate_unseen().values()]}
    assert not any(json.dumps(e["rooms"]) in rooms_of for e in voi.values())  # other houses


def test_the_house_plans_are_connected_grid_houses_of_the_asked_size() -> None:
    gen = _generator()
    rng = np.random.default_rng(3)
    for size in (6, 9, 12):
        plan = gen.house_plan(rng, size)
        assert len(plan["rooms"]) == size and sum(1 for r in plan["rooms"] if r[1] == "bedroom") == 1
        assert len(plan["doors"]) >= size - 1
    with pytest.raises(ValueError, match="4 to 12 rooms"):
        gen.house_plan(rng, 13)


# ---------------------------------------------------------------- every method plays a house


def play(kind: str, name: str, seed: int = 0) -> Session:
    world, scenario = load_scenario(str(HOUSES / f"{name}.json"))
    session = Session(world, {a: make_agent(kind, "household") for a in world.agents}, seed=seed, scenario=scenario)
    session.run()
    assert not [e for e in session.events if isinstance(e, ErrorEvent)], kind
    return session


@pytest.mark.parametrize("kind", ["rhp", "mhp", "coela", "capo", "cobel", "cobel:messages=false",
                                  "cobel:intents=false", "cobel:first_order=false"])
def test_every_method_finishes_a_house_task_and_moves_targets(kind: str) -> None:
    household = play(kind, "house-set-up-table-01")
    assert household.outcome()["success"]
    transport = play(kind, "house-transport-food-high-01")
    assert transport.outcome()["reached"] > 0
    metrics = household.metrics()
    assert 0 <= metrics["message_changed_plan"] <= metrics["message_reads"]
    if kind in ("rhp", "mhp", "cobel:messages=false"):
        assert metrics["messages"] == 0 and metrics["message_reads"] == 0


@pytest.mark.parametrize("kind", ["coela", "capo", "cobel"])
def test_three_and_four_agents_play_a_house(kind: str) -> None:
    for n in (3, 4):
        session = play(kind, f"house-wash-dishes-01-{n}agents")
        assert session.outcome()["success"] and len(session.outcome()["agents"]) == n


def test_read_messages_change_the_readers_plan_some_of_the_time() -> None:
    session = play("coela", "house-prepare-meal-01")
    metrics = session.metrics()
    said = sum(1 for e in session.events if isinstance(e, MessageEvent))
    assert metrics["message_reads"] > 0 and said > 0
    assert 0 < metrics["message_changed_plan"] <= metrics["message_reads"]


# ---------------------------------------------------------------- the ablations act differently


def joint_actions(session: Session) -> list[dict[str, str]]:
    return [e.joint_action for e in session.events if isinstance(e, StepEvent)]


def test_the_ablation_switches_change_what_cobel_does() -> None:
    name = "house-transport-food-high-04"
    full = play("cobel", name)
    silent = play("cobel:messages=false", name)
    no_bbc = play("cobel:intents=false", name)
    no_first = play("cobel:first_order=false", name)
    assert full.metrics()["messages"] > 0 and silent.metrics()["messages"] == 0
    for other in (silent, no_bbc, no_first):
        assert joint_actions(other) != joint_actions(full)
    intents = [e.data for e in no_bbc.events if isinstance(e, BeliefEvent) and e.kind == "intents"]
    assert all(not hyps for d in intents for hyps in d["about"].values())  # no intent hypotheses
    full_intents = [e.data for e in full.events if isinstance(e, BeliefEvent) and e.kind == "intents"]
    assert any(hyps for d in full_intents for hyps in d["about"].values())
    beliefs = [e.data for e in no_first.events if isinstance(e, BeliefEvent) and e.kind == "symbolic_beliefs"]
    assert all(not rows for d in beliefs for rows in d["first_order"].values())  # no model of partners
    full_beliefs = [e.data for e in full.events if isinstance(e, BeliefEvent) and e.kind == "symbolic_beliefs"]
    assert any(rows for d in full_beliefs for rows in d["first_order"].values())
    assert make_agent("cobel:messages=false,intents=false", "household").describe()["intents"] is False
