"""gym-cooking's own rules in the kitchen (team-orders mode): shared orders, any cook delivers,
objects merge as gym-cooking's ``mergeable`` says, a deliverable object leaves the kitchen, and
the episode succeeds when every order is delivered. Levels: our format's ``orders:`` header,
gym-cooking's files with ``--cooks N``, and what refuses such a level."""

from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from agents.registry import make_agent
from main import main
from sim.kitchen.level import load_level_text, parse_kitchen_text, spec_text, validate_kitchen
from sim.kitchen.world import ITEM_CODE, ITEM_NAMES, KitchenState, KitchenWorld
from sim.registry import ScenarioError, build_world, load_scenario, load_spec
from sim.session import Session

GYM = Path(__file__).parent / "fixtures" / "gym_cooking"

LEVEL = """\
title: Orders
orders: Salad, SimpleTomato
agent alice
agent bob
map:
#t-l-t#
/1...2*
#p-p--#
"""


@pytest.fixture(scope="module")
def world() -> KitchenWorld:
    world = build_world("kitchen", parse_kitchen_text(LEVEL, "orders.kitchen.txt", "orders"))
    assert isinstance(world, KitchenWorld)
    return world


def code(name: str) -> int:
    return ITEM_CODE[name]


def state(world: KitchenWorld, held: tuple[str, str] = ("nothing", "nothing"), **on: str) -> KitchenState:
    """The start with the cooks holding ``held`` and station contents set by ``at_R_C=name``."""
    start = world.initial_state
    contents = list(start.contents)
    for key, name in on.items():
        _, r, c = key.split("_")
        contents[world.station_at[world.cell(int(r), int(c))]] = code(name)
    return KitchenState(0, start.positions, tuple(code(h) for h in held), tuple(contents), start.delivered)


def works(world: KitchenWorld, before: KitchenState, alice: str = "stay", bob: str = "stay"):
    return world.step(before, {"alice": alice, "bob": bob})


def test_the_level_plays_by_orders_and_no_cook_has_a_goal(world):
    assert world.orders == ("Salad", "SimpleTomato") and world.goals == {} and world.goal_dish == ()
    assert world.initial_state.delivered == (-1, -1)  # one entry per order, not per cook
    obs = world.observe(world.initial_state, "alice")
    assert obs.goal == "" and obs.orders == (-1, -1) and not obs.delivered


@pytest.mark.parametrize("held, there, made", [
    ("ChoppedLettuce", "ChoppedTomato", "ChoppedTomato-ChoppedLettuce"),            # no plate needed
    ("ChoppedTomato", "ChoppedLettuce", "ChoppedTomato-ChoppedLettuce"),            # either order
    ("ChoppedTomato-ChoppedLettuce", "Plate", "ChoppedTomato-ChoppedLettuce-Plate"),  # the plate last
    ("Plate", "ChoppedTomato", "ChoppedTomato-Plate"),                               # or first
    ("ChoppedTomato-Plate", "ChoppedLettuce", "ChoppedTomato-ChoppedLettuce-Plate"),
    ("ChoppedOnion", "ChoppedTomato-ChoppedLettuce-Plate", "ChoppedTomato-ChoppedLettuce-ChoppedOnion-Plate"),
])
def test_chopped_foods_merge_with_each_other_and_one_plate_in_any_order(world, held, there, made):
    after = works(world, state(world, (held, "nothing"), at_0_1=there), alice="up")
    assert ITEM_NAMES[after.state.held[0]] == made
    assert after.state.contents[world.station_at[world.cell(0, 1)]] == 0
    assert [(e.kind, e.data["item"]) for e in after.events] == [("merge", made)]


@pytest.mark.parametrize("held, there", [
    ("ChoppedTomato-Plate", "Plate"),          # at most one plate
    ("Plate", "ChoppedTomato-ChoppedLettuce-Plate"),
    ("FreshLettuce", "ChoppedTomato"),         # fresh food never merges
    ("ChoppedLettuce", "FreshTomato"),
    ("FreshLettuce", "Plate"),
    ("ChoppedTomato", "ChoppedTomato"),        # the same ingredient twice: nothing here
    ("ChoppedTomato-ChoppedLettuce", "ChoppedTomato-Plate"),
])
def test_what_does_not_merge_stays_as_it_was(world, held, there):
    before = state(world, (held, "nothing"), at_0_1=there)
    after = works(world, before, alice="up")
    assert after.state.held == before.held and after.state.contents == before.contents and after.events == ()


