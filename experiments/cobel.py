"""What the CoBel-World experiments on the household world add to the generic runner (seed 004,
Section 4, Tables 1-2): a pre-check that every episode is of the task kind the design measures,
since the paper's metrics differ by benchmark (TDW-MAT-like transport tasks: the transport rate
within the frame budget; C-WAH-like household tasks: the average steps L to finish), and the
episode's size for the per-scenario table.

Named in ``scenarios/experiments/cobel-household.json`` and ``cobel-transport.json``::

    "checks": [{"hook": "experiments.cobel:check_task", "params": {"task": "household"}}]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from experiments.design import ExperimentError, check_hook

TASKS = ("transport", "household")


@check_hook
def check_task(path: str, world: Any, spec: Mapping[str, Any],
               task: Literal["transport", "household"]) -> dict[str, Any]:
    """Pre-check hook: refuses an episode of another world or another task kind than ``task``;
    returns the task kind, its category, the goal units (targets or predicate units), the budget
    (frames or steps) and the number of rooms and agents."""
    if task not in TASKS:
        raise ExperimentError(f"check_task: 'task' must be one of {', '.join(TASKS)}, got {task!r}")
    if world.family != "household":
        raise ExperimentError(f"{path}: the CoBel experiments play household-world episodes, not {world.family}")
    if world.task != task:
        raise ExperimentError(f"{path}: a {world.task} task in a design of {task} tasks (their metrics differ: "
                              "transport rate within the frame budget vs steps to finish)")
    return {"task": world.task, "category": spec.get("category"), "units": world.total_goals,
            "budget": world.budget, "rooms": len(world.room_ids), "agents": len(world.agents)}
