"""The mDKG planner against brute force, and the planner agents built on it.

The reference is a breadth-first search over the whole single-agent state space (own cell,
every item's location, open doors) that steps ``DKGWorld.step`` itself, with the other agents
standing still; its depth at which a task first holds is the optimal number of own actions.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from agents.dkg.agents import BoltzmannAgent, PlannerAgent, boltzmann_policy, goal_task
from agents.dkg.planner import INF, DKGPlanner, Task
from sim.dkg import DKGState, DKGWorld, validate_dkg
from sim.events import FeedbackStatusEvent, StepEvent
from sim.seats import Facilitator, Feedback
from sim.session import Session

LEGEND = {
    "#": "wall", ".": "floor",
    "r": {"key": "red"}, "b": {"key": "blue"}, "y": {"key": "yellow"},
    "R": {"door": "red"}, "B": {"door": "blue"}, "Y": {"door": "yellow"},
    "*": {"gem": "blue"}, "+": {"gem": "green"}, "$": {"gem": "red"},
    "1": {"agent": "alice"}, "2": {"agent": "bob"}, "3": {"agent": "carol"},
}


def make_world(rows: Sequence[str], t_max: int = 80, goals: dict[str, str] | None = None) -> DKGWorld:
    """By default Alice wants the first gem in reading order ('*'), Bob the last one ('+')."""
    n_gems = sum(row.count("*") + row.count("+") + row.count("$") for row in rows)
    on_map = set("".join(rows))
    legend = {ch: e for ch, e in LEGEND.items() if ch in on_map or not (isinstance(e, dict) and "agent" in e)}
    goals = goals or {"alice": "gem1", "bob": f"gem{n_gems}"}
    distinct = dict(zip(goals, [f"gem{i + 1}" for i in range(n_gems)]))
    data = {"world": "dkg", "name": "hand-made", "map": list(rows), "legend": legend,
            "goals": goals if len(set(goals.values())) == len(goals) else distinct, "options": {"t_max": t_max}}
    spec = validate_dkg(data, "hand-made.json", require_reachable=False)  # hopeless maps on purpose
    if goals:  # set after validation: NEVER_DONE shares a gem on purpose, which scenario files may not
        spec["goals"] = dict(goals)
    return DKGWorld(spec)


def pocket(rows: Sequence[str]) -> list[str]:
    """Add Bob walled up with his gem below the map, so that he never meets Alice."""
    width = len(rows[0])
    return [*rows, "#2+" + "#" * (width - 3), "#" * width]


def all_tasks(world: DKGWorld, agent: int = 0) -> list[Task]:
    tasks = [Task.hold(i) for i in range(len(world.items))]
    tasks += [Task.open(d) for d in range(len(world.doors))]
    tasks += [Task.give(i, b) for i in range(len(world.items)) for b in range(len(world.agents)) if b != agent]
    return tasks


def achieved(state: DKGState, agent: int, task: Task) -> bool:
    if task.kind == "hold":
        return state.item_locs[task.item] == -1 - agent
    if task.kind == "open":
        return bool(state.open_doors >> task.door & 1)
    return state.item_locs[task.item] == -1 - task.to


def own_successors(world: DKGWorld, state: DKGState, agent: int) -> list[DKGState]:
    """The states after each legal action of ``agent``, the other agents standing still: the
    turn comes straight back and the clock does not run out."""
    name = world.agents[agent]
    return [dataclasses.replace(world.step(state, {name: action}).state, turn=agent, t=state.t)
            for action in world.legal_actions(state, name)]


def own_key(state: DKGState, agent: int) -> tuple:
    return state.agent_cells[agent], state.item_locs, state.open_doors


def brute_force_costs(world: DKGWorld, state: DKGState, agent: int, tasks: Sequence[Task]) -> dict[Task, float]:
    """Fewest own actions of ``agent`` after which each task holds, by exhaustive BFS."""
    start = dataclasses.replace(state, turn=agent)
    best: dict[Task, float] = {}
    seen = {own_key(start, agent)}
    frontier, depth = [start], 0
    while frontier and len(best) < len(tasks):
        for s in frontier:
            for task in tasks:
                if task not in best and achieved(s, agent, task):
                    best[task] = depth
        following = []
        for s in frontier:
            for nxt in own_successors(world, s, agent):
                if own_key(nxt, agent) not in seen:
                    seen.add(own_key(nxt, agent))
                    following.append(nxt)
        frontier, depth = following, depth + 1
    return {task: best.get(task, INF) for task in tasks}


def sample_states(world: DKGWorld, agent: int, count: int, seed: int) -> list[DKGState]:
    """The start state and states drawn from all that ``agent`` can reach on its own (keys
    picked up, doors opened, items handed on)."""
    start = dataclasses.replace(world.reset(0), turn=agent)
    reachable, queue = {own_key(start, agent): start}, deque([start])
    while queue:
        for nxt in own_successors(world, queue.popleft(), agent):
            if own_key(nxt, agent) not in reachable:
                reachable[own_key(nxt, agent)] = nxt
                queue.append(nxt)
    states = list(reachable.values())
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(states) - 1, size=min(count - 1, len(states) - 1), replace=False) + 1
    return [start, *(states[i] for i in sorted(picks))]


# name -> (map, Alice's optimal cost to hold her gem from the start, by hand)
MAPS: dict[str, tuple[list[str], float]] = {
    "open-room": (pocket(["#######",
                          "#1...*#",
                          "#.###.#",
                          "#.....#",
                          "#######"]), 5),
    # the red key lies behind the blue door; the gem behind the red door
    "key-behind-a-door": (pocket(["##########",
                                  "#1.b.#r..#",
                                  "#....B...#",
                                  "#....#####",
                                  "#....R..*#",
                                  "##########"]), 21),
    # key1 is nearer but walled in; only key2 can be reached
    "two-keys-one-reachable": (pocket(["#########",
                                       "#r#1....#",
                                       "###.###.#",
                                       "#*R.#r..#",
                                       "#########"]), 23),
    # going round the door is shorter than fetching its key
    "door-shorter-to-go-around": (pocket(["#########",
                                          "#1..R..*#",
                                          "#.#####.#",
                                          "#.......#",
                                          "#r#######",
                                          "#########"]), 11),
    # the same door with its key at hand: through it is shorter
    "door-shorter-to-go-through": (pocket(["#########",
                                           "#1r.R..*#",
                                           "#.#####.#",
                                           "#.......#",
                                           "#########"]), 9),
    "key-in-a-dead-end": (pocket(["##########",
                                  "#1......r#",
                                  "#.########",
                                  "#.R....*.#",
                                  "##########"]), 25),
    # a blue key is closer, but the door is red
    "wrong-colour-closer": (pocket(["##########",
                                    "#b1....r.#",
                                    "######R###",
                                    "#*.......#",
                                    "##########"]), 16),
    # two red doors and one red key: only one door leads to the gem
    "two-doors-one-key": (pocket(["#########",
                                  "#..R.1r.#",
                                  "#.#####R#",
                                  "#*#...#.#",
                                  "#########"]), 11),
    # two keys of the same colour and two doors in a row
    "two-doors-in-a-row": (pocket(["##########",
                                   "#1r.r.R.R*",
                                   "##########"]), 13),
    "unreachable-gem": (pocket(["########",
                                "#1.b.R*#",
                                "########"]), INF),
}


@pytest.mark.parametrize("name", MAPS)
def test_planner_cost_matches_brute_force_from_the_start(name):
    rows, expected = MAPS[name]
    world = make_world(rows)
    s0 = world.reset(0)
    goal = goal_task(world, "alice")
    costs = brute_force_costs(world, s0, 0, [goal])
    assert costs[goal] == expected, "the hand count in MAPS is wrong"
    assert DKGPlanner(world).plan(s0, 0, goal).cost == expected


@pytest.mark.parametrize("name", MAPS)
def test_planner_cost_matches_brute_force_for_every_task_and_sampled_states(name):
    world = make_world(MAPS[name][0])
    planner = DKGPlanner(world)
    tasks = all_tasks(world)
    for state in sample_states(world, 0, count=12, seed=len(name)):
        expected = brute_force_costs(world, state, 0, tasks)
        for task in tasks:
            plan = planner.plan(state, 0, task)
            assert plan.cost == expected[task], (f"{task.describe(world)} from\n"
                                                 f"{world.render_text(state)}")


# Bob is free to meet Alice here: handing items over can succeed.
SHARED = ["#########",
          "#1.r.R.*#",
          "#.#####.#",
          "#b..2.B+#",
          "#########"]


@pytest.mark.parametrize("name", [*MAPS, "shared"])
def test_first_actions_carry_out_each_task_in_exactly_its_cost(name):
    """What the agents execute (first_action, replanned every turn) matches what the plan costs."""
    world = make_world(SHARED, goals=NEVER_DONE) if name == "shared" else make_world(MAPS[name][0])
    planner = DKGPlanner(world)
    for start in sample_states(world, 0, count=6, seed=7):
        for task in all_tasks(world):
            cost = planner.plan(start, 0, task).cost
            if cost == INF:
                continue
            state, taken = start, 0
            while not achieved(state, 0, task):
                action = planner.first_action(state, 0, planner.plan(state, 0, task))
                assert action in world.legal_actions(state, "alice"), (task.describe(world), action)
                state = dataclasses.replace(world.step(state, {"alice": action}).state, turn=0, t=0)
                taken += 1
                assert taken <= cost, f"{task.describe(world)} takes more than its cost {cost}"
            assert taken == cost
            path = planner.path(start, 0, planner.plan(start, 0, task))
            assert path[0] == start.agent_cells[0]
            assert all(world.adjacent(a, b) for a, b in zip(path, path[1:]))


# The reference search stops where the episode would end (every agent holding its gem), the
# planner does not; with Alice and Bob after the same gem no state of these maps ends it.
NEVER_DONE = {"alice": "gem1", "bob": "gem1"}


def test_give_and_open_tasks_match_brute_force_with_a_reachable_partner():
    world = make_world(SHARED, goals=NEVER_DONE)
    planner = DKGPlanner(world)
    tasks = all_tasks(world)
    for state in sample_states(world, 0, count=25, seed=3):
        expected = brute_force_costs(world, state, 0, tasks)
        for task in tasks:
            assert planner.plan(state, 0, task).cost == expected[task], task.describe(world)
    s0 = world.reset(0)
    key1, key2, gem1 = (world.item_index[i] for i in ("key1", "key2", "gem1"))
    assert planner.plan(s0, 0, Task.open(world.door_index["door1"])).cost == 5  # right, right, pickup, right, unlock
    assert planner.plan(s0, 0, Task.hold(key2)).cost == 3  # down, down, pickup
    # pick key1 up (3), walk round to stand next to bob (6), hand over (1)
    assert planner.plan(s0, 0, Task.give(key1, 1)).cost == 10
    assert planner.plan(s0, 0, Task.give(gem1, 1)).cost == brute_force_costs(world, s0, 0, [Task.give(gem1, 1)])[Task.give(gem1, 1)]
    # a handed-over item is a give task done, not one that has become impossible
    given = dataclasses.replace(s0, item_locs=tuple(-2 if i == key1 else loc for i, loc in enumerate(s0.item_locs)))
    assert planner.plan(given, 0, Task.give(key1, 1)).cost == 0
    assert planner.plan(given, 0, Task.hold(key1)).cost == INF


THREE = ["########",
         "#1.r.R*#",
         "#.####.#",
         "#3.b.2+#",
         "#$######",
         "########"]


@pytest.mark.parametrize("agent", [0, 2])
def test_three_agents_every_task_matches_brute_force(agent):
    """Items handed to one agent are out of reach for the others: holding or giving them is INF."""
    world = make_world(THREE, goals={**NEVER_DONE, "carol": "gem3"})
    planner = DKGPlanner(world)
    tasks = all_tasks(world, agent)
    states = sample_states(world, agent, count=14, seed=agent)
    assert any(held_by_another(s, agent) for s in states)
    for state in states:
        expected = brute_force_costs(world, state, agent, tasks)
        for task in tasks:
            assert planner.plan(state, agent, task).cost == expected[task], (
                f"{world.agents[agent]}: {task.describe(world)} from\n{world.render_text(state)}")


def test_one_planner_shared_by_all_agents_plans_for_each_of_them():
    """Agents of a world share one planner (and its memo): a plan cached for one agent must not
    be served to another in the same spot."""
    world = make_world(THREE, goals={"alice": "gem1", "bob": "gem2", "carol": "gem3"})
    planner = DKGPlanner(world)
    gem1, key1 = world.item_index["gem1"], world.item_index["key1"]
    s0 = world.reset(0)
    for item in (gem1, key1):
        locs = tuple(-1 if i == item else loc for i, loc in enumerate(s0.item_locs))  # alice holds it
        together = dataclasses.replace(s0, agent_cells=(s0.agent_cells[0], s0.agent_cells[1], s0.agent_cells[0]),
                                       item_locs=locs)
        assert planner.plan(together, 0, Task.hold(item)).cost == 0
        assert planner.plan(together, 2, Task.hold(item)).cost == INF  # carol, same cell, same situation
        assert planner.plan(together, 2, Task.give(item, 1)).cost == INF
        assert planner.plan(together, 0, Task.give(item, 2)).cost == 2  # same cell: step next to her, hand over


def held_by_another(state: DKGState, agent: int) -> bool:
    """Whether some item is in the hands of an agent other than ``agent``."""
    return any(-1 - len(state.agent_cells) < loc < 0 and loc != -1 - agent for loc in state.item_locs)


def random_rows(rng: np.random.Generator) -> list[str]:
    """A small map: random walls, up to three doors and three keys of two colours, no border
    (so the grid edge blocks too)."""
    h, w = int(rng.integers(3, 6)), int(rng.integers(4, 8))
    grid = np.where(rng.random((h, w)) < 0.25, "#", ".").astype(object)
    cells = [(r, c) for r in range(h) for c in range(w)]
    chars = (["1", "2", "*", "+"] + list(rng.choice(list("RB"), int(rng.integers(0, 4))))
             + list(rng.choice(list("rb"), int(rng.integers(0, 4)))))
    for ch, i in zip(chars, rng.permutation(len(cells))):
        grid[cells[i]] = ch
    return ["".join(row) for row in grid]


@pytest.mark.parametrize("batch", range(4))
def test_planner_matches_brute_force_on_random_maps(batch):
    rng = np.random.default_rng(1000 + batch)
    for m in range(10):
        world = make_world(random_rows(rng), goals=NEVER_DONE)
        planner = DKGPlanner(world)
        tasks = all_tasks(world)
        for state in sample_states(world, 0, count=3, seed=m):
            expected = brute_force_costs(world, state, 0, tasks)
            for task in tasks:
                assert planner.plan(state, 0, task).cost == expected[task], (
                    f"{task.describe(world)} from\n{world.render_text(state)}")


def test_gem_held_by_another_agent_is_out_of_reach():
    world = make_world(MAPS["open-room"][0])
    gem1 = world.item_index["gem1"]
    s0 = world.reset(0)
    held_by_bob = dataclasses.replace(s0, item_locs=tuple(-2 if i == gem1 else loc
                                                          for i, loc in enumerate(s0.item_locs)))
    planner = DKGPlanner(world)
    assert planner.plan(held_by_bob, 0, Task.hold(gem1)).cost == INF
    assert brute_force_costs(world, held_by_bob, 0, [Task.hold(gem1)])[Task.hold(gem1)] == INF


def test_key_held_by_another_agent_is_not_part_of_the_plan():
    world = make_world(MAPS["door-shorter-to-go-through"][0])
    key1 = world.item_index["key1"]
    s0 = world.reset(0)
    taken = dataclasses.replace(s0, item_locs=tuple(-2 if i == key1 else loc for i, loc in enumerate(s0.item_locs)))
    goal = goal_task(world, "alice")
    assert DKGPlanner(world).plan(taken, 0, goal).cost == 11  # has to go round
    assert brute_force_costs(world, taken, 0, [goal])[goal] == 11


def test_achieved_tasks_cost_nothing_and_used_keys_cannot_be_given():
    world = make_world(MAPS["door-shorter-to-go-through"][0])
    planner = DKGPlanner(world)
    s = world.reset(0)
    for action in ("right", "pickup key1", "right", "unlock door1"):
        s = dataclasses.replace(world.step(s, {"alice": action}).state, turn=0)
    key1 = world.item_index["key1"]
    assert planner.plan(s, 0, Task.open(0)).cost == 0
    assert planner.plan(s, 0, Task.hold(key1)).cost == INF  # used up on the door
    assert planner.plan(s, 0, Task.give(key1, 1)).cost == INF


def test_plans_are_memoized_and_distance_maps_cached():
    world = make_world(MAPS["key-behind-a-door"][0])
    planner = DKGPlanner(world)
    s0 = world.reset(0)
    goal = goal_task(world, "alice")
    first = planner.plan(s0, 0, goal)
    searches, bfs = planner.stats["searches"], planner.stats["bfs"]
    again = planner.plan(s0, 0, goal)
    assert again is first
    assert planner.stats["searches"] == searches and planner.stats["bfs"] == bfs
    assert planner.stats["plan_hits"] == 1


# ------------------------------------------------------------------ agents

def run_episode(world: DKGWorld, seats: Mapping[str, Any], seed: int = 0,
                facilitator: Facilitator | None = None, max_ticks: int | None = None) -> Session:
    session = Session(world, seats, seed=seed, scenario="hand-made", mechanisms=[facilitator], max_ticks=max_ticks)
    session.run()
    return session


def own_actions_until_goal(session: Session, agent: str) -> int | None:
    """How many actions ``agent`` took up to and including the one that got it its gem."""
    count = 0
    for event in session.events:
        if isinstance(event, StepEvent) and agent in event.joint_action:
            count += 1
            if any(e["kind"] == "goal_reached" and e["agent"] == agent for e in event.world_events):
                return count
    return None


REACHABLE = [name for name, (_, cost) in MAPS.items() if cost < INF]


@pytest.mark.parametrize("name", REACHABLE)
def test_planner_agent_reaches_its_gem_in_the_optimal_number_of_actions(name):
    rows, optimal = MAPS[name]
    world = make_world(rows)
    session = run_episode(world, {"alice": PlannerAgent(), "bob": PlannerAgent()})
    assert session.outcome()["success"] is True
    assert own_actions_until_goal(session, "alice") == optimal
    assert session.metrics()["errors"] == 0


@pytest.mark.parametrize("name", REACHABLE)
def test_cold_boltzmann_agent_acts_like_the_planner(name):
    rows, optimal = MAPS[name]
    world = make_world(rows)
    for seed in (0, 1):
        session = run_episode(world, {"alice": BoltzmannAgent(temperature=0.01), "bob": PlannerAgent()}, seed=seed)
        assert own_actions_until_goal(session, "alice") == optimal


def test_boltzmann_probability_concentrates_when_cold_and_spreads_when_hot():
    world = make_world(MAPS["open-room"][0])
    planner = DKGPlanner(world)
    s0 = world.reset(0)
    goal = goal_task(world, "alice")
    legal = world.legal_actions(s0, "alice")
    cost = planner.plan(s0, 0, goal).cost
    optimal = [a for a in legal
               if planner.plan(world.step(s0, {"alice": a}).state, 0, goal).cost == cost - 1]
    assert optimal and len(optimal) < len(legal)

    def policy(temperature: float) -> np.ndarray:
        return boltzmann_policy(world, planner, s0, "alice", goal, legal, temperature)

    cold = policy(0.01)
    assert sum(p for a, p in zip(legal, cold) if a in optimal) > 1 - 1e-9
    hot = policy(100.0)
    assert np.allclose(hot, 1 / len(legal), rtol=0.05)
    entropies = [-(p * np.log(p + 1e-300)).sum() for p in map(policy, (0.01, 0.3, 1.0, 3.0, 100.0))]
    assert all(a < b for a, b in zip(entropies, entropies[1:]))
    assert entropies[-1] == pytest.approx(math.log(len(legal)), rel=0.01)
    for p in (cold, hot):
        assert p.sum() == pytest.approx(1.0)


def test_hot_boltzmann_agent_wanders():
    world = make_world(MAPS["open-room"][0], t_max=30)
    session = run_episode(world, {"alice": BoltzmannAgent(temperature=100.0), "bob": PlannerAgent()}, seed=4)
    taken = own_actions_until_goal(session, "alice")
    assert taken is None or taken > MAPS["open-room"][1]


def test_stuck_planner_waits_next_to_the_blocking_door():
    world = make_world(MAPS["unreachable-gem"][0], t_max=40)
    session = run_episode(world, {"alice": PlannerAgent(), "bob": PlannerAgent()})
    assert session.outcome()["success"] is False
    door_cell = world.doors[0].cell
    alice_moves = [e.joint_action["alice"] for e in session.events
                   if isinstance(e, StepEvent) and "alice" in e.joint_action]
    assert world.adjacent(session.state.agent_cells[0], door_cell)
    assert alice_moves[-10:] == ["wait"] * 10
    # the blue key does not open the red door: it never unlocks anything
    assert not any(a.startswith("unlock") for a in alice_moves)


class OneFeedback(Facilitator):
    """Sends one given suggestion after the first step."""

    kind = "one-feedback"

    def __init__(self, target: str, payload: dict[str, Any]) -> None:
        self.target, self.payload = target, payload

    def suggest(self, step, busy) -> list[Feedback]:
        after = step.after
        if after.t != 1:
            return []
        return [Feedback(feedback_id=0, target=self.target, payload=self.payload,
                         text=f"{self.target}, please {self.payload['type']}", explanation="test")]


# Alice's gem lies behind the red door; Bob has the red key by his side and his gem behind him.
HELPER = ["##########",
          "#1..R*r2+#",
          "##########"]
UNLOCK = {"type": "unlock", "agent": "bob", "door": "door1", "for": "alice"}


def statuses(session: Session, agent: str) -> list[tuple[int, str]]:
    return [(e.tick, e.status) for e in session.events if isinstance(e, FeedbackStatusEvent) and e.agent == agent]


@pytest.mark.parametrize("kind", [PlannerAgent, BoltzmannAgent])
def test_agent_follows_unlock_feedback_then_its_own_goal(kind):
    world = make_world(HELPER)
    bob = kind(compliance=1.0) if kind is PlannerAgent else kind(temperature=0.01, compliance=1.0)
    session = run_episode(world, {"alice": PlannerAgent(), "bob": bob}, facilitator=OneFeedback("bob", UNLOCK))
    unlocks = [e for e in session.events if isinstance(e, StepEvent)
               and any(w["kind"] == "unlock" for w in e.world_events)]
    assert [u.joint_action for u in unlocks] == [{"bob": "unlock door1"}]
    got = statuses(session, "bob")
    assert [s for _, s in got] == ["accepted", "completed"]
    assert got[1][0] > unlocks[0].tick  # completed once the door is open
    assert session.outcome()["success"] is True
    assert session.mechanisms[0].busy == {}


def test_agent_with_zero_compliance_ignores_feedback():
    world = make_world(HELPER, t_max=30)
    session = run_episode(world, {"alice": PlannerAgent(), "bob": PlannerAgent(compliance=0.0)},
                          facilitator=OneFeedback("bob", UNLOCK))
    assert [s for _, s in statuses(session, "bob")] == ["ignored"]
    assert session.state.open_doors == 0
    assert session.outcome()["success"] is False
    assert session.mechanisms[0].busy == {}


def test_handover_feedback_that_cannot_be_done_is_reported():
    """Bob cannot reach Alice without using the very key he is asked to give."""
    world = make_world(HELPER, t_max=20)
    payload = {"type": "handover", "agent": "bob", "item": "key1", "to": "alice"}
    session = run_episode(world, {"alice": PlannerAgent(), "bob": PlannerAgent()},
                          facilitator=OneFeedback("bob", payload))
    assert [s for _, s in statuses(session, "bob")] == ["accepted", "not_executable"]


def test_handover_feedback_is_carried_out():
    world = make_world(SHARED)
    payload = {"type": "handover", "agent": "bob", "item": "key2", "to": "alice"}
    session = run_episode(world, {"alice": PlannerAgent(), "bob": PlannerAgent()},
                          facilitator=OneFeedback("bob", payload))
    handovers = [(e.joint_action, e.tick) for e in session.events if isinstance(e, StepEvent)
                 and any(w["kind"] == "handover" for w in e.world_events)]
    assert handovers and handovers[0][0] == {"bob": "handover key2 alice"}
    assert [s for _, s in statuses(session, "bob")] == ["accepted", "completed"]


def test_boltzmann_policy_is_uniform_when_the_goal_is_walled_off_for_good():
    """No door opens a way to the gem: every action is equally hopeless, never NaN."""
    import numpy as np

    from agents.dkg.agents import boltzmann_policy

    world = make_world(["#######",
                        "#1..#*#",
                        "#..2###",
                        "#+....#",
                        "#######"])
    state = world.reset(0)
    legal = world.legal_actions(state, "alice")
    probs = boltzmann_policy(world, DKGPlanner(world), state, "alice", Task.hold(world.item_index["gem1"]),
                             legal, temperature=0.5)
    assert np.allclose(probs, 1 / len(legal))


def test_no_plan_at_once_when_the_goal_is_out_of_reach_with_every_door_it_could_open():
    """The relaxation check: a gem behind walls, or behind a door no reachable key opens, is
    answered without expanding a single search node, however many keys lie around; the same
    planner without the check (the old search) expands thousands on the benchmark's map."""
    from bench.bench_dkg_unreachable import big_world

    world = big_world(0)
    planner, old = DKGPlanner(world), DKGPlanner(world, relaxation=False)
    state = world.reset(0)
    unreachable = []
    for gem in world.gem_ids:
        before = planner.stats["expanded"]
        plan = planner.plan(state, 0, Task.hold(world.item_index[gem]))
        if plan.cost == INF:
            unreachable.append(gem)
            assert planner.stats["expanded"] == before  # refused before any search
    assert unreachable and planner.stats["refused"] == len(unreachable)
    # the old search on one of them: far more nodes (stopped after a budget to keep the test short)
    budget = 2000

    class Stop(Exception):
        pass

    stats = old.stats

    class Counting(dict):
        def __setitem__(self, key, value):
            if key == "expanded" and value > budget:
                raise Stop
            super().__setitem__(key, value)

    old.stats = Counting(stats)
    with pytest.raises(Stop):
        old.plan(state, 0, Task.hold(world.item_index[unreachable[0]]))


def test_no_plan_when_the_only_key_of_the_colour_is_walled_off():
    world = make_world(["#########",
                        "#1..R..*#",
                        "#########",
                        "#r.....2#",
                        "#########"], goals={"alice": "gem1", "bob": "gem1"})
    planner = DKGPlanner(world)
    assert planner.plan(world.reset(0), 0, Task.hold(world.item_index["gem1"])).cost == INF
    assert planner.stats["expanded"] == 0 and planner.stats["refused"] == 1
