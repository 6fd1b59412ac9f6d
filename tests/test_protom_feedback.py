"""ProToM's feedback: candidates, utilities on hand-computed maps, thresholds, busy rule,
explanations, and the facilitator registry."""

from __future__ import annotations

import numpy as np
import pytest

from agents.protom.core import Candidate, compute_utility, joint_hypotheses, select_feedback
from agents.protom.dkg import DKGAdapter
from agents.protom.facilitators import OracleFacilitator, ProToMFacilitator, RandomFacilitator
from agents.registry import AgentSpecError, make_mechanism, mechanism_kinds
from sim.dkg.scenario import validate_dkg
from sim.dkg.world import DKGWorld
from sim.seats import SeatContext, StepView

LEGEND = {"#": "wall", ".": "floor", "r": {"key": "red"}, "R": {"door": "red"}, "b": {"key": "blue"},
          "B": {"door": "blue"}, "*": {"gem": "cyan"}, "+": {"gem": "pink"}, "%": {"gem": "orange"},
          "1": {"agent": "alice"}, "2": {"agent": "bob"}}

# Alice is locked in behind the red door; the only red key lies by Bob.
LOCKED_IN = ["##########",
             "#1R.*2r+.#",
             "##########"]
# Alice's gem is behind the red door next to her; the red key lies at the far end, by Bob,
# whose own gem is in a niche Alice's corridor passes.
FAR_KEY = ["###########",
           "#*R1....r2#",
           "####+######",
           "###########"]


def make_world(rows: list[str], goals: dict[str, str] | None = None) -> DKGWorld:
    goals = goals or {"alice": "gem1", "bob": "gem2"}
    return DKGWorld(validate_dkg({"world": "dkg", "name": "test-map", "map": rows, "legend": LEGEND,
                                  "goals": goals}, "test-map"))


def one_hot(adapter: DKGAdapter, goals: dict[str, str]) -> dict[str, np.ndarray]:
    return {a: np.array([1.0 if g == goals[a] else 0.0 for g in adapter.goals(a)]) for a in adapter.agents}


def by_label(candidates: list[Candidate]) -> dict[str, Candidate]:
    return {c.label: c for c in candidates}


# ------------------------------------------------------------------ utilities by hand


def test_utility_when_help_is_necessary():
    """LOCKED_IN, true goals, turn order alice, bob (t = 0 is Alice's turn):

    no feedback: Bob walks right (tick 1), right (3), picks gem2 up (5): done at 6; Alice can
    never leave, so C(none) is the cap, 80 ticks.
    Unlock(bob, door1): Bob right to the key (1), pickup (3), left x3 to the door (5, 7, 9),
    unlock (11), then right x4 (13..19) and pickup (21): done at 22. Alice waits; from tick 12:
    right x3 (12, 14, 16), pickup (18): done at 19. C = max(19, 22) = 22. dC = 80 - 22 = 58.
    Handover(bob, key1, alice) is impossible: Bob can never stand next to Alice.
    """
    world = make_world(LOCKED_IN)
    adapter = DKGAdapter(world)
    state = world.reset(0)
    goals = ("gem1", "gem2")
    assert adapter.rollout(state, goals, None).finish == (None, 6)
    assert adapter.cost(state, goals, None) == 80
    candidates = by_label(adapter.candidates(state))
    assert set(candidates) == {"(bob, unlocked(door1))"}
    unlock = candidates["(bob, unlocked(door1))"]
    assert adapter.rollout(state, goals, unlock).finish == (19, 22)
    result = compute_utility(adapter, state, [unlock], joint_hypotheses(adapter, one_hot(adapter, world.goals)))
    assert result.utilities.tolist() == [58.0]


