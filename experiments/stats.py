"""Statistics of an experiment on the right unit of replication: the scenario.

Episodes of one scenario (its seeds) are not independent samples: they share the layout and,
with deterministic agents, they are copies. So every metric is first averaged over a
scenario's seeds (one value per scenario and condition; for a 0/1 metric such as success, the
scenario's success rate), and everything after counts scenarios:

- summary: per group of scenarios and condition, mean ± standard error over scenarios (n =
  scenarios);
- tests, per group, metric and compared pair of conditions, on the scenarios both conditions
  ran (paired): Wilcoxon signed-rank for continuous metrics; for 0/1 metrics McNemar's exact test
  when each scenario has one episode, the exact sign test on the scenarios' rates otherwise.
  Conditions that do not share their scenarios are compared unpaired (Mann-Whitney U on the
  scenario values);
- Benjamini-Hochberg adjusted p over the whole family of tests of the experiment;
- effect size: the mean paired difference (first condition minus second) with Student's t
  interval over scenarios (Welch's where unpaired; ``sim.analysis.stats.mean_ci``), and the
  matched-pairs rank-biserial correlation for the signed-rank test;
- with a ``floor`` and a ``ceiling`` condition: each other condition's share of the available
  gain, (method - floor) / (ceiling - floor), per scenario and pooled as the ratio of the mean
  gains over scenarios with Fieller's interval (``share_rows``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from experiments.design import Design, MetricConfig
from sim.analysis.stats import (
    MeanSem,
    TestResult,
    benjamini_hochberg,
    diff_ci,
    mann_whitney,
    mcnemar_exact,
    mean_ci,
    mean_sem,
    rank_biserial,
    ratio_ci,
    sign_test,
    stars,
    stratified_ci,
    wilcoxon_signed_rank,
)

ALL = "all"


@dataclass
class Analysis:
    """Tables of one experiment (lists of JSON-ready rows) and the values the figures draw."""

    groups: list[tuple[str, str]]                      # (group, label), "all" first
    conditions: list[str]
    metrics: list[MetricConfig]
    #: scenario -> condition -> metric -> mean over the scenario's seeds
    cells: dict[str, dict[str, dict[str, float]]]
    #: scenario -> condition -> number of episodes
    episodes: dict[str, dict[str, int]]
    scenario_group: dict[str, str | None]
    summary: list[dict[str, Any]] = field(default_factory=list)
    tests: list[dict[str, Any]] = field(default_factory=list)
    #: group -> metric -> condition -> MeanSem over scenarios
    values: dict[str, dict[str, dict[str, MeanSem]]] = field(default_factory=dict)
    #: group -> metric -> (first, second) -> adjusted p
    p_adj: dict[str, dict[str, dict[tuple[str, str], float]]] = field(default_factory=dict)
    seeds_per_scenario: int = 0
    #: the pooled figures at the design's other mix of groups (``groups.mix``; ``mix_rows``)
    mix: dict[str, Any] = field(default_factory=dict)
    #: each condition's share of the available gain between floor and ceiling (``share_rows``)
    shares: dict[str, Any] = field(default_factory=dict)

    def unit_note(self) -> str:
        k = self.seeds_per_scenario
        per = "one episode each" if k == 1 else f"each the mean over its {k} seeds ({k} episodes)"
        return f"n counts scenarios (the unit of replication), {per}"


def scenario_cells(records: Sequence[Mapping[str, Any]], metric_names: Sequence[str]
                   ) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, dict[str, int]]]:
    """Average every metric over each scenario's seeds, per condition."""
    raw: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in records:
        for m in metric_names:
            raw[r["scenario"]][r["condition"]][m].append(float(r["values"][m]))
    cells = {s: {c: {m: float(np.mean(v)) for m, v in ms.items()} for c, ms in cs.items()} for s, cs in raw.items()}
    counts = {s: {c: len(next(iter(ms.values()))) if ms else 0 for c, ms in cs.items()} for s, cs in raw.items()}
    return cells, counts


