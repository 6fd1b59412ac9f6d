"""ProToM in the kitchen: computed scenario categories, simulated plans with known lengths,
candidates, particle beliefs over unseen stations, goal inference, the facilitator in a Session
(its feedback, explanation and snapshots) and determinism by seed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents.kitchen.heuristic import KitchenHeuristicAgent
from agents.protom.categories import CategoryError, scenario_category as any_category
from agents.protom.core import GoalInference, divergence
from agents.protom.facilitators import ProToMFacilitator
from agents.protom.kitchen import KitchenAdapter, check_categories, experiment_levels, load_world, scenario_category
from agents.registry import make_mechanism
from sim.events import BeliefEvent, FeedbackEvent, StepEvent
from sim.kitchen.world import ITEM_CODE, ITEM_NAMES, NOTHING, UNKNOWN
from sim.session import Session

LEVELS = experiment_levels()
BY_NAME = {p.name.split(".")[0]: p for p in LEVELS}


def world(name: str):
    return load_world(BY_NAME[name])


def world_rules_1(name: str):
    """The level under rules 1 (doors see both rooms; cooks start knowing every station)."""
    from sim.kitchen.world import KitchenWorld

    return KitchenWorld({**load_world(BY_NAME[name]).spec(), "rules": 1})


def play(w, facilitator: str, seed: int = 0, max_ticks: int | None = None) -> Session:
    seats = {a: KitchenHeuristicAgent() for a in w.agents}
    m = make_mechanism(facilitator, "kitchen")
    session = Session(w, seats, seed, mechanisms=[m] if m else [], max_ticks=max_ticks)
    session.run()
    return session


# ------------------------------------------------------------------ categories


def test_23_scenarios_seven_not_needed_seven_useful_nine_necessary_all_verified():
    worlds = [load_world(p) for p in LEVELS]
    reports = check_categories(worlds)  # raises on any mismatch
    counts = {c: sum(r.category == c for r in reports) for c in ("not_needed", "useful", "necessary")}
    assert len(reports) == 23 and counts == {"not_needed": 7, "useful": 7, "necessary": 9}
    for r in reports:
        if r.category == "necessary":
            assert r.independent_length is None
        elif r.category == "useful":
            assert r.joint_length <= r.independent_length - 3
        else:
            assert r.joint_length == r.independent_length


def test_known_category_figures_and_the_generic_entry_point():
    r = any_category(world("kitchen-15-walled-onion"))  # categories.scenario_category dispatches
    assert (r.category, r.independent_length, r.joint_length) == ("necessary", None, 22)
    assert r.best_feedback == "Bob passes the FreshOnion in (1, 10) to Alice"
    r = scenario_category(world("kitchen-01-two-kitchens"))
    assert (r.category, r.independent_length, r.joint_length) == ("not_needed", 12, 12)
    r = scenario_category(world("kitchen-09-tomato-race"))
    assert (r.category, r.independent_length, r.joint_length) == ("useful", 33, 25)
    assert r.best_feedback == "Bob picks up the FreshTomato in (1, 16)"


def test_a_wrong_declaration_is_refused_with_the_computed_category():
    w = world("kitchen-15-walled-onion")
    spec = dict(w.spec(), category="useful")
    with pytest.raises(CategoryError, match="declares 'useful' but is kitchen-15-walled-onion: necessary"):
        check_categories([type(w)(spec)])


# ------------------------------------------------------------------ plans and candidates


def test_simulated_plans_fail_without_the_pass_and_succeed_with_it():
    w = world("kitchen-15-walled-onion")
    a = KitchenAdapter(w)
    s = w.reset(0)
    goals = ("SimpleOnion", "SimpleLettuce")
    base = a.rollout(s, goals, None)
    assert base.finish[0] is None and base.length == 100 and base.finish[1] is not None
    (pass_onion,) = [c for c in a.candidates(s) if c.label == "Bob passes the FreshOnion in (1, 10) to Alice"]
    assert pass_onion.payload == {"type": "pass", "agent": "bob", "item": "FreshOnion", "at": [1, 10],
                                  "to": "alice", "via": [1, 6]}  # the counter in the wall, seen from both rooms
    helped = a.rollout(s, goals, pass_onion)
    assert helped.success and helped.length == 22
    assert a.cost(s, goals, pass_onion) == 22.0 and a.cost(s, goals, None) == 100.0
    # later in the episode the horizon is the ticks left
    late = dataclasses.replace(s, t=90)
    assert a.rollout(late, goals, pass_onion).length == 10 and not a.rollout(late, goals, pass_onion).success


def test_pickup_is_offered_only_where_two_cooks_race_for_one_item():
    w = world("kitchen-09-tomato-race")
    a = KitchenAdapter(w)
    pickups = [c.label for c in a.candidates(w.reset(0)) if c.kind == "pickup"]
    # both race for the tomato at (0, 9): either may take the one at the far end instead
    assert pickups == ["Alice picks up the FreshTomato in (1, 16)", "Bob picks up the FreshTomato in (1, 16)"]
    w = world("kitchen-15-walled-onion")
    assert [c for c in KitchenAdapter(w).candidates(w.reset(0)) if c.kind == "pickup"] == []


# ------------------------------------------------------------------ particles and inference


def onion_taken_unseen(w):
    """kitchen-08: Bob has taken Alice's onion in his room while she stays in hers."""
    s = w.reset(0)
    onion = w.station_at[w.cell(0, 8)]
    contents = list(s.contents)
    contents[onion] = NOTHING
    held = (NOTHING, ITEM_CODE["FreshOnion"])
    return s, dataclasses.replace(s, t=1, held=held, contents=tuple(contents)), onion


