"""What one networked seat is sent: its own observation, never the hidden state.

``seat_frame`` builds the frame from ``World.observe(state, seat)`` and the layout alone.

- **kitchen**: the kitchen's walls, floors, doors and station kinds (known to everyone), with the
  letters that place objects at the start replaced by plain counters, the cooks' names and the
  rules of vision; the objects and cooks the seat sees now; its own goal and the step it delivered
  it. The other cook's goal, what lies in rooms the seat does not see and where an unseen cook
  stands never leave the host. ``seat_world`` turns such a frame back into a kitchen World and a
  state holding nothing but what the frame holds, so that the participant's window draws it with
  the app's own kitchen view under the seat's fog of war.
- **dkg** (Doors, Keys and Gems): the map is fully observable (walls, doors and whether they are
  open, the keys and gems on the floor, both players and what they hold, whose turn it is), as in
  the paper; the seat's own goal gem and its legal moves. The other player's goal gem never
  leaves the host.

Networked seats play these families (``NETWORKED_FAMILIES``). ``experimenter_frame`` is the
whole state, both goals included, for the host's own window only.
"""

from __future__ import annotations

from typing import Any

from sim.world import World

NETWORKED_FAMILIES = ("kitchen", "dkg")
#: the largest kitchen a seat rebuilds from a frame (``seat_world``; the study kitchens have about 100 cells)
MAX_SEAT_CELLS = 2500
#: the keys a participant presses and the kitchen action each sends
KEY_ACTIONS = {"Up": "up", "W": "up", "Down": "down", "S": "down", "Left": "left", "A": "left",
               "Right": "right", "D": "right", "Space": "stay"}
#: Doors, Keys and Gems: the key -> the kind of action; ``dkg_action`` picks the legal one
DKG_KEYS = {"Up": "up", "W": "up", "Down": "down", "S": "down", "Left": "left", "A": "left",
            "Right": "right", "D": "right", "Space": "wait", "P": "pickup", "U": "unlock", "H": "handover"}


def dkg_action(kind: str, actions: list[str]) -> str | None:
    """The legal action of ``kind`` (a move, wait, pickup, unlock, handover) a key press means, from
    the seat's legal ``actions``: a move as it is; otherwise the first of that verb (the item on the
    cell, the door next to it with the lowest-numbered matching key, the first held item to the
    other player). None when no such action is legal now."""
    if kind in actions:
        return kind
    return next((a for a in actions if a.split(" ")[0] == kind and (kind != "unlock" or a.count(" ") == 1)),
                None)


def check_networked(world: World) -> None:
    """ValueError when ``world`` cannot be played over the network."""
    if world.family not in NETWORKED_FAMILIES:
        raise ValueError(f"networked seats play {', '.join(NETWORKED_FAMILIES)} levels; "
                         f"{world.family} is not one of them")
    if getattr(world, "orders", ()):
        raise ValueError(f"networked seats play kitchens where each cook has its own dish; {getattr(world, 'name', 'this level')}'s orders "
                         "are shared by all cooks (gym-cooking's rules)")
    if world.family == "kitchen" and not isinstance(getattr(world, "rules", None), int):
        raise ValueError(f"networked seats play kitchens under ToM Arena's own rules; {getattr(world, 'name', 'this level')} "
                         f"plays under {getattr(world, 'rules', 'other')!r} rules")


def public_layout(world: Any) -> list[str]:
    """The kitchen's map without the objects placed at the start (stations become counters)."""
    from sim.kitchen.world import START_ITEMS

    return ["".join("-" if ch in START_ITEMS else ch for ch in row) for row in world.grid]


def seat_frame(world: Any, state: Any, seat: str, *, max_ticks: int | None = None,
               assistant: str = "") -> dict[str, Any]:
    """The frame of ``seat`` at ``state``: JSON-ready, built from its observation only."""
    from sim.kitchen.world import ACTIONS, ITEM_NAMES

    check_networked(world)
    if world.family == "dkg":
        return _dkg_frame(world, world.observe(state, seat).state, seat, max_ticks, assistant)
    obs = world.observe(state, seat)
    agents = world.agents
    limit = world.t_max if max_ticks is None else min(world.t_max, max_ticks)
    return {
        "world": world.family,
        "tick": obs.t,
        "t_max": limit,
        "seat": seat,
        "cooks": list(agents),
        "rules": world.rules,
        "goal": obs.goal,
        "delivered": obs.delivered,
        "delivered_at": state.delivered[world.agent_index[seat]] if obs.delivered else -1,
        "done": world.done(state) or obs.t >= limit,
        "layout": public_layout(world),
        "agents": [{"name": agents[i], "row": cell // world.width, "col": cell % world.width,
                    "holds": ITEM_NAMES[held]} for i, cell, held in obs.agents],
        "stations": [{"row": world.station_cells[s] // world.width, "col": world.station_cells[s] % world.width,
                      "holds": ITEM_NAMES[item]} for s, item in obs.stations],
        "actions": list(ACTIONS),
        "assistant": assistant,
    }


