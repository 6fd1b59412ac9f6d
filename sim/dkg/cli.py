"""``python main.py dkg import SRC [--out DIR]``: reference Doors-Keys-Gems problems -> scenarios.

SRC is a PDDL problem (.pddl), an ASCII map (.txt), or a folder of them (a .txt map beside a
.pddl of the same name is the same problem and is skipped). Every file gets one line: the
scenario written, or why it was not (file, line); the command fails (exit 1) when any did.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    dkg = sub.add_parser("dkg", help="Doors, Keys and Gems: import the reference problem files",
                         description="Doors, Keys and Gems tools (docs/dkg.md).")
    dsub = dkg.add_subparsers(dest="dkg_command", metavar="SUBCOMMAND", required=True)
    imp = dsub.add_parser("import", help="write scenarios from PDDL problems and ASCII maps of the reference projects",
                          description="Read Doors-Keys-Gems problems as the planning projects publish them (PDDL "
                                      "problems, ASCII maps: W wall, . empty, r b y e p keys, R B Y E P doors, g gem, "
                                      "G the human's goal gem, h human, m robot) and write one scenario JSON per "
                                      "problem. Agents without a goal (the robot) become helpers.")
    imp.add_argument("src", metavar="SRC", help="a .pddl problem, an ASCII map (.txt), or a folder of them")
    imp.add_argument("--out", metavar="DIR", default="scenarios/dkg/imported",
                     help="folder for the scenarios (default scenarios/dkg/imported, so 'list' shows them)")
    imp.add_argument("--goal", action="append", metavar="AGENT=GEM",
                     help="a goal as the file names it (e.g. human=gem4), replacing the file's own; needed for "
                          "ASCII maps without a 'G'")
    imp.add_argument("--prefix", default="", help="prefix of the scenario names (default none: the file names)")
    imp.add_argument("--t-max", type=int, default=80, metavar="T", help="episode length limit (default 80)")
    imp.add_argument("--force", action="store_true", help="overwrite scenario files that exist")
    imp.set_defaults(func=cmd_import)


def _sources(src: Path) -> list[Path]:
    if src.is_dir():
        files = sorted(p for p in src.iterdir() if p.is_file() and p.suffix.lower() in (".pddl", ".txt"))
        pddl = {p.stem for p in files if p.suffix.lower() == ".pddl"}
        return [p for p in files if p.suffix.lower() == ".pddl" or p.stem not in pddl]
    return [src]


def cmd_import(args: argparse.Namespace) -> int:
    from sim.dkg.reference import import_reference, scenario_name
    from sim.redact import write_text
    from sim.registry import ScenarioError

    src = Path(args.src)
    if not src.exists():
        print(f"error: {src}: no such file or folder", file=sys.stderr)
        return 2
    goals = None
    if args.goal:
        goals = {}
        for g in args.goal:
            agent, sep, gem = g.partition("=")
            if not sep or not agent or not gem:
                print(f"error: --goal {g!r}: expected AGENT=GEM, e.g. human=gem4", file=sys.stderr)
                return 2
            goals[agent] = gem
    if not 1 <= args.t_max <= 100_000:
        print(f"error: --t-max {args.t_max}: expected 1 to 100000", file=sys.stderr)
        return 2
    files = _sources(src)
    if not files:
        print(f"error: {src}: no .pddl or .txt problem files in this folder", file=sys.stderr)
        return 2
    out = Path(args.out)
    failed = 0
    for path in files:
        name = scenario_name(path, args.prefix)
        target = out / f"{name}.json"
        try:
            if target.exists() and not args.force:
                raise ScenarioError(f"{path}: {target} exists (--force overwrites it)")
            data, spec, notes = import_reference(path, name=name, goals=goals, t_max=args.t_max)
        except ScenarioError as exc:
            failed += 1
            print(f"error: {exc}", file=sys.stderr)
            continue
        out.mkdir(parents=True, exist_ok=True)
        write_text(target, json.dumps(data, indent=2) + "\n")
        helpers = [a for a in spec["options"]["turn_order"] if a not in spec["goals"]]
        wants = ", ".join(f"{a} wants {g}" for a, g in spec["goals"].items())
        print(f"{path} -> {target}: {len(spec['map'][0])} x {len(spec['map'])}, {wants}"
              + (f"; {', '.join(helpers)} helps" if helpers else ""))
        for note in notes:
            print(f"  note: {note}")
    print(f"{len(files) - failed} of {len(files)} imported into {out}" + (f"; {failed} failed" if failed else ""))
    return 1 if failed else 0
