"""The team-formation metrics of seeds 000 and 001.

- BAS (seed 000, Section 6): the team-level belief alignment of team S, the mean over its
  members of B_i(S) (Eq. 2, alignment only), and the same restricted to the members of one ToM
  level k (``bas_by_level``).
- Team stability (seed 000 Section 6; seed 001 Section 6.2): the average lifetime
  (1/m) sum_c l_c of the m teams formed in an episode, the first being the initial team of every
  agent; l_c counts the rounds from the c-th formation to the next one, or to the end of the
  episode for the last team (so an episode of R rounds without re-formation scores R, as in
  Table 4's "x / 5").
- FTM (seed 001, Section 6.2): the fraction of the other n - 1 agents whom agent i trusts. Seed
  001 scores misalignment (trusted when A_ij <= eps); with phi oriented as in seed 000 (1 =
  aligned) the same rule reads phi(i, j) >= eps. An unknown phi (no prediction resolved yet)
  is not trust.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _team_alignments(phi: np.ndarray, team: Sequence[int]) -> np.ndarray:
    """B_i(team) for each member (alignment only, unknown entries as 0)."""
    idx = np.asarray(team)
    if idx.size < 2:
        return np.zeros(idx.size)
    sub = np.nan_to_num(np.asarray(phi, dtype=float)[np.ix_(idx, idx)])
    np.fill_diagonal(sub, 0.0)
    return sub.sum(axis=1) / (idx.size - 1)


def bas(phi: np.ndarray, team: Sequence[int]) -> float:
    """Team-level belief alignment score: the mean of B_i(S) over the members of S."""
    if len(team) == 0:
        raise ValueError("BAS of an empty team is undefined")
    return float(_team_alignments(phi, team).mean())


def bas_by_level(phi: np.ndarray, team: Sequence[int], levels: Sequence[int]) -> dict[int, float]:
    """BAS^(k): the mean of B_i(S) over the members of S with ToM level k, for each k present."""
    per_member = _team_alignments(phi, team)
    out: dict[int, list[float]] = {}
    for member, value in zip(team, per_member):
        out.setdefault(int(levels[member]), []).append(float(value))
    return {k: float(np.mean(v)) for k, v in sorted(out.items())}


def ftm(phi: np.ndarray, eps: float = 0.2) -> np.ndarray:
    """FTM_i for every agent: the share of the n - 1 others j with phi(i, j) >= eps."""
    phi = np.asarray(phi, dtype=float)
    n = len(phi)
    if n < 2:
        raise ValueError("FTM needs at least two agents")
    trusted = np.nan_to_num(phi, nan=-np.inf) >= eps
    np.fill_diagonal(trusted, False)
    return trusted.sum(axis=1) / (n - 1)


def average_lifetime(formation_rounds: Sequence[int], total_rounds: int) -> float:
    """Team stability: the mean lifetime of the teams formed at ``formation_rounds`` (the round
    each team started; the first is the initial team) in an episode of ``total_rounds``."""
    starts = list(formation_rounds)
    if not starts:
        raise ValueError("no team was formed")
    if sorted(starts) != starts or starts[0] < 0 or starts[-1] > total_rounds:
        raise ValueError(f"formation rounds must be increasing within [0, {total_rounds}], got {starts}")
    ends = starts[1:] + [total_rounds]
    return float(np.mean([e - s for s, e in zip(starts, ends)]))
