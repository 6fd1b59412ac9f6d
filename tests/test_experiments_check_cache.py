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


def _tree(tmp_path):
    """A copy of the code (modification times kept) whose files a test may edit."""
    import shutil

    from experiments.prechecks import ROOT

    for package in ("sim", "agents", "experiments"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_the_stamp_covers_the_code_a_check_may_import(tmp_path) -> None:
    from experiments.prechecks import source_closure

    root = _tree(tmp_path)
    files = {p.relative_to(root).as_posix() for p in source_closure(["experiments.protom_dkg"], root)}
    # what the category computation imports (at any depth, lazily or by name)
    assert {"experiments/protom_dkg.py", "experiments/design.py", "agents/protom/categories.py",
            "agents/protom/dkg_rollout.py", "agents/dkg/planner.py", "sim/dkg/world.py",
            "agents/__init__.py", "agents/protom/__init__.py"} <= files
    # and not what it cannot import
    assert not files & {"experiments/runner.py", "experiments/report.py", "experiments/stats.py",
                        "sim/session.py", "agents/registry.py"}


@pytest.mark.parametrize("edited, changes", [
    ("agents/protom/categories.py", True),   # the category computation
    ("agents/dkg/planner.py", True),         # a module it imports
    ("sim/dkg/scenario.py", True),           # the world's validator, named lazily by its plug-in
    ("experiments/protom_dkg.py", True),     # the hook
    ("experiments/prechecks.py", True),      # the code that runs the hooks
    ("sim/kitchen/plugin.py", True),         # a plug-in the registry imports
    ("experiments/report.py", False),        # the report
    ("experiments/runner.py", False),        # the runner
    ("sim/session.py", False),               # episodes
    ("agents/registry.py", False),           # the seats
])
def test_the_stamp_changes_with_what_a_check_may_read(tmp_path, monkeypatch: pytest.MonkeyPatch, edited: str,
                                                     changes: bool) -> None:
    from experiments.prechecks import check_stamp

    monkeypatch.setenv("TOM_ARENA_CACHE", str(tmp_path / "cache"))
    root = _tree(tmp_path / "tree")
    before = check_stamp(["experiments.protom_dkg"], ["dkg"], root)
    assert check_stamp(["experiments.protom_dkg"], ["dkg"], root) == before
    _edit(root / edited, "\n# edited\n")
    assert (check_stamp(["experiments.protom_dkg"], ["dkg"], root) != before) is changes


def _edit(path, text: str) -> None:
    """Append ``text`` to the file; its modification time moves on by a second."""
    import os

    st = path.stat()
    path.write_text(path.read_text() + text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def test_a_new_import_brings_its_module_into_the_stamp(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names a file holds are kept between runs; an edited file is read again."""
    from experiments.prechecks import check_stamp

    monkeypatch.setenv("TOM_ARENA_CACHE", str(tmp_path / "cache"))
    root = _tree(tmp_path / "tree")
    stamp = check_stamp(["experiments.protom_dkg"], ["dkg"], root)
    _edit(root / "agents" / "protom" / "categories.py", "\n\ndef later():\n    from experiments import report\n")
    assert check_stamp(["experiments.protom_dkg"], ["dkg"], root) != stamp
    stamp = check_stamp(["experiments.protom_dkg"], ["dkg"], root)
    _edit(root / "experiments" / "report.py", "\n# edited\n")
    assert check_stamp(["experiments.protom_dkg"], ["dkg"], root) != stamp
