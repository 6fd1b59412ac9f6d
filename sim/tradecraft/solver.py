"""Routes over the recipe graph: what can be made, from what, and exact craft sequences.

Three tools, from cheap to exact:

* set closures (``RecipeGraph``): which items a set of item *types* can lead to, which
  items could ever matter for a target (its backward closure), and which held items a
  target cannot do without (``essential``). Amounts are ignored; microseconds to a millisecond.
* linear programs (``RecipeGraph.route``): the cheapest way to obtain a target from several
  supplies (one's own hand, the other players' hands) with fractional crafting, fuel, tag
  choices and exact amounts; as a mixed-integer program it gives the paper's difficulty
  measures (fewest trades, fewest items received, fewest craft steps). Solved by HiGHS
  through ``scipy.optimize.milp``.
* an exact planner (``plan_crafts``): a list of ``Craft`` actions, in exact fractions, that
  turns a hand into one holding the target, checked by applying it with the game's rules.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from sim.tradecraft.crafting import FRACTIONAL, Craft, CraftError, apply_craft, legal_scale
from sim.tradecraft.rules import Recipe, RuleSet

EPS = 1e-7
MAX_DEPTH = 10


@dataclass(frozen=True)
class Route:
    """An LP/MILP answer: which supplies a route draws on and which recipes it runs."""

    feasible: bool
    objective: float = float("inf")
    supplies_used: tuple[dict[str, float], ...] = ()  # per supply (0 = one's own hand)
    recipes: dict[str, float] = field(default_factory=dict)  # recipe id -> scale
    inputs_used: dict[str, float] = field(default_factory=dict)  # item -> amount consumed by crafts or fuel

    def used_items(self) -> set[str]:
        out = {i for s in self.supplies_used for i, v in s.items() if v > EPS}
        return out

    def received(self) -> dict[str, float]:
        """Amounts drawn from supplies other than the first (what must come by trade)."""
        total: dict[str, float] = defaultdict(float)
        for supply in self.supplies_used[1:]:
            for item, v in supply.items():
                if v > EPS:
                    total[item] += v
        return dict(total)


@contextlib.contextmanager
def _quiet(active: bool) -> Iterator[None]:
    """Silence the solver library's stray diagnostics on standard output (integer programs only)."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "wb") as devnull:
        os.dup2(devnull.fileno(), 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


@dataclass
class _LPCore:
    row_of: dict[str, int] = field(default_factory=dict)
    next_row: int = 0
    rows: list[int] = field(default_factory=list)
    cols: list[int] = field(default_factory=list)
    vals: list[float] = field(default_factory=list)
    cost: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    names: list[tuple] = field(default_factory=list)
    recipe_cols: dict[str, int] = field(default_factory=dict)


class _Compiled:
    """A recipe set prepared for closures: each slot (and each fuel need) watches its items, and a
    recipe fires when its last slot is met, so a closure costs one pass over the graph."""

    def __init__(self, recipes: Iterable[Recipe], fuel_items: frozenset[str], source: Any) -> None:
        self.source = source  # the tuple this was built from (kept alive so its id stays unique)
        self.results: list[str] = []
        self.nslots: list[int] = []
        self.slot_recipe: list[int] = []
        watch: dict[str, list[int]] = defaultdict(list)
        for ri, recipe in enumerate(recipes):
            self.results.append(recipe.result)
            needs = [ing.options for ing in recipe.ingredients]
            if recipe.fuel > 0:
                needs.append(tuple(fuel_items))
            for options in needs:
                sid = len(self.slot_recipe)
                self.slot_recipe.append(ri)
                for o in options:
                    watch[o].append(sid)
            self.nslots.append(len(needs))
        self.watch = dict(watch)

    def closure(self, have: Iterable[str]) -> set[str]:
        reach = set(have)
        remaining = list(self.nslots)
        met = bytearray(len(self.slot_recipe))
        stack = list(reach)
        watch, slot_recipe, results = self.watch, self.slot_recipe, self.results
        while stack:
            for sid in watch.get(stack.pop(), ()):
                if not met[sid]:
                    met[sid] = 1
                    r = slot_recipe[sid]
                    remaining[r] -= 1
                    if remaining[r] == 0 and results[r] not in reach:
                        reach.add(results[r])
                        stack.append(results[r])
        return reach


class RecipeGraph:
    """Closures and routes over one rule set. One instance per rule set; caches by target."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.fuel_items = frozenset(rules.fuels)
        self._compiled: dict[int, _Compiled] = {}
        self._cores: dict[tuple, _LPCore] = {}
        self._backward: dict[str, tuple[frozenset[str], tuple[Recipe, ...]]] = {}

    # ------------------------------------------------------------ closures

    def backward(self, target: str) -> tuple[frozenset[str], tuple[Recipe, ...]]:
        """Every item that could go into making ``target`` and every recipe on the way."""
        cached = self._backward.get(target)
        if cached is not None:
            return cached
        items = {target}
        recipes: dict[str, Recipe] = {}
        frontier = [target]
        while frontier:
            item = frontier.pop()
            for recipe in self.rules.by_result.get(item, ()):
                if recipe.id in recipes:
                    continue
                recipes[recipe.id] = recipe
                new = [o for ing in recipe.ingredients for o in ing.options]
                if recipe.fuel > 0:
                    new += self.fuel_items
                for o in new:
                    if o not in items:
                        items.add(o)
                        frontier.append(o)
        cached = self._backward[target] = frozenset(items), tuple(recipes[k] for k in sorted(recipes))
        return cached

    def closure(self, have: Iterable[str], recipes: Sequence[Recipe] | None = None) -> set[str]:
        """Item types reachable from ``have`` by crafting (amounts ignored)."""
        key = id(recipes) if recipes is not None else 0
        compiled = self._compiled.get(key)
        if compiled is None or compiled.source is not recipes:
            compiled = _Compiled(self.rules.recipes.values() if recipes is None else recipes, self.fuel_items,
                                 recipes)
            if recipes is None or len(self._compiled) < 4096:
                self._compiled[key] = compiled
        return compiled.closure(have)

    def reachable(self, target: str, have: Iterable[str]) -> bool:
        have = set(have)
        if target in have:
            return True
        items, recipes = self.backward(target)
        return target in self.closure(have & items, recipes)

    def relevant(self, target: str, have: Iterable[str]) -> set[str]:
        """Held item types that some route from ``have`` to ``target`` could use."""
        items, recipes = self.backward(target)
        have = set(have) & items
        reach = self.closure(have, recipes)
        if target not in reach:
            return set()
        # keep the recipes whose result is reachable and whose inputs are all reachable
        useful = {target}
        live = [r for r in recipes if r.result in reach]
        changed = True
        while changed:
            changed = False
            for recipe in live:
                if recipe.result not in useful:
                    continue
                if not all(any(o in reach for o in ing.options) for ing in recipe.ingredients):
                    continue
                new = {o for ing in recipe.ingredients for o in ing.options if o in reach}
                if recipe.fuel > 0:
                    new |= {f for f in self.fuel_items if f in reach}
                if not new <= useful:
                    useful |= new
                    changed = True
        return useful & have | ({target} & have)

    def essential(self, target: str, have: Iterable[str]) -> set[str]:
        """Held item types without which ``target`` is out of reach (amounts ignored)."""
        have = set(have)
        if not self.reachable(target, have):
            return set()
        return {i for i in self.relevant(target, have) if not self.reachable(target, have - {i})}

    # ------------------------------------------------------------------ LP

    def route(self, demand: Mapping[str, Fraction | int | float], supplies: Sequence[Mapping[str, Fraction | int]],
              costs: Sequence[float | Mapping[str, float]] | None = None, *, integral_supplies: bool = False,
              minimize: str = "cost") -> Route:
        """The cheapest way to hold ``demand`` drawing on ``supplies`` (see module docs).

        ``costs[k]`` is the price of one unit from supply k, or a mapping item -> price
        (default: 0.001 for supply 0, 1 for the others). ``minimize``: ``cost`` (default), ``recipes`` (fewest distinct
        recipes, a MILP), or ``partners`` (fewest supplies other than the first, a MILP).
        ``integral_supplies`` makes the amounts drawn from supplies 1.. whole numbers.
        """
        targets = [t for t, n in demand.items() if n > 0]
        if costs is None:
            costs = [0.001] + [1.0] * (len(supplies) - 1)
        if len(targets) == 1:
            rel_items, rel_list = self.backward(targets[0])
        else:
            union: set[str] = set()
            merged: dict[str, Recipe] = {}
            for t in targets:
                items_t, recipes_t = self.backward(t)
                union |= items_t
                merged.update((r.id, r) for r in recipes_t)
            rel_items, rel_list = frozenset(union), tuple(merged[k] for k in sorted(merged))
        have = {i for s in supplies for i, n in s.items() if n > 0 and i in rel_items}
        reach = self.closure(have, rel_list)
        if not all(t in reach for t in targets):
            return Route(False)
        core = self._core(tuple(sorted(targets)), frozenset(reach), rel_list)
        row_of, next_row = core.row_of, core.next_row
        rows, cols, vals = list(core.rows), list(core.cols), list(core.vals)
        cost, upper, names = list(core.cost), list(core.upper), list(core.names)
        integrality = [0] * len(names)
        recipe_cols = core.recipe_cols

        def var(name: tuple, c: float, ub: float, integer: bool = False) -> int:
            names.append(name)
            cost.append(c)
            upper.append(ub)
            integrality.append(1 if integer else 0)
            return len(names) - 1

        for k, supply in enumerate(supplies):
            prices = costs[k]
            for item, n in sorted(supply.items()):
                if n > 0 and item in row_of:
                    price = prices.get(item, 1.0) if isinstance(prices, Mapping) else prices
                    j = var(("s", k, item), float(price), float(n), integral_supplies and k > 0)
                    rows.append(row_of[item]); cols.append(j); vals.append(1.0)
        extra_rows: list[tuple[list[int], list[float], float, float]] = []
        if minimize == "recipes":
            for rid, j in recipe_cols.items():
                u = var(("u", rid), 1.0, 1.0, True)
                extra_rows.append(([j, u], [1.0, -1e4], -np.inf, 0.0))
            cost = [c if n[0] == "u" else c * 1e-3 for c, n in zip(cost, names)]
        elif minimize == "partners":
            partner_var = {k: var(("v", k), 1.0, 1.0, True) for k in range(1, len(supplies))}
            for j, name in enumerate(list(names)):
                if name[0] == "s" and name[1] > 0:
                    extra_rows.append(([j, partner_var[name[1]]], [1.0, -upper[j]], -np.inf, 0.0))
            cost = [c if n[0] == "v" else c * 1e-3 for c, n in zip(cost, names)]
        # imported here: scipy.optimize takes about a second to import, and the app's start-up
        # (which loads every world's plug-in) needs no route
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_array

        nvar = len(names)
        lower_b = np.zeros(next_row)
        for t in targets:
            lower_b[row_of[t]] = float(demand[t])
        a = coo_array((vals, (rows, cols)), shape=(next_row, nvar)).tocsr()
        constraints = [LinearConstraint(a, lower_b, np.full(next_row, np.inf))]
        if extra_rows:
            er, ec, ev, lo, hi = [], [], [], [], []
            for n, (cs, vs, low, high) in enumerate(extra_rows):
                er += [n] * len(cs); ec += cs; ev += vs; lo.append(low); hi.append(high)
            constraints.append(LinearConstraint(coo_array((ev, (er, ec)), shape=(len(extra_rows), nvar)).tocsr(),
                                                np.array(lo), np.array(hi)))
        with _quiet(any(integrality)):
            result = milp(np.array(cost), constraints=constraints, integrality=np.array(integrality),
                          bounds=Bounds(np.zeros(nvar), np.array(upper)), options={"presolve": True})
        if result.status != 0 or result.x is None:
            return Route(False)
        x = result.x
        used: list[dict[str, float]] = [dict() for _ in supplies]
        recipes_out: dict[str, float] = {}
        inputs: dict[str, float] = defaultdict(float)
        for j, name in enumerate(names):
            v = float(x[j])
            if v <= EPS:
                continue
            if name[0] == "s":
                used[name[1]][name[2]] = v
            elif name[0] == "x":
                recipes_out[name[1]] = v
                recipe = self.rules.recipes[name[1]]
                for ing in recipe.ingredients:
                    if not ing.is_choice:
                        inputs[ing.options[0]] += v * ing.amount
            elif name[0] == "y":
                inputs[name[2]] += v
            elif name[0] == "z":
                inputs[name[1]] += v
        return Route(True, float(result.fun), tuple(used), recipes_out, dict(inputs))

    def _core(self, targets: tuple[str, ...], reach: frozenset[str], rel_recipes: Sequence[Recipe]) -> "_LPCore":
        """The supply-independent part of a route LP (recipes, choice slots, fuel), cached."""
        key = (targets, reach)
        core = self._cores.get(key)
        if core is not None:
            return core
        recipes = [r for r in rel_recipes
                   if r.result in reach and all(any(o in reach for o in ing.options) for ing in r.ingredients)
                   and (r.fuel == 0 or any(f in reach for f in self.fuel_items))]
        core = _LPCore()
        items = sorted(reach)
        core.row_of = row_of = {item: k for k, item in enumerate(items)}
        node_row: dict[tuple[str, ...], int] = {}
        next_row = len(items)
        fuel_row = None
        for recipe in recipes:
            for ing in recipe.ingredients:
                if ing.is_choice and ing.options not in node_row:
                    node_row[ing.options] = next_row
                    next_row += 1
            if recipe.fuel > 0 and fuel_row is None:
                fuel_row = next_row
                next_row += 1
        core.next_row = next_row

        def var(name: tuple, c: float, ub: float) -> int:
            core.names.append(name)
            core.cost.append(c)
            core.upper.append(ub)
            return len(core.names) - 1

        for options, r in node_row.items():
            for o in options:
                if o in row_of:
                    j = var(("y", options, o), 1e-6, np.inf)
                    core.rows += [row_of[o], r]; core.cols += [j, j]; core.vals += [-1.0, 1.0]
        if fuel_row is not None:
            for f in sorted(self.fuel_items & set(row_of)):
                j = var(("z", f), 1e-6, np.inf)
                core.rows += [row_of[f], fuel_row]; core.cols += [j, j]
                core.vals += [-1.0, float(self.rules.fuels[f])]
        for recipe in recipes:
            j = var(("x", recipe.id), 1e-4, 1e4)
            core.recipe_cols[recipe.id] = j
            core.rows.append(row_of[recipe.result]); core.cols.append(j); core.vals.append(float(recipe.count))
            for ing in recipe.ingredients:
                r = node_row[ing.options] if ing.is_choice else row_of[ing.options[0]]
                core.rows.append(r); core.cols.append(j); core.vals.append(-float(ing.amount))
            if recipe.fuel > 0:
                assert fuel_row is not None  # set above, as some recipe burns fuel
                core.rows.append(fuel_row); core.cols.append(j); core.vals.append(-float(recipe.fuel))
        if len(self._cores) > 2048:
            self._cores.pop(next(iter(self._cores)))
        self._cores[key] = core
        return core

    def chain_depth(self, route: Route, target: str) -> int:
        """Crafting steps on the longest path of a route, from supplied items to ``target``."""
        producers: dict[str, list[Recipe]] = defaultdict(list)
        for rid in route.recipes:
            recipe = self.rules.recipes[rid]
            producers[recipe.result].append(recipe)
        memo: dict[str, int] = {}

        def depth(item: str, stack: frozenset[str]) -> int:
            if item in memo:
                return memo[item]
            best = 0
            for recipe in producers.get(item, ()):
                if item in stack:
                    continue
                inner = [o for ing in recipe.ingredients for o in ing.options
                         if o in route.inputs_used or o in producers]
                if recipe.fuel > 0:
                    inner += [f for f in self.fuel_items if f in route.inputs_used]
                best = max(best, 1 + max((depth(o, stack | {item}) for o in inner if o != item), default=0))
            memo[item] = best
            return best

        return depth(target, frozenset())


# ---------------------------------------------------------------- exact plans

class _Planner:
    """Depth-first search for an exact craft sequence, trying held items first."""

    def __init__(self, graph: RecipeGraph, hand: Mapping[str, Fraction], target: str,
                 crafting: str = FRACTIONAL) -> None:
        self.graph = graph
        self.rules = graph.rules
        self.crafting = crafting
        self.whole = crafting != FRACTIONAL  # one craft per recipe run, one fuel item, legal scales only
        items, recipes = graph.backward(target)
        self.relevant_items = items
        self.reach = graph.closure({i for i, n in hand.items() if n > 0}, recipes)
        self.budget = 4000  # recursion steps; a failed search gives up instead of running away

    def recipes_for(self, item: str, hand: Mapping[str, Fraction]) -> list[Recipe]:
        options = []
        for recipe in self.rules.by_result.get(item, ()):
            if not all(any(o in self.reach for o in ing.options) for ing in recipe.ingredients):
                continue
            if recipe.fuel > 0 and not any(f in self.reach for f in self.graph.fuel_items):
                continue
            ready = all(any(hand.get(o, 0) > 0 for o in ing.options) for ing in recipe.ingredients)
            options.append((not ready, recipe.fuel > 0, len(recipe.ingredients), recipe.id, recipe))
        return [o[-1] for o in sorted(options, key=lambda o: o[:-1])]

    def produce(self, item: str, amount: Fraction, hand: dict[str, Fraction], stack: frozenset[str],
                depth: int) -> tuple[list[Craft], dict[str, Fraction]] | None:
        have = hand.get(item, Fraction(0))
        if have >= amount:
            out = dict(hand)
            out[item] = have - amount
            return [], out
        self.budget -= 1
        if depth > MAX_DEPTH or item in stack or self.budget <= 0 or item not in self.reach:
            return None
        deficit = amount - have
        base = dict(hand)
        base[item] = Fraction(0)
        for recipe in self.recipes_for(item, hand):
            scale = legal_scale(self.rules, recipe, deficit / recipe.count, self.crafting)
            found = self.run(recipe, scale, base, stack | {item}, depth + 1)
            if found is not None:
                surplus = scale * recipe.count - deficit
                if surplus:
                    crafts, after = found
                    after = dict(after)
                    after[item] = after.get(item, Fraction(0)) + surplus
                    return crafts, after
                return found
        return None

    def run(self, recipe: Recipe, scale: Fraction, hand: dict[str, Fraction], stack: frozenset[str],
            depth: int) -> tuple[list[Craft], dict[str, Fraction]] | None:
        crafts: list[Craft] = []
        coverage: dict[str, list[tuple[str, Fraction]]] = {}
        for ing in recipe.ingredients:
            got = self.acquire(ing.options, scale * ing.amount, hand, stack, depth)
            if got is None:
                return None
            sub, hand, coverage[ing.key] = got
            crafts += sub
        fuel_cov: list[tuple[str, Fraction]] = []
        if recipe.fuel > 0:
            got = self.acquire_fuel(recipe.fuel * scale, hand, stack, depth)
            if got is None:
                return None
            sub, hand, fuel_cov = got
            crafts += sub
        if self.whole:  # one craft: a slot filled by several items is a mixed slot
            choices = {k: cov[0][0] for k, cov in coverage.items() if len(cov) == 1
                       and (recipe.slot(k) or recipe.ingredients[0]).is_choice}
            mixes = tuple(sorted((k, tuple(sorted((item, qty / scale) for item, qty in cov)))
                                 for k, cov in coverage.items() if len(cov) > 1))
            crafts.append(Craft(recipe.id, scale, tuple(sorted(choices.items())),
                                fuel_cov[0][0] if fuel_cov else None, mixes))
        else:
            crafts += split_craft(self.rules, recipe, scale, coverage, fuel_cov)
        return crafts, hand

    def acquire(self, options: tuple[str, ...], need: Fraction, hand: dict[str, Fraction], stack: frozenset[str],
                depth: int) -> tuple[list[Craft], dict[str, Fraction], list[tuple[str, Fraction]]] | None:
        if self.whole:
            for o in sorted(options, key=lambda o: (-hand.get(o, 0), options.index(o))):
                if hand.get(o, 0) >= need or o in self.reach:
                    found = self.produce(o, need, hand, stack, depth)
                    if found is not None:
                        return found[0], found[1], [(o, need)]
            # several held members of the slot's tag at once (a mixed slot, one craft)
            held = sorted((o for o in options if hand.get(o, 0) > 0), key=lambda o: (-hand[o], options.index(o)))
            if not held:
                return None
            hand = dict(hand)
            mixed: list[tuple[str, Fraction]] = []
            remaining = need
            for o in held:
                take = min(hand[o], remaining)
                if take > 0:
                    hand[o] -= take
                    mixed.append((o, take))
                    remaining -= take
            if remaining <= 0:
                return [], hand, mixed
            for o in options:  # make the rest of one member
                if o in self.reach:
                    found = self.produce(o, remaining, hand, stack, depth)
                    if found is not None:
                        merged: dict[str, Fraction] = defaultdict(Fraction)
                        for item, qty in mixed + [(o, remaining)]:
                            merged[item] += qty
                        return found[0], found[1], list(merged.items())
            return None
        hand = dict(hand)
        cover: list[tuple[str, Fraction]] = []
        remaining = need
        for o in sorted(options, key=lambda o: (-hand.get(o, 0), options.index(o))):
            if remaining <= 0:
                break
            take = min(hand.get(o, Fraction(0)), remaining)
            if take > 0:
                hand[o] -= take
                cover.append((o, take))
                remaining -= take
        if remaining <= 0:
            return [], hand, cover
        for o in options:
            if o in self.reach:
                found = self.produce(o, remaining, hand, stack, depth)
                if found is not None:
                    return found[0], found[1], cover + [(o, remaining)]
        return None

    def acquire_fuel(self, energy: Fraction, hand: dict[str, Fraction], stack: frozenset[str], depth: int
                     ) -> tuple[list[Craft], dict[str, Fraction], list[tuple[str, Fraction]]] | None:
        rules = self.rules
        # burn what no route to the target needs first, then the most energetic
        held = sorted((f for f, n in hand.items() if n > 0 and rules.fuel_value(f) > 0),
                      key=lambda f: (f in self.relevant_items, -rules.fuel_value(f), f))
        if self.whole:  # one fuel item per craft
            makeable = sorted((f for f in self.graph.fuel_items if f in self.reach and f not in stack),
                              key=lambda f: (-rules.fuel_value(f), f))
            for f in list(dict.fromkeys(held + makeable[:4])):
                qty = energy / rules.fuel_value(f)
                if hand.get(f, 0) >= qty or f in makeable:
                    found = self.produce(f, qty, hand, stack, depth)
                    if found is not None:
                        return found[0], found[1], [(f, qty)]
            return None
        hand = dict(hand)
        cover: list[tuple[str, Fraction]] = []
        remaining = energy
        for f in held:
            if remaining <= 0:
                break
            value = rules.fuel_value(f)
            use = min(hand[f] * value, remaining)
            qty = use / value
            hand[f] -= qty
            cover.append((f, qty))
            remaining -= use
        if remaining <= 0:
            return [], hand, cover
        makeable = sorted((f for f in self.graph.fuel_items if f in self.reach and f not in stack),
                          key=lambda f: (-rules.fuel_value(f), f))
        for f in makeable[:4]:
            value = rules.fuel_value(f)
            found = self.produce(f, remaining / value, hand, stack, depth)
            if found is not None:
                return found[0], found[1], cover + [(f, remaining / value)]
        return None


def split_craft(rules: RuleSet, recipe: Recipe, scale: Fraction, coverage: Mapping[str, list[tuple[str, Fraction]]],
                fuel_cover: list[tuple[str, Fraction]]) -> list[Craft]:
    """One recipe application whose slots are filled by several items, as crafts with one item each."""
    # breakpoints in units of the recipe scale
    tracks: list[tuple[str, list[tuple[Fraction, str]]]] = []
    for ing in recipe.ingredients:
        cover = coverage.get(ing.key, [])
        if ing.is_choice and cover:
            acc, track = Fraction(0), []
            for item, qty in cover:
                acc += qty / ing.amount
                track.append((acc, item))
            tracks.append((ing.key, track))
    if recipe.fuel > 0 and fuel_cover:
        acc, track = Fraction(0), []
        for item, qty in fuel_cover:
            acc += qty * rules.fuel_value(item) / recipe.fuel
            track.append((acc, item))
        tracks.append(("\0fuel", track))
    cuts = sorted({scale} | {end for _, track in tracks for end, _ in track if 0 < end < scale})
    crafts = []
    start = Fraction(0)
    for end in cuts:
        choices = {}
        fuel = None
        for key, track in tracks:
            item = next((it for e, it in track if e > start), track[-1][1])
            if key == "\0fuel":
                fuel = item
            else:
                choices[key] = item
        crafts.append(Craft(recipe.id, end - start, tuple(sorted(choices.items())), fuel))
        start = end
    return crafts


def plan_crafts(graph: RecipeGraph, hand: Mapping[str, Fraction | int], target: str,
                amount: Fraction | int = 1, crafting: str = FRACTIONAL) -> list[Craft] | None:
    """Crafts (in order, exact fractions) that leave ``amount`` of ``target`` in ``hand``; None
    when the search finds no way. The plan is checked by applying it with the game's rules
    (``crafting``: the scale rule, see ``sim.tradecraft.crafting``)."""
    start = {i: Fraction(n) for i, n in hand.items() if n > 0}
    planner = _Planner(graph, start, target, crafting)
    need = Fraction(amount)
    found = planner.produce(target, need, start, frozenset(), 0)
    if found is None:
        return None
    crafts = found[0]
    check = dict(start)
    try:
        for craft in crafts:
            check = apply_craft(graph.rules, check, craft, crafting)
    except CraftError:
        return None
    return crafts if check.get(target, 0) >= need else None
