"""The LLM pieces of the kitchen (``KitchenLLM``, the plug-in's ``methods["llm"]``): the prompts
of ProToM's LLM facilitator baseline (Figure A8, seed 003) and of the llm agent in the kitchen.

Facilitator: after each step (unless an agent still carries out a feedback) the model gets the
Figure A8 text (entities, properties, goals, observability, actions, the facilitator's task and
step-by-step instructions), the recent action history, the state as text (the paper shows an
image; here the same state is written as a character map and a list of agents and objects) and
the candidate feedback F_t, written as in the paper: "Bob passes the FreshOnion in (3, 4) to
Alice", "Bob picks up the FreshTomato in (1, 5)". F_t is built by ProToM's kitchen adapter, the
set every facilitator gets. The model answers with its inferred dishes, one option or "None",
and a short explanation, which goes with the feedback.

Agent: the same world text in the first person, the cook's own dish, what it sees (fog of war:
stations out of view shown as '?'), the feedback it follows, its legal actions, then the k-level
Theory-of-Mind answer of ``agents.llm.tom``. When the model fails or proposes an action that is not
legal, the noise-free simulated human (``kitchen-heuristic`` with epsilon 0) acts instead and an
``ErrorEvent`` (kind ``llm_fallback``) says why; that simulated human also carries out and reports
feedback, so feedback statuses are the same as for the simulated cooks.

The generic ``llm`` agent (``agents.llm.agent.LLMAgent``) and facilitator
(``agents.llm.facilitator.LLMFacilitator``) play the kitchen through it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agents.kitchen.heuristic import KitchenHeuristicAgent
from agents.llm.tom import tom_preamble, tom_template
from agents.llm.world import LLMWorld
from sim.kitchen.level import RECIPES
from sim.kitchen.world import (
    DELIVERY,
    ITEM_NAMES,
    NOTHING,
    STATION_KIND_NAMES,
    KitchenObservation,
    KitchenState,
    KitchenWorld,
)
from sim.seats import Feedback, SeatContext

NO_FEEDBACK = "None"  # Figure A8's answer when no feedback helps

ENVIRONMENT = """# Entities
- Agents: {agents}.
- Ingredients: Tomato, Lettuce, and Onion. Ingredients start as fresh (FreshTomato, FreshLettuce, FreshOnion). They can be picked up, put down, and chopped on a cutting board (obtaining ChoppedTomato, ChoppedLettuce, ChoppedOnion).
- Plates: A kind of objects that can be picked up, put down, and be merged with any kinds of ingredients to get a dish.
- Floors: Cells where agents can move freely. Agents can be on the same floor cell at the same time.
- Counters: Cells where agents can place objects but cannot move onto. Objects can only be picked up from or placed onto counters if the agent is adjacent to the counter.
- Cutting boards: Special counter cells where agents can chop ingredients. Raw ingredients need to be chopped to be merged with plate and delivered.
- Delivery stations: Special counter cells where agents can place the dish for delivery. After {all_agents} finish to deliver their recipe, the task is done.
- Doors: Doors allow agents to move between separate rooms. Counters, cutting boards, delivery spots, and doors can block the agents' vision, so that the agents may only observe objects in the room they locate in.

# Environment representation
The state is given as text: a character map with row numbers on the left (column 0 is the first character of a row) and a list of the agents and objects. Positions are written (row, column). On the map:
- '.' floor, 'D' door, '#' wall, '-' counter, '/' cutting board, '*' delivery station;
- an object on a counter or board: 't' FreshTomato, 'T' ChoppedTomato, 'l' FreshLettuce, 'L' ChoppedLettuce, 'o' FreshOnion, 'O' ChoppedOnion, 'p' Plate, '3' ChoppedTomato-Plate, '6' ChoppedLettuce-Plate, '9' ChoppedOnion-Plate;
- agents are digits: {digits}{unseen}

# Properties
- Each agent and object occupies a cell.
- Agents act at the same time. At each time step, each agent takes one action.
- Each agent can hold at most one object.

