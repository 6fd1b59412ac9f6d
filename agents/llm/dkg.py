"""The llm agent's and the llm facilitator's Doors, Keys and Gems (``DKGLLM``, the plug-in's
``methods["llm"]``), with k-level Theory-of-Mind prompts.

The agent's prompt describes the rules in text (after the environment description of ProToM's
Figure A7), the world (walls, doors, items) and the k-level JSON answer of ``agents.llm.tom``,
all the same for every seat and tick, then the recent actions (everyone's, inferred from what the
seat saw), the agent's own goal, any facilitator suggestion it is following, the positions and
holdings of this tick and its legal actions. The
answer's highest-level action is taken. When the model fails (no answer within the
retry and repair budgets) or names an action that is not legal, the optimal planner's
action is taken instead and an ``ErrorEvent`` (kind ``llm_fallback``) says why.

The facilitator's prompt is ProToM's Figure A7: the environment description and task, the
recent action history, the state as text (the paper shows an image; ToM Arena describes the same
state in words and as a character map) and the candidate feedback messages F_t, written as in
the paper: ``(bob, has(alice, key1))`` tells Bob to give key1 to Alice, ``(bob, unlocked(door1))``
tells Bob to unlock door1.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agents.dkg.agents import PlannerAgent
from agents.llm.tom import tom_preamble, tom_template
from agents.llm.world import LLMWorld
from sim.dkg.world import CONSUMED, DKGObservation, DKGState, DKGWorld
from sim.seats import Feedback, SeatContext
from sim.world import World

RULES = """Consider a multi-agent Doors, Keys, and Gems environment described as follows:

Entities:
- Agents: {agents}. Each agent is drawn on the map with its own character.
- Keys and gems are items. Doors, keys and gems are numbered (door1, key1, gem1, ...); the number is
just for referencing them in the text. Keys open doors of their same color, independently from the number.
- Walls cannot be entered.

Properties:
- Each agent occupies a cell. Agents can occupy the same cell.
- Each item (key or gem) occupies a cell unless it is carried or used.
- Each door occupies a cell and can be unlocked with a key of the same color.
- Agents act by taking turns.

Goals:
- Each agent wants to collect a specific gem among the ones available in the environment.

Agent actions (write them exactly as shown):
1. Move: "up", "down", "left" or "right", one cell at a time, unless a wall or a locked door is
in the way. "up" decreases the row number, "down" increases it, "left" decreases the column number,
"right" increases it.
2. Pick up an item: "pickup key1" when the agent stands on the cell of key1. The item goes to its inventory.
3. Unlock a door: "unlock door1" when the agent is next to door1 and holds a key of the door's color.
The key is used up.
4. Hand over: "handover key1 bob" gives a held item to bob when bob is on a neighbouring cell (not the same cell).
5. Wait: "wait" passes the turn.

Turn order: only one agent is active at a time; after an action, the next agent becomes active.
The episode ends when every agent holds its gem, or after {t_max} ticks."""


def _legend_name(entry: dict[str, Any]) -> str:
    kind = entry["kind"]
    if kind in ("wall", "floor"):
        return kind
    if kind == "agent":
        return f"agent {entry['agent']}"
    return f"{entry['color']} {kind}"


def describe_state(world: DKGWorld, state: DKGState, viewer: str | None = None) -> str:
    """The state in words and as a character map. Goals are private: only ``viewer``'s is shown."""
    grid = world.render_text(state).splitlines()[1:1 + world.height]
    legend = world.spec()["legend"]
    present = {ch for row in grid for ch in row}
    turn = "the episode is over" if world.done(state) else f"it is {world.agents[state.turn]}'s turn"
    lines = [f"Tick {state.t} of {world.t_max}; {turn}.",
             "Map (row numbers on the left; column 0 is the first character of a row):"]
    lines += [f"{r:>2} {row}" for r, row in enumerate(grid)]
    lines.append("Legend: " + ", ".join(f"{ch} = {_legend_name(legend[ch])}"
                                        for ch in legend if ch in present))
    for a, agent in enumerate(world.agents):
        r, c = world.rc(state.agent_cells[a])
        held = ", ".join(f"{world.items[i].id} ({world.items[i].color} {world.items[i].kind})"
                         for i in world.held_by(state, agent)) or "nothing"
        line = f"- {agent}: at row {r}, column {c}; holds {held}"
        if agent == viewer and world.goal_of(agent) is None:
            line += "; has no gem of its own (a helper)"
        elif agent == viewer:
            goal = world.items[world.item_index[world.goals[agent]]]
            line += f"; wants {goal.id} ({goal.color} gem){' and has it' if world.holds_goal(state, a) else ''}"
        lines.append(line)
    for i, item in enumerate(world.items):
        loc = state.item_locs[i]
        if loc == CONSUMED:
            where = "used on a door"
        elif loc < 0:
            where = f"held by {world.agents[-1 - loc]}"
        else:
            r, c = world.rc(loc)
            where = f"at row {r}, column {c}"
        lines.append(f"- {item.id} ({item.color} {item.kind}): {where}")
    for d, door in enumerate(world.doors):
        r, c = world.rc(door.cell)
        status = "open" if state.open_doors >> d & 1 else "locked"
        lines.append(f"- {door.id} ({door.color} door): at row {r}, column {c}, {status}")
    return "\n".join(lines)


