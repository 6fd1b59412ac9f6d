"""ProToM's mDKG divergence, div(f) = 1 - P(τ ∈ π* | f), against a brute-force computation.

The brute force knows nothing of the planners: it enumerates every state a central planner can
reach with ``DKGWorld.step`` (every legal action of whoever's turn it is; gems picked up only by
the agent that wants them and never handed over, as the definition says), computes the fewest
ticks to the goal backwards over that graph, and finds each agent's own optimal actions by a
breadth-first search over its own action sequences (the others standing still)."""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import numpy as np
import pytest

from agents.protom.core import divergence, joint_hypotheses, select_feedback
from agents.protom.dkg import DKGAdapter
from sim.dkg.scenario import validate_dkg
from sim.dkg.world import DKGWorld

LEGEND = {"#": "wall", ".": "floor", "r": {"key": "red"}, "R": {"door": "red"}, "b": {"key": "blue"},
          "B": {"door": "blue"}, "*": {"gem": "cyan"}, "+": {"gem": "pink"}, "%": {"gem": "orange"},
          "1": {"agent": "alice"}, "2": {"agent": "bob"}}

# Alice's gem is behind the red door next to her; the red key lies at the far end, by Bob.
FAR_KEY = ["###########",
           "#*R1....r2#",
           "####+######",
           "###########"]
# Two rooms joined by a red door and a blue door; a key of each colour on either side.
TWO_DOORS = ["######",
             "#1R.*#",
             "#r#.b#",
             "#+B.2#",
             "######"]
MAPS = {"far-key": FAR_KEY, "two-doors": TWO_DOORS}


def make_world(rows, goals):
    return DKGWorld(validate_dkg({"world": "dkg", "name": "test-map", "map": rows, "legend": LEGEND,
                                  "goals": goals, "options": {"t_max": 40}}, "test-map"))


def gem_items(world):
    return {i for i, it in enumerate(world.items) if it.kind == "gem"}


def node(state, flag):
    return (state.turn, state.agent_cells, state.item_locs, state.open_doors, flag)


def effect_done(world, candidate, state, action):
    """Whether ``action`` (by the agent whose turn it is) is the feedback's own act."""
    p = candidate.payload
    if world.agents[state.turn] != p["agent"]:
        return False
    if p["type"] == "unlock":
        return action.split(" ")[:2] == ["unlock", p["door"]]
    return action == f"handover {p['item']} {p['to']}"


def central_graph(world, start, candidate):
    """Every node the central planner can reach from ``start``, its children by action, and the
    fewest ticks from each node to the goal (every agent holds its gem and f was carried out)."""
    gems, goals = gem_items(world), world.goal_item
    states = {node(start, False): start}
    children = {}
    queue = deque([(start, False)])
    while queue:
        s, flag = queue.popleft()
        here = node(s, flag)
        out = {}
        for action in world.legal_actions(s, world.agents[s.turn]):
            verb, _, rest = action.partition(" ")
            item = world.item_index.get(rest.split(" ")[0]) if verb in ("pickup", "handover") else None
            if item in gems and (verb == "handover" or item != goals[s.turn]):
                continue
            nxt = world.step(s, {world.agents[s.turn]: action}).state
            f2 = flag or effect_done(world, candidate, s, action)
            key = node(nxt, f2)
            out[action] = key
            if key not in states:
                states[key] = nxt
                queue.append((nxt, f2))
        children[here] = out
    done = {k for k, s in states.items() if k[-1] and all(s.item_locs[g] == -1 - i for i, g in enumerate(goals))}
    parents = {}
    for k, out in children.items():
        for c in out.values():
            parents.setdefault(c, set()).add(k)
    dist = {k: 0 for k in done}
    queue = deque(done)
    while queue:
        k = queue.popleft()
        for p in parents.get(k, ()):
            if p not in dist and p not in done:
                dist[p] = dist[k] + 1
                queue.append(p)
    limit = world.t_max - start.t
    return {k: d for k, d in dist.items() if d <= limit}, children, states


