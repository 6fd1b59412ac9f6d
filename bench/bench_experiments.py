"""Episodes per second of the experiment runner: the local process pool and Ray, 1 and 2 workers.

    .venv/bin/python -m bench.bench_experiments [--seeds S] [--no-ray] [--json FILE]

The sweep: the 20 ``protom-*`` scenarios x the four conditions of ``protom-dkg`` x ``--seeds``
seeds with the Boltzmann simulated humans, its results written per episode as the runner
writes them. Measured in this process: the time from the first episode submitted to the last
result written (pre-checks and cluster start-up excluded, reported apart). Baseline: the local
backend with one worker (in this process); the ratios are its time over each other run's, and
each run's speed against the local backend with as many workers (target for Ray with 2 workers:
>= 0.9). Ray runs a new local cluster with as many CPUs as workers; its start-up (the cluster and
one worker actor per CPU, which imports the code once) is reported apart, as the local pool's
is. Every run must write the same per-episode file as the baseline (checked; a mismatch is an
error). Figures depend on the machine's load (printed); the ratios much less.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from experiments.backends import LocalBackend, RayBackend, ray_available  # noqa: E402
from experiments.design import load_design  # noqa: E402
from experiments.runner import RESULTS, ResultsFile, plan, resolve_scenarios, run_episode  # noqa: E402
from sim.registry import SCENARIO_DIR  # noqa: E402


def sweep(backend, tasks, out: Path) -> tuple[float, bytes]:
    results = ResultsFile(out / RESULTS, "bench")
    results.open(resume=False)
    done = {}
    start = time.perf_counter()
    for result in backend.run(run_episode, tasks):
        results.append(result["record"])
        done[result["record"]["key"]] = result["record"]
    seconds = time.perf_counter() - start
    results.finalize([done[t.key] for t in tasks])
    return seconds, (out / RESULTS).read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds per scenario and condition (default 2)")
    parser.add_argument("--no-ray", action="store_true", help="only the local backend")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    design = load_design(SCENARIO_DIR / "experiments" / "protom-dkg.json")
    tasks = plan(design, resolve_scenarios(design.scenarios), design.seeds.seeds(args.seeds))
    runs = [("local", 1), ("local", 2)]
    if not args.no_ray:
        problem = ray_available()
        if problem:
            print(f"skipping Ray: {problem}")
        else:
            runs += [("ray", 1), ("ray", 2)]
    rows = []
    reference: bytes | None = None
    base_seconds = None
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, workers) in enumerate(runs):
            started = time.perf_counter()
            backend = LocalBackend(workers) if name == "local" else RayBackend(None, workers)
            startup = time.perf_counter() - started
            try:
                seconds, data = sweep(backend, tasks, Path(tmp) / f"run{i}")
            finally:
                backend.close()
            if reference is None:
                reference, base_seconds = data, seconds
            elif data != reference:
                print(f"error: {name} with {workers} worker(s) wrote a different episode file", file=sys.stderr)
                return 1
            rows.append({"backend": name, "workers": workers, "episodes": len(tasks), "seconds": round(seconds, 2),
                         "episodes_per_second": round(len(tasks) / seconds, 1),
                         "vs_local_1": round(base_seconds / seconds, 2), "startup_seconds": round(startup, 2),
                         "load_avg": round(os.getloadavg()[0], 1)})
    local = {r["workers"]: r["seconds"] for r in rows if r["backend"] == "local"}
    for r in rows:
        r["vs_local_same_workers"] = round(local[r["workers"]] / r["seconds"], 2) if r["workers"] in local else None
    cols = list(rows[0])
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    print(f"experiment runner: {len(tasks)} episodes of protom-dkg ({args.seeds} seeds), identical files in every run")
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(str(r[c]).ljust(w) for c, w in zip(cols, widths)))
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