def analyse(records: Sequence[Mapping[str, Any]], design: Design,
            scenario_attrs: Mapping[str, Mapping[str, Any]]) -> Analysis:
    """Summary and tests of ``records`` (each with ``scenario``, ``condition``, ``seed`` and
    ``values`` holding every metric) with the scenario as the unit."""
    metrics = list(design.metrics)
    conditions = [c.name for c in design.conditions if any(r["condition"] == c.name for r in records)]
    cells, counts = scenario_cells(records, [m.name for m in metrics])
    scenarios = list(dict.fromkeys(r["scenario"] for r in records))
    scenario_group: dict[str, str | None] = {}
    groups: list[tuple[str, str]] = [(ALL, "all scenarios")]
    if design.groups is not None:
        by = design.groups.by
        for s in scenarios:
            value = scenario_attrs.get(s, {}).get(by)
            scenario_group[s] = None if value is None else str(value)
        present = {g for g in scenario_group.values() if g is not None}
        order = [g for g in design.groups.order if g in present] + sorted(present - set(design.groups.order))
        groups += [(g, design.groups.labels.get(g, g)) for g in order]
    else:
        scenario_group = {s: None for s in scenarios}
    seeds = sorted({n for cs in counts.values() for n in cs.values()})
    analysis = Analysis(groups=groups, conditions=conditions, metrics=metrics, cells=cells, episodes=counts,
                        scenario_group=scenario_group, seeds_per_scenario=seeds[-1] if seeds else 0)

    def members(group: str) -> list[str]:
        return [s for s in scenarios if group == ALL or scenario_group.get(s) == group]

    for group, _ in groups:
        analysis.values[group] = {m.name: {} for m in metrics}
        for c in conditions:
            units = [s for s in members(group) if c in cells[s]]
            if not units:
                continue
            row: dict[str, Any] = {"group": group, "condition": c, "n_scenarios": len(units),
                                   "episodes": sum(counts[s][c] for s in units)}
            for m in metrics:
                ms = mean_sem([cells[s][c][m.name] for s in units])
                analysis.values[group][m.name][c] = ms
                row[f"{m.name}_mean"] = round(ms.mean, 6)
                row[f"{m.name}_sem"] = round(ms.sem, 6)
            analysis.summary.append(row)

    tests: list[dict[str, Any]] = []
    boot_seed = design.tests.bootstrap_seed
    for group, _ in groups:
        units = members(group)
        for m in metrics:
            if not m.test:
                continue
            for first, second in design.comparisons():
                a_units = [s for s in units if first in cells[s]]
                b_units = [s for s in units if second in cells[s]]
                if not a_units or not b_units:
                    continue
                row = compare(m, first, second, cells, a_units, b_units, counts,
                              resamples=design.tests.bootstrap, confidence=design.tests.confidence,
                              seed=boot_seed + len(tests))
                tests.append({"group": group, **row})
    adjusted = benjamini_hochberg([t["p"] for t in tests])
    for t, q in zip(tests, adjusted):
        t["p_adj"] = float(f"{q:.6g}")
        t["p"] = float(f"{t['p']:.6g}")
        t["stars"] = stars(q)
        t["significant"] = bool(q < design.tests.alpha)
        analysis.p_adj.setdefault(t["group"], {}).setdefault(t["metric"], {})[(t["first"], t["second"])] = q
    analysis.tests = tests
    if design.groups is not None and design.groups.mix:
        analysis.mix = mix_rows(analysis, design)
    if design.floor is not None and design.ceiling is not None:
        analysis.shares = share_rows(analysis, design.floor, design.ceiling, design.shared_metrics(),
                                     confidence=design.tests.confidence)
    return analysis


#: a scenario's available gain |ceiling - floor| at most this (times the metric's scale, at least 1)
#: counts as none: its share is undefined
NO_GAIN = 1e-9


