"""The belief-world panel: each agent's symbolic beliefs live, changes since the last step marked,
misalignments marked in both agents' views, predicted intents with their probabilities.

Two scripted agents play the test world of ``tests/rooms_world.py`` in the real window; their
minds are ``agents.cobel.belief_world.BeliefWorld``s and they emit ``symbolic_beliefs`` (and
``intents``) snapshots as CoBel-World agents do. The script, step by step:

* after step 1 both believe the key is in the west room; alice believes bob believes so too;
* after step 2 alice has seen the key in the east room; bob has not, and still believes west:
  a conflict between their minds (alice: east, bob: west), marked in both views; bob believes
  alice believes west, which alice no longer does (a false belief, marked in both views); alice
  believes bob believes west while she believes east (she perceives the conflict herself).
"""

from __future__ import annotations

from typing import Any

import pytest

import ui.beliefs.panel  # noqa: F401  (registers the panel for symbolic_beliefs snapshots)
from agents.cobel.belief_world import BeliefWorld
from agents.cobel.sbl import parse_atom
from agents.registry import AgentKind
from sim.seats import Agent
from sim.snapshots import SymbolicBeliefs
from tests import rooms_world
from tests.rooms_world import RoomsWorld
from tests.ui_support import make_window
from ui.beliefs.panel import BETWEEN, CHANGED, BeliefWorldPanel, agent_rows, between_minds, vocabulary_for
from ui.session.catalog import SessionPlan

WEST = "<key>(1) IN <west>(10)"
EAST = "<key>(1) IN <east>(11)"


class Believer(Agent):
    """Stays put; believes what the script above says, and reports it after every step."""

    kind = "test-believer"

    def reset(self, ctx: Any) -> None:
        super().reset(ctx)
        me = ctx.agent_id
        self.partner = "bob" if me == "alice" else "alice"
        self.world_ = BeliefWorld(me, [self.partner])
        self.t = 0

    def act(self, observation: Any, legal_actions: Any) -> str:
        return "stay"

    def observe_state(self, state: Any) -> None:
        self.t = state.t
        me = self.ctx.agent_id
        if self.t == 1:
            self.world_.observe([parse_atom(WEST)])
            self.world_.model_of(self.partner).observe_true(parse_atom(WEST))
        elif self.t == 2 and me == "alice":
            self.world_.observe([parse_atom(EAST)])

    def belief_snapshots(self) -> list[tuple[str, dict[str, Any]]]:
        intents = {"about": {self.partner: [{"intent": "explore east", "p": 0.7},
                                            {"intent": "fetch <key>(1)", "p": 0.3}]}}
        return [("symbolic_beliefs", self.world_.to_snapshot(topics=[parse_atom(EAST).subject])),
                ("intents", intents)]


@pytest.fixture(autouse=True)
def believers():
    from agents.registry import kinds_registered

    with rooms_world.installed(), kinds_registered(AgentKind("test-believer", (rooms_world.FAMILY,), "scripted beliefs",
                                                             Believer)):
        yield


def row(panel: BeliefWorldPanel, agent: str, text: str) -> Any:
    return next(r for r in panel.rows(agent) if r.text == text)


def item_for(panel: BeliefWorldPanel, text: str) -> Any:
    from PyQt6.QtWidgets import QTreeWidgetItemIterator

    it = QTreeWidgetItemIterator(panel.tree)
    while it.value() is not None:
        if it.value().data(0, 0x0100) == text:  # Qt.ItemDataRole.UserRole
            return it.value()
        it += 1
    raise AssertionError(f"no row for {text!r}")


