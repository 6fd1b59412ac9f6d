"""Ctrl+C and ``kill`` end the app cleanly: the real app in its own process (offscreen), a live
episode being recorded, then SIGINT or SIGTERM. It must exit with code 0, having handled the
signal itself, and leave a complete recording (its footer written); ``timeout N python main.py``
must end it. While a seat is deciding, the app runs on a real X server (a private Xvfb) and must
abandon the decision rather than wait for it (it says so).

Nothing here depends on timing. A decision under way is certain: the ``held`` agent
(agents/held/) waits until the test creates a file, and the LLM seat's model answers after 60 s,
so an app that exits while it waits did not wait for it, and says so. ``GONE_WITHIN`` only keeps
a broken app from hanging the suite: it is far above what closing takes on a loaded machine (the
paused app took 2.2-2.5 s to exit at a load average of 11)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.recording import load_recording
from tests.llm_loopback import LoopbackLLM
from ui.shots.xvfb import display_env, virtual_display

ROOT = Path(__file__).resolve().parent.parent
#: seconds after a signal at which an app still running counts as hung (see above)
GONE_WITHIN = 45.0
#: what the app writes on stderr when it handles SIGINT or SIGTERM (ui/app.py, QuitOnSignal)
RECEIVED = "{} received, closing"
#: ... and when closing abandoned a decision under way instead of waiting for it
ABANDONED = "a decision under way was abandoned"


def settings_file(tmp_path: Path) -> Path:
    ini = tmp_path / "settings.ini"
    ini.write_text(f"[General]\nrecordings_dir={tmp_path / 'recordings'}\nwelcomed=true\n")
    return ini


def app_env() -> dict[str, str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    env.pop("SDL_NO_SIGNAL_HANDLERS", None)  # the app must set what it needs itself
    return env


def start_app(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "main.py", *args, "--settings", str(settings_file(tmp_path))],
                            cwd=ROOT, env=env or app_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def x_display():
    """A private X server for the app (the xcb platform, as on a desktop)."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (bash scripts/setup.sh installs it)")
    with virtual_display(1366, 768, 24) as display:
        env = display_env(display)
        env.pop("SDL_NO_SIGNAL_HANDLERS", None)
        yield env


def signal_and_wait(proc: subprocess.Popen, sig: signal.Signals) -> str:
    """Send ``sig``; the app must be gone within ``GONE_WITHIN`` s with exit code 0, having closed
    because of that signal. Its stderr."""
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=GONE_WITHIN)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"{sig.name}: the app was still running {GONE_WITHIN:.0f} s later") from None
    assert proc.returncode == 0, err[-2000:]
    assert RECEIVED.format(sig.name) in err, err[-2000:]  # its own handler closed it
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]
    print(f"{sig.name}: gone {time.monotonic() - sent:.2f} s after the signal")
    return err


def signal_abandons_the_decision(proc: subprocess.Popen, sig: signal.Signals, path: Path) -> None:
    """Send ``sig`` while a decision is under way: the app abandons it (and says so) rather than
    wait for it, exit code 0, gone within ``GONE_WITHIN`` s, its recording ended as stopped."""
    err = signal_and_wait(proc, sig)
    assert ABANDONED in err, err[-2000:]
    recording = load_recording(path)
    assert recording.complete, "the recording has no footer"
    assert recording.footer["outcome"]["stopped"] is True


