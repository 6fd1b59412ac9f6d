"""Planner agents for Doors, Keys and Gems: the optimal planner and the Boltzmann-rational
simulated human. Both follow facilitator feedback (ProToM Section 3.2): with probability
``compliance`` an agent takes a suggestion on, carries it out until it is done or can no
longer be done, then resumes its own goal.

An agent without a goal of its own (a helper, like the reference's robot assisting a human)
plans with the others' needs (``choose_help``): it searches over plans of steps (unlock a door,
hand a key over, fetch a key, wait a turn), each carried out against the others predicted as
planner agents, and follows the plan that has every goal held soonest; staying out of the way
wins ties, so with planner agents for the others it is never slower than they are alone.
"""

from __future__ import annotations

import heapq
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from agents.dkg.joint import joint_step, ticks_left_bound
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


#: a helper's plan (``choose_help``) is a tuple of steps, each a Task ("open", "give", "hold" a
#: key) carried out by the planner until it is done or can no longer be done, or WAIT (one turn
#: of waiting); after its last step the helper stays out of the way. STAY is the empty plan.
WAIT = "wait"
STAY: tuple = ()
#: search nodes a helper expands per decision (``plan_help``); past it, the best plan found so far
HELP_NODES = 400


def plan_step(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int,
              plan: tuple) -> tuple[Task | None, tuple]:
    """The task a helper following ``plan`` works on in ``state`` (None: it waits) and the plan
    from its next turn on: tasks done or impossible are skipped, a WAIT is one turn of waiting,
    and an empty plan waits."""
    while plan:
        head = plan[0]
        if head == WAIT:
            return None, plan[1:]
        if planner.plan(state, helper, head).cost not in (0, INF):
            return head, plan
        plan = plan[1:]
    return None, STAY


def helper_action(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int, task: Task | None) -> str:
    """The action of a helper working on ``task`` (None: wait): the planner's step for it."""
    return "wait" if task is None else planner_action(world, planner, state, helper, task)


_ROLLOUTS: "weakref.WeakKeyDictionary[DKGWorld, dict]" = weakref.WeakKeyDictionary()


#: a cooperative agent's memory (``Humans``) once it acts alone
ALONE = "alone"


@dataclass(frozen=True)
class Humans:
    """How the agents with a goal act, as a helper predicts them and as they act: each the planner
    agent for its own gem (ProToM's simulated human), except those in ``cooperative`` (agent
    indices; the ``cooperative`` kind), which act by a joint plan (``cooperative_action``).

    A cooperative agent remembers one thing between its turns, the tick its last joint plan had
    every goal held at (or ``ALONE``); ``memory`` is that per agent, a tuple as long as the world's
    agents (``start``), or ``()`` when no agent is cooperative."""

    cooperative: frozenset[int] = frozenset()

    def start(self, world: DKGWorld) -> tuple:
        return tuple(None for _ in world.agents) if self.cooperative else ()

    def act(self, world: DKGWorld, planner: DKGPlanner, s: DKGState, memory: tuple) -> tuple[str, tuple]:
        """The action of the agent with a goal whose turn it is in ``s``, and the memory after it."""
        a = s.turn
        task = Task.hold(world.goal_item[a])  # type: ignore[arg-type]
        if a in self.cooperative and memory[a] != ALONE:
            action, mine = cooperative_action(world, planner, s, memory[a])
            if mine != ALONE:
                return action, (*memory[:a], mine, *memory[a + 1:])  # type: ignore[return-value]
            memory = (*memory[:a], ALONE, *memory[a + 1:])
        return planner_action(world, planner, s, a, task), memory

    def observe(self, world: DKGWorld, planner: DKGPlanner, s: DKGState, memory: tuple) -> tuple:
        """The memory after the turn that starts in ``s`` (a helper following the episode keeps the
        cooperative agents' memory as they keep it: the same judgement from the same state)."""
        if not self.cooperative or world.done(s) or s.turn not in self.cooperative or memory[s.turn] == ALONE:
            return memory
        return self.act(world, planner, s, memory)[1]


#: ProToM's simulated human for every agent with a goal: the default prediction
PLANNER_HUMANS = Humans()


