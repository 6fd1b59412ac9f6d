"""Planner agents for Doors, Keys and Gems: the optimal planner and the Boltzmann-rational
simulated human. Both follow facilitator feedback (ProToM Section 3.2): with probability
``compliance`` an agent takes a suggestion on, carries it out until it is done or can no
longer be done, then resumes its own goal.

An agent without a goal of its own (a helper, like the reference's robot assisting a human)
plans with the others' needs (``choose_help``): it simulates the episode to its end under
each way of helping (one unlock or key delivery, the greedy choice, or staying out of the
way) with the others as planner agents, and follows the one that has every goal held
soonest; staying wins ties, so with planner agents for the others it is never slower than
they are alone.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.dkg.planner import INF, DKGPlanner, Plan, Task
from agents.params import Positive, Probability
from sim.dkg.world import DKGObservation, DKGState, DKGWorld
from sim.events import FeedbackStatusEvent
from sim.seats import Agent, Feedback, SeatContext
from sim.snapshots import Plan as PlanSnapshot

_PLANNERS: "weakref.WeakKeyDictionary[DKGWorld, DKGPlanner]" = weakref.WeakKeyDictionary()


def planner_for(world: DKGWorld) -> DKGPlanner:
    """One planner (and one set of cached distance maps) per world, shared by its agents."""
    planner = _PLANNERS.get(world)
    if planner is None:
        planner = _PLANNERS[world] = DKGPlanner(world)
    return planner


def task_from_feedback(world: DKGWorld, payload: Mapping[str, Any]) -> Task:
    """The Task an agent carries out for a feedback payload.

    ``{"type": "unlock", "agent": "bob", "door": "door1", "for": "alice"}`` -> open door1;
    ``{"type": "handover", "agent": "bob", "item": "key1", "to": "alice"}`` -> give key1 to alice.
    """
    kind = payload.get("type")
    if kind == "unlock":
        return Task.open(world.door_index[payload["door"]])
    if kind == "handover":
        return Task.give(world.item_index[payload["item"]], world.agent_index[payload["to"]])
    raise ValueError(f"unknown feedback type {kind!r}")


def feedback_progress(world: DKGWorld, state: DKGState, agent: str, payload: Mapping[str, Any]) -> str | None:
    """How far a seat is with a feedback it accepted: "completed" once the suggested task is
    done, "not_executable" once it can no longer be done, else None (the plug-in's judge for
    human seats; planner agents judge themselves the same way)."""
    try:
        task = task_from_feedback(world, payload)
    except (KeyError, ValueError):
        return None
    plan = planner_for(world).plan(state, world.agent_index[agent], task)
    if plan.cost == 0:
        return "completed"
    return "not_executable" if plan.cost == INF else None


def goal_task(world: DKGWorld, agent: str) -> Task | None:
    """Hold one's gem; None for a helper without a goal."""
    gem = world.goal_of(agent)
    return None if gem is None else Task.hold(world.item_index[gem])


def help_task(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int) -> Task | None:
    """A greedy choice of help: among "unlock door d" and "give key k to b" for every agent b
    with a goal not yet held, the task after which b is expected to hold its gem soonest,
    counting the helper's own plan for the task and then b's plan from the state where it is
    done (a sequential estimate: b may move meanwhile). Only a task that beats b's own plan (or
    helps where b has none) is chosen; None when nothing helps. One of the policies the helper
    weighs (``choose_help``), never followed without that check."""
    best: tuple[float, float, int, Task] | None = None
    locs = state.item_locs
    for b in world.goal_agents:
        if b == helper or world.holds_goal(state, b):
            continue
        goal = Task.hold(world.goal_item[b])  # type: ignore[arg-type]
        alone = planner.plan(state, b, goal).cost
        for order, task in enumerate(help_candidates(world, state, helper, b)):
            mine = planner.plan(state, helper, task).cost
            if mine == INF or mine == 0:
                continue
            if task.kind == "open":
                after = dataclasses.replace(state, open_doors=state.open_doors | 1 << task.door)
            else:
                after = dataclasses.replace(state, item_locs=locs[:task.item] + (-1 - b,) + locs[task.item + 1:])
            then = planner.plan(after, b, goal).cost
            if then == INF or mine + then >= alone:
                continue
            gain = (alone - (mine + then)) if alone != INF else INF
            choice = (-gain, mine + then, order, task)
            if best is None or choice[:3] < best[:3]:
                best = choice
    return None if best is None else best[3]


