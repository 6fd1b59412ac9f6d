"""The three analyses of Section 4: KL per turn, proposal values, decision utility fitting."""

import csv
import math

import numpy as np
import pytest

from agents.tradecraft.selfplay import instance_set, run_selfplay
from agents.tradecraft.trader import UtilityWeights
from sim.analysis.tradecraft import (
    FEATURES,
    analyze,
    collect,
    cross_validate,
    fit_utility,
    kl_divergence,
    proposal_summary,
    recovery,
    utility_fits,
)


def test_kl_divergence():
    v = {"a": 10.0, "b": 0.0, "c": 3.0}
    assert kl_divergence(v, v) == pytest.approx(0.0)
    assert kl_divergence(v, {"a": 0.0, "b": 10.0, "c": 3.0}) > 0.5
    assert kl_divergence({"a": 1.0}, {"b": 1.0}) > 0  # items missing on one side count as 0


def test_kl_divergence_known_answers_and_direction():
    """P = (3/4, 1/4), Q = (1/2, 1/2) without smoothing:
    KL(P || Q) = 3/4 ln(3/2) + 1/4 ln(1/2) = 0.130812...; KL(Q || P) = 1/2 ln(2/3) + 1/2 ln 2 = 0.143841...
    With the default smoothing 0.5: P = (3.5, 1.5)/5, Q = (1.5, 1.5)/3."""
    p, q = {"a": 3.0, "b": 1.0}, {"a": 1.0, "b": 1.0}
    assert kl_divergence(p, q, alpha=0.0) == pytest.approx(0.75 * math.log(1.5) + 0.25 * math.log(0.5))
    assert kl_divergence(p, q, alpha=0.0) == pytest.approx(0.1308120, abs=1e-6)
    assert kl_divergence(q, p, alpha=0.0) == pytest.approx(0.1438410, abs=1e-6)
    assert kl_divergence(p, q) == pytest.approx(0.7 * math.log(0.7 / 0.5) + 0.3 * math.log(0.3 / 0.5))
    # the app's heatmap computes the same measure in the same direction
    from ui.tradecraft.heatmap import kl as heatmap_kl
    assert heatmap_kl(p, q) == pytest.approx(kl_divergence(p, q))
    assert heatmap_kl(p, q, alpha=0.0) != pytest.approx(heatmap_kl(q, p, alpha=0.0))


def test_kl_rows_compare_the_opponents_v0_with_the_players_v1():
    """Figure 4's measure: KL(opponent's V0 || player's V1), per player and turn."""
    from sim.analysis.tradecraft import Dataset, Report, kl_rows

    data = Dataset(episodes=["e"], groups={("e", "alice"): "g", ("e", "bob"): "g"})
    data.reports = [Report("e", "alice", "propose", 0, "bob", {"V0": {"x": 1.0, "y": 1.0}, "V1": {"x": 3.0, "y": 1.0}}),
                    Report("e", "bob", "respond", 0, "alice", {"V0": {"x": 1.0, "y": 1.0}})]
    (row,) = kl_rows(data)
    assert row["player"] == "alice" and row["opponent"] == "bob" and row["turn"] == 1
    # bob's V0 is P = (1.5, 1.5)/3, alice's V1 is Q = (3.5, 1.5)/5
    assert row["kl"] == pytest.approx(0.5 * math.log(0.5 / 0.7) + 0.5 * math.log(0.5 / 0.3))
    assert row["kl"] != pytest.approx(kl_divergence({"x": 3.0, "y": 1.0}, {"x": 1.0, "y": 1.0}))


def test_pearson_r_and_slope_known_answers():
    """y = 2x + 1 exactly: r = 1, m = 2. y = -x/2 + 5: r = -1, m = -0.5. x = (1, 2, 3, 4),
    y = (1, 3, 2, 4): mean 2.5 each, sum of products of deviations 4, of squares 5 and 5:
    r = 4 / sqrt(5 * 5) = 0.8 and m = 4 / 5 = 0.8."""
    from sim.analysis.tradecraft import _r_and_m

    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert _r_and_m(x, 2 * x + 1) == (pytest.approx(1.0), pytest.approx(2.0))
    assert _r_and_m(x, -x / 2 + 5) == (pytest.approx(-1.0), pytest.approx(-0.5))
    r, m = _r_and_m(x, np.array([1.0, 3.0, 2.0, 4.0]))
    assert r == pytest.approx(0.8) and m == pytest.approx(0.8)
    assert all(math.isnan(v) for v in _r_and_m(np.array([2.0, 2.0, 2.0]), np.array([1.0, 2.0, 3.0])))