def test_any_cook_delivers_and_success_waits_for_every_order(world):
    # bob delivers the salad: the first order; the tomato dish is still open
    after = works(world, state(world, ("nothing", "ChoppedTomato-ChoppedLettuce-Plate")), bob="right")
    assert after.state.delivered == (1, -1) and after.state.held[1] == 0
    event = after.events[0]
    assert (event.kind, event.agent, event.data["recipe"], event.data["order"]) == ("deliver", "bob", "Salad", 0)
    assert not world.done(after.state) and not world.outcome(after.state)["success"]
    # ... and then the tomato: every order is delivered, the episode succeeds
    s = KitchenState(5, after.state.positions, (0, code("ChoppedTomato-Plate")), after.state.contents, after.state.delivered)
    done = works(world, s, bob="right").state
    assert done.delivered == (1, 6) and world.done(done)
    outcome = world.outcome(done)
    assert outcome["success"] and outcome["length"] == 6 and outcome["ticks"] == 6 and outcome["t_max"] == 100
    assert outcome["orders"] == [{"recipe": "Salad", "delivered": 1}, {"recipe": "SimpleTomato", "delivered": 6}]
    assert outcome["orders_delivered"] == 2 and "goals" not in outcome and "delivered" not in outcome


def test_a_deliverable_object_no_order_asks_for_leaves_the_kitchen(world):
    # gym-cooking's is_deliverable: merged, every part chopped food or a plate (a plate is not needed)
    after = works(world, state(world, ("nothing", "ChoppedTomato-ChoppedLettuce")), bob="right")
    assert after.state.held[1] == 0 and after.state.delivered == (-1, -1)
    assert after.events[0].data["recipe"] is None and after.events[0].data["order"] is None
    for item in ("ChoppedTomato", "Plate", "FreshTomato"):  # not merged: nothing happens
        before = state(world, ("nothing", item))
        assert works(world, before, bob="right").state.held == before.held


def test_two_cooks_working_one_station_still_clash(world):
    # alice and bob cannot reach one station here; the rule is the per-cook one, checked on a
    # level where both reach the board
    level = LEVEL.replace("/1...2*", "*1/2..-").replace("orders: Salad, SimpleTomato", "orders: SimpleTomato")
    w = build_world("kitchen", parse_kitchen_text(level, "o.kitchen.txt", "o"))
    start = w.initial_state
    s = KitchenState(0, start.positions, (code("FreshTomato"), code("FreshTomato")), start.contents, start.delivered)
    after = w.step(s, {"alice": "right", "bob": "left"})
    assert after.state.held == s.held and [e.kind for e in after.events] == ["clash", "clash"]


def test_the_per_cook_rules_are_unchanged_without_orders():
    world, _ = load_scenario("two-kitchens")
    assert world.orders == () and len(world.initial_state.delivered) == len(world.agents)
    assert world.observe(world.initial_state, "alice").key()[2] == world.goals["alice"]


# ----------------------------------------------------------------------------- levels

def test_our_format_writes_and_reads_orders():
    spec = parse_kitchen_text(LEVEL, "orders.kitchen.txt", "orders")
    assert spec["orders"] == ["Salad", "SimpleTomato"]
    assert spec["agents"] == [{"name": "alice", "start": [1, 1]}, {"name": "bob", "start": [1, 5]}]
    text = spec_text(spec)
    assert "orders: Salad, SimpleTomato\nagent alice\nagent bob\n" in text
    assert parse_kitchen_text(text, "again.kitchen.txt", "orders") == spec
    assert validate_kitchen({**spec, "format": "json"}, "x.json") == {**spec, "format": "json"}


def test_a_gym_cooking_level_round_trips_through_our_format():
    spec = load_spec(GYM / "full-divider_salad.txt", options={"cooks": 3})[1]
    again = parse_kitchen_text(spec_text(spec), "x.kitchen.txt", spec["name"])
    for key in ("name", "map", "agents", "orders", "collisions", "t_max", "rules"):
        assert again[key] == spec[key], key


