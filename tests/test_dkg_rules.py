"""Every rule of multi-agent Doors, Keys and Gems (ProToM, seed 003: Section 4.1, Appendix A.1
and the environment text of Figure A7), checked on small hand-made maps."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings, strategies as st

from sim.dkg import CONSUMED, DKGState, DKGWorld, validate_dkg
from sim.world import IllegalAction

LEGEND = {
    "#": "wall", ".": "floor",
    "r": {"key": "red"}, "b": {"key": "blue"},
    "R": {"door": "red"}, "B": {"door": "blue"},
    "*": {"gem": "blue"}, "+": {"gem": "green"}, "$": {"gem": "red"},
    "1": {"agent": "alice"}, "2": {"agent": "bob"}, "3": {"agent": "carol"},
}


def make_world(rows: list[str], goals: dict[str, str], **options) -> DKGWorld:
    """A world from an ASCII map; the legend keeps only the agents that are on the map."""
    on_map = set("".join(rows))
    legend = {ch: e for ch, e in LEGEND.items() if ch in on_map or not (isinstance(e, dict) and "agent" in e)}
    data = {"world": "dkg", "name": "hand-made", "map": rows, "legend": legend, "goals": goals}
    if options:
        data["options"] = options
    return DKGWorld(validate_dkg(data, "hand-made.json"))


def play(world: DKGWorld, state: DKGState, *actions: str) -> DKGState:
    """Each action is taken by whoever's turn it is."""
    for action in actions:
        (agent,) = world.active_agents(state)
        state = world.step(state, {agent: action}).state
    return state


def at(world: DKGWorld, state: DKGState, agent: str) -> tuple[int, int]:
    return world.rc(state.agent_cells[world.agent_index[agent]])


def holder(world: DKGWorld, state: DKGState, item: str) -> str | None:
    loc = state.item_locs[world.item_index[item]]
    return world.agents[-1 - loc] if CONSUMED < loc < 0 else None


def assert_illegal(world: DKGWorld, state: DKGState, action: str) -> None:
    (agent,) = world.active_agents(state)
    assert action not in world.legal_actions(state, agent)
    assert not world.is_legal(state, agent, action)
    with pytest.raises(IllegalAction):
        world.step(state, {agent: action})


CORRIDOR = ["########",
            "#1r.R.*#",
            "########",
            "#2....+#",
            "########"]


@pytest.fixture
def corridor() -> DKGWorld:
    return make_world(CORRIDOR, {"alice": "gem1", "bob": "gem2"})


# ------------------------------------------------------------------ movement

def test_walls_block_moves():
    world = make_world(["#######",
                        "#1.2*+#",
                        "#######"], {"alice": "gem1", "bob": "gem2"})
    s0 = world.reset(0)
    assert set(world.legal_actions(s0, "alice")) == {"right", "wait"}
    for move in ("up", "down", "left"):
        assert_illegal(world, s0, move)
    s1 = play(world, s0, "right")
    assert at(world, s1, "alice") == (1, 2)


def test_grid_edge_blocks_moves_and_agents_never_block():
    world = make_world(["1.*",
                        "2.+"], {"alice": "gem1", "bob": "gem2"})
    s0 = world.reset(0)
    assert_illegal(world, s0, "up")
    assert_illegal(world, s0, "left")
    # Bob stands below Alice: she may step onto his cell, and both then share it.
    assert "down" in world.legal_actions(s0, "alice")
    s1 = play(world, s0, "down")
    assert at(world, s1, "alice") == at(world, s1, "bob") == (1, 0)
    assert_illegal(world, s1, "down")  # bob at the bottom edge
    s2 = play(world, s1, "up")
    assert at(world, s2, "bob") == (0, 0)


