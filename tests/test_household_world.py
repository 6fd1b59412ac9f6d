"""Rules of the household world, with known answers: costs, hands, capacity, receptacles,
observation hiding, messages, illegal actions, simultaneous completion, delivery, the budget."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from sim.events import MessageEvent
from sim.household.scenario import validate_household
from sim.household.world import HouseholdWorld
from sim.registry import ScenarioError
from sim.seats import Agent
from sim.session import Session
from sim.world import IllegalAction


def tiny(kind: str = "transport", **extra: Any) -> dict[str, Any]:
    """kitchen (3,3) - livingroom (10,3) - bedroom (17,3): 7 m between neighbours."""
    data: dict[str, Any] = {
        "world": "household", "name": "tiny",
        "rooms": [{"id": "kitchen", "kind": "kitchen", "xy": [3, 3]},
                  {"id": "livingroom", "kind": "livingroom", "xy": [10, 3]},
                  {"id": "bedroom", "kind": "bedroom", "xy": [17, 3]}],
        "doors": [["kitchen", "livingroom"], ["livingroom", "bedroom"]],
        "places": [{"id": "table", "class": "kitchentable", "room": "kitchen", "kind": "surface"},
                   {"id": "fridge", "class": "fridge", "room": "kitchen", "kind": "receptacle",
                    "openable": True, "open": False},
                   {"id": "coffeetable", "class": "coffeetable", "room": "livingroom", "kind": "surface"},
                   {"id": "bed", "class": "bed", "room": "bedroom", "kind": "surface"}],
        "objects": [{"id": "apple_1", "class": "apple", "kind": "target", "at": "table"},
                    {"id": "apple_2", "class": "apple", "kind": "target", "at": "table"},
                    {"id": "banana_1", "class": "banana", "kind": "target", "at": "table"},
                    {"id": "bread_1", "class": "bread", "kind": "target", "at": "kitchen_floor"},
                    {"id": "milk_1", "class": "milk", "kind": "item", "at": "fridge"},
                    {"id": "bowl_1", "class": "bowl", "kind": "container", "at": "kitchen_floor"},
                    {"id": "pen_1", "class": "pen", "kind": "target", "at": "coffeetable"}],
        "agents": [{"id": "alice", "room": "kitchen"}, {"id": "bob", "room": "kitchen"}],
        "task": {"kind": "transport", "goal": "bed"},
    }
    if kind == "household":
        data["objects"] = [{"id": o["id"], "class": o["class"], "kind": "item", "at": o["at"]}
                           for o in data["objects"] if o["kind"] != "container"]
        data["task"] = {"kind": "household", "predicates": [
            {"relation": "ON", "object": "apple", "place": "coffeetable", "count": 2},
            {"relation": "IN", "object": "banana", "place": "fridge", "count": 1}]}
    data.update(extra)
    return data


def world_of(data: dict[str, Any]) -> HouseholdWorld:
    return HouseholdWorld(validate_household(data, "tiny.json"))


def run(world: HouseholdWorld, state, *plans: dict[str, str]):
    """Apply joint actions; agents not named in a plan entry wait."""
    result = None
    for plan in plans:
        joint = {a: plan.get(a, "wait") for a in world.active_agents(state)}
        result = world.step(state, joint)
        state = result.state
    return state, result


def go(world: HouseholdWorld, state, agent: str, *actions: str):
    """``agent`` does ``actions`` one after another (the others wait); returns when it is free again."""
    result = None
    for action in actions:
        assert agent in world.active_agents(state), f"{agent} is busy"
        state, result = run(world, state, {agent: action})
        while agent not in world.active_agents(state) and not world.done(state):
            state, result = run(world, state, {})
    return state, result


# ---------------------------------------------------------------- costs and time


def test_walking_costs_twenty_frames_per_metre_along_the_door_path() -> None:
    w = world_of(tiny())
    assert w.walk_cost("kitchen", "livingroom") == 140
    assert w.walk_cost("kitchen", "bedroom") == 280  # through the living room: 14 m
    s0 = w.reset(0)
    s, r = run(w, s0, {"alice": "walk bedroom"})
    # bob's wait (10 frames) completes first; alice is still on her way
    assert s.time == 10 and w.active_agents(s) == ("bob",)
    assert s.rooms[w.agent_index["alice"]] == w.room_index["kitchen"]
    while "alice" not in w.active_agents(s):
        s, r = run(w, s, {})
    assert s.time == 280 and w.observe(s, "alice").room == "bedroom"
    assert [e.kind for e in r.events] == ["walked"]


def test_household_actions_cost_one_step_each_and_agents_always_act_together() -> None:
    w = world_of(tiny("household"))
    s = w.reset(0)
    for plan in ({"alice": "walk bedroom", "bob": "explore"}, {"alice": "explore", "bob": "grab apple_1"}):
        t = s.time
        s, _ = run(w, s, plan)
        assert s.time == t + 1 and w.active_agents(s) == ("alice", "bob")
    assert s.t == 2 and w.observe(s, "bob").holding == ("apple_1", None)


def test_action_costs_of_transport_are_the_documented_ones() -> None:
    w = world_of(tiny())
    s = w.reset(0)
    assert {v: w.action_cost(s, "alice", a) for v, a in [("explore", "explore"), ("grab", "grab apple_1"),
                                                         ("put", "put apple_1 table"), ("wait", "wait")]} == \
        {"explore": 300, "grab": 180, "put": 80, "wait": 10}


# ---------------------------------------------------------------- observation hiding


def test_objects_are_seen_only_in_an_explored_room_and_not_inside_closed_receptacles() -> None:
    w = world_of(tiny("household"))
    s = w.reset(0)
    assert w.observe(s, "alice").objects == ()
    assert w.why_illegal(s, "alice", "grab apple_1") is None  # by name, unexplored: a report can be acted on
    assert "grab apple_1" not in w.legal_actions(s, "alice")  # the listed grabs are of what is in sight
    s, _ = run(w, s, {"alice": "explore"})
    seen = {o.id: o.at for o in w.observe(s, "alice").objects}
    assert seen == {"apple_1": "table", "apple_2": "table", "banana_1": "table", "bread_1": "kitchen_floor"}
    assert w.observe(s, "bob").objects == ()  # exploring is per agent
    assert "milk_1" not in seen and w.grab_problem(s, "alice", "milk_1") == \
        "milk_1 is out of reach (the fridge is closed)"
    s, _ = run(w, s, {"alice": "open fridge"})
    assert ("fridge", True) in w.observe(s, "alice").receptacles
    assert "milk_1" in {o.id for o in w.observe(s, "alice").objects}
    s, _ = run(w, s, {"alice": "close fridge"})
    assert "milk_1" not in {o.id for o in w.observe(s, "alice").objects}
    # the room stays explored: after a trip out and back the agent sees it again at once
    s, _ = run(w, s, {"alice": "walk livingroom"}, {"alice": "walk kitchen"})
    assert "apple_1" in {o.id for o in w.observe(s, "alice").objects}


def test_a_partner_and_what_it_holds_are_seen_only_in_the_same_room() -> None:
    w = world_of(tiny("household"))
    s, _ = run(w, w.reset(0), {"alice": "explore", "bob": "explore"}, {"bob": "grab apple_1"})
    obs = w.observe(s, "alice")
    assert obs.partners == (("bob", ("apple_1",)),)
    assert next(o for o in obs.objects if o.id == "apple_1").at == "agent:bob"
    s, _ = run(w, s, {"bob": "walk livingroom"})
    obs = w.observe(s, "alice")
    assert obs.partners == () and "apple_1" not in {o.id for o in obs.objects}
    assert w.observe(s, "bob").holding == ("apple_1", None)  # one's own things are always in view


# ---------------------------------------------------------------- hands, containers, receptacles


def test_two_hands_and_a_container_of_capacity_three() -> None:
    w = world_of(tiny())
    s, _ = go(w, w.reset(0), "alice", "explore", "grab bowl_1", "grab apple_1")
    assert w.observe(s, "alice").holding == ("bowl_1", "apple_1")
    assert w.why_illegal(s, "alice", "grab apple_2") == "both hands are full"
    s, _ = go(w, s, "alice", "putin apple_1 bowl_1", "grab apple_2", "putin apple_2 bowl_1", "grab banana_1",
              "putin banana_1 bowl_1")
    assert [w.objects[o].id for o in w.contents(s, w.object_index["bowl_1"])] == ["apple_1", "apple_2", "banana_1"]
    s, _ = go(w, s, "alice", "grab bread_1")
    assert w.why_illegal(s, "alice", "putin bread_1 bowl_1") == "bowl_1 is full (3 objects)"
    assert w.why_illegal(s, "alice", "putin bowl_1 bread_1") == \
        "bowl_1 is a container; containers do not go into containers"
    s, _ = go(w, s, "bob", "explore")
    assert w.grab_problem(s, "bob", "apple_1") == "apple_1 is inside bowl_1; objects stay in their container"
    assert w.grab_problem(s, "bob", "bowl_1") == "bowl_1 is already in alice's hand"
    assert w.why_illegal(s, "bob", "grab bowl_1") is None  # it may be tried: it fails when it completes


def test_a_container_on_the_bed_delivers_its_contents_and_delivered_objects_stay() -> None:
    w = world_of(tiny())
    s, res = go(w, w.reset(0), "alice", "explore", "grab bowl_1", "grab apple_1", "putin apple_1 bowl_1",
                "grab apple_2", "putin apple_2 bowl_1", "grab bread_1", "walk bedroom", "put bowl_1 bed")
    assert w.progress(s) == 2
    assert any(e.kind == "delivered" and e.data["count"] == 2 for e in res.events)
    s, _ = go(w, s, "alice", "put bread_1 bed")
    assert w.progress(s) == 3 and w.outcome(s)["transport_rate"] == pytest.approx(0.6)
    assert w.outcome(s)["agents"]["alice"]["delivered"] == 3
    s, _ = go(w, s, "alice", "explore")
    assert w.grab_problem(s, "alice", "bread_1") == "bread_1 is already delivered to bed"


def test_putin_receptacles_must_be_open_and_put_is_for_surfaces() -> None:
    w = world_of(tiny("household"))
    s, _ = run(w, w.reset(0), {"alice": "explore"}, {"alice": "grab banana_1"})
    assert w.why_illegal(s, "alice", "putin banana_1 fridge") == "fridge is closed; open it first"
    assert w.why_illegal(s, "alice", "put banana_1 fridge") == "fridge is a receptacle; use 'putin banana_1 fridge'"
    assert w.why_illegal(s, "alice", "putin banana_1 table") == "table is a surface; use 'put banana_1 table'"
    assert w.why_illegal(s, "alice", "open table") == "table does not open or close"
    assert w.why_illegal(s, "alice", "close fridge") == "fridge is already closed"
    s, _ = run(w, s, {"alice": "open fridge"}, {"alice": "putin banana_1 fridge"})
    assert w.progress(s) == 1


# ---------------------------------------------------------------- household goals


def test_household_success_counts_predicate_units_and_steps() -> None:
    w = world_of(tiny("household"))
    s, _ = run(w, w.reset(0),
               {"alice": "explore", "bob": "explore"},
               {"alice": "grab apple_1", "bob": "grab banana_1"},
               {"alice": "grab apple_2", "bob": "open fridge"},
               {"alice": "walk livingroom", "bob": "putin banana_1 fridge"},
               {"alice": "put apple_1 coffeetable"})
    assert w.progress(s) == 2 and not w.done(s)
    s, _ = run(w, s, {"alice": "put apple_2 coffeetable"})
    out = w.outcome(s)
    assert w.done(s) and out["success"] and out["steps"] == 6 and out["steps_to_finish"] == 6
    assert out["transport_rate"] == 1.0 and out["agents"]["alice"]["delivered"] == 2
    assert w.active_agents(s) == () and w.why_illegal(s, "alice", "wait") == "the episode is over"


def test_an_unfinished_household_task_counts_the_whole_budget() -> None:
    w = world_of(tiny("household", task={"kind": "household", "budget": 3, "predicates": [
        {"relation": "ON", "object": "apple", "place": "coffeetable", "count": 1}]}))
    s, _ = run(w, w.reset(0), {}, {}, {})
    assert w.done(s) and w.outcome(s)["steps_to_finish"] == 3 and not w.outcome(s)["success"]


def test_an_action_that_would_end_after_the_budget_never_completes() -> None:
    w = world_of(tiny(task={"kind": "transport", "goal": "bed", "budget": 200}))
    s, _ = run(w, w.reset(0), {"alice": "walk bedroom", "bob": "walk livingroom"})
    assert s.time == 140 and w.active_agents(s) == ("bob",)
    s, _ = run(w, s, {"bob": "explore"})  # alice would arrive at 280, bob finish at 440
    assert s.time == 200 and w.done(s)
    assert w.observe(s, "alice").room == "kitchen"


# ---------------------------------------------------------------- simultaneity and failures


def test_simultaneous_grabs_of_one_object_go_to_the_first_agent_and_the_other_fails() -> None:
    w = world_of(tiny("household"))
    s, r = run(w, w.reset(0), {"alice": "explore", "bob": "explore"}, {"alice": "grab apple_1", "bob": "grab apple_1"})
    assert w.observe(s, "alice").holding == ("apple_1", None)
    assert w.observe(s, "bob").holding == (None, None)
    assert [(e.kind, e.agent) for e in r.events] == [("grabbed", "alice"), ("failed", "bob")]
    assert w.observe(s, "bob").last_failure == "apple_1 is already in alice's hand"
    assert w.outcome(s)["agents"]["bob"]["failed"] == 1


def test_an_action_fails_when_the_world_changed_before_it_completed() -> None:
    w = world_of(tiny())
    s, _ = run(w, w.reset(0), {"alice": "explore", "bob": "explore"})  # both free at frame 300
    s, _ = run(w, s, {"alice": "wait", "bob": "grab apple_1"})  # bob's grab runs 300..480
    assert s.time == 310 and w.why_illegal(s, "alice", "grab apple_1") is None  # still on the table
    s, _ = run(w, s, {"alice": "grab apple_1"})  # alice's grab runs 310..490
    assert s.time == 480 and w.observe(s, "bob").holding == ("apple_1", None)
    s, r = run(w, s, {"bob": "wait"})
    assert s.time == 490 and [(e.kind, e.agent) for e in r.events] == [("failed", "alice")]
    assert w.observe(s, "alice").holding == (None, None)
    assert w.observe(s, "alice").last_failure == "apple_1 is already in bob's hand"
    assert w.outcome(s)["agents"]["alice"]["busy"] == 300 + 10 + 180  # the failed grab still took its time


# ---------------------------------------------------------------- messages


def test_transport_messages_cost_one_frame_per_started_500_characters_and_reach_the_inbox() -> None:
    w = world_of(tiny())
    s = w.reset(0)
    assert [w.message_cost("x" * n) for n in (1, 500, 501, 1000, 1001)] == [1, 1, 2, 2, 3]
    text = "apple on the table " * 30  # 570 characters
    action = w.message_action(s, "alice", text)
    assert action == "say " + text and w.action_cost(s, "alice", action) == 2
    s, r = run(w, s, {"alice": action, "bob": "explore"})
    assert s.time == 2 and len(r.messages) == 1
    m = r.messages[0]
    assert (m.sender, m.recipients, m.text, m.cost) == ("alice", ("bob",), text, 2.0)  # not cut in TDW-MAT
    # bob is busy exploring; the message waits in his inbox until he chooses again
    while "bob" not in w.active_agents(s):
        s, _ = run(w, s, {})
    assert w.observe(s, "bob").inbox == (("alice", text),)
    s, _ = run(w, s, {"bob": "wait"})
    assert w.observe(s, "bob").inbox == ()  # read when he chose
    assert w.outcome(s)["agents"]["alice"]["messages"] == 1 and w.outcome(s)["message_chars"] == 570


def test_household_messages_cost_a_step_and_are_cut_at_500_characters() -> None:
    w = world_of(tiny("household", agents=[{"id": "alice", "room": "kitchen"}, {"id": "bob", "room": "kitchen"},
                                           {"id": "carol", "room": "bedroom"}]))
    s = w.reset(0)
    action = w.message_action(s, "alice", "y" * 700, ["carol"])
    assert action.startswith("say@carol ")
    s, r = run(w, s, {"alice": action})
    assert s.time == 1 and r.messages[0].text == "y" * 500 and r.messages[0].cost == 1.0
    assert r.messages[0].recipients == ("carol",)
    assert w.observe(s, "carol").inbox == (("alice", "y" * 500),) and w.observe(s, "bob").inbox == ()
    assert w.message_action(s, "alice", "hi", ["bob", "carol"]) == "say hi"


def test_messages_reach_the_session_as_message_events_with_their_cost() -> None:
    class Talker(Agent):
        kind = "talker"

        def act(self, observation, legal_actions):
            return self.ctx.world.message_action(None, self.ctx.agent_id, "I am in the kitchen") \
                if observation.time == 0 else "wait"

    w = world_of(tiny())
    session = Session(w, {"alice": Talker(), "bob": Talker()}, seed=0, max_ticks=2)
    session.run()
    events = [e for e in session.events if isinstance(e, MessageEvent)]
    assert [(e.sender, e.recipients, e.cost, e.chars) for e in events] == \
        [("alice", ["bob"], 1.0, 19), ("bob", ["alice"], 1.0, 19)]
    assert session.counters["messages"] == 2 and session.counters["message_words"] == 10


# ---------------------------------------------------------------- why_illegal is the authority


@pytest.mark.parametrize("action, reason", [
    ("fly away", "unknown action 'fly'; actions are wait, walk, explore, grab, open, close, put, putin, say"),
    ("walk garden", "no room 'garden'; rooms are kitchen, livingroom, bedroom"),
    ("walk kitchen", "already in kitchen"),
    ("walk", "'walk': expected 'walk <room>'"),
    ("grab spoon_9", "no object 'spoon_9'"),
    ("put apple_1 table", "you do not hold apple_1"),
    ("open bed", "bed is not in kitchen"),
    ("say   ", "a message needs some text"),
    ("say@alice hello", "an agent does not message itself"),
    ("say@zed hello", "no agent 'zed' to send to (alice, bob)"),
    (42, "an action is a string such as 'walk kitchen', got 42"),
])
def test_illegal_actions_are_explained(action: Any, reason: str) -> None:
    w = world_of(tiny())
    s = w.reset(0)
    assert w.why_illegal(s, "alice", action) == reason
    assert not w.is_legal(s, "alice", action)
    with pytest.raises(IllegalAction, match="alice"):
        w.step(s, {"alice": action, "bob": "wait"})


def test_a_grab_of_an_object_elsewhere_may_be_tried_and_fails_when_it_completes() -> None:
    w = world_of(tiny())
    s = w.reset(0)
    assert w.why_illegal(s, "alice", "grab pen_1") is None and "grab pen_1" not in w.legal_actions(s, "alice")
    s, r = go(w, s, "alice", "grab pen_1")
    assert [(e.kind, e.data["reason"]) for e in r.events] == [("failed", "pen_1 is not in kitchen")]
    assert w.observe(s, "alice").last_failure == "pen_1 is not in kitchen" and s.time == 180
    assert w.outcome(s)["agents"]["alice"]["failed"] == 1


def test_a_busy_agent_may_not_act() -> None:
    w = world_of(tiny())
    s, _ = run(w, w.reset(0), {"alice": "walk bedroom"})
    assert w.legal_actions(s, "alice") == ()
    assert w.why_illegal(s, "alice", "wait") == "alice is still busy with 'walk bedroom' until 280"
    with pytest.raises(IllegalAction, match="active agents"):
        w.step(s, {"alice": "wait", "bob": "wait"})


def test_listed_legal_actions_are_legal_and_the_list_leaves_out_only_messages() -> None:
    w = world_of(tiny())
    rng = np.random.default_rng(3)
    s = w.reset(0)
    for _ in range(60):
        if w.done(s):
            break
        joint = {}
        for a in w.active_agents(s):
            legal = w.legal_actions(s, a)
            assert legal and all(w.why_illegal(s, a, x) is None for x in legal)
            assert not any(x.startswith("say") for x in legal) and w.is_legal(s, a, "say hello")
            joint[a] = legal[int(rng.integers(len(legal)))]
        s = w.step(s, joint).state
    assert s.t > 10


# ---------------------------------------------------------------- determinism and values


def test_states_are_immutable_values_with_stable_hashes() -> None:
    w = world_of(tiny())
    s0 = w.reset(0)
    before = w.state_hash(s0)
    s1, _ = run(w, s0, {"alice": "explore", "bob": "walk bedroom"})
    assert w.state_hash(s0) == before and s0 == w.reset(1)
    again, _ = run(world_of(tiny()), world_of(tiny()).reset(0), {"alice": "explore", "bob": "walk bedroom"})
    assert w.state_hash(again) == w.state_hash(s1) != before
    obs = w.observe(s1, "alice")
    assert w.observation_digest(obs) == w.observation_digest(w.observe(again, "alice"))
    with pytest.raises(AttributeError):
        s1.time = 5  # type: ignore[misc]


def test_outcome_and_render_text_are_plain() -> None:
    import json

    w = world_of(tiny())
    s = w.reset(0)
    out = w.outcome(s)
    assert json.loads(json.dumps(out)) == out
    assert out["transport_rate"] == 0.0 and out["total"] == 5 and out["frames"] == 0
    assert "bowl_1" in w.render_text(s) and "fridge [closed]: milk_1" in w.render_text(s)


# ---------------------------------------------------------------- scenario validation


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["doors"].append(["kitchen", "garden"]),
     "tiny.json: field 'doors[2][1]': expected a room id (kitchen, livingroom, bedroom), got 'garden'"),
    (lambda d: d.__setitem__("doors", [["kitchen", "livingroom"]]),
     "tiny.json: field 'doors': room 'bedroom' cannot be reached from 'kitchen'; expected a door path to every room"),
    (lambda d: d["task"].pop("goal"),
     "tiny.json: field 'task.goal': missing: a transport task needs the goal place id (e.g. the bed)"),
    (lambda d: d["task"].__setitem__("goal", "fridge"),
     "tiny.json: field 'task.goal': expected a surface place id (table, coffeetable, bed), got 'fridge'"),
    (lambda d: d["objects"].append({"id": "apple_1", "class": "apple", "at": "table"}),
     "tiny.json: field 'objects[7].id': 'apple_1' is already used by objects[0]; ids must be unique"),
    (lambda d: d["objects"][0].__setitem__("at", "shelf"),
     "tiny.json: field 'objects[0].at': expected a place id or a container id, got 'shelf'"),
    (lambda d: [o.__setitem__("at", "bowl_1") for o in d["objects"][:4]],
     "tiny.json: field 'objects[5]': container 'bowl_1' holds 4 objects, more than its capacity 3"),
    (lambda d: d["objects"][0].__setitem__("colour", "red"),
     "tiny.json: field 'objects[0].colour': unknown field; expected one of id, class, kind, at, capacity"),
    (lambda d: d["agents"][0].__setitem__("room", "attic"),
     "tiny.json: field 'agents[0].room': expected a room id (kitchen, livingroom, bedroom), got 'attic'"),
    (lambda d: d.__setitem__("category", "set-up-table"),
     "tiny.json: field 'category': expected one of food-low-capacity, food-high-capacity, stuff-low-capacity, "
     "stuff-high-capacity, false-belief for a transport task, got 'set-up-table'"),
])
def test_invalid_scenarios_name_the_file_and_the_field(edit, message: str) -> None:
    data = copy.deepcopy(tiny())
    edit(data)
    with pytest.raises(ScenarioError) as err:
        validate_household(data, "tiny.json")
    assert str(err.value) == message


def test_household_predicates_are_checked_against_the_scene() -> None:
    data = tiny("household")
    data["task"]["predicates"][0]["count"] = 3
    with pytest.raises(ScenarioError, match=r"field 'task.predicates\[0\].count': the predicates need 3 'apple' "
                                            r"objects but the scene has 2"):
        validate_household(data, "tiny.json")
    data = tiny("household")
    data["task"]["predicates"][1]["place"] = "table"
    with pytest.raises(ScenarioError, match="IN needs a receptacle, but 'table' is a surface"):
        validate_household(data, "tiny.json")