@pytest.mark.parametrize("old, new, line, column, words", [
    ("agent bob\n", "agent bob: SimpleTomato\n", 4, 12, "agent 'bob' has its own recipe 'SimpleTomato', but the level has orders"),
    ("orders: Salad, SimpleTomato\n", "", 2, 13, "expected a recipe (SimpleTomato, SimpleLettuce, SimpleOnion) for agent 'alice'"),
    ("orders: Salad, SimpleTomato\n", "orders: Salad, Pizza\n", 2, 16, "got 'Pizza'"),
    ("#p-p--#", "#p----#", 2, 9, "2 orders need 2 plates"),
    ("#t-l-t#", "#t-l--#", 2, 9, "the orders need 2 Tomato but the map holds 1"),
])
def test_bad_orders_levels_get_one_message_with_line_and_column(tmp_path, old, new, line, column, words):
    path = tmp_path / "bad.kitchen.txt"
    path.write_text(LEVEL.replace(old, new), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_spec(path)
    message = str(info.value)
    assert message.startswith(f"{path}: line {line}, column {column} (1-based): ") and words in message, message
    assert "\n" not in message


def test_json_specs_are_checked_by_field():
    spec = {**parse_kitchen_text(LEVEL, "o.kitchen.txt", "o"), "format": "json"}
    with pytest.raises(ScenarioError, match=r"x\.json: field 'orders': expected a non-empty list of recipes"):
        validate_kitchen({**spec, "orders": ["Soup"]}, "x.json")
    with pytest.raises(ScenarioError, match=r"field 'agents', entry 1 \(1-based\): expected exactly the keys name, start"):
        validate_kitchen({**spec, "agents": [{"name": "alice", "goal": "Salad", "start": [1, 1]}]}, "x.json")


@pytest.mark.parametrize("cooks", [1, 2, 3, 4])
def test_gym_cooking_levels_take_one_to_four_cooks(cooks):
    world, name = load_scenario(str(GYM / "full-divider_tl.txt"), None, {"cooks": cooks})
    assert world.agents == ("alice", "bob", "carol", "dave")[:cooks] and world.orders == ("SimpleTomato", "SimpleLettuce")
    session = Session(world, {a: make_agent("kitchen-heuristic") for a in world.agents}, seed=7)
    session.run()
    assert session.tick > 0


def test_too_many_cooks_are_refused_naming_the_file_and_count(tmp_path):
    with pytest.raises(ScenarioError, match=r"--cooks: expected a number of cooks from 1 to 4, got 5"):
        load_spec(GYM / "full-divider_tl.txt", options={"cooks": 5})
    two = tmp_path / "two.txt"
    two.write_text((GYM / "open-divider_tl.txt").read_text().replace("4 4\n2 4\n", ""))
    with pytest.raises(ScenarioError, match=rf"{two}: line 14 \(1-based\): 3 cooks \(--cooks\) but the level has "
                                            r"2 agent start lines"):
        load_spec(two, options={"cooks": 3})
    assert len(load_level_text(two, cooks=2)["agents"]) == 2  # one path recognises every format


def test_cooks_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(GYM / "full-divider_salad.txt"), "--cooks", "3", "--out", str(out),
                 "--no-record", "--quiet"]) == 0
    assert main(["run", "two-kitchens", "--cooks", "2", "--no-record", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
    assert "--cooks sets how many cooks play a gym-cooking level" in err[0] and "names its own cooks" in err[0]


# ----------------------------------------------------------------------------- who cannot play it

@pytest.mark.parametrize("args, words", [
    (["--facilitator", "protom"], "protom: the level's orders are shared by all cooks (gym-cooking's rules); "
                                  "ProToM's kitchen facilitator needs each cook's own goal"),
    (["--facilitator", "oracle"], "ProToM's kitchen facilitator needs each cook's own goal"),
    (["--agents", "tom-cook"], "tom-cook: the level's orders are shared by all cooks"),
    (["--agents", "llm"], "llm: the level's orders are shared by all cooks"),
])
def test_goal_inferring_agents_refuse_an_orders_level_in_one_line(capsys, args, words):
    assert main(["run", str(GYM / "open-divider_salad.txt"), *args, "--no-record", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


def test_networked_seats_refuse_an_orders_level():
    from study.seat_view import seat_frame

    world, _ = load_scenario(str(GYM / "open-divider_salad.txt"))
    with pytest.raises(ValueError, match="orders are shared by all cooks"):
        seat_frame(world, world.initial_state, "alice")


# ----------------------------------------------------------------------------- the app's view

def test_the_view_draws_salads_and_the_orders(world):
    from ui.render import Overlays, renderer_for
    from ui.render.kitchen import item_sprite_name
    from ui.render.worldview import init_pygame

    init_pygame()
    assert item_sprite_name(code("ChoppedTomato-ChoppedLettuce")) == "k-mix-tomato-lettuce"
    assert item_sprite_name(code("ChoppedTomato-ChoppedLettuce-ChoppedOnion-Plate")) == "k-dish-tomato-lettuce-onion"
    renderer = renderer_for(world)
    s = state(world, ("ChoppedTomato-ChoppedLettuce-Plate", "nothing"), at_2_5="ChoppedTomato-ChoppedLettuce")
    s = KitchenState(3, s.positions, s.held, s.contents, (-1, 2))
    surface = pygame.Surface((900, 560))
    renderer.draw(surface, s, overlays=Overlays())
    assert renderer.drawn_items[(2, 5)] == "ChoppedTomato-ChoppedLettuce"
    assert renderer.drawn_orders == [("ChoppedTomato-ChoppedLettuce-Plate", -1), ("ChoppedTomato-Plate", 2)]
    assert renderer.status_text(s) == "orders delivered 1/2"
    for name in ("k-mix-tomato-lettuce", "k-dish-tomato-lettuce", "k-dish-tomato-lettuce-onion"):
        sprite = renderer.book.get(name, 32)
        opaque = sum(sprite.get_at((x, y))[3] > 0 for x in range(32) for y in range(32))
        assert opaque > 100, name  # drawn, not blank


def test_the_app_plays_a_gym_cooking_level(qtbot, tmp_path):
    from tests.ui_support import make_window, wait_finished
    from ui.session.catalog import SessionPlan

    world, name = load_scenario(str(GYM / "full-divider_salad.txt"))
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=world, scenario=name, seats={a: "kitchen-heuristic" for a in world.agents},
                                         seed=0), playing=True)
        wait_finished(qtbot, window)
        assert "orders delivered" in window.score_label.text()
        window.view.render_frame()
        assert [dish for dish, _ in window.renderer.drawn_orders] == ["ChoppedTomato-ChoppedLettuce-Plate"]
    finally:
        window.shutdown()
