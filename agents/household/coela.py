"""A CoELA-style agent for the household world: "send a message" is one of its planner's options.

CoELA (Zhang et al. 2023; its C-WAH code) runs a communication module that drafts a message from
the agent's progress (where it is, what it found in which room, what it holds) and the dialogue
so far, and offers it to the planning module as one more high-level plan, ``[send_message]``,
beside ``[goexplore] <room>``, ``[gocheck] <container>``, ``[gograb] <object>`` and ``[goput]``;
the option is left out right after a message, so it never sends two in a row. The planner (an
LLM there) picks one option per step. Without a language model the planner picks the message
option when the drafted message reports progress the dialogue does not have yet (a room it
explored or, household, searched; an object the task needs that it saw where it did not say it
was); otherwise it takes the physical plan of RHP's rules. So it talks after discoveries, not at
every step. It acts on what partners wrote: their sightings go into its memory (and are fetched
without exploring: the world lets an agent grab by name), their explored rooms are not explored
again for nothing, and their announced intents are left to them
(``agents.household.coordination``).

Messages are English sentences in a fixed template, e.g.::

    I am in the kitchen. I explored the kitchen. I saw apple_1 at kitchen_counter, bowl_1 at
    kitchen_floor. I am holding nothing. I will grab bowl_1 in the kitchen.

and ``read_message`` parses exactly that template (other text is ignored).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agents.household.coordination import CoordinatingAgent
from agents.household.planner import Intent
from sim.household.world import HouseholdObservation
from sim.seats import SeatContext
from sim.snapshots import Plan

_INTENTS = (
    (re.compile(r"^grab (\S+) in the (\S+)$"), lambda m: ("fetch", m[1], m[2])),
    (re.compile(r"^explore the (\S+)$"), lambda m: ("explore", m[1])),
    (re.compile(r"^look into (\S+) in the (\S+)$"), lambda m: ("look", m[1], m[2])),
    (re.compile(r"^bring what I hold to (\S+)$"), lambda m: ("deliver", m[1])),
    (re.compile(r"^put (\S+) into my container$"), lambda m: ("pack", m[1])),
)


def parse_intent(words: str) -> Intent:
    for pattern, build in _INTENTS:
        m = pattern.match(words)
        if m:
            return build(m)
    return ("wander",)


class CoELAAgent(CoordinatingAgent):
    """A planner whose options include sending its templated progress message."""

    kind = "coela"

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self.reported: dict[str, str] = {}      # object -> where the agent last said it was
        self.reported_rooms: set[str] = set()
        self.last_said: tuple = ()
        self.sent = 0
        self.just_said = False  # a message, then an action: never two messages in a row

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": self.kind}

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        return (("plan", Plan(rule=self.rule, subgoal=self.subgoal, extra=self.describe_state())),)

    # ------------------------------------------------------------------ reading

    def read_message(self, sender: str, text: str, time: int) -> None:
        if sender not in self.partner_explored:
            return
        for sentence in (s.strip() for s in text.replace("\n", " ").split(". ")):
            sentence = sentence.rstrip(".").removeprefix("Progress: ")
            if sentence.startswith("I am in the "):
                self.partner_room[sender] = (sentence[len("I am in the "):], time)
            elif sentence.startswith("I explored "):
                self.partner_explored[sender] |= {r.removeprefix("the ") for r in sentence[11:].split(", ")}
            elif sentence.startswith("I searched "):
                rooms = {r.removeprefix("the ") for r in sentence[11:].split(", ")}
                self.partner_explored[sender] |= rooms
                self.partner_searched[sender] |= rooms
            elif sentence.startswith("I saw "):
                for item in sentence[6:].split(", "):
                    oid, sep, at = item.partition(" at ")
                    if sep:
                        self.hear(oid, at, time)
            elif sentence.startswith("I am holding "):
                rest = sentence[len("I am holding "):]
                held = () if rest == "nothing" else tuple(rest.split(" and "))
                self.partner_holds[sender] = held
                for h in held:
                    self.hear(h, f"agent:{sender}", time)
            elif sentence.startswith("I will "):
                self.claims[sender] = parse_intent(sentence[7:])

    # ------------------------------------------------------------------ writing

    def searched_rooms(self, obs: HouseholdObservation) -> set[str]:
        """Household: explored rooms whose receptacles the agent looked into, all of them."""
        w = self.world
        return {r for r in obs.explored if all(not w.places[p].openable or w.places[p].id in self.looked_inside
                                               for p in w.places_in_room[w.room_index[r]])}

    def compose(self, obs: HouseholdObservation) -> str | None:
        """This decision's message, or None when it would tell nothing new."""
        rooms = set(obs.explored) if obs.task == "transport" else self.searched_rooms(obs)
        new_rooms = sorted(rooms - self.reported_rooms)
        relevant = self._relevant(obs)
        news = sorted((oid, s.at) for oid, s in self.memory.items()
                      if oid in relevant and not s.told and not s.at.startswith("agent:")
                      and self.reported.get(oid) != s.at)
        held = tuple(h for h in obs.holding if h is not None)
        key = (obs.room, held, self.intent)
        if not new_rooms and not news:  # nothing the dialogue lacks: the planner acts instead
            return None
        parts = [f"I am in the {obs.room}"]
        if new_rooms:
            verb = "explored" if obs.task == "transport" else "searched"
            parts.append(f"I {verb} " + ", ".join(f"the {r}" for r in new_rooms))
        if news:
            parts.append("I saw " + ", ".join(f"{oid} at {at}" for oid, at in news))
        parts.append("I am holding " + (" and ".join(held) if held else "nothing"))
        parts.append("I will " + self.intent_words(self.intent))
        self.reported.update(dict(news))
        self.reported_rooms |= set(new_rooms)
        self.last_said = key
        return ". ".join(parts) + "."

    def _relevant(self, obs: HouseholdObservation) -> set[str]:
        """Objects the task needs (CoELA's progress lists the targets and containers it found)."""
        if obs.task == "transport":
            return {oid for oid, s in self.memory.items() if s.kind in ("target", "container")}
        classes = {cls for _, cls, _, _ in obs.goal}
        return {oid for oid, s in self.memory.items() if s.cls in classes}

    # ------------------------------------------------------------------ acting

    def decide(self, observation: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        obs = observation
        self.remember(obs)
        self.see_partners(obs)
        for sender, text in obs.inbox:
            self.read_message(sender, text, obs.time)
        self.drop_stale_claims()
        action = self.plan(obs)
        # the options: [send_message] (not right after a message) and the rules' physical plan
        text = None if self.just_said else self.compose(obs)
        if text is None:
            self.just_said = False
            return action
        self.just_said = True
        self.announced = self.intent
        self.sent += 1
        return self.world.message_action(None, self.me, text)
