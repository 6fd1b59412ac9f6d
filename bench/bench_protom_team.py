"""ProToM with many agents: the facilitator's decision time with 2, 6 and 8 agents.

    .venv/bin/python -m bench.bench_protom_team [--steps N] [--budget S] [--caps K ...] [--json FILE]

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

Figures: median and p90 per decision, and the median's ratio against the 2-agent case under the
same condition in the same run (target: median <= 50 ms with 8 agents and 8 gems); also the
median of the same decisions' CPU time of this process (``time.process_time``), which other
programs sharing the machine inflate less than wall time.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.registry import make_agent, make_mechanism
from sim.registry import load_scenario
from sim.session import Session

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
    args = parser.parse_args(argv)

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
                         "max_ms": round(max(times) * 1e3, 1), "over_2_agents": round(median / base, 1),
                         "cpu_median_ms": round(statistics.median(cpu) * 1e3, 2)})
            r = rows[-1]
            print(f"{label:20s} {scenario:22s} {n} agents: {r['decisions']:4d} decisions"
                  f"{' (budget hit: lower bounds)' if cut else ''}, median {r['median_ms']} ms, p90 {r['p90_ms']} ms, "
                  f"max {r['max_ms']} ms, {r['over_2_agents']}x the 2-agent median "
                  f"(CPU time: median {r['cpu_median_ms']} ms)", flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"steps": args.steps, "budget_s": args.budget, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