def test_particles_of_a_cook_that_never_saw_a_room_hold_it_unknown_or_drawn_from_the_prior_and_stay_consistent():
    w = world("kitchen-08-onion-next-door")
    start, after, onion = onion_taken_unseen(w)
    unknowing = KitchenAdapter(w, stale=1.0)
    unknowing.observe_step(start, {}, start)
    b = unknowing.sample_belief(after, "alice", np.random.default_rng(0))
    assert b.contents[onion] == UNKNOWN  # she has never seen Bob's room
    guessing = KitchenAdapter(w, stale=0.0)
    guessing.observe_step(start, {}, start)
    drawn = {guessing.sample_belief(after, "alice", np.random.default_rng(k)).contents[onion] for k in range(50)}
    assert drawn <= set(guessing.prior_contents) and len(drawn) > 1  # a belief from the content prior
    # Alice walks into Bob's room: an unknown station fits whatever she finds there
    inside = dataclasses.replace(after, t=2, positions=(w.cell(4, 8), after.positions[1]))
    moved = unknowing.update_belief(b, after, {"alice": "stay", "bob": "stay"}, inside, "alice")
    assert moved is not None and moved.contents[onion] == NOTHING
    # C(f, g) under her belief: not knowing where her onion is, she explores; told, she does not
    goals = ("SimpleOnion", "SimpleLettuce")
    told = [c for c in unknowing.candidates(start) if c.kind == "pass" and c.target == "bob"
            and c.payload["item"] == "FreshOnion"]
    blind = unknowing.known_beliefs(start)
    assert told and unknowing.cost(start, goals, told[0], blind) < unknowing.cost(start, goals, None, blind)


