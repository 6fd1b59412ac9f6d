"""The partially observable kitchen of ProToM (gym-cooking's kitchen split into rooms by doors).

What the package offers is imported on first use (``from sim.kitchen import ...``), so that the
world plug-in's declaration (``sim.kitchen.plugin``) reads without loading the world.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.kitchen.level import RECIPES, validate_kitchen
    from sim.kitchen.world import ACTIONS, ITEM_CODE, ITEM_NAMES, KitchenObservation, KitchenState, KitchenWorld

_MODULE_OF = {
    **dict.fromkeys(("RECIPES", "validate_kitchen"), "sim.kitchen.level"),
    **dict.fromkeys(("ACTIONS", "ITEM_CODE", "ITEM_NAMES", "KitchenObservation", "KitchenState", "KitchenWorld"),
                    "sim.kitchen.world"),
}

__all__ = ["ACTIONS", "ITEM_CODE", "ITEM_NAMES", "KitchenObservation", "KitchenState", "KitchenWorld",
           "RECIPES", "validate_kitchen"]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
