"""The maps read as a story (issue 41): speech bubbles leave the things they talk about in view,
household objects carry their own shape and a label, and a kitchen under overcooked_ai's rules
shows its pots' contents and state, its stations' names and its orders."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pygame
import pytest

from agents.registry import make_agent
from sim.events import MessageEvent
from sim.registry import load_scenario
from sim.session import Session
from tests.test_overcooked_rules import FIXTURES
from ui.beliefs.words import Namer, message_words
from ui.render import renderer_for, sprites
from ui.render.base import Overlays
from ui.render.worldview import draw_frame, init_pygame

#: the world view's default size (a clip's, ui/export/clip.py)
SIZE = (960, 640)
#: the map of a 1366 x 768 window, and a smaller one
APP_MAPS = ((1000, 600), (760, 640))
FALSE_BELIEF = ("false-belief-unexpected-transfer", "false-belief-unexpected-contents", "false-belief-second-order")


def played(name: str) -> tuple[object, dict[int, object], list[MessageEvent]]:
    """The scenario played by the app's default seats (first-order CoBel): states by tick, messages."""
    world, _ = load_scenario(name)
    session = Session(world, {a: make_agent("cobel") for a in world.agents}, seed=0)
    states = {session.tick: session.state}
    while not session.finished:
        session.advance()
        states[session.tick] = session.state
    return world, states, [e for e in session.events if isinstance(e, MessageEvent)]


def named(renderer, text: str) -> list[pygame.Rect]:
    """The salient things of the last frame that ``text`` names."""
    said = " " + " ".join(text.lower().split()) + " "
    return [rect for rect, names in renderer.salient
            if any(f" {n} " in said or f" {n};" in said or f" {n}," in said for n in names)]


@pytest.mark.parametrize("name", FALSE_BELIEF)
def test_a_bubble_leaves_what_its_message_names_in_view(name):
    init_pygame()
    world, states, messages = played(name)
    namer = Namer(world)
    assert messages
    checked = 0
    for event, size in itertools.product(messages, (SIZE, *APP_MAPS)):
        tick = min(event.tick + 1, max(states))  # the app shows a message from the step after it
        renderer = renderer_for(world)
        renderer.layout(*size)
        surface = pygame.Surface(size)
        words = message_words(event.text, namer)
        draw_frame(renderer, surface, states[tick], Overlays(messages=((event.sender, words),)))
        (bubble,) = renderer.bubble_rects
        assert surface.get_rect().contains(bubble) and bubble.bottom <= renderer.hud_top
        things = named(renderer, words)
        if not things:  # "the kitchen is explored": nothing on the map to keep in view
            continue
        assert not any(bubble.colliderect(r) for r in things), (name, size, tick, words, bubble, things)
        checked += 1
    assert checked >= 1  # the message that says where the ball (the sugar) is


def test_the_ball_stays_in_view_when_the_bubble_would_sit_on_it():
    """Anne in the bedroom says where the ball is; right above her is the box with the ball in it."""
    init_pygame()
    world, states, messages = played("false-belief-unexpected-transfer")
    event = next(e for e in messages if e.sender == "anne" and "box" in e.text)
    state = states[4]
    renderer = renderer_for(world)
    renderer.layout(*SIZE)
    words = message_words(event.text, Namer(world))
    draw_frame(renderer, pygame.Surface(SIZE), state, Overlays(messages=(("anne", words),)))
    ball = next(rect for rect, names in renderer.salient if "ball 1" in names)
    box = next(rect for rect, names in renderer.salient if "box" in names and "ball" not in names)
    (bubble,) = renderer.bubble_rects
    assert not bubble.colliderect(ball) and not bubble.colliderect(box)
    anne = renderer.agent_rect(state, "anne")
    assert not bubble.colliderect(anne)


