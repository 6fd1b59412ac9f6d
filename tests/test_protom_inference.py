"""ProToM's beliefs: Bayesian inverse planning (Eqs. 8-9) and particle resampling."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from agents.protom.core import GoalInference, goal_prior
from agents.protom.dkg import DKGAdapter
from sim.dkg.scenario import validate_dkg
from sim.dkg.world import DKGWorld

LEGEND = {"#": "wall", ".": "floor", "r": {"key": "red"}, "R": {"door": "red"},
          "A": {"gem": "cyan"}, "B": {"gem": "pink"}, "C": {"gem": "orange"},
          "1": {"agent": "alice"}, "2": {"agent": "bob"}}


def make_world(rows: list[str], goals: dict[str, str]) -> DKGWorld:
    return DKGWorld(validate_dkg({"world": "dkg", "name": "test-map", "map": rows, "legend": LEGEND,
                                  "goals": goals}, "test-map"))


def play(world: DKGWorld, inference: GoalInference, actions: list[str]):
    """Alice takes ``actions`` while Bob waits in between; the facilitator sees every step."""
    state = world.reset(0)
    for action in actions:
        for agent, act in (("alice", action), ("bob", "wait")):
            joint = {agent: act}
            after = world.step(state, joint).state
            inference.observe(state, joint, after)
            state = after
    return state


OPEN_ROOM = [
    "###########",
    "#A.......B#",
    "#.........#",
    "#....1....#",
    "#.........#",
    "#C......2.#",
    "###########",
]


def test_walking_towards_gem_b_makes_it_most_probable():
    world = make_world(OPEN_ROOM, {"alice": "gem2", "bob": "gem3"})
    inference = GoalInference(DKGAdapter(world, temperature=1.0), world.reset(0), np.random.default_rng(0))
    play(world, inference, ["right", "up", "right", "up", "right"])
    post = dict(zip(world.gem_ids, inference.posteriors()["alice"]))
    # gem1 = A (top left), gem2 = B (top right), gem3 = C (bottom left)
    assert max(post, key=post.get) == "gem2"
    assert post["gem2"] > 0.9
    assert post["gem1"] > post["gem3"]  # moving up also fits the other gem at the top
    assert abs(sum(post.values()) - 1) < 1e-9


def test_posterior_sharpens_step_by_step_and_bob_stays_uniform():
    world = make_world(OPEN_ROOM, {"alice": "gem2", "bob": "gem3"})
    inference = GoalInference(DKGAdapter(world), world.reset(0), np.random.default_rng(0))
    gem2 = world.gem_ids.index("gem2")
    history = []
    state = world.reset(0)
    for action in ["right", "right", "right"]:
        joint = {"alice": action}
        after = world.step(state, joint).state
        inference.observe(state, joint, after)
        history.append(inference.posteriors()["alice"][gem2])
        state = world.step(after, {"bob": "wait"}).state  # not observed: no update at all
    assert history[0] < history[1] < history[2]
    np.testing.assert_allclose(inference.posteriors()["bob"], np.full(3, 1 / 3))


def test_uninformative_actions_leave_a_uniform_prior_untouched():
    # Both gems lie to the right: every step right brings Alice equally closer to each of them,
    # so each goal predicts her actions equally well.
    rows = ["##########",
            "#1....A..#",
            "#######B.#",
            "#2.......#",
            "##########"]
    world = make_world(rows, {"alice": "gem1", "bob": "gem2"})
    inference = GoalInference(DKGAdapter(world), world.reset(0), np.random.default_rng(0))
    play(world, inference, ["right", "right", "right"])
    np.testing.assert_allclose(inference.posteriors()["alice"], [0.5, 0.5], atol=1e-12)


def test_goal_prior_is_configurable_and_checked():
    world = make_world(OPEN_ROOM, {"alice": "gem2", "bob": "gem3"})
    inference = GoalInference(DKGAdapter(world), world.reset(0), np.random.default_rng(0),
                              prior={"alice": {"gem1": 3, "gem2": 1}})
    np.testing.assert_allclose(inference.posteriors()["alice"], [0.75, 0.25, 0.0])
    np.testing.assert_allclose(inference.posteriors()["bob"], np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="gem9"):
        goal_prior(("gem1", "gem2"), {"gem9": 1.0}, "alice")
    with pytest.raises(ValueError, match="not all zero"):
        goal_prior(("gem1", "gem2"), {"gem1": 0.0}, "alice")


def test_incompatible_particles_are_resampled():
    # Alice sees only cells within distance 1 of her. Bob picks the red key up out of her sight:
    # with stale=1 every sampled belief still has the key lying at its cell. When Alice walks up
    # to that cell she sees it empty: every particle is resampled, now without the key.
    rows = ["#########",
            "#1....rA#",
            "#######.#",
            "#B...2..#",
            "#########"]
    world = make_world(rows, {"alice": "gem1", "bob": "gem2"})
    key = world.item_index["key1"]
    key_cell = world.reset(0).item_locs[key]
    adapter = DKGAdapter(world, view_radius=1, stale=1.0)
    state = world.reset(0)
    # Bob walks to the key and takes it; Alice waits.
    script = [("alice", "wait"), ("bob", "right"), ("alice", "wait"), ("bob", "right"), ("alice", "wait"),
              ("bob", "up"), ("alice", "wait"), ("bob", "up"), ("alice", "wait"), ("bob", "left"),
              ("alice", "wait"), ("bob", "pickup key1"), ("alice", "wait"), ("bob", "right")]
    for agent, action in script:
        state = world.step(state, {agent: action}).state
    assert state.item_locs[key] == -1 - world.agent_index["bob"]
    inference = GoalInference(adapter, state, np.random.default_rng(1), particles=3)
    alice = inference.beliefs["alice"]
    assert all(p.belief.item_locs[key] == key_cell for p in alice.particles)  # all believe it is still there
    assert inference.beliefs["bob"].particles[0].belief.item_locs[key] < 0  # Bob knows he holds it

    for action in ["right", "right", "right", "right"]:  # Alice walks within sight of the key's cell
        joint = {"alice": action}
        after = world.step(state, joint).state
        inference.observe(state, joint, after)
        state = world.step(after, {"bob": "wait"}).state
        inference.observe(after, {"bob": "wait"}, state)
    assert alice.resampled == 3
    assert all(p.belief.item_locs[key] == state.item_locs[key] for p in alice.particles)
    post = inference.posteriors()["alice"]
    assert post.shape == (2,) and abs(post.sum() - 1) < 1e-9


def test_fully_observable_beliefs_are_the_state():
    world = make_world(OPEN_ROOM, {"alice": "gem2", "bob": "gem3"})
    adapter = DKGAdapter(world)
    inference = GoalInference(adapter, world.reset(0), np.random.default_rng(0), particles=4)
    play(world, inference, ["right", "right"])
    alice = inference.beliefs["alice"]
    assert alice.resampled == 0
    assert len({p.belief for p in alice.particles}) == 1
    # Identical particles update identically: the average equals each one (Eq. 9).
    np.testing.assert_allclose(alice.posterior(), alice.particles[0].goal_probs)


def test_the_posterior_is_the_average_over_particles():
    """Eq. 9 with particles that disagree: (0.8, 0.2), (0.2, 0.8), (0.5, 0.5), (1, 0) average to
    (0.625, 0.375), not to any one particle's distribution."""
    from agents.protom.core import AgentBelief, Particle

    probs = [(0.8, 0.2), (0.2, 0.8), (0.5, 0.5), (1.0, 0.0)]
    belief = AgentBelief("alice", ("gem1", "gem2"), [Particle(None, np.array(p)) for p in probs])
    np.testing.assert_allclose(belief.posterior(), [0.625, 0.375])


