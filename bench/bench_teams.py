"""Team formation solvers (Eq. 5) on random alignment matrices.

    .venv/bin/python -m bench.bench_teams [--instances K] [--seed S] [--json FILE]

Instances: phi = clip(U(-1, 1) + shift, -1, 1) with the shift cycling through 0, 0.4 and 0.8
(from mostly misaligned, where the best ceil(n/2)-team wins at once, to mostly aligned, where
many large teams are refuted by blocking coalitions), eps = 0.2 with its fallback.

Figures (one process, same instances for every solver):
- exact solver at n = 12 (target <= 20 ms) and n = 20 (target <= 1 s): median, p90 and max
  wall time, candidates refuted;
- at n = 20 the same instances solved by ``solve_one_by_one`` (one full stability check per
  candidate): same answers, and the time ratio one-by-one / exact (median over instances);
- exact against the brute-force reference at n = 8 and 10: same team and welfare on every
  instance, and the time ratio brute / exact (median over instances);
- anytime solver at n = 20 (gap to its bound, and whether it found the exact optimum), 30 and
  40 (gap to its upper bound, time).

The exit status is 1 when a time target is missed or the exact solver and brute force disagree
on an instance, or the two exact searches do (the anytime figures are reported, not checked).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.teams.formation import TeamProblem  # noqa: E402
from agents.teams.solver import solve_anytime, solve_brute, solve_exact, solve_one_by_one  # noqa: E402

SHIFTS = (0.0, 0.4, 0.8)


def instances(n: int, count: int, seed: int) -> list[TeamProblem]:
    rng = np.random.default_rng([seed, n])
    return [TeamProblem(np.clip(rng.uniform(-1, 1, (n, n)) + SHIFTS[k % len(SHIFTS)], -1, 1), eps=0.2)
            for k in range(count)]


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def summary(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {"median_ms": statistics.median(ms), "p90_ms": ms[min(len(ms) - 1, int(0.9 * len(ms)))],
            "max_ms": ms[-1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=12, help="random matrices per size (default 12)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    k, seed = args.instances, args.seed
    report: dict[str, object] = {}
    solve_exact(instances(12, 1, seed + 99)[0])  # warm caches (popcount tables) outside the timings

    print(f"exact solver, {k} random phi matrices per size (shifts {SHIFTS}, eps 0.2)")
    for n, target in ((12, 20.0), (20, 1000.0)):
        results = [timed(solve_exact, p) for p in instances(n, k, seed)]
        stats = summary([t for _, t in results])
        refuted = [s.refuted for s, _ in results]
        ok = stats["max_ms"] <= target
        print(f"  n = {n:2d}: median {stats['median_ms']:8.2f} ms  p90 {stats['p90_ms']:8.2f} ms  "
              f"max {stats['max_ms']:8.2f} ms  (target <= {target:g} ms: {'met' if ok else 'MISSED'}); "
              f"refuted candidates median {statistics.median(refuted):g}, max {max(refuted)}; "
              f"eps-filtered answers {sum(s.filtered for s, _ in results)}/{k}")
        report[f"exact_n{n}"] = {**stats, "target_ms": target, "met": ok, "refuted": refuted}
        if n == 20:
            plain = [timed(solve_one_by_one, p) for p in instances(n, k, seed)]
            same = sum(a.team == b.team and abs(a.welfare - b.welfare) <= 1e-9 and a.refuted == b.refuted
                       for (a, _), (b, _) in zip(results, plain))
            ratios = [tp / te for (_, te), (_, tp) in zip(results, plain)]
            pstats = summary([t for _, t in plain])
            print(f"          one-by-one search: median {pstats['median_ms']:8.2f} ms  max {pstats['max_ms']:8.2f} ms; "
                  f"same answer {same}/{k}; one-by-one / exact time: median {statistics.median(ratios):.1f}x "
                  f"(min {min(ratios):.1f}x, max {max(ratios):.1f}x)")
            report["one_by_one_n20"] = {**pstats, "same": same, "ratio_median": statistics.median(ratios),
                                        "ratios": ratios}

    print("exact vs brute-force reference (same instances)")
    for n in (8, 10):
        same, ratios, rows = 0, [], []
        for p in instances(n, k, seed + 1):
            exact, te = timed(solve_exact, p)
            brute, tb = timed(solve_brute, p)
            agree = exact.team == brute.team and abs(exact.welfare - brute.welfare) <= 1e-9
            same += agree
            ratios.append(tb / te)
            rows.append({"exact_ms": te * 1000, "brute_ms": tb * 1000, "same": agree})
        print(f"  n = {n:2d}: same answer {same}/{k}; brute / exact time: median {statistics.median(ratios):.0f}x "
              f"(min {min(ratios):.0f}x, max {max(ratios):.0f}x); brute median "
              f"{statistics.median(r['brute_ms'] for r in rows):.1f} ms, exact median "
              f"{statistics.median(r['exact_ms'] for r in rows):.2f} ms")
        report[f"brute_n{n}"] = {"same": same, "instances": k, "ratio_median": statistics.median(ratios),
                                 "rows": rows}

    print("anytime solver (gap = (upper bound - welfare) / |upper bound|)")
    for n in (20, 30, 40):
        gaps, found, times, true_gaps = [], 0, [], []
        for p in instances(n, k, seed + 2):
            sol, t = timed(solve_anytime, p)
            gaps.append(sol.gap)
            times.append(t)
            if n <= 20:
                exact = solve_exact(p)
                found += sol.team == exact.team
                true_gaps.append((exact.welfare - sol.welfare) / max(abs(exact.welfare), 1e-9))
        stats = summary(times)
        line = (f"  n = {n:2d}: gap to bound median {100 * statistics.median(gaps):5.1f} %  max "
                f"{100 * max(gaps):5.1f} %  proven optimal {sum(g <= 1e-9 for g in gaps)}/{k}; "
                f"time median {stats['median_ms']:.0f} ms, max {stats['max_ms']:.0f} ms")
        if true_gaps:
            line += (f"; exact optimum found {found}/{k}, true gap max {100 * max(true_gaps):.2f} %")
        print(line)
        report[f"anytime_n{n}"] = {**stats, "gaps": gaps, "true_gaps": true_gaps, "found_exact": found}

    failed = [f"exact n = {n}: max {report[f'exact_n{n}']['max_ms']:.1f} ms over {report[f'exact_n{n}']['target_ms']:g} ms"
              for n in (12, 20) if not report[f"exact_n{n}"]["met"]]
    failed += [f"brute force n = {n}: {report[f'brute_n{n}']['same']}/{k} same answers"
               for n in (8, 10) if report[f"brute_n{n}"]["same"] != k]
    if report["one_by_one_n20"]["same"] != k:  # type: ignore[index]
        failed.append(f"one-by-one n = 20: {report['one_by_one_n20']['same']}/{k} same answers")  # type: ignore[index]
    report["checks_met"] = not failed
    print("checks: " + ("every time target met, every brute-force and one-by-one answer matched" if not failed
                        else "FAILED: " + "; ".join(failed)))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
