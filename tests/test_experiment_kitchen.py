"""ProToM's kitchen experiment on the generic runner: the category pre-check of the 23 levels,
refusals that name the level, and a small sweep whose numbers are checked against the episodes
themselves (speedup against the same seed's no-facilitator episode, n counting scenarios)."""

from __future__ import annotations

import csv
import json

import pytest

from experiments.design import ExperimentError, load_design
from experiments.protom_kitchen import check_category
from experiments.runner import compute_metrics, resolve_scenarios, run_checks, run_sweep
from experiments.stats import analyse
from sim.registry import SCENARIO_DIR, build_world, load_spec

DESIGN = SCENARIO_DIR / "experiments" / "protom-kitchen.json"
LEVEL = """title: Onion next door
category: {category}
agent alice: SimpleOnion
agent bob: SimpleLettuce
map:
#------#o-----#
/.1....-.2....*
*......#......p
p......#......l
-......#......-
-......D......-
#------#---/--#
"""


def test_the_design_names_the_23_levels_and_the_papers_settings():
    design = load_design(DESIGN)
    refs = resolve_scenarios(design.scenarios)
    assert len(refs) == 23 and {r.family for r in refs} == {"kitchen"}
    assert [r.name for r in refs][:2] == ["kitchen-01-two-kitchens", "kitchen-02-open-corners"]
    assert [c.name for c in design.conditions] == ["none", "protom", "oracle", "random"]
    assert design.condition("protom").mechanism_specs() == [("protom:phi=2.0,eps=0.3,particles=5,divergence=js", {})]
    assert (design.baseline, design.reference, design.groups.by) == ("none", "protom", "category")


def test_every_level_passes_its_category_check_7_7_9():
    design = load_design(DESIGN)
    attrs = run_checks(design, resolve_scenarios(design.scenarios), jobs=1)
    categories = [a["category"] for a in attrs.values()]
    assert [categories.count(c) for c in ("not_needed", "useful", "necessary")] == [7, 7, 9]
    eight = attrs["kitchen-08-onion-next-door"]  # docs/kitchen.md: L_ind 38, L_joint 24 with Bob's pass
    assert (eight["independent_length"], eight["joint_length"]) == (38, 24)
    assert eight["best_feedback"] == "Bob passes the FreshOnion in (0, 8) to Alice"
    assert attrs["kitchen-15-walled-onion"]["independent_length"] is None  # fails without help


def test_a_level_declaring_the_wrong_category_is_refused_with_its_file(tmp_path):
    path = tmp_path / "wrong.kitchen.txt"
    path.write_text(LEVEL.format(category="necessary"))
    family, spec = load_spec(path)
    with pytest.raises(ExperimentError, match=r"wrong\.kitchen\.txt: declares 'necessary', computed .*useful"):
        check_category(str(path), build_world(family, spec), spec)
    path.write_text(LEVEL.format(category="useful"))
    family, spec = load_spec(path)
    assert check_category(str(path), build_world(family, spec), spec)["category"] == "useful"
    dkg = SCENARIO_DIR / "dkg" / "protom-01-open-hall.json"
    family, spec = load_spec(dkg)
    with pytest.raises(ExperimentError, match="for kitchen levels, not dkg"):
        check_category(str(dkg), build_world(family, spec), spec)


def test_a_small_sweep_matches_its_episodes(tmp_path):
    """One level of each category, two seeds: the summary's values are the episodes' own, the
    speedup is L_none / L_f - 1 on the scenario's mean lengths (speedup_ratios: on the same seed),
    and n counts scenarios."""
    full = load_design(DESIGN)
    design = full.model_copy(update={"scenarios": ["kitchen-01-two-kitchens", "kitchen-08-onion-next-door",
                                                   "kitchen-15-walled-onion"]})
    result = run_sweep(design, tmp_path, seeds=2, jobs=1, quiet=True)
    records = result.records
    assert len(records) == 3 * 4 * 2
    compute_metrics(records, design)
    by_key = {r["key"]: r for r in records}
    for r in records:
        base = by_key[f"{r['scenario']}|none|{r['seed']}"]["metrics"]["ticks"]
        assert r["values"]["speedup_ratios"] == pytest.approx(base / r["metrics"]["ticks"] - 1)
        mean = {c: sum(by_key[f"{r['scenario']}|{c}|{s}"]["metrics"]["ticks"] for s in (0, 1)) / 2
                for c in ("none", r["condition"])}
        assert r["values"]["speedup"] == pytest.approx(mean["none"] / mean[r["condition"]] - 1)
        assert r["values"]["length"] == r["metrics"]["ticks"]
        if not r["outcome"]["success"]:
            assert r["metrics"]["ticks"] == 100  # a failed episode lasts t_max
    walled = {c: [by_key[f"kitchen-15-walled-onion|{c}|{s}"] for s in (0, 1)] for c in ("none", "protom")}
    assert not any(r["outcome"]["success"] for r in walled["none"])  # necessary: fails alone
    assert all(r["outcome"]["success"] and r["values"]["feedback"] >= 1 for r in walled["protom"])
    assert all(by_key[f"kitchen-01-two-kitchens|protom|{s}"]["values"]["feedback"] == 0 for s in (0, 1))
    analysis = analyse(records, design, result.attrs)
    row = next(s for s in analysis.summary if s["group"] == "all" and s["condition"] == "protom")
    assert (row["n_scenarios"], row["episodes"]) == (3, 6)
    per_scenario = [sum(by_key[f"{n}|protom|{s}"]["values"]["speedup"] for s in (0, 1)) / 2
                    for n in ("kitchen-01-two-kitchens", "kitchen-08-onion-next-door", "kitchen-15-walled-onion")]
    assert row["speedup_mean"] == pytest.approx(sum(per_scenario) / 3, abs=1e-6)
    assert {g for g, _ in analysis.groups} == {"all", "not_needed", "useful", "necessary"}


