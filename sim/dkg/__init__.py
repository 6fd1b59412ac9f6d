"""Multi-agent Doors, Keys and Gems.

What the package offers is imported on first use (``from sim.dkg import ...``), so that the world
plug-in's declaration (``sim.dkg.plugin``) reads without loading the world.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.dkg.scenario import validate_dkg
    from sim.dkg.world import CONSUMED, DKGObservation, DKGState, DKGWorld

_MODULE_OF = {
    **dict.fromkeys(("validate_dkg",), "sim.dkg.scenario"),
    **dict.fromkeys(("CONSUMED", "DKGObservation", "DKGState", "DKGWorld"), "sim.dkg.world"),
}

__all__ = ["CONSUMED", "DKGObservation", "DKGState", "DKGWorld", "validate_dkg"]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
