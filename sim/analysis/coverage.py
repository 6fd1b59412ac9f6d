"""The coverage simulation that chose the interval of paired differences (docs/experiments.md,
"Choosing the interval when many pairs are identical"): samples of n paired differences where
each pair is identical (difference exactly 0) with a given probability and the others come from
a declared distribution; the share of samples whose interval holds the true mean.

Every candidate is computed for all replicates of a cell at once: the sign-flip interval is the
shipped ``signflip_intervals``; t, percentile and BCa are vectorised here (BCa as
``scipy.stats.bootstrap(method='BCa')`` computes it: bias from the share of resampled means below
the mean, acceleration from the jackknife)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sim.analysis.stats import signflip_intervals

NS = (8, 12, 16, 23)
TIE_RATES = (0.0, 0.2, 0.4, 0.6, 0.8)
CANDIDATES = ("signflip", "t", "bca", "percentile")


@dataclass(frozen=True, slots=True)
class Source:
    """The distribution of a non-identical pair's difference, and its mean."""

    name: str
    draw: Callable[[np.random.Generator, tuple[int, int]], np.ndarray]
    mean: float
    family: bool          # true mean 0 and symmetric: inside the family the guarantee covers


DISCRETE = np.array([-1.0, -0.5, 0.5, 1.0])
SOURCES = (
    Source("normal", lambda rng, shape: rng.normal(0.0, 1.0, shape), 0.0, True),
    Source("discrete", lambda rng, shape: rng.choice(DISCRETE, size=shape), 0.0, True),
    Source("t3", lambda rng, shape: rng.standard_t(3, shape), 0.0, True),
    Source("normal+0.5", lambda rng, shape: rng.normal(0.5, 1.0, shape), 0.5, False),
    Source("discrete P(+)=0.7", lambda rng, shape: rng.choice(DISCRETE, size=shape, p=[0.15, 0.15, 0.35, 0.35]),
           0.7 * 0.75 - 0.3 * 0.75, False),
)


def samples(source: Source, n: int, tie_rate: float, replicates: int, seed: int) -> tuple[np.ndarray, float]:
    """``replicates`` samples of n differences and their true mean."""
    rng = np.random.default_rng(seed)
    d = source.draw(rng, (replicates, n))
    d[rng.random((replicates, n)) < tie_rate] = 0.0
    return d, (1.0 - tie_rate) * source.mean


def intervals(method: str, x: np.ndarray, *, confidence: float = 0.95, resamples: int = 2000,
              seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The ``method``'s interval of the mean of every row of ``x`` (a row of equal values: that
    value, as ``mean_ci`` gives)."""
    from scipy import special, stats as st

    r, n = x.shape
    mean = x.mean(axis=1)
    if method == "signflip":
        low, high = np.empty(r), np.empty(r)
        for start in range(0, r, 500):  # bounded memory: 500 rows x 4095 subset means at a time
            lo, hi = signflip_intervals(x[start:start + 500], confidence=confidence, resamples=resamples, seed=seed)
            low[start:start + 500], high[start:start + 500] = lo, hi
    elif method == "t":
        half = st.t.ppf(0.5 + confidence / 2, n - 1) * x.std(axis=1, ddof=1) / math.sqrt(n)
        low, high = mean - half, mean + half
    else:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n, size=(resamples, n))
        boot = np.stack([x[:, i].mean(axis=1) for i in idx], axis=1)        # r x resamples
        tail = (1 - confidence) / 2
        if method == "percentile":
            low, high = np.quantile(boot, tail, axis=1), np.quantile(boot, 1 - tail, axis=1)
        elif method == "bca":
            below = ((boot < mean[:, None]).sum(axis=1) + (boot <= mean[:, None]).sum(axis=1)) / (2 * resamples)
            with np.errstate(divide="ignore", invalid="ignore"):
                z0 = special.ndtri(below)
                jack = (x.sum(axis=1, keepdims=True) - x) / (n - 1)
                dev = jack.mean(axis=1, keepdims=True) - jack
                accel = (dev ** 3).sum(axis=1) / (6 * (dev ** 2).sum(axis=1) ** 1.5)
                ends = []
                for z in (special.ndtri(tail), special.ndtri(1 - tail)):
                    level = special.ndtr(z0 + (z0 + z) / (1 - accel * (z0 + z)))
                    ends.append(np.array([np.percentile(b, 100 * q) if q == q else math.nan
                                          for b, q in zip(boot, level)]))
                low, high = ends
        else:
            raise ValueError(f"no such candidate: {method!r}")
    flat = np.all(x == x[:, :1], axis=1)
    low, high = np.where(flat, x[:, 0], low), np.where(flat, x[:, 0], high)
    return low, high


def coverage(method: str, source: Source, n: int, tie_rate: float, *, replicates: int = 2000,
             resamples: int = 2000, seed: int = 0) -> float:
    """The share of ``replicates`` samples whose ``method`` interval holds the true mean (a nan
    interval, BCa's when every resample gives the mean, counts as not covering)."""
    x, truth = samples(source, n, tie_rate, replicates, seed)
    low, high = intervals(method, x, resamples=resamples, seed=seed + 1)
    return float(np.mean((low <= truth + 1e-12) & (truth - 1e-12 <= high)))


def cell_seed(source: Source, n: int, tie_rate: float) -> int:
    return 1000 * SOURCES.index(source) + 10 * n + int(round(10 * tie_rate))


def band(n: int, tie_rate: float) -> tuple[float, float]:
    """The declared acceptance band of a cell of the family: [0.93, 0.97] where a sample holds at
    least 6 non-identical pairs on average, else at least 0.93 (too few to reject anything)."""
    return (0.93, 0.97) if n * (1 - tie_rate) >= 6 else (0.93, 1.0)