def test_utilities_when_help_is_useful():
    """FAR_KEY, true goals. Without feedback Alice walks 5 cells to the key (ticks 0..8), picks it
    up (10), walks back (12..20), unlocks (22), walks 2 (24, 26), picks gem1 up (28): done at 29;
    Bob walks left 5 and down 1 (1..11), pickup (13): done at 14. C(none) = 29.

    Unlock(bob, door1): Bob steps left onto the key (1), picks it up (3), walks left 5 cells to
    the door's side (5..13), unlocks (15), then right (17), down (19), picks gem2 up (21): done
    at 22. Alice heads for the key (0, 2); once Bob holds it she walks back to her door (4, 6)
    and waits; it opens at 15: left (16, 18), pickup (20): done at 21. C = 22, dC = 7.
    Handover(bob, key1, alice): Bob takes the key (1, 3) and walks towards Alice (5, 7) who
    meanwhile went back to her door (4, 6); one more step (9, 11), hand over (13). Alice
    unlocks (14), walks (16, 18), picks gem1 up (20): done at 21; Bob goes down (15) and picks
    gem2 up (17): done at 18. C = 21, dC = 8.
    """
    world = make_world(FAR_KEY)
    adapter = DKGAdapter(world)
    state = world.reset(0)
    goals = ("gem1", "gem2")
    assert adapter.rollout(state, goals, None).finish == (29, 14)
    candidates = by_label(adapter.candidates(state))
    unlock, handover = candidates["(bob, unlocked(door1))"], candidates["(bob, has(alice, key1))"]
    assert adapter.rollout(state, goals, unlock).finish == (21, 22)
    assert adapter.rollout(state, goals, handover).finish == (21, 18)
    order = list(candidates.values())
    result = compute_utility(adapter, state, order, joint_hypotheses(adapter, one_hot(adapter, world.goals)))
    utilities = dict(zip(candidates, result.utilities.tolist()))
    assert utilities["(bob, unlocked(door1))"] == 7.0
    assert utilities["(bob, has(alice, key1))"] == 8.0
    assert utilities["(alice, unlocked(door1))"] == 0.0  # what she does anyway
    assert utilities["(alice, has(bob, key1))"] == 29.0 - 80.0  # she gives her only way in away


def test_joint_hypotheses_drop_shared_gems_and_renormalize():
    world = make_world(["############",
                        "#*R1....r2%#",
                        "####+#######",
                        "############"], {"alice": "gem1", "bob": "gem2"})
    adapter = DKGAdapter(world)
    posts = {"alice": np.array([0.5, 0.2, 0.3]), "bob": np.array([0.1, 0.6, 0.3])}
    hyps = dict(joint_hypotheses(adapter, posts))
    # exclusive goals: pairs with a shared gem are dropped and the rest renormalized; by hand the
    # kept mass is 1 - (0.5*0.1 + 0.2*0.6 + 0.3*0.3) = 0.74
    assert set(hyps) == {("gem1", "gem2"), ("gem1", "gem3"), ("gem2", "gem1"), ("gem2", "gem3"),
                         ("gem3", "gem1"), ("gem3", "gem2")}
    assert hyps[("gem1", "gem2")] == pytest.approx(0.30 / 0.74)
    assert hyps[("gem3", "gem1")] == pytest.approx(0.03 / 0.74)
    assert sum(hyps.values()) == pytest.approx(1.0)


