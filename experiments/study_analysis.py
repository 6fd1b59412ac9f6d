"""The analysis of a human study folder (``python main.py study analyze DIR``), as in seed 003's
Figure 6: success, speedup, feedback and ignored feedback per condition, and the questionnaire's
items per facilitated condition.

Units of replication: the *pair* for what a pair does together (success, speedup, feedback counts;
each pair's mean over its trials in a condition), the *participant* for ratings (each participant's
mean over their trials in a condition). Every number is first reduced to one value per unit and
condition, then summarised (mean ± standard error over units) and compared between conditions with
the project's paired tests (``experiments.stats.compare``: Wilcoxon signed-rank with the
rank-biserial correlation, the exact sign test for success rates, a confidence interval of the mean
paired difference), Benjamini-Hochberg adjusted over the study's family of tests.

Length: a trial's steps when both dishes were delivered, else the trial's limit (the level's
``t_max`` or the study's ``max_ticks``, whichever is smaller), as the simulated experiments count it.
Speedup of a pair in condition c: L_baseline / L_c - 1, with L the pair's mean length in that
condition (seed 003, Section 4.3). The tutorial is left out.
"""

from __future__ import annotations

import csv
import itertools
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from experiments.design import MetricConfig
from experiments.stats import compare
from sim.analysis.stats import MeanSem, benjamini_hochberg, mean_sem, stars
from sim.events import FeedbackEvent, FeedbackStatusEvent
from sim.inputs import read_json, validate_model
from sim.recording import load_recording
from study.design import ANSWER_COLUMNS, EPISODE_COLUMNS, Study, StudyError, read_csv

PAIR_METRICS = (
    MetricConfig(name="success", label="success rate", source="outcome.success", kind="binary", higher_is_better=True),
    MetricConfig(name="speedup", label="speedup", source="outcome.length", higher_is_better=True),
    MetricConfig(name="feedback", label="# feedback", source="metrics.feedback", higher_is_better=False),
    MetricConfig(name="ignored", label="# ignored", source="metrics.feedback", higher_is_better=False),
)
CONFIDENCE, RESAMPLES = 0.95, 2000


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def trial_rows(folder: Path, study: Study) -> tuple[list[dict[str, Any]], int]:
    """One row per finished trial (the tutorial left out) with what its recording says, and the
    number of trials left out because the host stopped them before their end."""
    rows, stopped = [], 0
    index = folder / "episodes.csv"
    recordings = (folder / "recordings").resolve()
    conditions = {c.name for c in study.conditions}
    for line, row in enumerate(read_csv(index, EPISODE_COLUMNS), start=2):
        if row["condition"] == "tutorial":
            continue
        if row["condition"] not in conditions:
            raise StudyError(f"{index}: line {line}: condition {row['condition']!r:.60} is not in the study; expected "
                             f"one of {', '.join(sorted(conditions))}")
        if not row["trial"].isdigit():
            raise StudyError(f"{index}: line {line}: trial {row['trial']!r:.20}; expected a whole number")
        path = (folder / row["recording"]).resolve()
        if recordings not in path.parents:
            raise StudyError(f"{index}: line {line}: recording {row['recording']!r:.120} is not under "
                             f"{folder / 'recordings'}; expected a recording of this study")
        rec = load_recording(path)
        if rec.footer is None:
            raise StudyError(f"{path}: the recording has no footer (the episode did not end); expected a finished trial")
        outcome = rec.footer["outcome"]
        if outcome.get("stopped"):
            stopped += 1
            continue
        limit = int(outcome.get("t_max") or 0)
        if study.max_ticks is not None:
            limit = min(limit, study.max_ticks) if limit else study.max_ticks
        success = bool(outcome.get("success"))
        status: dict[int, str] = {}
        for e in rec.events:
            if isinstance(e, FeedbackStatusEvent):
                status[e.feedback_id] = e.status
        given = [e for e in rec.events if isinstance(e, FeedbackEvent)]
        rows.append({"pair": row["pair"], "trial": int(row["trial"]), "condition": row["condition"],
                     "scenario": row["scenario"], "recording": row["recording"], "success": int(success),
                     "length": int(outcome["ticks"]) if success else limit,
                     "feedback": len(given),
                     "ignored": sum(status.get(e.feedback_id) == "ignored" for e in given),
                     "completed": sum(status.get(e.feedback_id) == "completed" for e in given),
                     "not_executable": sum(status.get(e.feedback_id) == "not_executable" for e in given)})
    return rows, stopped


