"""Solvers for Eq. 5: the welfare-maximizing stable team.

- ``solve_exact`` (n <= 20): the welfare of every subset at once with numpy bitmask tables, then
  the candidates above the best eta-sized team (eta-sized teams are stable by definition: no
  proper sub-coalition reaches eta) in decreasing welfare, each refuted by a blocking coalition
  or certified stable. The first certified candidate is optimal. A blocking coalition C found
  for one candidate refutes at once every other candidate it blocks (the supersets of C in
  which every member of C is worse off than in C), so most candidates are never checked
  themselves; greedy removals run on many candidates at once (``greedy_blockers``).
- ``solve_one_by_one`` (n <= 20): the same optimum with one full check per candidate, a slower
  reference for tests and the benchmark.
- ``solve_anytime`` (any n, meant for n > 20): local search from deterministic and seeded starts,
  blocking chains down to stable teams, and an upper bound on the welfare of any team (row sums
  and a cardinality-aware eigenvalue bound); it reports the gap between them.
- ``solve_brute`` (n <= 12): the definitions of ``agents.teams.formation`` applied to every
  subset, for tests and the benchmark.

Stability checks (``StabilityChecker``) refute cheaply first (every single-member removal, then
greedy removals down to eta members), then shrink the pool of members who could gain by defecting (an upper bound of what each member can
get in any sub-coalition of the pool; members who cannot beat their current preference cannot
be in a blocking coalition), and enumerate the subsets of what is left with numpy, one member at
a time, stopping when no sub-coalition can still block.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from agents.teams.formation import (
    STRICT_TOL,
    Team,
    TeamProblem,
    TeamSolution,
    blocking_coalition,
    mask_team,
    passes_filter,
    team_key,
    team_mask,
    welfare,
)

#: largest n for the exact solver (its tables hold 2^n float64 entries)
MAX_EXACT_N = 22
#: largest n for the brute-force reference
MAX_BRUTE_N = 12
#: largest pool of possible defectors whose subsets are enumerated
MAX_ENUMERATED_POOL = 20


def subset_sums(values: np.ndarray) -> np.ndarray:
    """``out[mask] = sum(values[k] for bits k of mask)`` for every mask < 2**len(values)."""
    out = np.zeros(1 << len(values))
    size = 1
    for v in values:
        np.add(out[:size], v, out=out[size:2 * size])
        size *= 2
    return out


_POPCOUNTS: dict[int, np.ndarray] = {}


def popcounts(p: int) -> np.ndarray:
    """Number of set bits of every mask < 2**p (cached; read-only)."""
    if p not in _POPCOUNTS:
        out = np.zeros(1 << p, dtype=np.int16)
        size = 1
        for _ in range(p):
            np.add(out[:size], 1, out=out[size:2 * size])
            size *= 2
        out.setflags(write=False)
        _POPCOUNTS[p] = out
    return _POPCOUNTS[p]


def _members(mask: int) -> Team:
    return mask_team(int(mask))


# ---------------------------------------------------------------------------------- stability


@dataclass(frozen=True, slots=True)
class StabilityVerdict:
    #: True: certified stable; False: ``blocking`` blocks it; None: too large to decide
    stable: bool | None
    blocking: Team | None
    certificate: str
    subsets: int = 0


class StabilityChecker:
    """Decides Eq. 3 for teams of one problem (ignores the eps filter: sub-coalitions of a team
    that passes it pass it too)."""

    def __init__(self, problem: TeamProblem, max_pool: int = MAX_ENUMERATED_POOL,
                 reuse_blockers: bool = True) -> None:
        self.problem = problem
        self.phi = problem.phi
        self.alpha = problem.alpha_or_zero
        self.lam = problem.lam if problem.uses_alpha else 0.0
        self.eta = problem.eta
        self.max_pool = max_pool
        self._blockers: list[tuple[int, np.ndarray, np.ndarray]] = []
        self._pending_local: list[list[int]] = []
        #: look remembered blocking coalitions up before anything else (``solve_exact`` instead
        #: refutes every candidate a new blocking coalition blocks at once, see ``take_found``)
        self.reuse_blockers = reuse_blockers
        self._found: list[Team] = []

    def take_found(self) -> list[Team]:
        """The blocking coalitions found since the last call (each blocks the team it was found
        for; several may be found for one team)."""
        found, self._found = self._found, []
        return found

    def own_preferences(self, members: Team) -> np.ndarray:
        idx = np.asarray(members)
        m = len(idx)
        sub = self.phi[np.ix_(idx, idx)]
        aligned = sub.sum(axis=1) / (m - 1) if m > 1 else np.zeros(m)
        return aligned + self.lam * self.alpha[idx].mean()

    def check(self, members: Team, greedy: bool = True) -> StabilityVerdict:
        """The verdict on ``members``; ``greedy=False`` skips the single and greedy removals
        (for a team they were already tried on, e.g. by ``greedy_blockers``)."""
        members = tuple(sorted(members))
        m, eta = len(members), self.eta
        if m <= eta:
            return StabilityVerdict(True, None, f"size {m} == eta: no sub-coalition reaches eta")
        idx = np.asarray(members)
        sub = self.phi[idx][:, idx]
        alpha = self.alpha[idx]
        own = sub.sum(axis=1) / (m - 1) + self.lam * alpha.sum() / m

        if self.reuse_blockers:
            known = self._known_blocker(members, own)
            if known is not None:
                return StabilityVerdict(False, known, "a blocking coalition found before blocks it too")
            # (without reuse the greedy removals' first step tries every single removal too)
            blocking = self._single_removal(sub, alpha, own)
            if blocking is not None:
                found = tuple(members[k] for k in blocking)
                self._remember(found)
                return StabilityVerdict(False, found, "a single member's removal leaves a blocking coalition")
        chain = self._greedy_removals(sub, alpha, own) if greedy else []
        if chain:
            # the first coalition is what a blocking chain continues from; the smallest one lies
            # inside more of the other candidates, so it blocks more of them
            found = tuple(members[k] for k in chain[0])
            self._remember(found if self.reuse_blockers else tuple(members[k] for k in chain[-1]))
            return StabilityVerdict(False, found, "greedy removals found a blocking coalition")

        pool, margin = self._pool(sub, alpha, own, m)
        if len(pool) < eta:
            return StabilityVerdict(True, None, f"only {len(pool)} member(s) could gain by defecting (< eta {eta})")
        if len(pool) > self.max_pool:
            return StabilityVerdict(None, None, f"{len(pool)} possible defectors: too many to enumerate")
        found, count = self._enumerate(sub, alpha, own, pool, margin, m)
        if found is None:
            return StabilityVerdict(True, None, f"no blocking coalition among {count} sub-coalitions "
                                    f"of the {len(pool)} possible defectors", count)
        blocking = tuple(members[k] for k in found)
        self._remember(blocking)
        for extra in self._pending_local:
            self._remember(tuple(members[k] for k in extra))
        self._pending_local = []
        return StabilityVerdict(False, blocking, "enumeration found a blocking coalition", count)

    def _remember(self, coalition: Team) -> None:
        """Keep a blocking coalition with its members' preferences: candidates of the exact
        search overlap, and one coalition often blocks many of them."""
        self._found.append(coalition)
        if not self.reuse_blockers:
            return
        idx = np.asarray(coalition)
        self._blockers.append((team_mask(coalition), idx, self.own_preferences(coalition)))

    def _known_blocker(self, members: Team, own: np.ndarray) -> Team | None:
        mask = team_mask(members)
        pos = {a: k for k, a in enumerate(members)}
        for bmask, idx, prefs in reversed(self._blockers):
            if bmask & ~mask or bmask == mask:
                continue
            if np.all(prefs > own[[pos[int(a)] for a in idx]] + STRICT_TOL):
                return tuple(int(a) for a in idx)
        return None

    def _greedy_removals(self, sub: np.ndarray, alpha: np.ndarray, own: np.ndarray) -> list[list[int]]:
        """Drop members one at a time, each time the one whose removal leaves the most members
        better off than in the team (ties: the largest smallest gain, then the lowest index),
        down to eta members. Every coalition on the way whose every member gains blocks the
        team: all of them are returned, largest first (empty: none found)."""
        m = len(sub)
        inside = np.ones(m, dtype=bool)
        rows = sub.sum(axis=1)  # each member's phi sum over the coalition
        skill = float(alpha.sum())
        chain: list[list[int]] = []
        for c in range(m, self.eta, -1):  # c: the coalition's size before this removal
            aligned = (rows[:, None] - sub) / (c - 2) if c > 2 else np.zeros_like(sub)
            gain = aligned + (self.lam * (skill - alpha) / (c - 1))[None, :] - own[:, None]  # [i, k removed]
            gain[~inside, :] = np.inf  # members already gone do not count
            np.fill_diagonal(gain, np.inf)
            happy = (gain > STRICT_TOL).sum(axis=0)
            happy[~inside] = -1
            worst = gain.min(axis=0)
            k = int(np.lexsort((-worst, -happy))[0])
            inside[k] = False
            rows -= sub[:, k]
            skill -= float(alpha[k])
            if happy[k] == m:  # every remaining member gains
                chain.append([int(i) for i in np.flatnonzero(inside)])
        return chain

    def _single_removal(self, sub: np.ndarray, alpha: np.ndarray, own: np.ndarray) -> list[int] | None:
        m = len(sub)
        if m - 1 < self.eta:
            return None
        rows = sub.sum(axis=1)
        denom = m - 2
        aligned = (rows[:, None] - sub) / denom if denom > 0 else np.zeros_like(sub)
        skill = self.lam * (alpha.sum() - alpha) / (m - 1)  # per removed member k
        pref = aligned + skill[None, :]  # pref[i, k]: B'_i(T minus k)
        happy = pref > own[:, None] + STRICT_TOL
        np.fill_diagonal(happy, True)
        blocks = np.flatnonzero(happy.all(axis=0))
        if blocks.size:
            k = int(blocks[0])
            return [i for i in range(m) if i != k]
        return None

    def _pool(self, sub: np.ndarray, alpha: np.ndarray, own: np.ndarray, m: int) -> tuple[list[int], np.ndarray]:
        """Members who might prefer some sub-coalition of the pool of size in [eta, m-1]."""
        pool = list(range(m))
        eta = self.eta
        while True:
            p = len(pool)
            hi = min(p, m - 1)
            if p < eta:
                return pool, np.zeros(0)
            ps = sub[np.ix_(pool, pool)].copy()
            np.fill_diagonal(ps, -np.inf)
            top = -np.sort(-ps, axis=1)[:, :p - 1]  # each member's teammates, best first
            csum = np.concatenate([np.zeros((p, 1)), np.cumsum(top, axis=1)], axis=1)  # csum[:, c-1]
            sizes = np.arange(max(eta, 1), hi + 1)
            if sizes.size == 0:
                return [], np.zeros(0)
            with np.errstate(invalid="ignore", divide="ignore"):
                aligned = np.where(sizes[None, :] > 1, csum[:, sizes - 1] / np.maximum(sizes - 1, 1)[None, :], 0.0)
            bound = aligned
            if self.lam:
                a = alpha[pool]
                order = np.argsort(-a, kind="stable")
                a_sorted = a[order]
                acs = np.concatenate([[0.0], np.cumsum(a_sorted)])
                rank = np.empty(p, dtype=int)
                rank[order] = np.arange(p)
                # best alpha sum of c members that include i: i plus the best c-1 others
                c = sizes[None, :]
                inside = rank[:, None] < c  # i is among the top c anyway
                best = np.where(inside, acs[np.minimum(c, p)], acs[c - 1] + a[:, None])
                bound = bound + self.lam * best / c
            upper = bound.max(axis=1)
            margin = upper - own[pool]
            keep = [k for k, ok in zip(pool, margin > STRICT_TOL) if ok]
            if len(keep) == len(pool):
                return pool, margin
            pool = keep

    def _enumerate(self, sub: np.ndarray, alpha: np.ndarray, own: np.ndarray, pool: list[int],
                   margin: np.ndarray, m: int) -> tuple[list[int] | None, int]:
        """Every sub-coalition of the pool with a size in [eta, m-1], ruled out member by member:
        a coalition survives member k's turn if it lacks k or k prefers it to the team."""
        p = len(pool)
        pc = popcounts(p)
        hi = min(p, m - 1)
        alive = (pc >= self.eta) & (pc <= hi)
        count = int(alive.sum())
        inv = 1.0 / np.maximum(pc - 1, 1)
        skill = self.lam * subset_sums(alpha[pool]) / np.maximum(pc, 1) if self.lam else np.zeros(1 << p)
        order = [int(k) for k in np.argsort(margin, kind="stable")]  # least room to gain first
        for done, k in enumerate(order):
            i = pool[k]
            others = [pool[j] for j in range(p) if j != k]
            # coalitions containing local member k are the upper half of every 2^(k+1) block; in
            # that view they are laid out like the subsets of the other members
            half = (-1, 2, 1 << k)
            sums = subset_sums(sub[i, others]).reshape(-1, 1 << k)
            happy = sums * inv.reshape(half)[:, 1, :] + skill.reshape(half)[:, 1, :] > own[i] + STRICT_TOL
            alive.reshape(half)[:, 1, :] &= happy
            left = int(np.count_nonzero(alive))
            if left == 0:
                return None, count
            if left * p * 4 < (1 << p) and done + 1 < len(order):
                return self._enumerate_sparse(sub, own, pool, np.flatnonzero(alive), order[done + 1:], inv, skill), count
        return self._smallest(pool, np.flatnonzero(alive), pc), count

    def _enumerate_sparse(self, sub: np.ndarray, own: np.ndarray, pool: list[int], alive: np.ndarray,
                          order: list[int], inv: np.ndarray, skill: np.ndarray) -> list[int] | None:
        """The rest of ``_enumerate`` on the list of surviving coalitions, once few are left."""
        p = len(pool)
        bits = ((alive[:, None] >> np.arange(p)) & 1).astype(np.float64)  # coalition x member
        for k in order:
            row = sub[pool[k], pool]
            pref = (bits @ row) * inv[alive] + skill[alive]
            keep = (bits[:, k] == 0) | (pref > own[pool[k]] + STRICT_TOL)
            alive, bits = alive[keep], bits[keep]
            if alive.size == 0:
                return None
        return self._smallest(pool, alive, popcounts(p))

    def _smallest(self, pool: list[int], alive: np.ndarray, pc: np.ndarray) -> list[int]:
        """The smallest surviving coalition (it is inside more of the other candidates, so
        remembering it refutes more of them); the few smallest are remembered."""
        order = alive[np.argsort(pc[alive], kind="stable")]
        chosen = [[pool[k] for k in range(len(pool)) if int(local) >> k & 1] for local in order[:8]]
        self._pending_local = chosen[1:]
        return chosen[0]