def share_rows(analysis: Analysis, floor: str, ceiling: str, metrics: Sequence[MetricConfig], *,
               confidence: float = 0.95) -> dict[str, Any]:
    """Each condition's share of the available gain, (method - floor) / (ceiling - floor), on the
    scenario values (each the mean over its seeds). A gain is a move in the metric's better
    direction (``higher_is_better``): method - floor where higher is better, floor - method where
    lower is (steps), so gains and available gains read the same way for every metric; a metric
    that does not say which way is better takes higher as better for these two columns (the share
    itself does not depend on it).

    - per scenario: the share, None where no gain is available there (the ceiling equals the floor,
      or, for a metric with a direction, the ceiling is not better than the floor: a share of a
      loss reads backwards);
    - per group and over all scenarios: the ratio of the mean gains over the scenarios where floor,
      ceiling and the method all ran, mean(gain of the method) / mean(gain of the ceiling) (the
      pooled gain taken over the pooled gain available; scenarios without an available gain count
      in both means, adding the method's own gain or loss over the floor to the numerator and the
      ceiling's to the denominator), with Fieller's interval (``sim.analysis.stats.ratio_ci``; n
      counts scenarios).

    1 is the ceiling's result, 0 the floor's; a share outside [0, 1] is a method below the floor or
    above the ceiling."""
    conditions = [c for c in analysis.conditions if c not in (floor, ceiling)]
    out: dict[str, Any] = {"floor": floor, "ceiling": ceiling, "confidence": confidence, "metrics": [],
                           "directions": {}, "rows": [], "scenarios": {}}
    if floor not in analysis.conditions or ceiling not in analysis.conditions:
        out["missing"] = [c for c in (floor, ceiling) if c not in analysis.conditions]
        return out
    cells = analysis.cells
    for m in metrics:
        name = m.name
        sign = -1.0 if m.higher_is_better is False else 1.0
        out["metrics"].append(name)
        out["directions"][name] = m.higher_is_better
        values = [v for by_c in cells.values() for c in (floor, ceiling) if c in by_c for v in (by_c[c][name],)]
        tol = NO_GAIN * max([1.0] + [abs(v) for v in values])

        def gain(s: str, c: str, name: str = name, sign: float = sign) -> float:
            return sign * (cells[s][c][name] - cells[s][floor][name])

        def no_gain(available: float, tol: float = tol, directed: bool = m.higher_is_better is not None) -> bool:
            return available <= tol if directed else abs(available) <= tol

        per: dict[str, dict[str, float | None]] = {}
        for s, by_c in cells.items():
            if floor not in by_c or ceiling not in by_c:
                continue
            available = gain(s, ceiling)
            per[s] = {c: (None if no_gain(available) else gain(s, c) / available) for c in conditions if c in by_c}
            per[s]["_available"] = available
        out["scenarios"][name] = per
        for group, _ in analysis.groups:
            for c in conditions:
                units = [s for s in per if c in per[s] and (group == ALL or analysis.scenario_group.get(s) == group)]
                if not units:
                    continue
                num = [gain(s, c) for s in units]
                den = [gain(s, ceiling) for s in units]
                none = sum(1 for d in den if no_gain(d))
                if all(abs(d) <= tol for d in den):
                    est, low, high, kind = math.nan, math.nan, math.nan, "undefined"
                else:
                    est, low, high, kind = ratio_ci(num, den, confidence=confidence)
                out["rows"].append({
                    "group": group, "metric": name, "condition": c, "n": len(units), "no_gain": none,
                    "floor": float(np.mean([cells[s][floor][name] for s in units])),
                    "ceiling": float(np.mean([cells[s][ceiling][name] for s in units])),
                    "method": float(np.mean([cells[s][c][name] for s in units])),
                    "gain": float(np.mean(num)), "available": float(np.mean(den)),
                    "share": est, "low": low, "high": high, "interval": kind})
    return out


