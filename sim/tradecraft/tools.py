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

from sim.tradecraft.crafting import CraftError, check_craft, craft_from_dict, possible_recipes, to_hand
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


def fuel_text(rules: RuleSet) -> str:
    """One line on how fuel works in this rule set."""
    best = sorted(rules.fuels.items(), key=lambda kv: (-kv[1], kv[0]))
    sample = " = ".join(f"{_short(rules, i)} * {format_amount(Fraction(1, 8) / v)}" for i, v in best[:1] + [
        kv for kv in best if _short(rules, kv[0]) in ("oak_planks", "stick")][:2])
    return (f"fuel: smelting, blasting and smoking burn 1/8 coal-equivalent per item ({sample}); "
            f"campfire cooking needs none; {len(rules.fuels)} items burn")


def item_info(rules: RuleSet, name: str, max_recipes: int = 120) -> str:
    """How ``name`` is made and what it makes, as plain text."""
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
        lines += [f"  {recipe_text(rules, r)}" for r in made[:max_recipes]]
        if len(made) > max_recipes:
            lines.append(f"  ... and {len(made) - max_recipes} more")
    else:
        lines.append("made by: no recipe (a raw item: get it by trading)")
    used = sorted(rules.by_input.get(item, ()), key=lambda r: r.id)
    fuel_users = len(rules.fuel_recipes) if value > 0 else 0
    if used:
        lines.append(f"used in {len(used)} recipe{'s' if len(used) != 1 else ''}:")
        lines += [f"  {recipe_text(rules, r)}" for r in used[:max_recipes]]
        if len(used) > max_recipes:
            lines.append(f"  ... and {len(used) - max_recipes} more")
    else:
        lines.append("used in: no recipe")
    if fuel_users:
        lines.append(f"also burns as fuel in the {fuel_users} smelting, blasting and smoking recipes")
    return "\n".join(lines)


def possible_recipes_from_hands(rules: RuleSet, hand: Mapping[str, Fraction | int]) -> str:
    """Every recipe the hand can apply now, as plain text with a ready-to-send craft for each."""
    h = to_hand(hand)
    found = possible_recipes(rules, h)
    if not found:
        return "possible recipes from your hand: none"
    lines = [f"possible recipes from your hand ({len(found)}):"]
    for recipe, times, craft in found:
        lines.append(f"  up to x{format_amount(times)}: {recipe_text(rules, recipe)}")
        example = craft.to_dict()
        example["times"] = format_amount(min(times, Fraction(1)))
        lines.append(f"      craft: {_json(example)}")
    return "\n".join(lines)


def check_craft_text(rules: RuleSet, hand: Mapping[str, Fraction | int], craft: Any) -> str:
    try:
        parsed = craft_from_dict(rules, craft)
    except CraftError as exc:
        return f"cannot craft: {exc}"
    return check_craft(rules, to_hand(hand), parsed).describe(rules)


def _json(value: Any) -> str:
    import json
    return json.dumps(value, separators=(", ", ": "))


class TradeCraftTools:
    """The tools bound to one rule set (what an agent gets); ``call`` dispatches by tool name."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules

    def item_info(self, item: str) -> str:
        return item_info(self.rules, item)

    def possible_recipes_from_hands(self, hand: Mapping[str, Fraction | int]) -> str:
        return possible_recipes_from_hands(self.rules, hand)

    def check_craft(self, hand: Mapping[str, Fraction | int], craft: Any) -> str:
        return check_craft_text(self.rules, hand, craft)

    def call(self, name: str, arguments: Mapping[str, Any], hand: Mapping[str, Fraction | int]) -> str:
        """Run a tool by name with JSON arguments (a model's tool call); errors come back as text."""
        if name == "item_info":
            return self.item_info(str(arguments.get("item", "")))
        if name == "possible_recipes_from_hands":
            return self.possible_recipes_from_hands(hand)
        if name == "check_craft":
            return self.check_craft(hand, dict(arguments))
        return f"unknown tool {name!r}; tools: {', '.join(t['name'] for t in TOOL_SPECS)}"
