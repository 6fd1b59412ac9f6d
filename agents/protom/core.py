"""ProToM's world-agnostic machinery (seed 003, Sections 3.1-3.2, Algorithms 1 and 2).

- Beliefs about each agent are N particles ``(belief state, goal distribution)`` (Eq. 6);
  belief states are sampled from what the agent observes (Eq. 7), moved on with every
  step, and resampled when they no longer fit the agent's observation.
- Goal inference is Bayesian inverse planning (Eq. 8): each particle's goal distribution
  is multiplied by the likelihood of the observed action under every goal, and the
  particles are averaged (Eq. 9).
- The utility of a feedback f is the expected drop in cost it brings, over every joint
  goal hypothesis weighted by the inferred goal probabilities (Eqs. 12-14, Algorithm 2).
- Feedback is sent when the best utility exceeds ``phi`` and the target's divergence from
  the feedback exceeds ``eps`` (Eq. 15), one of the tied best chosen uniformly (Eq. 16),
  with a template explanation (Eq. 17).

Everything that depends on a world (its goals, beliefs and likelihoods, candidate
feedback, the cost of a plan, the templates) sits behind ``ProToMAdapter``; a world gives
ProToM its adapter class in its plug-in's ``methods["protom"]`` (``agents.methods``).
"""

from __future__ import annotations

import heapq
import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from sim.snapshots import Particles
from sim.world import AgentId, World

Goal = Hashable

#: ``centralised``: the paper's mDKG measure; ``target-overlap``: the target's next-step overlap
#: with the feedback (not the paper's; kept for comparison); ``tv`` / ``js``: policy distances
DIVERGENCES = ("centralised", "target-overlap", "tv", "js")
#: resample a particle set when its effective sample size falls below this share of N (the
#: usual rule of sequential Monte Carlo, N/2; seed 003 gives no threshold of its own)
ESS_THRESHOLD = 0.5


@dataclass(frozen=True, slots=True)
class Candidate:
    """One feedback message ProToM may send (an f in F_t).

    ``effect`` identifies what the target would do: candidates with equal effects have
    equal utilities, which are computed once. ``label`` is the compact form used in
    prompts, e.g. ``(bob, has(alice, key1))``.
    """

    target: AgentId
    kind: str
    payload: Mapping[str, Any]
    label: str
    effect: Hashable


@dataclass(frozen=True, slots=True)
class Message:
    """A feedback ready to send: the payload the agent executes, its text and explanation."""

    payload: Mapping[str, Any]
    text: str
    explanation: str


@dataclass(frozen=True, slots=True)
class Rollout:
    """A simulated plan's outcome: the tick (from the start state) at which each agent reaches its
    goal (holds its gem, delivers its dish; 0: already had; ``None``: not within the horizon).
    ``length`` is the episode length this predicts: the last agent's tick, or the horizon when one
    never gets there. The cost of a plan (Eq. 14) in the worlds that simulate plans."""

    finish: tuple[int | None, ...]
    horizon: int

    @property
    def success(self) -> bool:
        return all(f is not None for f in self.finish)

    @property
    def length(self) -> int:
        if not self.success:
            return self.horizon
        return max((f for f in self.finish if f is not None), default=0)

    def capped(self, budget: int) -> Rollout:
        """The same rollout seen with a smaller horizon (the ticks left in an episode)."""
        if budget >= self.horizon:
            return self
        return Rollout(tuple(f if f is not None and f <= budget else None for f in self.finish), budget)


