"""CoBel-World's collaborative belief world (Sections 3.1-3.2, Appendix A.2), without an LLM.

Each agent keeps one :class:`BeliefWorld`: a store of zero-order beliefs (what it believes of the
world) and, per collaborator, a store of first-order beliefs (what it believes that collaborator
believes). A store holds, for every *slot* (an entity's place, an entity's attribute, or a
free-standing fact such as NEAR), a probability distribution over atoms of that slot; mass not
listed is "unknown". Updates are Bayesian-style:

* an observed atom is certain and replaces its slot (seen elsewhere = no longer at the old place);
* an atom observed false removes its mass and renormalizes the rest, p' = p / (1 - p_removed)
  (a place seen without the object);
* a message blends the told atom in with the receiver's trust, p' = w * delta + (1 - w) * p.

Which observations and messages update which store is decided by the belief rules
(:data:`DEFAULT_RULES`), kept as data so that an agent can switch them and quote them in prompts.
Nothing here knows a particular world: worlds turn their observations into SBL atoms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping, Sequence

from agents.cobel.sbl import (
    DEFAULT_VOCABULARY,
    Agent,
    Atom,
    Belief,
    Entity,
    Property,
    Relation,
    SBLError,
    Statement,
    Thing,
    Vocabulary,
    parse,
)
from sim.snapshots import SymbolicBeliefs

__all__ = [
    "Slot", "slot_of", "value_of", "BeliefStore", "BeliefRule", "BeliefRules", "DEFAULT_RULES",
    "Mark", "Misalignment", "BeliefWorld", "misalignments", "team_misalignments",
    "SNAPSHOT_KIND",
]

SNAPSHOT_KIND = SymbolicBeliefs.kind  # the BeliefEvent kind a BeliefWorld snapshot is emitted as
_NEGLIGIBLE = 1e-9                  # probability mass below this is dropped, not kept as noise
_P_DECIMALS = 4                     # snapshots round p so that float noise is not a "change"
OPEN_STATE, CLOSED = "OPEN_STATE", "closed"


# --------------------------------------------------------------------------- slots

@dataclass(frozen=True, slots=True)
class Slot:
    """What an atom is about; a slot holds one value at a time.

    ``place`` of an entity (IN / ON / INSIDE / AT / HOLD all state it), an ``attribute`` of an
    entity, or a free-standing ``fact`` (a predicate without ``locates``, e.g. NEAR), which is
    its own slot and never contradicts another.
    """

    kind: Literal["place", "attribute", "fact"]
    subject: Entity
    attribute: str = ""
    fact: Atom | None = None

    def describe(self) -> str:
        if self.kind == "place":
            return f"place of {self.subject}"
        if self.kind == "attribute":
            return f"{self.attribute} of {self.subject}"
        return str(self.fact)


def slot_of(atom: Atom, vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> Slot:
    if isinstance(atom, Property):
        return Slot("attribute", atom.subject, atom.attribute)
    spec = vocabulary.predicate(atom.predicate)
    if spec is not None and spec.locates == "subject":
        return Slot("place", atom.subject)
    if spec is not None and spec.locates == "object":
        return Slot("place", atom.object)
    return Slot("fact", atom.subject, fact=atom)


def value_of(atom: Atom, vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> Entity | str | Atom:
    """What an atom says of its slot: the place, the state, or (for a fact) the atom itself.

    Two atoms of one slot contradict each other when their values differ; ``<apple>(1) IN
    <table>(2)`` and ``<apple>(1) ON <table>(2)`` put the apple at the same place."""
    if isinstance(atom, Property):
        return atom.state
    spec = vocabulary.predicate(atom.predicate)
    if spec is not None and spec.locates == "subject":
        return atom.object
    if spec is not None and spec.locates == "object":
        return atom.subject
    return atom


# --------------------------------------------------------------------------- store

class BeliefStore:
    """Distributions over atoms, one per slot (the beliefs of one order about one mind)."""

    def __init__(self, vocabulary: Vocabulary = DEFAULT_VOCABULARY):
        self.vocabulary = vocabulary
        self._slots: dict[Slot, dict[Atom, float]] = {}

    def copy(self) -> "BeliefStore":
        twin = BeliefStore(self.vocabulary)
        twin._slots = {slot: dict(dist) for slot, dist in self._slots.items()}
        return twin

    def slot(self, atom: Atom) -> Slot:
        return slot_of(atom, self.vocabulary)

    def p(self, atom: Atom) -> float:
        return self._slots.get(self.slot(atom), {}).get(atom, 0.0)

    def distribution(self, slot: Slot) -> dict[Atom, float]:
        return dict(self._slots.get(slot, {}))

    def slots(self) -> list[Slot]:
        return sorted(self._slots, key=lambda s: (s.kind, str(s.subject), s.attribute, str(s.fact)))

    def items(self) -> list[tuple[Atom, float]]:
        """Every atom with its probability, in text order."""
        pairs = [(atom, p) for dist in self._slots.values() for atom, p in dist.items()]
        return sorted(pairs, key=lambda pair: str(pair[0]))

    def believed(self, threshold: float) -> dict[Slot, Atom]:
        """Per slot, the most probable atom if its probability reaches ``threshold``."""
        out: dict[Slot, Atom] = {}
        for slot, dist in self._slots.items():
            best = max(dist.items(), key=lambda pair: (pair[1], str(pair[0])), default=None)
            if best is not None and best[1] >= threshold:
                out[slot] = best[0]
        return out

    def _store(self, slot: Slot, dist: dict[Atom, float]) -> None:
        dist = {atom: p for atom, p in dist.items() if p > _NEGLIGIBLE}
        if dist:
            self._slots[slot] = dist
        else:
            self._slots.pop(slot, None)

    def observe_true(self, atom: Atom) -> None:
        """Seen: certain, and nothing else of its slot."""
        self._slots[self.slot(atom)] = {atom: 1.0}

    def observe_false(self, atom: Atom) -> None:
        """Seen not to hold: Bayes' rule with a likelihood of 0 for ``atom`` and 1 elsewhere."""
        slot = self.slot(atom)
        dist = self._slots.get(slot)
        if not dist or atom not in dist:
            return
        removed = dist.pop(atom)
        if removed >= 1.0 - _NEGLIGIBLE:  # it was certain: nothing is left to renormalize
            self._store(slot, {})
            return
        self._store(slot, {other: p / (1.0 - removed) for other, p in dist.items()})

    def blend(self, atom: Atom, weight: float) -> None:
        """Evidence of strength ``weight`` in [0, 1]: p' = weight * delta(atom) + (1 - weight) * p."""
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"blend weight {weight!r}: expected a probability in [0, 1]")
        slot = self.slot(atom)
        dist = {other: (1.0 - weight) * p for other, p in self._slots.get(slot, {}).items()}
        dist[atom] = dist.get(atom, 0.0) + weight
        self._store(slot, dist)

    def set(self, atom: Atom, p: float) -> None:
        """Set one probability as is (restoring a snapshot); the slot's total must stay <= 1."""
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"probability {p!r} of {atom}: expected a value in [0, 1]")
        slot = self.slot(atom)
        dist = dict(self._slots.get(slot, {}))
        dist[atom] = p
        if sum(dist.values()) > 1.0 + 1e-3:  # a little over 1 comes from rounded snapshots
            raise ValueError(f"probabilities of the {slot.describe()} sum to more than 1")
        self._store(slot, dist)

    def set_candidates(self, atoms: Iterable[Atom], weights: Iterable[float] | None = None) -> None:
        """A prior over the values of one slot, e.g. the rooms where an object may be; the
        weights (uniform if not given) are normalized to 1 and replace the slot's belief."""
        atoms = list(atoms)
        if not atoms:
            raise ValueError("set_candidates needs at least one candidate atom")
        slots = {self.slot(atom) for atom in atoms}
        if len(slots) != 1:
            raise ValueError("candidates must share one slot, got "
                             + ", ".join(sorted(s.describe() for s in slots)))
        weights = [1.0] * len(atoms) if weights is None else [float(w) for w in weights]
        if len(weights) != len(atoms) or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError("weights: expected one non-negative weight per candidate, not all 0")
        total = sum(weights)
        dist: dict[Atom, float] = {}
        for atom, w in zip(atoms, weights):
            dist[atom] = dist.get(atom, 0.0) + w / total
        self._store(slots.pop(), dist)


