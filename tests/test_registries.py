"""Registering a world or a kind for a block only (``sim.plugins.registered``,
``agents.registry.kinds_registered``) leaves both registries as they were when the block ends,
however it ends: a test's world does not outlive it and reach tests that check every kind against
the worlds found (``tests/test_conformance.py::test_kinds_are_found``). The same holds for a
kind of belief snapshot (``sim.snapshots.snapshot_kinds_registered``) and for the panels of
given titles (``ui.panels.common.panels_restored``)."""

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


def test_a_snapshot_kind_registered_for_a_block_is_gone_after_it_also_when_it_raises():
    from dataclasses import dataclass
    from typing import ClassVar

    from sim.snapshots import SnapshotPayload, snapshot_kinds, snapshot_kinds_registered

    @dataclass(frozen=True, kw_only=True)
    class Probe(SnapshotPayload):
        kind: ClassVar[str] = "registries_probe"
        n: int

    before = snapshot_kinds()
    with pytest.raises(RuntimeError, match="inside"):
        with snapshot_kinds_registered(Probe):
            assert snapshot_kinds()["registries_probe"] is Probe
            raise RuntimeError("inside")
    assert snapshot_kinds() == before


def test_the_panels_of_given_titles_are_as_before_when_the_block_ends_also_when_it_raises():
    from PyQt6.QtWidgets import QLabel

    from ui.panels.common import PANELS, panels_restored, register_panel

    before = list(PANELS)
    with pytest.raises(RuntimeError, match="inside"):
        with panels_restored("Messages", "Registries probe"):
            register_panel("Messages", QLabel, event_type="message")  # a shipped title replaced
            register_panel("Registries probe", QLabel, belief_kind="registries_probe")  # a new one
            assert [k.title for k in PANELS] == [k.title for k in before] + ["Registries probe"]
            assert next(k for k in PANELS if k.title == "Messages") not in before
            raise RuntimeError("inside")
    assert PANELS == before  # the shipped panel back in its place, the new one gone
