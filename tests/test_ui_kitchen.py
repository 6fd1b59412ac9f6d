"""The kitchen in the desktop app: its view (sprites, fog of war, particles, feedback arrows,
speech bubbles by the cook) and two people cooking at once by key presses until both dishes are
served (the key sequence is a breadth-first search over the World itself)."""

from __future__ import annotations

from collections import deque

import pygame
import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest

from sim.events import StepEvent
from sim.kitchen.world import KitchenWorld
from sim.recording import RecordingWriter
from sim.registry import load_scenario
from sim.session import Session
from tests.ui_support import close_to, make_window, plan, wait_finished
from ui.render import Overlays, renderer_for
from ui.render.kitchen import KitchenRenderer, item_sprite_name, particle_beliefs
from ui.render.worldview import init_pygame
from ui.session.catalog import SessionPlan

ALICE_KEYS = {"up": Qt.Key.Key_Up, "down": Qt.Key.Key_Down, "left": Qt.Key.Key_Left, "right": Qt.Key.Key_Right,
              "stay": Qt.Key.Key_Space}
BOB_KEYS = {"up": Qt.Key.Key_W, "down": Qt.Key.Key_S, "left": Qt.Key.Key_A, "right": Qt.Key.Key_D,
            "stay": Qt.Key.Key_Q}


