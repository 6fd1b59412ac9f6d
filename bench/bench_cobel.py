"""Speed of the household agents: how long CoBel and the baselines take to play the shipped episodes.

    .venv/bin/python -m bench.bench_cobel [--seeds 0-1] [--methods rhp,coela,capo,mhp,cobel] [--json FILE]

Two agents of one method play each of the 24 transport and 10 household episodes with the given
Session seeds, all in this process. Per method and task kind it prints the wall time per episode
and per world step (median over episodes) and the total, and the ratio of each method's total to
RHP's (the baseline, measured in the same run: the rule planner that never talks). What the
methods achieve (transport rate, average steps L, message tokens, with the statistics on the
unit of replication) is the experiments' business, not this benchmark's:
``python main.py experiment cobel-household`` and ``cobel-transport`` (docs/cobel.md).
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.registry import make_agent  # noqa: E402
from sim.registry import load_scenario  # noqa: E402
from sim.session import Session  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EPISODES = sorted((ROOT / "scenarios" / "household").glob("*.json"))
METHODS = ("rhp", "coela", "capo", "mhp", "cobel")
BASELINE = "rhp"


def parse_seeds(text: str) -> list[int]:
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in text.split(",") if x]


def play(path: Path, method: str, seed: int) -> tuple[str, float, int]:
    """(task kind, seconds, world steps) of one episode."""
    world, name = load_scenario(str(path))
    start = time.perf_counter()
    session = Session(world, {a: make_agent(method, "household") for a in world.agents}, seed=seed, scenario=name)
    session.run()
    seconds = time.perf_counter() - start
    if session.metrics()["errors"]:
        raise RuntimeError(f"{method} on {path.name} seed {seed}: {session.metrics()['errors']} error events")
    return world.task, seconds, session.tick


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0-1", help="Session seeds, e.g. 0-4 or 0,3 (default 0-1)")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    seeds, methods = parse_seeds(args.seeds), [m for m in args.methods.split(",") if m]
    if BASELINE not in methods:
        methods.insert(0, BASELINE)
    runs: dict[str, dict[str, list[tuple[float, int]]]] = defaultdict(lambda: defaultdict(list))
    started = time.perf_counter()
    for path in EPISODES:
        for method in methods:
            for seed in seeds:
                task, seconds, steps = play(path, method, seed)
                runs[method][task].append((seconds, steps))
    total = time.perf_counter() - started
    print(f"{len(EPISODES)} episodes x {len(seeds)} seeds x {len(methods)} methods, two agents of one method, "
          f"in {total:.1f} s (one process)")
    print(f"{'method':8s} {'task':10s} {'episodes':>8s} {'ms/episode':>11s} {'ms/step':>8s} {'steps':>6s} "
          f"{'total s':>8s} {'vs ' + BASELINE:>8s}")
    rows: list[dict[str, Any]] = []
    base_total = {task: sum(s for s, _ in runs[BASELINE][task]) for task in runs[BASELINE]}
    for method in methods:
        for task in ("transport", "household"):
            items = runs[method].get(task, [])
            if not items:
                continue
            secs = sum(s for s, _ in items)
            row = {"method": method, "task": task, "episodes": len(items),
                   "ms_per_episode": round(statistics.median(s for s, _ in items) * 1e3, 2),
                   "ms_per_step": round(statistics.median(s / max(n, 1) for s, n in items) * 1e3, 3),
                   "median_steps": statistics.median(n for _, n in items), "total_seconds": round(secs, 2),
                   "vs_baseline": round(secs / base_total[task], 2)}
            rows.append(row)
            print(f"{method:8s} {task:10s} {row['episodes']:8d} {row['ms_per_episode']:11.2f} {row['ms_per_step']:8.3f} "
                  f"{row['median_steps']:6.0f} {row['total_seconds']:8.2f} {row['vs_baseline']:7.2f}x")
    print(f"\nms/episode, ms/step: medians over episodes (a step is one decision point of the world); "
          f"vs {BASELINE}: the method's total time over {BASELINE}'s on the same episodes and seeds")
    if args.json:
        Path(args.json).write_text(json.dumps({"seeds": seeds, "methods": methods, "rows": rows,
                                               "seconds": round(total, 2)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
