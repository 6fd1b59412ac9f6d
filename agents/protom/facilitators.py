"""The ProToM facilitator (Algorithm 1) and its baselines (seed 003, Section 4.2).

    protom   Bayesian goal inference + expected utility of feedback + phi/eps thresholds
    oracle   ProToM-Oracle: the same, with the agents' true goals instead of inferred ones
    random   each step, with probability 0.5, one feedback drawn uniformly from F_t
    none     no facilitator (``make_mechanism("none")`` gives None)

Every facilitator keeps the busy rule: no new feedback while an agent is still carrying
one out (``respect_busy=false`` lifts it).

Belief snapshots (BeliefEvents owned by the mechanism's name, "protom" unless set):
    goal_posterior       {"agent": name, "goals": {goal: p}} for every agent, every step
    feedback_candidates  {"candidates": [{"target", "label", "feedback", "text", "utility",
                          "divergence"}], "chosen": index or None, "phi", "eps", "hypotheses"}
                          whenever feedback was considered; "hypotheses" counts the joint goal
                          hypotheses Eq. 12 averaged over; only when ``max_hypotheses`` left
                          some out, "hypotheses_total" says how many the posteriors left and
                          "hypotheses_mass" the probability the ones averaged over hold
    particles            where the world's adapter shows them (the kitchen): per agent, what it is
                          believed to believe about what it cannot see (docs/kitchen.md)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, PlainValidator

from agents.params import BelowOne, NonNegative, Probability
from agents.protom.core import (
    DIVERGENCES,
    Candidate,
    GoalInference,
    HypothesisLimit,
    ProToMAdapter,
    adapter_for,
    check_hypothesis_limit,
    compute_utility,
    counted_hypotheses,
    most_probable_goals,
    select_feedback,
)
from sim.seats import Facilitator, Feedback, SeatContext, StepView
from sim.snapshots import ABSENT, FeedbackCandidates, GoalPosterior
from sim.world import AgentId, World


def _hypothesis_limit(value: Any) -> HypothesisLimit:
    """A spec's ``max_hypotheses`` ("8", "auto", "all") as the facilitator takes it."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    try:
        return check_hypothesis_limit(value)
    except ValueError:
        raise ValueError("expected a whole number of at least 1, 'auto' or 'all'") from None


#: the ``max_hypotheses`` parameter, checked by the registry before the facilitator is built
MaxHypotheses = Annotated[HypothesisLimit, PlainValidator(_hypothesis_limit)]

#: belief particles per agent at most (docs/limits.md): each one is planned for at every step
MAX_PARTICLES = 1000
#: joint goal hypotheses Eq. 12 averages over, by default: every one while at most
#: ``core.AUTO_EXACT_UP_TO`` are left, else the heaviest (docs/protom.md, "With many agents")
MAX_HYPOTHESES: HypothesisLimit = "auto"