# --------------------------------------------------------------------------- rules

@dataclass(frozen=True, slots=True)
class BeliefRule:
    """One belief rule: its name, what it says, and whether it is applied."""

    name: str
    text: str
    enabled: bool = True


DEFAULT_RULES: tuple[BeliefRule, ...] = (
    BeliefRule("observed_is_believed",
               "What an agent observes it believes for certain, and it replaces what the agent "
               "believed of the same slot: an object seen at one place is no longer believed at "
               "another (Section 3.2, visual observation)."),
    BeliefRule("sees_place",
               "An agent AT or IN a room sees everything located there, and inside whatever is "
               "located there unless it is closed; what it believed there but does not see is "
               "ruled out, and the rest of that belief is renormalized."),
    BeliefRule("seen_partner_sees_too",
               "A collaborator seen in the observer's room sees what the observer sees there: "
               "the observer believes the collaborator believes it (a partner is seen only in "
               "the same room)."),
    BeliefRule("sender_believes_message",
               "After B tells A x, A believes B believes x (Section 3.1: the message 'I found an "
               "apple in the kitchen' becomes a first-order belief)."),
    BeliefRule("trust_message",
               "After B tells A x, A believes x with the receiver's trust blended into its prior."),
    BeliefRule("told_is_believed",
               "After A tells B x, A believes B believes x."),
)


