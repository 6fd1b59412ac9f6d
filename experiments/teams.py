"""What the team-formation experiments add to the generic runner (seeds 000 and 001): the
scenario pre-check and the metrics of the final team, read from each episode's world outcome
and from the team mechanism's ``episode_summary`` (the record's ``mechanisms`` section).

Named in ``scenarios/experiments/teams-dkg.json``::

    "checks": [{"hook": "experiments.teams:check_team_scenario"}],
    "metrics": [{"name": "score", "derive": "experiments.teams:team_score"},
                {"name": "bas", "derive": "experiments.teams:team_value", "params": {"field": "bas_episode"}}]

The task score of an episode is the world's team score (its plug-in's ``methods["teams"]``, an
``agents.teams.tom.TeamPlay``) of the final team. In Doors, Keys and Gems it is the mean over the
members of the final team of ``1 - goal_tick / t_max`` for a member holding its gem at the end
(the share of the scenario's time limit left when it got it), 0 for one without it: 1 would be
every member holding its gem from the start. Kitchen teams are scored the same way by their
dishes' delivery ticks, household teams by the share of the budget left when their shared task
was done (``final_team_score``).
The clock is the time limit, not the episode's length: an episode ends early only when every
agent holds its gem, which happens only when no agent was left idle, so dividing by the length
would score the same gem times lower in exactly those episodes.
Idle agents do not count; a human seat in the team counts like any other member.

**Equal team sizes.** A comparison of team mechanisms is fair only between teams of one size
(seed 000 compares belief-aligned formation with "random team formation of the same size"):
every derived metric first checks that, in every scenario, each condition's mechanism forms
teams of one fixed size (its summary's ``sizes``: ``teams:max_size=eta`` or ``min_size`` =
``max_size``; ``random-teams`` draws ``size``, by default ceil(n/2)) and that the size is the same
in every condition, and refuses the design otherwise, naming scenario, conditions and sizes.
``"params": {"equal_sizes": false}`` on a metric turns the check off for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from experiments.design import Design, ExperimentError, check_hook, derive_hook


def _team_play(where: str, family: str) -> Any:
    from agents.teams.tom import team_play

    try:
        return team_play(family)
    except ValueError as exc:
        raise ExperimentError(f"{where}: {exc}") from None


@check_hook
def check_team_scenario(path: str, world: Any, spec: Mapping[str, Any], min_agents: int = 5,
                        max_agents: int = 8) -> dict[str, Any]:
    """Pre-check hook: a team scenario of ``min_agents``..``max_agents`` agents in a world whose
    team play says who is locked in (Doors, Keys and Gems: who cannot get its gem alone); reports
    how many agents and how many of them are locked in at the start."""
    play = _team_play(path, world.family)
    if play.locked_in is None:
        raise ExperimentError(f"{path}: the team scenarios check needs to know who is locked in, which "
                              f"{world.family} worlds do not declare (methods['teams'].locked_in)")
    n = len(world.agents)
    if not min_agents <= n <= max_agents:
        raise ExperimentError(f"{path}: {n} agents; a team scenario has {min_agents} to {max_agents}")
    return {"agents": n, "locked_in": len(play.locked_in(world, world.reset(0)))}


def _summary(record: Mapping[str, Any]) -> Mapping[str, Any]:
    found = [s for s in (record.get("mechanisms") or {}).values() if isinstance(s, Mapping) and "team" in s]
    if len(found) != 1:
        raise ExperimentError(f"{record['key']}: expected one team mechanism's summary in the episode record, "
                              f"found {len(found)} (give each condition one 'teams' or 'random-teams' mechanism)")
    return found[0]


def check_equal_sizes(episodes: Sequence[Mapping[str, Any]]) -> None:
    """ExperimentError unless, per scenario, every condition forms teams of one and the same size
    (the sizes its mechanism allows) and every episode's final team has that size (Algorithm 1
    starts from the team of every agent, so a monitor that never re-forms ends with all of them)."""
    sizes: dict[str, dict[str, set[tuple[int, int]]]] = {}
    finals: dict[str, dict[str, dict[int, int]]] = {}
    for e in episodes:
        summary = _summary(e)
        allowed = summary.get("sizes")
        if not (isinstance(allowed, list) and len(allowed) == 2 and all(isinstance(x, int) for x in allowed)):
            raise ExperimentError(f"{e['key']}: the team summary has no 'sizes' [smallest, largest] "
                                  f"(recorded by an older version? run the episodes again)")
        sizes.setdefault(e["scenario"], {}).setdefault(e["condition"], set()).add(tuple(allowed))
        final = summary.get("team_size", len(summary.get("team") or ()))
        counts = finals.setdefault(e["scenario"], {}).setdefault(e["condition"], {})
        counts[final] = counts.get(final, 0) + 1
    for scenario, by_condition in sorted(sizes.items()):
        found = {c: sorted(v) for c, v in by_condition.items()}
        fixed = all(len(v) == 1 and v[0][0] == v[0][1] for v in found.values())
        if not fixed or len({v[0] for v in found.values()}) > 1:
            shown = ", ".join(f"{c}: " + " or ".join(f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in v)
                              for c, v in sorted(found.items()))
            raise ExperimentError(
                f"team sizes differ between conditions in {scenario} ({shown}): a fair comparison forms teams of "
                f"one size in every condition (teams:max_size=eta against random-teams' default ceil(n/2), or "
                f"the same min_size=max_size / size=k); set \"params\": {{\"equal_sizes\": false}} on the metric "
                f"to compare anyway")
    for scenario, final_by_condition in sorted(finals.items()):
        if len({size for counts in final_by_condition.values() for size in counts}) > 1:
            shown = ", ".join(f"{c}: " + " or ".join(f"{size} ({n} episode{'s' if n != 1 else ''})"
                                                   for size, n in sorted(counts.items()))
                              for c, counts in sorted(final_by_condition.items()))
            raise ExperimentError(
                f"final team sizes differ in {scenario} ({shown}): a fair comparison ends every episode of every "
                f"condition with teams of one size (Algorithm 1 keeps the team of every agent when it never "
                f"re-forms: form the first team after a warm-up round, teams:warmup=1, and give random-teams the "
                f"same warm-up); set \"params\": {{\"equal_sizes\": false}} on the metric to compare anyway")


def final_team_sizes(episodes: Sequence[Mapping[str, Any]]) -> dict[str, dict[int, int]]:
    """Per condition, how many episodes ended with a final team of each size (for reports)."""
    out: dict[str, dict[int, int]] = {}
    for e in episodes:
        summary = _summary(e)
        final = summary.get("team_size", len(summary.get("team") or ()))
        counts = out.setdefault(e["condition"], {})
        counts[final] = counts.get(final, 0) + 1
    return out


def final_team_score(world: str, outcome: Mapping[str, Any], team: Sequence[str], timed: bool = True) -> float:
    """The task score of ``team`` from an episode's outcome in a ``world`` family: the score its
    plug-in declares (``methods["teams"].score``): the share of the time limit left when the task
    was done, 0 when it was not (``timed=False``: 1 when done). An ExperimentError names what is
    missing."""
    play = _team_play("the team score", world)
    try:
        return play.score(outcome, team, timed)
    except ValueError as exc:
        raise ExperimentError(str(exc)) from None


@derive_hook()
def team_score(episodes: Sequence[Mapping[str, Any]], design: Design, timed: bool = True,
               equal_sizes: bool = True) -> dict[str, float]:
    """Derived metric: the final team's task score of each episode."""
    if equal_sizes:
        check_equal_sizes(episodes)
    return {e["key"]: round(final_team_score(e["world"], e["outcome"], _summary(e)["team"], timed), 9)
            for e in episodes}


