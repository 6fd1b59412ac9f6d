"""The ProToM experiment on Doors, Keys and Gems (seed 003, Section 4.4, Figures 3 and A10).

    python main.py experiment protom-dkg [--seeds N] [--out DIR] [--jobs J]

Runs every scenario x facilitator x seed of ``scenarios/experiments/protom-dkg.json``
with Boltzmann simulated humans in the seats, after checking that each scenario's
declared category is the one computed from its joint optimum and independent plans
(``agents.protom.categories``). Writes into the output folder:

    episodes.csv     one row per episode: success, length, feedback count and statuses
    scenarios.csv    each scenario's declared and computed category, L_ind and L_joint
    summary.csv      per group (all, not_needed, useful, necessary) and facilitator:
                     success rate, speedup, number of feedback messages (mean, SEM, n)
    tests.csv        the reference facilitator against each other one, per group and
                     metric: Fisher's exact test (success) or Mann-Whitney U (speedup,
                     feedback), p and Benjamini-Hochberg adjusted p over all tests
    figure3.png      the three metrics over all scenarios
    figureA10.png    the three metrics per scenario category
    summary.md       the result table in Markdown

Speedup of an episode = mean length of the baseline (no facilitator) on the same
scenario / the episode's length - 1; a failed episode counts with length t_max.
"""

from __future__ import annotations

import fnmatch
import json
import multiprocessing
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sim.registry import SCENARIO_DIR, ScenarioError, load_spec, scenario_paths

CATEGORY_ORDER = ("not_needed", "useful", "necessary")
GROUPS = (("all", "all scenarios"), ("not_needed", "feedback not needed"), ("useful", "feedback useful"),
          ("necessary", "feedback necessary"))
METRICS = (("success", "success rate"), ("speedup", "speedup"), ("feedback", "# feedback"))


class ExperimentError(ValueError):
    """A configuration or scenario problem that stops the experiment before it runs."""


class SeatConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str
    params: dict[str, Any] = {}

    def spec(self) -> str:
        if not self.params:
            return self.kind
        return self.kind + ":" + ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                                          for k, v in self.params.items())


class FacilitatorConfig(SeatConfig):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    params: dict[str, Any] = {}  # any JSON values, e.g. a goal_prior mapping


class ProToMExperimentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    experiment: str
    title: str = ""
    runner: str = "experiments.protom_dkg"
    scenarios: list[str] = Field(min_length=1, description="scenario names or shell-style patterns")
    seeds: int = Field(10, ge=1)
    first_seed: int = 0
    agents: SeatConfig
    facilitators: list[FacilitatorConfig] = Field(min_length=1)
    baseline: str = "none"
    reference: str = "protom"

    @model_validator(mode="after")
    def _names(self) -> "ProToMExperimentConfig":
        names = [f.name for f in self.facilitators]
        if len(set(names)) != len(names):
            raise ValueError(f"facilitator names must be unique, got {names}")
        for field_name in ("baseline", "reference"):
            if getattr(self, field_name) not in names:
                raise ValueError(f"{field_name} {getattr(self, field_name)!r} is not one of the facilitators {names}")
        return self


def load_config(path: str | Path) -> ProToMExperimentConfig:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ExperimentError(f"{path}: cannot read the file ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise ExperimentError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})") from None
    try:
        config = ProToMExperimentConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise ExperimentError(f"{path}: field '{where}': {err['msg'].removeprefix('Value error, ')}") from None
    # Check every seat and facilitator spec now, not after an hour of running.
    from agents.registry import AgentSpecError, make_agent, make_mechanism
    try:
        make_agent(config.agents.spec(), "dkg")
        for f in config.facilitators:
            make_mechanism(f.kind, "dkg", f.params)
    except AgentSpecError as exc:
        raise ExperimentError(f"{path}: {exc}") from None
    return config


