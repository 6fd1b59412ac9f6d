"""The TradeCraft world: phases, proposer rotation, hidden rejections, flooring, wins, ties, limits."""

import pytest

from sim.events import ErrorEvent
from sim.recording import RecordingWriter
from sim.registry import ScenarioError, build_world
from sim.replay import Replay
from sim.seats import Agent
from sim.session import Session
from sim.tradecraft.instance import validate_instance
from sim.tradecraft.world import CRAFT, DONE, OVER, PROPOSE, RESPOND, Pass, Propose
from sim.world import IllegalAction


def make(hands, targets, **options):
    data = {"world": "tradecraft", "name": "t", "rules": "minecraft", "hands": hands, "targets": targets,
            "options": options}
    return build_world("tradecraft", validate_instance(data, "test"))


THREE = dict(hands=[{"raw_iron": 2, "coal": 1, "oak_planks": 2}, {"stick": 4, "flint": 1, "feather": 1},
                    {"iron_ingot": 3, "redstone": 1, "cobblestone": 3}],
             targets=[{"arrow": 1}, {"shears": 1}, {"compass": 1}])


def step(world, state, joint):
    return world.step(state, joint).state


def test_turn_phases_and_proposer_rotation():
    world = make(**THREE)
    s = world.reset(0)
    proposers = []
    for _ in range(4):
        assert s.phase == PROPOSE
        proposers.append(world.active_agents(s)[0])
        s = step(world, s, {proposers[-1]: {"type": "pass"}})
        assert s.phase == CRAFT and world.active_agents(s) == ("alice", "bob", "carol")
        s = step(world, s, {a: {"type": "done"} for a in world.agents})
    assert proposers == ["alice", "bob", "carol", "alice"]
    assert s.turn == 4 and len(s.history) == 4


def test_rejected_proposal_is_seen_by_the_two_players_only():
    world = make(**THREE)
    s = step(world, world.reset(0), {"alice": {"type": "propose", "to": "bob", "offer": {"coal": 1},
                                               "request": {"flint": 1}, "message": "deal?"}})
    assert s.phase == RESPOND and world.active_agents(s) == ("bob",)
    assert world.observe(s, "bob").pending.offer == (("minecraft:coal", 1),)
    assert world.observe(s, "carol").pending is None
    s = step(world, s, {"bob": {"type": "reject"}})
    s = step(world, s, {a: {"type": "done"} for a in world.agents})
    for viewer in ("alice", "bob"):
        view = world.observe(s, viewer).history[0]
        assert not view.hidden and view.request == (("minecraft:flint", 1),) and view.message == "deal?"
    hidden = world.observe(s, "carol").history[0]
    assert hidden.hidden and hidden.offer is None and hidden.request is None and hidden.message is None
    assert hidden.to is None and hidden.accepted is None  # rejections hidden: the turn looks like a pass
    assert "deal?" not in world.describe_observation(world.observe(s, "carol"))


def test_accepted_trade_moves_items_and_is_public():
    world = make(**THREE)
    s = step(world, world.reset(0), {"alice": Propose("bob", (("minecraft:coal", 1),), (("minecraft:flint", 1),))})
    s = step(world, s, {"bob": {"type": "accept"}})
    assert dict(s.hands[0]).get("minecraft:flint") == 1 and "minecraft:coal" not in dict(s.hands[0])
    assert dict(s.hands[1]).get("minecraft:coal") == 1
    s = step(world, s, {a: DONE for a in world.agents})
    assert world.observe(s, "carol").history[0].offer == (("minecraft:coal", 1),)


def test_crafts_are_private_until_the_phase_ends_then_floored():
    world = make(**THREE)
    s = step(world, world.reset(0), {"alice": Pass()})
    s = step(world, s, {"alice": {"type": "craft", "done": False,
                                  "crafts": [{"recipe": "stick", "times": "1/4", "choices": {"#": "oak_planks"}}]},
                        "bob": {"type": "done"}, "carol": {"type": "done"}})
    assert s.phase == CRAFT and world.active_agents(s) == ("alice",)
    own = dict(world.observe(s, "alice").hand)
    assert own["minecraft:stick"] == 1 and own["minecraft:oak_planks"] == 1.5
    assert "minecraft:stick" not in dict(world.observe(s, "bob").hands[0])  # others still see the old hand
    s = step(world, s, {"alice": {"type": "done"}})
    assert s.phase == PROPOSE
    assert dict(s.hands[0]) == {"minecraft:coal": 1, "minecraft:oak_planks": 1, "minecraft:raw_iron": 2,
                                "minecraft:stick": 1}
    assert dict(world.observe(s, "bob").hands[0]) == dict(s.hands[0])


def two_player(**options):
    # both can craft their targets in the first craft phase
    return make([{"iron_ingot": 2}, {"flint": 1, "stick": 1, "feather": 1}], [{"shears": 1}, {"arrow": 1}],
                **options)


def craft_all(world, s):
    return step(world, s, {"alice": {"type": "craft", "crafts": [{"recipe": "shears"}]},
                           "bob": {"type": "craft", "crafts": [{"recipe": "arrow", "times": "1/4"}]}})


