"""Problems of the Doors-Keys-Gems planning projects, read as scenarios.

Two formats, as the reference projects (Plinf, CLIPS) publish them:

- **PDDL problems** of the multi-agent domain: ``(:objects ...)``, ``(:init ...)`` with the
  wall matrix (``(= (walls) (new-bit-matrix false H W))`` and ``(set-index walls true Y X)``
  facts, or ``(transpose (bit-mat (bit-vec ...) ...))``), ``(= (xloc O) X)`` /
  ``(= (yloc O) Y)`` positions (1-based, x = column, y = row), ``(iscolor O C)``,
  ``(locked D)``, ``(has A I)``, turn order by ``(active A)`` and ``(next-turn A B)`` or by
  ``(= (agentcode A) N)`` and ``(= (turn) N)``, and ``(:goal (has A G))`` (or an ``and`` of
  such facts, one gem per agent).
- **ASCII maps** (``.txt``): ``W`` wall, ``.`` empty, lowercase keys and uppercase doors
  (``r`` red, ``b`` blue, ``y`` yellow, ``e`` green, ``p`` pink), ``g`` a gem, ``G`` the
  human's goal gem, ``h`` the human, ``m`` the robot. Gems take the reference's colours by
  number (gem1 red, gem2 yellow, gem3 blue, gem4 green, then the other colours).

Agents without a goal in the problem are helpers (the reference's robot, which assists the
human). Facts this world has no rule for are reported, never dropped silently: ``forbidden``
(the robot may not take gems; a helper here never plans to) is a note, anything else an
error naming the file and line. Keys, doors and gems are renumbered in reading order as this
world numbers them; a note says when a name of the file means another object here.
Single-agent problems (``xpos``/``ypos``, ``s`` starts) are refused: this world needs two or
more agents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.dkg.scenario import COLORS, MAX_MAP_SIDE, NAME_RE
from sim.inputs import MAX_DEPTH, read_text
from sim.registry import ScenarioError

GEM_COLORS = ("red", "yellow", "blue", "green") + tuple(c for c in COLORS if c not in ("red", "yellow", "blue", "green"))
ASCII_KEYS = {"r": "red", "b": "blue", "y": "yellow", "e": "green", "p": "pink"}
ASCII_AGENTS = {"h": "human", "m": "robot"}
# characters of the written scenario (our legend), by kind and colour
KEY_CHAR = dict(zip(COLORS, "rbyeuocn"))  # red blue yellow grEen pUrple orange pink(c) cyaN
KEY_CHAR["pink"], KEY_CHAR["cyan"] = "p", "c"
DOOR_CHAR = {c: k.upper() for c, k in KEY_CHAR.items()}
GEM_CHAR = dict(zip(GEM_COLORS, "$+*%&@!?"))
AGENT_CHARS = "hmabdfgijk"


@dataclass
class Problem:
    """A problem read from a file: sizes, 0-based (row, column) positions, names as written."""

    source: str
    height: int = 0
    width: int = 0
    walls: set[tuple[int, int]] = field(default_factory=set)
    doors: dict[str, tuple[int, int]] = field(default_factory=dict)
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    gems: dict[str, tuple[int, int]] = field(default_factory=dict)
    agents: dict[str, tuple[int, int]] = field(default_factory=dict)
    colors: dict[str, str] = field(default_factory=dict)
    held: dict[str, str] = field(default_factory=dict)  # item -> agent
    unlocked: set[str] = field(default_factory=set)
    goals: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ s-expressions


def _tokens(text: str, source: str):
    """(token, line, column) for each token (comments skipped), 1-based."""
    line, start = 1, 0
    for m in re.finditer(r";[^\n]*|\(|\)|[^\s()]+|\n", text):
        tok = m.group()
        if tok == "\n":
            line, start = line + 1, m.end()
        elif not tok.startswith(";"):
            yield tok, line, m.start() - start + 1


def parse_sexpr(text: str, source: str) -> list:
    """Nested lists of (token, line) leaves; the error names the line of an unbalanced ')', or
    the line and column of a '(' nested deeper than MAX_DEPTH (the limit of JSON files)."""
    stack: list[list] = [[]]
    opened: list[int] = []
    for tok, line, column in _tokens(text, source):
        if tok == "(":
            if len(stack) > MAX_DEPTH:
                raise ScenarioError(f"{source}: line {line}, column {column}: '(' nested deeper than {MAX_DEPTH} "
                                    f"levels; expected at most {MAX_DEPTH} (docs/limits.md)")
            stack.append([])
            opened.append(line)
        elif tok == ")":
            if len(stack) == 1:
                raise ScenarioError(f"{source}: line {line}, column {column}: ')' closes nothing; expected as many "
                                    "'(' before it")
            done = stack.pop()
            stack[-1].append((done, opened.pop()))
        else:
            stack[-1].append((tok.lower(), line))
    if len(stack) > 1:
        raise ScenarioError(f"{source}: line {opened[-1]}: '(' is never closed; expected a ')' for it")
    return stack[0]


def _words(node) -> list[str]:
    """The words of a list node ("(...)" for a nested list); ["()"] for an empty one, so that
    the first word always exists."""
    return [v if isinstance(v, str) else "(...)" for v, _ in node] or ["()"]


def _show(node, limit: int = 80) -> str:
    """A node as written (shortened to ``limit`` characters: it goes into one-line messages)."""
    def text(n):
        v, _ = n
        return v if isinstance(v, str) else "(" + " ".join(text(c) for c in v) + ")"
    shown = text(node)
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


def _int(node, source: str) -> int:
    v, line = node
    while isinstance(v, list) and len(v) == 1:  # (4) as well as 4
        v, line = v[0]
    if isinstance(v, str) and re.fullmatch(r"-?\d{1,9}", v):
        return int(v)
    raise ScenarioError(f"{source}: line {line}: expected a whole number (at most 9 digits), got {_show(node)}")


def read_pddl(text: str, source: str) -> Problem:
    top = parse_sexpr(text, source)
    define = next((n for n in top if isinstance(n[0], list) and n[0] and n[0][0][0] == "define"), None)
    if define is None:
        raise ScenarioError(f"{source}: expected a PDDL problem '(define (problem ...) ...)'")
    pb = Problem(source)
    sections = {_words(n[0])[0]: n for n in define[0][1:] if isinstance(n[0], list) and n[0]}
    if ":domain" in sections:
        domain = _words(sections[":domain"][0])[1] if len(sections[":domain"][0]) > 1 else ""
        if domain != "doors-keys-gems":
            raise ScenarioError(f"{source}: line {sections[':domain'][1]}: domain {domain!r}; expected doors-keys-gems")
    if ":init" not in sections:
        raise ScenarioError(f"{source}: no (:init ...) section")
    types: dict[str, str] = {}
    if ":objects" in sections:
        names: list[str] = []
        words = _words(sections[":objects"][0])[1:]
        i = 0
        while i < len(words):
            w = words[i]
            if w == "-" and i + 1 < len(words):
                for n in names:
                    types[n] = words[i + 1]
                names, i = [], i + 2
            else:
                names.append(w)
                i += 1
    xs: dict[str, tuple[int, int]] = {}
    ys: dict[str, tuple[int, int]] = {}
    code: dict[str, int] = {}
    turn = None
    active: list[str] = []
    nxt: dict[str, str] = {}
    forbidden = 0
    for fact, line in sections[":init"][0][1:]:
        if not isinstance(fact, list) or not fact:
            raise ScenarioError(f"{source}: line {line}: expected a fact in parentheses, got {fact!r}")
        head = fact[0][0]
        where = f"{source}: line {line}"
        if head == "=" and len(fact) == 3:
            lhs, rhs = fact[1], fact[2]
            lhs_words = _words(lhs[0]) if isinstance(lhs[0], list) else [lhs[0]]
            if lhs_words[0] == "walls":
                _walls(pb, rhs, where, source)
            elif lhs_words[0] in ("xloc", "yloc") and len(lhs_words) == 2:
                (xs if lhs_words[0] == "xloc" else ys)[lhs_words[1]] = (_int(rhs, source), line)
            elif lhs_words[0] == "agentcode" and len(lhs_words) == 2:
                code[lhs_words[1]] = _int(rhs, source)
            elif lhs_words[0] == "turn":
                turn = _int(rhs, source)
            elif lhs_words[0] in ("xpos", "ypos"):
                raise ScenarioError(f"{where}: {_show((fact, line))} is a single-agent problem; this world needs "
                                    "two or more agents (the multi-agent problems give (xloc AGENT) and (yloc AGENT))")
            else:
                raise ScenarioError(f"{where}: {_show((fact, line))}: not a fact of the Doors-Keys-Gems problems "
                                    "this reads (walls, xloc, yloc, agentcode, turn)")
            continue
        words = _words(fact)
        if head == "iscolor" and len(words) == 3:
            if words[2] not in COLORS:
                raise ScenarioError(f"{where}: colour {words[2]!r} of {words[1]}; expected one of {', '.join(COLORS)}")
            pb.colors[words[1]] = words[2]
        elif head == "locked" and len(words) == 2:
            pass  # doors are locked unless said otherwise below
        elif head == "has" and len(words) == 3:
            pb.held[words[2]] = words[1]
        elif head == "active" and len(words) == 2:
            active.append(words[1])
        elif head == "next-turn" and len(words) == 3:
            nxt[words[1]] = words[2]
        elif head == "forbidden" and len(words) == 3:
            forbidden += 1
        elif head == "offgrid" and len(words) == 2:
            pass  # said of held items, which have no position
        else:
            raise ScenarioError(f"{where}: {_show((fact, line))}: not a fact of the Doors-Keys-Gems problems this "
                                "reads (iscolor, locked, has, active, next-turn, forbidden, offgrid, =)")
    if forbidden:
        pb.notes.append(f"{forbidden} (forbidden AGENT ITEM) facts not modelled: here any agent may pick up "
                        "anything (a helper never plans to take a gem)")
    if not pb.height:
        raise ScenarioError(f"{source}: no wall matrix in (:init ...); expected (= (walls) (new-bit-matrix false H W))")
    locked = {w[1] for w, _ in ((_words(f), l) for f, l in sections[":init"][0][1:]) if w and w[0] == "locked"}
    kinds = {"door": pb.doors, "key": pb.keys, "gem": pb.gems}
    for name in sorted(set(xs) | set(ys), key=lambda n: (xs.get(n, (0, 0))[1])):
        if name not in xs or name not in ys:
            line = (xs.get(name) or ys.get(name))[1]
            raise ScenarioError(f"{source}: line {line}: {name} has an {'x' if name in xs else 'y'}loc but no "
                                f"{'y' if name in xs else 'x'}loc")
        (x, line), (y, _) = xs[name], ys[name]
        kind = types.get(name) or re.sub(r"\d+$", "", name)
        if kind in ("agent", "human", "robot"):
            target = pb.agents
        elif kind in kinds:
            target = kinds[kind]
        else:
            raise ScenarioError(f"{source}: line {line}: {name} has a position but is neither a door, key, gem nor "
                                f"agent (its type: {kind!r})")
        if x == -1 and y == -1 and kind in ("key", "gem"):
            continue  # off the grid: held (a has fact says by whom)
        if not (1 <= y <= pb.height and 1 <= x <= pb.width):
            raise ScenarioError(f"{source}: line {line}: {name} at x {x}, y {y} lies outside the {pb.width} x "
                                f"{pb.height} grid (x and y count from 1)")
        target[name] = (y - 1, x - 1)
    for d in pb.doors:
        if d not in locked:
            pb.unlocked.add(d)
    for name in [*pb.doors, *pb.keys]:
        if name not in pb.colors:
            raise ScenarioError(f"{source}: {name} has no (iscolor {name} COLOUR) fact; doors and keys need a colour")
    for name, agent in pb.held.items():
        if agent not in pb.agents:
            raise ScenarioError(f"{source}: (has {agent} {name}): {agent!r} is not an agent with a position")
    # turn order
    agents = list(pb.agents)
    if code:
        pb.order = sorted(agents, key=lambda a: code.get(a, len(agents)))
        if turn is not None:
            first = next((a for a in pb.order if code.get(a) == turn), pb.order[0])
            k = pb.order.index(first)
            pb.order = pb.order[k:] + pb.order[:k]
    elif active:
        order = [active[0]]
        while nxt.get(order[-1]) not in (None, order[0]) and len(order) <= len(agents):
            order.append(nxt[order[-1]])
        pb.order = order + [a for a in agents if a not in order]
    else:
        pb.order = agents
    # goals
    if ":goal" in sections:
        if len(sections[":goal"][0]) != 2:
            raise ScenarioError(f"{source}: line {sections[':goal'][1]}: (:goal ...) holds "
                                f"{len(sections[':goal'][0]) - 1} parts; expected one: (has AGENT GEM) or (and ...)")
        goal = sections[":goal"][0][1]
        facts = goal[0][1:] if isinstance(goal[0], list) and goal[0] and goal[0][0][0] == "and" else [goal]
        for fact, line in facts:
            words = _words(fact) if isinstance(fact, list) else [fact]
            if len(words) != 3 or words[0] != "has":
                raise ScenarioError(f"{source}: line {line}: goal {_show((fact, line))}; expected (has AGENT GEM) "
                                    "or an (and ...) of them, one gem per agent")
            agent, gem = words[1], words[2]
            if agent in pb.goals:
                raise ScenarioError(f"{source}: line {line}: a second gem for {agent}; this world gives each agent "
                                    "one goal gem")
            if gem not in pb.gems:
                raise ScenarioError(f"{source}: line {line}: goal {gem!r} is not a gem on the grid")
            pb.goals[agent] = gem
    return pb


def _walls(pb: Problem, rhs, where: str, source: str) -> None:
    v, line = rhs
    words = _words(v) if isinstance(v, list) else [v]
    if words[0] == "new-bit-matrix" and len(v) == 4:
        pb.height, pb.width = _int(v[2], source), _int(v[3], source)
    elif words[0] == "set-index" and len(v) == 5:
        if words[2] == "true":
            pb.walls.add((_int(v[3], source) - 1, _int(v[4], source) - 1))
    elif words[0] == "transpose" and len(v) == 2 and isinstance(v[1][0], list) and _words(v[1][0])[0] == "bit-mat":
        vectors = v[1][0][1:]
        for vec, vec_line in vectors:
            if not isinstance(vec, list) or _words(vec)[0] != "bit-vec":
                raise ScenarioError(f"{source}: line {vec_line}: {_show((vec, vec_line))} in bit-mat; expected "
                                    "(bit-vec 0 1 ...) rows")
        rows = [[_int(b, source) for b in vec[1:]] for vec, _ in vectors]
        pb.height, pb.width = len(rows), len(rows[0]) if rows else 0
        pb.walls |= {(r, c) for r, row in enumerate(rows) for c, b in enumerate(row) if b}
    else:
        raise ScenarioError(f"{where}: walls given as {_show(rhs)}; expected new-bit-matrix, set-index or "
                            "transpose (bit-mat ...)")
    if pb.height > MAX_MAP_SIDE or pb.width > MAX_MAP_SIDE:
        raise ScenarioError(f"{where}: a {pb.width} x {pb.height} grid; expected at most {MAX_MAP_SIDE} on a side "
                            "(docs/limits.md)")


def read_ascii(text: str, source: str) -> Problem:
    rows = [row.strip() for row in text.splitlines()]
    first = next((i for i, r in enumerate(rows) if r), 0)
    rows = rows[first:]
    while rows and not rows[-1]:
        rows.pop()
    if not rows:
        raise ScenarioError(f"{source}: the file holds no map")
    pb = Problem(source, height=len(rows), width=max(len(r) for r in rows))
    if pb.height > MAX_MAP_SIDE or pb.width > MAX_MAP_SIDE:
        raise ScenarioError(f"{source}: a {pb.width} x {pb.height} map; expected at most {MAX_MAP_SIDE} on a side")
    counts = {"door": 0, "key": 0, "gem": 0}
    for r, row in enumerate(rows):
        where = f"{source}: line {first + r + 1}"
        if len(row) != pb.width:
            raise ScenarioError(f"{where}: {len(row)} characters, expected {pb.width} like the longest line")
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            if ch == "W":
                pb.walls.add((r, c))
            elif ch.lower() in ASCII_KEYS:
                kind = "key" if ch.islower() else "door"
                counts[kind] += 1
                name = f"{kind}{counts[kind]}"
                (pb.keys if kind == "key" else pb.doors)[name] = (r, c)
                pb.colors[name] = ASCII_KEYS[ch.lower()]
            elif ch in "gG":
                counts["gem"] += 1
                name = f"gem{counts['gem']}"
                pb.gems[name] = (r, c)
                if ch == "G":
                    if "human" in pb.goals:
                        raise ScenarioError(f"{where}, column {c + 1}: a second 'G'; the human has one goal gem")
                    pb.goals["human"] = name
            elif ch in ASCII_AGENTS:
                name = ASCII_AGENTS[ch]
                if name in pb.agents:
                    raise ScenarioError(f"{where}, column {c + 1}: a second {ch!r} ({name})")
                pb.agents[name] = (r, c)
            elif ch == "s":
                raise ScenarioError(f"{where}, column {c + 1}: 's' is the start of a single-agent problem; this "
                                    "world needs two or more agents ('h' the human, 'm' the robot)")
            else:
                raise ScenarioError(f"{where}, column {c + 1}: character {ch!r}; expected W . r b y e p (keys), "
                                    "R B Y E P (doors), g G (gems), h m (human, robot)")
    pb.order = [a for a in ("human", "robot") if a in pb.agents]
    return pb


# ----------------------------------------------------------------- to a scenario


def to_scenario(pb: Problem, name: str, goals: dict[str, str] | None = None, t_max: int = 80) -> dict[str, Any]:
    """Scenario data (not yet validated) for a problem; ``goals`` (agent -> gem name as in the
    file) replace the problem's own."""
    source = pb.source
    goals = dict(pb.goals if goals is None else goals)
    if not goals:
        raise ScenarioError(f"{source}: no goal: the problem names no (has AGENT GEM) goal and the map marks no "
                            f"'G'; choose one of {', '.join(pb.gems) or 'no gems'} (dkg import --goal AGENT=GEM)")
    for agent, gem in goals.items():
        if agent not in pb.agents:
            raise ScenarioError(f"{source}: goal of {agent!r}: not an agent of the problem ({', '.join(pb.agents)})")
        if gem not in pb.gems:
            raise ScenarioError(f"{source}: goal {gem!r} of {agent}: not a gem of the problem "
                                f"({', '.join(pb.gems) or 'none'})")
    if len(pb.agents) < 2:
        raise ScenarioError(f"{source}: {len(pb.agents)} agent(s) with a position; this world needs two or more")
    grid = [["." for _ in range(pb.width)] for _ in range(pb.height)]
    for r, c in pb.walls:
        if 0 <= r < pb.height and 0 <= c < pb.width:
            grid[r][c] = "#"
    legend: dict[str, Any] = {"#": "wall", ".": "floor"}
    taken: dict[tuple[int, int], str] = {}

    def put(obj: str, cell: tuple[int, int], ch: str, entry: Any) -> None:
        if cell in taken:
            raise ScenarioError(f"{source}: {obj} and {taken[cell]} share row {cell[0] + 1}, column {cell[1] + 1} "
                                "(counting from 1); this world has one object per cell (agents start on the floor)")
        if grid[cell[0]][cell[1]] == "#":
            raise ScenarioError(f"{source}: {obj} lies in a wall (row {cell[0] + 1}, column {cell[1] + 1}, counting from 1)")
        taken[cell] = obj
        grid[cell[0]][cell[1]] = ch
        legend[ch] = entry

    gem_colour = {g: pb.colors.get(g) or GEM_COLORS[(int(re.sub(r"\D", "", g) or k + 1) - 1) % len(GEM_COLORS)]
                  for k, g in enumerate(pb.gems)}
    for d, cell in pb.doors.items():
        if d in pb.unlocked:
            continue  # an open door is floor
        put(d, cell, DOOR_CHAR[pb.colors[d]], {"door": pb.colors[d]})
    for k, cell in pb.keys.items():
        put(k, cell, KEY_CHAR[pb.colors[k]], {"key": pb.colors[k]})
    for g, cell in pb.gems.items():
        put(g, cell, GEM_CHAR[gem_colour[g]], {"gem": gem_colour[g]})
    if pb.held:
        raise ScenarioError(f"{source}: items held at the start ({', '.join(f'{a} has {i}' for i, a in pb.held.items())}); "
                            "scenarios here start with every item on the floor")
    for agent in sorted(pb.agents, key=lambda a: pb.order.index(a) if a in pb.order else len(pb.order)):
        cell = pb.agents[agent]
        if not re.fullmatch(NAME_RE, agent):
            raise ScenarioError(f"{source}: agent name {agent!r}; expected lowercase letters, digits, '-' or '_'")
        preferred = {"human": "h", "robot": "m"}.get(agent, agent[0])
        ch = next(c for c in [preferred, *AGENT_CHARS] if c not in legend)
        if cell in taken:  # an agent standing on an item: the item stays, the agent starts next to nothing
            raise ScenarioError(f"{source}: {agent} starts on {taken[cell]} (row {cell[0] + 1}, column {cell[1] + 1}, "
                                "counting from 1); this world's agents start on the floor")
        put(agent, cell, ch, {"agent": agent})
    rows = ["".join(row) for row in grid]
    # our ids, in reading order, for the file's names
    ours: dict[str, str] = {}
    for kind, objs in (("key", pb.keys), ("door", {d: c for d, c in pb.doors.items() if d not in pb.unlocked}),
                       ("gem", pb.gems)):
        for k, obj in enumerate(sorted(objs, key=lambda o: objs[o])):
            ours[obj] = f"{kind}{k + 1}"
    renamed = [f"{a} is {b} here" for a, b in ours.items() if a != b]
    if renamed:
        pb.notes.append("renumbered in reading order: " + ", ".join(renamed))
    helpers = [a for a in pb.order if a not in goals]
    data = {"world": "dkg", "name": name, "title": f"{Path(source).name} (reference problem)",
            "description": (f"Imported from {Path(source).name}. " +
                            " ".join(f"{a} wants {ours[g]}." for a, g in goals.items()) +
                            (f" {', '.join(helpers)} has no gem of its own and helps." if helpers else "")),
            "map": rows, "legend": legend, "goals": {a: ours[g] for a, g in goals.items()},
            "options": {"t_max": t_max, "turn_order": list(pb.order), "handover": "adjacent"}}
    return data


