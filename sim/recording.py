"""Recordings: an episode as JSON Lines, written as it happens and readable after a crash.

Layout of a file (optionally gzip-compressed, detected by content, not by name)::

    {"record": "header", "format": "tom-arena-recording", "version": 3, "seed": ..., ..., "chain": C0}
    {"type": "observation", "tick": 0, ..., "chain": C1}     one Event per line, flushed as written
    {"type": "step", "tick": 0, "joint_action": ..., "state_hash": ..., "chain": C2}
    ...
    {"record": "footer", "outcome": {...}, "metrics": {...}, "events": N, "chain": Cn}

The hash chain: the header's ``C0`` is a digest of the header line's own bytes (world,
scenario data, seats, mechanisms, seed, prefix...), and each later line's ``chain`` is a
digest of the previous line's value and the line's own bytes, each taken without its
``chain`` field (BLAKE2b, 8 bytes, in hex; the field is always last on its line). An
edited, inserted or removed line therefore breaks the chain at that line, and the loader
says so ("the recording was changed after it was written: header / step N") instead of
replaying a different episode. The chain detects changes; it is not a signature (whoever
edits a file on purpose can recompute it).

A file cut off mid-line, or damaged later, loads up to its last good event with a
warning that says where and why. A file from a newer format version is refused. Older files
load with their header upgraded in memory (``upgrade_header``), and ``convert_recording``
writes them in the current version:

* version 1: no chain; ``facilitator`` and ``team`` in the header instead of ``mechanisms``;
* version 2: no ``questions`` in the header (the teaching questions the episode was played
  with, ``sim/questions.py``); read as ``"questions": null``, "not kept": a replay takes its
  scenario file's.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import os
import threading
import types
import typing
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from sim.events import Event, EventFormatError, OutcomeEvent, StepEvent, event_from_dict, event_type
from sim.inputs import InputError, check_tree, parse_json
from sim.questions import read_questions
from sim.redact import scrub

FORMAT_NAME = "tom-arena-recording"
FORMAT_VERSION = 3
#: the header fields each format version brought (a header of an earlier version must not carry them)
HEADER_FIELD_SINCE = {"chain": 2, "mechanisms": 2, "questions": 3}
GZIP_MAGIC = b"\x1f\x8b"
#: longest line read (LLM transcripts are the longest events; documented in docs/limits.md)
MAX_LINE_BYTES = 64 * 1024 * 1024
_CHAIN_BYTES = 8
_HEX = 2 * _CHAIN_BYTES
_CHAIN_TAIL = b',"chain":"'


class RecordingError(InputError):
    """A file that cannot be read as a recording at all."""


def _dumps(obj: Any) -> bytes:
    """One compact JSON line (without the newline), scrubbed of secrets (``sim.redact``): the
    header, every event (whichever seat produced it) and the footer."""
    obj = scrub(obj)
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from some mind's text: keep it as a \\uXXXX escape
        return json.dumps(obj, separators=(",", ":")).encode("utf-8")


def _link(previous: bytes, content: bytes) -> bytes:
    return hashlib.blake2b(previous + content, digest_size=_CHAIN_BYTES).hexdigest().encode()


def _sealed(content: bytes, tail: bytes, value: bytes) -> bytes:
    """``{...}`` -> ``{...,"chain":"value"}\\n`` (every recorded object has fields)."""
    return content[:-1] + tail + value + b'"}\n'


def _unsealed(line: bytes, tail: bytes) -> tuple[bytes, bytes] | None:
    """(content, value) of a sealed line, or None when the line carries no seal."""
    body = line[:-1] if line.endswith(b"\n") else line
    n = len(tail) + _HEX + 2
    if len(body) < n + 1 or not body.endswith(b'"}') or body[-n:-_HEX - 2] != tail:
        return None
    return body[:-n] + b"}", body[-_HEX - 2:-2]


class RecordingWriter:
    """Writes one episode. Each line reaches the operating system as soon as it is written,
    so a crash of the program loses at most the line being written."""

    def __init__(self, path: str | os.PathLike, header: dict[str, Any], compress: bool | None = None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if compress is None:
            compress = self.path.suffix == ".gz"
        self._raw: BinaryIO = open(self.path, "wb")
        self._gz: gzip.GzipFile | None = (gzip.GzipFile(fileobj=self._raw, mode="wb", filename="")
                                          if compress else None)
        self.events_written = 0
        self.closed = False
        #: a session may be abandoned mid-decision: its footer is then written from another thread
        self._lock = threading.RLock()
        content = _dumps({"record": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION, **header})
        self._chain = _link(b"", content)
        self._put(_sealed(content, _CHAIN_TAIL, self._chain))

    @classmethod
    def attach(cls, session: Any, path: str | os.PathLike, compress: bool | None = None) -> "RecordingWriter":
        """Record ``session`` from now on; the file closes itself when the episode ends."""
        writer = cls(path, session.header(), compress)
        session.subscribe(writer.on_event)
        return writer

    def _write(self, obj: dict[str, Any]) -> None:
        content = _dumps(obj)
        self._chain = _link(self._chain, content)
        self._put(_sealed(content, _CHAIN_TAIL, self._chain))

    def _put(self, data: bytes) -> None:
        if self._gz is not None:
            self._gz.write(data)
            self._gz.flush(zlib.Z_SYNC_FLUSH)  # a readable gzip prefix after every line
        else:
            self._raw.write(data)
        self._raw.flush()

    def on_event(self, event: Event) -> None:
        with self._lock:
            if self.closed:
                return
            self._write(event.to_dict())
            self.events_written += 1
            if isinstance(event, OutcomeEvent):
                self.close(outcome=event.outcome, metrics=event.metrics)

    def close(self, outcome: dict[str, Any] | None = None, metrics: dict[str, Any] | None = None) -> None:
        """Write the footer (when the outcome is known) and close the file (thread-safe: events
        that arrive later are dropped)."""
        with self._lock:
            self._close(outcome, metrics)

    def _close(self, outcome: dict[str, Any] | None, metrics: dict[str, Any] | None) -> None:
        if self.closed:
            return
        if outcome is not None:
            self._write({"record": "footer", "outcome": outcome, "metrics": metrics or {},
                         "events": self.events_written})
        if self._gz is not None:
            self._gz.close()
        self._raw.flush()
        self._raw.close()
        self.closed = True


@dataclass
class Recording:
    path: Path
    header: dict[str, Any]
    events: list[Event]
    footer: dict[str, Any] | None
    warnings: list[str] = field(default_factory=list)
    #: things the reader should know that lose nothing (e.g. a version 2 file read as version 3)
    notes: list[str] = field(default_factory=list)
    #: the format version of the file itself (the header in memory is always the current one)
    file_version: int = FORMAT_VERSION
    #: where the hash chain broke ("header" never loads; "step N", "footer", "line N")
    changed_at: str | None = None

    @property
    def unverified(self) -> str | None:
        """The warning to show with a file that has no hash chain (format version 1), or None."""
        if self.file_version >= 2:
            return None
        return (f"{self.path}: format version {self.file_version} has no hash chain: nothing in it is verified, "
                "so an edit that keeps every type right (another map, seed or action) replays as if it had been "
                f"played; convert it ('python main.py recording convert') only if you trust where it came from")

    @property
    def steps(self) -> list[StepEvent]:
        return [e for e in self.events if isinstance(e, StepEvent)]

    @property
    def complete(self) -> bool:
        return self.footer is not None and not self.warnings


def _lines(path: Path, warnings: list[str]) -> Iterator[tuple[int, bytes, bool]]:
    """Yield (line number, bytes, ends_with_newline); stop quietly at a damaged gzip tail."""
    try:
        raw_file = open(path, "rb")
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    with raw_file as raw:
        magic = raw.read(2)
        raw.seek(0)
        stream: io.BufferedIOBase = gzip.GzipFile(fileobj=raw, mode="rb") if magic == GZIP_MAGIC else raw
        number = 0
        while True:
            try:
                line = stream.readline(MAX_LINE_BYTES + 1)
            except (EOFError, zlib.error, OSError) as exc:
                warnings.append(f"{path}: the compressed data ends early or is damaged after line "
                                f"{number} ({exc}); loaded what came before")
                return
            if not line:
                return
            number += 1
            if len(line) > MAX_LINE_BYTES:
                warnings.append(f"{path}: line {number} is longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB; "
                                "expected shorter lines (docs/limits.md); loaded what came before")
                return
            yield number, line, line.endswith(b"\n")


def _check_path(path: Path) -> None:
    try:
        exists, is_dir = path.exists(), path.is_dir()
    except (OSError, ValueError) as exc:  # a NUL byte or an over-long name
        raise RecordingError(f"{str(path)[:200]}: cannot read the file "
                             f"({getattr(exc, 'strerror', None) or exc})") from None
    if not exists:
        raise RecordingError(f"{path}: no such file")
    if is_dir:
        raise RecordingError(f"{path}: is a folder; expected a recording file (.jsonl or .jsonl.gz)")


def read_header(path: str | os.PathLike) -> dict[str, Any]:
    """Only the header, checked and in the current format (fast: for listings and menus)."""
    path = Path(path)
    _check_path(path)
    warnings: list[str] = []
    for _number, line, has_newline in _lines(path, warnings):
        return _parse_header(path, line, has_newline)[0]
    raise _no_header(path, warnings)


def _no_header(path: Path, warnings: list[str]) -> RecordingError:
    if warnings:  # a compressed file cut or damaged before its first line was complete
        return RecordingError(f"{path}: the file ends or is damaged inside its header (line 1); "
                              "it holds nothing to load")
    return RecordingError(f"{path}: the file is empty, not a ToM Arena recording")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _header_problem(header: dict[str, Any], version: int) -> str | None:
    """What is wrong with a header's fields (after the format and version are known), or None."""
    def is_object_list(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(x, dict) for x in value)

    checks: list[tuple[str, bool, bool, str]] = [  # field, required, valid, expected
        ("world", True, isinstance(header.get("world"), str), "the world's name"),
        ("spec", True, isinstance(header.get("spec"), dict), "the scenario data (an object)"),
        ("seed", True, _is_count(header.get("seed")), "a non-negative integer"),
        ("prefix", False, header.get("prefix") is None or is_object_list(header.get("prefix")),
         "a list of joint actions (objects)"),
        ("seats", False, isinstance(header.get("seats"), dict)
         and all(isinstance(v, dict) for v in header["seats"].values()), "an object of seat descriptions"),
        ("scenario", False, isinstance(header.get("scenario"), str), "the scenario's name"),
        ("app_version", False, isinstance(header.get("app_version"), str), "a version string"),
        ("rounds", False, _is_count(header.get("rounds")) and header.get("rounds", 1) >= 1,
         "a whole number >= 1 (task rounds)"),
    ]
    if version >= 2:
        checks.append(("mechanisms", False, is_object_list(header.get("mechanisms")) and all(
            isinstance(m.get("kind"), str) and isinstance(m.get("name"), str) for m in header["mechanisms"]),
            "a list of {kind, name, ...} objects"))
    else:
        for key in ("facilitator", "team"):
            value = header.get(key)
            checks.append((key, False, value is None or (isinstance(value, dict) and isinstance(value.get("kind"), str)),
                           "null or a {kind, ...} object"))
    if version >= 3:  # each question is read strictly afterwards (``read_questions``)
        checks.append(("questions", True, header.get("questions") is None or isinstance(header.get("questions"), list),
                       "the teaching questions the episode was played with (a list, [] for none), or null "
                       "(not kept: a file converted from format version 2 or before)"))
    for name, required, valid, expected in checks:
        if name not in header:
            if required:
                return f"header field '{name}': missing; expected {expected}"
            continue
        if not valid:
            return f"header field '{name}': expected {expected}, got {header[name]!r:.80}"
    return None