def synthetic(weights: UtilityWeights, n_episodes=60, per_episode=10, seed=0):
    rng = np.random.default_rng(seed)
    truth = weights.coefficients(2)
    w = np.array([truth[f] for f in FEATURES])
    x = rng.choice([0.0, 3.0, 7.0, 10.0], size=(n_episodes * per_episode, 6)) * rng.integers(1, 3, (n_episodes * per_episode, 6))
    u = x @ w
    y = (rng.random(len(u)) < 1 / (1 + np.exp(-weights.beta * (u - weights.theta)))).astype(float)
    groups = np.repeat(np.arange(n_episodes), per_episode).astype(str)
    return x, y, groups, truth


def test_utility_fit_recovers_known_weights_on_synthetic_decisions():
    x, y, groups, truth = synthetic(UtilityWeights(rho=1.5, w1=0.6, gamma=0.5, w2=0.4, kappa=0.5, beta=0.5))
    fit = fit_utility(x, y, "U012")
    coef = fit.coefficients()
    row = {f"c_{f}": c / np.abs(coef).sum() for f, c in zip(FEATURES, coef)}
    rec = recovery(row, truth)
    assert rec["signs_match"] and rec["order_match"], rec
    scores = cross_validate(x, y, groups, "U012")
    assert len(scores) == 3 and np.mean(scores) > 0.75


def test_higher_order_models_fit_better_when_decisions_use_higher_orders():
    x, y, groups, _ = synthetic(UtilityWeights(rho=1.0, w1=1.0, gamma=1.0, w2=1.0, kappa=1.0, beta=1.0), seed=1)
    f0 = np.mean(cross_validate(x, y, groups, "U0"))
    f2 = np.mean(cross_validate(x, y, groups, "U012"))
    assert f2 > f0


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("selfplay")
    games = instance_set(["mc1v1-01", "mc1v1-02", "mc1v1-03", "mc1v1-04"])
    rows = run_selfplay(games, ["trader"], [0, 1], out, overrides={"stop": "all"})
    return out, rows


def test_collect_reads_proposals_and_decisions_from_recordings(small_run):
    out, rows = small_run
    data = collect([out])
    assert len(data.episodes) == 8
    assert len(data.proposals) == sum(r["proposals"] for r in rows)
    assert len(data.decisions) == sum(r["proposals"] for r in rows)
    assert sum(p.accepted for p in data.proposals) == sum(r["trades"] for r in rows)
    assert {d.group for d in data.decisions} == {"trader order=2"}


def test_proposal_bootstrap_interval_brackets_the_estimate(small_run):
    out, _ = small_run
    summary = proposal_summary(collect([out]), bootstrap=300)[0]
    assert summary["n_episodes"] == 8
    assert not math.isnan(summary["m"]), "the self-play data should give a slope"
    assert summary["m_ci_low"] <= summary["m"] <= summary["m_ci_high"]
    assert summary["m_ci_low"] < summary["m_ci_high"]


def test_analyze_writes_tables_and_plots(small_run, tmp_path):
    out, _ = small_run
    result = analyze([out], tmp_path / "analysis", bootstrap=200)
    names = set(p.name for p in (tmp_path / "analysis").iterdir())
    assert {"kl_per_turn.csv", "kl_summary.csv", "proposals.csv", "proposal_summary.csv", "decisions.csv",
            "utility_fit.csv", "kl_per_turn.png", "proposal_scatter.png", "strategy_map.png",
            "utility_coefficients.png"} <= names
    with open(tmp_path / "analysis" / "kl_per_turn.csv") as fh:
        kl = list(csv.DictReader(fh))
    from sim.analysis.tradecraft import kl_rows
    expected = kl_rows(collect([out]))  # the file holds the measure of every player and turn, as computed
    assert len(kl) == len(expected) > 0
    for written, row in zip(kl, expected):
        assert float(written["kl"]) == pytest.approx(row["kl"], abs=2e-6)  # the file keeps 6 decimals
        assert written["player"] == row["player"] and int(written["turn"]) == row["turn"]
    assert {r["model"] for r in result["utility_fit"]} == {"U0", "U01", "U012"}


@pytest.mark.slow
def test_utility_fit_on_planner_self_play_recovers_the_planner_weights(tmp_path):
    """Planner traders decide with U(0,1,2) and known weights; the fit on their recorded decisions
    must recover the signs and the order of magnitude of every coefficient."""
    games = instance_set(["minecraft-1v1"])
    run_selfplay(games, ["trader"], [0, 1, 2, 3, 4], tmp_path, overrides={"stop": "all"})
    data = collect([tmp_path])
    fits = {r["model"]: r for r in utility_fits(data)}
    truth = UtilityWeights().coefficients(2)
    rec = recovery(fits["U012"], truth)
    assert rec["signs_match"], rec
    assert rec["order_match"], rec
    assert fits["U012"]["macro_f1_mean"] > 0.8