def test_locked_door_blocks_until_unlocked_then_passes(corridor):
    world = corridor
    s = play(world, world.reset(0), "right", "wait", "pickup key1", "wait", "right", "wait")
    assert at(world, s, "alice") == (1, 3)
    assert_illegal(world, s, "right")  # the red door is locked
    assert "unlock door1" in world.legal_actions(s, "alice")
    result = world.step(s, {"alice": "unlock door1"})
    assert [e.kind for e in result.events] == ["unlock"]
    assert result.events[0].data == {"door": "door1", "key": "key1"}
    s = play(world, result.state, "wait")
    assert s.open_doors == 0b1
    s = play(world, s, "right", "wait")
    assert at(world, s, "alice") == (1, 4)  # standing in the open doorway
    s = play(world, s, "right", "wait", "right", "wait")
    assert at(world, s, "alice") == (1, 6)
    assert "pickup gem1" in world.legal_actions(s, "alice")


def test_items_never_block_and_are_not_picked_up_by_walking(corridor):
    world = corridor
    s = play(world, world.reset(0), "right", "wait", "right")
    assert at(world, s, "alice") == (1, 3)
    assert s.item_locs[world.item_index["key1"]] == world.cell(1, 2)


# ------------------------------------------------------------- doors and keys

def test_unlock_needs_an_adjacent_door(corridor):
    world = corridor
    s = play(world, world.reset(0), "right", "wait", "pickup key1", "wait")
    assert at(world, s, "alice") == (1, 2)  # two cells from the door
    assert_illegal(world, s, "unlock door1")
    assert_illegal(world, s, "unlock door2")  # no such door
    s = play(world, s, "right", "wait", "unlock door1", "wait")
    assert_illegal(world, s, "unlock door1")  # already open


def test_key_is_consumed_lowest_numbered_first():
    world = make_world(["#########",
                        "#1rr.R.*#",
                        "#########",
                        "#2.....+#",
                        "#########"], {"alice": "gem1", "bob": "gem2"})
    s = world.reset(0)
    # Pick key2 up first, then key1: which key is used depends on numbers, not on order of pickup.
    s = play(world, s, "right", "wait", "right", "wait", "pickup key2", "wait",
             "left", "wait", "pickup key1", "wait", "right", "wait", "right", "wait")
    assert holder(world, s, "key1") == holder(world, s, "key2") == "alice"
    result = world.step(s, {"alice": "unlock door1"})
    locs = result.state.item_locs
    assert locs[world.item_index["key1"]] == CONSUMED
    assert locs[world.item_index["key2"]] == -1  # still in Alice's hands
    assert result.events[0].data["key"] == "key1"
    assert "pickup key1" not in world.legal_actions(play(world, result.state, "wait"), "alice")


def test_key_of_another_colour_does_not_open():
    # the red key lies in bob's separate room: the door can be opened in principle (the map is valid)
    # but never with alice's blue key
    world = make_world(["########",
                        "#1b.R.*#",
                        "########",
                        "#2..r.+#",
                        "########"], {"alice": "gem1", "bob": "gem2"})
    s = play(world, world.reset(0), "right", "wait", "pickup key1", "wait", "right", "wait")
    assert holder(world, s, "key1") == "alice" and at(world, s, "alice") == (1, 3)
    assert_illegal(world, s, "unlock door1")
    with pytest.raises(IllegalAction, match="red key"):
        world.step(s, {"alice": "unlock door1"})


def test_pickup_only_on_own_cell(corridor):
    world = corridor
    s0 = world.reset(0)
    assert_illegal(world, s0, "pickup key1")  # the key is one cell to the right
    assert_illegal(world, s0, "pickup gem9")
    assert_illegal(world, s0, "pickup")
    s1 = play(world, s0, "right")
    s1 = play(world, s1, "wait")
    assert "pickup key1" in world.legal_actions(s1, "alice")
    result = world.step(s1, {"alice": "pickup key1"})
    assert [e.kind for e in result.events] == ["pickup"]
    s2 = play(world, result.state, "wait")
    assert holder(world, s2, "key1") == "alice"
    assert_illegal(world, s2, "pickup key1")  # no longer on the floor


