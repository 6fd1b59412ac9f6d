"""overcooked_ai's rules (Carroll et al. 2019; the ``overcooked_ai`` package, version 1.1.0) as a
rules option of the kitchen (``rules: overcooked``), and the reader of its ``.layout`` files.

A layout is a Python literal dict (``grid``, ``start_all_orders``, ``start_bonus_orders``,
``onion_value``/``tomato_value``, ``onion_time``/``tomato_time``, ``recipe_values``/``recipe_times``,
``cook_time``, ``delivery_reward``, ``order_bonus``, ``rew_shaping_params``, ``start_state``...).
Grid characters: ``X`` counter, ``O`` onion dispenser, ``T`` tomato dispenser, ``D`` dish
dispenser, ``P`` pot, ``S`` serving spot, a blank floor, ``1``-``9`` the players' starts.

The rules follow ``OvercookedGridworld.get_state_transition`` step for step (docs/kitchen.md,
"overcooked_ai's rules"): every player faces a direction; ``interact`` works the cell it faces,
players 1, 2, ... in turn on the same state (counters: put down / pick up; dispensers: take an
onion, a tomato or a dish with empty hands; pots: add an ingredient while fewer than 3 are in it
and it is not cooking, start cooking with empty hands, take the finished soup with a dish;
serving spot: serve a soup); then everyone moves at once (a move turns the player even when the
cell is taken; if two players would end on one cell or swap cells, nobody moves); then the clock
advances and every cooking soup cooks one tick. A served soup is worth its recipe's value if the
recipe is among the orders (times ``order_bonus`` if it is a bonus order), else 0 (the sparse
reward); potting, a useful dish pickup and a soup pickup earn the shaped reward.

Everything here is pure and deterministic; the differential test (tests/test_overcooked_rules.py)
replays recorded random joint actions of overcooked_ai 1.1.0 on every layout it ships and compares
states and both rewards step by step.
"""

from __future__ import annotations

import ast
import itertools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.inputs import read_text
from sim.registry import ScenarioError
from sim.world import AgentId, IllegalAction, StepResult, World, WorldEvent, require_joint

RULES_NAME = "overcooked"
FORMAT = "overcooked-ai"
#: overcooked_ai's usual horizon (its DEFAULT_ENV_PARAMS)
T_MAX = 400
AGENT_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan")
#: overcooked_ai's Action.INDEX_TO_ACTION order: NORTH, SOUTH, EAST, WEST, STAY, INTERACT
ACTIONS: tuple[str, ...] = ("up", "down", "right", "left", "stay", "interact")
DIRECTIONS: dict[str, tuple[int, int]] = {"up": (0, -1), "down": (0, 1), "right": (1, 0), "left": (-1, 0)}
INGREDIENTS = ("onion", "tomato")
OBJECT_NAMES = ("onion", "tomato", "dish", "soup")
TERRAIN = "XOTDPS "
BASE_SHAPING = {"PLACEMENT_IN_POT_REW": 3, "DISH_PICKUP_REWARD": 3, "SOUP_PICKUP_REWARD": 5,
                "DISH_DISP_DISTANCE_REW": 0, "POT_DISTANCE_REW": 0, "SOUP_DISTANCE_REW": 0}
#: the layout fields overcooked_ai 1.1.0 reads (others would be passed to its Recipe class unused)
LAYOUT_FIELDS = ("grid", "start_all_orders", "start_bonus_orders", "rew_shaping_params", "order_bonus",
                 "start_state", "num_items_for_soup", "max_num_ingredients", "cook_time", "delivery_reward",
                 "recipe_values", "recipe_times", "onion_value", "tomato_value", "onion_time", "tomato_time")
#: older overcooked_ai (0.x) layout fields that 1.1.0 no longer understands
OLD_FIELDS = {"start_order_list": "start_all_orders / start_bonus_orders", "orders": "start_all_orders"}
MAX_SIDE = 100

#: an object: (name, ingredients, cooking tick); ingredients () and tick -1 for all but soups
Obj = tuple[str, tuple[str, ...], int]
#: a player: (x, y, facing dx, facing dy, held object or None)
Player = tuple[int, int, int, int, "Obj | None"]
Recipe = tuple[str, ...]  # sorted ingredient names


# ------------------------------------------------------------------------------ reading

