"""A world declared only here, with what every method needs from it: a corridor of seven cells
with a gem at each end; two agents take turns to step left or right or wait, each wanting one of
the gems (which one is private). Its plug-in names, in ``methods``, ProToM's adapter, the llm
agent's and facilitator's prompts and the team play (default team seats and team score); its
agent kind is registered with ``kinds_registered``, both for a block only (``installed``), so the
world does not outlive the tests that use it. Nothing outside ``tests/`` names it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.llm.tom import tom_preamble, tom_template
from agents.llm.world import LLMWorld
from agents.protom.core import Candidate, Message, ProToMAdapter
from agents.registry import AgentKind, kinds_registered
from agents.teams.tom import TeamPlay, personal_score
from sim.plugins import WorldPlugin, registered
from sim.seats import Agent, Feedback, SeatContext
from sim.world import IllegalAction, StepResult, World, WorldEvent

FAMILY = "test-corridor"
LENGTH = 7
GEMS = {"west": 0, "east": LENGTH - 1}
STEP = {"left": -1, "right": 1, "wait": 0}
ACTIONS = tuple(STEP)
T_MAX = 20


@dataclass(frozen=True, slots=True)
class CorridorState:
    t: int
    cells: tuple[int, ...]
    arrived: tuple[int | None, ...]  # the tick each agent reached its gem


@dataclass(frozen=True, slots=True)
class CorridorObservation:
    state: CorridorState
    agent: str
    goal: str  # the agent's own gem; the other's is private

    @property
    def t(self) -> int:
        return self.state.t

    def key(self) -> tuple:
        return (self.state, self.agent, self.goal)


class CorridorWorld(World[CorridorState, str, CorridorObservation]):
    family = FAMILY

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self._spec = dict(spec)
        self.name = spec["name"]
        self.starts = dict(spec["starts"])
        self.goals = dict(spec["goals"])

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(self.starts)

    def spec(self) -> dict[str, Any]:
        return dict(self._spec)

    def goal_cell(self, agent: str) -> int:
        return GEMS[self.goals[agent]]

    def reset(self, seed: int) -> CorridorState:
        cells = tuple(self.starts[a] for a in self.agents)
        return CorridorState(0, cells, tuple(0 if c == self.goal_cell(a) else None for a, c in zip(self.agents, cells)))

    def active_agents(self, state: CorridorState) -> tuple[str, ...]:
        return () if self.done(state) else (self.agents[state.t % len(self.agents)],)

    def legal_actions(self, state: CorridorState, agent: str) -> tuple[str, ...]:
        if agent not in self.active_agents(state):
            return ()
        cell = state.cells[self.agents.index(agent)]
        return tuple(a for a in ACTIONS if 0 <= cell + STEP[a] < LENGTH)

    def why_illegal(self, state: CorridorState, agent: str, action: Any) -> str | None:
        if agent not in self.active_agents(state):
            return f"it is not {agent}'s turn"
        if action not in STEP:
            return f"unknown action {action!r} (left, right or wait)"
        return None if action in self.legal_actions(state, agent) else f"{action!r}: the corridor ends there"

    def step(self, state: CorridorState, joint_action: Mapping[str, str]) -> StepResult[CorridorState]:
        (agent, action), = joint_action.items()
        reason = self.why_illegal(state, agent, action)
        if reason is not None:
            raise IllegalAction(f"{agent}: {reason}")
        i = self.agents.index(agent)
        cells = list(state.cells)
        cells[i] += STEP[action]
        arrived = list(state.arrived)
        events = ()
        if arrived[i] is None and cells[i] == self.goal_cell(agent):
            arrived[i] = state.t + 1
            events = (WorldEvent("gem", agent),)
        return StepResult(CorridorState(state.t + 1, tuple(cells), tuple(arrived)), events)

    def observe(self, state: CorridorState, agent: str) -> CorridorObservation:
        return CorridorObservation(state, agent, self.goals[agent])

    def done(self, state: CorridorState) -> bool:
        return state.t >= T_MAX or all(t is not None for t in state.arrived)

    def state_key(self, state: CorridorState) -> tuple:
        return (state.t, state.cells, state.arrived)

    def outcome(self, state: CorridorState) -> dict[str, Any]:
        arrived = dict(zip(self.agents, state.arrived))
        return {"success": all(t is not None for t in state.arrived), "arrived": arrived, "t_max": T_MAX,
                "ticks": state.t}

    def render_text(self, state: CorridorState) -> str:
        row = ["w"] + ["."] * (LENGTH - 2) + ["e"]
        for a, c in zip(self.agents, state.cells):
            row[c] = a[0]
        return f"tick {state.t}\n" + "".join(row)


def toward(cell: int, target: int) -> str:
    return "right" if target > cell else "left" if target < cell else "wait"


# ---------------------------------------------------------------- the default computer agent


class CorridorWalker(Agent):
    """Walks to its gem; a team seat too: predicts that each other agent keeps walking the way it
    last moved (level 1) or waits (level 0), the ``predictions`` the team mechanism reads."""

    kind = "corridor-walker"

    def __init__(self, k: int = 1, horizon: int = 2) -> None:
        self.k, self.horizon = int(k), int(horizon)

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self.world: CorridorWorld = ctx.world
        self.last: dict[str, str] = {}
        self.seen: CorridorState | None = None
        self.feedback: Feedback | None = None

    def receive_feedback(self, feedback: Feedback) -> None:
        self.feedback = feedback
        self.report(feedback.feedback_id, "accepted")

    def report(self, feedback_id: int, status: str) -> None:
        from sim.events import FeedbackStatusEvent

        self.ctx.emit(FeedbackStatusEvent(tick=self.ctx.tick, feedback_id=feedback_id, agent=self.ctx.agent_id,
                                          status=status))

    def act(self, observation: CorridorObservation, legal_actions: Sequence[str]) -> str:
        state = observation.state
        if self.seen is not None:
            for a, before, now in zip(self.world.agents, self.seen.cells, state.cells):
                if now != before:
                    self.last[a] = toward(before, now)
        self.seen = state
        cell = state.cells[self.world.agents.index(self.ctx.agent_id)]
        target = self.world.goal_cell(self.ctx.agent_id)
        if self.feedback is not None:
            if cell == self.feedback.payload["cell"]:
                self.report(self.feedback.feedback_id, "completed")
                self.feedback = None
            else:
                target = self.feedback.payload["cell"]
        move = toward(cell, target)
        return move if move in legal_actions else "wait"

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        about = {a: {"trajectory": [self.last.get(a, "wait") if self.k >= 1 else "wait"] * self.horizon}
                 for a in self.world.agents if a != self.ctx.agent_id}
        return [("predictions", {"about": about, "level": self.k})]


def feedback_progress(world: CorridorWorld, state: CorridorState, agent: str, payload: Mapping[str, Any]) -> str | None:
    """A human seat's accepted feedback is done when it stands on the cell it was sent to."""
    return "completed" if state.cells[world.agents.index(agent)] == payload["cell"] else None