def cooperative_action(world: DKGWorld, planner: DKGPlanner, s: DKGState,
                       planned: int | None) -> tuple[str | None, int | str]:
    """A cooperative agent's turn in ``s``: its action by a fewest-ticks joint plan for every goal
    (``joint_step``, planned afresh from the state it sees) and the tick that plan ends at; or
    ``(None, ALONE)`` when it judges the others not cooperating, that is when that tick is later
    than the one ``planned`` at its previous turn (what they did since has put the joint optimum
    off), or when there is no joint plan: from then on it acts alone. In a world without a helper
    (an agent without a goal) there is nobody to act with: it acts alone from the start, without
    searching (a joint plan of several agents with goals is also far too large a search)."""
    if len(world.goal_agents) == len(world.agents):
        return None, ALONE
    end, action = joint_step(world, planner, s)
    if end is None or action is None or (planned is not None and end > planned):
        return None, ALONE
    return action, end


def _others_action(world: DKGWorld, planner: DKGPlanner, s: DKGState, humans: Humans,
                   memory: tuple) -> tuple[str, tuple]:
    """What an agent other than the planning helper does in the prediction (``humans``), or
    waiting for another helper; and the memory after it."""
    if world.goal_item[s.turn] is None:
        return "wait", memory
    return humans.act(world, planner, s, memory)


def _ending(world: DKGWorld, s: DKGState) -> tuple:
    held = sum(world.holds_goal(s, a) for a in world.goal_agents)
    return (held != len(world.goal_agents), s.t, -held)


def rollout(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int, plan: tuple,
            humans: Humans = PLANNER_HUMANS, memory: tuple = ()) -> tuple:
    """How the episode ends from ``state`` when ``helper`` follows ``plan`` (``plan_step``), every
    agent with a goal acts as ``humans`` says (the planner agent by default; ``memory`` is the
    cooperative agents' memory in ``state``) and any other helper waits: (failed, end tick,
    -goals held), smaller is better. Deterministic, so it is what happens when the others act
    as predicted."""
    cache = _ROLLOUTS.setdefault(world, {})
    key = (state.key(), helper, plan, humans, memory)
    found = cache.get(key)
    if found is not None:
        return found
    s = state
    while not world.done(s):
        if s.turn == helper:
            task, plan = plan_step(world, planner, s, helper, plan)
            action = helper_action(world, planner, s, helper, task)
        else:
            action, memory = _others_action(world, planner, s, humans, memory)
        s = world.step(s, {world.agents[s.turn]: action}).state
    result = _ending(world, s)
    if len(cache) > 200_000:
        cache.clear()
    cache[key] = result
    return result


_STEPS: "weakref.WeakKeyDictionary[DKGWorld, dict]" = weakref.WeakKeyDictionary()


def carry_out(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int, step: Task | str,
              humans: Humans = PLANNER_HUMANS, memory: tuple = ()) -> tuple[DKGState, tuple]:
    """The state at the helper's next decision after ``state`` (its turn) when it carries out
    ``step`` alone (a task until it is done or can no longer be done, or one turn of waiting)
    while the others act as in ``rollout``; or the state where the episode ended before that;
    with the cooperative agents' memory there."""
    cache = _STEPS.setdefault(world, {})
    key = (state.key(), helper, step, humans, memory)
    found = cache.get(key)
    if found is not None:
        return found
    s, plan = state, (step,)
    while not world.done(s):
        if s.turn == helper:
            if not plan:
                break  # the wait is over
            task, rest = plan_step(world, planner, s, helper, plan)
            if task is None and plan[0] != WAIT:
                break  # the task is done or can no longer be done
            plan = rest
            action = helper_action(world, planner, s, helper, task)
        else:
            action, memory = _others_action(world, planner, s, humans, memory)
        s = world.step(s, {world.agents[s.turn]: action}).state
    if len(cache) > 200_000:
        cache.clear()
    cache[key] = (s, memory)
    return s, memory


