"""Write kitchen team scenarios from a fixed seed: a hall of cooks above a row of alcoves, whose
cooks can only cook when a teammate passes them their onions over the alcove's counter (the recipe
of the hand-made ``kitchen-team-01-six`` and ``kitchen-team-02-eight``, drawn afresh).

    python -m generators.make_kitchen_teams            # writes kitchen-team-03-* .. -18-* (seed 61)
    python -m generators.make_kitchen_teams --check    # exit 1 unless the files on disk are these
    python -m generators.make_kitchen_teams --out DIR --first 1 --count 4 --seed 7

The recipe:

* 5, 6, 7 or 8 cooks (``ada``, ``ben``, ... ``hal``), as many levels of each size (the sizes
  cycle, in a shuffled order); 2 of them (3 with 7 or 8 cooks), drawn at random, cook an onion
  dish in alcoves below the hall, the others a tomato or lettuce dish (drawn) in the hall;
* each alcove: 5 cells wide behind the hall's bottom wall of counters, a board and a delivery on
  either side of its cook (sides drawn) and a plate in the counter row below (column drawn);
  3 to 5 wall columns between alcoves (drawn), 2 at either end;
* the hall: 3 or 4 floor rows (drawn); on its top wall one ingredient and one plate per hall cook
  and ceil(h / 2), at least 2, cutting boards, on random cells; on its side walls two deliveries
  and the alcove cooks' onions, on random cells; the hall cooks on random floor cells;
* ``t_max`` = 40 + 10 n; the default movement rule (cooks pass through each other).

A level is kept only when cooks of ToM level 1 (``tom-cook:k=1``, every seat) deliver every dish
within ``t_max``, and cooks of level 0, who pass nothing, leave every alcove dish undelivered; a
level that fails either is drawn again. Every level is read back by the kitchen's own parser and
``validate_kitchen`` before anything is written. The output depends on the seed only (Python's
``random.Random``; the cooks are deterministic); ``kitchen-team-01`` and ``-02`` (hand-made) and
files of other names in the folder are left alone.
"""

from __future__ import annotations

import math
import random
import sys
from typing import Any

from generators.common import NAMES, WORDS, Recipe
from sim.registry import SCENARIO_DIR

#: the folder of the shipped scenarios (the default of ``--out``)
FOLDER = SCENARIO_DIR / "kitchen" / "teams"
SEED = 61
FIRST = 3
COUNT = 16
SUFFIX = ".kitchen.txt"
HALL_DISHES = ("SimpleTomato", "SimpleLettuce")
INGREDIENT = {"SimpleTomato": "t", "SimpleLettuce": "l", "SimpleOnion": "o"}
ALCOVE = 5
#: draws of one level before the generator gives up (a level is kept when the cooks can do it)
TRIES = 50


