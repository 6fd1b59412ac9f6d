"""The LLM facilitator baseline of ProToM (Section 5, Figure A7) for Doors, Keys and Gems.

After each step (unless an agent is still carrying out a feedback) the model gets the
environment description and task of Figure A7, the recent action history, the state as
text (the paper shows an image; ToM Arena describes the same state in words and as a
character map) and the candidate feedback messages F_t, written as in the paper:
``(bob, has(alice, key1))`` tells Bob to give key1 to Alice, ``(bob, unlocked(door1))``
tells Bob to unlock door1. F_t is built by ProToM's own adapter (``agents.protom``), the
same set every facilitator gets. The model answers with its inferred goals, one candidate
or "No feedback", and a short explanation, which goes with the feedback. A model failure
means no feedback this step (an ``ErrorEvent`` says why); the episode goes on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents.llm.agent import SETTING_PARAMS, settings_from_params
from agents.llm.client import LLMClient
from agents.llm.dkg import describe_state
from agents.llm.server import require_runnable
from agents.protom.core import Candidate, ProToMAdapter, adapter_for
from sim.dkg.world import DKGState, DKGWorld
from sim.events import ErrorEvent
from sim.seats import Facilitator, Feedback, SeatContext, StepView

MODULE = "feedback"
NO_FEEDBACK = "No feedback"

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


def feedback_options(adapter: ProToMAdapter, state: DKGState) -> list[Candidate]:
    """F_t, built as ProToM and its other baselines build it, one option per wording."""
    seen: set[str] = set()
    return [c for c in adapter.candidates(state) if not (c.label in seen or seen.add(c.label))]


class LLMFacilitator(Facilitator):
    """ProToM's LLM baseline: the Figure A7 prompt, the state as text, one choice per step."""

    kind = "llm"

    def __init__(self, history: int = 10, every: int = 1, respect_busy: bool = True, *,
                 client: LLMClient | None = None, config: str | None = None, **settings: Any) -> None:
        unknown = sorted(set(settings) - set(SETTING_PARAMS))
        if unknown:
            raise TypeError(f"unknown parameter(s) {', '.join(unknown)}; the llm facilitator takes history, "
                            f"every, respect_busy, config and {', '.join(SETTING_PARAMS)}")
        if not isinstance(history, int) or history < 1:
            raise ValueError(f"history must be a whole number of past actions >= 1, got {history!r}")
        if not isinstance(every, int) or every < 1:
            raise ValueError(f"every (ask the model every N steps) must be >= 1, got {every!r}")
        self.history_length = history
        self.every = every
        self.respect_busy = bool(respect_busy)
        self.client = client or LLMClient(settings_from_params(settings, config))
        self.history: list[tuple[int, str, str]] = []
        self._snapshot: tuple[str, dict[str, Any]] | None = None

    def reset(self, world: Any, state: Any, ctx: SeatContext) -> None:
        if not isinstance(world, DKGWorld):
            raise TypeError(f"the llm facilitator works in Doors, Keys and Gems, not {world.family}")
        super().reset(world, state, ctx)
        self.adapter = adapter_for(world)
        self.history = []
        self._snapshot = None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "history": self.history_length, "every": self.every,
                "respect_busy": self.respect_busy, "llm": self.client.describe()}

    def messages(self, state: DKGState, candidates: Sequence[Candidate]) -> list[dict[str, str]]:
        world = self.world
        history = "\n".join(f"- tick {t}: {agent} {action}" for t, agent, action in self.history) or "- none yet"
        options = "\n".join(f"- {c.label}" for c in candidates) + f"\n- {NO_FEEDBACK}"
        a, b = world.agents[1], world.agents[0]
        key = next((it.id for it in world.items if it.kind == "key"), "key1")
        prompt = PROMPT.format(agents=", ".join(world.agents), history=history,
                               state=describe_state(world, state, viewer=None), options=options,
                               example=f"({a}, has({b}, {key}))",
                               example_meaning=f"tell {a.capitalize()} to give {key} to {b.capitalize()}")
        return [{"role": "user", "content": prompt}]

    def schema(self, candidates: Sequence[Candidate]) -> dict[str, Any]:
        world = self.world
        gems = list(world.gem_ids)
        return {"type": "object", "properties": {
                    "inferred_goals": {"type": "object",
                                       "properties": {a: {"type": "string", "enum": gems} for a in world.agents},
                                       "required": list(world.agents), "additionalProperties": False},
                    "answer": {"type": "string", "enum": [c.label for c in candidates] + [NO_FEEDBACK]},
                    "explanation": {"type": "string", "maxLength": 200}},
                "required": ["inferred_goals", "answer", "explanation"], "additionalProperties": False}

    def suggest(self, step: StepView, busy: Mapping[AgentId, int]) -> Sequence[Feedback]:
        before, joint_action, after = step.before, step.joint_action, step.after
        for agent, action in joint_action.items():
            self.history.append((before.t, agent, self.world.encode_action(action)))
        self.history = self.history[-self.history_length:]
        if (busy and self.respect_busy) or self.world.done(after) or after.t % self.every:
            return ()  # like ProToM, no new feedback while an agent carries one out
        candidates = feedback_options(self.adapter, after)
        if not candidates:
            return ()
        outcome = self.client.ask_json(self.messages(after, candidates), self.schema(candidates),
                                       agent="facilitator", module=MODULE, tick=after.t,
                                       schema_name="facilitator_feedback", seed=self.ctx.seed + after.t)
        for event in outcome.events:
            self.ctx.emit(event)
        if outcome.value is None:
            self.ctx.emit(ErrorEvent(tick=after.t, source="facilitator", kind="llm_fallback",
                                     message=f"the model gave no usable answer ({outcome.failure}); no feedback"))
            return ()
        answer = outcome.value["answer"]
        self._snapshot = ("llm_feedback", {"inferred_goals": outcome.value["inferred_goals"], "answer": answer,
                                           "options": [c.label for c in candidates]})
        chosen = next((c for c in candidates if c.label == answer), None)
        if chosen is None:
            return ()
        return (Feedback(feedback_id=0, target=chosen.target, payload=dict(chosen.payload),
                         text=self.adapter.feedback_text(after, chosen),
                         explanation=outcome.value.get("explanation") or ""),)

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        snapshot, self._snapshot = self._snapshot, None
        return (snapshot,) if snapshot else ()


def make_llm_facilitator(history: int = 10, every: int = 1, respect_busy: bool = True, config: str | None = None,
                         **settings: Any) -> LLMFacilitator:
    """Factory for facilitator specs such as ``llm:every=2,model=gpt-4o``; fails early, with the
    fix, when no endpoint is configured and the embedded model is missing."""
    client = settings.pop("client", None)
    facilitator = LLMFacilitator(history=history, every=every, respect_busy=respect_busy, client=client,
                                 config=config, **settings)
    if client is None:
        require_runnable(facilitator.client.settings)
    return facilitator
