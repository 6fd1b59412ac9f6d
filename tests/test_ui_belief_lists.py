"""What the belief views list, through each world's belief adapter (``WorldPlugin.beliefs``), in
the real window (offscreen): the Belief timeline lists every belief the map draws (an agent's own,
believed-empty places where something lies, what it thinks another believes, ProToM's particles,
goal inference), the Particles tab says places in words, counts a place never seen as no false
belief and shows a legend of the map's chips, kitchen rooms have names, and the generic belief
view modules branch on no world family."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from agents.registry import make_agent
from sim.plugins import plugins
from sim.registry import load_scenario
from tests.test_ui_belief_view import moved_cupcake, record, show
from ui.beliefs.timeline import BeliefHistory
from ui.beliefs.view import beliefs_for, namer_for
from ui.render.kitchen_beliefs import KitchenBeliefs
from ui.session import catalog

ROOT = Path(__file__).resolve().parent.parent
#: the belief views that serve every world
GENERIC = ("ui/beliefs/view.py", "ui/beliefs/timeline.py", "ui/beliefs/timeline_panel.py", "ui/beliefs/words.py",
           "ui/beliefs/particles.py", "ui/beliefs/panel.py")


@pytest.fixture(scope="module")
def k23(tmp_path_factory: Any) -> Any:
    """kitchen-23: bob takes the plate alice saw, then puts one where she saw none; ProToM follows."""
    world, name = load_scenario("kitchen-23-plate-gone-downstairs")
    return record(tmp_path_factory.mktemp("k23"), "k23", world, name,
                  {a: make_agent("kitchen-heuristic") for a in world.agents}, 40,
                  catalog.make_mechanisms(("protom",), world))


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def test_the_generic_belief_views_branch_on_no_world_family():
    families = set(plugins())
    assert {"kitchen", "household", "dkg"} <= families
    found = []
    for rel in GENERIC:
        tree = ast.parse((ROOT / rel).read_text(), rel)
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            # a family's name in the code (docstrings may give examples)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                words = set(node.value.replace('"', " ").replace("'", " ").split())
                if words & families:
                    found.append(f"{rel}:{node.lineno}: {node.value!r}")
            # a comparison with a world's family
            if isinstance(node, ast.Compare):
                text = ast.unparse(node)
                if "family" in text:
                    found.append(f"{rel}:{node.lineno}: {text}")
    assert not found, "the generic belief views name a world:\n" + "\n".join(found)


def test_each_world_with_beliefs_declares_its_adapter():
    for name in ("kitchen", "household", "dkg"):
        world, _ = load_scenario({"kitchen": "three-rooms", "household": "household-prepare-meal-01",
                                  "dkg": "two-rooms"}[name])
        adapter = beliefs_for(world)
        assert type(adapter).__module__ == f"ui.render.{name}_beliefs" and adapter.kinds


def test_kitchen_rooms_are_named_by_what_they_alone_hold():
    world, _ = load_scenario("three-rooms")
    assert sorted(namer_for(world).kitchen_rooms().values()) == ["the lettuce room", "the serving room",
                                                                "the tomato room"]
    # twin rooms that hold the same: named by where they lie
    world, _ = load_scenario("kitchen-03-twin-onions")
    assert sorted(namer_for(world).kitchen_rooms().values()) == ["the north room", "the south room"]


@pytest.mark.slow  # records a kitchen episode with ProToM (about a second)
def test_the_timeline_lists_believed_empty_places_and_protoms_particles(qtbot, tmp_path, k23):
    timeline = k23
    beliefs = BeliefHistory().update(timeline)
    kinds = {(b.agent, b.about, b.thing) for b in beliefs}
    assert ("alice", None, "Plate") in kinds
    assert ("alice", None, "nothing") in kinds  # believed empty, a plate lies there
    assert ("protom", "alice", "Plate") in kinds and ("protom", "alice", "nothing") in kinds
    empty = next(b for b in beliefs if b.agent == "alice" and b.thing == "nothing")
    assert empty.text.startswith("alice thinks nothing is on the counter") and "the plate is there" in empty.text
    assert empty.arose == "the world changed out of its sight" and empty.end is not None
    particle = next(b for b in beliefs if b.agent == "protom")
    assert particle.text.startswith("protom thinks alice thinks ")
    assert particle.ended_by == "alice's own observation"

    window = show(qtbot, tmp_path, timeline)
    window.model.seek(timeline.num_steps)
    window.panels.refresh(force=True)
    panel = window.panels.panel("Belief timeline")
    assert panel is not None
    assert {(b.agent, b.about, b.thing) for b in panel.rows()} == kinds
    tops = [panel.tree.topLevelItem(k).text(0) for k in range(panel.tree.topLevelItemCount())]
    assert tops == ["alice", "protom"]  # the agents, then the facilitator
    protom = panel.tree.topLevelItem(1)
    detail = protom.child(0).child(0).text(0)
    assert detail.startswith("what protom thinks alice believes; arose: ")
    assert panel.strip.agents[-1] == "protom"


@pytest.mark.slow  # records a Doors, Keys and Gems episode with ProToM
def test_the_timeline_lists_goal_inference_in_doors_keys_and_gems(qtbot, tmp_path):
    world, name = load_scenario("two-rooms")
    timeline = record(tmp_path, "dkg", world, name, {a: make_agent("planner") for a in world.agents}, 12,
                      catalog.make_mechanisms(("protom",), world))
    beliefs = BeliefHistory().update(timeline)
    goals = [b for b in beliefs if b.about == "*"]
    assert goals and all(b.text.startswith(f"{b.agent} thinks ") and " wants " in b.text for b in goals)
    window = show(qtbot, tmp_path, timeline)
    window.model.seek(timeline.num_steps)
    window.panels.refresh(force=True)
    panel = window.panels.panel("Belief timeline")
    assert panel is not None and [b.text for b in panel.rows()] == [b.text for b in beliefs]
    assert "goal inference; arose: " in panel.tree.topLevelItem(0).child(0).child(0).text(0)


def test_the_timeline_lists_first_order_beliefs_in_the_household(qtbot, tmp_path):
    timeline = moved_cupcake(tmp_path)
    window = show(qtbot, tmp_path, timeline)
    window.model.seek(9)
    window.panels.refresh(force=True)
    panel = window.panels.panel("Belief timeline")
    alice = panel.tree.topLevelItem(0)
    assert alice.text(1) == "2 false beliefs"
    rows = [alice.child(k).text(1) for k in range(alice.childCount())]
    assert rows[1].startswith("alice thinks bob thinks cupcake 2 is on the counter in the kitchen")
    assert alice.child(1).child(0).text(0).startswith("what alice thinks bob believes; arose: the world changed")


@pytest.mark.slow  # records a kitchen episode with ProToM (about a second)
def test_the_particles_tab_says_places_in_words_and_never_seen_is_not_false(qtbot, tmp_path, k23):
    timeline = k23
    window = show(qtbot, tmp_path, timeline)
    tick = 8
    window.model.seek(tick)
    window.panels.refresh(force=True)
    panel = window.panels.panel("Particles")
    assert panel is not None and panel.rows
    table = panel.table
    places = [table.item(i, 1).text() for i in range(table.rowCount())]
    assert all(not re.search(r"\(\d+, \d+\)", p) and p.startswith("the ") for p in places)
    assert any("room" in p for p in places)
    verdicts = [table.item(i, 4).text() for i in range(table.rowCount())]
    assert "never seen" in verdicts
    for i, row in enumerate(panel.rows):
        red = table.item(i, 0).foreground().color().red() > 150 and table.item(i, 0).foreground().color().green() < 80
        assert red == row.false == (verdicts[i] == "no")
        if verdicts[i] == "never seen":
            assert table.item(i, 2).text() == "not seen yet"
    wrong = verdicts.count("no")
    assert f"{wrong} false, {verdicts.count('never seen')} never seen (not false)" in panel.caption.text()
    # the legend: what a chip and its red corner mean, in a few words (the whole meaning in tooltips)
    assert panel.legend.isVisibleTo(panel)
    assert panel.legend.entries == KitchenBeliefs.particles_legend
    legend = {symbol: (words, meaning) for symbol, words, meaning in panel.legend.entries}
    assert legend["false"][0] == "false belief" and "red corner" in legend["false"][1]
    assert legend["unseen"][0] == "never seen (not false)" and "not a false belief" in legend["unseen"][1]
    labels = [panel.legend.grid.itemAt(k).widget() for k in range(panel.legend.grid.count())]
    assert [w.text() for w in labels if w.text()] == [words for words, _ in legend.values()]
    assert all(w.toolTip() for w in labels)

    # legible in the Minds dock's default width at 1366x768 (about 300 px): every column in view,
    # headers and short columns whole, places and beliefs wrapped onto more lines, not cut
    from ui.beliefs.particles import ParticlesPanel

    panel = ParticlesPanel()
    qtbot.addWidget(panel)
    panel.resize(300, 500)
    panel.show()
    qtbot.waitExposed(panel)
    panel.show_at(timeline, tick)
    qtbot.wait(20)
    table = panel.table
    header, metrics = table.horizontalHeader(), table.fontMetrics()
    assert header.length() <= table.viewport().width() and table.horizontalScrollBar().maximum() == 0
    for column in range(table.columnCount()):
        head = table.horizontalHeaderItem(column)
        assert head.toolTip() and header.sectionSize(column) >= metrics.horizontalAdvance(head.text())
    for i in range(table.rowCount()):
        for column in (0, 3):
            assert table.columnWidth(column) >= metrics.horizontalAdvance(table.item(i, column).text())
        assert all(table.columnWidth(4) >= metrics.horizontalAdvance(w) for w in table.item(i, 4).text().split())
        for column in (1, 2):
            text = table.item(i, column).text()
            lines = -(-metrics.horizontalAdvance(text) // max(1, table.columnWidth(column) - 8))
            assert table.rowHeight(i) >= min(lines, 3) * metrics.lineSpacing(), (text, table.columnWidth(column))
            assert table.item(i, column).toolTip()
    panel.grab().save(str(tmp_path / "particles.png"))

    # on the map: a chip of a station never seen has no red corner
    window.view.render_frame()
    renderer = window.renderer
    unseen = [(agent, cell) for agent, cell, name, _p, _t in renderer.drawn_particles if name == "unknown"]
    assert unseen
    t = renderer.tile
    size = max(6, int(t * 0.42))
    corners = [(0, 0), (t - size, 0), (0, t - size), (t - size, t - size)]
    for agent, (r, c) in unseen:
        dx, dy = corners[timeline.world.agent_index[agent] % 4]
        rect = renderer.cell_rect(r, c)
        x, y = rect.x + dx + size - 2, rect.y + dy + 2
        red, green, blue = tuple(window.view.surface.get_at((x, y)))[:3]
        assert not (red > 180 and green < 80 and blue < 80), (agent, r, c)
