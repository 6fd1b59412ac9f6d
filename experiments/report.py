"""One report per experiment: ``report.md`` and ``report.html`` beside its tables and figures.

The page holds the design (scenarios, conditions, seeds, the unit n counts, the tests), the
summary and test tables, the figures, the per-scenario table, the pre-check results, how the
sweep ran, the software versions and the exact command that reproduces it. Also written:
``summary.csv``, ``tests.csv``, ``scenarios.csv``, ``episodes.csv`` (one row per episode with
every metric) and ``design.json`` (the design as run).
"""

from __future__ import annotations

import html
import platform
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from experiments.design import Design
from experiments.stats import (
    ALL,
    Analysis,
    comparisons_markdown,
    mix_markdown,
    scenario_markdown,
    share_markdown,
    summary_markdown,
)
from sim.redact import DictWriter, scrub_text, write_text

ROOT = Path(__file__).resolve().parent.parent
#: the files ``write_report`` writes into the output folder (besides one figure per metric)
REPORT_FILES = ("design.json", "summary.csv", "tests.csv", "scenarios.csv", "episodes.csv", "figure_summary.png",
                "figure_groups.png", "figure_effects.png", "report.md", "report.html", "shares.csv",
                "figure_shares.png")


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """A table, scrubbed of secrets (``sim.redact``) like every file the report writes."""
    if not rows:
        path.write_text("", encoding="utf-8")
        return
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def software() -> dict[str, str]:
    """Versions (read from the installed packages' metadata: nothing is imported for them)."""
    from importlib.metadata import PackageNotFoundError, version

    from sim import __version__

    info = {"tom-arena": __version__, "python": platform.python_version(), "numpy": version("numpy"),
            "scipy": version("scipy"), "matplotlib": version("matplotlib"), "platform": platform.platform()}
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                 capture_output=True, text=True, timeout=10).stdout.strip()
        if commit:
            info["git commit"] = commit + (" (with uncommitted changes)" if changed else "")
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        info["ray"] = version("ray")
    except PackageNotFoundError:
        pass
    return info


def _nan(x: float | None) -> float:
    return float("nan") if x is None else x


def _ci_methods(analysis: Any) -> str:
    names = {"t": "t-interval", "bca": "BCa bootstrap", "percentile": "percentile bootstrap",
             "signflip": "sign-flip interval"}
    used = dict.fromkeys(t.get("ci_method", "percentile") for t in analysis.tests)
    return ", ".join(names.get(m, m) for m in used) or "none"


def _describe_condition(design: Design, name: str) -> tuple[str, str]:
    c = design.condition(name)
    seats = ", ".join(c.agents if c.agents is not None else design.agents) or "the world's default agent"
    mechs = [m if isinstance(m, str) else f"{m.kind} {m.params}" for m in c.mechanisms]
    return seats, ", ".join(f"`{m}`" for m in mechs) or "none"


#: a figure to draw: the function's name in ``sim.analysis.plots``, its arguments, its keywords
Figure = tuple[str, tuple[Any, ...], dict[str, Any]]