HEADER_ORDER = ("record", "format", "version", "app_version", "world", "scenario", "spec", "seed", "seats",
                "mechanisms", "prefix", "rounds", "questions")


def upgrade_header(header: dict[str, Any]) -> dict[str, Any]:
    """An older header (checked) in the current form. Version 1: its facilitator (and team
    mechanism, when it had one) become the ``mechanisms`` list, each named by its kind, as
    Session.header() names them. Versions 1 and 2: ``questions`` is null (not kept)."""
    version = header["version"]
    upgraded = {k: v for k, v in header.items() if k != "chain"}
    if version < 2:
        upgraded["mechanisms"] = [{**header[key], "name": header[key]["kind"]}
                                  for key in ("facilitator", "team") if header.get(key) is not None]
        upgraded = {k: v for k, v in upgraded.items() if k not in ("facilitator", "team")}
    if version < 3:
        upgraded["questions"] = None
    upgraded["version"] = FORMAT_VERSION
    ordered = {k: upgraded[k] for k in HEADER_ORDER if k in upgraded}
    return {**ordered, **upgraded}


def _upgrade_note(path: Path, header: dict[str, Any], version: int) -> str:
    """What reading a version ``version`` file as the current version changed (``header``: upgraded)."""
    changes = []
    if version < 2:
        names = ", ".join(m["name"] for m in header["mechanisms"]) or "none"
        changes.append(f"its facilitator is now the mechanism list: {names}")
    changes.append("it does not keep the teaching questions it was played with: a replay takes its scenario "
                   "file's, as they are now")
    convert = (f"; 'python main.py recording convert' writes it as version {FORMAT_VERSION} with a hash chain"
               if version < 2 else "")
    return (f"{path}: format version {version}, read as version {FORMAT_VERSION} ({'; '.join(changes)}); "
            f"nothing else differs{convert}")


