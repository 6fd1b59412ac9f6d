"""The fixed cost of an experiment run: a short ``protom-dkg`` run's wall time and the episodes' share.

    .venv/bin/python -m bench.bench_experiment_fixed [--seeds 1] [--jobs 1 2] [--repeats 3]
                                                     [--baseline-tree DIR] [--json FILE]

Runs ``python main.py experiment protom-dkg --seeds S --jobs J --quiet`` from scratch (a new
results file: every episode plays) as a subprocess, for each ``--jobs`` value, ``--repeats``
times after one run that is not counted (it fills the pre-check cache, as any earlier run
would have, and the compiled modules' cache: ``command_env``). Per run:

- wall: the command's seconds, from start to exit (interpreter, imports, pre-checks, the plan,
  the workers, the episodes, the statistics, the report and its figures);
- episodes: the seconds the runner reports for the sweep itself (``## Run`` in report.md:
  from the first episode submitted to the last result written);
- fixed: wall - episodes, and the episodes' share of the wall time;
- CPU: the CPU seconds of the command and every process it started (its workers, the figure
  processes), which depends much less on the machine's load than the wall time.

Baseline, in the same run: with ``--baseline-tree`` (another checkout, e.g. the code before a
change) the same command from that tree alternates with this tree's, and the ratios are the
baseline's medians over this tree's. The outputs must agree: every file a run writes is
compared byte for byte with the first run's of the same tree with the same ``--jobs`` (the
report's command line names it), except what the report pages say about the run itself (its
seconds, where the episodes ran, the commit); a difference is an error. The files in which the
two trees differ are listed (a change that draws a figure differently changes its PNG). The first ``--jobs`` value is the
baseline of the others (the wall ratio is what the workers gain).
Figures depend on the machine's load (printed before and after).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESIGN = "protom-dkg"
#: what the report says about one run, not about its results (its seconds, where the episodes
#: ran, the commit): it differs between runs
RUN_PARTS = [(re.compile(r"episodes run in [0-9.]+ s \([^)]*\)"), "episodes run in - s (-)"),
             (re.compile(r"\| git commit \|[^\n]*\n"), ""),
             (re.compile(r"<tr><td>git commit</td><td>.*?</td></tr>"), "")]


def command_env(cache: Path) -> dict[str, str]:
    """The environment of the timed commands: compiled modules cached (in ``cache``, each
    tree's apart) as on a user's machine, even where ``PYTHONDONTWRITEBYTECODE`` is set (as in
    this project's shells; every run would compile the project's modules again, ~0.1 s)."""
    env = dict(os.environ)
    if env.pop("PYTHONDONTWRITEBYTECODE", None) is not None and "PYTHONPYCACHEPREFIX" not in env:
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def one_run(tree: Path, out: Path, seeds: int, jobs: int, env: dict[str, str] | None = None) -> dict[str, float]:
    """Run the command from ``tree`` into a new ``out``; its wall, episode and CPU seconds."""
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "main.py", "experiment", DESIGN, "--seeds", str(seeds), "--jobs", str(jobs),
                          "--out", str(out), "--quiet"], cwd=tree, capture_output=True, text=True, timeout=3600,
                         env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"error: the command failed in {tree}: {run.stderr[-1000:]}")
    found = re.search(r"(\d+) episodes run in ([0-9.]+) s", (out / "report.md").read_text(encoding="utf-8"))
    if found is None or found.group(1) == "0":
        raise SystemExit(f"error: {out / 'report.md'} names no episodes run")
    episodes = float(found.group(2))
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"wall": wall, "episodes": episodes, "fixed": wall - episodes, "cpu": cpu}


def outputs(out: Path) -> dict[str, bytes]:
    """The run's files, the report pages without their lines about this run."""
    files = {}
    for path in sorted(out.iterdir()):
        data = path.read_bytes()
        if path.name in ("report.md", "report.html"):
            text = data.decode("utf-8")
            for pattern, replacement in RUN_PARTS:
                text = pattern.sub(replacement, text)
            data = text.encode("utf-8")
        files[path.name] = data
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=1, help="seeds per scenario and condition (default 1: 80 episodes)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="worker processes to time (default 1 2)")
    parser.add_argument("--repeats", type=int, default=3, help="counted runs per tree and --jobs (default 3)")
    parser.add_argument("--baseline-tree", help="another checkout whose runs alternate with this tree's")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.repeats < 1 or min(args.jobs) < 1:
        parser.error("--seeds, --repeats and --jobs must be at least 1")
    trees = [("this tree", ROOT)]
    if args.baseline_tree:
        base = Path(args.baseline_tree).resolve()
        if not (base / "main.py").is_file():
            parser.error(f"--baseline-tree {base}: no main.py there")
        trees.append(("baseline", base))
    load_before = os.getloadavg()[0]
    runs: dict[tuple[str, int], list[dict[str, float]]] = {(label, j): [] for label, _ in trees for j in args.jobs}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"  # one path for every run: the report's command line is the same
        env = command_env(Path(tmp) / "pycache")
        reference: dict[tuple[str, int], dict[str, bytes]] = {}
        for repeat in range(args.repeats + 1):
            for jobs in args.jobs:
                for label, tree in trees:
                    figures = one_run(tree, out, args.seeds, jobs, env)
                    files = outputs(out)
                    first = reference.setdefault((label, jobs), files)
                    if files != first:
                        differ = sorted(n for n in {*files, *first} if files.get(n) != first.get(n))
                        print(f"error: {label} with --jobs {jobs} wrote different files: {', '.join(differ)}",
                              file=sys.stderr)
                        return 1
                    if repeat:  # the first of each fills the pre-check cache
                        runs[(label, jobs)].append(figures)
    load_after = os.getloadavg()[0]
    med = {key: {k: statistics.median(r[k] for r in rs) for k in ("wall", "episodes", "fixed", "cpu")}
           for key, rs in runs.items()}
    print(f"'main.py experiment {DESIGN} --seeds {args.seeds}' from scratch, median of {args.repeats} runs "
          f"(load average {load_before:.1f} before, {load_after:.1f} after); identical outputs in every run "
          f"of a tree")
    for jobs in args.jobs if args.baseline_tree else ():
        mine, theirs = reference[("this tree", jobs)], reference[("baseline", jobs)]
        differ = sorted(n for n in {*mine, *theirs} if mine.get(n) != theirs.get(n))
        print(f"  --jobs {jobs}: files that differ from the baseline's: {', '.join(differ) or 'none'}")
    print(f"  {'tree':10s} {'jobs':>4s} {'wall s':>7s} {'episodes s':>10s} {'fixed s':>7s} {'episodes %':>10s} "
          f"{'CPU s':>6s}   runs (wall)")
    for (label, jobs), m in med.items():
        print(f"  {label:10s} {jobs:4d} {m['wall']:7.2f} {m['episodes']:10.2f} {m['fixed']:7.2f} "
              f"{100 * m['episodes'] / m['wall']:10.0f} {m['cpu']:6.1f}   "
              + ", ".join(f"{r['wall']:.1f}" for r in runs[(label, jobs)]))
    ratios = {}
    if args.baseline_tree:
        for jobs in args.jobs:
            b, t = med[("baseline", jobs)], med[("this tree", jobs)]
            ratios[f"baseline/this, jobs {jobs}"] = {k: b[k] / t[k] for k in ("wall", "fixed", "cpu")}
    first = args.jobs[0]
    for label, _ in trees:
        for jobs in args.jobs[1:]:
            ratios[f"{label}: jobs {first} / jobs {jobs}"] = {
                k: med[(label, first)][k] / med[(label, jobs)][k] for k in ("wall", "episodes")}
    for name, values in ratios.items():
        print(f"  {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in values.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({
            "runs": {f"{label} jobs {jobs}": rs for (label, jobs), rs in runs.items()},
            "medians": {f"{label} jobs {jobs}": m for (label, jobs), m in med.items()},
            "ratios": ratios, "load_avg": [load_before, load_after]}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
