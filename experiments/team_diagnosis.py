"""``python main.py teams diagnose SCENARIO...``: does belief alignment tell good teams from bad
ones in a scenario?

Belief-aligned formation (seed 000, Eq. 5) can only beat random formation on a task where the
teams it prefers, those whose members predict each other well, are the teams that do the task
better. This tool measures that directly, per team scenario of Doors, Keys and Gems, the kitchen
or the household (seats: the world's k-level ToM agents unless named):

1. one episode with every agent in the team (``teams:theta=1``, which never re-forms): phi(i, j)
   over every prediction of the episode, as the agents' earlier rounds together would give it;
2. every team of the formed size (ceil(n/2) by default) plays the scenario from the start, the
   others standing aside (``FixedTeamMechanism``), and gets its task score
   (``experiments.teams.final_team_score``: the clock is the scenario's time limit);
3. the report: the mean score over all teams (what a random team of that size scores on
   average), the score and rank of the team Eq. 5 chooses from the phi of step 1 (with the eps
   filter and stability, as ``teams:max_size=eta`` does), the best team's score, and Spearman's
   rank correlation between each team's welfare W(T) and its score.

It also gives the BAS of each team's own episode (its members' predictions of each other) for Eq.
5's team and the mean team. Over several scenarios it adds, for the score and for BAS, Eq. 5's
team minus the mean team with a bootstrap interval over scenarios, how many scenarios are above
and below, a Wilcoxon signed-rank p and the Benjamini-Hochberg p over the two (n counts
scenarios). The k-level ToM agents are deterministic, so one episode per team is the team's
score; for agents that draw (``noise``), ``--seeds N`` averages N episodes per team, and phi over
N episodes with every agent teamed.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

#: teams played per scenario at most (C(12, 6) = 924 fits)
MAX_TEAMS = 1000


@dataclass(frozen=True)
class TeamRow:
    """One team of a scenario, as the diagnosis played it."""

    members: tuple[str, ...]
    welfare: float  # W(T) from the phi of the episode with every agent teamed (the eps filter aside)
    score: float  # the team's task score, playing alone from the start
    bas: float  # BAS of that episode (its members' predictions of each other)
    chosen: bool  # Eq. 5's team


@dataclass(frozen=True)
class Diagnosis:
    scenario: str
    agents: int
    size: int
    teams: int
    mean_score: float  # over every team of the size: a random team's expected score
    chosen: tuple[str, ...]  # Eq. 5's team
    chosen_score: float
    chosen_rank: int  # 1 = best; ties share the better rank
    best_score: float
    rho: float | None  # Spearman's rank correlation of W(T) and the team's score (None: a constant)
    mean_bas: float  # BAS of the team's own episode (its members' predictions of each other), over every team
    chosen_bas: float  # the same for Eq. 5's team
    seeds: int = 1  # episodes averaged per team, and for phi (seeds seed .. seed + seeds - 1)
    rows: tuple[TeamRow, ...] = ()  # every team played (not in the per-scenario CSV: see --teams-csv)


#: the per-scenario CSV's columns
COLUMNS = tuple(f.name for f in fields(Diagnosis) if f.name != "rows")


def team_size(name: str, agents: int, size: int | None) -> int:
    """The size of the teams played: ``size``, or ceil(n/2); an ExperimentError when out of range."""
    from agents.teams.formation import default_eta
    from experiments.design import ExperimentError

    k = default_eta(agents) if size is None else size
    if not 1 <= k <= agents:
        raise ExperimentError(f"{name}: team size {k} is not between 1 and the {agents} agents")
    return k


def _session(world: Any, agents: Sequence[str], seed: int, mechanism: Any) -> dict[str, Any]:
    from agents.registry import make_agent, seat_specs
    from sim.session import Session

    specs = seat_specs(world.agents, agents)
    seats = {a: make_agent(specs[a], world.family) for a in world.agents}
    return Session(world, seats, seed=seed, mechanisms=[mechanism]).run()


def default_agents(name: str, world: Any) -> list[str]:
    """The default seats of ``world``'s team tasks (its plug-in's ``methods["teams"].agent``); an
    ExperimentError naming the world when it declares none."""
    from agents.methods import families_with
    from agents.teams.tom import team_play
    from experiments.design import ExperimentError

    try:
        return [team_play(world.family).agent]
    except ValueError:
        raise ExperimentError(f"{name}: no k-level ToM team agents are known for {world.family} worlds; name the "
                              f"seats with --agents (team worlds: {', '.join(families_with('teams'))})") from None


def diagnose(name: str, world: Any, *, agents: Sequence[str] | None = None, embedding: str = "steps",
             eps: float = 0.2, size: int | None = None, round_steps: int = 6, seed: int = 0, seeds: int = 1,
             progress: Callable[[int], None] | None = None) -> Diagnosis:
    """The diagnosis of one team scenario (see the module docstring); ``agents``: the seats'
    specs, by default the world's k-level ToM agents (``methods["teams"]`` of its plug-in). With ``seeds`` > 1
    (agents that draw, such as ``noise``), phi is the mean over that many episodes with every
    agent teamed, and each team's score and BAS the mean over as many episodes of it."""
    import numpy as np  # here, not at the top: ``main.py`` imports this module for its parser
    from scipy.stats import spearmanr

    from agents.teams.formation import TeamProblem, welfare
    from agents.teams.mechanism import FixedTeamMechanism, TeamFormationMechanism
    from agents.teams.solver import solve
    from experiments.design import ExperimentError
    from experiments.teams import final_team_score

    agents = list(agents) if agents else default_agents(name, world)
    n = len(world.agents)
    k = team_size(name, n, size)
    count = math.comb(n, k)
    if count > MAX_TEAMS:
        raise ExperimentError(f"{name}: {count} teams of {k} among {n} agents; the diagnosis plays at most "
                              f"{MAX_TEAMS} (choose --size)")
    if seeds < 1:
        raise ExperimentError(f"{name}: seeds must be at least 1, got {seeds}")
    runs = range(seed, seed + seeds)
    matrices = []
    for s in runs:
        watch = TeamFormationMechanism(theta=1.0, round_steps=round_steps, embedding=embedding, eps=eps)
        _session(world, agents, s, watch)
        matrices.append(watch.tracker.episode_matrix())
    stacked = np.stack(matrices)
    known = ~np.isnan(stacked)
    phi = np.where(known.any(axis=0), np.nansum(stacked, axis=0) / np.maximum(known.sum(axis=0), 1), 0.0)
    chosen_idx = tuple(sorted(solve(TeamProblem(phi, None, 1.0, eps, k, k), seed=seed).team))
    unfiltered = TeamProblem(phi, None, 1.0, None, k, k)  # W(T) of every team, the eps filter aside
    scores: dict[tuple[int, ...], float] = {}
    welfares: dict[tuple[int, ...], float] = {}
    bases: dict[tuple[int, ...], float] = {}
    for team in itertools.combinations(range(n), k):
        members = [world.agents[i] for i in team]
        played, aligned = [], []
        for s in runs:
            fixed = FixedTeamMechanism(members=members, round_steps=round_steps, embedding=embedding, eps=eps)
            played.append(final_team_score(world.family, _session(world, agents, s, fixed), members))
            aligned.append(fixed.episode_summary()["bas_episode"] or 0.0)
        scores[team] = float(np.mean(played))
        bases[team] = float(np.mean(aligned))
        welfares[team] = welfare(unfiltered, list(team))
        if progress:
            progress(1)
    values = np.array(list(scores.values()))
    chosen_score = scores[chosen_idx]
    w = np.array([welfares[t] for t in scores])
    rho = None
    if np.ptp(values) > 0 and np.ptp(w) > 0:
        rho = float(spearmanr(w, values).statistic)
    return Diagnosis(scenario=name, agents=n, size=k, teams=count, mean_score=float(values.mean()),
                     chosen=tuple(world.agents[i] for i in chosen_idx), chosen_score=chosen_score,
                     chosen_rank=1 + int(np.sum(values > chosen_score + 1e-12)), best_score=float(values.max()),
                     rho=rho, mean_bas=float(np.mean(list(bases.values()))), chosen_bas=bases[chosen_idx], seeds=seeds,
                     rows=tuple(TeamRow(tuple(world.agents[i] for i in t), welfares[t], scores[t], bases[t],
                                        t == chosen_idx) for t in scores))