def test_the_panel_updates_each_step_and_marks_misalignments_in_both_views(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(SessionPlan(world=RoomsWorld(), scenario="two-rooms-talk",
                                         seats={"alice": "test-believer", "bob": "test-believer"}), playing=False)
        window.step_forward()
        qtbot.waitUntil(lambda: window.model.timeline.num_steps == 2 or (window.model.timeline.num_steps == 1
                                                                  and window.model.cursor == 1), timeout=5000)
        window.model.seek(1)
        window.panels.refresh(force=True)
        panel = window.panels.panel("Beliefs")
        assert isinstance(panel, BeliefWorldPanel)
        # step 1: both believe the key is in the west room, newly: marked changed, nothing misaligned
        west = row(panel, "alice", f"alice BELIEVE {WEST}")
        assert (west.group, west.shown, west.p, west.changed, west.between) == ("zero", WEST, 1.0, True, [])
        assert row(panel, "alice", f"alice BELIEVE bob BELIEVE {WEST}").group == "first:bob"
        assert panel.misalignments == [] and panel.marked("alice") == [] and panel.marked("bob") == []
        intents = [(r.shown, r.p) for r in panel.rows("alice") if r.group == "intents:bob"]
        assert intents == [("explore east", 0.7), ("fetch <key>(1)", 0.3)]
        assert item_for(panel, f"alice BELIEVE {WEST}").background(0).color() == CHANGED

        # one more step: alice sees the key in the east room
        window.step_forward()
        qtbot.waitUntil(lambda: window.model.timeline.num_steps >= 2, timeout=5000)
        window.model.seek(2)
        window.panels.refresh(force=True)
        east = row(panel, "alice", f"alice BELIEVE {EAST}")
        assert east.changed and east.p == 1.0
        gone = [r.text for r in panel.rows("alice") if r.group == "removed"]
        assert gone == [f"alice BELIEVE {WEST}"]
        # bob's beliefs did not change: nothing of his is marked changed
        assert not any(r.changed for r in panel.rows("bob"))
        kinds = sorted(m["kind"] for m in panel.misalignments)
        assert kinds == ["conflict", "false_belief"]
        # marked in both agents' views
        assert sorted(east.between) == sorted([f"alice believes {EAST}; bob believes {WEST}",
                                               f"bob believes alice believes {WEST}; alice believes {EAST}"])
        bob_west = row(panel, "bob", f"bob BELIEVE {WEST}")
        assert bob_west.between and not bob_west.changed
        bob_model = row(panel, "bob", f"bob BELIEVE alice BELIEVE {WEST}")
        assert bob_model.between == ["bob believes alice believes " + WEST + "; alice believes " + EAST]
        # alice perceives the conflict in her own world (her snapshot's "misaligned")
        assert row(panel, "alice", f"alice BELIEVE bob BELIEVE {WEST}").perceived
        assert item_for(panel, f"bob BELIEVE {WEST}").background(0).color() == BETWEEN
        assert "misaligned" in panel.tree.topLevelItem(1).text(2)

        # back to step 1: the view shows the minds as they were
        window.model.seek(1)
        window.panels.refresh(force=True)
        assert panel.misalignments == [] and panel.marked("bob") == []
    finally:
        window.shutdown()


def test_rows_and_marks_without_a_window():
    alice, bob = BeliefWorld("alice", ["bob"]), BeliefWorld("bob", ["alice"])
    alice.observe([parse_atom(EAST)])
    bob.observe([parse_atom(WEST)])
    a, b = alice.to_snapshot(), bob.to_snapshot()
    found = between_minds([a, b])
    assert [m["kind"] for m in found] == ["conflict"]
    rows = agent_rows("bob", b, None, None, found, highlight=False)
    assert [(r.text, bool(r.between), r.changed) for r in rows] == [(f"bob BELIEVE {WEST}", True, False)]
    # a mark on a belief an agent lacks shows as a missing row in its view
    missing = {"kind": "false_belief", "summary": "s", "marks": [
        {"agent": "bob", "order": 0, "about": None, "present": False, "text": f"bob BELIEVE {EAST}"}]}
    rows = agent_rows("bob", b, None, None, [missing], highlight=False)
    lacking = next(r for r in rows if r.text == f"bob BELIEVE {EAST}")
    assert not lacking.present and lacking.group == "zero" and lacking.p is None


def beliefs(agent: str, zero_order: list, first_order: dict) -> SymbolicBeliefs:
    return SymbolicBeliefs(agent=agent, zero_order=zero_order, first_order=first_order, changed=[], removed=[])


def test_a_worlds_own_predicates_do_not_stop_the_comparison():
    snapshot = beliefs("alice", [
        {"text": "alice BELIEVE bob WILL_FETCH <apple>(3)", "atom": "bob WILL_FETCH <apple>(3)", "p": 1.0},
        {"text": "alice BELIEVE <fridge>(4) DOOR_STATE ajar", "atom": "<fridge>(4) DOOR_STATE ajar", "p": 1.0}],
        {"bob": []})
    vocabulary = vocabulary_for([snapshot])
    assert vocabulary.predicate("WILL_FETCH") is not None and vocabulary.attribute("DOOR_STATE") is not None
    other = beliefs("bob", [
        {"text": "bob BELIEVE <fridge>(4) DOOR_STATE shut", "atom": "<fridge>(4) DOOR_STATE shut", "p": 1.0}],
        {"alice": []})
    assert [m["kind"] for m in between_minds([snapshot, other])] == ["conflict"]
    # a snapshot that is not SBL at all is left out rather than breaking the panel
    broken = beliefs("carol", [{"text": "carol BELIEVE ???", "atom": "???", "p": 1.0}], {})
    assert [m["kind"] for m in between_minds([snapshot, other, broken])] == ["conflict"]
