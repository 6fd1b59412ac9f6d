"""Record random episodes of overcooked_ai 1.1.0 for the kitchen's differential test.

Runs in a side environment that has overcooked_ai 1.1.0 (numpy < 2) installed, never in the
project's own (scripts/setup.sh makes it under ~/.cache/tom-arena/overcooked-venv)::

    ~/.cache/tom-arena/overcooked-venv/bin/python scripts/overcooked_traces.py OUT_DIR [--steps N]

For every layout that overcooked_ai ships (overcooked_ai_py/data/layouts/*.layout) it copies the
layout file to OUT_DIR/layouts/, draws N joint actions uniformly at random (each player one of
overcooked_ai's six actions, a fixed seed per layout), steps them through
``OvercookedGridworld.get_state_transition`` from the layout's standard start state (and N more steps in short episodes from random start
states, see ``record``), and writes OUT_DIR/<layout>.json.gz: per episode the start state, the
actions, every state and both rewards per player (sparse and shaped) after each step. The output
is byte-for-byte the same on every run.

State encoding (the test decodes the same): ``{"t": timestep, "players": [[x, y, dx, dy, held]...],
"objects": [[x, y, name, [ingredients...], cooking_tick]...] sorted by (x, y)}``, with ``held``
null or ``[name, [ingredients...], cooking_tick]``; ingredients and ticks are ``[]`` and -1 for
objects that are not soups. Actions are indices into ``up down right left stay interact``
(overcooked_ai's Action.INDEX_TO_ACTION order: NORTH, SOUTH, EAST, WEST, STAY, INTERACT).
A reward that is not finite (a layout's ``order_bonus`` may be ``float('inf')``) is written as
the string "inf" or "-inf".
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import shutil
import sys
from pathlib import Path

VERSION = "1.1.0"
SEED = 24


def _obj(obj):  # noqa: ANN001, ANN202 (overcooked_ai's objects)
    if obj.name == "soup":
        return [obj.name, list(obj.ingredients), obj._cooking_tick]
    return [obj.name, [], -1]


def _state(state):  # noqa: ANN001, ANN202
    players = [[*p.position, *p.orientation, None if p.held_object is None else _obj(p.held_object)]
               for p in state.players]
    objects = sorted([*pos, *_obj(obj)] for pos, obj in state.objects.items())
    return {"t": state.timestep, "players": players, "objects": objects}


def _reward(value):  # noqa: ANN001, ANN202
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else "-inf"
    return value


def _episode(mdp, state, rng: random.Random, steps: int, weights: list[int]) -> dict:  # noqa: ANN001
    from overcooked_ai_py.mdp.actions import Action

    actions, states, sparse, shaped = [], [], [], []
    start = _state(state)
    for _ in range(steps):
        joint = [rng.choices(range(len(Action.INDEX_TO_ACTION)), weights=weights)[0] for _ in state.players]
        state, info = mdp.get_state_transition(state, [Action.INDEX_TO_ACTION[a] for a in joint])
        actions.append("".join(map(str, joint)))
        states.append(_state(state))
        sparse.append([_reward(r) for r in info["sparse_reward_by_agent"]])
        shaped.append([_reward(r) for r in info["shaped_reward_by_agent"]])
    return {"start": start, "actions": actions, "states": states, "sparse": sparse, "shaped": shaped}


def record(name: str, steps: int) -> dict:
    """Two runs of ``steps`` steps each: the first from the layout's standard start with every
    action equally likely; the second, so that cooking, soups and deliveries occur more often
    than a uniform walk makes them, as 20 short episodes from overcooked_ai's random start
    states (random positions; each pot and hand filled at random with probability 0.5, soups
    cooking or finished) with ``interact`` drawn three times as often as each move."""
    import numpy as np
    from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld

    mdp = OvercookedGridworld.from_layout_name(name)
    rng = random.Random(f"{SEED}:{name}")
    episodes = [dict(_episode(mdp, mdp.get_standard_start_state(), rng, steps, [1] * 6), kind="uniform")]
    np.random.seed(SEED)
    start_fn = mdp.get_random_start_state_fn(random_start_pos=True, rnd_obj_prob_thresh=0.5)
    for _ in range(20):
        episodes.append(dict(_episode(mdp, start_fn(), rng, steps // 20, [1, 1, 1, 1, 0, 3]), kind="random-start"))
    return {"layout": name, "overcooked_ai": VERSION, "seed": SEED, "episodes": episodes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    from importlib.metadata import version

    import overcooked_ai_py
    if version("overcooked_ai") != VERSION:
        print(f"error: overcooked_ai {version('overcooked_ai')} is installed; expected {VERSION}", file=sys.stderr)
        return 2
    layouts = Path(overcooked_ai_py.__file__).parent / "data" / "layouts"
    (args.out / "layouts").mkdir(parents=True, exist_ok=True)
    for path in sorted(layouts.glob("*.layout")):
        shutil.copyfile(path, args.out / "layouts" / path.name)
        text = json.dumps(record(path.stem, args.steps), separators=(",", ":")).encode()
        (args.out / f"{path.stem}.json.gz").write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
