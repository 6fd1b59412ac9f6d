"""The collaborative belief world: Bayesian-style updates, belief rules, misalignments, snapshots."""

from __future__ import annotations

import json

import pytest

from agents.cobel.belief_world import (
    SNAPSHOT_KIND,
    BeliefRules,
    BeliefStore,
    BeliefWorld,
    Slot,
    misalignments,
    slot_of,
    team_misalignments,
)
from agents.cobel.sbl import Agent, Belief, Property, Relation, Thing, parse

ALICE, BOB, CAROL = Agent("alice"), Agent("bob"), Agent("carol")
KITCHEN, LIVING, BEDROOM, OFFICE = (Thing("kitchen", 1), Thing("living room", 2),
                                    Thing("bedroom", 3), Thing("office", 4))
APPLE, FRIDGE, BOWL = Thing("apple", 10), Thing("fridge", 20), Thing("bowl", 30)
ROOMS = (KITCHEN, LIVING, BEDROOM, OFFICE)


def at(agent, room):
    return Relation(agent, "AT", room)


def in_(thing, place):
    return Relation(thing, "IN", place)


def alice_and_bob():
    return BeliefWorld("alice", ["bob"]), BeliefWorld("bob", ["alice"])


# --------------------------------------------------------------------------- stores

def test_store_bayes_removes_a_ruled_out_place_and_renormalizes_the_rest():
    store = BeliefStore()
    store.set_candidates([in_(APPLE, room) for room in ROOMS], weights=[1, 1, 1, 2])
    assert store.p(in_(APPLE, OFFICE)) == pytest.approx(0.4)
    store.observe_false(in_(APPLE, OFFICE))           # p' = p / (1 - 0.4)
    assert [store.p(in_(APPLE, r)) for r in ROOMS] == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0])
    store.observe_false(in_(APPLE, KITCHEN))
    assert store.p(in_(APPLE, LIVING)) == pytest.approx(0.5)
    store.observe_true(in_(APPLE, BEDROOM))
    assert store.distribution(Slot("place", APPLE)) == {in_(APPLE, BEDROOM): 1.0}
    store.observe_false(in_(APPLE, BEDROOM))          # certain and wrong: now unknown
    assert store.distribution(Slot("place", APPLE)) == {}


def test_store_unknown_mass_stays_unknown_through_bayes_and_blending():
    store = BeliefStore()
    store.blend(in_(APPLE, KITCHEN), 0.6)             # 0.4 left unknown
    store.blend(in_(APPLE, LIVING), 0.5)
    assert store.p(in_(APPLE, KITCHEN)) == pytest.approx(0.3)
    assert store.p(in_(APPLE, LIVING)) == pytest.approx(0.5)
    store.observe_false(in_(APPLE, LIVING))           # 0.3 / 0.5; unknown 0.2 / 0.5
    assert store.p(in_(APPLE, KITCHEN)) == pytest.approx(0.6)
    with pytest.raises(ValueError):
        store.blend(in_(APPLE, KITCHEN), 1.5)
    with pytest.raises(ValueError, match="share one slot"):
        store.set_candidates([in_(APPLE, KITCHEN), in_(BOWL, KITCHEN)])


def test_slots_place_an_entity_once_whatever_the_predicate():
    assert slot_of(in_(APPLE, KITCHEN)) == slot_of(Relation(APPLE, "ON", Thing("table", 5)))
    assert slot_of(Relation(BOB, "HOLD", APPLE)) == Slot("place", APPLE)
    assert slot_of(Property(KITCHEN, "EXPLORATION_STATE", "all")) == Slot(
        "attribute", KITCHEN, "EXPLORATION_STATE")
    near = Relation(APPLE, "NEAR", BOWL)
    assert slot_of(near) == Slot("fact", APPLE, fact=near)


# --------------------------------------------------------------------------- observations

