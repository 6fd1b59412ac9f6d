"""The kitchen: world steps per second against overcooked_ai 1.1.0 on layouts of the same size,
and the time of a full 100-tick episode with two heuristic cooks.

    .venv/bin/python -m bench.bench_kitchen [--steps N] [--repeats N] [--venv DIR] [--json FILE]

overcooked_ai 1.1.0 needs numpy < 2, so it lives in a side virtual environment (created here
with pip on first use, by default /tmp/overcooked-venv; its environment also needs scipy) and runs in a subprocess during the
same run. Both sides step uniformly random joint actions drawn before the clock starts, from
the layouts' start states, resetting every 100 steps (the kitchen's T_max).

Figures (median of ``--repeats`` runs):
- overcooked_ai: ``OvercookedGridworld.get_state_transition`` (its rules alone) and
  ``OvercookedEnv.step`` (its step loop) per layout;
- kitchen: ``KitchenWorld.step`` on the same layout translated cell for cell (X counter,
  O/T onion/tomato on a counter, P pot -> cutting board, D dish -> plate, S serving ->
  delivery; same start cells), with agents blocking each other as in overcooked_ai;
  the ratio is kitchen / overcooked_ai rules, and kitchen / overcooked_ai step loop;
- kitchen steps/s on each shipped level (random actions);
- a full 100-tick episode with two ``kitchen-heuristic`` cooks through the Session (a level in
  which one dish cannot be made, so the episode runs to T_max), and the mean episode time on
  the shipped levels.
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.registry import make_agent  # noqa: E402
from sim.kitchen.world import ACTIONS, KitchenWorld  # noqa: E402
from sim.registry import SCENARIO_DIR, build_world, load_spec  # noqa: E402
from sim.session import Session  # noqa: E402

OVERCOOKED_PIN = "overcooked_ai==1.1.0"
LAYOUTS = ("cramped_room", "coordination_ring", "forced_coordination", "asymmetric_advantages",
           "counter_circuit", "large_room", "corridor")
EPISODE = 100

# Runs inside the side environment: prints one JSON line per layout.
OVERCOOKED_SCRIPT = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
from overcooked_ai_py.mdp.actions import Action
from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld
from overcooked_ai_py.mdp.overcooked_env import OvercookedEnv

layouts, steps, repeats, episode = json.loads(sys.argv[1])
for name in layouts:
    mdp = OvercookedGridworld.from_layout_name(name)
    rng = np.random.default_rng(0)
    actions = Action.ALL_ACTIONS
    joint = [(actions[i], actions[j]) for i, j in rng.integers(len(actions), size=(steps, 2))]
    rules, loop = [], []
    for _ in range(repeats):
        start_state = mdp.get_standard_start_state()
        state = start_state
        t0 = time.perf_counter()
        for k in range(steps):
            if k % episode == 0:
                state = start_state
            state = mdp.get_state_transition(state, joint[k])[0]
        rules.append(steps / (time.perf_counter() - t0))
        env = OvercookedEnv.from_mdp(mdp, horizon=episode, info_level=0)
        env.reset()
        t0 = time.perf_counter()
        for k in range(steps):
            if env.is_done():
                env.reset()
            env.step(joint[k])
        loop.append(steps / (time.perf_counter() - t0))
    print(json.dumps({"layout": name, "grid": ["".join(row) for row in mdp.terrain_mtx],
                      "starts": [list(p) for p in mdp.start_player_positions],
                      "rules": sorted(rules)[len(rules) // 2], "loop": sorted(loop)[len(loop) // 2]}), flush=True)
"""

TRANSLATE = {"X": "-", "O": "o", "T": "t", "P": "/", "D": "p", "S": "*", " ": "."}


def ensure_overcooked(venv: Path) -> Path:
    """The side environment's python, creating it with overcooked_ai 1.1.0 and numpy < 2."""
    python = venv / "bin" / "python"
    # overcooked_ai's environment imports scipy without declaring it
    probe = [str(python), "-c", "import overcooked_ai_py, scipy.sparse, numpy; assert numpy.__version__ < '2'"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"installing {OVERCOOKED_PIN} with numpy<2 into {venv} (first run only) ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", OVERCOOKED_PIN, "numpy<2", "scipy"], check=True)
    subprocess.run(probe, check=True, capture_output=True)
    return python


