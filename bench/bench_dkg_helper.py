"""Doors, Keys and Gems: the goal-less helper against the human alone and the joint optimum.

    .venv/bin/python -m bench.bench_dkg_helper [--cap NODES] [--json FILE]

Design (fixed before the run): the problems are every two-agent problem the project ships or
imports in its tests, one human with a goal and one helper without:

- each shipped two-agent scenario (``scenarios/dkg/*.json`` with two agents), twice: each
  agent in turn keeps its gem and the other becomes the helper, which may not take gems (the
  reference problems' ``(forbidden robot GEM)``);
- each two-agent problem of ``tests/fixtures/dkg_reference`` (a map read twice, as a .pddl and
  as its ASCII twin, counts once).

With ``--reference FOLDER ...`` the problems are instead every two-agent problem with one
goal-less helper that ``dkg import`` imports from the reference folders (one per .pddl, and maps
without a twin), read by their loaders' rules.

n counts problems (the agents are deterministic: one episode each). For each problem:

- *alone*: the human is the planner agent and the helper waits throughout;
- *helped*: the human is the planner agent and the helper the planner agent without a goal;
- *joint optimum*: the fewest ticks in which the human can hold its gem under the rules with
  both agents' actions chosen together (A* over joint states, turn-taking, an admissible
  bound on the human's remaining walk; given up after ``--cap`` expanded nodes).

- *helper optimum*: the fewest ticks when the human is the planner agent as in *helped* and
  only the helper's actions are chosen freely (uniform-cost search, same cap): the best any
  helper can do with this human, who plans for its own gem and does not wait for help.

Figures: problems where helped is slower than alone (must be 0), helped faster than alone,
the share of problems whose helped length equals the joint optimum (among those whose
optimum was found within the cap), and how many reach the helper optimum.
"""

from __future__ import annotations

import argparse
import copy
import heapq
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "dkg_reference"


def helper_problems() -> list[tuple[str, dict[str, Any]]]:
    """(name, validated spec) of every two-agent problem with one goal-less helper (module docs)."""
    from sim.dkg.reference import load_reference
    from sim.dkg.scenario import validate_dkg

    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((ROOT / "scenarios" / "dkg").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        agents = [e["agent"] for e in data["legend"].values() if isinstance(e, dict) and "agent" in e]
        if data.get("world") != "dkg" or len(agents) != 2:
            continue
        gems = sum(isinstance(e, dict) and "gem" in e for ch in "".join(data["map"]) for e in [data["legend"][ch]])
        for human in agents:
            helper = next(a for a in agents if a != human)
            variant = copy.deepcopy(data)
            variant["name"] = f"{data['name']}-{human}-helped"
            variant["goals"] = {human: data["goals"][human]}
            variant.setdefault("options", {})["forbidden"] = {helper: [f"gem{i + 1}" for i in range(gems)]}
            out.append((variant["name"], validate_dkg(variant, str(path))))
    seen: set[str] = set()
    for path in sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".pddl", ".txt") and "plans" not in p.parts):
        try:
            spec, _ = load_reference(path)
        except Exception:  # refused files (each with its reason, tests/test_dkg_import.py)
            continue
        if len(spec["options"]["turn_order"]) != 2 or len(spec["goals"]) != 1:
            continue
        key = json.dumps([spec["map"], spec["goals"]])
        if key in seen:
            continue
        seen.add(key)
        out.append((path.relative_to(FIXTURES).as_posix(), spec))
    return out