def summary(results: Sequence[Diagnosis], resamples: int = 2000, confidence: float = 0.95) -> dict[str, Any]:
    """Over scenarios (n counts scenarios), for the task score and for BAS: Eq. 5's team minus the
    mean team, with a percentile bootstrap interval over scenarios (seed 0), the Wilcoxon
    signed-rank p and the Benjamini-Hochberg p over these two tests; the mean rho; and Eq. 5's
    share of the available gain on the task score, (chosen - mean team) / (best - mean team): the
    exact expectation over every team (a random team's) is the floor, the best team found by
    playing them all the ceiling; pooled as the ratio of the mean gains over scenarios with
    Fieller's interval (``sim.analysis.stats.ratio_ci``), with the scenarios where every team
    scores the same (no gain available) counted."""
    import numpy as np

    from sim.analysis.stats import benjamini_hochberg, bootstrap_ci, ratio_ci, wilcoxon_signed_rank

    out: dict[str, Any] = {"scenarios": len(results)}
    ps = []
    for key, first, second in (("score", "chosen_score", "mean_score"), ("bas", "chosen_bas", "mean_bas")):
        a = [getattr(r, first) for r in results]
        b = [getattr(r, second) for r in results]
        diff = np.asarray(a) - np.asarray(b)
        p = wilcoxon_signed_rank(a, b).p if len(results) >= 2 else float("nan")
        low, high = bootstrap_ci(diff, resamples=resamples, confidence=confidence, seed=0) if len(results) >= 2 \
            else (float("nan"), float("nan"))
        out[key] = {"difference": float(diff.mean()) if len(diff) else float("nan"), "ci": (low, high), "p": p,
                    "above": int(np.sum(diff > 1e-12)), "below": int(np.sum(diff < -1e-12))}
        ps.append(p)
    if all(p == p for p in ps):
        for key, adjusted in zip(("score", "bas"), benjamini_hochberg(ps)):
            out[key]["p_adj"] = adjusted
    gain = [r.chosen_score - r.mean_score for r in results]
    available = [r.best_score - r.mean_score for r in results]
    est, low, high, kind = ratio_ci(gain, available, confidence=confidence) if any(a > 1e-12 for a in available) \
        else (float("nan"), float("nan"), float("nan"), "undefined")
    out["share"] = {"share": est, "ci": (low, high), "interval": kind, "gain": float(np.mean(gain)) if gain else 0.0,
                    "available": float(np.mean(available)) if available else 0.0,
                    "no_gain": sum(1 for a in available if a <= 1e-12),
                    "per_scenario": {r.scenario: (None if a <= 1e-12 else g / a)
                                     for r, g, a in zip(results, gain, available)}}
    rhos = [r.rho for r in results if r.rho is not None]
    out["mean_rho"] = float(np.mean(rhos)) if rhos else None
    out["positive_rho"] = sum(r > 0 for r in rhos)
    return out


