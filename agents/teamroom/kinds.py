"""The agent kinds of the team room (factories import their modules when called)."""

from agents.registry import AgentKind


def _scripted(**params):
    from agents.teamroom.scripted import ScriptedRoomAgent
    return ScriptedRoomAgent(**params)


def _llm(**params):
    from agents.teamroom.llm import make_room_llm
    return make_room_llm(**params)


AGENT_KINDS = [
    AgentKind("room-scripted", ("teamroom",),
              "team room without a model: manager (k=0,1,2 assignment policies), engineers writing the scenario's "
              "drafts then its reference, debaters from the argument bank (k=0,1,2), a rubric judge", _scripted),
    AgentKind("room-llm", ("teamroom",),
              "team room LLM agent (manager, engineer, debater or judge) with the Appendix C/D ToM prompts (k=0,1,2) "
              "and Appendix A self-evaluation; embedded Gemma 3 270M unless an endpoint is configured", _llm),
]
