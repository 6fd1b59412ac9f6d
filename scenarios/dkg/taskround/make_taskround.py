"""Write the key-rush halls of the per-task-round confirmation (``teams-task-confirm``) from a fixed
seed: the recipe of ``scenarios/dkg/rush/make_rush.py`` (one vault per agent behind a red door,
one red key per agent in the hall), drawn afresh and named ``taskround-<number>-<n in words>``.

    python scenarios/dkg/taskround/make_taskround.py            # writes the shipped scenarios (seed 53)
    python scenarios/dkg/taskround/make_taskround.py --check    # exit 1 unless the files on disk are these
    python scenarios/dkg/taskround/make_taskround.py --out DIR --first 1 --count 8 --seed 7

The halls are played as in ``teams-rounds-confirm`` (five task rounds, two unreliable agents); what
the confirmation changes is the team mechanism's reading of Algorithm 1 (docs/teams.md, "Algorithm
1 judged per task round"). Every scenario is checked by ``validate_dkg`` before anything is
written; the output depends on the seed only.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from scenarios.dkg.rush.make_rush import key_rush_cli  # noqa: E402

SEED = 53


def main(argv: list[str] | None = None) -> int:
    return key_rush_cli(argv, doc=__doc__, script="make_taskround.py", here=HERE, seed=SEED, prefix="taskround",
                        title="in a key rush, judged per task round")


if __name__ == "__main__":
    sys.exit(main())