def describe_world(world: DKGWorld) -> str:
    """What does not change in an episode, for every seat alike: the map of walls, floor, plates
    and doors (agents and items move: their positions are given each tick), the items and doors."""
    legend = world.spec()["legend"]
    wall = next((ch for ch, e in legend.items() if e["kind"] == "wall"), "#")
    floor = next((ch for ch, e in legend.items() if e["kind"] == "floor"), ".")
    chars = [wall if w else floor for w in world.walls]
    for cell, ch in world.plate_chars.items():
        chars[cell] = ch
    for door in world.doors:
        chars[door.cell] = door.char
    grid = ["".join(chars[r * world.width:(r + 1) * world.width]) for r in range(world.height)]
    present = set("".join(grid))
    names = {door.char: f"{door.id} ({door.color} door)" for door in world.doors}
    lines = ["The world. Map of walls and doors (row numbers on the left; column 0 is the first "
             "character of a row; agents and items are not drawn, their positions are given each tick):"]
    lines += [f"{r:>2} {row}" for r, row in enumerate(grid)]
    lines.append("Legend: " + ", ".join(f"{ch} = {names.get(ch) or _legend_name(legend[ch])}"
                                        for ch in legend if ch in present))
    lines.append("Items: " + ", ".join(f"{it.id} ({it.color} {it.kind})" for it in world.items) + ".")
    lines.append("Positions are written (row, column).")
    return "\n".join(lines)


def compact_state(world: DKGWorld, state: DKGState) -> str:
    """One tick's state in few words: where each agent is and what it holds, where each item is,
    which doors are open. The map and the items' colours are in ``describe_world``."""
    lines = [f"Tick {state.t} of {world.t_max}."]
    for a, agent in enumerate(world.agents):
        r, c = world.rc(state.agent_cells[a])
        held = ", ".join(world.items[i].id for i in world.held_by(state, agent)) or "nothing"
        lines.append(f"{agent} at ({r}, {c}), holds {held}.")
    where = []
    for i, item in enumerate(world.items):
        loc = state.item_locs[i]
        if loc == CONSUMED:
            where.append(f"{item.id} used")
        elif loc < 0:
            where.append(f"{item.id} held by {world.agents[-1 - loc]}")
        else:
            r, c = world.rc(loc)
            where.append(f"{item.id} at ({r}, {c})")
    where += [f"{door.id} {'open' if state.open_doors >> d & 1 else 'locked'}" for d, door in enumerate(world.doors)]
    lines.append(", ".join(where) + ".")
    return "\n".join(lines)


