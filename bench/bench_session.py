"""The Session loop's own cost per tick, against the world's.

    .venv/bin/python -m bench.bench_session [--ticks 3000] [--repeats 3]

Doors, Keys and Gems (two-rooms with room for ``--ticks`` steps), two agents that wander at
random (they never pick up their gems, so every episode runs its full length), no mechanisms.
Figures, same process, interleaved:

- the Session: ``Session.run()`` (observations and their digests, legal actions, the agents,
  legality, the step, its state hash, the events);
- baseline: a bare loop doing what the rules need (observe, legal actions, the same agent
  choice, step), without events, digests or checks.

Reported: microseconds per tick of each (median over ``--repeats``), of wall time and of this
process's CPU time (which depends less on what else the machine runs: the loop is one thread),
the Session's overhead per tick and the ratio Session / bare loop, with the load average (the
ratio is the figure that depends least on load), and the Python function calls per tick of the
Session (counted with cProfile, independent of load).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_gui import long_world  # noqa: E402
from sim.seats import Agent  # noqa: E402
from sim.session import Session  # noqa: E402


def wander(legal: Any, rng: np.random.Generator) -> str:
    moves = [a for a in legal if not a.startswith(("pickup", "handover"))]
    return moves[int(rng.integers(len(moves)))]


class Wanderer(Agent):
    kind = "bench-wanderer"

    def act(self, observation: Any, legal_actions: Any) -> Any:
        return wander(legal_actions, self.ctx.rng)


def session_run(world: Any) -> int:
    session = Session(world, {a: Wanderer() for a in world.agents}, seed=3)
    session.run()
    return session.tick


def bare_run(world: Any) -> int:
    state, rng = world.reset(3), np.random.default_rng(0)
    ticks = 0
    while not world.done(state):
        joint = {}
        for agent in world.active_agents(state):
            world.observe(state, agent)
            joint[agent] = wander(world.legal_actions(state, agent), rng)
        state = world.step(state, joint).state
        ticks += 1
    return ticks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    world = long_world(args.ticks)
    session_run(world)  # warm up
    session_us, bare_us, session_cpu, bare_cpu = [], [], [], []
    for _ in range(args.repeats):
        for run, wall, cpu in ((session_run, session_us, session_cpu), (bare_run, bare_us, bare_cpu)):
            t0, c0 = time.perf_counter(), time.process_time()
            ticks = run(world)
            cpu.append(1e6 * (time.process_time() - c0) / ticks)
            wall.append(1e6 * (time.perf_counter() - t0) / ticks)
    profile = cProfile.Profile()
    profile.enable()
    ticks = session_run(world)
    profile.disable()
    calls = pstats.Stats(profile).total_calls / ticks  # type: ignore[attr-defined]
    print(f"Session loop, Doors, Keys and Gems, {ticks} ticks, median of {args.repeats} "
          f"(load average {os.getloadavg()[0]:.1f}):")
    for clock, session, bare in (("wall", session_us, bare_us), ("CPU", session_cpu, bare_cpu)):
        s, b = statistics.median(session), statistics.median(bare)
        print(f"  {clock}:")
        print(f"    Session.run         {s:8.1f} us/tick" + (f"   ({calls:.0f} Python calls per tick)"
                                                           if clock == "wall" else ""))
        print(f"    bare loop (base)    {b:8.1f} us/tick")
        print(f"    Session overhead    {s - b:8.1f} us/tick   ratio Session / bare loop {s / b:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