def test_utility_is_the_posterior_weighted_sum():
    """FAR_KEY with a belief: Alice wants gem1 with 0.7 (gem2 0.3), Bob gem2 with 0.6 (gem1 0.4).
    Exclusive goals leave two joint hypotheses: (gem1, gem2) with 0.7 * 0.6 = 0.42 and (gem2, gem1)
    with 0.3 * 0.4 = 0.12, i.e. weights 7/9 and 2/9.

    Under (gem1, gem2) the gains are those of test_utilities_when_help_is_useful: C(none) = 29,
    Bob unlocks: 22 (dC 7), Bob hands the key over: 21 (dC 8), Alice hands her way in away: the
    cap 80 (dC -51), Alice unlocks: what she does anyway (dC 0).
    Under (gem2, gem1): Alice steps right (0), down (2), picks the pink gem up (4): done at 5;
    Bob steps onto the key (1), picks it up (3), walks left 5 cells (5..13), unlocks (15), walks
    2 (17, 19), picks gem1 up (21): done at 22. C(none) = 22. Bob unlocking is what he does
    anyway (dC 0); Alice's suggestions change nothing for the last finisher (dC 0); Bob giving
    his key to Alice leaves him locked out: the cap 80, dC = 22 - 80 = -58.
    """
    world = make_world(FAR_KEY)
    adapter = DKGAdapter(world)
    state = world.reset(0)
    assert adapter.rollout(state, ("gem2", "gem1"), None).finish == (5, 22)
    candidates = by_label(adapter.candidates(state))
    posts = {"alice": np.array([0.7, 0.3]), "bob": np.array([0.4, 0.6])}
    result = compute_utility(adapter, state, list(candidates.values()), joint_hypotheses(adapter, posts))
    utilities = dict(zip(candidates, result.utilities.tolist()))
    assert utilities["(bob, unlocked(door1))"] == pytest.approx(7 / 9 * 7 + 2 / 9 * 0)
    assert utilities["(bob, has(alice, key1))"] == pytest.approx(7 / 9 * 8 + 2 / 9 * -58)
    assert utilities["(alice, has(bob, key1))"] == pytest.approx(7 / 9 * -51 + 2 / 9 * 0)
    assert utilities["(alice, unlocked(door1))"] == pytest.approx(0.0)
    # Eq. 15's sign: the help Bob should give flips once the belief leans the other way
    flipped = compute_utility(adapter, state, list(candidates.values()),
                              joint_hypotheses(adapter, {"alice": np.array([0.2, 0.8]), "bob": np.array([0.8, 0.2])}))
    assert dict(zip(candidates, flipped.utilities.tolist()))["(bob, has(alice, key1))"] < 0


def test_eq17_argmax_is_the_most_probable_joint_hypothesis():
    """Eq. 17 names the goals of the most probable joint hypothesis, not each agent's own argmax:
    Alice [0.6, 0.4], Bob [0.9, 0.1] -> (gem1, gem2): 0.6 * 0.1 = 0.06, (gem2, gem1): 0.4 * 0.9 =
    0.36. Alice's own likeliest gem is gem1, but the joint argmax gives her gem2."""
    from agents.protom.core import most_probable_goals

    world = make_world(FAR_KEY)
    adapter = DKGAdapter(world)
    posts = {"alice": np.array([0.6, 0.4]), "bob": np.array([0.9, 0.1])}
    assert most_probable_goals(adapter, posts) == {"alice": "gem2", "bob": "gem1"}
    posts = {"alice": np.array([0.9, 0.1]), "bob": np.array([0.3, 0.7])}
    assert most_probable_goals(adapter, posts) == {"alice": "gem1", "bob": "gem2"}


# ------------------------------------------------------------------ candidates


def test_candidates_are_feasible_only():
    # The blue key is walled in: nobody can fetch it, so no feedback names it. The red key can be
    # fetched by Alice only (Bob is shut in with his gem), so only Alice may be asked to use it.
    world = make_world(["###########",
                        "#1..r..R.*#",
                        "#.....#####",
                        "####.#b####",
                        "#2+B..#####",
                        "###########"], {"alice": "gem1", "bob": "gem2"})
    adapter = DKGAdapter(world)
    labels = {c.label for c in adapter.candidates(world.reset(0))}
    assert not any("key2" in label for label in labels)  # the blue key, unreachable
    assert "(alice, unlocked(door1))" in labels            # red door: Alice can fetch the red key
    assert "(bob, unlocked(door1))" not in labels          # Bob cannot reach it
    assert "(alice, has(bob, key1))" not in labels         # Bob is shut in: no meeting possible
    assert not any(label.startswith("(bob") for label in labels)
    assert all(c.payload["agent"] == c.target for c in adapter.candidates(world.reset(0)))