def _literal(text: str, source: str) -> Any:
    """The Python literal in ``text`` (a layout file), evaluated without running code: dicts,
    lists, tuples, strings, numbers, True/False/None, and ``float('inf')`` (which overcooked_ai's
    own layouts use), kept as the string "inf"."""
    body = text.lstrip()
    skipped = text[: len(text) - len(body)].count("\n")  # blank lines before the dict
    try:
        with warnings.catch_warnings():  # "invalid decimal literal" and the like: the error says it
            warnings.simplefilter("ignore")
            tree = ast.parse(body, source, mode="eval")
    except SyntaxError as exc:
        raise ScenarioError(f"{source}: line {(exc.lineno or 1) + skipped}, column {exc.offset or 1} (1-based): "
                            f"not a Python literal dict as overcooked_ai's .layout files are ({exc.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise ScenarioError(f"{source}: not a Python literal dict overcooked_ai could read (nested too deeply "
                            "or too large)") from None

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = value(node.operand)
            if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                return -inner if isinstance(node.op, ast.USub) else inner
            if inner in ("inf", "-inf") and isinstance(node.op, ast.USub):
                return "-inf" if inner == "inf" else "inf"
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    break
                key = value(k)
                if not isinstance(key, str):
                    raise ScenarioError(f"{source}: line {k.lineno + skipped}, column {k.col_offset + 1} "
                                        f"(1-based): expected a field name in quotes, got {key!r}")
                if key in out:
                    raise ScenarioError(f"{source}: line {k.lineno + skipped}, column {k.col_offset + 1} "
                                        f"(1-based): field {key!r} appears twice; expected it once")
                out[key] = value(v)
            else:
                return out
        if isinstance(node, (ast.List, ast.Tuple)):
            return [value(e) for e in node.elts]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
                and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
                and str(node.args[0].value).strip().lower() in ("inf", "-inf", "+inf", "infinity")):
            return "-inf" if str(node.args[0].value).strip().startswith("-") else "inf"
        raise ScenarioError(f"{source}: line {getattr(node, 'lineno', 1) + skipped}, column "
                            f"{getattr(node, 'col_offset', 0) + 1} (1-based): expected a literal (text, "
                            f"number, list, dict, None, True, False or float('inf')), got "
                            f"{ast.unparse(node)[:60]!r}")

    return value(tree.body)


def parse_layout_text(text: str, source: str, name: str) -> dict[str, Any]:
    """A kitchen spec (``rules: overcooked``) from the text of an overcooked_ai ``.layout`` file."""
    layout = _literal(text, source)
    if not isinstance(layout, dict):
        raise ScenarioError(f"{source}: expected a dict {{'grid': ..., ...}} as overcooked_ai's .layout "
                            f"files hold, got {type(layout).__name__}")
    spec = {"world": "kitchen", "rules": RULES_NAME, "format": FORMAT, "name": name, "title": name,
            "description": "a layout of overcooked_ai (its own rules)", "category": None, "t_max": T_MAX,
            "layout": layout}
    return validate_overcooked(spec, source)


def read_layout_file(path: Path) -> dict[str, Any]:
    """Reader of ``*.layout`` files (overcooked_ai's format, unchanged), through the strict reader."""
    text = read_text(path, ScenarioError, kind="overcooked_ai layout")
    return parse_layout_text(text, str(path), layout_name(path))


def layout_name(path: Path) -> str:
    """A scenario name from a layout's file name (``cramped_room.layout`` -> ``cramped_room``)."""
    stem = path.name[: -len(".layout")] if path.name.endswith(".layout") else Path(path.name).stem
    return "".join(ch if ch.isalnum() or ch in "_-" else "-" for ch in stem.lower())[:32] or "layout"


def looks_like_layout(text: str) -> bool:
    """True when ``text`` has the shape of an overcooked_ai layout (a dict literal with a grid)."""
    return text.lstrip("\ufeff \t\r\n").startswith("{") and "grid" in text


# ------------------------------------------------------------------------------ checking

def _number(value: Any, where: str, *, allow_inf: bool = False) -> float:
    if allow_inf and value in ("inf", "-inf"):
        return math.inf if value == "inf" else -math.inf
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ScenarioError(f"{where}: expected a number, got {value!r}")
    return value


def _recipe(value: Any, where: str, max_items: int) -> Recipe:
    if not isinstance(value, dict) or set(value) != {"ingredients"} or not isinstance(value["ingredients"], list):
        raise ScenarioError(f"{where}: expected {{'ingredients': [...]}}, got {value!r}")
    items = value["ingredients"]
    if not items or len(items) > max_items or any(i not in INGREDIENTS for i in items):
        raise ScenarioError(f"{where}: expected 1 to {max_items} of 'onion' and 'tomato', got {items!r}")
    return tuple(sorted(items))


