"""Write Doors, Keys and Gems team scenarios from a fixed seed: halls with 5-8 agents, some of
them locked in rooms whose keys lie in the hall (the scenarios of the ``teams-dkg`` experiments).

    python -m generators.make_teams            # writes team-09-* .. team-56-* (seed 13)
    python -m generators.make_teams --check    # exit 1 unless the files on disk are these
    python -m generators.make_teams --out DIR --first 1 --count 8 --seed 7

The recipe (docs/reports/teams-dkg-confirm.md):

* a 21 x 10 map: a hall of 19 x 5 floor cells (rows 1-5), a wall row (row 6) with one door per
  room, rooms of 3 x 2 floor cells (rows 7-8) below it, the first starting at column 1 or 2, one
  or two wall columns between rooms, each door in its room's middle column;
* 5, 6, 7 or 8 agents (``ada``, ``ben``, ... ``hal``), as many scenarios of each size (when the
  count is a multiple of 4; the sizes cycle), in a shuffled order;
* 2 to floor(n / 2) agents (uniformly) locked in, one per room, on a random cell of it; doors
  red, blue, yellow, green in room order, each door's key in the hall;
* one gem per agent (colours in ``sim.dkg.scenario.COLORS`` order), all in the hall; keys, gems
  and the other agents on distinct random hall cells; each agent's goal a distinct random gem;
  a random turn order; ``t_max`` = 40 turns per agent.

Every scenario is checked by ``validate_dkg`` before anything is written. The output depends on
the seed only (Python's ``random.Random``); files of other names in the folder are left alone.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from generators.common import SIZES, WORDS, Recipe, add_agents, hall_cells, hall_scenario, team_start, walled_hall
from sim.dkg.scenario import COLORS
from sim.registry import SCENARIO_DIR

#: the folder of the shipped scenarios (the default of ``--out``)
FOLDER = SCENARIO_DIR / "dkg" / "teams"
SEED = 13
FIRST = 9
COUNT = 48

HALL_ROWS = range(1, 6)
DOOR_ROW = 6
ROOM_ROWS = (7, 8)
ROOM_WIDTH = 3


def scenario(number: int, n: int, rng: random.Random) -> dict[str, Any]:
    """One scenario, ``team-<number>-<n in words>``, drawn from ``rng``."""
    if n not in SIZES:
        raise ValueError(f"a team scenario has 5 to 8 agents, not {n}")
    locked_count = rng.randint(2, n // 2)
    grid = walled_hall(HALL_ROWS)
    rooms: list[int] = []  # first column of each room
    col = rng.randint(1, 2)
    for i in range(locked_count):
        if i:
            col += ROOM_WIDTH + rng.randint(1, 2)
        rooms.append(col)
        for r in ROOM_ROWS:
            for c in range(col, col + ROOM_WIDTH):
                grid[r][c] = "."

    legend: dict[str, Any] = {"#": "wall", ".": "floor"}
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    door_chars, key_chars = [], []
    for colour in COLORS[:locked_count]:
        door_chars.append(next(letters))
        legend[door_chars[-1]] = {"door": colour}
        key_chars.append(next(letters))
        legend[key_chars[-1]] = {"key": colour}
    gem_chars = []
    for colour in COLORS[:n]:
        gem_chars.append(next(letters))
        legend[gem_chars[-1]] = {"gem": colour}
    agents = add_agents(legend, n)

    locked = rng.sample(agents, locked_count)  # in room order
    for first_col, agent, door in zip(rooms, locked, door_chars):
        grid[DOOR_ROW][first_col + ROOM_WIDTH // 2] = door
        r, c = rng.choice([(r, c) for r in ROOM_ROWS for c in range(first_col, first_col + ROOM_WIDTH)])
        grid[r][c] = str(agents.index(agent) + 1)
    free = [a for a in agents if a not in locked]
    placed = key_chars + gem_chars + [str(agents.index(a) + 1) for a in free]
    for char, (r, c) in zip(placed, rng.sample(hall_cells(HALL_ROWS), len(placed))):
        grid[r][c] = char

    gems = [f"gem{i + 1}" for i in range(n)]  # ids in reading order, as the format numbers them
    rng.shuffle(gems)
    goals = dict(zip(agents, gems))

    name = f"team-{number:02d}-{WORDS[n]}"
    # The text below names the folder this generator was once kept in: the shipped files say so, and
    # a changed byte would change their fingerprints (experiments/runner.py resumes runs by them).
    who = ", ".join(locked)
    return hall_scenario(
        rng, name=name, agents=agents, grid=grid, legend=legend, goals=goals,
        title=f"{WORDS[n].capitalize()} in a hall, {WORDS[locked_count]} locked in ({number:02d})",
        description=(f"{n} agents of mixed ToM levels (levels 0, 1, 2 by turn order with tom-planner:k=cycle); "
                     f"{who} start locked in rooms whose keys lie in the hall, so only a teammate who unlocks "
                     "their door lets them reach their gems. The team formed does the task; idle agents "
                     "stand aside. Written by scenarios/dkg/teams/make_teams.py."),
        start=TEAM_HALL_START)


#: how the app opens a team hall: as the teams-dkg experiment plays it (its "teams" condition)
TEAM_HALL_START = team_start("teams:round_steps=6,max_size=eta,embedding=steps")

RECIPE = Recipe("make_teams", scenario, FOLDER, SEED, FIRST, COUNT, __doc__)
generate, main = RECIPE.generate, RECIPE.main


if __name__ == "__main__":
    sys.exit(main())