def draw_level(number: int, n: int, rng: random.Random) -> tuple[str, list[str]]:
    """The text of one level (before the checks) and its alcove cooks."""
    names = list(NAMES[:n])
    m = 3 if n >= 7 else 2
    alcove_cooks = sorted(rng.sample(names, m), key=names.index)
    hall_cooks = [a for a in names if a not in alcove_cooks]
    dishes = {a: ("SimpleOnion" if a in alcove_cooks else rng.choice(HALL_DISHES)) for a in names}
    gaps = [rng.randint(3, 5) for _ in range(m - 1)]
    width = 2 + ALCOVE * m + sum(gaps) + 2
    rows = rng.randint(3, 4)  # hall floor rows
    grid = [["#"] + ["-"] * (width - 2) + ["#"]]
    grid += [["-"] + ["."] * (width - 2) + ["-"] for _ in range(rows)]
    bottom, middle, low = ["#"] * width, ["#"] * width, ["#"] * width
    left = 2
    for k, cook in enumerate(alcove_cooks):
        bottom[left:left + ALCOVE] = ["-"] * ALCOVE
        board, delivery = ("/", "*") if rng.random() < 0.5 else ("*", "/")
        middle[left:left + ALCOVE] = [board, ".", str(names.index(cook) + 1), ".", delivery]
        low[left:left + ALCOVE] = ["-"] * ALCOVE
        low[left + rng.randrange(ALCOVE)] = "p"
        left += ALCOVE + (gaps[k] if k < m - 1 else 0)
    grid += [bottom, middle, low]

    top = [(0, c) for c in range(1, width - 1)]
    top_items = ([INGREDIENT[dishes[a]] for a in hall_cooks] + ["p"] * len(hall_cooks)
                 + ["/"] * max(2, math.ceil(len(hall_cooks) / 2)))
    for item, (r, c) in zip(top_items, rng.sample(top, len(top_items))):
        grid[r][c] = item
    sides = [(r, c) for r in range(1, rows + 1) for c in (0, width - 1)]
    for item, (r, c) in zip(["*", "*"] + ["o"] * m, rng.sample(sides, 2 + m)):
        grid[r][c] = item
    floor = [(r, c) for r in range(1, rows + 1) for c in range(1, width - 1)]
    for cook, (r, c) in zip(hall_cooks, rng.sample(floor, len(hall_cooks))):
        grid[r][c] = str(names.index(cook) + 1)

    # The text below names the folder this generator was once kept in: the shipped files say so, and
    # a changed byte would change their fingerprints (experiments/runner.py resumes runs by them).
    who = ", ".join(alcove_cooks[:-1]) + f" and {alcove_cooks[-1]}"
    lines = [f"# {WORDS[n].capitalize()} cooks of mixed ToM levels (levels 0, 1, 2 by their order with "
             "tom-cook:k=cycle).",
             f"# Written by scenarios/kitchen/teams/make_kitchen_teams.py (level {number:02d}).",
             f"title: {WORDS[n].capitalize()} cooks, {WORDS[m]} alcoves ({number:02d})",
             f"description: {n} cooks of mixed ToM levels (tom-cook:k=cycle); {who} cook in alcoves and need a "
             "teammate to pass their onions over the counter. The team formed cooks; idle cooks stand aside. "
             "Written by scenarios/kitchen/teams/make_kitchen_teams.py.",
             "category: necessary",
             f"t_max: {40 + 10 * n}",
             "rules: 1"]  # designed under rules 1: doors see both rooms, cooks know every station
    lines += [f"agent {a}: {dishes[a]}" for a in names]
    lines += ["map:"] + ["".join(row) for row in grid]
    return "\n".join(lines) + "\n", alcove_cooks


def delivered(spec: dict[str, Any], level: int) -> dict[str, Any]:
    """Each cook's delivery tick (None: not delivered) with every seat a ``tom-cook`` of ``level``."""
    from agents.registry import make_agent
    from sim.kitchen.world import KitchenWorld
    from sim.session import Session

    world = KitchenWorld(spec)
    seats = {a: make_agent(f"tom-cook:k={level}", "kitchen") for a in world.agents}
    return Session(world, seats, seed=0).run()["delivered"]


def read(name: str, level_text: str, source: str) -> dict[str, Any]:
    """The level as the kitchen reads it: parsed and validated (a ScenarioError naming the problem)."""
    from sim.kitchen.level import parse_kitchen_text, validate_kitchen

    return validate_kitchen(parse_kitchen_text(level_text, source, name), source)


def scenario(number: int, n: int, rng: random.Random) -> dict[str, Any]:
    """One level, ``kitchen-team-<number>-<n in words>``: drawn from ``rng`` until the cooks can do it."""
    name = f"kitchen-team-{number:02d}-{WORDS[n]}"
    for _ in range(TRIES):
        level_text, alcove_cooks = draw_level(number, n, rng)
        spec = read(name, level_text, name)
        if all(t is not None for t in delivered(spec, 1).values()):
            unhelped = delivered(spec, 0)
            if all(unhelped[a] is None for a in alcove_cooks):
                return {"name": name, "text": level_text}
    raise ValueError(f"{name}: no level of the recipe that level-1 cooks can do in {TRIES} draws")


def check(data: dict[str, Any], source: str) -> None:
    read(data["name"], data["text"], source)


main = Recipe("make_kitchen_teams", scenario, FOLDER, SEED, FIRST, COUNT, __doc__,
              cli={"validate": check, "render": lambda data: data["text"], "suffix": SUFFIX}).main


if __name__ == "__main__":
    sys.exit(main())
