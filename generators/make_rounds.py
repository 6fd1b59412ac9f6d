"""Write the key-rush halls of the task-rounds confirmation (``teams-rounds-confirm``) from a fixed
seed: the recipe of ``generators.make_rush`` (one vault per agent behind a red door,
one red key per agent in the hall), drawn afresh and named ``rounds-<number>-<n in words>``.

    python -m generators.make_rounds            # writes the shipped scenarios (seed 43)
    python -m generators.make_rounds --check    # exit 1 unless the files on disk are these
    python -m generators.make_rounds --out DIR --first 1 --count 8 --seed 7

What differs from the key-rush confirmation is not the halls but how they are played: five task
rounds per episode, two of the agents unreliable (docs/reports/teams-rounds-confirm.md). Every
scenario is checked by ``validate_dkg`` before anything is written; the output depends on the
seed only.
"""

from __future__ import annotations

import sys

from generators.common import team_start
from generators.make_rush import key_rush_cli
from sim.registry import SCENARIO_DIR

#: the folder of the shipped scenarios (the default of ``--out``)
FOLDER = SCENARIO_DIR / "dkg" / "rounds"
SEED = 43


#: how the app opens these halls: as the teams-rounds-confirm experiment plays them ("teams"): five task rounds,
#: ben and dot unreliable (noise 0.3)
START = team_start("teams:round_steps=6,max_size=eta,embedding=steps", rounds=5,
                   agents=("ben=tom-planner:k=cycle,horizon=3,noise=0.3", "dot=tom-planner:k=cycle,horizon=3,noise=0.3",
                           "tom-planner:k=cycle,horizon=3"))


def main(argv: list[str] | None = None) -> int:
    return key_rush_cli(argv, doc=__doc__, script="make_rounds", here=FOLDER, seed=SEED, prefix="rounds",
                        title="in a key rush, in rounds", start=START)


if __name__ == "__main__":
    sys.exit(main())