def test_a_particle_may_believe_a_wrong_item_or_nothing_on_a_station_the_cook_never_saw():
    """Eq. 7: an unseen station's believed contents are drawn from the declared content prior."""
    w = world("kitchen-08-onion-next-door")
    start = w.reset(0)
    onion = w.station_at[w.cell(0, 8)]
    assert start.contents[onion] == ITEM_CODE["FreshOnion"]
    a = KitchenAdapter(w, stale=0.0)
    contents, probs = a.prior_contents, a.prior_probs
    assert contents[0] == NOTHING and len(contents) > 2 and probs.sum() == pytest.approx(1.0)
    assert probs[0] == max(probs)  # most of the level's counters start empty
    rng = np.random.default_rng(0)
    believed = {a.sample_belief(start, "alice", rng).contents[onion] for _ in range(200)}
    assert NOTHING in believed and ITEM_CODE["FreshOnion"] in believed
    assert believed - {NOTHING, ITEM_CODE["FreshOnion"]}  # some other item: a wrong content
    assert UNKNOWN not in believed  # stale = 0: never "what she last saw" (nothing)
    uniform = KitchenAdapter(w, content_prior="uniform")
    assert uniform.prior_probs == pytest.approx(np.full(len(uniform.prior_contents), 1 / len(uniform.prior_contents)))
    with pytest.raises(ValueError, match="content_prior"):
        KitchenAdapter(w, content_prior="truth")


def test_a_particle_that_makes_the_observed_action_unlikely_is_resampled_away():
    w = world("kitchen-08-onion-next-door")
    start = w.reset(0)
    a = KitchenAdapter(w, stale=0.0)
    rng = np.random.default_rng(1)
    draws = [a.sample_belief(start, "alice", rng) for _ in range(60)]
    goals = a.goals("alice")
    uniform = np.full(len(goals), 1 / len(goals))
    best = None  # the action and two beliefs under which it is most and least likely
    for action in ("up", "down", "left", "right"):
        lik = [float(uniform @ a.likelihoods(b, "alice", action, goals)) for b in draws]
        hi, lo = int(np.argmax(lik)), int(np.argmin(lik))
        if best is None or lik[hi] / lik[lo] > best[0]:
            best = (lik[hi] / lik[lo], action, draws[hi], draws[lo])
    ratio, action, likely, unlikely = best
    assert ratio > 2
    # a threshold above the default N/2 so that one step's evidence (a likelihood ratio ~2) resamples
    inference = GoalInference(a, start, np.random.default_rng(2), particles=3, ess_threshold=0.9)
    belief = inference.beliefs["alice"]
    for p, b in zip(belief.particles, (unlikely, unlikely, likely)):
        p.belief = b
    assert unlikely.contents != likely.contents
    s = start
    for _ in range(10):  # she does what the likely belief predicts best, until the weights degenerate
        action = max(("up", "down", "left", "right"),
                     key=lambda act, hi=likely, lo=unlikely: float(uniform @ a.likelihoods(hi, "alice", act, goals))
                     / float(uniform @ a.likelihoods(lo, "alice", act, goals)))
        joint = {"alice": action, "bob": "stay"}
        after = w.step(s, joint).state
        inference.observe(s, joint, after)
        likely = a.update_belief(likely, s, joint, after, "alice")
        unlikely = a.update_belief(unlikely, s, joint, after, "alice")
        s = after
        if belief.resampled:
            break
    assert belief.resampled >= 1 and all(p.weight == 1.0 for p in belief.particles)
    # an unlikely particle was replaced by a copy of the likely one
    kept = [p.belief.contents for p in belief.particles]
    assert kept.count(likely.contents) >= 2 and kept.count(unlikely.contents) <= 1


def test_the_same_seed_gives_the_same_particles():
    w = world("kitchen-11-lettuce-upstairs")

    def particles(seed):
        s = w.reset(0)
        inference = GoalInference(KitchenAdapter(w), s, np.random.default_rng(seed), particles=5)
        for action in ("left", "right", "up", "down", "stay", "right"):
            joint = {"alice": action, "bob": "left"}
            after = w.step(s, joint).state
            inference.observe(s, joint, after)
            s = after
        return [[(p.belief.contents, round(p.weight, 12), tuple(p.goal_probs.round(12))) for p in b.particles]
                for b in inference.beliefs.values()]

    assert particles(7) == particles(7)
    assert particles(7) != particles(8)


