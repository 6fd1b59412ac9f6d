"""k-level Theory-of-Mind answer formats for LLM agents (Belief-Aligned Team Formation,
Eq. 1 and the JSON templates of its Appendix C).

A level-k agent answers one JSON object with a block per level:

- k = 0: ``ToM_level0 {belief: "no belief", action}`` (naive behaviour, no model of others). Its
  belief is the same words at every decision, so the model answers only ``{"action": x_0}`` and
  ``tom_levels`` writes the level out in the paper's form (an answer of a few tokens instead of
  about 22, each of them slow under constrained decoding);
- k = 1: ``ToM_level1 {belief, explanation, action}``: ``belief`` is y_1, the inferred
  actions of the others, ``action`` is x_1 chosen on that belief;
- k = 2: ``ToM_level1`` as above, then ``ToM_level2 {belief, explanation, action}``: y_2, the
  others' actions inferred *given* x_1, and x_2 chosen on it.

The agent takes the action of its highest level. The schema pins ``action`` to the
legal actions, so endpoints with constrained decoding can only answer legal moves, and
bounds the free text so that a small model's answer stays short.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

MAX_K = 2
BELIEF_CHARS = 160
EXPLANATION_CHARS = 240

# (belief hint, explanation hint) per level, worded as in Appendix C for an acting agent.
_LEVEL_HINTS = {
    1: ("{y_1: the actions you infer the other agents will take}",
        "{Concise explanation of inferring actions y_1 and choosing x_1 based on this belief}"),
    2: ("{y_2: the actions you infer the other agents will take given your action x_1}",
        "{Concise explanation of inferring actions y_2 and choosing x_2 based on this belief}"),
}


def check_k(k: int) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= MAX_K:
        raise ValueError(f"k (the Theory-of-Mind level) must be 0, 1 or 2, got {k!r}")
    return k


def level_names(k: int) -> list[str]:
    """The levels of a level-k answer in the paper's form (``tom_levels``), lowest first."""
    check_k(k)
    return ["ToM_level0"] if k == 0 else [f"ToM_level{i}" for i in range(1, k + 1)]


def tom_template(k: int, action_hint: str) -> str:
    """The answer template shown in the prompt (Appendix C's layout)."""
    check_k(k)
    if k == 0:
        data: dict[str, Any] = {"action": f"{{x_0: {action_hint}}}"}
    else:
        data = {}
        for i in range(1, k + 1):
            belief, explanation = _LEVEL_HINTS[i]
            data[f"ToM_level{i}"] = {"belief": belief, "explanation": explanation,
                                     "action": f"{{x_{i}: {action_hint}}}"}
    return json.dumps(data, indent=2)


def tom_schema(k: int, actions: Sequence[str]) -> dict[str, Any]:
    """JSON schema of a level-k answer whose actions are one of ``actions``."""
    check_k(k)
    action = {"type": "string", "enum": list(actions)}
    if k == 0:
        return {"type": "object", "properties": {"action": action}, "required": ["action"],
                "additionalProperties": False}
    level = {"type": "object",
             "properties": {"belief": {"type": "string", "maxLength": BELIEF_CHARS},
                            "explanation": {"type": "string", "maxLength": EXPLANATION_CHARS},
                            "action": action},
             "required": ["belief", "explanation", "action"], "additionalProperties": False}
    levels = {name: level for name in level_names(k)}
    return {"type": "object", "properties": levels, "required": list(levels), "additionalProperties": False}


def final_action(answer: dict[str, Any], k: int) -> Any:
    """The action of the answer's highest level (``answer`` as the model gives it)."""
    return tom_levels(answer, k)[level_names(k)[-1]]["action"]


#: the belief of a level-0 agent (Appendix C), the same at every decision
LEVEL0_BELIEF = "no belief"


def tom_levels(answer: dict[str, Any], k: int) -> dict[str, Any]:
    """A level-k answer in the paper's form, one block per level: a level-0 answer
    ``{"action": x_0}`` becomes ``{"ToM_level0": {"belief": "no belief", "action": x_0}}``."""
    if check_k(k) == 0:
        return {"ToM_level0": {"belief": LEVEL0_BELIEF, "action": answer["action"]}}
    return answer


def tom_preamble(k: int, choice: str = "action") -> str:
    """Appendix C's instruction, for an agent that chooses ``choice``; at k = 0, which infers
    nothing of the others (its belief is "no belief"), only the choice is asked for."""
    if check_k(k) == 0:
        return (f"You have the ability of 0 Level Theory of Mind: you do not infer the mental states of "
                f"other agents, and choose your {choice} {{x_0}} from what you see. Remember MUST Respond "
                f"in the following JSON format, and replace {{...}} with your {choice}:")
    return (f"You have the ability of {k} Level Theory of Mind. You can **recursively** infer the mental "
            f"states of other agents in the team. Then, you will choose your {choice} {{x_i}} based on this "
            f"belief.\n## Please explain your thought process for inferring others' actions '{{y_i}}' and "
            f"choosing '{{x_i}}' at each level. Remember MUST Respond in the following JSON format, "
            f"including each key, and replace every {{...}} with your own words:")