def _cells(rows: list[dict[str, Any]], unit: str, keys: list[str]) -> dict[str, dict[str, dict[str, float]]]:
    """unit -> condition -> key -> mean over the unit's rows."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r[unit], r["condition"])].append(r)
    cells: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for (u, c), rs in groups.items():
        cells[u][c] = {k: float(np.mean([float(r[k]) for r in rs])) for k in keys if all(k in r for r in rs)}
    return cells


def analyze_study(folder: Path, out: Path | None = None) -> dict[str, Any]:
    """Analyse a study folder; writes report.md, summary.csv, tests.csv, trials.csv and figure.png
    into ``out`` (default ``DIR/analysis``) and returns the numbers."""
    folder = Path(folder)
    out = Path(out) if out is not None else folder / "analysis"
    if not (folder / "study.json").is_file():
        raise StudyError(f"{folder}: no study.json here; expected a study folder written by 'python main.py study host'")
    study: Study = validate_model(Study, read_json(folder / "study.json", StudyError), str(folder / "study.json"),
                                  StudyError)
    trials, stopped = trial_rows(folder, study)
    if not trials:
        raise StudyError(f"{folder / 'episodes.csv'}: no trial was played yet; expected at least one")
    answers = read_csv(folder / "answers.csv", ANSWER_COLUMNS) if (folder / "answers.csv").exists() else []
    conditions = [c.name for c in study.conditions]
    facilitated = [c.name for c in study.conditions if c.facilitated]
    base = study.baseline

    pair_cells = _cells(trials, "pair", ["success", "length", "feedback", "ignored"])
    for by_condition in pair_cells.values():
        baseline_length = by_condition.get(base, {}).get("length")
        for cell in by_condition.values():
            if baseline_length is not None and cell["length"] > 0:
                cell["speedup"] = baseline_length / cell["length"] - 1
    items = [i.id for i in study.questionnaire.items]
    rating_rows: list[dict[str, Any]] = []
    for a in answers:
        try:
            rating_rows.append({"participant": a["participant"], "condition": a["condition"], a["item"]: int(a["answer"])})
        except ValueError:
            raise StudyError(f"{folder / 'answers.csv'}: answer {a['answer']!r:.20} is not a whole number") from None
    person_cells: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for item in items:
        for u, by_c in _cells([r for r in rating_rows if item in r], "participant", [item]).items():
            for c, v in by_c.items():
                person_cells[u].setdefault(c, {}).update(v)

    pairs, participants = sorted(pair_cells), sorted(person_cells)
    summary: list[dict[str, Any]] = []
    values: dict[str, dict[str, MeanSem]] = defaultdict(dict)
    for c in conditions:
        for name in ("success", "speedup", "feedback", "ignored"):
            units = [p for p in pairs if name in pair_cells[p].get(c, {})]
            if (name == "speedup" and c == base) or (name in ("feedback", "ignored") and c not in facilitated):
                continue
            if units:
                ms = mean_sem([pair_cells[p][c][name] for p in units])
                values[name][c] = ms
                summary.append({"condition": c, "measure": name, "mean": round(ms.mean, 4), "sem": round(ms.sem, 4),
                                "n": ms.n, "unit": "pairs",
                                "total": int(sum(r[name] for r in trials if r["condition"] == c))
                                if name in ("feedback", "ignored") else ""})
        for item in items:
            units = [u for u in participants if item in person_cells[u].get(c, {})]
            if units:
                ms = mean_sem([person_cells[u][c][item] for u in units])
                values[item][c] = ms
                summary.append({"condition": c, "measure": item, "mean": round(ms.mean, 4), "sem": round(ms.sem, 4),
                                "n": ms.n, "unit": "participants", "total": ""})

    tests: list[dict[str, Any]] = []
    plans: list[tuple[MetricConfig, list[str], dict[str, dict[str, dict[str, float]]], str]] = []
    for config in PAIR_METRICS:
        among = conditions if config.name == "success" else [c for c in conditions if c != base] \
            if config.name == "speedup" else facilitated
        plans.append((config, among, pair_cells, "pairs"))
    for item in items:
        plans.append((MetricConfig(name=item, label=item, source="outcome.x", higher_is_better=True), facilitated,
                      person_cells, "participants"))
    for metric, among, cells, unit in plans:
        for first, second in itertools.combinations(among, 2):
            shared = [u for u in cells if metric.name in cells[u].get(first, {}) and metric.name in cells[u].get(second, {})]
            if len(shared) < 1:
                continue
            counts = {u: {first: 2, second: 2} for u in shared}  # unit means: the sign test for rates
            result = compare(metric, first, second, cells, shared, shared, counts, resamples=RESAMPLES,
                             confidence=CONFIDENCE, seed=0)
            result["unit"] = unit
            tests.append(result)
    if tests:
        p_values = [t["p"] if t["p"] == t["p"] else 1.0 for t in tests]
        for t, q in zip(tests, benjamini_hochberg(p_values)):
            t["p_adjusted"] = float(q)
            t["significant"] = bool(q < 0.05)

    out.mkdir(parents=True, exist_ok=True)
    _write_csv(out / "trials.csv", trials)
    _write_csv(out / "summary.csv", summary)
    _write_csv(out / "tests.csv", tests)
    report = _report(study, trials, summary, tests, len(pairs), len(participants), stopped)
    (out / "report.md").write_text(report, encoding="utf-8")
    _figure(out / "figure.png", study, values, tests, conditions, facilitated, items, len(pairs), len(participants))
    return {"pairs": len(pairs), "participants": len(participants), "trials": len(trials), "stopped": stopped,
            "summary": summary, "tests": tests, "report": str(out / "report.md")}


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def _fmt(x: Any) -> str:
    return "n/a" if x is None or x != x else f"{x:+.2f}" if isinstance(x, float) else str(x)


def _p(x: Any) -> str:
    return "n/a" if x is None or x != x else f"{x:.3g}"


def _report(study: Study, trials: list[dict[str, Any]], summary: list[dict[str, Any]], tests: list[dict[str, Any]],
            n_pairs: int, n_people: int, stopped: int) -> str:
    titles = {c.name: c.title or c.name for c in study.conditions}
    lines = [f"# {study.title}: analysis", "",
             f"n = {_plural(n_pairs, 'pair')} for success, speedup and feedback (the unit of replication: each "
             f"pair's mean over its trials in a condition); n = {_plural(n_people, 'participant')} for the "
             f"questionnaire items (each participant's mean over their trials in a condition). "
             f"{_plural(len(trials), 'trial')} in all, the tutorial left out"
             + (f", and {_plural(stopped, 'trial')} the host stopped before its end" if stopped else "")
             + f". Speedup = L_{study.baseline} / L - 1 per "
             "pair (a trial not completed counts with its step limit).", "",
             "| condition | measure | mean ± s.e. | n | unit | total |", "|---|---|---|---|---|---|"]
    for s in summary:
        lines.append(f"| {titles[s['condition']]} | {s['measure']} | {s['mean']:.2f} ± {s['sem']:.2f} | {s['n']} | "
                     f"{s['unit']} | {s['total']} |")
    lines += ["", "## Paired comparisons", "",
              "Wilcoxon signed-rank (rank-biserial r) for continuous measures, exact sign test for success rates; "
              f"mean difference (first minus second) with its {int(CONFIDENCE * 100)}% interval; p adjusted "
              "(Benjamini-Hochberg) over every test below.", "",
              "| measure | first | second | n | unit | test | mean difference [interval] | effect size | p | p adj. |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for t in tests:
        lines.append(f"| {t['metric']} | {titles[t['first']]} | {titles[t['second']]} | {t['n']} | {t['unit']} | "
                     f"{t['test']} | {_fmt(t['mean_difference'])} [{_fmt(t['ci_low'])}, {_fmt(t['ci_high'])}] | "
                     f"{_fmt(t['effect_size'])} | {_p(t['p'])} | {_p(t.get('p_adjusted'))}{stars(t.get('p_adjusted', 1.0))} |")
    if not tests:
        lines.append("| (no pair of conditions shares a unit yet) | | | | | | | | | |")
    if n_pairs < 6:
        lines += ["", f"With n = {_plural(n_pairs, 'pair')} no test by pairs can reach p < 0.05 (a two-sided "
                      "signed-rank or sign test needs at least 6 units); the numbers describe these pairs only."]
    return "\n".join(lines) + "\n"


def _figure(path: Path, study: Study, values: dict[str, dict[str, MeanSem]], tests: list[dict[str, Any]],
            conditions: list[str], facilitated: list[str], items: list[str], n_pairs: int, n_people: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    titles = {c.name: c.title or c.name for c in study.conditions}
    colors = {c: plt.get_cmap("tab10")(k) for k, c in enumerate(conditions)}
    fig = plt.figure(figsize=(12, 7))
    top = [("success", "success rate"), ("speedup", "speedup"), ("feedback", "# feedback"), ("ignored", "# ignored")]
    for k, (metric, label) in enumerate(top):
        ax = fig.add_subplot(2, 4, k + 1)
        shown = [c for c in conditions if c in values.get(metric, {})]
        ax.bar(range(len(shown)), [values[metric][c].mean for c in shown],
               yerr=[values[metric][c].sem for c in shown], color=[colors[c] for c in shown], capsize=4)
        ax.set_xticks(range(len(shown)), [titles[c] for c in shown], rotation=20, fontsize=8)
        ax.set_title(f"{label} (n = {n_pairs} pairs)", fontsize=9)
        if metric == "success":
            ax.set_ylim(0, 1.15)
        else:
            ax.axhline(0, color="grey", lw=0.6)
        _stars(ax, tests, metric, shown, values[metric] if shown else {})
    ax = fig.add_subplot(2, 1, 2)
    width = 0.8 / max(1, len(facilitated))
    for j, c in enumerate(facilitated):
        xs = [k + j * width for k in range(len(items))]
        ms = [values.get(i, {}).get(c) for i in items]
        ax.bar(xs, [m.mean if m else 0 for m in ms], width, yerr=[m.sem if m else 0 for m in ms],
               color=colors[c], capsize=3, label=titles[c])
    ax.set_xticks([k + width * (len(facilitated) - 1) / 2 for k in range(len(items))], items)
    ax.set_ylim(0, study.questionnaire.scale.points + 0.8)
    ax.set_ylabel(f"rating (1-{study.questionnaire.scale.points})")
    ax.set_title(f"questionnaire (n = {n_people} participants)", fontsize=9)
    if facilitated:
        ax.legend(fontsize=8)
    for k, item in enumerate(items):
        marks = [stars(t.get("p_adjusted", 1.0)) for t in tests if t["metric"] == item]
        if marks and marks[0]:
            ax.text(k + width * (len(facilitated) - 1) / 2, study.questionnaire.scale.points + 0.3, marks[0],
                    ha="center")
    fig.suptitle(f"{study.title}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _stars(ax: Any, tests: list[dict[str, Any]], metric: str, shown: list[str], values: dict[str, MeanSem]) -> None:
    for t in tests:
        if t["metric"] != metric or t["first"] not in shown or t["second"] not in shown:
            continue
        mark = stars(t.get("p_adjusted", 1.0))
        if mark:
            a, b = shown.index(t["first"]), shown.index(t["second"])
            top = max(v.mean + v.sem for v in values.values())
            ax.plot([a, b], [top * 1.05] * 2, color="black", lw=0.8)
            ax.text((a + b) / 2, top * 1.06, mark, ha="center")

