"""Multi-agent Doors, Keys and Gems."""

from sim.dkg.scenario import validate_dkg
from sim.dkg.world import CONSUMED, DKGObservation, DKGState, DKGWorld

__all__ = ["CONSUMED", "DKGObservation", "DKGState", "DKGWorld", "validate_dkg"]
