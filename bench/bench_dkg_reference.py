"""Doors, Keys and Gems reference folders: each ASCII map against its .pddl twin.

    .venv/bin/python -m bench.bench_dkg_reference FOLDER [FOLDER ...] [--cap NODES] [--no-optimum]

FOLDER is a folder of a reference project's problems as published (CLIPS.jl's
``doors-keys-gems/dataset/problems``; Plinf's ``domains/multi-agent``, ``domains/Assistive``,
``domains/Reasoning``). Every ``NAME.txt`` beside a ``NAME.pddl`` is read twice, the map by its
folder's loader (docs/dkg.md, "Reference problems") and the twin as PDDL, and compared on:

- the goal: the cell of each agent's goal gem (or both refused for want of a goal);
- the robot's permissions: the gems each agent may not take;
- with two agents, the joint optimum (bench.bench_dkg_helper.joint_optimum: the fewest ticks to
  every goal held, all agents' actions chosen together), unless --no-optimum.

A twin that names a goal other than its map's loader is listed with both goals (the reference's
own files disagree there; both readings are the loaders'). Exit status 1 when any pair differs
in anything else.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def reading(path: Path) -> dict[str, Any]:
    """Goal cells, forbidden gems and spec of a problem file, or the reason it is refused."""
    from sim.dkg.reference import load_reference
    from sim.dkg.world import DKGWorld
    from sim.registry import ScenarioError

    try:
        spec, _ = load_reference(path)
    except ScenarioError as exc:
        return {"refused": str(exc).split(": ", 1)[1].split(";")[0]}
    world = DKGWorld(spec)
    start = world.reset(0)
    cells = {a: divmod(start.item_locs[world.item_index[g]], world.width) for a, g in world.goals.items()}
    forbidden = {a: sorted(g for g in gems if g.startswith("gem"))
                 for a, gems in spec["options"].get("forbidden", {}).items()}
    return {"goal": cells, "forbidden": {a: v for a, v in forbidden.items() if v}, "spec": spec}


def compare(folder: Path, optimum: bool, cap: int) -> tuple[list[str], int, int]:
    """(lines, pairs, pairs differing in anything but a goal the files themselves disagree on)."""
    from bench.bench_dkg_helper import joint_optimum

    lines, pairs, bad = [], 0, 0
    for txt in sorted(folder.glob("*.txt")):
        twin = txt.with_suffix(".pddl")
        if not twin.is_file():
            continue
        pairs += 1
        a, b = reading(txt), reading(twin)
        if "refused" in a or "refused" in b:
            same = "refused" in a and "refused" in b
            lines.append(f"{txt.name}: map {a.get('refused', a.get('goal'))} / twin {b.get('refused', b.get('goal'))}"
                         + ("" if same else "  DIFFERENT"))
            bad += not same
            continue
        problems = []
        if a["goal"] != b["goal"]:
            problems.append(f"goal cell {a['goal']} / {b['goal']} (the twin names another gem)")
        if a["forbidden"] != b["forbidden"]:
            problems.append(f"forbidden {a['forbidden']} / {b['forbidden']}")
        opt = ""
        if optimum and len(a["spec"]["options"]["turn_order"]) == 2 and not problems:
            oa, ob = joint_optimum(a["spec"], cap), joint_optimum(b["spec"], cap)
            opt = f", optimum {oa} / {ob}"
            if oa != ob:
                problems.append(f"optimum {oa} / {ob}")
        goal_only = len(problems) == 1 and problems[0].startswith("goal cell")
        bad += bool(problems) and not goal_only
        lines.append(f"{txt.name}: " + ("; ".join(problems) if problems else f"same goal cell {a['goal']}, same "
                                        f"permissions{opt}") + ("  DIFFERENT" if problems and not goal_only else ""))
    return lines, pairs, bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="FOLDER")
    parser.add_argument("--cap", type=int, default=400_000, help="A* nodes per joint optimum (default 400000)")
    parser.add_argument("--no-optimum", action="store_true", help="compare goals and permissions only")
    args = parser.parse_args(argv)
    total_bad = 0
    for folder in args.folders:
        if not folder.is_dir():
            print(f"error: {folder}: not a folder", file=sys.stderr)
            return 2
        lines, pairs, bad = compare(folder, not args.no_optimum, args.cap)
        print(f"{folder}: {pairs} map/twin pairs, {bad} differing")
        for line in lines:
            print(f"  {line}")
        total_bad += bad
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