def test_simultaneous_wins_are_shared_by_default():
    world = two_player()
    s = craft_all(world, step(world, world.reset(0), {"alice": Pass()}))
    out = world.outcome(s)
    assert s.phase == OVER and out["winners"] == ["alice", "bob"] and not out["draw"] and out["turns"] == 1


def test_tie_rule_draw_gives_no_winner():
    world = two_player(ties="draw")
    s = craft_all(world, step(world, world.reset(0), {"alice": Pass()}))
    assert world.done(s) and world.outcome(s)["winners"] == [] and world.outcome(s)["draw"]


def test_stop_all_plays_on_until_everyone_holds_its_target():
    world = two_player(stop="all")
    s = step(world, world.reset(0), {"alice": Pass()})
    s = step(world, s, {"alice": {"type": "craft", "crafts": [{"recipe": "shears"}]}, "bob": DONE})
    assert not world.done(s) and world.winners(s) == ["alice"]
    s = step(world, s, {"bob": Pass()})
    s = step(world, s, {"alice": DONE, "bob": {"type": "craft", "crafts": [{"recipe": "arrow", "times": "1/4"}]}})
    assert world.done(s) and world.outcome(s)["win_turn"] == {"alice": 1, "bob": 2}


def test_turn_limit_ends_without_winner():
    world = two_player(max_turns=2)
    s = world.reset(0)
    for _ in range(2):
        s = step(world, s, {world.active_agents(s)[0]: Pass()})
        s = step(world, s, {"alice": DONE, "bob": DONE})
    assert world.done(s) and world.outcome(s)["winners"] == [] and world.outcome(s)["turns"] == 2


def test_illegal_actions_are_explained_and_refused():
    world = make(**THREE)
    s = world.reset(0)
    assert "holds 0 diamond" in world.why_illegal(s, "alice", {"type": "propose", "to": "bob",
                                                               "offer": {"diamond": 1}, "request": {}})
    assert "bob holds 0 coal" in world.why_illegal(s, "alice", Propose("bob", (), (("minecraft:coal", 1),)))
    assert world.why_illegal(s, "alice", Pass()) is None  # alice proposes first: passing is legal
    assert "not bob's move" in world.why_illegal(s, "bob", Pass())
    assert "whole amount" in world.why_illegal(s, "alice", {"type": "propose", "to": "bob",
                                                            "offer": {"coal": 0.5}})
    with pytest.raises(IllegalAction):
        world.step(s, {"alice": {"type": "propose", "to": "alice", "offer": {"coal": 1}}})


class Cheater(Agent):
    kind = "cheater"

    def act(self, observation, legal):
        if observation.phase == PROPOSE:
            return {"type": "propose", "to": "bob", "offer": {"diamond": 5}, "request": {}}
        return legal[0]


class Idle(Agent):
    kind = "idle"

    def act(self, observation, legal):
        return legal[0]


def test_session_turns_an_illegal_action_into_a_pass():
    world = make(**THREE)
    session = Session(world, {"alice": Cheater(), "bob": Idle(), "carol": Idle()}, seed=0, max_ticks=1)
    session.run()
    errors = [e for e in session.events if isinstance(e, ErrorEvent)]
    assert errors and errors[0].kind == "illegal_action"
    assert session.state.history == () and session.state.phase == CRAFT


def test_legal_actions_are_finite_and_legal():
    world = make(**THREE)
    s = world.reset(0)
    legal = world.legal_actions(s, "alice")
    assert legal[0] == Pass() and len(legal) > 5
    assert all(world.is_legal(s, "alice", a) for a in legal)
    s = step(world, s, {"alice": Pass()})
    crafts = world.legal_actions(s, "alice")
    assert crafts[0] == DONE and all(world.is_legal(s, "alice", a) for a in crafts)


def test_actions_round_trip_through_json():
    world = make(**THREE)
    for data in ({"type": "propose", "to": "bob", "offer": {"minecraft:coal": 1}, "request": {"minecraft:flint": 1},
                  "message": "hi"}, {"type": "pass"}, {"type": "accept"}, {"type": "reject"},
                 {"type": "craft", "crafts": [{"recipe": "minecraft:stick", "times": "1/4",
                                               "choices": {"#": "minecraft:oak_planks"}}], "done": False}):
        assert world.encode_action(world.decode_action(data)) == data
    with pytest.raises(IllegalAction, match="unknown action type"):
        world.decode_action({"type": "dance"})


def test_recorded_game_replays_with_matching_hashes(tmp_path):
    from agents.registry import make_agent
    world = make(**THREE)
    session = Session(world, {a: make_agent("trader:explore=0", "tradecraft") for a in world.agents}, seed=3)
    RecordingWriter.attach(session, tmp_path / "g.jsonl")
    session.run()
    replay = Replay(str(tmp_path / "g.jsonl"))
    assert replay.warnings == [] and replay.num_steps == session.tick
    assert replay.state_at(replay.num_steps).key() == session.state.key()


def test_bad_instance_world_field():
    with pytest.raises(ScenarioError, match="field 'options.ties'"):
        validate_instance({"world": "tradecraft", "name": "x", "hands": [{}, {}], "targets": [{}, {}],
                           "options": {"ties": "coin"}}, "x.json")
