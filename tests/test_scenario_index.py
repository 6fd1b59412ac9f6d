"""The cached scenario index: the catalogue read from it equals the one read from the files,
and an entry is read again exactly when its file (or the data and code around it) changed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sim import registry, scenario_index
from sim.registry import SCENARIO_DIR, list_scenarios

SOURCES = ["dkg/protom-01-open-hall.json", "dkg/protom-05-trio.json"]


@pytest.fixture()
def scenarios(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scenarios/ folder of a few real files, and an index of its own."""
    root = tmp_path / "scenarios"
    for name in SOURCES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SCENARIO_DIR / name, root / name)
    monkeypatch.setattr(registry, "SCENARIO_DIR", root)
    monkeypatch.setattr(scenario_index, "SCENARIO_DIR", root)
    monkeypatch.setenv("TOM_ARENA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(scenario_index, "_MEMORY", {})
    return root


def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new start of the program knows: nothing but the index on disk."""
    monkeypatch.setattr(scenario_index, "_MEMORY", {})


def test_index_gives_what_the_files_give(scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, read = scenario_index.scan()
    assert read == len(SOURCES)
    assert scenario_index.index_path().is_file()
    fresh_process(monkeypatch)
    again, read = scenario_index.scan()
    assert read == 0  # nothing read: every entry came from the index
    assert again == first
    assert [info for _, info in again] == list_scenarios()
    assert all(info.description for _, info in again)  # the summaries the Session panel shows


def test_a_changed_file_is_read_again(scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_index.scan()
    path = scenarios / SOURCES[1]
    data = json.loads(path.read_text())
    data["title"] = "Renamed in place"
    path.write_text(json.dumps(data))
    fresh_process(monkeypatch)
    entries, read = scenario_index.scan()
    assert read == 1
    assert dict(entries)[path].title == "Renamed in place"


def test_a_changed_data_file_invalidates_the_index(scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario_index.scan()
    (scenarios / "dkg" / "rules").mkdir()
    (scenarios / "dkg" / "rules" / "extra.data").write_text("referred to by no scenario, but it might be")
    fresh_process(monkeypatch)
    assert scenario_index.scan()[1] == len(SOURCES)


def test_a_broken_file_is_a_problem_in_the_index_too(scenarios: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = scenarios / "dkg" / "broken.json"
    bad.write_text('{"world": "dkg", "name": "broken"}')
    first, _ = scenario_index.scan()
    problem = dict(first)[bad]
    assert isinstance(problem, str) and "broken.json" in problem
    fresh_process(monkeypatch)
    again, read = scenario_index.scan()
    assert read == 0 and dict(again)[bad] == problem


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"format": "something else"}', b"\xff\xfe\x00"])
def test_a_damaged_index_is_rebuilt(scenarios: Path, monkeypatch: pytest.MonkeyPatch, damage: bytes) -> None:
    first, _ = scenario_index.scan()
    scenario_index.index_path().write_bytes(damage)
    fresh_process(monkeypatch)
    again, read = scenario_index.scan()
    assert read == len(SOURCES) and again == first
    fresh_process(monkeypatch)
    assert scenario_index.scan()[1] == 0  # and written again


def test_an_unwritable_cache_only_costs_time(scenarios: Path, monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TOM_ARENA_CACHE", str(blocker / "cache"))
    entries, read = scenario_index.scan()
    assert read == len(SOURCES) and len(entries) == len(SOURCES)
    assert not os.path.exists(blocker / "cache")