def _parse_header(path: Path, line: bytes, has_newline: bool = True
                  ) -> tuple[dict[str, Any], bytes | None, list[str], int]:
    """(header in the current form, the chain's first value or None for version 1, notes, the
    file's format version)."""
    if not has_newline and line.startswith(b'{"record":"header"'):
        raise RecordingError(f"{path}: the file ends inside its header (line 1); it holds nothing to load")
    try:
        header = json.loads(line)
    except (ValueError, RecursionError):
        raise RecordingError(f"{path}: line 1 is not JSON; this is not a ToM Arena recording") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise RecordingError(f"{path}: line 1 is not a '{FORMAT_NAME}' header; "
                             "this is not a ToM Arena recording")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordingError(f"{path}: header field 'version' must be an integer (1 or more), got {version!r:.40}")
    if version > FORMAT_VERSION:
        raise RecordingError(
            f"{path}: recorded in format version {version} by ToM Arena "
            f"{header.get('app_version', '?')!s:.40}; this version reads format versions up to "
            f"{FORMAT_VERSION}. Update ToM Arena to open it.")
    for key, since in HEADER_FIELD_SINCE.items():  # a newer header with its version number edited
        if version < since and key in header:
            off = " (which would switch the hash chain off)" if version < 2 else ""
            raise RecordingError(
                f"{path}: header field '{key}': a version {since} field in a header that says \"version\": "
                f"{version}{off}; expected \"version\": {since}, or a version {version} header without it")
    chain: bytes | None = None
    content = line
    if version >= 2:
        sealed = _unsealed(line, _CHAIN_TAIL)
        if sealed is None or _link(b"", sealed[0]) != sealed[1]:
            raise RecordingError(f"{path}: the recording was changed after it was written: header (line 1 does "
                                 "not match its digest, so the map, seats, seed or options may differ from "
                                 "what was played); it cannot be replayed as recorded")
        content, chain = sealed
    # strictly, now: a duplicate key or a lone surrogate would be silently reinterpreted
    parse_json(content, f"{path}: header (line 1)", RecordingError, allow_nonfinite=True)
    problem = _header_problem(header, version)
    if problem:
        raise RecordingError(f"{path}: {problem}")
    # what rebuilds the world holds only finite numbers (seats may record a NaN parameter)
    check_tree({"spec": header["spec"], "prefix": header.get("prefix")}, f"{path}: header", RecordingError)
    if header.get("questions") is not None:  # as strictly as a scenario file's (not against the world's names)
        seats = header.get("seats")
        read_questions(header["questions"], list(seats) if isinstance(seats, dict) else None, f"{path}: header",
                       RecordingError)
    notes = []
    if version < FORMAT_VERSION:
        header = upgrade_header(header)
        notes.append(_upgrade_note(path, header, version))
    return header, chain, notes, version


