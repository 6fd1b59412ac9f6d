"""The LLM agent kinds; their factories start nothing until an episode needs them."""

from agents.registry import AgentKind, MechanismKind


AGENT_KINDS = [
    AgentKind("llm", ("dkg", "kitchen"), "LLM agent with k-level ToM prompts (k=0,1,2); planner (dkg) or simulated "
                                         "cook (kitchen) fallback; embedded Gemma 3 270M unless an endpoint is "
                                         "configured", "agents.llm.kitchen:make_llm_agent"),
]

MECHANISM_KINDS = [
    MechanismKind("llm", ("dkg", "kitchen"), "ProToM's LLM baseline: the Figure A7 (dkg) or A8 (kitchen) prompt, one "
                                             "candidate or no feedback per step; embedded Gemma 3 270M unless an "
                                             "endpoint is configured", "agents.llm.kitchen:make_llm_facilitator"),
]
