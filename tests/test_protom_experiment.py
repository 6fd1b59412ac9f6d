"""The ProToM pieces of the experiment runner: the category pre-check and the speedup metric,
and the paper's design (deterministic planners, seed 42, one episode per scenario) end to end."""

from __future__ import annotations

import csv

import pytest

from experiments.design import ExperimentError, load_design
from experiments.protom_dkg import check_category, speedup
from main import main
from sim.registry import SCENARIO_DIR, build_world, load_spec

EXPERIMENTS = SCENARIO_DIR / "experiments"


def test_category_check_reports_the_computed_category():
    for name, category in (("protom-01-open-hall", "not_needed"), ("protom-13-on-the-way", "useful"),
                           ("protom-17-bobs-door", "necessary")):
        path = SCENARIO_DIR / "dkg" / f"{name}.json"
        family, spec = load_spec(path)
        attrs = check_category(str(path), build_world(family, spec), spec)
        assert attrs["category"] == category
        assert attrs["joint_length"] > 0 and (attrs["independent_length"] is None) == (category == "necessary")


def test_speedup_against_the_baseline():
    design = load_design(EXPERIMENTS / "protom-dkg.json")
    episodes = [{"key": f"s|{c}|{seed}", "scenario": "s", "condition": c, "seed": seed, "values": {"length": n}}
                for c, seed, n in (("none", 0, 60), ("none", 1, 40), ("protom", 0, 30), ("protom", 1, 40))]
    assert speedup(episodes, design, against="seed") == {"s|none|0": 0.0, "s|none|1": 0.0, "s|protom|0": 1.0, "s|protom|1": 0.0}
    by_scenario = speedup(episodes, design, against="scenario")
    assert by_scenario["s|protom|0"] == pytest.approx(50 / 30 - 1) and by_scenario["s|protom|1"] == pytest.approx(0.25)
    with pytest.raises(ExperimentError, match="no 'none' episode for s seed 1"):
        speedup([e for e in episodes if e["key"] != "s|none|1"], design, against="seed")
    # the paper's Speedup = L_none / L_f - 1 on the scenario's mean lengths: 50 / 35 - 1 for both protom
    # episodes (the mean of their per-seed ratios is 0.5)
    assert speedup(episodes, design) == pytest.approx({"s|none|0": 0.0, "s|none|1": 0.0,
                                                        "s|protom|0": 50 / 35 - 1, "s|protom|1": 50 / 35 - 1})


@pytest.mark.slow
def test_the_papers_design_end_to_end(tmp_path):
    design = load_design(EXPERIMENTS / "protom-dkg-paper.json")
    assert (design.seeds.count, design.seeds.first) == (1, 42)
    assert design.agents == ["planner:compliance=1.0,show_plan=false"]
    assert main(["experiment", "protom-dkg-paper", "--out", str(tmp_path), "--quiet", "--jobs", "1"]) == 0
    rows = {(r["group"], r["condition"]): r for r in csv.DictReader(open(tmp_path / "summary.csv"))}
    f = lambda g, n, m: float(rows[(g, n)][m])  # noqa: E731
    assert rows[("all", "protom")]["n_scenarios"] == "20" and rows[("all", "protom")]["episodes"] == "20"
    assert f("all", "protom", "success_mean") == 1.0 and f("necessary", "none", "success_mean") == 0.0
    assert f("not_needed", "protom", "feedback_mean") == 0.0
    assert f("all", "protom", "speedup_mean") > f("all", "random", "speedup_mean")
    tests = {(t["group"], t["metric"], t["second"]): t for t in csv.DictReader(open(tmp_path / "tests.csv"))}
    success = tests[("all", "success", "none")]
    # 6 necessary scenarios: ProToM succeeds, no facilitator fails; McNemar exact p = 2 / 2**6
    assert success["test"] == "mcnemar_exact" and float(success["p"]) == pytest.approx(2 / 64)
    assert tests[("all", "speedup", "random")]["test"] == "wilcoxon_signed_rank"
    assert tests[("all", "speedup", "random")]["n"] == "20"
