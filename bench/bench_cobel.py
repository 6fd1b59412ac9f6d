"""CoBel-World's comparison on the shipped household episodes (the paper's Tables 1-2, our world).

    .venv/bin/python -m bench.bench_cobel [--seeds 0-4] [--methods rhp,coela,capo,mhp,cobel] [--json FILE]

Two agents of the same method play each of the 24 transport and 10 household episodes with Session
seeds 0-4. Per method and task category it prints the transport rate (transport: delivered / 10;
household: share of predicate units), the average frames (transport: frames used, 3000 unless all
ten were delivered) or steps (household: C-WAH's L, steps to finish or 250), and the communication
the Session counted (messages, characters, words, tokens per episode).

Statistics: the unit is the *episode*. The seeds of one episode are averaged first (they are
repeated measures of one episode, not independent samples), then each method is paired with the
CoELA-style baseline episode by episode: mean difference, a 95 % t interval over the n episodes
(n = 24 transport, 10 household; per category 6 or 2), and wins/ties/losses. Ratios are of the
per-method means.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.registry import make_agent  # noqa: E402
from sim.registry import load_scenario  # noqa: E402
from sim.session import Session  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EPISODES = sorted((ROOT / "scenarios" / "household").glob("*.json"))
METHODS = ("rhp", "coela", "capo", "mhp", "cobel")
BASELINE = "coela"
FIELDS = ("rate", "steps", "messages", "chars", "words", "tokens")


def parse_seeds(text: str) -> list[int]:
    if "-" in text:
        a, b = text.split("-", 1)
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in text.split(",") if x]


def play(path: Path, method: str, seed: int) -> dict[str, float]:
    world, name = load_scenario(str(path))
    session = Session(world, {a: make_agent(method, "household") for a in world.agents}, seed=seed, scenario=name)
    outcome = session.run()
    metrics = session.metrics()
    errors = metrics["errors"]
    if errors:
        raise RuntimeError(f"{method} on {path.name} seed {seed}: {errors} error events")
    return {"rate": outcome["transport_rate"],
            "steps": outcome["frames"] if world.task == "transport" else outcome["steps_to_finish"],
            "messages": metrics["messages"], "chars": metrics["message_chars"],
            "words": metrics["message_words"], "tokens": metrics["message_tokens"]}


def run(methods: list[str], seeds: list[int]) -> dict[str, Any]:
    """Per method, per episode: the mean over seeds of each field; and each episode's category."""
    table: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    category: dict[str, str] = {}
    for path in EPISODES:
        category[path.stem] = json.loads(path.read_text())["category"]
        for method in methods:
            rows = [play(path, method, seed) for seed in seeds]
            table[method][path.stem] = {f: float(np.mean([r[f] for r in rows])) for f in FIELDS}
    return {"episodes": table, "category": category}


def paired(a: list[float], b: list[float]) -> dict[str, float]:
    d = np.asarray(a) - np.asarray(b)
    n = len(d)
    half = float(stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)) if n > 1 and d.std() > 0 else 0.0
    return {"n": n, "mean_diff": float(d.mean()), "ci95": half, "wins": int((d > 1e-9).sum()),
            "ties": int((abs(d) <= 1e-9).sum()), "losses": int((d < -1e-9).sum())}


def report(result: dict[str, Any], methods: list[str]) -> dict[str, Any]:
    table, category = result["episodes"], result["category"]
    groups: dict[str, list[str]] = defaultdict(list)
    for ep, cat in category.items():
        task = "transport" if ep.startswith("transport") else "household"
        groups[cat].append(ep)
        groups[f"{task} (all)"].append(ep)
    summary: dict[str, Any] = {}
    order = sorted(k for k in groups if "(all)" not in k and k.endswith("capacity")) + ["transport (all)"] + \
        sorted(k for k in groups if "(all)" not in k and not k.endswith("capacity")) + ["household (all)"]
    for group in order:
        eps = sorted(groups[group])
        unit = "frames" if group.endswith("capacity") or group.startswith("transport") else "steps (L)"
        print(f"\n{group}  (n = {len(eps)} episodes x {result['seeds']} seeds, seeds averaged per episode)")
        print(f"  {'method':8s} {'rate':>7s} {unit:>10s} {'msgs':>7s} {'chars':>8s} {'words':>7s} {'tokens':>7s}"
              f"   vs {BASELINE}: d rate [95% CI]     d {unit.split()[0]} [95% CI]      tokens")
        summary[group] = {}
        for m in methods:
            vals = {f: [table[m][e][f] for e in eps] for f in FIELDS}
            means = {f: float(np.mean(v)) for f, v in vals.items()}
            row = {"means": means}
            line = (f"  {m:8s} {means['rate']:7.3f} {means['steps']:10.1f} {means['messages']:7.1f} "
                    f"{means['chars']:8.0f} {means['words']:7.0f} {means['tokens']:7.0f}")
            if m != BASELINE and BASELINE in methods:
                base = {f: [table[BASELINE][e][f] for e in eps] for f in FIELDS}
                pr, ps = paired(vals["rate"], base["rate"]), paired(vals["steps"], base["steps"])
                bt = float(np.mean(base["tokens"]))
                ratio = (means["tokens"] / bt) if bt else float("nan")
                row.update({"rate_vs_baseline": pr, "steps_vs_baseline": ps, "token_ratio": ratio})
                line += (f"   {pr['mean_diff']:+.3f} [±{pr['ci95']:.3f}] {pr['wins']}/{pr['ties']}/{pr['losses']}"
                         f"   {ps['mean_diff']:+8.1f} [±{ps['ci95']:.1f}] {ps['wins']}/{ps['ties']}/{ps['losses']}"
                         f"   x{ratio:.2f}")
            summary[group][m] = row
            print(line)
    print("\n  d = method - coela per episode; w/t/l = episodes where the method's value is higher/equal/lower"
          " (for frames/steps lower is better)")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0-4")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--json", default=None, help="write the per-episode table and the summary here")
    args = parser.parse_args(argv)
    seeds, methods = parse_seeds(args.seeds), [m for m in args.methods.split(",") if m]
    started = time.perf_counter()
    result = run(methods, seeds)
    result["seeds"] = len(seeds)
    summary = report(result, methods)
    print(f"\n{len(EPISODES)} episodes x {len(seeds)} seeds x {len(methods)} methods in "
          f"{time.perf_counter() - started:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"seeds": seeds, "methods": methods, **result, "summary": summary},
                                              indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
