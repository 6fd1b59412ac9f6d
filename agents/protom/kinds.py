"""ProToM and its baselines as mechanism kinds."""

from agents.protom.core import ADAPTERS
from agents.protom.facilitators import OracleFacilitator, ProToMFacilitator, RandomFacilitator, check_params
from agents.registry import MechanismKind

MECHANISM_KINDS = [
    MechanismKind("protom", tuple(ADAPTERS), "ProToM: Bayesian goal inference + expected utility of feedback",
                  ProToMFacilitator, lambda family, params: check_params(ProToMFacilitator, family, params)),
    MechanismKind("oracle", tuple(ADAPTERS), "ProToM-Oracle: ProToM with the agents' true goals",
                  OracleFacilitator, lambda family, params: check_params(OracleFacilitator, family, params)),
    MechanismKind("random", tuple(ADAPTERS), "one random candidate feedback, sent with probability 0.5",
                  RandomFacilitator, lambda family, params: check_params(RandomFacilitator, family, params)),
]
