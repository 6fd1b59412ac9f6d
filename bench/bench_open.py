"""Benchmark of opening a recording from a cold start: ``main.py gui REC`` until its first frame.

    .venv/bin/python bench/bench_open.py [--steps 10000] [--repeats 3] [--out bench/results/bench_open.json]
    .venv/bin/python bench/bench_open.py --default-scenario [--repeats 3]

With ``--default-scenario`` it times ``main.py gui`` with nothing to open instead: the default
scenario's first frame (found by its file, the catalogue read in a worker thread afterwards), with
the catalogue's index present and with none yet (a first run), against a baseline in the same run
that reads the catalogue first (what a start did before).

Each figure is a fresh process (``main.py``'s command line, imports, window, the recording; the
Session panel's catalogue is filled after the first frame), started the way ``main.py gui REC --paused`` starts, on Qt's offscreen platform,
timed until the world view has painted the recording's first frame and until the whole file is
read. Python's bytecode caches are kept in the work folder (``PYTHONPYCACHEPREFIX``; the first,
untimed start writes them), as an installed program has them after its first run:

1. first frame of a 10,000-step recording (generated here), the catalogue's cached index
   (``sim/scenario_index.py``) present -- target <= 1 s;
2. the same with no index yet (the first start after an install or an edit);
3. baseline, same run: the whole-file open (``MainWindow.open_recording``: nothing shows until
   every line is read and every step re-simulated), from a cold start too;
4. length independence: the first frame of a 100-step recording, same run;
5. the first figure without bytecode caches (``PYTHONDONTWRITEBYTECODE``: every module compiled
   from its source at every start, as where the environment forbids writing them). Python still
   reads the ``__pycache__`` folders it finds beside the sources: when the source tree holds
   some (written by other runs), the report says that this row is not a start without caches.

Wall time depends on the machine's load (other processes sharing its cores); the CPU time of
the process and the ratios (whole-file open / first frame, 10,000 / 100 steps) much less so:
each is reported with the load average at the time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIRST_FRAME_TARGET_S = 1.0
#: ``cold_start``'s path for a start with nothing to open (the default scenario)
DEFAULT = Path("-")


def child(path: str, blocking: bool) -> None:
    """One cold start (run in a fresh process): print the figures as one JSON line."""
    t0 = time.perf_counter()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from main import build_parser

    build_parser().parse_args(["gui", path, "--paused"])  # what main.py does before the app starts
    from ui.app import application, launch
    from ui.settings import AppSettings

    app = application()
    from ui.mainwindow import MainWindow
    from ui.session.timeline import ReplayTimeline

    settings = AppSettings.at(os.environ["BENCH_SETTINGS"])
    window = MainWindow(settings)
    window.show()
    if blocking:
        assert window.open_recording(path), window.statusBar().currentMessage()
    else:
        launch(window, targets=[path], paused=True)
    while window.view.frames_drawn == 0:
        window.view.repaint()
        app.processEvents()
    first, first_cpu = time.perf_counter() - t0, time.process_time()
    while not isinstance(window.model.timeline, ReplayTimeline):
        app.processEvents()
        time.sleep(0.002)
    loaded = time.perf_counter() - t0
    steps = window.model.timeline.num_steps
    window.shutdown()
    print(json.dumps({"first_frame_s": first, "first_frame_cpu_s": first_cpu, "loaded_s": loaded, "steps": steps}))


def child_default(wait_catalogue: bool) -> None:
    """One cold start of ``main.py gui`` with nothing to open (the default scenario, paused, as a
    first run shows it), timed until the view has painted the scenario's first state; with
    ``wait_catalogue``, the Session panel's catalogue is read first (what a start did before the
    default scenario was found by its file). Prints the figures as one JSON line."""
    t0 = time.perf_counter()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from main import build_parser

    build_parser().parse_args(["gui", "--paused"])
    from ui.app import application, launch
    from ui.settings import AppSettings

    app = application()
    from ui.mainwindow import MainWindow

    window = MainWindow(AppSettings.at(os.environ["BENCH_SETTINGS"]))
    window.show()
    if wait_catalogue:
        window.fill_setup()
    launch(window, paused=True)
    while window.view.drawn_state is None:
        window.view.repaint()
        app.processEvents()
    first, first_cpu = time.perf_counter() - t0, time.process_time()
    scenario = window.model.timeline.scenario
    while not window.catalogue.finished:
        app.processEvents()
        time.sleep(0.002)
    read = time.perf_counter() - t0
    window.shutdown()
    print(json.dumps({"first_frame_s": first, "first_frame_cpu_s": first_cpu, "catalogue_read_s": read,
                      "scenario": scenario}))


def cold_start(path: Path, work: Path, *, blocking: bool = False, index: bool = True,
               bytecode: bool = True) -> dict[str, Any]:
    cache = work / "cache"
    if not index:
        shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, TOM_ARENA_CACHE=str(cache), BENCH_SETTINGS=str(work / "settings.ini"),
               QT_QPA_PLATFORM="offscreen", SDL_VIDEODRIVER="dummy")
    env.pop("PYTHONPYCACHEPREFIX", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    what = ["--child-default", *(["--blocking"] if blocking else [])] if path == DEFAULT else \
        ["--child", str(path), *(["--blocking"] if blocking else [])]
    out = subprocess.run([sys.executable, __file__, *what],
                         env=env, capture_output=True, text=True, cwd=ROOT, check=True)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    figures["load_average"] = os.getloadavg()[0]
    return figures


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("first_frame_s", "first_frame_cpu_s", "loaded_s", "load_average")
    return {**{k: statistics.median(r[k] for r in runs) for k in keys}, "steps": runs[0]["steps"], "runs": len(runs)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench.bench_gui import make_long_recording

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    long_path, short_path = work / f"long-{args.steps}.jsonl", work / "short-100.jsonl"
    for path, steps in ((long_path, args.steps), (short_path, 100)):
        if not path.exists():
            make_long_recording(path, steps)
    cold_start(long_path, work)  # warm the disk cache, write the bytecode caches and the scenario index once
    results: dict[str, Any] = {"recording_steps": args.steps, "cpus": os.cpu_count()}
    indexed, no_index, blocking, short, no_bytecode = [], [], [], [], []
    for _ in range(args.repeats):  # interleaved, so that load changes touch every figure alike
        indexed.append(cold_start(long_path, work))
        blocking.append(cold_start(long_path, work, blocking=True))
        short.append(cold_start(short_path, work))
        no_index.append(cold_start(long_path, work, index=False))
        no_bytecode.append(cold_start(long_path, work, bytecode=False))
    results["first_frame"] = median_of(indexed)
    results["first_frame_no_index"] = median_of(no_index)
    results["first_frame_no_bytecode_cache"] = median_of(no_bytecode)
    results["whole_file_open"] = median_of(blocking)
    results["first_frame_100_steps"] = median_of(short)
    ff, base, small = results["first_frame"], results["whole_file_open"], results["first_frame_100_steps"]
    results["ratio_whole_file_over_first_frame"] = base["first_frame_s"] / ff["first_frame_s"]
    results["ratio_cpu_whole_file_over_first_frame"] = base["first_frame_cpu_s"] / ff["first_frame_cpu_s"]
    results["ratio_long_over_short"] = ff["first_frame_s"] / small["first_frame_s"]
    results["target_s"] = FIRST_FRAME_TARGET_S
    results["meets_target"] = ff["first_frame_s"] <= FIRST_FRAME_TARGET_S
    results["meets_target_cpu"] = ff["first_frame_cpu_s"] <= FIRST_FRAME_TARGET_S
    results["tree_bytecode_caches"] = tree_bytecode_caches()
    return results


def run_default(args: argparse.Namespace) -> dict[str, Any]:
    """``--default-scenario``: a start with nothing to open, the default scenario's first frame,
    with and without the catalogue's index, against the start that reads the catalogue first."""
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cold_start(DEFAULT, work)  # bytecode caches and the index, once
    rows: dict[str, list[dict[str, Any]]] = {"first_frame": [], "first_frame_no_index": [],
                                             "catalogue_first": [], "catalogue_first_no_index": []}
    for _ in range(args.repeats):  # interleaved, so that load changes touch every figure alike
        rows["first_frame"].append(cold_start(DEFAULT, work))
        rows["catalogue_first"].append(cold_start(DEFAULT, work, blocking=True))
        rows["first_frame_no_index"].append(cold_start(DEFAULT, work, index=False))
        rows["catalogue_first_no_index"].append(cold_start(DEFAULT, work, blocking=True, index=False))
    keys = ("first_frame_s", "first_frame_cpu_s", "catalogue_read_s", "load_average")
    results: dict[str, Any] = {"cpus": os.cpu_count(), "scenario": rows["first_frame"][0]["scenario"]}
    for name, runs in rows.items():
        results[name] = {**{k: statistics.median(r[k] for r in runs) for k in keys}, "runs": len(runs)}
    return results


