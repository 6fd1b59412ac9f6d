"""ProToM's joint rollouts in Doors, Keys and Gems read off the previous tick's rollout when the
agent that moved walked (or stayed) as the rollout had it (``DKGRollouts._shifted``), or off the
suffix memo at their start state: every rollout so obtained must equal a rollout simulated from
scratch in the same state."""

from __future__ import annotations

from agents.dkg.planner import DKGPlanner
from agents.protom.dkg_rollout import DKGRollouts
from agents.registry import make_agent, make_mechanism
from sim.dkg.world import DKGState
from sim.registry import load_scenario
from sim.session import Session


def check_every_rollout(scenario: str, seats: str, params: dict, max_steps: int | None) -> dict:
    world, name = load_scenario(scenario)
    fac = make_mechanism("protom", world.family, params)
    session = Session(world, {a: make_agent(seats, world.family) for a in world.agents}, seed=0,
                      scenario=name, mechanisms=[fac])
    session.run(max_steps=max_steps)
    engine = fac.adapter.rollouts
    fresh = DKGRollouts(world, DKGPlanner(world))
    reached = world.reset(0).reached_at
    tasks = {number: task for task, number in engine._task_ids.items()}  # the keys name tasks by number
    for (turn, cells, locs, doors, goals, extra), finish in engine._cache.items():
        extra = None if extra is None else (extra[0], tasks[extra[1]])
        state = DKGState(t=0, turn=turn, agent_cells=cells, item_locs=locs, open_doors=doors, reached_at=reached)
        assert fresh._simulate(state, goals, extra) == finish, (cells, goals, extra)
    return engine.stats


def test_shifted_rollouts_equal_fresh_ones_on_a_shipped_scenario():
    stats = check_every_rollout("protom-10-trio-courier", "boltzmann:temperature=0.5", {}, None)
    assert stats["shifted"] > 0


def test_shifted_rollouts_equal_fresh_ones_with_six_agents():
    """Also the rollouts read off when the agent that moved stayed where the rollout had it stay
    (idle: it waits holding its gem), and those read off the suffix memo at the state they start
    from (the tick before's rollouts reached it as an event state)."""
    stats = check_every_rollout("team-01-six", "tom-planner:k=cycle", {"max_hypotheses": 2}, 30)
    assert stats["shifted"] > 0 and stats["shifted_in_place"] > 0 and stats["suffixes_at_start"] > 0


def test_shifted_rollouts_of_a_stuck_agent_equal_fresh_ones():
    """The agent that moved is stuck in the rollouts of the tick before (it cannot reach its gem
    alone) and took the greedy step they had it take."""
    stats = check_every_rollout("protom-20-far-side", "boltzmann:temperature=0.5", {}, 60)
    assert stats["shifted_in_place"] > 0
