"""Problems of the Doors-Keys-Gems planning projects, read as scenarios.

Two formats, as the reference projects (Plinf, CLIPS) publish them:

- **PDDL problems** of the multi-agent domain: ``(:objects ...)``, ``(:init ...)`` with the
  wall matrix (``(= (walls) (new-bit-matrix false H W))`` and ``(set-index walls true Y X)``
  facts, or ``(transpose (bit-mat (bit-vec ...) ...))``), ``(= (xloc O) X)`` /
  ``(= (yloc O) Y)`` positions (1-based, x = column, y = row), ``(iscolor O C)``,
  ``(locked D)``, ``(has A I)``, ``(forbidden A I)``, turn order by ``(active A)`` and
  ``(next-turn A B)`` (CLIPS.jl) or by ``(= (agentcode A) N)`` and ``(= (turn) N)`` (Plinf, whose
  domain lets its robot pick up keys only: the robot is forbidden every gem here), and
  ``(:goal (has A G))`` (or an ``and`` of such facts, one gem per agent; ``(true)`` names none).
  Plinf's ``doors-keys-goals`` problems name their gems ``goal1``, ``goal2``...; single-agent
  problems (``xpos``/``ypos``) play with one seat.
- **ASCII maps** (``.txt``), read as the loader of the folder they come from reads them
  (``LOADERS``, ``ascii_loader``): which gem is the goal, whether the robot may take gems, and
  the alphabet (Reasoning's ``c`` gems and ``g``/``G`` green key and door) are that loader's.
  Gems take the reference's colours by number (gem1 red, gem2 yellow, gem3 blue, gem4 green,
  then the other colours).

Agents without a goal in the problem are helpers (the reference's robot, which assists the
human). Facts this world has no rule for are errors naming the file and line; every rule
applied is reported in the notes. Keys, doors and gems are renumbered in reading order as this
world numbers them; a note says when a name of the file means another object here. Plan files
(one action a line, CLIPS.jl's names and Plinf's ``noop``, ``pickuph``, ``pickupr``, ``unlockh``,
``unlockr``) replay on their problem (``load_plan``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.dkg.scenario import COLORS, MAX_MAP_SIDE, NAME_RE
from sim.inputs import MAX_DEPTH, read_text
from sim.registry import ScenarioError
from sim.seats import Agent, SeatContext

GEM_COLORS = ("red", "yellow", "blue", "green") + tuple(c for c in COLORS if c not in ("red", "yellow", "blue", "green"))
ASCII_KEYS = {"r": "red", "b": "blue", "y": "yellow", "e": "green", "p": "pink"}
ASCII_AGENTS = {"h": "human", "m": "robot"}
SINGLE_AGENT = "human"  # the agent of the single-agent domain (no name in its files)
PLAIN_COLOR = "yellow"  # the single-agent domain's keys and doors have no colour: one colour here
# characters of the written scenario (our legend), by kind and colour
KEY_CHAR = dict(zip(COLORS, "rbyeuocn"))  # red blue yellow grEen pUrple orange pink(c) cyaN
KEY_CHAR["pink"], KEY_CHAR["cyan"] = "p", "c"
DOOR_CHAR = {c: k.upper() for c, k in KEY_CHAR.items()}
GEM_CHAR = dict(zip(GEM_COLORS, "$+*%&@!?"))
AGENT_CHARS = "hmabdfgijk"
# The ASCII loaders of the reference folders (docs/dkg.md, "Reference problems"): name -> how it reads a map.
LOADERS = {
    "clips": "CLIPS.jl's ascii_to_pddl: the last gem ('g' or 'G') is the human's goal, the robot is forbidden every gem",
    "plinf-multi-agent": "Plinf's multi-agent/ascii.jl: the last 'G' is the human's goal (no 'G': no goal); the "
                         "robot picks up keys only (its domain's pickupr)",
    "plinf-assistive": "Plinf's Assistive/ascii.jl: the last gem ('g' or 'G') is the human's goal; the robot picks up "
                       "keys only (its domain's pickupr)",
    "plinf-reasoning": "Plinf's Reasoning/ascii.jl: 'c' gems (the last one is the goal), 'g'/'G' the green key and "
                       "door, 'h' the only agent",
    "single-agent": "the single-agent ascii_to_pddl: the gem marked 'G' is the goal ('s' or 'h' the agent, 'k' keys "
                    "and 'D' doors without colour)",
}
FOLDER_LOADERS = {"multi-agent": "plinf-multi-agent", "assistive": "plinf-assistive", "reasoning": "plinf-reasoning"}
REASONING_KEYS = {"r": "red", "b": "blue", "y": "yellow", "g": "green", "p": "pink"}


class NoGoalError(ScenarioError):
    """A problem whose file (or its map's loader) names no goal: the reference leaves it open."""


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
    forbidden: dict[str, list[str]] = field(default_factory=dict)  # agent -> items it may not take
    goal_rule: str = "file"  # "file" (PDDL :goal), "last gem" or "marker" (ASCII maps)
    loader: str = ""  # the ASCII loader whose rules read the map (LOADERS), "" for PDDL
    ids: dict[str, str] = field(default_factory=dict)  # file's object name -> this world's id (after to_scenario)


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
    head = define[0][1] if len(define[0]) > 1 else None
    if head is not None and isinstance(head[0], list) and _words(head[0])[0] == "domain":
        raise ScenarioError(f"{source}: a PDDL domain '(define (domain ...) ...)', not a problem; expected "
                            "'(define (problem ...) ...)'")
    pb = Problem(source)
    sections = {_words(n[0])[0]: n for n in define[0][1:] if isinstance(n[0], list) and n[0]}
    if ":domain" in sections:
        domain = _words(sections[":domain"][0])[1] if len(sections[":domain"][0]) > 1 else ""
        if domain not in ("doors-keys-gems", "doors-keys-goals"):
            raise ScenarioError(f"{source}: line {sections[':domain'][1]}: domain {domain!r}; expected "
                                "doors-keys-gems (or Plinf's doors-keys-goals)")
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
            elif lhs_words[0] in ("xpos", "ypos") and len(lhs_words) == 1:
                # the single-agent domain: the agent's position without a name
                (xs if lhs_words[0] == "xpos" else ys)[SINGLE_AGENT] = (_int(rhs, source), line)
                types[SINGLE_AGENT] = "agent"
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
            pb.forbidden.setdefault(words[1], []).append(words[2])
        elif head == "offgrid" and len(words) == 2:
            pass  # said of held items, which have no position
        else:
            raise ScenarioError(f"{where}: {_show((fact, line))}: not a fact of the Doors-Keys-Gems problems this "
                                "reads (iscolor, locked, has, active, next-turn, forbidden, offgrid, =)")
    if forbidden:
        pb.notes.append(f"{forbidden} (forbidden AGENT ITEM) fact(s): that agent may not pick up, hand over or be "
                        "handed that item")
    if not pb.height:
        raise ScenarioError(f"{source}: no wall matrix in (:init ...); expected (= (walls) (new-bit-matrix false H W))")
    locked = {w[1] for w, _ in ((_words(f), n) for f, n in sections[":init"][0][1:]) if w and w[0] == "locked"}
    kinds = {"door": pb.doors, "key": pb.keys, "gem": pb.gems}
    where_of: dict[str, tuple[int, int, int]] = {}
    for name in sorted(set(xs) | set(ys), key=lambda n: (xs.get(n, (0, 0))[1])):
        if name not in xs or name not in ys:
            line = (xs[name] if name in xs else ys[name])[1]
            raise ScenarioError(f"{source}: line {line}: {name} has an {'x' if name in xs else 'y'}loc but no "
                                f"{'y' if name in xs else 'x'}loc")
        (x, line), (y, _) = xs[name], ys[name]
        kind = types.get(name) or re.sub(r"\d+$", "", name)
        if kind == "goal":
            kind = "gem"  # Plinf's doors-keys-goals problems: their goal objects are this world's gems
        if kind in ("agent", "human", "robot"):
            target = pb.agents
        elif kind in kinds:
            target = kinds[kind]
        else:
            raise ScenarioError(f"{source}: line {line}: {name} has a position but is neither a door, key, gem nor "
                                f"agent (its type: {kind!r})")
        if x == -1 and y == -1 and kind in ("key", "gem"):
            continue  # off the grid: held (a has fact says by whom)
        if not (1 <= y <= max(pb.height, pb.width) and 1 <= x <= max(pb.height, pb.width)):
            raise ScenarioError(f"{source}: line {line}: {name} at x {x}, y {y} lies outside the {pb.width} x "
                                f"{pb.height} grid (x and y count from 1)")
        target[name] = (y - 1, x - 1)
        where_of[name] = (x, y, line)
    for d in pb.doors:
        if d not in locked:
            pb.unlocked.add(d)
    _fit_dimensions(pb, where_of)
    uncoloured = [n for n in [*pb.doors, *pb.keys] if n not in pb.colors]
    if uncoloured and SINGLE_AGENT in pb.agents and not any(n in pb.colors for n in [*pb.doors, *pb.keys]):
        for name in uncoloured:  # the single-agent domain: any key opens any door
            pb.colors[name] = PLAIN_COLOR
        pb.notes.append(f"keys and doors have no colour in the single-agent domain (any key opens any door): they "
                        f"are all {PLAIN_COLOR} here")
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
            if words == ["true"]:
                continue  # (:goal (true)): what the reference loaders write for a map that names no goal
            if len(words) == 2 and words[0] == "has" and SINGLE_AGENT in pb.agents:
                words = ["has", SINGLE_AGENT, words[1]]  # the single-agent domain: (has GEM)
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
        if pb.goals:
            pb.notes.append("goal: " + ", ".join(f"(has {a} {g})" for a, g in pb.goals.items()) +
                            ", the problem's (:goal ...)")
    robots = [a for a in pb.agents if a not in pb.goals
              and (types.get(a) == "robot" or (a == "robot" and types.get(a) in (None, "agent")))]
    if code and robots and pb.gems and not forbidden:
        # agentcode/turn problems are those of Plinf's multi-agent domain, whose robot picks up keys only
        # (pickupr takes a key): it never takes a gem, which is this world's forbidden
        for robot in robots:
            pb.forbidden[robot] = list(pb.gems)
        pb.notes.append(f"{', '.join(robots)} picks up keys only, as Plinf's multi-agent domain (the agentcode/turn "
                        "problems) lets its robot (pickupr takes a key): forbidden every gem here")
    return pb


def _fit_dimensions(pb: Problem, where_of: dict[str, tuple[int, int, int]]) -> None:
    """``(new-bit-matrix false A B)`` is height and width in the multi-agent problems and width and
    height in the single-agent ones: when the walls and objects fit only the swapped grid, swap it
    (with a note); when they fit neither, name the first object outside."""
    cells = list(pb.walls) + [(y - 1, x - 1) for x, y, _ in where_of.values()]

    def fits(h: int, w: int) -> bool:
        return all(0 <= r < h and 0 <= c < w for r, c in cells)

    if fits(pb.height, pb.width):
        return
    if pb.height != pb.width and fits(pb.width, pb.height):
        pb.notes.append(f"the wall matrix is written {pb.height} x {pb.width} but the walls and objects lie in a "
                        f"{pb.width} x {pb.height} grid (rows x columns): read as the single-agent domain writes it, "
                        "width first")
        pb.height, pb.width = pb.width, pb.height
        return
    for name, (x, y, line) in where_of.items():
        if not (1 <= y <= pb.height and 1 <= x <= pb.width):
            raise ScenarioError(f"{pb.source}: line {line}: {name} at x {x}, y {y} lies outside the {pb.width} x "
                                f"{pb.height} grid (x and y count from 1)")


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


def ascii_loader(path: Path, text: str) -> tuple[str, str]:
    """(loader, why) for an ASCII map: the loader of the reference folder it lies in (a folder named
    multi-agent, Assistive or Reasoning, as Plinf names them), Reasoning's when the map has its gem 'c',
    else CLIPS.jl's for a map with a robot 'm' and the single-agent one without."""
    folder = FOLDER_LOADERS.get(path.parent.name.lower())
    if folder:
        return folder, f"the map lies in a folder named {path.parent.name}"
    if "c" in text:
        return "plinf-reasoning", "the map holds 'c', the gem of Reasoning's alphabet"
    if "m" in text:
        return "clips", "a map with a robot 'm' outside Plinf's folders"
    return "single-agent", "a map without a robot outside Plinf's folders"


def read_ascii(text: str, source: str, loader: str | None = None) -> Problem:
    """An ASCII map, read as the reference loader ``loader`` (LOADERS) reads it (by default the one
    ``ascii_loader`` names for it). Every loader reads ``W`` walls, ``.`` floor, keys and doors by
    colour letter and ``h`` the human; a second ``h``, ``m`` or ``s`` replaces the first, as the loaders
    overwrite it. Which gem is the goal, the robot's permissions and the alphabet are the loader's;
    the rule that applied is reported in the notes."""
    if loader is None:
        loader, why = ascii_loader(Path(source), text)
    else:
        why = "as asked"
    if loader not in LOADERS:
        raise ScenarioError(f"{source}: loader {loader!r}; expected one of {', '.join(LOADERS)}")
    rows = [row.strip() for row in text.splitlines()]
    first = next((i for i, r in enumerate(rows) if r), 0)
    rows = rows[first:]
    while rows and not rows[-1]:
        rows.pop()
    if not rows:
        raise ScenarioError(f"{source}: the file holds no map")
    pb = Problem(source, height=len(rows), width=max(len(r) for r in rows), loader=loader)
    if pb.height > MAX_MAP_SIDE or pb.width > MAX_MAP_SIDE:
        raise ScenarioError(f"{source}: a {pb.width} x {pb.height} map; expected at most {MAX_MAP_SIDE} on a side")
    reasoning = loader == "plinf-reasoning"
    single = loader == "single-agent"
    keys = REASONING_KEYS if reasoning else ASCII_KEYS
    gem_chars = "c" if reasoning else "gG"
    agent_chars = {"h": "human"} if reasoning else {**ASCII_AGENTS, **({"s": "human"} if single else {})}
    counts = {"door": 0, "key": 0, "gem": 0}
    marked: list[str] = []  # gems written 'G'
    seen: dict[str, list[str]] = {}  # agent -> positions written (for the note on repeats)
    plain = False  # 'k' or 'D': the single-agent domain's keys and doors without colour
    for r, row in enumerate(rows):
        where = f"{source}: line {first + r + 1}"
        if len(row) != pb.width:
            raise ScenarioError(f"{where}: {len(row)} characters, expected {pb.width} like the longest line")
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            if ch == "W":
                pb.walls.add((r, c))
            elif ch.lower() in keys or (ch in "kD" and single):
                kind = "key" if ch.islower() else "door"
                counts[kind] += 1
                name = f"{kind}{counts[kind]}"
                (pb.keys if kind == "key" else pb.doors)[name] = (r, c)
                pb.colors[name] = keys.get(ch.lower(), PLAIN_COLOR)
                plain = plain or ch in "kD"
            elif ch in gem_chars:
                counts["gem"] += 1
                name = f"gem{counts['gem']}"
                pb.gems[name] = (r, c)
                if ch == "G":
                    marked.append(name)
            elif ch in agent_chars:
                name = agent_chars[ch]
                seen.setdefault(name, []).append(f"line {first + r + 1}, column {c + 1} ({ch!r})")
                pb.agents[name] = (r, c)
            else:
                expected = {"plinf-reasoning": "W . r b y g p (keys), R B Y G P (doors), c (gems), h (the agent)",
                            "single-agent": "W . r b y e p k (keys), R B Y E P D (doors), g G (gems), h or s (the "
                                            "agent), m (a robot)"}.get(
                    loader, "W . r b y e p (keys), R B Y E P (doors), g G (gems), h m (human, robot)")
                raise ScenarioError(f"{where}, column {c + 1}: character {ch!r}; expected {expected} "
                                    f"({LOADERS[loader].split(':')[0]}: {why})")
    for agent, places in seen.items():
        if len(places) > 1:
            pb.notes.append(f"{agent} is written {len(places)} times ({'; '.join(places)}); the last one counts, as "
                            "the reference loaders keep the last start")
    if plain:
        pb.notes.append(f"keys 'k' and doors 'D' have no colour in the single-agent domain (any key opens any door): "
                        f"they are all {PLAIN_COLOR} here")
    gems = list(pb.gems)
    if loader in ("clips", "plinf-assistive", "plinf-reasoning"):
        pb.goal_rule = "last gem"
        if gems:
            pb.goals["human"] = gems[-1]
            rule = f"goal: the last gem ({gems[-1]})" + ("" if reasoning else ", 'g' or 'G'")
            other = [g for g in marked if g != gems[-1]]
            if other:
                rule += f"; the 'G' on {', '.join(other)} is not the goal under this rule"
            pb.notes.append(rule)
    else:
        pb.goal_rule = "marker"
        if marked:
            pb.goals["human"] = marked[-1]
            rule = f"goal: the gem marked 'G' ({marked[-1]})"
            if len(marked) > 1:
                rule += f"; {len(marked)} gems are written 'G' ({', '.join(marked)}), the last one counts"
            if marked[-1] != gems[-1]:
                rule += f"; the last gem ({gems[-1]}) is not the goal under this rule"
            pb.notes.append(rule)
    if "robot" in pb.agents and gems and loader != "single-agent":
        pb.forbidden = {"robot": gems}
        pb.notes.append("the robot is forbidden every gem" + (" (the loader's (forbidden robot GEM) facts)"
                                                              if loader == "clips" else
                                                              " (it picks up keys only: its domain's pickupr)"))
    pb.order = [a for a in ("human", "robot") if a in pb.agents]
    pb.notes.insert(0, f"read as {LOADERS[loader].split(':')[0]} reads it ({why}; --loader chooses another)")
    return pb


# ----------------------------------------------------------------- to a scenario


def to_scenario(pb: Problem, name: str, goals: dict[str, str] | None = None, t_max: int = 80) -> dict[str, Any]:
    """Scenario data (not yet validated) for a problem; ``goals`` (agent -> gem name as in the
    file) replace the problem's own."""
    source = pb.source
    goals = dict(pb.goals if goals is None else goals)
    if not goals:
        gems = ", ".join(f"{g} (row {r + 1}, column {c + 1})" for g, (r, c) in pb.gems.items()) or "no gems"
        why = (f"{LOADERS[pb.loader].split(':')[0]} names no goal on this map (it marks no 'G')" if pb.loader else
               "the problem names no (has AGENT GEM) goal")
        raise NoGoalError(f"{source}: no goal: {why}; the gems: {gems}; choose one with --goal human=GEM")
    for agent, gem in goals.items():
        if agent not in pb.agents:
            raise ScenarioError(f"{source}: goal of {agent!r}: not an agent of the problem ({', '.join(pb.agents)})")
        if gem not in pb.gems:
            raise ScenarioError(f"{source}: goal {gem!r} of {agent}: not a gem of the problem "
                                f"({', '.join(pb.gems) or 'none'})")
    if not pb.agents:
        raise ScenarioError(f"{source}: no agent with a position; expected (xloc AGENT)/(yloc AGENT), (= xpos X)/"
                            "(= ypos Y), or 'h', 'm' or 's' on the map")
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
        for number, obj in enumerate(sorted(objs, key=lambda o: objs[o])):
            ours[obj] = f"{kind}{number + 1}"
    renamed = [f"{a} is {b} here" for a, b in ours.items() if a != b]
    if renamed:
        pb.notes.append("renumbered in reading order: " + ", ".join(renamed))
    helpers = [a for a in pb.order if a not in goals]
    forbidden: dict[str, list[str]] = {}
    for agent, names in pb.forbidden.items():
        if agent not in pb.agents:
            raise ScenarioError(f"{source}: (forbidden {agent} ...): {agent!r} is not an agent with a position")
        for obj in names:
            if obj not in ours:
                raise ScenarioError(f"{source}: (forbidden {agent} {obj}): {obj!r} is not a key or gem of the problem")
            forbidden.setdefault(agent, []).append(ours[obj])
    options: dict[str, Any] = {"t_max": t_max, "turn_order": list(pb.order), "handover": "adjacent"}
    if forbidden:
        options["forbidden"] = {a: sorted(set(v), key=lambda i: (i[:3], int(i[3:]))) for a, v in forbidden.items()}
    data = {"world": "dkg", "name": name, "title": f"{Path(source).name} (reference problem)",
            "description": (f"Imported from {Path(source).name}. " +
                            " ".join(f"{a} wants {ours[g]}." for a, g in goals.items()) +
                            (f" {', '.join(helpers)} has no gem of its own and helps." if helpers else "")),
            "map": rows, "legend": legend, "goals": {a: ours[g] for a, g in goals.items()},
            "options": options}
    pb.ids = ours
    return data


def scenario_name(path: Path, prefix: str = "") -> str:
    stem = re.sub(r"[^a-z0-9_-]+", "-", (prefix + path.stem).lower()).strip("-_") or "problem"
    return stem[:64]


def read_problem(path: str | Path, loader: str | None = None) -> Problem:
    """A problem file: PDDL (``loader`` does not apply), or an ASCII map read by ``loader`` (by
    default the one ``ascii_loader`` names)."""
    path = Path(path)
    text = read_text(path, ScenarioError, kind="PDDL problem or ASCII map")
    if path.suffix.lower() == ".pddl" or text.lstrip().startswith(("(", ";")):
        return read_pddl(text, str(path))
    return read_ascii(text, str(path), loader)


def import_reference(path: str | Path, name: str | None = None, goals: dict[str, str] | None = None,
                     t_max: int = 80, loader: str | None = None) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """(scenario file data, its validated spec, notes) for a reference problem file (.pddl, or
    an ASCII map read by ``loader``)."""
    from sim.dkg.scenario import validate_dkg

    path = Path(path)
    pb = read_problem(path, loader)
    data = to_scenario(pb, name or scenario_name(path), goals, t_max)
    return data, validate_dkg(data, str(path)), pb.notes


def load_reference(path: str | Path, name: str | None = None, goals: dict[str, str] | None = None,
                   t_max: int = 80, loader: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """(validated spec, notes) for a reference problem file (.pddl, or an ASCII map)."""
    _, spec, notes = import_reference(path, name, goals, t_max, loader)
    return spec, notes


def read_pddl_scenario(path: Path) -> dict[str, Any]:
    """The plug-in's reader: a .pddl problem played as a scenario (``main.py run problem.pddl``)."""
    pb = read_problem(path)
    return to_scenario(pb, scenario_name(path))


# ------------------------------------------------------------------- plan files

# Plinf's multi-agent domain: action -> (this world's action, the agent type it belongs to)
PLINF_VERBS = {"pickuph": ("pickup", "human"), "pickupr": ("pickup", "robot"),
               "unlockh": ("unlock", "human"), "unlockr": ("unlock", "robot")}
PLAN_LINE = re.compile(r"\(\s*([a-z][a-z-]*)((?:\s+[^()\s]+)*)\s*\)", re.IGNORECASE)


def plan_goal(texts: Sequence[str], pb: Problem) -> tuple[str, str] | None:
    """(agent, gem as the file names it) when the last action of the plans is an agent with a goal
    (or, in a problem that names none, an agent that may take it) picking up a gem: the goal of a
    stimulus as CLIPS.jl reads it (its extract_goal: the completed plan ends by picking the goal
    up); None otherwise."""
    last = None
    for text in texts:
        for raw in text.splitlines():
            line = raw.strip()
            if line and not line.startswith(";"):
                last = line
    m = PLAN_LINE.fullmatch(last or "")
    if m is None:
        return None
    verb, args = m.group(1).lower(), m.group(2).lower().split()
    if verb not in ("pickup", "pickuph") or len(args) != 2 or args[0] not in pb.agents or args[1] not in pb.gems:
        return None
    agent, gem = args
    # an agent with a goal in the problem, or any agent the gem is not forbidden to when the problem names none
    if agent in pb.goals or (not pb.goals and gem not in pb.forbidden.get(agent, [])):
        return agent, gem
    return None


def is_plan_text(text: str) -> bool:
    """A plan file (one action in parentheses a line, ';' lines utterances), not a problem: its first
    line that is neither blank nor a comment is an action such as ``(left human)``."""
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith(";"):
            m = PLAN_LINE.fullmatch(line)
            return m is not None and m.group(1).lower() != "define"
    return False


def parse_plan(text: str, source: str, pb: Problem, agents: tuple[str, ...]) -> list[tuple[str, str, int]]:
    """(agent, action in this world's terms, line) for each step of a reference plan file: one
    PDDL action a line, ``(up robot)``, ``(pickup human gem4)``, ``(unlock robot key1 door3)``,
    ``(handover human robot key2)``, ``(wait human)``; ``;`` lines are annotations (utterances).
    Object names are the problem file's; ``pb.ids`` (set by ``to_scenario``) renames them. The
    single-agent domain's actions name no agent (``(up)``, ``(pickup key1)``, ``(unlock key1 door1)``)."""
    ids = pb.ids
    steps: list[tuple[str, str, int]] = []
    single = len(agents) == 1
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        where = f"{source}: line {number}"
        m = re.fullmatch(r"\(\s*([^()\s]+(?:\s+[^()\s]+)*)\s*\)", line)
        if m is None:
            raise ScenarioError(f"{where}: {line[:60]!r}; expected one action in parentheses, e.g. (up robot)")
        words = m.group(1).lower().split()
        verb, args = words[0], words[1:]
        if single and (not args or args[0] not in agents):
            args = [agents[0], *args]
        if not args or args[0] not in agents:
            raise ScenarioError(f"{where}: {line!r} names no agent of the problem ({', '.join(agents)})")
        agent, rest = args[0], args[1:]

        def obj(name: str, where: str = where) -> str:
            if name not in ids:
                raise ScenarioError(f"{where}: {name!r} is not a key, gem or locked door of the problem")
            return ids[name]

        if verb in PLINF_VERBS:  # Plinf's multi-agent domain names the human's and the robot's actions apart
            base, who = PLINF_VERBS[verb]
            if agent != who:
                raise ScenarioError(f"{where}: {line!r}: {verb} is the {who}'s action in Plinf's domain, not "
                                    f"{agent}'s")
            if verb == "pickupr" and rest and not rest[0].startswith("key"):
                raise ScenarioError(f"{where}: {line!r}: pickupr takes a key in Plinf's domain")
            verb = base
        if verb in ("up", "down", "left", "right", "wait", "noop") and not rest:
            action = "wait" if verb == "noop" else verb
        elif verb == "pickup" and len(rest) == 1:
            action = f"pickup {obj(rest[0])}"
        elif verb == "unlock" and len(rest) == 2:
            action = f"unlock {obj(rest[1])} {obj(rest[0])}"  # the file names the key first
        elif verb == "handover" and len(rest) == 2 and rest[0] in agents:
            action = f"handover {obj(rest[1])} {rest[0]}"
        else:
            raise ScenarioError(f"{where}: {line!r}; expected (up|down|left|right|wait|noop AGENT), (pickup AGENT "
                                "ITEM), (unlock AGENT KEY DOOR), (handover AGENT OTHER ITEM), or Plinf's pickuph, "
                                "pickupr, unlockh, unlockr")
        steps.append((agent, action, number))
    return steps


def load_plan(problem: str | Path, plan: str | Path | list[str | Path], goals: dict[str, str] | None = None,
              t_max: int = 80, loader: str | None = None) -> tuple[dict[str, Any], list[tuple[str, str, int]], list[str]]:
    """(validated spec, plan steps, notes) for a reference problem and a plan of it: one plan
    file, or several played one after the other (the reference's observed plan, then its
    completion, which starts where the observed one ends). Each step is checked against the rules
    in turn (whose turn it is, and that the action is legal); a step that is not names its file
    and line. Without ``goals``, a plan whose last action picks up a gem gives that agent's goal
    (the stimulus's own goal, as CLIPS.jl's extract_goal reads a completed plan), else the
    problem's goal holds."""
    from sim.dkg.scenario import validate_dkg
    from sim.dkg.world import DKGWorld
    from sim.world import IllegalAction

    problem = Path(problem)
    plans = [Path(p) for p in (plan if isinstance(plan, list) else [plan])]
    pb = read_problem(problem, loader)
    texts = [read_text(path, ScenarioError, kind="PDDL plan") for path in plans]
    if goals is None:
        found = plan_goal(texts, pb)
        if found is not None:
            agent, gem = found
            said = pb.goals.get(agent)
            goals = {**pb.goals, agent: gem}
            pb.notes.append(f"goal of {agent}: {gem}, which the plan's last action picks up (the stimulus's own "
                            "goal, as CLIPS.jl's extract_goal reads it)"
                            + ("" if said in (None, gem) else f"; the problem file says {said}"))
    data = to_scenario(pb, scenario_name(problem), goals, t_max)
    spec = validate_dkg(data, str(problem))
    world = DKGWorld(spec)
    parts = [(path, parse_plan(text, str(path), pb, world.agents)) for path, text in zip(plans, texts)]
    steps = [step for _, part in parts for step in part]
    if len(steps) > world.t_max:
        spec["options"]["t_max"] = len(steps)  # the plan is longer than the episode limit: let it finish
        pb.notes.append(f"the plan has {len(steps)} steps, more than t_max {t_max}: t_max is {len(steps)} for it")
        world = DKGWorld(spec)
    state = world.reset(0)
    for path, part in parts:
        for agent, action, number in part:
            if world.done(state):
                raise ScenarioError(f"{path}: line {number}: the episode is over (every goal held) before this step")
            turn = world.agents[state.turn]
            if agent != turn:
                raise ScenarioError(f"{path}: line {number}: an action of {agent}, but it is {turn}'s turn")
            try:
                state = world.step(state, {agent: action}).state
            except IllegalAction as exc:
                hint = (" (a completion starts where its observed plan ends: give both)"
                        if len(plans) == 1 and path.parent.name == "completed" else "")
                raise ScenarioError(f"{path}: line {number}: {action!r} is not legal here: {exc}{hint}") from None
    return spec, steps, pb.notes


class PlanFollower(Agent):
    """Plays a fixed list of actions (a reference plan file, ``dkg plan``), then waits."""

    kind = "plan"

    def __init__(self, actions: Sequence[str], source: str = "") -> None:
        self.actions = list(actions)
        self.source = source

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self._next = 0

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "plan": self.source, "steps": len(self.actions)}

    def act(self, observation: Any, legal_actions: Sequence[str]) -> str:
        if self._next >= len(self.actions):
            return "wait"
        self._next += 1
        return self.actions[self._next - 1]
