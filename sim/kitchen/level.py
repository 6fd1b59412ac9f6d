"""Kitchen levels: our text format, gym-cooking's text format, and the normalized spec.

Both text formats become one normalized spec (a JSON-ready dict) that ``validate_kitchen``
checks and ``KitchenWorld`` builds from::

    {"world": "kitchen", "name": "pass-the-tomato", "title": "...", "description": "...",
     "category": "necessary" | "useful" | "not_needed" | None,
     "format": "kitchen" | "gym-cooking" | "json",
     "map": ["#######", "#-t-/-#", ...],           # MAP_CHARS, no agent digits
     "agents": [{"name": "alice", "goal": "SimpleTomato", "start": [row, col]}, ...],
     "t_max": 100, "collisions": "share" | "block", "rules": 1 | 2}

In team-orders mode (gym-cooking's rules) the spec also has ``"orders": ["SimpleTomato",
"Salad", ...]``, the recipes the team shares, and its agents have no ``goal``
(``{"name": "alice", "start": [row, col]}``). gym-cooking's files always load so.

``rules`` (docs/kitchen.md, "Rules versions"): 2, what the paper states (doors block vision,
cooks know nothing of other rooms at the start), is what every level file gets; a spec without
``rules`` (a recording written before rules 2) plays by rules 1.

Every problem is reported as one ``ScenarioError`` naming the file, the 1-based line and
column, and what was expected. See docs/kitchen.md for both formats.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sim.inputs import read_text
from sim.kitchen.overcooked import layout_name, looks_like_layout, parse_layout_text
from sim.registry import ScenarioError

RECIPES: tuple[str, ...] = ("SimpleTomato", "SimpleLettuce", "SimpleOnion")
#: the kitchen's rules versions: 1, doors see both rooms and cooks start knowing every station's
#: contents; 2, the paper's partial observability (doors block vision; nothing about other rooms
#: is known at the start). Level files get RULES; specs that name none are rules 1.
RULES_VERSIONS: tuple[int, ...] = (1, 2)
RULES = 2
#: the ingredient each recipe needs
RECIPE_INGREDIENT = {"SimpleTomato": "Tomato", "SimpleLettuce": "Lettuce", "SimpleOnion": "Onion"}
#: team-orders mode (gym-cooking's rules): every recipe of gym-cooking, with its ingredients (each
#: chopped, all on one plate)
ORDER_RECIPES: tuple[str, ...] = (*RECIPES, "Salad", "OnionSalad")
ORDER_INGREDIENTS: dict[str, tuple[str, ...]] = {
    **{r: (i,) for r, i in RECIPE_INGREDIENT.items()},
    "Salad": ("Tomato", "Lettuce"), "OnionSalad": ("Tomato", "Lettuce", "Onion")}
#: ``--cooks`` of gym-cooking's levels: at most, and by default
MAX_COOKS, DEFAULT_COOKS = 4, 2
CATEGORIES = ("not_needed", "useful", "necessary")
COLLISIONS = ("share", "block")
T_MAX = 100
#: most rows and most columns of a map (as in Doors, Keys and Gems)
MAX_MAP_SIDE = 100
DEFAULT_AGENT_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan")

#: map characters of the normalized spec (and of our text format, plus agent digits 1-9)
MAP_CHARS: dict[str, str] = {
    ".": "floor",
    "D": "door",
    "#": "wall",
    "-": "counter",
    "/": "cutting board",
    "*": "delivery station",
    "t": "counter holding a FreshTomato",
    "l": "counter holding a FreshLettuce",
    "o": "counter holding a FreshOnion",
    "p": "counter holding a Plate",
    "T": "counter holding a ChoppedTomato",
    "L": "counter holding a ChoppedLettuce",
    "O": "counter holding a ChoppedOnion",
}
WALKABLE_CHARS = ".D"
#: gym-cooking grid characters and ours for each (a blank is floor)
GYM_COOKING_CHARS = {" ": ".", "-": "-", "/": "/", "*": "*", "t": "t", "l": "l", "o": "o", "p": "p"}

_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")


def _where(source: str, line: int, column: int | None = None) -> str:
    col = f", column {column}" if column is not None else ""
    return f"{source}: line {line}{col} (1-based)"


def _fail(source: str, line: int, column: int | None, what: str) -> ScenarioError:
    return ScenarioError(f"{_where(source, line, column)}: {what}")


def _stem(path: Path, suffix: str) -> str:
    """The level's name from its file name: without ``suffix`` (or the last suffix), lowercased,
    other characters than letters, digits, '-' and '_' made '-', at most 32."""
    name = path.name
    stem = name[: -len(suffix)] if name.endswith(suffix) else path.stem
    return re.sub(r"[^a-z0-9_-]", "-", stem.lower())[:32] or "level"


# --------------------------------------------------------------------------- our format

def parse_kitchen_text(text: str, source: str, name: str) -> dict[str, Any]:
    """Our level format: ``key: value`` header lines, then ``map:`` and the grid."""
    lines = text.splitlines()
    header: dict[str, tuple[str, int, int]] = {}
    agents: list[tuple[str, str, int, int]] = []  # name, recipe ("" in orders mode), line, column of the recipe
    map_start = None
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped == "map:":
            map_start = number
            break
        if stripped.startswith("agent ") and ":" not in raw:  # a cook of a level with orders
            raw = raw.rstrip() + ":"
        key, colon, value = raw.partition(":")
        if not colon:
            raise _fail(source, number, 1, "expected a header line 'key: value' or 'map:' "
                                           f"before the grid, got {raw.strip()!r}")
        key = key.strip()
        value_col = raw.index(":") + 2 + len(value) - len(value.lstrip())  # 1-based column of the value
        value = value.strip()
        if key.startswith("agent "):
            agent = key[len("agent "):].strip()
            if not _NAME.match(agent):
                raise _fail(source, number, raw.index(agent) + 1 if agent else 7,
                            f"expected an agent name of lowercase letters, digits, '-' or '_', got {agent!r}")
            if any(a[0] == agent for a in agents):
                raise _fail(source, number, 1, f"agent {agent!r} is declared twice")
            if value and value not in RECIPES:
                raise _fail(source, number, value_col,
                            f"expected a recipe ({', '.join(RECIPES)}) for agent {agent!r}, got {value!r}")
            agents.append((agent, value, number, value_col))
            continue
        if key not in ("name", "title", "description", "category", "t_max", "collisions", "rules", "orders"):
            raise _fail(source, number, 1, f"unknown header key {key!r}; expected one of name, title, "
                                           "description, category, t_max, collisions, rules, orders, "
                                           "'agent <name>', or 'map:'")
        if key in header:
            raise _fail(source, number, 1, f"header key {key!r} appears twice (first on line {header[key][1]})")
        header[key] = (value, number, value_col)
    if map_start is None:
        raise _fail(source, max(len(lines), 1), None, "expected a line 'map:' followed by the grid")
    if not agents:
        raise _fail(source, map_start, 1, "expected at least one 'agent <name>: <recipe>' line before 'map:'")
    orders: list[str] = []
    if "orders" in header:  # team-orders mode: the cooks share these recipes and have none of their own
        text_, o_line, o_col = header["orders"]
        for item in text_.split(","):
            recipe = item.strip()
            if recipe not in ORDER_RECIPES:
                column = o_col + text_.index(item) + len(item) - len(item.lstrip())
                raise _fail(source, o_line, column, f"expected orders: recipes separated by commas, each one of "
                                                    f"{', '.join(ORDER_RECIPES)}; got {recipe!r}")
            orders.append(recipe)
        for agent, recipe, line, column in agents:
            if recipe:
                raise _fail(source, line, column, f"agent {agent!r} has its own recipe {recipe!r}, but the level "
                                                  f"has orders (line {o_line}) that all cooks share; write "
                                                  f"'agent {agent}' without a recipe, or drop 'orders:'")
    else:
        for agent, recipe, line, column in agents:
            if not recipe:
                raise _fail(source, line, column, f"expected a recipe ({', '.join(RECIPES)}) for agent "
                                                  f"{agent!r}, or an 'orders:' line the cooks share")

    # The grid: every line after 'map:' up to trailing blank lines.
    rows_with_lines = [(n, line.rstrip("\r")) for n, line in enumerate(lines[map_start:], start=map_start + 1)]
    while rows_with_lines and not rows_with_lines[-1][1].strip():
        rows_with_lines.pop()
    if not rows_with_lines:
        raise _fail(source, map_start, None, "expected the grid after 'map:'")
    width = len(rows_with_lines[0][1])
    starts: dict[int, tuple[int, int, int, int]] = {}  # digit -> row, col, line, column
    grid: list[str] = []
    for r, (number, row) in enumerate(rows_with_lines):
        if not row.strip():
            raise _fail(source, number, 1, "blank line inside the grid; expected a row of the map")
        if len(row) != width:
            raise _fail(source, number, min(len(row), width) + 1,
                        f"expected every row to have {width} characters like the first (line "
                        f"{rows_with_lines[0][0]}), this one has {len(row)}")
        out = []
        for c, ch in enumerate(row):
            if ch.isdigit() and ch != "0":
                k = int(ch)
                if k > len(agents):
                    raise _fail(source, number, c + 1, f"agent start {ch!r} but only {len(agents)} agents are "
                                                       "declared (agent k starts at digit k)")
                if k in starts:
                    raise _fail(source, number, c + 1, f"agent start {ch!r} appears twice (also line "
                                                       f"{starts[k][2]}, column {starts[k][3]})")
                starts[k] = (r, c, number, c + 1)
                out.append(".")
            elif ch in MAP_CHARS:
                out.append(ch)
            else:
                raise _fail(source, number, c + 1,
                            f"unknown map character {ch!r}; expected one of "
                            + ", ".join(f"'{k}' {v}" for k, v in MAP_CHARS.items()) + ", or a digit 1-9 (agent start)")
        grid.append("".join(out))
    for k, (agent, _, line, _) in enumerate(agents, start=1):
        if k not in starts:
            raise _fail(source, line, 1, f"agent {agent!r} (number {k}) has no start cell: put the digit "
                                         f"{k} on a floor cell of the map")

    def header_value(key: str, default: Any) -> tuple[Any, int, int]:
        return header.get(key, (default, 0, 0))

    t_max_text, t_line, t_col = header_value("t_max", str(T_MAX))
    if not re.fullmatch(r"[0-9]{1,5}", str(t_max_text)) or int(t_max_text) < 1:
        raise _fail(source, t_line, t_col, f"expected t_max to be a whole number of ticks >= 1, got {t_max_text!r}")
    category, c_line, c_col = header_value("category", None)
    if category is not None and category not in CATEGORIES:
        raise _fail(source, c_line, c_col, f"expected category to be one of {', '.join(CATEGORIES)}, got {category!r}")
    collisions, k_line, k_col = header_value("collisions", "share")
    if collisions not in COLLISIONS:
        raise _fail(source, k_line, k_col, f"expected collisions to be 'share' or 'block', got {collisions!r}")
    rules_text, r_line, r_col = header_value("rules", str(RULES))
    if rules_text not in tuple(str(v) for v in RULES_VERSIONS):
        raise _fail(source, r_line, r_col, f"expected rules to be one of {', '.join(map(str, RULES_VERSIONS))}, "
                                           f"got {rules_text!r}")
    level_name, n_line, n_col = header_value("name", name)
    if not _NAME.match(level_name):
        raise _fail(source, n_line, n_col, "expected a name of lowercase letters, digits, '-' or '_' "
                                           f"(at most 32), got {level_name!r}")
    spec = {
        "world": "kitchen",
        "name": level_name,
        "title": header_value("title", level_name)[0],
        "description": header_value("description", "")[0],
        "category": category,
        "format": "kitchen",
        "map": grid,
        "agents": [{"name": a, "goal": g, "start": [starts[k][0], starts[k][1]]} if not orders
                   else {"name": a, "start": [starts[k][0], starts[k][1]]}
                   for k, (a, g, _, _) in enumerate(agents, start=1)],
        "t_max": int(t_max_text),
        "collisions": collisions,
        "rules": int(rules_text),
    }
    if orders:
        spec["orders"] = orders
    # Checks that need the whole level, reported at the place that caused them.
    _check_layout(spec,
                  cell_at=lambda r, c: _where(source, rows_with_lines[r][0], c + 1),
                  agent_at=lambda i: _where(source, agents[i][2], 1),
                  orders_at=lambda: _where(source, header["orders"][1], header["orders"][2]) if "orders" in header else "")
    return spec


def read_kitchen_file(path: Path) -> dict[str, Any]:
    """Reader of ``*.kitchen.txt`` files (our format)."""
    return parse_kitchen_text(_read_text(path), str(path), _stem(path, ".kitchen.txt"))


# ------------------------------------------------------------------ gym-cooking's format

def parse_gym_cooking_text(text: str, source: str, name: str, cooks: int | None = None) -> dict[str, Any]:
    """gym-cooking's level format (Wu et al. 2021): the grid, a blank line, recipe names one a
    line, a blank line, agent starts ``x y`` (column, row; 0-based) one a line.

    As in gym-cooking, each blank line starts the next section, and the level plays by its rules
    (team-orders mode): the recipes are orders the cooks share. ``cooks`` (gym-cooking's
    ``--num-agents``, 1-4, default 2) cooks start on the first start lines; the others are
    ignored as gym-cooking does."""
    cooks = DEFAULT_COOKS if cooks is None else cooks
    if isinstance(cooks, bool) or not isinstance(cooks, int) or not 1 <= cooks <= MAX_COOKS:
        raise ScenarioError(f"{source}: --cooks: expected a number of cooks from 1 to {MAX_COOKS}, got {cooks!r}")
    lines = text.splitlines()
    section = 1
    grid_lines: list[tuple[int, str]] = []
    recipe_lines: list[tuple[int, str]] = []
    start_lines: list[tuple[int, str]] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if line == "":
            section += 1
        elif section == 1:
            grid_lines.append((number, line))
        elif section == 2:
            recipe_lines.append((number, line))
        elif section == 3:
            start_lines.append((number, line))
        else:
            raise _fail(source, number, 1, "unexpected text after the agent start positions; a gym-cooking "
                                           "level ends with them (a second blank line ends the file)")
    if not grid_lines:
        raise _fail(source, 1, 1, "expected the kitchen grid on the first lines (gym-cooking format)")
    if not recipe_lines:
        raise _fail(source, grid_lines[-1][0] + 1, None,
                    "expected a blank line and then recipe names (one a line) after the grid")
    if not start_lines:
        raise _fail(source, recipe_lines[-1][0] + 1, None,
                    "expected a blank line and then agent start positions 'x y' (one a line) after the recipes")

    width = max(len(line) for _, line in grid_lines)
    grid: list[str] = []
    for number, line in grid_lines:
        out = []
        for c, ch in enumerate(line.ljust(width)):  # editors trim trailing blanks: they are floor
            if ch not in GYM_COOKING_CHARS:
                raise _fail(source, number, c + 1,
                            f"unknown gym-cooking grid character {ch!r}; expected '-' counter, '/' cutting "
                            "board, '*' delivery, 't' 'l' 'o' 'p' tomato, lettuce, onion, plate on a counter, "
                            "or a blank (floor)")
            out.append(GYM_COOKING_CHARS[ch])
        grid.append("".join(out))

    orders: list[tuple[str, int]] = []
    for number, line in recipe_lines:
        recipe = line.strip()
        column = line.index(recipe) + 1 if recipe else 1
        if recipe not in ORDER_RECIPES:
            raise _fail(source, number, column, f"expected a recipe name ({', '.join(ORDER_RECIPES)}), got {recipe!r}")
        orders.append((recipe, number))
    if len(start_lines) < cooks:
        raise _fail(source, start_lines[-1][0] + 1, None,
                    f"{cooks} cooks (--cooks) but the level has {len(start_lines)} agent start "
                    f"line{'s' if len(start_lines) != 1 else ''}; expected --cooks {len(start_lines)} or fewer")
    agents = []
    agent_lines: list[tuple[int, int]] = []
    for i in range(cooks):
        number, line = start_lines[i]
        match = re.fullmatch(r"\s*([0-9]+) ([0-9]+)\s*", line)
        if not match:
            raise _fail(source, number, 1, f"expected an agent start 'x y' (column and row, 0-based, one "
                                           f"space between), got {line!r}")
        x, y = int(match.group(1)), int(match.group(2))
        if not (0 <= y < len(grid) and 0 <= x < width):
            raise _fail(source, number, 1, f"start ({x}, {y}) is outside the {width}x{len(grid)} grid "
                                           "(x is the column, y the row, both from 0)")
        if grid[y][x] != ".":
            raise _fail(source, number, 1, f"start ({x}, {y}) is on a {MAP_CHARS[grid[y][x]]}, "
                                           f"expected a floor cell (the grid at line {grid_lines[y][0]}, "
                                           f"column {x + 1})")
        agents.append({"name": DEFAULT_AGENT_NAMES[i], "start": [y, x]})
        agent_lines.append((number, 1))
    spec = {
        "world": "kitchen",
        "name": name,
        "title": name,
        "description": "a level in gym-cooking's text format, played by its rules (shared orders)",
        "category": None,
        "format": "gym-cooking",
        "map": grid,
        "agents": agents,
        "orders": [r for r, _ in orders],
        "t_max": T_MAX,
        # gym-cooking's own rule: agents never share a cell or swap places
        "collisions": "block",
        "rules": RULES,
    }
    _check_layout(spec,
                  cell_at=lambda r, c: _where(source, grid_lines[r][0], c + 1),
                  agent_at=lambda i: _where(source, *agent_lines[i]),
                  orders_at=lambda: _where(source, recipe_lines[0][0], 1))
    return spec


def read_gym_cooking_file(path: Path, cooks: int | None = None) -> dict[str, Any]:
    """Reader of ``*.gym-cooking.txt`` files (gym-cooking's format, unchanged); ``cooks``: how
    many cooks play (``--cooks``, default 2)."""
    return parse_gym_cooking_text(_read_text(path), str(path), _stem(path, ".gym-cooking.txt"), cooks)


def recognise_level(text: str) -> str | None:
    """The level format of a text by its content: ``overcooked-ai`` (a ``.layout``'s Python
    literal), ``kitchen`` (ours: a ``map:`` line),
    ``gym-cooking`` (its first lines, up to the first blank one, are a grid of gym-cooking's
    characters with at least one station), or None (neither)."""
    if looks_like_layout(text):
        return "overcooked-ai"
    lines = [line.rstrip("\r") for line in text.splitlines()]
    if any(line.strip() == "map:" for line in lines):
        return "kitchen"
    grid = []
    for line in lines:
        if line == "":
            break
        grid.append(line)
    chars = set("".join(grid))
    if grid and chars <= set(GYM_COOKING_CHARS) and chars - {" "}:
        return "gym-cooking"
    return None


def load_level_text(path: str | Path, cooks: int | None = None) -> dict[str, Any]:
    """Any of the kitchen's level formats from any file name, recognised by its content
    (``recognise_level``); a text none of them has is read as ours, whose errors say what is
    wrong. ``cooks``: for gym-cooking's levels (``--cooks``)."""
    path = Path(path)
    text = _read_text(path)
    fmt = recognise_level(text)
    if fmt == "overcooked-ai":  # overcooked_ai's .layout, played under its own rules
        return parse_layout_text(text, str(path), layout_name(path))
    stem = _stem(path, ".kitchen.txt" if path.name.endswith(".kitchen.txt") else
                 ".gym-cooking.txt" if path.name.endswith(".gym-cooking.txt") else path.suffix)
    if fmt == "gym-cooking":
        return parse_gym_cooking_text(text, str(path), stem, cooks)
    return parse_kitchen_text(text, str(path), stem)


def _read_text(path: Path) -> str:
    """The level's text: at most MAX_TEXT_BYTES (checked before reading it whole), UTF-8."""
    return read_text(path, ScenarioError, kind="kitchen level")


# ------------------------------------------------------------------------ the spec itself

def _check_layout(spec: Mapping[str, Any], cell_at: Callable[[int, int], str],
                  agent_at: Callable[[int], str], orders_at: Callable[[], str] | None = None) -> None:
    """Level-wide checks; ``cell_at(r, c)``, ``agent_at(i)`` and ``orders_at()`` say where to
    point the reader."""
    grid = spec["map"]
    height, width = len(grid), len(grid[0])
    if height > MAX_MAP_SIDE or width > MAX_MAP_SIDE:
        r, c = min(height, MAX_MAP_SIDE + 1) - 1, min(width, MAX_MAP_SIDE + 1) - 1
        raise ScenarioError(f"{cell_at(r, c)}: the map is {height} rows by {width} columns; expected at most "
                            f"{MAX_MAP_SIDE} of each (docs/limits.md)")

    def walkable(r: int, c: int) -> bool:
        return 0 <= r < height and 0 <= c < width and grid[r][c] in WALKABLE_CHARS

    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch == "D":
                if not ((walkable(r - 1, c) and walkable(r + 1, c)) or (walkable(r, c - 1) and walkable(r, c + 1))):
                    raise ScenarioError(f"{cell_at(r, c)}: a door must join two walkable cells on opposite "
                                        "sides (left and right, or above and below)")
    occupied: dict[tuple[int, int], int] = {}
    for i, agent in enumerate(spec["agents"]):
        r, c = agent["start"]
        if (r, c) in occupied and spec["collisions"] == "block":
            raise ScenarioError(f"{agent_at(i)}: agent {agent['name']!r} starts on the cell of agent "
                                f"{spec['agents'][occupied[(r, c)]]['name']!r}; with collisions "
                                "'block' agents cannot share a cell")
        occupied[(r, c)] = i
    chars = "".join(grid)
    for needed, what in (("/", "cutting board '/'"), ("*", "delivery station '*'")):
        if needed not in chars:
            raise ScenarioError(f"{cell_at(0, 0)}: the kitchen has no {what}; every recipe needs one")
    orders = spec.get("orders")
    if orders:  # team-orders mode: the map holds every order's ingredients and a plate per order
        where = orders_at() if orders_at is not None else cell_at(0, 0)
        for ingredient in ("Tomato", "Lettuce", "Onion"):
            need = sum(ingredient in ORDER_INGREDIENTS[r] for r in orders)
            have = chars.count(ingredient[0].lower()) + chars.count(ingredient[0])
            if have < need:
                raise ScenarioError(f"{where}: the orders need {need} {ingredient} but the map holds {have} "
                                    "(fresh or chopped); each dish needs its own")
        if chars.count("p") < len(orders):
            raise ScenarioError(f"{where}: {len(orders)} orders need {len(orders)} plates 'p', the map has "
                                f"{chars.count('p')}")
        return
    wanted: dict[str, list[int]] = {}
    for i, agent in enumerate(spec["agents"]):
        wanted.setdefault(agent["goal"], []).append(i)
    for recipe, who in wanted.items():
        ingredient = RECIPE_INGREDIENT[recipe]
        have = chars.count(ingredient[0].lower()) + chars.count(ingredient[0])
        if have < len(who):
            names = " and ".join(spec["agents"][i]["name"] for i in who)
            raise ScenarioError(f"{agent_at(who[-1])}: {names} want{'s' if len(who) == 1 else ''} {recipe} "
                                f"but the map holds {have} {ingredient} (fresh or chopped); each dish needs its own")
    if chars.count("p") < len(spec["agents"]):
        raise ScenarioError(f"{agent_at(len(spec['agents']) - 1)}: "
                            f"{len(spec['agents'])} agents need {len(spec['agents'])} plates 'p', the map has {chars.count('p')}")


def validate_kitchen(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Check a kitchen spec (from a text reader or a JSON file); return the normalized spec.
    JSON files are reported by field and map row/column (1-based)."""
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: expected an object")
    if data.get("rules") == "overcooked":  # overcooked_ai's layouts under its own rules
        from sim.kitchen.overcooked import validate_overcooked
        return validate_overcooked(data, source)

    def need(field: str, kind: type | tuple[type, ...], what: str) -> Any:
        if field not in data or not isinstance(data[field], kind) or isinstance(data[field], bool):
            raise ScenarioError(f"{source}: field {field!r}: expected {what}, got {data.get(field)!r}")
        return data[field]

    name = need("name", str, "a name of lowercase letters, digits, '-' or '_'")
    if not _NAME.match(name):
        raise ScenarioError(f"{source}: field 'name': expected lowercase letters, digits, '-' or '_' "
                            f"(at most 32), got {name!r}")
    grid = need("map", list, "a list of equal-length strings")
    if not grid or not all(isinstance(row, str) for row in grid):
        raise ScenarioError(f"{source}: field 'map': expected a non-empty list of strings")
    width = len(grid[0])
    for r, row in enumerate(grid):
        if len(row) != width or not row:
            raise ScenarioError(f"{source}: field 'map', row {r + 1} (1-based): expected {width} characters "
                                f"like row 1, got {len(row)}")
        for c, ch in enumerate(row):
            if ch not in MAP_CHARS:
                raise ScenarioError(f"{source}: field 'map', row {r + 1}, column {c + 1} (1-based): unknown "
                                    f"character {ch!r}; expected one of {''.join(MAP_CHARS)}")
    orders = data.get("orders")
    if orders is not None:  # team-orders mode (gym-cooking's rules)
        if (not isinstance(orders, list) or not orders
                or not all(isinstance(r, str) and r in ORDER_RECIPES for r in orders)):
            raise ScenarioError(f"{source}: field 'orders': expected a non-empty list of recipes, each one of "
                                f"{', '.join(ORDER_RECIPES)}, got {orders!r:.200}")
    keys = {"name", "start"} if orders is not None else {"name", "goal", "start"}
    agents = need("agents", list, "a list of {name, start: [row, col]}" if orders is not None
                  else "a list of {name, goal, start: [row, col]}")
    if not agents:
        raise ScenarioError(f"{source}: field 'agents': expected at least one agent")
    seen: set[str] = set()
    for i, agent in enumerate(agents):
        where = f"{source}: field 'agents', entry {i + 1} (1-based)"
        if not isinstance(agent, dict) or set(agent) != keys:
            raise ScenarioError(f"{where}: expected exactly the keys {', '.join(sorted(keys, key=['name', 'goal', 'start'].index))}"
                                + (" (with 'orders' the cooks share the orders and have no goal of their own)"
                                   if orders is not None else ""))
        if not isinstance(agent["name"], str) or not _NAME.match(agent["name"]) or agent["name"] in seen:
            raise ScenarioError(f"{where}: expected a new agent name of lowercase letters, got {agent['name']!r}")
        seen.add(agent["name"])
        if orders is None and agent["goal"] not in RECIPES:
            raise ScenarioError(f"{where}: goal: expected one of {', '.join(RECIPES)}, got {agent['goal']!r}")
        start = agent["start"]
        if (not isinstance(start, (list, tuple)) or len(start) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in start)):
            raise ScenarioError(f"{where}: start: expected [row, column] (0-based), got {start!r}")
        r, c = start
        if not (0 <= r < len(grid) and 0 <= c < width) or grid[r][c] not in WALKABLE_CHARS:
            raise ScenarioError(f"{where}: start {list(start)}: expected a floor or door cell inside the map")
    t_max = data.get("t_max", T_MAX)
    if not isinstance(t_max, int) or isinstance(t_max, bool) or t_max < 1:
        raise ScenarioError(f"{source}: field 't_max': expected a whole number >= 1, got {t_max!r}")
    collisions = data.get("collisions", "share")
    if collisions not in COLLISIONS:
        raise ScenarioError(f"{source}: field 'collisions': expected 'share' or 'block', got {collisions!r}")
    rules = data.get("rules", 1)  # a spec from before rules 2 (an older recording) names none
    if rules not in RULES_VERSIONS or isinstance(rules, bool):
        raise ScenarioError(f"{source}: field 'rules': expected one of {', '.join(map(str, RULES_VERSIONS))}, "
                            f"got {rules!r}")
    category = data.get("category")
    if category is not None and category not in CATEGORIES:
        raise ScenarioError(f"{source}: field 'category': expected one of {', '.join(CATEGORIES)}, got {category!r}")
    spec = {
        "world": "kitchen",
        "name": name,
        "title": str(data.get("title") or name),
        "description": str(data.get("description") or ""),
        "category": category,
        "format": data.get("format", "json"),
        "map": list(grid),
        "agents": [{"name": a["name"], "goal": a["goal"], "start": [int(a["start"][0]), int(a["start"][1])]}
                   if orders is None else {"name": a["name"], "start": [int(a["start"][0]), int(a["start"][1])]}
                   for a in agents],
        "t_max": t_max,
        "collisions": collisions,
        "rules": rules,
    }
    if orders is not None:
        spec["orders"] = list(orders)
    if spec["format"] == "json":  # the text readers checked their levels already, with lines
        _check_layout(spec,
                      cell_at=lambda r, c: f"{source}: field 'map', row {r + 1}, column {c + 1} (1-based)",
                      agent_at=lambda i: f"{source}: field 'agents', entry {i + 1} (1-based)",
                      orders_at=lambda: f"{source}: field 'orders'")
    return spec


def spec_text(spec: Mapping[str, Any]) -> str:
    """A spec written back in our text format (for exporting gym-cooking or JSON levels), with
    or without orders."""
    out = [f"name: {spec['name']}", f"title: {spec['title']}"]
    if spec.get("description"):
        out.append(f"description: {spec['description']}")
    if spec.get("category"):
        out.append(f"category: {spec['category']}")
    out += [f"t_max: {spec['t_max']}", f"collisions: {spec['collisions']}", f"rules: {spec.get('rules', 1)}"]
    if spec.get("orders"):  # team-orders mode: the cooks have no recipe of their own
        out.append(f"orders: {', '.join(spec['orders'])}")
        out += [f"agent {a['name']}" for a in spec["agents"]]
    else:
        out += [f"agent {a['name']}: {a['goal']}" for a in spec["agents"]]
    rows = [list(row) for row in spec["map"]]
    for k, agent in enumerate(spec["agents"], start=1):
        r, c = agent["start"]
        if rows[r][c] == ".":
            rows[r][c] = str(k)
    out.append("map:")
    out += ["".join(row) for row in rows]
    return "\n".join(out) + "\n"