def test_used_keys_and_open_doors_leave_the_candidates():
    world = make_world(FAR_KEY)
    adapter = DKGAdapter(world)
    state = world.reset(0)
    for agent, action in [("alice", "wait"), ("bob", "left"), ("alice", "wait"), ("bob", "pickup key1")]:
        state = world.step(state, {agent: action}).state
    labels = {c.label for c in adapter.candidates(state)}
    assert "(alice, has(bob, key1))" not in labels  # Bob holds it now
    assert "(bob, has(alice, key1))" in labels
    for agent, action in [("alice", "wait")] + [("bob", "left"), ("alice", "wait")] * 5 + [("bob", "unlock door1")]:
        state = world.step(state, {agent: action}).state
    assert adapter.candidates(state) == []  # door open, key used up


# ------------------------------------------------------------------ selection


def test_thresholds_phi_and_eps():
    world = make_world(FAR_KEY)
    adapter = DKGAdapter(world)
    posts = one_hot(adapter, world.goals)
    rng = np.random.default_rng(0)
    state = world.reset(0)
    candidates = adapter.candidates(state)
    utilities = compute_utility(adapter, state, candidates, joint_hypotheses(adapter, posts)).utilities
    best = int(np.argmax(utilities))
    assert candidates[best].label == "(bob, has(alice, key1))" and utilities[best] == 8.0
    # Bob's first step towards the key is his first step towards his own gem too: he does not
    # deviate yet (divergence 0), so the feedback waits, unless eps is below 0.
    sel = select_feedback(adapter, state, candidates, utilities, posts, rng, phi=0.0, eps=0.1)
    assert sel.chosen is None and sel.divergences == {best: 0.0}
    assert select_feedback(adapter, state, candidates, utilities, posts, rng, phi=0.0, eps=-0.01).chosen == best

    for agent, action in [("alice", "wait"), ("bob", "left")]:  # Bob now stands on the key
        state = world.step(state, {agent: action}).state
    candidates = adapter.candidates(state)
    utilities = compute_utility(adapter, state, candidates, joint_hypotheses(adapter, posts)).utilities
    u = dict(zip((c.label for c in candidates), utilities.tolist()))
    assert u == {"(alice, unlocked(door1))": 0.0, "(alice, has(bob, key1))": 29.0 - 78.0,
                 "(bob, unlocked(door1))": 9.0, "(bob, has(alice, key1))": 10.0}
    best = int(np.argmax(utilities))
    sel = select_feedback(adapter, state, candidates, utilities, posts, rng, phi=0.0, eps=0.1)
    assert sel.chosen == best and sel.divergences == {best: 1.0}  # his own plan walks on: he would not pick it up
    assert select_feedback(adapter, state, candidates, utilities, posts, rng, phi=10.0, eps=0.1).chosen is None
    assert select_feedback(adapter, state, candidates, utilities, posts, rng, phi=9.9, eps=0.1).chosen == best
    assert select_feedback(adapter, state, candidates, utilities, posts, rng, phi=0.0, eps=1.0).chosen is None
    assert select_feedback(adapter, state, candidates, utilities, posts, rng, phi=0.0, eps=0.99).chosen == best


def test_divergence_follows_the_goal_posterior():
    world = make_world(["###########",
                        "#*R1....r2#",
                        "####+######",
                        "#%.......##",
                        "###########"], {"alice": "gem1", "bob": "gem2"})
    adapter = DKGAdapter(world)
    state = world.reset(0)
    for agent, action in [("alice", "wait"), ("bob", "left")]:
        state = world.step(state, {agent: action}).state
    handover = by_label(adapter.candidates(state))["(bob, has(alice, key1))"]
    from agents.protom.core import divergence
    assert adapter.goals("bob") == ("gem1", "gem2", "gem3")
    # Bob stands on the key. If he wants gem1 (behind the red door) his own next step is to pick the
    # key up, as the feedback asks (overlap 1, divergence 0); for gem2 or gem3 he walks on (divergence
    # 1). The target-overlap divergence is the posterior-weighted mean.
    assert divergence(adapter, state, handover, np.array([1.0, 0.0, 0.0]), "target-overlap") == 0.0
    assert divergence(adapter, state, handover, np.array([0.0, 1.0, 0.0]), "target-overlap") == 1.0
    assert divergence(adapter, state, handover, np.array([0.5, 0.5, 0.0]), "target-overlap") == pytest.approx(0.5)
    assert divergence(adapter, state, handover, np.array([0.25, 0.5, 0.25]), "target-overlap") == pytest.approx(0.75)


