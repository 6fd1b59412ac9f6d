"""ProToM on Doors, Keys and Gems: the facilitator's decision time and the experiment's wall time.

    .venv/bin/python -m bench.bench_protom [--episodes N] [--cold-steps K] [--seeds S] [--jobs J] [--json FILE]

Figures (measured in this process, on the shipped ``protom-*`` scenarios):
- decision time: the wall time of ``ProToMFacilitator.after_step`` (goal inference,
  candidates, utilities, selection) at every step of ``--episodes`` episodes per
  scenario with the experiment's seats; median and p90 per scenario and over all steps
  (target: median <= 5 ms). Baseline: on the first ``--cold-steps`` steps of the last episode
  per scenario, each decision is also made by a copy of the facilitator (same beliefs)
  whose planner, distance maps, rollouts and policies start empty; the ratio is the
  median of cold / warm over those paired decisions.
- divergence: the same episodes (same seeds) played again in this process with
  ``divergence=target-overlap`` instead of the shipped ``centralised`` (the baseline of the
  centralised divergence's cost), and with the shipped divergence but its P(τ ∈ π* | f, g) memo
  emptied at the start of every episode (the code before the memo was shared per world across
  episodes); per-decision median and mean, and the total decision time, of each.
- experiment wall time: ``python main.py experiment protom-dkg`` (20 scenarios x none,
  protom, oracle, random x ``--seeds`` seeds, ``--jobs`` workers, categories checked;
  target <= 60 s for 10 seeds). Baseline: the same run with the no-facilitator condition
  only; the ratio is full / none-only.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.dkg.planner import DKGPlanner  # noqa: E402
from agents.protom.dkg import agreements_for  # noqa: E402
from agents.protom.dkg_rollout import DKGRollouts  # noqa: E402
from agents.protom.facilitators import ProToMFacilitator  # noqa: E402
from agents.registry import (  # noqa: E402
    make_agent,
    make_mechanism,
    seat_specs,  # noqa: E402
)
from experiments.design import load_design  # noqa: E402
from experiments.report import write_report  # noqa: E402
from experiments.runner import compute_metrics, resolve_scenarios, run_sweep  # noqa: E402
from experiments.stats import analyse  # noqa: E402
from sim.registry import SCENARIO_DIR, load_scenario  # noqa: E402
from sim.session import Session  # noqa: E402

DESIGN = SCENARIO_DIR / "experiments" / "protom-dkg.json"


def run_experiment(design, out: Path, seeds: int, jobs: int):
    """What ``python main.py experiment`` does: pre-checks, the sweep, metrics, statistics and the
    report; returns the sweep's result."""
    result = run_sweep(design, out, seeds=seeds, jobs=jobs, quiet=True)
    compute_metrics(result.records, design)
    result.analysis = analyse(result.records, design, result.attrs)
    result.report = write_report(result, command="bench")
    return result


def _cold_clone(fac, world):
    """A copy of ``fac`` in the same belief state whose adapter starts with every cache empty."""
    cold = copy.copy(fac.adapter)
    cold.planner = DKGPlanner(world)
    cold.rollouts = DKGRollouts(world, cold.planner)
    cold._policy_cache = {}
    cold._agreement_cache = {}
    clone = copy.copy(fac)
    clone.adapter = cold
    clone.rng = copy.deepcopy(fac.rng)
    clone.inference = copy.deepcopy(fac.inference, memo={id(fac.adapter): cold, id(fac.rng): clone.rng})
    if clone.inference is not None:
        clone.inference.adapter = cold
    return clone


