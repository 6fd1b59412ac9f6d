"""Every rule of the partially observable kitchen (ProToM, seed 003: Section 4.1, Appendix A.1,
the environment text of Figure A8; gym-cooking's interactions), on small hand-made levels."""

from __future__ import annotations

import dataclasses

import pytest

from sim.kitchen.level import parse_kitchen_text
from sim.kitchen.world import ITEM_CODE, KitchenState, KitchenWorld
from sim.world import IllegalAction

NOTHING = 0


def make(rows: list[str], goals: tuple[str, ...] = ("SimpleTomato", "SimpleLettuce"),
         collisions: str = "share", t_max: int = 100, rules: int = 2) -> KitchenWorld:
    names = ("alice", "bob", "carol")[:len(goals)]
    header = [f"agent {n}: {g}" for n, g in zip(names, goals)]
    text = "\n".join([*header, f"collisions: {collisions}", f"t_max: {t_max}", f"rules: {rules}", "map:",
                      *rows]) + "\n"
    return KitchenWorld(parse_kitchen_text(text, "hand-made.kitchen.txt", "hand-made"))


def put(world: KitchenWorld, state: KitchenState, *, held: dict[str, str] | None = None,
        at: dict[tuple[int, int], str] | None = None, where: dict[str, tuple[int, int]] | None = None) -> KitchenState:
    """``state`` with objects in hands, on stations and agents moved, for one rule at a time."""
    hands = list(state.held)
    for agent, item in (held or {}).items():
        hands[world.agent_index[agent]] = ITEM_CODE[item]
    contents = list(state.contents)
    for (r, c), item in (at or {}).items():
        contents[world.station_at[world.cell(r, c)]] = ITEM_CODE[item]
    positions = list(state.positions)
    for agent, (r, c) in (where or {}).items():
        positions[world.agent_index[agent]] = world.cell(r, c)
    return dataclasses.replace(state, held=tuple(hands), contents=tuple(contents), positions=tuple(positions))


def step(world: KitchenWorld, state: KitchenState, **actions: str) -> KitchenState:
    joint = {a: actions.get(a, "stay") for a in world.agents}
    return world.step(state, joint).state


def holding(world: KitchenWorld, state: KitchenState, agent: str) -> str:
    from sim.kitchen.world import ITEM_NAMES
    return ITEM_NAMES[state.held[world.agent_index[agent]]]


def on(world: KitchenWorld, state: KitchenState, r: int, c: int) -> str:
    from sim.kitchen.world import ITEM_NAMES
    return ITEM_NAMES[state.contents[world.station_at[world.cell(r, c)]]]


def at(world: KitchenWorld, state: KitchenState, agent: str) -> tuple[int, int]:
    return world.rc(state.positions[world.agent_index[agent]])


# One room: a counter row on top with a tomato and a plate, a board on the left, delivery right.
ROOM = ["#-tp-l#",
        "/1...2*",
        "#--p--#"]


@pytest.fixture
def room() -> KitchenWorld:
    return make(ROOM)


# ----------------------------------------------------------------------------- interactions

def test_moving_into_a_counter_picks_up_what_lies_there(room):
    s = put(room, room.reset(0), where={"alice": (1, 2)})
    s = step(room, s, alice="up")
    assert holding(room, s, "alice") == "FreshTomato"
    assert on(room, s, 0, 2) == "nothing"
    assert at(room, s, "alice") == (1, 2)  # working a station never moves the agent


def test_holding_something_into_an_empty_counter_puts_it_down(room):
    s = put(room, room.reset(0), held={"alice": "FreshTomato"})  # alice at (1, 1), counter (0, 1) empty
    s = step(room, s, alice="up")
    assert holding(room, s, "alice") == "nothing"
    assert on(room, s, 0, 1) == "FreshTomato"