# ---------------------------------------------------------------- reference computations

def _reference_posteriors(adapter, state_seq, actions, goals):
    """Eq. 8 by hand, one goal at a time: b(g) ∝ b0(g) * prod_t P(a_t | g, s_t)."""
    post = {a: np.full(len(goals), 1.0 / len(goals)) for a in adapter.agents}
    for state, joint in zip(state_seq, actions):
        for agent, action in joint.items():
            lik = np.array([adapter.likelihoods(state, agent, action, (g,))[0] for g in goals])
            p = post[agent] * lik
            if p.sum() > 0:
                post[agent] = p / p.sum()
    return post


def test_inference_matches_a_reference_computation_on_a_few_states():
    world = make_world(OPEN_ROOM, {"alice": "gem2", "bob": "gem1"})
    adapter = DKGAdapter(world)
    inference = GoalInference(adapter, world.reset(0), np.random.default_rng(0))
    states, joints = [], []
    state = world.reset(0)
    for action in ["right", "right", "up", "left", "up"]:
        for agent, act in (("alice", action), ("bob", "wait")):
            joint = {agent: act}
            after = world.step(state, joint).state
            inference.observe(state, joint, after)
            states.append(state)
            joints.append(joint)
            state = after
    reference = _reference_posteriors(adapter, states, joints, adapter.gems)
    for agent, p in inference.posteriors().items():
        np.testing.assert_allclose(p, reference[agent], rtol=1e-12, atol=1e-15)


