"""What the ProToM experiment in the kitchen adds to the generic runner (seed 003, Section 4.4,
Figures 3 and A11): a pre-check that every level's declared category is the one computed from
the simulated plans (``agents.protom.kitchen.scenario_category``). The speedup is the same
metric as on Doors, Keys and Gems (``experiments.protom_dkg:speedup``): a kitchen episode that
fails lasts ``t_max`` ticks, which is what the Session's ``ticks`` counts.

Named in ``scenarios/experiments/protom-kitchen.json``::

    "checks": [{"hook": "experiments.protom_kitchen:check_category"}],
    "metrics": [..., {"name": "speedup", "derive": "experiments.protom_dkg:speedup",
                      "params": {"of": "length"}}, ...]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.design import ExperimentError, check_hook


@check_hook
def check_category(path: str, world: Any, spec: Mapping[str, Any]) -> dict[str, Any]:
    """Pre-check hook: the computed category, L_ind, L_joint and the best feedback at the start;
    refuses a level whose file declares another category (or none), whose category is not
    clear-cut, or that the cooks cannot finish even with one feedback."""
    from agents.protom.categories import CategoryError
    from agents.protom.kitchen import scenario_category

    if world.family != "kitchen":
        raise ExperimentError(f"{path}: the kitchen category check is for kitchen levels, not {world.family}")
    try:
        report = scenario_category(world)
    except CategoryError as exc:
        raise ExperimentError(f"{path}: {exc}") from None
    declared = spec.get("category")
    if declared != report.category:
        raise ExperimentError(f"{path}: declares {declared!r}, computed {report.describe()}")
    return {"category": report.category, "independent_length": report.independent_length,
            "joint_length": report.joint_length, "best_feedback": report.best_feedback,
            "agents": len(world.agents)}
