"""Write the key-rush halls of the per-task-round confirmation (``teams-task-confirm``) from a fixed
seed: the recipe of ``generators.make_rush`` (one vault per agent behind a red door,
one red key per agent in the hall), drawn afresh and named ``taskround-<number>-<n in words>``.

    python -m generators.make_taskround            # writes the shipped scenarios (seed 53)
    python -m generators.make_taskround --check    # exit 1 unless the files on disk are these
    python -m generators.make_taskround --out DIR --first 1 --count 8 --seed 7

The halls are played as in ``teams-rounds-confirm`` (five task rounds, two unreliable agents); what
the confirmation changes is the team mechanism's reading of Algorithm 1
(docs/reports/teams-task-confirm.md). Every scenario is checked by ``validate_dkg`` before
anything is written; the output depends on the seed only.
"""

from __future__ import annotations

import sys

from generators.common import team_start
from generators.make_rush import key_rush_cli
from sim.registry import SCENARIO_DIR

#: the folder of the shipped scenarios (the default of ``--out``)
FOLDER = SCENARIO_DIR / "dkg" / "taskround"
SEED = 53


#: how the app opens these halls: as the teams-task-confirm experiment plays them ("teams"): five task rounds,
#: ben and dot unreliable (noise 0.3)
START = team_start("teams:round_steps=task,window=round,max_size=eta,counter=literal,embedding=steps", rounds=5,
                   agents=("ben=tom-planner:k=cycle,horizon=3,noise=0.3", "dot=tom-planner:k=cycle,horizon=3,noise=0.3",
                           "tom-planner:k=cycle,horizon=3"))


def main(argv: list[str] | None = None) -> int:
    return key_rush_cli(argv, doc=__doc__, script="make_taskround", here=FOLDER, seed=SEED, prefix="taskround",
                        title="in a key rush, judged per task round", start=START)


if __name__ == "__main__":
    sys.exit(main())
