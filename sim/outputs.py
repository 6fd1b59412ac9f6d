"""Where ToM Arena writes: checked before any work starts, so a long run never ends in a
traceback at its last line. Each check returns why the path cannot be written, or None.

* ``output_problem(folder)``: a folder that exists or can be created, and can be written to
  (probed with a temporary file: permissions, read-only and pseudo file systems all answer
  the same way);
* ``file_problem(path)``: a file that can be created or replaced there: not a folder standing
  where the file must go, not a read-only file, in a folder ``output_problem`` accepts.

The limits are documented in docs/limits.md.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


def output_problem(folder: str | os.PathLike) -> str | None:
    """Why output cannot be written into ``folder`` (which need not exist yet), or None."""
    text = os.fspath(folder)
    if not text.strip():
        return "expected a folder name, got an empty one"
    if "\x00" in text:
        return "a path cannot hold a NUL character"
    path = Path(text)
    missing: list[str] = []
    probe = path
    try:
        while not probe.exists():
            if probe.is_symlink():
                return f"{probe} is a broken symbolic link"
            missing.append(probe.name)
            if probe.parent == probe:
                break
            probe = probe.parent
        if not probe.is_dir():
            return f"{probe} is a file, not a folder"
        name_max = os.pathconf(probe, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
        long = [m for m in missing if len(os.fsencode(m)) > name_max]
        if long:
            return f"the folder name {long[0][:40]!r}... is longer than {name_max} bytes"
        fd, probe_file = tempfile.mkstemp(dir=probe, prefix=".tom-arena-write-check-")
        os.close(fd)
        os.unlink(probe_file)
    except ValueError as exc:  # an embedded NUL byte
        return f"not a usable path ({exc})"
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return "a folder name in it is longer than the file system allows"
        why = "permission denied" if exc.errno in (errno.EACCES, errno.EPERM) else (exc.strerror or str(exc))
        return f"cannot write into {str(probe)[:200]} ({why})"
    return None


def file_problem(path: str | os.PathLike, *, probe_folder: bool = True) -> str | None:
    """Why the file ``path`` cannot be written (created, or replaced), or None. ``probe_folder=False``
    leaves out the folder's check (for many files in one folder checked once)."""
    text = os.fspath(path)
    if not text.strip():
        return "expected a file name, got an empty one"
    if "\x00" in text:
        return "a path cannot hold a NUL character"
    target = Path(text)
    if text.endswith(("/", os.sep)) or target.name in ("", ".", ".."):
        return "expected a file name, got a folder"
    try:
        if target.is_dir():
            return f"{str(target)[:200]} is a folder; expected a file (or nothing) there"
        if len(os.fsencode(target.name)) > 255:
            return f"the file name {target.name[:40]!r}... is longer than 255 bytes"
        if target.exists() and not os.access(target, os.W_OK):
            return f"{str(target)[:200]} is read-only"
        if target.is_symlink() and not target.exists():
            return f"{str(target)[:200]} is a broken symbolic link"
    except (OSError, ValueError) as exc:
        return f"not a usable path ({exc})"
    return output_problem(target.parent) if probe_folder else None