def figures(out: Path, design: Design, analysis: Analysis) -> list[tuple[str, str, Figure]]:
    """The PNG figures to draw: (file name, caption, what draws it), in the report's order; at
    most ``FIGURES_AT_MOST`` (the drawing processes are counted by it)."""
    made: list[tuple[str, str, Figure]] = []
    conds = analysis.conditions
    shown = [m for m in design.metrics if m.test] or list(design.metrics)
    pairs = [(m.name, m.title) for m in shown]
    ref = design.reference

    def ref_p(group: str) -> dict[str, dict[str, float]]:
        table: dict[str, dict[str, float]] = {}
        for metric, by_pair in analysis.p_adj.get(group, {}).items():
            for (a, b), q in by_pair.items():
                if a == ref:
                    table.setdefault(metric, {})[b] = q
                elif b == ref:
                    table.setdefault(metric, {})[a] = q
        return table

    made.append(("figure_summary.png", "Mean ± SEM over scenarios (each scenario: the mean over its seeds); "
                 "marks: the reference differs (BH-adjusted p).",
                 ("metric_figure", (out / "figure_summary.png", f"{design.title_text()}: all scenarios (n = "
                                    f"{len(analysis.cells)} scenarios)", conds, pairs, analysis.values[ALL],
                                    ref_p(ALL), ref or ""), {})))
    subgroups = [(g, label) for g, label in analysis.groups if g != ALL]
    if subgroups:
        made.append(("figure_groups.png", "The same per group of scenarios.",
                     ("grid_figure", (out / "figure_groups.png", "per group of scenarios", subgroups, conds, pairs,
                                      {g: analysis.values[g] for g, _ in subgroups},
                                      {g: ref_p(g) for g, _ in subgroups}, ref or ""), {})))
    rows = [{"panel": t["metric"], "label": f"{t['first']} - {t['second']}", "estimate": t["mean_difference"],
             "low": _nan(t["ci_low"]), "high": _nan(t["ci_high"]), "p_adj": t["p_adj"]}
            for t in analysis.tests if t["group"] == ALL]
    if rows:
        made.append(("figure_effects.png", f"Mean paired difference per scenario with its "
                     f"{design.tests.confidence:.0%} interval ({_ci_methods(analysis)}).",
                     ("effect_figure", (out / "figure_effects.png", "all scenarios", rows),
                      {"confidence": design.tests.confidence})))
    share_rows = [{"panel": r["metric"], "label": r["condition"], "estimate": _nan(r["share"]), "low": _nan(r["low"]),
                   "high": _nan(r["high"])} for r in (analysis.shares or {}).get("rows", []) if r["group"] == ALL]
    if share_rows:
        made.append(("figure_shares.png", f"Share of the available gain, (method − floor) / (ceiling − floor), "
                     f"over all scenarios, with its {design.tests.confidence:.0%} Fieller interval (arrows: unbounded).",
                     ("share_figure", (out / "figure_shares.png", f"floor {design.floor}, ceiling {design.ceiling}",
                                       share_rows), {"confidence": design.tests.confidence})))
    continuous = next((m for m in shown if m.kind == "continuous"), None)
    if continuous is not None and len(conds) > 1:
        units = {s: {c: v[continuous.name] for c, v in by_c.items()} for s, by_c in analysis.cells.items()}
        name = f"figure_{continuous.name}_by_scenario.png"
        made.append((name, f"{continuous.title}: one line per scenario (paired), the mean in blue.",
                     ("paired_figure", (out / name, f"{continuous.title} per scenario", conds, units,
                                        continuous.title), {})))
    return made


def preload() -> None:
    """Import what the statistics and the figures will need (scipy's statistics: 0.7-2 s;
    matplotlib: 0.4-1 s) and draw a first figure into memory (``warm_up``), so that a process
    that does it while the episodes run, and the processes it forks to draw, do not wait for
    them once the sweep is over."""
    import scipy.stats  # noqa: F401

    from sim.analysis.plots import warm_up

    warm_up()  # the drawing processes forked afterwards start with a figure's first draw behind them


#: the most figures a report draws (``figures``)
FIGURES_AT_MOST = 5


def figure_processes(jobs: int | None, backend: str = "local") -> int:
    """How many processes draw a report's figures: as many as the sweep's local workers, at
    least two where there are two cores, no more than there are figures."""
    import os

    return min(FIGURES_AT_MOST, max((jobs or 1) if backend == "local" else 2, min(2, os.cpu_count() or 1)))


def analyse_and_report(result: Any, *, command: str, jobs: int = 1, pool: Any = None) -> tuple[Analysis, Path]:
    """The statistics of a finished (or partial) sweep whose metrics are computed, and its report
    (``write_report``: the figures on ``jobs`` processes, or on ``pool``'s): the analysis and
    report.md."""
    from experiments.stats import analyse

    result.analysis = analyse(result.records, result.design, result.attrs)
    return result.analysis, write_report(result, command=command, jobs=jobs, pool=pool)