def test_pickup_of_an_item_under_another_agent_is_refused():
    world = make_world(["######",
                        "#1r2+#",
                        "#.*..#",
                        "######"], {"alice": "gem1", "bob": "gem2"})
    s = play(world, world.reset(0), "wait", "left")  # bob steps onto the key
    assert at(world, s, "bob") == (1, 2)
    assert_illegal(world, s, "pickup key1")  # alice is not on it
    s = play(world, s, "right")  # alice joins bob on the key's cell
    assert "pickup key1" in world.legal_actions(s, "bob")


# ------------------------------------------------------------------- handover

OPEN_ROOM = ["#######",
             "#1....#",
             "#.....#",
             "#..r..#",
             "#2.*+.#",
             "#######"]


@pytest.mark.parametrize("rule", ["adjacent", "same_cell_or_adjacent"])
@pytest.mark.parametrize("offset, allowed", [
    ((0, 0), "same_cell_or_adjacent"), ((-1, 0), True), ((1, 0), True), ((0, -1), True), ((0, 1), True),
    ((1, 1), False), ((-1, -1), False), ((1, -1), False), ((2, 0), False), ((0, 2), False),
])
def test_handover_only_between_neighbours_unless_the_same_cell_rule_is_chosen(offset, allowed, rule):
    """Figure A7 and the reference domain: "if two agents are adjacent"; the same cell counts
    only under options.handover = same_cell_or_adjacent (the rule of older recordings)."""
    world = make_world(OPEN_ROOM, {"alice": "gem1", "bob": "gem2"}, handover=rule)
    allowed = allowed is True or allowed == rule
    key = world.item_index["key1"]
    alice_cell = world.cell(2, 3)
    bob_cell = world.cell(2 + offset[0], 3 + offset[1])
    s = dataclasses.replace(world.reset(0), agent_cells=(alice_cell, bob_cell),
                            item_locs=tuple(-1 if i == key else loc for i, loc in enumerate(world.reset(0).item_locs)))
    action = "handover key1 bob"
    if not allowed:
        assert_illegal(world, s, action)
        return
    assert action in world.legal_actions(s, "alice")
    result = world.step(s, {"alice": action})
    assert [(e.kind, dict(e.data)) for e in result.events] == [("handover", {"item": "key1", "to": "bob"})]
    assert holder(world, result.state, "key1") == "bob"
    assert world.held_by(result.state, "alice") == []


def test_the_handover_rule_defaults_to_adjacent_and_a_spec_without_it_is_an_old_recording():
    world = make_world(OPEN_ROOM, {"alice": "gem1", "bob": "gem2"})
    assert world.spec()["options"]["handover"] == "adjacent" and world.handover_rule == "adjacent"
    old = {**world.spec(), "options": {k: v for k, v in world.spec()["options"].items() if k != "handover"}}
    assert DKGWorld(old).handover_rule == "same_cell_or_adjacent"


def test_handover_refuses_items_not_held_self_and_strangers():
    world = make_world(OPEN_ROOM, {"alice": "gem1", "bob": "gem2"})
    s = play(world, world.reset(0), "down", "wait", "down", "wait")  # right above bob, empty-handed
    assert world.adjacent(s.agent_cells[0], s.agent_cells[1])
    assert not any(a.startswith("handover") for a in world.legal_actions(s, "alice"))
    assert_illegal(world, s, "handover key1 bob")
    s = dataclasses.replace(s, item_locs=(-1,) + s.item_locs[1:])  # now alice holds key1
    assert world.items[0].id == "key1"
    assert "handover key1 bob" in world.legal_actions(s, "alice")
    assert_illegal(world, s, "handover key1 alice")
    assert_illegal(world, s, "handover key1 dave")
    assert_illegal(world, s, "handover key1")
    assert_illegal(world, s, "handover gem1 bob")  # on the floor, not in her hands


