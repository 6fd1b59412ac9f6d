"""CoBel's talk by the value of information (``cobel:talk=voi``): a message goes when the partner's
plan, simulated from the agent's first-order beliefs, saves more frames or steps than the message
costs, and not otherwise; the free-sharing ceiling (``rhp-share``); determinism."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.cobel.agent import HOUSEHOLD_VOCABULARY, CoBelAgent
from agents.cobel.sbl import parse_document
from agents.registry import make_agent
from sim.events import MessageEvent
from sim.registry import load_scenario
from sim.seats import SeatContext
from sim.session import Session
from tests.test_household_world import world_of

ROOT = Path(__file__).resolve().parent.parent


def line_house(bob_room: str, bob_explored: list[str]) -> dict[str, Any]:
    """kitchen - den - hall - study - attic in a line, 10 m apart (3 steps at a step per 4 m).
    alice stands in the den, which she has looked through, holding two apples; a third apple, the
    last the coffee table needs, lies on the den's shelf."""
    rooms = ["kitchen", "den", "hall", "study", "attic"]
    return {
        "world": "household", "name": "line",
        "rooms": [{"id": r, "kind": "livingroom", "xy": [10 * i, 0]} for i, r in enumerate(rooms)],
        "doors": [[a, b] for a, b in zip(rooms, rooms[1:])],
        "places": [{"id": "coffeetable", "class": "coffeetable", "room": "kitchen", "kind": "surface"},
                   {"id": "shelf", "class": "shelf", "room": "den", "kind": "surface"}],
        "objects": [{"id": "apple_1", "class": "apple", "kind": "item", "at": "alice"},
                    {"id": "apple_2", "class": "apple", "kind": "item", "at": "alice"},
                    {"id": "apple_3", "class": "apple", "kind": "item", "at": "shelf"}],
        "agents": [{"id": "alice", "room": "den", "explored": ["den"]},
                   {"id": "bob", "room": bob_room, "explored": bob_explored}],
        "task": {"kind": "household", "budget": 250, "predicates": [
            {"relation": "ON", "object": "apple", "place": "coffeetable", "count": 3}]},
        "costs": {"frames_per_meter": 0.25},
    }


def alice_in(data: dict[str, Any], **params: Any) -> tuple[CoBelAgent, str, Any]:
    w = world_of(data)
    agent = CoBelAgent(talk="voi", **params)
    agent.reset(SeatContext(world=w, agent_id="alice", seed=0, rng=np.random.default_rng(0),
                            emit=lambda e: None, clock=lambda: 0))
    s = w.reset(0)
    action = agent.act(w.observe(s, "alice"), w.legal_actions(s, "alice"))
    return agent, action, w


def test_a_sighting_is_told_when_it_saves_the_partner_more_than_the_message_costs() -> None:
    # bob at the far end has looked only through the attic: he would search study, hall, den in turn
    alice, action, w = alice_in(line_house("attic", ["attic"]))
    saving = alice.expected_saving("bob", w.observe(w.reset(0), "alice"), ["apple_3"], False)
    assert saving > w.message_cost("x") == 1
    assert action.startswith("say ")
    said = [str(x) for x in parse_document(action[4:], vocabulary=HOUSEHOLD_VOCABULARY)]
    assert "<apple>(3) ON <shelf>(1001)" in said
    assert alice.last_reason.startswith("telling apple_3 saves")


def test_silence_when_the_partner_would_find_it_for_no_more_than_the_message_costs() -> None:
    # bob next door has looked through every room but the den: he goes there next anyway, and being
    # told saves him only the look around (one step), which is what the message costs alice
    alice, action, w = alice_in(line_house("hall", ["hall", "kitchen", "study", "attic"]))
    saving = alice.expected_saving("bob", w.observe(w.reset(0), "alice"), ["apple_3"], False)
    assert saving == pytest.approx(1.0)
    assert not action.startswith("say ") and alice.sent == 0


def test_the_triggers_stay_the_default_and_voi_is_named() -> None:
    assert CoBelAgent().talk == "triggers"
    assert make_agent("cobel:talk=voi", "household").describe()["talk"] == "voi"
    with pytest.raises(ValueError, match="talk='often'"):
        CoBelAgent(talk="often")


@pytest.mark.parametrize("kind", ["cobel:talk=voi", "rhp-share"])
def test_deterministic_on_a_shipped_house(kind: str) -> None:
    path = str(ROOT / "scenarios" / "household" / "houses" / "house-set-up-table-01.json")

    def run() -> tuple[int, list[str]]:
        world, name = load_scenario(path)
        session = Session(world, {a: make_agent(kind, "household") for a in world.agents}, seed=1, scenario=name)
        session.run()
        return session.tick, [e.text for e in session.events if isinstance(e, MessageEvent)]

    first = run()
    assert run() == first
    if kind == "rhp-share":
        assert first[1] == []  # the ceiling shares without messages


def test_free_sharing_agents_know_what_their_partner_saw_and_intends() -> None:
    world, name = load_scenario(str(ROOT / "scenarios" / "household" / "houses" / "house-set-up-table-01.json"))
    seats = {a: make_agent("rhp-share", "household") for a in world.agents}
    session = Session(world, seats, seed=0, scenario=name)
    for _ in range(12):
        session.advance()
    alice, bob = (seats[a] for a in world.agents)
    seen_by_alice = {o for o, s in alice.memory.items() if not s.told}
    assert seen_by_alice and seen_by_alice <= set(bob.memory)
    assert bob.claims.get(alice.me, ()) == alice.intent or alice.intent[:1] not in (("fetch",), ("explore",))
