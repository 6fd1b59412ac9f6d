"""CoBel-World's experiments on the generic runner: the household (C-WAH-like) and transport
(TDW-MAT-like) designs, the task-kind pre-check, and a small sweep whose metrics are checked
against the episodes' own events (steps to finish, message tokens) with n counting scenarios."""

from __future__ import annotations

import pytest

from experiments.cobel import check_task
from experiments.design import ExperimentError, load_design
from experiments.runner import compute_metrics, resolve_scenarios, run_checks, run_sweep
from experiments.stats import analyse
from sim.events import MessageEvent
from sim.registry import SCENARIO_DIR, build_world, load_scenario, load_spec
from sim.session import Session

EXPERIMENTS = SCENARIO_DIR / "experiments"
METHODS = ["cobel", "cobel-silent", "cobel-no-bbc", "cobel-no-first-order", "coela", "capo", "mhp", "rhp"]
AGENTS = ["cobel", "cobel:messages=false", "cobel:intents=false", "cobel:first_order=false", "coela", "capo", "mhp",
          "rhp"]


def test_both_designs_name_their_episodes_the_methods_and_the_ablations():
    household = load_design(EXPERIMENTS / "cobel-household.json")
    transport = load_design(EXPERIMENTS / "cobel-transport.json")
    for design, count in ((household, 20), (transport, 24)):
        refs = resolve_scenarios(design.scenarios)
        assert len(refs) == count and {r.family for r in refs} == {"household"}
        assert all(r.name.startswith("house-") and "agents" not in r.name for r in refs)  # the houses set, 2 agents
        ceiling = ["share"]  # the free-sharing ceiling, reported and not tested
        assert [c.name for c in design.conditions] == METHODS + ceiling
        assert [design.condition(m).agents for m in METHODS] == [[a] for a in AGENTS]
        assert design.reference == "cobel"
        assert design.comparisons() == [("cobel", m) for m in METHODS if m != "cobel"]  # the declared family
    assert [m.name for m in household.metrics if m.test] == ["steps", "tokens"]
    assert [m.name for m in transport.metrics if m.test] == ["rate", "tokens"]
    attrs = run_checks(transport, resolve_scenarios(transport.scenarios), jobs=1)
    categories = [a["category"] for a in attrs.values()]
    assert sorted(set(categories)) == ["food-high-capacity", "food-low-capacity", "stuff-high-capacity",
                                       "stuff-low-capacity"]
    assert all(categories.count(c) == 6 for c in set(categories))
    assert {a["units"] for a in attrs.values()} == {10} and {a["budget"] for a in attrs.values()} == {3000}
    assert {a["agents"] for a in attrs.values()} == {2} and min(a["rooms"] for a in attrs.values()) >= 6
    scaling = load_design(EXPERIMENTS / "cobel-scaling.json")
    attrs = run_checks(scaling, resolve_scenarios(scaling.scenarios), jobs=1)
    agents = [a["agents"] for a in attrs.values()]
    assert sorted(set(agents)) == [2, 3, 4] and all(agents.count(n) == 10 for n in (2, 3, 4))


def test_the_second_designs_run_four_methods_on_the_unseen_houses():
    for name, metric in (("cobel-household-2", "steps"), ("cobel-transport-2", "rate")):
        design = load_design(EXPERIMENTS / f"{name}.json")
        refs = resolve_scenarios(design.scenarios)
        assert len(refs) == 8 and all(r.name.startswith("unseen-house-") for r in refs)
        assert all(("transport" in r.name) == (metric == "rate") for r in refs)
        ceiling = [["rhp-share"]]  # the free-sharing ceiling, not tested
        assert [c.agents for c in design.conditions] == [["cobel"], ["cobel:messages=false"], ["coela"], ["rhp"]] + ceiling
        assert design.comparisons() == [("cobel", m) for m in ("cobel-silent", "coela", "rhp")]
        assert [m.name for m in design.metrics if m.test] == [metric, "tokens"] and design.seeds.count == 3


