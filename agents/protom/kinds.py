"""ProToM and its baselines as mechanism kinds."""

from agents.protom.core import ADAPTERS, adapter_class
from agents.registry import MechanismKind


def _adapters(family: str | None) -> list[type]:
    """ProToM passes world-specific parameters (e.g. ``temperature``) on to the world's adapter."""
    return [adapter_class(f) for f in ([family] if family else ADAPTERS)]


MECHANISM_KINDS = [
    MechanismKind("protom", tuple(ADAPTERS), "ProToM: Bayesian goal inference + expected utility of feedback",
                  "agents.protom.facilitators:ProToMFacilitator", passes_on=_adapters),
    MechanismKind("oracle", tuple(ADAPTERS), "ProToM-Oracle: ProToM with the agents' true goals",
                  "agents.protom.facilitators:OracleFacilitator", passes_on=_adapters),
    MechanismKind("random", tuple(ADAPTERS), "one random candidate feedback, sent with probability 0.5",
                  "agents.protom.facilitators:RandomFacilitator"),
]
