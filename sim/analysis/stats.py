"""Statistics for comparing conditions: Fisher's exact test and the Mann-Whitney U test
(seed 003, Section 4.4), the paired tests the experiment runner uses on one value per
scenario (Wilcoxon signed-rank, the exact sign test, McNemar's exact test), Benjamini-Hochberg
correction, means with standard errors, effect sizes and bootstrap intervals by unit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class MeanSem:
    mean: float
    sem: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.2f} ± {self.sem:.2f}"


def mean_sem(values: Sequence[float]) -> MeanSem:
    """Mean and standard error of the mean (0 for fewer than two values)."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return MeanSem(math.nan, math.nan, 0)
    sem = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0
    return MeanSem(float(x.mean()), sem, len(x))


def fisher_exact(successes_a: int, n_a: int, successes_b: int, n_b: int) -> float:
    """Two-sided p-value of Fisher's exact test on the 2x2 table of successes and failures."""
    for name, s, n in (("a", successes_a, n_a), ("b", successes_b, n_b)):
        if not 0 <= s <= n:
            raise ValueError(f"group {name}: successes must be between 0 and {n}, got {s}")
    table = [[successes_a, n_a - successes_a], [successes_b, n_b - successes_b]]
    from scipy import stats  # imported where used (1.5-2 s)
    return float(stats.fisher_exact(table, alternative="two-sided").pvalue)


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test; 1.0 when both samples are constant and equal
    (scipy reports nan there: no evidence of a difference)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(x) == 0 or len(y) == 0:
        raise ValueError("Mann-Whitney U needs two non-empty samples")
    if np.ptp(np.concatenate([x, y])) == 0:
        return 1.0
    from scipy import stats  # imported where used (1.5-2 s)
    return float(stats.mannwhitneyu(x, y, alternative="two-sided").pvalue)


def benjamini_hochberg(p_values: Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), in the input order."""
    p = np.asarray(p_values, dtype=float)
    if len(p) == 0:
        return p
    from scipy import stats  # imported where used (1.5-2 s)
    return np.asarray(stats.false_discovery_control(p, method="bh"), dtype=float)


def stars(p: float) -> str:
    """The significance marks of the paper's figures."""
    if p < 0.001:
        return "***"
    if p < 0.01:
        return "**"
    if p < 0.05:
        return "*"
    return ""


# ---------------------------------------------------------------------- paired tests by unit
#
# Episodes of one scenario share its layout; seeds of one scenario are not independent samples.
# The functions below take one value per unit (scenario), already aggregated over its seeds.


@dataclass(frozen=True, slots=True)
class TestResult:
    """A two-sided test: its name, statistic, p-value and the number of units it used."""

    test: str
    statistic: float
    p: float
    n: int


