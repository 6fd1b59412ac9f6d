"""Multi-agent Doors, Keys and Gems.

What the package offers is imported on first use (``from sim.dkg import ...``), so that the world
plug-in's declaration (``sim.dkg.plugin``) reads without loading the world.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.plugins import lazy_exports

if TYPE_CHECKING:
    from sim.dkg.scenario import validate_dkg
    from sim.dkg.world import CONSUMED, DKGObservation, DKGState, DKGWorld

__all__ = ["CONSUMED", "DKGObservation", "DKGState", "DKGWorld", "validate_dkg"]

__getattr__ = lazy_exports(__name__, {
    "sim.dkg.scenario": ("validate_dkg",),
    "sim.dkg.world": ("CONSUMED", "DKGObservation", "DKGState", "DKGWorld"),
})