# Goals
- Each agent has a goal dish they need to make and deliver. There are 3 different kinds of dishes: SimpleTomato, SimpleLettuce, and SimpleOnion.
- Each dish has a recipe:
  SimpleTomato: pickup FreshTomato, chop FreshTomato to obtain ChoppedTomato, merge ChoppedTomato and Plate, deliver ChoppedTomato-Plate
  SimpleLettuce: pickup FreshLettuce, chop FreshLettuce to obtain ChoppedLettuce, merge ChoppedLettuce and Plate, deliver ChoppedLettuce-Plate
  SimpleOnion: pickup FreshOnion, chop FreshOnion to obtain ChoppedOnion, merge ChoppedOnion and Plate, deliver ChoppedOnion-Plate
- Agents can have the same goal dish. In such cases, they must deliver two dishes separately.

# Observability:
- The environment is partially observable.
- Agents know the layout of the environment, but counters, cutting boards, delivery spots, and doors can block the agents' vision. These features divide the layout into different rooms, and agents can only see objects and other agents in the same room as themselves.

# Agent Actions
- Possible actions are: move up, down, left, or right, one cell at a time - or wait without moving. In special cases agents can also pick up or put down objects or ingredients, chopping ingredients, and merging chopped ingredients with plates (see below).
- An agent can move only if there is a floor or door in that direction. Agents cannot move on a counter.
- If an agent is holding something, you will see that as text info.
- If an agent is adjacent to a counter with an object on it, and the agent is not holding anything, they can pick the object up.
- If an agent is adjacent to an empty counter, and the agent is holding an object, they can put the object down on the counter.
- If an agent is holding a chopped ingredient and is adjacent to a counter with a plate on it, they can pick it up and merge it with the chopped ingredient they're holding.
- If an agent is holding a plate and is adjacent to a counter with a chopped ingredient on it, they can pick it up and merge it with the plate they're holding.
- If an agent is holding a raw ingredient and they are adjacent to a cutting board, they can chop the ingredient and end up holding the chopped ingredient in their hands.
- If an agent is holding a dish ready for delivery and they are adjacent to a delivery spot, they can place the dish on the spot to complete their task."""

FACILITATOR_TASK = """---

# Your Task as a Social Facilitator
At each timestep, your task is to decide whether to give feedback to either agent, and what that feedback should be, in order to promote **prosocial behavior**.
A prosocial agent:
- Helps the other agent if doing so makes it possible or more efficient to achieve their goals.
- Takes action that indicate awareness of the other's goal.

# Step-by-Step Instructions
1. **Review the History**
You will be given a few recent timesteps, including agent actions.

2. **Infer the Agents' Goals**
Based on the observed agent behaviour, infer which dish each agent is preparing.

3. **Evaluate if it is possible to promote prosocial behaviour**
Given the action history, the current state and the inferred goal for each agent and a set of possible feedbacks, is any of the feedbacks useful for promoting prosocial behaviour? If not, just answer "None".

4. **Decide Feedback**
If you think that it is useful to provide a feedback given the action history and current state, then choose one feedback that (1) enables both agents to achieve their goals and/or (2) increases overall efficiency.
Typical examples of prosocial agents include those that pass ingredients to others or take longer routes to obtain ingredients, allowing their teammates to access the closer ones.
Avoid giving feedback just because an action isn't optimal; only intervene when it **clearly improves** overall efficiency or agent success. If this is not the case, just choose "None".

## Recent action history
{history}

## Current state
{state}

## Feedback
Given the instructions above, choose which feedback to give from the possible options:
{options}

