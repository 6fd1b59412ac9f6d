"""``python main.py dkg import SRC [--out DIR]``: reference Doors-Keys-Gems problems -> scenarios.

SRC is a PDDL problem (.pddl), an ASCII map (.txt), or a folder of them (a .txt map beside a
.pddl of the same name is the same problem and is skipped, and so are PDDL domain files and plan
files). Every file gets one line: the scenario written, or why it was not (file, line), with notes
on how it was read (which loader and goal rule applied); the command fails (exit 1) when any
problem did, a problem of a folder that names no goal aside (the reference leaves it open).

``python main.py dkg plan PROBLEM PLAN [PLAN ...] [--record FILE]`` replays reference plan files.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

LOADER_NAMES = ("clips", "plinf-multi-agent", "plinf-assistive", "plinf-reasoning", "single-agent")  # reference.LOADERS
MAX_PDDL_BYTES = 4_000_000  # how much of a .pddl file is read to tell a domain from a problem


def add_parser(sub: Any) -> None:
    dkg = sub.add_parser("dkg", help="Doors, Keys and Gems: import the reference problem files",
                         description="Doors, Keys and Gems tools (docs/dkg.md).")
    dsub = dkg.add_subparsers(dest="dkg_command", metavar="SUBCOMMAND", required=True)
    imp = dsub.add_parser("import", help="write scenarios from PDDL problems and ASCII maps of the reference projects",
                          description="Read Doors-Keys-Gems problems as the planning projects publish them (PDDL "
                                      "problems; ASCII maps: W wall, . empty, r b y e p keys, R B Y E P doors, g G "
                                      "gems, h human, m robot, each map with the goal, robot permissions and alphabet "
                                      "of its folder's loader, see --loader) and write one scenario JSON per "
                                      "problem. Agents without a goal (the robot) become helpers.")
    imp.add_argument("src", metavar="SRC", help="a .pddl problem, an ASCII map (.txt), or a folder of them")
    imp.add_argument("--out", metavar="DIR", default="scenarios/dkg/imported",
                     help="folder for the scenarios (default scenarios/dkg/imported, so 'list' shows them)")
    imp.add_argument("--goal", action="append", metavar="AGENT=GEM",
                     help="a goal as the file names it (e.g. human=gem4), replacing the file's own; needed where "
                          "neither the file nor its map's loader names one")
    imp.add_argument("--loader", choices=LOADER_NAMES, metavar="NAME",
                     help="read ASCII maps as this reference loader does (" + ", ".join(LOADER_NAMES) + "); default: "
                          "by the map's folder (multi-agent, Assistive, Reasoning: Plinf's), else CLIPS.jl's for a "
                          "map with a robot, the single-agent one without (docs/dkg.md)")
    imp.add_argument("--prefix", default="", help="prefix of the scenario names (default none: the file names)")
    imp.add_argument("--t-max", type=int, default=80, metavar="T", help="episode length limit (default 80)")
    imp.add_argument("--force", action="store_true", help="overwrite scenario files that exist")
    imp.set_defaults(func=cmd_import)
    plan = dsub.add_parser("plan", help="replay a reference plan file on its problem",
                           description="Check a plan file of the reference projects (one PDDL action a line, e.g. "
                                       "(unlock robot key1 door3); ';' lines are utterances) step by step on its "
                                       "problem (.pddl or ASCII map), print the outcome, and optionally record the "
                                       "replay for 'python main.py replay' and the app.")
    plan.add_argument("problem", metavar="PROBLEM", help="the problem file (.pddl or .txt)")
    plan.add_argument("plan", metavar="PLAN", nargs="+",
                      help="the plan file; several are played one after the other (an observed plan, then its "
                           "completion)")
    plan.add_argument("--goal", action="append", metavar="AGENT=GEM",
                      help="a goal as the problem file names it (default: the gem the plan's last action picks up, "
                           "as CLIPS.jl reads a stimulus's goal, else the problem's goal)")
    plan.add_argument("--loader", choices=LOADER_NAMES, metavar="NAME",
                      help="read an ASCII problem as this reference loader does (as for 'dkg import')")
    plan.add_argument("--record", metavar="FILE", help="write the replay as a recording (.jsonl)")
    plan.set_defaults(func=cmd_plan)


def _goals(values: list[str] | None) -> dict[str, str] | None | str:
    """The --goal flags as a mapping, None without any, or the error text of a bad one."""
    if not values:
        return None
    goals = {}
    for g in values:
        agent, sep, gem = g.partition("=")
        if not sep or not agent or not gem:
            return f"--goal {g!r}: expected AGENT=GEM, e.g. human=gem4"
        goals[agent] = gem
    return goals


def is_domain_file(path: Path) -> bool:
    """A PDDL domain (``(define (domain ...``), not a problem: folders of the reference projects
    keep their domain.pddl beside the problems."""
    if path.suffix.lower() != ".pddl":
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(MAX_PDDL_BYTES)  # the whole file: a domain may open with a commented-out copy
    except OSError:
        return False
    return re.match(r"\s*\(\s*define\s*\(\s*domain\b", re.sub(r";[^\n]*", "", head), re.IGNORECASE) is not None


def is_plan_file(path: Path) -> bool:
    """A plan file (one action a line, ``(left human)``), not a problem: Plinf keeps one beside its maps."""
    from sim.dkg.reference import is_plan_text

    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return is_plan_text(f.read(65536))
    except OSError:
        return False


def cmd_plan(args: argparse.Namespace) -> int:
    from sim.dkg.reference import PlanFollower, load_plan
    from sim.dkg.world import DKGWorld
    from sim.recording import RecordingWriter
    from sim.registry import ScenarioError
    from sim.session import Session

    goals = _goals(args.goal)
    if isinstance(goals, str):
        print(f"error: {goals}", file=sys.stderr)
        return 2
    for path in (args.problem, *args.plan):
        if not Path(path).is_file():
            print(f"error: {path}: no such file", file=sys.stderr)
            return 2
    try:
        spec, steps, notes = load_plan(args.problem, args.plan, goals=goals, loader=args.loader)
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    world = DKGWorld(spec)
    shown = " + ".join(args.plan)
    seats = {a: PlanFollower([act for who, act, _ in steps if who == a], shown) for a in world.agents}
    session = Session(world, seats, seed=0, scenario=spec["name"])
    if args.record:
        RecordingWriter.attach(session, args.record)
    session.run(max_steps=len(steps))
    for note in notes:
        print(f"note: {note}")
    held = "; ".join(holding_text(world, session.state, a) for a in world.goal_agents)
    print(f"{shown}: {len(steps)} steps replayed on {args.problem}; {held}"
          + (f"; recorded to {args.record}" if args.record else ""))
    return 0


def holding_text(world: Any, state: Any, a: int) -> str:
    """What agent ``a`` holds at the end and whether its goal gem is among it, e.g. "human holds
    gem2 (its goal gem2: reached)"."""
    name = world.agents[a]
    held = [it.id for i, it in enumerate(world.items) if state.item_locs[i] == -1 - a]
    gems = [h for h in held if world.items[world.item_index[h]].kind == "gem"]
    goal = world.goals[name]
    verdict = "reached" if world.holds_goal(state, a) else "not reached"
    return (f"{name} holds {', '.join(gems) if gems else 'no gem'}"
            + (f" (and {', '.join(h for h in held if h not in gems)})" if len(held) > len(gems) else "")
            + f" (its goal {goal}: {verdict})")


def _sources(src: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """(problem files, (file skipped, what it is)) of a folder, or of one file."""
    if src.is_dir():
        files = sorted(p for p in src.iterdir() if p.is_file() and p.suffix.lower() in (".pddl", ".txt"))
    else:
        files = [src]
    skipped = [(p, "a PDDL domain") if is_domain_file(p) else (p, "a plan file") for p in files
               if is_domain_file(p) or is_plan_file(p)]
    files = [p for p in files if p not in {q for q, _ in skipped}]
    pddl = {p.stem for p in files if p.suffix.lower() == ".pddl"}
    return [p for p in files if p.suffix.lower() == ".pddl" or p.stem not in pddl], skipped


def cmd_import(args: argparse.Namespace) -> int:
    from sim.dkg.reference import NoGoalError, import_reference, scenario_name
    from sim.redact import write_text
    from sim.registry import ScenarioError

    src = Path(args.src)
    if not src.exists():
        print(f"error: {src}: no such file or folder", file=sys.stderr)
        return 2
    goals = _goals(args.goal)
    if isinstance(goals, str):
        print(f"error: {goals}", file=sys.stderr)
        return 2
    if not 1 <= args.t_max <= 100_000:
        print(f"error: --t-max {args.t_max}: expected 1 to 100000", file=sys.stderr)
        return 2
    files, skipped = _sources(src)
    for path, what in skipped:
        print(f"{path}: {what}, not a problem: skipped")
    if not files:
        what = f"is {skipped[0][1]}, not a problem" if skipped and not src.is_dir() else \
            "holds no .pddl or .txt problem files"
        print(f"error: {src}: {what}", file=sys.stderr)
        return 2
    out = Path(args.out)
    failed = 0
    goalless: list[Path] = []
    for path in files:
        name = scenario_name(path, args.prefix)
        target = out / f"{name}.json"
        try:
            if target.exists() and not args.force:
                raise ScenarioError(f"{path}: {target} exists (--force overwrites it)")
            data, spec, notes = import_reference(path, name=name, goals=goals, t_max=args.t_max,
                                                 loader=args.loader)
        except NoGoalError as exc:
            if not src.is_dir():  # the one file asked for: an error
                failed += 1
                print(f"error: {exc}", file=sys.stderr)
            else:  # in a folder: the reference leaves this one open, which is no failure of the import
                goalless.append(path)
                print(f"{exc} (not imported)")
            continue
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
    print(f"{len(files) - failed - len(goalless)} of {len(files)} imported into {out}"
          + (f"; {len(goalless)} with no goal named by the file or its loader (--goal AGENT=GEM imports one)"
             if goalless else "")
          + (f"; {failed} failed" if failed else ""))
    return 1 if failed else 0
