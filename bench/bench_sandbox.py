"""Benchmark of the team room's box: what starting one costs, before and after a change.

    .venv/bin/python bench/bench_sandbox.py [--before REV] [--boxes 30] [--out bench/results/bench_sandbox.json]

``--before`` is a git revision whose ``sim/teamroom/sandbox.py`` (and child) are loaded beside
the working tree's, in the same process. Then ``--boxes`` times each, interleaved (before, after,
before, ...), one ``run_tests`` of a one-line function on one case: one box started, the code
loaded, one answer, the box killed. Interleaving puts both under the same load, so that the ratio
of the medians says more than either figure; the load average is reported with them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sim.teamroom import sandbox as after  # noqa: E402

CODE = "def inc(x):\n    return x + 1\n"
CASES = [{"args": [1], "expected": 2}]


def module_at(revision: str, folder: Path) -> ModuleType:
    """``sim/teamroom/sandbox.py`` of ``revision``, its child beside it."""
    for name in ("sandbox.py", "sandbox_child.py"):
        text = subprocess.run(["git", "show", f"{revision}:sim/teamroom/{name}"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
        (folder / name).write_text(text)
    spec = importlib.util.spec_from_file_location("sandbox_before", folder / "sandbox.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sandbox_before"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def one_box(module: ModuleType) -> float:
    start = time.perf_counter()
    report = module.run_tests(CODE, "inc", CASES)
    seconds = time.perf_counter() - start
    if report.outcomes != ("pass",):
        raise SystemExit(f"error: a box did not pass a one-line function: {report}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="7ba39ec", help="git revision of the box to compare with")
    parser.add_argument("--boxes", type=int, default=30, help="boxes started by each version")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "bench_sandbox.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as folder:
        before = module_at(args.before, Path(folder))
        for module in (before, after):
            if module.isolation() != "bubblewrap":
                raise SystemExit(f"error: the box cannot run here: {module.isolation()}")
            one_box(module)  # untimed: caches of the interpreter's libraries, the filter
        times: dict[str, list[float]] = {"before": [], "after": []}
        load = os.getloadavg()
        for _ in range(args.boxes):
            times["before"].append(one_box(before))
            times["after"].append(one_box(after))
        load_after = os.getloadavg()
    medians = {k: statistics.median(v) for k, v in times.items()}
    result = {"before": args.before, "boxes": args.boxes,
              "median_seconds": medians, "ratio_after_before": medians["after"] / medians["before"],
              "quartiles": {k: statistics.quantiles(v, n=4) for k, v in times.items()},
              "whole_box_memory": after.whole_box_memory(),
              "load_average_1min": [load[0], load_after[0]], "cores": os.cpu_count()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