Respond with a JSON object: "inferred_goals" maps each agent to the dish you think it prepares, "answer" is one of the options above exactly as written or "None" (for example "{example}"), and "explanation" gives, in 1-2 sentences, why you chose this feedback, given the inferred goals (empty for "None")."""


def _title(agent: str) -> str:
    return agent[:1].upper() + agent[1:]


def describe_state(world: KitchenWorld, state: KitchenState) -> str:
    """The whole state in words and as a character map (goals are private and left out)."""
    lines = world.render_text(state).splitlines()
    grid = lines[:world.height]
    out = [f"Tick {state.t} of {world.t_max}.",
           "Map (row numbers on the left; column 0 is the first character of a row):"]
    out += [f"{r:>2} {row}" for r, row in enumerate(grid)]
    for i, agent in enumerate(world.agents):
        r, c = world.rc(state.positions[i])
        status = "has delivered its dish" if state.delivered[i] >= 0 else "has not delivered yet"
        out.append(f"- {_title(agent)} (digit {i + 1}): at ({r}, {c}); holds {ITEM_NAMES[state.held[i]]}; {status}")
    objects = [f"{ITEM_NAMES[item]} on the {STATION_KIND_NAMES[world.station_kind[s]]} at {world.rc(world.station_cells[s])}"
               for s, item in enumerate(state.contents) if item != NOTHING]
    out.append("- Objects: " + ("; ".join(objects) if objects else "none"))
    return "\n".join(out)


def describe_observation(world: KitchenWorld, obs: KitchenObservation) -> str:
    """What one cook sees: the map with '?' on stations out of view, the agents in view."""
    rows = [list(row) for row in world.grid]
    base = {"-": "-", "/": "/", "*": "*", "t": "-", "l": "-", "o": "-", "p": "-", "T": "-", "L": "-", "O": "-"}
    chars = ("", "t", "T", "3", "l", "L", "6", "o", "O", "9", "p")
    seen = dict(obs.stations)
    for s, cell in enumerate(world.station_cells):
        r, c = world.rc(cell)
        ch = world.grid[r][c]
        if s in seen:
            rows[r][c] = chars[seen[s]] if seen[s] else base[ch]
        else:
            rows[r][c] = "*" if world.station_kind[s] == DELIVERY else "?"
    for j, cell, _ in obs.agents:
        r, c = world.rc(cell)
        rows[r][c] = str(j + 1)
    out = [f"Tick {obs.t} of {world.t_max}. What you see ('?': a counter or board out of your view):"]
    out += [f"{r:>2} {''.join(row)}" for r, row in enumerate(rows)]
    for j, cell, held in obs.agents:
        who = "you" if j == obs.index else _title(world.agents[j])
        out.append(f"- {who} (digit {j + 1}): at {world.rc(cell)}; holds {ITEM_NAMES[held]}")
    objects = [f"{ITEM_NAMES[item]} at {world.rc(world.station_cells[s])}" for s, item in obs.stations if item != NOTHING]
    out.append("- Objects in view: " + ("; ".join(objects) if objects else "none"))
    return "\n".join(out)


def _environment(world: KitchenWorld, unseen: bool) -> str:
    names = ", ".join(_title(a) for a in world.agents)
    digits = ", ".join(f"{i + 1} {_title(a)}" for i, a in enumerate(world.agents))
    return ENVIRONMENT.format(agents=names, all_agents="both agents" if world.n_agents == 2 else "all agents",
                              digits=digits, unseen="; '?' a station out of view." if unseen else ".")


ACTION_WORDS = {"up": "move up (row - 1)", "down": "move down (row + 1)", "left": "move left (column - 1)",
                "right": "move right (column + 1)", "stay": "wait"}


class KitchenLLM(LLMWorld):
    """The llm agent's and facilitator's kitchen (``methods["llm"]`` of the plug-in): the Figure
    A8 world text, for the agent in the first person with its fog-of-war view and the noise-free
    simulated human as fallback (which also carries out feedback and reports its status)."""

    fallback_name = "simulated cook"
    no_feedback = NO_FEEDBACK
    world: KitchenWorld

    def __init__(self, world: KitchenWorld) -> None:
        if getattr(world, "orders", ()):
            raise ValueError("llm: the level's orders are shared by all cooks (gym-cooking's rules); the kitchen's "
                             "LLM prompts (Figure A8) give each cook its own goal dish; use kitchen-heuristic there")
        super().__init__(world)

    def start(self, ctx: SeatContext, history: int) -> None:
        super().start(ctx, history)
        self.cook = KitchenHeuristicAgent(epsilon=0.0, show_plan=False)
        self.cook.reset(ctx)
        self.history: list[tuple[int, str, str]] = []
        self._fallback_action: str | None = None
        self._last_seen: dict[str, tuple[tuple[int, int], int]] = {}

    def receive_feedback(self, feedback: Feedback) -> None:
        self.cook.receive_feedback(feedback)

    def prepare(self, observation: KitchenObservation, legal_actions: Sequence[str]) -> None:
        # The simulated human follows every tick: it keeps its beliefs and any feedback task up
        # to date (reporting completed / not_executable) and gives the fallback action.
        self._fallback_action = self.cook.act(observation, legal_actions)
        world = self.world
        for j, cell, held in observation.agents:
            if j == observation.index:
                continue
            name = world.agents[j]
            before = self._last_seen.get(name)
            now = (world.rc(cell), held)
            if before is not None and before != now and observation.t > 0:
                self.history.append((observation.t, name, f"moved from {before[0]} to {now[0]} holding {ITEM_NAMES[held]}"))
            self._last_seen[name] = now
        self.history = self.history[-self.history_length:] if self.history_length else []

    def agent_messages(self, observation: KitchenObservation, legal_actions: Sequence[str],
                       k: int) -> list[dict[str, str]]:
        world, me = self.world, self.ctx.agent_id
        system = ("Consider a multi-agent 2d grid Overcooked environment described as follows.\n\n"
                  + _environment(world, unseen=True)
                  + f"\n\nYou are {_title(me)} (digit {world.agent_index[me] + 1}). Your goal dish is {observation.goal}."
                  + (" You have delivered it already." if observation.delivered else "")
                  + f" The episode ends when every agent has delivered, or after {world.t_max} ticks.")
        parts = []
        if self.history:
            parts.append("What you saw the others do (oldest first):\n" + "\n".join(
                f"- tick {t}, {_title(agent)}: {what}" for t, agent, what in self.history))
        task = self.cook.task
        if task is not None:
            fb = task.feedback
            parts.append(f"A facilitator suggested to you: {fb.text}" + (f" (why: {fb.explanation})" if fb.explanation else ""))
        parts.append(describe_observation(world, observation))
        parts.append("Your legal actions now: " + ", ".join(f"{json.dumps(a)} ({ACTION_WORDS[a]})" for a in legal_actions)
                     + ". Moving into a counter, board or delivery station works it (pick up, put down, chop, merge, deliver).")
        parts.append(tom_preamble(k) + "\n" + tom_template(k, "one of your legal actions"))
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def fallback_action(self, observation: KitchenObservation, legal_actions: Sequence[str]) -> str:
        return self._fallback_action or "stay"

    def following_feedback(self) -> int | None:
        task = self.cook.task
        return task.feedback.feedback_id if task is not None else None

    def facilitator_messages(self, state: KitchenState, candidates: Sequence[Any],
                             history: Sequence[tuple[int, str, Any]]) -> list[dict[str, str]]:
        world = self.world
        past = "\n".join(f"- tick {t}: {_title(agent)} {action}" for t, agent, action in history) or "- none yet"
        options = "\n".join(f"- {c.label}" for c in candidates) + f"\n- {NO_FEEDBACK}"
        prompt = ("Consider a multi-agent 2d grid Overcooked environment described as follows.\n\n"
                  + _environment(world, unseen=False) + "\n\n"
                  + FACILITATOR_TASK.format(history=past, state=describe_state(world, state), options=options,
                                            example=candidates[0].label if candidates else NO_FEEDBACK))
        return [{"role": "user", "content": prompt}]

    def facilitator_schema(self, candidates: Sequence[Any]) -> dict[str, Any]:
        agents = list(self.world.agents)
        return {"type": "object", "properties": {
                    "inferred_goals": {"type": "object",
                                       "properties": {a: {"type": "string", "enum": list(RECIPES)} for a in agents},
                                       "required": agents, "additionalProperties": False},
                    "answer": {"type": "string", "enum": [c.label for c in candidates] + [NO_FEEDBACK]},
                    "explanation": {"type": "string", "maxLength": 240}},
                "required": ["inferred_goals", "answer", "explanation"], "additionalProperties": False}
