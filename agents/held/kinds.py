"""A seat for tests: the world's default agent whose decisions wait until a file exists."""

from agents.registry import ANY_WORLD, AgentKind

AGENT_KINDS = [
    AgentKind("held", ANY_WORLD, "for tests: the world's default agent, but from its at-th decision on each one "
                                 "waits until the file release exists (at most timeout s), a decision under way for "
                                 "certain; it creates the file holding when it starts to wait",
              "agents.held.agent:HeldAgent", for_tests=True),
]
