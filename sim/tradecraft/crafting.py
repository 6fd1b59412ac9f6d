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
from dataclasses import dataclass
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

    @classmethod
    def make(cls, recipe: str, times: Fraction | int | str = 1, choices: Mapping[str, str] | None = None,
             fuel: str | None = None) -> "Craft":
        return cls(recipe, parse_times(times), tuple(sorted((choices or {}).items())), fuel)

    def choice(self, key: str) -> str | None:
        for k, item in self.choices:
            if k == key:
                return item
        return None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"recipe": self.recipe, "times": format_amount(self.times)}
        if self.choices:
            d["choices"] = dict(self.choices)
        if self.fuel is not None:
            d["fuel"] = self.fuel
        return d

    def key(self) -> tuple:
        return (self.recipe, self.times.numerator, self.times.denominator, self.choices, self.fuel)


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
    unknown = sorted(set(data) - {"recipe", "times", "choices", "fuel"})
    if unknown:
        raise CraftError(f"{where}: unknown field(s) {', '.join(unknown)} (allowed: recipe, times, choices, fuel)")
    recipe = resolve_recipe(rules, data.get("recipe"), f"{where}.recipe")
    times = parse_times(data.get("times", 1), f"{where}.times")
    raw_choices = data.get("choices") or {}
    if not isinstance(raw_choices, Mapping):
        raise CraftError(f"{where}.choices: expected an object mapping slot keys to items, got {raw_choices!r}")
    choices = {}
    for key, item in raw_choices.items():
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
    return Craft(recipe.id, times, tuple(sorted(choices.items())), fuel)


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
    stray = [k for k, _ in craft.choices if k not in keys]
    if stray:
        return CraftCheck(False, f"recipe {rules.display(recipe.id)} has no slot {stray[0]!r} "
                                 f"(its slots: {', '.join(sorted(keys))})")
    consumed: dict[str, Fraction] = defaultdict(Fraction)
    choices = {}
    for ing in recipe.ingredients:
        chosen = craft.choice(ing.key)
        if chosen is None:
            if not ing.options:
                return CraftCheck(False, f"slot {ing.key!r} ({ing.source}) has no items in this rule set")
            chosen = ing.options[0] if len(ing.options) == 1 else _pick_option(ing.options, hand)
        elif chosen not in ing.options:
            return CraftCheck(False, f"{rules.display(chosen)} does not fit slot {ing.key!r} ({ing.source})")
        choices[ing.key] = chosen
        consumed[chosen] += craft.times * ing.amount
    fuel = None
    if recipe.fuel > 0:
        fuel = craft.fuel or _pick_fuel(rules, hand, consumed)
        if fuel is None:
            return CraftCheck(False, f"{recipe.type} needs fuel ({format_amount(recipe.fuel * craft.times)} "
                                     "coal-equivalent) and the hand holds none")
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
                     tuple(sorted((ing.key, choices[ing.key]) for ing in recipe.ingredients if ing.is_choice)), fuel)
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
              fuel: Any = _UNSET) -> tuple[Fraction, Craft | None]:
    """The largest scale at which ``recipe`` can be applied with automatic choices, and that craft.

    Each slot takes its best held option; an item wanted by two slots (or as fuel too) is
    shared between them.
    """
    per_unit: dict[str, Fraction] = defaultdict(Fraction)
    choices = {}
    for ing in recipe.ingredients:
        if not ing.options:
            return Fraction(0), None
        chosen = ing.options[0] if len(ing.options) == 1 else _pick_option(ing.options, hand)
        if hand.get(chosen, 0) <= 0:
            return Fraction(0), None
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
    times = min(hand[item] / n for item, n in per_unit.items())
    explicit = {ing.key: choices[ing.key] for ing in recipe.ingredients if ing.is_choice}
    return times, Craft(recipe.id, times, tuple(sorted(explicit.items())), fuel)


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
        times, craft = max_times(rules, hand, candidates[recipe_id], fuel)
        if crafting != FRACTIONAL and craft is not None:
            times = max_legal_scale(rules, candidates[recipe_id], times, crafting)
            craft = Craft(craft.recipe, times, craft.choices, craft.fuel)
        if times > 0 and craft is not None:
            out.append((candidates[recipe_id], times, craft))
    return out


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
