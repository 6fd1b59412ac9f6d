"""The numbered actions of the Doors, Keys and Gems view: one entry per distinct choice."""

from __future__ import annotations

from sim.registry import load_scenario
from ui.render.dkg import DKGRenderer


def _renderer():
    world, _ = load_scenario("two-rooms")
    return DKGRenderer(world)


def test_a_named_key_is_listed_only_when_several_keys_fit():
    renderer = _renderer()
    one_key = ["up", "unlock door1", "unlock door1 key1", "wait"]
    assert [a for _, a in renderer.numbered_actions(one_key)] == ["up", "unlock door1", "wait"]
    two_keys = ["unlock door1", "unlock door1 key1", "unlock door1 key2", "wait"]
    assert [a for _, a in renderer.numbered_actions(two_keys)] == two_keys
    assert renderer.action_for_key("3", None, "alice", one_key) == "wait"
    assert renderer.action_for_key("u", None, "alice", two_keys) == "unlock door1"