def test_ties_are_broken_uniformly():
    world = make_world(FAR_KEY)
    adapter = DKGAdapter(world)
    state = world.reset(0)
    candidates = [c for c in adapter.candidates(state) if c.target == "bob"]
    utilities = np.full(len(candidates), 5.0)
    posts = {a: np.full(2, 0.5) for a in adapter.agents}
    chosen = {select_feedback(adapter, state, candidates, utilities, posts, np.random.default_rng(seed),
                              phi=0.0, eps=-1.0).chosen for seed in range(40)}
    assert chosen == set(range(len(candidates)))


def test_divergence_is_zero_when_the_agent_already_does_it():
    world = make_world(FAR_KEY)
    adapter = DKGAdapter(world, lapse=0.0, temperature=0.05)
    state = world.reset(0)
    unlock = by_label(adapter.candidates(state))["(alice, unlocked(door1))"]
    from agents.protom.core import divergence
    posts = one_hot(adapter, world.goals)
    # Alice's own plan starts exactly like "unlock door1": walk right to the key.
    assert divergence(adapter, state, unlock, posts["alice"], "target-overlap") < 1e-6
    for measure in ("tv", "js"):
        assert divergence(adapter, state, unlock, posts["alice"], measure) < 1e-6


# ------------------------------------------------------------------ the facilitator


class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)


def start(fac, world, seed=0):
    ctx = SeatContext(world=world, agent_id="facilitator", seed=seed, rng=np.random.default_rng(seed),
                      emit=Recorder(), clock=lambda: 0)
    fac.reset(world, world.reset(0), ctx)
    return fac


def test_busy_rule_and_snapshots():
    world = make_world(LOCKED_IN)
    fac = start(ProToMFacilitator(), world)
    s0 = world.reset(0)
    s1 = world.step(s0, {"alice": "wait"}).state
    assert fac.suggest(StepView(0, s0, {"alice": "wait"}, s1), busy={"bob": 7}) == []
    kinds = [k for k, _ in fac.belief_snapshots()]
    assert kinds == ["goal_posterior", "goal_posterior"]  # every agent, and no candidates while busy
    feedback = fac.suggest(StepView(0, s0, {"alice": "wait"}, s1), busy={})
    assert [f.payload for f in feedback] == [{"type": "unlock", "agent": "bob", "door": "door1", "for": "alice"}]
    snaps = {kind: payload.to_dict() for kind, payload in fac.belief_snapshots()}
    assert set(snaps["goal_posterior"]) == {"agent", "goals"}
    assert snaps["goal_posterior"]["goals"] == {"gem1": 0.5, "gem2": 0.5}  # Bob has not moved yet
    cands = snaps["feedback_candidates"]
    assert cands["chosen"] == 0 and cands["candidates"][0]["utility"] > 0
    # If Bob wants gem2, his own step right (to the key) starts the joint plan with the unlock; if he
    # wanted gem1 he would step left, off it: divergence 0.5 under the flat posterior.
    assert cands["candidates"][0]["divergence"] == 0.5
    assert cands["phi"] == 0.0 and cands["eps"] == 0.1


