"""LLM agents for Doors, Keys and Gems, with k-level Theory-of-Mind prompts.

The prompt describes the rules in text (after the environment description of ProToM's
Figure A7), the agent's own goal, its recent history (its own and the others' actions,
inferred from what it saw), any facilitator suggestion it is following, the state and
its legal actions, then asks for the k-level JSON answer of ``agents.llm.tom``. The
answer's highest-level action is taken. When the model fails (no answer within the
retry and repair budgets) or names an action that is not legal, the optimal planner's
action is taken instead and an ``ErrorEvent`` (kind ``llm_fallback``) says why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agents.dkg.agents import PlannerAgent
from agents.llm.agent import SETTING_PARAMS, Decision, LLMSeat, settings_from_params
from agents.llm.client import LLMClient
from agents.llm.server import require_runnable
from agents.llm.tom import check_k, final_action, level_names, tom_preamble, tom_schema, tom_template
from sim.dkg.world import CONSUMED, DKGObservation, DKGState, DKGWorld
from sim.events import ErrorEvent
from sim.seats import Feedback, SeatContext
from sim.world import World

MODULE = "planning"

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


class LLMDKGAgent(LLMSeat):
    """A k-level ToM LLM agent for mDKG (k = 0, 1, 2) with the planner as fallback."""

    kind = "llm"

    def __init__(self, k: int = 1, history: int = 10, asynchronous: bool = False, *,
                 client: LLMClient | None = None, config: str | None = None, **settings: Any) -> None:
        unknown = sorted(set(settings) - set(SETTING_PARAMS))
        if unknown:
            raise TypeError(f"unknown parameter(s) {', '.join(unknown)}; an llm agent takes k, history, "
                            f"asynchronous, config and {', '.join(SETTING_PARAMS)}")
        self.k = check_k(k)
        if not isinstance(history, int) or history < 0:
            raise ValueError(f"history must be a whole number of past actions >= 0, got {history!r}")
        self.history_length = history
        if client is None:
            client = LLMClient(settings_from_params(settings, config))
        super().__init__(client=client, asynchronous=asynchronous)
        self.fallback = PlannerAgent(compliance=1.0, show_plan=False)
        self.history: list[tuple[int, str, Any]] = []
        self._last_state: DKGState | None = None

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, DKGWorld):
            raise TypeError(f"this llm agent plays Doors, Keys and Gems, not {ctx.world.family}")
        self.world: DKGWorld = ctx.world
        self.fallback.reset(ctx)
        self.history = []
        self._last_state = None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k, "history": self.history_length,
                "asynchronous": self.asynchronous, "llm": self.client.describe()}

    # ------------------------------------------------------------ feedback

    def receive_feedback(self, feedback: Feedback) -> None:
        self.fallback.receive_feedback(feedback)  # reports accepted; tracks the task for the prompt

    # ------------------------------------------------------------ deciding

    def prepare(self, observation: DKGObservation, legal_actions: Sequence[str]) -> None:
        state = observation.state
        if self._last_state is not None:
            self.history += infer_actions(self.world, self._last_state, state)
            self.history = self.history[-self.history_length:] if self.history_length else []
        self._last_state = state
        self.fallback.current_task(state)  # reports a finished or impossible feedback task

    def messages(self, observation: DKGObservation, legal_actions: Sequence[str]) -> list[dict[str, str]]:
        world, me = self.world, self.ctx.agent_id
        system = RULES.format(agents=", ".join(world.agents), t_max=world.t_max)
        if observation.goal is None:
            system += f"\n\nYou are {me}. You want no gem yourself: help the others get theirs."
        else:
            goal = world.items[world.item_index[observation.goal]]
            system += f"\n\nYou are {me}. Your goal is to collect {goal.id} (the {goal.color} gem)."
        parts = []
        if self.history:
            parts.append("Recent actions (oldest first):\n" + "\n".join(
                f"- tick {t}, {agent}: {action}" for t, agent, action in self.history))
        else:
            parts.append("Recent actions: none yet.")
        feedback = self.fallback.feedback
        if feedback is not None:
            parts.append(f"A facilitator suggested to you: {feedback.text}"
                         + (f" (why: {feedback.explanation})" if feedback.explanation else ""))
        parts.append("Current state:\n" + describe_state(world, observation.state, viewer=me))
        parts.append("Your legal actions now: " + ", ".join(json.dumps(a) for a in legal_actions))
        parts.append(tom_preamble(self.k) + "\n" + tom_template(self.k, "one of your legal actions"))
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def decide(self, observation: DKGObservation, legal_actions: Sequence[str]) -> Decision:
        tick, me = observation.state.t, self.ctx.agent_id
        outcome = self.client.ask_json(self.messages(observation, legal_actions), tom_schema(self.k, legal_actions),
                                       agent=me, module=MODULE, tick=tick, schema_name=f"tom_level{self.k}",
                                       seed=self.ctx.seed + tick)
        events = list(outcome.events)
        levels = outcome.value
        proposed = final_action(levels, self.k) if levels is not None else None
        if proposed in legal_actions:
            action, source = proposed, "model"
        else:
            action, source = self.fallback.act(observation, legal_actions), "fallback"
            why = (f"the model proposed {proposed!r}, which is not legal here" if levels is not None
                   else f"the model gave no usable answer ({outcome.failure})")
            events.append(ErrorEvent(tick=tick, source=me, kind="llm_fallback",
                                     message=f"{why}; took the planner's action {action!r}"))
        snapshot = ("tom", {"k": self.k, "levels": levels, "level_names": level_names(self.k),
                            "action": action, "source": source, "calls": outcome.attempts,
                            "following_feedback": self.fallback.feedback.feedback_id
                            if self.fallback.feedback else None})
        return Decision(action=action, events=events, snapshot=snapshot)


def make_llm_agent(k: int = 1, history: int = 10, asynchronous: bool = False, config: str | None = None,
                   **settings: Any) -> LLMDKGAgent:
    """Factory for agent specs such as ``llm:k=2,model=llama3.1,base_url=http://127.0.0.1:11434/v1``.

    Fails early, with the fix, when no endpoint is configured and the embedded model is missing.
    """
    client = settings.pop("client", None)
    agent = LLMDKGAgent(k=k, history=history, asynchronous=asynchronous, client=client, config=config, **settings)
    if client is None:
        require_runnable(agent.client.settings)
    return agent
