"""Item values on the paper's 0-10 scale, from routes over the recipe graph (V0 and its relatives).

The value of item ``i`` for a player whose target is ``g`` (holding ``hand``, the others
holding ``others``) is

* 10 when ``i`` is the target itself or *essential*: no route from the items in play reaches
  ``g`` without it;
* 7 when the player's cheapest route (an LP that prefers its own items and prices every unit
  from another player at 1) uses it;
* 3 when some other route could use it;
* 0 otherwise.

V0 is this value for one's own target. V1 and V2 average it over a posterior on a target
(see ``inference``): V1 over the opponent's target, valued from the opponent's hand; V2
over what the opponent believes one's own target to be, valued from one's own hand.
``coarse_values`` is the same scale without the LP (7 and 3 merge into 5): cheap enough
to score every hypothesis inside the likelihoods.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from sim.tradecraft.crafting import HandKey, hand_key
from sim.tradecraft.solver import RecipeGraph

ESSENTIAL, ON_ROUTE, USABLE, COARSE_USABLE = 10.0, 7.0, 3.0, 5.0


class Valuer:
    """Computes and caches item values for one rule set (one per world)."""

    def __init__(self, graph: RecipeGraph, cache_size: int = 20_000) -> None:
        self.graph = graph
        self._coarse: OrderedDict[tuple, dict[str, float]] = OrderedDict()
        self._full: OrderedDict[tuple, dict[str, float]] = OrderedDict()
        self._size = cache_size

    def _remember(self, cache: OrderedDict, key: tuple, value: dict[str, float]) -> dict[str, float]:
        cache[key] = value
        if len(cache) > self._size:
            cache.popitem(last=False)
        return value

    def coarse_values(self, target: str, pool: Iterable[str]) -> dict[str, float]:
        """Value of each item type in ``pool`` for ``target``: 10 essential, 5 usable, 0 else."""
        pool = frozenset(pool)
        key = (target, pool)
        hit = self._coarse.get(key)
        if hit is not None:
            return hit
        relevant = self.graph.relevant(target, pool)
        essential = self.graph.essential(target, pool) if relevant else set()
        values = {i: (ESSENTIAL if i == target or i in essential else COARSE_USABLE if i in relevant else 0.0)
                  for i in pool}
        return self._remember(self._coarse, key, values)

    def values(self, target: str, hand: Mapping[str, Fraction] | HandKey,
               others: Sequence[Mapping[str, Fraction] | HandKey]) -> dict[str, float]:
        """Values (0/3/7/10) of every item type held by anyone, for a player with ``hand``."""
        own = hand_key(hand) if isinstance(hand, Mapping) else hand
        rest = tuple(hand_key(h) if isinstance(h, Mapping) else h for h in others)
        key = (target, own, rest)
        hit = self._full.get(key)
        if hit is not None:
            return hit
        pool = frozenset(i for h in (own, *rest) for i, n in h if n > 0)
        coarse = self.coarse_values(target, pool)
        used: set[str] = set()
        if any(v > 0 for v in coarse.values()):
            route = self.graph.route({target: 1}, [dict(own), *[dict(h) for h in rest]],
                                     [0.001] + [1.0] * len(rest))
            used = route.used_items() if route.feasible else set()
        values = {}
        for item, v in coarse.items():
            if v >= ESSENTIAL:
                values[item] = ESSENTIAL
            elif v > 0:
                values[item] = ON_ROUTE if item in used else USABLE
            else:
                values[item] = 0.0
        return self._remember(self._full, key, values)
