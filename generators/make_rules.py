"""Write the shipped TradeCraft rule sets as datapack-format JSON, from compact tables.

    python -m generators.make_rules            # rewrites scenarios/tradecraft/rulesets/{minecraft,alchemy}
    python -m generators.make_rules --check    # exit 1 unless the files on disk are these
    python -m generators.make_rules --out DIR  # writes DIR/minecraft and DIR/alchemy

* ``rulesets/minecraft``: a vanilla-like Minecraft set made for this project: woods, stones,
  ores and metals, tools and armour, redstone, rails, food, dyes and the sixteen colours,
  with every recipe type (shaped, shapeless, smelting, blasting, smoking, campfire cooking,
  stonecutting, smithing), nested item tags and a fuel table.
* ``rulesets/alchemy``: an alchemy-style set in the manner of Little Alchemy: every recipe
  combines two elements into a new one (shapeless), starting from air, earth, fire and water,
  with long chains.

The output is deterministic; the folders are emptied before writing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

from sim.registry import SCENARIO_DIR
from sim.tradecraft.rules import VANILLA_BURN_TICKS  # the same table the loader falls back on

#: the folder of the shipped rule sets (the default of ``--out``)
FOLDER = SCENARIO_DIR / "tradecraft" / "rulesets"
NS = "minecraft"


class Pack:
    def __init__(self, namespace: str) -> None:
        self.ns = namespace
        self.recipes: dict[str, dict] = {}
        self.tags: dict[str, list[str]] = {}

    def q(self, name: str) -> str:
        if ":" in name:
            return name
        return f"#{self.ns}:{name[1:]}" if name.startswith("#") else f"{self.ns}:{name}"

    def ing(self, name: str | list[str]) -> dict | list:
        if isinstance(name, list):
            return [self.ing(n) for n in name]
        full = self.q(name)
        return {"tag": full[1:]} if full.startswith("#") else {"item": full}

    def add(self, rid: str, data: dict) -> None:
        if rid in self.recipes:
            raise ValueError(f"recipe {rid} defined twice")
        self.recipes[rid] = data

    def shaped(self, result: str, count: int, pattern: list[str], key: dict[str, str | list[str]],
               rid: str | None = None, category: str = "misc", group: str = "") -> None:
        data = {"type": "minecraft:crafting_shaped", "category": category}
        if group:
            data["group"] = group
        data["key"] = {k: self.ing(v) for k, v in key.items()}
        data["pattern"] = pattern
        data["result"] = {"item": self.q(result)} | ({"count": count} if count != 1 else {})
        self.add(rid or result, data)

    def shapeless(self, result: str, count: int, ingredients: list[str | list[str]], rid: str | None = None,
                  category: str = "misc", group: str = "") -> None:
        data = {"type": "minecraft:crafting_shapeless", "category": category}
        if group:
            data["group"] = group
        data["ingredients"] = [self.ing(i) for i in ingredients]
        data["result"] = {"item": self.q(result)} | ({"count": count} if count != 1 else {})
        self.add(rid or result, data)

    def cook(self, kind: str, ingredient: str | list[str], result: str, time: int, xp: float,
             rid: str | None = None, category: str = "misc") -> None:
        self.add(rid or f"{result}_from_{kind}", {
            "type": f"minecraft:{kind}", "category": category, "cookingtime": time, "experience": xp,
            "ingredient": self.ing(ingredient), "result": self.q(result)})

    def cut(self, ingredient: str, result: str, count: int = 1) -> None:
        base = ingredient.split(":")[-1]
        self.add(f"{result}_from_{base}_stonecutting", {
            "type": "minecraft:stonecutting", "ingredient": self.ing(ingredient),
            "result": self.q(result), "count": count})

    def smith(self, template: str, base: str, addition: str, result: str) -> None:
        self.add(f"{result}_smithing", {
            "type": "minecraft:smithing_transform", "template": self.ing(template), "base": self.ing(base),
            "addition": self.ing(addition), "result": {"item": self.q(result)}})

    def tag(self, name: str, values: list[str]) -> None:
        self.tags.setdefault(name, [])
        self.tags[name].extend(self.q(v) for v in values)

    def write(self, folder: Path, meta: dict, fuels: dict | None = None) -> None:
        if folder.exists():
            shutil.rmtree(folder)
        (folder / "recipes").mkdir(parents=True)
        (folder / "ruleset.json").write_text(json.dumps(meta, indent=2) + "\n")
        for rid, data in sorted(self.recipes.items()):
            (folder / "recipes" / f"{rid}.json").write_text(json.dumps(data, indent=2) + "\n")
        if self.tags:
            (folder / "tags" / "items").mkdir(parents=True)
            for name, values in sorted(self.tags.items()):
                (folder / "tags" / "items" / f"{name}.json").write_text(
                    json.dumps({"replace": False, "values": values}, indent=2) + "\n")
        if fuels is not None:
            (folder / "fuels.json").write_text(json.dumps(fuels, indent=2) + "\n")


# ============================================================================ Minecraft

OVERWORLD_WOODS = ["oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove", "cherry"]
NETHER_WOODS = ["crimson", "warped"]
COLORS = ["white", "orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray",
          "cyan", "purple", "blue", "brown", "green", "red", "black"]


def woods(p: Pack) -> None:
    for w in OVERWORLD_WOODS + NETHER_WOODS:
        nether = w in NETHER_WOODS
        log, wood = (f"{w}_stem", f"{w}_hyphae") if nether else (f"{w}_log", f"{w}_wood")
        logs_tag = f"{w}_stems" if nether else f"{w}_logs"
        p.tag(logs_tag, [log, wood, f"stripped_{log}", f"stripped_{wood}"])
        planks = f"{w}_planks"
        p.shapeless(planks, 4, [f"#{logs_tag}"], category="building", group="planks")
        p.shaped(wood, 3, ["##", "##"], {"#": log}, category="building", group="bark")
        p.shaped(f"stripped_{wood}", 3, ["##", "##"], {"#": f"stripped_{log}"}, category="building", group="bark")
        p.shaped(f"{w}_slab", 6, ["###"], {"#": planks}, category="building", group="wooden_slab")
        p.shaped(f"{w}_stairs", 4, ["#  ", "## ", "###"], {"#": planks}, category="building", group="wooden_stairs")
        p.shaped(f"{w}_fence", 3, ["W#W", "W#W"], {"W": planks, "#": "stick"}, group="wooden_fence")
        p.shaped(f"{w}_fence_gate", 1, ["#W#", "#W#"], {"W": planks, "#": "stick"}, category="redstone",
                 group="wooden_fence_gate")
        p.shaped(f"{w}_door", 3, ["##", "##", "##"], {"#": planks}, category="redstone", group="wooden_door")
        p.shaped(f"{w}_trapdoor", 2, ["###", "###"], {"#": planks}, category="redstone", group="wooden_trapdoor")
        p.shapeless(f"{w}_button", 1, [planks], category="redstone", group="wooden_button")
        p.shaped(f"{w}_pressure_plate", 1, ["##"], {"#": planks}, category="redstone", group="wooden_pressure_plate")
        p.shaped(f"{w}_sign", 3, ["###", "###", " X "], {"#": planks, "X": "stick"}, group="wooden_sign")
        p.shaped(f"{w}_hanging_sign", 6, ["X X", "###", "###"], {"#": f"stripped_{log}", "X": "chain"},
                 group="hanging_sign")
        for tag, suffix in (("planks", "_planks"), ("wooden_slabs", "_slab"), ("wooden_stairs", "_stairs"),
                            ("wooden_fences", "_fence"), ("fence_gates", "_fence_gate"), ("wooden_doors", "_door"),
                            ("wooden_trapdoors", "_trapdoor"), ("wooden_buttons", "_button"),
                            ("wooden_pressure_plates", "_pressure_plate"), ("signs", "_sign"),
                            ("hanging_signs", "_hanging_sign")):
            p.tag(tag, [w + suffix])
        if nether:
            p.tag("non_flammable_wood", [f"#{logs_tag}"])
            p.tag("logs", [f"#{logs_tag}"])
        else:
            p.tag("logs_that_burn", [f"#{logs_tag}"])
            p.tag("saplings", [f"{w}_sapling" if w != "mangrove" else "mangrove_propagule"])
            p.shaped(f"{w}_boat", 1, ["# #", "###"], {"#": planks}, category="misc", group="boat")
            p.shapeless(f"{w}_chest_boat", 1, [f"{w}_boat", "chest"], category="misc", group="chest_boat")
            p.tag("boats", [f"{w}_boat"])
            p.tag("chest_boats", [f"{w}_chest_boat"])
    p.tag("logs", ["#logs_that_burn"])
    # bamboo: its block makes planks two at a time; bamboo itself makes sticks
    p.shaped("bamboo_block", 1, ["###", "###", "###"], {"#": "bamboo"}, category="building")
    p.shapeless("bamboo_planks", 2, ["bamboo_block"], category="building", group="planks")
    p.tag("planks", ["bamboo_planks"])
    p.shaped("bamboo_slab", 6, ["###"], {"#": "bamboo_planks"}, category="building", group="wooden_slab")
    p.tag("wooden_slabs", ["bamboo_slab"])
    p.shaped("bamboo_raft", 1, ["# #", "###"], {"#": "bamboo_planks"}, group="boat")
    p.tag("boats", ["bamboo_raft"])
    p.shaped("stick", 4, ["#", "#"], {"#": "#planks"}, group="sticks")
    p.shaped("stick", 1, ["#", "#"], {"#": "bamboo"}, rid="stick_from_bamboo_item", group="sticks")
    p.shaped("scaffolding", 6, ["I~I", "I I", "I I"], {"I": "bamboo", "~": "string"})
    # charcoal: smelt any log that burns
    p.cook("smelting", "#logs_that_burn", "charcoal", 200, 0.15, rid="charcoal")


STONES = [
    # (base block, slab, stairs, wall or None)
    ("stone", "stone_slab", "stone_stairs", None),
    ("cobblestone", "cobblestone_slab", "cobblestone_stairs", "cobblestone_wall"),
    ("mossy_cobblestone", "mossy_cobblestone_slab", "mossy_cobblestone_stairs", "mossy_cobblestone_wall"),
    ("stone_bricks", "stone_brick_slab", "stone_brick_stairs", "stone_brick_wall"),
    ("mossy_stone_bricks", "mossy_stone_brick_slab", "mossy_stone_brick_stairs", "mossy_stone_brick_wall"),
    ("smooth_stone", "smooth_stone_slab", None, None),
    ("granite", "granite_slab", "granite_stairs", "granite_wall"),
    ("polished_granite", "polished_granite_slab", "polished_granite_stairs", None),
    ("diorite", "diorite_slab", "diorite_stairs", "diorite_wall"),
    ("polished_diorite", "polished_diorite_slab", "polished_diorite_stairs", None),
    ("andesite", "andesite_slab", "andesite_stairs", "andesite_wall"),
    ("polished_andesite", "polished_andesite_slab", "polished_andesite_stairs", None),
    ("sandstone", "sandstone_slab", "sandstone_stairs", "sandstone_wall"),
    ("cut_sandstone", "cut_sandstone_slab", None, None),
    ("smooth_sandstone", "smooth_sandstone_slab", "smooth_sandstone_stairs", None),
    ("red_sandstone", "red_sandstone_slab", "red_sandstone_stairs", "red_sandstone_wall"),
    ("bricks", "brick_slab", "brick_stairs", "brick_wall"),
    ("mud_bricks", "mud_brick_slab", "mud_brick_stairs", "mud_brick_wall"),
    ("nether_bricks", "nether_brick_slab", "nether_brick_stairs", "nether_brick_wall"),
    ("cobbled_deepslate", "cobbled_deepslate_slab", "cobbled_deepslate_stairs", "cobbled_deepslate_wall"),
    ("polished_deepslate", "polished_deepslate_slab", "polished_deepslate_stairs", "polished_deepslate_wall"),
    ("deepslate_bricks", "deepslate_brick_slab", "deepslate_brick_stairs", "deepslate_brick_wall"),
    ("deepslate_tiles", "deepslate_tile_slab", "deepslate_tile_stairs", "deepslate_tile_wall"),
    ("blackstone", "blackstone_slab", "blackstone_stairs", "blackstone_wall"),
    ("polished_blackstone", "polished_blackstone_slab", "polished_blackstone_stairs", "polished_blackstone_wall"),
    ("quartz_block", "quartz_slab", "quartz_stairs", None),
    ("prismarine", "prismarine_slab", "prismarine_stairs", "prismarine_wall"),
    ("end_stone_bricks", "end_stone_brick_slab", "end_stone_brick_stairs", "end_stone_brick_wall"),
    ("purpur_block", "purpur_slab", "purpur_stairs", None),
]

# (result, source block): 2x2 "polished"/"bricks" blocks (4 -> 4) that the stonecutter also makes 1 -> 1
FOUR_BLOCKS = [
    ("stone_bricks", "stone"), ("polished_granite", "granite"), ("polished_diorite", "diorite"),
    ("polished_andesite", "andesite"), ("polished_deepslate", "cobbled_deepslate"),
    ("deepslate_bricks", "polished_deepslate"), ("deepslate_tiles", "deepslate_bricks"),
    ("polished_blackstone", "blackstone"), ("end_stone_bricks", "end_stone"), ("cut_sandstone", "sandstone"),
    ("mud_bricks", "packed_mud"),
]


def stones(p: Pack) -> None:
    cutters: dict[str, list[str]] = {}  # block -> blocks it is cut from (transitively)
    for result, source in FOUR_BLOCKS:
        p.shaped(result, 4, ["##", "##"], {"#": source}, category="building")
        p.cut(source, result)
        cutters.setdefault(result, []).append(source)
    for base, slab, stairs, wall in STONES:
        p.shaped(slab, 6, ["###"], {"#": base}, category="building")
        if stairs:
            p.shaped(stairs, 4, ["#  ", "## ", "###"], {"#": base}, category="building")
        if wall:
            p.shaped(wall, 6, ["###", "###"], {"#": base}, category="misc")
            p.tag("walls", [wall])
        sources = [base] + cutters.get(base, [])
        for src in sources:
            p.cut(src, slab, 2)
            if stairs:
                p.cut(src, stairs)
            if wall:
                p.cut(src, wall)
    p.shaped("chiseled_stone_bricks", 1, ["#", "#"], {"#": "stone_brick_slab"}, category="building")
    p.cut("stone", "chiseled_stone_bricks")
    p.shaped("chiseled_sandstone", 1, ["#", "#"], {"#": "sandstone_slab"}, category="building")
    p.shaped("chiseled_quartz_block", 1, ["#", "#"], {"#": "quartz_slab"}, category="building")
    p.shaped("quartz_pillar", 2, ["#", "#"], {"#": "quartz_block"}, category="building")
    p.cut("quartz_block", "quartz_pillar")
    p.shaped("quartz_block", 1, ["##", "##"], {"#": "quartz"}, category="building")
    p.shaped("sandstone", 1, ["##", "##"], {"#": "sand"}, category="building")
    p.shaped("red_sandstone", 1, ["##", "##"], {"#": "red_sand"}, category="building")
    p.shaped("bricks", 1, ["##", "##"], {"#": "brick"}, category="building")
    p.shaped("nether_bricks", 1, ["##", "##"], {"#": "nether_brick"}, category="building")
    p.shaped("prismarine", 1, ["##", "##"], {"#": "prismarine_shard"}, category="building")
    p.shaped("purpur_block", 4, ["##", "##"], {"#": "popped_chorus_fruit"}, category="building")
    p.shapeless("packed_mud", 1, ["mud", "wheat"], category="building")
    p.shapeless("mossy_cobblestone", 1, ["cobblestone", ["vine", "moss_block"]], category="building")
    p.shapeless("mossy_stone_bricks", 1, ["stone_bricks", ["vine", "moss_block"]], category="building")
    p.shapeless("granite", 1, ["diorite", "quartz"], category="building")
    p.shaped("diorite", 2, ["CQ", "QC"], {"C": "cobblestone", "Q": "quartz"}, category="building")
    p.shapeless("andesite", 2, ["diorite", "cobblestone"], category="building")
    p.shaped("clay", 1, ["##", "##"], {"#": "clay_ball"}, category="building")
    p.shaped("stone_button", 1, ["#"], {"#": "stone"}, category="redstone")
    p.shaped("stone_pressure_plate", 1, ["##"], {"#": "stone"}, category="redstone")
    p.shaped("polished_blackstone_button", 1, ["#"], {"#": "polished_blackstone"}, category="redstone")
    p.shaped("polished_blackstone_pressure_plate", 1, ["##"], {"#": "polished_blackstone"}, category="redstone")
    p.tag("stone_tool_materials", ["cobblestone", "blackstone", "cobbled_deepslate"])
    p.tag("stone_crafting_materials", ["cobblestone", "blackstone", "cobbled_deepslate"])
    p.tag("sand", ["sand", "red_sand"])
    p.tag("soul_fire_base_blocks", ["soul_sand", "soul_soil"])


# (ore family, result, raw item or None, ores, storage block(s))
METALS = [
    ("iron", "iron_ingot", "raw_iron", ["iron_ore", "deepslate_iron_ore"]),
    ("gold", "gold_ingot", "raw_gold", ["gold_ore", "deepslate_gold_ore", "nether_gold_ore"]),
    ("copper", "copper_ingot", "raw_copper", ["copper_ore", "deepslate_copper_ore"]),
]
GEMS = [("coal", ["coal_ore", "deepslate_coal_ore"]), ("diamond", ["diamond_ore", "deepslate_diamond_ore"]),
        ("emerald", ["emerald_ore", "deepslate_emerald_ore"]), ("lapis_lazuli", ["lapis_ore", "deepslate_lapis_ore"]),
        ("redstone", ["redstone_ore", "deepslate_redstone_ore"]), ("quartz", ["nether_quartz_ore"])]


def metals(p: Pack) -> None:
    for family, ingot, raw, ores in METALS:
        for src in [raw, *ores]:
            p.cook("smelting", src, ingot, 200, 0.7, rid=f"{ingot}_from_smelting_{src}")
            p.cook("blasting", src, ingot, 100, 0.7, rid=f"{ingot}_from_blasting_{src}")
        p.shaped(f"raw_{family}_block", 1, ["###", "###", "###"], {"#": raw}, category="building")
        p.shapeless(raw, 9, [f"raw_{family}_block"], rid=f"{raw}_from_block")
    p.shaped("iron_block", 1, ["###", "###", "###"], {"#": "iron_ingot"}, category="building")
    p.shapeless("iron_ingot", 9, ["iron_block"], rid="iron_ingot_from_iron_block", group="iron_ingot")
    p.shaped("iron_ingot", 1, ["###", "###", "###"], {"#": "iron_nugget"}, rid="iron_ingot_from_nuggets",
             group="iron_ingot")
    p.shapeless("iron_nugget", 9, ["iron_ingot"])
    p.shaped("gold_block", 1, ["###", "###", "###"], {"#": "gold_ingot"}, category="building")
    p.shapeless("gold_ingot", 9, ["gold_block"], rid="gold_ingot_from_gold_block", group="gold_ingot")
    p.shaped("gold_ingot", 1, ["###", "###", "###"], {"#": "gold_nugget"}, rid="gold_ingot_from_nuggets",
             group="gold_ingot")
    p.shapeless("gold_nugget", 9, ["gold_ingot"])
    p.shaped("copper_block", 1, ["###", "###", "###"], {"#": "copper_ingot"}, category="building")
    p.shapeless("copper_ingot", 9, ["copper_block"], rid="copper_ingot_from_copper_block")
    p.shaped("cut_copper", 4, ["##", "##"], {"#": "copper_block"}, category="building")
    p.cut("copper_block", "cut_copper", 4)
    p.shaped("cut_copper_slab", 6, ["###"], {"#": "cut_copper"}, category="building")
    p.cut("cut_copper", "cut_copper_slab", 2)
    p.shaped("lightning_rod", 1, ["#", "#", "#"], {"#": "copper_ingot"}, category="redstone")
    p.shaped("spyglass", 1, ["#", "X", "X"], {"#": "amethyst_shard", "X": "copper_ingot"}, category="equipment")
    for gem, ores in GEMS:
        for src in ores:
            p.cook("smelting", src, gem, 200, 0.1, rid=f"{gem}_from_smelting_{src}")
            p.cook("blasting", src, gem, 100, 0.1, rid=f"{gem}_from_blasting_{src}")
    for gem, block in (("diamond", "diamond_block"), ("emerald", "emerald_block"),
                       ("lapis_lazuli", "lapis_block"), ("redstone", "redstone_block"), ("coal", "coal_block")):
        p.shaped(block, 1, ["###", "###", "###"], {"#": gem}, category="building")
        p.shapeless(gem, 9, [block], rid=f"{gem}_from_{block}")
    p.cook("smelting", "ancient_debris", "netherite_scrap", 200, 2.0)
    p.cook("blasting", "ancient_debris", "netherite_scrap", 100, 2.0)
    p.shapeless("netherite_ingot", 1, ["netherite_scrap"] * 4 + ["gold_ingot"] * 4)
    p.shaped("netherite_block", 1, ["###", "###", "###"], {"#": "netherite_ingot"}, category="building")
    p.shapeless("netherite_ingot", 9, ["netherite_block"], rid="netherite_ingot_from_netherite_block")
    p.tag("coals", ["coal", "charcoal"])


TOOL_SHAPES = {
    "pickaxe": ["XXX", " # ", " # "], "axe": ["XX", "X#", " #"], "shovel": ["X", "#", "#"],
    "hoe": ["XX", " #", " #"], "sword": ["X", "X", "#"],
}
ARMOR_SHAPES = {
    "helmet": ["XXX", "X X"], "chestplate": ["X X", "XXX", "XXX"], "leggings": ["XXX", "X X", "X X"],
    "boots": ["X X", "X X"],
}


def equipment(p: Pack) -> None:
    for prefix, material in (("wooden", "#planks"), ("stone", "#stone_tool_materials"), ("iron", "iron_ingot"),
                             ("golden", "gold_ingot"), ("diamond", "diamond")):
        for tool, shape in TOOL_SHAPES.items():
            p.shaped(f"{prefix}_{tool}", 1, shape, {"X": material, "#": "stick"}, category="equipment")
    for prefix, material in (("leather", "leather"), ("iron", "iron_ingot"), ("golden", "gold_ingot"),
                             ("diamond", "diamond")):
        for piece, shape in ARMOR_SHAPES.items():
            p.shaped(f"{prefix}_{piece}", 1, shape, {"X": material}, category="equipment")
    for item in [f"diamond_{t}" for t in TOOL_SHAPES] + [f"diamond_{a}" for a in ARMOR_SHAPES]:
        p.smith("netherite_upgrade_smithing_template", item, "netherite_ingot", item.replace("diamond", "netherite"))
    for item in [f"iron_{t}" for t in TOOL_SHAPES] + [f"iron_{a}" for a in ARMOR_SHAPES]:
        p.cook("smelting", item, "iron_nugget", 200, 0.1, rid=f"iron_nugget_from_smelting_{item}")
    for item in [f"golden_{t}" for t in TOOL_SHAPES] + [f"golden_{a}" for a in ARMOR_SHAPES]:
        p.cook("blasting", item, "gold_nugget", 100, 0.1, rid=f"gold_nugget_from_blasting_{item}")
    p.shaped("shears", 1, [" #", "# "], {"#": "iron_ingot"}, category="equipment")
    p.shapeless("flint_and_steel", 1, ["iron_ingot", "flint"], category="equipment")
    p.shaped("bucket", 1, ["# #", " # "], {"#": "iron_ingot"}, category="misc")
    p.shaped("compass", 1, [" # ", "#X#", " # "], {"#": "iron_ingot", "X": "redstone"}, category="equipment")
    p.shaped("clock", 1, [" # ", "#X#", " # "], {"#": "gold_ingot", "X": "redstone"}, category="equipment")
    p.shaped("fishing_rod", 1, ["  #", " #X", "# X"], {"#": "stick", "X": "string"}, category="equipment")
    p.shaped("bow", 1, [" #X", "# X", " #X"], {"#": "stick", "X": "string"}, category="equipment")
    p.shaped("arrow", 4, ["X", "#", "Y"], {"X": "flint", "#": "stick", "Y": "feather"}, category="equipment")
    p.shaped("crossbow", 1, ["#&#", "~$~", " # "], {"#": "stick", "&": "iron_ingot", "~": "string",
                                                     "$": "tripwire_hook"}, category="equipment")
    p.shaped("shield", 1, ["WoW", "WWW", " W "], {"W": "#planks", "o": "iron_ingot"}, category="equipment")
    p.shaped("lead", 2, ["~~ ", "~O ", "  ~"], {"~": "string", "O": "slime_ball"}, category="equipment")
    p.shaped("carrot_on_a_stick", 1, ["# ", " X"], {"#": "fishing_rod", "X": "carrot"}, category="equipment")
    p.shaped("turtle_helmet", 1, ["XXX", "X X"], {"X": "scute"}, category="equipment")


def redstone(p: Pack) -> None:
    p.shaped("torch", 4, ["X", "#"], {"X": ["coal", "charcoal"], "#": "stick"}, category="equipment")
    p.shaped("soul_torch", 4, ["X", "#", "S"], {"X": ["coal", "charcoal"], "#": "stick",
                                               "S": "#soul_fire_base_blocks"}, category="equipment")
    p.shaped("redstone_torch", 1, ["X", "#"], {"X": "redstone", "#": "stick"}, category="redstone")
    p.shaped("lever", 1, ["X", "#"], {"X": "stick", "#": "cobblestone"}, category="redstone")
    p.shaped("light_weighted_pressure_plate", 1, ["##"], {"#": "gold_ingot"}, category="redstone")
    p.shaped("heavy_weighted_pressure_plate", 1, ["##"], {"#": "iron_ingot"}, category="redstone")
    p.shaped("repeater", 1, ["#X#", "III"], {"#": "redstone_torch", "X": "redstone", "I": "stone"}, category="redstone")
    p.shaped("comparator", 1, [" # ", "#X#", "III"], {"#": "redstone_torch", "X": "quartz", "I": "stone"},
             category="redstone")
    p.shaped("piston", 1, ["TTT", "#X#", "#R#"], {"T": "#planks", "#": "cobblestone", "X": "iron_ingot",
                                                  "R": "redstone"}, category="redstone")
    p.shapeless("sticky_piston", 1, ["piston", "slime_ball"], category="redstone")
    p.shaped("dispenser", 1, ["###", "#X#", "#R#"], {"#": "cobblestone", "X": "bow", "R": "redstone"},
             category="redstone")
    p.shaped("dropper", 1, ["###", "# #", "#R#"], {"#": "cobblestone", "R": "redstone"}, category="redstone")
    p.shaped("observer", 1, ["###", "RRQ", "###"], {"#": "cobblestone", "R": "redstone", "Q": "quartz"},
             category="redstone")
    p.shaped("hopper", 1, ["I I", "ICI", " I "], {"I": "iron_ingot", "C": "chest"}, category="redstone")
    p.shaped("rail", 16, ["X X", "X#X", "X X"], {"X": "iron_ingot", "#": "stick"}, category="misc")
    p.shaped("powered_rail", 6, ["X X", "X#X", "XRX"], {"X": "gold_ingot", "#": "stick", "R": "redstone"},
             category="misc")
    p.shaped("detector_rail", 6, ["X X", "X#X", "XRX"], {"X": "iron_ingot", "#": "stone_pressure_plate",
                                                        "R": "redstone"}, category="misc")
    p.shaped("activator_rail", 6, ["XSX", "X#X", "XSX"], {"X": "iron_ingot", "#": "redstone_torch",
                                                         "S": "stick"}, category="misc")
    p.shaped("minecart", 1, ["# #", "###"], {"#": "iron_ingot"}, category="misc")
    for extra, cart in (("chest", "chest_minecart"), ("furnace", "furnace_minecart"), ("hopper", "hopper_minecart"),
                        ("tnt", "tnt_minecart")):
        p.shapeless(cart, 1, [extra, "minecart"], category="misc")
    p.shaped("tnt", 1, ["X#X", "#X#", "X#X"], {"X": "gunpowder", "#": "#sand"}, category="redstone")
    p.shaped("target", 1, [" R ", "RHR", " R "], {"R": "redstone", "H": "hay_block"}, category="redstone")
    p.shaped("daylight_detector", 1, ["GGG", "QQQ", "WWW"], {"G": "glass", "Q": "quartz", "W": "#wooden_slabs"},
             category="redstone")
    p.shaped("note_block", 1, ["###", "#X#", "###"], {"#": "#planks", "X": "redstone"}, category="redstone")
    p.shaped("jukebox", 1, ["###", "#X#", "###"], {"#": "#planks", "X": "diamond"}, category="misc")
    p.shaped("redstone_lamp", 1, [" R ", "RGR", " R "], {"R": "redstone", "G": "glowstone"}, category="redstone")
    p.shaped("tripwire_hook", 2, ["I", "S", "#"], {"I": "iron_ingot", "S": "stick", "#": "#planks"},
             category="redstone")
    p.shapeless("trapped_chest", 1, ["chest", "tripwire_hook"], category="redstone")
    p.shaped("glowstone", 1, ["##", "##"], {"#": "glowstone_dust"}, category="building")
    p.shaped("sea_lantern", 1, ["SCS", "CCC", "SCS"], {"S": "prismarine_shard", "C": "prismarine_crystals"},
             category="building")


def utility(p: Pack) -> None:
    p.shaped("chest", 1, ["###", "# #", "###"], {"#": "#planks"}, category="misc")
    p.shaped("barrel", 1, ["PSP", "P P", "PSP"], {"P": "#planks", "S": "#wooden_slabs"}, category="misc")
    p.shaped("crafting_table", 1, ["##", "##"], {"#": "#planks"}, category="misc")
    p.shaped("furnace", 1, ["###", "# #", "###"], {"#": "#stone_crafting_materials"}, category="misc")
    p.shaped("smoker", 1, [" # ", "#X#", " # "], {"#": "#logs", "X": "furnace"}, category="misc")
    p.shaped("blast_furnace", 1, ["III", "IXI", "###"], {"I": "iron_ingot", "X": "furnace", "#": "smooth_stone"},
             category="misc")
    p.shaped("campfire", 1, [" S ", "SCS", "LLL"], {"S": "stick", "C": "#coals", "L": "#logs"}, category="misc")
    p.shaped("soul_campfire", 1, [" S ", "S#S", "LLL"], {"S": "stick", "#": "#soul_fire_base_blocks",
                                                        "L": "#logs"}, category="misc")
    p.shaped("lantern", 1, ["XXX", "X#X", "XXX"], {"X": "iron_nugget", "#": "torch"}, category="misc")
    p.shaped("soul_lantern", 1, ["XXX", "X#X", "XXX"], {"X": "iron_nugget", "#": "soul_torch"}, category="misc")
    p.shaped("chain", 1, ["N", "I", "N"], {"N": "iron_nugget", "I": "iron_ingot"}, category="misc")
    p.shaped("iron_bars", 16, ["###", "###"], {"#": "iron_ingot"}, category="misc")
    p.shaped("iron_door", 3, ["##", "##", "##"], {"#": "iron_ingot"}, category="redstone")
    p.shaped("iron_trapdoor", 1, ["##", "##"], {"#": "iron_ingot"}, category="redstone")
    p.shaped("bowl", 4, ["# #", " # "], {"#": "#planks"}, category="misc")
    p.shaped("ladder", 3, ["# #", "###", "# #"], {"#": "stick"}, category="misc")
    p.shaped("item_frame", 1, ["###", "#X#", "###"], {"#": "stick", "X": "leather"}, category="misc")
    p.shaped("painting", 1, ["###", "#X#", "###"], {"#": "stick", "X": "#wool"}, category="misc")
    p.shaped("armor_stand", 1, ["///", " / ", "/_/"], {"/": "stick", "_": "smooth_stone_slab"}, category="misc")
    p.shaped("glass_bottle", 3, ["# #", " # "], {"#": "glass"}, category="misc")
    p.shaped("glass_pane", 16, ["###", "###"], {"#": "glass"}, category="misc")
    p.shaped("flower_pot", 1, ["# #", " # "], {"#": "brick"}, category="misc")
    p.shaped("cauldron", 1, ["# #", "# #", "###"], {"#": "iron_ingot"}, category="misc")
    p.shaped("anvil", 1, ["III", " i ", "iii"], {"I": "iron_block", "i": "iron_ingot"}, category="misc")
    p.shaped("grindstone", 1, ["I-I", "# #"], {"I": "stick", "-": "stone_slab", "#": "#planks"}, category="misc")
    p.shaped("stonecutter", 1, [" I ", "###"], {"I": "iron_ingot", "#": "stone"}, category="misc")
    p.shaped("smithing_table", 1, ["@@", "##", "##"], {"@": "iron_ingot", "#": "#planks"}, category="misc")
    p.shaped("fletching_table", 1, ["@@", "##", "##"], {"@": "flint", "#": "#planks"}, category="misc")
    p.shaped("cartography_table", 1, ["@@", "##", "##"], {"@": "paper", "#": "#planks"}, category="misc")
    p.shaped("loom", 1, ["@@", "##"], {"@": "string", "#": "#planks"}, category="misc")
    p.shaped("composter", 1, ["# #", "# #", "###"], {"#": "#wooden_slabs"}, category="misc")
    p.shaped("lectern", 1, ["SSS", " B ", " S "], {"S": "#wooden_slabs", "B": "bookshelf"}, category="redstone")
    p.shaped("bookshelf", 1, ["###", "XXX", "###"], {"#": "#planks", "X": "book"}, category="building")
    p.shapeless("book", 1, ["paper", "paper", "paper", "leather"], category="misc")
    p.shaped("paper", 3, ["###"], {"#": "sugar_cane"}, category="misc")
    p.shaped("map", 1, ["###", "#X#", "###"], {"#": "paper", "X": "compass"}, category="misc")
    p.shapeless("writable_book", 1, ["book", "ink_sac", "feather"], category="misc")
    p.shaped("enchanting_table", 1, [" B ", "D#D", "###"], {"B": "book", "D": "diamond", "#": "obsidian"},
             category="misc")
    p.shaped("brewing_stand", 1, [" B ", "###"], {"B": "blaze_rod", "#": "#stone_crafting_materials"},
             category="misc")
    p.shapeless("blaze_powder", 2, ["blaze_rod"], category="misc")
    p.shapeless("ender_eye", 1, ["ender_pearl", "blaze_powder"], category="misc")
    p.shapeless("fire_charge", 3, ["gunpowder", "blaze_powder", ["coal", "charcoal"]], category="misc")
    p.shaped("white_wool", 1, ["##", "##"], {"#": "string"}, rid="white_wool_from_string", category="building")
    p.shapeless("leather", 1, ["rabbit_hide"] * 4, category="misc")
    p.shapeless("bone_meal", 3, ["bone"], category="misc")
    p.shaped("bone_block", 1, ["###", "###", "###"], {"#": "bone_meal"}, category="building")
    p.shapeless("bone_meal", 9, ["bone_block"], rid="bone_meal_from_bone_block", category="misc")
    p.shaped("hay_block", 1, ["###", "###", "###"], {"#": "wheat"}, category="building")
    p.shapeless("wheat", 9, ["hay_block"], rid="wheat_from_hay_block")
    p.shaped("slime_block", 1, ["###", "###", "###"], {"#": "slime_ball"}, category="redstone")
    p.shapeless("slime_ball", 9, ["slime_block"], rid="slime_ball_from_slime_block")
    p.shaped("dried_kelp_block", 1, ["###", "###", "###"], {"#": "dried_kelp"}, category="building")
    p.shapeless("dried_kelp", 9, ["dried_kelp_block"], rid="dried_kelp_from_block")
    p.shaped("magma_block", 1, ["##", "##"], {"#": "magma_cream"}, category="building")
    p.shapeless("magma_cream", 1, ["blaze_powder", "slime_ball"], category="misc")
    p.shaped("snow_block", 1, ["##", "##"], {"#": "snowball"}, category="building")
    p.shaped("snow", 6, ["###"], {"#": "snow_block"}, category="building")
    p.shaped("candle", 1, ["S", "H"], {"S": "string", "H": "honeycomb"}, category="decorations")
    p.shaped("beehive", 1, ["PPP", "HHH", "PPP"], {"P": "#planks", "H": "honeycomb"}, category="decorations")
    p.shaped("honey_block", 1, ["##", "##"], {"#": "honey_bottle"}, category="redstone")
    p.shaped("melon", 1, ["###", "###", "###"], {"#": "melon_slice"}, category="building")
    p.shapeless("melon_seeds", 1, ["melon_slice"], category="misc")
    p.shapeless("pumpkin_seeds", 4, ["pumpkin"], category="misc")
    p.shaped("jack_o_lantern", 1, ["A", "B"], {"A": "carved_pumpkin", "B": "torch"}, category="building")
    p.shaped("glistering_melon_slice", 1, ["###", "#X#", "###"], {"#": "gold_nugget", "X": "melon_slice"},
             category="misc")
    p.shaped("end_rod", 4, ["/", "#"], {"/": "blaze_rod", "#": "popped_chorus_fruit"}, category="decorations")
    p.shaped("respawn_anchor", 1, ["OOO", "GGG", "OOO"], {"O": "crying_obsidian", "G": "glowstone"},
             category="decorations")
    p.shaped("lodestone", 1, ["SSS", "S#S", "SSS"], {"S": "chiseled_stone_bricks", "#": "netherite_ingot"},
             category="decorations")


def food(p: Pack) -> None:
    for raw, cooked in (("beef", "cooked_beef"), ("porkchop", "cooked_porkchop"), ("chicken", "cooked_chicken"),
                        ("mutton", "cooked_mutton"), ("rabbit", "cooked_rabbit"), ("cod", "cooked_cod"),
                        ("salmon", "cooked_salmon"), ("potato", "baked_potato")):
        p.cook("smelting", raw, cooked, 200, 0.35, category="food")
        p.cook("smoking", raw, cooked, 100, 0.35, category="food")
        p.cook("campfire_cooking", raw, cooked, 600, 0.35, category="food")
    p.cook("smelting", "kelp", "dried_kelp", 200, 0.1, category="food")
    p.cook("smoking", "kelp", "dried_kelp", 100, 0.1, category="food")
    p.cook("campfire_cooking", "kelp", "dried_kelp", 600, 0.1, category="food")
    p.shaped("bread", 1, ["###"], {"#": "wheat"}, category="food")
    p.shaped("cookie", 8, ["#X#"], {"#": "wheat", "X": "cocoa_beans"}, category="food")
    p.shapeless("pumpkin_pie", 1, ["pumpkin", "sugar", "egg"], category="food")
    p.shapeless("mushroom_stew", 1, ["brown_mushroom", "red_mushroom", "bowl"], category="food")
    p.shapeless("beetroot_soup", 1, ["bowl"] + ["beetroot"] * 6, category="food")
    p.shapeless("rabbit_stew", 1, ["baked_potato", "cooked_rabbit", "bowl", "carrot", "brown_mushroom"],
                category="food")
    p.shaped("golden_apple", 1, ["###", "#X#", "###"], {"#": "gold_ingot", "X": "apple"}, category="food")
    p.shaped("golden_carrot", 1, ["###", "#X#", "###"], {"#": "gold_nugget", "X": "carrot"}, category="food")
    p.shapeless("sugar", 1, ["sugar_cane"], category="food")
    p.shaped("cake", 1, ["AAA", "BEB", "CCC"], {"A": "milk_bucket", "B": "sugar", "E": "egg", "C": "wheat"},
             category="food")


DYE_SOURCES = [
    ("yellow_dye", "dandelion", 1), ("red_dye", "poppy", 1), ("red_dye", "red_tulip", 1),
    ("red_dye", "beetroot", 1), ("blue_dye", "cornflower", 1), ("blue_dye", "lapis_lazuli", 1),
    ("white_dye", "lily_of_the_valley", 1), ("white_dye", "bone_meal", 1), ("black_dye", "ink_sac", 1),
    ("black_dye", "wither_rose", 1), ("brown_dye", "cocoa_beans", 1), ("orange_dye", "orange_tulip", 1),
    ("magenta_dye", "allium", 1), ("light_blue_dye", "blue_orchid", 1), ("light_gray_dye", "oxeye_daisy", 1),
    ("light_gray_dye", "azure_bluet", 1), ("pink_dye", "pink_tulip", 1), ("yellow_dye", "sunflower", 2),
]
DYE_MIXES = [
    ("orange_dye", 2, ["red_dye", "yellow_dye"]), ("light_blue_dye", 2, ["blue_dye", "white_dye"]),
    ("pink_dye", 2, ["red_dye", "white_dye"]), ("lime_dye", 2, ["green_dye", "white_dye"]),
    ("gray_dye", 2, ["black_dye", "white_dye"]), ("light_gray_dye", 2, ["gray_dye", "white_dye"]),
    ("cyan_dye", 2, ["blue_dye", "green_dye"]), ("purple_dye", 2, ["blue_dye", "red_dye"]),
    ("magenta_dye", 2, ["purple_dye", "pink_dye"]),
]


def colors(p: Pack) -> None:
    for dye, source, count in DYE_SOURCES:
        p.shapeless(dye, count, [source], rid=f"{dye}_from_{source}", category="misc", group=dye)
    for dye, count, parts in DYE_MIXES:
        p.shapeless(dye, count, parts, rid=f"{dye}_from_{'_'.join(x.removesuffix('_dye') for x in parts)}",
                    category="misc", group=dye)
    p.cook("smelting", "cactus", "green_dye", 200, 1.0)
    p.cook("smelting", "sea_pickle", "lime_dye", 200, 0.1)
    p.cook("smelting", "sand", "glass", 200, 0.1, category="blocks")
    p.cook("smelting", "red_sand", "glass", 200, 0.1, rid="glass_from_red_sand", category="blocks")
    p.cook("smelting", "clay_ball", "brick", 200, 0.3)
    p.cook("smelting", "clay", "terracotta", 200, 0.35, category="blocks")
    p.cook("smelting", "netherrack", "nether_brick", 200, 0.1)
    p.cook("smelting", "cobblestone", "stone", 200, 0.1, category="blocks")
    p.cook("smelting", "stone", "smooth_stone", 200, 0.1, category="blocks")
    p.cook("smelting", "sandstone", "smooth_sandstone", 200, 0.1, category="blocks")
    p.cook("smelting", "quartz_block", "smooth_quartz", 200, 0.1, category="blocks")
    p.cook("smelting", "stone_bricks", "cracked_stone_bricks", 200, 0.1, category="blocks")
    p.cook("smelting", "cobbled_deepslate", "deepslate", 200, 0.1, category="blocks")
    p.cook("smelting", "wet_sponge", "sponge", 200, 0.15, category="blocks")
    p.cook("smelting", "chorus_fruit", "popped_chorus_fruit", 200, 0.1)
    for c in COLORS:
        dye = f"{c}_dye"
        if c != "white":
            p.shapeless(f"{c}_wool", 1, [dye, "white_wool"], category="building", group="wool")
        p.shaped(f"{c}_carpet", 3, ["##"], {"#": f"{c}_wool"}, category="decorations", group="carpet")
        p.shaped(f"{c}_bed", 1, ["###", "XXX"], {"#": f"{c}_wool", "X": "#planks"}, category="decorations",
                 group="bed")
        p.shaped(f"{c}_stained_glass", 8, ["###", "#X#", "###"], {"#": "glass", "X": dye},
                 category="building", group="stained_glass")
        p.shaped(f"{c}_stained_glass_pane", 16, ["###", "###"], {"#": f"{c}_stained_glass"},
                 category="decorations", group="stained_glass_pane")
        p.shaped(f"{c}_terracotta", 8, ["###", "#X#", "###"], {"#": "terracotta", "X": dye},
                 category="building", group="stained_terracotta")
        p.shapeless(f"{c}_concrete_powder", 8, [dye] + ["sand"] * 4 + ["gravel"] * 4, category="building",
                    group="concrete_powder")
        p.cook("smelting", f"{c}_terracotta", f"{c}_glazed_terracotta", 200, 0.1, category="blocks")
        p.shaped(f"{c}_banner", 1, ["###", "###", " | "], {"#": f"{c}_wool", "|": "stick"},
                 category="decorations", group="banner")
        p.shapeless(f"{c}_candle", 1, ["candle", dye], category="decorations", group="dyed_candle")
        p.tag("wool", [f"{c}_wool"])
        p.tag("wool_carpets", [f"{c}_carpet"])
        p.tag("beds", [f"{c}_bed"])
        p.tag("banners", [f"{c}_banner"])
        p.tag("terracotta", [f"{c}_terracotta"])
        p.tag("candles", [f"{c}_candle"])
    p.tag("terracotta", ["terracotta"])
    p.tag("candles", ["candle"])


def minecraft_fuels() -> dict:
    """Coal-equivalents per item (burn ticks / 1600), as exact fractions."""

    def frac(ticks: int) -> str | int:
        f = Fraction(ticks, 1600)
        return f.numerator if f.denominator == 1 else f"{f.numerator}/{f.denominator}"

    return {"unit": "coal-equivalent (one coal smelts 8 items)", "per_smelt": "1/8",
            "values": {k: frac(v) for k, v in VANILLA_BURN_TICKS.items()}}


#: pools for the instance generator (written into ruleset.json; see sim/tradecraft/generator.py)
MC_GENERATOR = {
    "targets": [
        "shears", "torch", "detector_rail", "target", "shield", "arrow", "bucket", "compass", "clock", "bow",
        "fishing_rod", "lantern", "chain", "piston", "sticky_piston", "hopper", "minecart", "rail",
        "powered_rail", "activator_rail", "repeater", "comparator", "dispenser", "observer", "tripwire_hook",
        "crossbow", "iron_pickaxe", "stone_pickaxe", "golden_sword", "diamond_hoe", "iron_helmet", "bookshelf",
        "book", "map", "campfire", "blast_furnace", "smoker", "furnace", "chest", "barrel", "jukebox",
        "note_block", "painting", "item_frame", "ladder", "glass_bottle", "flower_pot", "cauldron", "tnt",
        "daylight_detector", "redstone_lamp", "lever", "stone_button", "red_bed", "lime_wool", "cyan_carpet",
        "flint_and_steel", "iron_door", "bread", "cookie", "golden_apple", "lead", "soul_torch", "brewing_stand",
        "spyglass", "lightning_rod", "stonecutter", "grindstone", "smithing_table", "loom", "composter",
        "leather_boots", "chest_minecart", "armor_stand", "writable_book", "pumpkin_pie", "mushroom_stew",
        "cooked_beef", "chiseled_stone_bricks", "glass_pane", "orange_dye", "magenta_wool", "jack_o_lantern",
        "stone_sword", "golden_carrot", "iron_bars", "heavy_weighted_pressure_plate", "white_banner",
    ],
    "raw_items": [
        "raw_iron", "raw_gold", "raw_copper", "coal", "diamond", "redstone", "lapis_lazuli", "quartz", "flint",
        "feather", "string", "leather", "wheat", "sugar_cane", "cobblestone", "sand", "gravel", "clay_ball",
        "oak_log", "birch_log", "spruce_log", "cherry_log", "bamboo", "slime_ball", "gunpowder", "glowstone_dust",
        "bone", "ink_sac", "cocoa_beans", "egg", "apple", "carrot", "dandelion", "poppy", "cornflower",
        "blaze_rod", "obsidian", "amethyst_shard", "beef", "pumpkin", "brown_mushroom", "red_mushroom",
        "soul_sand", "kelp", "honeycomb", "carved_pumpkin", "rabbit_hide", "iron_ore",
    ],
    "intermediates": [
        "iron_ingot", "gold_ingot", "copper_ingot", "oak_planks", "birch_planks", "spruce_planks",
        "cherry_planks", "stick", "stone", "smooth_stone", "glass", "paper", "book", "white_wool", "iron_nugget",
        "gold_nugget", "charcoal", "brick", "sugar", "bowl", "hay_block", "chest", "furnace", "stone_slab",
        "smooth_stone_slab", "redstone_torch", "stone_pressure_plate", "blaze_powder", "red_dye", "green_dye",
        "white_dye", "bone_meal", "stone_bricks",
    ],
}

ALCHEMY_GENERATOR = {
    "targets": [
        "brick", "wall", "clay", "glass", "time", "tree", "plant", "grass", "metal", "blade", "wood", "charcoal",
        "plank", "boat", "life", "tool", "axe", "hammer", "hut", "farmer", "cook", "ash", "soap", "obsidian",
        "arrowhead", "arrow", "engine", "wheel", "light_bulb", "wire", "sun", "moon", "flower", "bee", "rainbow",
        "storm", "swamp", "lens", "electricity", "garden", "desert", "cloud", "rain", "sky", "human", "animal",
        "fish", "bird", "spring", "paper", "ice", "wind", "wave", "fog",
    ],
    "raw_items": ["air", "earth", "fire", "water"],
    "intermediates": ["stone", "sand", "plant", "metal", "life", "pressure", "energy", "mud", "cloud", "glass",
                      "wood", "steam", "lava", "dust", "puddle", "time"],
}


def build_minecraft() -> Pack:
    p = Pack(NS)
    for part in (woods, stones, metals, equipment, redstone, utility, food, colors):
        part(p)
    return p


# ============================================================================ alchemy

ALCHEMY = """
air+air=pressure; earth+earth=land; fire+fire=energy; water+water=puddle
air+earth=dust; air+fire=energy; air+water=mist; earth+fire=lava; earth+water=mud; fire+water=steam
puddle+water=pond; pond+water=lake; lake+water=sea; sea+water=ocean; sea+earth=primordial_soup
land+land=continent; continent+continent=planet; planet+planet=solar_system; solar_system+solar_system=galaxy
earth+pressure=stone; lava+air=stone; stone+air=sand; sand+sand=desert; stone+fire=metal; metal+energy=electricity
sand+fire=glass; glass+sand=time; mud+sand=clay; clay+fire=brick; brick+brick=wall; wall+wall=house
house+house=village; village+village=city; city+city=metropolis; mist+air=cloud; cloud+water=rain; cloud+air=sky
rain+earth=plant; plant+earth=grass; plant+plant=garden; plant+time=tree; tree+tree=forest; forest+forest=jungle
metal+stone=blade; blade+tree=wood; wood+fire=charcoal; wood+wood=plank; plank+plank=boat; boat+sea=ship
primordial_soup+energy=life; life+clay=human; life+land=animal; animal+animal=herd; animal+air=bird
bird+bird=flock; animal+water=fish; fish+fish=school; human+metal=tool; tool+wood=axe; tool+stone=hammer
human+stone=hut; hut+hut=house; human+plant=farmer; farmer+plant=field; field+field=farm; farmer+animal=livestock
human+animal=hunter; hunter+blade=sword; sword+metal=knight; knight+house=castle; human+fire=cook
cook+animal=meat; meat+fire=steak; plant+fire=ash; ash+water=soap; lava+water=obsidian; obsidian+blade=arrowhead
arrowhead+wood=arrow; arrow+wood=bow; steam+metal=engine; engine+boat=steamboat; engine+wheel=car
stone+wood=wheel; wheel+wheel=bicycle; car+car=traffic; electricity+glass=light_bulb; light_bulb+house=lamp
electricity+metal=wire; wire+wire=circuit; circuit+circuit=computer; computer+computer=internet
sky+energy=sun; sky+stone=moon; sun+moon=eclipse; sun+plant=flower; flower+flower=bouquet; flower+garden=bee
bee+flower=honey; honey+plant=nectar; sky+bird=cloud_bird; pressure+energy=explosion; explosion+metal=gun
gun+human=soldier; soldier+soldier=army; army+army=war; war+time=history; history+human=story
story+paper=book; wood+water=paper; book+book=library; library+human=scholar; scholar+scholar=university
water+fire+energy=ignore
glass+glass=lens; lens+lens=telescope; telescope+sky=astronomer; astronomer+planet=discovery
rain+sun=rainbow; rainbow+rainbow=double_rainbow; cloud+electricity=storm; storm+sea=hurricane
mud+plant=swamp; swamp+life=frog; frog+life=dragon_egg; dragon_egg+fire=dragon; dragon+knight=legend
water+pressure=ice; ice+ice=glacier; glacier+land=mountain; mountain+mountain=range
mountain+air=wind; wind+sea=wave; wave+sand=beach; beach+sun=vacation; vacation+human=tourist
steam+cloud=fog; fog+city=smog; smog+human=cough; metal+wire=spring; spring+wheel=clock; clock+time=watch
"""


def build_alchemy() -> Pack:
    p = Pack("alchemy")
    seen_pairs: set[tuple[str, str]] = set()
    counter: dict[str, int] = {}
    for line in ALCHEMY.strip().splitlines():
        for entry in filter(None, (e.strip() for e in line.split(";"))):
            left, _, result = entry.partition("=")
            parts = left.split("+")
            if len(parts) != 2 or result == "ignore":
                continue  # the alchemy set combines exactly two elements
            a, b = sorted(parts)
            if (a, b) in seen_pairs:
                raise ValueError(f"alchemy pair {a}+{b} defined twice")
            seen_pairs.add((a, b))
            counter[result] = counter.get(result, 0) + 1
            rid = result if counter[result] == 1 else f"{result}_{counter[result]}"
            p.shapeless(result, 1, [a, b], rid=rid, category="alchemy")
    return p


def write_all(out: Path) -> tuple[Pack, Pack]:
    """Write both rule sets into ``out/minecraft`` and ``out/alchemy`` (each folder emptied first)."""
    mc_pack = build_minecraft()
    # The descriptions name the folder this generator was once kept in: the shipped rule sets say so.
    mc_pack.write(out / "minecraft", {
        "name": "minecraft", "title": "Minecraft (vanilla-like)", "namespace": "minecraft",
        "description": "A vanilla-like Minecraft rule set made for ToM Arena: every recipe type, item tags "
                       "and fuel values; generated by scenarios/tradecraft/make_rules.py.",
        "generator": MC_GENERATOR}, minecraft_fuels())
    al_pack = build_alchemy()
    al_pack.write(out / "alchemy", {
        "name": "alchemy", "title": "Alchemy (pairwise elements)", "namespace": "alchemy",
        "description": "Two elements combine into a new one, from air, earth, fire and water up long chains; "
                       "generated by scenarios/tradecraft/make_rules.py.",
        "generator": ALCHEMY_GENERATOR}, {"values": {}})
    return mc_pack, al_pack


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make_rules", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=FOLDER, help=f"folder to write to (default: {FOLDER})")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 unless the files match")
    args = parser.parse_args(argv)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            write_all(Path(tmp))
            wrong = []
            for name in ("minecraft", "alchemy"):
                made, shipped = _files(Path(tmp) / name), _files(args.out / name)
                wrong += [f"{name}/{f}" for f in sorted(made.keys() | shipped.keys()) if made.get(f) != shipped.get(f)]
        for file in wrong:
            print(f"{args.out / file}: missing, extra or not what the tables give", file=sys.stderr)
        print("the rule sets match the tables" if not wrong else f"{len(wrong)} files differ")
        return 1 if wrong else 0
    try:
        mc_pack, al_pack = write_all(args.out)
    except OSError as exc:
        print(f"make_rules: cannot write to {args.out}: {exc}", file=sys.stderr)
        return 2
    print(f"minecraft: {len(mc_pack.recipes)} recipes, {len(mc_pack.tags)} tags -> {args.out / 'minecraft'}")
    print(f"alchemy: {len(al_pack.recipes)} recipes -> {args.out / 'alchemy'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
