"""Recordings: an episode as JSON Lines, written as it happens and readable after a crash.

Layout of a file (optionally gzip-compressed, detected by content, not by name)::

    {"record": "header", "format": "tom-arena-recording", "version": 1, "seed": ..., ...}
    {"type": "observation", "tick": 0, ...}          one Event per line, flushed as written
    {"type": "step", "tick": 0, "joint_action": ..., "state_hash": ...}
    ...
    {"record": "footer", "outcome": {...}, "metrics": {...}, "events": N}

A file cut off mid-line, or damaged later, loads up to its last good event with a
warning that says where and why. A file from a newer format version is refused.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from sim.events import Event, EventFormatError, OutcomeEvent, StepEvent, event_from_dict

FORMAT_NAME = "tom-arena-recording"
FORMAT_VERSION = 1
GZIP_MAGIC = b"\x1f\x8b"


class RecordingError(Exception):
    """A file that cannot be read as a recording at all."""


def _dumps(obj: Any) -> bytes:
    return (json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


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
        self._write({"record": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION, **header})

    @classmethod
    def attach(cls, session: Any, path: str | os.PathLike, compress: bool | None = None) -> "RecordingWriter":
        """Record ``session`` from now on; the file closes itself when the episode ends."""
        writer = cls(path, session.header(), compress)
        session.subscribe(writer.on_event)
        return writer

    def _write(self, obj: dict[str, Any]) -> None:
        data = _dumps(obj)
        if self._gz is not None:
            self._gz.write(data)
            self._gz.flush(zlib.Z_SYNC_FLUSH)  # a readable gzip prefix after every line
        else:
            self._raw.write(data)
        self._raw.flush()

    def on_event(self, event: Event) -> None:
        if self.closed:
            return
        self._write(event.to_dict())
        self.events_written += 1
        if isinstance(event, OutcomeEvent):
            self.close(outcome=event.outcome, metrics=event.metrics)

    def close(self, outcome: dict[str, Any] | None = None, metrics: dict[str, Any] | None = None) -> None:
        """Write the footer (when the outcome is known) and close the file."""
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

    @property
    def steps(self) -> list[StepEvent]:
        return [e for e in self.events if isinstance(e, StepEvent)]

    @property
    def complete(self) -> bool:
        return self.footer is not None and not self.warnings


def _lines(path: Path, warnings: list[str]) -> Iterator[tuple[int, bytes, bool]]:
    """Yield (line number, bytes, ends_with_newline); stop quietly at a damaged gzip tail."""
    with open(path, "rb") as raw:
        magic = raw.read(2)
        raw.seek(0)
        stream: io.BufferedIOBase = gzip.GzipFile(fileobj=raw, mode="rb") if magic == GZIP_MAGIC else raw
        number = 0
        while True:
            try:
                line = stream.readline()
            except (EOFError, zlib.error, OSError) as exc:
                warnings.append(f"{path}: the compressed data ends early or is damaged after line "
                                f"{number} ({exc}); loaded what came before")
                return
            if not line:
                return
            number += 1
            yield number, line, line.endswith(b"\n")


def read_header(path: str | os.PathLike) -> dict[str, Any]:
    """Only the header (fast: for listings and the recent-files menu)."""
    path = Path(path)
    warnings: list[str] = []
    for number, line, has_newline in _lines(path, warnings):
        return _parse_header(path, line, has_newline)
    raise _no_header(path, warnings)


def _no_header(path: Path, warnings: list[str]) -> RecordingError:
    if warnings:  # a compressed file cut or damaged before its first line was complete
        return RecordingError(f"{path}: the file ends or is damaged inside its header (line 1); "
                              "it holds nothing to load")
    return RecordingError(f"{path}: the file is empty, not a ToM Arena recording")


def _parse_header(path: Path, line: bytes, has_newline: bool = True) -> dict[str, Any]:
    if not has_newline and line.startswith(b'{"record":"header"'):
        raise RecordingError(f"{path}: the file ends inside its header (line 1); it holds nothing to load")
    try:
        header = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RecordingError(f"{path}: line 1 is not JSON; this is not a ToM Arena recording") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise RecordingError(f"{path}: line 1 is not a '{FORMAT_NAME}' header; "
                             "this is not a ToM Arena recording")
    version = header.get("version")
    if not isinstance(version, int):
        raise RecordingError(f"{path}: header field 'version' must be an integer, got {version!r}")
    if version > FORMAT_VERSION:
        raise RecordingError(
            f"{path}: recorded in format version {version} by ToM Arena "
            f"{header.get('app_version', '?')}; this version reads format versions up to "
            f"{FORMAT_VERSION}. Update ToM Arena to open it.")
    return header


def load_recording(path: str | os.PathLike) -> Recording:
    """Read a whole recording. Damage after the header gives warnings, not exceptions."""
    path = Path(path)
    if not path.exists():
        raise RecordingError(f"{path}: no such file")
    warnings: list[str] = []
    header: dict[str, Any] | None = None
    events: list[Event] = []
    footer: dict[str, Any] | None = None
    expected_step = 0
    last_line = 0
    for number, line, has_newline in _lines(path, warnings):
        last_line = number
        if header is None:
            header = _parse_header(path, line, has_newline)
            expected_step = len(header.get("prefix") or [])
            continue
        if footer is not None:
            warnings.append(f"{path}: line {number} comes after the footer; ignored it and what follows")
            break
        try:
            obj = json.loads(line)
            if isinstance(obj, dict) and obj.get("record") == "footer":
                footer = obj
                continue
            event = event_from_dict(obj)
        except (json.JSONDecodeError, UnicodeDecodeError, EventFormatError) as exc:
            why = ("is cut off (the program stopped while writing it)" if not has_newline
                   else f"is damaged ({exc})")
            warnings.append(f"{path}: line {number} {why}; loaded {len(events)} events up to "
                            f"tick {events[-1].tick if events else 0}")
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
    return Recording(path=path, header=header, events=events, footer=footer, warnings=warnings)