# ---------------------------------------------------------------------------------- exact


def welfare_table(problem: TeamProblem) -> tuple[np.ndarray, np.ndarray]:
    """W(T) for every bitmask T (index = mask), and the popcounts."""
    n = problem.n
    wsym = problem.phi + problem.phi.T
    pairs = np.zeros(1 << n)
    size = 1
    for b in range(n):
        np.add(pairs[:size], subset_sums(wsym[b, :b]), out=pairs[size:2 * size])
        size *= 2
    pc = popcounts(n)
    w = pairs / np.maximum(pc - 1, 1)
    if problem.uses_alpha:
        w += problem.lam * subset_sums(problem.alpha)
    return w, pc


def filter_table(problem: TeamProblem) -> np.ndarray:
    """For every bitmask: every ordered pair inside has phi >= eps (a clique of the eps graph)."""
    n = problem.n
    good = (problem.phi >= problem.eps) & (problem.phi.T >= problem.eps)
    ok = np.ones(1 << n, dtype=bool)
    masks = np.arange(1 << (n - 1), dtype=np.int64) if n > 1 else np.zeros(1, dtype=np.int64)
    size = 1
    for b in range(n):
        nb = sum(1 << j for j in range(b) if good[b, j])
        np.logical_and(ok[:size], (masks[:size] & ~nb) == 0, out=ok[size:2 * size])
        size *= 2
    return ok


