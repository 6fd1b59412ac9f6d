"""Benchmark of the live alignment-matrix panel (ui/panels/teams.py).

    .venv/bin/python -m bench.bench_teams_panel [--updates 60] [--json FILE]

Per update: a new ``alignment_matrix`` and ``team_state`` snapshot (random phi, a few unknown
cells, a team of half the agents) is handed to the panel's painted view, which is then painted
whole into an image (``grab()``, offscreen Qt), at n = 5, 8 and 20 agents. Baseline in the same process: the
same picture drawn by matplotlib (imshow, colour bar, names, one text per cell, outlines below
eps) with a full ``draw()`` per update, the cost measured in /work/shared/notes/desktop-stack.md.
Target: an update fits one frame at 60 Hz (<= 16 ms) at n = 8, so the panel can follow every step.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_MS = 16.0


def snapshots(n: int, rng: Any, tick: int) -> tuple[Any, Any]:
    from sim.events import BeliefEvent

    agents = [f"agent{k}" for k in range(n)]
    phi = rng.uniform(-1, 1, (n, n)).round(3)
    unknown = rng.random((n, n)) < 0.1
    rows = [[None if i == j or unknown[i, j] else float(phi[i, j]) for j in range(n)] for i in range(n)]
    samples = [[0 if rows[i][j] is None else int(rng.integers(1, 6)) for j in range(n)] for i in range(n)]
    matrix = BeliefEvent(tick=tick, owner="teams", kind="alignment_matrix",
                         data={"agents": agents, "phi": rows, "samples": samples, "eps": 0.2, "theta": 0.3})
    team = agents[: (n + 1) // 2]
    state = BeliefEvent(tick=tick, owner="teams", kind="team_state",
                        data={"teams": {"team": team}, "idle": agents[len(team):], "misaligned": None})
    return matrix, state


def time_panel(n: int, updates: int) -> list[float]:
    import numpy as np

    from ui.panels.teams import AlignmentMatrixView

    rng = np.random.default_rng(n)
    view = AlignmentMatrixView()
    view.resize(380, 900)
    view.show()
    times = []
    for k in range(updates):
        matrix, state = snapshots(n, rng, k)
        start = time.perf_counter()
        view.set_data(matrix, state, levels={a: k % 3 for k, a in enumerate(matrix.data["agents"])})
        view.grab()  # paints the whole view into an image (an offscreen window may skip a repaint)
        times.append((time.perf_counter() - start) * 1000)
    assert view.paints >= updates, "the view did not paint every update"
    view.close()
    return times


def time_matplotlib(n: int, updates: int) -> list[float]:
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    rng = np.random.default_rng(n)
    fig = Figure(figsize=(3.8, 4.2), dpi=100)
    times = []
    for k in range(updates):
        matrix, _ = snapshots(n, rng, k)
        data = matrix.data
        values = np.array([[np.nan if v is None else v for v in row] for row in data["phi"]])
        start = time.perf_counter()
        fig.clear()
        ax = fig.add_subplot()
        image = ax.imshow(values, cmap="RdBu", vmin=-1, vmax=1)
        fig.colorbar(image, ax=ax)
        ax.set_xticks(range(n), data["agents"], rotation=90)
        ax.set_yticks(range(n), data["agents"])
        for i in range(n):
            for j in range(n):
                v = values[i, j]
                ax.text(j, i, "?" if np.isnan(v) else f"{v:+.2f}", ha="center", va="center", fontsize=6)
                if not np.isnan(v) and v < data["eps"]:
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=1.5))
        fig.canvas.draw()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=60)
    parser.add_argument("--json", type=Path, default=None, help="write the figures to this file")
    args = parser.parse_args(argv)
    from ui.app import application

    app = application()  # noqa: F841  (kept alive while the views exist)
    results = []
    print(f"{'agents':>6} {'panel ms (median)':>18} {'p95':>7} {'matplotlib ms':>14} {'ratio':>7}")
    for n in (5, 8, 20):
        panel = time_panel(n, args.updates)
        baseline = time_matplotlib(n, max(5, args.updates // 6))
        row = {"agents": n, "panel_ms_median": statistics.median(panel),
               "panel_ms_p95": sorted(panel)[int(0.95 * (len(panel) - 1))],
               "matplotlib_ms_median": statistics.median(baseline)}
        row["ratio"] = row["matplotlib_ms_median"] / row["panel_ms_median"]
        results.append(row)
        print(f"{n:>6} {row['panel_ms_median']:>18.2f} {row['panel_ms_p95']:>7.2f} "
              f"{row['matplotlib_ms_median']:>14.1f} {row['ratio']:>6.0f}x")
    at8 = next(r for r in results if r["agents"] == 8)
    verdict = "met" if at8["panel_ms_median"] <= TARGET_MS else "MISSED"
    print(f"target: one update <= {TARGET_MS:g} ms at n = 8: {verdict} ({at8['panel_ms_median']:.2f} ms)")
    if args.json:
        args.json.write_text(json.dumps({"target_ms": TARGET_MS, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
