"""How far a cook is with a facilitator's Pickup or Pass it accepted, judged from the state alone.

The kitchen plug-in names :func:`feedback_progress` (``WorldPlugin.feedback_progress``), so a
human cook's accepted feedback is reported ``completed`` or ``not_executable`` as the simulated
cooks report their own (``agents/kitchen/heuristic.py``), and the facilitator's busy rule and
the views treat both alike. Payloads (docs/kitchen.md, "Feedback")::

    {"type": "pickup", "agent": "bob", "item": "FreshTomato", "at": [row, col]}
    {"type": "pass", "agent": "bob", "item": "FreshTomato", "at": [row, col], "to": "alice", "via": [row, col]}

- **Pickup** is completed once the cook holds the item and it is no longer on ``at`` (the cook
  took that one); not executable once the item is gone from ``at`` into other hands or places, or
  the cook cannot reach ``at``.
- **Pass** is completed once the item lies on ``via`` (without ``via``: on a counter other than
  ``at`` that both the cook and the receiver can reach) and the cook no longer holds it; not
  executable once the item is neither on ``at``, nor in the cook's hand, nor on that counter
  (someone else took it), or when the cook cannot reach ``at`` (before taking it) or ``via``.

Anything else (an unknown payload, a cell that is no station) is not judged (None): the seat
keeps following it until it accepts newer feedback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.kitchen.world import COUNTER, ITEM_CODE, NOTHING, KitchenState, KitchenWorld


def _station(world: KitchenWorld, at: Any) -> int | None:
    try:
        row, col = (int(x) for x in at)
    except (TypeError, ValueError):
        return None
    if not (0 <= row < world.height and 0 <= col < world.width):
        return None
    return world.station_at.get(world.cell(row, col))


def _reach(world: KitchenWorld, station: int, cell: int) -> bool:
    return world.station_dist[station][cell] >= 0


def feedback_progress(world: KitchenWorld, state: KitchenState, agent: str,
                      payload: Mapping[str, Any]) -> str | None:
    """"completed", "not_executable" or None (still to do) for ``agent``'s accepted feedback."""
    kind = payload.get("type")
    item = ITEM_CODE.get(str(payload.get("item")), NOTHING)
    i = world.agent_index.get(agent)
    source = _station(world, payload.get("at"))
    if kind not in ("pickup", "pass") or item == NOTHING or i is None or source is None:
        return None
    here, held = state.positions[i], state.held[i]
    on_source = state.contents[source] == item
    if kind == "pickup":
        if held == item and not on_source:
            return "completed"
        if not on_source or not _reach(world, source, here):
            return "not_executable"
        return None
    receiver = world.agent_index.get(str(payload.get("to")))
    if "via" in payload and payload["via"] is not None:
        via = _station(world, payload["via"])
        if via is None:
            return None
        targets = [via]
    else:  # no counter named: any counter but the source both can reach
        if receiver is None:
            return None
        there = state.positions[receiver]
        targets = [s for s, k in enumerate(world.station_kind) if k == COUNTER and s != source
                   and _reach(world, s, here) and _reach(world, s, there)]
    if held != item and any(state.contents[s] == item for s in targets):
        return "completed"
    if held != item and not on_source:
        return "not_executable"  # taken by someone else (or left elsewhere)
    if held != item and not _reach(world, source, here):
        return "not_executable"
    if not any(_reach(world, s, here) for s in targets):
        return "not_executable"
    return None
