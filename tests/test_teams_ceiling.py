"""The team designs' floor and ceiling computed by the runner: a condition ``over_teams`` plays
every team its ``random-teams`` draw could give; ``mean`` is the exact expectation of the draw,
``best`` the best team by exhaustive search. Known answers on a hall of 5 agents (10 teams of 3),
the random draw's episode among them, identical episodes played once, and the design's errors."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from agents.registry import AgentSpecError, make_mechanism
from experiments.design import Design, load_design
from experiments.runner import RESULTS, SCENARIO_DIR, compute_metrics, run_sweep
from experiments.stats import analyse, share_markdown
from sim.registry import build_world, load_spec

HALL = "dkg/team-09-five"
HALL_FILE = next(SCENARIO_DIR.glob("dkg/**/team-09-five.json"))
SPEC = "random-teams:round_steps=6,embedding=steps"


def _design(**extra) -> dict:
    data = {"experiment": "teams-ceiling", "scenarios": [HALL], "seeds": {"count": 1, "first": 0},
            "agents": ["tom-planner:k=cycle,horizon=3"],
            "conditions": [{"name": "random-teams", "mechanisms": [SPEC]},
                           {"name": "all-teams", "mechanisms": [SPEC], "over_teams": "mean"},
                           {"name": "best-team", "mechanisms": [SPEC], "over_teams": "best"}],
            "reference": "all-teams", "floor": "all-teams", "ceiling": "best-team", "share_metrics": ["score"],
            "metrics": [{"name": "score", "derive": "experiments.teams:team_score", "higher_is_better": True},
                        {"name": "bas", "derive": "experiments.teams:team_value", "test": False}],
            "tests": {"compare": [["random-teams", "all-teams"]], "bootstrap": 200}}
    data.update(extra)
    return data


def test_the_mean_over_every_team_and_the_best_team_on_a_tiny_hall(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps(_design()))
    design = load_design(path)
    result = run_sweep(design, tmp_path / "out", jobs=1, quiet=True)
    raw = [json.loads(line) for line in (tmp_path / "out" / RESULTS).read_text().splitlines()[1:]]
    world = build_world(*load_spec(HALL_FILE))
    teams = [list(t) for t in itertools.combinations(world.agents, 3)]
    assert len(teams) == math.comb(5, 3) == 10
    for name in ("all-teams", "best-team"):
        played = [r for r in raw if r["condition"] == name]
        assert sorted(r["team"] for r in played) == sorted(teams)
        assert all(r["teams_of"] == r["teams_possible"] == 10 for r in played)
        assert all(r["mechanisms"]["random-teams"]["team"] == r["team"] for r in played)
    # the two conditions play the same 10 episodes: played once, recorded under both names
    assert result.ran == 21 and result.copied == 10
    by_team = {tuple(r["team"]): r for r in raw if r["condition"] == "all-teams"}
    for r in raw:
        if r["condition"] == "best-team":
            assert {k: v for k, v in r.items() if k not in ("key", "condition")} == \
                {k: v for k, v in by_team[tuple(r["team"])].items() if k not in ("key", "condition")}
    # the random draw's episode is one of them, to the byte: the draw is made either way
    (drawn,) = [r for r in raw if r["condition"] == "random-teams"]
    same = by_team[tuple(drawn["mechanisms"]["random-teams"]["team"])]
    assert (drawn["outcome"], drawn["metrics"], drawn["events"]) == (same["outcome"], same["metrics"], same["events"])

    records = compute_metrics(result.records, design)
    scores = {tuple(r["team"]): r["values"]["score"] for r in result.records if r["condition"] == "all-teams"}
    assert len(set(scores.values())) > 1  # the teams differ: the test tells mean from best
    (mean,) = [r for r in records if r["condition"] == "all-teams"]
    (best,) = [r for r in records if r["condition"] == "best-team"]
    assert mean["teams"] == best["teams"] == 10 and mean["key"] == f"{HALL.split('/')[1]}|all-teams|0"
    assert mean["values"]["score"] == pytest.approx(np.mean(list(scores.values())))
    bas = [r["values"]["bas"] for r in result.records if r["condition"] == "all-teams"]
    assert mean["values"]["bas"] == pytest.approx(np.mean(bas))
    top = max(scores.values())
    first_best = next(t for t in map(tuple, teams) if scores[t] == top)  # the first on a tie
    assert best["values"]["score"] == top and best["best_team"] == list(first_best)
    played = {tuple(r["team"]): r for r in result.records if r["condition"] == "all-teams"}
    assert best["values"]["bas"] == played[first_best]["values"]["bas"]
    assert len(records) == 3
    analysis = analyse(records, design, result.attrs)
    (row,) = analysis.shares["rows"]
    assert row["floor"] == pytest.approx(np.mean(list(scores.values()))) and row["ceiling"] == top
    assert row["condition"] == "random-teams" and row["n"] == 1
    assert row["share"] == pytest.approx((drawn_score := scores[tuple(same["team"])] - row["floor"]) / (top - row["floor"]))
    assert drawn_score == pytest.approx(row["gain"])
    assert "Floor: `all-teams`; ceiling: `best-team`" in share_markdown(analysis)


def test_lower_is_better_picks_the_smallest_and_a_partial_set_is_left_out(tmp_path):
    data = _design(metrics=[{"name": "score", "derive": "experiments.teams:team_score", "higher_is_better": False},
                            {"name": "bas", "derive": "experiments.teams:team_value", "test": False}])
    design = Design.model_validate(data)

    def rec(cond, team, score, seed=0):
        return {"key": f"h|{cond}|{seed}|{'+'.join(team)}", "scenario": "h", "world": "dkg", "condition": cond,
                "seed": seed, "team": list(team), "teams_of": 3, "teams_possible": 3,
                "values": {"score": score, "bas": 0.0}}

    from experiments.runner import over_teams_records

    teams = [("a", "b"), ("a", "c"), ("b", "c")]
    scores = [0.5, 0.2, 0.7]
    records = [rec("best-team", t, s, seed) for seed in (0, 1) for t, s in zip(teams, scores)]
    records += [rec("all-teams", t, s) for t, s in zip(teams[:2], scores)]  # one team missing
    out = over_teams_records(records, design)
    assert [r["condition"] for r in out] == ["best-team", "best-team"]  # the partial mean is left out
    assert [r["best_team"] for r in out] == [["a", "c"], ["a", "c"]] and out[0]["values"]["score"] == 0.2
    # the best team is chosen on its mean over the seeds, not per seed
    records = [rec("best-team", t, s, 0) for t, s in zip(teams, [0.1, 0.5, 0.6])]
    records += [rec("best-team", t, s, 1) for t, s in zip(teams, [0.9, 0.2, 0.3])]
    out = over_teams_records(records, design)
    assert [r["best_team"] for r in out] == [["a", "c"], ["a", "c"]]
    assert [r["values"]["score"] for r in out] == [0.5, 0.2]


def test_the_design_refuses_team_conditions_it_cannot_play():
    base = _design()
    cases = [
        ({"name": "x", "over_teams": "mean"}, r"over_teams plays every team of the condition's one 'random-teams'"),
        ({"name": "x", "mechanisms": ["teams"], "over_teams": "best"}, r"exactly one"),
        ({"name": "x", "mechanisms": [SPEC], "over_teams": "mean", "best_by": "score"}, r"best_by is for"),
        ({"name": "x", "mechanisms": [SPEC], "best_by": "score"}, r"best_by needs"),
        ({"name": "x", "mechanisms": [SPEC], "over_teams": "best", "best_by": "speed"}, r"'speed' is not a metric"),
        ({"name": "x", "mechanisms": [SPEC], "over_teams": "best", "best_by": "bas"},
         r"metric 'bas', which does not say which way is better"),
        ({"name": "x", "mechanisms": [SPEC], "over_teams": "all"}, r"over_teams"),
    ]
    for condition, message in cases:
        with pytest.raises(ValueError, match=message):
            Design.model_validate({**base, "conditions": [*base["conditions"], condition]})


def test_a_given_team_must_be_one_the_draw_could_give():
    from agents.registry import make_agent
    from sim.session import Session

    world = build_world(*load_spec(HALL_FILE))

    seats = {a: make_agent("tom-planner:k=cycle,horizon=3", "dkg") for a in world.agents}
    for team, message in [(world.agents[:2], "is not a team the draw could give: 3 of the agents"),
                          (["zed", *world.agents[:2]], "is not a team the draw could give")]:
        mechanism = make_mechanism(SPEC, "dkg", {"team": list(team)})
        with pytest.raises(ValueError, match=message):
            Session(world, seats, seed=0, mechanisms=[mechanism], max_ticks=0)
    with pytest.raises(AgentSpecError, match="cannot be combined with every"):
        make_mechanism(SPEC + ",every=2", "dkg", {"team": list(world.agents[:3])})
    mechanism = make_mechanism(SPEC, "dkg")
    Session(world, seats, seed=0, mechanisms=[mechanism], max_ticks=0)
    assert mechanism.possible_teams() == list(itertools.combinations(world.agents, 3))