# ---------------------------------------------------------------- ProToM


class CorridorAdapter(ProToMAdapter):
    """Goals: the two gems. The state is fully observed; an agent walks to its gem with
    probability 0.8 and otherwise picks another legal action. Feedback: go to a cell (an end of
    the corridor) first."""

    def goals(self, agent: str) -> tuple[str, ...]:
        return tuple(GEMS)

    def true_goals(self) -> dict[str, str]:
        return dict(self.world.goals)

    def sample_belief(self, state: CorridorState, agent: str, rng: np.random.Generator) -> CorridorState:
        return state

    def update_belief(self, belief: Any, before: Any, joint_action: Mapping[str, Any], after: Any,
                      agent: str) -> CorridorState:
        return after

    def _policy(self, state: CorridorState, agent: str, target: int) -> np.ndarray:
        legal = [a in self.world.legal_actions(state, agent) for a in ACTIONS] if agent in \
            self.world.active_agents(state) else [True] * len(ACTIONS)
        best = toward(state.cells[self.agents.index(agent)], target)
        p = np.array([(0.8 if a == best else 0.2) if ok else 0.0 for a, ok in zip(ACTIONS, legal)])
        return p / p.sum()

    def likelihoods(self, belief: CorridorState, agent: str, action: str, goals: Sequence[str]) -> np.ndarray:
        return np.array([self._policy(belief, agent, GEMS[g])[ACTIONS.index(action)] for g in goals])

    def candidates(self, state: CorridorState) -> list[Candidate]:
        return [Candidate(target=a, kind="goto", payload={"type": "goto", "agent": a, "cell": c},
                          label=f"({a}, at({c}))", effect=(a, c))
                for a in self.agents for c in GEMS.values() if state.cells[self.agents.index(a)] != c]

    def cost(self, state: CorridorState, goals: tuple[str, ...], candidate: Candidate | None) -> float:
        total = 0.0
        for a, g in zip(self.agents, goals):
            cell = state.cells[self.agents.index(a)]
            if candidate is not None and candidate.target == a:
                total += abs(cell - candidate.payload["cell"]) + abs(candidate.payload["cell"] - GEMS[g])
            else:
                total += abs(cell - GEMS[g])
        return total

    def policy(self, state: CorridorState, agent: str, goal: str | None = None,
               candidate: Candidate | None = None) -> np.ndarray:
        target = candidate.payload["cell"] if candidate is not None else GEMS[goal if goal else self.world.goals[agent]]
        return self._policy(state, agent, target)

    def feedback_text(self, state: CorridorState, candidate: Candidate) -> str:
        return f"{candidate.target}, please walk to cell {candidate.payload['cell']}"

    def message(self, state: CorridorState, candidate: Candidate, likely_goals: Mapping[str, str],
                posteriors: Mapping[str, Mapping[str, float]]) -> Message:
        others = ", ".join(f"{a} wants the {g} gem" for a, g in likely_goals.items() if a != candidate.target)
        return Message(dict(candidate.payload), self.feedback_text(state, candidate), f"because {others}")


