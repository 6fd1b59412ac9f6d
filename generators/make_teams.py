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

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.dkg.scenario import COLORS, validate_dkg
from sim.registry import SCENARIO_DIR, ScenarioError

#: the folder of the shipped scenarios (the default of ``--out``)
FOLDER = SCENARIO_DIR / "dkg" / "teams"
SEED = 13
FIRST = 9
COUNT = 48

WIDTH, HEIGHT = 21, 10
HALL_ROWS = range(1, 6)
HALL_COLS = range(1, WIDTH - 1)
DOOR_ROW = 6
ROOM_ROWS = (7, 8)
ROOM_WIDTH = 3
NAMES = ("ada", "ben", "cai", "dot", "eli", "fay", "gus", "hal")
SIZES = (5, 6, 7, 8)
TURNS_PER_AGENT = 40
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def scenario(number: int, n: int, rng: random.Random) -> dict[str, Any]:
    """One scenario, ``team-<number>-<n in words>``, drawn from ``rng``."""
    if n not in SIZES:
        raise ValueError(f"a team scenario has 5 to 8 agents, not {n}")
    locked_count = rng.randint(2, n // 2)
    grid = [["#"] * WIDTH for _ in range(HEIGHT)]
    for r in HALL_ROWS:
        for c in HALL_COLS:
            grid[r][c] = "."
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
    agents = list(NAMES[:n])
    for i, name in enumerate(agents):
        legend[str(i + 1)] = {"agent": name}

    locked = rng.sample(agents, locked_count)  # in room order
    for first_col, agent, door in zip(rooms, locked, door_chars):
        grid[DOOR_ROW][first_col + ROOM_WIDTH // 2] = door
        r, c = rng.choice([(r, c) for r in ROOM_ROWS for c in range(first_col, first_col + ROOM_WIDTH)])
        grid[r][c] = str(agents.index(agent) + 1)
    free = [a for a in agents if a not in locked]
    hall = [(r, c) for r in HALL_ROWS for c in HALL_COLS]
    placed = key_chars + gem_chars + [str(agents.index(a) + 1) for a in free]
    for char, (r, c) in zip(placed, rng.sample(hall, len(placed))):
        grid[r][c] = char

    gems = [f"gem{i + 1}" for i in range(n)]  # ids in reading order, as the format numbers them
    rng.shuffle(gems)
    goals = dict(zip(agents, gems))
    turn_order = agents[:]
    rng.shuffle(turn_order)

    name = f"team-{number:02d}-{WORDS[n]}"
    # The text below names the folder this generator was once kept in: the shipped files say so, and
    # a changed byte would change their fingerprints (experiments/runner.py resumes runs by them).
    who = ", ".join(locked)
    return {
        "world": "dkg",
        "name": name,
        "title": f"{WORDS[n].capitalize()} in a hall, {WORDS[locked_count]} locked in ({number:02d})",
        "description": (f"{n} agents of mixed ToM levels (levels 0, 1, 2 by turn order with tom-planner:k=cycle); "
                        f"{who} start locked in rooms whose keys lie in the hall, so only a teammate who unlocks "
                        "their door lets them reach their gems. The team formed does the task; idle agents "
                        "stand aside. Written by scenarios/dkg/teams/make_teams.py."),
        "map": ["".join(row) for row in grid],
        "legend": legend,
        "goals": goals,
        "options": {"t_max": TURNS_PER_AGENT * n, "turn_order": turn_order},
    }


def generate_with(scenario_fn: Callable[[int, int, random.Random], dict[str, Any]], script: str, seed: int,
                  first: int, count: int, validate: Callable[[dict[str, Any], str], Any] = validate_dkg
                  ) -> list[dict[str, Any]]:
    """``count`` scenarios of a recipe numbered from ``first``, sizes 5-8 cycled then shuffled,
    each checked by ``validate`` (the world's validator: ``validate_dkg`` by default)."""
    if count < 1 or first < 1 or first + count - 1 > 99:
        raise ValueError(f"scenario numbers run from 1 to 99; got --first {first} and --count {count}")
    rng = random.Random(seed)
    sizes = [SIZES[i % len(SIZES)] for i in range(count)]
    rng.shuffle(sizes)
    out = []
    for number, n in zip(range(first, first + count), sizes):
        data = scenario_fn(number, n, rng)
        validate(data, f"{data['name']} ({script}, seed {seed})")
        out.append(data)
    return out


def generate(seed: int = SEED, first: int = FIRST, count: int = COUNT) -> list[dict[str, Any]]:
    """``count`` scenarios numbered from ``first``, each validated by ``validate_dkg``."""
    return generate_with(scenario, "make_teams", seed, first, count)


def text(data: dict[str, Any]) -> str:
    """A scenario file's contents, formatted as the shipped team scenarios are."""
    return json.dumps(data, indent=1) + "\n"


def generator_cli(argv: list[str] | None, *, doc: str, script: str,
                  scenario: Callable[[int, int, random.Random], dict[str, Any]], here: Path, seed: int, first: int,
                  count: int, reserved_below: int, validate: Callable[[dict[str, Any], str], Any] = validate_dkg,
                  render: Callable[[dict[str, Any]], str] = text, suffix: str = ".json") -> int:
    """The command line of a scenario generator: write, or ``--check``, the scenarios of a seed.
    Numbers below ``reserved_below`` are not the generator's in ``here``, the folder of its
    shipped scenarios. ``validate``,
    ``render`` and ``suffix``: the world's validator, file text and file name ending (Doors, Keys
    and Gems JSON by default)."""
    parser = argparse.ArgumentParser(prog=script, description=doc.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=seed, help=f"generator seed (default {seed})")
    parser.add_argument("--first", type=int, default=first, help=f"number of the first scenario (default {first})")
    parser.add_argument("--count", type=int, default=count, help=f"how many scenarios (default {count})")
    parser.add_argument("--out", type=Path, default=here, help=f"folder to write to (default: {here})")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 unless the files match")
    args = parser.parse_args(argv)
    try:
        scenarios = generate_with(scenario, script, args.seed, args.first, args.count, validate)
    except (ValueError, ScenarioError) as exc:
        print(f"{script}: {exc}", file=sys.stderr)
        return 2
    if not args.check and args.out.resolve() == here and args.first < reserved_below:
        print(f"{script}: scenarios 01-{reserved_below - 1:02d} of {here} are not this generator's; write numbers "
              f"below {reserved_below} to another folder (--out)", file=sys.stderr)
        return 2
    if args.check:
        wrong = [d["name"] for d in scenarios
                 if not (args.out / f"{d['name']}{suffix}").is_file()
                 or (args.out / f"{d['name']}{suffix}").read_text() != render(d)]
        for name in wrong:
            print(f"{args.out / (name + suffix)}: missing or not what seed {args.seed} gives", file=sys.stderr)
        print(f"{len(scenarios) - len(wrong)} of {len(scenarios)} scenarios match seed {args.seed}")
        return 1 if wrong else 0
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        for d in scenarios:
            (args.out / f"{d['name']}{suffix}").write_text(render(d))
    except OSError as exc:
        print(f"{script}: cannot write to {args.out}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(scenarios)} scenarios ({scenarios[0]['name']} .. {scenarios[-1]['name']}) to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    return generator_cli(argv, doc=__doc__, script="make_teams", scenario=scenario, here=FOLDER, seed=SEED,
                         first=FIRST, count=COUNT, reserved_below=FIRST)


if __name__ == "__main__":
    sys.exit(main())
