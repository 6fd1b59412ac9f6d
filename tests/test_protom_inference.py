"""ProToM's beliefs: Bayesian inverse planning (Eqs. 8-9) and particle resampling."""

from __future__ import annotations

import numpy as np
import pytest

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
