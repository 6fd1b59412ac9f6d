"""The partially observable kitchen of ProToM (gym-cooking's kitchen split into rooms by doors).

What the package offers is imported on first use (``from sim.kitchen import ...``), so that the
world plug-in's declaration (``sim.kitchen.plugin``) reads without loading the world.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.plugins import lazy_exports

if TYPE_CHECKING:
    from sim.kitchen.level import RECIPES, validate_kitchen
    from sim.kitchen.world import ACTIONS, ITEM_CODE, ITEM_NAMES, KitchenObservation, KitchenState, KitchenWorld

__all__ = ["ACTIONS", "ITEM_CODE", "ITEM_NAMES", "KitchenObservation", "KitchenState", "KitchenWorld",
           "RECIPES", "validate_kitchen"]

__getattr__ = lazy_exports(__name__, {
    "sim.kitchen.level": ("RECIPES", "validate_kitchen"),
    "sim.kitchen.world": ("ACTIONS", "ITEM_CODE", "ITEM_NAMES", "KitchenObservation", "KitchenState", "KitchenWorld"),
})