class ProToMAdapter(ABC):
    """The world-specific half of ProToM. One adapter serves one World."""

    #: thresholds and settings this world uses unless the facilitator is told otherwise
    defaults: Mapping[str, Any] = {"phi": 0.0, "eps": 0.1, "particles": 1, "divergence": "js"}
    #: True when no two agents can pursue the same goal (joint hypotheses that share one are dropped)
    exclusive_goals: bool = False
    #: True when the divergence is expected over the target's particles (its policy computed in
    #: each particle's belief state) rather than computed in the true state
    particle_divergence: bool = False

    def __init__(self, world: World) -> None:
        self.world = world
        self.agents: tuple[AgentId, ...] = tuple(world.agents)

    # -- goals
    @abstractmethod
    def goals(self, agent: AgentId) -> tuple[Goal, ...]:
        """G^i: the goals agent i may pursue."""

    @abstractmethod
    def true_goals(self) -> dict[AgentId, Goal]:
        """The agents' real goals (for ProToM-Oracle and for analysis only)."""

    def goal_name(self, goal: Goal) -> str:
        return str(goal)

    # -- beliefs (Eq. 7 and BELIEFUPDATE of Algorithm 1)
    @abstractmethod
    def sample_belief(self, state: Any, agent: AgentId, rng: np.random.Generator) -> Any:
        """b ~ P(b | o): a belief state agent i may hold given what it observes in ``state``."""

    @abstractmethod
    def update_belief(self, belief: Any, before: Any, joint_action: Mapping[AgentId, Any], after: Any,
                      agent: AgentId) -> Any | None:
        """Move a belief state on with a step; None when it no longer fits what the agent sees."""

    # -- likelihood (Eq. 8)
    @abstractmethod
    def likelihoods(self, belief: Any, agent: AgentId, action: Any, goals: Sequence[Goal]) -> np.ndarray:
        """P(action | goal, belief) for every goal in ``goals``."""

    # -- feedback
    @abstractmethod
    def candidates(self, state: Any) -> list[Candidate]:
        """F_t: the feasible feedback messages in ``state`` (built from the full state)."""

    @abstractmethod
    def cost(self, state: Any, goals: tuple[Goal, ...], candidate: Candidate | None) -> float:
        """C(f, g) (Eq. 14): the cost of the agents' plans for joint goals ``goals`` (one per
        agent, in ``self.agents`` order) when ``candidate``'s target carries it out first."""

    @abstractmethod
    def policy(self, state: Any, agent: AgentId, goal: Goal | None = None,
               candidate: Candidate | None = None) -> np.ndarray:
        """The agent's action distribution in ``state`` (over ``policy_actions``) while pursuing
        ``goal``, or while carrying out ``candidate`` when given."""

    def plan_agreement(self, state: Any, goals: tuple[Goal, ...], candidate: Candidate) -> float:
        """P(τ ∈ π* | f, g): the probability that the agents' next round of actions (each pursuing
        its goal of ``goals`` on its own) is already the start of a centralised plan for ``goals``
        that carries out ``candidate`` (the ``centralised`` divergence). Worlds with a centralised
        planner override it."""
        raise ValueError(f"the {self.world.family} world has no centralised planner: "
                         f"divergence 'centralised' is not available there")

    @abstractmethod
    def feedback_text(self, state: Any, candidate: Candidate) -> str:
        """What the target is told to do, in words (no explanation)."""

    @abstractmethod
    def message(self, state: Any, candidate: Candidate, likely_goals: Mapping[AgentId, Goal],
                posteriors: Mapping[AgentId, Mapping[Goal, float]]) -> Message:
        """The feedback text and its template explanation (Eq. 17) naming the other agents'
        most probable goals ``likely_goals``."""

    def done(self, state: Any) -> bool:
        return self.world.done(state)

    # -- optional hooks of partially observable worlds
    def observe_step(self, before: Any, joint_action: Mapping[AgentId, Any], after: Any) -> None:
        """Called once per step before the particles move on (e.g. to track what every agent has
        seen, which ``sample_belief`` draws from). Fully observable worlds need nothing."""

    def cost_beliefs(self, state: Any, particles: Mapping[AgentId, Sequence["Particle"]] | None
                     ) -> Sequence[tuple[float, Any]] | None:
        """Where the agents' plans depend on what they believe: weighted joint belief states
        (from the particles; ProToM-Oracle passes None) that ``cost`` takes as its ``beliefs``
        argument, C(f, g) being averaged over them. None (the default): plans on the true state."""
        return None

    def particles_snapshot(self, state: Any, agent: AgentId, belief: "AgentBelief") -> "Particles | None":
        """What ``agent`` is believed to believe (a ``particles`` belief snapshot), or None when
        the world has nothing to show."""
        return None


