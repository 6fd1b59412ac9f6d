"""Multi-agent Doors, Keys and Gems."""

from sim.dkg.scenario import validate_dkg
from sim.dkg.world import CONSUMED, DKGObservation, DKGState, DKGWorld
from sim.registry import Family, register_family

register_family(Family(name="dkg", title="Doors, Keys and Gems", validate=validate_dkg, build=DKGWorld))

__all__ = ["CONSUMED", "DKGObservation", "DKGState", "DKGWorld"]