class ReportProcess:
    """A process forked before a sweep's episodes start that imports what the statistics and the
    report need (``preload``) and forks the ``drawers`` processes that will draw the figures
    (``drawing_pool``) while they run, on a core they leave free, then computes the statistics
    and writes the report (``analyse_and_report``) once the sweep is over: one request, then it
    ends. It ends with the process that started it, however that ends (``exit_with_parent``),
    and its drawing processes with it."""

    def __init__(self, drawers: int = 2) -> None:
        import multiprocessing
        import os

        context = multiprocessing.get_context("fork")
        self._conn, child = context.Pipe()
        # not a daemon: daemonic processes may not start the figure processes
        self._process = context.Process(target=_serve, args=(child, os.getpid(), drawers), name="tom-arena-report")
        self._process.start()
        child.close()
        self._answered = False

    @staticmethod
    def available() -> bool:
        """A second core to import on, and processes that fork (Linux, macOS)."""
        import multiprocessing
        import os

        return (os.cpu_count() or 1) >= 2 and "fork" in multiprocessing.get_all_start_methods()

    def analyse_and_report(self, result: Any, *, command: str) -> tuple[Analysis, Path]:
        """``analyse_and_report`` in the report process (its figures on its drawing processes);
        its exception raised here."""
        self._conn.send((result, command))
        try:
            ok, value = self._conn.recv()
        except EOFError:
            raise RuntimeError(f"the report process ended without an answer (exit code "
                               f"{self._process.exitcode})") from None
        self._answered = True
        if not ok:
            raise value
        return value

    def close(self) -> None:
        """End the process: once it has answered it ends by itself; before that (a sweep that
        failed or was interrupted, a report cut short) it is killed at once, with the figure
        processes it started."""
        self._conn.close()
        if self._answered:
            self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.kill()
        self._process.join()


def _serve(conn: Any, parent: int, drawers: int) -> None:
    import gc
    import os
    import signal

    from experiments.backends import exit_with_parent

    exit_with_parent(parent)
    # Ctrl-C reaches every process of the terminal's group: the sweep's process handles it and
    # closes this one (no traceback from here)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        preload()
    except ImportError:
        pass  # the request raises it again, where the caller reports it
    # What is loaded now stays to the end: out of the garbage collector's sight, a collection
    # no longer walks it (a full one took 0.2-0.3 s while a figure was drawn), and the drawing
    # processes forked next share its memory pages instead of copying the ones it touches.
    gc.freeze()
    pool = drawing_pool(drawers)
    try:
        try:
            result, command = conn.recv()
        except (EOFError, OSError):
            os._exit(0)  # the sweep ended without a report (an error, an interrupt)
        try:
            answer: tuple[bool, Any] = (True, analyse_and_report(result, command=command, jobs=drawers, pool=pool))
        except BaseException as exc:  # noqa: B902 - handed to the caller, which raises it
            answer = (False, exc)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    try:
        conn.send(answer)
    except Exception as exc:  # an exception that does not pickle
        conn.send((False, RuntimeError(f"{type(answer[1]).__name__}: {answer[1]} ({exc})")))
    conn.close()


def draw(figure: Figure) -> None:
    """Draw one figure (matplotlib is imported here, by the process that draws)."""
    from sim.analysis import plots

    name, args, kwargs = figure
    getattr(plots, name)(*args, **kwargs)


def _figure_cost(figure: Figure) -> int:
    """Panels to draw, roughly: the biggest figures start first."""
    name, args, _ = figure
    return len(args[2]) * len(args[4]) if name == "grid_figure" else 1


