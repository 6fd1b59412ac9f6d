"""Registering a world or a kind for a block only (``sim.plugins.registered``,
``agents.registry.kinds_registered``) leaves both registries as they were when the block ends,
however it ends: a test's world does not outlive it and reach tests that check every kind against
the worlds found (``tests/test_conformance.py::test_kinds_are_found``)."""

from __future__ import annotations

import dataclasses

import pytest

from agents.registry import agent_kinds, kinds_registered, mechanism_kinds
from sim.plugins import plugins, registered
from tests import corridor_world


def test_a_world_installed_for_a_block_is_gone_after_it():
    before = (plugins(), agent_kinds(), mechanism_kinds())
    with corridor_world.installed():
        assert corridor_world.FAMILY in plugins() and "corridor-walker" in agent_kinds()
    assert (plugins(), agent_kinds(), mechanism_kinds()) == before
    assert corridor_world.FAMILY not in plugins() and "corridor-walker" not in agent_kinds()


def test_what_a_block_replaced_comes_back_also_when_it_raises():
    before = (plugins(), agent_kinds(), mechanism_kinds())
    kitchen = dataclasses.replace(plugins()["kitchen"], title="another kitchen")
    planner = dataclasses.replace(agent_kinds()["planner"], summary="another planner")
    protom = dataclasses.replace(mechanism_kinds()["protom"], summary="another facilitator")
    with pytest.raises(RuntimeError, match="inside"):
        with registered(kitchen), kinds_registered(planner, protom):
            assert plugins()["kitchen"].title == "another kitchen"
            assert agent_kinds()["planner"].summary == "another planner"
            assert mechanism_kinds()["protom"].summary == "another facilitator"
            raise RuntimeError("inside")
    assert (plugins(), agent_kinds(), mechanism_kinds()) == before
