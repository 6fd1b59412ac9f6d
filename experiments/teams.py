"""What the team-formation experiments add to the generic runner (seeds 000 and 001): the
scenario pre-check and the metrics of the final team, read from each episode's world outcome
and from the team mechanism's ``episode_summary`` (the record's ``mechanisms`` section).

Named in ``scenarios/experiments/teams-dkg.json``::

    "checks": [{"hook": "experiments.teams:check_team_scenario"}],
    "metrics": [{"name": "score", "derive": "experiments.teams:team_score"},
                {"name": "bas", "derive": "experiments.teams:team_value", "params": {"field": "bas_episode"}}]

The task score of an episode is the mean over the members of the final team of
``1 - goal_tick / t_max`` for a member holding its gem at the end (the share of the scenario's
time limit left when it got it), 0 for one without it: 1 would be every member holding its gem
from the start. Kitchen teams are scored the same way by their dishes' delivery ticks, household
teams by the share of the budget left when their shared task was done (``final_team_score``).
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


@check_hook
def check_team_scenario(path: str, world: Any, spec: Mapping[str, Any], min_agents: int = 5,
                        max_agents: int = 8) -> dict[str, Any]:
    """Pre-check hook: a Doors, Keys and Gems team scenario of ``min_agents``..``max_agents``
    agents; reports how many agents and how many of them cannot get their gem alone at the start."""
    if world.family != "dkg":
        raise ExperimentError(f"{path}: the team scenarios check is for Doors, Keys and Gems, not {world.family}")
    n = len(world.agents)
    if not min_agents <= n <= max_agents:
        raise ExperimentError(f"{path}: {n} agents; a team scenario has {min_agents} to {max_agents}")
    from agents.teams.tom_dkg import DKGTeamPolicies

    policies = DKGTeamPolicies(world)
    start = world.reset(0)
    locked = [a for i, a in enumerate(world.agents) if policies.stuck(start, i)]
    return {"agents": n, "locked_in": len(locked)}


def _summary(record: Mapping[str, Any]) -> Mapping[str, Any]:
    found = [s for s in (record.get("mechanisms") or {}).values() if isinstance(s, Mapping) and "team" in s]
    if len(found) != 1:
        raise ExperimentError(f"{record['key']}: expected one team mechanism's summary in the episode record, "
                              f"found {len(found)} (give each condition one 'teams' or 'random-teams' mechanism)")
    return found[0]


def check_equal_sizes(episodes: Sequence[Mapping[str, Any]]) -> None:
    """ExperimentError unless, per scenario, every condition forms teams of one and the same size."""
    sizes: dict[str, dict[str, set[tuple[int, int]]]] = {}
    for e in episodes:
        summary = _summary(e)
        allowed = summary.get("sizes")
        if not (isinstance(allowed, list) and len(allowed) == 2 and all(isinstance(x, int) for x in allowed)):
            raise ExperimentError(f"{e['key']}: the team summary has no 'sizes' [smallest, largest] "
                                  f"(recorded by an older version? run the episodes again)")
        sizes.setdefault(e["scenario"], {}).setdefault(e["condition"], set()).add(tuple(allowed))
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


def final_team_score(outcome: Mapping[str, Any], team: Sequence[str], timed: bool = True) -> float:
    """The task score of ``team`` from an episode's world outcome: the share of the time limit
    left when the task was done, 0 when it was not (``timed=False``: 1 when done).

    - Doors, Keys and Gems (``holding_goal``, ``goal_tick``, ``t_max``) and the kitchen
      (``delivered``, ``t_max``): each member has its own task (its gem, its dish); the score is
      the mean over the members of ``1 - tick / t_max`` for a member done at the end.
    - The household (``reached``, ``total``, ``steps_to_finish``, ``budget``): the team shares
      one task; the score is ``1 - steps_to_finish / budget`` when it was finished.
    """
    if not team:
        return 0.0
    if "holding_goal" in outcome:
        done, when, t_max = outcome.get("holding_goal"), outcome.get("goal_tick"), outcome.get("t_max")
    elif "delivered" in outcome:
        when, t_max = outcome.get("delivered"), outcome.get("t_max")
        done = {a: tick is not None for a, tick in when.items()} if isinstance(when, Mapping) else None
    elif "steps_to_finish" in outcome:
        budget, reached, total = outcome.get("budget"), outcome.get("reached"), outcome.get("total")
        if not budget or not isinstance(reached, int) or not isinstance(total, int):
            raise ExperimentError("the team score of a household outcome needs 'reached', 'total' and 'budget'")
        if reached < total:
            return 0.0
        return 1.0 - float(outcome["steps_to_finish"]) / float(budget) if timed else 1.0
    else:
        raise ExperimentError(f"the team score reads a Doors, Keys and Gems outcome (holding_goal, goal_tick, t_max), "
                              f"a kitchen one (delivered, t_max) or a household one (reached, total, "
                              f"steps_to_finish, budget); this one has: {', '.join(sorted(outcome)) or 'no fields'}")
    if not isinstance(done, Mapping) or not isinstance(when, Mapping) or not t_max:
        raise ExperimentError("the team score needs each member's finishing tick and the scenario's 't_max' "
                              "(recorded by an older version without 't_max'? run the episodes again)")
    values = []
    for agent in team:
        if not done.get(agent):
            values.append(0.0)
        else:
            values.append(1.0 - float(when[agent]) / float(t_max) if timed else 1.0)
    return sum(values) / len(values)


@derive_hook()
def team_score(episodes: Sequence[Mapping[str, Any]], design: Design, timed: bool = True,
               equal_sizes: bool = True) -> dict[str, float]:
    """Derived metric: the final team's task score of each episode."""
    if equal_sizes:
        check_equal_sizes(episodes)
    return {e["key"]: round(final_team_score(e["outcome"], _summary(e)["team"], timed), 9) for e in episodes}


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
