"""Doors, Keys and Gems: world steps per second and planner decision time.

    .venv/bin/python -m bench.bench_dkg [--repeats N] [--json FILE]

Figures (median of ``--repeats`` runs, each in this process):
- world steps/s: random legal actions through ``DKGWorld.step`` alone;
- session steps/s: planner + Boltzmann seats through the Session, with and without a
  recording on disk (ratio against the bare world: the cost of the loop and the events);
- planner decision time: ``PlannerAgent.act`` on the states of an episode with the shared
  cached planner, against a fresh planner per decision (a full search with new distance
  maps every step: the baseline the caches exist to beat).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.dkg.agents import planner_for  # noqa: E402
from agents.dkg.planner import DKGPlanner, Task  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from sim.recording import RecordingWriter  # noqa: E402
from sim.registry import list_scenarios, load_scenario  # noqa: E402
from sim.session import Session  # noqa: E402


def world_steps_per_second(world, n_steps: int = 20_000, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    state = world.reset(seed)
    start = time.perf_counter()
    for _ in range(n_steps):
        if world.done(state):
            state = world.reset(seed)
        agent = world.active_agents(state)[0]
        legal = world.legal_actions(state, agent)
        state = world.step(state, {agent: legal[rng.integers(len(legal))]}).state
    return n_steps / (time.perf_counter() - start)


def session_steps_per_second(world, name: str, episodes: int, record_dir: str | None) -> float:
    steps, start = 0, time.perf_counter()
    for seed in range(episodes):
        seats = {a: make_agent("planner" if i % 2 == 0 else "boltzmann") for i, a in enumerate(world.agents)}
        session = Session(world, seats, seed=seed, scenario=name)
        if record_dir is not None:
            RecordingWriter.attach(session, os.path.join(record_dir, f"{name}-{seed}.jsonl"))
        session.run()
        steps += session.tick
    return steps / (time.perf_counter() - start)


def episode_states(world, seed: int = 0):
    """(state, agent) pairs at every decision of a planner-vs-planner episode."""
    seats = {a: make_agent("planner") for a in world.agents}
    session = Session(world, seats, seed=seed)
    pairs = []
    session.subscribe(lambda e: None)
    while not session.finished:
        state = session.state
        if not world.done(state):
            pairs.append((state, world.active_agents(state)[0]))
        session.advance()
    return pairs


def decision_times(world, pairs, cached: bool) -> list[float]:
    agent_objs = {}
    times = []
    for state, agent in pairs:
        a = world.agent_index[agent]
        task = Task.hold(world.goal_item[a])
        planner = planner_for(world) if cached else DKGPlanner(world)
        start = time.perf_counter()
        plan = planner.plan(state, a, task)
        planner.first_action(state, a, plan)
        times.append(time.perf_counter() - start)
        agent_objs[agent] = plan
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure; the median is reported")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    results = {}
    rows = []
    for info in list_scenarios():
        if info.family != "dkg":
            continue
        world, name = load_scenario(str(info.path))
        world_sps = statistics.median(world_steps_per_second(world, seed=r) for r in range(args.repeats))
        sess_sps = statistics.median(session_steps_per_second(world, name, 5, None) for _ in range(args.repeats))
        with tempfile.TemporaryDirectory() as tmp:
            rec_sps = statistics.median(session_steps_per_second(world, name, 5, tmp) for _ in range(args.repeats))
        pairs = episode_states(world)
        planner_for(world)  # warm: one episode's worth of plans already cached by episode_states
        warm = [t for _ in range(args.repeats) for t in decision_times(world, pairs, cached=True)]
        cold = [t for _ in range(args.repeats) for t in decision_times(world, pairs, cached=False)]
        row = {
            "scenario": name,
            "world_steps_per_s": round(world_sps),
            "session_steps_per_s": round(sess_sps),
            "recorded_steps_per_s": round(rec_sps),
            "decision_us_cached": round(statistics.median(warm) * 1e6, 1),
            "decision_us_uncached": round(statistics.median(cold) * 1e6, 1),
        }
        row["cache_speedup"] = round(row["decision_us_uncached"] / max(row["decision_us_cached"], 1e-3), 1)
        row["session_vs_world"] = round(sess_sps / world_sps, 3)
        rows.append(row)
        results[name] = row

    cols = list(rows[0])
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for r in rows:
        print("  ".join(str(r[c]).ljust(w) for c, w in zip(cols, widths)))
    med = {k: statistics.median(r[k] for r in rows) for k in cols[1:]}
    print("\nmedian over scenarios: " + ", ".join(f"{k} {v}" for k, v in med.items()))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"scenarios": results, "median": med}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