def mix_rows(analysis: Analysis, design: Design) -> dict[str, Any]:
    """The pooled figures at the design's other mix of groups (``groups.mix``: a weight per group)
    beside the mix as run: per metric and condition the groups' means, the pooled mean as run and
    each group's share of it (n_g * mean_g over the sum; None where the groups' sums differ in sign
    or are all 0), and the mean at the mix (sum of w_g *
    mean_g, weights normalised) ± its standard error; per compared pair the mean difference at
    the mix with its t interval (``stratified_ci``: groups are independent strata, paired by
    scenario within each). Not tested: these are the same scenarios as the tests, reweighted."""
    assert design.groups is not None
    mix = design.groups.mix
    present = [g for g, _ in analysis.groups if g != ALL]
    missing = [g for g in mix if g not in present]
    out: dict[str, Any] = {"label": design.groups.mix_label, "weights": dict(mix), "missing": missing,
                           "groups": [g for g in present if g in mix], "levels": [], "comparisons": []}
    if missing:
        return out
    total = sum(mix.values())
    w = {g: mix[g] / total for g in mix}
    confidence = design.tests.confidence

    def units(group: str, condition: str) -> list[str]:
        return [s for s, g in analysis.scenario_group.items() if g == group and condition in analysis.cells[s]]

    for m in analysis.metrics:
        for c in analysis.conditions:
            by_group = {g: [analysis.cells[s][c][m.name] for s in units(g, c)] for g in mix}
            if any(not v for v in by_group.values()):
                continue
            pooled = analysis.values[ALL][m.name][c]
            sums = [sum(v) for v in by_group.values()]
            whole = sum(sums)
            # a share of the pooled mean reads only where every group pulls it the same way
            shares = whole != 0 and (all(x >= 0 for x in sums) or all(x <= 0 for x in sums))
            est, *_ = stratified_ci([(v, w[g]) for g, v in by_group.items()], confidence=confidence)
            sem = float(np.sqrt(sum((w[g] * analysis.values[g][m.name][c].sem) ** 2 for g in mix)))
            out["levels"].append({
                "metric": m.name, "condition": c, "group_means": {g: float(np.mean(v)) for g, v in by_group.items()},
                "group_n": {g: len(v) for g, v in by_group.items()},
                "as_run": pooled.mean, "as_run_sem": pooled.sem, "at_mix": est, "at_mix_sem": sem,
                "share": {g: (sum(v) / whole if shares else None) for g, v in by_group.items()}})
        if not m.test:
            continue
        for first, second in design.comparisons():
            strata: list[tuple[list[float], float]] = []
            diffs: dict[str, float] = {}
            for g in mix:
                a_units, b_units = units(g, first), units(g, second)
                if not a_units or not b_units:
                    break
                if a_units == b_units:
                    d = [analysis.cells[s][first][m.name] - analysis.cells[s][second][m.name] for s in a_units]
                    strata.append((d, w[g]))
                else:
                    strata += [([analysis.cells[s][first][m.name] for s in a_units], w[g]),
                               ([analysis.cells[s][second][m.name] for s in b_units], -w[g])]
                diffs[g] = float(np.mean([analysis.cells[s][first][m.name] for s in a_units])
                                 - np.mean([analysis.cells[s][second][m.name] for s in b_units]))
            else:
                est, low, high = stratified_ci(strata, confidence=confidence)
                row = next((t for t in analysis.tests if t["group"] == ALL and t["metric"] == m.name
                            and t["first"] == first and t["second"] == second), None)
                out["comparisons"].append({
                    "metric": m.name, "first": first, "second": second, "group_differences": diffs,
                    "as_run": None if row is None else (row["mean_difference"], row["ci_low"], row["ci_high"]),
                    "at_mix": (est, low, high)})
    return out