def overcooked_figures(python: Path, layouts: tuple[str, ...], steps: int, repeats: int) -> list[dict]:
    done = subprocess.run([str(python), "-c", OVERCOOKED_SCRIPT, json.dumps([list(layouts), steps, repeats, EPISODE])],
                          capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if done.returncode != 0:
        raise RuntimeError(f"overcooked_ai run failed:\n{done.stderr[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def kitchen_from_overcooked(name: str, grid: list[str], starts: list[list[int]]) -> KitchenWorld:
    """An overcooked_ai layout as a kitchen level, cell for cell (built without the level checks:
    overcooked's dispensers never run out, so a layout may hold fewer objects than cooks)."""
    rows = ["".join(TRANSLATE.get(ch, ".") for ch in row) for row in grid]
    return KitchenWorld({"world": "kitchen", "name": name, "title": name, "description": "", "category": None,
                         "format": "json", "map": rows, "t_max": EPISODE, "collisions": "block",
                         "agents": [{"name": n, "goal": "SimpleOnion", "start": [y, x]}
                                    for n, (x, y) in zip(("alice", "bob"), starts)]})


def kitchen_steps_per_second(world: KitchenWorld, steps: int, repeats: int) -> float:
    rng = np.random.default_rng(0)
    agents = world.agents
    joint = [dict(zip(agents, (ACTIONS[i] for i in row))) for row in rng.integers(len(ACTIONS), size=(steps, len(agents)))]
    rates = []
    for _ in range(repeats):
        start = world.reset(0)
        state = start
        step = world.step
        t0 = time.perf_counter()
        for k in range(steps):
            if k % EPISODE == 0:
                state = start
            state = step(state, joint[k]).state
        rates.append(steps / (time.perf_counter() - t0))
    return statistics.median(rates)


def episode_seconds(world: KitchenWorld, seeds: range) -> tuple[float, float]:
    """(median seconds per episode, mean ticks) with two heuristic cooks through the Session."""
    times, ticks = [], []
    for seed in seeds:
        seats = {a: make_agent("kitchen-heuristic", "kitchen") for a in world.agents}
        t0 = time.perf_counter()
        session = Session(world, seats, seed, scenario=world.name)
        session.run()
        times.append(time.perf_counter() - t0)
        ticks.append(session.tick)
    return statistics.median(times), float(np.mean(ticks))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="steps per timing run")
    parser.add_argument("--repeats", type=int, default=3, help="timing runs per figure (median)")
    parser.add_argument("--episodes", type=int, default=10, help="episodes per level for the episode times")
    parser.add_argument("--venv", type=Path, default=Path("/tmp/overcooked-venv"),
                        help="side environment for overcooked_ai 1.1.0 (created if missing)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    results: dict = {"steps": args.steps, "repeats": args.repeats, "layouts": [], "levels": [], "episodes": {}}

    python = ensure_overcooked(args.venv)
    print(f"world steps/s, random joint actions, {args.steps} steps, median of {args.repeats}")
    print(f"{'layout':24s} {'size':>6s} {'overcooked rules':>17s} {'overcooked env':>15s} "
          f"{'kitchen':>10s} {'x rules':>8s} {'x env':>7s}")
    for figures in overcooked_figures(python, LAYOUTS, args.steps, args.repeats):
        world = kitchen_from_overcooked(figures["layout"], figures["grid"], figures["starts"])
        ours = kitchen_steps_per_second(world, args.steps, args.repeats)
        row = {**figures, "size": [world.width, world.height], "kitchen": ours,
               "ratio_rules": ours / figures["rules"], "ratio_env": ours / figures["loop"]}
        results["layouts"].append(row)
        print(f"{figures['layout']:24s} {world.width:>3d}x{world.height:<2d} {figures['rules']:>17,.0f} "
              f"{figures['loop']:>15,.0f} {ours:>10,.0f} {row['ratio_rules']:>7.1f}x {row['ratio_env']:>6.1f}x")
    ratios = [r["ratio_rules"] for r in results["layouts"]]
    results["min_ratio_rules"] = min(ratios)
    print(f"kitchen / overcooked_ai rules: min {min(ratios):.1f}x, median {statistics.median(ratios):.1f}x "
          f"(target >= 2x)")

    print(f"\nshipped levels: world steps/s and heuristic episodes ({args.episodes} seeds)")
    print(f"{'level':36s} {'size':>6s} {'steps/s':>10s} {'episode ms':>11s} {'mean ticks':>11s}")
    for path in sorted(p for p in (SCENARIO_DIR / "kitchen").iterdir() if p.name.endswith(".txt")):
        world = build_world(*load_spec(path))
        rate = kitchen_steps_per_second(world, args.steps, args.repeats)
        seconds, ticks = episode_seconds(world, range(args.episodes))
        results["levels"].append({"level": path.name, "steps_per_second": rate, "episode_seconds": seconds,
                                  "mean_ticks": ticks})
        print(f"{path.name:36s} {world.width:>3d}x{world.height:<2d} {rate:>10,.0f} {seconds * 1e3:>11.2f} {ticks:>11.1f}")

    # A full 100-tick episode: three rooms, but both cooks want the only lettuce.
    _, spec = load_spec(SCENARIO_DIR / "kitchen" / "three-rooms.kitchen.txt")
    spec = {**spec, "name": "three-rooms-no-second-lettuce",
            "agents": [{**a, "goal": "SimpleLettuce"} for a in spec["agents"]]}
    world = KitchenWorld(spec)
    seconds, ticks = episode_seconds(world, range(args.episodes))
    results["episodes"] = {"level": spec["name"], "seconds": seconds, "ticks": ticks,
                           "ms_per_tick": seconds / ticks * 1e3}
    print(f"\nfull episode, two heuristic cooks through the Session: {ticks:.0f} ticks in "
          f"{seconds * 1e3:.1f} ms (median of {args.episodes}), {seconds / ticks * 1e3:.3f} ms per tick")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