def test_gem_handed_over_counts_for_the_receiver():
    world = make_world(OPEN_ROOM, {"alice": "gem1", "bob": "gem2"})
    gem1, gem2 = world.item_index["gem1"], world.item_index["gem2"]
    s0 = world.reset(0)
    # alice holds both gems next to bob; handing bob his gem completes both goals
    locs = list(s0.item_locs)
    locs[gem1] = locs[gem2] = -1
    s = dataclasses.replace(s0, t=10, agent_cells=(world.cell(3, 1), world.cell(4, 1)),
                            item_locs=tuple(locs), reached_at=(7, -1))
    assert not world.done(s)
    result = world.step(s, {"alice": "handover gem2 bob"})
    kinds = [(e.kind, e.agent) for e in result.events]
    assert kinds == [("handover", "alice"), ("goal_reached", "bob")]
    end = result.state
    assert end.reached_at == (7, 11)
    assert world.done(end)
    assert world.outcome(end)["success"] is True


def test_giving_away_ones_gem_undoes_holding_it():
    world = make_world(OPEN_ROOM, {"alice": "gem1", "bob": "gem2"})
    gem1 = world.item_index["gem1"]
    s0 = world.reset(0)
    s = dataclasses.replace(s0, agent_cells=(world.cell(3, 1), world.cell(4, 1)),
                            item_locs=tuple(-1 if i == gem1 else loc for i, loc in enumerate(s0.item_locs)),
                            reached_at=(0, -1))
    end = world.step(s, {"alice": "handover gem1 bob"}).state
    outcome = world.outcome(end)
    assert outcome["holding_goal"] == {"alice": False, "bob": False}
    assert outcome["goal_tick"] == {"alice": 0, "bob": None}  # when she first held it


# ----------------------------------------------------------------- turn order

def test_turn_order_option_rotates_two_agents(corridor):
    world = make_world(CORRIDOR, {"alice": "gem1", "bob": "gem2"}, turn_order=["bob", "alice"])
    s = world.reset(0)
    seen = []
    for _ in range(5):
        (agent,) = world.active_agents(s)
        seen.append(agent)
        other = "alice" if agent == "bob" else "bob"
        assert world.legal_actions(s, other) == ()
        with pytest.raises(IllegalAction):
            world.step(s, {other: "wait"})
        with pytest.raises(IllegalAction):
            world.step(s, {agent: "wait", other: "wait"})
        s = world.step(s, {agent: "wait"}).state
    assert seen == ["bob", "alice", "bob", "alice", "bob"]
    assert s.t == 5


THREE = ["#######",
         "#3.1..#",
         "#.2*+$#",
         "#######"]


def test_three_agents_take_turns_in_turn_order():
    goals = {"alice": "gem1", "bob": "gem2", "carol": "gem3"}
    world = make_world(THREE, goals, turn_order=["carol", "alice", "bob"])
    s = world.reset(0)
    seen = []
    for _ in range(7):
        (agent,) = world.active_agents(s)
        seen.append(agent)
        assert all(world.legal_actions(s, a) == () for a in world.agents if a != agent)
        s = play(world, s, "wait")
    assert seen == ["carol", "alice", "bob", "carol", "alice", "bob", "carol"]


def test_default_turn_order_is_legend_order_not_map_order():
    world = make_world(THREE, {"alice": "gem1", "bob": "gem2", "carol": "gem3"})
    s = world.reset(0)
    seen = []
    for _ in range(4):
        seen.append(world.active_agents(s)[0])
        s = play(world, s, "wait")
    assert seen == ["alice", "bob", "carol", "alice"]


# ---------------------------------------------------------------- termination

def test_episode_ends_when_every_agent_holds_its_gem():
    world = make_world(["######",
                        "#1*..#",
                        "#2+..#",
                        "######"], {"alice": "gem1", "bob": "gem2"})
    s = play(world, world.reset(0), "right", "right", "pickup gem1")
    assert not world.done(s)  # bob has not got his yet
    out = world.outcome(s)
    assert out == {"success": False, "holding_goal": {"alice": True, "bob": False},
                   "goal_tick": {"alice": 3, "bob": None}, "length": None, "ticks": 3,
                   "t_max": world.t_max}
    result = world.step(s, {"bob": "pickup gem2"})
    assert ("goal_reached", "bob") in [(e.kind, e.agent) for e in result.events]
    end = result.state
    assert world.done(end)
    assert world.active_agents(end) == ()
    assert all(world.legal_actions(end, a) == () for a in world.agents)
    with pytest.raises(IllegalAction):
        world.step(end, {"alice": "wait"})
    assert world.outcome(end) == {"success": True, "holding_goal": {"alice": True, "bob": True},
                                  "goal_tick": {"alice": 3, "bob": 4}, "length": 4, "ticks": 4,
                                  "t_max": world.t_max}


