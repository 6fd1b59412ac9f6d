"""The 2D household: transport tasks (TDW-MAT-like) and household tasks (C-WAH-like).

What the package offers is imported on first use (``from sim.household import ...``), so that the world
plug-in's declaration (``sim.household.plugin``) reads without loading the world.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.household.world import (
        HOUSEHOLD_COSTS,
        MESSAGE_CHARS,
        TRANSPORT_COSTS,
        HouseholdObservation,
        HouseholdState,
        HouseholdWorld,
        SeenObject,
    )

_MODULE_OF = {
    **dict.fromkeys((
        "HOUSEHOLD_COSTS", "MESSAGE_CHARS", "TRANSPORT_COSTS", "HouseholdObservation", "HouseholdState",
        "HouseholdWorld", "SeenObject",
    ), "sim.household.world"),
}

__all__ = [
    "HOUSEHOLD_COSTS", "HouseholdObservation", "HouseholdState", "HouseholdWorld", "MESSAGE_CHARS",
    "SeenObject", "TRANSPORT_COSTS",
]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