def shortest_plan(world: KitchenWorld, cook: str) -> list[str]:
    """The fewest moves for ``cook`` alone (the others stay) from the start until it serves its dish."""
    i = world.agent_index[cook]

    def key(state):  # the tick does not matter for what comes next (far from t_max)
        return state.positions[i], state.held[i], state.contents, state.delivered[i] >= 0

    start = world.reset(0)
    parents = {key(start): None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state.delivered[i] >= 0:
            plan = []
            at = key(state)
            while parents[at] is not None:
                at, action = parents[at]
                plan.append(action)
            return plan[::-1]
        for action in world.legal_actions(state, cook):
            after = world.step(state, {a: action if a == cook else "stay" for a in world.agents}).state
            if key(after) not in parents:
                parents[key(after)] = (key(state), action)
                queue.append(after)
    raise AssertionError(f"{cook} cannot serve its dish")


def joint_plan(world: KitchenWorld) -> list[dict[str, str]]:
    """Both cooks at once, each on its shortest route (the two kitchens do not interfere: checked)."""
    plans = {a: shortest_plan(world, a) for a in world.agents}
    n = max(map(len, plans.values()))
    joint = [{a: plans[a][k] if k < len(plans[a]) else "stay" for a in world.agents} for k in range(n)]
    state = world.reset(0)
    for actions in joint:
        state = world.step(state, actions).state
    assert world.outcome(state)["success"] and world.done(state)
    return joint


@pytest.fixture(scope="module")
def kitchen():
    init_pygame()
    world, _ = load_scenario("two-kitchens")
    return world


def drawn(world: KitchenWorld, state, **overlays) -> KitchenRenderer:
    renderer = renderer_for(world)
    surface = pygame.Surface((900, 560))
    renderer.draw(surface, state, overlays=Overlays(**overlays))
    return renderer


def test_fog_of_war_draws_only_what_the_cook_observes(kitchen):
    state = kitchen.reset(0)
    everything = drawn(kitchen, state)
    assert everything.drawn_agents == ["alice", "bob"]
    assert everything.drawn_items == {(0, 6): "FreshTomato", (2, 0): "Plate", (2, 8): "Plate", (3, 1): "FreshLettuce"}
    alice = drawn(kitchen, state, viewer="alice")
    seen = {kitchen.rc(kitchen.station_cells[s]): kitchen.describe_item(item)
            for s, item in kitchen.observe(state, "alice").stations if item}
    assert alice.drawn_agents == ["alice"]  # bob is in the other room
    assert alice.drawn_items == seen == {(2, 0): "Plate", (3, 1): "FreshLettuce"}
    # the layout stays: the counters of bob's room are still drawn (under the fog), the tomato is not
    assert (0, 6) not in alice.drawn_items
    bob = drawn(kitchen, state, viewer="bob")
    assert bob.drawn_agents == ["bob"] and bob.drawn_items == {(0, 6): "FreshTomato", (2, 8): "Plate"}


def test_fog_darkens_the_other_room_on_screen(kitchen):
    state = kitchen.reset(0)
    renderer = renderer_for(kitchen)
    surface = pygame.Surface((900, 560))
    renderer.draw(surface, state)
    bob_cell = renderer.cell_rect(*kitchen.rc(state.positions[1]))
    head = (bob_cell.centerx, bob_cell.y + int(bob_cell.height * 0.36))
    assert close_to(tuple(surface.get_at(head))[:3], renderer.agent_color("bob"), tol=4)
    renderer.draw(surface, state, overlays=Overlays(viewer="alice"))
    fogged = tuple(surface.get_at(head))[:3]
    # no bob there, only floor under the fog: grey and darker than any floor tile (222 and up)
    assert not close_to(fogged, renderer.agent_color("bob"), tol=40) and max(fogged) < 150 and abs(fogged[0] - fogged[2]) < 10


def test_keys_speech_bubbles_and_sprites(kitchen):
    renderer = renderer_for(kitchen)
    state = kitchen.reset(0)
    legal = kitchen.legal_actions(state, "alice")
    assert [renderer.action_for_key(k, state, "alice", legal) for k in ("up", "a", "space", "q", "3", "e")] == [
        "up", "left", "stay", "stay", "left", None]  # no interact action: walking into a station works it
    renderer.layout(900, 560)
    cell = renderer.cell_rect(*kitchen.rc(state.positions[0]))
    assert renderer.agent_anchor(state, "alice") == (cell.centerx, cell.top)
    assert renderer.agent_anchor(state, "nobody") is None
    assert [item_sprite_name(code) for code in (1, 2, 3, 10)] == ["k-tomato", "k-tomato-chopped", "k-dish-tomato",
                                                                  "k-plate"]


def test_particles_are_drawn_where_the_cook_cannot_see(kitchen):
    state = kitchen.reset(0)
    snapshots = [{"agent": "alice", "particles": 5, "resampled": 0, "unseen": [
        {"at": [0, 6], "item": "FreshTomato", "weight": 0.6, "true": True},
        {"at": [0, 6], "item": "nothing", "weight": 0.4, "true": False},
        {"at": [2, 8], "item": "FreshOnion", "weight": 1.0, "true": False},
        {"at": "bad", "item": "Plate"}]}]
    beliefs = particle_beliefs(snapshots)
    assert beliefs == {"alice": {(0, 6): [("FreshTomato", 0.6, True), ("nothing", 0.4, False)],
                                 (2, 8): [("FreshOnion", 1.0, False)]}}
    renderer = renderer_for(kitchen)
    assert renderer.overlay_beliefs == ("particles",)  # the window hands them over in Overlays.beliefs
    shown = {"particles": tuple(snapshots)}
    renderer.draw(pygame.Surface((900, 560)), state, overlays=Overlays(beliefs=shown))
    assert renderer.drawn_particles == [("alice", (0, 6), "FreshTomato", 0.6, True),
                                        ("alice", (2, 8), "FreshOnion", 1.0, False)]
    renderer.draw(pygame.Surface((900, 560)), state, overlays=Overlays(viewer="bob", beliefs=shown))
    assert renderer.drawn_particles == []  # with bob's eyes, only bob's particles are drawn
    renderer.draw(pygame.Surface((900, 560)), state)  # none handed over (switched off): none drawn
    assert renderer.drawn_particles == []


def test_two_people_cook_by_key_presses_until_the_dishes_are_served(qtbot, tmp_path, kitchen):
    plan = joint_plan(kitchen)
    assert 8 <= len(plan) <= 30
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=kitchen, scenario="two-kitchens",
                                         seats={"alice": "human", "bob": "human"}), playing=True)
        for k, joint in enumerate(plan):
            qtbot.waitUntil(lambda: window.model.humans_to_move() == ("alice", "bob"), timeout=5000)
            assert window.model.human_to_move() == "alice" and window.model.second_key_seat() == "bob"
            window.focus_view()
            QTest.keyClick(window.view, ALICE_KEYS[joint["alice"]])   # arrows and Space
            if k < 3:  # half a step in (alice moved, bob has not): the map is still drawn whole
                qtbot.waitUntil(lambda: window.model.humans_to_move() == ("bob",), timeout=5000)
                window.view.render_frame()
                assert window.model.viewer() is None and window.view.overlays.viewer is None
                assert sorted(window.renderer.drawn_agents) == ["alice", "bob"]
            QTest.keyClick(window.view, BOB_KEYS[joint["bob"]])       # W/A/S/D and Q
            qtbot.waitUntil(lambda k=k: window.model.timeline.num_steps == k + 1, timeout=5000)
        wait_finished(qtbot, window)
        steps = [e for e in window.model.timeline.events if isinstance(e, StepEvent)]
        assert [e.joint_action for e in steps] == plan
        served = [(w["agent"], w["data"]["recipe"]) for e in steps for w in e.world_events if w["kind"] == "deliver"]
        assert sorted(served) == [("alice", "SimpleLettuce"), ("bob", "SimpleTomato")]
        assert window.model.timeline.outcome.outcome["success"] is True
        assert "dishes served 2/2" in window.score_label.text()
        # drawn with alice's eyes the map shows her room only
        window.model.set_viewer("alice")
        window.view.render_frame()
        assert window.renderer.drawn_agents == ["alice"]
    finally:
        window.shutdown()