def adapter_class(family: str) -> type[ProToMAdapter]:
    """The ProToMAdapter class ``family``'s plug-in declares (``methods["protom"]``)."""
    from agents.methods import world_part

    found = world_part(family, "protom", "ProToM has no adapter")
    if not (isinstance(found, type) and issubclass(found, ProToMAdapter)):
        raise ValueError(f"the world {family!r} declares methods['protom'] = {found!r}, not a ProToMAdapter class")
    return found


def adapter_for(world: World, **params: Any) -> ProToMAdapter:
    return adapter_class(world.family)(world, **params)


# ---------------------------------------------------------------------------- beliefs


@dataclass
class Particle:
    """One particle of Eq. 6: a belief state, a goal distribution, and its importance weight
    (1.0 each when drawn; multiplied by the likelihood of each observed action under the
    particle, see ``GoalInference.observe``)."""

    belief: Any
    goal_probs: np.ndarray
    weight: float = 1.0


@dataclass
class AgentBelief:
    """ProToM's belief about one agent: N particles over (belief state, goal distribution)."""

    agent: AgentId
    goals: tuple[Goal, ...]
    particles: list[Particle]
    resampled: int = 0

    def weights(self) -> np.ndarray:
        """The particles' normalized importance weights (1/N each while none is preferred)."""
        w = np.array([p.weight for p in self.particles], dtype=float)
        return w / w.sum()

    def posterior(self) -> np.ndarray:
        """Eq. 9: the goal distribution averaged over particles (weighted by their importance
        weights; equal weights give Eq. 9's plain average)."""
        return np.average([p.goal_probs for p in self.particles], axis=0, weights=self.weights())


class GoalInference:
    """Particle beliefs and Bayesian inverse planning for every agent of one world.

    Each step (``observe``) a particle's weight is multiplied by the likelihood of the agent's
    action under the particle's belief state, P(a | b_S,k) = sum_g b_G,k(g) P(a | g, b_S,k) (the
    normalizer of Eq. 8), and a particle whose belief state no longer fits what the agent sees
    is drawn again (seed 003, Section 3.1: "resamples any particle that becomes incompatible
    with the latest observation"). An action the particle's belief makes unlikely is graded
    incompatibility: when the effective sample size 1 / sum_k w_k^2 of the normalized weights
    falls below ``ess_threshold`` * N, the particles are resampled (systematic resampling, one
    ``rng`` draw) and their weights reset to equal. With N = 1 nothing is ever resampled.
    """

    def __init__(self, adapter: ProToMAdapter, state: Any, rng: np.random.Generator, particles: int = 1,
                 prior: Mapping[AgentId, Mapping[Goal, float]] | Mapping[Goal, float] | None = None,
                 ess_threshold: float = ESS_THRESHOLD) -> None:
        if particles < 1:
            raise ValueError(f"particles must be at least 1, got {particles}")
        if not 0 <= ess_threshold <= 1:
            raise ValueError(f"ess_threshold must be in [0, 1], got {ess_threshold}")
        self.adapter = adapter
        self.rng = rng
        self.ess_threshold = float(ess_threshold)
        self.beliefs: dict[AgentId, AgentBelief] = {}
        # A prior keyed by agent names is per agent (agents left out get a uniform one);
        # otherwise it is one goal -> weight mapping shared by every agent.
        per_agent = bool(prior) and any(a in prior for a in adapter.agents)
        for agent in adapter.agents:
            goals = adapter.goals(agent)
            p0 = goal_prior(goals, (prior.get(agent) if per_agent else prior), agent)
            self.beliefs[agent] = AgentBelief(agent, goals, [
                Particle(adapter.sample_belief(state, agent, rng), p0.copy()) for _ in range(particles)])

    def observe(self, before: Any, joint_action: Mapping[AgentId, Any], after: Any,
                skip_goal_update: frozenset[AgentId] = frozenset()) -> None:
        """One step of Algorithm 1, lines 4-10: goal update (Eq. 8) from the action each
        acting agent took in its belief, particle weights from the same likelihoods, then
        belief update and resampling."""
        adapter = self.adapter
        adapter.observe_step(before, joint_action, after)
        for agent, belief in self.beliefs.items():
            action = joint_action.get(agent)
            if action is not None and agent not in skip_goal_update:
                cache: dict[Any, np.ndarray] = {}
                for p in belief.particles:
                    key = _belief_key(p.belief)
                    lik = cache.get(key)
                    if lik is None:
                        lik = cache[key] = adapter.likelihoods(p.belief, agent, action, belief.goals)
                    post = p.goal_probs * lik
                    total = float(post.sum())
                    p.weight *= total  # P(a | b_S,k): 0 for an action impossible in this belief
                    if total > 0:
                        p.goal_probs = post / total
                _normalize(belief.particles)
            for p in belief.particles:
                moved = adapter.update_belief(p.belief, before, joint_action, after, agent)
                if moved is None:
                    moved = adapter.sample_belief(after, agent, self.rng)
                    belief.resampled += 1
                    p.weight = 1.0  # drawn again from what the agent observes now
                p.belief = moved
            self._resample(belief)

    def _resample(self, belief: AgentBelief) -> None:
        """Systematic resampling when the effective sample size drops below the threshold."""
        parts = belief.particles
        n = len(parts)
        if n < 2:
            return
        w = belief.weights()
        if not np.isfinite(w).all():
            w = np.full(n, 1.0 / n)
        if 1.0 / float(np.sum(w * w)) >= self.ess_threshold * n:
            return
        points = (self.rng.random() + np.arange(n)) / n
        chosen = np.minimum(np.searchsorted(np.cumsum(w), points, side="right"), n - 1)
        belief.resampled += int(n - len(set(chosen.tolist())))
        belief.particles = [Particle(parts[k].belief, parts[k].goal_probs.copy()) for k in chosen]

    def posteriors(self) -> dict[AgentId, np.ndarray]:
        return {a: b.posterior() for a, b in self.beliefs.items()}


