"""The CoBel-World agent for the household world, without a language model.

Each decision runs the paper's Bayesian belief collaboration (Section 3.2) with rules where the
paper prompts a model:

1. **Belief update.** What the agent sees becomes SBL atoms (``<apple>(3) ON <kitchen_counter>(1004)``,
   ``bob AT <kitchen>(2002)``, ``alice HOLD <bowl>(7)``, ``<fridge>(1005) OPEN_STATE closed``) and
   updates its :class:`~agents.cobel.belief_world.BeliefWorld` under the belief rules (zero-order:
   its own beliefs; first-order: a partner in the same room sees what it sees). Messages are SBL
   statements, parsed with :mod:`agents.cobel.sbl`; the sender is believed to believe them, and the
   receiver blends them in with its trust. Text that is not SBL is ignored (and counted).
2. **Belief prediction: intents.** For every partner it keeps several hypotheses of what the partner
   is doing (``fetch <object>``, ``explore <room>``, ``deliver``, ...) with probabilities. Each
   decision mixes the previous posterior with a fresh prediction from the agent's first-order
   beliefs (what it believes the partner knows, where it was, what it holds: the partner's nearest
   known object or unexplored room is likeliest), then applies Bayes' rule with the evidence since:
   the partner seen in a room (likely if the room is on the way to the hypothesis, 0.2 if not), an
   intent it announced (1 against 0.05), an object taken or a room reported explored (0).
3. **Planning.** RHP's sub-goals (``agents.household.planner``), leaving to a partner every object
   or room it is after with probability >= ``avoid`` (0.5).
4. **Adaptive collaboration.** It speaks only on miscoordination (the paper's two aspects,
   Section 3.2: "(1) belief misalignment ... and (2) potentially conflicting actions"):
   - *conflicting plans*: a partner is after the agent's own next sub-goal with probability
     >= ``conflict`` (0.3), the room the agent stands in included when the partner is elsewhere
     (Figure 3) -> it announces its intent (``alice WILL_FETCH <apple>(3)``); when both
     announce the same, the first agent of the scenario keeps it, on both sides;
   - *misaligned beliefs that matter*: a partner is likely (>= ``conflict``) to explore a room the
     agent already explored -> ``<office>(2000) EXPLORATION_STATE all`` and what is left there;
     a partner that may search (an explore among its ``hypotheses`` likeliest intents) does not
     know of needed objects the agent will not take itself -> where they are; a partner likely to
     fetch for a household predicate the agent knows is already met -> the objects that meet it;
   - *false beliefs and progress it does not know of*: a partner predicted (from first-order
     beliefs) to look for an object where it no longer is -- moved, taken or put in place -> where
     it is (``alice HOLD <apple>(3)``, ``<apple>(3) ON <bed>(1000)``).
   Every message also carries the sender's own intent ("they construct a message with the
   misaligned beliefs and share their intents"). Statements the partner is already believed to
   believe are not sent again.

Each step ``belief_snapshots()`` gives ``symbolic_beliefs`` (``BeliefWorld.to_snapshot()``) and
``intents`` (``{"about": {partner: [{"intent": "fetch apple_1", "p": 0.62}, ...]}, "told": n}``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from agents.cobel.belief_world import SNAPSHOT_KIND, BeliefRules, BeliefWorld, Slot
from agents.cobel.sbl import (
    DEFAULT_VOCABULARY,
    Agent as SBLAgent,
    Atom,
    Belief,
    PredicateSpec,
    Property,
    Relation,
    SBLError,
    Thing,
    parse_document,
)
from agents.household.coordination import CoordinatingAgent
from agents.household.planner import Intent
from sim.household.world import HouseholdObservation, HouseholdWorld
from sim.seats import SeatContext
from sim.snapshots import Intents, Plan, SnapshotPayload

INTENTS_KIND = Intents.kind

#: SBL for the household: the paper's vocabulary with two intent predicates (facts, not places)
HOUSEHOLD_VOCABULARY = DEFAULT_VOCABULARY.extend(predicates=[
    PredicateSpec("WILL_FETCH", "an agent intends to fetch an object", subject="agent", object="thing",
                  source="tom-arena (the paper shares intents in words)"),
    PredicateSpec("WILL_EXPLORE", "an agent intends to explore a room", subject="agent", object="thing",
                  source="tom-arena (the paper shares intents in words)"),
])

#: the belief rules that build first-order beliefs (switched off by ``first_order=false``, which leaves the
#: model of each partner empty; ``order=0`` instead copies the agent's own beliefs into it)
FIRST_ORDER_RULES = ("seen_partner_sees_too", "sender_believes_message", "told_is_believed")

#: how CoBel decides to talk: ``triggers`` (the rules naming a miscoordination) or ``voi`` (value of information)
TALK_RULES = ("triggers", "voi")

OBJECT_IDS, PLACE_IDS, ROOM_IDS = 1, 1000, 2000  # id ranges of things, like the paper's <kitchen>(2000)


class HouseholdNames:
    """SBL entities of one household world: ``<class>(n)`` for objects (n from 1), ``<place id>(1000 + p)``
    for places, ``<room id>(2000 + r)`` for rooms; agents by name."""

    def __init__(self, world: HouseholdWorld) -> None:
        self.world = world
        self.objects = [Thing(o.cls, OBJECT_IDS + i) for i, o in enumerate(world.objects)]
        self.places = [Thing(p.id, PLACE_IDS + i) for i, p in enumerate(world.places)]
        self.rooms = [Thing(r, ROOM_IDS + i) for i, r in enumerate(world.room_ids)]

    def obj(self, oid: str) -> Thing:
        return self.objects[self.world.object_index[oid]]

    def place(self, pid: str) -> Thing:
        return self.places[self.world.place_index[pid]]

    def room(self, rid: str) -> Thing:
        return self.rooms[self.world.room_index[rid]]

    def resolve(self, entity: Any) -> tuple[str, str] | None:
        """("object" | "place" | "room" | "agent", id) of an entity, None if it names nothing here."""
        w = self.world
        if isinstance(entity, SBLAgent):
            return ("agent", entity.name) if entity.name in w.agent_index else None
        if not isinstance(entity, Thing):
            return None
        n = entity.id
        if ROOM_IDS <= n < ROOM_IDS + len(w.room_ids):
            return ("room", w.room_ids[n - ROOM_IDS])
        if PLACE_IDS <= n < PLACE_IDS + len(w.places):
            return ("place", w.places[n - PLACE_IDS].id)
        if OBJECT_IDS <= n < OBJECT_IDS + len(w.objects):
            return ("object", w.objects[n - OBJECT_IDS].id)
        return None

    def placement(self, oid: str, at: str) -> Atom:
        """The atom that places object ``oid`` at ``at`` (a place, a container or agent:<name>)."""
        w = self.world
        if at.startswith("agent:"):
            return Relation(SBLAgent(at[6:]), "HOLD", self.obj(oid))
        if at in w.object_index:
            return Relation(self.obj(oid), "INSIDE", self.obj(at))
        place = w.places[w.place_index[at]]
        return Relation(self.obj(oid), "IN" if place.kind == "receptacle" else "ON", self.place(at))

    def where(self, atom: Atom) -> tuple[str, str] | None:
        """(object id, location as in observations) of an atom that places an object."""
        if not isinstance(atom, Relation):
            return None
        if atom.predicate == "HOLD":
            holder, thing = self.resolve(atom.subject), self.resolve(atom.object)
            if holder and thing and holder[0] == "agent" and thing[0] == "object":
                return thing[1], f"agent:{holder[1]}"
            return None
        if atom.predicate in ("ON", "IN", "INSIDE"):
            thing, at = self.resolve(atom.subject), self.resolve(atom.object)
            if thing and at and thing[0] == "object" and at[0] in ("place", "object"):
                return thing[1], at[1]
        return None

    def observation_facts(self, obs: HouseholdObservation) -> tuple[list[Atom], set[Any]]:
        """The atoms an observation shows, and the places seen in full."""
        w = self.world
        me = SBLAgent(obs.agent)
        room = self.room(obs.room)
        facts: list[Atom] = [Relation(me, "AT", room)]
        seen: set[Any] = {room, me}
        for o in obs.objects:
            facts.append(self.placement(o.id, o.at))
            if o.kind == "container":
                seen.add(self.obj(o.id))  # its contents are in view with it
        for pid, is_open in obs.receptacles:
            facts.append(Property(self.place(pid), "OPEN_STATE", "opened" if is_open else "closed"))
        for name, _ in obs.partners:
            facts.append(Relation(SBLAgent(name), "AT", room))
            seen.add(SBLAgent(name))
        if obs.room_explored:
            facts.append(Property(room, "EXPLORATION_STATE", "all"))
            open_here = dict(obs.receptacles)
            for p in w.places_in_room[w.room_index[obs.room]]:
                place = w.places[p]
                if not place.openable or open_here.get(place.id, False):
                    seen.add(self.places[p])
        return facts, seen


def _room_of(intent: Intent, world: HouseholdWorld) -> str | None:
    """The room an intent leads to (None when it names none)."""
    room = None
    if intent and intent[0] == "explore":
        room = intent[1]
    elif intent and intent[0] in ("fetch", "look", "deliver") and len(intent) > 2:
        room = intent[2]
    return room if room in world.room_index else None


def intent_text(intent: Intent) -> str:
    """``fetch bowl_1``; a search the partner is believed to make where the object no longer is
    names the place it looks: ``fetch ball_1 at basket``."""
    if not intent:
        return "nothing"
    return " ".join(intent[:2]) + (f" at {intent[3]}" if intent[0] == "fetch" and len(intent) > 3 else "")


class CoBelAgent(CoordinatingAgent):
    """CoBel-World's belief world, intent hypotheses and adaptive communication, without an LLM."""

    kind = "cobel"

    def __init__(self, conflict: float = 0.3, avoid: float = 0.5, trust: float = 0.9, mix: float = 0.3,
                 hypotheses: int = 4, order: int = 1, messages: bool = True, intents: bool = True,
                 first_order: bool = True, talk: str = "triggers", **planner: Any) -> None:
        super().__init__(**planner)
        if talk not in TALK_RULES:
            raise ValueError(f"cobel: talk={talk!r}; expected one of {', '.join(TALK_RULES)} (triggers: the rules "
                             "that name a miscoordination; voi: a message when the partner's simulated plan "
                             "saves more than the message costs)")
        #: how the agent decides to talk (docs/cobel.md, "When to talk"): the miscoordination triggers
        #: (default, the shipped designs' CoBel) or the value of information
        self.talk = talk
        if isinstance(order, bool) or order not in (0, 1):
            raise ValueError(f"cobel: order={order!r}; expected 1 (first-order beliefs) or 0 (level 0: each partner "
                             "taken to believe what the agent believes; first_order=false is the opposite: "
                             "partners taken to know nothing)")
        if order == 0 and not first_order:
            raise ValueError("cobel: order=0 with first_order=false; order=0 replaces the agent's model of each "
                             "partner by a copy of its own beliefs, leaving first_order=false nothing to switch off: "
                             "give one of them")
        #: level 0 (docs/cobel.md): partners are taken to believe what the agent believes
        self.order = int(order)
        #: ablations (docs/cobel.md): no messages sent; no intent prediction (the paper's "No BBC");
        #: no first-order beliefs (the belief rules that model partners' beliefs switched off: partners
        #: are taken to know nothing, where ``order=0`` takes them to know what the agent knows)
        self.messages, self.intents, self.first_order = bool(messages), bool(intents), bool(first_order)
        for name, value in (("conflict", conflict), ("avoid", avoid), ("trust", trust), ("mix", mix)):
            if not 0.0 <= float(value) <= 1.0:
                raise ValueError(f"cobel: {name}={value!r}; expected a probability in [0, 1]")
        if int(hypotheses) < 1:
            raise ValueError(f"cobel: hypotheses={hypotheses!r}; expected at least 1")
        self.conflict, self.avoid, self.trust, self.mix = float(conflict), float(avoid), float(trust), float(mix)
        self.max_hypotheses = int(hypotheses)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": self.kind, "conflict": self.conflict, "avoid": self.avoid,
                "trust": self.trust, "mix": self.mix, "hypotheses": self.max_hypotheses, "order": self.order,
                "messages": self.messages, "intents": self.intents, "first_order": self.first_order,
                "talk": self.talk}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self.names = HouseholdNames(self.world)
        rules = BeliefRules() if self.first_order else BeliefRules().without(*FIRST_ORDER_RULES)
        self.beliefs = BeliefWorld(self.me, self.partners, vocabulary=HOUSEHOLD_VOCABULARY, trust=self.trust,
                                   rules=rules)
        self.hypotheses: dict[str, dict[Intent, float]] = {p: {} for p in self.partners}
        self.told_now: dict[str, Intent] = {}
        self.just_said = False
        self.sent = 0
        self.unparsed = 0
        self.last_reason = ""
        self._snapshot: dict[str, Any] | None = None
        self._snapshot_taken = False
        self._acted = False
        self._in_room_since: dict[str, tuple[str, int]] = {}
        self._partner_fetch: dict[str, set[str]] = {}
        # labels are public: the agent believes what they say, and that everyone read them
        for oid, seen in self.memory.items():
            atom = self.names.placement(oid, seen.at)
            self.beliefs.zero.observe_true(atom)
            for p in self.partners:
                self.beliefs.model_of(p).observe_true(atom)

    # ------------------------------------------------------------------ 1. belief update

    def update_beliefs(self, obs: HouseholdObservation) -> None:
        before = dict(self.partner_room)
        self.remember(obs)
        self.see_partners(obs)
        facts, seen = self.names.observation_facts(obs)
        self.beliefs.observe(facts, seen_places=seen)
        self.told_now = {}
        for sender, text in obs.inbox:
            self.read_message(sender, text, obs.time)
        self.drop_stale_claims()
        self._seen_rooms = {p: self.partner_room[p][0] for p, _ in obs.partners}
        # a partner that stays in a room as long as a look around takes has explored it
        explore_cost = int(self.world.costs["explore"])
        for p in self.partners:
            room, since = self._in_room_since.get(p, (None, 0))
            if p not in self._seen_rooms:
                self._in_room_since.pop(p, None)
            elif room != obs.room:
                self._in_room_since[p] = (obs.room, obs.time)
            elif obs.time - since >= explore_cost and self.world.task == "transport":
                self.partner_explored[p].add(room)
        self._before_rooms = {p: before.get(p, (None, 0))[0] for p in self.partners}
        if self.order == 0:  # no model of a partner's mind: it is taken to believe what the agent believes
            for p in self.partners:
                self.beliefs.first[p] = self.beliefs.zero.copy()

    def forget(self, oid: str) -> None:
        s = self.memory.get(oid)
        if s is not None and hasattr(self, "beliefs"):  # a grab failed: it is not where it was believed
            self.beliefs.zero.observe_false(self.names.placement(oid, s.at))
        super().forget(oid)

    def read_message(self, sender: str, text: str, time: int) -> None:
        try:
            statements = parse_document(text, vocabulary=HOUSEHOLD_VOCABULARY, source=f"message from {sender}")
        except SBLError:
            self.unparsed += 1
            return
        if sender not in self.partner_explored:
            return
        self.beliefs.receive(sender, statements)
        for statement in statements:
            atom = statement.atom if isinstance(statement, Belief) and statement.holders == (SBLAgent(sender),) \
                else statement
            if isinstance(atom, Belief):
                continue
            self.apply_statement(sender, atom, time)

    def apply_statement(self, sender: str, atom: Atom, time: int) -> None:
        placed = self.names.where(atom)
        if placed is not None:
            oid, at = placed
            self.hear(oid, at, time)
            if at == f"agent:{sender}":
                self.partner_holds[sender] = tuple(dict.fromkeys(self.partner_holds[sender] + (oid,)))
            return
        if isinstance(atom, Property) and atom.attribute == "EXPLORATION_STATE" and atom.state == "all":
            room = self.names.resolve(atom.subject)
            if room and room[0] == "room":
                self.partner_explored[sender].add(room[1])
                self.partner_searched[sender].add(room[1])
            return
        if not isinstance(atom, Relation) or self.names.resolve(atom.subject) != ("agent", sender):
            return
        target = self.names.resolve(atom.object)
        if atom.predicate == "AT" and target and target[0] == "room":
            self.partner_room[sender] = (target[1], time)
        elif atom.predicate == "WILL_FETCH" and target and target[0] == "object":
            s = self.memory.get(target[1])
            self.claims[sender] = ("fetch", target[1], s.room if s and s.room else "")
            self.told_now[sender] = self.claims[sender]
        elif atom.predicate == "WILL_EXPLORE" and target and target[0] == "room":
            self.claims[sender] = ("explore", target[1])
            self.told_now[sender] = self.claims[sender]

    # ------------------------------------------------------------------ 2. intents

    def known_to(self, partner: str, oid: str) -> bool:
        """The agent believes ``partner`` believes where ``oid`` is."""
        s = self.memory.get(oid)
        if s is None:
            return False
        return self.beliefs.model_of(partner).p(self.names.placement(oid, s.at)) >= 0.5

    def believed_place(self, partner: str, oid: str) -> str | None:
        """Where the agent believes ``partner`` believes ``oid`` lies (a place id), or None."""
        dist = self.beliefs.model_of(partner).distribution(Slot("place", self.names.obj(oid)))
        if not dist:
            return None
        atom, p = max(dist.items(), key=lambda kv: (kv[1], str(kv[0])))
        placed = self.names.where(atom) if p >= 0.5 else None
        return placed[1] if placed is not None and placed[1] in self.world.place_index else None

    def wrong_search(self, partner: str, oid: str) -> str | None:
        """First order: the place where ``partner`` would look for ``oid`` when the agent believes
        it believes a place the object is no longer at (None when it does not)."""
        seen = self.memory.get(oid)
        if self.order < 1 or seen is None:
            return None
        believed = self.believed_place(partner, oid)
        return believed if believed is not None and believed != seen.at else None

    def _fetchable(self, obs: HouseholdObservation) -> list[str]:
        """Objects worth fetching now, as a partner would see it (not yet in place, not held)."""
        w = self.world
        out = []
        if obs.task == "transport":
            goal = obs.goal[0]
            for oid, s in self.memory.items():
                if s.room is None or s.at not in w.place_index or s.at == goal:
                    continue
                if s.kind == "target" or (s.kind == "container" and obs.time < self.container_until):
                    out.append(oid)
            return out
        _, wanted = self.household_needs(obs)
        goal_places = {(cls, place) for _, cls, place, _ in obs.goal}
        for oid, s in self.memory.items():
            if s.cls in wanted and s.room is not None and not s.at.startswith("agent:") \
                    and (s.cls, s.at) not in goal_places:
                out.append(oid)
        return out

    def _partner_fetchable(self, partner: str, obs: HouseholdObservation) -> list[str]:
        """Objects ``partner`` would fetch as far as the agent believes it knows (the paper predicts a
        collaborator's intents from first-order beliefs): those worth fetching, and, first order, the
        progress it does not know of: an object taken by someone else or put in place while it still
        believes it lies where it was (it will look there), and in a household task an object of a
        class whose predicate the agent knows is met while the partner is not believed to know."""
        out = list(self._fetchable(obs))
        if self.order < 1:
            return out
        seen_out = set(out)
        goal_classes = {c for _, c, _, _ in obs.goal} if obs.task == "household" else set()
        goal_pairs = {(c, pl) for _, c, pl, _ in obs.goal} if obs.task == "household" else set()
        for oid, s in self.memory.items():
            if oid in seen_out or s.at == f"agent:{partner}":
                continue
            if obs.task == "transport":
                if not (s.kind == "target" or s.kind == "container" and obs.time < self.container_until):
                    continue
            elif s.cls not in goal_classes:
                continue
            believed = self.believed_place(partner, oid)
            if believed is None or obs.task == "transport" and believed == obs.goal[0] \
                    or (s.cls, believed) in goal_pairs:
                continue
            moved = believed != s.at  # taken, or put in place, while the partner believes it where it was
            met = obs.task == "household" and self._needed_units(obs, s.cls) <= 0 \
                and self._partner_needed_units(partner, obs, s.cls) > 0
            if moved or met:
                out.append(oid)
        return out

    def _partner_needed_units(self, partner: str, obs: HouseholdObservation, cls: str) -> int:
        """Household: the units of ``cls`` the agent believes ``partner`` believes still needed."""
        goal_places = {place for _, c, place, _ in obs.goal if c == cls}
        placed = 0
        for oid, s in self.memory.items():
            if s.cls != cls:
                continue
            believed = self.believed_place(partner, oid)
            if believed in goal_places or s.at == f"agent:{partner}":
                placed += 1
        return sum(n for _, c, _, n in obs.goal if c == cls) - placed

    def predict(self, partner: str, obs: HouseholdObservation) -> dict[Intent, float]:
        """What ``partner`` is likely to do next, from what the agent believes it knows."""
        w = self.world
        room = self.partner_room.get(partner, (obs.room, 0))[0]
        mine = self.announced if self.announced[:1] in (("fetch",), ("explore",)) else ()
        weights: dict[Intent, float] = {}
        holds = [h for h in self.partner_holds[partner] if h in w.object_index]
        if obs.task == "transport":
            full = len(holds) >= 2 or obs.time >= self.go_home_frame and holds
            if full:
                goal = obs.goal[0]
                weights[("deliver", goal, w.room_of_place(goal))] = 3.0
        elif holds:
            weights[("deliver", "", "")] = 3.0
        # the partner plans like the agent does: a container first while it has none (transport)
        wants_container = obs.task == "transport" and obs.time < self.container_until and not any(
            self.memory[h].kind == "container" for h in holds if h in self.memory)
        candidates = self._partner_fetchable(partner, obs)
        self._partner_fetch[partner] = set(candidates)
        for oid in candidates:
            s = self.memory[oid]
            if ("fetch", oid) == mine[:2]:
                continue
            boost = 4.0 if wants_container and s.kind == "container" else 1.0
            wrong = self.wrong_search(partner, oid)
            if wrong is not None:  # it will look where it believes the object is (a false belief)
                there = w.room_of_place(wrong)
                weights[("fetch", oid, there, wrong)] = boost * math.exp(-self.distance(room, there) / 10.0)
                continue
            if not self.known_to(partner, oid):
                continue
            weights[("fetch", oid, s.room)] = boost * math.exp(-self.distance(room, s.room) / 10.0)  # type: ignore[arg-type]
        explored = self.partner_explored[partner] if obs.task == "transport" else self.partner_searched[partner]
        for r in w.room_ids:
            if r in explored or ("explore", r) == mine[:2]:
                continue
            weights[("explore", r)] = 0.7 * math.exp(-self.distance(room, r) / 10.0)
        total = sum(weights.values())
        return {h: v / total for h, v in weights.items()} if total > 0 else {}

    def update_intents(self, obs: HouseholdObservation) -> None:
        if not self.intents:  # ablation: no intent hypotheses, only what partners announce
            return
        for p in self.partners:
            pred = self.predict(p, obs)
            # an intent to fetch an object persists; where the partner will look for it is predicted afresh
            fresh = {h[:2]: h for h in pred if h[0] == "fetch"}
            post: dict[Intent, float] = {}
            for h, v in self.hypotheses[p].items():
                key = fresh.get(h[:2], h) if h[0] == "fetch" else h
                post[key] = post.get(key, 0.0) + v
            prior = {h: (1 - self.mix) * post.get(h, 0.0) + self.mix * pred.get(h, 0.0)
                     for h in set(post) | set(pred)}
            if not post:
                prior = dict(pred)
            told = self.told_now.get(p)
            if told is not None and told not in prior:
                prior[told] = 0.05
            seen_in = self._seen_rooms.get(p)
            came_from = self._before_rooms.get(p)
            explored = self.partner_explored[p] if obs.task == "transport" else self.partner_searched[p]
            out: dict[Intent, float] = {}
            for h, v in prior.items():
                like = 1.0
                if h[0] == "fetch" and h[1] not in self._partner_fetch.get(p, self._fetchable_set):
                    like = 0.0
                elif h[0] == "fetch" and len(h) > 3 and self.wrong_search(p, h[1]) != h[3]:
                    like = 0.0  # it no longer believes the object is there
                elif h[0] == "explore" and h[1] in explored:
                    like = 0.0
                if told is not None:
                    like *= 1.0 if h[:2] == told[:2] else 0.05
                elif seen_in is not None:
                    target = _room_of(h, self.world)
                    if target is not None and not self._on_way(came_from or seen_in, seen_in, target):
                        like *= 0.2
                out[h] = v * like
            total = sum(out.values())
            self.hypotheses[p] = {h: v / total for h, v in out.items() if v / total > 1e-3} if total > 0 else pred

    def _on_way(self, start: str, via: str, target: str) -> bool:
        return via == target or self.distance(start, via) + self.distance(via, target) <= self.distance(start, target) + 1e-6

    def top_intents(self, partner: str) -> list[tuple[Intent, float]]:
        ranked = sorted(self.hypotheses[partner].items(), key=lambda kv: (-kv[1], kv[0]))
        return ranked[: self.max_hypotheses]

    def p_intent(self, partner: str, kind: str, thing: str) -> float:
        return sum(v for h, v in self.hypotheses[partner].items() if h[:2] == (kind, thing))

    # ------------------------------------------------------------------ 3. planning hooks

    def _threshold(self, partner: str) -> float:
        """How likely a partner's intent must be for the agent to leave it to the partner: ``avoid``,
        or only ``conflict`` for a partner listed first (it keeps what both go for, so the agent
        yields without a word)."""
        order = self.world.agents
        return self.conflict if order.index(partner) < order.index(self.me) else self.avoid

    def avoided_objects(self) -> set[str]:
        out = super().avoided_objects()
        for p in self.partners:
            for h, v in self.hypotheses[p].items():
                if h[0] == "fetch" and v >= self._threshold(p) and self._yields(p, h) \
                        and h[1] in getattr(self, "_fetchable_set", ()):
                    out.add(h[1])
        return out

    def avoided_rooms(self) -> set[str]:
        out = super().avoided_rooms()
        for p in self.partners:
            for h, v in self.hypotheses[p].items():
                if h[0] == "explore" and v >= self._threshold(p) and self._yields(p, h):
                    out.add(h[1])
        return out

    def partner_brings(self) -> list[str]:
        classes = super().partner_brings()
        w = self.world
        for p in self.partners:
            claim = self.claims.get(p, ())
            for h, v in self.hypotheses[p].items():
                if h[0] == "fetch" and v >= self.avoid and h[:2] != claim[:2] and self._yields(p, h) \
                        and h[1] in self._fetchable_set:  # not a search for what is already taken or in place
                    classes.append(w.objects[w.object_index[h[1]]].cls)
        return classes

    # ------------------------------------------------------------------ 4. adaptive collaboration

    def _unknown(self, partner: str, statement: Atom) -> bool:
        return self.beliefs.model_of(partner).p(statement) < 0.5

    def miscoordination(self, obs: HouseholdObservation) -> tuple[list[Atom], str]:
        """The statements to send now and why ([] and "" when collaboration is on track)."""
        me, w, names = SBLAgent(self.me), self.world, self.names
        say: list[Atom] = []
        reasons: list[str] = []

        def add(atom: Atom) -> None:
            if atom not in say:
                say.append(atom)

        intent = self.intent
        if not self.intents:
            return self._share_news(obs)
        for p in self.partners:
            # conflicting plans: the partner is likely after the agent's own next sub-goal, the room
            # the agent stands in included when the partner is elsewhere (the paper, Section 4, Figure 3:
            # "Bob infers that Alice might also explore his current room and thus proactively shares his
            # intent and beliefs"); a partner in the same room looks around it anyway (each agent sees
            # only what it explored), so there the agents' looking around is no conflict to talk over
            here_together = intent[:1] == ("explore",) and intent[1] == obs.room \
                and self._seen_rooms.get(p) == obs.room
            if intent[:1] in (("fetch",), ("explore",)) and not here_together:
                p_same = self.p_intent(p, intent[0], intent[1])
                if obs.task == "household" and intent[0] == "fetch":
                    cls = w.objects[w.object_index[intent[1]]].cls
                    p_same = max(p_same, sum(v for h, v in self.hypotheses[p].items() if h[0] == "fetch"
                                             and w.objects[w.object_index[h[1]]].cls == cls
                                             and self._needed_units(obs, cls) <= 1))
                claim = (Relation(me, "WILL_FETCH", names.obj(intent[1])) if intent[0] == "fetch"
                         else Relation(me, "WILL_EXPLORE", names.room(intent[1])))
                if p_same >= self.conflict and self._unknown(p, claim):
                    add(claim)
                    reasons.append(f"{p} may also {intent_text(intent)} (p={p_same:.2f})")
            # misaligned beliefs that matter: a room it would explore for nothing
            explored = self.partner_explored[p] if obs.task == "transport" else self.partner_searched[p]
            mine_done = set(obs.explored) if obs.task == "transport" else self._searched(obs)
            for h, v in self.hypotheses[p].items():
                if h[0] != "explore" or v < self.conflict or h[1] not in mine_done or h[1] in explored:
                    continue
                done = Property(names.room(h[1]), "EXPLORATION_STATE", "all")
                if self._unknown(p, done):
                    add(done)
                    for oid in self._fetchable(obs):
                        s = self.memory[oid]
                        if s.room == h[1] and oid not in self.avoided_objects():
                            add(names.placement(oid, s.at))
                    reasons.append(f"{p} may explore the {h[1]}, which {self.me} explored (p={v:.2f})")
            # belief misalignment: the partner does not know of objects the agent will leave, and
            # may search for them. The paper's example of a misalignment is "Only Bob knows the
            # apple's location" (Section 3.2), and the agent "explicitly reasons over multiple intents
            # for every collaborator—not just the most likely one": a search among the partner's
            # `hypotheses` likeliest intents is enough, not only its likeliest
            top = self.top_intents(p)
            if any(h[0] == "explore" for h, _ in top):
                spare = [oid for oid in self._fetchable(obs)
                         if intent[:2] != ("fetch", oid) and not self.known_to(p, oid)
                         and self._leaves(obs, oid)]
                spare.sort(key=lambda oid: (self.distance(self.partner_room.get(p, (obs.room, 0))[0],
                                                          self.memory[oid].room), oid))  # type: ignore[arg-type]
                for oid in spare[:3]:
                    add(names.placement(oid, self.memory[oid].at))
                if spare:
                    reasons.append(f"{p} is searching and does not know of {', '.join(spare[:3])}")
            # household: a predicate already met while the partner may fetch for it
            if obs.task == "household":
                for h, v in self.hypotheses[p].items():
                    if h[0] != "fetch" or v < self.conflict:
                        continue
                    cls = w.objects[w.object_index[h[1]]].cls
                    if self._needed_units(obs, cls) > 0:
                        continue
                    for oid, s in self.memory.items():
                        if s.cls == cls and any(s.at == place for _, c, place, _ in obs.goal if c == cls):
                            atom = names.placement(oid, s.at)
                            if self._unknown(p, atom):
                                add(atom)
                                reasons.append(f"{p} may fetch a {cls}, no longer needed")
            # a false belief that matters: the partner may look for an object where it no longer is
            for h, v in self.top_intents(p):
                if h[0] == "fetch" and len(h) > 3 and h[1] in self.memory:
                    atom = names.placement(h[1], self.memory[h[1]].at)
                    if self._unknown(p, atom):
                        add(atom)
                        reasons.append(f"{p} may look for {h[1]} at {h[3]}, where it no longer is (p={v:.2f})")
        if say:
            # "if agents detect the potential miscoordination, they construct a message with the
            # misaligned beliefs and share their intents" (Section 3.2): the agent's own intent goes
            # with every message, unless every partner is believed to know it already
            if intent[:1] in (("fetch",), ("explore",)):
                claim = (Relation(me, "WILL_FETCH", names.obj(intent[1])) if intent[0] == "fetch"
                         else Relation(me, "WILL_EXPLORE", names.room(intent[1])))
                if any(self._unknown(p, claim) for p in self.partners):
                    add(claim)
            say.insert(0, Relation(me, "AT", names.room(obs.room)))
        return say, "; ".join(dict.fromkeys(reasons))

    # ------------------------------------------------------------------ 4'. the value of information

    def partner_knowledge(self, partner: str, obs: HouseholdObservation) -> dict[str, tuple[str, bool]]:
        """What the agent believes ``partner`` would fetch: object -> (the room it believes the object
        in, whether the object is really there as far as the agent knows)."""
        known: dict[str, tuple[str, bool]] = {}
        for oid in self._partner_fetchable(partner, obs):
            s = self.memory[oid]
            wrong = self.wrong_search(partner, oid)
            if wrong is not None:
                known[oid] = (self.world.room_of_place(wrong), False)
            elif self.known_to(partner, oid) and s.room is not None:
                known[oid] = (s.room, True)
        return known

    def _grab_cost(self, oid: str) -> float:
        w, s = self.world, self.memory.get(oid)
        openable = s is not None and s.at in w.place_index and w.places[w.place_index[s.at]].openable
        return float(w.costs["grab"]) + (float(w.costs["open"]) if openable else 0.0)

    def plan_cost(self, obs: HouseholdObservation, start: str, known: dict[str, tuple[str, bool]],
                  searched: set[str], told_objects: set[str] = frozenset(), told_rooms: set[str] = frozenset(),
                  taken_objects: set[str] = frozenset(), taken_rooms: set[str] = frozenset(),
                  first: Intent = ()) -> float:  # type: ignore[assignment]
        """The expected frames or steps a partner standing in ``start`` takes to its next useful grab,
        planning as RHP does over what it knows (``known``): the nearest known object first (a wrong
        belief, or an object the agent takes first, costs the trip and a failed grab, then it plans
        again from there), else the nearest room left to search, each room it looks around costing
        its walk, the look and the opening of its receptacles; a room holds a needed object when the
        agent knows one there, and, for a room the agent has not searched either, with the chance
        that one of the needed units it has not located lies there. ``first`` is the partner's first
        sub-goal (an intent hypothesis); ``told_objects`` and ``told_rooms`` are the agent's intent
        as told to the partner (it leaves them), ``taken_objects`` and ``taken_rooms`` the agent's
        intent (the partner finds them taken or looked through)."""
        w = self.world
        costs = w.costs
        real = {oid: self.memory[oid].room for oid in self._fetchable_set
                if oid not in taken_objects and self.memory[oid].room is not None}
        total, reach, here = 0.0, 1.0, start
        known = {o: (r, ok and o not in taken_objects) for o, (r, ok) in known.items() if o not in told_objects}
        forced = first
        for _ in range(len(known) + 1):  # a wasted trip, then it plans again
            if forced[:1] == ("fetch",) and forced[1] in known:
                oid = forced[1]
            elif forced[:1] == ("explore",) or not known:
                break
            else:
                oid = min(known, key=lambda o: (w.walk_cost(here, known[o][0]) if known[o][0] != here else 0, o))
            forced = ()
            room, valid = known.pop(oid)
            total += w.walk_cost(here, room) if room != here else 0.0
            if valid:
                return total + self._grab_cost(oid)
            total += float(costs["grab"])
            here = room
        mine = self._searched(obs)
        unsearched = [r for r in w.room_ids if r not in mine and r not in taken_rooms]
        q = min(1.0, self._unlocated(obs) / len(unsearched)) if unsearched else 0.0
        done = set(searched)
        order: list[str] = []
        if forced[:1] == ("explore",) and forced[1] in w.room_index and forced[1] not in told_rooms:
            order.append(forced[1])
        if start not in done:  # RHP looks through the room it stands in first, whatever it was told
            order.append(start)
        while reach > 1e-9:
            if order:
                room = order.pop()
            else:
                left = [r for r in w.room_ids if r not in done and r not in told_rooms] \
                    or [r for r in w.room_ids if r not in done]
                if not left:
                    break
                room = min(left, key=lambda r: (w.walk_cost(here, r) if r != here else 0, r))
            done.add(room)
            opens = sum(1 for p in w.places_in_room[w.room_index[room]] if w.places[p].openable)
            total += reach * ((w.walk_cost(here, room) if room != here else 0.0)
                              + float(costs["explore"]) + opens * float(costs["open"]))
            here = room
            if room in taken_rooms:
                continue  # the agent looks through it and takes what is there
            if any(r == room for r in real.values()):
                return total + reach * float(costs["grab"])
            if room not in mine:
                total += reach * q * float(costs["grab"])
                reach *= 1.0 - q
        return total

    def _unlocated(self, obs: HouseholdObservation) -> float:
        """Needed units the agent has not located (the chance a room it has not searched holds one)."""
        w = self.world
        if obs.task == "household":
            out = 0
            for cls in {c for _, c, _, _ in obs.goal}:
                located = sum(1 for oid in self._fetchable_set if self.memory[oid].cls == cls)
                out += max(0, self._needed_units(obs, cls) - located)
            return float(out)
        return float(sum(1 for o in w.objects if o.kind == "target" and o.id not in self.memory))

    def expected_saving(self, partner: str, obs: HouseholdObservation, tell: Sequence[str], claim: bool) -> float:
        """What telling ``partner`` where the objects ``tell`` are (and, with ``claim``, the agent's own
        intent) saves it, in frames or steps, in expectation over its intent hypotheses: for each, its
        cost to the next useful grab when it pursues the hypothesis on what it is believed to know
        (the agent doing what it intends), against its plan when the message bears on that choice
        (RHP plans again on what it is told: the objects told, its wrong belief corrected, the
        agent's object or room left to the agent). Without hypotheses (``intents=false``) the partner
        is taken to plan as RHP on what it is believed to know."""
        if obs.task == "household" and self.partner_holds[partner]:
            return 0.0  # it is delivering what it holds: the message cannot change its next plan
        room = self.partner_room.get(partner, (obs.room, 0))[0]
        known = self.partner_knowledge(partner, obs)
        searched = set(self.partner_explored[partner] if obs.task == "transport" else self.partner_searched[partner])
        intent = self.intent
        taken_o = {intent[1]} if intent[:1] == ("fetch",) else set()
        taken_r = {intent[1]} if intent[:1] == ("explore",) else set()
        told_o = taken_o if claim else set()
        told_r = taken_r if claim else set()
        told = dict(known)
        for oid in tell:
            s = self.memory[oid]
            if s.at.startswith("agent:") or s.room is None:
                told.pop(oid, None)
            else:
                told[oid] = (s.room, True)
        plans: list[tuple[Intent, float]] = [(h, v) for h, v in self.hypotheses.get(partner, {}).items()
                                             if h[:1] in (("fetch",), ("explore",))]
        if not plans:
            plans = [((), 1.0)]
        saving = 0.0
        for h, v in plans:
            if h[:1] == ("fetch",) and h[1] not in known:
                continue  # it cannot go for what it is not believed to know of
            without = self.plan_cost(obs, room, known, searched, taken_objects=taken_o, taken_rooms=taken_r, first=h)
            conflict = h[:1] == ("fetch",) and h[1] in taken_o or h[:1] == ("explore",) and h[1] in taken_r
            if tell or claim and conflict or not h:
                with_message = self.plan_cost(obs, room, told, searched, told_o, told_r, taken_o, taken_r)
            else:
                with_message = without
            saving += v * (without - with_message)
        return saving

    def value_of_information(self, obs: HouseholdObservation) -> tuple[list[Atom], str]:
        """The message whose expected saving to the partners most exceeds its cost (frames or steps of
        the sender's), among: where an object is that a partner does not know of or believes elsewhere
        (each alone, and all of them), the agent's own intent, and both; ([], "") when none pays."""
        me, names = SBLAgent(self.me), self.names
        intent = self.intent
        claim_atom: Atom | None = None
        if intent[:1] == ("fetch",):
            claim_atom = Relation(me, "WILL_FETCH", names.obj(intent[1]))
        elif intent[:1] == ("explore",):
            claim_atom = Relation(me, "WILL_EXPLORE", names.room(intent[1]))
        news: list[str] = []
        for oid in sorted(self._fetchable_set | {o for p in self.partners for o in self._partner_fetch.get(p, ())}):
            s = self.memory.get(oid)
            if s is None or intent[:2] == ("fetch", oid):
                continue
            atom = names.placement(oid, s.at)
            if any(self._unknown(p, atom) for p in self.partners) and (oid not in self._fetchable_set
                                                                       or self._leaves(obs, oid)):
                news.append(oid)
        claims = [False] + ([True] if claim_atom is not None and any(self._unknown(p, claim_atom)
                                                                     for p in self.partners) else [])
        groups: list[tuple[str, ...]] = [()] + [(o,) for o in news] + ([tuple(news)] if len(news) > 1 else [])
        best: tuple[float, int, list[Atom], str] | None = None
        for claim in claims:
            for tell in groups:
                if not tell and not claim:
                    continue
                say: list[Atom] = [Relation(me, "AT", names.room(obs.room))]
                say += [names.placement(o, self.memory[o].at) for o in tell]
                if claim and claim_atom is not None:
                    say.append(claim_atom)
                saving = sum(self.expected_saving(p, obs, tell, claim) for p in self.partners)
                cost = float(self.world.message_cost("\n".join(str(a) for a in say)))
                net = saving - cost
                if net > 1e-9 and (best is None or (net, -len(say)) > (best[0], -best[1])):
                    what = ", ".join([*tell, *(["its intent " + intent_text(intent)] if claim else [])])
                    best = (net, len(say), say, f"telling {what} saves {saving:.3f} against a cost of {cost:.0f}")
        if best is None:
            return [], ""
        return best[2], best[3]

    def _share_news(self, obs: HouseholdObservation) -> tuple[list[Atom], str]:
        """Without intent prediction (ablation) the agent cannot tell whether a partner needs what
        it knows, so it shares what its model of the partners lacks: rooms it explored and the
        objects still to fetch that it will not take on this trip."""
        me, names = SBLAgent(self.me), self.names
        say: list[Atom] = []
        mine_done = set(obs.explored) if obs.task == "transport" else self._searched(obs)
        for p in self.partners:
            for room in sorted(mine_done):
                done = Property(names.room(room), "EXPLORATION_STATE", "all")
                if self._unknown(p, done) and done not in say:
                    say.append(done)
            for oid in sorted(self._fetchable(obs)):
                if self.intent[:2] != ("fetch", oid) and not self.known_to(p, oid) and self._leaves(obs, oid):
                    atom = names.placement(oid, self.memory[oid].at)
                    if atom not in say:
                        say.append(atom)
        if not say:
            return [], ""
        return [Relation(me, "AT", names.room(obs.room)), *say], "sharing what partners do not know yet"

    def _needed_units(self, obs: HouseholdObservation, cls: str) -> int:
        placed_or_held = sum(1 for s in self.memory.values() if s.cls == cls and (
            s.at.startswith("agent:") or any(s.at == place for _, c, place, _ in obs.goal if c == cls)))
        need = sum(n for _, c, _, n in obs.goal if c == cls)
        return need - placed_or_held

    def _searched(self, obs: HouseholdObservation) -> set[str]:
        w = self.world
        return {r for r in obs.explored if all(not w.places[p].openable or w.places[p].id in self.looked_inside
                                               for p in w.places_in_room[w.room_index[r]])}

    def _leaves(self, obs: HouseholdObservation, oid: str) -> bool:
        """True when the agent will not take ``oid`` on its current trip."""
        held = [h for h in obs.holding if h is not None]
        if obs.task == "transport":
            s = self.memory[oid]
            if s.kind == "container":
                return any(self.memory[h].kind == "container" for h in held if h in self.memory)
            free_slots = 2 - len(held)
            container = next((h for h in held if h in self.memory and self.memory[h].kind == "container"), None)
            if container is not None:
                inside = sum(1 for x in self.memory.values() if x.at == container)
                free_slots = 3 - inside + (1 if len(held) < 2 else 0)
            mine = sorted((self.distance(obs.room, self.memory[o].room), o) for o in self._fetchable(obs)  # type: ignore[arg-type]
                          if self.memory[o].kind == "target")
            return oid not in [o for _, o in mine[:max(free_slots, 0)]]
        return len(held) >= 2 or self.memory[oid].room != obs.room

    # ------------------------------------------------------------------ acting

    def decide(self, observation: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        obs = observation
        self.update_beliefs(obs)
        self._fetchable_set = set(self._fetchable(obs))
        self.update_intents(obs)
        action = self.plan(obs)
        self._acted = True
        if self.just_said:
            self.just_said = False
            return action
        if not self.messages:
            statements, reason = [], ""
        elif self.talk == "voi":
            statements, reason = self.value_of_information(obs)
        else:
            statements, reason = self.miscoordination(obs)
        if not statements:
            return action
        self.just_said = True
        self.sent += 1
        self.last_reason = reason
        self.announced = self.intent
        self.tell(statements)
        text = "\n".join(str(s) for s in statements)
        return self.world.message_action(None, self.me, text)

    # ------------------------------------------------------------------ snapshots

    def topics(self) -> list[Any]:
        return [self.names.obj(oid) for oid in sorted(getattr(self, "_fetchable_set", ()))]

    def intents_snapshot(self) -> Intents:
        return Intents(about={p: [{"intent": intent_text(h), "p": round(v, 4)} for h, v in self.top_intents(p)]
                              for p in self.partners},
                       own=intent_text(self.intent), told=self.sent, reason=self.last_reason)

    def tell(self, statements: Sequence[Atom]) -> None:
        """Send ``statements``: the snapshot of this step is taken first (the beliefs the agent
        decided on), then ``told_is_believed`` updates its models of the partners, which the
        snapshot of its next decision shows, once the message has arrived."""
        self._snapshot = self.beliefs.to_snapshot(topics=self.topics())
        self._snapshot_taken = True
        self.beliefs.send(self.partners, statements)

    def belief_snapshots(self) -> Sequence[tuple[str, SnapshotPayload]]:
        if self._snapshot_taken:
            self._snapshot_taken = self._acted = False
        elif self._acted or self._snapshot is None:
            self._snapshot = self.beliefs.to_snapshot(topics=self.topics())
            self._acted = False
        else:  # nothing new since the last step: the same beliefs, no changes to highlight
            self._snapshot = dataclasses.replace(self._snapshot, changed=[], removed=[])
        return ((SNAPSHOT_KIND, self._snapshot), (INTENTS_KIND, self.intents_snapshot()),
                ("plan", Plan(rule=self.rule, subgoal=self.subgoal)))
