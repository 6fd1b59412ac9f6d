"""The free-sharing ceiling of the household designs: RHP agents that know, every step and at no
cost, what their partners have seen, which rooms they explored and searched, and what they intend.

No message passes and no step or frame is spent: the agents of one episode post to a board that
their partners read at their next decision (the seats of an episode are asked in the scenario's
agent order, so an agent reads what an earlier agent posted this step, and what a later one posted
the step before). A partner's sightings are heard like reports (what the agent saw itself since
wins), its explored and searched rooms are not explored again, its intent is a claim settled by
the planner's usual rule (the agent first in the scenario's order keeps what both are after).
This is the bound the talking agents are measured against: what sharing everything could give
when talking costs nothing (docs/cobel.md, "Floor and ceiling").
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.household.coordination import CoordinatingAgent
from agents.household.planner import Intent
from sim.household.world import HouseholdObservation
from sim.seats import SeatContext


@dataclass
class _Post:
    """What one agent shows its partners: its own sightings, rooms, what it holds, its intent."""

    sightings: dict[str, tuple[str, int]] = field(default_factory=dict)  # object -> (at, time seen)
    explored: set[str] = field(default_factory=set)
    searched: set[str] = field(default_factory=set)
    holds: tuple[str, ...] = ()
    room: tuple[str, int] = ("", 0)
    intent: Intent = ()


#: one board per episode, keyed by the episode's world object; the scenario's first agent starts a
#: fresh board when it is reset (the Session resets the seats in the scenario's order)
_BOARDS: dict[int, dict[str, _Post]] = {}


class SharingRHPAgent(CoordinatingAgent):
    """RHP with its partners' sightings, explored rooms and intents for free (never talks)."""

    kind = "rhp-share"

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        key = id(ctx.world)
        if ctx.agent_id == ctx.world.agents[0] or key not in _BOARDS:
            if key not in _BOARDS:  # the board goes with the world
                weakref.finalize(ctx.world, _BOARDS.pop, key, None)
            _BOARDS[key] = {}
        self.board = _BOARDS[key]
        self.board[self.me] = _Post()

    def decide(self, obs: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        self.remember(obs)
        self.see_partners(obs)
        for p in self.partners:
            post = self.board.get(p)
            if post is None:
                continue
            for oid, (at, time) in sorted(post.sightings.items()):
                self.hear(oid, at, time)
            self.partner_explored[p] |= post.explored
            self.partner_searched[p] |= post.searched
            self.partner_holds[p] = post.holds
            if post.room[0]:
                self.partner_room[p] = post.room
            if post.intent[:1] in (("fetch",), ("explore",)):
                self.claims[p] = post.intent
            else:
                self.claims.pop(p, None)
        self.drop_stale_claims()
        action = self.plan(obs)
        self.announced = self.intent
        mine = self.board.setdefault(self.me, _Post())
        mine.sightings = {oid: (s.at, s.time) for oid, s in self.memory.items() if not s.told}
        mine.explored = set(obs.explored)
        mine.searched = self._searched(obs)
        mine.holds = tuple(h for h in obs.holding if h is not None)
        mine.room = (obs.room, obs.time)
        mine.intent = self.intent
        return action

    def _searched(self, obs: HouseholdObservation) -> set[str]:
        w = self.world
        return {r for r in obs.explored if all(not w.places[p].openable or w.places[p].id in self.looked_inside
                                               for p in w.places_in_room[w.room_index[r]])}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": self.kind}