def resolve_scenarios(patterns: Sequence[str]) -> list[Path]:
    paths = [p for p in scenario_paths() if p.parent.name == "dkg"]
    chosen: list[Path] = []
    for pattern in patterns:
        hits = [p for p in paths if fnmatch.fnmatchcase(p.stem, pattern)]
        if not hits:
            raise ExperimentError(f"no Doors, Keys and Gems scenario matches {pattern!r} in {SCENARIO_DIR / 'dkg'}")
        chosen += [p for p in hits if p not in chosen]
    return chosen


# ------------------------------------------------------------------ categories


@dataclass(frozen=True)
class ScenarioCheck:
    name: str
    path: str
    declared: str | None
    computed: str
    independent_length: int | None
    joint_length: int
    agents: int


def _check_one(path: str) -> ScenarioCheck:
    from agents.protom.categories import scenario_category
    from sim.registry import build_world

    family, spec = load_spec(path)
    world = build_world(family, spec)
    report = scenario_category(world)
    return ScenarioCheck(spec["name"], path, spec.get("category"), report.category, report.independent_length,
                         report.joint_length, len(world.agents))


def check_categories(paths: Sequence[Path], pool: ProcessPoolExecutor | None = None) -> list[ScenarioCheck]:
    """Compute every scenario's category; raise ExperimentError when one disagrees with its file."""
    from agents.protom.categories import CategoryError

    items = [str(p) for p in paths]
    try:
        checks = list(pool.map(_check_one, items)) if pool else [_check_one(p) for p in items]
    except CategoryError as exc:
        raise ExperimentError(str(exc)) from None
    wrong = [c for c in checks if c.declared != c.computed]
    if wrong:
        raise ExperimentError("scenario categories disagree with the computation: " + "; ".join(
            f"{c.path}: declares {c.declared!r}, computed {c.computed!r} (independent plans: "
            f"{c.independent_length if c.independent_length is not None else 'fail'}, joint optimum: "
            f"{c.joint_length})" for c in wrong))
    return checks


# ------------------------------------------------------------------ episodes

_WORLDS: dict[str, Any] = {}


def _world(path: str):
    world = _WORLDS.get(path)
    if world is None:
        from sim.registry import build_world
        family, spec = load_spec(path)
        world = _WORLDS[path] = build_world(family, spec)
    return world


def run_episodes(task: tuple[str, str, str, str, dict[str, Any], Sequence[int]]) -> list[dict[str, Any]]:
    """One scenario x facilitator over several seeds (a worker's unit: caches stay warm)."""
    from agents.registry import make_agent, make_mechanism
    from sim.events import FeedbackStatusEvent
    from sim.session import Session

    path, category, agent_spec, fac_name, fac, seeds = task
    world = _world(path)
    rows = []
    for seed in seeds:
        seats = {a: make_agent(agent_spec, world.family) for a in world.agents}
        facilitator = make_mechanism(fac["kind"], world.family, fac["params"])
        session = Session(world, seats, seed=seed, scenario=world.name, mechanisms=[facilitator])
        outcome = session.run()
        statuses = Counter(e.status for e in session.events if isinstance(e, FeedbackStatusEvent))
        rows.append({
            "scenario": world.name, "category": category, "agents": len(world.agents),
            "facilitator": fac_name, "seed": seed, "success": int(bool(outcome["success"])),
            "length": session.tick, "t_max": world.t_max, "feedback": session.counters["feedback"],
            "accepted": statuses["accepted"], "completed": statuses["completed"],
            "ignored": statuses["ignored"], "not_executable": statuses["not_executable"],
            "errors": session.counters["errors"],
        })
    return rows


def _pool(jobs: int) -> ProcessPoolExecutor | None:
    if jobs <= 1:
        return None
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method))