@dataclass(frozen=True, slots=True)
class BeliefRules:
    """The rules a belief world applies; ``without("trust_message")`` makes a sceptic."""

    rules: tuple[BeliefRule, ...] = DEFAULT_RULES
    _enabled: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        known = {rule.name for rule in DEFAULT_RULES}
        for rule in self.rules:
            if rule.name not in known:
                raise ValueError(f"belief rule {rule.name!r}: unknown (known: "
                                 f"{', '.join(sorted(known))})")
        object.__setattr__(self, "_enabled", frozenset(r.name for r in self.rules if r.enabled))

    def enabled(self, name: str) -> bool:
        return name in self._enabled

    def without(self, *names: str) -> "BeliefRules":
        unknown = set(names) - {rule.name for rule in self.rules}
        if unknown:
            raise ValueError(f"belief rules {sorted(unknown)}: not in this rule set")
        return BeliefRules(tuple(BeliefRule(r.name, r.text, r.enabled and r.name not in names)
                                 for r in self.rules))

    def texts(self) -> list[str]:
        """The enabled rules in words, e.g. for a prompt."""
        return [rule.text for rule in self.rules if rule.enabled]


# --------------------------------------------------------------------------- misalignment

@dataclass(frozen=True, slots=True)
class Mark:
    """Where a misalignment shows in one agent's belief panel.

    ``text`` is a statement of that agent's snapshot (``order`` 0: its zero-order list; 1: its
    first-order list about ``about``); ``present`` is False when the agent holds no such belief
    and ``text`` is what it lacks."""

    agent: str
    order: int
    about: str | None
    text: str
    present: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "order": self.order, "about": self.about,
                "text": self.text, "present": self.present}


@dataclass(frozen=True, slots=True)
class Misalignment:
    """One belief misalignment between ``agents[0]`` (A) and ``agents[1]`` (B).

    kinds, between two minds (:func:`misalignments`):
      ``conflict``      A believes X, B believes not-X (another value of the same slot);
      ``false_belief``  A believes B believes X, B does not believe X.
    kinds, as A perceives them in its own world (:meth:`BeliefWorld.perceived_misalignments`):
      ``perceived_conflict``  A believes X and believes B believes not-X;
      ``unaware``             A believes X and does not believe B believes X.
    """

    kind: Literal["conflict", "false_belief", "perceived_conflict", "unaware"]
    agents: tuple[str, str]
    topic: str
    marks: tuple[Mark, ...]
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "agents": list(self.agents), "topic": self.topic,
                "marks": [mark.to_json() for mark in self.marks], "summary": self.summary}


