"""The coverage table that chose the interval of paired differences (docs/experiments.md,
"Choosing the interval when many pairs are identical"): every candidate in every cell, inside the
family the guarantee covers (true mean 0, symmetric non-identical differences) and outside it.

    python -m bench.bench_interval_coverage [--replicates 2000] [--methods signflip,t,bca,percentile]
"""

from __future__ import annotations

import argparse
import time

from sim.analysis.coverage import CANDIDATES, NS, SOURCES, TIE_RATES, band, cell_seed, coverage


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--methods", default=",".join(CANDIDATES))
    args = ap.parse_args()
    methods = args.methods.split(",")
    failed: dict[str, int] = {m: 0 for m in methods}
    start = time.perf_counter()
    print("| differences | n | identical | " + " | ".join(methods) + " |")
    print("|---|---|---|" + "---|" * len(methods))
    for source in SOURCES:
        for n in NS:
            for tie in TIE_RATES:
                cells = []
                low, high = band(n, tie)
                for m in methods:
                    c = coverage(m, source, n, tie, replicates=args.replicates, resamples=args.resamples,
                                 seed=cell_seed(source, n, tie))
                    out = source.family and not low <= c <= high
                    failed[m] += out
                    cells.append(f"{c:.3f}{' ✗' if out else ''}")
                print(f"| {source.name}{'' if source.family else ' (outside)'} | {n} | {tie:.0%} | "
                      + " | ".join(cells) + " |", flush=True)
    print("\ncells of the family outside the band: " + ", ".join(f"{m} {k}" for m, k in failed.items())
          + f"; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
