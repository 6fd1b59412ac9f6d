"""ProToM and its baselines as mechanism kinds: they work in every world whose plug-in declares
``methods["protom"]`` (its ProToMAdapter class)."""

from agents.methods import families_with
from agents.registry import ANY_WORLD, MechanismKind


def _adapters(family: str | None) -> list[type]:
    """ProToM passes world-specific parameters (e.g. ``temperature``) on to the world's adapter."""
    from agents.protom.core import adapter_class  # numpy and the inference load when a ProToM starts

    return [adapter_class(f) for f in ([family] if family else families_with("protom"))]


MECHANISM_KINDS = [
    MechanismKind("protom", ANY_WORLD, "ProToM: Bayesian goal inference + expected utility of feedback",
                  "agents.protom.facilitators:ProToMFacilitator", passes_on=_adapters, needs=("protom",)),
    MechanismKind("oracle", ANY_WORLD, "ProToM-Oracle: ProToM with the agents' true goals",
                  "agents.protom.facilitators:OracleFacilitator", passes_on=_adapters, needs=("protom",)),
    MechanismKind("random", ANY_WORLD, "one random candidate feedback, sent with probability 0.5",
                  "agents.protom.facilitators:RandomFacilitator", needs=("protom",)),
]
