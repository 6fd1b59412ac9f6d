"""ProToM on Doors, Keys and Gems: goals, beliefs, likelihoods, candidates, costs, templates.

- Goals: every gem of the map, for every agent (no two agents can hold the same gem).
- Beliefs: mDKG is fully observable, so a belief state is the true state (N = 1 suffices).
  With ``view_radius`` set, the facilitator models agents that see only cells within that
  Chebyshev distance: a key or gem that vanished out of an agent's sight may still be
  believed lying where it started (with probability ``stale`` when a belief is sampled),
  and a belief showing something the agent can see to be false is resampled.
- Likelihood: the Boltzmann-rational model of the simulated humans
  (``agents.dkg.agents.boltzmann_policy``: P(a | g) ∝ exp(-Q_g(a) / temperature), Q_g(a) =
  1 + optimal cost-to-go of "hold g" after a), mixed with a small ``lapse`` probability of
  a uniformly random action so that one odd move never rules a goal out for good.
- Candidates (Appendix A.2): Unlock(i, door, j) for every locked door agent i can open
  on its own (holding or fetching a matching key), and Handover(i, key, j) for every key
  agent i holds or can fetch and bring to j, when the key opens some locked door.
- Cost: C(f, g) is the predicted episode length (``dkg_rollout``), capped at the ticks left.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from agents.dkg.agents import action_values, boltzmann_policy, planner_for, task_from_feedback
from agents.dkg.planner import INF, Task
from agents.params import BelowOne, Count, Positive, Probability
from agents.protom.core import Candidate, Goal, Message, ProToMAdapter, Rollout
from agents.protom.dkg_central import effect_of, optimal_plans, plans_key
from agents.protom.dkg_rollout import DKGRollouts
from sim.dkg.world import CONSUMED, DKGState, DKGWorld
from sim.world import AgentId, IllegalAction

_ROLLOUTS: "weakref.WeakKeyDictionary[DKGWorld, DKGRollouts]" = weakref.WeakKeyDictionary()


def rollouts_for(world: DKGWorld) -> DKGRollouts:
    """One memoized rollout engine per world, shared by every facilitator on it."""
    engine = _ROLLOUTS.get(world)
    if engine is None:
        engine = _ROLLOUTS[world] = DKGRollouts(world, planner_for(world))
    return engine


_AGREEMENTS: "weakref.WeakKeyDictionary[DKGWorld, dict[tuple, float]]" = weakref.WeakKeyDictionary()


def agreements_for(world: DKGWorld) -> dict[tuple, float]:
    """One memo of P(τ ∈ π* | f, g) per world, shared by every facilitator on it (across the
    episodes a worker plays): the value depends only on the world, the full state, the joint
    goal and the feedback's effect, and the same decisions recur from seed to seed."""
    memo = _AGREEMENTS.get(world)
    if memo is None:
        memo = _AGREEMENTS[world] = {}
    return memo