def test_explanation_templates():
    world = make_world(LOCKED_IN)
    fac = start(OracleFacilitator(), world)
    s1 = world.step(world.reset(0), {"alice": "wait"}).state
    s2 = world.step(s1, {"bob": "right"}).state
    (fb,) = fac.suggest(StepView(0, s1, {"bob": "right"}, s2), busy={})
    assert fb.target == "bob"
    assert fb.text == "Bob, please unlock door1 (the red door) for Alice. Pick up a red key first."
    assert fb.explanation == ("I believe Alice is trying to get gem1 (the cyan gem), and without your help, "
                              "Alice wouldn't be able to get through door1.")
    assert fb.utility == 58.0  # at tick 2: the cap is 78 ticks; Bob's help ends the episode 20 ticks from now

    world = make_world(FAR_KEY)
    adapter = DKGAdapter(world)
    state = world.reset(0)
    handover = by_label(adapter.candidates(state))["(bob, has(alice, key1))"]
    msg = adapter.message(state, handover, {"alice": "gem1", "bob": "gem2"},
                          {"alice": {"gem1": 0.8, "gem2": 0.2}, "bob": {"gem1": 0.2, "gem2": 0.8}})
    assert msg.text == "Bob, please give key1 (the red key) to Alice. Pick it up first."
    assert msg.explanation == ("I believe Alice is trying to get gem1 (the cyan gem) (80% sure), and Alice "
                               "would get there about 8 steps later without your help.")
    flat = adapter.message(state, handover, {"alice": "gem1", "bob": "gem2"},
                           {"alice": {"gem1": 0.5, "gem2": 0.5}, "bob": {"gem1": 0.5, "gem2": 0.5}})
    assert flat.explanation == ("I am not sure yet which gem Alice wants (gem1 (the cyan gem) or gem2 (the pink "
                                "gem), 50% each), and Alice would get there about 8 steps later without your help.")
    unsure = adapter.message(state, handover, {"alice": "gem1", "bob": "gem2"},
                             {"alice": {"gem1": 0.55, "gem2": 0.45}, "bob": {"gem1": 0.5, "gem2": 0.5}})
    assert unsure.explanation.startswith("I am not sure yet which gem Alice wants (most likely gem1 (the cyan "
                                         "gem), at 55%)")


def test_explanation_never_names_a_gem_someone_else_holds():
    """Bob holds gem2 already; a posterior that still favours gem2 for Alice must not make the
    explanation say she is after it: the likeliest gem nobody holds is named instead."""
    world = make_world(["###########",
                        "#*R1....r2#",
                        "####+######",
                        "#%.......##",
                        "###########"], {"alice": "gem1", "bob": "gem2"})
    adapter = DKGAdapter(world)
    state = world.reset(0)
    gem2 = world.item_index["gem2"]
    state = state.__class__(**{**{f: getattr(state, f) for f in state.__dataclass_fields__},
                               "item_locs": tuple(-2 if i == gem2 else loc for i, loc in enumerate(state.item_locs))})
    assert world.held_by(state, "bob") == [gem2]
    handover = by_label(adapter.candidates(state))["(bob, has(alice, key1))"]
    msg = adapter.message(state, handover, {"alice": "gem2", "bob": "gem3"},
                          {"alice": {"gem1": 0.3, "gem2": 0.6, "gem3": 0.1}, "bob": {"gem2": 1.0}})
    assert "gem2" not in msg.explanation.split(", and")[0]
    assert msg.explanation.startswith("I am not sure yet which gem Alice wants (most likely gem1 (the cyan gem), "
                                      "at 30%)")


def test_random_facilitator_sends_about_half_the_time():
    world = make_world(FAR_KEY)
    fac = start(RandomFacilitator(), world, seed=3)
    s0 = world.reset(0)
    s1 = world.step(s0, {"alice": "wait"}).state
    sent = [len(fac.suggest(StepView(0, s0, {"alice": "wait"}, s1), busy={})) for _ in range(400)]
    assert 0.4 < np.mean(sent) < 0.6
    assert all(fac.suggest(StepView(0, s0, {"alice": "wait"}, s1), busy={"bob": 1}) == [] for _ in range(20))
    labels = {c.label for c in DKGAdapter(world).candidates(s1)}
    fb = None
    while not fb:
        fb = fac.suggest(StepView(0, s0, {"alice": "wait"}, s1), busy={})
    assert fb[0].payload["agent"] == fb[0].target and fb[0].explanation == ""
    assert len(labels) == 4