def test_rules_1_particles_keep_what_the_cook_last_saw_or_draw_from_the_prior_and_are_redrawn_when_contradicted():
    w = world_rules_1("kitchen-08-onion-next-door")
    start, after, onion = onion_taken_unseen(w)
    stale = KitchenAdapter(w, stale=1.0)
    stale.observe_step(start, {}, start)
    b = stale.sample_belief(after, "alice", np.random.default_rng(0))
    assert b.contents[onion] == ITEM_CODE["FreshOnion"]  # she never saw it go
    assert stale.sample_belief(after, "bob", np.random.default_rng(0)).contents[onion] == NOTHING  # he took it
    fresh = KitchenAdapter(w, stale=0.0)
    fresh.observe_step(start, {}, start)
    drawn = {fresh.sample_belief(after, "alice", np.random.default_rng(k)).contents[onion] for k in range(50)}
    assert drawn <= set(fresh.prior_contents) and {NOTHING, ITEM_CODE["FreshOnion"]} <= drawn  # a changed station: any belief
    # Alice steps onto the door and sees Bob's room: the stale particle no longer fits
    door = dataclasses.replace(after, t=2, positions=(w.cell(5, 7), after.positions[1]))
    assert stale.update_belief(b, after, {"alice": "stay", "bob": "stay"}, door, "alice") is None
    assert fresh.update_belief(after, after, {"alice": "stay", "bob": "stay"}, door, "alice") is not None


def test_the_particles_snapshot_says_what_alice_is_believed_to_believe():
    w = world_rules_1("kitchen-08-onion-next-door")
    start, after, onion = onion_taken_unseen(w)
    a = KitchenAdapter(w, stale=0.8)
    inference = GoalInference(a, start, np.random.default_rng(3), particles=5)
    inference.observe(start, {"alice": "stay", "bob": "stay"}, after)
    snap = a.particles_snapshot(after, "alice", inference.beliefs["alice"])
    assert snap.agent == "alice" and snap.particles == 5
    onion_entries = [e for e in snap.unseen if e["at"] == [0, 8]]
    assert {e["item"] for e in onion_entries} <= {"FreshOnion", "nothing"}
    assert sum(e["weight"] for e in onion_entries) == pytest.approx(1.0)
    believed = next(e for e in onion_entries if e["item"] == "FreshOnion")
    assert believed["true"] is False and 0 < believed["weight"] <= 1
    assert all(set(e) == {"at", "item", "weight", "true"} for e in snap.unseen)


def test_goal_inference_finds_both_dishes():
    w = world("kitchen-15-walled-onion")
    session = play(w, "protom", seed=0, max_ticks=12)
    posts = {e.data["agent"]: e.data["goals"] for e in session.events
             if isinstance(e, BeliefEvent) and e.kind == "goal_posterior" and e.tick == 12}
    assert max(posts["bob"], key=posts["bob"].get) == "SimpleLettuce" and posts["bob"]["SimpleLettuce"] > 0.8


def test_js_divergence_is_expected_over_particles():
    w = world("kitchen-15-walled-onion")
    a = KitchenAdapter(w)
    s = w.reset(0)
    inference = GoalInference(a, s, np.random.default_rng(0), particles=5)
    c = next(c for c in a.candidates(s) if c.label == "Bob passes the FreshOnion in (1, 10) to Alice")
    post = inference.posteriors()["bob"]
    parts = inference.beliefs["bob"].particles
    d = divergence(a, s, c, post, "js", parts)
    by_hand = np.mean([sum(p.goal_probs[k] * divergence(a, p.belief, c, np.eye(3)[k], "js") for k in range(3))
                       for p in parts])
    assert d == pytest.approx(by_hand) and 0 <= d <= 1


# ------------------------------------------------------------------ the facilitator