def wait_for_steps(proc: subprocess.Popen, folder: Path, steps: int, timeout: float = 60.0) -> Path:
    """The recording of the live episode, once it holds ``steps`` step lines."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, f"the app ended early: {proc.communicate()[1][-2000:]}"
        files = list(folder.glob("*.jsonl"))
        if files and files[0].read_text().count('"type":"step"') >= steps:
            return files[0]
        time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"no recording with {steps} steps in {timeout:.0f} s: {proc.communicate()[1][-2000:]}")


def wait_for_file(proc: subprocess.Popen, path: Path, timeout: float = 120.0) -> None:
    """Until ``path`` exists (written by the app's ``held`` seat when its decision starts)."""
    end = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the app ended early: {proc.communicate()[1][-2000:]}")
        if time.monotonic() > end:
            proc.kill()
            raise AssertionError(f"{path.name} was not created in {timeout:.0f} s: {proc.communicate()[1][-2000:]}")
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_closes_the_app_cleanly(tmp_path, sig):
    proc = start_app(tmp_path, "--speed", "4")  # no "gui" word: options alone open the app
    path = wait_for_steps(proc, tmp_path / "recordings", 2)
    err = signal_and_wait(proc, sig)
    assert "unexpected error" not in err, err[-2000:]
    recording = load_recording(path)
    assert recording.complete, "the recording has no footer"
    assert recording.footer["outcome"]["stopped"] is True  # ended by the signal, mid-episode
    assert len(recording.steps) >= 2


def test_timeout_ends_the_app_in_time(tmp_path):
    """`timeout N python main.py` sends SIGTERM after N s; the app must be gone right after, and
    leave no recording without its footer. When the window was up by then (the usual case) the
    app closed itself and its episode's recording is complete; on a machine so loaded that the
    app was still starting, the signal ended it before it opened any recording."""
    started = time.monotonic()
    result = subprocess.run(["timeout", "8", sys.executable, "main.py", "--paused", "--settings",
                             str(settings_file(tmp_path))], cwd=ROOT, env=app_env(), capture_output=True,
                            text=True, timeout=8 + GONE_WITHIN + 5)
    elapsed = time.monotonic() - started
    assert result.returncode == 124, result.stderr[-2000:]  # timeout's code: it had to send SIGTERM
    assert elapsed < 8 + GONE_WITHIN, f"gone {elapsed - 8:.1f} s after the timeout's SIGTERM"
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    recordings = list((tmp_path / "recordings").glob("*.jsonl"))
    up = RECEIVED.format("SIGTERM") in result.stderr
    print(f"timeout: {'the app closed itself' if up else 'still starting'}, {elapsed - 8:.2f} s after SIGTERM")
    if up:  # the app was up and closed itself
        (path,) = recordings
        assert load_recording(path).complete  # paused, no steps, but a complete file
    else:  # still starting when the signal came: ended at once, nothing half-written
        assert not recordings, result.stderr[-2000:]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_while_a_seat_decides_abandons_the_decision(tmp_path, sig, x_display):
    """A seat whose second decision is under way for as long as the test wants (the ``held``
    agent waits until the test creates a file): a signal in the middle of it abandons the
    decision: the app is gone at once, exit code 0, and the recording ends there as stopped."""
    release, holding = tmp_path / "release", tmp_path / "holding"
    held = f"held:release={release},holding={holding},at=2"
    proc = start_app(tmp_path, "gui", "two-rooms", "--agents", held, "planner", "--speed", "64", env=x_display)
    try:
        wait_for_file(proc, holding)  # the decision is under way, and stays so until released
        path, = (tmp_path / "recordings").glob("*.jsonl")
        signal_abandons_the_decision(proc, sig, path)
        assert len(load_recording(path).steps) >= 1
    finally:
        release.touch()  # a failed test leaves no app waiting
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_while_an_llm_seat_thinks_abandons_the_call(tmp_path, sig, x_display):
    """An LLM seat whose model takes a minute to answer (a real HTTP server on loopback): a
    signal while its call waits ends the app at once (not when the answer comes), exit code 0,
    recording stopped."""
    with LoopbackLLM("timeout", delay=60) as server:
        seat = f"llm:base_url={server.base_url},timeout=60,max_retries=0"
        proc = start_app(tmp_path, "gui", "two-rooms", "--agents", seat, "planner", "--speed", "64", env=x_display)
        end = time.monotonic() + 60
        while not server.requests and time.monotonic() < end:
            assert proc.poll() is None, f"the app ended early: {proc.communicate()[1][-2000:]}"
            time.sleep(0.1)
        assert server.requests, "the LLM seat never asked its model"  # its call now waits 60 s
        files = list((tmp_path / "recordings").glob("*.jsonl"))
        assert files, "no recording"
        signal_abandons_the_decision(proc, sig, files[0])
