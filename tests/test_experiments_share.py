"""The share of the available gain, (method - floor) / (ceiling - floor): known answers on
synthetic records, Fieller's interval, the scenarios and groups without a gain, and the design's
floor / ceiling fields."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from experiments.design import Design, ExperimentError, load_design
from experiments.stats import analyse, share_markdown
from sim.analysis.stats import ratio_ci
from sim.registry import SCENARIO_DIR


def _design(**extra) -> Design:
    data = {"experiment": "toy", "scenarios": ["*"], "seeds": {"count": 2},
            "conditions": [{"name": "f"}, {"name": "m"}, {"name": "c"}], "reference": "m",
            "floor": "f", "ceiling": "c",
            "metrics": [{"name": "score", "source": "metrics.score"},
                        {"name": "cost", "source": "metrics.cost", "test": False}]}
    data.update(extra)
    return Design.model_validate(data)


def _records(scores: dict[str, dict[str, list[float]]]) -> list[dict]:
    return [{"key": f"{s}|{c}|{seed}", "scenario": s, "condition": c, "seed": seed,
             "values": {"score": v, "cost": 0.0}}
            for s, by_c in scores.items() for c, values in by_c.items() for seed, v in enumerate(values)]


def _t_rejects(num, den, r, confidence=0.95) -> bool:
    d = np.asarray(num) - r * np.asarray(den)
    return bool(stats.ttest_1samp(d, 0.0).pvalue < 1 - confidence)


def test_the_share_per_scenario_and_pooled_on_a_known_answer():
    # floor 0 everywhere; ceiling 2, 4, 0, 2, 3, 3; the method 1, 1, 0, 2, 1.5, 1.5 (two identical
    # seeds each): shares 0.5, 0.25, undefined (no gain available), 1.0, 0.5, 0.5; pooled 7 / 14
    ceiling = {"s1": 2.0, "s2": 4.0, "s3": 0.0, "s4": 2.0, "s5": 3.0, "s6": 3.0}
    method = {"s1": 1.0, "s2": 1.0, "s3": 0.0, "s4": 2.0, "s5": 1.5, "s6": 1.5}
    data = {s: {"f": [0.0, 0.0], "m": [method[s]] * 2, "c": [ceiling[s]] * 2} for s in ceiling}
    analysis = analyse(_records(data), _design(), {})
    shares = analysis.shares
    assert shares["metrics"] == ["score"]  # the tested metrics by default
    per = shares["scenarios"]["score"]
    assert {s: per[s]["m"] for s in per} == {"s1": 0.5, "s2": 0.25, "s3": None, "s4": 1.0, "s5": 0.5, "s6": 0.5}
    (row,) = shares["rows"]
    assert (row["group"], row["condition"], row["n"], row["no_gain"]) == ("all", "m", 6, 1)
    assert row["share"] == pytest.approx(0.5) and row["gain"] == pytest.approx(7 / 6)
    assert row["available"] == pytest.approx(14 / 6) and row["interval"] == "bounded"
    est, low, high, _ = ratio_ci(list(method.values()), list(ceiling.values()))
    assert (row["low"], row["high"]) == pytest.approx((low, high)) and low < 0.5 < high
    # with 4 of those scenarios the available gain is not distinguishable from 0 at 95 %
    four = analyse(_records({s: data[s] for s in ("s1", "s2", "s3", "s4")}), _design(), {})
    assert four.shares["rows"][0]["interval"] == "unbounded" and "0.50 [unbounded]" in share_markdown(four)
    text = share_markdown(analysis)
    assert "| score | all scenarios | m | 6 |" in text and "0.50 [" in text and "| 1 |" in text
    assert "| s3 |  | +0.00 | — |" in text and "Fieller" in text
    # the floor and the ceiling get no share of their own
    assert all(r["condition"] == "m" for r in shares["rows"])


def test_fiellers_interval_is_the_inverted_paired_t_test():
    num = [0.4, 0.1, 0.5, 0.3, 0.0, 0.6, 0.2, 0.3]
    den = [1.0, 0.6, 0.9, 1.1, 0.4, 1.2, 0.5, 0.8]
    est, low, high, kind = ratio_ci(num, den)
    assert kind == "bounded" and est == pytest.approx(np.mean(num) / np.mean(den)) and low < est < high
    # at the bounds the paired t-test of num - R * den sits exactly at p = 0.05
    for r in (low, high):
        d = np.asarray(num) - r * np.asarray(den)
        assert stats.ttest_1samp(d, 0.0).pvalue == pytest.approx(0.05, abs=1e-9)
    assert not _t_rejects(num, den, est) and _t_rejects(num, den, low - 0.01) and _t_rejects(num, den, high + 0.01)
    # an available gain indistinguishable from 0: no finite interval
    assert ratio_ci([0.2, 0.1, -0.1, 0.3], [1.0, -1.0, 0.5, -0.3])[1:] == (-math.inf, math.inf, "unbounded")
    # no gain on average: undefined; every pair the same: exact
    assert ratio_ci([1.0, 2.0], [1.0, -1.0])[3] == "undefined"
    assert ratio_ci([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]) == (0.5, 0.5, 0.5, "exact")
    assert math.isnan(ratio_ci([1.0], [2.0])[1])


def test_fiellers_interval_covers_at_the_projects_n_with_many_identical_scenarios():
    """Coverage of the true ratio 0.4 at n = 8 and 23 scenarios, some giving floor, method and
    ceiling the same result (no gain either way): within [0.93, 0.97] where the available gain is
    clear of 0; with 60-80 % such scenarios only a few carry the ratio, the interval is often
    unbounded (the share is unknown) and covers more often, never less."""
    rng = np.random.default_rng(7)
    for n, tied, lowest, highest in ((8, 0.0, 0.93, 0.97), (23, 0.0, 0.93, 0.97), (23, 0.3, 0.93, 0.97),
                                     (8, 0.6, 0.93, 1.0), (23, 0.8, 0.93, 1.0)):
        hits = reps = 0
        for _ in range(1000):
            den = rng.normal(1.0, 0.5, n)
            num = 0.4 * den + rng.normal(0.0, 0.2, n)
            ties = rng.random(n) < tied
            num[ties], den[ties] = 0.0, 0.0
            if not den.any():
                continue
            _, low, high, _ = ratio_ci(num, den)
            hits += low <= 0.4 <= high
            reps += 1
        assert lowest <= hits / reps <= highest, (n, tied, hits / reps)


def test_a_group_without_any_available_gain_is_undefined_not_a_number():
    data = {"s1": {"f": [1.0, 1.0], "m": [2.0, 2.0], "c": [1.0, 1.0]},
            "s2": {"f": [0.0, 0.0], "m": [1.0, 1.0], "c": [2.0, 2.0]},
            "s3": {"f": [0.0, 0.0], "m": [1.0, 1.0], "c": [3.0, 3.0]}}
    attrs = {"s1": {"kind": "x"}, "s2": {"kind": "y"}, "s3": {"kind": "y"}}
    analysis = analyse(_records(data), _design(groups={"by": "kind", "order": ["x", "y"]}), attrs)
    rows = {r["group"]: r for r in analysis.shares["rows"]}
    assert rows["x"]["interval"] == "undefined" and math.isnan(rows["x"]["share"]) and rows["x"]["no_gain"] == 1
    # over all: (1 + 1 + 1) / (0 + 2 + 3): the scenario without a gain adds its method's gain above
    assert rows["all"]["share"] == pytest.approx(3 / 5) and rows["all"]["no_gain"] == 1
    assert rows["y"]["share"] == pytest.approx(2 / 5)
    assert "undefined (no gain available)" in share_markdown(analysis)


def test_share_metrics_and_a_ceiling_below_the_floor():
    data = {f"s{i}": {"f": [5.0, 5.0], "m": [4.0, 4.0], "c": [3.0 - 0.1 * i] * 2} for i in range(3)}
    analysis = analyse(_records(data), _design(share_metrics=["score"]), {})
    (row,) = analysis.shares["rows"]
    # lower is better here: the method moves 1 of about 2.1 towards the ceiling
    assert row["share"] == pytest.approx(-1.0 / -2.1)
    no_share = analyse(_records(data), _design(floor=None, ceiling=None), {})
    assert no_share.shares == {} and share_markdown(no_share) == ""
    assert analyse(_records(data), _design(ceiling=None), {}).shares == {}


def test_the_design_names_its_floor_and_ceiling_strictly(tmp_path):
    base = {**json.loads((SCENARIO_DIR / "experiments" / "protom-dkg.json").read_text()), "floor": "none",
            "ceiling": "oracle"}
    cases = [
        ({"floor": "nobody"}, r"field '\(top level\)': floor 'nobody' is not a condition \(none, protom, oracle"),
        ({"ceiling": "best"}, r"ceiling 'best' is not a condition"),
        ({"floor": None, "ceiling": "oracle"}, r"ceiling 'oracle' needs a floor too"),
        ({"floor": "oracle", "ceiling": "oracle"}, r"floor and ceiling are the same condition 'oracle'"),
        ({"share_metrics": ["speed"]}, r"share_metrics: 'speed' is not a metric \(success, speedup"),
        ({"ceiling": None, "share_metrics": ["success"]}, r"share_metrics needs a floor and a ceiling"),
        ({"ceiling": 3}, r"field 'ceiling': expected text"),
        ({"share_metrics": []}, r"field 'share_metrics'"),
    ]
    # a floor alone is a design's declaration where no ceiling can be built: no share
    path = tmp_path / "floor.json"
    path.write_text(json.dumps({**base, "ceiling": None, "share_metrics": None}))
    design = load_design(path)
    assert design.floor == "none" and design.shared_metrics() == []
    for changes, message in cases:
        data = {**base, **changes}
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(data))
        with pytest.raises(ExperimentError, match=message):
            load_design(path)


def test_the_team_diagnosis_gives_eq5s_share_between_the_mean_team_and_the_best():
    """Floor: the exact expectation over every team (the mean team); ceiling: the best team found
    by playing them all; Eq. 5's team's share pooled over scenarios."""
    from experiments.team_diagnosis import Diagnosis, summary

    def diag(name, mean, chosen, best):
        return Diagnosis(scenario=name, agents=6, size=3, teams=20, mean_score=mean, chosen=("a", "b", "c"),
                         chosen_score=chosen, chosen_rank=1, best_score=best, rho=0.1, mean_bas=0.5, chosen_bas=0.6)

    results = [diag("h1", 0.5, 0.6, 0.9), diag("h2", 0.4, 0.4, 0.8), diag("h3", 0.7, 0.7, 0.7),
               diag("h4", 0.3, 0.5, 0.6), diag("h5", 0.5, 0.55, 0.9), diag("h6", 0.6, 0.7, 0.9)]
    share = summary(results)["share"]
    gain = [0.1, 0.0, 0.0, 0.2, 0.05, 0.1]
    available = [0.4, 0.4, 0.0, 0.3, 0.4, 0.3]
    assert share["share"] == pytest.approx(sum(gain) / sum(available)) and share["no_gain"] == 1
    assert share["ci"] == pytest.approx(ratio_ci(gain, available)[1:3]) and share["interval"] == "bounded"
    assert share["per_scenario"]["h3"] is None and share["per_scenario"]["h1"] == pytest.approx(0.25)
    flat = summary([diag("h3", 0.7, 0.7, 0.7)])["share"]
    assert flat["interval"] == "undefined" and math.isnan(flat["share"])


def test_the_share_figure_draws_bounded_unbounded_and_undefined_rows(tmp_path):
    from sim.analysis.plots import share_figure

    rows = [{"panel": "speedup", "label": "protom", "estimate": 0.97, "low": 0.89, "high": 1.02},
            {"panel": "speedup", "label": "random", "estimate": 0.5, "low": -math.inf, "high": math.inf},
            {"panel": "success", "label": "protom", "estimate": math.nan, "low": math.nan, "high": math.nan}]
    path = share_figure(tmp_path / "shares.png", "floor none, ceiling oracle", rows)
    assert path.stat().st_size > 1000


def test_the_share_follows_the_metrics_direction():
    """Lower is better (steps): a gain is floor - method, and a scenario whose ceiling is not
    better than its floor has no share of its own (a share of a loss would read backwards)."""
    steps = _design(metrics=[{"name": "score", "source": "metrics.score", "higher_is_better": False},
                             {"name": "cost", "source": "metrics.cost", "test": False}])
    # floor 10 steps; ceiling 6, 8, 12 (worse than the floor in s3); the method 8, 9, 10
    data = {"s1": {"f": [10.0, 10.0], "m": [8.0, 8.0], "c": [6.0, 6.0]},
            "s2": {"f": [10.0, 10.0], "m": [9.0, 9.0], "c": [8.0, 8.0]},
            "s3": {"f": [10.0, 10.0], "m": [10.0, 10.0], "c": [12.0, 12.0]}}
    analysis = analyse(_records(data), steps, {})
    per = analysis.shares["scenarios"]["score"]
    assert per["s1"]["m"] == pytest.approx(0.5) and per["s2"]["m"] == pytest.approx(0.5) and per["s3"]["m"] is None
    assert [per[s]["_available"] for s in ("s1", "s2", "s3")] == [4.0, 2.0, -2.0]
    (row,) = analysis.shares["rows"]
    # gains in the better direction: (2 + 1 + 0) / 3 over (4 + 2 - 2) / 3
    assert row["gain"] == pytest.approx(1.0) and row["available"] == pytest.approx(4 / 3)
    assert row["share"] == pytest.approx(3 / 4) and row["no_gain"] == 1
    text = share_markdown(analysis)
    assert "+1.000 / +1.333" in text and "score: lower is better" in text and "| s3 |  | -2.00 | — |" in text
    # the same numbers with higher as better: the signs of both gains turn, the pooled share does not
    up = analyse(_records(data), _design(metrics=[{"name": "score", "source": "metrics.score",
                                                   "higher_is_better": True},
                                                  {"name": "cost", "source": "metrics.cost", "test": False}]), {})
    (row_up,) = up.shares["rows"]
    assert row_up["gain"] == pytest.approx(-1.0) and row_up["share"] == pytest.approx(row["share"])
    assert (row_up["low"], row_up["high"]) == pytest.approx((row["low"], row["high"]))
    # higher as better: only s3's ceiling is above its floor, so only s3 has a share of its own
    assert {s: v["m"] for s, v in up.shares["scenarios"]["score"].items()} == {"s1": None, "s2": None, "s3": 0.0}