def reference_problems(folders: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    """(name, validated spec) of every two-agent problem with one goal-less helper that ``dkg
    import`` imports from the reference ``folders`` (the files it reads, by their loaders'
    rules; those it refuses or leaves without a goal are not problems here)."""
    from sim.dkg.cli import _sources
    from sim.dkg.reference import load_reference
    from sim.registry import ScenarioError

    out: list[tuple[str, dict[str, Any]]] = []
    for folder in folders:
        for path in _sources(folder)[0]:
            try:
                spec, _ = load_reference(path)
            except ScenarioError:
                continue
            if len(spec["options"]["turn_order"]) == 2 and len(spec["goals"]) == 1:
                out.append((f"{folder.name}/{path.name}", spec))
    return out


def play(spec: dict[str, Any], helped: bool) -> dict[str, Any]:
    """The outcome with a planner human and the helper planning (``helped``) or waiting."""
    from agents.dkg.agents import PlannerAgent
    from sim.dkg.reference import PlanFollower
    from sim.dkg.world import DKGWorld
    from sim.session import Session

    world = DKGWorld(spec)
    seats = {a: PlannerAgent() if a in world.goals or helped else PlanFollower([]) for a in world.agents}
    session = Session(world, seats, seed=0)
    session.run()
    return world.outcome(session.state)


def joint_optimum(spec: dict[str, Any], cap: int = 400_000) -> int | None:
    """Fewest ticks to every goal held with all agents' actions chosen together; None past ``cap``."""
    from agents.dkg.agents import ticks_left_bound
    from agents.dkg.planner import DKGPlanner
    from sim.dkg.world import DKGWorld

    world = DKGWorld(spec)
    planner = DKGPlanner(world)
    goal_agents = world.goal_agents

    def bound(s) -> int:
        return ticks_left_bound(world, planner, s)

    start = world.reset(0)
    key = lambda s: (s.turn, s.agent_cells, s.item_locs, s.open_doors)  # noqa: E731
    frontier = [(bound(start), 0, 0, start)]
    best_g = {key(start): 0}
    counter = 0
    expanded = 0
    while frontier:
        f, _, g, s = heapq.heappop(frontier)
        if g > best_g.get(key(s), 10**9):
            continue
        if all(world.holds_goal(s, a) for a in goal_agents):
            return g
        expanded += 1
        if expanded > cap or g >= world.t_max:
            if expanded > cap:
                return None
            continue
        agent = world.agents[s.turn]
        for action in world.legal_actions(s, agent):
            if action.startswith("unlock ") and action.count(" ") == 2:
                continue  # the same door with a named key: the default key is as good for the optimum
            nxt = world.step(s, {agent: action}).state
            k = key(nxt)
            if g + 1 < best_g.get(k, 10**9):
                best_g[k] = g + 1
                counter += 1
                heapq.heappush(frontier, (g + 1 + bound(nxt), counter, g + 1, nxt))
    return None


def helper_optimum(spec: dict[str, Any], cap: int = 400_000) -> int | None:
    """Fewest ticks to every goal held when each agent with a goal is the planner agent (its
    action a function of the state) and only the helper's actions are chosen freely: the best any
    helper can do with this human (uniform-cost search; None past ``cap`` expanded nodes)."""
    from agents.dkg.agents import planner_action, planner_for
    from agents.dkg.planner import Task
    from sim.dkg.world import DKGWorld

    world = DKGWorld(spec)
    planner = planner_for(world)
    start = world.reset(0)
    key = lambda s: (s.turn, s.agent_cells, s.item_locs, s.open_doors)  # noqa: E731
    frontier = [(0, 0, start)]
    best_g = {key(start): 0}
    counter = expanded = 0
    while frontier:
        g, _, s = heapq.heappop(frontier)
        if g > best_g.get(key(s), 10**9):
            continue
        if world.done(s):
            if all(world.holds_goal(s, a) for a in world.goal_agents):
                return g
            continue
        expanded += 1
        if expanded > cap:
            return None
        a = s.turn
        agent = world.agents[a]
        goal = world.goal_item[a]
        if goal is not None:
            actions = [planner_action(world, planner, s, a, Task.hold(goal))]
        else:
            actions = [x for x in world.legal_actions(s, agent) if not (x.startswith("unlock ") and x.count(" ") == 2)]
        for action in actions:
            nxt = world.step(s, {agent: action}).state
            if g + 1 < best_g.get(key(nxt), 10**9):
                best_g[key(nxt)] = g + 1
                counter += 1
                heapq.heappush(frontier, (g + 1, counter, nxt))
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cap", type=int, default=400_000, help="A* nodes per joint optimum (default 400000)")
    parser.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    parser.add_argument("--reference", nargs="+", type=Path, metavar="FOLDER",
                        help="instead: every two-agent problem 'dkg import' imports from these reference folders "
                             "(e.g. CLIPS.jl's dataset/problems, Plinf's domains/multi-agent and Assistive)")
    args = parser.parse_args(argv)
    rows = []
    for name, spec in (reference_problems(args.reference) if args.reference else helper_problems()):
        alone, helped = play(spec, False), play(spec, True)
        optimum = joint_optimum(spec, args.cap)
        best = helper_optimum(spec, args.cap)
        row = {"problem": name, "alone": alone["length"], "helped": helped["length"], "joint_optimum": optimum,
               "helper_optimum": best}
        rows.append(row)
        print(f"{name:40s} alone {row['alone']!s:>5}  helped {row['helped']!s:>5}  joint optimum {optimum!s:>5}"
              f"  helper optimum {best!s:>5}", flush=True)
    inf = float("inf")
    slower = [r for r in rows if (r["helped"] or inf) > (r["alone"] or inf)]
    faster = [r for r in rows if (r["helped"] or inf) < (r["alone"] or inf)]
    known = [r for r in rows if r["joint_optimum"] is not None]
    optimal = [r for r in known if r["helped"] == r["joint_optimum"]]
    print(f"n = {len(rows)} problems; helped slower than alone: {len(slower)}; faster: {len(faster)}; "
          f"equal: {len(rows) - len(slower) - len(faster)}")
    print(f"helped at the joint optimum: {len(optimal)} of {len(known)} problems whose optimum was found "
          f"({100 * len(optimal) / max(len(known), 1):.0f}%)")
    reach = [r for r in rows if r["helper_optimum"] is not None]
    at_reach = [r for r in reach if r["helped"] == r["helper_optimum"]]
    within = [r for r in known if r["helper_optimum"] == r["joint_optimum"]]
    print(f"helped at the helper optimum (the best any helper does with this human): {len(at_reach)} of "
          f"{len(reach)}; the helper optimum is the joint optimum on {len(within)} of {len(known)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