@derive_hook()
def team_value(episodes: Sequence[Mapping[str, Any]], design: Design, field: str = "bas_episode",
               equal_sizes: bool = True) -> dict[str, float]:
    """Derived metric: a number of the team mechanism's summary (``bas``, ``bas_episode``,
    ``welfare``, ``ftm``, ``teams_formed``, ``average_lifetime``, ``team_size``, ``scored``,
    ``unscored``)."""
    if equal_sizes:
        check_equal_sizes(episodes)
    out = {}
    for e in episodes:
        summary = _summary(e)
        value = summary.get(field)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ExperimentError(f"metric from the team summary: {field!r} of {e['key']} is {value!r}, not a number "
                                  f"(the summary has: {', '.join(sorted(summary))})")
        out[e["key"]] = float(value)
    return out


def vault_score_of(outcome: Mapping[str, Any], team: Sequence[str], timed: bool = True) -> float:
    """The joint task's score of ``team`` from a Doors, Keys and Gems outcome with plate doors:
    over the vaults that hold a member's gem, the mean of ``1 - opened / t_max`` (0 for a vault
    not opened; ``timed=False``: 1 when opened). Each vault opens only with two agents on its two
    plates at once, so this is what the team produces together."""
    vaults = outcome.get("vaults")
    if not isinstance(vaults, Mapping) or not vaults:
        raise ExperimentError(f"the joint score reads the outcome's 'vaults' (halls with plate doors, "
                              f"generators/make_joint.py); this outcome has: {', '.join(sorted(outcome)) or 'nothing'}")
    t_max = outcome.get("t_max")
    if not isinstance(t_max, int) or t_max < 1:
        raise ExperimentError(f"the joint score needs the outcome's t_max, got {t_max!r}")
    members = set(team)
    mine = [v for v in vaults.values() if members & set(v.get("for") or ())]
    if not mine:
        raise ExperimentError(f"no vault holds a gem of the team {sorted(members)}")
    values = [0.0 if v.get("opened") is None else (1.0 - v["opened"] / t_max if timed else 1.0) for v in mine]
    return sum(values) / len(values)


@derive_hook()
def vault_score(episodes: Sequence[Mapping[str, Any]], design: Design, timed: bool = True,
                equal_sizes: bool = True) -> dict[str, float]:
    """Derived metric: the joint task's score of the final team (``vault_score_of``)."""
    if equal_sizes:
        check_equal_sizes(episodes)
    return {e["key"]: round(vault_score_of(e["outcome"], _summary(e)["team"], timed), 9) for e in episodes}