def history_window(history: list[tuple[int, str, Any]], tick: int, length: int) -> list[tuple[int, str, Any]]:
    """The actions of at most the last ``length`` ticks before ``tick``; the window's start moves
    in steps of ``length // 2`` ticks (so between ``length // 2 + 1`` and ``length`` actions are
    kept once the episode is that long), and between two steps every seat's list only grows: one
    decision's list is the start of the next one's, which a server does not evaluate again."""
    if length <= 0:
        return []
    step = max(1, length // 2)
    start = -(-(tick - length) // step) * step  # the first multiple of step >= tick - length
    return [entry for entry in history if entry[0] >= start]


def infer_actions(world: World, before: Any, after: Any, limit: int = 20_000) -> list[tuple[int, str, Any]]:
    """The (tick, agent, action) steps that lead from ``before`` to ``after``, found by search over
    legal actions (what an agent can tell from two observations); [] when none is found."""
    steps = world.tick_of(after) - world.tick_of(before)
    if steps <= 0:
        return []
    target = world.state_key(after)
    budget = [limit]

    def search(state: Any, depth: int) -> list[tuple[int, str, Any]] | None:
        if depth == steps:
            return [] if world.state_key(state) == target else None
        active = world.active_agents(state)
        if len(active) != 1:
            return None  # simultaneous moves: joint search is not needed by turn-based worlds
        agent = active[0]
        for action in world.legal_actions(state, agent):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            rest = search(world.step(state, {agent: action}).state, depth + 1)
            if rest is not None:
                return [(world.tick_of(state), agent, action)] + rest
        return None

    return search(before, 0) or []


NO_FEEDBACK = "No feedback"  # Figure A7's answer when no feedback helps

PROMPT = """Consider a multi-agent Doors, Keys, and Gems environment described as follows:

Entities:
- Agents: {agents}. Each agent is drawn on the map with its own character; their inventories are listed below the map.
- Keys and gems are items. Doors and keys are numbered. The number is just for referencing the keys in the text.
Keys open doors of their same color, independently from the number.
- Walls cannot be entered.

Properties:
- Each agent occupies a cell. Agents can occupy the same cell.
- Each item (key or gem) occupies a cell unless it is carried or off-grid.
- Each door occupies a cell and can be unlocked with a key of the same color.
- Each key and door has a color; keys can unlock doors of matching color.
- Agents act by taking turns.

Goals:
- Each agent wants to collect a specific gem among the ones available in the environment.

Observability:
Agents know:
- The entire grid layout (walls, doors, items, agents).
- The locked/unlocked state of doors.
- The location of agents and items.
- Their own possession of items.
- Which agent's turn it is.

Agent Actions:
1. Move
- Agents can move up, down, left, or right, one cell at a time, if:
- There is no wall in that direction.
- There is no locked door blocking the move.
2. Pickup an item
- If an agent is on the same cell as an item, they can pick it up.
- Picking up an item removes it from the grid and adds it to the agent's inventory.
3. Unlock a door
- If an agent is adjacent to a locked door and has a key with the same color as the door, they can unlock it.
- The key is consumed in the process.
4. Handover
- If two agents are adjacent, one can give an item they hold to the other.
5. Wait
- The agent can simply pass their turn.

Turn order:
- Only one agent is active at a time.
- After an action, the next agent becomes active.

Your Task as a Social Facilitator

At each timestep, your task is to decide whether to give feedback to either agent, and what that feedback should be, in order to promote **prosocial behavior**.

A prosocial agent:
- Helps the other agent if doing so makes it possible or more efficient to achieve their goals.
- Takes action that indicate awareness of the other's goal.

Step-by-Step Instructions

1. **Review the History**
You will be given a few recent timesteps, including agent actions.

2. **Infer the Agents' Goals**
From item movements and paths, infer which gem each agent is targeting.

3. **Evaluate if it is possible to promote prosocial behaviour**
Given the action history, the current state and the inferred goal for each agent and a set of possible feedbacks, is any of the feedbacks useful for promoting prosocial behaviour? If not, just answer "No feedback".

4. **Decide Feedback**
If you think that it is useful to provide a feedback given the action history and current state, then choose one feedback that (1) enables both agents to achieve their goals and/or (2) increases overall efficiency.
Typical examples of prosocial agents are agent that take actions to unlock doors that block other agents, or that handover keys to agent that would need many turns to get by themselves.
Avoid giving feedback just because an action isn't optimal; only intervene when it **clearly improves** overall efficiency or agent success. If this is not the case, just choose "No feedback".

Recent Action History
{history}

Current state
{state}

Based on the instructions provided above, choose which feedback to give from the possible options:
{options}

The first element of the tuple is the target of the feedback, while the second is the feedback itself.
For example "{example}" means "{example_meaning}".

Respond with a JSON object: "inferred_goals" maps each agent to the gem you think it wants, "answer" is one of the options above exactly as written or "No feedback", and "explanation" says in one short sentence, from the inferred goals, why the feedback helps (empty for "No feedback")."""


class DKGLLM(LLMWorld):
    """The llm agent's and facilitator's Doors, Keys and Gems (``methods["llm"]`` of the plug-in):
    the rules in text, the state as a character map, the history inferred from what the seat saw,
    the optimal planner as fallback (it also carries out and reports feedback); Figure A7 for the
    facilitator."""

    fallback_name = "planner"
    no_feedback = NO_FEEDBACK
    world: DKGWorld

    def start(self, ctx: SeatContext, history: int) -> None:
        super().start(ctx, history)
        self.fallback = PlannerAgent(compliance=1.0, show_plan=False)
        self.fallback.reset(ctx)
        self.history: list[tuple[int, str, Any]] = []
        self._last_state: DKGState | None = None

    def receive_feedback(self, feedback: Feedback) -> None:
        self.fallback.receive_feedback(feedback)  # reports accepted; tracks the task for the prompt

    def tick(self, observation: DKGObservation) -> int:
        return observation.state.t

    def prepare(self, observation: DKGObservation, legal_actions: Sequence[str]) -> None:
        state = observation.state
        if self._last_state is None and state.t > 0:
            # the episode starts from the scenario's fixed layout: a seat that moves second still
            # knows what was done before its first turn (and its history matches the others')
            self._last_state = self.world.reset(self.ctx.seed)
        if self._last_state is not None:
            self.history += infer_actions(self.world, self._last_state, state)
        self.history = history_window(self.history, state.t, self.history_length)
        self._last_state = state
        self.fallback.current_task(state)  # reports a finished or impossible feedback task

    def agent_messages(self, observation: DKGObservation, legal_actions: Sequence[str], k: int) -> list[dict[str, str]]:
        """What is the same for every seat and tick of the episode first: the rules, the world
        (walls, doors, items) and the k-level answer format (a server evaluates this prefix once);
        then the recent actions, the same list for every seat, growing by the actions since the
        previous decision (a server evaluates only those); then the seat, its goal, a facilitator
        suggestion, the positions and holdings of this tick and the legal actions."""
        world, me = self.world, self.ctx.agent_id
        system = (RULES.format(agents=", ".join(world.agents), t_max=world.t_max) + "\n\n"
                  + describe_world(world) + "\n\n"
                  + tom_preamble(k) + "\n" + tom_template(k, "one of your legal actions"))
        if self.history:
            parts = ["Recent actions (oldest first):\n" + "\n".join(
                f"- tick {t}, {agent}: {action}" for t, agent, action in self.history)]
        else:
            parts = ["Recent actions: none yet."]
        if observation.goal is None:
            parts.append(f"You are {me}. You want no gem yourself: help the others get theirs.")
        else:
            goal = world.items[world.item_index[observation.goal]]
            parts.append(f"You are {me}. Your goal is to collect {goal.id} (the {goal.color} gem).")
        feedback = self.fallback.feedback
        if feedback is not None:
            parts.append(f"A facilitator suggested to you: {feedback.text}"
                         + (f" (why: {feedback.explanation})" if feedback.explanation else ""))
        parts.append(compact_state(world, observation.state))
        parts.append("Your legal actions now: " + ", ".join(json.dumps(a) for a in legal_actions))
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def fallback_action(self, observation: DKGObservation, legal_actions: Sequence[str]) -> str:
        return self.fallback.act(observation, legal_actions)

    def following_feedback(self) -> int | None:
        return self.fallback.feedback.feedback_id if self.fallback.feedback else None

    def facilitator_messages(self, state: DKGState, candidates: Sequence[Any],
                             history: Sequence[tuple[int, str, Any]]) -> list[dict[str, str]]:
        world = self.world
        past = "\n".join(f"- tick {t}: {agent} {action}" for t, agent, action in history) or "- none yet"
        options = "\n".join(f"- {c.label}" for c in candidates) + f"\n- {NO_FEEDBACK}"
        a, b = world.agents[1], world.agents[0]
        key = next((it.id for it in world.items if it.kind == "key"), "key1")
        prompt = PROMPT.format(agents=", ".join(world.agents), history=past,
                               state=describe_state(world, state, viewer=None), options=options,
                               example=f"({a}, has({b}, {key}))",
                               example_meaning=f"tell {a.capitalize()} to give {key} to {b.capitalize()}")
        return [{"role": "user", "content": prompt}]

    def facilitator_schema(self, candidates: Sequence[Any]) -> dict[str, Any]:
        world = self.world
        gems = list(world.gem_ids)
        return {"type": "object", "properties": {
                    "inferred_goals": {"type": "object",
                                       "properties": {a: {"type": "string", "enum": gems} for a in world.agents},
                                       "required": list(world.agents), "additionalProperties": False},
                    "answer": {"type": "string", "enum": [c.label for c in candidates] + [NO_FEEDBACK]},
                    "explanation": {"type": "string", "maxLength": 200}},
                "required": ["inferred_goals", "answer", "explanation"], "additionalProperties": False}
