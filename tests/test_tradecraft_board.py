"""The TradeCraft board in the real window (offscreen Qt): a person plays a seat against a planner
trader with the board's controls, the picture shows every hand with its icons and keeps the
others' secrets, and the ToM values heatmap follows the traders' reports."""

from __future__ import annotations

import math
from fractions import Fraction

import pygame
import pytest
from PyQt6.QtWidgets import QApplication

from agents.human import HumanAgent
from agents.registry import make_agent
from agents.tradecraft.selfplay import with_options
from sim.events import BeliefEvent, StepEvent
from sim.recording import load_recording
from sim.registry import find_scenario, load_spec
from sim.session import Session, TickStatus
from sim.tradecraft.world import CRAFT, PROPOSE, RESPOND, Propose, TradeCraftWorld
from tests.ui_support import close_to, make_window, pixel
from ui.session.catalog import SessionPlan
from ui.session.timeline import LiveTimeline
from ui.tradecraft.board import TradeCraftBoard
from ui.tradecraft.heatmap import ToMValuesPanel, value_color
from ui.tradecraft.icons import draw_item_icon, icon_file, item_icon, material_color, shape_for
from ui.tradecraft.renderer import BG, TradeCraftRenderer


def world_of(name: str = "mc1v1-01", **options) -> TradeCraftWorld:
    _, spec = load_spec(find_scenario(name))
    return TradeCraftWorld(with_options(spec, options))


def board_of(window) -> TradeCraftBoard:
    return window.panels.panel(TradeCraftBoard.panel_title)


def values_panel(window) -> ToMValuesPanel:
    return window.panels.panel(ToMValuesPanel.panel_title)


def steps(window) -> list[StepEvent]:
    return [e for e in window.model.timeline.events if isinstance(e, StepEvent)]


def wait_for_move(qtbot, window, board, phase: str) -> None:
    """Until the person may act in ``phase`` and the board shows it."""
    def ready() -> bool:
        window.panels.refresh()
        return board.can_act and board.obs is not None and board.obs.phase == phase
    qtbot.waitUntil(ready, timeout=20_000)


def test_a_person_trades_and_crafts_with_the_board(qtbot, tmp_path):
    # bob is the person; alice, a planner trader, needs bob's leather and proposes first.
    # stop=all keeps the game going after a first winner, so bob proposes in turn 2.
    world = world_of("mc1v1-01", stop="all", max_turns=4)
    window = make_window(qtbot, tmp_path)
    window.start_session(SessionPlan(world=world, scenario="mc1v1-01",
                                     seats={"alice": "trader:beta=0", "bob": "human"}, seed=0))
    board = board_of(window)
    renderer = window.renderer
    assert isinstance(renderer, TradeCraftRenderer)
    assert window.panels.docks["TradeCraft board"].windowTitle() == "TradeCraft board"

    # 1. an incoming proposal: accept it with the board
    wait_for_move(qtbot, window, board, RESPOND)
    pending = board.obs.pending
    assert pending.proposer == "alice" and ("minecraft:leather", 1) in pending.request
    assert board.trade.trade_pages.currentWidget() is board.trade.incoming_page
    assert any("leather" in t for t in board.trade.give_list.texts())
    qtbot.waitUntil(lambda: renderer.targets_shown.get("alice") is not None, timeout=5000)
    assert renderer.targets_shown == {"alice": False, "bob": True}  # alice's target is her secret
    board.trade.accept_button.click()
    qtbot.waitUntil(lambda: any(e.joint_action.get("bob") == {"type": "accept"} for e in steps(window)),
                    timeout=10_000)

    # 2. the craft phase: check, apply a fractional craft, then done (amounts are floored)
    wait_for_move(qtbot, window, board, CRAFT)
    hand = dict(board.obs.hand)
    ingots = hand["minecraft:iron_ingot"]
    board.crafting.recipe_box.setCurrentText("minecraft:iron_nugget")
    board.crafting.times.setText("9")
    assert board.check().startswith("cannot craft: needs iron_ingot * 9")
    board.crafting.times.setText("1/3")
    assert board.check() == "ok: uses iron_ingot * 1/3 -> makes iron_nugget * 3"
    assert board.crafting.apply_button.isEnabled()
    board.crafting.apply_button.click()
    qtbot.waitUntil(lambda: (window.panels.refresh() or True) and board.obs is not None
                    and dict(board.obs.hand).get("minecraft:iron_ingot") == ingots - Fraction(1, 3),
                    timeout=10_000)
    assert any(t.startswith(f"{ingots - Fraction(1, 3)} × iron_ingot") for t in board.crafting.hand_list.texts())
    wait_for_move(qtbot, window, board, CRAFT)
    board.crafting.done_button.click()
    qtbot.waitUntil(lambda: window.model.timeline.state_at(window.model.timeline.num_steps).phase != CRAFT, timeout=10_000)
    state = window.model.timeline.state_at(window.model.timeline.num_steps)
    bob = dict(state.hands[1])
    assert bob["minecraft:iron_ingot"] == int(ingots - Fraction(1, 3))  # 5/3 -> 1 at the end of the phase
    assert bob["minecraft:iron_nugget"] == hand.get("minecraft:iron_nugget", 0) + 3

    # 3. bob's turn to propose: compose with the board
    wait_for_move(qtbot, window, board, PROPOSE)
    assert board.trade.trade_pages.currentWidget() is board.trade.composer_page
    assert not board.trade.propose_button.isEnabled()  # nothing chosen yet
    alice_items = board.trade.request_table.items
    give = board.trade.offer_table.items[0]
    board.trade.offer_table.set_amount(give, 1)
    board.trade.request_table.set_amount(alice_items[0], 1)
    board.trade.message.setText("a fair swap?")
    board.trade.validate()
    assert board.trade.propose_button.isEnabled(), board.trade.compose_status.text()
    board.trade.propose_button.click()
    expected = {"type": "propose", "to": "alice", "offer": {give: 1}, "request": {alice_items[0]: 1},
                "message": "a fair swap?"}
    qtbot.waitUntil(lambda: any(e.joint_action.get("bob") == expected for e in steps(window)), timeout=10_000)
    assert isinstance(board.sent[-1], Propose)

    # the heatmap shows alice's latest report
    window.panels.refresh(force=True)
    panel = values_panel(window)
    assert [c for c in panel.view.columns] == [("alice", "V0"), ("alice", "V1"), ("alice", "V2")]
    report = window.model.timeline.belief_at("alice", "tom_values", window.model.cursor)
    assert panel.view.reports["alice"] is report
    row = panel.view.items.index(report.data["items"][0])
    assert panel.view.matrix()[row][0] == report.data["V0"][report.data["items"][0]]

    window.stop_session()
    recording = load_recording(window.model.recording_path)
    kinds = [e.joint_action for e in recording.steps]
    assert {"bob": {"type": "accept"}} in kinds and {"bob": expected} in kinds


