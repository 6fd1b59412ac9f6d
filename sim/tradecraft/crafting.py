"""Crafting with exact fractions: check a craft against a hand, apply it, floor at phase end.

A *hand* maps item ids to amounts. Between phases every amount is a whole number; during a
craft phase amounts are exact ``Fraction``s, because a recipe may be applied at any positive
rational scale ``times``: the 2 planks -> 4 sticks recipe at ``times = 1/4`` turns 1/2 plank
into 1 stick. When a player's craft phase ends its hand is floored and zeros are dropped.

Two crafting rules (the instance option ``crafting``):

* ``fractional`` (the default, the paper's reading): any positive rational scale;
* ``original`` (the TradeCraft authors' server): a craft must make a whole number of items,
  and the recipe must run a whole number of times, except that a fractional run is accepted
  when another recipe of the same item makes that many items in whole runs (the server falls
  back to an exact-amount check then). So 1/4 coal + 1/4 stick -> 1 torch is refused (torch
  has one recipe), 1/2 oak_planks -> 1 stick is accepted (2 bamboo -> 1 stick exists) and no
  craft may make 1/2 of anything.

A craft names the recipe, the scale, one concrete item for every slot that allows
alternatives (a tag or a list) and, for smelting, blasting and smoking, the fuel item. Slots
and fuel left unnamed are chosen automatically: the held option with the most units (ties by
name), and the held fuel with the most coal-equivalents.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from sim.tradecraft.rules import Recipe, RuleSet, format_amount

Hand = dict[str, Fraction]
HandKey = tuple[tuple[str, Fraction], ...]  # the immutable, sorted form kept in states


FRACTIONAL, ORIGINAL = "fractional", "original"


class CraftError(ValueError):
    """A craft that the rules do not allow with the given hand."""


def scale_problem(rules: RuleSet, recipe: Recipe, times: Fraction, crafting: str = FRACTIONAL) -> str | None:
    """Why ``recipe`` may not run at scale ``times`` under the crafting rule (None: it may)."""
    if crafting == FRACTIONAL or times.denominator == 1:
        return None
    made = times * recipe.count
    item = rules.display(recipe.result)
    if made.denominator != 1:
        return (f"x{format_amount(times)} makes {format_amount(made)} {item}; under the original crafting rule a "
                f"craft makes whole items only (try times {format_amount(Fraction(1, recipe.count))} or a multiple)")
    if any(other.id != recipe.id and (made / other.count).denominator == 1
           for other in rules.by_result.get(recipe.result, ())):
        return None
    return (f"x{format_amount(times)} is a fractional run; under the original crafting rule {rules.display(recipe.id)} "
            f"runs a whole number of times (no other recipe makes {format_amount(made)} {item} in whole runs)")


def legal_scale(rules: RuleSet, recipe: Recipe, times: Fraction, crafting: str = FRACTIONAL) -> Fraction:
    """The smallest scale at least ``times`` at which ``recipe`` may run under the crafting rule."""
    if crafting == FRACTIONAL:
        return times
    whole = Fraction(math.ceil(times))
    k = math.ceil(times * recipe.count)
    while Fraction(k, recipe.count) < whole:
        t = Fraction(k, recipe.count)
        if scale_problem(rules, recipe, t, crafting) is None:
            return t
        k += 1
    return whole


def hand_key(hand: Mapping[str, Fraction | int]) -> HandKey:
    return tuple(sorted((item, Fraction(n)) for item, n in hand.items() if n > 0))


def to_hand(key: Iterable[tuple[str, Fraction | int]] | Mapping[str, Fraction | int]) -> Hand:
    pairs = key.items() if isinstance(key, Mapping) else key
    return {item: Fraction(n) for item, n in pairs if n > 0}


def floor_hand(hand: Mapping[str, Fraction | int]) -> Hand:
    """Round every amount down and drop the zeros (the end of a craft phase)."""
    out = {}
    for item, n in hand.items():
        whole = math.floor(n)
        if whole > 0:
            out[item] = Fraction(whole)
    return out


def parse_times(value: Any, where: str = "times") -> Fraction:
    """A positive exact scale from ``1``, ``"1/4"``, ``0.25`` (floats are read as decimals)."""
    try:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, float):
            times = Fraction(str(value))
        elif isinstance(value, (int, str, Fraction)):
            times = Fraction(value)
        else:
            raise TypeError
    except (TypeError, ValueError, ZeroDivisionError):
        raise CraftError(f"{where}: expected a positive number or fraction such as 1 or \"1/4\", got {value!r}") from None
    if times <= 0:
        raise CraftError(f"{where}: must be positive, got {format_amount(times) if isinstance(times, Fraction) else times}")
    return times


@dataclass(frozen=True, slots=True)
class Craft:
    """Apply ``recipe`` ``times`` times (any positive fraction) with the given slot choices."""

    recipe: str
    times: Fraction = Fraction(1)
    choices: tuple[tuple[str, str], ...] = ()  # (slot key, item id), sorted
    fuel: str | None = None
    #: slots filled by several members of their tag at once: (slot key, ((item, units per run), ...)),
    #: the units summing to the slot's amount (4 oak + 4 cherry planks in the chest's 8-plank slot)
    mixes: tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...] = ()

    @classmethod
    def make(cls, recipe: str, times: Fraction | int | str = 1, choices: Mapping[str, Any] | None = None,
             fuel: str | None = None) -> "Craft":
        """``choices`` maps a slot to an item, or to {item: units per run} for a mixed slot."""
        single = {k: v for k, v in (choices or {}).items() if isinstance(v, str)}
        mixed = {k: v for k, v in (choices or {}).items() if not isinstance(v, str)}
        return cls(recipe, parse_times(times), tuple(sorted(single.items())), fuel, _mixes(mixed))

    def choice(self, key: str) -> str | None:
        for k, item in self.choices:
            if k == key:
                return item
        return None

    def mix(self, key: str) -> tuple[tuple[str, Fraction], ...] | None:
        for k, shares in self.mixes:
            if k == key:
                return shares
        return None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"recipe": self.recipe, "times": format_amount(self.times)}
        if self.choices or self.mixes:
            d["choices"] = {**dict(self.choices),
                            **{k: {item: format_amount(n) for item, n in shares} for k, shares in self.mixes}}
        if self.fuel is not None:
            d["fuel"] = self.fuel
        return d

    def key(self) -> tuple:
        return (self.recipe, self.times.numerator, self.times.denominator, self.choices, self.fuel, self.mixes)


def _mixes(mixed: Mapping[str, Mapping[str, Fraction | int]]) -> tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...]:
    return tuple(sorted((k, tuple(sorted((item, Fraction(n)) for item, n in shares.items())))
                        for k, shares in mixed.items()))


@dataclass(frozen=True, slots=True)
class CraftCheck:
    """The result of checking a craft: what it would consume and produce, or why it cannot."""

    ok: bool
    reason: str
    craft: Craft | None = None  # with every choice made explicit
    consumed: tuple[tuple[str, Fraction], ...] = ()
    produced: tuple[tuple[str, Fraction], ...] = ()

    def describe(self, rules: RuleSet) -> str:
        if not self.ok:
            return f"cannot craft: {self.reason}"
        used = ", ".join(f"{rules.display(i)} * {format_amount(n)}" for i, n in self.consumed)
        made = ", ".join(f"{rules.display(i)} * {format_amount(n)}" for i, n in self.produced)
        return f"ok: uses {used} -> makes {made}"


def craft_from_dict(rules: RuleSet, data: Any, where: str = "craft") -> Craft:
    """A Craft from its JSON form; item and recipe names may omit the default namespace."""
    if not isinstance(data, Mapping):
        raise CraftError(f"{where}: expected an object like {{\"recipe\": \"minecraft:stick\", \"times\": \"1/4\"}}, "
                         f"got {data!r}")
    if "input" in data or "output" in data:
        unknown = sorted(set(data) - {"input", "output"})
        if unknown:
            raise CraftError(f"{where}: unknown field(s) {', '.join(unknown)} (the original server's form has "
                             "input and output only)")
        return craft_from_io(rules, data.get("input"), data.get("output"), where)
    unknown = sorted(set(data) - {"recipe", "times", "choices", "fuel"})
    if unknown:
        raise CraftError(f"{where}: unknown field(s) {', '.join(unknown)} (allowed: recipe, times, choices, fuel; "
                         "or the original server's input and output)")
    recipe = resolve_recipe(rules, data.get("recipe"), f"{where}.recipe")
    times = parse_times(data.get("times", 1), f"{where}.times")
    raw_choices = data.get("choices") or {}
    if not isinstance(raw_choices, Mapping):
        raise CraftError(f"{where}.choices: expected an object mapping slot keys to items, got {raw_choices!r}")
    choices = {}
    mixed: dict[str, dict[str, Fraction]] = {}
    for key, item in raw_choices.items():
        if isinstance(item, Mapping):  # several members of the slot's tag: {item: units per run}
            if not item:
                raise CraftError(f"{where}.choices.{key}: an empty mix; expected {{item: units per run, ...}}")
            shares: dict[str, Fraction] = {}
            for name, n in item.items():
                try:
                    shares[rules.resolve(str(name))] = parse_times(n, f"{where}.choices.{key}.{name}")
                except KeyError as exc:
                    raise CraftError(f"{where}.choices.{key}: {exc.args[0]}") from None
            mixed[str(key)] = shares
            continue
        try:
            choices[str(key)] = rules.resolve(str(item))
        except KeyError as exc:
            raise CraftError(f"{where}.choices.{key}: {exc.args[0]}") from None
    fuel = data.get("fuel")
    if fuel is not None:
        try:
            fuel = rules.resolve(str(fuel))
        except KeyError as exc:
            raise CraftError(f"{where}.fuel: {exc.args[0]}") from None
    return Craft(recipe.id, times, tuple(sorted(choices.items())), fuel, _mixes(mixed))


def _amounts(rules: RuleSet, data: Any, where: str) -> dict[str, Fraction]:
    if not isinstance(data, Mapping) or not data:
        raise CraftError(f"{where}: expected an object mapping items to amounts, e.g. {{\"minecraft:stick\": 4}}, "
                         f"got {data!r:.80}")
    out: dict[str, Fraction] = {}
    for name, n in data.items():
        try:
            item = rules.resolve(str(name))
        except KeyError as exc:
            raise CraftError(f"{where}: {exc.args[0]}") from None
        out[item] = out.get(item, Fraction(0)) + parse_times(n, f"{where}.{name}")
    return out


def craft_from_io(rules: RuleSet, inputs: Any, output: Any, where: str = "craft") -> Craft:
    """The craft the original server's message ``{"input": {item: amount}, "output": {item: amount}}``
    means: a recipe of the output item at the scale that makes that amount, whose slots (and fuel)
    the inputs fill exactly; a slot may take several members of its tag, and one item may feed a
    slot and the fuel at once. Amounts may be numbers (``0.125``) or fractions (``"1/8"``)."""
    ins = _amounts(rules, inputs, f"{where}.input")
    outs = _amounts(rules, output, f"{where}.output")
    if len(outs) != 1:
        raise CraftError(f"{where}.output: {len(outs)} items; expected the one item the craft makes")
    (result, made), = outs.items()
    recipes = rules.by_result.get(result, ())
    if not recipes:
        raise CraftError(f"{where}.output: no recipe makes {rules.display(result)}")
    reasons = []
    for recipe in sorted(recipes, key=lambda r: r.id):
        craft, why = _fit(rules, recipe, made / recipe.count, ins)
        if craft is not None:
            return craft
        reasons.append(f"{rules.display(recipe.id)}: {why}")
    shown = ", ".join(f"{rules.display(i)} * {format_amount(n)}" for i, n in sorted(ins.items()))
    raise CraftError(f"{where}: no recipe makes {rules.display(result)} * {format_amount(made)} from exactly "
                     f"{shown} ({'; '.join(reasons)})")


def _fit(rules: RuleSet, recipe: Recipe, times: Fraction, ins: Mapping[str, Fraction]) -> tuple[Craft | None, str]:
    """Fill the slots (and the fuel) of ``recipe`` at scale ``times`` with exactly ``ins``."""
    need = {ing.key: times * ing.amount for ing in recipe.ingredients}
    energy = recipe.fuel * times
    left = dict(ins)
    fills: dict[str, dict[str, Fraction]] = defaultdict(dict)
    burnt: dict[str, Fraction] = {}

    def slots_of(item: str) -> list[str]:
        return [ing.key for ing in recipe.ingredients if item in ing.options and need[ing.key] > 0]

    progress = True
    while progress and any(n > 0 for n in left.values()):
        progress = False
        for item, n in sorted(left.items()):
            if n <= 0:
                continue
            slots = slots_of(item)
            burns = energy > 0 and rules.fuel_value(item) > 0
            if len(slots) + burns == 0:
                return None, f"{rules.display(item)} fits no slot" + (" and is not a fuel" if recipe.fuel else "")
            if len(slots) + burns == 1:  # one place it can go: all of it goes there
                if slots:
                    take = n
                    fills[slots[0]][item] = fills[slots[0]].get(item, Fraction(0)) + take
                    need[slots[0]] -= take
                else:
                    burnt[item] = burnt.get(item, Fraction(0)) + n
                    energy -= n * rules.fuel_value(item)
                left[item] = Fraction(0)
                progress = True
        if progress:
            continue
        # an item that could go to a slot and to the fuel: the slot whose other suppliers are spent
        for ing in recipe.ingredients:
            suppliers = [i for i, n in left.items() if n > 0 and i in ing.options]
            if need[ing.key] > 0 and len(suppliers) == 1:
                item = suppliers[0]
                take = min(need[ing.key], left[item])
                fills[ing.key][item] = fills[ing.key].get(item, Fraction(0)) + take
                need[ing.key] -= take
                left[item] -= take
                progress = True
                break
    if any(n > 0 for n in left.values()):
        return None, "the inputs fit its slots in more than one way; name the recipe and the slot choices instead"
    if any(n != 0 for n in need.values()) or energy != 0:
        short = [f"slot {k!r} {'lacks' if n > 0 else 'gets too much:'} {format_amount(abs(n))}"
                 for k, n in need.items() if n != 0]
        if energy:
            short.append(f"fuel {'lacks' if energy > 0 else 'is over by'} {format_amount(abs(energy))} coal-equivalent")
        return None, f"x{format_amount(times)}: " + ", ".join(short)
    if len(burnt) > 1:
        return None, "several fuel items; a craft burns one"
    choices = {k: next(iter(f)) for k, f in fills.items() if len(f) == 1}
    mixed = {k: {i: n / times for i, n in f.items()} for k, f in fills.items() if len(f) > 1}
    chosen = {ing.key for ing in recipe.ingredients if ing.is_choice}
    return Craft(recipe.id, times, tuple(sorted((k, v) for k, v in choices.items() if k in chosen)),
                 next(iter(burnt), None), _mixes(mixed)), ""


def resolve_recipe(rules: RuleSet, name: Any, where: str = "recipe") -> Recipe:
    if not isinstance(name, str) or not name:
        raise CraftError(f"{where}: expected a recipe id such as \"minecraft:stick\", got {name!r}")
    recipe = rules.recipes.get(name) or (rules.recipes.get(f"{rules.namespace}:{name}") if ":" not in name else None)
    if recipe is None:
        raise CraftError(f"{where}: no recipe {name!r} in rule set {rules.name!r} "
                         "(item_info ITEM lists the recipes that make an item)")
    return recipe


def _pick_option(options: tuple[str, ...], hand: Mapping[str, Fraction]) -> str:
    return max(options, key=lambda o: (hand.get(o, 0), -options.index(o)))


def _pool(options: tuple[str, ...], hand: Mapping[str, Fraction], need: Fraction,
          reserved: Mapping[str, Fraction]) -> list[tuple[str, Fraction]] | None:
    """``need`` units taken from several held options, the most held first (None: not enough)."""
    out = []
    for o in sorted(options, key=lambda o: (-(hand.get(o, 0) - reserved.get(o, 0)), options.index(o))):
        free = hand.get(o, Fraction(0)) - reserved.get(o, Fraction(0))
        if need <= 0:
            break
        if free > 0:
            take = min(free, need)
            out.append((o, take))
            need -= take
    return out if need <= 0 else None


def _pick_fuel(rules: RuleSet, hand: Mapping[str, Fraction], reserved: Mapping[str, Fraction]) -> str | None:
    best, best_energy = None, Fraction(0)
    for item, n in sorted(hand.items()):
        value = rules.fuel_value(item)
        energy = (n - reserved.get(item, 0)) * value
        if value > 0 and energy > best_energy:
            best, best_energy = item, energy
    return best


def check_craft(rules: RuleSet, hand: Mapping[str, Fraction], craft: Craft, crafting: str = FRACTIONAL) -> CraftCheck:
    """Whether ``craft`` can be applied to ``hand`` under the crafting rule, and with what effect."""
    recipe = rules.recipes.get(craft.recipe)
    if recipe is None:
        return CraftCheck(False, f"no recipe {craft.recipe!r} in rule set {rules.name!r}")
    if craft.times <= 0:
        return CraftCheck(False, "times must be positive")
    problem = scale_problem(rules, recipe, craft.times, crafting)
    if problem is not None:
        return CraftCheck(False, problem)
    keys = {ing.key for ing in recipe.ingredients}
    stray = [k for k, _ in (*craft.choices, *craft.mixes) if k not in keys]
    if stray:
        return CraftCheck(False, f"recipe {rules.display(recipe.id)} has no slot {stray[0]!r} "
                                 f"(its slots: {', '.join(sorted(keys))})")
    consumed: dict[str, Fraction] = defaultdict(Fraction)
    choices = {}
    mixes: dict[str, tuple[tuple[str, Fraction], ...]] = {}
    for ing in recipe.ingredients:
        chosen = craft.choice(ing.key)
        shares = craft.mix(ing.key)
        if shares is not None:
            if chosen is not None:
                return CraftCheck(False, f"slot {ing.key!r} is given an item and a mix; expected one of them")
            wrong = [i for i, _ in shares if i not in ing.options]
            if wrong:
                return CraftCheck(False, f"{rules.display(wrong[0])} does not fit slot {ing.key!r} ({ing.source})")
            if sum(n for _, n in shares) != ing.amount:
                return CraftCheck(False, f"the mix in slot {ing.key!r} adds up to "
                                         f"{format_amount(sum(n for _, n in shares))} per run; the slot takes "
                                         f"{ing.amount} ({ing.source})")
            if len(shares) == 1:
                chosen = shares[0][0]
            else:
                mixes[ing.key] = shares
                for item, n in shares:
                    consumed[item] += craft.times * n
                continue
        if chosen is None:
            if not ing.options:
                return CraftCheck(False, f"slot {ing.key!r} ({ing.source}) has no items in this rule set")
            chosen = ing.options[0] if len(ing.options) == 1 else _pick_option(ing.options, hand)
            need = craft.times * ing.amount
            if crafting != FRACTIONAL and ing.is_choice and hand.get(chosen, 0) < need:
                pooled = _pool(ing.options, hand, need, consumed)  # several members of the tag at once
                if pooled is not None and len(pooled) > 1:
                    mixes[ing.key] = tuple(sorted((i, n / craft.times) for i, n in pooled))
                    for item, n in pooled:
                        consumed[item] += n
                    continue
        elif chosen not in ing.options:
            return CraftCheck(False, f"{rules.display(chosen)} does not fit slot {ing.key!r} ({ing.source})")
        choices[ing.key] = chosen
        consumed[chosen] += craft.times * ing.amount
    fuel = None
    if recipe.fuel > 0:
        fuel = craft.fuel or _pick_fuel(rules, hand, consumed)
        if fuel is None:
            need_fuel = format_amount(recipe.fuel * craft.times)
            spent = sorted(i for i in consumed if rules.fuel_value(i) > 0 and hand.get(i, 0) > 0)
            if spent:
                item = spent[0]
                both = consumed[item] + recipe.fuel * craft.times / rules.fuel_value(item)
                return CraftCheck(False, f"{recipe.type} needs fuel ({need_fuel} coal-equivalent); the hand's "
                                         f"{rules.display(item)} burns but all "
                                         f"{format_amount(hand[item])} of it is used as input (input and fuel "
                                         f"together need {format_amount(both)})")
            return CraftCheck(False, f"{recipe.type} needs fuel ({need_fuel} coal-equivalent) and the hand "
                                     "holds none")
        value = rules.fuel_value(fuel)
        if value <= 0:
            return CraftCheck(False, f"{rules.display(fuel)} is not a fuel")
        consumed[fuel] += recipe.fuel * craft.times / value
    elif craft.fuel is not None:
        return CraftCheck(False, f"{recipe.type} uses no fuel")
    for item, n in consumed.items():
        have = hand.get(item, Fraction(0))
        if have < n:
            return CraftCheck(False, f"needs {rules.display(item)} * {format_amount(n)}, the hand has "
                                     f"{format_amount(have)}")
    explicit = Craft(recipe.id, craft.times,
                     tuple(sorted((ing.key, choices[ing.key]) for ing in recipe.ingredients
                                  if ing.is_choice and ing.key in choices)), fuel, tuple(sorted(mixes.items())))
    return CraftCheck(True, "", explicit, tuple(sorted(consumed.items())),
                      ((recipe.result, craft.times * recipe.count),))


def apply_craft(rules: RuleSet, hand: Mapping[str, Fraction], craft: Craft, crafting: str = FRACTIONAL) -> Hand:
    """A new hand after ``craft``; raises CraftError (with the reason) when it is not possible."""
    check = check_craft(rules, hand, craft, crafting)
    if not check.ok:
        raise CraftError(f"{rules.display(craft.recipe)}: {check.reason}")
    out = dict(hand)
    for item, n in check.consumed:
        left = out[item] - n
        if left:
            out[item] = left
        else:
            del out[item]
    for item, n in check.produced:
        out[item] = out.get(item, Fraction(0)) + n
    return out


_UNSET = object()


def max_times(rules: RuleSet, hand: Mapping[str, Fraction], recipe: Recipe,
              fuel: Any = _UNSET, pool: bool = False) -> tuple[Fraction, Craft | None]:
    """The largest scale at which ``recipe`` can be applied with automatic choices, and that craft.

    Each slot takes its best held option; an item wanted by two slots (or as fuel too) is
    shared between them. ``pool``: a slot whose options no other slot (nor the fuel) wants
    takes every held member of its tag at once, as a mix (the original server's rule).
    """
    per_unit: dict[str, Fraction] = defaultdict(Fraction)
    choices = {}
    pools: dict[str, tuple[str, ...]] = {}
    for ing in recipe.ingredients:
        if not ing.options:
            return Fraction(0), None
        chosen = ing.options[0] if len(ing.options) == 1 else _pick_option(ing.options, hand)
        if hand.get(chosen, 0) <= 0:
            return Fraction(0), None
        held = tuple(o for o in ing.options if hand.get(o, 0) > 0)
        if pool and len(held) > 1 and not any(
                o in other.options for other in recipe.ingredients if other is not ing for o in held) and not (
                recipe.fuel > 0 and any(rules.fuel_value(o) > 0 for o in held)):
            pools[ing.key] = held
            continue
        choices[ing.key] = chosen
        per_unit[chosen] += ing.amount
    if recipe.fuel > 0:
        if fuel is _UNSET:
            fuel = _pick_fuel(rules, hand, {})
        if fuel is None:
            return Fraction(0), None
        per_unit[fuel] += recipe.fuel / rules.fuel_value(fuel)
    else:
        fuel = None
    limits: list[Fraction] = [Fraction(hand[item]) / n for item, n in per_unit.items()]
    for key, held in pools.items():
        slot = recipe.slot(key)
        assert slot is not None
        limits.append(Fraction(sum(hand[o] for o in held)) / slot.amount)
    times = min(limits)
    explicit = {ing.key: choices[ing.key] for ing in recipe.ingredients if ing.is_choice and ing.key in choices}
    mixes = {}
    for key, held in pools.items():
        slot = recipe.slot(key)
        assert slot is not None
        taken = _pool(held, hand, times * slot.amount, {})
        assert taken is not None
        if len(taken) == 1:
            explicit[key] = taken[0][0]
        else:
            mixes[key] = tuple(sorted((i, n / times) for i, n in taken))
    return times, Craft(recipe.id, times, tuple(sorted(explicit.items())), fuel, tuple(sorted(mixes.items())))


def max_legal_scale(rules: RuleSet, recipe: Recipe, times: Fraction, crafting: str = FRACTIONAL) -> Fraction:
    """The largest scale at most ``times`` that the crafting rule allows (0 when none)."""
    if crafting == FRACTIONAL:
        return times
    k = math.floor(times * recipe.count)
    while k >= 1:
        t = Fraction(k, recipe.count)
        if scale_problem(rules, recipe, t, crafting) is None:
            return t
        k -= 1
    return Fraction(0)


def possible_recipes(rules: RuleSet, hand: Mapping[str, Fraction],
                     crafting: str = FRACTIONAL) -> list[tuple[Recipe, Fraction, Craft]]:
    """Every recipe that ``hand`` can apply at some positive scale the crafting rule allows (indexed
    by held items), with its largest such scale."""
    candidates: dict[str, Recipe] = {}
    for item, n in hand.items():
        if n > 0:
            for recipe in rules.by_input.get(item, ()):
                candidates[recipe.id] = recipe
    out = []
    fuel = _pick_fuel(rules, hand, {})  # the same best fuel for every recipe: pick it once
    for recipe_id in sorted(candidates):
        times, craft = max_times(rules, hand, candidates[recipe_id], fuel, pool=crafting != FRACTIONAL)
        if crafting != FRACTIONAL and craft is not None:
            legal = max_legal_scale(rules, candidates[recipe_id], times, crafting)
            if legal != times and craft.mixes and legal > 0:  # fewer runs: take the mix again
                recipe = candidates[recipe_id]
                craft = _remix(recipe, hand, craft, legal)
            times = legal
            craft = replace(craft, times=times)
        if times > 0 and craft is not None:
            out.append((candidates[recipe_id], times, craft))
    return out


def _remix(recipe: Recipe, hand: Mapping[str, Fraction], craft: Craft, times: Fraction) -> Craft:
    """``craft`` at the smaller scale ``times``, its mixed slots taken afresh (the most held first)."""
    choices = dict(craft.choices)
    mixes = {}
    for key, shares in craft.mixes:
        ing = recipe.slot(key)
        assert ing is not None
        taken = _pool(tuple(i for i, _ in shares), hand, times * ing.amount, {})
        assert taken is not None
        if len(taken) == 1:
            choices[key] = taken[0][0]
        else:
            mixes[key] = tuple(sorted((i, n / times) for i, n in taken))
    return Craft(craft.recipe, times, tuple(sorted(choices.items())), craft.fuel, tuple(sorted(mixes.items())))


def possible_recipes_scan(rules: RuleSet, hand: Mapping[str, Fraction]) -> list[tuple[Recipe, Fraction, Craft]]:
    """The same answer without the ingredient index: a scan over every recipe (the benchmark's baseline)."""
    out = []
    fuel = _pick_fuel(rules, hand, {})
    for recipe_id in sorted(rules.recipes):
        recipe = rules.recipes[recipe_id]
        times, craft = max_times(rules, hand, recipe, fuel)
        if times > 0 and craft is not None:
            out.append((recipe, times, craft))
    return out