def decision_times(world, name: str, seat_spec: dict, mechanism: tuple, seeds, cold_steps: int = 0,
                   per_episode_memo: bool = False):
    """(cached times, [(cached, cold) pairs]) of after_step in seconds. The pairs time the same
    decision twice on the first ``cold_steps`` steps of the last episode: once as it happens
    (warm caches) and once on a copy of the facilitator with cold caches. ``seat_spec``: agent ->
    spec; ``mechanism``: (spec, params) as the design's condition gives it; ``per_episode_memo``: empty the
    world's P(τ ∈ π* | f, g) memo before every episode."""
    cached, pairs = [], []
    for k, seed in enumerate(seeds):
        if per_episode_memo:
            agreements_for(world).clear()
        seats = {a: make_agent(seat_spec[a], world.family) for a in world.agents}
        fac = make_mechanism(mechanism[0], world.family, mechanism[1])
        session = Session(world, seats, seed=seed, scenario=name, mechanisms=[fac])
        inner = fac.after_step
        steps = 0

        def timed(*args, _inner=inner, _fac=fac, _k=k, **kwargs):
            nonlocal steps
            cold_time = None
            if _k == len(seeds) - 1 and steps < cold_steps:
                clone = _cold_clone(_fac, world)
                start = time.perf_counter()
                ProToMFacilitator.after_step(clone, *args, **kwargs)
                cold_time = time.perf_counter() - start
            start = time.perf_counter()
            result = _inner(*args, **kwargs)
            elapsed = time.perf_counter() - start
            cached.append(elapsed)
            if cold_time is not None:
                pairs.append((elapsed, cold_time))
            steps += 1
            return result

        fac.after_step = timed
        session.run()
    return cached, pairs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=5, help="episodes per scenario for decision times")
    parser.add_argument("--cold-steps", type=int, default=10, help="steps per scenario measured with cold caches")
    parser.add_argument("--seeds", type=int, default=10, help="seeds of the full experiment run (default 10)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes of the experiment run (default 2)")
    parser.add_argument("--skip-experiment", action="store_true", help="only measure decision times")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    design = load_design(DESIGN)
    (protom,) = design.condition(design.reference).mechanism_specs()
    rows, all_cached, all_pairs = [], [], []
    for ref in resolve_scenarios(design.scenarios):
        world, name = load_scenario(ref.path)
        seats = seat_specs(ref.agents, design.agents)
        seeds = design.seeds.seeds(args.episodes)
        cached, pairs = decision_times(world, name, seats, protom, seeds, args.cold_steps)
        all_cached += cached
        all_pairs += pairs
        row = {"scenario": name, "steps": len(cached),
               "median_ms": round(statistics.median(cached) * 1e3, 3),
               "p90_ms": round(float(np.percentile(cached, 90)) * 1e3, 3),
               "max_ms": round(max(cached) * 1e3, 2),
               "paired_warm_ms": round(statistics.median(w for w, _ in pairs) * 1e3, 3) if pairs else None,
               "paired_cold_ms": round(statistics.median(c for _, c in pairs) * 1e3, 3) if pairs else None}
        rows.append(row)
    cols = list(rows[0])
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    print("ProToM decision time per step (after_step), cached vs cold caches")
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(str(r[c]).ljust(w) for c, w in zip(cols, widths)))
    overall = {
        "steps": len(all_cached),
        "median_ms": round(statistics.median(all_cached) * 1e3, 3),
        "p90_ms": round(float(np.percentile(all_cached, 90)) * 1e3, 3),
        "mean_ms": round(statistics.mean(all_cached) * 1e3, 3),
        "paired_steps": len(all_pairs),
        "paired_warm_median_ms": round(statistics.median(w for w, _ in all_pairs) * 1e3, 3),
        "paired_cold_median_ms": round(statistics.median(c for _, c in all_pairs) * 1e3, 3),
    }
    overall["cold_over_warm"] = round(statistics.median(c / w for w, c in all_pairs), 1)
    print(f"\nall steps: median {overall['median_ms']} ms, p90 {overall['p90_ms']} ms, mean {overall['mean_ms']} ms "
          f"(target: median <= 5 ms)")
    print(f"same {overall['paired_steps']} decisions with warm / cold caches: median {overall['paired_warm_median_ms']} ms / "
          f"{overall['paired_cold_median_ms']} ms; median ratio cold/warm {overall['cold_over_warm']}x")
    results = {"decision": {"scenarios": rows, "overall": overall}}

    # The shipped divergence against target-overlap and against a memo kept per episode only,
    # on the same scenarios and seeds, in this process.
    variants = {"shipped": (protom, False),
                "target-overlap": ((protom[0], {**protom[1], "divergence": "target-overlap"}), False),
                "per-episode memo": (protom, True)}
    compare = {}
    for label, (mechanism, per_episode) in variants.items():
        times = []
        for ref in resolve_scenarios(design.scenarios):
            world, name = load_scenario(ref.path)
            cached, _ = decision_times(world, name, seat_specs(ref.agents, design.agents), mechanism,
                                       design.seeds.seeds(args.episodes), 0, per_episode)
            times += cached
        compare[label] = {"steps": len(times), "median_ms": round(statistics.median(times) * 1e3, 3),
                          "mean_ms": round(statistics.mean(times) * 1e3, 3), "total_s": round(sum(times), 2)}
    print(f"\nsame {args.episodes} episodes per scenario, divergence and memo compared:")
    for label, row in compare.items():
        print(f"  {label:<17} {row['steps']} decisions: median {row['median_ms']} ms, mean {row['mean_ms']} ms, "
              f"total {row['total_s']} s")
    shipped, overlap, old = compare["shipped"], compare["target-overlap"], compare["per-episode memo"]
    print(f"  shipped / target-overlap: median {shipped['median_ms'] / overlap['median_ms']:.2f}x, "
          f"total {shipped['total_s'] / overlap['total_s']:.2f}x; per-episode memo / shipped: total "
          f"{old['total_s'] / shipped['total_s']:.2f}x")
    results["divergence"] = compare

    if not args.skip_experiment:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            episodes = run_experiment(design, Path(tmp) / "full", args.seeds, args.jobs).records
            full = time.perf_counter() - start
            none_only = design.model_copy(update={"conditions": [design.condition(design.baseline)],
                                                  "reference": None})
            start = time.perf_counter()
            base_eps = run_experiment(none_only, Path(tmp) / "none", args.seeds, args.jobs).records
            base = time.perf_counter() - start
        exp = {"episodes": len(episodes), "seconds": round(full, 2), "none_only_episodes": len(base_eps),
               "none_only_seconds": round(base, 2), "full_over_none_only": round(full / base, 2),
               "jobs": args.jobs, "seeds": args.seeds}
        print(f"\nexperiment protom-dkg: {exp['episodes']} episodes in {exp['seconds']} s with {args.jobs} jobs "
              f"(target <= 60 s for 10 seeds); no-facilitator condition alone: {exp['none_only_episodes']} episodes "
              f"in {exp['none_only_seconds']} s; ratio {exp['full_over_none_only']}")
        results["experiment"] = exp
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
