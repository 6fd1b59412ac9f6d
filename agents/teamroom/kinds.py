"""The agent kinds of the team room (their modules are imported when a kind is made)."""

from agents.registry import AgentKind

AGENT_KINDS = [
    AgentKind("room-scripted", ("teamroom",),
              "team room without a model: manager (k=0,1,2 assignment policies), engineers writing the scenario's "
              "drafts then its reference, debaters from the argument bank (k=0,1,2), a rubric judge",
              "agents.teamroom.scripted:ScriptedRoomAgent"),
    AgentKind("room-llm", ("teamroom",),
              "team room LLM agent (manager, engineer, debater or judge) with the Appendix C/D ToM prompts (k=0,1,2) "
              "and Appendix A self-evaluation (prompt=paper), or short prompts with a filled example (prompt=short, the "
              "embedded model's default); embedded Gemma 3 270M unless an endpoint is configured",
              "agents.teamroom.llm:make_room_llm"),
]