def test_a_fresh_ingredient_into_an_empty_board_is_chopped_in_hand(room):
    s = put(room, room.reset(0), held={"alice": "FreshTomato"})
    result = room.step(s, {"alice": "left", "bob": "stay"})
    assert holding(room, result.state, "alice") == "ChoppedTomato"
    assert on(room, result.state, 1, 0) == "nothing"
    assert [(e.kind, e.agent, e.data["item"]) for e in result.events] == [("chop", "alice", "FreshTomato")]


def test_anything_else_into_an_empty_board_is_put_down_there(room):
    s = put(room, room.reset(0), held={"alice": "Plate"})
    s = step(room, s, alice="left")
    assert on(room, s, 1, 0) == "Plate" and holding(room, s, "alice") == "nothing"


def test_a_full_board_is_not_a_knife(room):
    s = put(room, room.reset(0), held={"alice": "FreshLettuce"}, at={(1, 0): "Plate"})
    s = step(room, s, alice="left")
    assert holding(room, s, "alice") == "FreshLettuce" and on(room, s, 1, 0) == "Plate"


@pytest.mark.parametrize("hand, counter, result", [
    ("ChoppedTomato", "Plate", "ChoppedTomato-Plate"),
    ("Plate", "ChoppedLettuce", "ChoppedLettuce-Plate"),
    ("ChoppedOnion", "Plate", "ChoppedOnion-Plate"),
])
def test_chopped_and_plate_merge_into_the_hand(room, hand, counter, result):
    s = put(room, room.reset(0), held={"alice": hand}, at={(0, 1): counter})
    s = step(room, s, alice="up")
    assert holding(room, s, "alice") == result
    assert on(room, s, 0, 1) == "nothing"


@pytest.mark.parametrize("hand, counter", [
    ("FreshTomato", "Plate"),              # fresh must be chopped first
    ("Plate", "FreshTomato"),
    ("Plate", "Plate"),
    ("ChoppedTomato", "ChoppedLettuce"),   # no salads here
    ("ChoppedTomato-Plate", "ChoppedTomato"),
])
def test_objects_that_do_not_merge_stay_as_they_are(room, hand, counter):
    s = put(room, room.reset(0), held={"alice": hand}, at={(0, 1): counter})
    after = room.step(s, {"alice": "up", "bob": "stay"})
    assert holding(room, after.state, "alice") == hand and on(room, after.state, 0, 1) == counter
    assert after.events == ()


def test_delivering_ones_own_dish_completes_ones_goal(room):
    # bob wants SimpleLettuce and stands next to the delivery station at (1, 6)
    s = put(room, room.reset(0), held={"bob": "ChoppedLettuce-Plate"})
    s = dataclasses.replace(s, t=7)
    after = room.step(s, {"alice": "stay", "bob": "right"})
    assert holding(room, after.state, "bob") == "nothing"
    assert after.state.delivered == (-1, 8)  # the tick of the state the delivery led to
    assert after.events[0].kind == "deliver" and after.events[0].data["recipe"] == "SimpleLettuce"
    assert not room.done(after.state)


def test_another_agents_dish_or_an_unfinished_one_cannot_be_delivered(room):
    for item in ("ChoppedTomato-Plate", "ChoppedLettuce", "Plate"):  # bob wants lettuce
        s = put(room, room.reset(0), held={"bob": item})
        s = step(room, s, bob="right")
        assert holding(room, s, "bob") == item and s.delivered == (-1, -1)


def test_a_second_dish_after_ones_goal_is_refused():
    world = make(["#-t-l-#", "/1...2*", "#-p-p-#"], goals=("SimpleTomato", "SimpleLettuce"))
    s = put(world, world.reset(0), held={"bob": "ChoppedLettuce-Plate"})
    s = step(world, s, bob="right")
    s = put(world, s, held={"bob": "ChoppedLettuce-Plate"})
    s = step(world, s, bob="right")
    assert holding(world, s, "bob") == "ChoppedLettuce-Plate"