def plot(results: Sequence[Diagnosis], path: Path) -> None:
    """One panel per scenario: each team's welfare W(T) against its task score, the mean team's
    score as a dashed line and Eq. 5's team as a red star; written as a PNG."""
    from matplotlib.figure import Figure  # no pyplot: no backend to switch

    n = len(results)
    cols = min(n, 6)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(2.6 * cols, 2.3 * rows + 0.4), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax, r in zip(axes.flat, results):
        w = [t.welfare for t in r.rows]
        y = [t.score for t in r.rows]
        ax.scatter(w, y, s=10, color="#4c72b0", alpha=0.7, linewidths=0)
        ax.axhline(r.mean_score, color="grey", linestyle="--", linewidth=0.8)
        for t in r.rows:
            if t.chosen:
                ax.scatter([t.welfare], [t.score], marker="*", s=90, color="#c44e52", zorder=3)
        ax.set_title(f"{r.scenario}\nrho {_signed(r.rho)}", fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in axes[-1]:
        ax.set_xlabel("W(T)", fontsize=7)
    for ax in axes[:, 0]:
        ax.set_ylabel("task score", fontsize=7)
    fig.suptitle("Every team: welfare W(T) against task score\n(star: Eq. 5's team; dashed: the mean team)",
                 fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def _signed(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def add_parser(sub: Any) -> None:
    teams = sub.add_parser("teams", help="team formation tools: does alignment tell good teams from bad ones?",
                           description="Team-formation tools (docs/teams.md).")
    tsub = teams.add_subparsers(dest="teams_command", metavar="SUBCOMMAND", required=True)
    d = tsub.add_parser("diagnose", help="play every team of a size and compare Eq. 5's choice with the mean team",
                        description="Does belief alignment tell good teams from bad ones here? One episode with "
                                    "every agent teamed measures phi; then every team of the size plays the scenario "
                                    "from the start while the others stand aside. Reported per scenario: the mean "
                                    "team's task score (a random team's expectation), the score and rank of the team "
                                    "Eq. 5 chooses from that phi, the best score, and the rank correlation of each "
                                    "team's welfare W(T) with its score; over scenarios, Eq. 5's team minus the mean "
                                    "team with a Wilcoxon p (n counts scenarios). See docs/teams.md.")
    d.add_argument("scenarios", nargs="+", metavar="SCENARIO",
                   help="team scenarios of Doors, Keys and Gems, the kitchen or the household: names "
                        "(team-01-six, kitchen-team-01-six) or files")
    d.add_argument("--agents", nargs="+", default=None, metavar="SPEC",
                   help="the seats, as for the run command; default: the world's k-level ToM agents for every "
                        "seat (tom-planner:k=cycle,horizon=3, tom-cook:k=cycle, tom-helper:k=cycle)")
    d.add_argument("--embedding", choices=("steps", "net", "features"), default="steps",
                   help="how predictions are scored into phi (default steps)")
    d.add_argument("--eps", type=float, default=0.2, help="alignment tolerance of Eq. 5 (default 0.2)")
    d.add_argument("--size", type=int, default=None, help="team size (default ceil(n/2))")
    d.add_argument("--seed", type=int, default=0, help="episode seed (default 0)")
    d.add_argument("--seeds", type=int, default=1, metavar="N",
                   help="episodes averaged per team and for phi, seeds S .. S+N-1 (default 1: the k-level ToM "
                        "agents are deterministic; more for agents that draw, such as noise)")
    d.add_argument("--csv", type=Path, default=None, metavar="FILE", help="also write one row per scenario")
    d.add_argument("--teams-csv", type=Path, default=None, metavar="FILE",
                   help="also write one row per team played (welfare, score, BAS)")
    d.add_argument("--plot", type=Path, default=None, metavar="PNG",
                   help="also draw welfare against task score for every team, one panel per scenario")
    d.add_argument("--quiet", action="store_true", help="no progress bar")
    d.set_defaults(func=cmd_diagnose)


def cmd_diagnose(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from agents.registry import AgentSpecError
    from experiments.design import ExperimentError
    from sim.inputs import InputError
    from sim.redact import DictWriter
    from sim.registry import build_world, find_scenario, load_spec, scenario_stem

    if not -1.0 <= args.eps <= 1.0:
        print(f"error: --eps must be in [-1, 1], got {args.eps}", file=sys.stderr)
        return 2
    results = []
    handles = []

    def table(path: Path | None, columns: Sequence[str]) -> Any:
        """A CSV writer on ``path`` (None without one); rows are flushed as scenarios finish, so a
        long run keeps what it did."""
        if path is None:
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = path.open("w", newline="")
        except OSError as exc:
            raise ExperimentError(f"cannot write {path}: {exc}") from exc
        handles.append(handle)
        writer = DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        return writer

    try:
        worlds = []
        for item in args.scenarios:
            path = find_scenario(item)
            family, spec = load_spec(path)
            worlds.append((spec.get("name") or scenario_stem(path), build_world(family, spec)))
        per_scenario = table(args.csv, COLUMNS)
        per_team = table(args.teams_csv, ("scenario", *(f.name for f in fields(TeamRow))))
        print("| scenario | agents | teams of | teams | mean team | Eq. 5's team | its score | rank | best | "
              "rho(W, score) | BAS: mean team | BAS: Eq. 5's team |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
        for name, world in worlds:
            n = len(world.agents)
            k = team_size(name, n, args.size)
            with tqdm(total=math.comb(n, k), desc=name, unit="team", disable=args.quiet, file=sys.stderr) as bar:
                r = diagnose(name, world, agents=args.agents, embedding=args.embedding, eps=args.eps,
                             size=args.size, seed=args.seed, seeds=args.seeds, progress=bar.update)
            results.append(r)
            if per_scenario is not None:
                per_scenario.writerow({c: getattr(r, c) for c in COLUMNS} | {"chosen": " ".join(r.chosen)})
            if per_team is not None:
                for t in r.rows:
                    per_team.writerow({**vars(t), "scenario": r.scenario, "members": " ".join(t.members)})
            for handle in handles:
                handle.flush()
            print(f"| {r.scenario} | {r.agents} | {r.size} | {r.teams} | {r.mean_score:.3f} | {', '.join(r.chosen)} | "
                  f"{r.chosen_score:.3f} | {r.chosen_rank}/{r.teams} | {r.best_score:.3f} | {_signed(r.rho)} | "
                  f"{r.mean_bas:.3f} | {r.chosen_bas:.3f} |",
                  flush=True)
        if args.plot is not None and results:
            try:
                plot(results, args.plot)
            except OSError as exc:
                raise ExperimentError(f"cannot write {args.plot}: {exc}") from exc
            print(f"figure: {args.plot}")
    except (ExperimentError, AgentSpecError, InputError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        for handle in handles:
            handle.close()
    s = summary(results)
    if len(results) > 1:
        print(f"\nn = {s['scenarios']} scenarios (one value per scenario); Eq. 5's team minus the mean team:")
        for key, label in (("score", "task score"), ("bas", "BAS")):
            d = s[key]
            adjusted = f", p_adj {d['p_adj']:.3g} (Benjamini-Hochberg over these 2)" if "p_adj" in d else ""
            print(f"  {label}: {d['difference']:+.4f} (95% CI {d['ci'][0]:+.4f} to {d['ci'][1]:+.4f}), above in "
                  f"{d['above']}, below in {d['below']}; Wilcoxon signed-rank p {d['p']:.3g}{adjusted}")
        print(f"  rho(W, score): mean {_signed(s['mean_rho'])}, positive in {s['positive_rho']}")
    if results:
        sh = s["share"]
        bounds = {"bounded": f"95% CI {_signed(sh['ci'][0])} to {_signed(sh['ci'][1])}, Fieller",
                  "exact": "one scenario" if len(results) == 1 else "every scenario the same ratio",
                  "unbounded": "95% CI unbounded: the gain available is not clear of 0",
                  "undefined": "undefined: every team scores the same"}[sh["interval"]]
        if len(results) == 1 and sh["interval"] != "undefined":
            bounds = "one scenario, no interval"
        print(f"  share of the available gain (Eq. 5's team - mean team) / (best team - mean team): "
              f"{sh['share']:.3f} ({bounds}); mean gain {sh['gain']:+.4f} of {sh['available']:+.4f} available; "
              f"{sh['no_gain']} scenario(s) without a gain (all teams equal; counted in both means)")
    return 0
