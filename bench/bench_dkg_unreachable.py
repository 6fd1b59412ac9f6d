"""Doors, Keys and Gems: planning every gem of a large map, reachable or not.

    .venv/bin/python -m bench.bench_dkg_unreachable [--cap SECONDS] [--seed S] [--json FILE]

The map: 24 x 26 cells, 4 x 4 rooms, 20 keys, 16 locked doors, one gem per room; some rooms
are walled off, some lie behind doors of a colour no key on the map has, some behind doors
whose keys lie in other sealed rooms (generated from ``--seed``, printed with the figures).
For every gem, from the start state, the first agent's optimal plan to hold it is asked of

- the planner (``DKGPlanner``: the relaxation check answers "no plan" before any search);
- the planner as it searched before that check (``DKGPlanner(world, relaxation=False)``,
  every door open as the heuristic), in the same process, each gem stopped after ``--cap``
  seconds (default 5).

Figures: seconds per gem and in total, expanded search nodes, and the ratio of the baseline's
total (with capped gems counted at the cap, so a lower bound) to the planner's. Both must
agree on every gem the baseline finishes. The target: every gem in under a second in total.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.dkg.planner import INF, DKGPlanner, Task  # noqa: E402
from sim.dkg.scenario import COLORS, validate_dkg  # noqa: E402
from sim.dkg.world import DKGWorld  # noqa: E402

HEIGHT, WIDTH = 24, 26
ROW_WALLS, COL_WALLS = (0, 6, 12, 18, 23), (0, 6, 12, 18, 25)
N_KEYS, N_DOORS = 20, 16
KEY_CHARS = dict(zip(COLORS, "rbygpocn"))
DOOR_CHARS = {c: k.upper() for c, k in KEY_CHARS.items()}


def big_map(seed: int = 0) -> list[str]:
    """The 24 x 26 map of the module docstring (deterministic for a seed)."""
    rng = np.random.default_rng(seed)
    grid = [["." for _ in range(WIDTH)] for _ in range(HEIGHT)]
    for r in range(HEIGHT):
        for c in range(WIDTH):
            if r in ROW_WALLS or c in COL_WALLS:
                grid[r][c] = "#"
    rooms = [(i, j) for i in range(4) for j in range(4)]

    def interior(room: tuple[int, int]) -> list[tuple[int, int]]:
        i, j = room
        return [(r, c) for r in range(ROW_WALLS[i] + 1, ROW_WALLS[i + 1])
                for c in range(COL_WALLS[j] + 1, COL_WALLS[j + 1])]

    # Openings between neighbouring rooms: 16 locked doors, the rest open gaps or solid wall.
    pairs = [((i, j), (i, j + 1)) for i in range(4) for j in range(3)] + \
            [((i, j), (i + 1, j)) for i in range(3) for j in range(4)]
    order = rng.permutation(len(pairs))
    sealed = {(3, 3), (0, 3)}  # rooms with walls on every side: out of reach whatever the doors
    door_colours = ["red", "blue", "yellow", "green", "purple", "orange", "pink", "cyan"]
    n_doors = 0
    for k in order:
        a, b = pairs[k]
        if a in sealed or b in sealed:
            continue
        if a[0] == b[0]:  # side by side: an opening in the wall column between them
            c = COL_WALLS[b[1]]
            r = int(rng.integers(ROW_WALLS[a[0]] + 1, ROW_WALLS[a[0] + 1]))
        else:
            r = ROW_WALLS[b[0]]
            c = int(rng.integers(COL_WALLS[a[1]] + 1, COL_WALLS[a[1] + 1]))
        if n_doors < N_DOORS:
            grid[r][c] = DOOR_CHARS[door_colours[n_doors % len(door_colours)]]
            n_doors += 1
        else:
            grid[r][c] = "."
    # Keys: none of cyan (cyan doors never open); six in the start room, the rest spread over
    # the rooms, sealed ones too.
    key_colours = [door_colours[i % 7] for i in range(N_KEYS)]
    free = {room: interior(room) for room in rooms}
    for k, colour in enumerate(key_colours):
        room = (1, 1) if k < 6 else rooms[int(rng.integers(len(rooms)))]
        r, c = free[room].pop(int(rng.integers(len(free[room]))))
        grid[r][c] = KEY_CHARS[colour]
    for room in rooms:  # one gem per room
        r, c = free[room].pop(int(rng.integers(len(free[room]))))
        grid[r][c] = "*"
    for ch, room in (("1", (1, 1)), ("2", (2, 2))):
        r, c = free[room].pop(0)
        grid[r][c] = ch
    return ["".join(row) for row in grid]


def big_world(seed: int = 0) -> DKGWorld:
    rows = big_map(seed)
    legend = {"#": "wall", ".": "floor", "*": {"gem": "green"}, "1": {"agent": "alice"}, "2": {"agent": "bob"}}
    legend.update({ch: {"key": colour} for colour, ch in KEY_CHARS.items()})
    legend.update({ch: {"door": colour} for colour, ch in DOOR_CHARS.items()})
    legend = {ch: e for ch, e in legend.items() if ch in "".join(rows) or ch in "#."}
    data = {"world": "dkg", "name": "bench-unreachable", "map": rows, "legend": legend,
            "goals": {"alice": "gem1", "bob": "gem2"}, "options": {"t_max": 2000}}
    return DKGWorld(validate_dkg(data, "bench", require_reachable=False))  # unreachable gems on purpose


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def plan_every_gem(world: DKGWorld, planner: DKGPlanner, cap: float | None) -> list[dict]:
    state = world.reset(0)
    rows = []
    for gem in world.gem_ids:
        task = Task.hold(world.item_index[gem])
        before = planner.stats["expanded"]
        start = time.perf_counter()
        if cap is not None:
            signal.setitimer(signal.ITIMER_REAL, cap)
        try:
            cost = planner.plan(state, 0, task).cost
            finished = True
        except _Timeout:
            cost, finished = None, False
        finally:
            if cap is not None:
                signal.setitimer(signal.ITIMER_REAL, 0)
        rows.append({"gem": gem, "seconds": time.perf_counter() - start, "finished": finished,
                     "cost": None if cost in (None, INF) else cost, "reachable": cost not in (None, INF),
                     "expanded": planner.stats["expanded"] - before})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cap", type=float, default=5.0, help="seconds per gem for the baseline (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="map seed (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGALRM, _alarm)

    world = big_world(args.seed)
    print("\n".join(world.render_text(world.reset(0)).splitlines()[:HEIGHT + 1]))
    keys = sum(it.kind == "key" for it in world.items)
    print(f"\n{world.height} x {world.width}, {keys} keys, {len(world.doors)} doors, {len(world.gem_ids)} gems\n")

    new = plan_every_gem(world, DKGPlanner(world), None)
    old = plan_every_gem(world, DKGPlanner(world, relaxation=False), args.cap)
    print(f"{'gem':6} {'plan':>6} {'planner s':>10} {'nodes':>7} {'baseline s':>11} {'nodes':>9}")
    for a, b in zip(new, old):
        base = f"{b['seconds']:.3f}" if b["finished"] else f">{args.cap:g} (cap)"
        plan = a["cost"] if a["reachable"] else "none"
        print(f"{a['gem']:6} {plan!s:>6} {a['seconds']:>10.4f} {a['expanded']:>7} {base:>11} {b['expanded']:>9}")
        if b["finished"] and b["cost"] != a["cost"]:
            print(f"error: {a['gem']}: the planner says {a['cost']}, the baseline {b['cost']}", file=sys.stderr)
            return 1
    total_new = sum(r["seconds"] for r in new)
    total_old = sum(r["seconds"] if r["finished"] else args.cap for r in old)
    capped = sum(not r["finished"] for r in old)
    print(f"\nplanner: every gem in {total_new:.3f} s ({sum(r['reachable'] for r in new)} reachable, "
          f"{sum(not r['reachable'] for r in new)} without a plan); target under 1 s: "
          f"{'met' if total_new < 1 else 'MISSED'}")
    print(f"baseline: {total_old:.1f} s with {capped} of {len(old)} gems stopped at the {args.cap:g} s cap; "
          f"ratio baseline / planner >= {total_old / total_new:.0f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"planner": new, "baseline": old, "cap": args.cap,
                                               "total_planner_s": total_new, "total_baseline_s": total_old,
                                               "baseline_capped": capped}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