def test_two_agents_with_the_same_goal_must_each_deliver():
    world = make(["#-t-t-#", "/1...2*", "#-p-p-#"], goals=("SimpleTomato", "SimpleTomato"))
    s = put(world, world.reset(0), held={"bob": "ChoppedTomato-Plate"})
    s = step(world, s, bob="right")
    assert s.delivered == (-1, 1) and not world.done(s)
    s = put(world, s, held={"alice": "ChoppedTomato-Plate"}, where={"alice": (1, 5), "bob": (1, 4)})
    s = step(world, s, alice="right")
    assert s.delivered == (2, 1) and world.done(s)
    assert world.outcome(s)["success"] is True and world.outcome(s)["length"] == 2


def test_nothing_is_picked_up_from_a_delivery_station_or_an_empty_counter(room):
    s = step(room, room.reset(0), alice="up", bob="right")  # (0, 1) empty counter, (1, 6) delivery
    assert s.held == (NOTHING, NOTHING)


def test_walls_and_the_grid_edge_stop_a_move():
    world = make(["#-/#", "1.2*", "#-p#", "#-t#", "#-l#", "#-p#"], goals=("SimpleTomato", "SimpleLettuce"))
    s = world.reset(0)
    s = step(world, s, alice="left")  # (1, 0) is the west edge of the grid: nothing beyond
    assert at(world, s, "alice") == (1, 0)
    s = step(world, s, alice="up")    # a wall
    assert at(world, s, "alice") == (1, 0) and s.held == (0, 0)


def test_an_illegal_or_missing_action_is_refused(room):
    s = room.reset(0)
    with pytest.raises(IllegalAction):
        room.step(s, {"alice": "jump", "bob": "stay"})
    with pytest.raises(IllegalAction):
        room.step(s, {"alice": "stay"})
    assert room.why_illegal(s, "alice", "jump") is not None
    assert room.legal_actions(s, "alice") == ("up", "down", "left", "right", "stay")


# ----------------------------------------------------------------------------- conflicts

def test_two_agents_grabbing_one_object_clash_and_neither_gets_it():
    world = make(["#p#####", "/1.t.2*", "#-p-l-#"])  # a counter island at (1, 3) with two open sides
    s = put(world, world.reset(0), where={"alice": (1, 2), "bob": (1, 4)})
    after = world.step(s, {"alice": "right", "bob": "left"})
    assert after.state.held == (NOTHING, NOTHING)
    assert on(world, after.state, 1, 3) == "FreshTomato"
    assert sorted((e.kind, e.agent) for e in after.events) == [("clash", "alice"), ("clash", "bob")]


def test_putting_down_and_taking_from_one_station_also_clash():
    world = make(["#p#l###", "/1.-.2*", "#-p-t-#"])
    s = put(world, world.reset(0), held={"alice": "Plate"}, where={"alice": (1, 2), "bob": (1, 4)})
    s = step(world, s, alice="right", bob="left")
    assert holding(world, s, "alice") == "Plate" and on(world, s, 1, 3) == "nothing"


def test_working_different_stations_in_one_tick_both_happen(room):
    s = put(room, room.reset(0), where={"alice": (1, 2), "bob": (1, 5)})
    s = step(room, s, alice="up", bob="up")  # tomato (0, 2) and lettuce (0, 5)
    assert (holding(room, s, "alice"), holding(room, s, "bob")) == ("FreshTomato", "FreshLettuce")


SHARE = ["#-t-p-#", "/1...2*", "#-l-p-#"]


def test_sharing_agents_may_enter_one_cell_together():
    world = make(SHARE, collisions="share")
    s = put(world, world.reset(0), where={"alice": (1, 2), "bob": (1, 4)})
    s = step(world, s, alice="right", bob="left")
    assert at(world, s, "alice") == at(world, s, "bob") == (1, 3)


def test_sharing_agents_may_swap_places():
    world = make(SHARE, collisions="share")
    s = put(world, world.reset(0), where={"alice": (1, 2), "bob": (1, 3)})
    s = step(world, s, alice="right", bob="left")
    assert (at(world, s, "alice"), at(world, s, "bob")) == ((1, 3), (1, 2))