def scenario_name(path: Path, prefix: str = "") -> str:
    stem = re.sub(r"[^a-z0-9_-]+", "-", (prefix + path.stem).lower()).strip("-_") or "problem"
    return stem[:64]


def read_problem(path: str | Path) -> Problem:
    path = Path(path)
    text = read_text(path, ScenarioError, kind="PDDL problem or ASCII map")
    if path.suffix.lower() == ".pddl" or text.lstrip().startswith(("(", ";")):
        return read_pddl(text, str(path))
    return read_ascii(text, str(path))


def import_reference(path: str | Path, name: str | None = None, goals: dict[str, str] | None = None,
                     t_max: int = 80) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(scenario file data, its validated spec, notes) for a reference problem file (.pddl, or
    an ASCII map)."""
    from sim.dkg.scenario import validate_dkg

    path = Path(path)
    pb = read_problem(path)
    data = to_scenario(pb, name or scenario_name(path), goals, t_max)
    return data, validate_dkg(data, str(path)), pb.notes


def load_reference(path: str | Path, name: str | None = None, goals: dict[str, str] | None = None,
                   t_max: int = 80) -> tuple[dict[str, Any], list[str]]:
    """(validated spec, notes) for a reference problem file (.pddl, or an ASCII map)."""
    _, spec, notes = import_reference(path, name, goals, t_max)
    return spec, notes


def read_pddl_scenario(path: Path) -> dict[str, Any]:
    """The plug-in's reader: a .pddl problem played as a scenario (``main.py run problem.pddl``)."""
    pb = read_problem(path)
    return to_scenario(pb, scenario_name(path))
