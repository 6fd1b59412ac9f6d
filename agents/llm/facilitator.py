"""The LLM facilitator baseline of ProToM (Section 5, Figures A7 and A8), in every world that
declares its prompts (``methods["llm"]``, an ``agents.llm.world.LLMWorld``) and a ProToM adapter
(``methods["protom"]``).

After each step (unless an agent is still carrying out a feedback) the model gets the world's
prompt (Figure A7 in Doors, Keys and Gems, A8 in the kitchen): the environment and the
facilitator's task, the recent action history, the state as text and the candidate feedback
messages F_t, each written by its label (``(bob, has(alice, key1))``, "Bob passes the FreshOnion
in (3, 4) to Alice"). F_t is built by the world's ProToM adapter (``agents.protom``), the same set
every facilitator gets. The model answers with its inferred goals, one candidate or the world's
"no feedback" answer, and a short explanation, which goes with the feedback. A model failure
means no feedback this step (an ``ErrorEvent`` says why); the episode goes on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents.llm.agent import SETTING_PARAMS, settings_from_params
from agents.llm.client import LLMClient
from agents.llm.server import require_runnable
from agents.llm.world import LLMWorld, llm_world
from agents.protom.core import Candidate, ProToMAdapter, adapter_for
from sim.events import ErrorEvent
from sim.seats import Facilitator, Feedback, SeatContext, StepView
from sim.snapshots import LLMFeedback
from sim.world import AgentId

MODULE = "feedback"


def feedback_options(adapter: ProToMAdapter, state: Any) -> list[Candidate]:
    """F_t, built as ProToM and its other baselines build it, one option per wording."""
    seen: set[str] = set()
    return [c for c in adapter.candidates(state) if not (c.label in seen or seen.add(c.label))]


class LLMFacilitator(Facilitator):
    """ProToM's LLM baseline: the world's prompt, the state as text, one choice per step."""

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
        self.play: LLMWorld = llm_world(world)
        super().reset(world, state, ctx)
        self.adapter = adapter_for(world)
        self.history = []
        self._snapshot = None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "history": self.history_length, "every": self.every,
                "respect_busy": self.respect_busy, "llm": self.client.describe()}

    def messages(self, state: Any, candidates: Sequence[Candidate]) -> list[dict[str, str]]:
        return self.play.facilitator_messages(state, candidates, self.history)

    def schema(self, candidates: Sequence[Candidate]) -> dict[str, Any]:
        return self.play.facilitator_schema(candidates)

    def suggest(self, step: StepView, busy: Mapping[AgentId, int]) -> Sequence[Feedback]:
        before, joint_action, after = step.before, step.joint_action, step.after
        for agent, action in joint_action.items():
            self.history.append((self.world.tick_of(before), agent, self.world.encode_action(action)))
        self.history = self.history[-self.history_length:]
        tick = self.world.tick_of(after)
        if (busy and self.respect_busy) or self.world.done(after) or tick % self.every:
            return ()  # like ProToM, no new feedback while an agent carries one out
        candidates = feedback_options(self.adapter, after)
        if not candidates:
            return ()
        outcome = self.client.ask_json(self.messages(after, candidates), self.schema(candidates),
                                       agent="facilitator", module=MODULE, tick=tick,
                                       schema_name="facilitator_feedback", seed=self.ctx.seed + tick)
        for event in outcome.events:
            self.ctx.emit(event)
        if outcome.value is None:
            self.ctx.emit(ErrorEvent(tick=tick, source="facilitator", kind="llm_fallback",
                                     message=f"the model gave no usable answer ({outcome.failure}); no feedback"))
            return ()
        answer = outcome.value["answer"]
        self._snapshot = ("llm_feedback", LLMFeedback(inferred_goals=outcome.value["inferred_goals"], answer=answer,
                                                      options=[c.label for c in candidates]))
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