def test_the_particles_panel_feeds_the_map_and_has_a_view_menu_switch(qtbot, tmp_path):
    from agents.registry import make_agent, make_mechanism

    world, name = load_scenario("kitchen-08-onion-next-door")
    session = Session(world, {a: make_agent("kitchen-heuristic", "kitchen") for a in world.agents}, seed=0,
                      scenario=name, mechanisms=[make_mechanism("protom", "kitchen")], max_ticks=6)
    path = tmp_path / "particles.jsonl"
    RecordingWriter.attach(session, path)
    session.run()
    window = make_window(qtbot, tmp_path)
    try:
        assert window.open_recording(path)
        window.model.seek(4)
        window.panels.refresh(force=True)
        panel = window.panels.panel("Particles")
        assert panel is not None
        agents = {s.agent for s in panel.snapshots}
        assert agents == set(world.agents) and all(s.particles == 5 for s in panel.snapshots)
        expected = {(s.agent, tuple(e["at"])) for s in panel.snapshots for e in s.unseen}
        window.view.render_frame()
        assert {(a, cell) for a, cell, *_ in window.renderer.drawn_particles} == expected
        view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
        switch = next(a for a in view_menu.actions() if "particles" in a.text())
        assert window.view.overlays.beliefs["particles"] == tuple(s.to_dict() for s in panel.snapshots)
        frames = window.view.frames_drawn
        switch.trigger()  # off
        assert "particles" not in window.view.overlays.beliefs and "particles" in window.model.hidden_beliefs
        window.view.render_frame()
        assert window.renderer.drawn_particles == [] and not switch.isChecked()
        switch.trigger()  # on again
        window.view.render_frame()
        assert window.renderer.drawn_particles
        # the switch outlives the episode: off, then the recording opened again starts without them
        switch.trigger()
        assert window.open_recording(path)
        window.model.seek(4)
        window.panels.refresh(force=True)
        assert "particles" not in window.view.overlays.beliefs
        assert not window.panels.panel("Particles").action.isChecked()
        assert frames >= 1
    finally:
        window.shutdown()