def _normalize(particles: Sequence[Particle]) -> None:
    """Scale the weights to mean 1; all zero (every particle ruled out) gives equal weights."""
    total = sum(p.weight for p in particles)
    for p in particles:
        p.weight = p.weight * len(particles) / total if total > 0 else 1.0


def _belief_key(belief: Any) -> Any:
    key = getattr(belief, "key", None)
    return key() if callable(key) else id(belief)


def goal_prior(goals: Sequence[Goal], weights: Mapping[Goal, float] | None, agent: AgentId = "") -> np.ndarray:
    """The prior over ``goals``: uniform, or proportional to ``weights`` (missing goals get 0)."""
    if not weights:
        return np.full(len(goals), 1.0 / len(goals))
    unknown = [g for g in weights if g not in goals]
    if unknown:
        raise ValueError(f"goal prior{' for ' + agent if agent else ''} names {unknown}, "
                         f"expected some of {list(goals)}")
    p = np.array([float(weights.get(g, 0.0)) for g in goals])
    if (p < 0).any() or p.sum() <= 0:
        raise ValueError(f"goal prior{' for ' + agent if agent else ''} must be non-negative and not all zero")
    return p / p.sum()


# ---------------------------------------------------------------------------- utility


@dataclass(frozen=True, slots=True)
class UtilityResult:
    """U(f) per candidate (Eq. 12) and the joint hypotheses it averaged over."""

    utilities: np.ndarray
    combos: int
    mass: float  # prior probability of the hypotheses kept (1 unless pruned)


#: ``max_hypotheses="auto"``: every hypothesis while at most this many are left (exact) ...
AUTO_EXACT_UP_TO = 120
#: ... and above it the heaviest ones until they hold this share of the mass left ...
AUTO_MASS = 0.9
#: ... but no more than this many
AUTO_CAP = 4

#: ``max_hypotheses``: a count (the heaviest ones), "auto", or "all"/None (every hypothesis)
HypothesisLimit = int | Literal["auto", "all"] | None


def check_hypothesis_limit(value: Any) -> HypothesisLimit:
    """``value`` if it is a valid ``max_hypotheses``, else a one-line ValueError naming it."""
    if value is None or value in ("auto", "all") or (isinstance(value, int) and not isinstance(value, bool)
                                                     and value >= 1):
        return value
    raise ValueError(f"max_hypotheses must be a whole number of at least 1, 'auto' or 'all', got {value!r}")


