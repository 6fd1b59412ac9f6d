"""RHP: the rule-based hierarchical planner of the TDW-MAT and C-WAH references, for the household world.

A fixed list of rules picks a sub-goal from what the agent has seen; it never talks. The agent keeps
its own memory of where it last saw each object (nothing it has not observed), and corrects it when
a room it looks at no longer holds what it remembered. Ties (two rooms at the same distance) are
broken with the seat's random stream, so an episode is determined by the Session seed.

Transport rules, first that applies (after the references' RHP):

1. after frame 2300, go to the bed if holding anything;
2. holding a container with room and a target in the other hand: put the target in;
3. with a container holding 3, go to the bed;
4. with both hands full, go to the bed;
5. before frame 1600, without a container, fetch the nearest known free container;
6. otherwise fetch the nearest known target;
7. explore: the current room if not yet explored, else the nearest unexplored room;
8. with nothing known and everything explored: bring what is held to the bed, else revisit the room
   seen longest ago (its objects may have changed).

Household rules, the same scheme with the task's predicates: deliver a held object that a predicate
still needs (open the receptacle first; grab a second needed object from the same room on the way);
set down an object no longer needed; fetch the nearest known needed object (opening its receptacle);
explore the current room, then look inside its closed receptacles one by one, then go to the nearest
room with something left to look at; else revisit the room seen longest ago.
"""

from __future__ import annotations

from agents.household.planner import TRANSPORT_CONTAINER_UNTIL, TRANSPORT_GO_HOME_FRAME, Sighting, SubgoalAgent

__all__ = ["RHPAgent", "Sighting", "TRANSPORT_GO_HOME_FRAME", "TRANSPORT_CONTAINER_UNTIL"]


class RHPAgent(SubgoalAgent):
    """The rule-based hierarchical planner (never communicates). The rules live in
    ``agents.household.planner``, shared with the agents that talk; RHP leaves every
    coordination hook empty."""

    kind = "rhp"
