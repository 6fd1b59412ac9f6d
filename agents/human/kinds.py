"""A person can sit at any world's seat."""

from agents.registry import ANY_WORLD, AgentKind


def _human(**params):
    from agents.human.seat import HumanAgent
    return HumanAgent(**params)


AGENT_KINDS = [
    AgentKind("human", ANY_WORLD, "a person at the keyboard (the desktop app)", _human),
]