def help_candidates(world: DKGWorld, state: DKGState, helper: int, b: int) -> list[Task]:
    """What a helper could do for agent ``b``: unlock a locked door, or hand ``b`` a key lying on
    the floor or held by the helper."""
    locs = state.item_locs
    tasks = [Task.open(d) for d in range(len(world.doors)) if not state.open_doors >> d & 1]
    tasks += [Task.give(i, b) for i, it in enumerate(world.items)
              if it.kind == "key" and (locs[i] >= 0 or locs[i] == -1 - helper)]
    return tasks


def planner_action(world: DKGWorld, planner: DKGPlanner, state: DKGState, a: int, task: Task) -> str:
    """The planner agent's action for ``task``: the first step of an optimal plan; when the task
    cannot be done alone, the step that brings it closest (or wait)."""
    agent = world.agents[a]
    legal = world.legal_actions(state, agent)
    plan = planner.plan(state, a, task)
    action = planner.first_action(state, a, plan)
    if action is None and plan.cost == INF:
        here = planner.fallback_cost(state, a, task)
        action, best = "wait", here
        for move in legal:
            if move in ("up", "down", "left", "right"):
                cost = planner.fallback_cost(world.step(state, {agent: move}).state, a, task)
                if cost < best:
                    action, best = move, cost
    return action if action in legal else "wait"


#: a helper's policies (``choose_help``): stay out of the way; the greedy choice each turn; or
#: ("task", T1, ...): tasks ("open"/"give") carried out by the planner in turn, then stay
STAY: tuple = ("stay",)
GREEDY: tuple = ("greedy",)


def policy_task(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int, policy: tuple) -> Task | None:
    """The task a helper following ``policy`` works on in ``state`` (a function of the state
    alone): for a list of tasks, the first one neither done nor impossible; None to stay out of
    the way (nothing helps now, or every task is done or can no longer be)."""
    if policy == STAY:
        return None
    tasks = [help_task(world, planner, state, helper)] if policy == GREEDY else list(policy[1:])
    for task in tasks:
        if task is not None and planner.plan(state, helper, task).cost not in (0, INF):
            return task
    return None


def helper_action(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int, policy: tuple) -> str:
    """The action of a helper following ``policy`` in ``state``: the planner's step for its task."""
    task = policy_task(world, planner, state, helper, policy)
    return "wait" if task is None else planner_action(world, planner, state, helper, task)


_ROLLOUTS: "weakref.WeakKeyDictionary[DKGWorld, dict]" = weakref.WeakKeyDictionary()


def rollout(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int, policy: tuple) -> tuple:
    """How the episode ends from ``state`` when ``helper`` follows ``policy``, every agent with a
    goal acts as the planner agent and any other helper waits: (failed, end tick, -goals held),
    smaller is better. Deterministic, so it is what happens when the others are planner agents."""
    cache = _ROLLOUTS.setdefault(world, {})
    key = (state.key(), helper, policy)
    found = cache.get(key)
    if found is not None:
        return found
    s = state
    while not world.done(s):
        a = s.turn
        if a == helper:
            action = helper_action(world, planner, s, helper, policy)
        elif world.goal_item[a] is not None:
            action = planner_action(world, planner, s, a, Task.hold(world.goal_item[a]))  # type: ignore[arg-type]
        else:
            action = "wait"
        s = world.step(s, {world.agents[a]: action}).state
    held = sum(world.holds_goal(s, a) for a in world.goal_agents)
    success = held == len(world.goal_agents)
    result = (not success, s.t, -held)
    if len(cache) > 200_000:
        cache.clear()
    cache[key] = result
    return result