def greedy_blockers(problem: TeamProblem, masks: np.ndarray) -> np.ndarray:
    """``StabilityChecker``'s greedy removals on many teams at once (given as bitmasks): per
    team, the smallest blocking coalition met on the way down to eta members, as a bitmask
    (0: none met). Each step removes, in every team at once, the member whose removal leaves
    the most members better off than in the team (ties: the largest smallest gain, then the
    lowest index); a coalition whose every member gains blocks its team."""
    n, eta = problem.n, problem.eta
    phi = problem.phi
    alpha = problem.alpha_or_zero if problem.uses_alpha else np.zeros(n)
    lam = problem.lam if problem.uses_alpha else 0.0
    masks = np.asarray(masks, dtype=np.int64)
    inside = ((masks[:, None] >> np.arange(n)) & 1).astype(bool)  # team x agent
    member = inside.astype(np.float64)
    rows = member @ phi.T  # rows[t, i]: i's phi sum over the current coalition
    skill = member @ alpha
    size = member.sum(axis=1)
    own = rows / np.maximum(size - 1, 1)[:, None] + (lam * skill / size)[:, None]
    out = np.zeros(masks.size, dtype=np.int64)
    current = masks.copy()
    team = np.arange(masks.size)  # the row of ``out`` of each team still being reduced
    gone = np.where(inside, 0.0, np.inf)  # added to the rows of those already gone: they do not count
    itself = np.where(np.eye(n, dtype=bool), np.inf, 0.0)  # nor does the member removed
    while True:
        active = size > eta
        if not active.all():
            if not active.any():
                return out
            inside, gone, rows, skill, size, own, current, team = (
                x[active] for x in (inside, gone, rows, skill, size, own, current, team))
        # gain[t, i, k]: what i gains (over its preference in t) when k leaves the coalition
        inv = np.where(size > 2, 1.0 / np.maximum(size - 2, 1), 0.0)
        base = rows * inv[:, None] - own + gone
        leave = lam * (skill[:, None] - alpha[None, :]) / (size - 1)[:, None]
        gain = phi[None, :, :] * -inv[:, None, None]
        gain += base[:, :, None]
        gain += leave[:, None, :]
        gain += itself
        happy = np.count_nonzero(gain > STRICT_TOL, axis=1)
        happy[~inside] = -1
        worst = gain.min(axis=1)
        top = happy == happy.max(axis=1, keepdims=True)
        worst = np.where(top, worst, -np.inf)
        k = np.argmax(worst == worst.max(axis=1, keepdims=True), axis=1)
        t = np.arange(k.size)
        inside[t, k] = False
        gone[t, k] = np.inf
        rows -= phi[:, k].T
        skill -= alpha[k]
        size -= 1
        current &= ~(np.int64(1) << k)
        blocks = happy[t, k] == n
        out[team[blocks]] = current[blocks]