def help_steps(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int) -> list[Task | str]:
    """The steps a helper could take next: each unlock of a locked door and each delivery of a key
    to an agent with a goal not yet held (``help_candidates``), fetching a key to hold it, each
    one it can start now and has not done; and one turn of waiting."""
    steps: list[Task | str] = []
    for b in world.goal_agents:
        if b == helper or world.holds_goal(state, b):
            continue
        for task in help_candidates(world, state, helper, b):
            if task not in steps:
                steps.append(task)
    steps += [Task.hold(i) for i, it in enumerate(world.items) if it.kind == "key" and state.item_locs[i] >= 0]
    steps = [t for t in steps if planner.plan(state, helper, t).cost not in (0, INF)]
    return [*steps, WAIT]


def plan_help(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int,
              nodes: int = HELP_NODES, humans: Humans = PLANNER_HUMANS, memory: tuple = ()) -> tuple[tuple, tuple]:
    """The helper's plan from ``state`` (its turn) and its predicted ending (``rollout``): a
    best-first search over the joint states at the helper's decisions, each step of a plan
    (``help_steps``: unlock, deliver, fetch, wait) carried out against the others as ``humans``
    predicts them (``carry_out``; the planner agents by default), each state also ended by staying out of the way from there. A state
    reached again later is not searched again (from the same state the same plan ends no
    sooner later). The first ending taken off the queue is the soonest: staying from the start
    before any plan, a shorter plan before a longer one among equals. Past ``nodes`` expanded
    states, the best ending found so far."""
    counter = 0
    bound = len(world.goal_agents)
    best_ending = rollout(world, planner, state, helper, STAY, humans, memory)
    best = (best_ending, 0, 0, STAY)
    # entries: (ending or lower bound, 0 = an ending / 1 = a state to expand, plan length, counter,
    # state, plan, memory)
    queue: list[tuple] = [((False, state.t + ticks_left_bound(world, planner, state), -bound), 1, 0, -1, state, STAY,
                           memory), (best_ending, 0, 0, 0, None, STAY, memory)]
    seen = {(state.key()[1:], memory): state.t}
    expanded = 0
    while queue:
        value, kind, length, _, s, plan, mem = heapq.heappop(queue)
        if kind == 0:
            return plan, value
        expanded += 1
        if expanded > nodes:
            break
        for step in help_steps(world, planner, s, helper):
            nxt, after = carry_out(world, planner, s, helper, step, humans, mem)
            longer = (*plan, step)
            ending = _ending(world, nxt) if world.done(nxt) else rollout(world, planner, nxt, helper, STAY, humans,
                                                                           after)
            counter += 1
            heapq.heappush(queue, (ending, 0, len(longer), counter, None, longer, after))
            if (ending, len(longer)) < best[:2]:
                best = (ending, len(longer), counter, longer)
            k = (nxt.key()[1:], after)
            if not world.done(nxt) and nxt.t < seen.get(k, world.t_max + 1):
                seen[k] = nxt.t
                low = (False, nxt.t + ticks_left_bound(world, planner, nxt), -bound)
                if low < best[0]:
                    counter += 1
                    heapq.heappush(queue, (low, 1, len(longer), counter, nxt, longer, after))
    return best[3], best[0]


def choose_help(world: DKGWorld, planner: DKGPlanner, state: DKGState, helper: int,
                current: tuple | None = None, expected: tuple | None = None,
                humans: Humans = PLANNER_HUMANS, memory: tuple = ()) -> tuple[tuple, tuple]:
    """The helper's plan from ``state`` and its predicted ending (``rollout``). ``current`` is
    what is left of the plan it follows and ``expected`` the ending predicted for it: while the
    world goes as predicted (the same ending from here) it is kept without searching; otherwise
    ``plan_help`` searches again, and ``current`` is left only for a strictly better plan.

    ``humans`` and ``memory`` are how the helper predicts the agents with a goal (``Humans``).
    So, by construction, a planner helper never makes the others slower than without it when
    they are planner agents: at the first turn the chosen plan ends no later than staying
    (which is the others acting alone) and the prediction is exact from then on. Against other
    minds (a Boltzmann human) the search is redone whenever what happens departs from the
    prediction."""
    now = None if current is None else rollout(world, planner, state, helper, current, humans, memory)
    if current is not None and now == expected:
        return current, now  # type: ignore[return-value]
    plan, value = plan_help(world, planner, state, helper, HELP_NODES, humans, memory)
    if current is not None and now is not None and not value < now:
        return current, now
    return plan, value


