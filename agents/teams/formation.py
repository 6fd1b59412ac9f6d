"""Belief-aligned team formation, as defined: preferences, stability, welfare (seed 000, Eqs. 2-5).

Agents are indices ``0..n-1``; a team is a sorted tuple of indices. ``phi[i, j]`` in [-1, 1] is
how well agent i's predictions of agent j matched what j did (1 aligned, 0 neutral, -1 opposed);
the diagonal is ignored.

- Preference (Eq. 2, with the specialization term of Section 5.2)::

      B'_i(T) = 1/(|T|-1) * sum_{j in T, j != i} phi[i, j]  +  lam * 1/|T| * sum_{j in T} alpha[j]

  The alignment average runs over i's teammates (an agent makes no prediction of itself; seed 001
  writes the partners as S subset of N minus i); a lone agent's alignment term is 0 (neutral).
  Without ``alpha`` the second term is 0 and B' is Eq. 2's B.
- Stability (Eq. 3): T is stable when no proper sub-coalition C of T with |C| >= eta has
  B'_i(C) > B'_i(T) for every member i of C (the members of C are the ones who would defect).
- Welfare (Eq. 4): W(T) = sum_{i in T} B'_i(T).
- Eq. 5: the stable team of size >= eta (and <= ``max_size``) with the largest welfare. The
  tolerance eps keeps only teams whose every ordered pair has phi >= eps; when no team passes,
  the search falls back to all teams (the paper's "universal misalignment" case).

These functions state the definitions directly and are the reference the fast solvers in
``agents.teams.solver`` are tested against.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: a coalition must beat a preference by more than this to count as strictly better (float noise)
STRICT_TOL = 1e-12

Team = tuple[int, ...]


def default_eta(n: int) -> int:
    """The paper's minimal team size, ceil(n / 2)."""
    return max(1, math.ceil(n / 2))


@dataclass(frozen=True)
class TeamProblem:
    """One instance of Eq. 5: the alignment matrix and the parameters of the search."""

    phi: np.ndarray
    alpha: np.ndarray | None = None
    lam: float = 1.0
    #: None: no tolerance filter
    eps: float | None = 0.2
    #: minimal team size eta; None: ceil(n / 2)
    min_size: int | None = None
    #: largest team allowed; None: n
    max_size: int | None = None

    def __post_init__(self) -> None:
        phi = np.array(self.phi, dtype=np.float64)
        if phi.ndim != 2 or phi.shape[0] != phi.shape[1] or phi.shape[0] == 0:
            raise ValueError(f"phi must be a non-empty square matrix, got shape {phi.shape}")
        if not np.all(np.isfinite(phi[~np.eye(len(phi), dtype=bool)])):
            raise ValueError("phi has non-finite off-diagonal entries (use 0 for unknown alignment)")
        phi = phi.copy()
        np.fill_diagonal(phi, 0.0)
        phi.setflags(write=False)
        object.__setattr__(self, "phi", phi)
        if self.alpha is not None:
            alpha = np.array(self.alpha, dtype=np.float64)
            if alpha.shape != (len(phi),):
                raise ValueError(f"alpha must have one score per agent ({len(phi)}), got shape {alpha.shape}")
            alpha.setflags(write=False)
            object.__setattr__(self, "alpha", alpha)
        n = len(phi)
        if not (1 <= self.eta <= self.top <= n):
            raise ValueError(f"team sizes must satisfy 1 <= min_size ({self.eta}) <= max_size ({self.top}) "
                             f"<= n ({n})")

    @property
    def n(self) -> int:
        return len(self.phi)

    @property
    def eta(self) -> int:
        return default_eta(self.n) if self.min_size is None else int(self.min_size)

    @property
    def top(self) -> int:
        return self.n if self.max_size is None else int(self.max_size)

    @property
    def alpha_or_zero(self) -> np.ndarray:
        return np.zeros(self.n) if self.alpha is None else self.alpha

    @property
    def uses_alpha(self) -> bool:
        return self.alpha is not None and self.lam != 0.0 and bool(np.any(self.alpha))

    def unfiltered(self) -> "TeamProblem":
        return TeamProblem(self.phi, self.alpha, self.lam, None, self.min_size, self.max_size)


def preference(problem: TeamProblem, i: int, team: Iterable[int]) -> float:
    """B'_i(T) (Eq. 2 plus Section 5.2's lam * mean alpha)."""
    members = tuple(team)
    if i not in members:
        raise ValueError(f"agent {i} is not in team {members}")
    mates = [j for j in members if j != i]
    aligned = float(np.mean([problem.phi[i, j] for j in mates])) if mates else 0.0
    skill = problem.lam * float(np.mean(problem.alpha_or_zero[list(members)]))
    return aligned + skill


def welfare(problem: TeamProblem, team: Iterable[int]) -> float:
    """W(T) = sum of the members' preferences (Eq. 4)."""
    members = tuple(team)
    return float(sum(preference(problem, i, members) for i in members))


def passes_filter(problem: TeamProblem, team: Iterable[int]) -> bool:
    """True when every ordered pair of the team has phi >= eps (or there is no filter)."""
    if problem.eps is None:
        return True
    members = tuple(team)
    return all(problem.phi[i, j] >= problem.eps for i in members for j in members if i != j)


def blocking_coalition(problem: TeamProblem, team: Iterable[int]) -> Team | None:
    """A sub-coalition that blocks ``team`` (Eq. 3), or None when the team is stable.
    Enumerates every proper subset of size >= eta: exponential, for reference use."""
    members = tuple(sorted(team))
    own = {i: preference(problem, i, members) for i in members}
    for size in range(problem.eta, len(members)):
        for coalition in itertools.combinations(members, size):
            if all(preference(problem, i, coalition) > own[i] + STRICT_TOL for i in coalition):
                return coalition
    return None


def is_stable(problem: TeamProblem, team: Iterable[int]) -> bool:
    return blocking_coalition(problem, team) is None


@dataclass(frozen=True)
class TeamSolution:
    """The answer to Eq. 5 and how far it can be trusted.

    ``stable`` is True only with a certificate (every sub-coalition refuted, or |T| = eta).
    ``filtered``: the team passes the eps filter (False: the fallback over all teams was used).
    ``optimal``: no stable team has a larger welfare; otherwise ``upper_bound`` bounds the best
    welfare and ``gap`` = (upper_bound - welfare) / max(|upper_bound|, 1e-9)."""

    team: Team
    welfare: float
    stable: bool
    filtered: bool
    optimal: bool
    upper_bound: float
    gap: float
    method: str
    #: candidates of larger welfare that were refuted by a blocking coalition
    refuted: int = 0
    #: how stability was certified (e.g. "size == eta", "pool of 3 < eta", "enumerated 4096 subsets")
    certificate: str = ""
    stats: dict[str, Any] = field(default_factory=dict)


def team_mask(team: Iterable[int]) -> int:
    """The bitmask of a team (bit i set for agent i)."""
    return sum(1 << i for i in set(team))


def mask_team(mask: int) -> Team:
    return tuple(i for i in range(int(mask).bit_length()) if mask >> i & 1)


def team_key(welfare_value: float, team: Iterable[int]) -> tuple[float, int]:
    """Order of preference among teams of equal standing: larger welfare, then smaller bitmask."""
    return (-welfare_value, team_mask(team))
