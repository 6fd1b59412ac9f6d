"""Doors, Keys and Gems as a PettingZoo AEC environment (turn-taking), for RL libraries.

Observation of each agent: ``{"observation": uint8 array (channels, height, width),
"action_mask": int8 array (n_actions,)}``. Channels, in order:

    wall, floor, locked door of colour c (one per colour), key of colour c on the floor,
    gem on the floor, own goal gem on the floor, own position, other agents' positions,
    keys of colour c held by oneself (the count, over the whole plane)

Actions are indices into a fixed list: up, down, left, right, wait, pickup <item> for every
item, unlock <door> for every door, handover <item> <agent> for every item and agent.
Reward: 1 to an agent when it first holds its goal gem. The episode terminates when every
agent holds its gem and is truncated at the scenario's ``t_max``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from sim.dkg.scenario import COLORS
from sim.dkg.world import DKGState, DKGWorld

N_COLORS = len(COLORS)
CHANNELS = 2 + 3 * N_COLORS + 4 + N_COLORS  # see the module docstring


class DKGAECEnv(AECEnv):
    metadata = {"render_modes": ["ansi"], "name": "tom_arena_dkg_v0", "is_parallelizable": False}

    def __init__(self, world: DKGWorld, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.world = world
        self.render_mode = render_mode
        self.possible_agents = list(world.agents)
        self.actions: list[str] = ["up", "down", "left", "right", "wait"]
        self.actions += [f"pickup {it.id}" for it in world.items]
        self.actions += [f"unlock {d.id}" for d in world.doors]
        self.actions += [f"handover {it.id} {a}" for it in world.items for a in world.agents]
        self.action_index = {a: i for i, a in enumerate(self.actions)}
        shape = (CHANNELS, world.height, world.width)
        self._obs_space = {a: spaces.Dict({
            "observation": spaces.Box(0, 255, shape, dtype=np.uint8),
            "action_mask": spaces.Box(0, 1, (len(self.actions),), dtype=np.int8)}) for a in self.possible_agents}
        self._act_space = {a: spaces.Discrete(len(self.actions)) for a in self.possible_agents}
        self._static = np.zeros((2, world.height, world.width), dtype=np.uint8)
        walls = np.frombuffer(world.walls, dtype=np.uint8).reshape(world.height, world.width)
        self._static[0] = walls
        self._static[1] = 1 - walls
        self.state_: DKGState = world.reset(0)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.state_ = self.world.reset(0 if seed is None else seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.world.active_agents(self.state_)[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        world, state = self.world, self.state_
        a = world.agent_index[agent]
        grid = np.zeros((CHANNELS, world.height, world.width), dtype=np.uint8)
        grid[:2] = self._static
        rc = world.rc
        for d, door in enumerate(world.doors):
            if not state.open_doors >> d & 1:
                grid[(2 + COLORS.index(door.color),) + rc(door.cell)] = 1
        goal = world.goal_item[a]
        held = 2 + 3 * N_COLORS + 4
        for i, (item, loc) in enumerate(zip(world.items, state.item_locs)):
            if loc >= 0:
                if item.kind == "key":
                    grid[(2 + N_COLORS + COLORS.index(item.color),) + rc(loc)] = 1
                else:
                    grid[(2 + 2 * N_COLORS,) + rc(loc)] = 1
                    if i == goal:
                        grid[(2 + 2 * N_COLORS + 1,) + rc(loc)] = 1
            elif loc == -1 - a and item.kind == "key":
                grid[held + COLORS.index(item.color)] += 1
        for b, cell in enumerate(state.agent_cells):
            grid[(2 + 3 * N_COLORS + (2 if b == a else 3),) + rc(cell)] = 1
        mask = np.zeros(len(self.actions), dtype=np.int8)
        for action in world.legal_actions(state, agent):
            mask[self.action_index[action]] = 1
        return {"observation": grid, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        result = self.world.step(self.state_, {agent: self.actions[int(action)]})
        self.state_ = result.state
        for event in result.events:
            if event.kind == "goal_reached":
                self.rewards[event.agent] += 1.0
        if self.world.done(self.state_):
            all_done = all(self.world.holds_goal(self.state_, b) for b in range(len(self.possible_agents)))
            for a in self.agents:
                (self.terminations if all_done else self.truncations)[a] = True
        else:
            self.agent_selection = self.world.active_agents(self.state_)[0]
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.world.render_text(self.state_)

    def close(self) -> None:
        pass


def make_env(scenario: str = "two-rooms", render_mode: str | None = None) -> DKGAECEnv:
    """The AEC environment of a shipped scenario (by name or path)."""
    from sim.registry import load_scenario

    world, _ = load_scenario(scenario)
    if not isinstance(world, DKGWorld):
        raise ValueError(f"{scenario!r} is not a Doors, Keys and Gems scenario")
    return DKGAECEnv(world, render_mode=render_mode)
