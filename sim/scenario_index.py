"""The scenario catalogue from a cached index: names, worlds, titles, categories, seats and
descriptions of every scenario file without reading (or building) each one at every start.

The index is a JSON file in the user's cache folder (``$XDG_CACHE_HOME/tom-arena`` or
``~/.cache/tom-arena``; ``TOM_ARENA_CACHE`` names another folder), one per installation. Each scenario file has an
entry valid for its path, modification time and size; the whole index is valid for a stamp of
the code that reads scenarios (``sim/**/*.py``: path, modification time, size), of every other
file under ``scenarios/`` (rule sets and other data a scenario refers to) and of the program's
version. A file whose entry is stale is read, validated and built again, and the index
rewritten (atomically: a reader never sees half a file); an unreadable or damaged index is
rebuilt, never an error. Only the catalogue comes from the index: a scenario that is started
is read and checked in full (``sim.registry.load_scenario``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sim.inputs import InputError, read_json
from sim.registry import SCENARIO_DIR, ScenarioError, ScenarioInfo, Start, build_world, read_scenario, scenario_paths

INDEX_FORMAT = "tom-arena-scenario-index"
INDEX_VERSION = 2  # 2: entries keep the file's start (seats and mechanisms)
SIM_DIR = Path(__file__).resolve().parent

#: the entries of this process: (stamp, path, mtime_ns, size) -> ScenarioInfo or a problem
_MEMORY: dict[tuple[str, str, int, int], ScenarioInfo | str] = {}


class _IndexError(InputError):
    pass


def cache_dir() -> Path:
    """Where the index lives (not created here)."""
    named = os.environ.get("TOM_ARENA_CACHE")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tom-arena"


def cache_path(name: str) -> Path:
    """This installation's cache file ``name`` (one per ``scenarios/`` folder: checkouts side by
    side keep their own)."""
    where = hashlib.blake2b(str(SCENARIO_DIR).encode(), digest_size=6).hexdigest()
    return cache_dir() / f"{name}-{where}.json"


def index_path() -> Path:
    """This installation's scenario index."""
    return cache_path("scenario-index")


def _walk(folder: Path, suffix: str = "") -> Iterable[tuple[str, int, int]]:
    stack = [str(folder)]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if entry.name != "__pycache__":
                                stack.append(entry.path)
                        elif entry.name.endswith(suffix):
                            st = entry.stat()
                            yield entry.path, st.st_mtime_ns, st.st_size
                    except OSError:
                        continue
        except OSError:
            continue


def _stamp(scenario_files: set[str]) -> str:
    """A digest of the code that reads scenarios, of the data files scenarios refer to and of
    the program's version: when any of them changes, every entry is read again."""
    import sim

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{INDEX_VERSION} {sim.__version__}".encode())
    code = sorted(_walk(SIM_DIR, ".py"))
    data = sorted(entry for entry in _walk(SCENARIO_DIR) if entry[0] not in scenario_files)
    for path, mtime, size in (*code, *data):
        digest.update(f"{path}\0{mtime}\0{size}\n".encode())
    return digest.hexdigest()


def _info_of(path: Path) -> ScenarioInfo | str:
    try:
        family, spec, start = read_scenario(path)
        world = build_world(family, spec)
        return ScenarioInfo(name=spec["name"], family=family, path=path, title=spec.get("title", ""),
                            category=spec.get("category"), agents=tuple(world.agents),
                            description=str(spec.get("description", "")), start=start)
    except (ScenarioError, KeyError, TypeError, ValueError) as exc:
        return str(exc)


