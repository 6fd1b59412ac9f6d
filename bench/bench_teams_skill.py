"""The exact team solver (Eq. 5) on its hardest matrices: the skill term and high alignment.

    .venv/bin/python -m bench.bench_teams_skill [--instances K] [--seed S] [--json FILE]

``bench/bench_teams.py`` times the exact solver on matrices without skills, alignment shifted by
0, 0.4 and 0.8. With skills (alpha ~ U(0, 1), lambda = 1) and high alignment (shift 0.6 and 0.8)
the optimum is a large stable team, and many larger candidates are refuted first: these are the
matrices where the solver is slowest. Figures, one process, same generator for every row:

- n = 20 with skills and high alignment (target <= 1 s per instance): median, p90, max, candidates
  refuted and how many of them were checked themselves (the others were blocked by a coalition
  found for an earlier candidate);
- baselines in the same run: the same n = 20 matrices with skills solved by ``solve_one_by_one``
  (one full stability check per candidate, the search ``solve_exact`` replaced), with the same
  answers required; n = 20 without skills at the same shifts; n = 12 with skills; ratios of
  medians (one-by-one / exact, skills / no skills, n = 20 / n = 12).

The load average is printed before and after (wall times grow with it; the ratios much less).
Reported, not checked: the exit status is 0 whatever the figures, unless the two searches
disagree on an instance (status 1).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.teams.formation import TeamProblem  # noqa: E402
from agents.teams.solver import solve_exact, solve_one_by_one  # noqa: E402
from bench.bench_teams import summary, timed  # noqa: E402

HIGH_SHIFTS = (0.6, 0.8)


def instances(n: int, count: int, seed: int, skills: bool) -> list[TeamProblem]:
    rng = np.random.default_rng([seed, n, 7])
    out = []
    for k in range(count):
        phi = np.clip(rng.uniform(-1, 1, (n, n)) + HIGH_SHIFTS[k % len(HIGH_SHIFTS)], -1, 1)
        alpha = rng.uniform(0, 1, n)
        out.append(TeamProblem(phi, alpha=alpha if skills else None, lam=1.0, eps=0.2))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=4, help="matrices per row (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-one-by-one", action="store_true",
                        help="skip the one-by-one baseline (minutes under load)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    solve_exact(instances(12, 1, args.seed + 99, True)[0])  # warm the popcount tables
    report: dict[str, object] = {"load_average": os.getloadavg()[0], "instances": args.instances,
                                 "shifts": HIGH_SHIFTS}
    rows = [("n20_skills", 20, True, solve_exact), ("n20_no_skills", 20, False, solve_exact),
            ("n12_skills", 12, True, solve_exact)]
    if not args.no_one_by_one:
        rows.insert(1, ("n20_skills_one_by_one", 20, True, solve_one_by_one))
    print(f"exact solver, {args.instances} matrices per row, alignment shifts {HIGH_SHIFTS}, eps 0.2 "
          f"(load average {report['load_average']:.1f})")
    answers: dict[str, list] = {}
    for name, n, skills, solver in rows:
        results = [timed(solver, p) for p in instances(n, args.instances, args.seed, skills)]
        answers[name] = [(s.team, s.welfare, s.refuted) for s, _ in results]
        stats = summary([t for _, t in results])
        refuted = [s.refuted for s, _ in results]
        checked = [s.stats.get("checked", s.refuted + 1) for s, _ in results]
        sizes = [len(s.team) for s, _ in results]
        report[name] = {**stats, "refuted": refuted, "checked": checked, "team_sizes": sizes}
        target = " (target <= 1000 ms: " + ("met)" if stats["max_ms"] <= 1000 else "MISSED)") if name == "n20_skills" else ""
        print(f"  {name:<22} median {stats['median_ms']:8.1f} ms  p90 {stats['p90_ms']:8.1f} ms  max "
              f"{stats['max_ms']:8.1f} ms{target}; refuted median {statistics.median(refuted):g}, max {max(refuted)}; "
              f"checked median {statistics.median(checked):g}; team size median {statistics.median(sizes):g}")
    s20, b20, s12 = (report[k]["median_ms"] for k in ("n20_skills", "n20_no_skills", "n12_skills"))  # type: ignore[index]
    report["ratio_skills_over_no_skills_n20"] = s20 / b20
    report["ratio_n20_over_n12_skills"] = s20 / s12
    line = (f"  ratios of medians: skills / no skills at n = 20: {s20 / b20:.1f}x; n = 20 / n = 12 with skills: "
            f"{s20 / s12:.0f}x")
    same = True
    if not args.no_one_by_one:
        o20 = report["n20_skills_one_by_one"]["median_ms"]  # type: ignore[index]
        report["ratio_one_by_one_over_exact_n20_skills"] = o20 / s20
        same = all(a[0] == b[0] and abs(a[1] - b[1]) <= 1e-9 and a[2] == b[2]
                   for a, b in zip(answers["n20_skills"], answers["n20_skills_one_by_one"]))
        report["same_answers_as_one_by_one"] = same
        line += (f"; one-by-one / exact at n = 20 with skills: {o20 / s20:.0f}x "
                 f"(same team, welfare and refuted count on every matrix: {'yes' if same else 'NO'})")
    print(line)
    report["load_average_after"] = os.getloadavg()[0]
    print(f"  load average after: {report['load_average_after']:.1f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
