"""The household world's scenario categories (a module of its own: the plug-in's declaration
reads them without importing the scenario schema)."""

TRANSPORT_CATEGORIES = ("food-low-capacity", "food-high-capacity", "stuff-low-capacity", "stuff-high-capacity")
HOUSEHOLD_CATEGORIES = ("prepare-tea", "wash-dishes", "prepare-meal", "put-groceries", "set-up-table")
#: the classic false-belief scenarios (scenarios/household/false-belief/), of either task kind
TEACHING_CATEGORIES = ("false-belief",)
CATEGORIES = TRANSPORT_CATEGORIES + HOUSEHOLD_CATEGORIES + TEACHING_CATEGORIES
