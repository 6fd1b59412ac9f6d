"""The LLM agent kinds; their factories start nothing until an episode needs them."""

from agents.registry import AgentKind, MechanismKind


def _llm_agent(**params):
    from agents.llm.kitchen import make_llm_agent
    return make_llm_agent(**params)


def _llm_facilitator(**params):
    from agents.llm.kitchen import make_llm_facilitator
    return make_llm_facilitator(**params)


AGENT_KINDS = [
    AgentKind("llm", ("dkg", "kitchen"), "LLM agent with k-level ToM prompts (k=0,1,2); planner (dkg) or simulated "
                                         "cook (kitchen) fallback; embedded Gemma 3 270M unless an endpoint is "
                                         "configured", _llm_agent),
]

MECHANISM_KINDS = [
    MechanismKind("llm", ("dkg", "kitchen"), "ProToM's LLM baseline: the Figure A7 (dkg) or A8 (kitchen) prompt, one "
                                             "candidate or no feedback per step; embedded Gemma 3 270M unless an "
                                             "endpoint is configured", _llm_facilitator),
]
