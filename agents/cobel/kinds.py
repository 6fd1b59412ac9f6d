"""CoBel-World agent kinds (found by ``agents.registry``); factories import the heavy code when called."""

from __future__ import annotations

from typing import Any

from agents.registry import AgentKind
from sim.seats import Agent


def _cobel(**params: Any) -> Agent:
    from agents.cobel.agent import CoBelAgent

    return CoBelAgent(**params)


def _cobel_llm(**params: Any) -> Agent:
    from agents.cobel.llm_agent import make_cobel_llm_agent

    return make_cobel_llm_agent(**params)


AGENT_KINDS = [
    AgentKind("cobel", ("household",),
              "CoBel-World without an LLM: SBL belief world, Bayesian intent hypotheses per partner, "
              "talks only on miscoordination (conflicting plans, beliefs that matter)", _cobel),
    AgentKind("cobel-llm", ("household",),
              "CoBel-World with an LLM: rule construction, belief update, prediction, adaptive collaboration "
              "and planning prompts; the non-LLM CoBel agent stands in when the model fails; embedded "
              "Gemma 3 270M unless an endpoint is configured", _cobel_llm),
]