def drawing_pool(jobs: int) -> Any:
    """``jobs`` processes, forked now and ending with this one, that draw figures (``draw``), or
    None where this process draws them (one job, or no ``fork``)."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from experiments.backends import exit_with_parent

    if jobs < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=exit_with_parent, initargs=(os.getpid(),))
    pool.submit(int)  # forks every process now (the pool starts them at its first task)
    return pool


def start_drawing(todo: Sequence[Figure], pool: Any) -> Any:
    """Hand the figures to ``pool``'s processes, the biggest first, while the caller writes the
    rest; returns what ``finish_drawing`` waits on. Without a pool they are drawn by
    ``finish_drawing``, in this process."""
    if pool is None:
        return list(todo)
    return [pool.submit(draw, f) for f in sorted(todo, key=_figure_cost, reverse=True)]


def finish_drawing(drawing: Any) -> None:
    """Wait for the figures ``start_drawing`` handed out, or draw them here; an error is raised."""
    from concurrent.futures import Future

    for item in drawing:
        if isinstance(item, Future):
            item.result()
        else:
            draw(item)


def write_report(result: Any, *, command: str, jobs: int = 1, pool: Any = None) -> Path:
    """Tables, figures and the report page of a finished (or partial) sweep; returns report.md.
    The figures are drawn on ``pool``'s processes, or on ``jobs`` processes forked for them, at
    once, while the tables and the page are written."""
    design: Design = result.design
    analysis: Analysis = result.analysis
    out: Path = result.out
    out.mkdir(parents=True, exist_ok=True)
    planned = figures(out, design, analysis)
    own = pool is None
    if own:
        pool = drawing_pool(min(jobs, len(planned)))
    try:
        drawing = start_drawing([figure for _, _, figure in planned], pool)
        try:
            return _write_pages(result, command, [(name, caption) for name, caption, _ in planned])
        finally:
            finish_drawing(drawing)
    finally:
        if own and pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _titled(design: Design, name: str) -> str:
    title = design.condition(name).title
    return f" ({title})" if title else ""


def _over_teams_lines(design: Design, records: Sequence[Mapping[str, Any]]) -> list[str]:
    """What the design's ``over_teams`` conditions played: per condition, the teams over the
    scenarios (each team played with every seed), and what a scenario's value is."""
    lines = []
    for c in design.conditions:
        if c.over_teams is None:
            continue
        per = {r["scenario"]: r.get("teams", 0) for r in records if r["condition"] == c.name}
        if not per:
            continue
        teams = sum(per.values())
        span = f"{min(per.values())}-{max(per.values())}" if len(set(per.values())) > 1 else f"{teams // len(per)}"
        drawn = any(r.get("teams", 0) < r.get("teams_possible", 0) for r in records if r["condition"] == c.name)
        which = (f"every team its random draw could give, or {c.team_limit} of them drawn at random where there are "
                 f"more" if drawn else "every team its random draw could give")
        if c.over_teams == "mean":
            value = "the mean over the teams (the exact expectation of the draw)"
        else:
            value = (f"that of the best team, the one with the best mean over the seeds on "
                     f"{design.best_metric(c)} (exhaustive search)")
        lines += ["", f"`{c.name}` plays {which}: {teams} teams over {len(per)} scenarios ({span} per scenario), "
                  f"each with every seed; a scenario's value is {value}. n still counts scenarios."]
    return lines


