"""TradeCraft rule sets: recipes, item tags and fuel values, loaded from Minecraft datapack JSON.

A rule set is a folder in one of two layouts:

* a *rule-set folder* (the shipped ones, and the layout of the TradeCraft paper)::

      ruleset.json            optional: {"name", "title", "namespace", "description", "generator"}
      recipes/**/*.json       one recipe per file, Minecraft datapack format
      tags/items/**/*.json    item tags ({"values": [...]}); ``tags/item`` is accepted too
      tags/_*/**/*.json       extra tags named by their file name (the TradeCraft authors' ``_custom``)
      tags/<other>/**/*.json  named by file name too and read when no item tag has that name
                              (the authors' server reads every tags/* folder; their fuel list
                              needs #minecraft:beehives, which only tags/blocks has)
      tags/items/fuel.json    optional: the TradeCraft authors' fuel list (see below)
      fuels.json              optional: fuel values per item or #tag (else the vanilla table)

* a *datapack* (``data/<namespace>/recipes/**/*.json`` and ``data/<namespace>/tags/items/``;
  the 1.21 folder names ``recipe`` and ``tags/item`` work as well), e.g. the ``data`` folder
  extracted from a Minecraft jar.

Recipe types: ``crafting_shaped`` (pattern and key), ``crafting_shapeless``, ``smelting``,
``blasting``, ``smoking``, ``campfire_cooking`` (with ``cookingtime``), ``stonecutting``,
``smithing_transform`` and ``crafting_transmute``. Types without a fixed result
(``crafting_special_*``, ``smithing_trim``, ``crafting_decorated_pot``) are skipped and counted.
Ingredients take every form of the 1.20 and 1.21 formats: ``{"item": id}``, ``{"tag": id}``,
``"id"``, ``"#tag"`` or a list of alternatives. Results take ``{"item"|"id": id, "count": n}``
or a plain id (with a sibling ``count`` for stonecutting).

Fuel: smelting, blasting and smoking consume ``1/8`` coal-equivalent of fuel per item
(Minecraft: one coal burns 1600 ticks and smelts 8 items); campfire cooking needs none. The
fuel values come from the first of: ``fuels.json`` (coal-equivalents per item or #tag); the
tag ``#<namespace>:fuel`` as the TradeCraft authors publish it, whose entries are plain ids or
tags (one unit each is one coal) or ``{"value": id, "count": n}`` (``n`` units of the item are
worth one coal, so one unit is ``1/n`` coal-equivalent: ``{"value": "minecraft:stick", "count":
16}`` is 1/16); the vanilla burn-time table.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from sim.inputs import InputError, read_json

#: coal-equivalents of fuel consumed per item smelted, blasted or smoked
FUEL_PER_SMELT = Fraction(1, 8)
FUEL_RECIPE_TYPES = frozenset({"smelting", "blasting", "smoking"})
COOKING_TYPES = frozenset({"smelting", "blasting", "smoking", "campfire_cooking"})
DEFAULT_COOKING_TIME = {"smelting": 200, "blasting": 100, "smoking": 100, "campfire_cooking": 600}
SKIPPED_TYPES = frozenset({"smithing_trim", "crafting_decorated_pot"})

#: Vanilla (Java 1.20) burn times in game ticks; a coal burns 1600 ticks, so the coal-equivalent
#: of an item is ticks / 1600. Used when a rule set has no fuels.json of its own.
VANILLA_BURN_TICKS: dict[str, int] = {
    "minecraft:lava_bucket": 20000, "minecraft:coal_block": 16000, "minecraft:dried_kelp_block": 4000,
    "minecraft:blaze_rod": 2400, "minecraft:coal": 1600, "minecraft:charcoal": 1600,
    "#minecraft:boats": 1200, "#minecraft:chest_boats": 1200,
    "#minecraft:logs_that_burn": 300, "#minecraft:planks": 300, "#minecraft:wooden_stairs": 300,
    "#minecraft:wooden_trapdoors": 300, "#minecraft:wooden_pressure_plates": 300,
    "#minecraft:wooden_fences": 300, "#minecraft:fence_gates": 300, "#minecraft:banners": 300,
    "minecraft:note_block": 300, "minecraft:bookshelf": 300, "minecraft:chiseled_bookshelf": 300,
    "minecraft:lectern": 300, "minecraft:jukebox": 300, "minecraft:chest": 300,
    "minecraft:trapped_chest": 300, "minecraft:crafting_table": 300, "minecraft:daylight_detector": 300,
    "minecraft:bow": 300, "minecraft:fishing_rod": 300, "minecraft:ladder": 300,
    "minecraft:crossbow": 300, "minecraft:barrel": 300, "minecraft:composter": 300,
    "minecraft:smithing_table": 300, "minecraft:cartography_table": 300,
    "minecraft:fletching_table": 300, "minecraft:loom": 300, "minecraft:mangrove_roots": 300,
    "#minecraft:hanging_signs": 800,
    "#minecraft:wooden_slabs": 150,
    "#minecraft:wooden_doors": 200, "#minecraft:signs": 200, "minecraft:wooden_pickaxe": 200,
    "minecraft:wooden_axe": 200, "minecraft:wooden_shovel": 200, "minecraft:wooden_hoe": 200,
    "minecraft:wooden_sword": 200,
    "minecraft:bowl": 100, "minecraft:stick": 100, "#minecraft:saplings": 100, "#minecraft:wool": 100,
    "#minecraft:wooden_buttons": 100, "minecraft:azalea": 100, "minecraft:dead_bush": 100,
    "#minecraft:wool_carpets": 67,
    "minecraft:bamboo": 50, "minecraft:scaffolding": 50,
}
COAL_TICKS = 1600


class RuleSetError(InputError):
    """A rule set that cannot be loaded; the message names the file, the field and the fix."""


@dataclass(frozen=True, slots=True)
class Ingredient:
    """One input slot of a recipe: ``amount`` units of any one of ``options``.

    ``key`` names the slot in craft choices: the pattern symbol of a shaped recipe, the
    position of a shapeless ingredient ("0", "1", ...), ``ingredient`` for cooking and
    stonecutting, ``template``/``base``/``addition`` for smithing, ``input``/``material``
    for transmuting. ``source`` is how the recipe file wrote it (``#minecraft:planks``).
    """

    key: str
    options: tuple[str, ...]
    amount: int
    source: str

    @property
    def is_choice(self) -> bool:
        return len(self.options) > 1


@dataclass(frozen=True, slots=True)
class Recipe:
    id: str
    type: str
    ingredients: tuple[Ingredient, ...]
    result: str
    count: int
    fuel: Fraction = Fraction(0)  # coal-equivalents consumed per craft at scale 1
    cooking_time: int | None = None
    pattern: tuple[str, ...] | None = None
    group: str = ""
    category: str = ""

    def slot(self, key: str) -> Ingredient | None:
        for ing in self.ingredients:
            if ing.key == key:
                return ing
        return None


@dataclass
class RuleSet:
    """Every recipe, tag and fuel value of one rule set, with the indexes the tools need."""

    name: str
    namespace: str
    title: str
    source: str
    recipes: dict[str, Recipe]
    tags: dict[str, tuple[str, ...]]
    fuels: dict[str, Fraction]
    skipped: dict[str, int] = field(default_factory=dict)
    description: str = ""
    fuel_source: str = "vanilla burn times"
    notes: tuple[str, ...] = ()  # things the loader tolerated, for the summary
    #: ruleset.json's ``generator`` pools, resolved to full ids: (targets, raw items, intermediates)
    generator: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None

    def __post_init__(self) -> None:
        by_result: dict[str, list[Recipe]] = defaultdict(list)
        by_input: dict[str, list[Recipe]] = defaultdict(list)
        items: set[str] = set(self.fuels)
        for recipe in self.recipes.values():
            by_result[recipe.result].append(recipe)
            items.add(recipe.result)
            seen: set[str] = set()
            for ing in recipe.ingredients:
                for option in ing.options:
                    items.add(option)
                    if option not in seen:
                        seen.add(option)
                        by_input[option].append(recipe)
        tags_of: dict[str, list[str]] = defaultdict(list)
        for tag, members in self.tags.items():
            items.update(members)
            for member in members:
                tags_of[member].append(tag)
        self.items: frozenset[str] = frozenset(items)
        self.by_result = {k: tuple(v) for k, v in by_result.items()}
        self.by_input = {k: tuple(v) for k, v in by_input.items()}
        self.tags_of = {k: tuple(sorted(v)) for k, v in tags_of.items()}
        self.fuel_recipes = tuple(r for r in self.recipes.values() if r.fuel > 0)
        self._short: dict[str, list[str]] = defaultdict(list)
        for item in self.items:
            self._short[item.partition(":")[2] or item].append(item)

    # ------------------------------------------------------------------ names

    def resolve(self, name: str) -> str:
        """The full id of an item named with or without its namespace; raises KeyError."""
        if name in self.items:
            return name
        if ":" not in name:
            full = f"{self.namespace}:{name}"
            if full in self.items:
                return full
            matches = self._short.get(name, [])
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise KeyError(f"item {name!r} is ambiguous in rule set {self.name!r}: {', '.join(sorted(matches))}")
        raise KeyError(f"unknown item {name!r} in rule set {self.name!r}")

    def display(self, item: str) -> str:
        """The short name shown to people and models (namespace dropped when it is the default)."""
        ns, _, rest = item.partition(":")
        return rest if rest and ns == self.namespace else item

    def fuel_value(self, item: str) -> Fraction:
        return self.fuels.get(item, Fraction(0))

    def summary(self) -> dict[str, Any]:
        counts: dict[str, int] = defaultdict(int)
        for recipe in self.recipes.values():
            counts[recipe.type] += 1
        return {"name": self.name, "recipes": len(self.recipes), "items": len(self.items),
                "tags": len(self.tags), "fuels": len(self.fuels), "by_type": dict(sorted(counts.items())),
                "skipped": dict(self.skipped), "fuel_source": self.fuel_source, "notes": list(self.notes)}


# ---------------------------------------------------------------------- parsing

def parse_fraction(value: Any, where: str) -> Fraction:
    """A non-negative exact amount from an int, a float or a string such as ``"3/16"``."""
    if isinstance(value, bool):
        raise RuleSetError(f"{where}: expected a number or a fraction like '3/16', got {value!r}")
    if isinstance(value, str) and (len(value) > 40 or any(ch in value for ch in "eE")):
        # Fraction("1e999999999") would build a billion-digit number
        raise RuleSetError(f"{where}: expected a number or a fraction like '3/16', got {value[:60]!r}")
    try:
        if isinstance(value, float):
            result = Fraction(value).limit_denominator(10_000)
        elif isinstance(value, (int, str)):
            result = Fraction(value)
        else:
            raise TypeError
    except (ValueError, TypeError, ZeroDivisionError):
        raise RuleSetError(f"{where}: expected a number or a fraction like '3/16', got {value!r}") from None
    if result < 0:
        raise RuleSetError(f"{where}: expected a non-negative amount, got {value!r}")
    return result


class _Loader:
    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.raw_tags: dict[str, tuple[Path, list[Any]]] = {}
        self.tags: dict[str, tuple[tuple[str, Fraction], ...]] = {}
        #: tags of the other tag folders (tags/blocks, ...), read when a #tag is not an item tag
        self.fallback: dict[str, Path] = {}
        self.borrowed: list[str] = []

    def qualify(self, name: str) -> str:
        return name if ":" in name else f"{self.namespace}:{name}"

    # tags ---------------------------------------------------------------

    def add_tag_file(self, tag: str, path: Path) -> None:
        data = _read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("values"), list):
            raise RuleSetError(f"{path}: expected an object with a list 'values', e.g. "
                               '{"values": ["minecraft:oak_planks", "#minecraft:logs"]}')
        if tag in self.raw_tags and not data.get("replace", False):
            self.raw_tags[tag] = (path, self.raw_tags[tag][1] + data["values"])
        else:
            self.raw_tags[tag] = (path, list(data["values"]))

    def entry(self, path: Path, n: int, value: Any) -> tuple[str, bool, Fraction]:
        """(id or '#tag', required, count) of one entry of a tag's 'values' list.

        Entries are ``"id"``, ``"#tag"``, ``{"id": ..., "required": false}`` (Minecraft) or
        ``{"value": ..., "count": n}`` (the TradeCraft authors' fuel list).
        """
        raw = value
        required, count = True, Fraction(1)
        if isinstance(value, dict):
            unknown = sorted(set(value) - {"id", "value", "required", "count"})
            ids = [value[k] for k in ("id", "value") if k in value]
            if unknown or len(ids) != 1:
                value = None
            else:
                required = value.get("required", True)
                if not isinstance(required, bool):
                    raise RuleSetError(f"{path}: values[{n}]: field 'required': expected true or false, "
                                       f"got {required!r:.60}")
                if "count" in value:
                    count = parse_fraction(value["count"], f"{path}: values[{n}]: field 'count'")
                    if count <= 0:
                        raise RuleSetError(f"{path}: values[{n}]: field 'count': expected a positive number, "
                                           f"got {value['count']!r}")
                value = ids[0]
        if not isinstance(value, str) or not value.strip("#"):
            shown = json.dumps(raw)[:120] if _jsonable(raw) else repr(raw)[:120]
            raise RuleSetError(f"{path}: values[{n}]: expected an item id, '#tag', "
                               f'{{"id": ..., "required": false}} or {{"value": ..., "count": n}}, got {shown}')
        return value, required, count

    def expand_tag(self, tag: str, chain: tuple[str, ...] = ()) -> tuple[str, ...]:
        return tuple(dict.fromkeys(item for item, _ in self.weighted(tag, chain)))

    def weighted(self, tag: str, chain: tuple[str, ...] = ()) -> tuple[tuple[str, Fraction], ...]:
        """(member, count) of a tag in file order, nested tags expanded with their counts multiplied."""
        if tag in self.tags:
            return self.tags[tag]
        if tag in chain:
            cycle = " -> ".join((*chain[chain.index(tag):], tag))
            raise RuleSetError(f"tag {tag}: nested #tag references form a cycle ({cycle})")
        if tag not in self.raw_tags:
            if tag not in self.fallback:
                raise KeyError(tag)
            self.add_tag_file(tag, self.fallback.pop(tag))
            self.borrowed.append(tag)
        path, values = self.raw_tags[tag]
        members: list[tuple[str, Fraction]] = []
        for n, raw in enumerate(values):
            value, required, count = self.entry(path, n, raw)
            if value.startswith("#"):
                inner = self.qualify(value[1:])
                try:
                    found = self.weighted(inner, (*chain, tag))
                except KeyError:
                    if not required:
                        continue
                    raise RuleSetError(f"{path}: values[{n}]: tag #{inner} is not defined "
                                       "(no file for it under tags/)") from None
                members.extend((item, c * count) for item, c in found)
            else:
                members.append((self.qualify(value), count))
        result = tuple(members)
        self.tags[tag] = result
        return result

    def expand_all_tags(self) -> dict[str, tuple[str, ...]]:
        for tag in sorted(self.raw_tags):
            self.weighted(tag)
        return {tag: tuple(dict.fromkeys(item for item, _ in members)) for tag, members in sorted(self.tags.items())}

    # recipes ------------------------------------------------------------

    def ingredient_options(self, value: Any, where: str) -> tuple[tuple[str, ...], str]:
        """(concrete item options, source text) of one ingredient in any datapack form."""
        if isinstance(value, list):
            if not value:
                raise RuleSetError(f"{where}: an empty list of alternatives")
            options: list[str] = []
            sources = []
            for k, alt in enumerate(value):
                opts, src = self.ingredient_options(alt, f"{where}[{k}]")
                options.extend(opts)
                sources.append(src)
            return tuple(dict.fromkeys(options)), "[" + ", ".join(sources) + "]"
        if isinstance(value, str):
            value = {"tag": value[1:]} if value.startswith("#") else {"item": value}
        if isinstance(value, dict):
            if "item" in value and isinstance(value["item"], str):
                item = self.qualify(value["item"])
                return (item,), item
            if "tag" in value and isinstance(value["tag"], str):
                tag = self.qualify(value["tag"])
                try:
                    return self.expand_tag(tag), f"#{tag}"
                except KeyError:
                    raise RuleSetError(f"{where}: tag #{tag} is not defined (add tags/items/"
                                       f"{tag.partition(':')[2]}.json)") from None
        raise RuleSetError(f"{where}: expected an ingredient like {{\"item\": \"minecraft:stick\"}}, "
                           f"{{\"tag\": \"minecraft:planks\"}}, \"#minecraft:planks\" or a list of them, "
                           f"got {value!r}")

    def result_of(self, data: dict[str, Any], where: str) -> tuple[str, int]:
        result = data.get("result")
        count = data.get("count", 1)
        if isinstance(result, str):
            item = result
        elif isinstance(result, dict) and isinstance(named := result.get("item", result.get("id")), str):
            item = named
            count = result.get("count", 1)
        else:
            raise RuleSetError(f"{where}: field 'result': expected an item id or "
                               f'{{"item": id, "count": n}}, got {result!r}')
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise RuleSetError(f"{where}: field 'result.count': expected a positive integer, got {count!r}")
        return self.qualify(item), count

    def recipe(self, recipe_id: str, data: Any, path: Path) -> Recipe | str:
        """A Recipe, or the recipe type when the type is skipped."""
        where = str(path)
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise RuleSetError(f"{where}: expected a recipe object with a 'type' such as "
                               "'minecraft:crafting_shaped'")
        kind = data["type"].partition(":")[2] or data["type"]
        group, category = str(data.get("group", "")), str(data.get("category", ""))
        if kind == "crafting_shaped":
            pattern = data.get("pattern")
            key = data.get("key")
            if not (isinstance(pattern, list) and pattern and all(isinstance(r, str) for r in pattern)):
                raise RuleSetError(f"{where}: field 'pattern': expected a list of up to 3 strings, got {pattern!r}")
            if len(pattern) > 3 or any(len(r) > 3 for r in pattern):
                raise RuleSetError(f"{where}: field 'pattern': rows must be at most 3 wide and at most 3 rows")
            if not isinstance(key, dict):
                raise RuleSetError(f"{where}: field 'key': expected an object mapping pattern symbols to ingredients")
            counts: dict[str, int] = defaultdict(int)
            for row in pattern:
                for symbol in row:
                    if symbol != " ":
                        counts[symbol] += 1
            if not counts:
                raise RuleSetError(f"{where}: field 'pattern': the pattern has no ingredients")
            slots = []
            for symbol in counts:
                if symbol not in key:
                    raise RuleSetError(f"{where}: field 'pattern': symbol {symbol!r} has no entry in 'key'")
                options, source = self.ingredient_options(key[symbol], f"{where}: field 'key.{symbol}'")
                slots.append(Ingredient(symbol, options, counts[symbol], source))
            unused = sorted(set(key) - set(counts))
            if unused:
                raise RuleSetError(f"{where}: field 'key': symbol(s) {', '.join(unused)} do not occur in 'pattern'")
            result, count = self.result_of(data, where)
            return Recipe(recipe_id, kind, _merge(slots), result, count, pattern=tuple(pattern), group=group, category=category)
        if kind == "crafting_shapeless":
            ings = data.get("ingredients")
            if not isinstance(ings, list) or not ings or len(ings) > 9:
                raise RuleSetError(f"{where}: field 'ingredients': expected a list of 1 to 9 ingredients")
            slots = []
            for n, ing in enumerate(ings):
                options, source = self.ingredient_options(ing, f"{where}: field 'ingredients[{n}]'")
                slots.append(Ingredient(str(n), options, 1, source))
            result, count = self.result_of(data, where)
            return Recipe(recipe_id, kind, _merge(slots), result, count, group=group, category=category)
        if kind in COOKING_TYPES or kind == "stonecutting":
            if "ingredient" not in data:
                raise RuleSetError(f"{where}: field 'ingredient': missing")
            options, source = self.ingredient_options(data["ingredient"], f"{where}: field 'ingredient'")
            result, count = self.result_of(data, where)
            cooking_time = None
            if kind in COOKING_TYPES:
                cooking_time = data.get("cookingtime", DEFAULT_COOKING_TIME[kind])
                if not isinstance(cooking_time, int) or isinstance(cooking_time, bool) or cooking_time < 1:
                    raise RuleSetError(f"{where}: field 'cookingtime': expected a positive number of ticks, "
                                       f"got {cooking_time!r}")
            fuel = FUEL_PER_SMELT if kind in FUEL_RECIPE_TYPES else Fraction(0)
            return Recipe(recipe_id, kind, (Ingredient("ingredient", options, 1, source),), result, count,
                          fuel=fuel, cooking_time=cooking_time, group=group, category=category)
        if kind in ("smithing_transform", "crafting_transmute"):
            names = ("template", "base", "addition") if kind == "smithing_transform" else ("input", "material")
            slots = []
            for name in names:
                if name not in data:
                    raise RuleSetError(f"{where}: field {name!r}: missing")
                options, source = self.ingredient_options(data[name], f"{where}: field {name!r}")
                slots.append(Ingredient(name, options, 1, source))
            result, count = self.result_of(data, where)
            return Recipe(recipe_id, kind, _merge(slots), result, count, group=group, category=category)
        if kind.startswith("crafting_special") or kind in SKIPPED_TYPES:
            return kind
        return kind  # unknown types (mods) are skipped and reported, not fatal


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _merge(slots: list[Ingredient]) -> tuple[Ingredient, ...]:
    """Slots with the same alternatives become one slot with the summed amount."""
    merged: dict[tuple[str, ...], Ingredient] = {}
    for slot in slots:
        old = merged.get(slot.options)
        merged[slot.options] = slot if old is None else Ingredient(old.key, old.options, old.amount + slot.amount,
                                                                    old.source)
    return tuple(merged.values())


def _read_json(path: Path) -> Any:
    """A rule-set file's data, read strictly (sim/inputs.py: encoding, duplicate keys, NaN, depth)."""
    return read_json(path, RuleSetError)


def _json_files(folder: Path) -> list[tuple[str, Path]]:
    """(relative id without .json, path) of every JSON file below ``folder``, sorted."""
    return sorted((p.relative_to(folder).with_suffix("").as_posix(), p) for p in folder.rglob("*.json"))


def _first_dir(base: Path, *names: str) -> Path | None:
    for name in names:
        if (base / name).is_dir():
            return base / name
    return None


def load_ruleset(folder: str | Path) -> RuleSet:
    """Load a rule-set folder or a datapack (see the module docs). Cached per folder; the cache
    watches the modification time and size of every file below it, so an edited recipe, tag or
    fuel file loads afresh."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise RuleSetError(f"{folder}: no such rule-set folder")
    return _load_cached(str(folder), _stamp(folder))


def _stamp(folder: Path) -> int:
    """A hash of every file's path, mtime and size below ``folder`` (and of the folders themselves)."""
    parts: list[tuple[str, int, int]] = []
    stack = [str(folder)]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as entries:
                for entry in entries:
                    try:
                        st = entry.stat()
                    except OSError:
                        continue
                    parts.append((entry.path, st.st_mtime_ns, st.st_size))
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
    return hash(tuple(sorted(parts)))


@lru_cache(maxsize=16)
def _load_cached(folder_text: str, stamp: int) -> RuleSet:
    folder = Path(folder_text)
    meta: dict[str, Any] = {}
    if (folder / "ruleset.json").exists():
        meta = _read_json(folder / "ruleset.json")
        if not isinstance(meta, dict):
            raise RuleSetError(f"{folder / 'ruleset.json'}: expected a JSON object")
        for key in ("name", "title", "namespace", "description"):
            if key in meta and not isinstance(meta[key], str):
                raise RuleSetError(f"{folder / 'ruleset.json'}: field '{key}': expected text, got {meta[key]!r:.60}")
    # (namespace, recipes folder, tags folder) for each namespace of the pack
    parts: list[tuple[str, Path | None, Path | None]] = []
    data_dir = folder / "data" if (folder / "data").is_dir() else (folder if folder.name == "data" else None)
    if data_dir is not None:
        for ns_dir in sorted(p for p in data_dir.iterdir() if p.is_dir()):
            tags_dir = ns_dir / "tags"
            parts.append((ns_dir.name, _first_dir(ns_dir, "recipes", "recipe"),
                          _first_dir(tags_dir, "items", "item") if tags_dir.is_dir() else None))
        default_ns = meta.get("namespace", "minecraft")
    else:
        default_ns = str(meta.get("namespace", "minecraft"))
        recipes_dir = _first_dir(folder, "recipes", "recipe")
        if recipes_dir is None:
            raise RuleSetError(f"{folder}: not a rule set: expected a 'recipes' folder (rule-set layout) "
                               "or a 'data/<namespace>/recipes' folder (datapack layout)")
        tags_dir = folder / "tags"
        parts.append((default_ns, recipes_dir, _first_dir(tags_dir, "items", "item") if tags_dir.is_dir() else None))
    if not any(recipes for _, recipes, _ in parts):
        raise RuleSetError(f"{folder}: the datapack has no data/<namespace>/recipes folder")

    loader = _Loader(default_ns)
    notes: list[str] = []
    for ns, _, tags_folder in parts:
        if tags_folder is not None:
            for rel, path in _json_files(tags_folder):
                loader.add_tag_file(f"{ns}:{rel}", path)
    if data_dir is None and (folder / "tags").is_dir():
        # The TradeCraft server reads every folder below tags/ and names a tag by its file name
        # alone. Item tags come first; the authors' extra folders (tags/_custom/...) add their
        # tags; the other folders (tags/blocks, ...) are read on demand, for a #tag that no
        # item tag defines (their #minecraft:beehives lives only under tags/blocks).
        item_dirs = {d.name for d in (_first_dir(folder / "tags", "items", "item"),) if d is not None}
        for extra in sorted(p for p in (folder / "tags").iterdir() if p.is_dir() and p.name not in item_dirs):
            for _, path in _json_files(extra):
                name = f"{default_ns}:{path.stem}"
                if name in loader.raw_tags or name in loader.fallback:
                    continue
                if extra.name.startswith("_"):
                    loader.add_tag_file(name, path)
                else:
                    loader.fallback[name] = path
    tags = loader.expand_all_tags()
    if loader.borrowed:
        folders = sorted({loader.raw_tags[t][0].parent.relative_to(folder).as_posix() for t in loader.borrowed})
        notes.append(f"{len(loader.borrowed)} tag(s) read from {', '.join(folders)} (no item tag of that name, "
                     f"as the original server reads tags): {', '.join('#' + t for t in sorted(loader.borrowed))}")

    recipes: dict[str, Recipe] = {}
    skipped: dict[str, int] = defaultdict(int)
    for ns, recipes_dir, _ in parts:
        if recipes_dir is None:
            continue
        loader.namespace = ns
        for rel, path in _json_files(recipes_dir):
            recipe = loader.recipe(f"{ns}:{rel}", _read_json(path), path)
            if isinstance(recipe, str):
                skipped[recipe] += 1
            else:
                recipes[recipe.id] = recipe
    loader.namespace = default_ns
    if not recipes:
        raise RuleSetError(f"{folder}: no usable recipes found")

    fuel_tag = f"{default_ns}:fuel"
    if (folder / "fuels.json").exists():
        fuels = _load_fuels(folder / "fuels.json", loader)
        fuel_source = "fuels.json"
    elif fuel_tag in loader.raw_tags:
        fuels = _fuels_from_tag(loader, fuel_tag, notes)
        fuel_source = f"{loader.raw_tags[fuel_tag][0].relative_to(folder).as_posix()} (#{fuel_tag}, count = items per coal)"
    else:
        fuels = _load_fuels(None, loader)
        fuel_source = "vanilla burn times"
    rules = RuleSet(name=str(meta.get("name", folder.name)), namespace=default_ns,
                    title=str(meta.get("title", folder.name)), source=str(folder), recipes=recipes,
                    tags=tags, fuels=fuels, skipped=dict(skipped), description=str(meta.get("description", "")),
                    fuel_source=fuel_source, notes=tuple(notes))
    if "generator" in meta:
        rules.generator = generator_pools(meta["generator"], rules, str(folder / "ruleset.json"))
    return rules


#: the fields of ruleset.json's ``generator`` block: (required, what it holds)
GENERATOR_FIELDS = {"targets": (True, "items a player may be asked to make (each made by some recipe)"),
                    "raw_items": (True, "items dealt into hands"),
                    "intermediates": (False, "items made from others that may be dealt as well")}


def generator_pools(block: Any, rules: RuleSet, source: str) -> tuple[tuple[str, ...], tuple[str, ...],
                                                                        tuple[str, ...]]:
    """The ``generator`` block of ruleset.json checked and resolved to full item ids: an object
    of ``targets`` and ``raw_items`` (non-empty lists) and optionally ``intermediates``, each an
    item name of this rule set at most once; every target is made by some recipe."""
    def fail(where: str, what: str) -> RuleSetError:
        return RuleSetError(f"{source}: field 'generator{where}': {what}")

    if not isinstance(block, dict):
        raise fail("", f"expected an object {{{', '.join(GENERATOR_FIELDS)}}}, got {block!r:.60}")
    for key in block:
        if key not in GENERATOR_FIELDS:
            raise fail(f".{key}" if isinstance(key, str) else "", f"unknown field; expected one of "
                       f"{', '.join(GENERATOR_FIELDS)}")
    pools: list[tuple[str, ...]] = []
    for key, (required, what) in GENERATOR_FIELDS.items():
        if key not in block:
            if required:
                raise fail(f".{key}", f"missing; expected a list of {what}")
            pools.append(())
            continue
        names = block[key]
        if not isinstance(names, list):
            raise fail(f".{key}", f"expected a list of {what}, got {names!r:.60}")
        if required and not names:
            raise fail(f".{key}", f"an empty list; expected at least one of the {what}")
        resolved: dict[str, int] = {}
        for k, name in enumerate(names):
            if not isinstance(name, str):
                raise fail(f".{key}[{k}]", f"expected an item name (text), got {name!r:.60}")
            try:
                item = rules.resolve(name)
            except KeyError as exc:
                raise fail(f".{key}[{k}]", f"{str(exc.args[0])[:160]}; expected an item of the rule set") from None
            if item in resolved:
                raise fail(f".{key}[{k}]", f"{name!r:.60} names the item of {key}[{resolved[item]}] again; "
                                           "expected each item once")
            if key == "targets" and item not in rules.by_result:
                raise fail(f".{key}[{k}]", f"no recipe makes {name!r:.60}; expected an item that can be crafted")
            resolved[item] = k
        pools.append(tuple(resolved))
    return pools[0], pools[1], pools[2]


def _fuels_from_tag(loader: _Loader, tag: str, notes: list[str]) -> dict[str, Fraction]:
    """Fuel values from the authors' fuel tag: ``count`` units of an item burn like one coal, so one
    unit is worth ``1/count`` coal-equivalents; an item listed twice keeps its last value."""
    fuels: dict[str, Fraction] = {}
    twice: list[str] = []
    for item, count in loader.weighted(tag):
        value = (1 / count).limit_denominator(10_000)
        if item in fuels and fuels[item] != value:
            twice.append(f"{item.partition(':')[2] or item} ({format_amount(fuels[item])} then {format_amount(value)})")
        fuels[item] = value
    if twice:
        notes.append(f"#{tag}: listed more than once, the last value counts: {', '.join(twice)}")
    return {k: v for k, v in sorted(fuels.items()) if v > 0}


def _load_fuels(path: Path | None, loader: _Loader) -> dict[str, Fraction]:
    """Fuel values in coal-equivalents. Tag entries apply first, then single items override."""
    if path is None:
        table: Mapping[str, Any] = {k: Fraction(v, COAL_TICKS) for k, v in VANILLA_BURN_TICKS.items()}
        strict = False
    else:
        data = _read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("values"), dict):
            raise RuleSetError(f"{path}: expected {{\"values\": {{\"minecraft:coal\": 1, \"#minecraft:planks\": "
                               "\"3/16\", ...}}}} (coal-equivalents per item)")
        table = {k: parse_fraction(v, f"{path}: field 'values.{k}'") for k, v in data["values"].items()}
        strict = True
    fuels: dict[str, Fraction] = {}
    for name, value in sorted(table.items(), key=lambda kv: not kv[0].startswith("#")):
        if name.startswith("#"):
            tag = loader.qualify(name[1:])
            try:
                members = loader.expand_tag(tag)
            except KeyError:
                if strict:
                    raise RuleSetError(f"{path}: field 'values.{name}': tag #{tag} is not defined") from None
                continue
            for member in members:
                fuels[member] = value
        else:
            fuels[loader.qualify(name)] = value
    return {k: v for k, v in sorted(fuels.items()) if v > 0}


def format_amount(value: Fraction | int) -> str:
    """``3``, ``1/4`` or ``2 1/2``-free plain fraction text (``5/2``) for people and models."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
