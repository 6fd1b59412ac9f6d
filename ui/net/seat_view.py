"""What one networked seat is sent: its own observation, never the hidden state.

``seat_frame`` builds the frame from ``World.observe(state, seat)`` and the layout alone: the
kitchen's walls, floors, doors and station kinds (known to everyone), with the letters that place
objects at the start replaced by plain counters; the objects and cooks the seat sees now; its own
goal. The other cook's goal, what lies in rooms the seat does not see and where an unseen cook
stands never leave the host. Networked seats play the kitchen (``NETWORKED_FAMILIES``).
"""

from __future__ import annotations

from typing import Any

from sim.world import World

NETWORKED_FAMILIES = ("kitchen",)
#: the keys a participant presses and the kitchen action each sends
KEY_ACTIONS = {"Up": "up", "W": "up", "Down": "down", "S": "down", "Left": "left", "A": "left",
               "Right": "right", "D": "right", "Space": "stay"}


def check_networked(world: World) -> None:
    """ValueError when ``world`` cannot be played over the network."""
    if world.family not in NETWORKED_FAMILIES:
        raise ValueError(f"networked seats play {', '.join(NETWORKED_FAMILIES)} levels; "
                         f"{world.family} is not one of them")


def public_layout(world: Any) -> list[str]:
    """The kitchen's map without the objects placed at the start (stations become counters)."""
    from sim.kitchen.world import START_ITEMS

    return ["".join("-" if ch in START_ITEMS else ch for ch in row) for row in world.grid]


def seat_frame(world: Any, state: Any, seat: str, *, max_ticks: int | None = None,
               assistant: str = "") -> dict[str, Any]:
    """The frame of ``seat`` at ``state``: JSON-ready, built from its observation only."""
    from sim.kitchen.world import ACTIONS, ITEM_NAMES

    check_networked(world)
    obs = world.observe(state, seat)
    agents = world.agents
    limit = world.t_max if max_ticks is None else min(world.t_max, max_ticks)
    return {
        "world": world.family,
        "tick": obs.t,
        "t_max": limit,
        "seat": seat,
        "goal": obs.goal,
        "delivered": obs.delivered,
        "done": world.done(state) or obs.t >= limit,
        "layout": public_layout(world),
        "agents": [{"name": agents[i], "row": cell // world.width, "col": cell % world.width,
                    "holds": ITEM_NAMES[held]} for i, cell, held in obs.agents],
        "stations": [{"row": world.station_cells[s] // world.width, "col": world.station_cells[s] % world.width,
                      "holds": ITEM_NAMES[item]} for s, item in obs.stations],
        "actions": list(ACTIONS),
        "assistant": assistant,
    }
