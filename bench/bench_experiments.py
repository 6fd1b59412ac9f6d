"""Episodes per second of the experiment runner: the local process pool and Ray, 1 and 2 workers.

    .venv/bin/python -m bench.bench_experiments [--seeds S] [--no-ray] [--baseline-tree DIR] [--json FILE]

The sweep: the 20 ``protom-*`` scenarios x the four conditions of ``protom-dkg`` x ``--seeds``
seeds with the Boltzmann simulated humans, its results written per episode as the runner
writes them. Measured in this process: the time from the first episode submitted to the last
result written (pre-checks and cluster start-up excluded, reported apart). Baseline: the local
backend with one worker (in this process); the ratios are its time over each other run's, and
each run's speed against the local backend with as many workers (target for Ray with 2 workers:
>= 0.9). Ray runs a new local cluster with as many CPUs as workers; its start-up (the cluster and
one worker actor per CPU, which imports the episodes' code and builds the scenarios' worlds
once, as a forked local worker inherits them) is reported apart, as the local pool's is. Every
run must write the same per-episode file as the baseline (checked; a mismatch is an error).
Every run starts from cold per-world memos, as a user's command does: the forked local run goes
first, before the in-process one fills this process's memos (which forked workers would inherit).
Figures depend on the machine's load (printed). On a shared machine the share of the cores a
run gets varies from run to run, so each run also reports the CPU seconds per episode of all
its processes (this one, its workers, Ray's daemons and workers: every live descendant of this
process, and the finished ones it reaped), and its ratio against the local backend.

Then the fixed cost of the command: ``python main.py experiment protom-dkg --seeds S --resume``
on the finished results file of the first run, which plays no episode: start-up, pre-checks
(cached), the plan, the statistics and the report with its figures. Timed as a subprocess,
``--repeats`` times after one run that is not counted (it fills the pre-check cache), median
reported; with ``--baseline-tree`` the same command from another checkout (e.g. the code before
a change) alternates with this tree's, and the ratio is the baseline's median over this tree's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from experiments.backends import LocalBackend, RayBackend, ray_available  # noqa: E402
from experiments.design import load_design  # noqa: E402
from experiments.runner import (  # noqa: E402
    RESULTS,
    ResultsFile,
    plan,
    prepare_worker,
    resolve_scenarios,
    run_episode,
    warm_tasks,
)
from sim.registry import SCENARIO_DIR  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DESIGN = "protom-dkg"


def descendants_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of every live process descending from this one, by pid."""
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(entry.name)] = int(fields[1])
            cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    mine, me = {}, os.getpid()
    for pid in cpu:
        up, seen = pid, 0
        while up not in (0, 1, me) and seen < 64:
            up, seen = parent.get(up, 0), seen + 1
        if up == me and pid != me:
            mine[pid] = cpu[pid]
    return mine