def _kept(weights: np.ndarray, limit: HypothesisLimit) -> int:
    """How many of the hypotheses left (``weights``, each one's share of the mass) ``limit`` keeps."""
    n = len(weights)
    if limit is None or limit == "all":
        return n
    if limit == "auto":
        if n <= AUTO_EXACT_UP_TO:
            return n
        heaviest = _largest(weights, AUTO_CAP)
        reached = np.flatnonzero(np.cumsum(heaviest) >= AUTO_MASS * float(weights.sum()))
        return int(reached[0]) + 1 if len(reached) else len(heaviest)
    return min(n, int(limit))


def _largest(values: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` largest of ``values``, largest first (``np.sort(values)[::-1][:k]``, without
    sorting them all)."""
    if len(values) <= k:
        return np.sort(values)[::-1]
    return np.sort(np.partition(values, len(values) - k)[len(values) - k:])[::-1]


def _heaviest_rows(weights: np.ndarray, k: int) -> np.ndarray:
    """The positions of the ``k`` largest ``weights``, ties going to the first (those of a stable
    sort by decreasing weight, ``np.argsort(-weights, kind="stable")[:k]``), in increasing order;
    without sorting them all: every weight above the k-th largest, then the first ones equal to it."""
    if k >= len(weights):
        return np.arange(len(weights))
    kth = np.partition(weights, len(weights) - k)[len(weights) - k]
    above = np.flatnonzero(weights > kth)
    level = np.flatnonzero(weights == kth)[:k - len(above)]
    return np.sort(np.concatenate((above, level)))


def joint_hypotheses(adapter: ProToMAdapter, posteriors: Mapping[AgentId, np.ndarray],
                     prune_below: float = 0.0, max_hypotheses: HypothesisLimit = None
                     ) -> list[tuple[tuple[Goal, ...], float]]:
    """``counted_hypotheses`` without the count of hypotheses left before ``max_hypotheses``."""
    return counted_hypotheses(adapter, posteriors, prune_below, max_hypotheses)[0]


def counted_hypotheses(adapter: ProToMAdapter, posteriors: Mapping[AgentId, np.ndarray],
                       prune_below: float = 0.0, max_hypotheses: HypothesisLimit = None
                       ) -> tuple[list[tuple[tuple[Goal, ...], float]], int]:
    """Joint goals g = (g^1..g^n) with weight prod_i b^i(g^i) (Algorithm 2, line 7), and how
    many hypotheses were left before ``max_hypotheses`` thinned them.

    With exclusive goals, hypotheses where two agents share a goal are dropped and the
    rest renormalized (they cannot all succeed). Hypotheses lighter than ``prune_below``
    are skipped: their contribution to U is at most that weight times the largest cost
    (when every hypothesis is lighter, none is skipped). ``max_hypotheses`` keeps only the
    heaviest of what is left (ties: the first enumerated), in enumeration order: a count
    keeps that many; "auto" keeps all while at most ``AUTO_EXACT_UP_TO`` are left, else the
    fewest heaviest ones holding ``AUTO_MASS`` of the mass left, at most ``AUTO_CAP``; None
    or "all" keeps every one.

    The hypotheses come in ``itertools.product`` order over each agent's goals with
    non-zero probability; with exclusive goals the enumeration walks only the goal
    assignments without a shared goal (n!/(n-k)! of them, not n^k), so that eight agents
    with eight gems enumerate 40,320 hypotheses rather than 16.7 million. Weights are the
    same products, in the same order, as the plain enumeration's.
    """
    agents = adapter.agents
    per_agent = []
    for a in agents:
        goals = adapter.goals(a)
        p = posteriors[a]
        per_agent.append([(g, float(p[k])) for k, g in enumerate(goals) if p[k] > 0])
    combos: list[tuple[tuple[Goal, ...], float]] = []
    shared = adapter.goals(agents[0]) if agents else ()
    if (adapter.exclusive_goals and agents and all(adapter.goals(a) == shared for a in agents)
            and _assignments(len(shared), len(agents)) <= _VECTOR_LIMIT):
        return _exclusive_hypotheses(shared, [posteriors[a] for a in agents], prune_below, max_hypotheses)
    if adapter.exclusive_goals and per_agent:
        last = len(per_agent) - 1
        chosen: list[Goal] = []
        used: set[Goal] = set()

        # w is the running product from 1, factor by factor, as math.prod computes it
        def walk(i: int, w: float) -> None:
            options = per_agent[i]
            if i == last:
                for g, q in options:
                    if g not in used:
                        combos.append(((*chosen, g), w * q))
                return
            for g, q in options:
                if g in used:
                    continue
                used.add(g)
                chosen.append(g)
                walk(i + 1, w * q)
                chosen.pop()
                used.discard(g)

        walk(0, 1)
    else:
        for combo in itertools.product(*per_agent):
            combos.append((tuple(g for g, _ in combo), math.prod(p for _, p in combo)))
    total = sum(w for _, w in combos)
    if total <= 0:
        return [], 0
    combos = [(g, w / total) for g, w in combos]
    if prune_below > 0:
        kept = [(g, w) for g, w in combos if w >= prune_below]
        if kept:
            combos = kept
    left = len(combos)
    keep = _kept(np.array([w for _, w in combos], dtype=float), max_hypotheses) if max_hypotheses is not None else left
    if keep < left:
        heaviest = heapq.nlargest(keep, range(len(combos)), key=lambda k: combos[k][1])
        combos = [combos[k] for k in sorted(heaviest)]
    return combos, left


#: joint hypotheses enumerated with numpy at most (beyond, goal by goal in Python)
_VECTOR_LIMIT = 500_000
_PERMUTATIONS: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _assignments(goals: int, agents: int) -> int:
    return math.perm(goals, agents) if agents <= goals else 0


def _permutations(m: int, n: int) -> np.ndarray:
    """Every ordered choice of ``n`` of ``range(m)`` without repeats, one per row, in
    lexicographic order (``itertools.permutations(range(m), n)``), built with numpy: the choices
    starting with f are f followed by those of ``n - 1`` of ``range(m - 1)``, each number from f
    on raised by one (which keeps their order)."""
    rows = np.zeros((1, 0), dtype=np.intp)
    for k in range(1, n + 1):  # the choices of k of range(m - n + k)
        size, q = m - n + k, len(rows)
        out = np.empty((size * q, k), dtype=np.intp, order="F")  # by columns: the agents x hypotheses table
        out[:, 0] = np.repeat(np.arange(size, dtype=np.intp), q)
        rest = out[:, 1:].reshape(size, q, k - 1)  # a view: one block of the choices before per first number
        rest[:] = rows
        rest += rest >= np.arange(size, dtype=np.intp)[:, None, None]
        rows = out
    return rows


def _exclusive_hypotheses(goals: Sequence[Goal], posts: Sequence[np.ndarray], prune_below: float,
                          max_hypotheses: HypothesisLimit
                          ) -> tuple[list[tuple[tuple[Goal, ...], float]], int]:
    """``joint_hypotheses`` for exclusive goals shared by every agent, with numpy: the same
    hypotheses in the same (lexicographic) order with bit-identical weights. Each weight is the
    running product from agent 0 on, as ``math.prod`` computes it; the total is summed in order."""
    n, m = len(posts), len(goals)
    cached = _PERMUTATIONS.get((m, n))
    if cached is None:
        perms = _permutations(m, n)
        # agents x hypotheses: where each agent's factor lies in the flattened agents x goals table
        where = np.ascontiguousarray((perms + np.arange(n) * m).T)
        cached = _PERMUTATIONS[(m, n)] = (perms, where)
    perms, where = cached
    table = np.asarray(posts, dtype=float)  # agents x goals
    factors = table.ravel()[where]  # agents x hypotheses
    if not (table > 0).all():
        keep = (factors > 0).all(axis=0)  # a goal with probability 0 is never enumerated
        if not keep.all():
            perms, factors = perms[keep], factors[:, keep]
    if not len(perms):
        return [], 0
    w = factors[0].copy()
    for i in range(1, n):
        w *= factors[i]
    total = sum(w.tolist())
    if total <= 0:
        return [], 0
    w = w / total
    rows = np.arange(len(w))
    if prune_below > 0:
        heavy = np.flatnonzero(w >= prune_below)
        if len(heavy):
            rows = heavy
    left = len(rows)
    keep = _kept(w[rows], max_hypotheses) if max_hypotheses is not None else left
    if keep < left:
        rows = rows[_heaviest_rows(w[rows], keep)]  # ties: the first enumerated
    weights = w[rows].tolist()
    return [(tuple(goals[k] for k in perms[r]), weights[j]) for j, r in enumerate(rows.tolist())], left


def compute_utility(adapter: ProToMAdapter, state: Any, candidates: Sequence[Candidate],
                    hypotheses: Sequence[tuple[tuple[Goal, ...], float]],
                    beliefs: Sequence[tuple[float, Any]] | None = None) -> UtilityResult:
    """Algorithm 2: U(f) = sum_g P(g) * (C(none, g) - C(f, g)), once per distinct effect.
    With ``beliefs`` (weighted joint belief states, ``ProToMAdapter.cost_beliefs``) each C is
    the weighted mean of ``cost(..., beliefs=b)`` over them."""
    effects: dict[Hashable, int] = {}
    for c in candidates:
        effects.setdefault(c.effect, len(effects))
    representative = {e: next(c for c in candidates if c.effect == e) for e in effects}
    u = np.zeros(len(effects))
    for goals, w in hypotheses:
        if beliefs is None:
            base = adapter.cost(state, goals, None)
            for e, k in effects.items():
                u[k] += w * (base - adapter.cost(state, goals, representative[e]))
            continue
        for bw, b in beliefs:
            base = adapter.cost(state, goals, None, beliefs=b)
            for e, k in effects.items():
                u[k] += w * bw * (base - adapter.cost(state, goals, representative[e], beliefs=b))
    return UtilityResult(np.array([u[effects[c.effect]] for c in candidates]), len(hypotheses),
                         sum(w for _, w in hypotheses))


# ---------------------------------------------------------------------------- divergence


def divergence(adapter: ProToMAdapter, state: Any, candidate: Candidate, target_posterior: np.ndarray,
               measure: str = "centralised", particles: Sequence[Particle] | None = None,
               hypotheses: Sequence[tuple[tuple[Goal, ...], float]] | None = None) -> float:
    """How differently the agents would act without the feedback than with it.

    - ``centralised`` (mDKG, seed 003 Section 4.2: div from P(τ ∈ π* | f), the probability that
      the agents already act optimally according to a centralised planner, after Ullman et al.
      2009): div(f) = 1 − Σ_g P(g) · P(τ ∈ π* | f, g) over the joint goal hypotheses
      ``hypotheses`` (those of Algorithm 2), P(τ ∈ π* | f, g) from ``adapter.plan_agreement``.
      0 when every agent's own next action is already on an optimal joint plan that carries out
      f, whatever goals they have. Computed in the true state (``particles`` are not used).

    The others compare the target's own policies, expected over its goal posterior
    ``target_posterior``: ``p_f`` its policy while carrying out the feedback, ``p_g`` while
    pursuing goal g.

    - ``target-overlap`` (not the paper's): with A_f the argmax of p_f and A_g that of p_g, each
      optimal action equally likely, div = Σ_g b(g) · (1 − |A_g ∩ A_f| / |A_g|): the target's
      next step only, against the feedback's own plan rather than a joint one.
    - ``tv``: total variation distance between p_f and p_g.
    - ``js``: Jensen-Shannon divergence between p_f and p_g, base 2 (in [0, 1]); the
      paper's measure for Overcooked.

    With ``particles`` (the target's belief particles), ``target-overlap``, ``tv`` and ``js``
    are expected over them as well: each particle's policies are computed in its own belief
    state and weighted by its own goal distribution,
    div = sum_k w_k sum_g b_G,k(g) * d(p_f(b_S,k), p_g(b_S,k)) (w_k the normalized weights).
    """
    if measure not in DIVERGENCES:
        raise ValueError(f"divergence must be one of {', '.join(DIVERGENCES)}, got {measure!r}")
    if measure == "centralised":
        if hypotheses is None:
            raise ValueError("the centralised divergence needs the joint goal hypotheses")
        agree = sum(w * adapter.plan_agreement(state, goals, candidate) for goals, w in hypotheses)
        return max(0.0, min(1.0, 1.0 - agree))
    if particles:
        weight = sum(p.weight for p in particles)
        total = sum(p.weight * divergence(adapter, p.belief, candidate, p.goal_probs, measure) for p in particles)
        return max(0.0, min(1.0, total / weight))
    agent = candidate.target
    p_f = adapter.policy(state, agent, candidate=candidate)
    best = p_f >= p_f.max() - 1e-12
    total = 0.0
    for k, goal in enumerate(adapter.goals(agent)):
        w = float(target_posterior[k])
        if w <= 0:
            continue
        p_g = adapter.policy(state, agent, goal=goal)
        if measure == "target-overlap":
            own = p_g >= p_g.max() - 1e-12
            d = 1.0 - float((own & best).sum()) / float(own.sum())
        elif measure == "tv":
            d = 0.5 * float(np.abs(p_f - p_g).sum())
        else:
            d = jensen_shannon(p_f, p_g)
        total += w * d
    return max(0.0, min(1.0, total))


def jensen_shannon(p: np.ndarray, q: np.ndarray) -> float:
    m = 0.5 * (p + q)

    def kl(a: np.ndarray) -> float:
        nz = a > 0
        return float((a[nz] * np.log2(a[nz] / m[nz])).sum())

    return 0.5 * kl(p) + 0.5 * kl(q)


# ---------------------------------------------------------------------------- selection


@dataclass
class Selection:
    """What Eq. 15-16 decided in one step, for the views and the tests."""

    candidates: list[Candidate]
    utilities: np.ndarray
    divergences: dict[int, float] = field(default_factory=dict)  # computed for the best ones only
    eligible: list[int] = field(default_factory=list)
    chosen: int | None = None


def select_feedback(adapter: ProToMAdapter, state: Any, candidates: Sequence[Candidate], utilities: np.ndarray,
                    posteriors: Mapping[AgentId, np.ndarray], rng: np.random.Generator, phi: float, eps: float,
                    measure: str = "centralised", tolerance: float = 1e-9,
                    particles: Mapping[AgentId, Sequence[Particle]] | None = None,
                    hypotheses: Sequence[tuple[tuple[Goal, ...], float]] | None = None) -> Selection:
    """Eq. 15: F̂ = {f | U(f) = max U > phi and div(f) > eps}; Eq. 16: one of F̂ uniformly.
    ``particles``: per agent, the belief particles the divergence is expected over; ``hypotheses``:
    the joint goal hypotheses of the utility (the ``centralised`` divergence averages over them;
    all of them, unpruned, when not given). See ``divergence``."""
    sel = Selection(list(candidates), utilities)
    if not len(candidates):
        return sel
    best = float(utilities.max())
    if not best > phi:
        return sel
    if measure == "centralised" and hypotheses is None:
        hypotheses = joint_hypotheses(adapter, posteriors)
    for k in np.flatnonzero(utilities >= best - tolerance * max(1.0, abs(best))):
        target = candidates[k].target
        d = divergence(adapter, state, candidates[k], posteriors[target], measure,
                       particles.get(target) if particles else None, hypotheses)
        sel.divergences[int(k)] = d
        if d > eps:
            sel.eligible.append(int(k))
    if sel.eligible:
        sel.chosen = sel.eligible[int(rng.integers(len(sel.eligible)))]
    return sel


def most_probable_goals(adapter: ProToMAdapter, posteriors: Mapping[AgentId, np.ndarray]) -> dict[AgentId, Goal]:
    """The most probable joint goal hypothesis (Eq. 17's argmax; ties: the first found).
    Without exclusive goals that is each agent's own most probable goal."""
    if not adapter.exclusive_goals:
        return {a: adapter.goals(a)[int(np.argmax(posteriors[a]))] for a in adapter.agents}
    hypotheses = joint_hypotheses(adapter, posteriors)
    if not hypotheses:
        return {a: adapter.goals(a)[int(np.argmax(posteriors[a]))] for a in adapter.agents}
    goals, _ = max(hypotheses, key=lambda h: h[1])
    return dict(zip(adapter.agents, goals))
