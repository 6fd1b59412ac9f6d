"""CoBel-World agent kinds (found by ``agents.registry``); factories import the heavy code when called."""

from __future__ import annotations

from agents.registry import AgentKind

AGENT_KINDS = [
    AgentKind("cobel", ("household",),
              "CoBel-World without an LLM: SBL belief world, Bayesian intent hypotheses per partner, "
              "talks only on miscoordination (conflicting plans, beliefs that matter; talk=voi: when the partner's "
              "simulated plan saves more than the message costs); order=0: level 0, each partner "
              "taken to believe what the agent believes; first_order=false: partners taken to know nothing",
              "agents.cobel.agent:CoBelAgent"),
    AgentKind("cobel-llm", ("household",),
              "CoBel-World with an LLM: rule construction, belief update, prediction, adaptive collaboration "
              "and planning prompts; the non-LLM CoBel agent stands in when the model fails; embedded "
              "Gemma 3 270M unless an endpoint is configured", "agents.cobel.llm_agent:make_cobel_llm_agent"),
]
