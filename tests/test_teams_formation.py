"""Team formation by the definitions (seed 000 Eqs. 2-5), its solvers, alignment and metrics."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents.teams.alignment import (
    SelfEvaluationError,
    embed_trajectories,
    parse_self_evaluation,
    self_evaluation_prompt,
    trajectory_alignment,
)
from agents.teams.formation import (
    TeamProblem,
    blocking_coalition,
    default_eta,
    is_stable,
    passes_filter,
    preference,
    welfare,
)
from agents.teams.metrics import average_lifetime, bas, bas_by_level, ftm
from agents.teams.solver import (
    StabilityChecker,
    solve,
    solve_anytime,
    solve_brute,
    solve_exact,
    upper_bound,
    welfare_table,
)

PHI3 = np.array([[0.0, 0.5, 0.1],
                 [0.3, 0.0, -0.2],
                 [0.4, 0.6, 0.0]])


# ---------------------------------------------------------------------------- definitions


def test_eta_is_ceil_half():
    assert [default_eta(n) for n in (1, 2, 3, 4, 5, 8, 9)] == [1, 1, 2, 2, 3, 4, 5]


def test_preferences_and_welfare_by_hand():
    p = TeamProblem(PHI3, eps=None)
    assert preference(p, 0, (0, 1, 2)) == pytest.approx(0.3)
    assert preference(p, 1, (0, 1, 2)) == pytest.approx(0.05)
    assert preference(p, 2, (0, 1, 2)) == pytest.approx(0.5)
    assert welfare(p, (0, 1, 2)) == pytest.approx(0.85)
    assert preference(p, 2, (2,)) == 0.0  # no teammates: neutral
    # Section 5.2: + lam * mean alpha of the team (mean 0.5 here), for each member
    q = TeamProblem(PHI3, alpha=[1.0, 0.0, 0.5], lam=1.0, eps=None)
    assert preference(q, 1, (0, 1, 2)) == pytest.approx(0.55)
    assert welfare(q, (0, 1, 2)) == pytest.approx(2.35)
    assert welfare(TeamProblem(PHI3, alpha=[1.0, 0.0, 0.5], lam=0.5, eps=None), (0, 1)) == pytest.approx(1.3)
    with pytest.raises(ValueError, match="not in team"):
        preference(p, 2, (0, 1))


def test_a_better_aligned_subgroup_blocks():
    # 0 and 1 predict each other perfectly and 2 badly: {0, 1} defects from {0, 1, 2}
    phi = np.array([[0, 1, -1], [1, 0, -1], [0.5, 0.5, 0]], dtype=float)
    p = TeamProblem(phi, eps=None)  # eta = 2
    assert blocking_coalition(p, (0, 1, 2)) == (0, 1)
    assert not is_stable(p, (0, 1, 2)) and is_stable(p, (0, 1)) and is_stable(p, (0, 2))
    # equal preferences do not block: blocking needs every member strictly better off
    flat = TeamProblem(np.full((4, 4), 0.1), eps=None)
    assert is_stable(flat, (0, 1, 2, 3))
    verdict = StabilityChecker(p).check((0, 1, 2))
    assert verdict.stable is False and verdict.blocking == (0, 1)


def test_eps_filter_needs_both_directions_and_falls_back_when_nothing_passes():
    phi = np.array([[0, 0.9], [0.1, 0]])
    p = TeamProblem(phi, eps=0.2)  # eta = 1
    assert not passes_filter(p, (0, 1)) and passes_filter(p, (0,))
    assert solve_exact(p).team == (0,) and solve_exact(p).filtered
    assert solve_exact(p.unfiltered()).team == (0, 1)
    # universal misalignment: no pair passes eps, formation falls back to welfare over all teams
    low = TeamProblem(np.full((4, 4), 0.1), eps=0.2)
    for solver in (solve_exact, solve_brute, solve_anytime):
        s = solver(low)
        assert s.team == (0, 1, 2, 3) and not s.filtered and s.welfare == pytest.approx(0.4)


def test_eq5_skips_unstable_teams_of_higher_welfare():
    # 3 predicts everyone well, nobody predicts 3 well: {0,1,2,3} and {0,1,3} have more welfare
    # than {0,1,2} but {0,1,2} (resp. {0,1}) blocks them
    phi = np.full((4, 4), 0.5)
    phi[:, 3] = 0.1
    phi[3, :] = 0.95
    p = TeamProblem(phi, eps=None)
    assert welfare(p, range(4)) == pytest.approx(2.05) and welfare(p, (0, 1, 3)) == pytest.approx(1.55)
    for solver in (solve_exact, solve_brute):
        s = solver(p)
        assert s.team == (0, 1, 2) and s.welfare == pytest.approx(1.5) and s.stable and s.optimal
        assert s.refuted == 4  # {0,1,2,3}, {0,1,3}, {0,2,3}, {1,2,3}


def test_problem_errors_say_what_is_wrong():
    with pytest.raises(ValueError, match="square"):
        TeamProblem(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="non-finite"):
        TeamProblem(np.array([[0, np.nan], [0, 0]]))
    with pytest.raises(ValueError, match="alpha must have one score per agent"):
        TeamProblem(np.zeros((3, 3)), alpha=[1, 2])
    with pytest.raises(ValueError, match="min_size"):
        TeamProblem(np.zeros((3, 3)), min_size=3, max_size=2)
    with pytest.raises(ValueError, match="n <= 12"):
        solve_brute(TeamProblem(np.zeros((13, 13))))


# ---------------------------------------------------------------------------- solvers


def _random_problem(rng: np.random.Generator, n: int, variant: int) -> TeamProblem:
    phi = np.clip(rng.uniform(-1, 1, (n, n)) + (0.0, 0.4, 0.8)[variant % 3], -1, 1)
    alpha = rng.uniform(0, 1, n) if variant % 4 == 0 else None
    eps = (0.2, None, -0.3)[variant % 3]
    sizes = {"max_size": n - 1} if variant % 5 == 0 and n > 2 else {}
    return TeamProblem(phi, alpha=alpha, lam=(1.0, 0.5)[variant % 2], eps=eps, **sizes)


def test_exact_solver_agrees_with_brute_force():
    rng = np.random.default_rng(13)
    refuted = 0
    for variant in range(160):
        p = _random_problem(rng, int(rng.integers(2, 9)), variant)
        exact, brute = solve_exact(p), solve_brute(p)
        assert exact.team == brute.team, variant
        assert exact.welfare == pytest.approx(brute.welfare, abs=1e-9)
        assert exact.filtered == brute.filtered and exact.refuted == brute.refuted
        assert is_stable(p, exact.team) and exact.stable and exact.optimal
        refuted += exact.refuted
    assert refuted > 20  # the comparison covered answers that are not simply the top welfare


def test_exact_solver_at_twelve_agents_against_definitions():
    rng = np.random.default_rng(5)
    p = TeamProblem(np.clip(rng.uniform(-1, 1, (12, 12)) + 0.6, -1, 1), eps=None)
    s = solve_exact(p)
    assert s.refuted > 0 and is_stable(p, s.team)
    w, pc = welfare_table(p)
    for mask in np.flatnonzero((pc >= p.eta) & (w > s.welfare + 1e-9))[:40]:
        team = tuple(i for i in range(12) if mask >> i & 1)
        assert w[mask] == pytest.approx(welfare(p, team))
        assert blocking_coalition(p, team) is not None  # every better team really is unstable


def test_upper_bound_bounds_every_team_size():
    rng = np.random.default_rng(7)
    for variant in range(12):
        p = _random_problem(rng, 10, variant)
        w, pc = welfare_table(p)
        bound, per_size = upper_bound(p)
        for m, b in per_size.items():
            assert w[pc == m].max() <= b + 1e-9
        assert bound == max(per_size.values())


def test_anytime_is_stable_never_beats_exact_and_bounds_it():
    rng = np.random.default_rng(11)
    matched = 0
    for variant in range(24):
        p = _random_problem(rng, int(rng.integers(6, 13)), variant)
        exact, anytime = solve_exact(p), solve_anytime(p, restarts=8, seed=variant)
        assert is_stable(p, anytime.team) and anytime.stable
        assert anytime.welfare <= exact.welfare + 1e-9 <= anytime.upper_bound + 2e-9
        assert anytime.gap >= 0 and anytime.gap == pytest.approx(
            (anytime.upper_bound - anytime.welfare) / max(abs(anytime.upper_bound), 1e-9))
        matched += anytime.team == exact.team
    assert matched >= 18


def test_anytime_beyond_the_exact_limit_reports_a_certified_team_and_gap():
    rng = np.random.default_rng(3)
    p = TeamProblem(np.clip(rng.uniform(-1, 1, (30, 30)) + 0.3, -1, 1), eps=0.2)
    s = solve(p, restarts=4, checks=300)
    assert s.method == "anytime" and s.stable and len(s.team) >= 15
    assert StabilityChecker(p).check(s.team).stable is True
    assert s.upper_bound >= s.welfare and 0 <= s.gap < 1
    assert solve_anytime(p, restarts=4, checks=300).team == s.team  # deterministic
    with pytest.raises(ValueError, match="solve_anytime"):
        solve_exact(TeamProblem(np.zeros((23, 23))))


# ---------------------------------------------------------------------------- alignment


def test_trajectory_alignment_known_answers():
    assert trajectory_alignment(["left", "up"], ["left", "up"]) == pytest.approx(1.0)
    assert trajectory_alignment(["left"], ["right"]) == pytest.approx(-1.0)
    assert trajectory_alignment(["left"], ["up"]) == pytest.approx(0.0)
    assert trajectory_alignment(["stay"], ["left"]) == pytest.approx(0.0)
    assert trajectory_alignment(["stay", "pick"], ["stay", "pick"]) == pytest.approx(1.0)
    # per-step agreement averaged: right, opposite, perpendicular, right -> (1 - 1 + 0 + 1) / 4
    assert trajectory_alignment(["left", "left", "up", "down"],
                                ["left", "right", "left", "down"]) == pytest.approx(0.25)
    # discount 0.5: weights 1, 0.25 (squared) -> (1 * 1 + 0.25 * -1) / 1.25
    assert trajectory_alignment(["left", "left"], ["left", "right"], discount=0.5) == pytest.approx(0.6)
    # order-free: left-then-up vs up-then-left is the same net move
    assert trajectory_alignment(["left", "up"], ["up", "left"], embedding="net") == pytest.approx(1.0)
    assert trajectory_alignment(["left", "up"], ["up", "left"]) == pytest.approx(0.0)
    # a longer prediction is compared over the steps that happened
    assert trajectory_alignment(["right", "left", "left"], ["right"]) == pytest.approx(1.0)
    # worlds with other move names
    assert trajectory_alignment(["W"], ["E"], action_vectors={"W": (-1, 0), "E": (1, 0)}) == pytest.approx(-1.0)
    assert trajectory_alignment([{"give": 1}], [{"give": 1}]) == pytest.approx(1.0)
    assert embed_trajectories([["left"], ["stay"]]).shape == (2, 3)
    with pytest.raises(ValueError, match="empty"):
        trajectory_alignment([], ["left"])


APPENDIX_A_ANSWER = """Here are my scores:
```json
{
    "Engineer1": {
        "score": 0.7,
        "explanation": "Good game logic, basic UI, aligns with core requirements.",
        "justification": "Engineer1 demonstrates understanding of 2048 mechanics."
    },
    "Engineer2": {
        "score": 0.9,
        "explanation": "Excellent OOP approach, advanced UI with animations.",
        "justification": "Engineer2 shows a deep understanding of the game's rules."
    }
}
```"""


def test_parse_appendix_a_self_evaluation():
    assert parse_self_evaluation(APPENDIX_A_ANSWER) == {"Engineer1": 0.7, "Engineer2": 0.9}
    assert parse_self_evaluation({"x": {"score": "1.5"}, "y": {"score": -3}}) == {"x": 1.0, "y": -1.0}
    with pytest.raises(SelfEvaluationError, match="Engineer2.score"):
        parse_self_evaluation('{"Engineer1": {"score": 0.1}, "Engineer2": {"score": "high"}}')
    with pytest.raises(SelfEvaluationError, match="missing \\['Engineer3'\\]"):
        parse_self_evaluation(APPENDIX_A_ANSWER, teammates=["Engineer1", "Engineer2", "Engineer3"])
    with pytest.raises(SelfEvaluationError, match="invalid JSON"):
        parse_self_evaluation("I cannot score them")
    with pytest.raises(SelfEvaluationError, match="invalid JSON"):
        parse_self_evaluation('{"Engineer1": {"score": 0.7,,}}')
    with pytest.raises(SelfEvaluationError, match="nested deeper than 64"):  # the project's strict reader
        parse_self_evaluation('{"Engineer1": ' + "[" * 200_000 + "]" * 200_000 + "}")
    prompt = self_evaluation_prompt({"Engineer1": "used a 2D array"}, "they will implement 2048")
    assert "between -1 and 1" in prompt and '"Engineer1"' in prompt and "they will implement 2048" in prompt


# ---------------------------------------------------------------------------- metrics


def test_bas_and_by_level():
    assert bas(PHI3, [0, 1, 2]) == pytest.approx(0.85 / 3)
    assert bas(PHI3, [0, 1]) == pytest.approx(0.4)
    with_unknown = PHI3.copy()
    with_unknown[0, 1] = np.nan  # unknown counts as neutral
    assert bas(with_unknown, [0, 1]) == pytest.approx(0.15)
    assert bas_by_level(PHI3, [0, 1, 2], levels=[1, 2, 1]) == {1: pytest.approx(0.4), 2: pytest.approx(0.05)}


def test_ftm_counts_trusted_others():
    phi = np.array([[np.nan, 0.2, 0.19, 0.9],
                    [-1, np.nan, -1, -1],
                    [1, 1, np.nan, np.nan],
                    [0.5, 0.5, 0.5, np.nan]])
    assert ftm(phi, eps=0.2).tolist() == pytest.approx([2 / 3, 0, 2 / 3, 1])


def test_average_lifetime_matches_the_papers_examples():
    assert average_lifetime([0], 5) == 5.0  # no re-formation: 5 / 5
    assert average_lifetime([0, 2], 5) == 2.5  # lifetimes 2 and 3
    assert average_lifetime([0, 1, 3], 6) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="increasing"):
        average_lifetime([2, 1], 5)


def test_brute_force_reference_itself_on_every_subset_of_a_tiny_problem():
    # the reference solver against a direct reading of Eq. 5 over itertools' subsets
    rng = np.random.default_rng(2)
    p = TeamProblem(rng.uniform(-1, 1, (5, 5)) + 0.5, eps=None)
    teams = [t for k in range(p.eta, 6) for t in itertools.combinations(range(5), k) if is_stable(p, t)]
    best = max(teams, key=lambda t: welfare(p, t))
    assert solve_brute(p).team == best
