"""The household baselines beside RHP: CoELA-style ("send a message" among its planner's options), CaPo-style
(a meta-plan discussed at the start and on events) and MHP (MCTS over sub-goals with a location
belief): rules with known answers and whole episodes through the Session."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from agents.household.coela import CoELAAgent, parse_intent
from agents.household.mhp import MHPAgent
from agents.registry import agent_kinds, make_agent
from sim.events import ErrorEvent, MessageEvent, StepEvent
from sim.registry import load_scenario
from sim.seats import SeatContext
from sim.session import Session
from tests.test_household_episodes import explored, holding
from tests.test_household_world import tiny, world_of

ROOT = Path(__file__).resolve().parent.parent


def seat(cls, world, name: str, **params):
    agent = cls(**params)
    agent.reset(SeatContext(world=world, agent_id=name, seed=0, rng=np.random.default_rng(0),
                            emit=lambda e: None, clock=lambda: 0))
    return agent


def episode(kind: str, name: str, seed: int = 0) -> Session:
    world, scenario = load_scenario(str(ROOT / "scenarios" / "household" / f"{name}.json"))
    session = Session(world, {a: make_agent(kind, "household") for a in world.agents}, seed=seed, scenario=scenario)
    session.run()
    assert not [e for e in session.events if isinstance(e, ErrorEvent)], kind
    return session


def test_the_kinds_are_registered_for_the_household() -> None:
    kinds = agent_kinds()
    for name in ("rhp", "coela", "capo", "mhp", "cobel", "cobel-llm"):
        assert kinds[name].families == ("household",), name
    assert isinstance(make_agent("mhp:simulations=10,depth=3", "household"), MHPAgent)
    with pytest.raises(ValueError, match="rounds"):
        make_agent("capo:rounds=0", "household")


# ---------------------------------------------------------------- CoELA-style


def test_coela_writes_its_template_before_acting_and_its_partner_reads_it() -> None:
    w = world_of(tiny())
    s = explored(w, w.reset(0), "alice", "kitchen")
    alice, bob = seat(CoELAAgent, w, "alice"), seat(CoELAAgent, w, "bob")
    said = alice.act(w.observe(s, "alice"), w.legal_actions(s, "alice"))
    assert said == ("say I am in the kitchen. I explored the kitchen. I saw apple_1 at table, apple_2 at table, "
                    "banana_1 at table, bowl_1 at kitchen_floor, bread_1 at kitchen_floor. I am holding nothing. "
                    "I will grab bowl_1 in the kitchen.")
    assert alice.act(w.observe(s, "alice"), ()) == "grab bowl_1"  # never two messages in a row
    bob.read_message("alice", said[4:], 1)
    assert bob.claims["alice"] == ("fetch", "bowl_1", "kitchen") and bob.partner_explored["alice"] == {"kitchen"}
    assert bob.memory["apple_1"].at == "table" and bob.memory["apple_1"].told
    assert "bowl_1" in bob.avoided_objects() and bob.done_rooms() == {"kitchen"}


def test_coela_intents_parse_back() -> None:
    a = seat(CoELAAgent, world_of(tiny()), "alice")
    for intent in (("fetch", "apple_1", "kitchen"), ("explore", "bedroom"), ("look", "fridge", "kitchen"),
                   ("deliver", "bed"), ("pack", "apple_1")):
        assert parse_intent(a.intent_words(intent)) == intent


def test_a_clash_of_announced_intents_goes_to_the_first_agent_on_both_sides() -> None:
    w = world_of(tiny())
    alice, bob = seat(CoELAAgent, w, "alice"), seat(CoELAAgent, w, "bob")
    for me, other in ((alice, "bob"), (bob, "alice")):
        me.announced = ("fetch", "bowl_1", "kitchen")
        me.claims[other] = ("fetch", "bowl_1", "kitchen")
    assert alice.avoided_objects() == set() and bob.avoided_objects() == {"bowl_1"}


def test_coela_sends_a_message_when_its_planner_has_news_not_at_every_step() -> None:
    session = episode("coela", "household-wash-dishes-01")
    steps = [e.joint_action for e in session.events if isinstance(e, StepEvent)]
    for agent in session.world.agents:
        mine = [j[agent] for j in steps if agent in j]
        said = [a for a in mine if a.startswith("say")]
        assert not any(x.startswith("say") and y.startswith("say") for x, y in zip(mine, mine[1:]))
        assert 0 < len(said) < len(mine) // 2  # a message is one of its options, not a step of every decision
        assert all(" I searched " in a or " I saw " in a for a in said)  # each reports progress
    assert session.outcome()["success"]


def test_coela_stays_silent_when_nothing_is_new() -> None:
    w = world_of(tiny())
    s = explored(w, w.reset(0), "alice", "kitchen")
    alice = seat(CoELAAgent, w, "alice")
    assert alice.act(w.observe(s, "alice"), ()).startswith("say ")
    assert alice.act(w.observe(s, "alice"), ()) == "grab bowl_1"
    assert alice.act(w.observe(s, "alice"), ()) == "grab bowl_1"  # the same progress is not reported again


# ---------------------------------------------------------------- CaPo-style


def test_capo_opens_with_a_meta_plan_that_splits_the_rooms_and_the_other_agrees() -> None:
    session = episode("capo", "transport-food-low-01")
    messages = [e for e in session.events if isinstance(e, MessageEvent)]
    first = messages[0]
    assert first.sender == "alice" and first.text.startswith("Meta-plan 1. Step 1: alice explores ")
    assert "bob explores " in first.text
    reply = next(m for m in messages if m.sender == "bob")
    assert reply.text in ("I agree with meta-plan 1.",) or reply.text.startswith("Progress: ")
    assert any(m.text.startswith("Meta-plan 2.") for m in messages)  # re-planned on events
    alice = session.seats["alice"]
    rooms = [alice.assigned[a][0] for a in session.world.agents]
    assert not rooms[0] & rooms[1]


# ---------------------------------------------------------------- MHP


def test_mhp_packs_a_held_target_and_goes_home_late() -> None:
    w = world_of(tiny())
    s = holding(w, explored(w, w.reset(0), "alice", "kitchen"), "alice", "bowl_1", "apple_1")
    assert seat(MHPAgent, w, "alice").act(w.observe(s, "alice"), ()) == "putin apple_1 bowl_1"
    late = replace(holding(w, s, "alice", "apple_1"), time=2400)
    assert seat(MHPAgent, w, "alice").act(w.observe(late, "alice"), ()) == "walk bedroom"


def test_mhp_belief_spreads_unseen_targets_over_rooms_left_to_explore() -> None:
    w = world_of(tiny())
    s = explored(w, w.reset(0), "alice", "kitchen")
    agent = seat(MHPAgent, w, "alice")
    agent.remember(w.observe(s, "alice"))
    root = agent.belief(w.observe(s, "alice"))
    # 5 targets in all, 4 seen in the kitchen: 1 unseen, spread by places (livingroom 1 + 1, bedroom 1 + 1)
    assert dict(root.hidden) == pytest.approx({"livingroom": 0.5, "bedroom": 0.5})
    assert {k[0] for k in root.known} == {"apple_1", "apple_2", "banana_1", "bread_1", "bowl_1"}


def test_mhp_never_talks_finishes_household_tasks_and_is_determined_by_the_seed() -> None:
    a, b = episode("mhp", "household-prepare-meal-01", seed=2), episode("mhp", "household-prepare-meal-01", seed=2)
    assert a.outcome() == b.outcome() and a.outcome()["success"] and a.metrics()["messages"] == 0