_BITS: dict[int, np.ndarray] = {}


def subset_bits(r: int) -> np.ndarray:
    """Row ``s`` holds the bits of s (0/1 float64) for every s < 2**r (cached; read-only)."""
    if r not in _BITS:
        out = ((np.arange(1 << r)[:, None] >> np.arange(r)) & 1).astype(np.float64)
        out.setflags(write=False)
        _BITS[r] = out
    return _BITS[r]


class _SupersetRefuter:
    """Marks every candidate a blocking coalition blocks: C blocks each proper superset T of C
    in which every member of C is worse off than in C (B'_i(T) < B'_i(C) for all i in C, by
    more than ``STRICT_TOL``). The supersets of C are C plus a nonempty subset of the other
    agents: at most 2^(n - eta) - 1 of them, evaluated at once with numpy."""

    def __init__(self, problem: TeamProblem, candidate: np.ndarray, checker: StabilityChecker) -> None:
        n = self.n = problem.n
        lam = checker.lam
        # column j: what agent j adds to each member's phi sum (rows 0..n-1), to lam * the
        # alpha sum (row n) and to the size (row n + 1)
        self.table = np.vstack([problem.phi, lam * checker.alpha, np.ones(n)])
        self.pow2 = np.ldexp(1.0, np.arange(n))
        #: candidates not refuted yet (indexed by bitmask)
        self.live = candidate.copy()
        self._seen: set[int] = set()

    def refute(self, cmask: int) -> None:
        """Refute every live candidate that the blocking coalition ``cmask`` (a bitmask) blocks."""
        if cmask in self._seen:
            return
        self._seen.add(cmask)
        n = self.n
        idx = [b for b in range(n) if cmask >> b & 1]
        rest = [b for b in range(n) if not cmask >> b & 1]
        if not rest:
            return
        bits = subset_bits(len(rest))[1:]
        supers = (bits @ self.pow2[rest]).astype(np.int64) | cmask
        sel = np.flatnonzero(self.live[supers])
        if not sel.size:
            return
        c = len(idx)
        part = self.table[idx + [n, n + 1]]
        own_sums = part[:, idx].sum(axis=1)  # each member's phi sum in C, lam * alpha sum, size
        sums = bits[sel] @ part[:, rest].T + own_sums  # the same in each superset
        pref = sums[:, :c] / (sums[:, c + 1] - 1)[:, None] + (sums[:, c] / sums[:, c + 1])[:, None]
        own = own_sums[:c] / max(c - 1, 1) + own_sums[c] / c  # a lone agent: alignment 0
        blocked = np.all(own > pref + STRICT_TOL, axis=1)
        self.live[supers[sel[blocked]]] = False