def _object(value: Any, where: str, max_items: int) -> tuple[tuple[int, int], Obj]:
    """An object of overcooked_ai's state dicts (``ObjectState.to_dict``/``SoupState.to_dict``)."""
    if not isinstance(value, dict) or value.get("name") not in OBJECT_NAMES:
        raise ScenarioError(f"{where}: expected an object {{'name': one of {', '.join(OBJECT_NAMES)}, "
                            f"'position': [x, y], ...}}, got {value!r}")
    pos = value.get("position")
    if not (isinstance(pos, list) and len(pos) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in pos)):
        raise ScenarioError(f"{where}: position: expected [x, y], got {pos!r}")
    if value["name"] != "soup":
        return (pos[0], pos[1]), (value["name"], (), -1)
    items = value.get("_ingredients", [])
    if (not isinstance(items, list) or len(items) > max_items
            or any(not isinstance(i, dict) or i.get("name") not in INGREDIENTS for i in items)):
        raise ScenarioError(f"{where}: _ingredients: expected at most {max_items} of {{'name': 'onion'|'tomato', "
                            f"'position': [x, y]}}, got {items!r}")
    # overcooked_ai's SoupState.from_dict reads ``cooking_tick``; ``_cooking_tick`` (written
    # beside it by to_dict) is ignored, as there
    tick = value.get("cooking_tick", -1)
    if isinstance(tick, bool) or not isinstance(tick, int) or tick < -1 or (tick >= 0 and not items):
        raise ScenarioError(f"{where}: cooking_tick: expected -1 (not cooking) or a tick >= 0 of a soup with "
                            f"ingredients, got {tick!r}")
    return (pos[0], pos[1]), ("soup", tuple(i["name"] for i in items), tick)