def compare(metric: MetricConfig, first: str, second: str, cells: Mapping[str, Mapping[str, Mapping[str, float]]],
            a_units: Sequence[str], b_units: Sequence[str], counts: Mapping[str, Mapping[str, int]], *,
            resamples: int, confidence: float, seed: int) -> dict[str, Any]:
    """One test of ``first`` vs ``second`` on one metric, with its effect size and interval."""
    name = metric.name
    shared = [s for s in a_units if s in set(b_units)]
    paired = len(shared) == len(a_units) == len(b_units)
    if paired:
        a = [cells[s][first][name] for s in shared]
        b = [cells[s][second][name] for s in shared]
        if metric.kind == "binary":
            single = all(counts[s][first] == 1 and counts[s][second] == 1 for s in shared)
            result = mcnemar_exact([int(v) for v in a], [int(v) for v in b]) if single and _binary(a + b) \
                else sign_test(a, b)
            effect_size, effect_name = None, ""
        else:
            result = wilcoxon_signed_rank(a, b)
            effect_size, effect_name = rank_biserial(a, b), "rank_biserial"
        diff = np.asarray(a) - np.asarray(b)
        low, high, ci_method = mean_ci(diff, resamples=resamples, confidence=confidence, seed=seed)
        n_text = len(shared)
        mean_diff = float(diff.mean())
    else:
        a = [cells[s][first][name] for s in a_units]
        b = [cells[s][second][name] for s in b_units]
        p = mann_whitney(a, b)
        result = TestResult("mann_whitney_u", float("nan"), p, len(a) + len(b))
        low, high, ci_method = diff_ci(a, b, resamples=resamples, confidence=confidence, seed=seed)
        effect_size, effect_name = None, ""
        n_text = len(a) + len(b)
        mean_diff = float(np.mean(a) - np.mean(b))
    return {
        "metric": name, "first": first, "second": second, "paired": paired,
        "n": n_text, "unit": "scenario pairs" if paired else "scenarios",
        "test": result.test, "statistic": None if result.statistic != result.statistic else round(result.statistic, 6),
        "p": result.p,
        "mean_difference": round(mean_diff, 6), "ci_low": _r(low), "ci_high": _r(high), "ci_method": ci_method,
        "effect_size": None if effect_size is None else round(effect_size, 6), "effect_size_name": effect_name,
    }


def _r(x: float) -> float | None:
    return None if x != x else round(x, 6)


def _binary(values: Sequence[float]) -> bool:
    return all(v in (0.0, 1.0) for v in values)


# ---------------------------------------------------------------------- tables


CI_NAMES = {"t": "t", "bca": "BCa bootstrap", "percentile": "percentile bootstrap", "signflip": "sign-flip"}


def _signed(x: float | None) -> str:
    return "nan" if x is None or x != x else f"{x:+.3f}"


def fmt(x: float, digits: int = 2) -> str:
    return "nan" if x != x else f"{x:.{digits}f}"


def summary_markdown(analysis: Analysis, reference: str | None, tested: bool = True) -> str:
    """The summary table of the tested metrics (``tested=False``: of the others): mean ± SEM
    over scenarios, marks where the reference differs."""
    metrics = [m for m in analysis.metrics if m.test == tested]
    if not metrics:
        return ""
    marks: dict[tuple[str, str, str], str] = {}
    for t in analysis.tests:
        if t["first"] == reference:
            marks[(t["group"], t["metric"], t["second"])] = t["stars"]
        elif t["second"] == reference:
            marks[(t["group"], t["metric"], t["first"])] = t["stars"]
    header = "| group | condition | n (scenarios) | episodes | " + " | ".join(m.title for m in metrics) + " |"
    lines = [header, "|" + "---|" * (4 + len(metrics))]
    for s in analysis.summary:
        cells = []
        for m in metrics:
            mark = marks.get((s["group"], m.name, s["condition"]), "")
            cells.append(f"{fmt(s[f'{m.name}_mean'])} ± {fmt(s[f'{m.name}_sem'])}{(' ' + mark) if mark else ''}")
        lines.append(f"| {s['group']} | {s['condition']} | {s['n_scenarios']} | {s['episodes']} | "
                     + " | ".join(cells) + " |")
    lines += ["", f"Mean ± standard error over scenarios; {analysis.unit_note()}."
              + (f" Marks: {reference} differs from that condition (Benjamini-Hochberg adjusted p over all "
                 f"{len(analysis.tests)} tests: * < 0.05, ** < 0.01, *** < 0.001)." if reference and analysis.tests
                 else "")]
    return "\n".join(lines)