def test_blocking_agents_moving_into_one_cell_both_stay():
    world = make(SHARE, collisions="block")
    s = put(world, world.reset(0), where={"alice": (1, 2), "bob": (1, 4)})
    after = world.step(s, {"alice": "right", "bob": "left"})
    assert (at(world, after.state, "alice"), at(world, after.state, "bob")) == ((1, 2), (1, 4))
    assert sorted(e.kind for e in after.events) == ["collision", "collision"]


def test_blocking_agents_cannot_swap():
    world = make(SHARE, collisions="block")
    s = put(world, world.reset(0), where={"alice": (1, 2), "bob": (1, 3)})
    s = step(world, s, alice="right", bob="left")
    assert (at(world, s, "alice"), at(world, s, "bob")) == ((1, 2), (1, 3))


def test_blocking_agent_cannot_enter_the_cell_of_one_that_stays_or_works():
    world = make(SHARE, collisions="block")
    s = put(world, world.reset(0), where={"alice": (1, 2), "bob": (1, 3)})
    assert at(world, step(world, s, alice="right", bob="stay"), "alice") == (1, 2)
    worked = step(world, s, alice="right", bob="up")  # bob works the empty counter (0, 3)
    assert at(world, worked, "alice") == (1, 2)


def test_blocking_agent_may_follow_one_that_leaves():
    world = make(SHARE, collisions="block")
    s = put(world, world.reset(0), where={"alice": (1, 2), "bob": (1, 3)})
    s = step(world, s, alice="right", bob="right")
    assert (at(world, s, "alice"), at(world, s, "bob")) == ((1, 3), (1, 4))


def test_a_blocked_leader_blocks_its_follower():
    world = make(["#-tpo-#", "/.12.3*", "#-lpp-#"], goals=("SimpleTomato", "SimpleLettuce", "SimpleOnion"),
                 collisions="block")
    # bob and carol meet head-on in (1, 4) and both stay, so alice, following bob, stays too
    s = step(world, world.reset(0), alice="right", bob="right", carol="left")
    assert (at(world, s, "alice"), at(world, s, "bob"), at(world, s, "carol")) == ((1, 2), (1, 3), (1, 5))


# ----------------------------------------------------------------------------- episode

def test_the_episode_ends_at_t_max_and_then_refuses_steps():
    world = make(ROOM, t_max=3)
    s = world.reset(0)
    for _ in range(3):
        assert not world.done(s)
        s = step(world, s)
    assert world.done(s) and world.active_agents(s) == () and world.legal_actions(s, "alice") == ()
    assert world.outcome(s) == {"success": False, "ticks": 3, "length": None,
                                "delivered": {"alice": None, "bob": None},
                                "goals": {"alice": "SimpleTomato", "bob": "SimpleLettuce"}, "t_max": 3}
    with pytest.raises(IllegalAction):
        world.step(s, {"alice": "stay", "bob": "stay"})


def test_a_whole_recipe_by_hand(room):
    """SimpleTomato: pick up the tomato, chop it, merge with a plate, deliver (Figure A4)."""
    s = put(room, room.reset(0), where={"alice": (1, 2), "bob": (1, 5)})
    seen = []
    for a in ["up", "left", "left", "right", "right", "up", "right", "right", "right"]:
        s = step(room, s, alice=a)
        seen.append((at(room, s, "alice"), holding(room, s, "alice")))
    assert seen == [((1, 2), "FreshTomato"), ((1, 1), "FreshTomato"), ((1, 1), "ChoppedTomato"),
                    ((1, 2), "ChoppedTomato"), ((1, 3), "ChoppedTomato"), ((1, 3), "ChoppedTomato-Plate"),
                    ((1, 4), "ChoppedTomato-Plate"), ((1, 5), "ChoppedTomato-Plate"), ((1, 5), "nothing")]
    assert s.delivered == (9, -1) and on(room, s, 0, 2) == "nothing" and on(room, s, 0, 3) == "nothing"


