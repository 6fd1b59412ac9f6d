"""Statistics for comparing conditions (seed 003, Section 4.4): Fisher's exact test for
success rates, the Mann-Whitney U test for other metrics, Benjamini-Hochberg correction
for many tests at once (all from scipy), and means with standard errors."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats


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
    return float(stats.fisher_exact(table, alternative="two-sided").pvalue)


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the Mann-Whitney U test; 1.0 when both samples are constant and equal
    (scipy reports nan there: no evidence of a difference)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(x) == 0 or len(y) == 0:
        raise ValueError("Mann-Whitney U needs two non-empty samples")
    if np.ptp(np.concatenate([x, y])) == 0:
        return 1.0
    return float(stats.mannwhitneyu(x, y, alternative="two-sided").pvalue)


def benjamini_hochberg(p_values: Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), in the input order."""
    p = np.asarray(p_values, dtype=float)
    if len(p) == 0:
        return p
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
