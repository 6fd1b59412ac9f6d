"""The 2D household: transport tasks (TDW-MAT-like) and household tasks (C-WAH-like).

What the package offers is imported on first use (``from sim.household import ...``), so that the world
plug-in's declaration (``sim.household.plugin``) reads without loading the world.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.plugins import lazy_exports

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

__all__ = [
    "HOUSEHOLD_COSTS", "HouseholdObservation", "HouseholdState", "HouseholdWorld", "MESSAGE_CHARS",
    "SeenObject", "TRANSPORT_COSTS",
]

__getattr__ = lazy_exports(__name__, {
    "sim.household.world": (
        "HOUSEHOLD_COSTS", "MESSAGE_CHARS", "TRANSPORT_COSTS", "HouseholdObservation", "HouseholdState",
        "HouseholdWorld", "SeenObject",
    ),
})
