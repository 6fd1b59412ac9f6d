"""Ctrl+C and ``kill`` end the app cleanly: the real app in its own process (offscreen), a live
episode being recorded, then SIGINT or SIGTERM. It must exit with code 0 within 5 s and leave a
complete recording (its footer written); ``timeout N python main.py`` must end it in N s. While
ProToM or an LLM seat is deciding, the app runs on a real X server (a private Xvfb) and must be
gone within 2 s of the signal."""

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
from ui.xvfb import display_env, virtual_display

ROOT = Path(__file__).resolve().parent.parent


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


def signal_within_two_seconds(proc: subprocess.Popen, sig: signal.Signals, path: Path) -> None:
    """Send ``sig``; the app must be gone within 2 s, exit code 0, its recording ended as stopped."""
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"{sig.name}: the app was still running 30 s later") from None
    exited_after = time.monotonic() - sent
    assert proc.returncode == 0, err[-2000:]
    assert exited_after < 2.0, f"{sig.name}: the app took {exited_after:.1f} s to exit"
    assert "Traceback" not in err, err[-2000:]
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


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_closes_the_app_cleanly(tmp_path, sig):
    proc = start_app(tmp_path, "--speed", "4")  # no "gui" word: options alone open the app
    path = wait_for_steps(proc, tmp_path / "recordings", 2)
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"{sig.name}: the app was still running 5 s later") from None
    assert time.monotonic() - sent < 5
    assert proc.returncode == 0, err[-2000:]
    assert "KeyboardInterrupt" not in err and "unexpected error" not in err, err[-2000:]
    recording = load_recording(path)
    assert recording.complete, "the recording has no footer"
    assert recording.footer["outcome"]["stopped"] is True  # ended by the signal, mid-episode
    assert len(recording.steps) >= 2


def test_timeout_ends_the_app_in_time(tmp_path):
    """`timeout N python main.py` sends SIGTERM after N s; the app must be gone right after."""
    started = time.monotonic()
    result = subprocess.run(["timeout", "8", sys.executable, "main.py", "--paused", "--settings",
                             str(settings_file(tmp_path))], cwd=ROOT, env=app_env(), capture_output=True,
                            text=True, timeout=30)
    elapsed = time.monotonic() - started
    assert result.returncode == 124, result.stderr[-2000:]  # timeout's code: it had to send SIGTERM
    assert elapsed < 8 + 5
    (path,) = list((tmp_path / "recordings").glob("*.jsonl"))
    assert load_recording(path).complete  # paused, no steps, but a complete file


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_while_protom_decides_closes_within_two_seconds(tmp_path, sig, x_display):
    """Six tom-planner agents watched by ProToM: a step takes ProToM seconds. A signal in the
    middle of it abandons the decision: the app is gone within 2 s, exit code 0, and the
    recording ends there as stopped."""
    proc = start_app(tmp_path, "gui", "team-01-six", "--agents", "tom-planner", "--facilitator", "protom",
                     "--speed", "64", env=x_display)
    path = wait_for_steps(proc, tmp_path / "recordings", 1, timeout=120)
    time.sleep(0.5)  # ProToM is now weighing the next step (seconds per step with six agents)
    signal_within_two_seconds(proc, sig, path)
    assert 1 <= len(load_recording(path).steps) < 20


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_while_an_llm_seat_thinks_closes_within_two_seconds(tmp_path, sig, x_display):
    """An LLM seat whose model takes a minute to answer (a real HTTP server on loopback): a
    signal while its call waits ends the app within 2 s, exit code 0, recording stopped."""
    with LoopbackLLM("timeout", delay=60) as server:
        seat = f"llm:base_url={server.base_url},timeout=60,max_retries=0"
        proc = start_app(tmp_path, "gui", "two-rooms", "--agents", seat, "planner", "--speed", "64", env=x_display)
        end = time.monotonic() + 60
        while not server.requests and time.monotonic() < end:
            assert proc.poll() is None, f"the app ended early: {proc.communicate()[1][-2000:]}"
            time.sleep(0.1)
        assert server.requests, "the LLM seat never asked its model"
        time.sleep(0.3)
        files = list((tmp_path / "recordings").glob("*.jsonl"))
        assert files, "no recording"
        signal_within_two_seconds(proc, sig, files[0])