@dataclass(frozen=True)
class _Candidates:
    welfare: np.ndarray
    #: bitmask -> a candidate: allowed size above eta, passes eps (or the fallback), and comes
    #: before the best eta-sized team in the order of ``team_key``
    above: np.ndarray
    filtered: bool
    best_eta: int


def _candidates(problem: TeamProblem) -> _Candidates:
    """Every team's welfare and the candidates of the exact search."""
    n = problem.n
    if n > MAX_EXACT_N:
        raise ValueError(f"solve_exact handles n <= {MAX_EXACT_N} agents, got {n}; use solve_anytime")
    w, pc = welfare_table(problem)
    feasible = (pc >= problem.eta) & (pc <= problem.top)
    filtered = problem.eps is not None
    if filtered:
        passing = feasible & filter_table(problem)
        if passing.any():
            feasible = passing
        else:
            filtered = False  # universal misalignment: fall back to every team
    at_eta = np.flatnonzero(feasible & (pc == problem.eta))
    best_eta = int(at_eta[np.argmax(w[at_eta])])  # argmax: the smallest mask among exact ties
    floor = w[best_eta]
    masks = np.arange(1 << n, dtype=np.int64)
    above = feasible & (pc > problem.eta) & ((w > floor) | ((w == floor) & (masks < best_eta)))
    return _Candidates(w, above, filtered, best_eta)


def _in_order(w: np.ndarray, cand: np.ndarray, chunk: int) -> Iterator[np.ndarray]:
    """The candidates in the order of ``team_key`` (larger welfare, then smaller bitmask), a
    chunk at a time (sorting only as far as the search goes)."""
    while cand.size:
        if cand.size > chunk:
            cut = np.partition(w[cand], cand.size - chunk)[cand.size - chunk]
            top, cand = cand[w[cand] >= cut], cand[w[cand] < cut]
        else:
            top, cand = cand, cand[:0]
        yield top[np.lexsort((top, -w[top]))]


def _at_eta(cands: _Candidates, refuted: int, stats: dict[str, int]) -> TeamSolution:
    team = _members(cands.best_eta)
    value = float(cands.welfare[cands.best_eta])
    return TeamSolution(team, value, True, cands.filtered, True, value, 0.0, "exact", refuted,
                        f"size {len(team)} == eta: no sub-coalition reaches eta", stats)


def solve_exact(problem: TeamProblem, chunk: int = 4096, batch: int = 64) -> TeamSolution:
    """The optimum of Eq. 5 with a stability certificate (n <= ``MAX_EXACT_N``).

    Candidates are taken in order; greedy removals run on the next ``batch`` live ones at once
    (``greedy_blockers``), the rest of a check (pool, enumeration) on those it leaves open one
    at a time, and every blocking coalition found refutes at once each later candidate it
    blocks. The first candidate certified stable is optimal."""
    cands = _candidates(problem)
    w, above, filtered = cands.welfare, cands.above, cands.filtered
    checker = StabilityChecker(problem, reuse_blockers=False)
    refuter = _SupersetRefuter(problem, above, checker)
    live = refuter.live
    cand = np.flatnonzero(above)
    refuted = 0
    checked = 0
    subsets = 0

    def stats() -> dict[str, int]:
        return {"candidates": int(above.sum()), "checked": checked, "subsets": subsets,
                "blocked_by_known": refuted - checked}  # refuted, never checked themselves

    size = 1  # the batch grows to ``batch``: when an early candidate is stable, little is wasted
    for order in _in_order(w, cand, chunk):
        pos = 0
        while pos < order.size:
            # the next few candidates not refuted yet get greedy removals at once; the rest of
            # the check runs on them one at a time, in order, unless an earlier one's blocking
            # coalition refutes them first
            window = order[pos:pos + 8 * batch]
            rel = np.flatnonzero(live[window])[:size]
            size = min(2 * size, batch)
            if not rel.size:
                refuted += window.size
                pos += window.size
                continue
            found = greedy_blockers(problem, window[rel])
            for r, mask, blocker in zip(rel.tolist(), window[rel].tolist(), found.tolist()):
                if not live[mask]:  # a blocking coalition found for an earlier candidate blocks it
                    continue
                checked += 1
                live[mask] = False
                if blocker:
                    refuter.refute(blocker)
                    continue
                verdict = checker.check(_members(mask), greedy=False)
                subsets += verdict.subsets
                if verdict.stable:
                    refuted += r
                    return TeamSolution(_members(mask), float(w[mask]), True, filtered, True, float(w[mask]), 0.0,
                                        "exact", refuted, verdict.certificate, stats())
                if verdict.stable is None:  # pragma: no cover - pools never exceed n <= 20
                    raise RuntimeError(f"could not decide the stability of {_members(mask)}: "
                                       f"{verdict.certificate}")
                for coalition in checker.take_found():
                    refuter.refute(team_mask(coalition))
            refuted += int(rel[-1]) + 1
            pos += int(rel[-1]) + 1
    return _at_eta(cands, refuted, stats())


