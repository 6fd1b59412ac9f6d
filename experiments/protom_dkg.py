"""What the ProToM experiments on Doors, Keys and Gems add to the generic runner (seed 003,
Section 4.4, Figures 3 and A10): a pre-check that every scenario's declared category is the
one computed from its joint optimum and independent plans, and the speedup metric.

Both are named in ``scenarios/experiments/protom-dkg.json`` and ``protom-dkg-paper.json``::

    "checks": [{"hook": "experiments.protom_dkg:check_category"}],
    "metrics": [..., {"name": "speedup", "derive": "experiments.protom_dkg:speedup",
                      "params": {"of": "length"}}, ...]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from experiments.design import Design, ExperimentError, check_hook, derive_hook


@check_hook
def check_category(path: str, world: Any, spec: Mapping[str, Any]) -> dict[str, Any]:
    """Pre-check hook: the computed category, L_ind and L_joint; refuses a scenario whose file
    declares another category (or none) or whose agents cannot all get their gems."""
    from agents.protom.categories import CategoryError, scenario_category

    if world.family != "dkg":
        raise ExperimentError(f"{path}: the category check is for Doors, Keys and Gems, not {world.family}")
    try:
        report = scenario_category(world)
    except CategoryError as exc:
        raise ExperimentError(f"{path}: {exc}") from None
    declared = spec.get("category")
    if declared != report.category:
        ind = report.independent_length if report.independent_length is not None else "fail"
        raise ExperimentError(f"{path}: declares {declared!r}, computed {report.category!r} (independent plans: "
                              f"{ind}, joint optimum: {report.joint_length})")
    return {"category": report.category, "independent_length": report.independent_length,
            "joint_length": report.joint_length, "agents": len(world.agents)}


def _speedup_refers(design: Design, metric: str, params: dict[str, Any]) -> str | None:
    """What a speedup metric names must be there: the baseline, and ``of``, a metric computed before it."""
    if design.baseline is None:
        return f"metric {metric!r} compares with the baseline; expected the design to name a 'baseline' condition"
    of = params.get("of", "length")
    before = [m.name for m in design.metrics if m.source]
    for m in design.metrics:
        if m.name == metric:
            break
        if m.derive:
            before.append(m.name)
    if of not in before:
        return (f"'of': {of!r} is not a metric computed before {metric!r}; expected one of "
                f"{', '.join(before) or 'none'}")
    return None


@derive_hook(_speedup_refers)
def speedup(episodes: Sequence[Mapping[str, Any]], design: Design, of: str = "length",
            against: Literal["means", "seed", "scenario"] = "means") -> dict[str, float]:
    """Derived metric: Speedup = L_baseline / L - 1 (seed 003, Section 4.3), with L a length
    (metric ``of``; a failed episode lasts t_max).

    - ``against="means"`` (the default, the paper's definition: "L_f and L_none are the average
      episode length with and without facilitator"): per scenario, the mean length of the
      baseline condition's episodes over the mean length of this condition's episodes, minus 1.
      Every episode of the scenario and condition carries that one value, so the scenario's mean
      over its seeds (what the analysis works on) is exactly the paper's ratio of means.
    - ``against="seed"``: the per-episode ratio, against the baseline's episode on the same
      scenario with the same seed (the seats draw the same random streams whatever the
      mechanism, so these are matched); the scenario's mean of it is a *mean of ratios*, which
      differs from the ratio of means (Jensen's inequality).
    - ``against="scenario"``: the per-episode ratio against the scenario's mean baseline length."""
    if design.baseline is None:
        raise ExperimentError("metric speedup: the design names no 'baseline' condition")
    if against not in ("means", "seed", "scenario"):
        raise ExperimentError(f"metric speedup: 'against' must be 'means', 'seed' or 'scenario', got {against!r}")
    base: dict[Any, list[float]] = defaultdict(list)
    for e in episodes:
        if e["condition"] == design.baseline:
            key = (e["scenario"], e["seed"]) if against == "seed" else e["scenario"]
            base[key].append(e["values"][of])
    for e in episodes:
        if e["values"][of] <= 0:
            raise ExperimentError(f"metric speedup: {e['key']} has length {e['values'][of]}")
    if against == "means":
        own: dict[Any, list[float]] = defaultdict(list)
        for e in episodes:
            own[(e["scenario"], e["condition"])].append(e["values"][of])
    out = {}
    for e in episodes:
        key = (e["scenario"], e["seed"]) if against == "seed" else e["scenario"]
        lengths = base.get(key)
        if not lengths:
            raise ExperimentError(f"metric speedup: no {design.baseline!r} episode for {e['scenario']}"
                                  + (f" seed {e['seed']}" if against == "seed" else ""))
        if against == "means":
            mine = own[(e["scenario"], e["condition"])]
            length = sum(mine) / len(mine)
        else:
            length = e["values"][of]
        out[e["key"]] = round(sum(lengths) / len(lengths) / length - 1, 9)
    return out