# ---------------------------------------------------------------- the llm agent and facilitator


class CorridorLLM(LLMWorld):
    """The prompts of the corridor; the walker is the fallback."""

    fallback_name = "walker"
    no_feedback = "nothing"
    world: CorridorWorld

    def start(self, ctx: SeatContext, history: int) -> None:
        super().start(ctx, history)
        self.fallback = CorridorWalker(k=0)
        self.fallback.reset(ctx)

    def receive_feedback(self, feedback: Feedback) -> None:
        self.fallback.receive_feedback(feedback)

    def agent_messages(self, observation: CorridorObservation, legal_actions: Sequence[str],
                       k: int) -> list[dict[str, str]]:
        system = (f"A corridor of {LENGTH} cells has a west gem in cell 0 and an east gem in cell {LENGTH - 1}. "
                  f"You are {observation.agent}; you want the {observation.goal} gem.")
        user = (self.world.render_text(observation.state) + "\nYour legal actions: "
                + ", ".join(json.dumps(a) for a in legal_actions) + "\n" + tom_preamble(k) + "\n"
                + tom_template(k, "one of your legal actions"))
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def fallback_action(self, observation: CorridorObservation, legal_actions: Sequence[str]) -> str:
        return self.fallback.act(observation, legal_actions)

    def following_feedback(self) -> int | None:
        return self.fallback.feedback.feedback_id if self.fallback.feedback else None

    def facilitator_messages(self, state: CorridorState, candidates: Sequence[Candidate],
                             history: Sequence[tuple[int, str, Any]]) -> list[dict[str, str]]:
        past = "\n".join(f"- tick {t}: {a} {action}" for t, a, action in history) or "- none yet"
        options = "\n".join(f"- {c.label}" for c in candidates) + f"\n- {self.no_feedback}"
        return [{"role": "user", "content": f"Corridor facilitator.\n{past}\n{self.world.render_text(state)}\n"
                                            f"Options:\n{options}"}]

    def facilitator_schema(self, candidates: Sequence[Candidate]) -> dict[str, Any]:
        agents = list(self.world.agents)
        return {"type": "object", "properties": {
                    "inferred_goals": {"type": "object", "properties": {a: {"type": "string", "enum": list(GEMS)}
                                                                        for a in agents},
                                       "required": agents, "additionalProperties": False},
                    "answer": {"type": "string", "enum": [c.label for c in candidates] + [self.no_feedback]},
                    "explanation": {"type": "string", "maxLength": 120}},
                "required": ["inferred_goals", "answer", "explanation"], "additionalProperties": False}


# ---------------------------------------------------------------- team formation


def team_score(outcome: Mapping[str, Any], team: Sequence[str], timed: bool = True) -> float:
    """Each member's gem, by the tick it got there."""
    arrived = outcome.get("arrived")
    done = {a: t is not None for a, t in arrived.items()} if isinstance(arrived, Mapping) else None
    return personal_score(done, arrived, outcome.get("t_max"), team, timed)


TEAM_PLAY = TeamPlay(agent="corridor-walker:k=1", score=team_score)


# ---------------------------------------------------------------- the declaration


def _validate(data: dict[str, Any], source: str) -> dict[str, Any]:
    return {"world": FAMILY, "name": str(data.get("name", "corridor")),
            "starts": dict(data.get("starts", {"alice": 1, "bob": 5})),
            "goals": dict(data.get("goals", {"alice": "east", "bob": "west"}))}


PLUGIN = WorldPlugin(
    name=FAMILY, title="Corridor (a test world)", validate=_validate, build=CorridorWorld,
    rules_text="Two agents take turns to walk a corridor, each to the gem it wants.",
    default_agent="corridor-walker", default_mechanisms=("protom",),
    feedback_progress="tests.corridor_world:feedback_progress",
    methods={"protom": "tests.corridor_world:CorridorAdapter",
             "llm": "tests.corridor_world:CorridorLLM",
             "teams": "tests.corridor_world:TEAM_PLAY"})

WALKER_KIND = AgentKind("corridor-walker", (FAMILY,), "walks to its gem; predicts the others for teams",
                        CorridorWalker)


@contextmanager
def installed() -> Iterator[CorridorWorld]:
    """The world and its agent kind registered for the block (the corridor of a default scenario);
    both registries are as they were once it ends."""
    with registered(PLUGIN), kinds_registered(WALKER_KIND):
        yield CorridorWorld(_validate({}, "test"))