#: how a helper predicts the agents with a goal: ``seats`` as their seats are declared (an agent
#: seated as ``cooperative`` as that kind, any other as the planner agent), or all of them as
#: ``planner`` (ProToM's simulated human) or as ``cooperative``
HumanPrediction = Literal["seats", "planner", "cooperative"]


class DKGPlanningAgent(Agent):
    """Shared machinery: own goal, feedback tasks, and the plan snapshot for the views."""

    def __init__(self, compliance: Probability = 1.0, show_plan: bool = True,
                 humans: HumanPrediction = "seats") -> None:
        if not 0.0 <= compliance <= 1.0:
            raise ValueError(f"compliance must be in [0, 1], got {compliance}")
        if humans not in ("seats", "planner", "cooperative"):
            raise ValueError(f"humans must be seats, planner or cooperative, got {humans!r}")
        self.compliance = compliance
        self.show_plan = show_plan
        self.humans_param = humans
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
        self.help_plan: tuple | None = None  # what is left of a helper's plan (choose_help)
        self.help_ending: tuple | None = None  # and the ending predicted for it
        # how the agents with a goal are predicted (a helper's search) and, for a cooperative
        # agent, how it acts itself; their memory is followed state by state (observe_state)
        cooperative = {a for a in world.goal_agents if a == self.index and self.kind == "cooperative"
                       or self.humans_param == "cooperative"
                       or self.humans_param == "seats" and ctx.seat_kinds.get(world.agents[a]) == "cooperative"}
        self.humans = Humans(frozenset(cooperative))
        self.memory = self.humans.start(world)
        self.observe_state(world.reset(ctx.seed))

    def observe_state(self, state: Any) -> None:
        if self.humans.cooperative:
            if state.t == 0:  # the start (again, in a new task round)
                self.memory = self.humans.start(self.world)
            self.memory = self.humans.observe(self.world, self.planner, state, self.memory)

    def describe(self) -> dict[str, Any]:
        found = {"kind": self.kind, "compliance": self.compliance}
        return found if self.humans_param == "seats" else {**found, "humans": self.humans_param}

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
            plan, self.help_ending = choose_help(self.world, self.planner, state, self.index, self.help_plan,
                                                 self.help_ending, self.humans, self.memory)
            task, self.help_plan = plan_step(self.world, self.planner, state, self.index, plan)
            return task
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


class CooperativeAgent(PlannerAgent):
    """CLIPS.jl's principal: acts by a joint policy with the others toward its own gem.

    At each of its turns it plans a fewest-ticks joint plan for both agents from the state it sees
    (``joint_step``: A* over joint actions) and takes its own action from it; it judges the others
    not cooperating once what they did since its previous turn has put that plan's end off (a
    later tick than it planned then), and from then on acts alone, as the planner agent
    (``cooperative_action``). Without a goal it helps as the planner agent does."""

    kind = "cooperative"

    def act(self, observation: DKGObservation, legal_actions: Sequence[str]) -> str:
        state = observation.state
        task = self.current_task(state)
        if self.goal is None or task != self.goal or self.index not in self.humans.cooperative:
            return super().act(observation, legal_actions)  # helping, or a facilitator's task
        action, self.memory = self.humans.act(self.world, self.planner, state, self.memory)
        self._last_plan = (task, self.planner.plan(state, self.index, task), state)
        return action if action in legal_actions else "wait"


class BoltzmannAgent(DKGPlanningAgent):
    """The simulated human: P(a) ∝ exp(-Q(a) / temperature), Q(a) = 1 + cost-to-go after a.

    Cost-to-go is the optimal planner's; an action after which the task cannot be done
    alone costs ``UNREACHABLE`` plus the distance (all doors open) to the goal.
    """

    kind = "boltzmann"

    def __init__(self, temperature: Positive = 0.5, compliance: Probability = 1.0, show_plan: bool = True,
                 humans: HumanPrediction = "seats") -> None:
        super().__init__(compliance=compliance, show_plan=show_plan, humans=humans)
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