def solve_one_by_one(problem: TeamProblem, chunk: int = 4096) -> TeamSolution:
    """The same optimum as ``solve_exact`` by a plainer search: one full stability check per
    candidate in order, each first looking up the blocking coalitions remembered from earlier
    candidates one at a time. Much slower on matrices where many candidates are refuted; kept
    as a reference for tests and the benchmark at n beyond brute force."""
    cands = _candidates(problem)
    w, filtered = cands.welfare, cands.filtered
    checker = StabilityChecker(problem, reuse_blockers=True)
    refuted = subsets = 0
    stats = {"candidates": int(cands.above.sum())}
    for order in _in_order(w, np.flatnonzero(cands.above), chunk):
        for mask in order.tolist():
            verdict = checker.check(_members(mask))
            subsets += verdict.subsets
            if verdict.stable:
                return TeamSolution(_members(mask), float(w[mask]), True, filtered, True, float(w[mask]), 0.0,
                                    "exact", refuted, verdict.certificate, {**stats, "subsets": subsets})
            if verdict.stable is None:  # pragma: no cover - pools never exceed n <= 20
                raise RuntimeError(f"could not decide the stability of {_members(mask)}: {verdict.certificate}")
            refuted += 1
    return _at_eta(cands, refuted, {**stats, "subsets": subsets})


# ---------------------------------------------------------------------------------- brute force


def solve_brute(problem: TeamProblem) -> TeamSolution:
    """Eq. 5 by the definitions: every subset's welfare, sorted, the first stable one."""
    n = problem.n
    if n > MAX_BRUTE_N:
        raise ValueError(f"solve_brute handles n <= {MAX_BRUTE_N} agents, got {n}")
    teams = [t for size in range(problem.eta, problem.top + 1) for t in itertools.combinations(range(n), size)]
    filtered = problem.eps is not None and any(passes_filter(problem, t) for t in teams)
    if filtered:
        teams = [t for t in teams if passes_filter(problem, t)]
    scored = sorted(((welfare(problem, t), t) for t in teams), key=lambda wt: team_key(*wt))
    refuted = 0
    for value, team in scored:
        if blocking_coalition(problem, team) is None:
            return TeamSolution(team, value, True, filtered, True, value, 0.0, "brute", refuted,
                                "every proper sub-coalition of size >= eta checked")
        refuted += 1
    raise AssertionError("an eta-sized team is always stable")  # pragma: no cover


# ---------------------------------------------------------------------------------- bounds


def upper_bound(problem: TeamProblem) -> tuple[float, dict[int, float]]:
    """An upper bound on W(T) over every team of allowed size (stable or not, eps ignored), and
    the bound per size. Per size m it is the smaller of
    - rows: sum of the m largest (mean of i's m-1 best phi) + lam * alpha_i, and
    - eigenvalues: W(T) = x^T M x for the 0/1 indicator x (x_i^2 = x_i puts lam * alpha on the
      diagonal of M = sym(phi) / (m - 1) + lam diag(alpha)); with |x| = m, x^T M x <=
      min_t lambda_max(M + t 11^T) m - t m^2 (convex in t, minimized numerically)."""
    n = problem.n
    phi = problem.phi
    alpha = problem.alpha_or_zero if problem.uses_alpha else np.zeros(n)
    lam = problem.lam if problem.uses_alpha else 0.0
    sym = (phi + phi.T) / 2
    rows_sorted = -np.sort(-(phi + np.diag(np.full(n, -np.inf))), axis=1)[:, :n - 1]
    csum = np.concatenate([np.zeros((n, 1)), np.cumsum(rows_sorted, axis=1)], axis=1)
    ones = np.ones((n, n))
    per_size: dict[int, float] = {}
    for m in range(problem.eta, problem.top + 1):
        if m == 1:
            per_size[m] = float(lam * alpha.max())
            continue
        if m == n:
            per_size[m] = welfare(problem, range(n))
            continue
        score = csum[:, m - 1] / (m - 1) + lam * alpha
        rows = float(np.sort(score)[-m:].sum())
        mat = sym / (m - 1) + lam * np.diag(alpha)

        def spectral(t: float, mat: np.ndarray = mat, m: int = m) -> float:
            return float(np.linalg.eigvalsh(mat + t * ones)[-1] * m - t * m * m)

        span = 4.0 * (np.abs(mat).sum() + 1.0)
        res = minimize_scalar(spectral, bounds=(-span, span), method="bounded", options={"xatol": 1e-6})
        eig = min(float(res.fun), spectral(0.0))
        per_size[m] = min(rows, eig + 1e-9)
    return max(per_size.values()), per_size


# ---------------------------------------------------------------------------------- anytime


