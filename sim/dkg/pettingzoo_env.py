"""Doors, Keys and Gems for PettingZoo: the fixed action list and the grid observation that
``DKGWorld``'s PettingZoo hooks return; the environments themselves are the generic adapters
of ``sim/pettingzoo.py``.

Observation of each agent: ``{"observation": uint8 array (channels, height, width),
"action_mask": int8 array (n_actions,)}``. Channels, in order:

    wall, floor, locked door of colour c (one per colour), key of colour c on the floor,
    gem on the floor, own goal gem on the floor, own position, other agents' positions,
    keys of colour c held by oneself (the count, over the whole plane)

Actions are indices into a fixed list: up, down, left, right, wait, pickup <item> for every
item, unlock <door> for every door (with the lowest-numbered matching key held; unlocks
naming a key are not in the list), handover <item> <agent> for every item and agent.
Reward: 1 to an agent when it first holds its goal gem. The episode terminates when every
agent with a goal holds its gem and is truncated at the scenario's ``t_max``; a helper
without a goal has no goal-gem channel set and earns no reward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from gymnasium import spaces

from sim.dkg.scenario import COLORS

if TYPE_CHECKING:
    from sim.dkg.world import DKGObservation, DKGWorld
    from sim.pettingzoo import WorldAECEnv

N_COLORS = len(COLORS)
CHANNELS = 2 + 3 * N_COLORS + 4 + N_COLORS  # see the module docstring


def action_list(world: "DKGWorld") -> list[str]:
    actions = ["up", "down", "left", "right", "wait"]
    actions += [f"pickup {it.id}" for it in world.items]
    actions += [f"unlock {d.id}" for d in world.doors]
    actions += [f"handover {it.id} {a}" for it in world.items for a in world.agents]
    return actions


def observation_space(world: "DKGWorld") -> spaces.Box:
    return spaces.Box(0, 255, (CHANNELS, world.height, world.width), dtype=np.uint8)


def encode(world: "DKGWorld", observation: "DKGObservation") -> np.ndarray:
    """The channel grid of one agent's observation (see the module docstring)."""
    state = observation.state
    a = world.agent_index[observation.agent]
    grid = np.zeros((CHANNELS, world.height, world.width), dtype=np.uint8)
    walls = np.frombuffer(world.walls, dtype=np.uint8).reshape(world.height, world.width)
    grid[0] = walls
    grid[1] = 1 - walls
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
    return grid


def make_env(scenario: str = "two-rooms", render_mode: str | None = None) -> "WorldAECEnv":
    """The AEC environment of a shipped Doors, Keys and Gems scenario (by name or path)."""
    from sim.dkg.world import DKGWorld
    from sim.pettingzoo import aec_env
    from sim.registry import load_scenario

    world, _ = load_scenario(scenario)
    if not isinstance(world, DKGWorld):
        raise ValueError(f"{scenario!r} is not a Doors, Keys and Gems scenario")
    return aec_env(world, render_mode=render_mode)
