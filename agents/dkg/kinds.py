"""The agent kinds of Doors, Keys and Gems."""

from agents.registry import AgentKind


def _planner(**params):
    from agents.dkg.agents import PlannerAgent
    return PlannerAgent(**params)


def _boltzmann(**params):
    from agents.dkg.agents import BoltzmannAgent
    return BoltzmannAgent(**params)


AGENT_KINDS = [
    AgentKind("planner", ("dkg",), "optimal A* planner over keys, doors and gems", _planner),
    AgentKind("boltzmann", ("dkg",), "simulated human: softmax over -cost-to-go / temperature", _boltzmann),
]