def test_the_board_picture_draws_every_hand_with_its_icons(qtbot, tmp_path):
    world = world_of("mc3p-01")
    window = make_window(qtbot, tmp_path)
    window.start_session(SessionPlan(world=world, scenario="mc3p-01", seats={a: "trader" for a in world.agents},
                                     seed=0), playing=False)
    renderer = window.renderer
    qtbot.waitUntil(lambda: bool(renderer.slots), timeout=5000)
    image = window.view.grab().toImage()
    ratio = image.devicePixelRatio()
    state = window.model.timeline.state_at(0)
    shown = {(agent, item) for agent, item, _ in renderer.slots}
    expected = {(a, item) for a, hand in zip(world.agents, state.hands) for item, _ in hand}
    assert shown == expected  # every item of every hand
    assert renderer.targets_shown == {a: True for a in world.agents}  # watching: every target
    assert close_to(pixel(image, 2 * ratio, image.height() - 2), BG)
    for agent, item, rect in renderer.slots[:6]:
        icon = item_icon(item, rect.w)
        # the most saturated pixel of the icon is on screen at the same place
        best = max(((x, y) for x in range(rect.w) for y in range(rect.h)),
                   key=lambda p: (icon.get_at(p).a > 200, max(icon.get_at(p)[:3]) - min(icon.get_at(p)[:3])))
        want = tuple(icon.get_at(best)[:3])
        got = pixel(image, rect.x + best[0], rect.y + best[1])  # the view's Surface is in device pixels
        assert close_to(got, want, 16), (agent, item, got, want)
    window.stop_session()


