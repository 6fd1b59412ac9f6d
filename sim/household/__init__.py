"""The 2D household: transport tasks (TDW-MAT-like) and household tasks (C-WAH-like)."""

from sim.household.world import (
                                 HOUSEHOLD_COSTS,
                                 MESSAGE_CHARS,
                                 TRANSPORT_COSTS,
                                 HouseholdObservation,
                                 HouseholdState,
                                 HouseholdWorld,
                                 SeenObject,
)

__all__ = ["HOUSEHOLD_COSTS", "MESSAGE_CHARS", "TRANSPORT_COSTS", "HouseholdObservation", "HouseholdState",
           "HouseholdWorld", "SeenObject"]