def test_exploring_rooms_narrows_the_location_belief_until_the_object_is_seen():
    alice = BeliefWorld("alice", ["bob"])
    alice.set_candidates(APPLE, [in_(APPLE, room) for room in ROOMS])
    alice.observe([at(ALICE, KITCHEN)])               # the kitchen is seen without the apple
    assert alice.location(APPLE) == pytest.approx(
        {in_(APPLE, LIVING): 1 / 3, in_(APPLE, BEDROOM): 1 / 3, in_(APPLE, OFFICE): 1 / 3})
    alice.observe([at(ALICE, LIVING)])
    assert alice.location(APPLE) == pytest.approx({in_(APPLE, BEDROOM): 0.5, in_(APPLE, OFFICE): 0.5})
    alice.observe([at(ALICE, OFFICE), in_(APPLE, OFFICE)])
    assert alice.location(APPLE) == {in_(APPLE, OFFICE): 1.0}
    # The agent's own place is one slot too: it is no longer in the kitchen.
    assert alice.zero.p(at(ALICE, KITCHEN)) == 0 and alice.zero.p(at(ALICE, OFFICE)) == 1


def test_an_object_seen_elsewhere_is_no_longer_believed_at_its_old_place():
    alice = BeliefWorld("alice", ["bob"])
    alice.observe([at(ALICE, KITCHEN), in_(APPLE, KITCHEN)])
    alice.observe([at(ALICE, BEDROOM), Relation(BOB, "HOLD", APPLE), at(BOB, BEDROOM)])
    assert alice.location(APPLE) == {Relation(BOB, "HOLD", APPLE): 1.0}
    assert alice.zero.p(in_(APPLE, KITCHEN)) == 0


def test_closed_receptacles_hide_their_contents_and_open_ones_do_not():
    alice = BeliefWorld("alice", [])
    alice.receive("bob", [in_(APPLE, FRIDGE)])        # bob is not modelled; alice trusts 0.9
    closed = [at(ALICE, KITCHEN), in_(FRIDGE, KITCHEN), Property(FRIDGE, "OPEN_STATE", "closed")]
    alice.observe(closed)
    assert alice.zero.p(in_(APPLE, FRIDGE)) == pytest.approx(0.9)
    alice.observe(closed[:2] + [Property(FRIDGE, "OPEN_STATE", "opened")])
    assert alice.zero.p(in_(APPLE, FRIDGE)) == 0


def test_what_a_seen_agent_holds_is_seen_including_inside_its_container():
    alice = BeliefWorld("alice", ["bob"])
    alice.zero.observe_true(Relation(APPLE, "INSIDE", BOWL))
    alice.observe([at(ALICE, KITCHEN), at(BOB, KITCHEN), Relation(BOB, "HOLD", BOWL)])
    assert alice.zero.p(Relation(APPLE, "INSIDE", BOWL)) == 0   # the bowl is seen empty
    assert alice.zero.p(Relation(BOB, "HOLD", BOWL)) == 1


def test_without_knowing_its_own_place_an_agent_rules_nothing_out():
    alice = BeliefWorld("alice", ["bob"])
    alice.zero.observe_true(in_(APPLE, KITCHEN))
    alice.observe([in_(BOWL, KITCHEN)])
    assert alice.zero.p(in_(APPLE, KITCHEN)) == 1
    alice.observe([in_(BOWL, KITCHEN)], seen_places=[KITCHEN])  # a world may say what was seen
    assert alice.zero.p(in_(APPLE, KITCHEN)) == 0


def test_a_partner_seen_in_the_room_is_believed_to_see_the_same():
    alice = BeliefWorld("alice", ["bob", "carol"])
    alice.observe([at(ALICE, KITCHEN), at(BOB, KITCHEN), in_(APPLE, KITCHEN), at(CAROL, LIVING)])
    bob = alice.model_of("bob")
    assert bob.p(in_(APPLE, KITCHEN)) == 1 and bob.p(at(ALICE, KITCHEN)) == 1
    assert alice.model_of("carol").items() == []      # carol is not here (another room's fact)
    with pytest.raises(KeyError, match="not a collaborator"):
        alice.model_of("dave")


# --------------------------------------------------------------------------- messages

def test_a_received_message_is_a_first_order_belief_and_trusted_evidence():
    alice = BeliefWorld("alice", ["bob"], trust=0.9)
    alice.set_candidates(APPLE, [in_(APPLE, KITCHEN), in_(APPLE, BEDROOM)])
    unused = alice.receive("bob", [parse("<apple>(10) IN <kitchen>(1)"),
                                   parse("bob BELIEVE <kitchen>(1) EXPLORATION_STATE all"),
                                   parse("carol BELIEVE <apple>(10) IN <bedroom>(3)")])
    assert alice.model_of("bob").p(in_(APPLE, KITCHEN)) == 1
    assert alice.model_of("bob").p(Property(KITCHEN, "EXPLORATION_STATE", "all")) == 1
    assert alice.zero.p(in_(APPLE, KITCHEN)) == pytest.approx(0.9 + 0.1 * 0.5)
    assert alice.zero.p(in_(APPLE, BEDROOM)) == pytest.approx(0.1 * 0.5)
    assert unused == (parse("carol BELIEVE <apple>(10) IN <bedroom>(3)"),)


