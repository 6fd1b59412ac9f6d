"""Write the joint-task halls of the pre-declared confirmation ``teams-joint-confirm`` from a fixed
seed: the recipe of ``generators.make_joint`` (vaults behind plate doors, each opened only by two
agents on its two plates at once), drawn afresh with a seed no earlier run used and named
``jointconfirm-<number>-<n in words>``.

    python -m generators.make_jointconfirm            # writes the shipped scenarios (seed 97)
    python -m generators.make_jointconfirm --check    # exit 1 unless the files on disk are these

The design was committed before these halls were written or played
(docs/reports/teams-joint-confirm.md). Every scenario is checked by ``validate_dkg`` before
anything is written; the output depends on the seed only.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from generators.common import Recipe
from generators.make_joint import hall
from sim.registry import SCENARIO_DIR

#: the folder of the shipped scenarios (the default of ``--out``)
FOLDER = SCENARIO_DIR / "dkg" / "jointconfirm"
SEED = 97
FIRST = 1
COUNT = 16


def scenario(number: int, n: int, rng: random.Random) -> dict[str, Any]:
    return hall(number, n, rng, prefix="jointconfirm")


main = Recipe("make_jointconfirm", scenario, FOLDER, SEED, FIRST, COUNT, __doc__).main


if __name__ == "__main__":
    sys.exit(main())