def test_episode_ends_at_t_max():
    world = make_world(CORRIDOR, {"alice": "gem1", "bob": "gem2"}, t_max=4)
    assert world.t_max == 4
    s = world.reset(0)
    for _ in range(4):
        assert not world.done(s)
        s = play(world, s, "wait")
    assert world.done(s)
    assert world.active_agents(s) == ()
    assert world.outcome(s) == {"success": False, "holding_goal": {"alice": False, "bob": False},
                                "goal_tick": {"alice": None, "bob": None}, "length": None, "ticks": 4,
                                "t_max": 4}


def test_t_max_defaults_to_80(corridor):
    assert corridor.t_max == 80
    s = corridor.reset(0)
    for _ in range(80):
        s = play(corridor, s, "wait")
    assert corridor.done(s) and s.t == 80


def test_an_agent_that_fails_to_act_waits(corridor):
    s = corridor.reset(0)
    assert corridor.fallback_action(s, "alice") == "wait"
    with pytest.raises(IllegalAction):
        corridor.fallback_action(s, "bob")  # not his turn


def test_observation_is_the_full_state_and_own_goal(corridor):
    s = play(corridor, corridor.reset(0), "right")
    obs = corridor.observe(s, "bob")
    assert obs.state == s and obs.agent == "bob" and obs.goal == "gem2"


# ------------------------------------------------- legal actions = what step accepts

PROPERTY_MAP = ["#######",
                "#1r.B*#",
                "#2b.R.#",
                "#3.+.$#",
                "#######"]
PROPERTY_WORLD = make_world(PROPERTY_MAP, {"alice": "gem1", "bob": "gem2", "carol": "gem3"})


def candidate_actions(world: DKGWorld) -> list[str]:
    """Every well-formed action of the world plus malformed ones."""
    items = [it.id for it in world.items] + ["key9", "gem0"]
    doors = [d.id for d in world.doors] + ["door9", "key1"]
    agents = list(world.agents) + ["nobody"]
    return (["up", "down", "left", "right", "wait", "wait please", "jump", "", "pickup", "unlock",
             "handover", "Up", " wait"]
            + [f"pickup {i}" for i in items] + [f"unlock {d}" for d in doors]
            + [f"handover {i} {a}" for i, a in itertools.product(items, agents)]
            + [f"handover {i}" for i in items])


@settings(max_examples=60, deadline=None)
@given(choices=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=60))
def test_legal_actions_are_exactly_what_step_accepts(choices):
    world = PROPERTY_WORLD
    candidates = candidate_actions(world)
    s = world.reset(0)
    for choice in choices:
        if world.done(s):
            break
        (agent,) = world.active_agents(s)
        legal = world.legal_actions(s, agent)
        assert legal and len(set(legal)) == len(legal)
        assert world.fallback_action(s, agent) == "wait" and "wait" in legal
        for action in candidates:
            if action in legal:
                world.step(s, {agent: action})  # never raises
                assert world.is_legal(s, agent, action)
            else:
                with pytest.raises(IllegalAction):
                    world.step(s, {agent: action})
        for other in world.agents:
            if other != agent:
                assert world.legal_actions(s, other) == ()
                with pytest.raises(IllegalAction):
                    world.step(s, {other: legal[0]})
        before = s.key()
        nxt = world.step(s, {agent: legal[choice % len(legal)]}).state
        assert s.key() == before  # stepping never changes the state it starts from
        assert nxt.t == s.t + 1 and nxt.turn == (s.turn + 1) % len(world.agents)
        s = nxt


# ---------------------------------------------------------- values and hashes

