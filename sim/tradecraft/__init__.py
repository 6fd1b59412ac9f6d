"""TradeCraft: the trade-and-craft game of seed 002, on the core World interface.

What the package offers is imported on first use (``from sim.tradecraft import ...``), so
that the world plug-in's declaration (``sim.tradecraft.plugin``) reads without loading the world.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sim.tradecraft.rules import RuleSet, RuleSetError, load_ruleset
    from sim.tradecraft.world import (
        CRAFT,
        DONE,
        OVER,
        PROPOSE,
        RESPOND,
        CraftTurn,
        Pass,
        Proposal,
        ProposalView,
        Propose,
        Respond,
        TCObservation,
        TCState,
        TradeCraftWorld,
        TurnRecord,
    )

_MODULE_OF = {
    **dict.fromkeys(("RuleSet", "RuleSetError", "load_ruleset"), "sim.tradecraft.rules"),
    **dict.fromkeys((
        "CRAFT", "DONE", "OVER", "PROPOSE", "RESPOND", "CraftTurn", "Pass", "Proposal", "ProposalView",
        "Propose", "Respond", "TCObservation", "TCState", "TradeCraftWorld", "TurnRecord",
    ), "sim.tradecraft.world"),
}

__all__ = [
    "CRAFT", "CraftTurn", "DONE", "OVER", "PROPOSE", "Pass", "Proposal", "ProposalView", "Propose",
    "RESPOND", "Respond", "RuleSet", "RuleSetError", "TCObservation", "TCState", "TradeCraftWorld",
    "TurnRecord", "load_ruleset",
]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value
