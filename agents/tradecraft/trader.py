"""The planner trader: route planning, ToM value reports (V0/V1/V2) and an explicit trade utility.

At every proposal and every decision the trader reports its values over all items in all
hands on the 0-10 scale (Section 3.3 of seed 002) as a ``BeliefEvent`` of kind
``tom_values``, and then acts on them with the paper's utility (Eqs. 1-3), from its own
side of the trade (G = what it receives, L = what it gives)::

    U = G0 - rho*L0  [+ w1*(G1 - gamma*L1)  if order >= 1]  [+ w2*(G2 - kappa*L2)  if order >= 2]

* decisions: accept with probability sigmoid(beta * (U - theta)) (beta = 0: accept iff U > theta);
  this is the rule that ``sim.analysis.tradecraft`` fits back from the recordings;
* proposals: request what its cheapest route needs from the partner it needs most from;
  offer items its route can spare; each candidate scores P(accept) * U, where P(accept)
  predicts the partner from V1; it samples a candidate with softmax(score / explore)
  (explore = 0: the best);
* crafting: when an exact craft plan from its hand to its target exists, it crafts it all.

``tom_values`` data: ``{"stage": "proposal"|"decision", "turn", "opponent", "order",
"items", "V0": {item: value}, "V1": {...} (order >= 1), "V2": {...} (order >= 2),
"beliefs": {"opponent_target": {item: p}, "opponent_belief_about_me": {item: p}},
"utility": {"G0", "L0", "G1", "L1", "G2", "L2", "U"}, "action": {...}}`` with item ids as keys.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any, Literal

import numpy as np

from agents.params import NonNegative
from agents.tradecraft.inference import InferenceParams, TargetInference, hand_units
from agents.tradecraft.values import ON_ROUTE, Valuer
from sim.events import BeliefEvent
from sim.seats import Agent, SeatContext
from sim.snapshots import ToMValues
from sim.tradecraft.crafting import Craft, apply_craft, to_hand
from sim.tradecraft.solver import plan_crafts
from sim.tradecraft.world import (
    CRAFT,
    DONE,
    PROPOSE,
    RESPOND,
    CraftTurn,
    Pass,
    Propose,
    Respond,
    TCObservation,
    TradeCraftWorld,
)

TOM_VALUES = "tom_values"
_MINDS: "weakref.WeakKeyDictionary[TradeCraftWorld, tuple[Valuer, TargetInference]]" = weakref.WeakKeyDictionary()


def minds_for(world: TradeCraftWorld) -> tuple[Valuer, TargetInference]:
    """One valuer and one inference engine (with their caches) per world, shared by its traders."""
    found = _MINDS.get(world)
    if found is None:
        valuer = Valuer(world.graph)
        found = _MINDS[world] = (valuer, TargetInference(world, valuer, InferenceParams()))
    return found


@dataclass(frozen=True, slots=True)
class UtilityWeights:
    """The parameters of Eqs. 1-3 (rho, gamma, kappa, w1, w2) plus the decision threshold and softness."""

    rho: float = 1.5
    w1: float = 0.6
    gamma: float = 0.5
    w2: float = 0.4
    kappa: float = 0.5
    theta: float = 0.0
    beta: float = 0.5

    def utility(self, f: Mapping[str, float], order: int) -> float:
        u = f["G0"] - self.rho * f["L0"]
        if order >= 1:
            u += self.w1 * (f["G1"] - self.gamma * f["L1"])
        if order >= 2:
            u += self.w2 * (f["G2"] - self.kappa * f["L2"])
        return u

    def coefficients(self, order: int) -> dict[str, float]:
        """The weight of each gain/loss feature in U (the truth the utility fit should recover)."""
        c = {"G0": 1.0, "L0": -self.rho}
        if order >= 1:
            c |= {"G1": self.w1, "L1": -self.w1 * self.gamma}
        if order >= 2:
            c |= {"G2": self.w2, "L2": -self.w2 * self.kappa}
        return c


def features(values: Mapping[str, Mapping[str, float]], receive: Any, give: Any) -> dict[str, float]:
    """G_k (value of what one receives) and L_k (value of what one gives) for each reported order."""
    f = {}
    for k in (0, 1, 2):
        v = values.get(f"V{k}")
        f[f"G{k}"] = hand_units(receive, v) if v is not None else 0.0
        f[f"L{k}"] = hand_units(give, v) if v is not None else 0.0
    return f


class PlannerTrader(Agent):
    kind = "trader"

    def __init__(self, order: Literal[0, 1, 2] = 2, rho: float = 1.5, w1: float = 0.6, gamma: float = 0.5, w2: float = 0.4,
                 kappa: float = 0.5, theta: float = 0.0, beta: NonNegative = 0.5, explore: NonNegative = 0.5,
                 report: bool = True) -> None:
        if order not in (0, 1, 2):
            raise ValueError(f"order must be 0, 1 or 2 (the ToM order), got {order}")
        if beta < 0 or explore < 0:
            raise ValueError("beta and explore must be non-negative")
        self.order = int(order)
        self.weights = UtilityWeights(rho, w1, gamma, w2, kappa, theta, beta)
        self.explore = float(explore)
        self.report = bool(report)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "order": self.order, **asdict(self.weights), "explore": self.explore}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, TradeCraftWorld):
            raise TypeError(f"trader agents play TradeCraft, not {ctx.world.family}")
        self.world: TradeCraftWorld = ctx.world
        self.valuer, self.inference = minds_for(self.world)
        self.target = self.world.target_of(ctx.agent_id)

    # ------------------------------------------------------------ acting

    def act(self, observation: TCObservation, legal_actions: Sequence[Any]) -> Any:
        if observation.phase == PROPOSE:
            return self._propose(observation)
        if observation.phase == RESPOND:
            return self._decide(observation)
        if observation.phase == CRAFT:
            return self._craft(observation)
        return legal_actions[0] if legal_actions else DONE

    def tom_values(self, obs: TCObservation, opponent: str) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
        """V0 (and V1, V2 up to the trader's order) over every item in every hand, and the posteriors."""
        me = obs.agent
        players = obs.players
        hands = list(obs.hands)
        hands[players.index(me)] = obs.hand
        items = sorted({i for h in hands for i, n in h if n > 0})
        mine = hands[players.index(me)]
        others = tuple(h for p, h in zip(players, hands) if p != me)
        v0 = {i: 0.0 for i in items}
        for item in self.target:
            for i, v in self.valuer.values(item, mine, others).items():
                v0[i] = max(v0.get(i, 0.0), v)
        values: dict[str, dict[str, float]] = {"V0": v0}
        beliefs: dict[str, Any] = {}
        if self.order >= 1:
            post = self.inference.posterior(obs, opponent, me)
            theirs = hands[players.index(opponent)]
            rest = tuple(h for p, h in zip(players, hands) if p != opponent)
            values["V1"] = self.inference.expected_values(post, theirs, rest, items)
            beliefs["opponent_target"] = _top(post)
        if self.order >= 2:
            post2 = self.inference.posterior(obs, me, opponent)
            values["V2"] = self.inference.expected_values(post2, mine, others, items)
            beliefs["opponent_belief_about_me"] = _top(post2)
        values = {k: {i: round(v, 1) for i, v in vs.items() if i in items} for k, vs in values.items()}
        return values, beliefs

    def _emit(self, obs: TCObservation, stage: str, opponent: str, values: Mapping[str, Any], beliefs: Mapping[str, Any],
              utility: Mapping[str, float], action: Any) -> None:
        if not self.report:
            return
        data = ToMValues(stage=stage, turn=obs.turn, opponent=opponent, order=self.order, scale=[0, 10],
                         items=sorted(values["V0"]), **values, beliefs=dict(beliefs),
                         utility={k: round(v, 3) for k, v in utility.items()},
                         action=self.world.encode_action(action))
        self.ctx.emit(BeliefEvent(tick=self.ctx.tick, owner=self.ctx.agent_id, kind=TOM_VALUES, data=data.to_dict()))

    # ----------------------------------------------------------- decide

    def _decide(self, obs: TCObservation) -> Respond:
        p = obs.pending
        values, beliefs = self.tom_values(obs, p.proposer)
        f = features(values, p.offer, p.request)
        u = self.weights.utility(f, self.order)
        if self.weights.beta > 0:
            prob = _sigmoid(self.weights.beta * (u - self.weights.theta))
            accept = bool(self.ctx.rng.random() < prob)
        else:
            prob = float(u > self.weights.theta)
            accept = u > self.weights.theta
        action = Respond(accept)
        self._emit(obs, "decision", p.proposer, values, beliefs, {**f, "U": u, "p_accept": prob}, action)
        return action

    # ---------------------------------------------------------- propose

    def _propose(self, obs: TCObservation) -> Propose | Pass:
        me = obs.agent
        players = obs.players
        mine = to_hand(obs.hand)
        if self._crafts(mine) is not None:
            return Pass()  # it wins in this craft phase; nothing to ask for
        others = [p for p in players if p != me]
        supplies = [mine] + [obs.hand_of(p) for p in others]
        item = next(iter(self.target))
        route = self.world.graph.route(self.target, supplies, [0.001] + [1.0] * len(others))
        if not route.feasible:
            return Pass()
        needs: dict[str, dict[str, int]] = {}
        for p, used in zip(others, route.supplies_used[1:]):
            held = obs.hand_of(p)
            need = {i: min(int(held.get(i, 0)), max(1, math.ceil(v - 1e-6))) for i, v in used.items() if v > 1e-6}
            if need:
                needs[p] = need
        if not needs:
            return Pass()
        own_use = {i: math.ceil(v - 1e-6) for i, v in route.supplies_used[0].items() if v > 1e-6}
        del item
        # the partner whose items matter most (V0 over what it would give)
        best_partner, best_score, best_values = None, -1.0, None
        for p in others:
            if p not in needs:
                continue
            values, beliefs = self.tom_values(obs, p)
            score = hand_units(needs[p], values["V0"])
            if score > best_score:
                best_partner, best_score, best_values = p, score, (values, beliefs)
        partner = best_partner
        values, beliefs = best_values
        request_options = [tuple(sorted(needs[partner].items()))]
        if len(needs[partner]) > 1:
            request_options += [((i, n),) for i, n in sorted(needs[partner].items())]
        spare = {i: int(n) - own_use.get(i, 0) for i, n in mine.items()
                 if int(n) - own_use.get(i, 0) >= 1 and values["V0"].get(i, 0.0) < ON_ROUTE}
        offer_options: list[tuple[tuple[str, int], ...]] = [()]
        singles = sorted(spare)
        for i in singles:
            offer_options += [((i, k),) for k in range(1, min(2, spare[i]) + 1)]
        offer_options += [((a, 1), (b, 1)) for a, b in combinations(singles, 2)]
        scored = []
        for request in request_options:
            for offer in offer_options:
                f = features(values, request, offer)
                u = self.weights.utility(f, self.order)
                scored.append((u * self._p_accept(values, request, offer), u, f, request, offer))
        scores = np.array([s[0] for s in scored])
        if self.explore > 0:
            logits = (scores - scores.max()) / self.explore
            probs = np.exp(logits)
            probs /= probs.sum()
            pick = int(self.ctx.rng.choice(len(scored), p=probs))
        else:
            pick = int(np.argmax(scores))
        _, u, f, request, offer = scored[pick]
        action = Propose(partner, offer, request, self._message(request, offer))
        self._emit(obs, "proposal", partner, values, beliefs, {**f, "U": u}, action)
        return action

    def _p_accept(self, values: Mapping[str, Mapping[str, float]], request: Any, offer: Any) -> float:
        """The trader's forecast that the partner accepts: fair counts, and (order >= 1) its values by V1."""
        z = 0.5 * (sum(n for _, n in offer) - sum(n for _, n in request))
        if self.order >= 1:
            z += 0.4 * (hand_units(offer, values["V1"]) - hand_units(request, values["V1"]))
        return _sigmoid(z)

    def _message(self, request: Any, offer: Any) -> str:
        show = self.world.rules.display
        wants = ", ".join(f"{n} {show(i)}" for i, n in request)
        gives = ", ".join(f"{n} {show(i)}" for i, n in offer) or "nothing in return this time"
        return f"I could use {wants}; I offer {gives}."

    # ------------------------------------------------------------ craft

    def _crafts(self, hand: dict[str, Fraction]) -> list[Craft] | None:
        crafts: list[Craft] = []
        for item, amount in self.target.items():
            plan = plan_crafts(self.world.graph, hand, item, amount, crafting=self.world.crafting)
            if plan is None:
                return None
            for craft in plan:
                hand = apply_craft(self.world.rules, hand, craft, self.world.crafting)
            crafts += plan
        return crafts

    def _craft(self, obs: TCObservation) -> CraftTurn:
        crafts = self._crafts(to_hand(obs.hand))
        return CraftTurn(tuple(crafts), True) if crafts else DONE


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z > -50 else 0.0


def _top(posterior: Mapping[str, float], k: int = 5) -> dict[str, float]:
    return {g: round(p, 4) for g, p in sorted(posterior.items(), key=lambda kv: (-kv[1], kv[0]))[:k]}