def validate_overcooked(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Check a ``rules: overcooked`` kitchen spec; return it normalized. Everything is checked
    here, for layout files and for specs that recordings embed alike."""
    allowed = {"world", "rules", "format", "name", "title", "description", "category", "t_max", "layout"}
    extra = sorted(set(data) - allowed)
    if extra:
        raise ScenarioError(f"{source}: field {extra[0]!r}: not a field of an overcooked_ai kitchen; expected "
                            f"{', '.join(sorted(allowed))}")
    name = data.get("name")
    if not isinstance(name, str) or not name or len(name) > 32:
        raise ScenarioError(f"{source}: field 'name': expected a name of at most 32 characters, got {name!r}")
    t_max = data.get("t_max", T_MAX)
    if isinstance(t_max, bool) or not isinstance(t_max, int) or t_max < 1:
        raise ScenarioError(f"{source}: field 't_max': expected a whole number >= 1, got {t_max!r}")
    layout = data.get("layout")
    if not isinstance(layout, dict):
        raise ScenarioError(f"{source}: field 'layout': expected overcooked_ai's layout dict, got {layout!r}")
    Layout(layout, source)  # every check of the layout itself
    return {"world": "kitchen", "rules": RULES_NAME, "format": data.get("format", FORMAT), "name": name,
            "title": str(data.get("title") or name), "description": str(data.get("description") or ""),
            "category": data.get("category"), "t_max": t_max, "layout": layout}


class Layout:
    """A checked layout: terrain, starts, orders, recipe values and times, shaping."""

    def __init__(self, layout: Mapping[str, Any], source: str) -> None:
        if "old_dynamics" in layout:
            # overcooked_ai 1.1.0 passes the field on unused (its soups start cooking on an interact); the
            # repository's later code starts a pot of three by itself when it is true, a rule not played here
            if layout["old_dynamics"] is not False:
                raise ScenarioError(f"{source}: field 'old_dynamics': {layout['old_dynamics']!r}; overcooked_ai "
                                    "1.1.0 ignores this field (a soup starts cooking on an interact) and these "
                                    "rules are 1.1.0's, so only false is read; the later rule it asks for (a pot "
                                    "of three starts cooking by itself) is not played here")
        for key in layout:
            if key == "old_dynamics":
                continue
            if key not in LAYOUT_FIELDS:
                hint = f" (overcooked_ai 0.x's field; 1.1.0 reads {OLD_FIELDS[key]})" if OLD_FIELDS.get(key) else ""
                raise ScenarioError(f"{source}: field {key!r}: not a field of an overcooked_ai 1.1.0 layout"
                                    f"{hint}; expected some of {', '.join(LAYOUT_FIELDS)}")
        grid = layout.get("grid")
        if not isinstance(grid, str):
            raise ScenarioError(f"{source}: field 'grid': expected the grid as text (one row a line), got {grid!r}")
        rows = [row.strip() for row in grid.split("\n")]  # as overcooked_ai cleans it
        where = f"{source}: field 'grid'"
        if not rows or not rows[0]:
            raise ScenarioError(f"{where}: expected rows of grid characters, got an empty row 1")
        width = len(rows[0])
        if len(rows) > MAX_SIDE or width > MAX_SIDE:
            raise ScenarioError(f"{where}: {len(rows)} rows by {width} columns; expected at most {MAX_SIDE} of each")
        starts: dict[int, tuple[int, int]] = {}
        terrain = []
        for y, row in enumerate(rows):
            if len(row) != width:
                raise ScenarioError(f"{where}, row {y + 1} (1-based): {len(row)} characters; expected {width} "
                                    "like row 1 (the grid must not be ragged)")
            out = []
            for x, ch in enumerate(row):
                if ch in "123456789":
                    if int(ch) in starts:
                        raise ScenarioError(f"{where}, row {y + 1}, column {x + 1}: player {ch} appears twice")
                    starts[int(ch)] = (x, y)
                    ch = " "
                elif ch not in TERRAIN:
                    raise ScenarioError(f"{where}, row {y + 1}, column {x + 1} (1-based): unknown character "
                                        f"{ch!r}; expected X counter, O onions, T tomatoes, D dishes, P pot, "
                                        "S serving spot, a blank (floor) or a player 1-9")
                if ch == " " and (x in (0, width - 1) or y in (0, len(rows) - 1)):
                    raise ScenarioError(f"{where}, row {y + 1}, column {x + 1} (1-based): the border must not "
                                        "be floor (or a player)")
                out.append(ch)
            terrain.append("".join(out))
        if sorted(starts) != list(range(1, len(starts) + 1)) or not starts:
            raise ScenarioError(f"{where}: expected players numbered 1, 2, ... without gaps, got "
                                f"{sorted(starts) or 'none'}")
        chars = "".join(terrain)
        for needed, what in (("D", "dish dispenser 'D'"), ("S", "serving spot 'S'"), ("P", "pot 'P'")):
            if needed not in chars:
                raise ScenarioError(f"{where}: no {what}; overcooked_ai needs at least one")
        if "O" not in chars and "T" not in chars:
            raise ScenarioError(f"{where}: no onion 'O' or tomato 'T' dispenser; overcooked_ai needs one")
        self.terrain: tuple[str, ...] = tuple(terrain)
        self.width, self.height = width, len(terrain)
        self.starts = tuple(starts[i] for i in range(1, len(starts) + 1))

        # Recipe configuration, with overcooked_ai's Recipe.configure checks
        def has(key: str) -> bool:
            return key in layout

        max_items = layout.get("max_num_ingredients", 3)  # num_items_for_soup is read by nothing in 1.1.0
        if isinstance(max_items, bool) or not isinstance(max_items, int) or not 1 <= max_items <= 3:
            raise ScenarioError(f"{source}: field 'max_num_ingredients': expected 1, 2 or 3, got {max_items!r}")
        self.max_items = max_items
        for a, b in (("tomato_time", "onion_time"), ("tomato_value", "onion_value")):
            if has(a) != has(b):
                raise ScenarioError(f"{source}: field {a if has(a) else b!r}: overcooked_ai needs both {a!r} "
                                    f"and {b!r}")
        for a, b in (("tomato_value", "delivery_reward"), ("tomato_value", "recipe_values"),
                     ("recipe_values", "delivery_reward"), ("tomato_time", "cook_time"),
                     ("tomato_time", "recipe_times"), ("recipe_times", "cook_time")):
            if has(a) and has(b):
                raise ScenarioError(f"{source}: fields {a!r} and {b!r}: overcooked_ai accepts one of them, not both")
        orders = layout.get("start_all_orders", [])
        bonus = layout.get("start_bonus_orders", [])
        for key, value in (("start_all_orders", orders), ("start_bonus_orders", bonus)):
            if not isinstance(value, list):
                raise ScenarioError(f"{source}: field {key!r}: expected a list of {{'ingredients': [...]}}, got {value!r}")
        self.orders = [_recipe(o, f"{source}: field 'start_all_orders', entry {i + 1}", max_items)
                       for i, o in enumerate(orders)]
        self.bonus = [_recipe(o, f"{source}: field 'start_bonus_orders', entry {i + 1}", max_items)
                      for i, o in enumerate(bonus)]
        for field_name, listed in (("start_all_orders", self.orders), ("start_bonus_orders", self.bonus)):
            if len(set(listed)) != len(listed):
                raise ScenarioError(f"{source}: field {field_name!r}: an order appears twice; overcooked_ai "
                                    "refuses duplicates")
        for key in ("recipe_values", "recipe_times"):
            if has(key):
                values = layout[key]
                if not self.orders or not isinstance(values, list) or len(values) != len(self.orders):
                    raise ScenarioError(f"{source}: field {key!r}: expected one number per entry of "
                                        f"'start_all_orders' ({len(self.orders)}), got {values!r}")
        self.value_map = {r: _number(v, f"{source}: field 'recipe_values', entry {i + 1}")
                          for i, (r, v) in enumerate(zip(self.orders, layout.get("recipe_values", [])))}
        self.time_map = {r: _number(v, f"{source}: field 'recipe_times', entry {i + 1}")
                         for i, (r, v) in enumerate(zip(self.orders, layout.get("recipe_times", [])))}
        scalars = {}
        for key in ("cook_time", "delivery_reward", "onion_value", "tomato_value", "onion_time", "tomato_time"):
            value = layout.get(key)
            scalars[key] = None if value is None else _number(value, f"{source}: field {key!r}")
        self.scalars = scalars
        self.order_bonus = _number(layout.get("order_bonus", 2), f"{source}: field 'order_bonus'", allow_inf=True)
        shaping = layout.get("rew_shaping_params")
        if shaping is None:
            shaping = BASE_SHAPING
        if not isinstance(shaping, dict) or not set(BASE_SHAPING) >= set(shaping) or not {
                "PLACEMENT_IN_POT_REW", "DISH_PICKUP_REWARD", "SOUP_PICKUP_REWARD"} <= set(shaping):
            raise ScenarioError(f"{source}: field 'rew_shaping_params': expected None or a dict with "
                                f"{', '.join(BASE_SHAPING)}, got {shaping!r}")
        self.shaping = {k: _number(v, f"{source}: field 'rew_shaping_params', {k!r}") for k, v in shaping.items()}

        # The start state: the layout's own, or the players on their digits facing north
        state = layout.get("start_state")
        if state is None:
            self.start_players: tuple[Player, ...] = tuple((x, y, 0, -1, None) for x, y in self.starts)
            self.start_objects: dict[tuple[int, int], Obj] = {}
            self.start_t = 0
        else:
            self._read_start_state(state, f"{source}: field 'start_state'")
        all_orders = self.orders if state is None else self.state_orders
        bonus_orders = self.bonus if state is None else self.state_bonus
        for r in bonus_orders:
            if r not in all_orders and all_orders:
                raise ScenarioError(f"{source}: field 'start_bonus_orders': the bonus order {list(r)} is not "
                                    "among 'start_all_orders'; overcooked_ai needs bonus orders to be orders")
        every = [tuple(c) for n in range(1, max_items + 1)
                 for c in itertools.combinations_with_replacement(sorted(INGREDIENTS), n)]
        self.all_orders = frozenset(all_orders or every)
        self.bonus_orders = frozenset(bonus_orders)
        #: the orders in the layout's own order (every recipe when it lists none: ``orders_listed`` False)
        self.order_list: tuple[Recipe, ...] = tuple(dict.fromkeys(all_orders or every))
        self.orders_listed = bool(all_orders)

    def _read_start_state(self, state: Any, where: str) -> None:
        if not isinstance(state, dict) or not isinstance(state.get("players"), list):
            raise ScenarioError(f"{where}: expected overcooked_ai's state dict {{'players': [...], 'objects': [...]}}")
        if len(state["players"]) != len(self.starts):
            raise ScenarioError(f"{where}: players: expected {len(self.starts)} (the grid's), got {len(state['players'])}")
        players: list[Player] = []
        for i, p in enumerate(state["players"]):
            at = f"{where}, players entry {i + 1}"
            if not isinstance(p, dict):
                raise ScenarioError(f"{at}: expected {{'position', 'orientation', 'held_object'}}")
            pos, facing = p.get("position"), p.get("orientation")
            if not (isinstance(pos, list) and len(pos) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                   for v in pos) and self.floor(*pos)) \
                    or any(q[:2] == tuple(pos) for q in players):
                raise ScenarioError(f"{at}: position: expected [x, y] of a floor cell no other player stands on, got {pos!r}")
            if not isinstance(facing, list) or tuple(facing) not in DIRECTIONS.values():
                raise ScenarioError(f"{at}: orientation: expected [0, -1], [0, 1], [1, 0] or [-1, 0], got {facing!r}")
            held = p.get("held_object")
            obj = None if held is None else _object(held, f"{at}, held_object", self.max_items)[1]
            players.append((pos[0], pos[1], facing[0], facing[1], obj))
        objects: dict[tuple[int, int], Obj] = {}
        raw_objects = state.get("objects", [])
        if not isinstance(raw_objects, list):
            raise ScenarioError(f"{where}: objects: expected a list")
        for i, o in enumerate(raw_objects):
            pos, obj = _object(o, f"{where}, objects entry {i + 1}", self.max_items)
            if self.floor(*pos) or not (0 <= pos[0] < self.width and 0 <= pos[1] < self.height) or pos in objects:
                raise ScenarioError(f"{where}, objects entry {i + 1}: position {list(pos)}: expected a counter, pot "
                                    "or other station inside the grid, one object each")
            if self.terrain[pos[1]][pos[0]] == "P" and obj[0] != "soup":
                raise ScenarioError(f"{where}, objects entry {i + 1}: a {obj[0]} in the pot at {list(pos)}; "
                                    "expected only soups in pots")
            objects[pos] = obj
        t = state.get("timestep", 0)
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise ScenarioError(f"{where}: timestep: expected a whole number >= 0, got {t!r}")
        self.start_players, self.start_objects, self.start_t = tuple(players), objects, t
        for key in ("all_orders", "bonus_orders"):
            if not isinstance(state.get(key, []), list):
                raise ScenarioError(f"{where}: {key}: expected a list of {{'ingredients': [...]}}")
        self.state_orders = [_recipe(o, f"{where}, all_orders entry {i + 1}", self.max_items)
                             for i, o in enumerate(state.get("all_orders", []))]
        self.state_bonus = [_recipe(o, f"{where}, bonus_orders entry {i + 1}", self.max_items)
                            for i, o in enumerate(state.get("bonus_orders", []))]

    def floor(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height and self.terrain[y][x] == " "

    # Recipe.value and Recipe.time of overcooked_ai, with its order of precedence (a 0 or a
    # missing setting falls through to the next)
    def value(self, recipe: Recipe) -> float:
        s = self.scalars
        if s["delivery_reward"]:
            return s["delivery_reward"]
        if self.value_map and recipe in self.value_map:
            return self.value_map[recipe]
        if s["onion_value"] and s["tomato_value"]:
            return s["tomato_value"] * recipe.count("tomato") + s["onion_value"] * recipe.count("onion")
        return 20

    def time(self, recipe: Recipe) -> float:
        s = self.scalars
        if s["cook_time"]:
            return s["cook_time"]
        if self.time_map and recipe in self.time_map:
            return self.time_map[recipe]
        if s["onion_time"] and s["tomato_time"]:
            return s["onion_time"] * recipe.count("onion") + s["tomato_time"] * recipe.count("tomato")
        return 20

    def reward(self, recipe: Recipe) -> float:
        """What serving a soup of ``recipe`` earns (overcooked_ai's get_recipe_value)."""
        if recipe not in self.all_orders:
            return 0
        if recipe not in self.bonus_orders:
            return self.value(recipe)
        return self.order_bonus * self.value(recipe)


# ------------------------------------------------------------------------------ the rules

@dataclass(frozen=True, slots=True)
class OvercookedState:
    """``t`` overcooked_ai's timestep; ``players`` (x, y, facing dx, dy, held); ``objects`` the
    objects on counters and pots, ((x, y), object) sorted by position; ``score`` the sparse reward
    each player earned so far, ``shaped`` the shaped reward, ``served`` the soups served."""

    t: int
    players: tuple[Player, ...]
    objects: tuple[tuple[tuple[int, int], Obj], ...]
    score: tuple[float, ...]
    shaped: tuple[float, ...]
    served: int

    def key(self) -> tuple:
        return (self.t, self.players, self.objects, self.score, self.shaped, self.served)


class Rules:
    """The transition of overcooked_ai's OvercookedGridworld on one layout."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.n = len(layout.starts)
        t = layout.terrain
        self.pots = tuple((x, y) for y in range(layout.height) for x in range(layout.width) if t[y][x] == "P")

    def initial_state(self) -> OvercookedState:
        lay = self.layout
        zero = (0,) * self.n
        return OvercookedState(lay.start_t, lay.start_players, tuple(sorted(lay.start_objects.items())),
                               zero, zero, 0)

    # soups: ("soup", ingredients, tick); idle when tick < 0
    def ready(self, obj: Obj) -> bool:
        return obj[2] >= 0 and obj[2] >= self.layout.time(tuple(sorted(obj[1])))

    def cooking(self, obj: Obj) -> bool:
        return obj[2] >= 0 and not self.ready(obj)

    def full(self, obj: Obj) -> bool:
        return obj[2] >= 0 or len(obj[1]) == self.layout.max_items

    def _dish_pickup_useful(self, objects: dict[tuple[int, int], Obj], players: list[list[Any]],
                            pot_counts: int) -> bool:
        if self.n != 2:
            return False
        terrain = self.layout.terrain
        if any(o[0] == "dish" and terrain[y][x] == "X" for (x, y), o in objects.items()):
            return False
        return sum(1 for p in players if p[4] is not None and p[4][0] == "dish") < pot_counts

    def step(self, state: OvercookedState, actions: Sequence[str]
             ) -> tuple[OvercookedState, list[float], list[float], list[tuple[str, int, dict[str, Any]]]]:
        """One step: interacts (players in order), moves, then cooking. Returns the next state,
        the sparse and the shaped reward of each player and what happened (kind, player, data)."""
        lay = self.layout
        terrain = lay.terrain
        objects = dict(state.objects)
        players: list[list[Any]] = [list(p) for p in state.players]
        sparse: list[float] = [0] * self.n
        shaped: list[float] = [0] * self.n
        happened: list[tuple[str, int, dict[str, Any]]] = []
        served = state.served
        # The pots' states before anyone interacts (overcooked_ai computes them once per step)
        non_empty_pots = 0
        for pos in self.pots:
            soup = objects.get(pos)
            if soup is not None and (self.ready(soup) or self.cooking(soup) or 1 <= len(soup[1]) < lay.max_items):
                non_empty_pots += 1
        for i, action in enumerate(actions):
            if action != "interact":
                continue
            p = players[i]
            target: tuple[int, int] = (p[0] + p[2], p[1] + p[3])
            kind = terrain[target[1]][target[0]]
            held: Obj | None = p[4]
            if kind == "X":
                if held is not None and target not in objects:
                    objects[target] = held
                    p[4] = None
                    happened.append(("put_down", i, {"object": held[0], "at": list(target)}))
                elif held is None and target in objects:
                    p[4] = objects.pop(target)
                    happened.append(("pickup", i, {"object": p[4][0], "at": list(target)}))
            elif kind in "OT" and held is None:
                p[4] = ("onion" if kind == "O" else "tomato", (), -1)
                happened.append(("pickup", i, {"object": p[4][0], "at": list(target)}))
            elif kind == "D" and held is None:
                if self._dish_pickup_useful(objects, players, non_empty_pots):
                    shaped[i] += lay.shaping["DISH_PICKUP_REWARD"]
                p[4] = ("dish", (), -1)
                happened.append(("pickup", i, {"object": "dish", "at": list(target)}))
            elif kind == "P" and held is None:
                soup = objects.get(target)
                if soup is not None and soup[0] == "soup" and soup[2] < 0 and soup[1]:
                    objects[target] = (soup[0], soup[1], 0)
                    happened.append(("cook", i, {"at": list(target), "ingredients": list(soup[1])}))
            elif kind == "P":
                assert held is not None
                soup = objects.get(target)
                if held[0] == "dish" and soup is not None and self.ready(soup):
                    p[4] = objects.pop(target)
                    shaped[i] += lay.shaping["SOUP_PICKUP_REWARD"]
                    happened.append(("soup_pickup", i, {"at": list(target), "ingredients": list(p[4][1])}))
                elif held[0] in INGREDIENTS:
                    if soup is None:
                        soup = ("soup", (), -1)
                        objects[target] = soup
                    if not self.full(soup):
                        objects[target] = ("soup", (*soup[1], held[0]), soup[2])
                        p[4] = None
                        shaped[i] += lay.shaping["PLACEMENT_IN_POT_REW"]
                        happened.append(("potting", i, {"at": list(target), "ingredient": held[0]}))
            elif kind == "S" and held is not None and held[0] == "soup":
                recipe = tuple(sorted(held[1]))
                reward = lay.reward(recipe)
                sparse[i] += reward
                p[4] = None
                served += 1
                happened.append(("serve", i, {"ingredients": list(recipe), "reward": _json_number(reward)}))
        # Moves, all at once; a collision (same cell, or two players swapping) keeps everyone put
        old = [(p[0], p[1]) for p in players]
        new = []
        for p, action in zip(players, actions):
            d = DIRECTIONS.get(action)
            if d is None:
                new.append((p[0], p[1]))
                continue
            p[2], p[3] = d
            to = (p[0] + d[0], p[1] + d[1])
            new.append(to if lay.floor(*to) else (p[0], p[1]))
        collide = len(set(new)) < len(new) or any(
            new[a] == old[b] and new[b] == old[a] for a, b in itertools.combinations(range(self.n), 2))
        if not collide:
            for p, (x, y) in zip(players, new):
                p[0], p[1] = x, y
        # The environment: the clock, and every cooking soup (in a pot or elsewhere) cooks
        for pos, obj in objects.items():
            if obj[0] == "soup" and self.cooking(obj):
                objects[pos] = (obj[0], obj[1], obj[2] + 1)
        next_state = OvercookedState(
            state.t + 1, tuple((p[0], p[1], p[2], p[3], p[4]) for p in players), tuple(sorted(objects.items())),
            tuple(a + b for a, b in zip(state.score, sparse)), tuple(a + b for a, b in zip(state.shaped, shaped)),
            served)
        return next_state, sparse, shaped, happened


def _json_number(value: float) -> float | str:
    return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")


# ------------------------------------------------------------------------------ the World

@dataclass(frozen=True, slots=True)
class OvercookedObservation:
    """overcooked_ai is fully observable: every agent sees the whole state."""

    agent: AgentId
    index: int
    state: OvercookedState

    def key(self) -> tuple:
        return (self.agent, self.index, self.state.key())


class OvercookedWorld(World[OvercookedState, str, OvercookedObservation]):
    """A kitchen under overcooked_ai's rules (``rules: overcooked``)."""

    family = "kitchen"
    simultaneous = True
    #: the agent ``main.py run`` seats when none is named (the kitchen's cooks play our rules)
    default_agent = "overcooked-random"

    def __init__(self, spec: dict[str, Any]) -> None:
        self._spec = spec
        self.name: str = spec["name"]
        self.t_max: int = int(spec["t_max"])
        self.rules = RULES_NAME
        self.layout = Layout(spec["layout"], spec["name"])
        self.engine = Rules(self.layout)
        self.grid = self.layout.terrain
        self.height, self.width = self.layout.height, self.layout.width
        self._agents = AGENT_NAMES[: self.engine.n]
        self.agent_index = {a: i for i, a in enumerate(self._agents)}

    @property
    def agents(self) -> tuple[AgentId, ...]:
        return self._agents

    def reset(self, seed: int) -> OvercookedState:
        return self.engine.initial_state()

    def done(self, state: OvercookedState) -> bool:
        return state.t >= self.t_max

    def active_agents(self, state: OvercookedState) -> tuple[AgentId, ...]:
        return () if self.done(state) else self._agents

    def legal_actions(self, state: OvercookedState, agent: AgentId) -> tuple[str, ...]:
        return ACTIONS if agent in self.active_agents(state) else ()

    def step(self, state: OvercookedState, joint_action: Mapping[AgentId, str]) -> StepResult[OvercookedState]:
        require_joint(self, state, joint_action)
        for agent, action in joint_action.items():
            if action not in ACTIONS:
                raise IllegalAction(f"{agent}: {action!r} is not an action; expected one of {', '.join(ACTIONS)}")
        next_state, _, _, happened = self.engine.step(state, [joint_action[a] for a in self._agents])
        return StepResult(next_state, tuple(WorldEvent(kind, self._agents[i], data) for kind, i, data in happened))

    def observe(self, state: OvercookedState, agent: AgentId) -> OvercookedObservation:
        return OvercookedObservation(agent, self.agent_index[agent], state)

    def state_key(self, state: OvercookedState) -> tuple:
        return state.key()

    def outcome(self, state: OvercookedState) -> dict[str, Any]:
        total = sum(state.score)
        return {"success": total > 0, "score": _json_number(total), "soups_served": state.served,
                "shaped_reward": _json_number(sum(state.shaped)), "ticks": state.t,
                "per_agent": {a: {"score": _json_number(state.score[i]), "shaped_reward": _json_number(state.shaped[i])}
                              for i, a in enumerate(self._agents)}}

    def spec(self) -> dict[str, Any]:
        return self._spec

    def render_text(self, state: OvercookedState) -> str:
        """The grid; players as their numbers, soups in pots as the number of ingredients (``c``
        cooking, ``r`` ready), objects on counters as o, t, d (dish) and s (soup)."""
        rows = [list(row) for row in self.grid]
        for (x, y), obj in state.objects:
            if obj[0] == "soup" and self.grid[y][x] == "P":
                rows[y][x] = "r" if self.engine.ready(obj) else "c" if obj[2] >= 0 else str(len(obj[1]))
            else:
                rows[y][x] = obj[0][0]
        for i, p in enumerate(state.players):
            rows[p[1]][p[0]] = str(i + 1)
        held = ", ".join(f"{self._agents[i]} holds {p[4][0] if p[4] else 'nothing'}" for i, p in enumerate(state.players))
        return "\n".join("".join(r) for r in rows) + f"\nt={state.t} score={sum(state.score)} {held}"