class DKGAdapter(ProToMAdapter):
    defaults = {"phi": 0.0, "eps": 0.1, "particles": 1, "divergence": "centralised"}  # seed 003, 4.2 and B.1
    exclusive_goals = True

    def __init__(self, world: DKGWorld, temperature: Positive = 1.0, lapse: BelowOne = 0.01,
                 view_radius: Count | None = None, stale: Probability = 0.5) -> None:
        if not isinstance(world, DKGWorld):
            raise TypeError(f"the Doors, Keys and Gems adapter needs a DKGWorld, not {type(world).__name__}")
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        if not 0 <= lapse < 1:
            raise ValueError(f"lapse must be in [0, 1), got {lapse}")
        if view_radius is not None and view_radius < 0:
            raise ValueError(f"view_radius must be at least 0, got {view_radius}")
        if not 0 <= stale <= 1:
            raise ValueError(f"stale must be in [0, 1], got {stale}")
        if len(world.agents) < 2:
            raise ValueError(f"ProToM facilitates two or more agents; {world.name!r} has one "
                             f"({world.agents[0]}); run it without a facilitator")
        helpers = [agent for agent in world.agents if world.goal_of(agent) is None]
        if helpers:  # goal inference over gems would be mis-specified for an agent that wants none
            raise ValueError(f"ProToM infers which gem each agent wants, but {', '.join(helpers)} in "
                             f"{world.name!r} has no goal (a helper); run this scenario without a facilitator")
        super().__init__(world)
        if len(world.agents) > 2:
            # The centralised divergence searches joint plans over every agent's cell; with three
            # agents one search per candidate and tick takes minutes, so the target's next-step
            # overlap stands in unless the centralised one is asked for (docs/protom.md).
            self.defaults = {**type(self).defaults, "divergence": "target-overlap"}
        self.world: DKGWorld = world
        self.planner = planner_for(world)
        self.rollouts = rollouts_for(world)
        self.temperature = float(temperature)
        self.lapse = float(lapse)
        self.view_radius = view_radius
        self.stale = float(stale)
        self.gems: tuple[str, ...] = world.gem_ids
        self._gem_item = {g: world.item_index[g] for g in self.gems}
        self._goal_items: dict[tuple[Goal, ...], tuple[int, ...]] = {}
        self._extras: dict[int, tuple[Candidate, tuple[int, Task]]] = {}
        self._policy_cache: dict[tuple, np.ndarray] = {}
        self._agreement_cache: dict[tuple, float] = agreements_for(world)

    # ---------------------------------------------------------------- goals

    def goals(self, agent: AgentId) -> tuple[Goal, ...]:
        return self.gems

    def true_goals(self) -> dict[AgentId, Goal]:
        return dict(self.world.goals)

    def goal_name(self, goal: Goal) -> str:
        item = self.world.items[self._gem_item[goal]]
        return f"{goal} (the {item.color} gem)"

    # -------------------------------------------------------------- beliefs

    def _sees(self, viewer_cell: int, cell: int) -> bool:
        if self.view_radius is None:
            return True
        (r1, c1), (r2, c2) = self.world.rc(viewer_cell), self.world.rc(cell)
        return max(abs(r1 - r2), abs(c1 - c2)) <= self.view_radius

    def _hidden_change(self, state: DKGState, agent: int, item: int) -> bool:
        """True when ``item`` left its start cell without ``agent`` being able to see it now."""
        loc = state.item_locs[item]
        if loc >= 0 or loc == -1 - agent:
            return False
        here = state.agent_cells[agent]
        if self._sees(here, self.world._initial.item_locs[item]):
            return False
        return loc == CONSUMED or not self._sees(here, state.agent_cells[-1 - loc])

    def sample_belief(self, state: DKGState, agent: AgentId, rng: np.random.Generator) -> DKGState:
        if self.view_radius is None:
            return state
        a = self.world.agent_index[agent]
        locs = list(state.item_locs)
        for i in range(len(locs)):
            if self._hidden_change(state, a, i) and rng.random() < self.stale:
                locs[i] = self.world._initial.item_locs[i]  # believed still lying where it was
        return replace(state, item_locs=tuple(locs))

    def update_belief(self, belief: DKGState, before: DKGState, joint_action: Mapping[AgentId, Any],
                      after: DKGState, agent: AgentId) -> DKGState | None:
        if self.view_radius is None:
            return after
        try:
            moved = self.world.step(belief, joint_action).state
        except IllegalAction:
            return None
        a = self.world.agent_index[agent]
        for i, (believed, true) in enumerate(zip(moved.item_locs, after.item_locs)):
            if believed != true and not (believed == self.world._initial.item_locs[i]
                                         and self._hidden_change(after, a, i)):
                return None  # the agent can see that this belief is wrong
        return moved

    # ----------------------------------------------------------- likelihood

    def _boltzmann(self, state: DKGState, agent: AgentId, task: Task) -> tuple[tuple[str, ...], np.ndarray]:
        if state.turn != self.world.agent_index[agent]:
            state = replace(state, turn=self.world.agent_index[agent])
        key = (state.agent_cells, state.item_locs, state.open_doors, agent, task)
        legal = self.world.legal_actions(state, agent)
        p = self._policy_cache.get(key)
        if p is None:
            if len(self._policy_cache) > 100_000:
                self._policy_cache.clear()
            with np.errstate(invalid="ignore"):
                p = boltzmann_policy(self.world, self.planner, state, agent, task, legal, self.temperature)
            if not np.isfinite(p).all():  # a goal walled off even with every door open: no preference
                p = np.full(len(legal), 1.0 / len(legal))
            p = self._policy_cache[key] = (1 - self.lapse) * p + self.lapse / len(legal)
        return legal, p

    def likelihoods(self, belief: DKGState, agent: AgentId, action: str, goals: Sequence[Goal]) -> np.ndarray:
        out = np.zeros(len(goals))
        for k, goal in enumerate(goals):
            legal, p = self._boltzmann(belief, agent, Task.hold(self._gem_item[goal]))
            if action not in legal:
                return np.zeros(len(goals))  # impossible in this belief
            out[k] = p[legal.index(action)]
        return out

    def policy(self, state: DKGState, agent: AgentId, goal: Goal | None = None,
               candidate: Candidate | None = None) -> np.ndarray:
        if candidate is not None:
            task = task_from_feedback(self.world, candidate.payload)
        else:
            task = Task.hold(self._gem_item[goal])
        return self._boltzmann(state, agent, task)[1]

    # ------------------------------------------------- centralised divergence

    def plan_agreement(self, state: DKGState, goals: tuple[Goal, ...], candidate: Candidate) -> float:
        """P(τ ∈ π* | f, g) as ``agents.protom.dkg_central`` defines it: the probability that one
        round of the agents' own optimal actions for ``goals`` (each optimal action equally likely;
        an agent holding its gem waits) starts a fewest-ticks joint plan that carries out
        ``candidate``."""
        items = tuple(self._gem_item[g] for g in goals)
        key = (state.key(), items, candidate.effect)
        found = self._agreement_cache.get(key)
        if found is not None:
            return found
        world = self.rollouts._world_for(items)
        plans = optimal_plans(world, self.planner, state, items, effect_of(self.world, dict(candidate.payload)))
        agree = 0.0
        if plans is not None:
            frontier: list[tuple[DKGState, Any, float]] = [(state, (plans_key(state), False), 1.0)]
            for _ in range(len(self.agents)):
                moved: list[tuple[DKGState, Any, float]] = []
                for s, node, p in frontier:
                    if world.done(s):
                        moved.append((s, node, p))
                        continue
                    agent = world.agents[s.turn]
                    own = self.own_actions(world, s, agent, items[s.turn])
                    optimal = plans.optimal_actions(node)
                    for action in own:
                        if action in optimal:
                            moved.append((world.step(s, {agent: action}).state, optimal[action], p / len(own)))
                frontier = moved
            agree = sum(p for _, _, p in frontier)
        if len(self._agreement_cache) > 100_000:
            self._agreement_cache.clear()
        self._agreement_cache[key] = agree
        return agree

    def own_actions(self, world: DKGWorld, state: DKGState, agent: AgentId, goal_item: int) -> list[str]:
        """The optimal next actions of ``agent``'s own planner for holding ``goal_item`` (the argmax
        of its policy, ``policy``), or ``["wait"]`` when it holds it already."""
        a = world.agent_index[agent]
        if state.item_locs[goal_item] == -1 - a:
            return ["wait"]
        legal = world.legal_actions(state, agent)
        q = action_values(world, self.planner, state, agent, Task.hold(goal_item), legal)
        named = np.array([x.startswith("unlock ") and x.count(" ") == 2 for x in legal])
        q = np.where(named, np.inf, q)
        return [x for x, v in zip(legal, q) if v <= q.min() + 1e-9]

    # ------------------------------------------------------------ candidates

    def candidates(self, state: DKGState) -> list[Candidate]:
        world, planner = self.world, self.planner
        agents = world.agents
        locked = [d for d in range(len(world.doors)) if not state.open_doors >> d & 1]
        locked_colors = {world.doors[d].color for d in locked}
        out: list[Candidate] = []
        for i, name in enumerate(agents):
            others = [j for j in range(len(agents)) if j != i]
            for d in locked:
                if planner.plan(state, i, Task.open(d)).cost == INF:
                    continue  # no matching key it can reach, or cannot reach the door
                door = world.doors[d].id
                for j in others:
                    out.append(Candidate(
                        target=name, kind="unlock",
                        payload={"type": "unlock", "agent": name, "door": door, "for": agents[j]},
                        label=f"({name}, unlocked({door}))", effect=("open", i, d)))
            for k, item in enumerate(world.items):
                if item.kind != "key" or item.color not in locked_colors:
                    continue
                loc = state.item_locs[k]
                if not (loc >= 0 or loc == -1 - i):
                    continue  # used up, or in someone else's hands
                for j in others:
                    if planner.plan(state, i, Task.give(k, j)).cost == INF:
                        continue
                    out.append(Candidate(
                        target=name, kind="handover",
                        payload={"type": "handover", "agent": name, "item": item.id, "to": agents[j]},
                        label=f"({name}, has({agents[j]}, {item.id}))", effect=("give", i, k, j)))
        return out

    # ----------------------------------------------------------------- cost

    def _extra(self, candidate: Candidate | None) -> tuple[int, Task] | None:
        """The candidate's target and task, kept per candidate object (candidates are never
        changed once made; the object is held, so its id is not reused while kept)."""
        if candidate is None:
            return None
        found = self._extras.get(id(candidate))
        if found is not None and found[0] is candidate:
            return found[1]
        extra = self.world.agent_index[candidate.target], task_from_feedback(self.world, candidate.payload)
        if len(self._extras) >= 4096:
            self._extras.clear()
        self._extras[id(candidate)] = (candidate, extra)
        return extra

    def _items(self, goals: tuple[Goal, ...]) -> tuple[int, ...]:
        """The gems' item indices (memoized per goal tuple)."""
        items = self._goal_items.get(goals)
        if items is None:
            if len(self._goal_items) >= 100_000:
                self._goal_items.clear()
            items = self._goal_items[goals] = tuple(self._gem_item[g] for g in goals)
        return items

    def rollout(self, state: DKGState, goals: tuple[Goal, ...], candidate: Candidate | None) -> Rollout:
        return self.rollouts.run(state, self._items(goals), self._extra(candidate))

    def cost(self, state: DKGState, goals: tuple[Goal, ...], candidate: Candidate | None) -> float:
        return float(self.rollouts.length(state, self._items(goals), self._extra(candidate)))

    # ------------------------------------------------------------ templates

    def feedback_text(self, state: DKGState, candidate: Candidate) -> str:
        world = self.world
        payload = candidate.payload
        target = candidate.target
        if candidate.kind == "unlock":
            door = world.doors[world.door_index[payload["door"]]]
            holds = any(world.items[i].kind == "key" and world.items[i].color == door.color
                        for i in world.held_by(state, target))
            return (f"{_name(target)}, please unlock {door.id} (the {door.color} door) for {_name(payload['for'])}."
                    + ("" if holds else f" Pick up a {door.color} key first."))
        key = world.items[world.item_index[payload["item"]]]
        holds = state.item_locs[world.item_index[key.id]] == -1 - world.agent_index[target]
        return (f"{_name(target)}, please give {key.id} (the {key.color} key) to {_name(payload['to'])}."
                + ("" if holds else " Pick it up first."))

    def message(self, state: DKGState, candidate: Candidate, likely_goals: Mapping[AgentId, Goal],
                posteriors: Mapping[AgentId, Mapping[Goal, float]]) -> Message:
        """Eq. 17 for mDKG. Template: "I believe <j> is trying to get <gem>, and" followed by
        "without your help, <j> wouldn't be able to get <through door / the key>." when the
        rollout under the most probable goals fails without the feedback, or "<j> would need
        about N more turns to get there without your help." when it is only slower."""
        world = self.world
        a = world.agent_index[candidate.target]
        goals = tuple(likely_goals[x] for x in world.agents)
        without = self.rollout(state, goals, None)
        with_f = self.rollout(state, goals, candidate)
        payload = dict(candidate.payload)
        if candidate.kind == "unlock":
            # Name as beneficiary the agent the unlock helps most under the likely goals.
            gains = {j: _gain(without.finish[j], with_f.finish[j], without.horizon)
                     for j in range(len(world.agents)) if j != a}
            j = max(gains, key=lambda x: (gains[x], -x))
            if gains[j] > 0:
                payload["for"] = world.agents[j]
            candidate = replace(candidate, payload=payload)
            helped = payload["for"]
            thing = f"through {payload['door']}"
        else:
            helped = payload["to"]
            thing = f"the {world.items[world.item_index[payload['item']]].color} key"
        j = world.agent_index[helped]
        belief = self._belief_words(state, helped, likely_goals[helped], posteriors.get(helped, {}))
        before, after = without.finish[j], with_f.finish[j]
        if before is None and after is not None:
            reason = f"without your help, {_name(helped)} wouldn't be able to get {thing}."
        elif before is not None and after is not None and after < before:
            reason = f"{_name(helped)} would get there about {before - after} steps later without your help."
        else:
            reason = "your help lets everyone finish sooner."
        return Message(payload=payload, text=self.feedback_text(state, candidate),
                       explanation=f"{belief}, and {reason}")

    def _belief_words(self, state: DKGState, helped: AgentId, goal: Goal, posterior: Mapping[Goal, float]) -> str:
        """The first half of the explanation, in words that stay true: a gem another agent
        already holds is not named as the one ``helped`` is after, and a tie is called a tie
        (wording only: which feedback is sent and its numbers do not depend on it)."""
        world = self.world
        taken = {g for g in posterior if g in self._gem_item
                 and state.item_locs[self._gem_item[g]] < 0
                 and state.item_locs[self._gem_item[g]] != -1 - world.agent_index[helped]}
        if goal in taken:  # the posterior still favours a gem that is gone: name the likeliest free one
            free = {g: q for g, q in posterior.items() if g not in taken}
            if not free:
                return f"I am not sure which gem {_name(helped)} wants"
            goal = max(free, key=lambda g: (free[g], -list(free).index(g)))
        p = posterior.get(goal)
        if p is None:
            return f"I believe {_name(helped)} is trying to get {self.goal_name(goal)}"
        tied = [g for g, q in posterior.items() if g not in taken and abs(q - p) < 1e-9]
        if len(tied) > 1:  # e.g. a flat posterior before the agent has moved
            names = ", ".join(self.goal_name(g) for g in tied[:-1]) + f" or {self.goal_name(tied[-1])}"
            return f"I am not sure yet which gem {_name(helped)} wants ({names}, {p:.0%} each)"
        if p < UNSURE:
            return (f"I am not sure yet which gem {_name(helped)} wants (most likely "
                    f"{self.goal_name(goal)}, at {p:.0%})")
        belief = f"I believe {_name(helped)} is trying to get {self.goal_name(goal)}"
        return belief + (f" ({p:.0%} sure)" if p < 0.995 else "")


#: below this probability of the likeliest goal, the explanation says the goal is not known yet
UNSURE = 0.6


def _name(agent: str) -> str:
    return agent[:1].upper() + agent[1:]


def _gain(before: int | None, after: int | None, horizon: int) -> int:
    b = horizon + 1 if before is None else before
    a = horizon + 1 if after is None else after
    return b - a


__all__ = ["DKGAdapter", "agreements_for", "rollouts_for"]