def run_experiment(config: ProToMExperimentConfig, seeds: int | None = None, jobs: int = 2,
                   quiet: bool = False) -> tuple[list[ScenarioCheck], list[dict[str, Any]]]:
    from tqdm import tqdm

    paths = resolve_scenarios(config.scenarios)
    n_seeds = seeds if seeds is not None else config.seeds
    if n_seeds < 1:
        raise ExperimentError("--seeds must be at least 1")
    seed_list = list(range(config.first_seed, config.first_seed + n_seeds))
    agent_spec = config.agents.spec()
    pool = _pool(jobs)
    try:
        checks = check_categories(paths, pool)
        category = {c.path: c.computed for c in checks}
        # Slow scenarios first so that the two workers finish together.
        order = sorted(paths, key=lambda p: -next(c.agents * (c.independent_length or 200) for c in checks
                                                  if c.path == str(p)))
        tasks = [(str(p), category[str(p)], agent_spec, f.name, {"kind": f.kind, "params": f.params}, seed_list)
                 for p in order for f in config.facilitators]
        rows: list[dict[str, Any]] = []
        bar = tqdm(total=len(tasks) * len(seed_list), desc=config.experiment, unit="ep", disable=quiet or None,
                   file=sys.stderr, dynamic_ncols=True)
        results = pool.map(run_episodes, tasks) if pool else map(run_episodes, tasks)
        for chunk in results:
            rows += chunk
            bar.update(len(chunk))
        bar.close()
    finally:
        if pool is not None:
            pool.shutdown()
    rows.sort(key=lambda r: (r["scenario"], [f.name for f in config.facilitators].index(r["facilitator"]), r["seed"]))
    return checks, rows


# ------------------------------------------------------------------ analysis


def add_speedups(rows: list[dict[str, Any]], baseline: str) -> None:
    """Speedup = mean baseline length on the scenario / episode length - 1 (seed 003, Section 4.3)."""
    lengths: dict[str, list[int]] = defaultdict(list)
    for r in rows:
        if r["facilitator"] == baseline:
            lengths[r["scenario"]].append(r["length"])
    for r in rows:
        base = lengths.get(r["scenario"])
        if not base:
            raise ExperimentError(f"no baseline ({baseline}) episodes for {r['scenario']}")
        r["speedup"] = round(sum(base) / len(base) / r["length"] - 1, 6)


def analyse(rows: list[dict[str, Any]], config: ProToMExperimentConfig) -> tuple[list[dict], list[dict], dict, dict]:
    """(summary rows, test rows, values[group][metric][facilitator], p_adj[group][metric][facilitator])."""
    from sim.analysis.stats import benjamini_hochberg, fisher_exact, mann_whitney, mean_sem, stars

    names = [f.name for f in config.facilitators]
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by[("all", r["facilitator"])].append(r)
        by[(r["category"], r["facilitator"])].append(r)
    groups = [g for g, _ in GROUPS if any((g, n) in by for n in names)]
    values: dict[str, dict[str, dict[str, Any]]] = {}
    summary = []
    for g in groups:
        values[g] = {m: {} for m, _ in METRICS}
        for n in names:
            rs = by.get((g, n), [])
            if not rs:
                continue
            for m, _ in METRICS:
                values[g][m][n] = mean_sem([r[m] for r in rs])
            lengths = [r["length"] for r in rs]
            base = [r["length"] for r in by.get((g, config.baseline), [])]
            summary.append({
                "group": g, "facilitator": n, "episodes": len(rs),
                **{f"{m}_{k}": round(getattr(values[g][m][n], k), 4) for m, _ in METRICS for k in ("mean", "sem")},
                "length_mean": round(sum(lengths) / len(lengths), 2),
                "speedup_of_means": round((sum(base) / len(base)) / (sum(lengths) / len(lengths)) - 1, 4) if base else None,
            })
    tests = []
    for g in groups:
        ref = by.get((g, config.reference), [])
        for n in names:
            other = by.get((g, n), [])
            if n == config.reference or not ref or not other:
                continue
            for m, _ in METRICS:
                if m == "success":
                    p = fisher_exact(sum(r["success"] for r in ref), len(ref), sum(r["success"] for r in other), len(other))
                    test = "fisher_exact"
                else:
                    p = mann_whitney([r[m] for r in ref], [r[m] for r in other])
                    test = "mann_whitney_u"
                tests.append({"group": g, "metric": m, "reference": config.reference, "other": n, "test": test, "p": p})
    adjusted = benjamini_hochberg([t["p"] for t in tests])
    p_adj: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for t, q in zip(tests, adjusted):
        t["p"] = float(f"{t['p']:.6g}")
        t["p_adj"] = float(f"{q:.6g}")
        t["stars"] = stars(q)
        p_adj[t["group"]][t["metric"]][t["other"]] = q
    return summary, tests, values, p_adj


