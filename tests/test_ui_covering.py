"""What floats over the map leaves what the player needs in sight: the feedback pop-up keeps
clear of the person's own agent and the cells highlighted for their move and goes when the
person seeks away from its step; the household's action box covers no room's name; the team
room's speech bubbles stay under its header."""

from __future__ import annotations

import pygame
import pytest
from PyQt6.QtCore import QRect
from ui_support import open_window, plan

from sim.events import FeedbackEvent
from sim.registry import load_scenario
from ui.render import Overlays, renderer_for
from ui.render.worldview import init_pygame


@pytest.fixture
def window(qtbot, tmp_path):
    with open_window(qtbot, tmp_path, record=False) as w:
        yield w


def feedback(target: str, tick: int) -> FeedbackEvent:
    return FeedbackEvent(tick=tick, feedback_id=1, facilitator="protom", target=target,
                         feedback={"kind": "pickup"}, text=f"{target}, pick up the key", explanation="it saves time")


def test_the_pop_up_keeps_clear_of_the_players_agent_and_highlighted_cells(qtbot, window):
    world, _ = load_scenario("two-rooms")
    human = world.agents[0]
    window.start_session(plan("two-rooms", {human: "human", world.agents[1]: "planner"}), playing=True)
    qtbot.waitUntil(lambda: window.model.human_to_move() == human and bool(window.view.overlays.legal),
                    timeout=10_000)
    keep = window.human.toast_keep_clear()
    state = window.model.timeline.state_at(window.model.cursor)
    cells = window.renderer.legal_cells(state, human, window.view.overlays.legal)
    assert cells and len(keep) >= 1 + len(cells)  # the agent and every highlighted cell
    window.toast.show_feedback(feedback(human, window.model.cursor), ask=False, seconds=0)
    box = window.toast.geometry()
    assert not any(box.intersects(r) for r in keep), (box, keep)
    # wherever those are: with the top centre taken, the box goes elsewhere and covers nothing
    stage = window.stage.rect()
    top = QRect(0, 0, stage.width(), box.height() + 30)
    window.toast.keep_clear = lambda: [top]
    window.toast.place()
    assert not window.toast.geometry().intersects(top)
    window.toast.keep_clear = window.human.toast_keep_clear


def test_a_pop_up_goes_when_the_person_seeks_away_from_its_step(qtbot, window):
    window.start_session(plan("two-rooms", ["planner", "planner"]), playing=True)
    qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 6, timeout=20_000)
    window.set_playing(False)
    window.model.seek(4)
    window.human.present_feedback([feedback(window.model.timeline.world.agents[0], 4)])
    assert window.toast.isVisible()
    window.model.move_to(5)  # playing on past it: it stays until its time is up
    assert window.toast.isVisible()
    window.model.seek(2)  # before it was given
    assert not window.toast.isVisible()
    window.model.seek(4)
    window.human.present_feedback([feedback(window.model.timeline.world.agents[0], 4)])
    window.model.seek(6)  # a jump forward with the scrubber
    assert not window.toast.isVisible()


def test_the_household_action_box_covers_no_room_name():
    init_pygame()
    world, _ = load_scenario("household-prepare-tea-01")
    state = world.step(world.reset(0), {"alice": "walk kitchen", "bob": "wait"}).state
    legal = tuple(world.legal_actions(state, "alice"))
    for size in ((1000, 680), (800, 560), (1366, 700)):
        renderer = renderer_for(world)
        renderer.layout(*size)
        renderer.draw(pygame.Surface(size), state, overlays=Overlays(human="alice", legal=legal))
        box = renderer.action_box
        assert not any(box.colliderect(c) for c in renderer.captions()), (size, box)


def test_team_room_bubbles_leave_the_header_and_the_cards_clear():
    init_pygame()
    for scenario in ("car-free-centres", "list-tools"):
        world, _ = load_scenario(scenario)
        for size in ((1000, 600), (760, 640)):  # the map of a 1366 x 768 window, and a smaller one
            renderer = renderer_for(world)
            renderer.layout(*size)
            surface = pygame.Surface(size)
            state = world.reset(0)
            renderer.draw(surface, state)
            messages = [(a, f"a message from {a}") for a in list(world.agents)[:4]]
            renderer.draw_messages(surface, state, messages)
            assert len(renderer.bubble_rects) == 4 and renderer.bubble_top > 8
            assert all(r.top >= renderer.bubble_top and r.bottom <= size[1] for r in renderer.bubble_rects)
            cards = [rect for rect, _status in renderer.cards.values()]
            assert cards and not any(b.colliderect(c) for b in renderer.bubble_rects for c in cards), \
                (scenario, size, renderer.bubble_rects, cards)