def test_registry_builds_every_kind():
    assert {"protom", "oracle", "random"} <= set(mechanism_kinds("facilitator"))
    assert make_mechanism("none") is None
    fac = make_mechanism("protom:eps=0.2,temperature=0.5,particles=3", "dkg")
    assert isinstance(fac, ProToMFacilitator) and fac.settings["eps"] == 0.2
    assert fac.adapter_params == {"temperature": 0.5}
    assert isinstance(make_mechanism("oracle", "dkg"), OracleFacilitator)
    assert make_mechanism("random:probability=0.25").probability == 0.25
    with pytest.raises(AgentSpecError, match="unknown mechanism kind 'nope'"):
        make_mechanism("nope")
    with pytest.raises(AgentSpecError, match="unknown parameter.*colour"):
        make_mechanism("protom:colour=red", "dkg")
    with pytest.raises(AgentSpecError, match="parameter 'divergence': expected 'centralised', 'target-overlap', 'tv' or 'js', got kl"):
        make_mechanism("protom:divergence=kl", "dkg")
    with pytest.raises(AgentSpecError, match="does not work in 'tradecraft'"):
        make_mechanism("protom", "tradecraft")


def test_rollout_under_goals_that_are_not_the_true_ones():
    # Alice already holds her true gem; once Bob picks his up the real episode would be over,
    # but the rollout follows the hypothesis (Alice wants gem3 as well) to its end.
    world = make_world(["#########",
                        "#1*..+2%#",
                        "#########"], {"alice": "gem1", "bob": "gem2"})
    adapter = DKGAdapter(world)
    state = world.reset(0)
    for agent, action in [("alice", "right"), ("bob", "wait"), ("alice", "pickup gem1"), ("bob", "wait")]:
        state = world.step(state, {agent: action}).state
    rollout = adapter.rollout(state, ("gem3", "gem2"), None)
    # Alice walks 5 cells (ticks 0..8) and picks gem3 up (10): 11. Bob steps left (1) and picks
    # gem2 up (3): 4, when the real world would have ended.
    assert rollout.finish == (11, 4)


def test_speedup_formula_known_answers():
    """Speedup = L_baseline / L - 1 (Section 4.3), matched by scenario and seed: an episode of 20
    ticks against a baseline of 30 is 0.5 faster; 40 against 50 is 0.25; the baseline itself 0.
    Against the scenario's mean baseline (30 and 50: 40), 20 ticks give 1.0, 40 ticks 0, and the
    30-tick baseline episode 1/3."""
    from types import SimpleNamespace

    from experiments.protom_dkg import speedup

    def ep(key, condition, seed, length):
        return {"key": key, "condition": condition, "scenario": "s", "seed": seed, "values": {"length": length}}

    episodes = [ep("b0", "none", 0, 30), ep("b1", "none", 1, 50), ep("p0", "protom", 0, 20), ep("p1", "protom", 1, 40)]
    design = SimpleNamespace(baseline="none")
    by_seed = speedup(episodes, design, against="seed")
    assert by_seed == {"b0": 0.0, "b1": 0.0, "p0": 0.5, "p1": 0.25}
    # the paper's definition (the default): mean lengths, 40 / 30 - 1 = 1/3 for both protom episodes,
    # where the mean of the per-seed ratios is 0.375
    of_means = speedup(episodes, design)
    assert of_means["p0"] == of_means["p1"] == pytest.approx(1 / 3) and of_means["b0"] == of_means["b1"] == 0.0
    by_scenario = speedup(episodes, design, against="scenario")
    assert by_scenario["p0"] == 1.0 and by_scenario["p1"] == 0.0 and by_scenario["b0"] == pytest.approx(1 / 3)
