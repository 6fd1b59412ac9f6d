"""What the scenario generators share: a recipe's ``generate`` and command line (``generate_with``,
``generator_cli``, ``Recipe``), and for the Doors, Keys and Gems halls (``make_teams``, ``make_joint``,
``make_rush`` and those built on them) the 21 x 10 map walled all round with its hall, the agents of
a hall and the scenario's fields.

Of the hall helpers only ``hall_scenario`` draws from the random generator (the turn order, which
every recipe draws last), so the files a recipe writes do not depend on which helpers it calls.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.dkg.scenario import validate_dkg
from sim.registry import ScenarioError, split_start

WIDTH, HEIGHT = 21, 10
HALL_COLS = range(1, WIDTH - 1)
#: a vault hall (joint tasks, key rushes): the hall on rows 1-6, a wall row of doors (row 7) and
#: the vaults below it (row 8)
VAULT_HALL_ROWS = range(1, 7)
DOOR_ROW = 7
VAULT_ROW = 8
NAMES = ("ada", "ben", "cai", "dot", "eli", "fay", "gus", "hal")
SIZES = (5, 6, 7, 8)
TURNS_PER_AGENT = 40
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}

Scenario = Callable[[int, int, random.Random], dict[str, Any]]


def walled_hall(rows: range) -> list[list[str]]:
    """A WIDTH x HEIGHT map of walls (``#``) with floor (``.``) on ``rows`` x ``HALL_COLS``."""
    grid = [["#"] * WIDTH for _ in range(HEIGHT)]
    for r in rows:
        for c in HALL_COLS:
            grid[r][c] = "."
    return grid


def hall_cells(rows: range) -> list[tuple[int, int]]:
    """The hall's (row, column) cells in reading order."""
    return [(r, c) for r in rows for c in HALL_COLS]


def add_agents(legend: dict[str, Any], n: int) -> list[str]:
    """The first ``n`` of ``NAMES``, each put in ``legend`` as the digit of its number (``"1"``: ada)."""
    agents = list(NAMES[:n])
    for i, name in enumerate(agents):
        legend[str(i + 1)] = {"agent": name}
    return agents


#: the seats of the team halls: k-level ToM planners, levels 0, 1, 2 by turn order
TEAM_AGENTS = ("tom-planner:k=cycle,horizon=3",)


def team_start(mechanism: str, rounds: int | None = None, agents: tuple[str, ...] = TEAM_AGENTS) -> dict[str, Any]:
    """A hall's ``start`` (the seats, mechanism and task rounds the app opens it with): those of
    the experiment that plays its set (``scenarios/experiments/teams-*.json``)."""
    start: dict[str, Any] = {"agents": list(agents), "mechanisms": [mechanism]}
    if rounds is not None:
        start["rounds"] = rounds
    return start


def hall_scenario(rng: random.Random, *, name: str, title: str, description: str, grid: list[list[str]],
                  legend: dict[str, Any], goals: dict[str, str], agents: list[str],
                  start: dict[str, Any] | None = None) -> dict[str, Any]:
    """A hall's scenario data, its fields in the order of the shipped files; the turn order is
    ``agents`` shuffled by ``rng`` and ``t_max`` ``TURNS_PER_AGENT`` turns per agent; ``start``:
    the seats and mechanisms the app opens it with (``team_start``)."""
    turn_order = agents[:]
    rng.shuffle(turn_order)
    data = {
        "world": "dkg",
        "name": name,
        "title": title,
        "description": description,
        "map": ["".join(row) for row in grid],
        "legend": legend,
        "goals": goals,
        "options": {"t_max": TURNS_PER_AGENT * len(agents), "turn_order": turn_order},
    }
    if start is not None:
        data["start"] = start
    return data


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
        source = f"{data['name']} ({script}, seed {seed})"
        validate(split_start(data, source)[0], source)  # as the loader reads it (sim.registry.read_scenario)
        out.append(data)
    return out


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
        if not args.out.is_dir():
            shipped = "" if args.out.resolve() != here else " (this generator's scenarios are not shipped)"
            print(f"{script}: no folder {args.out} to check{shipped}; write the scenarios with --out DIR, "
                  f"then check them with --check --out DIR", file=sys.stderr)
            return 2
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


@dataclass(frozen=True)
class Recipe:
    """A generator's recipe and defaults: ``generate`` gives its scenarios (``generate_with``), ``main``
    is its command line (``generator_cli``; numbers below ``first`` in ``folder`` are not its)."""

    script: str
    scenario: Scenario
    folder: Path
    seed: int
    first: int
    count: int
    doc: str
    #: more keywords of ``generator_cli`` (``validate``, ``render``, ``suffix``)
    cli: dict[str, Any] = field(default_factory=dict)

    def generate(self, seed: int | None = None, first: int | None = None,
                 count: int | None = None) -> list[dict[str, Any]]:
        """``count`` scenarios numbered from ``first`` (the recipe's by default), each validated."""
        return generate_with(self.scenario, self.script, self.seed if seed is None else seed,
                             self.first if first is None else first, self.count if count is None else count,
                             **{k: v for k, v in self.cli.items() if k == "validate"})

    def main(self, argv: list[str] | None = None) -> int:
        return generator_cli(argv, doc=self.doc, script=self.script, scenario=self.scenario, here=self.folder,
                             seed=self.seed, first=self.first, count=self.count, reserved_below=self.first, **self.cli)