def choose_help(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int,
                current: tuple | None) -> tuple:
    """The helper's policy from ``state``: the one whose rollout ends soonest (every goal held
    earliest; ``rollout``), over staying out of the way, the greedy choice, each single unlock or
    key delivery for an agent with a goal, and each ordered pair of them (the first, then the
    second: a chain). Staying wins ties, then single tasks before pairs, and the policy it
    follows (``current``) is left only for a strictly better one.

    So, by construction, a planner helper never makes the others slower than without it when
    they are planner agents: at the first turn the chosen policy ends no later than staying
    (which is the others acting alone), each policy is a function of the state, and a switch
    only ever lowers the predicted end. Against other minds (a Boltzmann human) the prediction
    is redone from what really happened at every turn."""
    options: list[tuple] = [STAY]
    if current is not None and current not in options:
        options.append(current)
    singles: list[Task] = []
    for b in world.goal_agents:
        if b == helper or world.holds_goal(state, b):
            continue
        for task in help_candidates(world, state, helper, b):
            cost = planner.plan(state, helper, task).cost
            if cost != INF and cost > 0 and task not in singles:
                singles.append(task)
    options += [("task", t) for t in singles if ("task", t) not in options]
    options += [("task", t, u) for t in singles for u in singles if u != t and ("task", t, u) not in options]
    options.append(GREEDY)
    values = {policy: rollout(world, planner, state, helper, policy) for policy in options}
    best = min(options, key=lambda p: values[p])  # the first of equals: staying, then the current one
    if current is not None and current in values and not values[best] < values[current]:
        return current
    return best


class DKGPlanningAgent(Agent):
    """Shared machinery: own goal, feedback tasks, and the plan snapshot for the views."""

    def __init__(self, compliance: Probability = 1.0, show_plan: bool = True) -> None:
        if not 0.0 <= compliance <= 1.0:
            raise ValueError(f"compliance must be in [0, 1], got {compliance}")
        self.compliance = compliance
        self.show_plan = show_plan
        self.feedback: Feedback | None = None
        self.feedback_task: Task | None = None
        self._last_plan: tuple[Task, Plan, DKGState] | None = None

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        world = ctx.world
        if not isinstance(world, DKGWorld):
            raise TypeError(f"{self.kind} agents play Doors, Keys and Gems, not {world.family}")
        self.world: DKGWorld = world
        self.planner = planner_for(world)
        self.index = world.agent_index[ctx.agent_id]
        self.goal = goal_task(world, ctx.agent_id)
        self.feedback = self.feedback_task = None
        self.help_policy: tuple | None = None  # a helper's policy (choose_help)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "compliance": self.compliance}

    # ------------------------------------------------------------ feedback

    def receive_feedback(self, feedback: Feedback) -> None:
        if self.ctx.rng.random() >= self.compliance:
            self._status(feedback, "ignored")
            return
        if self.feedback is not None:  # a newer suggestion replaces an unfinished one
            self._status(self.feedback, "ignored")
        self.feedback = feedback
        self.feedback_task = task_from_feedback(self.world, feedback.payload)
        self._status(feedback, "accepted")

    def _status(self, feedback: Feedback, status: str) -> None:
        self.ctx.emit(FeedbackStatusEvent(tick=self.ctx.tick, feedback_id=feedback.feedback_id,
                                          agent=self.ctx.agent_id, status=status))

    def current_task(self, state: DKGState) -> Task | None:
        """The feedback task while it lasts, else the agent's own goal; for a helper without a
        goal, the help it judges best now (None: nothing helps)."""
        if self.feedback_task is not None:
            plan = self.planner.plan(state, self.index, self.feedback_task)
            if plan.cost == 0 or plan.cost == INF:
                self._status(self.feedback, "completed" if plan.cost == 0 else "not_executable")
                self.feedback = self.feedback_task = None
            else:
                return self.feedback_task
        if self.goal is None:
            self.help_policy = choose_help(self.world, self.planner, state, self.index, self.help_policy)
            return policy_task(self.world, self.planner, state, self.index, self.help_policy)
        return self.goal

    # ----------------------------------------------------------- snapshots

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        """The plan behind the latest decision, once per decision."""
        if not self.show_plan or self._last_plan is None:
            return ()
        task, plan, state = self._last_plan
        self._last_plan = None
        return (("plan", PlanSnapshot(task=task.describe(self.world),
                              cost=None if plan.cost == INF else plan.cost,
                              path=[list(self.world.rc(c)) for c in self.planner.path(state, self.index, plan)],
                              following_feedback=self.feedback.feedback_id if self.feedback else None)),)


