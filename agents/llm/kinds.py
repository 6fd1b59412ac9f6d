"""The LLM agent kinds; their factories start nothing until an episode needs them. They play the
worlds that declare their prompts (``methods["llm"]``); the facilitator also needs the world's
ProToM adapter (``methods["protom"]``), whose candidate feedback it chooses from."""

from agents.registry import ANY_WORLD, AgentKind, MechanismKind


AGENT_KINDS = [
    AgentKind("llm", ANY_WORLD, "LLM agent with k-level ToM prompts (k=0,1,2); the world's fallback seat (the planner "
                                "in dkg, the simulated cook in the kitchen) when the model fails; embedded Gemma 3 "
                                "270M unless an endpoint is configured", "agents.llm.agent:make_llm_agent",
              needs=("llm",)),
]

MECHANISM_KINDS = [
    MechanismKind("llm", ANY_WORLD, "ProToM's LLM baseline: the world's prompt (Figure A7 in dkg, A8 in the kitchen), "
                                    "one candidate or no feedback per step; embedded Gemma 3 270M unless an "
                                    "endpoint is configured", "agents.llm.facilitator:make_llm_facilitator",
                  needs=("llm", "protom")),
]