def test_the_command_writes_the_report_and_both_figures(tmp_path):
    """``python main.py experiment`` on a copy of the design restricted to three levels."""
    from main import main

    data = json.loads(DESIGN.read_text())
    data["scenarios"] = ["kitchen-02-open-corners", "kitchen-09-tomato-race", "kitchen-16-no-plate"]
    data["seeds"] = {"count": 1, "first": 0}
    path = tmp_path / "kitchen-small.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "out"
    assert main(["experiment", str(path), "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    for name in ("report.md", "figure_summary.png", "figure_groups.png", "summary.csv", "scenarios.csv"):
        assert (out / name).stat().st_size > 0, name
    report = (out / "report.md").read_text()
    assert "n counts scenarios" in report and "experiments.protom_kitchen:check_category" in report
    # one level per category: the pooled figure at the paper's 7/7/7 mix beside the mix as run
    assert "at the paper's 7/7/7" in report and "pooled as run (1/1/1)" in report
    scenarios = {r["scenario"]: r for r in csv.DictReader(open(out / "scenarios.csv"))}
    assert scenarios["kitchen-16-no-plate"]["category"] == "necessary"


def test_the_ablation_design_loads_with_its_hooks_and_feedback_differs_pairs_by_scenario_and_seed():
    from types import SimpleNamespace

    from experiments.protom_kitchen import feedback_differs

    design = load_design(SCENARIO_DIR / "experiments" / "protom-kitchen-ablation.json")  # every hook resolves
    assert [c.name for c in design.conditions] == ["none", "n1", "protom", "n20", "stale0", "stale05", "stale1", "oracle"]
    assert [m.name for m in design.metrics if m.derive] == ["speedup", "speedup_ratios", "differs_from_n1"]

    def ep(condition, seed, sent):
        return {"key": f"s|{condition}|{seed}", "scenario": "s", "condition": condition, "seed": seed,
                "mechanisms": {"protom": {"feedback": sent}}}

    episodes = [ep("n1", 0, [[1, "bob", "x"]]), ep("n1", 1, []), ep("protom", 0, [[1, "bob", "x"]]),
                ep("protom", 1, [[3, "bob", "x"]])]
    conds = SimpleNamespace(conditions=[SimpleNamespace(name="n1"), SimpleNamespace(name="protom")])
    assert feedback_differs(episodes, conds, "n1") == {"s|n1|0": 0.0, "s|n1|1": 0.0, "s|protom|0": 0.0,
                                                        "s|protom|1": 1.0}


def test_a_design_sets_how_many_cooks_play_its_gym_cooking_levels(tmp_path, monkeypatch):
    """The design's ``cooks`` is run's --cooks for the gym-cooking levels it names (files under
    scenarios/ named *.gym-cooking.txt): the episodes' worlds, in this process and rebuilt from
    the task as a worker does, have that many cooks; levels that name their cooks refuse it."""
    import shutil

    from experiments import runner
    from sim import registry

    root = tmp_path / "scenarios"
    (root / "kitchen").mkdir(parents=True)
    fixtures = SCENARIO_DIR.parent / "tests" / "fixtures" / "gym_cooking"
    shutil.copy(fixtures / "partial-divider_tl.txt", root / "kitchen" / "partial-divider_tl.gym-cooking.txt")
    shutil.copy(SCENARIO_DIR / "kitchen" / "two-kitchens.kitchen.txt", root / "kitchen")
    monkeypatch.setattr(registry, "SCENARIO_DIR", root)

    def design(**fields):
        path = tmp_path / "gym.json"
        path.write_text(json.dumps({"experiment": "gym", "scenarios": ["kitchen/partial-divider_tl"],
                                    "seeds": 2, "agents": ["kitchen-heuristic"], "conditions": [{"name": "none"}],
                                    "metrics": [{"name": "success", "source": "outcome.success", "kind": "binary"}],
                                    **fields}))
        return load_design(path)

    three = design(cooks=3)
    refs = resolve_scenarios(three.scenarios, three.cooks)
    assert refs[0].agents == ("alice", "bob", "carol")
    assert resolve_scenarios(three.scenarios)[0].agents == ("alice", "bob")  # the default, as run's
    tasks = runner.plan(three, refs, [0, 1])
    runner._WORLDS.clear()  # a worker process rebuilds the world from the task
    assert runner._world(tasks[0]).agents == ("alice", "bob", "carol")
    result = run_sweep(three, tmp_path / "out", jobs=1, quiet=True)
    assert len(result.records) == 2
    assert {r["setup"] for r in result.records} == {t.setup() for t in tasks}  # the spec with three cooks
    assert {r["setup"] for r in result.records} != {t.setup() for t in runner.plan(three, resolve_scenarios(
        three.scenarios), [0, 1])}
    with pytest.raises(ExperimentError, match=r"gym\.json: field 'cooks': .*less than or equal to 4"):
        design(cooks=5)
    with pytest.raises(ExperimentError, match=r"gym\.json: field 'cooks': .*0"):
        design(cooks=0)
    other = design(cooks=3, scenarios=["kitchen/two-kitchens"])
    with pytest.raises(ExperimentError, match=r"^the design's field 'cooks': .*two-kitchens\.kitchen\.txt: --cooks sets how many "
                                              r"cooks play a gym-cooking level .*'kitchen' level, which names its own"):
        resolve_scenarios(other.scenarios, other.cooks)