def test_protom_passes_the_onion_once_with_the_b2_explanation_where_it_is_necessary():
    session = play(world("kitchen-15-walled-onion"), "protom", seed=0)
    assert session.outcome()["success"]
    (fb,) = [e for e in session.events if isinstance(e, FeedbackEvent)]
    assert fb.target == "bob" and fb.feedback["item"] == "FreshOnion" and fb.feedback["to"] == "alice"
    assert fb.explanation.startswith("I believe Alice is trying to prepare SimpleOnion")
    assert fb.explanation.endswith("without your help, Alice wouldn't be able to get the FreshOnion.")
    kinds = {e.kind for e in session.events if isinstance(e, BeliefEvent) and e.owner == "protom"}
    assert kinds == {"goal_posterior", "feedback_candidates", "particles"}
    facilitator = next(m for m in session.mechanisms if isinstance(m, ProToMFacilitator))
    assert facilitator.settings == {"phi": 2.0, "eps": 0.3, "particles": 5, "divergence": "js"}


def test_no_feedback_where_it_is_not_needed():
    for name in ("kitchen-01-two-kitchens", "kitchen-04-workrooms"):
        session = play(world(name), "protom", seed=1)
        assert session.outcome()["success"] and session.metrics()["feedback"] == 0


def test_an_episode_with_protom_is_a_function_of_its_seed():
    w = world("kitchen-12-onion-race")
    runs = [[(e.type, getattr(e, "joint_action", None), getattr(e, "text", None))
             for e in play(w, "protom", seed).events if isinstance(e, (StepEvent, FeedbackEvent))] for seed in (4, 4)]
    assert runs[0] == runs[1]


# ------------------------------------------------------------------ false beliefs

FALSE_BELIEF_LEVELS = {"kitchen-22-taken-plate": (None, 35, "Bob passes the Plate in (2, 19) to Alice"),
                       "kitchen-23-plate-gone-downstairs": (None, 18, "Bob passes the Plate in (4, 6) to Alice")}


def false_beliefs(w, facilitator: str | None, seed: int) -> tuple[list[tuple[int, str, tuple[int, int], str, str]], Session]:
    """Play ``w`` and collect every (tick, cook, station, believed, true) where a cook's ``belief``
    snapshot says an object lies on a station out of its view that holds something else."""
    seats = {a: KitchenHeuristicAgent() for a in w.agents}
    m = make_mechanism(facilitator, "kitchen") if facilitator else None
    session = Session(w, seats, seed, mechanisms=[m] if m else [])
    found = []

    def listen(e):
        if isinstance(e, BeliefEvent) and e.kind == "belief":
            for r, c, item, _ in e.data["objects"]:
                true = ITEM_NAMES[session.state.contents[w.station_at[w.cell(r, c)]]]
                if true != item:
                    found.append((e.tick, e.owner, (r, c), item, true))

    session.subscribe(listen)
    session.run()
    return found, session


def sent(session: Session) -> list[tuple[int, str, str]]:
    return [(e.tick, e.target, e.text) for e in session.events if isinstance(e, FeedbackEvent)]


@pytest.mark.parametrize("name", sorted(FALSE_BELIEF_LEVELS))
def test_a_cooks_false_belief_about_another_room_costs_the_episode_where_feedback_is_necessary(name):
    w = world(name)
    r = scenario_category(w)
    assert (r.category, r.independent_length, r.joint_length, r.best_feedback) == ("necessary", *FALSE_BELIEF_LEVELS[name])
    for seed in range(3):
        found, session = false_beliefs(w, None, seed)
        # Alice saw the plate, Bob took it out of her view: she believes it is still there
        assert any(who == "alice" and item == "Plate" and true == "nothing" for _, who, _, item, true in found)
        assert not session.outcome()["success"]  # without help she never gets a plate


@pytest.mark.parametrize("name", sorted(FALSE_BELIEF_LEVELS))
def test_protom_n5_and_n1_send_the_same_pass_on_the_false_belief_levels(name):
    """Measured: on both levels N = 5 and N = 1 at the paper's stale (0.8) send the same Pass at tick 1
    (the plans predict Alice fails whatever she believes about the taken plate), and both succeed."""
    w = world(name)
    for seed in range(3):
        _, five = false_beliefs(w, "protom", seed)
        _, one = false_beliefs(w, "protom:particles=1", seed)
        assert five.outcome()["success"] and one.outcome()["success"]
        assert sent(five) == sent(one) and [(t, who) for t, who, _ in sent(five)] == [(1, "bob")]