def _write_pages(result: Any, command: str, made: list[tuple[str, str]]) -> Path:
    design: Design = result.design
    analysis: Analysis = result.analysis
    out: Path = result.out
    write_text(out / "design.json", design.model_dump_json(indent=2))
    write_csv(out / "summary.csv", analysis.summary)
    write_csv(out / "tests.csv", analysis.tests)
    if analysis.shares:
        write_csv(out / "shares.csv", analysis.shares["rows"])
    write_csv(out / "scenarios.csv", [{"scenario": s, **result.attrs.get(s, {})} for s in analysis.cells])
    write_csv(out / "episodes.csv", [{"scenario": r["scenario"], "group": analysis.scenario_group.get(r["scenario"]),
                                      "condition": r["condition"], "seed": r["seed"], **r["values"]}
                                     for r in result.records])
    n_scen = len(analysis.cells)
    k = analysis.seeds_per_scenario
    n_conds = len(analysis.conditions)
    total = n_scen * n_conds * k
    partial = len(result.records) < total
    team_values = [r["teams"] for r in result.records if "teams" in r]
    lines = [f"# {design.title_text()}", ""]
    if design.description:
        lines += [design.description, ""]
    if partial:
        lines += [f"**Partial results: {len(result.records)} of {total} episodes.**", ""]
    lines += ["## Design", "",
              f"- **Scenarios**: {n_scen} (`{'`, `'.join(design.scenarios)}`)"
              + (f", grouped by {design.groups.by}: " + ", ".join(
                  f"{label} {sum(1 for g in analysis.scenario_group.values() if g == group)}"
                  for group, label in analysis.groups if group != ALL) if design.groups else ""),
              f"- **Seeds**: {k} per scenario and condition, from {design.seeds.first}"
              + (f"; at most {design.max_ticks} ticks" if design.max_ticks else "")
              + (f"; {design.cooks} cooks on the gym-cooking levels" if design.cooks is not None else ""),
              f"- **Episodes**: {len(result.records)} = {n_scen} scenarios × {n_conds} conditions × {k} seeds"
              + (f"; each plays the scenario {design.rounds} times in a row (task rounds, same agents and "
                 f"mechanisms), and its outcomes are the last round's" if design.rounds > 1 else "")
              + (f"; the {len(team_values)} values of the team conditions stand for {sum(team_values)} episode records, "
                 f"one per team and seed (below)" if team_values else ""),
              f"- **Unit of replication**: the scenario. Each metric is averaged over a scenario's seeds first; "
              f"every n below counts scenarios (n = {n_scen} over all scenarios).",
              "- **Tests** (two-sided, paired by scenario where both conditions ran the same scenarios): "
              "Wilcoxon signed-rank for continuous metrics; for 0/1 metrics McNemar's exact test with one "
              "episode per scenario, else the exact sign test on the scenarios' rates; Mann-Whitney U on "
              f"scenario values where conditions do not share scenarios. Benjamini-Hochberg over the "
              f"family of all {len(analysis.tests)} tests (α = {design.tests.alpha}).",
              f"- **Effect sizes**: mean paired difference with a {design.tests.confidence:.0%} interval: Student's t "
              "(Welch's where unpaired), which keeps its coverage with many identical pairs where the bootstrap "
              "does not (docs/experiments.md); here: "
              f"{_ci_methods(analysis)}, the 'interval' column of the comparisons says which for each row; "
              "matched-pairs rank-biserial correlation for the signed-rank tests.",
              "", "| condition | seats | mechanisms |", "|---|---|---|"]
    for c in analysis.conditions:
        seats, mechs = _describe_condition(design, c)
        title = design.condition(c).title
        lines.append(f"| {c}{(' (' + title + ')') if title else ''} | `{seats}` | {mechs} |")
    if design.baseline:
        lines += ["", f"Baseline (for derived metrics): `{design.baseline}`. Reference (tests): `{design.reference}`."]
    if design.floor and design.ceiling:
        lines += ["", f"Floor: `{design.floor}`{_titled(design, design.floor)}. Ceiling: "
                  f"`{design.ceiling}`{_titled(design, design.ceiling)}. Share of the gain: "
                  + ", ".join(m.name for m in design.shared_metrics()) + "."]
    elif design.floor:
        lines += ["", f"Floor (without the mechanism): `{design.floor}`. No ceiling (a condition with free "
                  "information) is declared, so no share of the gain is given."]
    lines += _over_teams_lines(design, result.records)
    lines += ["", "Metrics: " + "; ".join(
        f"**{m.name}** ({m.source or 'derived: ' + str(m.derive)}{', ' + m.kind if m.kind == 'binary' else ''}"
        f"{', not tested' if not m.test else ''})" for m in design.metrics) + ".", ""]
    lines += ["## Results", "", summary_markdown(analysis, design.reference), ""]
    others = summary_markdown(analysis, design.reference, tested=False)
    if others:
        lines += ["Metrics reported without tests:", "", others, ""]
    lines += ["### Tests", "",
              comparisons_markdown(analysis), "",
              "n: scenario pairs for paired tests. Mean difference: first − second, over scenarios.", ""]
    if analysis.shares:
        lines += ["### Share of the available gain", "", share_markdown(analysis), ""]
    if analysis.mix:
        lines += [f"### The pooled figures depend on the mix of groups: at {analysis.mix['label'] or 'another mix'}",
                  "", mix_markdown(analysis, design.tests.confidence), ""]
    for name, caption in made:
        lines += [f"![{caption}]({name})", "", f"*{caption}*", ""]
    shown = [m.name for m in design.metrics if m.test] or [m.name for m in design.metrics]
    lines += ["## Per scenario", "", scenario_markdown(analysis, shown), ""]
    if design.checks:
        attrs = [{"scenario": s, **result.attrs.get(s, {})} for s in analysis.cells]
        keys = list(dict.fromkeys(k for a in attrs for k in a))
        lines += ["## Pre-checks", "", "Hooks: " + ", ".join(f"`{h.hook}`" for h in design.checks) + ".", "",
                  "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
        lines += ["| " + " | ".join("" if a.get(k) is None else str(a.get(k)) for k in keys) + " |" for a in attrs]
        lines.append("")
    cache = (f" LLM response cache: {result.cache_hits} answers from the cache, {result.cache_misses} asked."
             if result.cache_hits or result.cache_misses else "")
    copied = getattr(result, "copied", 0)
    shared = (f" ({result.ran - copied} played; the other {copied} are copies, recorded under a second condition "
              "that plays the same episode)" if copied else "")
    lines += ["## Run", "", f"{result.ran} episodes run{shared} in {result.seconds:.1f} s ({result.backend}); "
              f"{result.resumed} were already in `episodes.jsonl`.{cache}", "",
              "## Software", "", "| | version |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in software().items()]
    lines += ["", "## Reproduce", "", "```bash", command, "```", "",
              "The same command with `--resume` finishes an interrupted sweep; `--backend ray --address ADDR` "
              "runs it on a Ray cluster with the same per-episode results.", ""]
    text = "\n".join(lines)
    text = scrub_text(text)
    write_text(out / "report.md", text)
    write_text(out / "report.html", markdown_to_html(text, design.title_text()))
    return out / "report.md"


# ---------------------------------------------------------------------- HTML

_INLINE = [(re.compile(r"`([^`]+)`"), r"<code>\1</code>"), (re.compile(r"\*\*([^*]+)\*\*"), r"<strong>\1</strong>"),
           (re.compile(r"(?<![*\w])\*([^*]+)\*(?![*\w])"), r"<em>\1</em>")]


def _inline(text: str) -> str:
    text = html.escape(text, quote=False)
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text


def markdown_to_html(text: str, title: str) -> str:
    """The subset of Markdown the report uses: headings, paragraphs, lists, tables, images, code."""
    body: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            block = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(html.escape(lines[i]))
                i += 1
            body.append("<pre><code>" + "\n".join(block) + "</code></pre>")
        elif m := re.match(r"^(#{1,6}) (.*)$", line):
            level = len(m.group(1))
            body.append(f"<h{level}>{_inline(m.group(2))}</h{level}>")
        elif m := re.match(r"^!\[(.*)\]\((.*)\)$", line):
            body.append(f'<figure><img src="{html.escape(m.group(2))}" alt="{html.escape(m.group(1))}"></figure>')
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            i -= 1
            head, rest = rows[0], [r for r in rows[1:] if not all(set(c) <= set("-: ") for c in r)]
            body.append("<table><thead><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head) + "</tr></thead><tbody>"
                        + "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in rest)
                        + "</tbody></table>")
        elif line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{_inline(lines[i][2:])}</li>")
                i += 1
            i -= 1
            body.append("<ul>" + "".join(items) + "</ul>")
        elif line.strip():
            body.append(f"<p>{_inline(line)}</p>")
        i += 1
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.4}"
             "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}td,th{border:1px solid #ccc;"
             "padding:3px 8px;text-align:left}th{background:#f2f2f2}img{max-width:100%}"
             "pre{background:#f6f6f6;padding:0.6em}code{font-size:0.92em}")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
