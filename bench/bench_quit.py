"""Benchmark of quitting: seconds from SIGTERM to the app's exit, in each state a person may quit in.

    .venv/bin/python bench/bench_quit.py [--repeats 2] [--out bench/results/bench_quit.json]

Each figure is the real app (``python main.py ...``, its own process) on a private Xvfb display of
1366 x 768 (the xcb platform, as on a desktop) with throw-away settings, sent SIGTERM (what
``kill`` and ``timeout`` send; Ctrl+C and File > Quit close the same way) once it is in the state:

- ``live episode``: the default scenario playing at 4 steps/s, two steps recorded;
- ``seat deciding``: a seat's decision under way (the ``held`` test kind, released never);
- ``llm seat waiting``: an ``llm`` seat whose model (a real HTTP server on loopback,
  ``tests/llm_loopback.py``) answers after 60 s, its call under way;
- ``recording loading``: a 10,000-step recording being read in the background, 1.5 s after the
  window showed its first state;
- ``team room``: a team-room episode (``car-free-centres``, its scripted seats) playing;
- ``study seat window``: a participant's window joined to a study host (headless, on loopback),
  its game shown;
- ``study host window``: the study host's own window, a participant joined.

Quitting is meant to take at most 2 s in every state. Wall times depend on the machine's load
(reported with each figure).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_S = 2.0
#: a state not reached within this many seconds is reported as not measured
REACH_S = 180.0


def _settings(folder: Path) -> Path:
    ini = folder / "settings.ini"
    ini.write_text(f"[General]\nrecordings_dir={folder / 'recordings'}\nwelcomed=true\n")
    return ini


def _start(args: list[str], env: dict[str, str], folder: Path, settings: bool = True) -> subprocess.Popen:
    extra = ["--settings", str(_settings(folder))] if settings else []
    out = open(folder / "app.out", "w", encoding="utf-8")  # noqa: SIM115 - closed with the process
    return subprocess.Popen([sys.executable, "main.py", *args, *extra], cwd=ROOT, env=env, stdout=out,
                            stderr=subprocess.STDOUT, text=True)


def _until(proc: subprocess.Popen, condition: Callable[[], bool]) -> bool:
    end = time.monotonic() + REACH_S
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if condition():
            return True
        time.sleep(0.05)
    return False


def _steps(folder: Path) -> int:
    files = list((folder / "recordings").glob("*.jsonl"))
    return files[0].read_text().count('"type":"step"') if files else 0


def _quit(proc: subprocess.Popen, folder: Path) -> dict[str, Any]:
    load = os.getloadavg()[0]
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return {"seconds": None, "load_average": load, "note": "still running 60 s after SIGTERM (killed)"}
    seconds = time.monotonic() - sent
    text = (folder / "app.out").read_text(errors="replace")
    return {"seconds": seconds, "exit_code": proc.returncode, "load_average": load,
            "abandoned": "a decision under way was abandoned" in text, "traceback": "Traceback" in text}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def state_live(env: dict[str, str], folder: Path) -> dict[str, Any]:
    proc = _start(["gui", "--speed", "4"], env, folder)
    if not _until(proc, lambda: _steps(folder) >= 2):
        proc.kill()
        return {"seconds": None, "note": "no two steps recorded"}
    return _quit(proc, folder)


def state_deciding(env: dict[str, str], folder: Path) -> dict[str, Any]:
    holding = folder / "holding"
    held = f"held:release={folder / 'never'},holding={holding},at=2"
    proc = _start(["gui", "two-rooms", "--agents", held, "planner", "--speed", "64"], env, folder)
    if not _until(proc, holding.exists):
        proc.kill()
        return {"seconds": None, "note": "the held decision did not start"}
    return _quit(proc, folder)


def state_llm(env: dict[str, str], folder: Path) -> dict[str, Any]:
    from tests.llm_loopback import LoopbackLLM

    with LoopbackLLM("timeout", delay=60) as server:
        seat = f"llm:base_url={server.base_url},timeout=60,max_retries=0"
        proc = _start(["gui", "two-rooms", "--agents", seat, "planner", "--speed", "64"], env, folder)
        if not _until(proc, lambda: bool(server.requests)):
            proc.kill()
            return {"seconds": None, "note": "the llm seat never asked its model"}
        return _quit(proc, folder)


def state_loading(env: dict[str, str], folder: Path) -> dict[str, Any]:
    from bench.bench_gui import make_long_recording

    path = folder / "long.jsonl"
    make_long_recording(path, 10_000)
    proc = _start(["gui", str(path), "--paused"], env, folder)
    # nothing is printed for the first frame: wait until the app's X window is shown
    if not _until(proc, lambda: _window_of(proc, env)):
        proc.kill()
        return {"seconds": None, "note": "no window"}
    time.sleep(1.5)  # reading the whole file takes several seconds more on this machine
    return _quit(proc, folder)


def _window_of(proc: subprocess.Popen, env: dict[str, str]) -> bool:
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(proc.pid), "--name", "ToM Arena"],
                           env=env, capture_output=True, text=True, timeout=30)
    return bool(found.stdout.split())


def state_teamroom(env: dict[str, str], folder: Path) -> dict[str, Any]:
    proc = _start(["gui", "car-free-centres", "--speed", "4"], env, folder)
    if not _until(proc, lambda: _steps(folder) >= 2):
        proc.kill()
        return {"seconds": None, "note": "no two steps recorded"}
    return _quit(proc, folder)


def _study_host(folder: Path, env: dict[str, str], display: bool) -> tuple[subprocess.Popen, int, Path]:
    from tests.study_support import RANDOM_OR_NONE, write_study

    study = write_study(folder, trials=1, max_ticks=30, tutorial=False, conditions=RANDOM_OR_NONE)
    port = _free_port()
    host_env = dict(env) if display else {k: v for k, v in env.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM")}
    out = folder / "host.out"
    handle = open(out, "w", encoding="utf-8")  # noqa: SIM115 - closed with the process
    host = subprocess.Popen([sys.executable, "main.py", "study", "host", str(study), "--port", str(port),
                             "--listen", "127.0.0.1", "--out", str(folder / "out"), "--codes", "1111-1111",
                             "2222-2222"], cwd=ROOT, env=host_env, stdout=handle, stderr=subprocess.STDOUT)
    return host, port, out


def state_study_seat(env: dict[str, str], folder: Path) -> dict[str, Any]:
    host, port, out = _study_host(folder, env, display=False)
    try:
        if not _until(host, lambda: "participant 2: " in out.read_text(errors="replace")):
            return {"seconds": None, "note": "the host did not listen"}
        log = folder / "received.jsonl"
        proc = _start(["join", f"127.0.0.1:{port}", "--code", "1111-1111", "--log-received", str(log)], env, folder,
                      settings=False)
        if not _until(proc, lambda: log.exists() and '"welcome"' in log.read_text(errors="replace")):
            proc.kill()
            return {"seconds": None, "note": "the seat did not join"}
        time.sleep(1.0)
        return _quit(proc, folder)
    finally:
        host.terminate()
        host.wait(60)


def state_study_host(env: dict[str, str], folder: Path) -> dict[str, Any]:
    host, port, out = _study_host(folder, env, display=True)
    seat_folder = folder / "seat"
    seat_folder.mkdir()
    log = seat_folder / "received.jsonl"
    seat = None
    try:
        if not _until(host, lambda: "participant 2: " in out.read_text(errors="replace")):
            host.kill()
            return {"seconds": None, "note": "the host did not listen"}
        seat = _start(["join", f"127.0.0.1:{port}", "--code", "1111-1111", "--log-received", str(log)], env,
                      seat_folder, settings=False)
        if not _until(seat, lambda: log.exists() and '"welcome"' in log.read_text(errors="replace")):
            host.kill()
            return {"seconds": None, "note": "the seat did not join"}
        time.sleep(1.0)
        (folder / "app.out").write_text(out.read_text(errors="replace"))
        figures = _quit(host, folder)
        return figures
    finally:
        if seat is not None and seat.poll() is None:
            seat.terminate()
            seat.wait(60)


STATES: dict[str, Callable[[dict[str, str], Path], dict[str, Any]]] = {
    "live episode": state_live, "seat deciding": state_deciding, "llm seat waiting": state_llm,
    "recording loading": state_loading, "team room": state_teamroom, "study seat window": state_study_seat,
    "study host window": state_study_host,
}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from ui.shots.xvfb import display_env, virtual_display

    results: dict[str, Any] = {"cpus": os.cpu_count(), "target_s": TARGET_S, "states": {}}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in STATES}
    with virtual_display(1366, 768, 24) as display:
        env = display_env(display)
        env.pop("SDL_NO_SIGNAL_HANDLERS", None)
        env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONUNBUFFERED="1")
        for _ in range(args.repeats):
            for name, state in STATES.items():
                if args.only and name not in args.only:
                    continue
                with tempfile.TemporaryDirectory(prefix="tom-arena-quit-") as work:
                    runs[name].append(state(env, Path(work)))
                    print(f"{name}: {runs[name][-1]}", flush=True)
    for name, found in runs.items():
        times = [r["seconds"] for r in found if r.get("seconds") is not None]
        results["states"][name] = {"runs": found, "max_s": max(times) if times else None,
                                   "median_s": statistics.median(times) if times else None}
    return results


def report(r: dict[str, Any]) -> str:
    lines = [f"quitting by SIGTERM under Xvfb ({r['cpus']} CPUs), seconds to exit (target <= {r['target_s']:.0f} s):"]
    for name, f in r["states"].items():
        if not f["runs"]:
            continue
        loads = ", ".join(f"{x['load_average']:.1f}" for x in f["runs"] if "load_average" in x)
        times = ", ".join("-" if x.get("seconds") is None else f"{x['seconds']:.2f}" for x in f["runs"])
        lines.append(f"  {name:<20} {times} s   [load avg {loads}]"
                     + ("" if f["max_s"] is None or f["max_s"] <= r["target_s"] else "   OVER TARGET"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=2, help="times each state is measured (default 2)")
    parser.add_argument("--only", nargs="*", choices=list(STATES), help="measure these states only")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "bench_quit.json"))
    args = parser.parse_args(argv)
    results = run(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(report(results))
    print(f"figures: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