def _team_adapter(n_agents: int, n_goals: int, exclusive: bool) -> DKGAdapter:
    """A real adapter on an open room with ``n_agents`` agents and ``n_goals`` gems; ``exclusive``
    False treats the gems as goals several agents may share (as a world without exclusive goals)."""
    names = ["ada", "ben", "cai", "dot", "eli", "fay", "gus", "hal"][:n_agents]
    colors = ["red", "blue", "green", "yellow", "purple", "orange", "cyan", "pink"][:n_goals]
    legend = {"#": "wall", ".": "floor", **{str(i + 1): {"agent": a} for i, a in enumerate(names)},
              **{chr(ord("A") + k): {"gem": c} for k, c in enumerate(colors)}}
    width = max(n_agents, n_goals) + 2
    rows = ["#" * width, "#" + "".join(chr(ord("A") + k) for k in range(n_goals)).ljust(width - 2, ".") + "#",
            "#" + "." * (width - 2) + "#",
            "#" + "".join(str(i + 1) for i in range(n_agents)).ljust(width - 2, ".") + "#", "#" * width]
    world = DKGWorld(validate_dkg({"world": "dkg", "name": "team-map", "map": rows, "legend": legend,
                                   "goals": {a: f"gem{i + 1}" for i, a in enumerate(names)}}, "team-map"))
    adapter = DKGAdapter(world)
    adapter.exclusive_goals = exclusive
    return adapter


def _reference_hypotheses(adapter, posteriors, prune_below=0.0):
    """Algorithm 2, line 7 the plain way: every product of goals, shared goals dropped."""
    import itertools
    import math
    combos = []
    per_agent = [[(g, float(posteriors[a][k])) for k, g in enumerate(adapter.goals(a)) if posteriors[a][k] > 0]
                 for a in adapter.agents]
    for combo in itertools.product(*per_agent):
        goals = tuple(g for g, _ in combo)
        if adapter.exclusive_goals and len(set(goals)) < len(goals):
            continue
        combos.append((goals, math.prod(p for _, p in combo)))
    total = sum(w for _, w in combos)
    combos = [(g, w / total) for g, w in combos]
    kept = [(g, w) for g, w in combos if w >= prune_below] if prune_below > 0 else combos
    return kept or combos


@pytest.mark.parametrize("n_agents, n_goals, exclusive", [(2, 3, True), (4, 4, True), (5, 6, True),
                                                          (3, 3, False), (6, 6, True)])
@pytest.mark.parametrize("vectorised", [True, False])
def test_joint_hypotheses_match_the_plain_enumeration(n_agents, n_goals, exclusive, vectorised, monkeypatch):
    from agents.protom import core
    from agents.protom.core import joint_hypotheses
    if not vectorised:  # the goal-by-goal walk, used where numpy's table would be too large
        monkeypatch.setattr(core, "_VECTOR_LIMIT", 0)
    rng = np.random.default_rng(n_agents * 10 + n_goals)
    adapter = _team_adapter(n_agents, n_goals, exclusive)
    for trial in range(5):
        posts = {}
        for a in adapter.agents:
            p = rng.dirichlet(np.ones(n_goals))
            if trial % 2:
                p[rng.integers(n_goals)] = 0.0  # a goal ruled out
                p /= p.sum()
            posts[a] = p
        for prune in (0.0, 1e-3, 0.05):
            # same hypotheses, same order, bit-identical weights
            reference = _reference_hypotheses(adapter, posts, prune)
            assert joint_hypotheses(adapter, posts, prune) == reference
            for cap in (1, 5):
                heaviest = sorted(reference, key=lambda h: -h[1])[:cap]
                assert joint_hypotheses(adapter, posts, prune, cap) == [h for h in reference if h in heaviest]
            assert joint_hypotheses(adapter, posts, prune, "all") == reference
            assert joint_hypotheses(adapter, posts, prune, "auto") == _reference_auto(reference)


