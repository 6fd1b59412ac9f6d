"""The agent kinds of Doors, Keys and Gems."""

from agents.registry import AgentKind

AGENT_KINDS = [
    AgentKind("planner", ("dkg",), "optimal A* planner over keys, doors and gems", "agents.dkg.agents:PlannerAgent"),
    AgentKind("cooperative", ("dkg",), "CLIPS's human: acts by a joint plan with the helper toward its gem; "
              "alone once the helper puts that plan off", "agents.dkg.agents:CooperativeAgent"),
    AgentKind("boltzmann", ("dkg",), "simulated human: softmax over -cost-to-go / temperature", "agents.dkg.agents:BoltzmannAgent"),
]
