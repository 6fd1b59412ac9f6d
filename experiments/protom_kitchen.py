"""What the ProToM experiment in the kitchen adds to the generic runner (seed 003, Section 4.4,
Figures 3 and A11): a pre-check that every level's declared category is the one computed from
the simulated plans (``agents.protom.kitchen.scenario_category``). The speedup is the same
metric as on Doors, Keys and Gems (``experiments.protom_dkg:speedup``): a kitchen episode that
fails lasts ``t_max`` ticks, which is what the Session's ``ticks`` counts.

Named in ``scenarios/experiments/protom-kitchen.json``::

    "checks": [{"hook": "experiments.protom_kitchen:check_category"}],
    "metrics": [..., {"name": "speedup", "derive": "experiments.protom_dkg:speedup",
                      "params": {"of": "length"}}, ...]

``feedback_differs`` (``scenarios/experiments/protom-kitchen-ablation.json``) compares, episode by
episode, the feedback of one condition with that of another (ProToM with N = 5 or 20 particles, or
another ``stale``, against N = 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from experiments.design import ExperimentError, check_hook, derive_hook


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


def _sent(record: Mapping[str, Any]) -> list[Any]:
    """The feedback an episode's facilitator sent ([tick, target, label] each; none without one)."""
    for summary in (record.get("mechanisms") or {}).values():
        if isinstance(summary, Mapping) and "feedback" in summary:
            return list(summary["feedback"])
    return []


def _against_refers(design: Any, metric: str, params: dict[str, Any]) -> str | None:
    against = params.get("against")
    names = [c.name for c in design.conditions]
    if against not in names:
        return f"'against': {against!r} is not a condition; expected one of {', '.join(names)}"
    return None


@derive_hook(_against_refers)
def feedback_differs(episodes: Sequence[Mapping[str, Any]], design: Any, against: str) -> dict[str, float]:
    """Derived metric: 1 when the feedback an episode's facilitator sent (which, to whom, at which
    tick) differs from that of the episode of condition ``against`` on the same scenario with the
    same seed, else 0 (the seats draw the same random streams whatever the mechanism, so the two
    are paired; once their feedback differs the cooks' paths usually do too)."""
    if against not in {c.name for c in design.conditions}:
        raise ExperimentError(f"metric feedback_differs: no condition {against!r} in the design")
    other = {(e["scenario"], e["seed"]): _sent(e) for e in episodes if e["condition"] == against}
    out = {}
    for e in episodes:
        key = (e["scenario"], e["seed"])
        if key not in other:
            raise ExperimentError(f"metric feedback_differs: no {against!r} episode for {e['scenario']} seed {e['seed']}")
        out[e["key"]] = 1.0 if _sent(e) != other[key] else 0.0
    return out