def test_the_app_loads_every_plugins_panels_once_an_episode_shows(qtbot, tmp_path, monkeypatch):
    """A panel a plug-in names registers its kind of data once the window shows an episode of any
    world (after its first frame: opening a window imports no world's panels), and a panel that
    cannot be imported is reported, never fatal."""
    import dataclasses
    import sys

    from sim import plugins as plugin_registry
    from ui.panels.common import PANELS, load_plugin_panels, panels_restored

    (tmp_path / "probe_panel.py").write_text(
        "from PyQt6.QtWidgets import QLabel\n"
        "from ui.panels.common import register_panel\n"
        "class ProbePanel(QLabel):\n"
        "    panel_title = 'Probe'\n"
        "    def show_at(self, timeline, tick):\n"
        "        pass\n"
        "register_panel('Probe', ProbePanel, belief_kind='probe_kind')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    probe = dataclasses.replace(plugin_registry.plugin("kitchen"), name="probe-world",
                                panels=("probe_panel:ProbePanel", "no_such_module:Panel"))
    with plugin_registry.registered(probe), panels_restored("Probe"):
        try:
            assert "Probe" not in [k.title for k in PANELS]
            window = make_window(qtbot, tmp_path)
            try:
                assert "Probe" not in [k.title for k in PANELS] and not window.panels.plugin_panels_loaded
                window.start_session(plan("two-rooms", ["planner", "planner"]), playing=False)  # a DKG episode
                qtbot.waitUntil(lambda: window.panels.plugin_panels_loaded, timeout=5000)
                assert "Probe" in [k.title for k in PANELS]
                assert any("no_such_module:Panel" in problem for problem in window.panels.problems)
                assert "Particles" in [k.title for k in PANELS]  # the kitchen's, by its kind of data
            finally:
                window.shutdown()
            assert len([p for p in load_plugin_panels() if "probe-world" in p]) == 1
        finally:
            sys.modules.pop("probe_panel", None)  # a later import registers the panel afresh
    assert "Probe" not in [k.title for k in PANELS] and "probe-world" not in plugin_registry.plugins()


def test_the_second_cooks_keys_are_the_kitchens_and_a_key_that_counted_says_so(qtbot, tmp_path, kitchen):
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=kitchen, scenario="two-kitchens",
                                         seats={"alice": "human", "bob": "human"}), playing=True)
        qtbot.waitUntil(lambda: window.model.humans_to_move() == ("alice", "bob"), timeout=5000)
        bar = window.action_bar.text()
        assert "E (interact)" not in bar and "Q (stay)" in bar  # the kitchen has no interact key
        window.focus_view()
        QTest.keyClick(window.view, Qt.Key.Key_E)  # not a kitchen key (the bar does not offer it): no move
        assert window.model.humans_to_move() == ("alice", "bob")
        QTest.keyClick(window.view, BOB_KEYS["stay"])  # bob first: his key counted, alice still to move
        qtbot.waitUntil(lambda: window.model.humans_to_move() == ("alice",), timeout=5000)
        assert window.statusBar().currentMessage() == "bob: stay taken; waiting for alice"
        assert window.model.timeline.num_steps == 0
    finally:
        window.shutdown()



@pytest.mark.parametrize("width", [740, 900])
def test_the_strip_under_the_map_never_writes_over_the_clock(width):
    """Both cooks served at two-digit ticks on a map about as wide as the app's at 1366 x 768: the
    cooks' words give way ("at 20", no "empty hand") before they reach the tick and "over"."""
    import dataclasses

    init_pygame()
    world, _ = load_scenario("kitchen-23-plate-gone-downstairs")
    state = dataclasses.replace(world.reset(0), t=21, delivered=(20, 21))
    renderer = renderer_for(world)
    renderer.draw(pygame.Surface((width, 560)), state)
    cooks_end, clock_left = renderer.strip_ends
    assert cooks_end <= clock_left