class _Welfare:
    """W(T) = (sum of phi over ordered pairs of T) / (|T| - 1) + lam * sum of alpha over T."""

    def __init__(self, problem: TeamProblem) -> None:
        self.phi = problem.phi
        self.alpha = problem.alpha_or_zero if problem.uses_alpha else np.zeros(problem.n)
        self.lam = problem.lam if problem.uses_alpha else 0.0

    def __call__(self, team: Team) -> float:
        idx = np.asarray(team)
        pairs = self.phi[np.ix_(idx, idx)].sum()
        return float(pairs / max(len(idx) - 1, 1) + self.lam * self.alpha[idx].sum())


class _LocalSearch:
    """Best-improvement add / drop / swap moves on W over teams that respect the size limits
    and (when ``filtered``) the eps filter."""

    def __init__(self, problem: TeamProblem, filtered: bool) -> None:
        self.p = problem
        self.n = problem.n
        self.wsym = problem.phi + problem.phi.T
        self.alpha = problem.alpha_or_zero if problem.uses_alpha else np.zeros(self.n)
        self.lam = problem.lam if problem.uses_alpha else 0.0
        if filtered:
            good = (problem.phi >= problem.eps) & (problem.phi.T >= problem.eps)
            np.fill_diagonal(good, True)
        else:
            good = np.ones((self.n, self.n), dtype=bool)
        self.good = good.astype(np.int32)

    def neighbours(self, team: Team, limit: int) -> list[Team]:
        """The teams one drop or one swap away that respect the limits, best welfare first."""
        idx = np.asarray(team)
        inside = np.zeros(self.n, dtype=bool)
        inside[idx] = True
        out = np.flatnonzero(~inside)
        m = idx.size
        rowin = self.wsym[:, idx].sum(axis=1)
        pairs = rowin[idx].sum() / 2
        skill = self.alpha[idx].sum()
        goodin = self.good[:, idx].sum(axis=1)
        found: list[tuple[float, Team]] = []
        if m > self.p.eta:
            vals = (pairs - rowin[idx]) / max(m - 2, 1) + self.lam * (skill - self.alpha[idx])
            found += [(float(v), tuple(int(x) for x in idx if x != k)) for v, k in zip(vals, idx)]
        if out.size:
            delta = rowin[out][None, :] - rowin[idx][:, None] - self.wsym[np.ix_(idx, out)]
            vals = (pairs + delta) / max(m - 1, 1) + self.lam * (skill - self.alpha[idx][:, None]
                                                                 + self.alpha[out][None, :])
            vals[(goodin[out][None, :] - self.good[np.ix_(idx, out)]) < m - 1] = -np.inf
            flat = np.argsort(-vals, axis=None, kind="stable")[:limit]
            for f in flat:
                a, b = divmod(int(f), out.size)
                if np.isfinite(vals.flat[f]):
                    found.append((float(vals.flat[f]), tuple(sorted([int(x) for x in idx if x != idx[a]]
                                                                     + [int(out[b])]))))
        found.sort(key=lambda vt: -vt[0])
        return [t for _, t in found[:limit]]

    def value(self, pairs: float, skill: float, m: int) -> float:
        return pairs / max(m - 1, 1) + self.lam * skill

    def run(self, start: np.ndarray, fixed_size: int | None = None) -> np.ndarray:
        inside = start.astype(bool).copy()
        eta, top = self.p.eta, self.p.top
        while True:
            idx = np.flatnonzero(inside)
            out = np.flatnonzero(~inside)
            m = idx.size
            rowin = self.wsym[:, idx].sum(axis=1)  # each agent's pair sum into the team
            pairs = rowin[idx].sum() / 2
            skill = self.alpha[idx].sum()
            goodin = self.good[:, idx].sum(axis=1)
            target = eta if fixed_size is None else fixed_size
            building = m < target  # below the size wanted: only additions, the best feasible one
            shrinking = m > (top if fixed_size is None else fixed_size)  # above it: only removals
            current = -np.inf if building or shrinking else self.value(pairs, skill, m)
            best, move = current + 1e-12, None
            if not shrinking and m < top and out.size and (fixed_size is None or building):
                vals = (pairs + rowin[out]) / max(m, 1) + self.lam * (skill + self.alpha[out])
                vals[goodin[out] < m] = -np.inf
                k = int(np.argmax(vals))
                if vals[k] > best:
                    best, move = vals[k], ("add", out[k], None)
            if not building and (shrinking or m > eta) and (fixed_size is None or shrinking):
                vals = (pairs - rowin[idx]) / max(m - 2, 1) + self.lam * (skill - self.alpha[idx])
                k = int(np.argmax(vals))
                if vals[k] > best:
                    best, move = vals[k], ("drop", idx[k], None)
            if not building and not shrinking and out.size:
                # swap k (inside) for j (outside)
                delta = rowin[out][None, :] - rowin[idx][:, None] - self.wsym[np.ix_(idx, out)]
                vals = (pairs + delta) / max(m - 1, 1) + self.lam * (skill - self.alpha[idx][:, None]
                                                                     + self.alpha[out][None, :])
                feasible = (goodin[out][None, :] - self.good[np.ix_(idx, out)]) >= m - 1
                vals[~feasible] = -np.inf
                flat = int(np.argmax(vals))
                if vals.flat[flat] > best:
                    a, b = divmod(flat, out.size)
                    best, move = vals.flat[flat], ("swap", idx[a], out[b])
            if move is None:
                return inside
            kind, x, y = move
            if kind == "add":
                inside[x] = True
            elif kind == "drop":
                inside[x] = False
            else:
                inside[x] = False
                inside[y] = True


