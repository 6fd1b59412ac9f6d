"""What the talking household agents (CoELA-style, CaPo-style, CoBel) share: what partners said
about themselves, turned into the planner's coordination hooks.

A partner's *claim* is an intent it announced (``("fetch", object, room)``, ``("explore", room)``,
...). A claim is honoured (the object or room is left to the partner) unless the agent itself
announced the same intent and comes first in the scenario's agent order: both sides apply the
same rule to the same two messages, so a clash is settled without another message.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any

from agents.household.planner import Intent, SubgoalAgent
from sim.household.world import HouseholdObservation
from sim.seats import SeatContext


class CoordinatingAgent(SubgoalAgent):
    """A planner that honours its partners' announced intents and reports.

    Subclasses decide in ``decide``; ``act`` also measures whether what the agent read changed
    its plan: at a decision with messages in the inbox, a copy of the agent (same memory, same
    random stream, no events) decides on the same observation without them, and when its next
    physical action or intent differs from the agent's, the messages changed the plan. The
    counts (``message_reads``: decisions with at least one message read; ``message_changed_plan``:
    those whose plan the messages changed) are the agent's ``counters()``, summed into the
    episode's metrics."""

    #: False for agents whose copy could not decide without side effects (a language model)
    measure_messages = True

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self._twin = False
        self.claims: dict[str, Intent] = {}            # partner -> last announced intent
        self.partner_explored: dict[str, set[str]] = {p: set() for p in self.partners}
        self.partner_searched: dict[str, set[str]] = {p: set() for p in self.partners}  # household: receptacles too
        self.partner_holds: dict[str, tuple[str, ...]] = {p: () for p in self.partners}
        self.partner_room: dict[str, tuple[str, int]] = {}  # partner -> (room, time seen or told)
        self.announced: Intent = ()
        world = ctx.world
        for spec in world.spec().get("agents", ()):  # start rooms and rooms explored before are part of the scenario
            if spec["id"] in self.partner_explored:
                self.partner_room[spec["id"]] = (spec["room"], 0)
                for room in spec.get("explored", ()):
                    self.partner_explored[spec["id"]].add(room)
                    if not any(world.places[p].openable for p in world.places_in_room[world.room_index[room]]):
                        self.partner_searched[spec["id"]].add(room)

    # ------------------------------------------------------------------ acting

    def decide(self, obs: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        """The agent's action (a message or a physical action); subclasses define it."""
        self.remember(obs)
        return self.plan(obs)

    def act(self, observation: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        if not observation.inbox or self._twin or not self.measure_messages:
            return self.decide(observation, legal_actions)
        twin = self._copy()
        twin.decide(dataclasses.replace(observation, inbox=()), legal_actions)
        without = (twin.planned, twin.intent)
        action = self.decide(observation, legal_actions)
        self.message_reads += 1
        self.message_changed_plan += int((self.planned, self.intent) != without)
        return action

    def _copy(self) -> "CoordinatingAgent":
        """A private copy that decides like the agent without touching the episode: the world is
        shared (it is immutable), the random stream copied, emitted events dropped."""
        ctx = dataclasses.replace(self.ctx, rng=copy.deepcopy(self.ctx.rng), emit=lambda event: None)
        twin = copy.deepcopy(self, memo={id(self.world): self.world, id(self.ctx): ctx})
        twin._twin = True
        return twin

    # ------------------------------------------------------------------ hooks

    def _yields(self, partner: str, intent: Intent) -> bool:
        """True when ``partner``'s claim on ``intent`` wins over this agent's own: always, unless
        the agent announced the same (household: an object of the same class) and comes first."""
        mine = self.announced
        same = mine[:2] == intent[:2]
        if not same and self.world.task == "household" and mine[:1] == intent[:1] == ("fetch",):
            same = self._cls(mine[1]) == self._cls(intent[1]) is not None
        if not same:
            return True
        order = self.world.agents
        return order.index(partner) < order.index(self.me)

    def _cls(self, oid: str) -> str | None:
        i = self.world.object_index.get(oid)
        return None if i is None else self.world.objects[i].cls

    def avoided_objects(self) -> set[str]:
        return {c[1] for p, c in self.claims.items() if c[:1] == ("fetch",) and self._yields(p, c)}

    def avoided_rooms(self) -> set[str]:
        return {c[1] for p, c in self.claims.items() if c[:1] == ("explore",) and self._yields(p, c)}

    def done_rooms(self) -> set[str]:
        rooms: set[str] = set()
        table = self.partner_explored if self.world.task == "transport" else self.partner_searched
        for explored in table.values():
            rooms |= explored
        return rooms

    def partner_brings(self) -> list[str]:
        classes: list[str] = []
        for p in self.partners:
            holds = [h for h in self.partner_holds[p] if h in self.world.object_index]
            classes += [self.world.objects[self.world.object_index[h]].cls for h in holds]
            claim = self.claims.get(p, ())
            if claim[:1] == ("fetch",) and claim[1] not in holds and claim[1] in self.world.object_index \
                    and self._yields(p, claim):
                classes.append(self.world.objects[self.world.object_index[claim[1]]].cls)
        return classes

    # ------------------------------------------------------------------ what partners show

    def see_partners(self, obs: HouseholdObservation) -> None:
        for name, held in obs.partners:
            self.partner_room[name] = (obs.room, obs.time)
            self.partner_holds[name] = tuple(held)
            claim = self.claims.get(name, ())
            if claim[:1] == ("fetch",) and claim[1] in held:  # done: it has it
                self.claims.pop(name)

    def drop_stale_claims(self) -> None:
        """Claims on objects that are gone from where they were (someone took them)."""
        for p, claim in list(self.claims.items()):
            if claim[:1] == ("fetch",):
                s = self.memory.get(claim[1])
                if s is None or s.at.startswith("agent:"):
                    self.claims.pop(p)

    def intent_words(self, intent: Intent) -> str:
        kind = intent[0] if intent else ""
        if kind == "fetch":
            return f"grab {intent[1]} in the {intent[2]}"
        if kind == "explore":
            return f"explore the {intent[1]}"
        if kind == "look":
            return f"look into {intent[1]} in the {intent[2]}"
        if kind == "deliver":
            return f"bring what I hold to {intent[1]}"
        if kind == "pack":
            return f"put {intent[1]} into my container"
        return "look around"

    def describe_state(self) -> dict[str, Any]:
        return {"claims": {p: list(c) for p, c in self.claims.items()},
                "announced": list(self.announced),
                "partner_explored": {p: sorted(r) for p, r in self.partner_explored.items()}}