class ProToMFacilitator(Facilitator):
    """Algorithm 1. World-specific parameters (e.g. ``temperature``) go to the world's adapter."""

    kind = "protom"
    oracle = False

    def __init__(self, phi: NonNegative | None = None, eps: Probability | None = None,
                 particles: Annotated[int, Field(ge=1, le=MAX_PARTICLES)] | None = None,
                 divergence: Literal[DIVERGENCES] | None = None,  # type: ignore[valid-type]
                 prune_below: BelowOne = 1e-3,
                 max_hypotheses: MaxHypotheses = MAX_HYPOTHESES,
                 goal_prior: Mapping[str, Any] | None = None, respect_busy: bool = True,
                 **adapter_params: Any) -> None:
        if divergence is not None and divergence not in DIVERGENCES:
            raise ValueError(f"divergence must be one of {', '.join(DIVERGENCES)}, got {divergence!r}")
        if particles is not None and not 1 <= particles <= MAX_PARTICLES:
            raise ValueError(f"particles must be in [1, {MAX_PARTICLES}], got {particles}")
        if eps is not None and not 0 <= eps <= 1:
            raise ValueError(f"eps must be in [0, 1] (divergences lie in [0, 1]), got {eps}")
        if phi is not None and not phi >= 0:
            raise ValueError(f"phi must be at least 0, got {phi}")
        if not 0 <= prune_below < 1:
            raise ValueError(f"prune_below must be in [0, 1), got {prune_below}")
        # None: the world's default (the adapter's), resolved in reset()
        self.settings: dict[str, Any] = {"phi": phi, "eps": eps, "particles": particles, "divergence": divergence}
        self.prune_below = float(prune_below)
        self.max_hypotheses = check_hypothesis_limit(max_hypotheses)
        self.goal_prior = goal_prior
        self.respect_busy = bool(respect_busy)
        self.adapter_params = dict(adapter_params)
        self.last_selection = None
        self._snapshots: list[tuple[str, dict[str, Any]]] = []

    # ------------------------------------------------------------ set-up

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        super().reset(world, state, ctx)
        self.adapter: ProToMAdapter = adapter_for(world, **self.adapter_params)
        self.settings = {k: (v if v is not None else self.adapter.defaults[k]) for k, v in self.settings.items()}
        self.phi = float(self.settings["phi"])
        self.eps = float(self.settings["eps"])
        self.n_particles = int(self.settings["particles"])
        self.divergence = str(self.settings["divergence"])
        self.rng = ctx.rng
        self.inference = None if self.oracle else GoalInference(
            self.adapter, state, self.rng, particles=self.n_particles, prior=self.goal_prior)
        self.last_selection = None
        self._snapshots = []
        self._sent: list[list[Any]] = []

    def episode_summary(self) -> dict[str, Any]:
        """For experiment records: every feedback sent, as [tick, target, label] (the tick of the
        state it was chosen in), so that conditions can be compared episode by episode."""
        return {"feedback": [list(x) for x in self._sent]}

    def round_start(self, state: Any) -> None:
        """A new task round: goal inference starts again from the round's first state, as in a new
        episode (its particles stood for the ended round's world)."""
        if self.inference is not None:
            self.inference = GoalInference(self.adapter, state, self.rng, particles=self.n_particles,
                                           prior=self.goal_prior)
        self.last_selection = None

    def describe(self) -> dict[str, Any]:
        d = {"kind": self.kind, **self.settings, "prune_below": self.prune_below,
             "respect_busy": self.respect_busy, **self.adapter_params}
        if self.max_hypotheses != MAX_HYPOTHESES:
            d["max_hypotheses"] = "all" if self.max_hypotheses is None else self.max_hypotheses
        if self.goal_prior:
            d["goal_prior"] = self.goal_prior
        return d

    # ------------------------------------------------------------ beliefs

    def posteriors(self) -> dict[AgentId, np.ndarray]:
        if self.oracle:
            truth = self.adapter.true_goals()
            return {a: np.array([1.0 if g == truth[a] else 0.0 for g in self.adapter.goals(a)])
                    for a in self.adapter.agents}
        return self.inference.posteriors()

    # --------------------------------------------------------------- step

    def suggest(self, step: StepView, busy: Mapping[AgentId, int]) -> Sequence[Feedback]:
        before, joint_action, after = step.before, step.joint_action, step.after
        adapter = self.adapter
        if self.inference is not None:
            # Actions taken while carrying out a feedback say nothing about the agent's own goal.
            self.inference.observe(before, joint_action, after, skip_goal_update=frozenset(busy))
        posts = self.posteriors()
        self._snapshots = [("goal_posterior", GoalPosterior(agent=a, goals={
            str(g): round(float(p), 6) for g, p in zip(adapter.goals(a), posts[a])})) for a in adapter.agents]
        if self.inference is not None:
            for a, belief in self.inference.beliefs.items():
                view = adapter.particles_snapshot(after, a, belief)
                if view is not None:
                    self._snapshots.append(("particles", view))
        self.last_selection = None
        if (busy and self.respect_busy) or adapter.done(after):
            return []
        candidates = adapter.candidates(after)
        if not candidates:
            return []
        hypotheses, left = counted_hypotheses(adapter, posts, self.prune_below, self.max_hypotheses)
        beliefs = adapter.cost_beliefs(after, None if self.inference is None else
                                       {a: b.particles for a, b in self.inference.beliefs.items()})
        result = compute_utility(adapter, after, candidates, hypotheses, beliefs)
        particles = None
        if adapter.particle_divergence and self.inference is not None:
            particles = {a: b.particles for a, b in self.inference.beliefs.items()}
        sel = select_feedback(adapter, after, candidates, result.utilities, posts, self.rng, self.phi, self.eps,
                              self.divergence, particles=particles, hypotheses=hypotheses)
        self.last_selection = sel
        self._snapshots.append(("feedback_candidates", FeedbackCandidates(
            candidates=[{"target": c.target, "label": c.label, "feedback": dict(c.payload),
                         "text": adapter.feedback_text(after, c),
                         "utility": round(float(result.utilities[k]), 6),
                         "divergence": (round(sel.divergences[k], 6) if k in sel.divergences else None)}
                        for k, c in enumerate(candidates)],
            chosen=sel.chosen, phi=self.phi, eps=self.eps, hypotheses=result.combos,
            hypotheses_total=left if len(hypotheses) < left else ABSENT,
            hypotheses_mass=round(float(result.mass), 6) if len(hypotheses) < left else ABSENT)))
        if sel.chosen is None:
            return []
        chosen = candidates[sel.chosen]
        likely = most_probable_goals(adapter, posts)
        post_maps = {a: dict(zip(adapter.goals(a), map(float, posts[a]))) for a in adapter.agents}
        msg = adapter.message(after, chosen, likely, post_maps)
        self._sent.append([int(self.world.tick_of(after)), chosen.target, chosen.label])
        return [Feedback(feedback_id=0, target=chosen.target, payload=dict(msg.payload), text=msg.text,
                         explanation=msg.explanation, utility=round(float(result.utilities[sel.chosen]), 6))]

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        return list(self._snapshots)


class OracleFacilitator(ProToMFacilitator):
    """ProToM-Oracle: utilities and divergences from the agents' true goals."""

    kind = "oracle"
    oracle = True


class RandomFacilitator(Facilitator):
    """At each step, with probability ``probability``, one candidate of F_t drawn uniformly."""

    kind = "random"

    def __init__(self, probability: Probability = 0.5, respect_busy: bool = True) -> None:
        if not 0 <= probability <= 1:
            raise ValueError(f"probability must be in [0, 1], got {probability}")
        self.probability = float(probability)
        self.respect_busy = bool(respect_busy)

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        super().reset(world, state, ctx)
        self.adapter = adapter_for(world)
        self.rng = ctx.rng

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "probability": self.probability, "respect_busy": self.respect_busy}

    def suggest(self, step: StepView, busy: Mapping[AgentId, int]) -> Sequence[Feedback]:
        after = step.after
        if (busy and self.respect_busy) or self.adapter.done(after):
            return []
        candidates: list[Candidate] = self.adapter.candidates(after)
        # Always draw both numbers, so that the stream does not depend on the number of candidates.
        send = self.rng.random() < self.probability
        pick = self.rng.random()
        if not candidates or not send:
            return []
        chosen = candidates[int(pick * len(candidates))]
        return [Feedback(feedback_id=0, target=chosen.target, payload=dict(chosen.payload),
                         text=self.adapter.feedback_text(after, chosen), explanation="", utility=None)]