def comparisons_markdown(analysis: Analysis) -> str:
    if not analysis.tests:
        return "No tests (the design names no reference condition or comparisons)."
    lines = ["| group | metric | comparison | n | test | p | p (BH) | mean difference [CI] | interval | effect size |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for t in analysis.tests:
        es = "" if t["effect_size"] is None else f"{t['effect_size']:+.2f} ({t['effect_size_name'].replace('_', '-')})"
        lines.append(f"| {t['group']} | {t['metric']} | {t['first']} vs {t['second']} | {t['n']} {t['unit']} | "
                     f"{t['test'].replace('_', ' ')} | {t['p']:.3g} | {t['p_adj']:.3g} {t['stars']} | "
                     f"{t['mean_difference']:+.3f} [{_signed(t['ci_low'])}, {_signed(t['ci_high'])}] | "
                     f"{CI_NAMES.get(t.get('ci_method', ''), '')} | {es} |")
    return "\n".join(lines)


def mix_markdown(analysis: Analysis, confidence: float = 0.95) -> str:
    """The pooled figures at the design's other mix of groups beside the mix as run (``mix_rows``)."""
    mix = analysis.mix
    if not mix:
        return ""
    label = mix["label"] or "the other mix"
    if mix["missing"]:
        return (f"Not computed at {label}: no scenario of group(s) {', '.join(mix['missing'])} in this run.")
    groups = mix["groups"]
    labels = dict(analysis.groups)
    first = next((r for r in mix["levels"]), None)
    n_run = "/".join(str(first["group_n"][g]) for g in groups) if first else ""
    weights = "/".join(f"{mix['weights'][g]:g}" for g in groups)
    head = " | ".join(f"{labels.get(g, g)}" for g in groups)
    lines = [f"Groups in the order {', '.join(groups)}; as run: {n_run} scenarios; {label}: weights {weights} "
             "(the same scenarios, each group's mean weighted by the mix).", "",
             f"| metric | condition | {head} | pooled as run ({n_run}) | share of it: {' / '.join(groups)} | "
             f"pooled at {label} |", "|---|---|" + "---|" * (len(groups) + 3)]
    tested = {m.name for m in analysis.metrics if m.test}
    for r in mix["levels"]:
        if r["metric"] not in tested:
            continue
        shares = " / ".join("—" if v is None else f"{v:.0%}" for v in r["share"].values())
        lines.append(f"| {r['metric']} | {r['condition']} | "
                     + " | ".join(fmt(r["group_means"][g]) for g in groups)
                     + f" | {fmt(r['as_run'])} ± {fmt(r['as_run_sem'])} | {shares} | "
                       f"{fmt(r['at_mix'])} ± {fmt(r['at_mix_sem'])} |")
    lines += ["", "Mean (± standard error) over scenarios; the share of the pooled mean is each group's "
              "scenarios' sum over all scenarios' sum (—: the groups' sums differ in sign or are all 0). The "
              "standard error and interval at the mix take the groups as fixed strata, so they leave out the "
              "spread between groups that the pooled figure as run carries.", ""]
    if mix["comparisons"]:
        lines += [f"| metric | comparison | {head} | pooled as run [{confidence:.0%} CI] | pooled at {label} "
                  f"[{confidence:.0%} CI] |", "|---|---|" + "---|" * (len(groups) + 2)]
        for r in mix["comparisons"]:
            run = r["as_run"]
            run_text = "" if run is None else f"{run[0]:+.3f} [{_signed(run[1])}, {_signed(run[2])}]"
            est, low, high = r["at_mix"]
            lines.append(f"| {r['metric']} | {r['first']} vs {r['second']} | "
                         + " | ".join(f"{r['group_differences'][g]:+.3f}" for g in groups)
                         + f" | {run_text} | {est:+.3f} [{_signed(low)}, {_signed(high)}] |")
        lines += ["", "Mean differences, first − second. The interval at the mix is Student's t over the "
                  "groups as independent strata (variance Σ w² s²/n, Welch-Satterthwaite degrees of freedom), "
                  "paired by scenario within each group; not a test, and not in the Benjamini-Hochberg family."]
    return "\n".join(lines)


def scenario_markdown(analysis: Analysis, metric_names: Sequence[str]) -> str:
    """Per scenario and condition: the named metrics averaged over seeds."""
    conds = analysis.conditions
    lines = ["| scenario | group | " + " | ".join(conds) + " |", "|---|---|" + "---|" * len(conds)]
    for s, by_cond in analysis.cells.items():
        cells = []
        for c in conds:
            v = by_cond.get(c)
            cells.append("" if v is None else " / ".join(fmt(v[m], 2) for m in metric_names))
        lines.append(f"| {s} | {analysis.scenario_group.get(s) or ''} | " + " | ".join(cells) + " |")
    lines += ["", "Each cell: " + " / ".join(metric_names) + ", mean over the scenario's seeds."]
    return "\n".join(lines)


def _share_text(x: float | None) -> str:
    if x is None or x != x:
        return "—"
    if x in (math.inf, -math.inf):
        return "∞" if x > 0 else "−∞"
    return f"{x:.2f}"


def share_markdown(analysis: Analysis) -> str:
    """The share of the available gain per group, condition and metric, and per scenario
    (``share_rows``)."""
    shares = analysis.shares
    if not shares:
        return ""
    floor, ceiling = shares["floor"], shares["ceiling"]
    if shares.get("missing"):
        return f"Not computed: no episodes of {', '.join(shares['missing'])} in this run."
    conf = f"{shares['confidence']:.0%}"
    labels = dict(analysis.groups)
    ways = {True: "higher is better", False: "lower is better", None: "no direction declared: higher taken as better"}
    lines = [f"Floor: `{floor}`; ceiling: `{ceiling}`. Share = (method − floor) / (ceiling − floor): 0 is the "
             f"floor's result, 1 the ceiling's. Gains are moves in the better direction (method − floor where "
             f"higher is better, floor − method where lower is): "
             + "; ".join(f"{m}: {ways[shares['directions'].get(m)]}" for m in shares["metrics"]) + ".", "",
             f"| metric | group | condition | n (scenarios) | floor | ceiling | method | gain / available | "
             f"share [{conf} CI] | scenarios without gain |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in shares["rows"]:
        if r["interval"] == "undefined":
            share = "undefined (no gain available)"
        elif r["interval"] == "unbounded":
            share = f"{_share_text(r['share'])} [unbounded]"
        else:
            share = f"{_share_text(r['share'])} [{_share_text(r['low'])}, {_share_text(r['high'])}]"
        lines.append(f"| {r['metric']} | {labels.get(r['group'], r['group'])} | {r['condition']} | {r['n']} | "
                     f"{fmt(r['floor'], 3)} | {fmt(r['ceiling'], 3)} | {fmt(r['method'], 3)} | "
                     f"{r['gain']:+.3f} / {r['available']:+.3f} | {share} | {r['no_gain']} |")
    lines += ["", f"Pooled share: the mean gain over the floor divided by the mean gain available, over the "
              f"scenarios (each the mean over its seeds); n counts scenarios. Interval: Fieller's, the set of "
              f"ratios R that the paired t-test of (method − floor) − R·(ceiling − floor) does not reject: the "
              f"same t-interval the comparisons use (it keeps its coverage where many scenarios give identical "
              f"results), turned into a ratio, where a bootstrap of a ratio of two small means is unstable. "
              f"'unbounded': the available gain is not distinguishable from 0 at {conf}, so no finite interval "
              f"holds the share. A scenario where the ceiling is not better than the floor has no share of its "
              f"own (— below; 'scenarios without gain' counts them); it stays in the pooled means, adding its "
              f"method's gain or loss over the floor to the numerator and the ceiling's to the denominator.", ""]
    conds = [c for c in analysis.conditions if c not in (floor, ceiling)]
    metrics = shares["metrics"]
    lines += ["| scenario | group | available: " + " / ".join(metrics) + " | "
              + " | ".join(conds) + " |", "|---|---|---|" + "---|" * len(conds)]
    for s in analysis.cells:
        if not all(s in shares["scenarios"][m] for m in metrics):
            continue
        avail = " / ".join(f"{shares['scenarios'][m][s]['_available']:+.2f}" for m in metrics)
        cells = [" / ".join(_share_text(shares["scenarios"][m][s].get(c)) if c in shares["scenarios"][m][s] else ""
                            for m in metrics) for c in conds]
        lines.append(f"| {s} | {analysis.scenario_group.get(s) or ''} | {avail} | " + " | ".join(cells) + " |")
    lines += ["", "Per scenario: the available gain (the ceiling's gain over the floor) and each condition's share, "
              + " / ".join(metrics) + "; —: no gain available there (share undefined)."]
    return "\n".join(lines)
