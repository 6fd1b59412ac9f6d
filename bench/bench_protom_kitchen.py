"""ProToM in the kitchen, timed: decision time per step and the cost of a sweep.

    .venv/bin/python -m bench.bench_protom_kitchen [--seeds N] [--first-seed S] [--json FILE]

Plays every level of ``scenarios/kitchen/protom/`` (categories checked first) with two
``kitchen-heuristic`` cooks under each facilitator (none, protom, oracle, random), seeds
``first_seed .. first_seed + N - 1``, all in this process, and prints:

- ProToM's decision time per step (``after_step``: belief update, goal inference, candidates,
  utilities, selection) with N = 5 particles: median, p90, mean, over every step, and over the
  steps where it weighed candidates;
- the wall time per facilitator against the no-facilitator episodes alone (the baseline);
- ProToM's decision time on the same levels and seeds under rules 1 (cooks know every station:
  C(f, g) from one simulated plan per joint goal instead of one per joint belief particle), the
  baseline of what rules 2's beliefs cost, played in this process after the sweep.

Success, speedup and feedback counts, with statistics by scenario, are the experiment's:
``python main.py experiment protom-kitchen`` (docs/protom.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.protom.kitchen import check_categories, experiment_levels, load_world  # noqa: E402
from agents.registry import make_agent, make_mechanism  # noqa: E402
from sim.events import FeedbackEvent  # noqa: E402
from sim.kitchen.world import KitchenWorld  # noqa: E402
from sim.session import Session  # noqa: E402

FACILITATORS = ("none", "protom", "oracle", "random")


class Timed:
    """Wraps a mechanism's ``after_step`` to record its wall time (for the benchmark only)."""

    def __init__(self, mechanism: Any, times: list[float], weighed: list[float]) -> None:
        self.mechanism, self.times, self.weighed = mechanism, times, weighed
        original = mechanism.after_step

        def after_step(step):
            start = time.perf_counter()
            out = original(step)
            elapsed = time.perf_counter() - start
            times.append(elapsed)
            if getattr(mechanism, "last_selection", None) is not None:
                weighed.append(elapsed)
            return out

        mechanism.after_step = after_step


def play(world, facilitator: str, seed: int, times: list[float] | None = None,
         weighed: list[float] | None = None) -> dict[str, Any]:
    seats = {a: make_agent("kitchen-heuristic", "kitchen") for a in world.agents}
    mechanism = make_mechanism(facilitator, "kitchen")
    if mechanism is not None and times is not None:
        Timed(mechanism, times, weighed if weighed is not None else [])
    session = Session(world, seats, seed, scenario=world.name, mechanisms=[mechanism] if mechanism else [])
    session.run()
    outcome = session.outcome()
    return {"success": bool(outcome["success"]), "length": outcome["ticks"] if outcome["success"] else world.t_max,
            "feedback": sum(isinstance(e, FeedbackEvent) for e in session.events)}


def sweep(levels: list[Path], seeds: range, facilitators=FACILITATORS) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every level x facilitator x seed; rows with the speedup against ``none`` on the same seed."""
    worlds = [load_world(p) for p in levels]
    reports = {r.scenario: r for r in check_categories(worlds)}
    rows: list[dict[str, Any]] = []
    times: list[float] = []
    weighed: list[float] = []
    wall: dict[str, float] = defaultdict(float)
    for world in worlds:
        base: dict[int, int] = {}
        for facilitator in facilitators:
            for seed in seeds:
                start = time.perf_counter()
                row = play(world, facilitator, seed, times if facilitator == "protom" else None, weighed)
                wall[facilitator] += time.perf_counter() - start
                if facilitator == "none":
                    base[seed] = row["length"]
                row.update(scenario=world.name, category=reports[world.name].category, facilitator=facilitator,
                           seed=seed, speedup=base[seed] / row["length"] - 1 if seed in base else None)
                rows.append(row)
    return rows, {"decision_times": times, "weighed_times": weighed, "wall": dict(wall)}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    levels = experiment_levels()
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    start = time.perf_counter()
    rows, timing = sweep(levels, seeds)
    total = time.perf_counter() - start
    print(f"{len(levels)} scenarios x {len(FACILITATORS)} facilitators x {len(seeds)} seeds "
          f"(seeds {seeds.start}-{seeds.stop - 1}), kitchen-heuristic cooks; outcomes: experiment protom-kitchen")
    times = [t * 1000 for t in timing["decision_times"]]
    weighed = [t * 1000 for t in timing["weighed_times"]]
    print(f"\nProToM decision time per step (N = 5 particles), {len(times)} steps: median {statistics.median(times):.2f} ms, "
          f"p90 {percentile(times, 0.9):.2f} ms, mean {statistics.fmean(times):.2f} ms (target: median <= 50 ms)")
    if weighed:
        print(f"  steps where candidates were weighed ({len(weighed)}): median {statistics.median(weighed):.2f} ms, "
              f"p90 {percentile(weighed, 0.9):.2f} ms, max {max(weighed):.2f} ms")
    wall = timing["wall"]
    print(f"sweep of {len(rows)} episodes: {total:.1f} s in one process "
          f"(none {wall.get('none', 0):.1f} s, protom {wall.get('protom', 0):.1f} s, oracle {wall.get('oracle', 0):.1f} s, "
          f"random {wall.get('random', 0):.1f} s; full sweep = {total / max(wall.get('none', 1e-9), 1e-9):.1f}x the "
          "no-facilitator episodes)")
    rules1: list[float] = []
    for path in levels:
        world = load_world(path)
        if world.rules != 1:
            world = KitchenWorld({**world.spec(), "rules": 1})
        for seed in seeds:
            play(world, "protom", seed, rules1, [])
    rules1 = [t * 1000 for t in rules1]
    print(f"the same levels and seeds under rules 1, {len(rules1)} steps: median {statistics.median(rules1):.2f} ms, "
          f"mean {statistics.fmean(rules1):.2f} ms, total {sum(rules1) / 1000:.1f} s (rules 2: median "
          f"{statistics.median(times) / statistics.median(rules1):.1f}x, total {sum(times) / sum(rules1):.1f}x)")
    if args.json:
        args.json.write_text(json.dumps({"episodes": len(rows), "wall_seconds": timing["wall"], "sweep_seconds": total,
                                         "decision_ms": {"median": statistics.median(times),
                                                         "p90": percentile(times, 0.9),
                                                         "mean": statistics.fmean(times)},
                                         "rules1_decision_ms": {"median": statistics.median(rules1),
                                                                "mean": statistics.fmean(rules1)}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
