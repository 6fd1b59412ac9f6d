"""The partially observable kitchen of ProToM (gym-cooking's kitchen split into rooms by doors)."""

from sim.kitchen.level import RECIPES, validate_kitchen
from sim.kitchen.world import ACTIONS, ITEM_CODE, ITEM_NAMES, KitchenObservation, KitchenState, KitchenWorld

__all__ = ["ACTIONS", "ITEM_CODE", "ITEM_NAMES", "KitchenObservation", "KitchenState", "KitchenWorld",
           "RECIPES", "validate_kitchen"]
