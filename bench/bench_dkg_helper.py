"""Doors, Keys and Gems: the goal-less helper against the human alone and the joint optimum.

    .venv/bin/python -m bench.bench_dkg_helper [--cap NODES] [--json FILE] [--humans planner cooperative]

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

n counts problems (the agents are deterministic: one episode each). Each problem is played with
each human model of ``--humans``: ``planner`` (ProToM's simulated human, the A* planner for its
own gem) and ``cooperative`` (CLIPS.jl's principal: a joint plan with the helper, alone once the
helper puts it off; ``agents.dkg.agents.CooperativeAgent``). For each problem:

- *alone*: the human is the planner agent and the helper waits throughout (the baseline of both
  models: without a helper to act with, the cooperative human acts alone); the cooperative human
  with a waiting helper is also played and reported beside it (it judges the waiting helper
  not cooperating once the wait puts its joint plan off, and acts alone from then on);
- *helped*: the human of the model and the helper the planner agent without a goal, which
  predicts the human by its seat's kind (``humans=seats``);
- *joint optimum*: the fewest ticks in which the human can hold its gem under the rules with
  both agents' actions chosen together (``agents.dkg.joint.joint_path``: A* over joint states,
  turn-taking, an admissible bound on the remaining walk; given up after ``--cap`` expanded
  nodes); the same for both models;
- *helper optimum*: the best any helper can do with the human of the model. For the planner
  human, the fewest ticks when the human is the planner agent and only the helper's actions are
  chosen freely (uniform-cost search, same cap). For the cooperative human, the length played
  with a helper taking its own actions of the human's own joint plan (``joint_step``), which is
  the joint optimum whenever that was found (checked by playing it).

Figures per human model: problems where helped is slower than alone (must be 0 for the planner
human: the bench exits 1 otherwise), helped faster than alone, the share of problems whose
helped length equals the joint optimum (among those whose optimum was found within the cap),
and how many reach the helper optimum.
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


def play(spec: dict[str, Any], helped: bool, human: str = "planner") -> dict[str, Any]:
    """The outcome with a ``human`` of that kind (``planner`` or ``cooperative``) and the helper
    planning (``helped``: the planner agent without a goal, predicting the human by its seat's
    kind) or waiting."""
    from agents.registry import make_agent
    from sim.dkg.reference import PlanFollower
    from sim.dkg.world import DKGWorld
    from sim.session import Session

    world = DKGWorld(spec)
    seats = {a: make_agent(human) if a in world.goals else make_agent("planner") if helped else PlanFollower([])
             for a in world.agents}
    session = Session(world, seats, seed=0)
    session.run()
    return world.outcome(session.state)


def joint_optimum(spec: dict[str, Any], cap: int = 400_000) -> int | None:
    """Fewest ticks to every goal held with all agents' actions chosen together; None past ``cap``
    (``agents.dkg.joint.joint_path``, the cooperative human's own plan)."""
    from agents.dkg.agents import planner_for
    from agents.dkg.joint import joint_path
    from sim.dkg.world import DKGWorld

    world = DKGWorld(spec)
    start = world.reset(0)
    path = joint_path(world, planner_for(world), start, cap)
    return None if path is None else path[-1][0].t - start.t


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


def joint_policy_helper(spec: dict[str, Any]) -> int | None:
    """The length with the cooperative human and a helper that takes, at each of its turns, its
    own action of the same fewest-ticks joint plan (``joint_step``): the cooperative human's
    helper optimum. Both follow one joint plan, so it is the joint optimum when that was found
    (the human never judges this helper not cooperating); played here to check it."""
    from agents.dkg.agents import CooperativeAgent, planner_for
    from agents.dkg.joint import joint_step
    from sim.dkg.world import DKGObservation, DKGWorld
    from sim.seats import Agent
    from sim.session import Session

    world = DKGWorld(spec)
    planner = planner_for(world)

    class JointHelper(Agent):
        kind = "joint-plan"

        def act(self, observation: DKGObservation, legal_actions: Any) -> str:
            action = joint_step(world, planner, observation.state)[1]
            return action if action is not None and action in legal_actions else "wait"

    seats = {a: CooperativeAgent() if a in world.goals else JointHelper() for a in world.agents}
    session = Session(world, seats, seed=0)
    session.run()
    return world.outcome(session.state)["length"]


HUMANS = ("planner", "cooperative")


def summary(rows: list[dict[str, Any]], human: str) -> list[str]:
    """The figures of one human model (module docs)."""
    inf = float("inf")
    lines = []
    alone = [(r["alone"] or inf, r[human]) for r in rows]
    slower = sum((x["helped"] or inf) > a for a, x in alone)
    faster = sum((x["helped"] or inf) < a for a, x in alone)
    known = [r for r in rows if r["joint_optimum"] is not None]
    optimal = [r for r in known if r[human]["helped"] == r["joint_optimum"]]
    reach = [r for r in rows if r[human]["helper_optimum"] is not None]
    at_reach = [r for r in reach if r[human]["helped"] == r[human]["helper_optimum"]]
    within = [r for r in known if r[human]["helper_optimum"] == r["joint_optimum"]]
    lines.append(f"[{human} human] n = {len(rows)} problems; helped slower than the planner human alone: {slower}; "
                 f"faster: {faster}; equal: {len(rows) - slower - faster}")
    if human != "planner":
        own = sum((r[human]["helped"] or inf) > (r[human]["alone"] or inf) for r in rows)
        same = sum(r[human]["alone"] == r["alone"] for r in rows)
        lines.append(f"[{human} human] alone (the helper waiting) as long as the planner human alone: {same} of "
                     f"{len(rows)}; helped slower than itself alone: {own}")
    lines.append(f"[{human} human] helped at the joint optimum: {len(optimal)} of {len(known)} problems whose optimum "
                 f"was found ({100 * len(optimal) / max(len(known), 1):.0f}%)")
    lines.append(f"[{human} human] helped at the helper optimum (the best any helper does with this human): "
                 f"{len(at_reach)} of {len(reach)}; the helper optimum is the joint optimum on {len(within)} of "
                 f"{len(known)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cap", type=int, default=400_000, help="A* nodes per joint optimum (default 400000)")
    parser.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    parser.add_argument("--humans", nargs="+", choices=HUMANS, default=list(HUMANS),
                        help="the human models to play (default: both)")
    parser.add_argument("--reference", nargs="+", type=Path, metavar="FOLDER",
                        help="instead: every two-agent problem 'dkg import' imports from these reference folders "
                             "(e.g. CLIPS.jl's dataset/problems, Plinf's domains/multi-agent and Assistive)")
    args = parser.parse_args(argv)
    rows = []
    for name, spec in (reference_problems(args.reference) if args.reference else helper_problems()):
        optimum = joint_optimum(spec, args.cap)
        row: dict[str, Any] = {"problem": name, "alone": play(spec, False)["length"], "joint_optimum": optimum}
        text = f"{name:32s} alone {row['alone']!s:>5}  joint optimum {optimum!s:>5}"
        for human in args.humans:
            helped = play(spec, True, human)["length"]
            if human == "planner":
                best = helper_optimum(spec, args.cap)
                row[human] = {"alone": row["alone"], "helped": helped, "helper_optimum": best}
            else:
                best = joint_policy_helper(spec) if optimum is not None else None
                row[human] = {"alone": play(spec, False, human)["length"], "helped": helped, "helper_optimum": best}
            text += f"  | {human}: alone {row[human]['alone']!s:>5} helped {helped!s:>5} helper optimum {best!s:>5}"
        rows.append(row)
        print(text, flush=True)
    failed = False
    for human in args.humans:
        for line in summary(rows, human):
            print(line)
        failed |= human == "planner" and any((r[human]["helped"] or 10**9) > (r["alone"] or 10**9) for r in rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