def _from_json(entry: Any, path: Path) -> ScenarioInfo | str | None:
    """An index entry's info or problem, or None when the entry is not well formed."""
    if isinstance(entry.get("problem"), str):
        return str(entry["problem"])
    info = entry.get("info")
    if not isinstance(info, dict):
        return None
    texts = ("name", "family", "title", "description")
    if not all(isinstance(info.get(k), str) for k in texts) or not (
            info.get("category") is None or isinstance(info.get("category"), str)) or not (
            isinstance(info.get("agents"), list) and all(isinstance(a, str) for a in info["agents"])):
        return None
    start = info.get("start")
    if not (isinstance(start, dict) and all(isinstance(start.get(k), list) and all(isinstance(s, str) for s in start[k])
                                            for k in ("agents", "mechanisms"))
            and (start.get("rounds") is None or type(start.get("rounds")) is int)):
        return None
    return ScenarioInfo(name=info["name"], family=info["family"], path=path, title=info["title"],
                        category=info["category"], agents=tuple(info["agents"]), description=info["description"],
                        start=Start(tuple(start["agents"]), tuple(start["mechanisms"]), start.get("rounds")))


def _to_json(value: ScenarioInfo | str) -> dict[str, Any]:
    if isinstance(value, str):
        return {"problem": value}
    return {"info": {"name": value.name, "family": value.family, "title": value.title, "category": value.category,
                     "agents": list(value.agents), "description": value.description,
                     "start": {"agents": list(value.start.agents), "mechanisms": list(value.start.mechanisms),
                               "rounds": value.start.rounds}}}


def read_cache(path: Path, stamp: str, form: str = INDEX_FORMAT) -> dict[str, Any]:
    """The entries of the cache file at ``path`` when it is of this ``form`` and version and its
    stamp matches, else {} (a missing, damaged or stale cache is rebuilt, never an error)."""
    try:
        data = read_json(path, _IndexError)
    except (InputError, OSError):
        return {}
    if not (isinstance(data, dict) and data.get("format") == form and data.get("version") == INDEX_VERSION
            and data.get("stamp") == stamp and isinstance(data.get("entries"), dict)):
        return {}
    return data["entries"]


def write_cache(path: Path, stamp: str, entries: dict[str, Any], form: str = INDEX_FORMAT) -> None:
    """Replace the cache file atomically; a folder that cannot be written only costs time."""
    import json

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"format": form, "version": INDEX_VERSION, "stamp": stamp, "entries": entries},
                          fh, ensure_ascii=False, separators=(",", ":"))
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def scan(index: Path | None = None) -> tuple[list[tuple[Path, ScenarioInfo | str]], int]:
    """(every scenario file with its info or the problem that keeps it out, how many files were
    read afresh), in ``scenario_paths()`` order, from the index at ``index`` (default: in
    ``cache_dir()``, ``index_path()``) where it is still valid."""
    index = index or index_path()
    paths = scenario_paths()
    keyed: list[tuple[Path, str, int, int]] = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            continue
        keyed.append((path, str(path), st.st_mtime_ns, st.st_size))
    stamp = _stamp({text for _, text, _, _ in keyed})
    stored: dict[str, Any] | None = None
    out: list[tuple[Path, ScenarioInfo | str]] = []
    fresh = 0
    entries: dict[str, Any] = {}
    for path, text, mtime, size in keyed:
        key = (stamp, text, mtime, size)
        value = _MEMORY.get(key)
        if value is None:
            if stored is None:
                stored = read_cache(index, stamp)
            entry = stored.get(_relative(path))
            if isinstance(entry, dict) and entry.get("mtime_ns") == mtime and entry.get("size") == size:
                value = _from_json(entry, path)
        if value is None:
            value = _info_of(path)
            fresh += 1
        _MEMORY[key] = value
        entries[_relative(path)] = {"mtime_ns": mtime, "size": size, **_to_json(value)}
        out.append((path, value))
    if fresh or stored is not None and set(stored) != set(entries):
        write_cache(index, stamp, entries)
    return out, fresh


def _relative(path: Path) -> str:
    try:
        return path.relative_to(SCENARIO_DIR).as_posix()
    except ValueError:
        return str(path)