def _event_problem(obj: Any) -> str | None:
    """Why a parsed line is not a well-formed event, or None (types the replay relies on)."""
    if type(obj) is not dict:
        return f"expected a JSON object, got {type(obj).__name__}"
    kind, tick = obj.get("type"), obj.get("tick")
    if type(kind) is not str:
        return f"field 'type': expected an event type name, got {kind!r:.40}"
    if type(tick) is not int or tick < 0:
        return f"field 'tick': expected a non-negative integer, got {tick!r:.40}"
    if kind == "step":
        joint = obj.get("joint_action")
        if not isinstance(joint, dict) or not joint:
            return f"field 'joint_action': expected an object of agents' actions, got {joint!r:.60}"
        if not isinstance(obj.get("state_hash"), str):
            return f"field 'state_hash': expected text, got {obj.get('state_hash')!r:.40}"
    return None


@functools.lru_cache(maxsize=None)
def _field_types(kind: str) -> tuple[tuple[str, tuple[type, ...], bool], ...]:
    """(field, accepted JSON types, may be null) of each field of an event type, from its annotations."""
    cls = event_type(kind)
    if cls is None:
        return ()
    out = []
    for name, hint in typing.get_type_hints(cls).items():
        if typing.get_origin(hint) is typing.ClassVar:
            continue
        options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
        accepted: list[type] = []
        for option in options:
            base = typing.get_origin(option) or option
            if base is typing.Any:
                accepted = []
                break
            if base is float:
                accepted += [int, float]
            elif base in (str, int, bool, dict, list):
                accepted.append(base)
        if accepted:
            out.append((name, tuple(accepted), type(None) in options))
    return tuple(out)


