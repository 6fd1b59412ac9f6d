"""Benchmark of the desktop app: world-view frame rate with live panels, and seek time.

    .venv/bin/python bench/bench_gui.py [--seconds 4] [--steps 10000] [--out bench/results/bench_gui.json]

1. Frames per second of the world view at 960x640 while moves animate and the side
   panels (goal posteriors, event log, feedback history) refresh at 10 Hz, drawn on a
   real X server (a private Xvfb when DISPLAY is not set). Measured for the zero-copy
   path (a QImage over the pygame Surface) and, in the same process, for the baseline
   that copies pixels with ``surfarray`` every frame. Target: >= 60 fps.
2. Seek time in a 10,000-step recording (generated here): jump to random steps, forwards
   and backwards, and show them (state, overlays, panels, one repaint). Baseline in the
   same process: the same seeks without keyframes (re-simulating from step 0). Target: <= 200 ms.
3. Opening that recording as a person does (File > Open, ``gui FILE``): time until its first
   frame is on screen (target <= 0.5 s) and until the whole file is loaded in the background;
   baseline: the blocking open that shows nothing until everything is read.
4. Soak: a 10,000-step live episode at full speed with every panel refreshing, then the
   recording opened, scrubbed and closed three times; the growth of the process's resident
   memory from before to after (everything closed). Target: < 50 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VIEW_SIZE = (960, 640)
FPS_TARGET = 60.0
SEEK_TARGET_MS = 200.0
FIRST_FRAME_TARGET_S = 0.5
SOAK_GROWTH_TARGET_MB = 50.0


# --------------------------------------------------------------------------- episode data

def long_world(steps: int) -> Any:
    """two-rooms with a time limit of ``steps`` ticks."""
    from sim.registry import build_world, find_scenario, load_spec

    _, spec = load_spec(find_scenario("two-rooms"))
    spec = json.loads(json.dumps(spec))
    spec["options"]["t_max"] = steps
    spec["name"] = "two-rooms-long"
    return build_world("dkg", spec)


def bench_minds() -> tuple[type, type]:
    """(Wanderer, DriftingBeliefs): agents that never pick up their gems, and a facilitator that
    reports goal posteriors every step and feedback now and then (the load the panels see)."""
    import numpy as np

    from sim.seats import Agent, Facilitator, Feedback

    class Wanderer(Agent):
        kind = "bench-wanderer"

        def act(self, observation: Any, legal_actions: Any) -> Any:
            world, state = self.ctx.world, observation.state
            self.trail = (getattr(self, "trail", []) + [world.rc(state.agent_cells[world.agent_index[self.ctx.agent_id]])])[-8:]
            moves = [a for a in legal_actions if not a.startswith(("pickup", "handover"))]
            return moves[int(self.ctx.rng.integers(len(moves)))]

        def belief_snapshots(self) -> list[tuple[str, dict[str, Any]]]:
            # a path on the map for the plan overlay, as planner agents report theirs
            trail = getattr(self, "trail", [])
            return [("plan", {"task": "wander", "path": [list(c) for c in reversed(trail)]})] if len(trail) > 1 else []

    class DriftingBeliefs(Facilitator):
        kind = "bench-beliefs"

        def reset(self, world: Any, state: Any, ctx: Any) -> None:
            super().reset(world, state, ctx)
            self.logits = np.zeros((len(world.agents), len(world.gem_ids)))

        def suggest(self, step: Any, busy: Any) -> list[Feedback]:
            after = step.after
            self.logits += self.ctx.rng.normal(0, 0.3, self.logits.shape)
            if after.t % 500 == 250 and "alice" not in busy:
                return [Feedback(0, "alice", {"type": "unlock", "agent": "alice", "door": "door1", "for": "bob"},
                                 "Unlock door1 for bob", "I believe bob is trying to reach gem2.")]
            return []

        def belief_snapshots(self) -> list[tuple[str, dict[str, Any]]]:
            p = np.exp(self.logits - self.logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            return [("goal_posterior", {"agent": a, "goals": {g: float(p[i, j]) for j, g in enumerate(self.world.gem_ids)}})
                    for i, a in enumerate(self.world.agents)]

    return Wanderer, DriftingBeliefs


def make_long_recording(path: Path, steps: int) -> Path:
    """A ``steps``-step recording of ``bench_minds`` on two-rooms with room for ``steps`` ticks."""
    from sim.recording import RecordingWriter
    from sim.session import Session

    Wanderer, DriftingBeliefs = bench_minds()
    world = long_world(steps)
    session = Session(world, {a: Wanderer() for a in world.agents}, seed=7, scenario="two-rooms-long",
                      mechanisms=[DriftingBeliefs()])
    RecordingWriter.attach(session, path)
    session.run()
    return path


# --------------------------------------------------------------------------- measurements

def measure_fps(window: Any, app: Any, seconds: float, copy_frames: bool) -> dict[str, float]:
    """Animate step after step for ``seconds``; panels refresh at 10 Hz with new data."""
    view = window.view
    view.copy_frames = copy_frames
    timeline = window.model.timeline
    frames = 0
    panel_updates = 0
    panel_time = 0.0
    k = 1
    window.model.seek(0)
    start = time.perf_counter()
    next_panel = start
    window.human.present_feedback(window.model.move_to(k))
    while True:
        now = time.perf_counter()
        if now - start >= seconds:
            break
        if not view.animating:  # the next step, as playback shows it: state, overlays, labels, pop-ups
            k = k % timeline.num_steps + 1
            window.model.cursor = k - 1
            window.human.present_feedback(window.model.move_to(k))
        if now >= next_panel:
            t0 = time.perf_counter()
            window.panels.refresh()
            goals = window.panels.panel("Goal inference")
            for panel in (*([goals] if goals is not None else []), window.panels.log.viewport(),
                          window.panels.feedback.viewport()):
                panel.repaint()
            panel_time += time.perf_counter() - t0
            panel_updates += 1
            next_panel += 0.1
        view.repaint()
        app.processEvents()
        frames += 1
    elapsed = time.perf_counter() - start
    view.copy_frames = False
    return {"fps": frames / elapsed, "frames": frames, "seconds": elapsed,
            "panel_updates_per_s": panel_updates / elapsed,
            "panel_ms": 1000 * panel_time / max(1, panel_updates)}


def measure_seeks(window: Any, targets: list[int]) -> list[float]:
    times = []
    for k in targets:
        t0 = time.perf_counter()
        window.model.seek(k)
        window.panels.refresh()
        window.view.repaint()
        times.append(1000 * (time.perf_counter() - t0))
    return times


def measure_open(window: Any, app: Any, path: Path) -> dict[str, float]:
    """Open ``path`` as a person does: seconds until the first frame is painted, and until the
    whole recording is loaded; then the blocking open of the same file (the baseline)."""
    from ui.session.timeline import ReplayTimeline

    window.close_episode()
    app.processEvents()
    frames = window.view.frames_drawn
    t0 = time.perf_counter()
    assert window.open_recording_in_background(path), window.statusBar().currentMessage()
    while window.view.frames_drawn == frames:
        window.view.repaint()
        app.processEvents()
    first = time.perf_counter() - t0
    while not isinstance(window.model.timeline, ReplayTimeline):
        app.processEvents()
        time.sleep(0.002)
    loaded = time.perf_counter() - t0
    window.close_episode()
    t0 = time.perf_counter()
    assert window.open_recording(path)
    window.view.repaint()
    blocking = time.perf_counter() - t0
    return {"first_frame_s": first, "loaded_s": loaded, "blocking_open_s": blocking,
            "target_s": FIRST_FRAME_TARGET_S, "meets_target": first <= FIRST_FRAME_TARGET_S,
            "ratio": blocking / first}


def rss_mb() -> float:
    """Resident memory of this process (Linux /proc)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def soak(window: Any, app: Any, steps: int, recording: Path, rounds: int = 3) -> dict[str, float]:
    """A live episode of ``steps`` steps at full speed with panels on, then the long recording
    opened, scrubbed and closed ``rounds`` times; resident memory before and after."""
    import gc
    import random

    from ui import mainwindow
    from ui.session.catalog import SessionPlan
    from ui.session.timeline import ReplayTimeline

    Wanderer, DriftingBeliefs = bench_minds()

    class BenchPlan(SessionPlan):
        def build_seats(self) -> dict[str, Any]:
            return {a: Wanderer() for a in self.world.agents}

    def episode(n: int) -> float:
        real = mainwindow.catalog.make_mechanisms
        mainwindow.catalog.make_mechanisms = lambda specs, world: [DriftingBeliefs()]
        try:
            world = long_world(n)
            window.start_session(BenchPlan(world=world, scenario="two-rooms-long", seats={}, mechanisms=("bench",),
                                           seed=7))
        finally:
            mainwindow.catalog.make_mechanisms = real
        window.model.runner.set_speed(1e6)
        t0 = time.perf_counter()
        peak = rss_mb()
        while window.model.timeline.outcome is None or window.model.runner.alive:
            app.processEvents()  # the panels refresh on their timer as in use
            peak = max(peak, rss_mb())
            time.sleep(0.001)
        app.processEvents()
        return time.perf_counter() - t0, peak

    def replays() -> None:
        rng = random.Random(3)
        for _ in range(rounds):
            window.open_recording_in_background(recording)
            while not isinstance(window.model.timeline, ReplayTimeline):
                app.processEvents()
                time.sleep(0.002)
            for k in [rng.randrange(window.model.timeline.num_steps + 1) for _ in range(20)]:
                window.model.seek(k)
                window.panels.refresh()
                window.view.repaint()
            window.close_episode()
            app.processEvents()

    # warm up every path once (imports, caches, fonts), then measure from a closed window
    episode(200)
    window.close_episode()
    replays()
    gc.collect()
    app.processEvents()
    before = rss_mb()
    seconds, peak = episode(steps)
    live_steps = window.model.timeline.num_steps
    window.close_episode()
    replays()
    for _ in range(5):
        app.processEvents()
        time.sleep(0.01)
    gc.collect()
    after = rss_mb()
    return {"live_steps": live_steps, "live_seconds": seconds, "rss_before_mb": before, "rss_peak_mb": peak,
            "rss_after_mb": after, "growth_mb": after - before, "replay_rounds": rounds,
            "target_mb": SOAK_GROWTH_TARGET_MB, "meets_target": after - before < SOAK_GROWTH_TARGET_MB}


