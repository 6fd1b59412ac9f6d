"""A private X virtual framebuffer (Xvfb) for tests, benchmarks and screenshots.

``virtual_display()`` starts ``Xvfb`` on a free display number (``-displayfd`` lets the
server pick and report it), yields the ``DISPLAY`` value, and stops the server after.
Xvfb is installed by ``scripts/setup.sh``.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
from collections.abc import Iterator


class XvfbError(RuntimeError):
    pass


@contextlib.contextmanager
def virtual_display(width: int = 1600, height: int = 1000, depth: int = 24,
                    timeout: float = 15.0) -> Iterator[str]:
    binary = shutil.which("Xvfb")
    if binary is None:
        raise XvfbError("Xvfb is not installed: run 'bash scripts/setup.sh' (it installs the xvfb package)")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [binary, "-displayfd", str(write_fd), "-screen", "0", f"{width}x{height}x{depth}",
         "-nolisten", "tcp", "-noreset"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], timeout)
        number = os.read(read_fd, 64).decode().strip() if ready else ""
        if not number:
            proc.kill()
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise XvfbError(f"Xvfb did not start within {timeout:.0f} s: {err.strip()[-500:]}")
        yield f":{number}"
    finally:
        os.close(read_fd)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr:
            proc.stderr.close()


def display_env(display: str) -> dict[str, str]:
    """Environment for a child process that should draw on ``display`` through Qt's xcb platform."""
    env = dict(os.environ)
    env.update({"DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "SDL_VIDEODRIVER": "dummy",
                "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"})
    env.pop("WAYLAND_DISPLAY", None)
    return env
