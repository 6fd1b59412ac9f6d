"""The agent tools of TradeCraft, with plain-text answers a person or a language model can read.

* ``item_info(item)``: how an item is made and what it makes, tags resolved, fuel value.
* ``possible_recipes_from_hands(hand)``: every recipe the hand can apply now, with the
  largest scale and a ready-to-send craft.
* ``check_craft(hand, craft)``: what a craft would use and make, or why it cannot.

Recipes print as amount maps: ``{coal|charcoal * 1, stick * 1} -> {torch * 4}``; a tag
prints as ``tag:minecraft:planks (oak_planks|spruce_planks|...)``; smelting adds
``fuel * 1/8`` (coal-equivalents).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from sim.tradecraft.crafting import FRACTIONAL, CraftError, check_craft, craft_from_dict, possible_recipes, to_hand
from sim.tradecraft.rules import Recipe, RuleSet, format_amount

MAX_OPTIONS_SHOWN = 6

#: JSON schemas of the tools, for function-calling language models
TOOL_SPECS: list[dict[str, Any]] = [
    {"name": "item_info",
     "description": "How an item is made (recipes that produce it) and what it is used for (recipes that "
                    "consume it), with tags resolved and its fuel value.",
     "parameters": {"type": "object", "properties": {"item": {"type": "string", "description": "item name, "
                                                                                            "e.g. 'torch'"}},
                    "required": ["item"]}},
    {"name": "possible_recipes_from_hands",
     "description": "Every recipe that your current hand can craft now, with the largest amount and a craft "
                    "to send.",
     "parameters": {"type": "object", "properties": {}, "required": []}},
    {"name": "check_craft",
     "description": "Check one craft against your current hand: what it would use and make, or why not.",
     "parameters": {"type": "object", "properties": {
         "recipe": {"type": "string"}, "times": {"type": "string", "description": "scale, e.g. '1' or '1/4'"},
         "choices": {"type": "object", "description": "slot key -> item for slots with alternatives"},
         "fuel": {"type": "string"}}, "required": ["recipe"]}},
]


def _short(rules: RuleSet, item: str) -> str:
    return rules.display(item)


def ingredient_text(rules: RuleSet, options: tuple[str, ...], source: str) -> str:
    if len(options) == 1:
        return _short(rules, options[0])
    shown = "|".join(_short(rules, o) for o in options[:MAX_OPTIONS_SHOWN])
    if len(options) > MAX_OPTIONS_SHOWN:
        shown += f"|... {len(options) - MAX_OPTIONS_SHOWN} more"
    if source.startswith("#"):
        return f"tag:{source[1:]} ({shown})"
    return shown


def recipe_text(rules: RuleSet, recipe: Recipe, times: Fraction | int = 1) -> str:
    times = Fraction(times)
    parts = [f"{ingredient_text(rules, ing.options, ing.source)} * {format_amount(ing.amount * times)}"
             for ing in recipe.ingredients]
    if recipe.fuel > 0:
        parts.append(f"fuel * {format_amount(recipe.fuel * times)}")
    head = f"{recipe.id} [{recipe.type.replace('crafting_', '')}"
    if recipe.cooking_time:
        head += f", {recipe.cooking_time} ticks"
    head += "]"
    slots = [ing.key for ing in recipe.ingredients if ing.is_choice]
    line = f"{head}: {{{', '.join(parts)}}} -> {{{_short(rules, recipe.result)} * {format_amount(recipe.count * times)}}}"
    if slots:
        line += f"  (choose one item for slot {', '.join(repr(k) for k in slots)})"
    return line


ITEM_INFO_CHARS = 2400  # the answer fits a small model's context next to the rest of the prompt
MADE_BY_SHOWN = 8


def item_info(rules: RuleSet, name: str, max_chars: int = ITEM_INFO_CHARS) -> str:
    """How ``name`` is made and what it makes, as plain text of at most about ``max_chars``.

    Every recipe that makes the item is shown (up to 8); recipes that use it follow, those that
    name it directly and have fewest ingredients first, until the budget is spent; the rest are
    summed up as the items they make."""
    try:
        item = rules.resolve(name.strip())
    except KeyError as exc:
        close = sorted(i for i in rules.items if name.strip().lower() in i)[:8]
        hint = f"; did you mean {', '.join(_short(rules, c) for c in close)}?" if close else ""
        return f"item_info: {exc.args[0]}{hint}"
    lines = [f"item: {_short(rules, item)} ({item})"]
    tags = rules.tags_of.get(item, ())
    lines.append(f"tags: {', '.join('tag:' + t for t in tags)}" if tags else "tags: none")
    value = rules.fuel_value(item)
    if value > 0:
        lines.append(f"fuel: {format_amount(value)} coal-equivalent per item "
                     f"({format_amount(Fraction(1, 8) / value)} of it smelts one item)")
    else:
        lines.append("fuel: does not burn")
    made = sorted(rules.by_result.get(item, ()), key=lambda r: r.id)
    if made:
        lines.append(f"made by {len(made)} recipe{'s' if len(made) != 1 else ''}:")
        lines += [f"  {recipe_text(rules, r)}" for r in made[:MADE_BY_SHOWN]]
        if len(made) > MADE_BY_SHOWN:
            lines.append(f"  ... and {len(made) - MADE_BY_SHOWN} more")
    else:
        lines.append("made by: no recipe (a raw item: get it by trading)")
    used = rules.by_input.get(item, ())
    fuel_users = len(rules.fuel_recipes) if value > 0 else 0
    tail = (f"also burns as fuel in the {fuel_users} smelting, blasting and smoking recipes" if fuel_users else "")
    if used:
        lines.append(f"used in {len(used)} recipe{'s' if len(used) != 1 else ''}"
                     + (" (recipes of the same shape share a line):" if len(used) > 1 else ":"))
        budget = max_chars - sum(len(line) + 1 for line in lines) - len(tail) - 1
        groups = _same_shape(item, used)
        shown = 0
        for k, group in enumerate(groups):
            line = f"  {recipe_text(rules, group[0])}"
            if len(group) > 1:
                others = [_short(rules, r.result) for r in group[1:]]
                line += f"  (and {len(others)} like it: {', '.join(others[:6])}{', ...' if len(others) > 6 else ''})"
            if len(line) + 1 > budget - 100 and k < len(groups) - 1:
                break
            lines.append(line)
            budget -= len(line) + 1
            shown += 1
        rest = [r for group in groups[shown:] for r in group]
        if rest:
            makes = list(dict.fromkeys(_short(rules, r.result) for r in rest))
            words, room = [], max(budget - 60, 40)
            for m in makes:
                if len(m) + 2 > room:
                    break
                words.append(m)
                room -= len(m) + 2
            more = f" (+{len(makes) - len(words)} more)" if len(words) < len(makes) else ""
            lines.append(f"  ... and {len(rest)} more, making: {', '.join(words)}{more}")
    else:
        lines.append("used in: no recipe")
    if tail:
        lines.append(tail)
    return "\n".join(lines)


def _same_shape(item: str, recipes: tuple[Recipe, ...]) -> list[list[Recipe]]:
    """Recipes that use ``item`` grouped by shape (type, amounts, output count; e.g. the fences of
    every wood), the groups with fewest ingredients and the one-of-a-kind recipes first."""
    groups: dict[tuple, list[Recipe]] = {}
    for r in sorted(recipes, key=lambda r: r.id):
        mine = sum(ing.amount for ing in r.ingredients if item in ing.options)
        shape = (r.type, r.count, mine, tuple(sorted(ing.amount for ing in r.ingredients)))
        groups.setdefault(shape, []).append(r)
    return sorted(groups.values(), key=lambda g: (len(g[0].ingredients), len(g) > 1, g[0].id))


ANY_SCALE, FULL_SCALE = "any_scale", "full_scale"


def possible_recipes_from_hands(rules: RuleSet, hand: Mapping[str, Fraction | int], crafting: str = FRACTIONAL,
                                recipe_list: str = ANY_SCALE) -> str:
    """The recipes the hand can apply now, as plain text with a ready-to-send craft for each.

    ``recipe_list`` ``any_scale`` lists every recipe whose largest allowed scale makes at least
    one whole item; ``full_scale`` (the original server) only those the hand can run in full
    (scale 1 or more)."""
    h = to_hand(hand)
    found = [(recipe, times, craft) for recipe, times, craft in possible_recipes(rules, h, crafting)
             if (times >= 1 if recipe_list == FULL_SCALE else times * recipe.count >= 1)]
    if not found:
        return "possible recipes from your hand: none"
    lines = [f"possible recipes from your hand ({len(found)}):"]
    for recipe, times, craft in found:
        lines.append(f"  up to x{format_amount(times)}: {recipe_text(rules, recipe)}")
        example = craft.to_dict()
        example["times"] = format_amount(min(times, Fraction(1)))
        lines.append(f"      craft: {_json(example)}")
    return "\n".join(lines)


def check_craft_text(rules: RuleSet, hand: Mapping[str, Fraction | int], craft: Any,
                     crafting: str = FRACTIONAL) -> str:
    try:
        parsed = craft_from_dict(rules, craft)
    except CraftError as exc:
        return f"cannot craft: {exc}"
    return check_craft(rules, to_hand(hand), parsed, crafting).describe(rules)


def _json(value: Any) -> str:
    import json
    return json.dumps(value, separators=(", ", ": "))


class TradeCraftTools:
    """The tools bound to one rule set and the game's rule options (what an agent gets); ``call``
    dispatches by tool name."""

    def __init__(self, rules: RuleSet, crafting: str = FRACTIONAL, recipe_list: str = ANY_SCALE) -> None:
        self.rules = rules
        self.crafting = crafting
        self.recipe_list = recipe_list

    @classmethod
    def for_world(cls, world: Any) -> "TradeCraftTools":
        return cls(world.rules, getattr(world, "crafting", FRACTIONAL), getattr(world, "recipe_list", ANY_SCALE))

    def item_info(self, item: str) -> str:
        return item_info(self.rules, item)

    def possible_recipes_from_hands(self, hand: Mapping[str, Fraction | int]) -> str:
        return possible_recipes_from_hands(self.rules, hand, self.crafting, self.recipe_list)

    def check_craft(self, hand: Mapping[str, Fraction | int], craft: Any) -> str:
        return check_craft_text(self.rules, hand, craft, self.crafting)

    def call(self, name: str, arguments: Mapping[str, Any], hand: Mapping[str, Fraction | int]) -> str:
        """Run a tool by name with JSON arguments (a model's tool call); errors come back as text."""
        if name == "item_info":
            return self.item_info(str(arguments.get("item", "")))
        if name == "possible_recipes_from_hands":
            return self.possible_recipes_from_hands(hand)
        if name == "check_craft":
            return self.check_craft(hand, dict(arguments))
        return f"unknown tool {name!r}; tools: {', '.join(t['name'] for t in TOOL_SPECS)}"
