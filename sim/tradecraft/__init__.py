"""TradeCraft: the trade-and-craft game of seed 002, on the core World interface."""

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

__all__ = ["CRAFT", "DONE", "OVER", "PROPOSE", "RESPOND", "CraftTurn", "Pass", "Propose", "Proposal",
           "ProposalView", "Respond", "RuleSet", "RuleSetError", "TCObservation", "TCState", "TradeCraftWorld",
           "TurnRecord", "load_ruleset"]
