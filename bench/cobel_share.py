"""A method's share of the free-sharing gain in a CoBel household-world run, from its ``episodes.csv``:
(method - floor) / (ceiling - floor) in a metric (average steps L by default, fewer is better;
``--metric rate --higher-is-better`` for transport), per scenario and over
all scenarios (the ratio of the means over scenarios, each scenario the mean over its seeds), with
a percentile bootstrap interval that resamples scenarios (n counts scenarios, not seeds).

    .venv/bin/python -m bench.cobel_share runs/cobel-voi --method cobel-voi --floor rhp --ceiling share

Per scenario the share is printed only where the ceiling is ahead of the floor (fewer steps, or a
higher rate with ``--higher-is-better``; elsewhere there is no gain to share); the overall share
takes every scenario.
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from pathlib import Path

import numpy as np


def scenario_means(path: Path, metric: str) -> dict[str, dict[str, float]]:
    """{condition: {scenario: mean of ``metric`` over its seeds}} from an ``episodes.csv``."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            values[(row["condition"], row["scenario"])].append(float(row[metric]))
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (cond, scen), v in values.items():
        out[cond][scen] = float(np.mean(v))
    return out


def share(floor: np.ndarray, method: np.ndarray, ceiling: np.ndarray) -> float:
    gain = float(np.mean(floor) - np.mean(ceiling))
    return float(np.mean(floor) - np.mean(method)) / gain if gain != 0 else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", type=Path, help="the experiment's output folder (with episodes.csv)")
    parser.add_argument("--method", action="append", required=True, help="condition(s) to measure")
    parser.add_argument("--floor", required=True)
    parser.add_argument("--ceiling", required=True)
    parser.add_argument("--metric", default="steps")
    parser.add_argument("--higher-is-better", action="store_true", help="the metric grows with success (a rate)")
    parser.add_argument("--extra", default="messages,tokens", help="metrics shown beside, per scenario mean")
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    means = scenario_means(args.run / "episodes.csv", args.metric)
    extras = {m: scenario_means(args.run / "episodes.csv", m) for m in args.extra.split(",") if m}
    scenarios = sorted(means[args.floor])
    floor = np.array([means[args.floor][s] for s in scenarios])
    ceiling = np.array([means[args.ceiling][s] for s in scenarios])
    rng = np.random.default_rng(args.seed)
    picks = rng.integers(len(scenarios), size=(args.resamples, len(scenarios)))
    for method in args.method:
        m = np.array([means[method][s] for s in scenarios])
        print(f"## {method}: share of the free-sharing gain in {args.metric} (floor {args.floor}, "
              f"ceiling {args.ceiling})\n")
        head = ["scenario", args.floor, args.ceiling, method, "gain available", "method's gain", "share",
                *[f"{method} {e}" for e in extras]]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        sign = -1.0 if args.higher_is_better else 1.0
        for i, s in enumerate(scenarios):
            gain, got = sign * (floor[i] - ceiling[i]), sign * (floor[i] - m[i])
            cell = f"{got / gain:+.2f}" if gain > 0 else "no gain to share"
            print(f"| {s} | {floor[i]:.2f} | {ceiling[i]:.2f} | {m[i]:.2f} | {gain:+.2f} | {got:+.2f} | {cell} | "
                  + " | ".join(f"{extras[e][method][s]:.2f}" for e in extras) + " |")
        boot = np.array([share(floor[p], m[p], ceiling[p]) for p in picks])
        boot = boot[np.isfinite(boot)]
        lo, hi = np.percentile(boot, [2.5, 97.5])
        print(f"| all ({len(scenarios)} scenarios) | {floor.mean():.2f} | {ceiling.mean():.2f} | {m.mean():.2f} | "
              f"{sign * (floor.mean() - ceiling.mean()):+.2f} | {sign * (floor.mean() - m.mean()):+.2f} | "
              f"{share(floor, m, ceiling):+.2f} [{lo:+.2f}, {hi:+.2f}] | "
              + " | ".join(f"{np.mean([extras[e][method][s] for s in scenarios]):.2f}" for e in extras) + " |\n")
    print(f"Overall share: the ratio of the means over scenarios; interval: 2.5 and 97.5 percentiles of "
          f"{args.resamples} resamples of scenarios (seed {args.seed}).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