def cpu_now() -> tuple[float, dict[int, float]]:
    """This process's CPU seconds with its finished children's, and its live descendants'."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system, descendants_cpu()


def sweep(backend, tasks, out: Path) -> tuple[float, bytes, float]:
    """Seconds, the file written, and the CPU seconds every process of the run spent meanwhile
    (this one, the workers, and Ray's daemons: the machine's work, whatever its load)."""
    cpu0, live0 = cpu_now()
    results = ResultsFile(out / RESULTS, DESIGN)
    results.open(resume=False)
    done = {}
    start = time.perf_counter()
    for result in backend.run(run_episode, tasks):
        results.append(result["record"])
        done[result["record"]["key"]] = result["record"]
    seconds = time.perf_counter() - start
    cpu1, live1 = cpu_now()
    cpu = cpu1 - cpu0 + sum(c - live0.get(pid, 0.0) for pid, c in live1.items())
    results.finalize([done[t.key] for t in tasks])
    return seconds, (out / RESULTS).read_bytes(), cpu


def fixed_cost(tree: Path, results: Path, out: Path, seeds: int) -> float:
    """Seconds of ``main.py experiment`` from ``tree`` on a finished results file (no episode runs)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / RESULTS).write_bytes(results.read_bytes())
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "main.py", "experiment", DESIGN, "--seeds", str(seeds), "--resume",
                          "--out", str(out), "--quiet"], cwd=tree, capture_output=True, text=True, timeout=1200)
    seconds = time.perf_counter() - started
    if run.returncode != 0 or "episodes" not in (out / "report.md").read_text():
        raise SystemExit(f"error: the command failed in {tree}: {run.stderr[-1000:]}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds per scenario and condition (default 2)")
    parser.add_argument("--no-ray", action="store_true", help="only the local backend")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed runs of the command's fixed cost (default 3; 0: not timed)")
    parser.add_argument("--baseline-tree", help="another checkout whose command's fixed cost is timed alongside")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    design = load_design(SCENARIO_DIR / "experiments" / f"{DESIGN}.json")
    tasks = plan(design, resolve_scenarios(design.scenarios), design.seeds.seeds(args.seeds))
    # Every run starts from cold memos, as a user's command does: the in-process run (local, 1
    # worker) fills this process's per-world memos (rollouts, plan agreements), which forked
    # workers would inherit, so the forked run goes first. Ray's workers are processes of their own.
    runs = [("local", 2), ("local", 1)]
    if not args.no_ray:
        problem = ray_available()
        if problem:
            print(f"skipping Ray: {problem}")
        else:
            runs += [("ray", 1), ("ray", 2)]
    rows = []
    reference: bytes | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, workers) in enumerate(runs):
            started = time.perf_counter()
            backend = (LocalBackend(workers) if name == "local"
                       else RayBackend(None, workers, warm=(prepare_worker, warm_tasks(tasks))))
            startup = time.perf_counter() - started
            try:
                seconds, data, cpu = sweep(backend, tasks, Path(tmp) / f"run{i}")
            finally:
                backend.close()
            if reference is None:
                reference = data
            elif data != reference:
                print(f"error: {name} with {workers} worker(s) wrote a different episode file", file=sys.stderr)
                return 1
            rows.append({"backend": name, "workers": workers, "episodes": len(tasks), "seconds": round(seconds, 2),
                         "episodes_per_second": round(len(tasks) / seconds, 1),
                         "startup_seconds": round(startup, 2),
                         "cpu_ms_per_episode": round(1000 * cpu / len(tasks), 1),
                         "load_avg": round(os.getloadavg()[0], 1)})
        trees = [("this tree", ROOT)] + ([("baseline", Path(args.baseline_tree).resolve())] if args.baseline_tree else [])
        fixed: dict[str, list[float]] = {label: [] for label, _ in trees} if args.repeats > 0 else {}
        for repeat in range(args.repeats + 1 if args.repeats > 0 else 0):
            for label, tree in trees:
                seconds = fixed_cost(tree, Path(tmp) / "run0" / RESULTS, Path(tmp) / f"fixed-{label}", args.seeds)
                if repeat:  # the first fills the pre-check cache
                    fixed[label].append(seconds)
        fixed_load = round(os.getloadavg()[0], 1)
    local = {r["workers"]: r["seconds"] for r in rows if r["backend"] == "local"}
    for r in rows:
        r["vs_local_1"] = round(local[1] / r["seconds"], 2)
    local_cpu = {r["workers"]: r["cpu_ms_per_episode"] for r in rows if r["backend"] == "local"}
    for r in rows:
        r["vs_local_same_workers"] = round(local[r["workers"]] / r["seconds"], 2) if r["workers"] in local else None
        r["cpu_vs_local_same_workers"] = (round(local_cpu[r["workers"]] / r["cpu_ms_per_episode"], 2)
                                          if r["workers"] in local_cpu else None)
    cols = list(rows[0])
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    print(f"experiment runner: {len(tasks)} episodes of protom-dkg ({args.seeds} seeds), identical files in every run")
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(str(r[c]).ljust(w) for c, w in zip(cols, widths)))
    medians = {label: statistics.median(times) for label, times in fixed.items()}
    if fixed:
        print(f"\nfixed cost of 'main.py experiment {DESIGN} --seeds {args.seeds}' on a finished file (no episode runs), "
              f"median of {args.repeats}, load {fixed_load}:")
    for label, times in fixed.items():
        print(f"  {label}: {medians[label]:.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times)})")
    if "baseline" in medians:
        print(f"  baseline / this tree: {medians['baseline'] / medians['this tree']:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": rows, "fixed_cost": {"runs": fixed, "median": medians,
                                                                           "load_avg": fixed_load}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