_OWN = {}


def own_distance(world, state, a):
    """Fewest own actions for agent ``a`` to hold its gem, the others standing still."""
    key = (id(world), state.agent_cells, state.item_locs, state.open_doors, a)
    if key not in _OWN:
        _OWN[key] = _own_distance(world, state, a)
    return _OWN[key]


def _own_distance(world, state, a):
    goal = world.goal_item[a]
    start = replace(state, turn=a)
    seen = {(start.agent_cells, start.item_locs, start.open_doors): 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        d = seen[(s.agent_cells, s.item_locs, s.open_doors)]
        if s.item_locs[goal] == -1 - a:
            return d
        for action in world.legal_actions(s, world.agents[a]):
            nxt = replace(world.step(s, {world.agents[a]: action}).state, turn=a)
            k = (nxt.agent_cells, nxt.item_locs, nxt.open_doors)
            if k not in seen:
                seen[k] = d + 1
                queue.append(nxt)
    return None


def own_optimal(world, state):
    a = state.turn
    agent = world.agents[a]
    if state.item_locs[world.goal_item[a]] == -1 - a:
        return ["wait"]
    legal = [x for x in world.legal_actions(state, agent) if not (x.startswith("unlock ") and x.count(" ") == 2)]
    costs = {x: own_distance(world, world.step(state, {agent: x}).state, a) for x in legal}
    best = min(c for c in costs.values() if c is not None)
    return [x for x in legal if costs[x] == best]


def brute_agreement(world, state, candidate):
    dist, children, states = central_graph(world, state, candidate)
    frontier = [(node(state, False), 1.0)]
    for _ in world.agents:
        moved = []
        for k, p in frontier:
            s = states[k]
            if all(s.item_locs[g] == -1 - i for i, g in enumerate(world.goal_item)):
                moved.append((k, p))
                continue
            own = own_optimal(world, s)
            for action in own:
                child = children[k][action] if action in children.get(k, {}) else None
                if k in dist and child in dist and dist[child] == dist[k] - 1:
                    moved.append((child, p / len(own)))
        frontier = moved
    return sum(p for _, p in frontier)


def reachable_alone(world, state):
    return all(own_distance(world, state, a) is not None for a in range(len(world.agents)))


def states_along(world, steps, seed):
    """The start state and the states of a random walk of legal actions from it."""
    rng = np.random.default_rng(seed)
    s = world.reset(0)
    out = [s]
    for _ in range(steps):
        legal = world.legal_actions(s, world.agents[s.turn])
        s = world.step(s, {world.agents[s.turn]: legal[int(rng.integers(len(legal)))]}).state
        out.append(s)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MAPS))
def test_plan_agreement_matches_brute_force(name):
    rows = MAPS[name]
    world = make_world(rows, {"alice": "gem1", "bob": "gem2"})
    adapter = DKGAdapter(world)
    gems = adapter.goals("alice")
    checked = nonzero = partial = 0
    hyps = {}
    for seed in range(1):
        for state in states_along(world, 4, seed):
            if world.done(state):
                continue
            candidates = adapter.candidates(state)
            for g1 in gems:
                for g2 in gems:
                    if g1 == g2:
                        continue
                    hyp = hyps.setdefault((g1, g2), make_world(rows, {"alice": g1, "bob": g2}))
                    if not reachable_alone(hyp, state):
                        continue
                    for c in candidates:
                        expected = brute_agreement(hyp, state, c)
                        assert adapter.plan_agreement(state, (g1, g2), c) == pytest.approx(expected, abs=1e-12), \
                            (name, state, g1, g2, c.label)
                        checked += 1
                        nonzero += expected > 0
                        partial += 0 < expected < 1
    assert checked >= 20 and nonzero and (partial or name == "far-key")  # not all trivial