@pytest.mark.parametrize("name", ["kitchen-09-tomato-race", "kitchen-19-shared-onions"])
def test_oracle_and_random_run_in_the_kitchen(name):
    for kind in ("oracle", "random"):
        session = play(world(name), kind, seed=2)
        assert session.finished
    assert play(world(name), "oracle", seed=2).outcome()["success"]


def _scan_nearest(dist, here, stations, keep):
    """The nearest reachable station of ``stations`` (lowest index among ties), ``keep`` when it is one."""
    best, best_d = None, 10_000
    for s in stations:
        d = dist[s][here]
        if d < 0:
            continue
        if s == keep:
            return s
        if d < best_d:
            best, best_d = s, d
    return best


def _scan_goal_target(r, here, held, dish, contents, keep):
    """The simulated cook's next station for its dish, by scanning every station."""
    from sim.kitchen.world import BOARD, COUNTER, PLATE

    kind, dist = r.kind, r.dist
    chopped, fresh = dish - 1, dish - 2

    def on(value, k=None):
        return [s for s, c in enumerate(contents) if c == value and (k is None or kind[s] == k)]

    if held == dish:
        return _scan_nearest(dist, here, r.world.deliveries, keep)
    if held == chopped:
        return _scan_nearest(dist, here, on(PLATE), keep)
    if held == PLATE:
        s = _scan_nearest(dist, here, on(chopped), keep)
        return s if s is not None else _scan_nearest(dist, here, on(NOTHING, COUNTER), keep)
    if held == fresh:
        return _scan_nearest(dist, here, on(NOTHING, BOARD), keep)
    if held != NOTHING:
        return _scan_nearest(dist, here, on(NOTHING, COUNTER), keep)
    for item in (dish, chopped, fresh):
        s = _scan_nearest(dist, here, on(item), keep)
        if s is not None:
            return s
    return None


def test_simulated_plans_pick_the_station_a_scan_of_every_station_picks():
    """``_goal_target`` and ``_explore`` walk the stations nearest first (``KitchenRollouts.order``);
    on every fourth level and random contents, cells, held items, dishes and kept targets they
    choose what the plain scan (the nearest reachable station, lowest index among ties, a kept
    target while it still fits) chooses."""
    from agents.protom.kitchen import rollouts_for
    from sim.kitchen.world import COUNTER, DELIVERY, PLATE, RECIPE_DISH

    rng = np.random.default_rng(0)
    dishes = sorted(RECIPE_DISH.values())
    values = [NOTHING, PLATE, UNKNOWN, *dishes, *(d - 1 for d in dishes), *(d - 2 for d in dishes)]
    for path in LEVELS[::4]:
        r = rollouts_for(load_world(path))
        kind, dist = r.kind, r.dist
        n = len(kind)
        cells = [c for c in range(len(dist[0])) if any(dist[s][c] >= 0 for s in range(n))]
        for _ in range(300):
            contents = [int(x) for x in rng.choice(values, size=n)]
            here = int(rng.choice(cells))
            dish = int(rng.choice(dishes))
            held = int(rng.choice([NOTHING, PLATE, dish, dish - 1, dish - 2]))
            keep = int(rng.integers(n)) if rng.random() < 0.5 else None
            assert r._goal_target(here, held, dish, contents, keep) == _scan_goal_target(r, here, held, dish, contents,
                                                                                          keep)
            unseen = [s for s, c in enumerate(contents) if c == UNKNOWN and kind[s] != DELIVERY]
            assert r._explore(here, contents) == _scan_nearest(dist, here, unseen, None)
            skip = int(rng.integers(n))
            counters = [s for s, c in enumerate(contents) if c == NOTHING and kind[s] == COUNTER and s != skip]
            assert r._first(here, contents, NOTHING, COUNTER, keep, skip=skip) == _scan_nearest(dist, here, counters,
                                                                                                  keep)
