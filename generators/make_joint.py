"""Write Doors, Keys and Gems joint-task halls from a fixed seed: halls with 5-8 agents whose gems
lie in vaults behind plate doors. A plate door opens only while an agent stands on each of its two
plates, far apart in the hall, at once: no agent opens a vault alone, and the team's score is the
vaults it opens together (``experiments.teams:vault_score``). Who goes to which plate, and who
comes to help a teammate whose vault partner is not in the team, is what teammates must predict
of each other.

    python -m generators.make_joint              # writes the shipped scenarios (seed 71)
    python -m generators.make_joint --check      # exit 1 unless the files on disk are these
    python -m generators.make_joint --out DIR --first 1 --count 8 --seed 7

The recipe (docs/teams.md, "Joint tasks"):

* a 21 x 10 map: a hall of 19 x 6 floor cells (rows 1-6), a wall row (row 7) with one plate door
  per vault, and below each door a vault of three cells (row 8); vaults are separated by walls;
* 5, 6, 7 or 8 agents (``ada``, ``ben``, ... ``hal``), as many scenarios of each size (when the
  count is a multiple of 4; the sizes cycle), in a shuffled order;
* ceil(n / 2) vaults, each of its own colour, at random columns; the agents, shuffled, are dealt
  to the vaults in turn (two gems per vault, one in the last when n is odd), each gem on a random
  cell of its vault;
* two plates of each vault's colour on random hall cells at least 6 steps apart, and the agents
  on other random hall cells; a random turn order; ``t_max`` = 40 turns per agent.

Every scenario is checked by ``validate_dkg`` before anything is written. The output depends on
the seed only (Python's ``random.Random``).
"""

from __future__ import annotations

import random
import sys
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
FOLDER = SCENARIO_DIR / "dkg" / "joint"
SEED = 71
FIRST = 1
COUNT = 16

#: the least walking distance between the two plates of a vault
PLATE_GAP = 6
#: how the app opens a joint-task hall: as the teams-joint-confirm experiment plays it ("teams"):
#: two task rounds, the first a warm-up
JOINT_START = team_start("teams:round_steps=task,window=round,max_size=eta,warmup=1,embedding=features", rounds=2)


def scenario(number: int, n: int, rng: random.Random) -> dict[str, Any]:
    """One scenario, ``joint-<number>-<n in words>``, drawn from ``rng``."""
    return hall(number, n, rng)


def hall(number: int, n: int, rng: random.Random, *, prefix: str = "joint") -> dict[str, Any]:
    """A joint-task hall named ``<prefix>-<number>-<n in words>``."""
    if n not in SIZES:
        raise ValueError(f"a joint-task hall has 5 to 8 agents, not {n}")
    vaults = (n + 1) // 2
    grid = walled_hall(VAULT_HALL_ROWS)
    # vault centres at least 4 columns apart (3 cells and a wall), none at the hall's edge
    inner = range(HALL_COLS[0] + 1, HALL_COLS[-1])
    spare = len(inner) - (4 * (vaults - 1) + 1)
    extra = sorted(rng.sample(range(spare + vaults), vaults))
    centres = [inner[0] + e + 3 * i for i, e in enumerate(extra)]
    colours = list(COLORS[:vaults])
    legend: dict[str, Any] = {"#": "wall", ".": "floor"}
    for i, colour in enumerate(colours):
        legend["ABCD"[i]] = {"door": colour}
        legend["abcd"[i]] = {"plate": colour}
        legend["pqrs"[i]] = {"gem": colour}
    agents = add_agents(legend, n)
    dealt = agents[:]
    rng.shuffle(dealt)
    owners: dict[tuple[int, int], str] = {}
    for v, col in enumerate(centres):
        grid[DOOR_ROW][col] = "ABCD"[v]
        for c in (col - 1, col, col + 1):
            grid[VAULT_ROW][c] = "."
        mine = dealt[v::vaults]
        for name, c in zip(mine, rng.sample([col - 1, col, col + 1], len(mine))):
            grid[VAULT_ROW][c] = "pqrs"[v]
            owners[(VAULT_ROW, c)] = name
    free = hall_cells(VAULT_HALL_ROWS)
    rng.shuffle(free)
    for v in range(vaults):
        first = free.pop()
        second = next(cell for cell in free if abs(cell[0] - first[0]) + abs(cell[1] - first[1]) >= PLATE_GAP)
        free.remove(second)
        for r, c in (first, second):
            grid[r][c] = "abcd"[v]
    for i in range(n):
        r, c = free.pop()
        grid[r][c] = str(i + 1)
    # gem ids follow reading order: the vaults' gems are the map's only items of row 8, left to right
    gem_cells = sorted(owners, key=lambda rc: rc[1])
    goals = {owners[cell]: f"gem{i + 1}" for i, cell in enumerate(gem_cells)}
    return hall_scenario(
        rng, name=f"{prefix}-{number:02d}-{WORDS[n]}", agents=agents, grid=grid, legend=legend,
        goals={a: goals[a] for a in agents},
        title=f"{WORDS[n].capitalize()} agents, {vaults} vaults opened by two ({number:02d})",
        description=(f"{n} agents of mixed ToM levels (levels 0, 1, 2 by turn order with tom-planner:k=cycle); "
                     f"the gems lie in {vaults} vaults behind plate doors, two gems a vault, and a plate door "
                     "opens only while agents stand on both of its plates at once. The team's score is the "
                     "vaults it opens together; idle agents stand aside. Written by generators/make_joint.py."),
        start=JOINT_START)


RECIPE = Recipe("make_joint", scenario, FOLDER, SEED, FIRST, COUNT, __doc__)
generate, main = RECIPE.generate, RECIPE.main


if __name__ == "__main__":
    sys.exit(main())