def test_divergence_is_one_minus_the_weighted_agreement():
    world = make_world(FAR_KEY, {"alice": "gem1", "bob": "gem2"})
    adapter = DKGAdapter(world)
    state = world.reset(0)
    posts = {"alice": np.array([0.7, 0.3]), "bob": np.array([0.4, 0.6])}
    hypotheses = joint_hypotheses(adapter, posts)
    assert [g for g, _ in hypotheses] == [("gem1", "gem2"), ("gem2", "gem1")]
    for c in adapter.candidates(state):
        expected = 1 - sum(w * brute_agreement(make_world(FAR_KEY, dict(zip(world.agents, g))), state, c)
                           for g, w in hypotheses)
        assert divergence(adapter, state, c, posts[c.target], "centralised", hypotheses=hypotheses) == \
            pytest.approx(expected, abs=1e-12)


def test_feedback_waits_until_the_agents_leave_the_joint_plan():
    """FAR_KEY with the true goals. The fastest joint plan with the handover has Bob pick the key
    up and Alice walk to meet him. At the start, Alice's own plan walks right to the key and
    Bob's own plan for gem2 walks left onto it: both are on that plan (div 0, no feedback yet).
    Two ticks later Bob stands on the key, and his own plan walks on without it: off the plan
    (div 1, the feedback goes out)."""
    world = make_world(FAR_KEY, {"alice": "gem1", "bob": "gem2"})
    adapter = DKGAdapter(world)
    truth = {"alice": np.array([1.0, 0.0]), "bob": np.array([0.0, 1.0])}
    hypotheses = [(("gem1", "gem2"), 1.0)]
    s0 = world.reset(0)
    s2 = world.step(world.step(s0, {"alice": "right"}).state, {"bob": "left"}).state
    for state, expected in ((s0, 0.0), (s2, 1.0)):
        handover = next(c for c in adapter.candidates(state) if c.label == "(bob, has(alice, key1))")
        assert divergence(adapter, state, handover, truth["bob"], "centralised", hypotheses=hypotheses) == expected
        sel = select_feedback(adapter, state, [handover], np.array([5.0]), truth, np.random.default_rng(0),
                              phi=0.0, eps=0.1, hypotheses=hypotheses)
        assert sel.divergences == {0: expected} and sel.chosen == (0 if expected else None)


def test_centralised_needs_a_world_with_a_central_planner():
    from agents.protom.kitchen import KitchenAdapter
    assert KitchenAdapter.defaults["divergence"] == "js"
    assert DKGAdapter.defaults["divergence"] == "centralised"
    world = make_world(FAR_KEY, {"alice": "gem1", "bob": "gem2"})
    state = world.reset(0)
    c = DKGAdapter(world).candidates(state)[0]
    with pytest.raises(ValueError, match="joint goal hypotheses"):
        divergence(DKGAdapter(world), state, c, np.array([1.0, 0.0]), "centralised")


def test_plan_agreement_memo_is_shared_per_world_and_keyed_by_the_full_state():
    """Facilitators on one world share P(τ ∈ π* | f, g) across episodes; a value read from the
    memo is the one a fresh computation gives, and states that differ only in when a gem was
    first held or in the tick are kept apart."""
    from agents.protom.dkg import agreements_for

    world = make_world(FAR_KEY, {"alice": "gem1", "bob": "gem2"})
    first, second = DKGAdapter(world), DKGAdapter(world)
    assert first._agreement_cache is second._agreement_cache is agreements_for(world)
    state = world.reset(0)
    handover = next(c for c in first.candidates(state) if c.label == "(bob, has(alice, key1))")
    value = first.plan_agreement(state, ("gem1", "gem2"), handover)
    assert second.plan_agreement(state, ("gem1", "gem2"), handover) == value
    agreements_for(world).clear()
    assert second.plan_agreement(state, ("gem1", "gem2"), handover) == value
    assert (state.key(), (world.item_index["gem1"], world.item_index["gem2"]), handover.effect) in agreements_for(world)
    other = DKGAdapter(make_world(FAR_KEY, {"alice": "gem1", "bob": "gem2"}))
    assert other._agreement_cache is not first._agreement_cache