def test_state_keys_and_hashes_are_plain_and_stable(room):
    s = room.reset(0)
    assert room.state_key(s) == (0, s.positions, s.held, s.contents, s.delivered)
    assert room.state_hash(s) == room.state_hash(room.reset(5))
    assert room.state_hash(step(room, s, alice="up")) != room.state_hash(s)


# ----------------------------------------------------------------------------- observation

TWO_ROOMS = ["#-t-#-l-#",
             "/.1.D...*",
             "p...-.2.p",
             "#---#-o-#"]


def test_an_agent_sees_only_its_own_room():
    world = make(TWO_ROOMS)
    s = world.reset(0)
    alice = world.observe(s, "alice")
    seen = {world.rc(world.station_cells[i]) for i, _ in alice.stations}
    assert (0, 2) in seen and (0, 6) not in seen and (3, 6) not in seen
    assert [j for j, _, _ in alice.agents] == [0]  # bob is in the other room
    assert alice.goal == "SimpleTomato" and alice.position == world.cell(1, 2) and alice.held == 0


def test_a_counter_in_the_dividing_wall_is_seen_from_both_rooms():
    world = make(TWO_ROOMS)
    s = put(world, world.reset(0), at={(2, 4): "Plate"})
    for agent in ("alice", "bob"):
        obs = world.observe(s, agent)
        assert (world.station_at[world.cell(2, 4)], ITEM_CODE["Plate"]) in obs.stations


def test_what_happens_out_of_view_does_not_change_the_observation():
    world = make(TWO_ROOMS)
    s = world.reset(0)
    moved = put(world, s, held={"bob": "FreshOnion"}, at={(3, 6): "nothing"}, where={"bob": (1, 5)})
    assert world.observe(moved, "alice").key() == world.observe(s, "alice").key()
    assert world.observation_digest(world.observe(moved, "alice")) == world.observation_digest(world.observe(s, "alice"))
    assert world.observe(moved, "bob").key() != world.observe(s, "bob").key()


def test_doors_block_vision_an_agent_in_the_doorway_sees_only_what_touches_the_door():
    world = make(TWO_ROOMS)
    assert world.rules == 2
    s = put(world, world.reset(0), where={"alice": (1, 4)})
    alice = world.observe(s, "alice")
    seen = {world.rc(world.station_cells[i]) for i, _ in alice.stations}
    assert seen == {(2, 4)}  # the counter under the door, nothing of either room
    assert [j for j, _, _ in alice.agents] == [0]
    assert [j for j, _, _ in world.observe(s, "bob").agents] == [1]  # nobody sees into the doorway
    s = put(world, world.reset(0), where={"alice": (1, 5)})
    assert sorted(j for j, _, _ in world.observe(s, "bob").agents) == [0, 1]


def test_rules_1_an_agent_in_the_doorway_sees_both_rooms_and_is_seen_from_both():
    world = make(TWO_ROOMS, rules=1)
    s = put(world, world.reset(0), where={"alice": (1, 4)})
    alice = world.observe(s, "alice")
    seen = {world.rc(world.station_cells[i]) for i, _ in alice.stations}
    assert {(0, 2), (0, 6), (3, 6)} <= seen
    assert sorted(j for j, _, _ in alice.agents) == [0, 1]
    assert sorted(j for j, _, _ in world.observe(s, "bob").agents) == [0, 1]


def test_render_text_for_one_viewer_hides_the_other_room():
    world = make(TWO_ROOMS)
    s = world.reset(0)
    full = world.render_text(s).splitlines()
    fog = world.render_text(s, viewer="alice").splitlines()
    assert full[:4] == ["#-t-#-l-#", "/.1.D...*", "p...-.2.p", "#---#-o-#"]
    assert fog[:4] == ["#-t-#???#", "/.1.D...*", "p...-...?", "#---#???#"]
    assert "bob" in full[-1] and not any("bob" in line for line in fog)