def _fields_problem(obj: dict[str, Any]) -> str | None:
    """A field of a version 1 event whose JSON type its event class does not take, or None."""
    for name, accepted, nullable in _field_types(obj["type"]):
        value = obj.get(name)
        if name not in obj or (value is None and nullable):
            continue
        if isinstance(value, bool) and bool not in accepted or not isinstance(value, accepted):
            return (f"field '{name}': expected {' or '.join(t.__name__ for t in accepted)}"
                    f"{' or null' if nullable else ''}, got {value!r:.40}")
    return None


def _describe(content: bytes, expected_step: int) -> str:
    """What a line that broke the chain claims to be, for the message."""
    try:
        obj = json.loads(content)
    except (ValueError, RecursionError):
        return f"after step {expected_step - 1}" if expected_step else "before step 0"
    if isinstance(obj, dict) and obj.get("record") == "footer":
        return "footer"
    if isinstance(obj, dict) and obj.get("type") == "step":
        return f"step {expected_step}"
    kind = obj.get("type") if isinstance(obj, dict) else None
    return f"{kind!s:.30} event" + (f" after step {expected_step - 1}" if expected_step else " before step 0")


class LoadCancelled(Exception):
    """Reading a recording was given up (``cancelled`` said so): the reader wants it no more."""