class PlannerAgent(DKGPlanningAgent):
    """Takes the first action of an optimal plan; waits as close as it can when stuck."""

    kind = "planner"

    def act(self, observation: DKGObservation, legal_actions: Sequence[str]) -> str:
        state = observation.state
        task = self.current_task(state)
        if task is None:  # a helper with nothing to help with
            return "wait"
        self._last_plan = (task, self.planner.plan(state, self.index, task), state)
        action = planner_action(self.world, self.planner, state, self.index, task)
        return action if action in legal_actions else "wait"


class BoltzmannAgent(DKGPlanningAgent):
    """The simulated human: P(a) ∝ exp(-Q(a) / temperature), Q(a) = 1 + cost-to-go after a.

    Cost-to-go is the optimal planner's; an action after which the task cannot be done
    alone costs ``UNREACHABLE`` plus the distance (all doors open) to the goal.
    """

    kind = "boltzmann"

    def __init__(self, temperature: Positive = 0.5, compliance: Probability = 1.0, show_plan: bool = True) -> None:
        super().__init__(compliance=compliance, show_plan=show_plan)
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        self.temperature = float(temperature)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "temperature": self.temperature}

    def action_probabilities(self, state: DKGState, task: Task, legal: Sequence[str]) -> np.ndarray:
        return boltzmann_policy(self.world, self.planner, state, self.ctx.agent_id, task, legal, self.temperature)

    def act(self, observation: DKGObservation, legal_actions: Sequence[str]) -> str:
        state = observation.state
        task = self.current_task(state)
        if task is None:  # a helper with nothing to help with
            return "wait"
        plan = self.planner.plan(state, self.index, task)
        self._last_plan = (task, plan, state)
        if plan.cost == 0 and "wait" in legal_actions:
            return "wait"  # goal held and nothing asked of it: stay put rather than wander
        probs = self.action_probabilities(state, task, legal_actions)
        return legal_actions[int(self.ctx.rng.choice(len(legal_actions), p=probs))]


def action_values(world: DKGWorld, planner: DKGPlanner, state: DKGState, agent: str, task: Task,
                  legal: Sequence[str]) -> np.ndarray:
    """Q(a) = 1 + cost-to-go of ``task`` after each legal action (the agent's own steps)."""
    a = world.agent_index[agent]
    q = np.empty(len(legal))
    for j, action in enumerate(legal):
        nxt = world.step(state, {agent: action}).state
        cost = planner.cost_to_go(nxt, a, task)
        q[j] = 1 + (cost if cost != INF else planner.fallback_cost(nxt, a, task))
    return q


def boltzmann_policy(world: DKGWorld, planner: DKGPlanner, state: DKGState, agent: str, task: Task,
                     legal: Sequence[str], temperature: float) -> np.ndarray:
    """Softmax over -Q / temperature: the likelihood model of the simulated human and of goal
    inference alike. An unlock naming a key (``unlock door3 key5``) has probability 0: the
    simulated human does not choose keys, it takes the default (the lowest-numbered one)."""
    q = action_values(world, planner, state, agent, task, legal)
    named = np.array([a.startswith("unlock ") and a.count(" ") == 2 for a in legal])
    q = np.where(named, np.inf, q)
    logits = -(q - q.min()) / temperature
    p = np.exp(logits)
    return p / p.sum()