# --------------------------------------------------------------------------- belief world

def _agent(name: str | Agent, what: str) -> Agent:
    if isinstance(name, Agent):
        return name
    try:
        return Agent(name)
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None


class BeliefWorld:
    """One agent's collaborative belief world: zero-order beliefs and a model per collaborator.

    ``trust`` is the weight a received message gets against the receiver's prior;
    ``threshold`` the probability from which a belief counts as held (misalignments).
    """

    def __init__(self, owner: str | Agent, collaborators: Iterable[str | Agent], *,
                 vocabulary: Vocabulary = DEFAULT_VOCABULARY,
                 rules: BeliefRules = BeliefRules(), trust: float = 0.9, threshold: float = 0.5):
        self.owner = _agent(owner, "owner")
        self.collaborators = tuple(_agent(c, "collaborator") for c in collaborators)
        if self.owner in self.collaborators or len(set(self.collaborators)) != len(self.collaborators):
            raise ValueError("collaborators: expected distinct agents other than the owner")
        if not 0.0 <= trust <= 1.0 or not 0.0 < threshold <= 1.0:
            raise ValueError(f"trust {trust!r} must be in [0, 1] and threshold {threshold!r} in (0, 1]")
        self.vocabulary, self.rules, self.trust, self.threshold = vocabulary, rules, trust, threshold
        self.zero = BeliefStore(vocabulary)
        self.first: dict[str, BeliefStore] = {c.name: BeliefStore(vocabulary) for c in self.collaborators}
        self._last_snapshot: dict[str, float] = {}

    @property
    def name(self) -> str:
        return self.owner.name

    def copy(self) -> "BeliefWorld":
        twin = BeliefWorld(self.owner, self.collaborators, vocabulary=self.vocabulary,
                           rules=self.rules, trust=self.trust, threshold=self.threshold)
        twin.zero = self.zero.copy()
        twin.first = {name: store.copy() for name, store in self.first.items()}
        twin._last_snapshot = dict(self._last_snapshot)
        return twin

    def model_of(self, collaborator: str | Agent) -> BeliefStore:
        """What the owner believes ``collaborator`` believes."""
        name = collaborator.name if isinstance(collaborator, Agent) else collaborator
        if name not in self.first:
            raise KeyError(f"{name!r} is not a collaborator of {self.name} "
                           f"(collaborators: {', '.join(self.first) or 'none'})")
        return self.first[name]

    # ---- observations --------------------------------------------------------------------

    def observe(self, facts: Iterable[Atom], *, seen_places: Iterable[Entity] | None = None) -> None:
        """Update from what the owner sees now.

        ``facts`` are the atoms observed true. ``seen_places`` are the places whose whole
        contents were in view; when not given, the ``sees_place`` rule derives them from the
        facts (the owner's room and every open thing located in it)."""
        facts = list(dict.fromkeys(facts))
        for fact in facts:
            if not isinstance(fact, (Relation, Property)):
                raise TypeError(f"observe: expected SBL atoms, got {fact!r}")
        if seen_places is not None:
            visible = set(seen_places)
        elif self.rules.enabled("sees_place"):
            visible = self._visible_places(facts)
        else:
            visible = set()
        if self.rules.enabled("observed_is_believed"):
            self._apply_observation(self.zero, facts, visible)
        if self.rules.enabled("seen_partner_sees_too") and visible:
            for collaborator in self.collaborators:
                here = any(slot_of(f, self.vocabulary) == Slot("place", collaborator)
                           and value_of(f, self.vocabulary) in visible for f in facts)
                if here:
                    self._apply_observation(self.first[collaborator.name], facts, visible)

    def _visible_places(self, facts: list[Atom]) -> set[Entity]:
        located: dict[Entity, Entity] = {}
        closed: set[Entity] = set()
        for fact in facts:
            slot = slot_of(fact, self.vocabulary)
            if slot.kind == "place":
                place = value_of(fact, self.vocabulary)
                assert isinstance(place, (Agent, Thing))
                located[slot.subject] = place
            elif isinstance(fact, Property) and fact.attribute == OPEN_STATE and fact.state == CLOSED:
                closed.add(fact.subject)
        room = located.get(self.owner)
        if room is None:  # not knowing where it is, the owner cannot tell what is absent
            return set()
        visible: set[Entity] = {room}
        grew = True
        while grew:  # what is located in a visible, open place shows its contents too
            grew = False
            for entity, place in located.items():
                if place in visible and entity not in visible and entity not in closed:
                    visible.add(entity)
                    grew = True
        return visible

    def _apply_observation(self, store: BeliefStore, facts: list[Atom], visible: set[Entity]) -> None:
        observed_slots = set()
        for fact in facts:
            store.observe_true(fact)
            observed_slots.add(store.slot(fact))
        if not visible:
            return
        for slot in list(store.slots()):
            if slot.kind != "place" or slot in observed_slots:
                continue
            for atom in list(store.distribution(slot)):
                if value_of(atom, self.vocabulary) in visible:
                    store.observe_false(atom)

    def set_candidates(self, entity: Entity, atoms: Iterable[Atom],
                       weights: Iterable[float] | None = None) -> None:
        """A prior over where ``entity`` is (atoms placing it), e.g. uniform over unexplored rooms."""
        atoms = list(atoms)
        for atom in atoms:
            if slot_of(atom, self.vocabulary) != Slot("place", entity):
                raise ValueError(f"candidate {atom} does not state the place of {entity}")
        self.zero.set_candidates(atoms, weights)

    def location(self, entity: Entity) -> dict[Atom, float]:
        """The owner's distribution over the places of ``entity`` (mass not listed: unknown)."""
        return self.zero.distribution(Slot("place", entity))

    # ---- messages ------------------------------------------------------------------------

    def _claims(self, speaker: Agent, statements: Iterable[Statement]) -> tuple[list[Atom], list[Statement]]:
        """The atoms ``speaker`` asserts as its own beliefs; the other statements."""
        claims: list[Atom] = []
        others: list[Statement] = []
        for statement in statements:
            if isinstance(statement, (Relation, Property)):
                claims.append(statement)
            elif isinstance(statement, Belief) and statement.holders == (speaker,):
                claims.append(statement.atom)
            elif isinstance(statement, Belief):
                others.append(statement)
            else:
                raise TypeError(f"expected SBL statements, got {statement!r}")
        return claims, others

    def receive(self, sender: str | Agent, statements: Iterable[Statement]) -> tuple[Statement, ...]:
        """Update from a message of ``sender``; returns the statements no rule used (beliefs
        about what others believe, which a first-order world does not hold)."""
        sender = _agent(sender, "sender")
        claims, unused = self._claims(sender, statements)
        model = self.first.get(sender.name)
        for atom in claims:
            if model is not None and self.rules.enabled("sender_believes_message"):
                model.observe_true(atom)
            if self.rules.enabled("trust_message"):
                self.zero.blend(atom, self.trust)
        return tuple(unused)

    def send(self, recipients: Iterable[str | Agent], statements: Iterable[Statement]) -> None:
        """Update after the owner told ``recipients`` these statements."""
        claims, _ = self._claims(self.owner, statements)
        if not self.rules.enabled("told_is_believed"):
            return
        for recipient in recipients:
            model = self.first.get(_agent(recipient, "recipient").name)
            if model is not None:
                for atom in claims:
                    model.observe_true(atom)

    # ---- reading ---------------------------------------------------------------------------

    def statements(self) -> list[tuple[Belief, float]]:
        """Every belief as an SBL statement with its probability: zero-order, then first-order."""
        out = [(Belief((self.owner,), atom), p) for atom, p in self.zero.items()]
        for collaborator in self.collaborators:
            out += [(Belief((self.owner, collaborator), atom), p)
                    for atom, p in self.first[collaborator.name].items()]
        return out

    def perceived_misalignments(self, topics: Iterable[Entity] | None = None) -> list[Misalignment]:
        """Misalignments the owner can see in its own world, per collaborator B:
        ``perceived_conflict`` (it believes X, and that B believes not-X) for every slot, and
        ``unaware`` (it believes X, and not that B believes X) for slots about ``topics``."""
        topic_set = set(topics) if topics is not None else set()
        mine = self.zero.believed(self.threshold)
        out: list[Misalignment] = []
        a = self.name
        for collaborator in self.collaborators:
            b = collaborator.name
            theirs = self.first[b].believed(self.threshold)
            for slot in sorted(mine, key=_slot_order):
                x = mine[slot]
                x_text = str(Belief((self.owner,), x))
                other = theirs.get(slot)
                if other is not None and value_of(other, self.vocabulary) != value_of(x, self.vocabulary):
                    other_text = str(Belief((self.owner, collaborator), other))
                    out.append(Misalignment(
                        "perceived_conflict", (a, b), slot.describe(),
                        (Mark(a, 0, None, x_text), Mark(a, 1, b, other_text)),
                        f"{a} believes {x}, and that {b} believes {other}"))
                elif other is None and slot.subject in topic_set:
                    out.append(Misalignment(
                        "unaware", (a, b), slot.describe(),
                        (Mark(a, 0, None, x_text),
                         Mark(a, 1, b, str(Belief((self.owner, collaborator), x)), present=False)),
                        f"{a} believes {x}; it does not believe {b} knows"))
        return out

    # ---- snapshots -------------------------------------------------------------------------

    def to_snapshot(self, *, topics: Iterable[Entity] | None = None, mark: bool = True) -> SymbolicBeliefs:
        """The ``symbolic_beliefs`` belief snapshot of this world (see docs/cobel.md).

        ``changed`` and ``removed`` compare with the previous snapshot taken with ``mark=True``."""
        zero = [_entry(belief, p) for belief, p in
                ((Belief((self.owner,), atom), p) for atom, p in self.zero.items())]
        zero = [entry for entry in zero if entry["p"] > 0]
        first: dict[str, list[dict[str, Any]]] = {}
        for collaborator in self.collaborators:
            entries = [_entry(Belief((self.owner, collaborator), atom), p)
                       for atom, p in self.first[collaborator.name].items()]
            first[collaborator.name] = [entry for entry in entries if entry["p"] > 0]
        current = {entry["text"]: entry["p"] for entry in zero}
        current.update({entry["text"]: entry["p"] for entries in first.values() for entry in entries})
        changed = sorted(text for text, p in current.items() if self._last_snapshot.get(text) != p)
        removed = sorted(text for text in self._last_snapshot if text not in current)
        if mark:
            self._last_snapshot = current
        return SymbolicBeliefs(agent=self.name, zero_order=zero, first_order=first, changed=changed, removed=removed,
                               misaligned=[m.to_json() for m in self.perceived_misalignments(topics)])

    @classmethod
    def from_snapshot(cls, data: SymbolicBeliefs | Mapping[str, Any], *, vocabulary: Vocabulary = DEFAULT_VOCABULARY,
                      threshold: float = 0.5) -> "BeliefWorld":
        """The belief world a snapshot (or its recorded dict) shows (e.g. to compare two agents'
        minds in a viewer)."""
        if isinstance(data, SymbolicBeliefs):
            data = data.to_dict()
        try:
            owner = _agent(data["agent"], "snapshot 'agent'")
            first_order = data.get("first_order", {})
            world = cls(owner, list(first_order), vocabulary=vocabulary, threshold=threshold)
            _restore(world.zero, data.get("zero_order", []), (owner,), "zero_order", vocabulary)
            for name, entries in first_order.items():
                _restore(world.first[name], entries, (owner, Agent(name)),
                         f"first_order.{name}", vocabulary)
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"not a {SNAPSHOT_KIND} snapshot: {error!r}") from None
        return world