def test_the_heatmap_follows_tom_values_reports(qtbot):
    world = world_of("mc1v1-01")
    timeline = LiveTimeline(world, {"seed": 0, "scenario": "mc1v1-01"}, world.reset(0))
    panel = ToMValuesPanel()
    qtbot.addWidget(panel)
    panel.resize(520, 420)
    panel.show()
    panel.show_at(timeline, 0)
    assert panel.view.columns == []
    items = ["minecraft:leather", "minecraft:paper"]
    first = BeliefEvent(tick=0, owner="alice", kind="tom_values",
                        data={"stage": "proposal", "turn": 0, "opponent": "bob", "order": 1, "items": items,
                              "V0": {"minecraft:leather": 10.0, "minecraft:paper": 10.0},
                              "V1": {"minecraft:leather": 0.0, "minecraft:paper": 3.0}})
    bobs = BeliefEvent(tick=1, owner="bob", kind="tom_values",
                       data={"stage": "decision", "turn": 0, "opponent": "alice", "order": 0, "items": items,
                             "V0": {"minecraft:leather": 0.0, "minecraft:paper": 0.0}})
    later = BeliefEvent(tick=5, owner="alice", kind="tom_values",
                        data={"stage": "decision", "turn": 1, "opponent": "bob", "order": 1, "items": items,
                              "V0": {"minecraft:leather": 7.0, "minecraft:paper": 10.0},
                              "V1": {"minecraft:leather": 1.0, "minecraft:paper": 0.0}})
    timeline.add_events([first, bobs, later])
    panel.show_at(timeline, 1)
    view = panel.view
    assert view.columns == [("alice", "V0"), ("alice", "V1"), ("bob", "V0")]
    assert view.items == items
    assert view.matrix() == [[10.0, 0.0, 0.0], [10.0, 3.0, 0.0]]
    # KL(bob's V0 || alice's V1) with 0.5 added to every value: p = (1/2, 1/2), q = (1/8, 7/8)
    assert view.kl_of("alice") == pytest.approx(sum(p * math.log(p / q) for p, q in ((0.5, 0.125), (0.5, 0.875))))
    painted = view.paints
    panel.show_at(timeline, 5)  # a later step: alice's newer report
    assert view.matrix() == [[7.0, 1.0, 0.0], [10.0, 0.0, 0.0]]
    QApplication.processEvents()
    image = view.grab().toImage()
    assert view.paints > painted
    # the cell of alice's V0 for leather (7) is painted in the colour of 7
    cell = view.cell_rect(0, 0).center()
    c = value_color(7.0)
    ratio = image.devicePixelRatio()
    assert close_to(pixel(image, (cell.x() - 12) * ratio, (cell.y() - 5) * ratio), (c.red(), c.green(), c.blue()), 6)
    painted = view.paints
    panel.show_at(timeline, 5)  # nothing changed: no repaint
    QApplication.processEvents()
    assert view.paints == painted


def test_the_human_seat_takes_any_action_the_rules_allow():
    world = world_of("mc1v1-01")
    human = make_agent("human", "tradecraft")
    session = Session(world, {"alice": human, "bob": make_agent("trader")}, seed=0)
    assert session.advance() is TickStatus.WAITING
    proposal = Propose("bob", (("minecraft:paper", 2),), (("minecraft:leather", 1),), "two for one")
    assert proposal not in world.legal_actions(session.state, "alice")  # not among the representative ones
    human.submit(Propose("bob", (("minecraft:paper", 9),), (), ""))  # more paper than alice holds: dropped
    assert session.advance() is TickStatus.WAITING
    human.submit(proposal)
    assert session.advance() is TickStatus.ADVANCED
    assert session.events[-1].joint_action["alice"]["message"] == "two for one"
    assert isinstance(human, HumanAgent)


def test_every_item_of_the_shipped_rule_sets_gets_an_icon():
    from sim.tradecraft.instance import rules_folder
    from sim.tradecraft.rules import load_ruleset

    rules = load_ruleset(rules_folder("minecraft"))
    assert shape_for("minecraft:iron_pickaxe").__name__ == "draw_pickaxe"
    assert shape_for("minecraft:oak_planks").__name__ == "draw_planks"
    assert material_color("minecraft:diamond_sword") != material_color("minecraft:iron_sword")
    seen = set()
    for item in sorted(rules.items)[::7]:
        icon = draw_item_icon(item, 32)
        assert icon.get_size() == (32, 32)
        opaque = sum(icon.get_at((x, y)).a > 0 for x in range(32) for y in range(32))
        assert opaque > 60, item  # something is drawn
        seen.add(bytes(pygame.image.tobytes(icon, "RGBA")))
    assert len(seen) > 0.9 * len(sorted(rules.items)[::7])  # items look different from each other
    # the shipped PNGs (assets/make_item_icons.py) are the same drawings, and the board prefers them
    for item in ("minecraft:iron_pickaxe", "minecraft:oak_planks", "minecraft:lime_wool"):
        assert icon_file(item).exists()
        assert pygame.image.tobytes(item_icon(item, 48), "RGBA") == pygame.image.tobytes(draw_item_icon(item, 48), "RGBA")


