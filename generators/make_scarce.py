"""Write Doors, Keys and Gems scarce-key halls from a fixed seed: the key-rush halls of
``generators.make_rush`` with only as many red keys as a team of ceil(n / 2) members
needs. Any key opens any vault and none is spare, so a teammate who goes for a key another
member takes must find one that nobody else needs: who takes which key is what the agents must
predict of each other, and a wrong prediction costs a detour.

    python -m generators.make_scarce --out DIR --seed 1 --count 16   # the pilot's halls
    python -m generators.make_scarce --out DIR --check ...            # exit 1 unless DIR holds these

None are shipped: the halls were a pilot (docs/reports/teams-diagnose.md, "Scarce-key halls: a pilot"), which
``python main.py teams diagnose DIR/*.json`` repeats. Without ``--out`` it writes into
scenarios/dkg/scarce, where the scenario commands find the halls by name (``scarce-01-seven``).

The recipe is the key-rush recipe (21 x 10 map, a 19 x 6 hall, a vault of one cell per agent
behind a red door, no two vaults side by side, agents and keys on distinct random hall cells,
goals and turn order at random, 5-8 agents, ``t_max`` = 40 turns per agent) with ceil(n / 2)
keys instead of n. Every scenario is checked by ``validate_dkg`` before anything is written; the
output depends on the seed only.
"""

from __future__ import annotations

import math
import random
import sys
from typing import Any

from generators.common import Recipe
from generators.make_rush import hall
from sim.registry import SCENARIO_DIR

#: the folder of the shipped scenarios (the default of ``--out``)
FOLDER = SCENARIO_DIR / "dkg" / "scarce"
SEED = 1  # the pilot's
FIRST = 1
COUNT = 48


def scenario(number: int, n: int, rng: random.Random) -> dict[str, Any]:
    """One scenario, ``scarce-<number>-<n in words>``: ceil(n/2) keys, drawn from ``rng``."""
    return hall(number, n, rng, keys=math.ceil(n / 2), prefix="scarce", title="short of keys",
                about_keys="one red key per member of a team of ceil(n/2)")


RECIPE = Recipe("make_scarce", scenario, FOLDER, SEED, FIRST, COUNT, __doc__)
generate, main = RECIPE.generate, RECIPE.main


if __name__ == "__main__":
    sys.exit(main())