def test_household_objects_have_their_own_shape_and_a_label():
    init_pygame()
    world, _ = load_scenario("false-belief-second-order")  # a ball, two cars, two books
    renderer = renderer_for(world)
    renderer.layout(*SIZE)
    renderer.draw(pygame.Surface(SIZE), world.reset(0))
    labels = {oid: text for oid, (text, _rect) in renderer.drawn_labels.items()}
    assert labels["ball_1"] == "ball"
    assert {labels["car_1"], labels["car_2"]} == {"car 1", "car 2"}
    shapes = {sprites.object_look(cls)[0] for cls in ("ball", "cup", "car", "sugar", "salt")}
    assert len(shapes) == 5 and "token" not in shapes
    # legible at the default size: each label (pygame's font at 14 px or more) at least 9 px tall, none covers another
    rects = [rect for _text, rect in renderer.drawn_labels.values()]
    assert all(r.height >= 9 for r in rects)
    assert not any(a.colliderect(b) for k, a in enumerate(rects) for b in rects[k + 1:])
    # a crowded card keeps every object (and its label) inside it
    tea, _ = load_scenario("household-prepare-tea-01")
    renderer = renderer_for(tea)
    renderer.layout(*SIZE)
    renderer.draw(pygame.Surface(SIZE), tea.reset(0))
    assert renderer.drawn_objects == {o.id for o in tea.objects}
    assert all(rect.top >= 0 for _t, rect in renderer.drawn_labels.values())


def overcooked(layout: str):
    world, _ = load_scenario(str(FIXTURES / "layouts" / f"{layout}.layout"))
    renderer = renderer_for(world)
    renderer.layout(*SIZE)
    return world, renderer


def test_an_overcooked_pot_is_drawn_as_its_state_says():
    init_pygame()
    world, renderer = overcooked("counter_circuit")
    start = world.reset(0)
    first, second = world.engine.pots
    cook = world.layout.time(("onion", "onion", "tomato"))
    cases = [
        ({}, "empty", "empty"),
        ({first: ("soup", ("onion", "onion"), -1)}, "2/3", "empty"),
        ({first: ("soup", ("onion", "onion", "tomato"), 7)}, f"cooking 7/{cook:g}", "empty"),
        ({first: ("soup", ("onion", "onion", "tomato"), int(cook)), second: ("soup", ("tomato",), -1)}, "ready", "1/3"),
    ]
    surface = pygame.Surface(SIZE)
    for objects, words_first, words_second in cases:
        state = replace(start, objects=tuple(sorted(objects.items())))
        renderer.draw(surface, state)
        assert renderer.drawn_pots[first] == (tuple(objects.get(first, ("", ()))[1]), words_first)
        assert renderer.drawn_pots[second][1] == words_second
    # the ready pot's bar is green, a cooking pot's orange
    rect = renderer.cell_rect(first[1], first[0])
    bar = (rect.x + renderer.tile // 10 + 2, rect.bottom - max(4, renderer.tile // 12))
    assert surface.get_at(bar)[:3] == (46, 160, 67)


def test_overcooked_stations_are_labelled_and_the_orders_shown():
    init_pygame()
    world, renderer = overcooked("bonus_order_test")
    renderer.draw(pygame.Surface(SIZE), world.reset(0))
    labels = renderer.drawn_labels
    grid = world.grid
    for (x, y), label in labels.items():
        assert label == {"O": "onions", "T": "tomatoes", "D": "dishes", "S": "serve", "P": "pot"}[grid[y][x]]
    assert sorted(set(labels.values())) == ["dishes", "onions", "pot", "serve", "tomatoes"]
    assert [(r, v, b) for r, v, b in renderer.drawn_orders] == [
        (("onion", "onion", "onion"), 10, False), (("tomato", "tomato", "tomato"), 40, True),
        (("onion", "tomato"), 30, True)]
    # a layout without orders takes any soup: said so, every recipe counted
    world, renderer = overcooked("cramped_room_tomato")
    renderer.draw(pygame.Surface(SIZE), world.reset(0))
    if not world.layout.orders_listed:
        assert len(renderer.drawn_orders) == len(world.layout.all_orders)


def test_every_household_scenario_labels_every_object_it_draws():
    """At the default size every object drawn has its label, inside the map, no two overlapping
    (the largest houses draw small objects and cut a few labels at their card's edge)."""
    init_pygame()
    from sim.registry import ROOT

    frames = 0
    for path in sorted((ROOT / "scenarios" / "household").rglob("*.json")):
        world, _ = load_scenario(str(path))
        renderer = renderer_for(world)
        renderer.layout(*SIZE)
        renderer.draw(pygame.Surface(SIZE), world.reset(0))
        assert set(renderer.drawn_labels) == renderer.drawn_objects, path
        rects = [rect for _text, rect in renderer.drawn_labels.values()]
        assert all(0 <= r.top and r.bottom <= renderer.hud_top for r in rects), path
        assert not any(a.colliderect(b) for k, a in enumerate(rects) for b in rects[k + 1:]), path
        frames += 1
    assert frames >= 100
