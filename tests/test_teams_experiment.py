"""The team-formation experiment on the generic runner: the teams-dkg design on 2 scenarios x 2
seeds end to end (episode records with the mechanisms' summaries, derived metrics, paired tests
on scenarios, the report), and the hooks' known answers and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.design import ExperimentError, load_design
from experiments.runner import SCENARIO_DIR, compute_metrics, main, run_sweep
from experiments.stats import analyse
from experiments.teams import (
    check_equal_sizes,
    check_team_scenario,
    final_team_score,
    final_team_sizes,
    team_score,
    team_value,
)
from sim.registry import build_world, load_spec
from tests.test_rounds import as_run_before, without_team_bounds

DESIGN = SCENARIO_DIR / "experiments" / "teams-dkg.json"


def small_design(tmp_path: Path) -> Path:
    data = without_team_bounds(json.loads(DESIGN.read_text()))
    data["scenarios"] = ["dkg/team-03-five", "dkg/team-01-six"]
    data["seeds"] = {"count": 2, "first": 0}
    data["tests"]["bootstrap"] = 200
    path = tmp_path / "teams-small.json"
    path.write_text(json.dumps(data))
    return path


def test_design_runs_on_two_scenarios_and_two_seeds(tmp_path):
    design = load_design(small_design(tmp_path))
    assert [c.name for c in design.conditions] == ["teams", "teams-skill", "teams-features", "random-teams"]
    result = run_sweep(design, tmp_path / "out", jobs=1, quiet=True)
    assert len(result.records) == 2 * 4 * 2
    assert result.attrs["team-03-five"] == {"world": "dkg", "agents": 5, "locked_in": 2}
    for r in result.records:
        (summary,) = r["mechanisms"].values()
        n = 5 if r["scenario"] == "team-03-five" else 6
        assert len(summary["team"]) == (n + 1) // 2  # ceil(n/2) in every condition
        assert summary["sizes"] == [(n + 1) // 2] * 2
        assert summary["levels"] and set(summary["levels"].values()) <= {0, 1, 2}
    compute_metrics(result.records, design)
    for r in result.records:
        (summary,) = r["mechanisms"].values()
        assert r["values"]["score"] == pytest.approx(final_team_score(r["world"], r["outcome"], summary["team"]), abs=1e-9)
        assert r["values"]["bas"] == summary["bas_episode"]
        # BAS on one scale for every condition: the own embedding's is the mechanism's BAS
        own = "features" if r["condition"] == "teams-features" else "steps"
        assert r["values"][f"bas_{own}"] == summary["bas_episode"]
        assert -1 <= r["values"]["bas_features"] <= 1 and -1 <= r["values"]["bas_steps"] <= 1
        assert 0 <= r["values"]["gems"] <= 1
        # the steps embedding never leaves a prediction unscored; the features one does (waits)
        assert (r["values"]["unscored"] > 0) == (r["condition"] == "teams-features")
    # the random teams differ between seeds; belief-aligned formation uses no randomness here
    teams = {(r["condition"], r["scenario"]): set() for r in result.records}
    for r in result.records:
        teams[(r["condition"], r["scenario"])].add(tuple(next(iter(r["mechanisms"].values()))["team"]))
    assert all(len(v) == 1 for (c, _), v in teams.items() if c == "teams")
    analysis = analyse(result.records, design, result.attrs)
    assert "n counts scenarios" in analysis.unit_note()
    rows = [t for t in analysis.tests if t["metric"] == "score"]
    assert {(t["first"], t["second"]) for t in rows} == {("teams", "random-teams"), ("teams-skill", "random-teams"),
                                                         ("teams-features", "random-teams"),
                                                         ("teams-features", "teams")}
    assert all(t["n"] == 2 and t["paired"] and t["unit"] == "scenario pairs" for t in rows)


def test_experiment_command_writes_the_report(tmp_path, capsys):
    path = small_design(tmp_path)
    assert main(path, out=tmp_path / "run", jobs=1, quiet=True) == 0
    report = (tmp_path / "run" / "report.md").read_text()
    assert "task score (final team)" in report and "n counts scenarios" in report
    lines = (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 16 and all('"mechanisms"' in line for line in lines[1:])


def test_team_score_known_answers():
    outcome = {"holding_goal": {"a": True, "b": False, "c": True, "d": True},
               "goal_tick": {"a": 20, "b": None, "c": 0, "d": 50}, "ticks": 60, "t_max": 100}
    assert final_team_score("dkg", outcome, ["a", "b", "c"]) == pytest.approx((0.8 + 0 + 1.0) / 3)
    assert final_team_score("dkg", outcome, ["a", "b", "c"], timed=False) == pytest.approx(2 / 3)
    assert final_team_score("dkg", outcome, ["d"]) == pytest.approx(0.5)  # d idle elsewhere: only members count
    with pytest.raises(ExperimentError, match="holding_goal.*this one has: success"):
        final_team_score("dkg", {"success": True}, ["a"])
    with pytest.raises(ExperimentError, match="older version without 't_max'"):
        final_team_score("dkg", {k: v for k, v in outcome.items() if k != "t_max"}, ["a"])
    # kitchen: each member's dish, by its delivery tick
    kitchen = {"success": False, "delivered": {"a": 30, "b": None, "c": 60}, "goals": {}, "ticks": 120, "t_max": 120}
    assert final_team_score("kitchen", kitchen, ["a", "b", "c"]) == pytest.approx((0.75 + 0 + 0.5) / 3)
    assert final_team_score("kitchen", kitchen, ["a", "c"], timed=False) == 1.0
    # household: one shared task, by the share of the budget left when it was done
    house = {"task": "household", "reached": 11, "total": 11, "steps_to_finish": 30, "budget": 120}
    assert final_team_score("household", house, ["a", "b"]) == pytest.approx(0.75)
    assert final_team_score("household", {**house, "reached": 10, "steps_to_finish": 120}, ["a"]) == 0.0


def test_hooks_name_what_is_missing():
    record = {"key": "s|c|0", "outcome": {}, "mechanisms": {}}
    with pytest.raises(ExperimentError, match="s\\|c\\|0: expected one team mechanism"):
        team_score([record], None)
    record = {"key": "s|c|0", "scenario": "s", "condition": "c",
              "mechanisms": {"teams": {"team": ["a"], "bas": None, "sizes": [1, 1]}}}
    with pytest.raises(ExperimentError, match="'bas' of s\\|c\\|0 is None"):
        team_value([record], None, field="bas")
    del record["mechanisms"]["teams"]["sizes"]
    with pytest.raises(ExperimentError, match="s\\|c\\|0: the team summary has no 'sizes'"):
        team_value([record], None, field="bas")


def _episode(scenario: str, condition: str, sizes: list[int], seed: int = 0) -> dict:
    return {"key": f"{scenario}|{condition}|{seed}", "scenario": scenario, "condition": condition, "world": "dkg",
            "outcome": {"holding_goal": {"a": True}, "goal_tick": {"a": 5}, "ticks": 8, "t_max": 10},
            "mechanisms": {condition: {"team": ["a"], "sizes": sizes, "bas_episode": 0.5}}}


def test_metrics_refuse_teams_of_different_sizes():
    fair = [_episode("s1", "teams", [3, 3]), _episode("s1", "random-teams", [3, 3]),
            _episode("s2", "teams", [4, 4]), _episode("s2", "random-teams", [4, 4])]
    check_equal_sizes(fair)
    assert team_score(fair, None) == {e["key"]: 0.5 for e in fair}
    larger = fair[:1] + [_episode("s1", "random-teams", [3, 3]), _episode("s1", "teams-free", [3, 6])]
    with pytest.raises(ExperimentError, match=r"team sizes differ between conditions in s1 \(random-teams: 3, "
                                              r"teams: 3, teams-free: 3-6\)"):
        team_score(larger, None)
    other = fair[:1] + [_episode("s1", "random-teams", [2, 2])]
    with pytest.raises(ExperimentError, match="random-teams: 2, teams: 3"):
        team_value(other, None)
    assert team_value(other, None, equal_sizes=False) == {e["key"]: 0.5 for e in other}


def test_check_refuses_worlds_that_are_not_team_scenarios():
    path = SCENARIO_DIR / "dkg" / "protom-05-trio.json"
    family, spec = load_spec(path)
    with pytest.raises(ExperimentError, match="3 agents; a team scenario has 5 to 8"):
        check_team_scenario(str(path), build_world(family, spec), spec)
    path = SCENARIO_DIR / "dkg" / "teams" / "team-06-eight.json"
    family, spec = load_spec(path)
    assert check_team_scenario(str(path), build_world(family, spec), spec) == {"agents": 8, "locked_in": 3}


def test_confirmation_design_runs_on_two_scenarios_and_one_seed(tmp_path):
    data = without_team_bounds(json.loads((SCENARIO_DIR / "experiments" / "teams-dkg-confirm.json").read_text()))
    assert len(data["scenarios"]) == 48 and data["seeds"] == {"count": 5, "first": 0}
    data["scenarios"] = data["scenarios"][:2]
    data["seeds"] = {"count": 1, "first": 0}
    data["tests"]["bootstrap"] = 200
    path = tmp_path / "confirm-small.json"
    path.write_text(json.dumps(as_run_before(data)))
    design = load_design(path)
    assert [c.name for c in design.conditions] == ["teams-features", "random-teams"]
    result = run_sweep(design, tmp_path / "out", jobs=1, quiet=True)
    assert len(result.records) == 2 * 2
    compute_metrics(result.records, design)
    analysis = analyse(result.records, design, result.attrs)
    # the pre-declared family: three primary outcomes, one comparison, n = scenarios
    assert sorted(t["metric"] for t in analysis.tests) == ["bas_features", "bas_steps", "score"]
    assert all((t["first"], t["second"]) == ("teams-features", "random-teams") and t["n"] == 2
               and t["unit"] == "scenario pairs" for t in analysis.tests)


def test_a_comparison_with_unequal_final_team_sizes_is_refused():
    """Both conditions allow teams of 3, but in one episode Algorithm 1 never re-formed and the
    team of every agent (6) played to the end: the comparison is refused, naming the sizes."""
    fair = [_episode("s1", "teams", [3, 3]), _episode("s1", "random-teams", [3, 3])]
    for e in fair:
        e["mechanisms"][e["condition"]].update(team=["a", "b", "c"], team_size=3)
    check_equal_sizes(fair)
    kept = _episode("s1", "teams", [3, 3], seed=1)
    kept["mechanisms"]["teams"].update(team=list("abcdef"), team_size=6)
    with pytest.raises(ExperimentError, match=r"final team sizes differ in s1 \(random-teams: 3 \(1 episode\), "
                                              r"teams: 3 \(1 episode\) or 6 \(1 episode\)\)"):
        team_score([*fair, kept], None)
    with pytest.raises(ExperimentError, match="final team sizes differ"):
        team_value([*fair, kept], None, field="bas_episode")
    assert final_team_sizes([*fair, kept]) == {"teams": {3: 1, 6: 1}, "random-teams": {3: 1}}
    assert len(team_value([*fair, kept], None, field="bas_episode", equal_sizes=False)) == 3