def summarize(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"median_ms": statistics.median(ms), "p95_ms": ordered[int(0.95 * (len(ordered) - 1))],
            "max_ms": ordered[-1]}


def run(args: argparse.Namespace) -> dict[str, Any]:
    import random

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from PyQt6.QtWidgets import QApplication

    from ui.app import application
    from ui.mainwindow import MainWindow
    from ui.session.timeline import ReplayTimeline
    from ui.settings import AppSettings

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    app = application()
    settings = AppSettings.at(work / "settings.ini")
    settings.set("recordings_dir", str(work / "recordings"))
    window = MainWindow(settings)
    window.view.setFixedSize(*VIEW_SIZE)
    window.show()
    window.activateWindow()
    for _ in range(20):
        app.processEvents()
        time.sleep(0.01)

    path = work / f"long-{args.steps}.jsonl"
    t0 = time.perf_counter()
    make_long_recording(path, args.steps)
    generate_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    assert window.open_recording(path), window.statusBar().currentMessage()
    open_s = time.perf_counter() - t0
    timeline = window.model.timeline
    assert timeline.num_steps == args.steps, timeline.num_steps
    surface = window.view.surface.get_size()

    results: dict[str, Any] = {"platform": QApplication.platformName(), "view_size": list(surface),
                               "recording_steps": timeline.num_steps, "recording_events": len(timeline.events),
                               "generate_recording_s": generate_s, "open_recording_s": open_s}
    # FPS: warm up both paths, then measure zero-copy and the surfarray baseline alternately.
    measure_fps(window, app, 0.5, False)
    measure_fps(window, app, 0.5, True)
    zero, copy = [], []
    for _ in range(2):
        zero.append(measure_fps(window, app, args.seconds / 2, False))
        copy.append(measure_fps(window, app, args.seconds / 2, True))
    fps = sum(r["fps"] for r in zero) / len(zero)
    fps_copy = sum(r["fps"] for r in copy) / len(copy)
    results["fps"] = {"zero_copy": fps, "surfarray_copy_baseline": fps_copy, "ratio": fps / fps_copy,
                      "panel_updates_per_s": zero[-1]["panel_updates_per_s"],
                      "panel_ms_per_update": zero[-1]["panel_ms"], "target": FPS_TARGET,
                      "meets_target": fps >= FPS_TARGET}

    rng = random.Random(1)
    targets = [rng.randrange(timeline.num_steps + 1) for _ in range(args.seeks)]
    targets += [timeline.num_steps - 1, 0, timeline.num_steps, 1]  # the ends, and a full backwards jump
    seek_ms = measure_seeks(window, targets)
    # Baseline: the same seeks with no keyframes and no cache (each state re-simulated from step 0).
    class FromStart(ReplayTimeline):
        def state_at(self, k: int) -> Any:
            world = self.world
            state = world.reset(self.seed)
            for i in range(k):
                joint = self.replay.joint_action(i)
                state = world.step(state, {a: world.decode_action(x) for a, x in joint.items()}).state
            return state

    window.model.show(FromStart(timeline.replay))
    base_targets = targets[: max(5, args.seeks // 5)]
    base_ms = measure_seeks(window, base_targets)
    results["seek"] = {**summarize(seek_ms), "seeks": len(seek_ms), "target_ms": SEEK_TARGET_MS,
                       "meets_target": max(seek_ms) <= SEEK_TARGET_MS,
                       "baseline_no_keyframes": summarize(base_ms),
                       "ratio_median": statistics.median(base_ms) / statistics.median(seek_ms[: len(base_ms)])}
    results["open"] = measure_open(window, app, path)
    if args.soak_steps > 0:
        results["soak"] = soak(window, app, args.soak_steps, path)
    window.shutdown()
    window.close()
    return results


def report(results: dict[str, Any]) -> str:
    f, s = results["fps"], results["seek"]
    lines = [
        f"platform {results['platform']}, world view {results['view_size'][0]}x{results['view_size'][1]}, "
        f"panels refreshed {f['panel_updates_per_s']:.1f}/s ({f['panel_ms_per_update']:.2f} ms each)",
        f"world view fps, zero-copy QImage:     {f['zero_copy']:7.1f}   (target >= {f['target']:.0f}: "
        f"{'met' if f['meets_target'] else 'NOT met'})",
        f"world view fps, surfarray copy (base): {f['surfarray_copy_baseline']:7.1f}   ratio {f['ratio']:.2f}x",
        f"recording: {results['recording_steps']} steps, {results['recording_events']} events; generated in "
        f"{results['generate_recording_s']:.1f} s, opened in {results['open_recording_s']:.2f} s",
        f"seek (state + panels + repaint), {s['seeks']} seeks: median {s['median_ms']:.1f} ms, p95 {s['p95_ms']:.1f} ms, "
        f"max {s['max_ms']:.1f} ms   (target <= {s['target_ms']:.0f} ms: {'met' if s['meets_target'] else 'NOT met'})",
        f"seek baseline without keyframes: median {s['baseline_no_keyframes']['median_ms']:.1f} ms, "
        f"max {s['baseline_no_keyframes']['max_ms']:.1f} ms   ratio {s['ratio_median']:.0f}x",
    ]
    o = results["open"]
    lines.append(f"open the recording: first frame after {o['first_frame_s']:.3f} s (target <= {o['target_s']} s: "
                 f"{'met' if o['meets_target'] else 'NOT met'}), all loaded after {o['loaded_s']:.2f} s; blocking "
                 f"open (base) {o['blocking_open_s']:.2f} s before anything shows   ratio {o['ratio']:.0f}x")
    if "soak" in results:
        k = results["soak"]
        lines.append(f"soak: {k['live_steps']} live steps in {k['live_seconds']:.1f} s, {k['replay_rounds']} replays "
                     f"opened/scrubbed/closed; resident memory {k['rss_before_mb']:.0f} -> {k['rss_after_mb']:.0f} MB "
                     f"(peak {k['rss_peak_mb']:.0f}), growth {k['growth_mb']:.1f} MB (target < {k['target_mb']:.0f}: "
                     f"{'met' if k['meets_target'] else 'NOT met'})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=4.0, help="measuring time per fps figure (default 4)")
    parser.add_argument("--steps", type=int, default=10_000, help="steps of the generated recording (default 10000)")
    parser.add_argument("--seeks", type=int, default=60, help="number of random seeks (default 60)")
    parser.add_argument("--soak-steps", type=int, default=10_000,
                        help="steps of the live soak episode (default 10000; 0 skips the soak)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "bench_gui.json"),
                        help="where to write the figures as JSON")
    parser.add_argument("--work", default=str(ROOT / "bench" / "results" / "gui-work"),
                        help="folder for the generated recording and settings")
    parser.add_argument("--offscreen", action="store_true", help="use Qt's offscreen platform instead of Xvfb")
    args = parser.parse_args(argv)

    on_x = os.environ.get("QT_QPA_PLATFORM") == "xcb" and os.environ.get("DISPLAY")
    if not args.offscreen and not on_x:
        from ui.shots.xvfb import display_env, virtual_display

        with virtual_display(1600, 1000, 24) as display:
            return subprocess.call([sys.executable, __file__, *(argv if argv is not None else sys.argv[1:])],
                                   env=display_env(display))
    if args.offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    results = run(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(report(results))
    print(f"figures: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