def solve_anytime(problem: TeamProblem, restarts: int = 32, seed: int = 0, checks: int = 2000,
                  max_pool: int = MAX_ENUMERATED_POOL) -> TeamSolution:
    """A stable team of large welfare for any n, with an upper bound and the gap to it.

    Starts: every single agent grown greedily, plus ``restarts`` seeded random teams; each is
    improved by local search over all allowed sizes and at size eta. Then a best-first search
    from the local optima: the team of largest welfare not yet checked is checked for
    stability; an unstable one brings in its blocking coalition and its best neighbours (one
    member dropped or swapped), until no unchecked team beats the best stable one or ``checks``
    teams were checked. Teams whose stability cannot be decided (more than ``max_pool``
    possible defectors) count as not stable. Deterministic for a given ``seed``."""
    n = problem.n
    filtered = problem.eps is not None
    search = _LocalSearch(problem, filtered)
    rng = np.random.default_rng(seed)
    starts: list[np.ndarray] = []
    for i in range(n):
        s = np.zeros(n, dtype=bool)
        s[i] = True
        starts.append(s)
    for _ in range(restarts):
        s = np.zeros(n, dtype=bool)
        s[rng.choice(n, size=int(rng.integers(problem.eta, problem.top + 1)), replace=False)] = True
        starts.append(s)

    def optima(search: _LocalSearch) -> set[Team]:
        found: set[Team] = set()
        for s in starts:
            for fixed in (None, problem.eta):
                t = search.run(s, fixed)
                if problem.eta <= t.sum() <= problem.top:
                    team = tuple(int(i) for i in np.flatnonzero(t))
                    if not filtered or passes_filter(problem, team):
                        found.add(team)
        return found

    local = optima(search)
    if filtered and not local:
        filtered = False  # no team passing eps was found: fall back to every team
        search = _LocalSearch(problem, False)
        local = optima(search)
    checker = StabilityChecker(problem, max_pool=max_pool)
    verdicts: dict[Team, StabilityVerdict] = {}
    stable: list[Team] = []
    value_of = _Welfare(problem)
    # best-first over the neighbourhood of the local optima: pop the team of largest welfare,
    # check it; an unstable one adds its blocking coalition and its best neighbours (one member
    # dropped or swapped); stop when nothing left beats the best stable team, or at the budget
    heap = [(-value_of(t), team_mask(t), t) for t in local]
    heapq.heapify(heap)
    seen = set(local)
    incumbent = -np.inf
    while heap and len(verdicts) < checks:
        negw, _, team = heapq.heappop(heap)
        if -negw <= incumbent:
            break
        verdict = verdicts[team] = checker.check(team)
        if verdict.stable:
            stable.append(team)
            incumbent = max(incumbent, -negw)
            continue
        nearby = [tuple(sorted(verdict.blocking))] if verdict.blocking is not None else []
        nearby += search.neighbours(team, limit=2 * n)
        for other in nearby:
            if other not in seen and (not filtered or passes_filter(problem, other)):
                seen.add(other)
                heapq.heappush(heap, (-value_of(other), team_mask(other), other))
    if not stable:  # the budget ran out first: the best eta-sized local optimum is stable by definition
        at_eta = [t for t in local if len(t) == problem.eta]
        if at_eta:
            best_eta = min(at_eta, key=lambda t: team_key(value_of(t), t))
            verdicts[best_eta] = checker.check(best_eta)
            stable.append(best_eta)
    if not stable:  # pragma: no cover - every chain ends at eta-sized teams
        raise RuntimeError("no stable team found")
    best = min(stable, key=lambda t: team_key(value_of(t), t))
    value = welfare(problem, best)
    bound, per_size = upper_bound(problem)
    bound = max(bound, value)
    gap = (bound - value) / max(abs(bound), 1e-9)
    optimal = gap <= 1e-9
    refuted = sum(1 for t, v in verdicts.items() if v.stable is False and value_of(t) > value)
    return TeamSolution(best, value, True, filtered, optimal, bound, gap, "anytime", refuted,
                        verdicts[best].certificate,
                        {"local_optima": len(local), "checked": len(verdicts),
                         "undecided": sum(1 for v in verdicts.values() if v.stable is None),
                         "bound_per_size": {int(k): float(v) for k, v in per_size.items()}})


def solve(problem: TeamProblem, exact_limit: int = 20, **anytime: object) -> TeamSolution:
    """Exact up to ``exact_limit`` agents, anytime beyond."""
    if problem.n <= exact_limit:
        return solve_exact(problem)
    return solve_anytime(problem, **anytime)  # type: ignore[arg-type]


__all__ = ["MAX_BRUTE_N", "MAX_EXACT_N", "StabilityChecker", "StabilityVerdict", "greedy_blockers", "popcounts",
           "solve", "solve_anytime", "solve_brute", "solve_exact", "solve_one_by_one", "subset_bits", "subset_sums",
           "team_mask", "upper_bound", "welfare_table"]
