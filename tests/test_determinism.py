"""Same seed, same episode: for every shipped Doors-Keys-Gems scenario, in one process and
across processes (whose string hashing is salted differently)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.registry import make_agent
from sim.events import StepEvent
from sim.recording import load_recording
from sim.registry import SCENARIO_DIR, load_scenario
from sim.replay import Replay
from sim.session import Session

ROOT = Path(__file__).resolve().parent.parent
DKG_SCENARIOS = sorted(p.stem for p in (SCENARIO_DIR / "dkg").glob("*.json") if not p.name.endswith(".schema.json"))
# (agent spec, seed): the planner draws no random numbers, the simulated humans do
RUNS = [("planner", 0), ("boltzmann:temperature=0.5", 7), ("boltzmann:temperature=3.0,compliance=0.5", 11)]


def test_scenarios_are_discovered():
    assert "two-rooms" in DKG_SCENARIOS


def play(scenario: str, spec: str, seed: int) -> Session:
    world, name = load_scenario(f"dkg/{scenario}")
    session = Session(world, {a: make_agent(spec, "dkg") for a in world.agents}, seed=seed, scenario=name)
    session.run()
    return session


@pytest.mark.parametrize("scenario", DKG_SCENARIOS)
@pytest.mark.parametrize("spec, seed", RUNS, ids=[spec for spec, _ in RUNS])
def test_same_seed_gives_the_same_episode(scenario, spec, seed):
    first, second = play(scenario, spec, seed), play(scenario, spec, seed)
    steps = [(e.joint_action, e.state_hash) for e in first.events if isinstance(e, StepEvent)]
    assert steps, "the episode took no step"
    assert steps == [(e.joint_action, e.state_hash) for e in second.events if isinstance(e, StepEvent)]
    assert [e.to_dict() for e in first.events] == [e.to_dict() for e in second.events]
    assert first.state == second.state


def test_seeds_drive_the_simulated_humans():
    """A sanity check that the comparisons above could fail: other seeds, other episodes."""
    for scenario in DKG_SCENARIOS:
        episodes = {tuple(str(e.joint_action) for e in play(scenario, "boltzmann:temperature=3.0", seed).events
                          if isinstance(e, StepEvent)) for seed in (1, 2)}
        if len(episodes) == 2:
            return
    pytest.fail("no scenario plays differently under different seeds")


RUNNER = """
import sys
from main import main
out = sys.argv[1]
codes = []
for scenario in sys.argv[2:]:
    codes.append(main(["run", "dkg/" + scenario, "--agents", "planner", "--seed", "3",
                       "--out", f"{out}/planner/{scenario}", "--quiet"]))
    codes.append(main(["run", "dkg/" + scenario, "--agents", "boltzmann:temperature=1.0", "--seed", "5",
                       "--out", f"{out}/boltzmann/{scenario}", "--quiet"]))
sys.exit(max(codes))
"""


def test_recordings_are_identical_across_processes(tmp_path):
    """Two processes run ``main.py run`` on every scenario; their recordings must match byte for
    byte (a recording holds no path, time or other trace of the process that wrote it)."""
    procs = []
    for side, hash_seed in (("a", "1"), ("b", "2")):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        procs.append(subprocess.Popen([sys.executable, "-c", RUNNER, str(tmp_path / side), *DKG_SCENARIOS],
                                      cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.jsonl"))
    files_b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*.jsonl"))
    assert files_a == files_b and len(files_a) == 2 * len(DKG_SCENARIOS)
    for rel in files_a:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel
        rec = load_recording(tmp_path / "a" / rel)
        assert rec.complete
        assert Replay(rec).warnings == []  # and this process computes the same state hashes


def test_a_session_freezes_what_it_built_and_lets_it_go_when_the_episode_ends():
    """sim/collector.py: after set-up and after every step what is alive is frozen (the
    collector's full collections in the next step walk only what that step made); when the
    episode ends everything goes back to the collector, and cycles left behind are collected."""
    import gc
    import weakref

    import sim.collector

    world, name = load_scenario("protom-01-open-hall")
    session = Session(world, {a: make_agent("planner", world.family) for a in world.agents}, seed=0, scenario=name)
    assert gc.get_freeze_count() > 0
    session.advance()
    made_in_step = gc.get_count()[0]
    assert gc.get_freeze_count() > 0 and made_in_step == 0  # the step's survivors were frozen too
    session.stop()
    assert gc.get_freeze_count() == 0

    class Cycle:
        pass

    sim.collector._settled = 1  # as if the frozen objects had grown past a quarter since the last collection
    session = Session(world, {a: make_agent("planner", world.family) for a in world.agents}, seed=0, scenario=name)
    loop = Cycle()
    loop.me = loop
    gone = weakref.ref(loop)
    del loop
    session.advance()  # the cycle, garbage already, may be frozen with the rest
    session.stop()  # released, and a full collection: the cycle is gone
    assert gone() is None
