"""ProToM in the partially observable kitchen (seed 003: Sections 3-4, Appendix A.1, A.2, B.1, B.2).

- Goals: the three recipes, for every cook (two cooks may want the same dish).
- Beliefs (Eqs. 6-7): a belief state is what one cook believes lies on every station: the
  stations it sees now hold what they hold, and so does a station out of view that holds what
  the cook last saw there. A station out of view that the cook has never seen (rules 2), or whose
  contents changed since it last saw them, holds what the cook last saw there (``unknown`` if
  never seen; under rules 1 what the level put there) with probability ``stale``; otherwise what
  the cook might believe is there, drawn from ``content_prior`` (``CONTENT_PRIORS``: by default
  the level's own mix of contents at the start, "nothing" included, so mostly wrong or empty).
  Each step the particle takes what the cook watched change; a station that comes into view
  holding something else than the particle believed makes the particle incompatible, and it is
  drawn again (Algorithm 1, line 7); the generic half weighs each particle by the likelihood of
  the cook's actions in its belief and resamples when the weights degenerate
  (``core.GoalInference``).
- Likelihood (Eq. 8): the simulated human's model (``agents/kitchen/heuristic.py``) under the
  particle's belief: for a goal, the subtask it would choose (deliver, get a plate, chop, fetch,
  put down) gives the stations it walks to; Q_g(a) = 1 + the steps left to the nearest of them
  after action a; P(a | g) = (1 - noise) * softmax(-Q_g / temperature) + noise * uniform over
  the actions that work no station (the heuristic's random step). Waiting: a cook that stands
  still may be waiting (for help, for the other cook) whatever its dish, so a ``stay`` weighs
  with the likelihood raised to ``stay_evidence`` (0 by default: it tells nothing about the dish).
- Candidates (Appendix A.2), from the full state: Pass(i, item, j) for every ingredient or plate
  on a station agent i can reach, to a cook j that has not delivered, over an empty counter both
  can reach (off the layout's border first, then the least walking for the two); Pickup(i, item)
  where the same item lies on another station too (an alternative, to resolve a race).
- Cost (Eq. 14, Algorithm 2): C(f, g) = the episode length predicted by a simulated plan
  (``KitchenRollouts``), capped at the ticks left.
- Divergence: the expected Jensen-Shannon divergence between the target's action distributions
  with and without the feedback, over its particles and goal posterior (``core.divergence``).
- Explanations: the templates of Appendix B.2.

``scenario_category`` computes a level's category (not_needed, useful, necessary) from the
same simulated plans; ``check_categories`` verifies declared categories before an experiment.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from agents.params import BelowOne, Positive, Probability
from agents.protom.categories import CategoryError  # a level whose category is unclear or mis-declared
from agents.protom.core import AgentBelief, Candidate, Goal, Message, ProToMAdapter, Rollout
from sim.kitchen.level import RECIPES
from sim.kitchen.world import (
    ACTIONS,
    BOARD,
    COUNTER,
    DELIVERY,
    INTERACT,
    ITEM_NAMES,
    N_ITEMS,
    NOTHING,
    PICKUP,
    PLATE,
    PUT_DOWN,
    RECIPE_DISH,
    UNKNOWN,
    KitchenState,
    KitchenWorld,
    is_chopped,
    is_fresh,
)
from sim.snapshots import Particles
from sim.world import AgentId

_FAR = 10_000

# --------------------------------------------------------------------------- simulated plans


#: a feedback as the simulated plans carry it out: (agent index, "pickup" | "pass", item code,
#: source station, via station or -1)
Plan = tuple[int, str, int, int, int]
#: per cook, what it believes lies on every station (``UNKNOWN``: never seen)
Beliefs = tuple[tuple[int, ...], ...]


class KitchenRollouts:
    """Simulated plans of the kitchen's simulated humans, without their noise: ProToM's C(f, g).

    Every cook follows the heuristic's subtask rules (``agents/kitchen/heuristic.py``) on the
    true contents of the stations: deliver its dish; with its chopped ingredient get a plate;
    with a plate merge with its chopped ingredient (else put the plate down); with its fresh
    ingredient chop on an empty board; put down anything else on an empty counter; with empty
    hands fetch its dish, else its chopped, else its fresh ingredient. The nearest reachable
    station wins (lowest index among ties) and a chosen station is kept while it stays valid.
    A cook with a feedback first carries it out as the heuristic does (put down what it holds,
    take the item, for a Pass leave it on the ``via`` counter), then resumes its goal. A cook
    with nothing to do waits where it is.

    With ``beliefs`` (rules 2) each cook chooses on what it believes, not on the truth: it takes
    in what it sees from every cell it stands on (its room), goes for what it believes is there,
    chooses again when what it sees differs, and when nothing it needs is known walks towards the
    nearest station it has never seen (the heuristic's exploring). A feedback tells its target
    where the item lies (and that the ``via`` counter is free).

    Cooks walk shortest paths (``station_dist``) and, with ``collisions: share``, never block
    one another, so the simulation jumps from one station interaction (or, with beliefs, one
    change of what a cook sees) to the next. Two cooks
    working one station in the same tick would clash in the world; here the lower index works
    it and the other tries again the next tick (the noise of real cooks breaks such ties).
    Levels with ``collisions: block`` are simulated the same way (blocking is ignored).
    """

    def __init__(self, world: KitchenWorld, max_cached: int = 200_000) -> None:
        self.world = world
        self.dist = world.station_dist
        self.kind = world.station_kind
        self.horizon = world.t_max
        self._hops: dict[int, list[int]] = {}
        self._sight: dict[int, list[int]] = {}
        self._order: dict[int, tuple[int, ...]] = {}
        self._cache: dict[tuple, tuple[int | None, ...]] = {}
        self._max_cached = max_cached
        self.stats = {"rollouts": 0, "hits": 0, "events": 0}

    def hops(self, s: int) -> list[int]:
        """For every cell, the next cell of a shortest way towards working station ``s`` (the
        cell itself next to ``s`` or where ``s`` cannot be reached); first move up, down, left, right."""
        hops = self._hops.get(s)
        if hops is None:
            w = self.world
            dist = self.dist[s]
            hops = list(range(len(dist)))
            for cell, d in enumerate(dist):
                if d > 1:
                    for a in range(4):
                        n = w.trans[cell * 5 + a]
                        if n >= 0 and n != cell and dist[n] == d - 1:
                            hops[cell] = n
                            break
            self._hops[s] = hops
        return hops

    def sight_change(self, s: int) -> list[int]:
        """For every cell, the moves along ``hops(s)`` until the walker sees something else (enters
        another room or a door); ``_FAR`` when it works ``s`` first."""
        found = self._sight.get(s)
        if found is None:
            view, dist, hops = self.world.view, self.dist[s], self.hops(s)
            found = [_FAR] * len(dist)
            for cell in sorted((c for c, d in enumerate(dist) if d > 1), key=lambda c: dist[c]):
                nxt = hops[cell]
                found[cell] = 1 if view[nxt] != view[cell] else min(_FAR, 1 + found[nxt])
            self._sight[s] = found
        return found

    def run(self, state: KitchenState, dishes: tuple[int, ...], plan: Plan | None = None,
            beliefs: Beliefs | None = None) -> Rollout:
        """Roll out from ``state`` with goal dish codes ``dishes`` (one per cook) and an optional
        feedback ``plan``; capped at the ticks left in the episode. ``beliefs``: what each cook
        believes lies on every station (``UNKNOWN`` where it has never looked); None: every cook
        knows the true contents throughout (rules 1)."""
        key = (state.positions, state.held, state.contents, state.delivered, dishes, plan, beliefs)
        finish = self._cache.get(key)
        if finish is None:
            finish = self._simulate(state, dishes, plan, beliefs)
            if len(self._cache) >= self._max_cached:
                self._cache.clear()
            self._cache[key] = finish
        else:
            self.stats["hits"] += 1
        return Rollout(finish, self.horizon).capped(max(0, self.world.t_max - state.t))

    # ----------------------------------------------------------------- simulation

    def _nearest(self, here: int, stations: Iterable[int], keep: int | None) -> int | None:
        dist = self.dist
        best, best_d = None, _FAR
        for s in stations:
            d = dist[s][here]
            if d < 0:
                continue
            if s == keep:
                return s
            if d < best_d:
                best, best_d = s, d
        return best

    def order(self, here: int) -> tuple[int, ...]:
        """The stations reachable from cell ``here``, nearest first (lowest index among ties): the
        order in which ``_nearest`` prefers them."""
        found = self._order.get(here)
        if found is None:
            dist = self.dist
            found = self._order[here] = tuple(sorted((s for s in range(len(dist)) if dist[s][here] >= 0),
                                                     key=lambda s: (dist[s][here], s)))
        return found

    def _first(self, here: int, contents: Sequence[int], value: int, kind: int | None, keep: int | None,
               skip: int | None = None) -> int | None:
        """``_nearest`` over the stations holding ``value`` (and of kind ``kind`` when given, other
        than ``skip``): ``keep`` when it is one of them and reachable, else the first in ``order``."""
        kinds = self.kind
        if (keep is not None and contents[keep] == value and (kind is None or kinds[keep] == kind)
                and keep != skip and self.dist[keep][here] >= 0):
            return keep
        for s in self.order(here):
            if contents[s] == value and (kind is None or kinds[s] == kind) and s != skip:
                return s
        return None

    def _explore(self, here: int, belief: Sequence[int]) -> int | None:
        """The nearest reachable station the cook has never seen (not a delivery station)."""
        kind = self.kind
        for s in self.order(here):
            if belief[s] == UNKNOWN and kind[s] != DELIVERY:
                return s
        return None

    def _goal_target(self, here: int, held: int, dish: int, contents: Sequence[int], keep: int | None) -> int | None:
        chopped, fresh = dish - 1, dish - 2
        first = self._first
        if held == dish:
            return self._nearest(here, self.world.deliveries, keep)
        if held == chopped:
            return first(here, contents, PLATE, None, keep)
        if held == PLATE:
            s = first(here, contents, chopped, None, keep)
            if s is not None:
                return s
            return first(here, contents, NOTHING, COUNTER, keep)
        if held == fresh:
            return first(here, contents, NOTHING, BOARD, keep)
        if held != NOTHING:
            return first(here, contents, NOTHING, COUNTER, keep)
        for item in (dish, chopped, fresh):
            s = first(here, contents, item, None, keep)
            if s is not None:
                return s
        return None

    def _simulate(self, state: KitchenState, dishes: tuple[int, ...], plan: Plan | None,
                  beliefs: Beliefs | None = None) -> tuple[int | None, ...]:
        self.stats["rollouts"] += 1
        dist, kind = self.dist, self.kind
        n = len(dishes)
        cells = list(state.positions)
        hands = list(state.held)
        contents = list(state.contents)
        visible = self.world.visible_stations
        # what each cook believes (the true contents themselves when beliefs are not modelled)
        bel: list[list[int]] = [contents] * n if beliefs is None else [list(b) for b in beliefs]
        if beliefs is not None and plan is not None:  # the feedback tells where the item lies
            bel[plan[0]][plan[3]] = plan[2]
            if plan[4] >= 0 and bel[plan[0]][plan[4]] == UNKNOWN:
                bel[plan[0]][plan[4]] = NOTHING
        finish: list[int | None] = [0 if d >= 0 else None for d in state.delivered]
        task: list[Plan | None] = [None] * n
        picked = [False] * n
        if plan is not None:
            task[plan[0]] = plan
        target: list[int | None] = [None] * n
        togo = [0] * n
        now, horizon = 0, self.horizon
        while True:
            step = _FAR
            if beliefs is not None:  # every cook takes in what it sees where it stands
                for i in range(n):
                    mine = bel[i]
                    for x in visible[cells[i]]:
                        if mine[x] != contents[x]:
                            mine[x] = contents[x]
                            if target[i] == x:
                                target[i] = None  # not what it expected there: choose again
            for i in range(n):
                here, held = cells[i], hands[i]
                mine = bel[i]
                keep = target[i]
                s = None
                t = task[i]
                if t is not None:
                    _, verb, item, source, via = t
                    if not picked[i]:
                        if mine[source] != item or dist[source][here] < 0:
                            task[i] = None
                        elif held != NOTHING:
                            s = self._first(here, mine, NOTHING, COUNTER, keep, skip=source)
                            if s is None:
                                task[i] = None
                        else:
                            s = source
                    elif mine[via] == NOTHING and dist[via][here] >= 0 and held == item:
                        s = via
                    else:
                        task[i] = None
                if task[i] is None and finish[i] is None:
                    s = self._goal_target(here, held, dishes[i], mine, keep)
                    if s is None and beliefs is not None:
                        s = self._explore(here, mine)
                target[i] = s
                if s is not None:
                    d = togo[i] = dist[s][here]
                    if beliefs is not None and d > 1:
                        d = min(d, self.sight_change(s)[here])  # it may see something new on the way
                    if d < step:
                        step = d
            if step == _FAR or now + step > horizon:
                break
            self.stats["events"] += 1
            now += step
            worked: set[int] = set()
            acting = []
            for i in range(n):
                s = target[i]
                if s is None:
                    continue
                if togo[i] > step:
                    hops = self.hops(s)
                    c = cells[i]
                    for _ in range(step):
                        c = hops[c]
                    cells[i] = c
                    continue
                if step > 1:
                    hops = self.hops(s)
                    c = cells[i]
                    for _ in range(step - 1):
                        c = hops[c]
                    cells[i] = c
                if s not in worked:  # a clash: the lower index works it, the other tries again
                    worked.add(s)
                    acting.append(i)
            for i in acting:
                s = target[i]
                held = hands[i]
                if kind[s] == DELIVERY:
                    if held == dishes[i] and finish[i] is None:
                        finish[i] = now
                        hands[i] = NOTHING
                        target[i] = None
                    continue
                out = INTERACT[(kind[s] * N_ITEMS + held) * N_ITEMS + contents[s]]
                if out is None:
                    continue
                hands[i], contents[s], what = out
                target[i] = None  # done with this station: choose afresh
                t = task[i]
                if t is not None:
                    if not picked[i] and s == t[3] and what == PICKUP:
                        picked[i] = True
                        if t[1] == "pickup":
                            task[i] = None
                    elif picked[i] and s == t[4] and what == PUT_DOWN:
                        task[i] = None
            if all(f is not None for f in finish) and all(t is None for t in task):
                break
        return tuple(finish)


_ROLLOUTS: "weakref.WeakKeyDictionary[KitchenWorld, KitchenRollouts]" = weakref.WeakKeyDictionary()


def rollouts_for(world: KitchenWorld) -> KitchenRollouts:
    """One memoized rollout engine per world, shared by every facilitator on it."""
    engine = _ROLLOUTS.get(world)
    if engine is None:
        engine = _ROLLOUTS[world] = KitchenRollouts(world)
    return engine


# --------------------------------------------------------------------------- the adapter


def content_prior_of(world: KitchenWorld, prior: str) -> tuple[tuple[int, ...], np.ndarray]:
    """The contents a cook may believe an uncertain station holds and their probabilities
    (``CONTENT_PRIORS``), from the level's stations (counters and boards) at the start."""
    start = world.initial_state.contents
    held = [c for s, c in enumerate(start) if world.station_kind[s] != DELIVERY]
    items = sorted({c for c in held if c != NOTHING})
    contents = (NOTHING, *items)
    if prior == "uniform":
        return contents, np.full(len(contents), 1.0 / len(contents))
    counts = np.array([sum(1 for c in held if c == x) for x in contents], dtype=float)
    if counts.sum() <= 0:
        return (NOTHING,), np.ones(1)
    return contents, counts / counts.sum()


_PRONOUNS = {"alice": ("she", "her"), "bob": ("he", "him"), "carol": ("she", "her"), "dave": ("he", "him"),
             "erin": ("she", "her"), "frank": ("he", "him"), "grace": ("she", "her"), "heidi": ("she", "her"),
             "ivan": ("he", "him")}


def _name(agent: str) -> str:
    return agent[:1].upper() + agent[1:]


def _pronouns(agent: str) -> tuple[str, str]:
    return _PRONOUNS.get(agent, ("they", "them"))


#: why ProToM (and the facilitators built on its kitchen model) cannot play a level with orders
ORDERS_REFUSAL = ("protom: the level's orders are shared by all cooks (gym-cooking's rules); ProToM's kitchen "
                  "facilitator needs each cook's own goal")


#: the priors a particle draws a cook's belief about an uncertain station from (``content_prior``):
#: ``level``: the level's own mix of station contents at the start (every counter and board:
#: the share left empty, "nothing", and the share holding each item), i.e. what a cook that knows
#: this kind of kitchen expects an unseen counter to hold; ``uniform``: "nothing" and every item
#: the level holds at the start, equally likely
CONTENT_PRIORS = ("level", "uniform")


class KitchenAdapter(ProToMAdapter):
    defaults = {"phi": 2.0, "eps": 0.3, "particles": 5, "divergence": "js"}  # seed 003, B.1 (Overcooked)
    exclusive_goals = False
    particle_divergence = True

    def __init__(self, world: KitchenWorld, temperature: Positive = 0.5, noise: BelowOne = 0.1,
                 stale: Probability = 0.8, stay_evidence: Probability = 0.0,
                 content_prior: Literal[CONTENT_PRIORS] = "level") -> None:  # type: ignore[valid-type]
        if not isinstance(world, KitchenWorld):
            raise ValueError(f"ProToM's kitchen model needs the kitchen under its own rules, not under "
                             f"{getattr(world, 'rules', type(world).__name__)!r} rules")
        if world.orders:
            raise ValueError(ORDERS_REFUSAL)
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        if not 0 <= noise < 1:
            raise ValueError(f"noise must be in [0, 1), got {noise}")
        if not 0 <= stale <= 1:
            raise ValueError(f"stale must be in [0, 1], got {stale}")
        if not 0 <= stay_evidence <= 1:
            raise ValueError(f"stay_evidence must be in [0, 1], got {stay_evidence}")
        if content_prior not in CONTENT_PRIORS:
            raise ValueError(f"content_prior must be one of {', '.join(CONTENT_PRIORS)}, got {content_prior!r}")
        super().__init__(world)
        self.world: KitchenWorld = world
        self.rollouts = rollouts_for(world)
        self.temperature = float(temperature)
        self.noise = float(noise)
        self.stale = float(stale)
        #: the weight of what standing still tells about a cook's dish (the exponent of its
        #: likelihood): 0, a person who waits for help is not read as wanting another dish
        self.stay_evidence = float(stay_evidence)
        self.recipes: tuple[str, ...] = RECIPES
        w = world
        #: per agent, what it last saw on every station; where never seen, UNKNOWN (rules 2) or
        #: the level's contents (rules 1)
        self.memory: list[list[int]] = []
        start = w.initial_state
        for _ in range(w.n_agents):
            seen = list(start.contents) if w.rules < 2 else [UNKNOWN] * len(start.contents)
            self.memory.append(seen)
        self._memory_tick = -1
        self.content_prior = str(content_prior)
        #: (contents, probabilities) a particle draws an uncertain station's believed contents from
        self.prior_contents, self.prior_probs = content_prior_of(w, self.content_prior)
        self._prior_cdf = np.cumsum(self.prior_probs)
        self._border = tuple(w.rc(c)[0] in (0, w.height - 1) or w.rc(c)[1] in (0, w.width - 1)
                             for c in w.station_cells)
        self._calm = [tuple(a for a in range(5) if w.trans[cell * 5 + a] >= 0) for cell in range(len(w.walkable))]
        self._policy_cache: dict[tuple, np.ndarray] = {}

    # ---------------------------------------------------------------- goals

    def goals(self, agent: AgentId) -> tuple[Goal, ...]:
        return self.recipes

    def true_goals(self) -> dict[AgentId, Goal]:
        return dict(self.world.goals)

    # -------------------------------------------------------------- beliefs

    def visible(self, state: KitchenState, i: int) -> tuple[int, ...]:
        return self.world.visible_stations[state.positions[i]]

    def observe_step(self, before: KitchenState, joint_action: Mapping[AgentId, Any], after: KitchenState) -> None:
        """What every cook sees in ``after`` becomes what it last saw there."""
        if after.t == self._memory_tick:
            return
        self._memory_tick = after.t
        for i in range(self.world.n_agents):
            seen = self.memory[i]
            for s in self.visible(after, i):
                seen[s] = after.contents[s]

    def sample_belief(self, state: KitchenState, agent: AgentId, rng: np.random.Generator) -> KitchenState:
        """b ~ P(b | o) (Eq. 7): seen stations as they are, and so is an unseen one that holds
        what the cook last saw there. An unseen station it never saw, or whose contents changed
        since it last saw them, holds what it last saw (``unknown`` if never seen) with
        probability ``stale``, otherwise a draw from the content prior (``content_prior``):
        possibly the truth, possibly "nothing" or another item. Two draws per such station, in
        station order."""
        i = self.world.agent_index[agent]
        if state.t == 0 and self._memory_tick < 0:
            self.observe_step(state, {}, state)
        memory = self.memory[i]
        visible = set(self.visible(state, i))
        kind = self.world.station_kind
        contents = list(state.contents)
        for s, true in enumerate(state.contents):
            if s in visible or memory[s] == true or kind[s] == DELIVERY:
                continue
            if rng.random() < self.stale:
                contents[s] = memory[s]
            else:
                k = int(np.searchsorted(self._prior_cdf, rng.random() * self._prior_cdf[-1], side="right"))
                contents[s] = self.prior_contents[min(k, len(self.prior_contents) - 1)]
        return KitchenState(state.t, state.positions, state.held, tuple(contents), state.delivered)

    def known_beliefs(self, state: KitchenState) -> Beliefs:
        """What every cook has seen (``memory``; UNKNOWN where never seen): the belief of a cook
        that remembers everything it saw and guesses nothing."""
        if state.t == 0 and self._memory_tick < 0:
            self.observe_step(state, {}, state)
        return tuple(tuple(m) for m in self.memory)

    def cost_beliefs(self, state: KitchenState,
                     particles: Mapping[AgentId, Sequence[Any]] | None) -> list[tuple[float, Beliefs]] | None:
        """The cooks' belief states C(f, g) is computed under (rules 2; None under rules 1, where
        the plans use the true contents): the k-th particle of every cook together, k = 1..N,
        weighted by the product of their importance weights, equal joint beliefs merged; without particles (ProToM-Oracle) what
        every cook has seen (``known_beliefs``)."""
        if self.world.rules < 2:
            return None
        if not particles:
            return [(1.0, self.known_beliefs(state))]
        agents = self.world.agents
        n = min(len(particles[a]) for a in agents)
        merged: dict[Beliefs, float] = {}
        weights = [float(np.prod([particles[a][k].weight for a in agents])) for k in range(n)]
        total = sum(weights)
        for k in range(n):
            joint = tuple(particles[a][k].belief.contents for a in agents)
            merged[joint] = merged.get(joint, 0.0) + (weights[k] / total if total > 0 else 1.0 / n)
        return sorted(((w, b) for b, w in merged.items()), key=lambda wb: -wb[0])

    def update_belief(self, belief: KitchenState, before: KitchenState, joint_action: Mapping[AgentId, Any],
                      after: KitchenState, agent: AgentId) -> KitchenState | None:
        """Stations the cook watched (in view before and after) take their new contents; one
        that comes into view holding something else than believed makes the particle incompatible."""
        i = self.world.agent_index[agent]
        watched = set(self.visible(before, i))
        contents = list(belief.contents)
        for s in self.visible(after, i):
            if s in watched or contents[s] == UNKNOWN:
                contents[s] = after.contents[s]
            elif contents[s] != after.contents[s]:
                return None
        return KitchenState(after.t, after.positions, after.held, tuple(contents), after.delivered)

    def particles_snapshot(self, state: KitchenState, agent: AgentId, belief: AgentBelief) -> Particles:
        """What ``agent`` is believed to believe about the stations it does not see now:
        ``unseen``: one entry per (station, believed content) with the share of the particles'
        weight believing it (``weight``) and whether it is true (``true``); stations believed empty
        are listed only where something really lies."""
        w = self.world
        i = w.agent_index[agent]
        visible = set(self.visible(state, i))
        n = len(belief.particles)
        share = belief.weights()
        entries = []
        for s in range(len(w.station_cells)):
            if s in visible or w.station_kind[s] == DELIVERY:
                continue
            counts: dict[int, float] = {}
            for p, wk in zip(belief.particles, share):
                c = p.belief.contents[s]
                counts[c] = counts.get(c, 0.0) + float(wk)
            true = state.contents[s]
            for c, k in sorted(counts.items()):
                if c == NOTHING and true == NOTHING:
                    continue
                entries.append({"at": list(w.rc(w.station_cells[s])), "item": "unknown" if c == UNKNOWN else ITEM_NAMES[c],
                                "weight": round(k, 6), "true": c == true})
        return Particles(agent=agent, particles=n, resampled=belief.resampled, unseen=entries)

    # ----------------------------------------------------------- likelihood

    def _targets(self, belief: KitchenState, i: int, dish: int | None, plan: Plan | None) -> tuple[int, ...] | None:
        """The stations the simulated human walks to next under ``belief`` for goal dish ``dish``
        or while carrying out ``plan``; None when it would explore (no preference)."""
        w = self.world
        here, held = belief.positions[i], belief.held[i]
        contents = belief.contents
        kind = w.station_kind
        reach = w.station_dist
        if plan is not None:
            _, verb, item, source, via = plan
            if held == NOTHING:
                return (source,)
            if held == item and verb == "pass" and belief.contents[source] != item:
                return (via,)
            found = tuple(s for s, c in enumerate(contents) if c == NOTHING and kind[s] == COUNTER and s != source)
        else:
            chopped, fresh = dish - 1, dish - 2
            if held == dish:
                found = w.deliveries
            elif held == chopped:
                found = tuple(s for s, c in enumerate(contents) if c == PLATE)
            elif held == PLATE:
                found = tuple(s for s, c in enumerate(contents) if c == chopped and reach[s][here] >= 0)
                if not found:
                    found = tuple(s for s, c in enumerate(contents) if c == NOTHING and kind[s] == COUNTER)
            elif held == fresh:
                found = tuple(s for s, c in enumerate(contents) if c == NOTHING and kind[s] == BOARD)
            elif held != NOTHING:
                found = tuple(s for s, c in enumerate(contents) if c == NOTHING and kind[s] == COUNTER)
            else:
                found = ()
                for item in (dish, chopped, fresh):
                    found = tuple(s for s, c in enumerate(contents) if c == item and reach[s][here] >= 0)
                    if found:
                        break
        found = tuple(s for s in found if reach[s][here] >= 0)
        if not found and plan is None and w.rules >= 2:  # it explores: towards stations never seen
            found = tuple(s for s, c in enumerate(contents)
                          if c == UNKNOWN and kind[s] != DELIVERY and reach[s][here] >= 0)
        return found or None

    def _distribution(self, belief: KitchenState, i: int, dish: int | None, plan: Plan | None) -> np.ndarray:
        here = belief.positions[i]
        key = (here, belief.held[i], belief.contents, belief.delivered[i] >= 0, i, dish, plan)
        p = self._policy_cache.get(key)
        if p is not None:
            return p
        if len(self._policy_cache) > 200_000:
            self._policy_cache.clear()
        w = self.world
        calm = self._calm[here]
        if belief.delivered[i] >= 0 and plan is None:
            model = np.zeros(5)
            model[4] = 1.0  # a cook that has delivered waits
        else:
            targets = self._targets(belief, i, dish, plan)
            if targets is None:
                model = np.full(5, 0.2)
            else:
                q = np.empty(5)
                for a in range(5):
                    t = w.trans[here * 5 + a]
                    if t < 0:
                        worked = -1 - t
                        q[a] = 1 if worked in targets else 1 + min(w.station_dist[s][here] for s in targets)
                    else:
                        q[a] = 1 + min(w.station_dist[s][t] for s in targets)
                z = np.exp(-(q - q.min()) / self.temperature)
                model = z / z.sum()
        uniform = np.zeros(5)
        uniform[list(calm)] = 1.0 / len(calm)
        p = (1 - self.noise) * model + self.noise * uniform
        self._policy_cache[key] = p
        return p

    def likelihoods(self, belief: KitchenState, agent: AgentId, action: str, goals: Sequence[Goal]) -> np.ndarray:
        i = self.world.agent_index[agent]
        a = ACTIONS.index(action)
        if belief.delivered[i] >= 0:
            return np.ones(len(goals))  # nothing left to tell about its goal
        if action == "stay" and self.stay_evidence < 1:
            if self.stay_evidence == 0:
                return np.ones(len(goals))  # waiting, whatever the dish
            return np.array([self._distribution(belief, i, RECIPE_DISH[g], None)[a] for g in goals]) ** self.stay_evidence
        return np.array([self._distribution(belief, i, RECIPE_DISH[g], None)[a] for g in goals])

    def policy(self, state: KitchenState, agent: AgentId, goal: Goal | None = None,
               candidate: Candidate | None = None) -> np.ndarray:
        i = self.world.agent_index[agent]
        if candidate is not None:
            return self._distribution(state, i, None, self.plan(candidate))
        return self._distribution(state, i, RECIPE_DISH[goal], None)

    # ------------------------------------------------------------ candidates

    def shared_counter(self, state: KitchenState, source: int, i: int, j: int) -> int | None:
        """An empty counter (not ``source``) that cooks i and j can both reach: one seen from the
        rooms of both first (a counter in the wall between them), then off the layout's border,
        then the least walking for the two."""
        w = self.world
        pi, pj = state.positions[i], state.positions[j]
        both = w.view[pi] | w.view[pj]
        best, best_key = None, None
        for s in w.counters:
            if s == source or state.contents[s] != NOTHING:
                continue
            di, dj = w.station_dist[s][pi], w.station_dist[s][pj]
            if di < 0 or dj < 0:
                continue
            spans = (w.view[w.station_cells[s]] & both) == both
            key = (not spans, self._border[s], di + dj, s)
            if best_key is None or key < best_key:
                best, best_key = s, key
        return best

    def candidates(self, state: KitchenState) -> list[Candidate]:
        w = self.world
        agents = w.agents
        out: list[Candidate] = []
        items = [(s, c) for s, c in enumerate(state.contents)
                 if c != NOTHING and (is_fresh(c) or is_chopped(c) or c == PLATE)]
        # Pickup resolves a race (Appendix A.2): an item that two cooks both have as their
        # nearest one of its kind, while one of them can reach another one.
        nearest: dict[tuple[int, int], int] = {}
        for i in range(len(agents)):
            if state.delivered[i] >= 0:
                continue
            here = state.positions[i]
            for s, c in items:
                d = w.station_dist[s][here]
                if d >= 0 and ((i, c) not in nearest or d < w.station_dist[nearest[(i, c)]][here]):
                    nearest[(i, c)] = s
        contested: set[int] = set()  # stations two cooks race for
        for (i, c), s in nearest.items():
            if any(k != i and nearest.get((k, c)) == s for k in range(len(agents))):
                contested.add(s)
        for i, name in enumerate(agents):
            here = state.positions[i]
            for s, c in items:
                if w.station_dist[s][here] < 0:
                    continue
                r, col = w.rc(w.station_cells[s])
                item = ITEM_NAMES[c]
                if (state.delivered[i] < 0 and s not in contested
                        and any(nearest.get((i, c)) == x for x in contested)):
                    out.append(Candidate(
                        target=name, kind="pickup",
                        payload={"type": "pickup", "agent": name, "item": item, "at": [r, col]},
                        label=f"{_name(name)} picks up the {item} in ({r}, {col})",
                        effect=(i, "pickup", c, s, -1)))
                for j, other in enumerate(agents):
                    if j == i or state.delivered[j] >= 0:
                        continue
                    via = self.shared_counter(state, s, i, j)
                    if via is None:
                        continue
                    vr, vc = w.rc(w.station_cells[via])
                    out.append(Candidate(
                        target=name, kind="pass",
                        payload={"type": "pass", "agent": name, "item": item, "at": [r, col], "to": other,
                                 "via": [vr, vc]},
                        label=f"{_name(name)} passes the {item} in ({r}, {col}) to {_name(other)}",
                        effect=(i, "pass", c, s, via)))
        return out

    def plan(self, candidate: Candidate) -> Plan:
        return candidate.effect

    # ----------------------------------------------------------------- cost

    def rollout(self, state: KitchenState, goals: Sequence[Goal], candidate: Candidate | None,
                beliefs: Beliefs | None = None) -> Rollout:
        dishes = tuple(RECIPE_DISH[g] for g in goals)
        return self.rollouts.run(state, dishes, self.plan(candidate) if candidate is not None else None, beliefs)

    def cost(self, state: KitchenState, goals: tuple[Goal, ...], candidate: Candidate | None,
             beliefs: Beliefs | None = None) -> float:
        return float(self.rollout(state, goals, candidate, beliefs).length)

    # ------------------------------------------------------------ templates

    def feedback_text(self, state: KitchenState, candidate: Candidate) -> str:
        p = candidate.payload
        i = self.world.agent_index[candidate.target]
        held = state.held[i]
        first = ""
        if held != NOTHING and ITEM_NAMES[held] != p["item"]:
            first = f" Put down the {ITEM_NAMES[held]} you hold on a free counter first."
        at = f"({p['at'][0]}, {p['at'][1]})"
        if candidate.kind == "pickup":
            return f"{_name(candidate.target)}, please pick up the {p['item']} at {at}.{first}"
        via = f"({p['via'][0]}, {p['via'][1]})"
        return (f"{_name(candidate.target)}, please pass the {p['item']} at {at} to {_name(p['to'])}: "
                f"leave it on the counter at {via}.{first}")

    def message(self, state: KitchenState, candidate: Candidate, likely_goals: Mapping[AgentId, Goal],
                posteriors: Mapping[AgentId, Mapping[Goal, float]]) -> Message:
        """Appendix B.2's templates. Pass: "I believe <j> is trying to prepare <recipe>, and
        <he/she> would need much more time to get the <item> without your help." (j can reach
        the item) or "..., and without your help, <j> wouldn't be able to get the <item>." (it
        cannot). Pickup: "I believe <j> is trying to prepare <recipe>, and the other <item> is
        easier to get for <him/her>.", j being the cook the pickup helps most under the likely goals."""
        w = self.world
        p = candidate.payload
        item = p["item"]
        source = w.station_at[w.cell(*p["at"])]
        if candidate.kind == "pass":
            helped = p["to"]
        else:
            goals = tuple(likely_goals[a] for a in w.agents)
            without = self.rollout(state, goals, None)
            with_f = self.rollout(state, goals, candidate)
            me = w.agent_index[candidate.target]
            horizon = without.horizon + 1

            def gain(j: int) -> int:
                b, a = without.finish[j], with_f.finish[j]
                return (horizon if b is None else b) - (horizon if a is None else a)

            others = [j for j in range(w.n_agents) if j != me and state.delivered[j] < 0] or \
                     [j for j in range(w.n_agents) if j != me]
            helped = w.agents[max(others, key=lambda j: (gain(j), -j))]
        recipe = likely_goals[helped]
        post = posteriors.get(helped, {})
        if post:  # among equally likely dishes (a flat posterior), name one the item is for
            top = max(post.values())
            tied = [g for g in self.recipes if post.get(g, 0.0) >= top - 1e-9]
            serving = [g for g in tied if ITEM_NAMES[RECIPE_DISH[g] - 2] == item or ITEM_NAMES[RECIPE_DISH[g] - 1] == item]
            if recipe not in serving and serving:
                recipe = serving[0]
        sure = post.get(recipe)
        belief = f"I believe {_name(helped)} is trying to prepare {recipe}"
        if sure is not None and sure < 0.995:
            belief += f" ({sure:.0%} sure)"
        he, him = _pronouns(helped)
        if candidate.kind == "pass":
            j = w.agent_index[helped]
            if w.station_dist[source][state.positions[j]] >= 0:
                reason = f"{he} would need much more time to get the {item} without your help."
            else:
                reason = f"without your help, {_name(helped)} wouldn't be able to get the {item}."
        else:
            reason = f"the other {item} is easier to get for {him}."
        return Message(payload=dict(p), text=self.feedback_text(state, candidate), explanation=f"{belief}, and {reason}")


# --------------------------------------------------------------------------- categories



#: a feedback must save at least this many ticks for a level to count as ``useful``
USEFUL_MARGIN = 3


@dataclass(frozen=True, slots=True)
class KitchenCategoryReport:
    scenario: str
    category: str
    independent_length: int | None  # L_ind (None: some cook does not deliver within t_max)
    joint_length: int               # L_joint: the best plan with at most one feedback at the start
    best_feedback: str | None       # the label of that feedback (None: no feedback is best)
    finish_independent: tuple[int | None, ...]

    def describe(self) -> str:
        ind = "fails" if self.independent_length is None else f"{self.independent_length} ticks"
        best = f" ({self.best_feedback})" if self.best_feedback else ""
        return (f"{self.scenario}: {self.category} (independent plans: {ind}; "
                f"best with one feedback: {self.joint_length} ticks{best})")


def scenario_category(world: KitchenWorld) -> KitchenCategoryReport:
    """The category of a kitchen level, computed from the start state and the true goals with
    the simulated plans of ``KitchenRollouts`` (the facilitator's own model of the cooks; under
    rules 2 each cook plans on what it sees at the start and explores the rest):

    - ``L_ind``: the episode length when every cook follows its own plan (no feedback), or
      *fails* when a cook does not deliver within ``t_max``;
    - ``L_joint``: the shortest episode over every feedback candidate given at the start
      (Pass and Pickup, as the facilitator builds them) and no feedback;
    - **necessary** when ``L_ind`` fails and ``L_joint`` does not; **useful** when
      ``L_joint <= L_ind - USEFUL_MARGIN``; **not_needed** when ``L_joint == L_ind`` (no
      feedback at the start shortens the episode). A level in between (a gain of one or two
      ticks), or that fails even with a feedback, is an error: its category is not clear-cut.
    """
    adapter = KitchenAdapter(world)
    state = world.reset(0)
    goals = tuple(world.goals[a] for a in world.agents)
    beliefs = adapter.known_beliefs(state) if world.rules >= 2 else None
    base = adapter.rollout(state, goals, None, beliefs)
    best_len, best_label = base.length if base.success else None, None
    for c in adapter.candidates(state):
        r = adapter.rollout(state, goals, c, beliefs)
        if r.success and (best_len is None or r.length < best_len):
            best_len, best_label = r.length, c.label
    independent = base.length if base.success else None
    if best_len is None:
        raise CategoryError(f"{world.name}: the cooks cannot all deliver within t_max={world.t_max} ticks "
                            "even with one feedback")
    if independent is None:
        category = "necessary"
    elif best_len <= independent - USEFUL_MARGIN:
        category = "useful"
    elif best_len == independent:
        category = "not_needed"
    else:
        raise CategoryError(f"{world.name}: one feedback saves only {independent - best_len} tick(s) "
                            f"({best_label}); a level must save none (not_needed) or at least "
                            f"{USEFUL_MARGIN} (useful)")
    return KitchenCategoryReport(world.name, category, independent, best_len, best_label, base.finish)


def check_categories(worlds: Iterable[KitchenWorld]) -> list[KitchenCategoryReport]:
    """Compute every level's category and compare it with the one its file declares; raises
    ``CategoryError`` naming every level that declares none or another one."""
    reports, wrong = [], []
    for world in worlds:
        report = scenario_category(world)
        declared = world.spec().get("category")
        if declared != report.category:
            wrong.append(f"{world.name} declares {declared!r} but is {report.describe()}")
        reports.append(report)
    if wrong:
        raise CategoryError("; ".join(wrong))
    return reports


#: the experiment's 21 levels: scenarios/kitchen/protom/kitchen-NN-*.kitchen.txt
SCENARIO_GLOB = "kitchen-[0-9][0-9]-*.kitchen.txt"


def experiment_levels(directory: Path | None = None) -> list[Path]:
    """The experiment's level files, in order (``scenarios/kitchen/protom/`` by default)."""
    from sim.registry import SCENARIO_DIR

    return sorted((directory or SCENARIO_DIR / "kitchen" / "protom").glob(SCENARIO_GLOB))


def load_world(path: Path) -> KitchenWorld:
    from sim.registry import build_world, load_spec

    return build_world(*load_spec(path))


__all__ = ["CategoryError", "KitchenAdapter", "KitchenCategoryReport", "KitchenRollouts",
           "check_categories", "experiment_levels", "load_world", "rollouts_for", "scenario_category"]
