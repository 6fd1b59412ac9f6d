"""What the llm agent and the llm facilitator need from a world.

A world gives them a subclass of ``LLMWorld`` in its plug-in's ``methods["llm"]``; the generic
``agents.llm.agent.LLMAgent`` and ``agents.llm.facilitator.LLMFacilitator`` ask it for every
world-specific piece and keep no list of worlds. One instance serves one seat or one facilitator
for one episode: the seat's history and its fallback seat live in it.

The agent's side: ``start`` (the fallback seat, an empty history), ``prepare`` (called before
each decision on the Session's thread: the history, the fallback's beliefs and feedback task),
``agent_messages`` (the prompt: rules, goal, history, feedback, observation, legal actions and
the k-level answer template of ``agents.llm.tom``), ``action_labels`` (how the legal actions are
written in the answer; the answer is parsed back by position), ``fallback_action`` (what is played
when the model fails or names an action that is not legal), ``receive_feedback`` and
``following_feedback``. The facilitator's side: ``facilitator_messages`` and
``facilitator_schema`` over the candidate feedback of the world's ProToM adapter (so the llm
facilitator also needs ``methods["protom"]``), and ``no_feedback``, the answer that sends nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sim.seats import Feedback, SeatContext
from sim.world import World


class LLMWorld:
    """The world-specific half of the llm agent and facilitator (see the module docstring)."""

    #: who acts instead of the model, for the ``llm_fallback`` error ("the planner")
    fallback_name: str = "fallback seat"
    #: the facilitator's answer when no feedback helps
    no_feedback: str = "No feedback"

    def __init__(self, world: World) -> None:
        self.world = world

    # ------------------------------------------------------------ the agent's side

    def start(self, ctx: SeatContext, history: int) -> None:
        """A new episode for the seat ``ctx.agent_id``, remembering ``history`` past actions."""
        self.ctx = ctx
        self.history_length = history

    def receive_feedback(self, feedback: Feedback) -> None:
        """A facilitator's feedback to the seat (the fallback seat usually carries it out)."""

    def prepare(self, observation: Any, legal_actions: Sequence[Any]) -> None:
        """Before each decision, on the Session's thread: update the history and the fallback."""

    def tick(self, observation: Any) -> int:
        """The tick the decision is made at (the seed of the model call is offset by it)."""
        return int(getattr(observation, "t", self.ctx.tick))

    def agent_messages(self, observation: Any, legal_actions: Sequence[Any], k: int) -> list[dict[str, str]]:
        """The chat messages of one decision by a level-``k`` agent."""
        raise NotImplementedError

    def action_labels(self, observation: Any, legal_actions: Sequence[Any]) -> list[str]:
        """How each legal action is written in the prompt and the answer (strings as they are,
        other actions as the JSON of ``encode_action``); the answer is read back by position."""
        return [a if isinstance(a, str) else json.dumps(self.world.encode_action(a), sort_keys=True)
                for a in legal_actions]

    def fallback_action(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """What the seat plays when the model gives no legal action."""
        raise NotImplementedError

    def following_feedback(self) -> int | None:
        """The id of the feedback the seat carries out now, if any."""
        return None

    # ------------------------------------------------------------ the facilitator's side

    def facilitator_messages(self, state: Any, candidates: Sequence[Any],
                             history: Sequence[tuple[int, str, Any]]) -> list[dict[str, str]]:
        """The facilitator's prompt: ``history`` holds (tick, agent, encoded action) of recent steps,
        ``candidates`` the ProToM adapter's feedback options (one per label) besides ``no_feedback``."""
        raise NotImplementedError

    def facilitator_schema(self, candidates: Sequence[Any]) -> dict[str, Any]:
        """The JSON schema of the facilitator's answer: ``answer`` (a candidate's label or
        ``no_feedback``), ``explanation`` and ``inferred_goals``."""
        raise NotImplementedError


def llm_world(world: World) -> LLMWorld:
    """A fresh LLMWorld for ``world``, from its plug-in's ``methods["llm"]``."""
    from agents.methods import world_part

    found = world_part(world.family, "llm", "the llm agent has no prompts")
    if not (isinstance(found, type) and issubclass(found, LLMWorld)):
        raise ValueError(f"the world {world.family!r} declares methods['llm'] = {found!r}, not an LLMWorld class")
    return found(world)
