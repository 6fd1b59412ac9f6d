"""TradeCraft: the trade-and-craft game of seed 002, on the core World interface.

What the package offers is imported on first use (``from sim.tradecraft import ...``), so
that the world plug-in's declaration (``sim.tradecraft.plugin``) reads without loading the world.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.plugins import lazy_exports

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

__all__ = [
    "CRAFT", "CraftTurn", "DONE", "OVER", "PROPOSE", "Pass", "Proposal", "ProposalView", "Propose",
    "RESPOND", "Respond", "RuleSet", "RuleSetError", "TCObservation", "TCState", "TradeCraftWorld",
    "TurnRecord", "load_ruleset",
]

__getattr__ = lazy_exports(__name__, {
    "sim.tradecraft.rules": ("RuleSet", "RuleSetError", "load_ruleset"),
    "sim.tradecraft.world": (
        "CRAFT", "DONE", "OVER", "PROPOSE", "RESPOND", "CraftTurn", "Pass", "Proposal", "ProposalView",
        "Propose", "Respond", "TCObservation", "TCState", "TradeCraftWorld", "TurnRecord",
    ),
})