def load_recording(path: str | os.PathLike, *, cancelled: Callable[[], bool] | None = None) -> Recording:
    """Read a whole recording. Damage after the header gives warnings, not exceptions.
    ``cancelled``: asked every few hundred lines; when it answers True the reading stops with
    ``LoadCancelled`` (a window closing while a large file loads)."""
    path = Path(path)
    _check_path(path)
    warnings: list[str] = []
    notes: list[str] = []
    header: dict[str, Any] | None = None
    events: list[Event] = []
    footer: dict[str, Any] | None = None
    changed_at: str | None = None
    chain: bytes | None = None
    file_version = FORMAT_VERSION
    expected_step = 0
    last_line = 0

    def loaded() -> str:
        return f"loaded {len(events)} events up to tick {events[-1].tick if events else 0}"

    for number, line, has_newline in _lines(path, warnings):
        last_line = number
        if cancelled is not None and number % 256 == 0 and cancelled():
            raise LoadCancelled(f"{path}: reading given up at line {number}")
        if header is None:
            header, chain, notes, file_version = _parse_header(path, line, has_newline)
            expected_step = len(header.get("prefix") or [])
            continue
        if footer is not None:
            warnings.append(f"{path}: line {number} comes after the footer; ignored it and what follows")
            break
        content = line
        if chain is not None:
            sealed = _unsealed(line, _CHAIN_TAIL)
            if sealed is None or _link(chain, sealed[0]) != sealed[1]:
                if not has_newline:
                    warnings.append(f"{path}: line {number} is cut off (the program stopped while writing it); "
                                    f"{loaded()}")
                    break
                changed_at = _describe(line if sealed is None else sealed[0], expected_step)
                warnings.append(f"{path}: the recording was changed after it was written: {changed_at} (line "
                                f"{number} does not match the hash chain: edited, damaged, inserted, or a line "
                                f"before it removed); {loaded()}")
                break
            content, chain = sealed
        try:
            if chain is not None:  # sealed: written by ToM Arena as it is
                obj = json.loads(content.decode("utf-8"))
            else:  # version 1: no chain, so read as strictly as any other input
                obj = parse_json(content, f"line {number}", EventFormatError, allow_nonfinite=True)
                if isinstance(obj, dict) and "chain" in obj:
                    raise EventFormatError("field 'chain': a version 2 hash chain in a file whose header says "
                                           "version 1 (the header's version was edited); expected no chain")
            if isinstance(obj, dict) and obj.get("record") == "footer":
                if not isinstance(obj.get("outcome"), dict):
                    raise EventFormatError(f"footer field 'outcome': expected an object, got {obj.get('outcome')!r:.40}")
                footer = obj
                continue
            problem = _event_problem(obj) or (None if chain is not None else _fields_problem(obj))
            if problem:
                raise EventFormatError(problem)
            event = event_from_dict(obj)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, EventFormatError
            why = ("is cut off (the program stopped while writing it)" if not has_newline
                   else f"is damaged ({str(exc)[:200]})")
            warnings.append(f"{path}: line {number} {why}; {loaded()}")
            break
        if isinstance(event, StepEvent):
            if event.tick != expected_step:
                warnings.append(f"{path}: line {number} is step {event.tick} but step {expected_step} "
                                f"was expected; loaded {len(events)} events before it")
                break
            expected_step += 1
        events.append(event)
    if header is None:
        raise _no_header(path, warnings)
    if footer is None and not warnings:
        warnings.append(f"{path}: no footer after line {last_line}; the episode was cut short after "
                        f"{expected_step} steps (loaded {len(events)} events)")
    return Recording(path=path, header=header, events=events, footer=footer, warnings=warnings, notes=notes,
                     file_version=file_version, changed_at=changed_at)


def convert_recording(src: str | os.PathLike, dst: str | os.PathLike, compress: bool | None = None) -> Recording:
    """Write ``src`` (any version this program reads) as a current-version recording at ``dst``
    with a hash chain. Every event is kept as it was; a damaged or cut ``src`` converts to what
    loads, and its warnings are in the returned Recording. ``dst`` must not exist yet."""
    recording = load_recording(src)
    dst = Path(dst)
    try:
        if dst.exists() or dst.is_symlink():
            raise RecordingError(f"{dst}: already exists; expected a new file name")
        if dst.resolve() == recording.path.resolve():
            raise RecordingError(f"{dst}: is the file being converted; expected a new file name")
    except (OSError, ValueError) as exc:
        raise RecordingError(f"{dst}: cannot write here ({getattr(exc, 'strerror', None) or exc})") from None
    header = {k: v for k, v in recording.header.items() if k not in ("record", "format", "version", "chain")}
    try:
        writer = RecordingWriter(dst, header, compress)
    except OSError as exc:
        raise RecordingError(f"{dst}: cannot write the file ({exc.strerror or exc})") from None
    try:
        for event in recording.events:
            writer._write(event.to_dict())
            writer.events_written += 1
        if recording.footer is not None:
            footer = {k: v for k, v in recording.footer.items() if k != "chain"}
            footer["events"] = writer.events_written
            writer._write(footer)
    finally:
        writer.close()
    return recording
