"""The scenario file format of Doors, Keys and Gems, and its validation.

A scenario is a JSON file::

    {
      "world": "dkg",
      "name": "two-rooms",
      "title": "Two rooms",
      "description": "Bob holds the only key to Alice's room.",
      "category": "necessary",              # optional: not_needed | useful | necessary
      "map": ["########",
              "#1.r#*.#",
              "#..2R.+#",
              "########"],
      "legend": {"#": "wall", ".": "floor",
                 "r": {"key": "red"}, "R": {"door": "red"},
                 "*": {"gem": "blue"}, "+": {"gem": "green"},
                 "1": {"agent": "alice"}, "2": {"agent": "bob"}},
      "goals": {"alice": "gem1", "bob": "gem2"},
      "options": {"t_max": 80, "turn_order": ["alice", "bob"], "handover": "adjacent"}
    }

Keys, doors and gems are numbered in reading order (row by row, left to right):
``key1, key2, ...``, ``door1, ...``, ``gem1, ...``; goals name gems by those ids.
An agent left out of ``goals`` is a helper without a gem of its own; at least one agent
needs a goal. Agents start on the floor. Turn order defaults to the order of the legend's
agents. Map rows and columns in messages count from 0 (the top-left cell is row 0, column 0).
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sim.inputs import check_tree, field_path, validate_model
from sim.questions import QUESTIONS_FIELD, json_schema as questions_schema
from sim.registry import START_FIELD, ScenarioError, StartModel

COLORS = ("red", "blue", "yellow", "green", "purple", "orange", "pink", "cyan")
CATEGORIES = ("not_needed", "useful", "necessary")
NAME_RE = r"^[a-z0-9][a-z0-9_-]*$"

# Documented in docs/limits.md. A 100 x 100 map loads in well under a second; the planners'
# distance maps grow with the square of the cell count, so larger maps are refused.
MAX_MAP_SIDE = 100
MAX_AGENTS = 8
MAX_ITEMS = 200  # keys, doors and gems together
MAX_NAME = 64  # scenario and agent names become file names
MAX_TITLE = 200
MAX_DESCRIPTION = 4000
FROM_0 = "(counting from 0)"  # every map position in a message counts rows and columns from 0


class Options(BaseModel):
    # strict: true is not 1 and "80" is not 80
    model_config = ConfigDict(extra="forbid", strict=True)
    t_max: int = Field(80, ge=1, le=100_000, description="episode length limit in ticks (one action = one tick)")
    turn_order: list[str] | None = Field(None, min_length=1, max_length=MAX_AGENTS,
                                         description="agents in the order they act; defaults to legend order")
    handover: Literal["adjacent", "same_cell_or_adjacent"] = Field(
        "adjacent", description="where a handover may happen: between agents on neighbouring cells (the "
                                "paper's and the reference domain's rule), or also on the same cell (the rule "
                                "of recordings written before this option)")
    forbidden: dict[str, list[str]] | None = Field(
        None, description="agent -> key and gem ids it may not pick up, hand over or be handed (the reference "
                          "domain's (forbidden AGENT ITEM) facts; its robot may not take gems)")


class DKGScenario(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    world: Literal["dkg"]
    name: str = Field(pattern=NAME_RE, max_length=MAX_NAME)
    title: str = Field("", max_length=MAX_TITLE)
    description: str = Field("", max_length=MAX_DESCRIPTION)
    category: Literal["not_needed", "useful", "necessary"] | None = None
    map: list[str] = Field(min_length=1, max_length=MAX_MAP_SIDE)
    legend: dict[str, Any]
    goals: dict[str, str] = Field(description="agent -> gem id; agents left out are helpers without a gem of their own")
    options: Options = Options()

    @field_validator("legend")
    @classmethod
    def _legend(cls, legend: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for char, entry in legend.items():
            if len(char) != 1:
                raise ValueError(f"key {char!r}: legend keys must be single characters")
            out[char] = parse_legend_entry(char, entry)
        return out


def parse_legend_entry(char: str, entry: Any) -> dict[str, str]:
    """Normalize a legend value to {"kind": ..., "color"/"agent": ...}."""
    expected = ("'wall', 'floor', or an object with one of the fields "
                "key/door/gem/plate (a colour) or agent (a name)")
    if entry in ("wall", "floor"):
        return {"kind": entry}
    if not isinstance(entry, dict) or len(entry) != 1:
        raise ValueError(f"entry {char!r}: expected {expected}, got {entry!r}")
    (kind, value), = entry.items()
    if kind in ("key", "door", "gem", "plate"):
        if value not in COLORS:
            raise ValueError(f"entry {char!r}: {kind} colour must be one of {', '.join(COLORS)}, got {value!r}")
        return {"kind": kind, "color": value}
    if kind == "agent":
        if not isinstance(value, str) or not re.fullmatch(NAME_RE[1:-1], value) or len(value) > MAX_NAME:
            raise ValueError(f"entry {char!r}: agent name must be lowercase letters, digits, '-' or '_', got {value!r}")
        return {"kind": "agent", "agent": value}
    raise ValueError(f"entry {char!r}: expected {expected}, got {entry!r}")


def validate_dkg(data: dict[str, Any], source: str, *, require_reachable: bool = True) -> dict[str, Any]:
    """Validate raw scenario data; return a normalized spec or raise one ScenarioError.

    Scenario files must give every agent a goal it could ever reach; ``require_reachable=False``
    skips that check, for worlds built on purpose to be hopeless (planner tests, teaching)."""
    check_tree(data, source, ScenarioError)  # lone surrogates, NaN, non-text keys, deep nesting
    sc = validate_model(DKGScenario, data, source, ScenarioError)

    def fail(where: str, what: str) -> None:
        raise ScenarioError(f"{source}: {where}: {what}")

    width = len(sc.map[0])
    if width == 0:
        fail("field 'map'", "rows must not be empty")
    if width > MAX_MAP_SIDE:
        fail(f"map row 0 {FROM_0}", f"has {width} cells; expected at most {MAX_MAP_SIDE} columns (docs/limits.md)")
    for r, row in enumerate(sc.map):
        if len(row) != width:
            fail(f"map row {r} {FROM_0}", f"has {len(row)} cells, expected {width} like row 0")
        for c, ch in enumerate(row):
            if ch not in sc.legend:
                fail(f"map row {r}, column {c} {FROM_0}",
                     f"character {ch!r} is not in the legend (legend has {' '.join(sorted(sc.legend))})")

    agents_in_legend = [e["agent"] for e in sc.legend.values() if e["kind"] == "agent"]
    for agent in dict.fromkeys(agents_in_legend):
        chars = [ch for ch, e in sc.legend.items() if e.get("agent") == agent]
        if len(chars) > 1:
            fail("field 'legend'", f"agent {agent!r} has the characters {', '.join(map(repr, chars))}; "
                 "expected exactly one character per agent")
    starts: dict[str, tuple[int, int]] = {}
    for r, row in enumerate(sc.map):
        for c, ch in enumerate(row):
            entry = sc.legend[ch]
            if entry["kind"] == "agent":
                if entry["agent"] in starts:
                    fail(f"map row {r}, column {c} {FROM_0}", f"agent {entry['agent']!r} appears a second time "
                         f"(first at row {starts[entry['agent']][0]}, column {starts[entry['agent']][1]}); "
                         "expected each agent once on the map")
                starts[entry["agent"]] = (r, c)
    missing = [a for a in agents_in_legend if a not in starts]
    if missing:
        fail("field 'map'", f"agent {missing[0]!r} is in the legend but not on the map")
    if not starts:
        fail("field 'map'", "no agent on the map; expected one or more (a character whose legend entry is "
             "{\"agent\": name})")
    if len(starts) > MAX_AGENTS:
        fail("field 'map'", f"{len(starts)} agents; expected at most {MAX_AGENTS} (docs/limits.md)")
    items = sum(sc.legend[ch]["kind"] in ("key", "door", "gem") for row in sc.map for ch in row)
    if items > MAX_ITEMS:
        fail("field 'map'", f"{items} keys, doors and gems; expected at most {MAX_ITEMS} (docs/limits.md)")

    order = agents_in_legend if sc.options.turn_order is None else sc.options.turn_order
    if sorted(order) != sorted(starts):
        fail("field 'options.turn_order'", f"expected each of {sorted(starts)} exactly once, got {order}")

    gems = [f"gem{i + 1}" for i in range(sum(sc.legend[ch]["kind"] == "gem" for row in sc.map for ch in row))]
    if not sc.goals:
        fail("field 'goals'", f"no agent has a goal; expected a gem ({', '.join(gems) or 'none on the map'}) for "
             "at least one agent (agents left out of 'goals' are helpers)")
    for agent, gem in sc.goals.items():
        if agent not in starts:
            fail(f"field '{field_path(('goals', agent))}'", f"{agent!r} is not an agent on the map (agents: {', '.join(order)})")
        if gem not in gems:
            fail(f"field '{field_path(('goals', agent))}'", f"expected a gem id ({', '.join(gems) or 'no gems on the map'}), got {gem!r}")

    counts = {k: sum(sc.legend[ch]["kind"] == k for row in sc.map for ch in row) for k in ("key", "gem")}
    for agent, items in (sc.options.forbidden or {}).items():
        if agent not in starts:
            fail(f"field '{field_path(('options', 'forbidden', agent))}'",
                 f"{agent!r} is not an agent on the map (agents: {', '.join(order)})")
        for k, item in enumerate(items):
            m = re.fullmatch(r"(key|gem)([1-9]\d{0,3})", item)
            if m is None or int(m.group(2)) > counts[m.group(1)]:
                fail(f"field '{field_path(('options', 'forbidden', agent, k))}'",
                     f"expected a key or gem id of the map (key1..key{counts['key']}, gem1..gem{counts['gem']}), "
                     f"got {item!r}")
    for agent, gem in sc.goals.items():
        if gem in (sc.options.forbidden or {}).get(agent, []):
            fail(f"field '{field_path(('goals', agent))}'", f"{gem} is forbidden to {agent!r} (options.forbidden); "
                 "expected a goal the agent may pick up")

    wanted: dict[str, str] = {}
    for agent in (a for a in order if a in sc.goals):
        gem = sc.goals[agent]
        if gem in wanted:  # only one agent can hold a gem, so the episode could never succeed
            fail(f"field '{field_path(('goals', agent))}'", f"{gem} is already the goal of {wanted[gem]!r}; "
                 "expected a different gem for each agent")
        wanted[gem] = agent

    reachable = _reachable_cells(sc.map, sc.legend, list(starts.values())) if require_reachable else {}
    gem_cells = [(r, c) for r, row in enumerate(sc.map) for c, ch in enumerate(row) if sc.legend[ch]["kind"] == "gem"]
    for agent in (a for a in order if a in sc.goals) if require_reachable else ():
        gem = sc.goals[agent]
        r, c = gem_cells[int(gem.removeprefix("gem")) - 1]
        if (r, c) not in reachable[starts[agent]]:
            fail(f"field '{field_path(('goals', agent))}'",
                 f"{gem} (row {r}, column {c}) can never be reached by {agent!r}, even with every door "
                 "open: walls, and doors of colours no key or plate on the map has, shut it off from where "
                 f"{agent} starts (row {starts[agent][0]}, column {starts[agent][1]}; rows and columns count "
                 "from 0); "
                 "expected a gem the agent (or an agent who can reach it) can get to")

    spec = sc.model_dump()
    spec["options"]["turn_order"] = list(order)
    if spec["options"]["forbidden"] is None:  # specs without the option stay as they were
        del spec["options"]["forbidden"]
    return spec


def _reachable_cells(rows: list[str], legend: dict[str, dict[str, str]],
                     starts: list[tuple[int, int]]) -> dict[tuple[int, int], set[tuple[int, int]]]:
    """For each start, the cells an agent could ever reach under generous rules: walls and
    the edge block, a door blocks only when no key of its colour can ever be picked up (keys
    are taken as reusable and every agent as free to pass them on). A goal outside this set
    can never be reached; one inside may still be, so nothing winnable is refused.

    A plain breadth-first search over the grid, repeated while newly reachable keys open
    more colours (at most once per colour)."""
    height, width = len(rows), len(rows[0])

    def kind(r: int, c: int) -> dict[str, str]:
        return legend[rows[r][c]]

    open_colours: set[str] = set()
    while True:
        regions: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for start in starts:
            if start in regions:
                continue
            seen = {start}
            queue = deque([start])
            while queue:
                r, c = queue.popleft()
                for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= nr < height and 0 <= nc < width and (nr, nc) not in seen:
                        entry = kind(nr, nc)
                        if entry["kind"] == "wall" or (entry["kind"] == "door" and entry["color"] not in open_colours):
                            continue
                        seen.add((nr, nc))
                        queue.append((nr, nc))
            for cell in seen:
                if cell in starts:
                    regions[cell] = seen
        keys = {kind(r, c)["color"] for region in regions.values() for r, c in region
                if kind(r, c)["kind"] in ("key", "plate")}  # a plate door opens with agents on its plates
        if keys <= open_colours:
            return regions
        open_colours |= keys


def json_schema() -> dict[str, Any]:
    """The JSON Schema of scenario files, for editors (written to scenarios/dkg.schema.json)."""
    schema = DKGScenario.model_json_schema()
    # the field every world's files may have, read by the loader (sim.registry.read_scenario)
    start = StartModel.model_json_schema()
    start["description"] = ("the seats, mechanisms and task rounds the app starts this scenario with, as run --agents, "
                            "--mechanism and --rounds take them")
    schema["properties"][START_FIELD] = start
    questions = questions_schema()  # the teaching questions every world's files may have (sim/questions.py)
    schema.setdefault("$defs", {}).update(questions.pop("$defs"))
    schema["properties"][QUESTIONS_FIELD] = questions
    schema["properties"]["legend"]["description"] = (
        "single characters mapped to 'wall', 'floor', {'key': colour}, {'door': colour}, "
        "{'gem': colour}, {'plate': colour} (a door of its colour opens while agents stand on all its plates) "
        "or {'agent': name}; colours: " + ", ".join(COLORS))
    return schema
