"""Pre-check results come from a cache when neither the scenario nor the code changed."""

from __future__ import annotations

import pytest

import agents.protom.categories as categories
from experiments.design import load_design
from experiments.runner import resolve_scenarios, run_checks
from sim.registry import SCENARIO_DIR

PROTOM = SCENARIO_DIR / "experiments" / "protom-dkg.json"


def test_checks_are_computed_once(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOM_ARENA_CACHE", str(tmp_path / "cache"))
    design = load_design(PROTOM)
    refs = resolve_scenarios(["protom-01-open-hall", "protom-13-on-the-way"])
    first = run_checks(design, refs)
    assert first["protom-01-open-hall"]["joint_length"] > 0

    def refuse(*args, **kwargs):
        raise AssertionError("computed again")

    monkeypatch.setattr(categories, "scenario_category", refuse)
    assert run_checks(design, refs) == first  # from the cache: the same attributes
    # another scenario file (another spec hash) is checked afresh
    moved = [ref.__class__(**{**ref.__dict__, "spec_hash": "changed"}) for ref in refs[:1]]
    with pytest.raises(AssertionError, match="computed again"):
        run_checks(design, moved)