def markdown_table(summary: list[dict], tests: list[dict], names: Sequence[str], reference: str) -> str:
    marks = {(t["group"], t["metric"], t["other"]): t["stars"] for t in tests}
    lines = ["| group | facilitator | episodes | success | speedup | # feedback |", "|---|---|---|---|---|---|"]
    for s in summary:
        cells = []
        for m, _ in METRICS:
            mark = marks.get((s["group"], m, s["facilitator"]), "")
            cells.append(f"{s[f'{m}_mean']:.2f} ± {s[f'{m}_sem']:.2f}{(' ' + mark) if mark else ''}")
        lines.append(f"| {s['group']} | {s['facilitator']} | {s['episodes']} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"Mean ± standard error. Marks: {reference} differs from that facilitator "
                 "(Benjamini-Hochberg adjusted p: * < 0.05, ** < 0.01, *** < 0.001).")
    return "\n".join(lines)


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    import csv
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_outputs(out: Path, config: ProToMExperimentConfig, checks: list[ScenarioCheck], rows: list[dict],
                  wall_seconds: float) -> tuple[list[dict], list[dict], str]:
    from sim.analysis.plots import grid_figure, metric_figure

    out.mkdir(parents=True, exist_ok=True)
    add_speedups(rows, config.baseline)
    summary, tests, values, p_adj = analyse(rows, config)
    names = [f.name for f in config.facilitators]
    _write_csv(out / "episodes.csv", rows)
    _write_csv(out / "scenarios.csv", [{"scenario": c.name, "declared": c.declared, "computed": c.computed,
                                        "independent_length": c.independent_length, "joint_length": c.joint_length,
                                        "agents": c.agents} for c in checks])
    _write_csv(out / "summary.csv", summary)
    if tests:
        _write_csv(out / "tests.csv", tests)
    metric_figure(out / "figure3.png", config.title or config.experiment, names, METRICS, values["all"],
                  p_adj.get("all", {}), config.reference)
    cats = [(g, label) for g, label in GROUPS[1:] if g in values]
    if cats:
        grid_figure(out / "figureA10.png", "per scenario category", cats, names, METRICS, values, p_adj,
                    config.reference)
    table = markdown_table(summary, tests, names, config.reference)
    n_eps = len(rows)
    (out / "summary.md").write_text(
        f"# {config.title or config.experiment}\n\n{len(checks)} scenarios x {len(names)} facilitators x "
        f"{n_eps // max(1, len(checks) * len(names))} seeds = {n_eps} episodes in {wall_seconds:.1f} s.\n\n"
        + table + "\n", encoding="utf-8")
    (out / "config.json").write_text(config.model_dump_json(indent=2), encoding="utf-8")
    return summary, tests, table


def main(config_path: str | Path, seeds: int | None = None, out: str | Path | None = None, jobs: int = 2,
         quiet: bool = False) -> int:
    try:
        config = load_config(config_path)
        start = time.perf_counter()
        checks, rows = run_experiment(config, seeds=seeds, jobs=jobs, quiet=quiet)
        wall = time.perf_counter() - start
        out_dir = Path(out or Path("runs") / config.experiment)
        summary, tests, table = write_outputs(out_dir, config, checks, rows, wall)
    except (ExperimentError, ScenarioError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not quiet:
        print(table)
        print(f"\n{len(rows)} episodes in {wall:.1f} s with {jobs} job(s); results in {out_dir}/")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(os.path.join(SCENARIO_DIR, "experiments", "protom-dkg.json")))
