"""Known answers for every statistic the experiment runner uses, and the unit of replication:
seeds of one scenario are averaged before any test, so n counts scenarios."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from experiments.design import Design
from experiments.stats import analyse, comparisons_markdown, mix_markdown, summary_markdown
from sim.analysis.stats import (
    benjamini_hochberg,
    bootstrap_ci,
    bootstrap_diff_ci,
    diff_ci,
    fisher_exact,
    mann_whitney,
    mcnemar_exact,
    mean_ci,
    mean_sem,
    rank_biserial,
    sign_test,
    signflip_intervals,
    stars,
    stratified_ci,
    unit_means,
    wilcoxon_signed_rank,
)


def test_wilcoxon_signed_rank_exact_by_hand_and_like_scipy():
    # differences 1..8 with the 6 negative: W- = 6, W+ = 30; 14 of the 256 sign patterns have a
    # rank sum <= 6, so the exact two-sided p is 2 * 14 / 256.
    a = [1, 2, 3, 4, 5, 0, 7, 8]
    b = [0, 0, 0, 0, 0, 6, 0, 0]
    r = wilcoxon_signed_rank(a, b)
    assert (r.statistic, r.n) == (6.0, 8)
    assert r.p == pytest.approx(28 / 256)
    assert r.p == pytest.approx(stats.wilcoxon(np.subtract(a, b)).pvalue)
    # zero differences are dropped (Wilcoxon's method); all zero: no evidence, p = 1
    r = wilcoxon_signed_rank([1, 2, 3, 5], [1, 1, 1, 1])
    assert r.p == pytest.approx(stats.wilcoxon([1, 2, 4], zero_method="wilcox").pvalue) and r.n == 4
    assert wilcoxon_signed_rank([3, 3], [3, 3]).p == 1.0
    with pytest.raises(ValueError, match="equally long"):
        wilcoxon_signed_rank([1, 2], [1])


def test_tied_signed_ranks_give_scipys_exact_p_value_to_the_last_bit():
    # with tied differences and up to 13 pairs scipy counts every sign flip (a permutation
    # test); the project counts them by the sums of the ranks: the same float, bit for bit
    rng = np.random.default_rng(7)
    by_hand = wilcoxon_signed_rank([2, 2, 1, 3, 0], [0, 0, 0, 0, 1])  # differences 2, 2, 1, 3, -1
    # ranks of |d|: 1.5 (1), 1.5 (-1), 3.5, 3.5, 5; W- = 1.5: 2 of the 32 flips reach 1.5 or less
    assert (by_hand.statistic, by_hand.p) == (1.5, 2 * 3 / 32)
    tied = 0
    for trial in range(160):
        n = int(rng.integers(1, 11)) if trial % 8 else int(rng.integers(11, 17))
        if trial % 2:
            a, b = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
        else:
            a, b = rng.integers(0, 3, n) / 2, np.round(rng.normal(size=n), 1)
        d = a - b
        if not (d != 0).any():
            continue
        mine = wilcoxon_signed_rank(a, b)
        theirs = stats.wilcoxon(d[d != 0], zero_method="wilcox", alternative="two-sided")
        assert (mine.statistic, mine.p) == (float(theirs.statistic), float(theirs.pvalue)), (a, b)
        nonzero = np.abs(d[d != 0])
        tied += len(np.unique(nonzero)) < len(nonzero) <= 13
    assert tied > 60  # the counted branch was taken
    # a value that is not a number is left to scipy, as before (its p is not a number)
    with_nan = wilcoxon_signed_rank([1, 2, float("nan"), 4, 2], [0, 0, 0, 0, 0])
    assert math.isnan(with_nan.p) and math.isnan(stats.wilcoxon([1, 2, float("nan"), 4, 2]).pvalue)

def test_sign_and_mcnemar_tests_are_exact_binomial_tests():
    # McNemar on 10 discordant pairs split 9 / 1: p = 2 * (1 + 10) / 2**10
    a = [1] * 9 + [0] + [1] * 5 + [0] * 5
    b = [0] * 9 + [1] + [1] * 5 + [0] * 5
    r = mcnemar_exact(a, b)
    assert r.p == pytest.approx(22 / 1024) and r.statistic == 1 and r.n == 20
    assert sign_test(a, b).p == pytest.approx(22 / 1024)  # the same test on 0/1 pairs
    # the sign test on rates: 5 scenarios better, 0 worse, 3 ties -> 2 / 2**5
    rates_a = [0.9, 0.8, 1.0, 0.7, 0.6, 0.5, 0.5, 1.0]
    rates_b = [0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.5, 1.0]
    assert sign_test(rates_a, rates_b).p == pytest.approx(2 / 32)
    assert sign_test(rates_a, rates_b).p == pytest.approx(stats.binomtest(5, 5).pvalue)
    assert mcnemar_exact([1, 0], [1, 0]).p == 1.0
    with pytest.raises(ValueError, match="0/1"):
        mcnemar_exact([0.5], [1])


def test_effect_sizes_and_bootstrap_intervals():
    assert rank_biserial([1, 2, 3, 4, 5, 0, 7, 8], [0, 0, 0, 0, 0, 6, 0, 0]) == pytest.approx((30 - 6) / 36)
    assert rank_biserial([1, 1], [1, 1]) == 0.0
    assert bootstrap_ci([2.0] * 7) == (2.0, 2.0)
    # a large sample: the percentile interval of the mean is close to the normal one, and to scipy's
    rng = np.random.default_rng(1)
    x = rng.normal(1.0, 2.0, size=400)
    low, high = bootstrap_ci(x, resamples=4000, seed=3)
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    assert low == pytest.approx(x.mean() - half, abs=0.03) and high == pytest.approx(x.mean() + half, abs=0.03)
    ref = stats.bootstrap((x,), np.mean, n_resamples=4000, method="percentile", random_state=5).confidence_interval
    assert low == pytest.approx(ref.low, abs=0.03) and high == pytest.approx(ref.high, abs=0.03)
    assert bootstrap_ci(x, seed=3) == bootstrap_ci(x, seed=3)  # deterministic by seed
    lo, hi = bootstrap_diff_ci([5.0] * 5, [2.0] * 9)
    assert (lo, hi) == (3.0, 3.0)
    assert unit_means([1, 3, 10, 20, 5], ["a", "a", "b", "b", "c"]) == {"a": 2.0, "b": 15.0, "c": 5.0}


def test_every_n_gets_a_t_interval_by_default_and_each_method_says_which():
    x = [0.3, -0.1, 0.5, 0.2, 0.9, 0.4, 0.0, 0.6]
    low, high, method = mean_ci(x)
    ref = stats.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
    assert method == "t" and (low, high) == pytest.approx(ref)
    assert mean_ci([2.0] * 5) == (2.0, 2.0, "t") and mean_ci([1.0])[2] == "t" and math.isnan(mean_ci([1.0])[0])
    big = np.random.default_rng(2).exponential(1.0, size=30)
    ref = stats.t.interval(0.95, len(big) - 1, loc=np.mean(big), scale=stats.sem(big))
    assert mean_ci(big, seed=4)[2] == "t" and mean_ci(big, seed=4)[:2] == pytest.approx(ref)
    low, high, method = mean_ci(big, seed=4, method="bca")
    ref = stats.bootstrap((big,), np.mean, method="BCa", n_resamples=2000,
                          random_state=np.random.default_rng(4)).confidence_interval
    assert method == "bca" and (low, high) == pytest.approx((ref.low, ref.high))
    a, b = [1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    low, high, method = diff_ci(a, b)
    ref = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert method == "t" and (low, high) == pytest.approx((ref.low, ref.high))
    a, b = list(np.arange(25.0)), list(np.arange(30.0) / 2)
    ref = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert diff_ci(a, b)[2] == "t" and diff_ci(a, b)[:2] == pytest.approx((ref.low, ref.high))
    assert diff_ci([5.0] * 5, [2.0] * 9) == (3.0, 3.0, "t")
    with pytest.raises(ValueError, match="interval method must be one of"):
        mean_ci(x, method="normal")
    with pytest.raises(ValueError, match="paired differences"):
        diff_ci(a, b, method="signflip")


def test_the_sign_flip_interval_is_the_inversion_of_the_exact_sign_flip_test():
    """Every mu whose exact sign-flip test (all 2^8 sign patterns of x - mu, two-sided p = twice
    the smaller tail) gives p > 0.05, on a grid: the bounds are two of the subset means."""
    import itertools

    x = np.array([0.3, -0.1, 0.5, 0.2, 0.9, 0.4, 0.0, 0.6])
    signs = np.array(list(itertools.product([1, -1], repeat=len(x))))

    def p(mu: float) -> float:
        d = x - mu
        flipped, observed = signs @ d, d.sum()
        return 2 * min((flipped >= observed - 1e-12).mean(), (flipped <= observed + 1e-12).mean())

    accepted = [mu for mu in np.linspace(-0.2, 0.9, 2201) if p(mu) > 0.05]
    low, high, method = mean_ci(x, method="signflip")
    assert method == "signflip"
    assert low == pytest.approx(min(accepted), abs=6e-4) and high == pytest.approx(max(accepted), abs=6e-4)
    assert (low, high) == pytest.approx((0.2 / 3, 1.9 / 3))  # means of {-0.1, 0.0, 0.3}, {0.4, 0.6, 0.9}
    # above 12 values, random subsets (deterministic by seed), close to the exact bounds' spread
    y = np.random.default_rng(5).normal(size=20)
    lo, hi = signflip_intervals(y[None, :], seed=1)
    assert (lo[0], hi[0]) == tuple(x[0] for x in signflip_intervals(y[None, :], seed=1))
    t_low, t_high, _ = mean_ci(y)
    assert lo[0] == pytest.approx(t_low, abs=0.1) and hi[0] == pytest.approx(t_high, abs=0.1)
    # too few values to reject anything: the whole line
    assert signflip_intervals(np.array([[1.0, 2.0, 3.0]]))[0][0] == -math.inf


def test_the_t_interval_covers_at_n_6_to_10_where_the_percentile_bootstrap_does_not():
    """400 samples of n = 6, 8, 10 from a normal with mean 1: the percentile bootstrap's 95%
    interval covers the mean about 0.85 of the time, the t-interval about 0.95."""
    rng = np.random.default_rng(7)
    for n in (6, 8, 10):
        covered = {"t": 0, "percentile": 0}
        for k in range(400):
            x = rng.normal(1.0, 1.0, size=n)
            for method in covered:
                low, high, _ = mean_ci(x, method=method, resamples=500, seed=k)
                covered[method] += low <= 1.0 <= high
        assert covered["percentile"] / 400 < 0.91
        assert covered["t"] / 400 > 0.92


def test_existing_statistics():
    assert fisher_exact(10, 10, 0, 10) == pytest.approx(1.0825e-05, rel=1e-3)
    assert fisher_exact(5, 10, 5, 10) == 1.0
    with pytest.raises(ValueError, match="between 0 and 10"):
        fisher_exact(11, 10, 0, 10)
    assert mann_whitney([1, 1, 1], [1, 1, 1]) == 1.0
    assert mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(0.0079, abs=1e-4)
    np.testing.assert_allclose(benjamini_hochberg([0.01, 0.04, 0.03]), [0.03, 0.04, 0.04])
    m = mean_sem([1.0, 2.0, 3.0])
    assert (m.mean, m.n) == (2.0, 3) and m.sem == pytest.approx(1 / np.sqrt(3))
    assert [stars(p) for p in (0.0005, 0.005, 0.02, 0.2)] == ["***", "**", "*", ""]


def _design(**extra) -> Design:
    return Design.model_validate({
        "experiment": "toy", "scenarios": ["*"], "seeds": {"count": 3},
        "conditions": [{"name": "a"}, {"name": "b"}], "reference": "a",
        "metrics": [{"name": "score", "source": "metrics.score"},
                    {"name": "success", "source": "outcome.success", "kind": "binary"}], **extra})


def _records(per_scenario: dict[str, dict[str, list[tuple[float, int]]]]) -> list[dict]:
    rows = []
    for s, by_cond in per_scenario.items():
        for c, values in by_cond.items():
            for seed, (score, success) in enumerate(values):
                rows.append({"key": f"{s}|{c}|{seed}", "scenario": s, "condition": c, "seed": seed,
                             "values": {"score": score, "success": success}})
    return rows


def test_seeds_are_averaged_before_testing_so_n_counts_scenarios():
    # 6 scenarios x 3 seeds; b scores 1 lower on 5 scenarios and 1 higher on one (each seed identical:
    # pseudo-replicated episodes must not make the test any stronger than 6 scenarios allow).
    data = {f"s{i}": {"a": [(10.0 + i, 1)] * 3, "b": [(9.0 + i if i else 11.0, 1 if i % 2 else 0)] * 3}
            for i in range(6)}
    design = _design()
    analysis = analyse(_records(data), design, {})
    score = next(t for t in analysis.tests if t["metric"] == "score")
    assert (score["n"], score["unit"], score["test"]) == (6, "scenario pairs", "wilcoxon_signed_rank")
    # differences +1 x5 and -1 once: all ranks tie at 3.5; W- = 3.5
    assert score["p"] == pytest.approx(stats.wilcoxon([1, 1, 1, 1, 1, -1]).pvalue, rel=1e-5)
    assert score["mean_difference"] == pytest.approx(4 / 6, abs=1e-6)
    success = next(t for t in analysis.tests if t["metric"] == "success")
    # 3 seeds per scenario: success rates per scenario, tested with the exact sign test (3 scenarios
    # where a succeeds and b fails, none the other way)
    assert success["test"] == "sign_test" and success["p"] == pytest.approx(2 / 8)
    # the family of 2 tests is adjusted together
    qs = benjamini_hochberg([score["p"], success["p"]])
    assert [t["p_adj"] for t in analysis.tests] == pytest.approx(list(qs), rel=1e-5)
    row = next(r for r in analysis.summary if r["condition"] == "a")
    assert (row["n_scenarios"], row["episodes"]) == (6, 18)
    assert row["score_mean"] == pytest.approx(12.5) and row["score_sem"] == pytest.approx(np.std(range(6), ddof=1)
                                                                                            / math.sqrt(6))
    table = summary_markdown(analysis, "a")
    assert "n counts scenarios" in table and "mean over its 3 seeds" in table and "| all | a | 6 | 18 |" in table
    assert "6 scenario pairs" in comparisons_markdown(analysis)


def test_one_episode_per_scenario_uses_mcnemar_and_groups_split_the_family():
    data = {f"s{i}": {"a": [(1.0, 1)], "b": [(0.0, 0 if i < 5 else 1)]} for i in range(8)}
    design = _design(seeds={"count": 1}, groups={"by": "kind", "order": ["x", "y"]})
    attrs = {f"s{i}": {"kind": "x" if i < 4 else "y"} for i in range(8)}
    analysis = analyse(_records(data), design, attrs)
    assert [g for g, _ in analysis.groups] == ["all", "x", "y"]
    all_success = next(t for t in analysis.tests if t["metric"] == "success" and t["group"] == "all")
    assert all_success["test"] == "mcnemar_exact" and all_success["p"] == pytest.approx(2 / 32)
    x_success = next(t for t in analysis.tests if t["metric"] == "success" and t["group"] == "x")
    assert x_success["n"] == 4 and x_success["p"] == pytest.approx(2 / 16)
    assert len(analysis.tests) == 6  # 3 groups x 2 metrics x 1 comparison, adjusted as one family


def test_a_stratified_t_interval_is_the_t_interval_for_one_stratum_and_welchs_for_two():
    x = [0.3, -0.1, 0.5, 0.2, 0.9, 0.4, 0.0, 0.6]
    est, low, high = stratified_ci([(x, 1.0)])
    assert est == pytest.approx(np.mean(x)) and (low, high) == pytest.approx(mean_ci(x)[:2])
    a, b = [1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert stratified_ci([(a, 1.0), (b, -1.0)])[1:] == pytest.approx(diff_ci(a, b)[:2])
    # two strata weighted 1/2 each: variance (s1^2/n1 + s2^2/n2) / 4, Welch-Satterthwaite df
    g1, g2 = [1.0, 2.0, 4.0], [10.0, 10.0, 13.0, 15.0]
    v1, v2 = np.var(g1, ddof=1) / 3 / 4, np.var(g2, ddof=1) / 4 / 4
    df = (v1 + v2) ** 2 / (v1 ** 2 / 2 + v2 ** 2 / 3)
    half = stats.t.ppf(0.975, df) * math.sqrt(v1 + v2)
    est = (np.mean(g1) + np.mean(g2)) / 2
    assert stratified_ci([(g1, 0.5), (g2, 0.5)]) == pytest.approx((est, est - half, est + half))
    assert stratified_ci([([0.0, 0.0], 0.5), ([2.0, 2.0], 0.5)]) == (1.0, 1.0, 1.0)
    assert math.isnan(stratified_ci([([1.0], 0.5), ([2.0, 3.0], 0.5)])[1])


def test_the_pooled_figures_at_another_mix_of_groups():
    """Three x scenarios where b gains nothing, one y scenario where it gains 9 and one where it
    gains 7: pooled as run (3/2) the mean gain is 16/5, 100 % of it from y; at an equal mix 4."""
    gain = {"s0": 0.0, "s1": 0.0, "s2": 0.0, "s3": 9.0, "s4": 7.0}
    data = {s: {"a": [(1.0, 1)], "b": [(1.0 + g, 1)]} for s, g in gain.items()}
    attrs = {s: {"kind": "x" if s < "s3" else "y"} for s in gain}
    design = _design(seeds={"count": 1}, reference="b",
                     groups={"by": "kind", "order": ["x", "y"], "mix": {"x": 1, "y": 1}, "mix_label": "equal"})
    analysis = analyse(_records(data), design, attrs)
    levels = {(r["metric"], r["condition"]): r for r in analysis.mix["levels"]}
    b = levels[("score", "b")]
    assert b["group_means"] == {"x": 1.0, "y": 9.0} and b["as_run"] == pytest.approx(21 / 5)
    assert b["at_mix"] == pytest.approx(5.0) and b["share"]["y"] == pytest.approx(18 / 21)
    assert b["at_mix_sem"] == pytest.approx(math.sqrt(0.25 * np.var([10.0, 8.0], ddof=1) / 2))
    cmp = next(r for r in analysis.mix["comparisons"] if r["metric"] == "score")
    assert cmp["group_differences"] == {"x": 0.0, "y": 8.0} and cmp["as_run"][0] == pytest.approx(16 / 5)
    assert cmp["at_mix"] == pytest.approx(stratified_ci([([0.0] * 3, 0.5), ([9.0, 7.0], 0.5)]))
    assert cmp["at_mix"][0] == pytest.approx(4.0)
    assert len(analysis.tests) == 6            # the mix adds no tests to the family
    table = mix_markdown(analysis)
    assert "pooled at equal" in table and "+4.000 [" in table and "| 14% / 86% |" in table
    # a mix naming a group the run does not have: said, not computed
    lone = analyse(_records({s: data[s] for s in ("s0", "s1")}), design, attrs)
    assert lone.mix["missing"] == ["y"] and "no scenario of group(s) y" in mix_markdown(lone)
    with pytest.raises(ValueError, match="groups.mix: weigh exactly the groups"):
        _design(groups={"by": "kind", "order": ["x", "y"], "mix": {"x": 1}})


def test_conditions_on_different_scenarios_are_compared_unpaired():
    data = {"s1": {"a": [(3.0, 1)]}, "s2": {"a": [(4.0, 1)]}, "s3": {"b": [(1.0, 0)]}, "s4": {"b": [(2.0, 0)]}}
    analysis = analyse(_records(data), _design(seeds={"count": 1}), {})
    score = next(t for t in analysis.tests if t["metric"] == "score")
    assert (score["paired"], score["test"], score["n"]) == (False, "mann_whitney_u", 4)
    assert score["p"] == pytest.approx(stats.mannwhitneyu([3, 4], [1, 2]).pvalue)
    assert score["mean_difference"] == pytest.approx(2.0)


def test_a_long_title_is_wrapped_inside_a_narrow_figure(tmp_path):
    import matplotlib.pyplot as plt

    from sim.analysis.plots import metric_figure, wrapped
    from sim.analysis.stats import MeanSem

    title = "CoBel-World against the household baselines on the transport tasks of TDW-MAT style (n = 24 episodes)"
    assert max(len(line) for line in wrapped(title, 3.0).splitlines()) < len(title)
    values = {m: {c: MeanSem(0.5, 0.1, 10) for c in ("a", "b")} for m in ("rate", "tokens")}
    seen = {}
    real_savefig = plt.Figure.savefig

    def keep(fig, *args, **kwargs):  # look at the figure as it is written
        fig.canvas.draw()
        box = fig.bbox
        seen["inside"] = all(box.x0 - 1 <= t.get_window_extent().x0 and t.get_window_extent().x1 <= box.x1 + 1
                             for t in fig.texts + [ax.title for ax in fig.axes] if t.get_text())
        return real_savefig(fig, *args, **kwargs)

    plt.Figure.savefig = keep
    try:
        metric_figure(tmp_path / "f.png", title, ["a", "b"], [("rate", "transport rate"),
                      ("tokens", "communication tokens per episode")], values, {"rate": {}, "tokens": {}}, "a")
    finally:
        plt.Figure.savefig = real_savefig
    assert seen["inside"] and (tmp_path / "f.png").stat().st_size > 0


def test_every_shipped_designs_conditions_get_colours_of_their_own():
    """A figure's bars take ``PALETTE`` in condition order: no two conditions of a shipped design
    may share a colour."""
    import json
    from pathlib import Path

    from sim.analysis.plots import PALETTE

    assert len(set(PALETTE)) == len(PALETTE)
    for path in sorted((Path(__file__).parents[1] / "scenarios" / "experiments").glob("*.json")):
        conditions = json.loads(path.read_text())["conditions"]
        assert len(conditions) <= len(PALETTE), f"{path.name}: {len(conditions)} conditions"