def test_states_are_frozen_values(corridor):
    s = corridor.reset(0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.t = 3  # type: ignore[misc]
    assert isinstance(s.agent_cells, tuple) and isinstance(s.item_locs, tuple)
    again = corridor.reset(0)
    assert again == s and corridor.state_hash(again) == corridor.state_hash(s)  # a fresh value, equal
    assert corridor.reset(123) == s  # the layout is fixed: seeds only drive the agents
    agent = corridor.active_agents(s)[0]
    moved = corridor.step(s, {agent: next(a for a in corridor.legal_actions(s, agent) if a != "wait")}).state
    assert moved != s and corridor.state_hash(moved) != corridor.state_hash(s)  # equality can tell states apart


def test_equal_states_hash_equal_and_different_states_differ(corridor):
    world = corridor
    s0 = world.reset(0)
    a = play(world, s0, "right", "wait", "left", "wait")
    b = play(world, s0, "wait", "wait", "wait", "wait")
    assert a == b and a is not b
    assert world.state_hash(a) == world.state_hash(b)
    c = DKGState(**{f.name: getattr(a, f.name) for f in dataclasses.fields(DKGState)})
    assert world.state_hash(c) == world.state_hash(a)
    states = [s0]
    for action in ("right", "wait", "pickup key1", "wait", "right", "wait", "unlock door1"):
        states.append(play(world, states[-1], action))
    assert len({world.state_hash(s) for s in states}) == len(states)
    assert world.state_hash(s0) != world.state_hash(play(world, s0, "wait"))


def test_state_hash_is_stable_across_processes(corridor):
    """Recordings from other runs and machines check these digests, so they must never drift.
    The literal was recorded once; a change means old recordings no longer replay."""
    world = corridor
    s = play(world, world.reset(0), "right", "wait", "pickup key1", "right", "right", "wait", "unlock door1")
    assert s.key() == (7, 1, (world.cell(1, 3), world.cell(3, 2)), (CONSUMED, world.cell(1, 6), world.cell(3, 6)),
                       1, (-1, -1))
    assert world.state_hash(s) == "137f0495cc0bb6e7"


TWO_REDS = ["#######",
            "#1rr.R*",
            "#2...##",
            "#######"]


def test_unlock_can_name_the_key_and_defaults_to_the_lowest_numbered():
    """A reference plan such as (unlock human key2 door3) replays: "unlock door1 key2" uses key2;
    plain "unlock door1" keeps using the lowest-numbered matching key."""
    world = make_world(TWO_REDS, {"alice": "gem1"})
    s = play(world, world.reset(0), "right", "wait", "pickup key1", "wait", "right", "wait",
             "pickup key2", "wait", "right", "wait")
    legal = world.legal_actions(s, "alice")
    assert {"unlock door1", "unlock door1 key1", "unlock door1 key2"} <= set(legal)
    named = world.step(s, {"alice": "unlock door1 key2"})
    assert dict(named.events[0].data) == {"door": "door1", "key": "key2"}
    assert holder(world, named.state, "key1") == "alice"
    plain = world.step(s, {"alice": "unlock door1"})
    assert dict(plain.events[0].data) == {"door": "door1", "key": "key1"}
    assert holder(world, plain.state, "key2") == "alice"
    for bad in ("unlock door1 key9", "unlock door1 gem1", "unlock door1 key1 key2"):
        assert not world.is_legal(s, "alice", bad)


def test_the_simulated_human_never_names_a_key():
    from agents.dkg.agents import boltzmann_policy, planner_for
    from agents.dkg.planner import Task

    world = make_world(TWO_REDS, {"alice": "gem1"})
    s = play(world, world.reset(0), "right", "wait", "pickup key1", "wait", "right", "wait",
             "pickup key2", "wait", "right", "wait")
    legal = world.legal_actions(s, "alice")
    p = boltzmann_policy(world, planner_for(world), s, "alice", Task.hold(world.item_index["gem1"]), legal, 0.5)
    assert p[legal.index("unlock door1 key1")] == p[legal.index("unlock door1 key2")] == 0
    assert p[legal.index("unlock door1")] > 0.5