def wilcoxon_signed_rank(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Wilcoxon signed-rank test on paired values ``a[i]`` vs ``b[i]`` (two-sided; zero
    differences dropped, as Wilcoxon did; exact distribution when scipy can use it). ``n`` is the
    number of pairs; p = 1 when every difference is zero (no evidence of a difference)."""
    x, y = _paired(a, b)
    d = x - y
    nonzero = d[d != 0]
    if len(nonzero) == 0:
        return TestResult("wilcoxon_signed_rank", 0.0, 1.0, len(d))
    from scipy import stats  # imported where used (1.5-2 s)
    ranks = stats.rankdata(np.abs(nonzero))
    if (len(nonzero) <= SIGN_FLIPS_UP_TO and np.isfinite(nonzero).all()
            and len(np.unique(ranks)) < len(ranks)):
        # tied differences: scipy's own choice there, every sign flip counted (its permutation
        # test, which computes the statistic over each of the 2^n flips one array at a time)
        plus = float(ranks[nonzero > 0].sum())
        p = _signed_rank_flips_p(ranks, plus)
        return TestResult("wilcoxon_signed_rank", min(plus, float(ranks.sum()) - plus), p, len(d))
    res = stats.wilcoxon(nonzero, zero_method="wilcox", alternative="two-sided")
    return TestResult("wilcoxon_signed_rank", float(res.statistic), float(res.pvalue), len(d))


#: the most pairs whose tied signed ranks get the exact test over every sign flip: as in
#: ``scipy.stats.wilcoxon``, which takes the normal approximation above it
SIGN_FLIPS_UP_TO = 13


def _signed_rank_flips_p(ranks: np.ndarray, plus: float) -> float:
    """The two-sided p-value of the signed-rank sum ``plus`` over every one of the 2^n sign
    flips of the (mid-)ranks: twice the smaller tail, at most 1, as ``scipy.stats.wilcoxon``
    computes it with tied ranks (its exact permutation test), counted by sums of the doubled
    ranks (integers: mid-ranks are halves) instead of the statistic over each flip."""
    doubled = np.rint(2 * ranks).astype(np.int64)
    counts = np.zeros(int(doubled.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    for r in doubled:  # each rank is counted in the sum (sign +) or not (sign -)
        counts[r:] = counts[r:] + counts[:len(counts) - r].copy()
    observed = int(round(2 * plus))
    flips = 2 ** len(ranks)
    below, above = int(counts[:observed + 1].sum()), int(counts[observed:].sum())
    return float(min(1.0, min(below / flips, above / flips) * 2))


def sign_test(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Exact sign test on paired values: under H0 a positive and a negative difference are equally
    likely; ties carry no information and are dropped. On 0/1 pairs this is McNemar's exact test
    (the discordant pairs). The statistic is the number of positive differences."""
    x, y = _paired(a, b)
    d = x - y
    pos, neg = int((d > 0).sum()), int((d < 0).sum())
    if pos + neg == 0:
        return TestResult("sign_test", 0.0, 1.0, len(d))
    from scipy import stats  # imported where used (1.5-2 s)
    p = float(stats.binomtest(pos, pos + neg, 0.5, alternative="two-sided").pvalue)
    return TestResult("sign_test", float(pos), min(1.0, p), len(d))


def mcnemar_exact(a: Sequence[int], b: Sequence[int]) -> TestResult:
    """McNemar's exact test on paired binary outcomes (``a[i]``, ``b[i]`` in {0, 1}): a binomial
    test of the discordant pairs. The statistic is min(b01, b10), as usually reported."""
    x, y = _paired(a, b)
    if not (np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all()):
        raise ValueError("McNemar's test needs 0/1 outcomes; use sign_test for rates")
    b10, b01 = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    if b10 + b01 == 0:
        return TestResult("mcnemar_exact", 0.0, 1.0, len(x))
    from scipy import stats  # imported where used (1.5-2 s)
    p = float(stats.binomtest(b10, b10 + b01, 0.5, alternative="two-sided").pvalue)
    return TestResult("mcnemar_exact", float(min(b10, b01)), min(1.0, p), len(x))


def rank_biserial(a: Sequence[float], b: Sequence[float]) -> float:
    """Matched-pairs rank-biserial correlation (effect size of the signed-rank test):
    (W+ - W-) / (W+ + W-) over the non-zero differences, in [-1, 1]; 0 when all are zero."""
    x, y = _paired(a, b)
    d = (x - y)[x != y]
    if len(d) == 0:
        return 0.0
    from scipy import stats  # imported where used (1.5-2 s)
    ranks = stats.rankdata(np.abs(d))
    w_plus, w_minus = ranks[d > 0].sum(), ranks[d < 0].sum()
    return float((w_plus - w_minus) / (w_plus + w_minus))


def bootstrap_ci(values: Sequence[float], *, resamples: int = 2000, confidence: float = 0.95,
                 seed: int = 0, statistic=np.mean) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of ``statistic`` over units: each resample draws
    len(values) units with replacement (for paired differences per scenario: resampling by
    scenario). Deterministic for a given ``seed``."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), size=(resamples, len(x)))
    stat = np.asarray(statistic(x[idx], axis=1), dtype=float)
    tail = (1 - confidence) / 2
    return (float(np.quantile(stat, tail)), float(np.quantile(stat, 1 - tail)))


def bootstrap_diff_ci(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000,
                      confidence: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(a) - mean(b) for two independent sets of units
    (each resampled on its own)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(x) == 0 or len(y) == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    mx = x[rng.integers(0, len(x), size=(resamples, len(x)))].mean(axis=1)
    my = y[rng.integers(0, len(y), size=(resamples, len(y)))].mean(axis=1)
    tail = (1 - confidence) / 2
    return (float(np.quantile(mx - my, tail)), float(np.quantile(mx - my, 1 - tail)))


#: the interval methods. ``auto`` is Student's t (Welch's for two independent sets) at every n:
#: chosen by the coverage simulation (docs/experiments.md, "Choosing the interval when many pairs
#: are identical"; tests/test_interval_coverage.py): with 0-80 % identical pairs and a true
#: difference of 0 it holds 0 in 0.935-0.973 of samples at n = 8-23, where BCa falls to 0.80 and
#: the percentile bootstrap to 0.86, and the sign-flip interval reaches 0.98 (discrete differences)
CI_METHODS = ("auto", "t", "bca", "percentile", "signflip")
#: up to this many values the sign-flip interval uses every subset (2^12 - 1 = 4095 means), above
#: it ``resamples`` random ones
SIGNFLIP_EXACT_N = 12


def _method(method: str) -> str:
    if method not in CI_METHODS:
        raise ValueError(f"interval method must be one of {', '.join(CI_METHODS)}, got {method!r}")
    return "t" if method == "auto" else method


def signflip_subsets(n: int, *, resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """The subsets whose means bound the sign-flip interval of ``n`` values, as a 0/1 matrix (one
    row per subset): every non-empty subset for n <= ``SIGNFLIP_EXACT_N``, else ``resamples``
    random non-empty ones (each value in with probability 1/2; deterministic by ``seed``)."""
    if n <= SIGNFLIP_EXACT_N:
        codes = np.arange(1, 2 ** n, dtype=np.int64)
        return ((codes[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(float)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 2, size=(resamples, n)).astype(float)
    empty = rows.sum(axis=1) == 0
    while empty.any():  # redraw the (2^-n rare) empty subsets
        rows[empty] = rng.integers(0, 2, size=(int(empty.sum()), n))
        empty = rows.sum(axis=1) == 0
    return rows


def signflip_intervals(samples: np.ndarray, *, confidence: float = 0.95, resamples: int = 2000,
                       seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Sign-flip intervals of the mean of each row of ``samples``: every mu that the
    two-sided sign-flip test of the mean (Fisher-Pitman: under "no effect" the signs of the
    differences from mu are exchangeable) does not reject at 1 - ``confidence``. By Hartigan's
    (1969) identity the sum's sign-flip distribution crosses the observed sum exactly at the means
    of the subsets of the values, so the bounds are order statistics of the subset means: the
    k-th smallest and k-th largest of the 2^n - 1 means with k = floor(2^n (1 - confidence) / 2)
    (coverage 1 - 2k / 2^n for symmetric differences, more with ties), or of ``resamples`` random
    subsets' means above ``SIGNFLIP_EXACT_N`` values. Identical pairs (zero differences) carry no
    sign and only pull the subset means towards 0. k = 0 (too few values to reject anything):
    (-inf, inf). A candidate of the coverage simulation (``method='signflip'``), not the default:
    with discrete differences it is conservative (0.97-0.98 where 0.95 is asked)."""
    x = np.atleast_2d(np.asarray(samples, dtype=float))
    subsets = signflip_subsets(x.shape[1], resamples=resamples, seed=seed)
    total = subsets.shape[0] + 1      # the subsets' means cut the line into this many pieces
    k = int(math.floor(total * (1 - confidence) / 2 + 1e-9))
    if k == 0:
        return np.full(len(x), -math.inf), np.full(len(x), math.inf)
    means = (x @ subsets.T) / subsets.sum(axis=1)
    ends = np.partition(means, (k - 1, total - 1 - k), axis=1)
    return ends[:, k - 1], ends[:, total - 1 - k]


def mean_ci(values: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0,
            method: str = "auto") -> tuple[float, float, str]:
    """Confidence interval of the mean of ``values`` (one per unit: paired differences per
    scenario) and the method used: ``t`` (Student's t, n - 1 degrees of freedom; what ``auto``
    takes), ``signflip`` (``signflip_intervals``), ``bca`` (scipy.stats.bootstrap with
    method='BCa', units resampled, deterministic by ``seed``) or ``percentile``. All values equal:
    the interval is that value; fewer than two units: nan."""
    from scipy import stats as st

    x = np.asarray(values, dtype=float)
    chosen = _method(method)
    if len(x) < 2:
        return (math.nan, math.nan, chosen)
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]), chosen)
    if chosen == "signflip":
        low, high = signflip_intervals(x[None, :], confidence=confidence, resamples=resamples, seed=seed)
        return (float(low[0]), float(high[0]), chosen)
    if chosen == "t":
        half = float(st.t.ppf(0.5 + confidence / 2, len(x) - 1)) * float(x.std(ddof=1)) / math.sqrt(len(x))
        return (float(x.mean()) - half, float(x.mean()) + half, chosen)
    if chosen == "percentile":
        return (*bootstrap_ci(values, resamples=resamples, confidence=confidence, seed=seed), chosen)
    res = st.bootstrap((x,), np.mean, method="BCa", n_resamples=resamples, confidence_level=confidence,
                       random_state=np.random.default_rng(seed))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high), chosen)


def stratified_ci(strata: Sequence[tuple[Sequence[float], float]], *, confidence: float = 0.95
                  ) -> tuple[float, float, float]:
    """Sum of c_g * mean(x_g) over independent strata ``(x_g, c_g)`` (a weighted mean of groups'
    means, c_g summing to 1; or a difference, with negative c_g for the second set) and its
    Student's t interval: variance sum c_g^2 s_g^2 / n_g, degrees of freedom by Welch-Satterthwaite
    (the t-interval of ``mean_ci`` and ``diff_ci`` for one or two strata). Returns (estimate, low,
    high); a stratum of one value gives a nan interval (its spread is unknown), every stratum
    constant the estimate itself."""
    from scipy import stats as st

    estimate, var, df_den = 0.0, 0.0, 0.0
    unknown = False
    for values, c in strata:
        x = np.asarray(values, dtype=float)
        if len(x) == 0:
            raise ValueError("stratified_ci: a stratum has no values")
        estimate += c * float(x.mean())
        if len(x) < 2:
            unknown = True
            continue
        term = c * c * float(x.var(ddof=1)) / len(x)
        var += term
        df_den += term * term / (len(x) - 1)
    if unknown:
        return (estimate, math.nan, math.nan)
    if var == 0:
        return (estimate, estimate, estimate)
    half = float(st.t.ppf(0.5 + confidence / 2, var * var / df_den)) * math.sqrt(var)
    return (estimate, estimate - half, estimate + half)


def diff_ci(a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000,
            seed: int = 0, method: str = "auto") -> tuple[float, float, str]:
    """Interval of mean(a) - mean(b) for two independent sets of units and the method used:
    ``t`` (Welch), ``bca`` (two-sample BCa bootstrap, each set resampled on its own) or
    ``percentile``; ``auto``: Welch at every n (BCa undercovers at n = 23 already for paired
    differences, 0.89-0.93 without identical pairs; the sign-flip interval needs pairs)."""
    from scipy import stats as st

    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    chosen = _method(method)
    if chosen == "signflip":
        raise ValueError("the sign-flip interval is for paired differences (mean_ci), not two independent sets")
    if len(x) < 2 or len(y) < 2:
        return (math.nan, math.nan, chosen)
    d = float(x.mean() - y.mean())
    vx, vy = float(x.var(ddof=1)) / len(x), float(y.var(ddof=1)) / len(y)
    if vx + vy == 0:
        return (d, d, chosen)
    if chosen == "t":
        df = (vx + vy) ** 2 / ((vx ** 2 / (len(x) - 1) if vx else 0.0) + (vy ** 2 / (len(y) - 1) if vy else 0.0))
        half = float(st.t.ppf(0.5 + confidence / 2, df)) * math.sqrt(vx + vy)
        return (d - half, d + half, chosen)
    if chosen == "percentile":
        return (*bootstrap_diff_ci(a, b, resamples=resamples, confidence=confidence, seed=seed), chosen)
    res = st.bootstrap((x, y), lambda p, q, axis=-1: p.mean(axis=axis) - q.mean(axis=axis), method="BCa",
                       n_resamples=resamples, confidence_level=confidence, vectorized=True,
                       random_state=np.random.default_rng(seed))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high), chosen)


def unit_means(values: Sequence[float], units: Sequence[object]) -> dict[object, float]:
    """The mean of ``values`` per unit (e.g. a scenario's seeds), in first-seen unit order."""
    if len(values) != len(units):
        raise ValueError(f"{len(values)} values but {len(units)} unit labels")
    sums: dict[object, list[float]] = {}
    for v, u in zip(values, units):
        sums.setdefault(u, []).append(float(v))
    return {u: float(np.mean(vs)) for u, vs in sums.items()}


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired tests need two equally long sequences, got {len(x)} and {len(y)}")
    if len(x) == 0:
        raise ValueError("paired tests need at least one pair")
    return x, y


def ratio_ci(numerator: Sequence[float], denominator: Sequence[float], *, confidence: float = 0.95
             ) -> tuple[float, float, float, str]:
    """Fieller's interval of mean(numerator) / mean(denominator) for paired values (one pair per
    unit): every R that the paired t-test of numerator - R * denominator = 0 does not reject, so it
    is the t-interval of ``mean_ci`` turned into a ratio and keeps its coverage where many pairs
    are identical. Returns (estimate, low, high, kind): ``bounded``; ``unbounded`` (the mean
    denominator is not distinguishable from 0 at this confidence: the set is the whole line or two
    half-lines, given as (-inf, inf)); ``undefined`` (mean denominator 0: estimate nan);
    ``exact`` (every pair has the same ratio without spread: the interval is the estimate); fewer
    than two pairs: nan bounds."""
    from scipy import stats as st

    a, b = _paired(numerator, denominator)
    n = len(a)
    mb = float(b.mean())
    if mb == 0:
        return (math.nan, math.nan, math.nan, "undefined")
    estimate = float(a.mean()) / mb
    if n < 2:
        return (estimate, math.nan, math.nan, "bounded")
    ma = float(a.mean())
    saa, sbb = float(a.var(ddof=1)), float(b.var(ddof=1))
    sab = float(np.cov(a, b, ddof=1)[0, 1])
    if saa == 0 and sbb == 0:
        return (estimate, estimate, estimate, "exact")
    t2 = float(st.t.ppf(0.5 + confidence / 2, n - 1)) ** 2 / n
    qa = mb * mb - t2 * sbb
    qb = ma * mb - t2 * sab
    qc = ma * ma - t2 * saa
    disc = qb * qb - qa * qc
    if qa <= 0 or disc < 0:
        return (estimate, -math.inf, math.inf, "unbounded")
    root = math.sqrt(disc)
    return (estimate, (qb - root) / qa, (qb + root) / qa, "bounded")