def test_the_app_offers_tradecraft_instances_with_traders_and_no_facilitator(qtbot, tmp_path):
    from ui.app import launch

    window = make_window(qtbot, tmp_path)
    window.fill_setup()
    assert window.setup.select_scenario("mc3p-01")
    assert window.setup.seats() == {"alice": "trader", "bob": "trader", "carol": "trader"}
    assert window.setup.facilitator.currentText() == "none"  # ProToM works in the grid worlds only
    kinds = [window.setup.seat_boxes["alice"].itemText(i) for i in range(window.setup.seat_boxes["alice"].count())]
    assert {"human", "trader", "llm-trader"} <= set(kinds)
    launch(window, targets=["mc1v1-01"], agents=["human", "trader"], paused=True)
    assert window.model.session is not None and window.model.session.mechanisms == []
    assert window.model.seat_specs == {"alice": "human", "bob": "trader"}
    qtbot.waitUntil(lambda: window.model.human_to_move() == "alice", timeout=5000)
    board = board_of(window)
    window.panels.refresh(force=True)
    assert board.seat == "alice" and board.can_act
    window.stop_session()


def test_two_people_share_the_board_in_turn(qtbot, tmp_path):
    """Hot seat: the board follows whoever has to act, in the craft phase each crafter in turn."""
    world = world_of("mc1v1-01", max_turns=2)
    window = make_window(qtbot, tmp_path)
    window.start_session(SessionPlan(world=world, scenario="mc1v1-01", seats={"alice": "human", "bob": "human"},
                                     seed=0))
    board = board_of(window)
    wait_for_move(qtbot, window, board, PROPOSE)
    assert board.seat == "alice" and board.seat_box.isVisible()
    board.trade.offer_table.set_amount("minecraft:paper", 1)
    board.trade.request_table.set_amount("minecraft:bamboo", 1)
    assert board.propose()
    wait_for_move(qtbot, window, board, RESPOND)
    assert board.seat == "bob"
    assert board.respond(False)
    wait_for_move(qtbot, window, board, CRAFT)
    first = board.seat
    assert board.done()
    qtbot.waitUntil(lambda: (window.panels.refresh() or True) and board.can_act and board.seat != first,
                    timeout=10_000)
    assert board.done()
    wait_for_move(qtbot, window, board, PROPOSE)
    assert board.seat == "bob"  # turn 2: bob proposes
    kinds = [e.joint_action for e in steps(window)]
    done = {"type": "craft", "crafts": [], "done": True}
    assert kinds[1] == {"bob": {"type": "reject"}} and kinds[2] == {"alice": done, "bob": done}
    window.stop_session()


def test_the_crafting_table_fills_one_slot_with_two_kinds_of_planks(qtbot, tmp_path):
    # crafting original: 4 oak and 4 cherry planks make a chest in one craft, as on the original server
    from sim.tradecraft.instance import validate_instance

    data = {"world": "tradecraft", "name": "mixed-chest", "rules": "minecraft", "players": ["alice", "bob"],
            "hands": [{"oak_planks": 4, "cherry_planks": 4}, {"coal": 1, "stick": 1, "cobblestone": 1}],
            "targets": [{"chest": 1}, {"torch": 4}],
            "options": {"crafting": "original", "max_turns": 3}}
    world = TradeCraftWorld(validate_instance(data, "mixed-chest.json"))
    window = make_window(qtbot, tmp_path)
    window.start_session(SessionPlan(world=world, scenario="mixed-chest",
                                     seats={"alice": "human", "bob": "trader:beta=0"}, seed=0))
    board = board_of(window)
    wait_for_move(qtbot, window, board, PROPOSE)
    board.trade.pass_button.click()
    wait_for_move(qtbot, window, board, CRAFT)
    texts = [board.crafting.recipes.item(i).text() for i in range(board.crafting.recipes.count())]
    assert any("up to ×1: minecraft:chest" in t for t in texts)  # the possible recipes pool the planks
    board.crafting.recipe_box.setCurrentText("minecraft:chest")
    board.crafting.times.setText("1")
    assert board.check() == "ok: uses cherry_planks * 4, oak_planks * 4 -> makes chest * 1"
    board.crafting.apply_button.click()
    qtbot.waitUntil(lambda: (window.panels.refresh() or True) and board.obs is not None
                    and dict(board.obs.hand).get("minecraft:chest") == 1, timeout=10_000)
    window.stop_session()