def report_default(r: dict[str, Any]) -> str:
    def line(label: str, f: dict[str, Any]) -> str:
        return (f"{label:<52} first frame {f['first_frame_s']:.2f} s (CPU {f['first_frame_cpu_s']:.2f} s), "
                f"catalogue read {f['catalogue_read_s']:.2f} s   [load avg {f['load_average']:.1f}, "
                f"median of {f['runs']}]")

    return "\n".join([
        f"cold start of 'main.py gui' ({r['cpus']} CPUs), the default scenario {r['scenario']}:",
        line("first frame, the catalogue index present:", r["first_frame"]),
        line("first frame, no index yet (first run):", r["first_frame_no_index"]),
        line("baseline: catalogue read first, index present:", r["catalogue_first"]),
        line("baseline: catalogue read first, no index yet:", r["catalogue_first_no_index"]),
    ])


def tree_bytecode_caches() -> int:
    """How many ``__pycache__`` folders the project's own packages hold (read by the start
    "without bytecode caches" too, which then compiles fewer modules than it says)."""
    return sum(1 for package in ("sim", "agents", "ui") for _ in (ROOT / package).rglob("__pycache__"))


def report(r: dict[str, Any]) -> str:
    def line(label: str, f: dict[str, Any]) -> str:
        return (f"{label:<44} first frame {f['first_frame_s']:.2f} s (CPU {f['first_frame_cpu_s']:.2f} s), "
                f"all read {f['loaded_s']:.2f} s   [load avg {f['load_average']:.1f}, median of {f['runs']}]")

    return "\n".join([
        f"cold start of 'main.py gui REC' ({r['cpus']} CPUs), {r['recording_steps']}-step recording:",
        line("first frame, the catalogue index present:", r["first_frame"]),
        line("first frame, no index yet:", r["first_frame_no_index"]),
        line("baseline: whole-file open:", r["whole_file_open"]),
        line("first frame, a 100-step recording:", r["first_frame_100_steps"]),
        line("first frame, no bytecode caches:", r["first_frame_no_bytecode_cache"])
        + (f"  [NOT without caches: {r['tree_bytecode_caches']} __pycache__ folders in the source tree]"
           if r["tree_bytecode_caches"] else ""),
        f"ratio whole-file open / first frame: {r['ratio_whole_file_over_first_frame']:.1f}x wall, "
        f"{r['ratio_cpu_whole_file_over_first_frame']:.1f}x CPU;  10,000 / 100 steps: "
        f"{r['ratio_long_over_short']:.2f}x  (target first frame <= {r['target_s']:.0f} s: "
        f"{'met' if r['meets_target'] else 'NOT met'} in wall time, "
        f"{'met' if r['meets_target_cpu'] else 'NOT met'} in CPU time)",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=10_000, help="steps of the long recording (default 10000)")
    parser.add_argument("--repeats", type=int, default=3, help="cold starts per figure (default 3; medians)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "bench_open.json"))
    parser.add_argument("--work", default=str(ROOT / "bench" / "results" / "open-work"),
                        help="folder for the generated recordings, settings and index")
    parser.add_argument("--default-scenario", action="store_true",
                        help="time a start with nothing to open (the default scenario's first frame) instead, "
                             "against reading the catalogue first (figures in bench_open_default.json)")
    parser.add_argument("--child", metavar="REC", help=argparse.SUPPRESS)
    parser.add_argument("--child-default", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--blocking", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.blocking)
        return 0
    if args.child_default:
        child_default(args.blocking)
        return 0
    results = run_default(args) if args.default_scenario else run(args)
    out = Path(args.out)
    if args.default_scenario and out == Path(parser.get_default("out")):
        out = out.with_name("bench_open_default.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(report_default(results) if args.default_scenario else report(results))
    print(f"figures: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
