"""A CaPo-style agent for the household world: a meta-plan proposed by one agent, discussed until
the other agrees, and re-planned on events.

CaPo (Liu et al. 2024) coordinates with a *meta-plan* ("Step 1: Alice explores the kitchen, Bob
...") written by one agent and discussed over several rounds until the others report
satisfaction, then re-planned when progress events happen. Without a language model:

- The **proposer** (the first agent of the scenario) splits the work: every room nobody reported
  explored (household: searched) and every known object still to fetch goes, in turn, to the agent
  whose last assigned room is nearest. It sends::

      Meta-plan 2. Step 1: alice explores kitchen, office; bob explores livingroom2. Step 2: alice
      fetches apple_1; bob fetches banana_3, bowl_1.

- The **other agents** answer each meta-plan: ``I agree with meta-plan 2.`` when they know nothing
  the plan misses, else a progress report in the CoELA template (``I explored the office. I saw
  apple_2 at office_desk. ...``) asking for a revision, which the proposer answers with a new
  meta-plan (at most ``rounds`` rounds per event).
- **Events**: an agent that explores a room and sees objects the plan does not have, or that has
  done its part, reports them (the proposer re-plans at once).

Each agent follows its part (the planner leaves the partner's rooms and objects alone, as long as
it has anything else to do).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field

from agents.household.coela import CoELAAgent
from sim.household.world import HouseholdObservation
from sim.seats import SeatContext
from sim.snapshots import Plan

_VERSION = re.compile(r"Meta-plan (\d+)\.")
_EXPLORES = re.compile(r"(\w+) explores ([\w, ]+)")
_FETCHES = re.compile(r"(\w+) fetches ([\w, ]+)")
_AGREE = re.compile(r"I agree with meta-plan (\d+)")


class CaPoAgent(CoELAAgent):
    """Meta-plan, discussion, re-planning on events; RHP's rules inside the agent's part."""

    kind = "capo"

    def __init__(self, rounds: Annotated[int, Field(ge=1, le=100)] = 3, **planner: Any) -> None:
        super().__init__(**planner)
        if int(rounds) < 1:
            raise ValueError(f"capo: rounds={rounds!r}; expected at least 1 round of discussion")
        self.rounds = int(rounds)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": self.kind, "rounds": self.rounds}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self.proposer = ctx.world.agents[0]
        self.version = 0
        self.assigned: dict[str, tuple[set[str], set[str]]] = {}
        self.agreed: set[str] = set()
        self.outbox: list[str] = []
        self.round = 0
        self.replan = True  # the proposer opens with a meta-plan
        self.waiting = False  # a progress report sent, no new meta-plan yet
        self.planned_objects: set[str] = set()

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        plan = {a: {"explore": sorted(r), "fetch": sorted(o)} for a, (r, o) in self.assigned.items()}
        return (("plan", Plan(rule=self.rule, subgoal=self.subgoal,
                              extra={"meta_plan": self.version, "assigned": plan, "agreed": sorted(self.agreed)})),)

    # ------------------------------------------------------------------ hooks

    def avoided_objects(self) -> set[str]:
        out = super().avoided_objects()
        for agent, (_, objects) in self.assigned.items():
            if agent != self.me:
                out |= objects
        return out

    def avoided_rooms(self) -> set[str]:
        out = super().avoided_rooms()
        for agent, (rooms, _) in self.assigned.items():
            if agent != self.me:
                out |= rooms
        return out

    # ------------------------------------------------------------------ the meta-plan

    def _open_work(self, obs: HouseholdObservation) -> tuple[list[str], list[tuple[str, str]]]:
        household = obs.task == "household"
        done = set(obs.explored) if not household else self.searched_rooms(obs)
        done |= self.done_rooms()
        rooms = [r for r in self.world.room_ids if r not in done]
        if household:
            _, wanted = self.household_needs(obs)
            goal_places = {(cls, place) for _, cls, place, _ in obs.goal}
            objects = [(oid, s.room) for oid, s in sorted(self.memory.items())
                       if s.cls in wanted and s.room and not s.at.startswith("agent:") and (s.cls, s.at) not in goal_places]
        else:
            goal = obs.goal[0]
            objects = [(oid, s.room) for oid, s in sorted(self.memory.items())
                       if s.room and s.at in self.world.place_index and s.at != goal
                       and (s.kind == "target" or (s.kind == "container" and obs.time < self.container_until))]
        return rooms, objects

    def propose(self, obs: HouseholdObservation, force: bool = False) -> str | None:
        """A new meta-plan, or None when it would be the current one again (unless ``force``)."""
        rooms, objects = self._open_work(obs)
        cursor = {self.me: obs.room}
        for p in self.partners:
            cursor[p] = self.partner_room.get(p, (obs.room, 0))[0]
        assigned: dict[str, tuple[set[str], set[str]]] = {a: (set(), set()) for a in self.world.agents}
        load = {a: 0.0 for a in self.world.agents}
        for kind, items in (("object", objects), ("room", [(r, r) for r in rooms])):
            for thing, room in items:
                best = min(self.world.agents, key=lambda a: (load[a] + self.distance(cursor[a], room), a))
                load[best] += self.distance(cursor[best], room) + 1.0
                cursor[best] = room
                assigned[best][1 if kind == "object" else 0].add(thing)
        if assigned == self.assigned and not force:
            return None
        self.version += 1
        self.assigned = assigned
        self.planned_objects = {o for o, _ in objects}
        self.agreed = {self.me}
        step1 = "; ".join(f"{a} explores {', '.join(sorted(r))}" for a, (r, _) in assigned.items() if r)
        step2 = "; ".join(f"{a} fetches {', '.join(sorted(o))}" for a, (_, o) in assigned.items() if o)
        text = f"Meta-plan {self.version}."
        if step1:
            text += f" Step 1: {step1}."
        if step2:
            text += f" Step {2 if step1 else 1}: {step2}."
        if not step1 and not step2:
            text += " Step 1: everyone delivers what they hold."
        return text

    def read_plan(self, text: str) -> None:
        m = _VERSION.search(text)
        if not m:
            return
        self.version = int(m[1])
        assigned: dict[str, tuple[set[str], set[str]]] = {a: (set(), set()) for a in self.world.agents}
        for agent, rooms in _EXPLORES.findall(text):
            if agent in assigned:
                assigned[agent][0].update(r.strip() for r in rooms.split(","))
        for agent, objects in _FETCHES.findall(text):
            if agent in assigned:
                assigned[agent][1].update(o.strip() for o in objects.split(","))
        self.assigned = assigned
        self.planned_objects = set().union(*(o for _, o in assigned.values()))

    def _news(self, obs: HouseholdObservation) -> bool:
        """Something the meta-plan does not have: objects to fetch it leaves out, or the agent's
        own part is done while work is left."""
        rooms, objects = self._open_work(obs)
        if any(o not in self.planned_objects for o, _ in objects):
            return True
        mine_rooms, mine_objects = self.assigned.get(self.me, (set(), set()))
        left_mine = [r for r in rooms if r in mine_rooms] + [o for o, _ in objects if o in mine_objects]
        return bool(self.assigned) and not left_mine and bool(rooms or objects)

    # ------------------------------------------------------------------ acting

    def decide(self, observation: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        obs = observation
        self.remember(obs)
        self.see_partners(obs)
        revise = False
        for sender, text in obs.inbox:
            self.read_message(sender, text, obs.time)  # the progress-report sentences
            if text.startswith("Meta-plan") and sender == self.proposer:
                self.read_plan(text)
                self.agreed = {sender}
                self.waiting = False
                self.round += 1
                reply = (self.progress(obs) if self._news(obs) and self.round <= self.rounds
                         else f"I agree with meta-plan {self.version}.")
                self.outbox.append(reply)
            elif (m := _AGREE.search(text)) and int(m[1]) == self.version:
                self.agreed.add(sender)
            elif text.startswith("Progress") and self.me == self.proposer:
                revise = True
        self.drop_stale_claims()
        if self.me == self.proposer:
            if self.replan or revise or (self._news(obs) and self.agreed >= set(self.world.agents)):
                self.round = self.round + 1 if revise else 0
                if self.round <= self.rounds:
                    text = self.propose(obs, force=self.replan or revise)
                    if text is not None:
                        self.outbox.append(text)
                self.replan = False
        elif self.assigned and not self.outbox and not self.waiting and self._news(obs):
            self.round = 0
            self.outbox.append(self.progress(obs))
            self.waiting = True
        action = self.plan(obs)
        if self.outbox:
            text = self.outbox.pop(0)
            if text.startswith("I agree"):
                self.agreed.add(self.me)
            self.sent += 1
            return self.world.message_action(None, self.me, text)
        return action

    def progress(self, obs: HouseholdObservation) -> str:
        self.last_said = ()
        text = self.compose(obs) or f"I am in the {obs.room}."
        return "Progress: " + text