def test_after_telling_a_partner_the_teller_believes_the_partner_believes_it():
    alice = BeliefWorld("alice", ["bob", "carol"])
    alice.send(["bob"], [parse("alice BELIEVE <apple>(10) IN <kitchen>(1)")])
    assert alice.model_of("bob").p(in_(APPLE, KITCHEN)) == 1
    assert alice.model_of("carol").p(in_(APPLE, KITCHEN)) == 0


def test_rules_are_data_that_can_be_switched_off():
    rules = BeliefRules().without("trust_message", "told_is_believed")
    sceptic = BeliefWorld("alice", ["bob"], rules=rules)
    sceptic.receive("bob", [in_(APPLE, KITCHEN)])
    sceptic.send(["bob"], [in_(BOWL, KITCHEN)])
    assert sceptic.zero.p(in_(APPLE, KITCHEN)) == 0
    assert sceptic.model_of("bob").p(in_(APPLE, KITCHEN)) == 1  # sender_believes_message is on
    assert sceptic.model_of("bob").p(in_(BOWL, KITCHEN)) == 0
    assert len(rules.texts()) == len(BeliefRules().texts()) - 2
    with pytest.raises(ValueError, match="not in this rule set"):
        BeliefRules().without("no_such_rule")


# --------------------------------------------------------------------------- misalignments

def test_conflict_and_false_belief_between_two_minds_mark_both_views():
    alice, bob = alice_and_bob()
    alice.observe([at(ALICE, KITCHEN), in_(APPLE, KITCHEN)])
    bob.observe([at(BOB, BEDROOM)])
    bob.receive("carol", [in_(APPLE, BEDROOM)])       # a stale rumour, trusted 0.9
    alice.send(["bob"], [Property(KITCHEN, "EXPLORATION_STATE", "all")])  # bob never heard it
    found = {(m.kind, m.agents, m.topic): m for m in misalignments(alice, bob)}
    conflict = found[("conflict", ("alice", "bob"), "place of <apple>(10)")]
    assert [(m.agent, m.order, m.text, m.present) for m in conflict.marks] == [
        ("alice", 0, "alice BELIEVE <apple>(10) IN <kitchen>(1)", True),
        ("bob", 0, "bob BELIEVE <apple>(10) IN <bedroom>(3)", True)]
    unheard = found[("false_belief", ("alice", "bob"), "EXPLORATION_STATE of <kitchen>(1)")]
    assert [(m.agent, m.order, m.about, m.text, m.present) for m in unheard.marks] == [
        ("alice", 1, "bob", "alice BELIEVE bob BELIEVE <kitchen>(1) EXPLORATION_STATE all", True),
        ("bob", 0, None, "bob BELIEVE <kitchen>(1) EXPLORATION_STATE all", False)]
    assert len(found) == 2


def test_same_place_by_another_predicate_is_not_a_misalignment():
    alice, bob = alice_and_bob()
    table = Thing("table", 5)
    alice.zero.observe_true(in_(APPLE, table))
    bob.zero.observe_true(Relation(APPLE, "ON", table))
    alice.model_of("bob").observe_true(in_(APPLE, table))
    assert misalignments(alice, bob) == []


def test_uncertain_beliefs_are_not_held_so_they_do_not_conflict():
    alice, bob = alice_and_bob()
    alice.set_candidates(APPLE, [in_(APPLE, room) for room in ROOMS])  # 0.25 each
    bob.zero.observe_true(in_(APPLE, OFFICE))
    assert misalignments(alice, bob) == []


