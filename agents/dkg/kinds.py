"""The agent kinds of Doors, Keys and Gems."""

from agents.registry import AgentKind

AGENT_KINDS = [
    AgentKind("planner", ("dkg",), "optimal A* planner over keys, doors and gems", "agents.dkg.agents:PlannerAgent"),
    AgentKind("boltzmann", ("dkg",), "simulated human: softmax over -cost-to-go / temperature", "agents.dkg.agents:BoltzmannAgent"),
]
