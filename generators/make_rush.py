"""Write Doors, Keys and Gems key-rush scenarios from a fixed seed: halls with 5-8 agents whose
gems lie in vaults behind doors of one colour, with as many keys of that colour in the hall as
there are agents. Any key opens any vault, so teammates who go for the same key get in each
other's way: who takes which key is what the agents must predict of each other.

    python -m generators.make_rush              # writes the shipped scenarios (seed 29)
    python -m generators.make_rush --check      # exit 1 unless the files on disk are these
    python -m generators.make_rush --out DIR --first 1 --count 8 --seed 7

The recipe (docs/reports/teams-rush-confirm.md):

* a 21 x 10 map: a hall of 19 x 6 floor cells (rows 1-6), a wall row (row 7) with one red door
  per agent, and below each door a vault of one cell (row 8) holding that agent's gem; no two
  vaults side by side;
* 5, 6, 7 or 8 agents (``ada``, ``ben``, ... ``hal``), as many scenarios of each size (when the
  count is a multiple of 4; the sizes cycle), in a shuffled order;
* n red keys and the n agents on distinct random hall cells; each agent's goal the gem of a
  distinct random vault; a random turn order; ``t_max`` = 40 turns per agent.

Every scenario is checked by ``validate_dkg`` before anything is written. The output depends on
the seed only (Python's ``random.Random``).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from generators.common import (
    DOOR_ROW,
    HALL_COLS,
    SIZES,
    VAULT_HALL_ROWS,
    VAULT_ROW,
    WORDS,
    Recipe,
    add_agents,
    hall_cells,
    hall_scenario,
    team_start,
    walled_hall,
)
from sim.dkg.scenario import COLORS
from sim.registry import SCENARIO_DIR

#: the folder of the shipped scenarios (the default of ``--out``)
FOLDER = SCENARIO_DIR / "dkg" / "rush"
SEED = 29
FIRST = 1
COUNT = 48


def scenario(number: int, n: int, rng: random.Random) -> dict[str, Any]:
    """One scenario, ``rush-<number>-<n in words>``, drawn from ``rng``: one key per agent."""
    return hall(number, n, rng, keys=n)


#: how the app opens a key-rush hall: as the teams-rush-confirm experiment plays it ("teams")
RUSH_START = team_start("teams:round_steps=6,max_size=eta,embedding=steps")


def hall(number: int, n: int, rng: random.Random, *, keys: int, prefix: str = "rush",
         title: str = "in a key rush", about_keys: str = "one red key per agent",
         start: dict[str, Any] = RUSH_START) -> dict[str, Any]:
    """A key-rush hall with ``keys`` red keys, named ``<prefix>-<number>-<n in words>``, that the
    app opens with ``start``."""
    if n not in SIZES:
        raise ValueError(f"a key-rush scenario has 5 to 8 agents, not {n}")
    if not 1 <= keys <= n:
        raise ValueError(f"a key-rush hall of {n} agents holds 1 to {n} keys, not {keys}")
    grid = walled_hall(VAULT_HALL_ROWS)
    # n vault columns, no two side by side: choose n gaps among the columns left over
    spare = len(HALL_COLS) - (2 * n - 1)
    extra = sorted(rng.sample(range(spare + n), n))
    columns = [HALL_COLS[0] + e + i for i, e in enumerate(extra)]
    legend: dict[str, Any] = {"#": "wall", ".": "floor", "a": {"door": "red"}, "b": {"key": "red"}}
    gem_chars = "cdefghij"
    for i, colour in enumerate(COLORS[:n]):
        legend[gem_chars[i]] = {"gem": colour}
    agents = add_agents(legend, n)
    for i, col in enumerate(columns):
        grid[DOOR_ROW][col] = "a"
        grid[VAULT_ROW][col] = gem_chars[i]
    placed = ["b"] * keys + [str(i + 1) for i in range(n)]
    for char, (r, c) in zip(placed, rng.sample(hall_cells(VAULT_HALL_ROWS), len(placed))):
        grid[r][c] = char
    # gem ids follow reading order: the vaults' gems are the last n items of the map, left to right
    gems = [f"gem{i + 1}" for i in range(n)]
    rng.shuffle(gems)
    goals = dict(zip(agents, gems))
    # The text below names the folder this generator was once kept in: the shipped files say so, and
    # a changed byte would change their fingerprints (experiments/runner.py resumes runs by them).
    return hall_scenario(
        rng, name=f"{prefix}-{number:02d}-{WORDS[n]}", agents=agents, grid=grid, legend=legend, goals=goals,
        title=f"{WORDS[n].capitalize()} {title} ({number:02d})",
        description=(f"{n} agents of mixed ToM levels (levels 0, 1, 2 by turn order with tom-planner:k=cycle); "
                     f"each agent's gem lies in a vault behind a red door, and the hall holds {about_keys}: "
                     "any key opens any vault, so teammates who go for the same key get in each other's "
                     "way. The team formed does the task; idle agents stand aside. Written by "
                     f"scenarios/dkg/{prefix}/make_{prefix}.py."),
        start=start)


RECIPE = Recipe("make_rush", scenario, FOLDER, SEED, FIRST, COUNT, __doc__)
generate, main = RECIPE.generate, RECIPE.main


def key_rush_cli(argv: list[str] | None, *, doc: str, script: str, here: Path, seed: int, prefix: str,
                 title: str, start: dict[str, Any]) -> int:
    """The command line of a generator of key-rush halls (one key per agent) named ``<prefix>-NN-<n>``,
    for a confirmation that plays them its own way (``generators.make_rounds``, ``generators.make_taskround``),
    which the app opens with ``start``."""
    def named(number: int, n: int, rng: random.Random) -> dict[str, Any]:
        return hall(number, n, rng, keys=n, prefix=prefix, title=title, start=start)

    return Recipe(script, named, here, seed, FIRST, COUNT, doc).main(argv)


if __name__ == "__main__":
    sys.exit(main())
