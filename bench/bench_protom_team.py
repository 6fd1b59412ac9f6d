"""ProToM with many agents: the facilitator's decision time with 2, 6 and 8 agents.

    .venv/bin/python -m bench.bench_protom_team [--steps N] [--budget S] [--caps K ...] [--json FILE]
    .venv/bin/python -m bench.bench_protom_team --default-only --baseline-tree DIR [--repeats R]

Each scenario is played once (seed 0) with ``tom-planner:k=cycle`` seats (levels 0, 1, 2 by turn
order) and the ProToM facilitator; the wall time of ``after_step`` (goal inference, candidates,
utilities, selection) is taken at each of the first ``--steps`` ticks. Scenarios: the shipped
``protom-01-open-hall`` (2 agents, 4 gems), ``team-01-six`` (6 agents, 6 gems) and
``team-06-eight`` (8 agents, 8 gems).

Conditions: the default facilitator (``max_hypotheses="auto"``: every joint goal hypothesis the
posteriors leave while at most 120 are left, else the heaviest ones holding 90% of the mass, at
most 4), and with ``max_hypotheses=K`` for each K of ``--caps`` ("all": every hypothesis, exact). A condition stops early once its decisions have
taken ``--budget`` seconds of wall time in all (the first decisions are the dearest: flat
posteriors keep every hypothesis); a decision still running then is interrupted and counted with
the time it had taken (so its figure is a lower bound), and the row says so.

Figures: median, p90 and p99 per decision, and the median's ratio against the 2-agent case under
the same condition in the same run (target: median <= 50 ms with 8 agents and 8 gems, p99 <= 100
ms with 6 and 8: the dearest decisions are the stall a team episode shows); also the median and
p99 of the same decisions' CPU time of this process (``time.process_time``), which other programs
sharing the machine inflate less than wall time.

Baseline, in the same run: with ``--baseline-tree`` (another checkout, e.g. the code before a
change) the default facilitator is measured by this bench's own code on that tree's ProToM, in a
process of its own, alternating with this tree's ``--repeats`` times; the ratios are the
baseline's over this tree's (medians over the repeats of each figure), wall and CPU.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# ``--tree DIR``: measure that checkout's code (a baseline) with this bench
_TREE = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve() if "--tree" in sys.argv[:-1] else ROOT
sys.path.insert(0, str(_TREE))

from agents.registry import make_agent, make_mechanism  # noqa: E402
from sim.registry import load_scenario  # noqa: E402
from sim.session import Session  # noqa: E402

SCENARIOS = (("protom-01-open-hall", 2), ("team-01-six", 6), ("team-06-eight", 8))
SEATS = "tom-planner:k=cycle"


class _Budget(Exception):
    pass


def decision_times(scenario: str, params: dict, steps: int, budget: float
                   ) -> tuple[list[float], list[float], bool]:
    """(after_step wall times in seconds, the same decisions' CPU times of this process, whether
    the budget cut the run short). A decision still running when the budget runs out is
    interrupted and counted with the time it had taken."""
    world, name = load_scenario(scenario)
    seats = {a: make_agent(SEATS, world.family) for a in world.agents}
    fac = make_mechanism("protom", world.family, params)
    session = Session(world, seats, seed=0, scenario=name, mechanisms=[fac])
    inner, times, cpu = fac.after_step, [], []

    def timed(*args, **kwargs):
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)

    def out_of_time(signum, frame):
        raise _Budget

    fac.after_step = timed
    previous = signal.signal(signal.SIGALRM, out_of_time)
    signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        session.run(max_steps=steps)
    except _Budget:
        return times, cpu, True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return times, cpu, False


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=120, help="ticks measured per scenario (default 120)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds of decisions per scenario and condition before it stops (default 60)")
    parser.add_argument("--caps", nargs="*", default=["all", "8", "1"],
                        help="max_hypotheses values measured besides the default auto (default: all 8 1)")
    parser.add_argument("--default-only", action="store_true", help="measure the default facilitator only")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--baseline-tree", help="another checkout: its default facilitator alternates with this "
                                                "tree's, each in a process of its own, and the ratios are printed")
    parser.add_argument("--repeats", type=int, default=2, help="with --baseline-tree: runs of each tree (default 2)")
    parser.add_argument("--tree", help=argparse.SUPPRESS)  # the code measured (read before the imports)
    args = parser.parse_args(argv)
    if args.baseline_tree:
        return compare_trees(args)

    conditions: list[tuple[str, dict]] = [("default (auto)", {})]
    if not args.default_only:
        conditions += [(f"max_hypotheses={k}", {"max_hypotheses": k}) for k in args.caps]
    rows = []
    for label, params in conditions:
        base = None
        for scenario, n in SCENARIOS:
            times, cpu, cut = decision_times(scenario, params, args.steps, args.budget)
            median = statistics.median(times)
            if base is None:
                base = median
            rows.append({"condition": label, "scenario": scenario, "agents": n, "decisions": len(times),
                         "stopped_by_budget": cut, "median_ms": round(median * 1e3, 2),
                         "p90_ms": round(float(np.percentile(times, 90)) * 1e3, 2),
                         "p99_ms": round(float(np.percentile(times, 99)) * 1e3, 1),
                         "max_ms": round(max(times) * 1e3, 1), "over_2_agents": round(median / base, 1),
                         "cpu_median_ms": round(statistics.median(cpu) * 1e3, 2),
                         "cpu_p99_ms": round(float(np.percentile(cpu, 99)) * 1e3, 1)})
            r = rows[-1]
            print(f"{label:20s} {scenario:22s} {n} agents: {r['decisions']:4d} decisions"
                  f"{' (budget hit: lower bounds)' if cut else ''}, median {r['median_ms']} ms, p90 {r['p90_ms']} ms, "
                  f"p99 {r['p99_ms']} ms, max {r['max_ms']} ms, {r['over_2_agents']}x the 2-agent median "
                  f"(CPU time: median {r['cpu_median_ms']} ms, p99 {r['cpu_p99_ms']} ms)", flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"steps": args.steps, "budget_s": args.budget, "rows": rows}, indent=2))
    return 0


FIGURES = ("median_ms", "p99_ms", "max_ms", "cpu_median_ms", "cpu_p99_ms")


def compare_trees(args: argparse.Namespace) -> int:
    """The default facilitator on this tree and on ``--baseline-tree``, each run in a process of
    its own, alternating; per scenario the medians over the repeats and baseline / this."""
    import os
    import subprocess
    import tempfile

    base = Path(args.baseline_tree).resolve()
    if not (base / "agents" / "protom").is_dir():
        raise SystemExit(f"error: --baseline-tree {base}: no agents/protom there")
    if args.repeats < 1:
        raise SystemExit("error: --repeats must be at least 1")
    load_before = os.getloadavg()[0]
    runs: dict[str, list[list[dict]]] = {"this tree": [], "baseline": []}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            for label, tree in (("this tree", ROOT), ("baseline", base)):
                out = Path(tmp) / f"{label.replace(' ', '-')}-{repeat}.json"
                command = [sys.executable, str(Path(__file__).resolve()), "--default-only", "--steps", str(args.steps),
                           "--budget", str(args.budget), "--json", str(out), "--tree", str(tree)]
                done = subprocess.run(command, cwd=tree, capture_output=True, text=True)
                if done.returncode != 0:
                    raise SystemExit(f"error: the bench failed on {tree}: {done.stderr[-1000:]}")
                runs[label].append(json.loads(out.read_text())["rows"])
    load_after = os.getloadavg()[0]
    print(f"default facilitator, first {args.steps} ticks, {args.repeats} runs of each tree alternating, medians "
          f"over the runs (load average {load_before:.1f} before, {load_after:.1f} after)")
    summary = []
    for k, (scenario, n) in enumerate(SCENARIOS):
        med = {label: {f: statistics.median(rows[k][f] for rows in rs) for f in FIGURES} for label, rs in runs.items()}
        cut = any(rows[k]["stopped_by_budget"] for rs in runs.values() for rows in rs)
        ratios = {f: med["baseline"][f] / med["this tree"][f] for f in FIGURES if med["this tree"][f] > 0}
        summary.append({"scenario": scenario, "agents": n, "stopped_by_budget": cut, **med, "baseline_over_this": ratios})
        for label in ("this tree", "baseline"):
            m = med[label]
            print(f"  {label:9s} {scenario:22s} {n} agents: median {m['median_ms']:.2f} ms, p99 {m['p99_ms']:.1f} ms, "
                  f"max {m['max_ms']:.1f} ms (CPU: median {m['cpu_median_ms']:.2f} ms, p99 {m['cpu_p99_ms']:.1f} ms)"
                  + (" (budget hit: lower bounds)" if cut else ""))
        print(f"  baseline / this {scenario:16s}: " + ", ".join(f"{f} {v:.2f}" for f, v in ratios.items()))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"steps": args.steps, "budget_s": args.budget, "repeats": args.repeats,
                                               "load_avg": [load_before, load_after], "scenarios": summary,
                                               "runs": runs}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
