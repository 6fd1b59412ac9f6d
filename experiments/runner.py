"""The experiment runner: every scenario x condition x seed of a design, for any world.

    python main.py experiment NAME [--seeds N] [--out DIR] [--jobs J] [--resume]
                                   [--backend local|ray] [--address ADDR] [--quiet]

1. resolves the design's scenarios (names or patterns, any world) and runs its pre-check
   hooks on each (e.g. ProToM's category check), which may add scenario attributes;
2. plays every episode on the backend (a local process pool, or Ray) and appends each result
   to ``<out>/episodes.jsonl`` the moment it arrives (one JSON line, flushed to the disk), so
   an interrupted sweep loses nothing: ``--resume`` runs only the episodes not in the file;
3. when all are done, rewrites the file in plan order (identical files whatever the backend
   and the order episodes finished in), computes the metrics (``experiments.design``), the
   statistics on scenarios (``experiments.stats``) and writes the report
   (``experiments.report``).
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.design import Design, ExperimentError, episode_key, fingerprint, load_design, resolve_hook
from experiments.prechecks import run_checks
from sim.redact import dumps
from sim.registry import SCENARIO_DIR, ScenarioError, load_spec, scenario_paths, scenario_stem

RESULTS = "episodes.jsonl"
FORMAT = "tom-arena-experiment"
VERSION = 1


# ---------------------------------------------------------------------- plan


@dataclass(frozen=True)
class ScenarioRef:
    name: str
    path: str
    family: str
    spec_hash: str
    agents: tuple[str, ...]
    spec_category: str | None = None


@dataclass(frozen=True)
class EpisodeTask:
    """Everything a worker needs to play one episode (picklable, no live objects)."""

    key: str
    scenario: str
    path: str
    family: str
    spec_hash: str
    condition: str
    seats: tuple[tuple[str, str], ...]
    mechanisms: tuple[tuple[str, dict[str, Any]], ...]
    seed: int
    max_ticks: int | None
    llm_cache: str | None = None
    rounds: int = 1
    cooks: int | None = None  # a reading option of gym-cooking levels (the design's ``cooks``)
    #: the team an ``over_teams`` condition's episode plays, and how many teams it plays in all
    team: tuple[str, ...] = ()
    teams_of: int = 0
    teams_possible: int = 0

    def setup(self) -> str:
        """What the episode depends on besides its seed: a resumed file must agree on it."""
        return fingerprint({"spec": self.spec_hash, "seats": self.seats, "mechanisms": self.mechanisms,
                            "max_ticks": self.max_ticks, **({"rounds": self.rounds} if self.rounds > 1 else {})})


def resolve_scenarios(patterns: Sequence[str], cooks: int | None = None) -> list[ScenarioRef]:
    """Scenarios by name or shell pattern over every world; ``family/pattern`` restricts to one.
    ``cooks``: how many cooks play gym-cooking levels (the design's ``cooks``; other levels refuse it)."""
    paths = scenario_paths()
    chosen: list[Path] = []
    for pattern in patterns:
        family, slash, name_pattern = pattern.rpartition("/")
        hits = [p for p in paths if fnmatch.fnmatchcase(scenario_stem(p), name_pattern)
                and (not slash or p.parent.name == family or p.parent.parent.name == family)]
        if not hits:
            raise ExperimentError(f"scenarios: no scenario matches {pattern!r} in {SCENARIO_DIR} "
                                  "('python main.py list' shows them)")
        chosen += [p for p in hits if p not in chosen]
    refs = []
    from sim.registry import build_world

    for p in chosen:
        try:
            family, spec = load_spec(p, None, {"cooks": cooks})
        except ScenarioError as exc:
            if cooks is None:
                raise
            raise ExperimentError(f"the design's field 'cooks': {exc}") from None
        world = build_world(family, spec)
        digest = fingerprint(spec)
        _WORLDS.setdefault((str(p), digest), world)  # the episodes' world, built once (``_world``)
        refs.append(ScenarioRef(spec.get("name") or scenario_stem(p), str(p), family, digest,
                                tuple(world.agents), spec.get("category")))
    names = [r.name for r in refs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ExperimentError(f"scenarios: several files are named {', '.join(dup)}; use family/name patterns")
    return refs


def plan(design: Design, scenarios: Sequence[ScenarioRef], seeds: Sequence[int],
         llm_cache: str | None = None) -> list[EpisodeTask]:
    """Every episode, in plan order (scenario, condition, seed); seats and mechanisms checked
    for every world now, not after an hour of running."""
    from agents.registry import AgentSpecError, make_agent, make_mechanism, seat_specs
    from sim.plugins import plugins

    tasks = []
    checked: set[tuple[str, str]] = set()
    for ref in scenarios:
        for cond in design.conditions:
            specs = cond.agents if cond.agents is not None else design.agents
            if not specs:
                default = plugins()[ref.family].default_agent
                if not default:
                    raise ExperimentError(f"condition {cond.name!r}: the {ref.family} world has no default agent; "
                                          "give 'agents'")
                specs = [default]
            try:
                seats = seat_specs(ref.agents, specs)
                if (ref.family, cond.name) not in checked:
                    for spec in set(seats.values()):
                        make_agent(spec, ref.family)
                    for spec, params in cond.mechanism_specs():
                        make_mechanism(spec, ref.family, params)
                    checked.add((ref.family, cond.name))
            except AgentSpecError as exc:
                raise ExperimentError(f"condition {cond.name!r} on {ref.name} ({ref.family}): {exc}") from None
            mechanisms = tuple((spec, params) for spec, params in cond.mechanism_specs())
            seat_items = tuple((a, seats[a]) for a in ref.agents)
            first = EpisodeTask(episode_key(ref.name, cond.name, seeds[0]), ref.name, ref.path, ref.family,
                                ref.spec_hash, cond.name, seat_items, mechanisms, seeds[0], design.max_ticks,
                                llm_cache, design.rounds, design.cooks)
            session = _check_start(first)
            check_sources(design, session, first)
            teams: list[tuple[str, ...]] = [()]
            possible = 0
            if cond.over_teams is not None:
                teams, possible = condition_teams(cond, ref, session)
            for seed in seeds:
                for team in teams:
                    key = episode_key(ref.name, cond.name, seed)
                    played = mechanisms
                    if team:
                        index = cond.team_mechanism()
                        assert index is not None  # the design's validation
                        spec, params = mechanisms[index]
                        played = (*mechanisms[:index], (spec, {**params, "team": list(team)}), *mechanisms[index + 1:])
                        key = f"{key}|{'+'.join(team)}"
                    tasks.append(EpisodeTask(key, ref.name, ref.path, ref.family, ref.spec_hash, cond.name,
                                             seat_items, played, seed, design.max_ticks, llm_cache, design.rounds,
                                             design.cooks, team, len(teams) if team else 0, possible))
    return tasks


def condition_teams(cond: Any, ref: ScenarioRef, session: Any) -> tuple[list[tuple[str, ...]], int]:
    """The teams an ``over_teams`` condition plays in a scenario: every team its ``random-teams``
    draw could give (``possible_teams``), or, beyond the condition's ``team_limit``, that many
    distinct ones drawn at random (seeded by the scenario's name: the same teams in every run);
    and how many teams are possible."""
    import numpy as np

    mechanism = next(m for m in session.mechanisms if m.kind == "random-teams")
    try:
        teams = mechanism.possible_teams()
    except ValueError as exc:
        raise ExperimentError(f"condition {cond.name!r} on {ref.name}: {exc}") from None
    if len(teams) <= cond.team_limit:
        return teams, len(teams)
    rng = np.random.default_rng(int(fingerprint(ref.name)[:12], 16))
    picked = sorted(int(i) for i in rng.choice(len(teams), size=cond.team_limit, replace=False))
    return [teams[i] for i in picked], len(teams)


def _check_start(task: EpisodeTask) -> Any:
    """Set up the episode (seats and mechanisms reset on the world) without playing it, so a
    mechanism that cannot work in this scenario is one error line before the sweep starts."""
    from sim.session import Session

    try:
        world = _world(task)
        seats, mechanisms = _minds(task)
        return Session(world, seats, seed=task.seed, scenario=task.scenario, mechanisms=mechanisms, max_ticks=0,
                       rounds=task.rounds)
    except (ValueError, TypeError, KeyError) as exc:
        raise ExperimentError(f"condition {task.condition!r} on {task.scenario} ({task.family}): the episode "
                              f"cannot start: {exc}") from None


def check_sources(design: Design, session: Any, task: EpisodeTask) -> None:
    """Every ``outcome.X`` and ``metrics.X`` a metric reads is a field this world's episodes
    have (read from an episode set up but not played), so a misspelt source is one error line
    before the sweep, not after it. ``events.X`` counts are 0 when no such event happened."""
    have = {"outcome": set(session.outcome()), "metrics": {*session.metrics(), "llm_tokens"}}
    for i, m in enumerate(design.metrics):
        section, _, path = (m.source or "").partition(".")
        if section in have and path.split(".")[0] not in have[section]:
            raise ExperimentError(f"metric {m.name!r} (metrics[{i}].source): {m.source!r} is not in the {section} of "
                                  f"{task.scenario} ({task.family}) episodes; expected {section}.X with X one of "
                                  f"{', '.join(sorted(have[section]))}")


def _minds(task: EpisodeTask) -> tuple[dict[str, Any], list[Any]]:
    """The episode's seats and mechanisms (distinct names, as on the command line)."""
    from agents.registry import make_agent, make_mechanism, name_apart

    seats = {a: make_agent(spec, task.family) for a, spec in task.seats}
    mechanisms = [m for m in (make_mechanism(spec, task.family, params) for spec, params in task.mechanisms)
                  if m is not None]
    return seats, name_apart(mechanisms)


# ---------------------------------------------------------------------- checks


# The pre-checks (``run_checks``) and the cache of their results: ``experiments.prechecks``.


# ---------------------------------------------------------------------- one episode

_WORLDS: dict[tuple[str, str], Any] = {}


def _world(task: EpisodeTask) -> Any:
    world = _WORLDS.get((task.path, task.spec_hash))
    if world is None:
        from sim.registry import build_world

        family, spec = load_spec(task.path, None, {"cooks": task.cooks})
        if fingerprint(spec) != task.spec_hash:
            raise ExperimentError(f"{task.path} changed while the experiment ran")
        world = _WORLDS[(task.path, task.spec_hash)] = build_world(family, spec)
    return world


def warm_tasks(tasks: Sequence[EpisodeTask]) -> list[EpisodeTask]:
    """The tasks ``prepare_worker`` sets up from: the first of each scenario file and the first
    of each world and condition."""
    seen: set[tuple[Any, ...]] = set()
    chosen = []
    for t in tasks:
        keys = {("scenario", t.path, t.spec_hash), ("minds", t.family, t.condition)}
        if not keys <= seen:
            seen |= keys
            chosen.append(t)
    return chosen


def prepare_worker(tasks: Sequence[EpisodeTask]) -> None:
    """Set up a worker process that did not fork from the one that planned the sweep (Ray's)
    with what a forked one inherits: the episodes' modules imported (the Session, every seat's
    and mechanism's code) and every scenario's world built (``warm_tasks`` chooses the tasks).
    Nothing here changes an episode: each still resets its world, seats and mechanisms."""
    import sim.session  # noqa: F401

    minds: set[tuple[str, str]] = set()
    for task in tasks:
        _world(task)
        if (task.family, task.condition) not in minds:
            minds.add((task.family, task.condition))
            _minds(task)


def event_counts(events: Sequence[Any]) -> dict[str, int]:
    """How many events of each type, and of each type and status (``feedback_status.accepted``)."""
    counts: Counter[str] = Counter()
    for e in events:
        counts[e.type] += 1
        status = getattr(e, "status", None)
        if isinstance(status, str):
            counts[f"{e.type}.{status}"] += 1
    return dict(sorted(counts.items()))


def run_episode(task: EpisodeTask) -> dict[str, Any]:
    """Play one episode; returns ``{"record": ..., "info": ...}``: the record is what the results
    file keeps (deterministic given the task), the info is about this run (cache use, seconds)."""
    from sim.session import Session

    started = time.perf_counter()
    world = _world(task)
    seats, mechanisms = _minds(task)
    cache = None
    if task.llm_cache:
        from experiments.llm_cache import ResponseCache, install_cache

        cache = ResponseCache(task.llm_cache)
        install_cache([*seats.values(), *mechanisms], cache)
    session = Session(world, seats, seed=task.seed, scenario=task.scenario, mechanisms=mechanisms,
                      max_ticks=task.max_ticks, rounds=task.rounds)
    outcome = session.run()
    record = {"record": "episode", "key": task.key, "scenario": task.scenario, "world": task.family,
              "condition": task.condition, "seed": task.seed, "setup": task.setup(),
              "outcome": outcome, "metrics": session.metrics(), "events": event_counts(session.events)}
    if task.team:
        record.update(team=list(task.team), teams_of=task.teams_of, teams_possible=task.teams_possible)
    summaries = {m.name: m.episode_summary() for m in mechanisms if callable(getattr(m, "episode_summary", None))}
    if summaries:  # mechanisms that report per-episode results (team formation); read by derive hooks
        record["mechanisms"] = summaries
    info = {"seconds": time.perf_counter() - started,
            "llm_cache_hits": cache.hits if cache else 0, "llm_cache_misses": cache.misses if cache else 0}
    return {"record": json.loads(json.dumps(record, default=str)), "info": info}


# ---------------------------------------------------------------------- results file


class ResultsFile:
    """``episodes.jsonl``: a header line, then one line per finished episode, each flushed to
    the disk when written. A line cut by a crash is dropped when the file is opened again."""

    def __init__(self, path: Path, experiment: str) -> None:
        self.path = path
        self.experiment = experiment
        self._fh: Any = None

    def open(self, resume: bool) -> dict[str, dict[str, Any]]:
        """Finished episodes by key (resume), or a fresh file (an existing one is kept aside)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        done: dict[str, dict[str, Any]] = {}
        if self.path.exists() and resume:
            done, good_bytes = self._read()
            with open(self.path, "r+b") as fh:
                fh.truncate(good_bytes)
        elif self.path.exists():
            n = 1
            while self.path.with_name(f"{self.path.name}.{n}").exists():
                n += 1
            backup = self.path.with_name(f"{self.path.name}.{n}")
            os.replace(self.path, backup)
            print(f"note: the previous results were moved to {backup} (--resume continues a sweep instead)",
                  file=sys.stderr)
        new = not self.path.exists() or self.path.stat().st_size == 0
        self._fh = open(self.path, "a", encoding="utf-8")
        if new:
            self._write({"record": "header", "format": FORMAT, "version": VERSION, "experiment": self.experiment})
        return done

    def _read(self) -> tuple[dict[str, dict[str, Any]], int]:
        done: dict[str, dict[str, Any]] = {}
        good = 0
        with open(self.path, "rb") as fh:
            for number, raw in enumerate(fh, 1):
                if not raw.endswith(b"\n"):
                    break  # cut by a crash mid-line: run that episode again
                try:
                    data = json.loads(raw)
                except ValueError:
                    raise ExperimentError(f"{self.path}: line {number} is not JSON; the file was edited or "
                                          "damaged (remove the line, or choose another --out)") from None
                if number == 1:
                    if data.get("format") != FORMAT or data.get("version") != VERSION:
                        raise ExperimentError(f"{self.path}: not an experiment results file of version {VERSION}")
                    if data.get("experiment") != self.experiment:
                        raise ExperimentError(f"{self.path}: holds experiment {data.get('experiment')!r}, not "
                                              f"{self.experiment!r}; choose another --out")
                elif data.get("record") == "episode":
                    done.setdefault(data["key"], data)
                good += len(raw)
        return done, good

    def _write(self, data: Mapping[str, Any]) -> None:
        self._fh.write(dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def append(self, record: Mapping[str, Any]) -> None:
        self._write(record)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def finalize(self, records: Sequence[Mapping[str, Any]]) -> None:
        """Rewrite in plan order (atomically): the same sweep gives the same bytes."""
        self.close()
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for data in [{"record": "header", "format": FORMAT, "version": VERSION, "experiment": self.experiment},
                         *records]:
                fh.write(dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)


# ---------------------------------------------------------------------- metrics


def metric_value(record: Mapping[str, Any], source: str, metric: str) -> float:
    """The value ``source`` (``outcome.success``, ``metrics.ticks``, ``events.feedback``) names."""
    section, _, path = source.partition(".")
    if section == "events":
        return float(record["events"].get(path, 0))
    value: Any = record[section]
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            keys = ", ".join(sorted(value)) if isinstance(value, Mapping) else type(value).__name__
            raise ExperimentError(f"metric {metric!r}: {source!r} is not in the episode's {section} of "
                                  f"{record['key']} (it has: {keys})")
        value = value[part]
    if isinstance(value, bool):
        return float(value)
    if not isinstance(value, (int, float)):
        raise ExperimentError(f"metric {metric!r}: {source!r} of {record['key']} is {value!r}, not a number")
    return float(value)


def compute_metrics(records: list[dict[str, Any]], design: Design) -> list[dict[str, Any]]:
    """Fill ``record["values"]``: source metrics first, then derived ones in design order. Returns
    the records the statistics read: these, with the episodes of each ``over_teams`` condition
    (one per team) made one per scenario and seed (``over_teams_records``)."""
    for r in records:
        r["values"] = {m.name: metric_value(r, m.source, m.name) for m in design.metrics if m.source}
    for m in design.metrics:
        if m.derive:
            derived = resolve_hook(m.derive, "derive").function(records, design, **m.params)
            for r in records:
                if r["key"] not in derived:
                    raise ExperimentError(f"metric {m.name!r}: {m.derive} gave no value for {r['key']}")
                r["values"][m.name] = float(derived[r["key"]])
    return over_teams_records(records, design)


def over_teams_records(records: Sequence[dict[str, Any]], design: Design) -> list[dict[str, Any]]:
    """The records with those of every ``over_teams`` condition replaced, per scenario and seed, by
    one record: ``mean``: each metric's mean over every team played (the exact expectation of the
    random draw, or over ``team_limit`` drawn teams); ``best``: the values of the team whose mean
    over the scenario's seeds is the best on the condition's ``best_by`` metric (the first such
    team in ``possible_teams`` order on a tie). Only complete sets are kept (every team, and for
    ``best`` every seed): a partial sweep leaves the rest out. Each record keeps ``teams`` (how
    many were played) and, for ``best``, ``best_team``."""
    import numpy as np

    over = {c.name: c for c in design.conditions if c.over_teams is not None}
    if not over:
        return list(records)
    by_seed: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for r in records:
        if r["condition"] in over:
            by_seed.setdefault((r["scenario"], r["condition"], r["seed"]), []).append(r)
    complete = {k: v for k, v in by_seed.items() if v and len(v) == v[0]["teams_of"]}
    best_team: dict[tuple[str, str], tuple[str, ...] | None] = {}
    for (scenario, condition, _), _rows in complete.items():
        cond = over[condition]
        if cond.over_teams != "best" or (scenario, condition) in best_team:
            continue
        seeds = [v for k, v in complete.items() if k[0] == scenario and k[1] == condition]
        if len(seeds) != len({k[2] for k in by_seed if k[0] == scenario and k[1] == condition}):
            best_team[(scenario, condition)] = None  # a seed is incomplete
            continue
        metric = next(m for m in design.metrics if m.name == design.best_metric(cond))
        sign = 1.0 if metric.higher_is_better else -1.0
        means: dict[tuple[str, ...], list[float]] = {}
        for rows in seeds:
            for r in rows:
                means.setdefault(tuple(r["team"]), []).append(r["values"][metric.name])
        order = list(means)  # possible_teams order (plan order)
        best_team[(scenario, condition)] = max(order, key=lambda t: (sign * float(np.mean(means[t])), -order.index(t)))
    out: list[dict[str, Any]] = []
    for r in records:
        if r["condition"] not in over:
            out.append(r)
            continue
        k = (r["scenario"], r["condition"], r["seed"])
        found = complete.get(k)
        if found is None or r is not found[0]:
            continue
        rows = found
        merged: dict[str, Any] = {key: r[key] for key in ("scenario", "world", "condition", "seed") if key in r}
        merged.update(record="teams", key=episode_key(*k), teams=len(rows), teams_possible=r["teams_possible"])
        if over[r["condition"]].over_teams == "mean":
            merged["values"] = {m.name: float(np.mean([x["values"][m.name] for x in rows])) for m in design.metrics}
        else:
            team = best_team.get((r["scenario"], r["condition"]))
            if team is None:
                continue
            chosen = next(x for x in rows if tuple(x["team"]) == team)
            merged["values"] = dict(chosen["values"])
            merged["best_team"] = list(team)
        out.append(merged)
    return out


# ---------------------------------------------------------------------- the sweep


@dataclass
class RunResult:
    design: Design
    out: Path
    scenarios: list[ScenarioRef]
    attrs: dict[str, dict[str, Any]]
    records: list[dict[str, Any]]
    ran: int
    resumed: int
    seconds: float
    backend: str
    #: of the episodes run, how many are copies of an identical episode of another condition
    copied: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    analysis: Any = None
    report: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: where the episodes ran, for backends that know (Ray: node id -> episodes)
    episodes_per_node: dict[str, int] = field(default_factory=dict)
    #: the process that imported the statistics' and the report's modules while the episodes ran
    #: (``run_sweep(preload=True)``), which computes them; the caller closes it
    reporter: Any = None


def output_files(design: Design) -> list[str]:
    """The files a sweep and its report write into ``--out``."""
    from experiments.report import REPORT_FILES

    return [RESULTS, RESULTS + ".tmp", *REPORT_FILES, *(f"figure_{m.name}_by_scenario.png" for m in design.metrics)]


def check_outputs(design: Design, out: Path) -> None:
    """Before anything runs: the output folder can be written, no folder stands where one of
    its files goes, and the LLM cache is a folder (an ExperimentError naming the path)."""
    from sim.outputs import file_problem, output_problem

    problem = output_problem(out)
    if problem:
        raise ExperimentError(f"output folder {out}: {problem}; choose another with --out")
    for name in output_files(design):
        problem = file_problem(out / name)
        if problem:
            raise ExperimentError(f"cannot write {out / name}: {problem}")
    cache = cache_folder(design, out)
    if cache is not None:
        problem = output_problem(cache)
        if problem:
            raise ExperimentError(f"LLM cache folder {cache}: {problem}")


def cache_folder(design: Design, out: Path) -> str | None:
    if design.llm_cache is False:
        return None
    return str(Path(design.llm_cache) if isinstance(design.llm_cache, str) else out / "llm-cache")


def run_sweep(design: Design, out: str | Path, *, seeds: int | None = None, jobs: int = 2, resume: bool = False,
              backend: str = "local", address: str | None = None, quiet: bool = False,
              limit: int | None = None, concurrent: int = 1, preload: bool = False) -> RunResult:
    """Run (or finish) the sweep; ``limit`` stops after that many new episodes (for tests).
    ``preload``: where a second core and ``fork`` are there, a process forked before the scenarios
    are read (``experiments.report.ReportProcess``) imports what the statistics and the report need
    while this one checks and plans the sweep and the episodes run, and computes them afterwards
    (``RunResult.reporter``, which the caller closes; a sweep that fails before closes it)."""
    from tqdm import tqdm

    from experiments.backends import make_backend

    out = Path(out)
    if seeds is not None and seeds < 1:
        raise ExperimentError("--seeds must be at least 1")
    check_outputs(design, out)
    reporter = None
    if preload:
        from experiments.report import ReportProcess, figure_processes

        if ReportProcess.available():
            # before any thread of this process starts (it forks), and before the checks and the
            # plan, which leave the second core free
            reporter = ReportProcess(figure_processes(jobs, backend))
    try:
        seed_list = design.seeds.seeds(seeds)
        scenarios = resolve_scenarios(design.scenarios, design.cooks)
        attrs = run_checks(design, scenarios, jobs=jobs if backend == "local" else 1)
        tasks = plan(design, scenarios, seed_list, cache_folder(design, out))
        results = ResultsFile(out / RESULTS, design.experiment)
        done = results.open(resume)
        by_key = {t.key: t for t in tasks}
        for key, record in done.items():
            task = by_key.get(key)
            if task is not None and record.get("setup") != task.setup():
                results.close()
                raise ExperimentError(f"{results.path}: episode {key} was played with another setup (the scenario "
                                      "file, seats, mechanisms or max_ticks changed); choose another --out to start "
                                      "again")
        todo = [t for t in tasks if t.key not in done]
        # Long episodes first (more agents, higher t_max) so that workers finish together.
        todo.sort(key=lambda t: -len(t.seats))
        if limit is not None:
            todo = todo[:limit]
        # Episodes that play the same thing (two conditions' identical team, such as the mean and the
        # best over every team) are played once: the others get a copy under their own key and condition.
        copies: dict[str, list[EpisodeTask]] = {}
        first_of: dict[tuple[Any, ...], EpisodeTask] = {}
        for t in todo:
            same = (t.path, t.spec_hash, t.setup(), t.seed, t.cooks, t.llm_cache)
            if same in first_of:
                copies[first_of[same].key].append(t)
            else:
                first_of[same] = t
                copies[t.key] = []
        todo = list(first_of.values())
        runner = (make_backend(backend, jobs=jobs, address=address, concurrent=concurrent,
                               warm=(prepare_worker, warm_tasks(todo))) if todo else None)
    except BaseException:
        if reporter is not None:
            reporter.close()
        raise
    start = time.perf_counter()
    hits = misses = 0
    bar = tqdm(total=len(tasks), initial=len(done), desc=design.experiment,
               unit="ep", disable=quiet or None, file=sys.stderr, dynamic_ncols=True, smoothing=0.1)
    try:
        if runner is not None:
            for result in runner.run(run_episode, todo):
                record = result["record"]
                for copy in [record, *({**record, "key": t.key, "condition": t.condition}
                                       for t in copies[record["key"]])]:
                    results.append(copy)
                    done[copy["key"]] = copy
                    bar.update(1)
                hits += result["info"]["llm_cache_hits"]
                misses += result["info"]["llm_cache_misses"]
    except BaseException:
        if reporter is not None:
            reporter.close()
        raise
    finally:
        bar.close()
        if runner is not None:
            runner.close()
        results.close()
    seconds = time.perf_counter() - start
    records = [done[t.key] for t in tasks if t.key in done]
    if len(records) == len(tasks):
        results.finalize(records)
    copied = sum(len(c) for c in copies.values())
    ran = len(todo) + copied
    return RunResult(design, out, list(scenarios), attrs, records, ran=ran, resumed=len(tasks) - ran, copied=copied,
                     seconds=seconds, backend=runner.describe() if runner else backend, cache_hits=hits,
                     cache_misses=misses, episodes_per_node=dict(getattr(runner, "episodes_per_node", {})),
                     reporter=reporter)


def design_path(name: str | Path) -> Path:
    path = Path(name)
    if path.suffix != ".json":
        path = SCENARIO_DIR / "experiments" / f"{name}.json"
    return path


def find_design(name: str | Path) -> Path | None:
    """The design file a name or path means, or None (names too long, NUL bytes: None too)."""
    try:
        path = design_path(name)
        return path if path.is_file() else None
    except (OSError, ValueError):
        return None


def known_designs() -> list[str]:
    return sorted(p.stem for p in (SCENARIO_DIR / "experiments").glob("*.json"))


def main(name: str | Path, *, seeds: int | None = None, out: str | Path | None = None, jobs: int = 2,
         resume: bool = False, backend: str = "local", address: str | None = None, quiet: bool = False,
         command: str | None = None, concurrent: int = 1) -> int:
    """The ``experiment`` subcommand: run, analyse, report; 2 on a problem a person can fix."""
    path = find_design(name)
    if path is None:
        print(f"error: no experiment {str(name)!r:.200}; known: {', '.join(known_designs()) or 'none'}", file=sys.stderr)
        return 2
    try:
        design = load_design(path)
        out_dir = Path(out or Path("runs") / design.experiment)
        result = run_sweep(design, out_dir, seeds=seeds, jobs=jobs, resume=resume, backend=backend,
                           address=address, quiet=quiet, concurrent=concurrent, preload=True)
        reporter, result.reporter = result.reporter, None
        try:
            result.records = compute_metrics(result.records, design)
            # the statistics (scipy: 0.7-2 s) and the report, imported while the episodes ran by the
            # report process, or now: a design, a scenario or a pre-check that fails is reported
            # without waiting for them. The figures are drawn on as many processes as the sweep's
            # workers, at least two where there are two cores (``figure_processes``).
            line = command or default_command(name, seeds, out_dir)
            if reporter is not None:
                result.analysis, result.report = reporter.analyse_and_report(result, command=line)
            else:
                from experiments.report import analyse_and_report, figure_processes

                result.analysis, result.report = analyse_and_report(result, command=line,
                                                                    jobs=figure_processes(jobs, backend))
        finally:
            if reporter is not None:
                reporter.close()
    except (ExperimentError, ScenarioError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted; finished episodes are in {out_dir / RESULTS} (--resume continues)", file=sys.stderr)
        return 130
    if not quiet:
        from experiments.stats import summary_markdown

        print(summary_markdown(result.analysis, design.reference))
        cache = (f"; LLM cache: {result.cache_hits} answers from the cache, {result.cache_misses} asked"
                 if result.cache_hits or result.cache_misses else "")
        print(f"\n{result.ran} episodes run, {result.resumed} already done, in {result.seconds:.1f} s "
              f"({result.backend}){cache}; report: {result.report}")
        if result.episodes_per_node:
            print("episodes per node: " + ", ".join(f"{node[:12]} {count}" for node, count
                                                      in sorted(result.episodes_per_node.items())))
    return 0


def default_command(name: str | Path, seeds: int | None, out: Path) -> str:
    from experiments.design import quote_arg

    parts = ["python", "main.py", "experiment", quote_arg(str(name))]
    if seeds is not None:
        parts += ["--seeds", str(seeds)]
    parts += ["--out", quote_arg(str(out))]
    return " ".join(parts)
