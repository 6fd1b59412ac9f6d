"""Inferring a player's secret target from what another player could see (ToM orders 1 and 2).

Bayesian inverse planning over target hypotheses. The hypotheses are the rule set's
possible targets (its generator pool, or every craftable item) that the items in play can
reach, minus items the player held at the start. The likelihood of what the observer saw,
given that the subject's target is ``g`` (values ``v_g`` are ``Valuer.coarse_values``):

* a proposal by the subject: each requested item type is drawn from the partner's hand
  with probability softmax(beta_p * v_g); each offered type from its own hand with
  softmax(-beta_p * v_g);
* a decision by the subject: P(accept) = sigmoid(beta_d * (v_g(received) - v_g(given))),
  summed over the items with their amounts;
* a craft phase: a subject that could have crafted ``g`` from its hand and did not win
  makes ``g`` unlikely (factor ``missed_win``); item types that appear in its hand after
  crafting tilt towards targets that use them (exp(craft_weight * v_g / 10) each);
* the prior is uniform except that targets the subject could craft alone from its initial
  hand get weight ``needs_trade_prior`` (instances are built so that everyone must trade).

Order 1 (V1): observer = me, subject = the opponent, over my own observation. Order 2 (V2):
observer = the opponent, subject = me, over the part of my observation the opponent saw too
(rejected proposals between me and a third player are hidden from it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from agents.tradecraft.values import Valuer
from sim.tradecraft.crafting import HandKey, to_hand
from sim.tradecraft.generator import pools
from sim.tradecraft.solver import plan_crafts
from sim.tradecraft.world import ProposalView, TCObservation, TradeCraftWorld


@dataclass(frozen=True, slots=True)
class InferenceParams:
    beta_proposal: float = 0.3
    beta_decision: float = 0.3
    craft_weight: float = 1.5
    missed_win: float = 0.02
    needs_trade_prior: float = 0.05


class TargetInference:
    def __init__(self, world: TradeCraftWorld, valuer: Valuer, params: InferenceParams = InferenceParams()) -> None:
        self.world = world
        self.graph = world.graph
        self.valuer = valuer
        self.params = params
        targets, _, _ = pools(world.rules)
        self.target_pool = targets
        self._craftable: dict[tuple[str, HandKey], bool] = {}
        self._candidates: dict[tuple, list[str]] = {}

    # ---------------------------------------------------------- hypotheses

    def candidates(self, initial_hands: tuple[HandKey, ...], subject_index: int) -> list[str]:
        key = (initial_hands, subject_index)
        if key not in self._candidates:
            pool = {i for h in initial_hands for i, n in h if n > 0}
            reach = self.graph.closure(pool)
            held = {i for i, n in initial_hands[subject_index] if n > 0}
            self._candidates[key] = [t for t in self.target_pool if t in reach and t not in held]
        return self._candidates[key]

    def can_craft(self, target: str, hand: HandKey) -> bool:
        key = (target, hand)
        if key not in self._craftable:
            have = to_hand(hand)
            ok = self.graph.reachable(target, set(have)) and plan_crafts(self.graph, have, target) is not None
            self._craftable[key] = ok
        return self._craftable[key]

    # ---------------------------------------------------------- posterior

    def posterior(self, obs: TCObservation, subject: str, observer: str) -> dict[str, float]:
        """P(subject's target = g | what ``observer`` saw), from ``obs`` (the viewer's own observation)."""
        players = obs.players
        s = players.index(subject)
        hyps = self.candidates(obs.initial_hands, s)
        if not hyps:
            return {}
        p = self.params
        logp = np.zeros(len(hyps))
        for k, g in enumerate(hyps):
            if self.can_craft(g, obs.initial_hands[s]):
                logp[k] += math.log(p.needs_trade_prior)

        def hands_at_trade(turn: int) -> tuple[HandKey, ...]:
            return obs.initial_hands if turn == 0 else obs.hands_history[turn - 1][1]

        def visible(view: ProposalView) -> bool:
            return not view.hidden and (view.accepted is not False or observer in (view.proposer, view.to))

        views = list(obs.history)
        if obs.pending is not None:
            views.append(obs.pending)
        for view in views:
            if view.to is None or not visible(view):
                continue
            hands = obs.hands if view.turn == obs.turn else hands_at_trade(view.turn)
            pool = frozenset(i for h in hands for i, n in h if n > 0)
            if view.proposer == subject:
                partner = players.index(view.to)
                logp += self._proposal_loglik(hyps, pool, hands[partner], hands[s], view)
            elif view.to == subject and view.accepted is not None:
                logp += self._decision_loglik(hyps, pool, view)
        won = set(obs.winners)
        for before, after in obs.hands_history:
            pool = frozenset(i for h in before for i, n in h if n > 0)
            produced = [i for i, n in after[s] if n > dict(before[s]).get(i, 0)]
            for k, g in enumerate(hyps):
                if subject not in won and self.can_craft(g, before[s]):
                    logp[k] += math.log(p.missed_win)
                if produced:
                    v = self.valuer.coarse_values(g, pool | set(produced))
                    logp[k] += p.craft_weight * sum(v.get(i, 0.0) for i in produced) / 10.0
        logp -= logp.max()
        weights = np.exp(logp)
        weights /= weights.sum()
        return {g: float(w) for g, w in zip(hyps, weights)}

    def _proposal_loglik(self, hyps: list[str], pool: frozenset[str], partner_hand: HandKey, own_hand: HandKey,
                         view: ProposalView) -> np.ndarray:
        beta = self.params.beta_proposal
        partner_items = [i for i, n in partner_hand if n > 0]
        own_items = [i for i, n in own_hand if n > 0]
        out = np.zeros(len(hyps))
        for k, g in enumerate(hyps):
            v = self.valuer.coarse_values(g, pool)
            total = 0.0
            if view.request and partner_items:
                logits = np.array([beta * v.get(i, 0.0) for i in partner_items])
                lse = float(np.log(np.exp(logits - logits.max()).sum()) + logits.max())
                total += sum(beta * v.get(i, 0.0) - lse for i, _ in view.request if i in partner_items)
            if view.offer and own_items:
                logits = np.array([-beta * v.get(i, 0.0) for i in own_items])
                lse = float(np.log(np.exp(logits - logits.max()).sum()) + logits.max())
                total += sum(-beta * v.get(i, 0.0) - lse for i, _ in view.offer if i in own_items)
            out[k] = total
        return out

    def _decision_loglik(self, hyps: list[str], pool: frozenset[str], view: ProposalView) -> np.ndarray:
        beta = self.params.beta_decision
        out = np.zeros(len(hyps))
        for k, g in enumerate(hyps):
            v = self.valuer.coarse_values(g, pool)
            u = sum(n * v.get(i, 0.0) for i, n in view.offer) - sum(n * v.get(i, 0.0) for i, n in view.request)
            z = beta * u if view.accepted else -beta * u
            out[k] = -math.log1p(math.exp(-z)) if z > -30 else z
        return out

    # ------------------------------------------------------------- values

    def expected_values(self, posterior: Mapping[str, float], holder: HandKey, others: tuple[HandKey, ...],
                        items: list[str], mass: float = 0.95, max_hypotheses: int = 8) -> dict[str, float]:
        """Sum over the likeliest hypotheses (covering ``mass``) of P(g) times the values for g."""
        ranked = sorted(posterior.items(), key=lambda kv: (-kv[1], kv[0]))
        chosen, acc = [], 0.0
        for g, w in ranked:
            chosen.append((g, w))
            acc += w
            if acc >= mass or len(chosen) >= max_hypotheses:
                break
        total = sum(w for _, w in chosen) or 1.0
        out = {i: 0.0 for i in items}
        for g, w in chosen:
            values = self.valuer.values(g, holder, others)
            for i in items:
                out[i] += w / total * values.get(i, 0.0)
        return out


def hand_units(pairs: tuple[tuple[str, int], ...] | Mapping[str, Fraction | int], values: Mapping[str, float]) -> float:
    """Sum of values over a multiset of items (the paper's G_k and L_k)."""
    items = pairs.items() if isinstance(pairs, Mapping) else pairs
    return float(sum(float(n) * values.get(i, 0.0) for i, n in items))