def _reference_auto(reference):
    """``max_hypotheses="auto"`` spelled out: all while at most AUTO_EXACT_UP_TO, else the fewest
    heaviest holding AUTO_MASS of the mass left, at most AUTO_CAP (ties: the first enumerated)."""
    from agents.protom.core import AUTO_CAP, AUTO_EXACT_UP_TO, AUTO_MASS
    if len(reference) <= AUTO_EXACT_UP_TO:
        return reference
    total = sum(w for _, w in reference)
    ranked = sorted(range(len(reference)), key=lambda k: -reference[k][1])  # stable: ties keep order
    kept, mass = [], 0.0
    for k in ranked[:AUTO_CAP]:
        kept.append(k)
        mass += reference[k][1]
        if mass >= AUTO_MASS * total:
            break
    return [reference[k] for k in sorted(kept)]


def test_auto_is_exact_up_to_its_bound_and_counts_what_it_left_out():
    from agents.protom.core import AUTO_CAP, AUTO_EXACT_UP_TO, counted_hypotheses
    adapter = _team_adapter(6, 6, True)  # flat posteriors: 720 hypotheses
    flat = {a: np.full(6, 1 / 6) for a in adapter.agents}
    kept, left = counted_hypotheses(adapter, flat, 1e-3, "auto")
    assert left == 720 > AUTO_EXACT_UP_TO and len(kept) == AUTO_CAP
    assert counted_hypotheses(adapter, flat, 1e-3, "all") == counted_hypotheses(adapter, flat, 1e-3)
    # one agent sure of its gem, the others all but: the heaviest hypothesis holds over 90%
    sure = {a: np.where(np.arange(6) == i, 0.99, 0.002) for i, a in enumerate(adapter.agents)}
    kept, left = counted_hypotheses(adapter, sure, 0.0, "auto")
    assert left == 720 and len(kept) == 1
    small = _team_adapter(4, 4, True)  # 24 hypotheses: exact
    flat4 = {a: np.full(4, 0.25) for a in small.agents}
    assert counted_hypotheses(small, flat4, 1e-3, "auto") == counted_hypotheses(small, flat4, 1e-3)


def test_max_hypotheses_values_are_checked():
    from agents.protom.facilitators import ProToMFacilitator
    from agents.registry import AgentSpecError, make_mechanism
    assert make_mechanism("protom", "dkg").max_hypotheses == "auto"
    assert make_mechanism("protom:max_hypotheses=all", "dkg").max_hypotheses == "all"
    assert make_mechanism("protom:max_hypotheses=3", "dkg").max_hypotheses == 3
    for bad in ("0", "some", "2.5"):
        with pytest.raises(AgentSpecError, match=f"max_hypotheses.*'auto' or 'all', got {bad}$"):
            make_mechanism(f"protom:max_hypotheses={bad}", "dkg")
    with pytest.raises(ValueError, match="got True"):
        ProToMFacilitator(max_hypotheses=True)


def test_max_hypotheses_keeps_the_heaviest_in_enumeration_order():
    from agents.protom.core import joint_hypotheses
    adapter = _team_adapter(3, 3, True)
    a, b, c = adapter.agents
    posts = {a: np.array([0.7, 0.2, 0.1]), b: np.array([0.1, 0.6, 0.3]), c: np.array([0.3, 0.3, 0.4])}
    full = joint_hypotheses(adapter, posts)
    top = joint_hypotheses(adapter, posts, max_hypotheses=3)
    heaviest = sorted(full, key=lambda h: -h[1])[:3]
    assert len(top) == 3 and set(top) == set(heaviest)
    assert top == [h for h in full if h in heaviest]  # enumeration order kept
    assert joint_hypotheses(adapter, posts, max_hypotheses=len(full)) == full


@pytest.mark.parametrize("m", range(1, 9))
def test_the_goal_permutations_are_itertools_own(m):
    """``_permutations`` builds with numpy the rows ``itertools.permutations`` gives, in its order."""
    import itertools

    from agents.protom.core import _permutations
    for n in range(1, m + 1):
        expected = np.array(list(itertools.permutations(range(m), n)), dtype=np.intp)
        got = _permutations(m, n)
        assert got.shape == expected.shape and (got == expected).all(), (m, n)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.125, 0.25, 0.5, 1e-9, 1.0]), min_size=1, max_size=40),
       st.integers(min_value=1, max_value=8))
def test_the_heaviest_rows_are_a_stable_sorts(weights, k):
    """The top-k selections without a full sort pick what the full stable sort picks (ties: the
    first), and the largest values in the same order."""
    from agents.protom.core import _heaviest_rows, _largest
    w = np.array(weights)
    assert _heaviest_rows(w, k).tolist() == sorted(np.argsort(-w, kind="stable")[:k].tolist())
    assert _largest(w, k).tolist() == np.sort(w)[::-1][:k].tolist()
