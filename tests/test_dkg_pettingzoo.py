import numpy as np
from pettingzoo.test import api_test

from sim.dkg.pettingzoo_env import make_env
from sim.registry import list_scenarios


def test_api_test_passes_on_every_dkg_scenario():
    for info in list_scenarios():
        if info.family == "dkg":
            api_test(make_env(str(info.path)), num_cycles=300)


def test_masked_random_play_matches_the_world_rules():
    env = make_env("two-rooms", render_mode="ansi")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter(max_iter=500):
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert {env.actions[i] for i in legal} == set(env.world.legal_actions(env.state_, agent))
        env.step(int(rng.choice(legal)))
        steps += 1
    assert steps == env.world.t_max or env.world.done(env.state_)
    assert "tick" in env.render()


def test_goal_reward_and_termination_with_planner_actions():
    from agents.dkg.agents import planner_for
    from agents.dkg.planner import Task

    env = make_env("two-rooms")
    env.reset(seed=0)
    planner = planner_for(env.world)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter(max_iter=200):
        _, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        a = env.world.agent_index[agent]
        task = Task.hold(env.world.goal_item[a])
        plan = planner.plan(env.state_, a, task)
        action = planner.first_action(env.state_, a, plan) or "wait"
        env.step(env.action_index[action])
    assert total == {"alice": 1.0, "bob": 1.0}
