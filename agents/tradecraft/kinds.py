"""The agent kinds of TradeCraft."""

from agents.registry import AgentKind

AGENT_KINDS = [
    AgentKind("trader", ("tradecraft",),
              "TradeCraft planner trader: route values V0, opponent-target inference V1/V2 (order=0..2), "
              "utility rho,w1,gamma,w2,kappa,theta,beta; explore", "agents.tradecraft.trader:PlannerTrader"),
    AgentKind("llm-trader", ("tradecraft",),
              "TradeCraft LLM trader: V0/V1/V2 value reports (tom=0,1,2), tools item_info and "
              "possible_recipes_from_hands, planner fallback; embedded Gemma 3 270M unless an endpoint is "
              "configured", "agents.tradecraft.llm_trader:make_llm_trader"),
]