def _slot_order(slot: Slot) -> tuple[str, str, str, str]:
    return (slot.kind, str(slot.subject), slot.attribute, str(slot.fact))


def _entry(belief: Belief, p: float) -> dict[str, Any]:
    return {"text": str(belief), "atom": str(belief.atom), "p": round(p, _P_DECIMALS)}


def _restore(store: BeliefStore, entries: Sequence[Mapping[str, Any]], holders: tuple[Agent, ...],
             where: str, vocabulary: Vocabulary) -> None:
    for index, entry in enumerate(entries):
        try:
            belief = parse(entry["text"], vocabulary=vocabulary, source=f"{where}[{index}]")
        except SBLError as error:
            raise ValueError(str(error)) from None
        if not isinstance(belief, Belief) or belief.holders != holders:
            raise ValueError(f"{where}[{index}]: expected a belief held by "
                             f"{' BELIEVE '.join(h.name for h in holders)}, got {entry['text']!r}")
        store.set(belief.atom, min(1.0, float(entry["p"])))


# --------------------------------------------------------------------------- two minds

def misalignments(a: BeliefWorld, b: BeliefWorld) -> list[Misalignment]:
    """Misalignments between two agents' actual minds: ``conflict`` (A believes X, B believes
    not-X) and ``false_belief`` in both directions (A believes B believes X, B does not)."""
    out: list[Misalignment] = []
    vocabulary = a.vocabulary
    held = {a.name: a.zero.believed(a.threshold), b.name: b.zero.believed(b.threshold)}
    for slot in sorted(set(held[a.name]) & set(held[b.name]), key=_slot_order):
        x, y = held[a.name][slot], held[b.name][slot]
        if value_of(x, vocabulary) != value_of(y, vocabulary):
            out.append(Misalignment(
                "conflict", (a.name, b.name), slot.describe(),
                (Mark(a.name, 0, None, str(Belief((a.owner,), x))),
                 Mark(b.name, 0, None, str(Belief((b.owner,), y)))),
                f"{a.name} believes {x}; {b.name} believes {y}"))
    for holder, other in ((a, b), (b, a)):
        if other.name not in holder.first:
            continue
        modelled = holder.first[other.name].believed(holder.threshold)
        actual = held[other.name]
        for slot in sorted(modelled, key=_slot_order):
            x = modelled[slot]
            y = actual.get(slot)
            if other.zero.p(x) >= other.threshold or (
                    y is not None and value_of(y, vocabulary) == value_of(x, vocabulary)):
                continue
            other_mark = (Mark(other.name, 0, None, str(Belief((other.owner,), y))) if y is not None
                          else Mark(other.name, 0, None, str(Belief((other.owner,), x)), present=False))
            out.append(Misalignment(
                "false_belief", (holder.name, other.name), slot.describe(),
                (Mark(holder.name, 1, other.name, str(Belief((holder.owner, other.owner), x))),
                 other_mark),
                f"{holder.name} believes {other.name} believes {x}; "
                + (f"{other.name} believes {y}" if y is not None else f"{other.name} does not")))
    return out


def team_misalignments(snapshots: Sequence[SymbolicBeliefs | Mapping[str, Any]], *,
                       vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> list[dict[str, Any]]:
    """Misalignments between every pair of agents whose ``symbolic_beliefs`` snapshots are given
    (as JSON, each with ``marks`` in both agents' views); for a viewer that sees every mind."""
    worlds = [BeliefWorld.from_snapshot(s, vocabulary=vocabulary) for s in snapshots]
    out: list[dict[str, Any]] = []
    for i, a in enumerate(worlds):
        for b in worlds[i + 1:]:
            out += [m.to_json() for m in misalignments(a, b)]
    return out