def test_the_voi_design_runs_cobel_between_its_floor_and_its_ceiling_on_houses_no_other_design_uses():
    design = load_design(EXPERIMENTS / "cobel-voi.json")
    refs = resolve_scenarios(design.scenarios)
    assert len(refs) == 10 and all(r.name.startswith("voi-house-") for r in refs)
    assert [c.agents for c in design.conditions] == [["cobel:talk=voi"], ["cobel"], ["rhp"], ["rhp-share"]]
    assert design.reference == "cobel-voi" and [m.name for m in design.metrics if m.test] == ["steps", "tokens"]
    others = {r.path for f in EXPERIMENTS.glob("cobel-*.json") if f.name != "cobel-voi.json"
              for r in resolve_scenarios(load_design(f).scenarios)}
    assert not others & {r.path for r in refs}


def test_the_check_refuses_another_task_kind_or_world():
    path = SCENARIO_DIR / "household" / "transport-food-low-01.json"
    family, spec = load_spec(path)
    world = build_world(family, spec)
    assert check_task(str(path), world, spec, task="transport")["task"] == "transport"
    with pytest.raises(ExperimentError, match=r"transport-food-low-01\.json: a transport task in a design of "
                                              "household tasks"):
        check_task(str(path), world, spec, task="household")
    with pytest.raises(ExperimentError, match="'task' must be one of transport, household, got 'cooking'"):
        check_task(str(path), world, spec, task="cooking")
    dkg = SCENARIO_DIR / "dkg" / "protom-01-open-hall.json"
    family, spec = load_spec(dkg)
    with pytest.raises(ExperimentError, match="household-world episodes, not dkg"):
        check_task(str(dkg), build_world(family, spec), spec, task="household")


def test_a_small_household_sweep_matches_its_episodes(tmp_path):
    design = load_design(EXPERIMENTS / "cobel-household.json").model_copy(
        update={"scenarios": ["household-prepare-tea-01", "household-wash-dishes-02"]})
    result = run_sweep(design, tmp_path, seeds=1, jobs=1, quiet=True)
    records = result.records
    assert len(records) == 2 * (len(METHODS) + 1)  # and the free-sharing ceiling
    compute_metrics(records, design)
    by_key = {r["key"]: r for r in records}
    # Each metric is the episode's own: replay one episode in this process and count its messages.
    world, name = load_scenario(str(SCENARIO_DIR / "household" / "household-prepare-tea-01.json"))
    from agents.registry import make_agent

    session = Session(world, {a: make_agent("coela", "household") for a in world.agents}, seed=0, scenario=name)
    outcome = session.run()
    tokens = sum(e.tokens for e in session.events if isinstance(e, MessageEvent))
    coela = by_key["household-prepare-tea-01|coela|0"]["values"]
    assert coela["tokens"] == tokens > 0
    assert coela["steps"] == outcome["steps_to_finish"] and coela["completion"] == outcome["transport_rate"]
    for scenario in ("household-prepare-tea-01", "household-wash-dishes-02"):
        for silent in ("rhp", "cobel-silent", "share"):
            assert by_key[f"{scenario}|{silent}|0"]["values"]["tokens"] == 0  # they never talk
        coela = by_key[f"{scenario}|coela|0"]["values"]
        assert 0 <= coela["changed"] <= coela["reads"] and coela["reads"] > 0  # messages read, some used
    analysis = analyse(records, design, result.attrs)
    row = next(s for s in analysis.summary if s["group"] == "all" and s["condition"] == "cobel")
    assert (row["n_scenarios"], row["episodes"]) == (2, 2)
    assert {t["unit"] for t in analysis.tests} == {"scenario pairs"}
    assert 2 in {t["n"] for t in analysis.tests} and {t["n"] for t in analysis.tests} <= {0, 1, 2}  # tied pairs drop out