def seat_world(frame: dict[str, Any]) -> tuple[Any, Any]:
    """A seat's kitchen frame (``seat_frame``) as a kitchen World and a state that hold only what the
    frame holds: the public layout, the cooks' names, the seat's own goal; the cooks and station
    contents it sees. Drawn with the seat's eyes (``Overlays(viewer=seat)``) they look as the seat's
    view of the real kitchen: the layout and the vision rules are the same, so the same rooms are in
    view. What the frame leaves out stays unknown: stations out of view hold nothing (the view
    draws them fogged, with a question mark), a cook out of view stands on a cell the seat does
    not see (the view does not draw it), and the other cook's goal is the seat's own (the view
    draws only the viewer's goal). ValueError when the frame is not a kitchen seat's frame."""
    from sim.kitchen.world import ITEM_CODE, NOTHING, KitchenState, KitchenWorld

    try:
        seat, names, layout = str(frame["seat"]), [str(n) for n in frame["cooks"]], [str(r) for r in frame["layout"]]
        if seat not in names or not layout or len({len(r) for r in layout}) != 1:
            raise ValueError("the seat, its cooks or its layout do not fit together")
        if len(layout) * len(layout[0]) > MAX_SEAT_CELLS or len(names) > 16:
            raise ValueError(f"a kitchen larger than {MAX_SEAT_CELLS} cells or with more than 16 cooks")
        seen = {str(a["name"]): (int(a["row"]), int(a["col"]), str(a["holds"])) for a in frame["agents"]}
        here = seen[seat]
        spec = {"name": "seat", "t_max": int(frame["t_max"]), "collisions": "block", "rules": int(frame["rules"]),
                "map": layout, "agents": [{"name": n, "start": list(seen.get(n, here)[:2]), "goal": frame["goal"]}
                                          for n in names]}
        world = KitchenWorld(spec)
        if not all(0 <= r < world.height and 0 <= c < world.width and world.walkable[world.cell(r, c)]
                   for r, c, _ in seen.values()):
            raise ValueError("a cook off the floor")
        look = world.cell(here[0], here[1])
        hidden = next((c for c in range(world.height * world.width)
                       if world.walkable[c] and not world.view[c] & world.view[look]), look)
        positions = tuple(world.cell(*seen[n][:2]) if n in seen else hidden for n in names)
        held = tuple(ITEM_CODE[seen[n][2]] if n in seen else NOTHING for n in names)
        contents = [NOTHING] * len(world.station_cells)
        for s in frame["stations"]:
            contents[world.station_at[world.cell(int(s["row"]), int(s["col"]))]] = ITEM_CODE[str(s["holds"])]
        delivered = tuple(int(frame.get("delivered_at", -1)) if n == seat and frame["delivered"] else -1
                          for n in names)
        state = KitchenState(t=int(frame["tick"]), positions=positions, held=held, contents=tuple(contents),
                             delivered=delivered)
    except (KeyError, TypeError, ValueError, IndexError, AssertionError, AttributeError) as exc:
        raise ValueError(f"not a kitchen seat's frame: {exc}") from None
    return world, state


def experimenter_frame(world: Any, state: Any, *, max_ticks: int | None = None) -> dict[str, Any]:
    """The whole state at ``state`` for the host's own window (the experimenter's read-only view):
    every cook, every station's content and both goals, in the shape of a seat's frame
    (``seat`` is empty, ``goals`` added). Never sent to a seat."""
    from sim.kitchen.world import ITEM_NAMES

    check_networked(world)
    if world.family == "dkg":
        return _dkg_frame(world, state, "", max_ticks, "")
    limit = world.t_max if max_ticks is None else min(world.t_max, max_ticks)
    return {
        "world": world.family,
        "tick": state.t,
        "t_max": limit,
        "seat": "",
        "goals": {a: world.goals[a] for a in world.agents},
        "delivered": {a: state.delivered[i] >= 0 for i, a in enumerate(world.agents)},
        "done": world.done(state) or state.t >= limit,
        "layout": public_layout(world),
        "agents": [{"name": a, "row": state.positions[i] // world.width, "col": state.positions[i] % world.width,
                    "holds": ITEM_NAMES[state.held[i]]} for i, a in enumerate(world.agents)],
        "stations": [{"row": cell // world.width, "col": cell % world.width, "holds": ITEM_NAMES[state.contents[s]]}
                     for s, cell in enumerate(world.station_cells)],
    }


def _dkg_frame(world: Any, state: Any, seat: str, max_ticks: int | None, assistant: str) -> dict[str, Any]:
    """A Doors, Keys and Gems frame: the seat's (``seat``: its goal and legal moves) or, with
    ``seat`` empty, the experimenter's (every goal, no moves)."""
    limit = world.t_max if max_ticks is None else min(world.t_max, max_ticks)
    agents = world.agents

    def item(i: int) -> dict[str, Any]:
        it = world.items[i]
        return {"id": it.id, "kind": it.kind, "color": it.color}

    layout = ["".join("#" if world.walls[r * world.width + c] else "." for c in range(world.width))
              for r in range(world.height)]
    frame: dict[str, Any] = {
        "world": world.family,
        "tick": state.t,
        "t_max": limit,
        "seat": seat,
        "turn": "" if world.done(state) else agents[state.turn],
        "done": world.done(state) or state.t >= limit,
        "layout": layout,
        "doors": [{"id": d.id, "color": d.color, "row": d.cell // world.width, "col": d.cell % world.width,
                   "open": bool(state.open_doors >> k & 1)} for k, d in enumerate(world.doors)],
        "items": [{**item(i), "row": loc // world.width, "col": loc % world.width}
                  for i, loc in enumerate(state.item_locs) if loc >= 0],
        "agents": [{"name": a, "row": state.agent_cells[k] // world.width, "col": state.agent_cells[k] % world.width,
                    "holds": [item(i) for i in world.held_by(state, a)]} for k, a in enumerate(agents)],
    }
    if seat:
        goal = world.goal_of(seat)
        frame.update({"goal": goal or "", "goal_color": world.items[world.item_index[goal]].color if goal else "",
                      "delivered": world.holds_goal(state, world.agent_index[seat]),
                      "actions": list(world.legal_actions(state, seat)), "assistant": assistant})
    else:
        frame.update({"goals": dict(world.goals),
                      "delivered": {a: world.holds_goal(state, world.agent_index[a]) for a in world.goals}})
    return frame
