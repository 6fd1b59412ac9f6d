"""A person can sit at any world's seat."""

from agents.registry import ANY_WORLD, AgentKind

AGENT_KINDS = [
    AgentKind("human", ANY_WORLD, "a person at the keyboard (the desktop app)", "agents.human.seat:HumanAgent"),
]
