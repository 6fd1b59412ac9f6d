"""The household in the desktop app: rooms with furniture, containers and objects, agents with
what they hold; with one seat's eyes closed receptacles hide their contents and other rooms are
empty; a person plays a seat with number keys (0 turns the page of actions) and the message box."""

from __future__ import annotations

import pygame
import pytest
from PyQt6.QtCore import Qt
from PyQt6.QtTest import QTest

from sim.events import MessageEvent, StepEvent
from sim.registry import load_scenario
from tests.ui_support import make_window
from ui.render import Overlays, renderer_for
from ui.render.household import HouseholdRenderer, short_place
from ui.render.worldview import init_pygame
from ui.session.catalog import SessionPlan

DIGITS = {str(i): getattr(Qt.Key, f"Key_{i}") for i in range(10)}


@pytest.fixture(scope="module")
def tea():
    init_pygame()
    world, _ = load_scenario("household-prepare-tea-01")
    return world


def drawn(world, state, **overlays) -> HouseholdRenderer:
    renderer = renderer_for(world)
    renderer.draw(pygame.Surface((1000, 680)), state, overlays=Overlays(**overlays))
    return renderer


def test_everything_is_drawn_without_a_viewer_and_only_what_is_seen_with_one(tea):
    state = tea.reset(0)
    everything = drawn(tea, state)
    assert everything.drawn_objects == {o.id for o in tea.objects}
    assert everything.drawn_agents == list(tea.agents)
    # alice starts in the living room, which she has not explored: she sees nothing; bob is in the kitchen
    alice = drawn(tea, state, viewer="alice")
    assert alice.drawn_objects == set() and alice.drawn_agents == ["alice"]
    # exploring shows the living room's objects, except inside its closed cabinets
    state = tea.step(state, {"alice": "explore", "bob": "walk livingroom"}).state
    alice = drawn(tea, state, viewer="alice")
    seen = {o.id for o in tea.observe(state, "alice").objects}
    in_closed = {o.id for o, loc in zip(tea.objects, state.locs)
                 if 0 <= loc < tea.n_places and tea.places[loc].openable and not (state.open_places >> loc & 1)}
    living = {o.id for o, loc in zip(tea.objects, state.locs) if 0 <= loc < tea.n_places
              and tea.places[loc].room == tea.room_index["livingroom"]}
    assert alice.drawn_objects == seen == living - in_closed
    assert living & in_closed  # the cabinets do hide something here
    assert alice.drawn_agents == ["alice", "bob"]  # bob came in: seen in the same room, with what he holds
    # opening a cabinet shows what is in it
    cabinet = next(p.id for p in tea.places if p.room == tea.room_index["livingroom"] and p.openable
                   and any(o in living & in_closed for o in
                           [x.id for x, loc in zip(tea.objects, state.locs) if loc == tea.place_index[p.id]]))
    opened = tea.step(state, {"alice": f"open {cabinet}", "bob": "wait"}).state
    inside = {o.id for o, loc in zip(tea.objects, state.locs) if loc == tea.place_index[cabinet]}
    assert inside and drawn(tea, opened, viewer="alice").drawn_objects == living - in_closed | inside


def test_number_keys_page_through_the_legal_actions(tea):
    renderer = renderer_for(tea)
    state = tea.reset(0)
    state = tea.step(state, {"alice": "walk kitchen", "bob": "wait"}).state
    legal = tea.legal_actions(state, "alice")
    assert 9 < len(legal) <= 18 and renderer.page_key == "0" and renderer.action_pages(legal) == 2
    first, second = renderer.numbered_actions(legal, 0), renderer.numbered_actions(legal, 1)
    assert first == [(str(k + 1), a) for k, a in enumerate(legal[:9])]
    assert second == [(str(k + 1), a) for k, a in enumerate(legal[9:])]
    assert renderer.numbered_actions(legal, 2) == first  # pages wrap round
    assert renderer.action_for_key("space", state, "alice", legal) == "wait"
    assert renderer.action_for_key("1", state, "alice", legal) is None  # digits are the window's
    # the page drawn is the one the window hands over
    page = drawn(tea, state, human="alice", legal=tuple(legal), page=1)
    assert page.drawn_page == (1, 2)
    assert drawn(tea, state, human="alice", legal=tuple(legal)).drawn_page == (0, 2)
    assert short_place("kitchen_cabinet2", "kitchen") == "cabinet2"


def test_a_person_plays_a_household_seat_with_number_keys_and_talks(qtbot, tmp_path, tea):
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=tea, scenario="household-prepare-tea-01",
                                         seats={"alice": "human", "bob": "rhp"}), playing=True)
        qtbot.waitUntil(lambda: window.model.human_to_move() == "alice", timeout=5000)
        assert window.model.viewer() == "alice"  # the seat one plays: drawn with her eyes
        state = window.model.timeline.state_at(window.model.cursor)
        legal = tea.legal_actions(state, "alice")
        window.focus_view()
        QTest.keyClick(window.view, DIGITS[str(legal.index("walk kitchen") + 1)])
        qtbot.waitUntil(lambda: window.model.timeline.num_steps == 1, timeout=5000)
        qtbot.waitUntil(lambda: window.model.human_to_move() == "alice", timeout=5000)
        legal = tea.legal_actions(window.model.timeline.state_at(window.model.cursor), "alice")
        assert len(legal) > 9
        assert f"[1] {legal[0]}" in window.action_bar.text() and "page 1/" in window.action_bar.text()
        QTest.keyClick(window.view, DIGITS["0"])  # the second page of actions: no action, a new page
        assert window.model.timeline.num_steps == 1 and window.view.overlays.page == 1
        assert f"[1] {legal[9]}" in window.action_bar.text() and "page 2/" in window.action_bar.text()
        assert "not possible" not in window.statusBar().currentMessage()
        window.view.render_frame()
        assert window.renderer.drawn_page == (1, window.renderer.action_pages(legal))
        QTest.keyClick(window.view, DIGITS["1"])
        qtbot.waitUntil(lambda: window.model.timeline.num_steps == 2, timeout=5000)
        # the message box sends alice's message as her action of the step
        qtbot.waitUntil(lambda: window.model.human_to_move() == "alice" and window.say_box.isVisible(), timeout=5000)
        window.say_box.setText("I am in the kitchen")
        QTest.keyClick(window.say_box, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: window.model.timeline.num_steps == 3, timeout=5000)
        steps = [e for e in window.model.timeline.events if isinstance(e, StepEvent)]
        assert [e.joint_action["alice"] for e in steps] == ["walk kitchen", legal[9], "say I am in the kitchen"]
        messages = [e for e in window.model.timeline.events if isinstance(e, MessageEvent)]
        assert [(m.sender, m.text) for m in messages] == [("alice", "I am in the kitchen")]
        assert window.view.overlays.messages == (("alice", "I am in the kitchen"),)
        window.view.render_frame()
        x, y = window.renderer.agent_anchor(window.model.timeline.state_at(window.model.cursor), "alice")
        assert window.renderer.room_rect(tea.room_index["kitchen"]).collidepoint(x, y + 4)
    finally:
        window.shutdown()