def test_perceived_misalignments_in_one_agents_own_world():
    alice = BeliefWorld("alice", ["bob"])
    alice.observe([at(ALICE, KITCHEN), in_(APPLE, KITCHEN), in_(BOWL, KITCHEN)])
    alice.model_of("bob").observe_true(in_(APPLE, BEDROOM))
    kinds = [(m.kind, m.topic) for m in alice.perceived_misalignments()]
    assert kinds == [("perceived_conflict", "place of <apple>(10)")]
    with_topics = alice.perceived_misalignments(topics=[BOWL])
    unaware = [m for m in with_topics if m.kind == "unaware"]
    assert [m.topic for m in unaware] == ["place of <bowl>(30)"]
    assert unaware[0].marks[1].present is False


# --------------------------------------------------------------------------- snapshots

def test_snapshot_shape_changes_and_removals():
    alice = BeliefWorld("alice", ["bob"])
    alice.set_candidates(APPLE, [in_(APPLE, KITCHEN), in_(APPLE, BEDROOM), in_(APPLE, OFFICE)])
    first = alice.to_snapshot().to_dict()
    assert SNAPSHOT_KIND == "symbolic_beliefs"
    assert set(first) == {"agent", "zero_order", "first_order", "changed", "removed", "misaligned"}
    assert first["agent"] == "alice" and first["first_order"] == {"bob": []}
    assert first["zero_order"][0] == {"text": "alice BELIEVE <apple>(10) IN <bedroom>(3)",
                                      "atom": "<apple>(10) IN <bedroom>(3)", "p": 0.3333}
    assert len(first["changed"]) == 3 and first["removed"] == []
    alice.observe([at(ALICE, KITCHEN)])
    alice.send(["bob"], [in_(BOWL, KITCHEN)])
    second = alice.to_snapshot().to_dict()
    assert second["changed"] == ["alice BELIEVE <apple>(10) IN <bedroom>(3)",
                                 "alice BELIEVE <apple>(10) IN <office>(4)",
                                 "alice BELIEVE alice AT <kitchen>(1)",
                                 "alice BELIEVE bob BELIEVE <bowl>(30) IN <kitchen>(1)"]
    assert second["removed"] == ["alice BELIEVE <apple>(10) IN <kitchen>(1)"]
    assert alice.to_snapshot().changed == []       # nothing happened since
    json.dumps(second)                                # JSON-ready


def test_a_snapshot_restores_the_world_it_shows():
    alice = BeliefWorld("alice", ["bob"])
    alice.set_candidates(APPLE, [in_(APPLE, room) for room in ROOMS[:3]])
    alice.observe([at(ALICE, OFFICE), at(BOB, OFFICE), in_(BOWL, OFFICE)])
    snapshot = alice.to_snapshot(mark=False)
    restored = BeliefWorld.from_snapshot(json.loads(json.dumps(snapshot.to_dict())))
    again = restored.to_snapshot(mark=False)
    assert again.zero_order == snapshot.zero_order
    assert again.first_order == snapshot.first_order
    with pytest.raises(ValueError, match="expected a belief held by alice"):
        BeliefWorld.from_snapshot({"agent": "alice", "zero_order": [
            {"text": "bob BELIEVE <a>(1) IN <b>(2)", "p": 1.0}]})
    with pytest.raises(ValueError, match=r"zero_order\[0\]: line 1, column 22"):
        BeliefWorld.from_snapshot({"agent": "alice", "zero_order": [
            {"text": "alice BELIEVE <a>(1) UNDER <b>(2)", "p": 1.0}]})


def test_team_misalignments_from_snapshots_match_those_of_the_minds():
    alice, bob = alice_and_bob()
    alice.observe([at(ALICE, KITCHEN), in_(APPLE, KITCHEN)])
    bob.zero.observe_true(in_(APPLE, BEDROOM))
    alice.send(["bob"], [in_(APPLE, KITCHEN)])
    from_snapshots = team_misalignments([alice.to_snapshot(), bob.to_snapshot()])
    assert from_snapshots == [m.to_json() for m in misalignments(alice, bob)]
    assert {m["kind"] for m in from_snapshots} == {"conflict", "false_belief"}


def test_construction_errors_name_the_problem():
    with pytest.raises(ValueError, match="collaborator"):
        BeliefWorld("alice", ["alice"])
    with pytest.raises(ValueError, match="owner: agent name"):
        BeliefWorld("agent-1", [])
    with pytest.raises(TypeError, match="expected SBL atoms"):
        BeliefWorld("alice", []).observe([Belief((ALICE,), in_(APPLE, KITCHEN))])  # type: ignore[list-item]
