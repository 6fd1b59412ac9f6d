"""PettingZoo through the generic adapters of sim/pettingzoo.py: the fallbacks on a test world without
hooks, the Parallel adapter, illegal actions, and what each shipped world declares (action lists, masks,
rewards). ``api_test`` and ``parallel_api_test`` on every world run in tests/test_conformance.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

from sim.dkg.pettingzoo_env import make_env as make_dkg_env
from sim.pettingzoo import (
    WorldAECEnv,
    WorldParallelEnv,
    aec_env,
    canonical_text,
    decode_text,
    discover_actions,
    encode_text,
    make_env,
    parallel_env,
)
from sim.registry import build_world, list_scenarios
from sim.world import AgentId, IllegalAction, Message, StepResult, World, WorldEvent, require_joint

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's style advice (agent names, ...)


# ------------------------------------------------------------- a simultaneous test world

@dataclass(frozen=True, slots=True)
class MeetState:
    t: int
    cells: tuple[int, ...]
    inbox: tuple[tuple[str, ...], ...]  # messages received in the last step, per agent

    def key(self) -> tuple:
        return (self.t, self.cells, self.inbox)


@dataclass(frozen=True, slots=True)
class MeetObservation:
    agent: str
    cell: int
    others: tuple[tuple[str, int | None], ...]  # None: out of sight (further than one cell)
    inbox: tuple[str, ...]


class MeetWorld(World[MeetState, str, MeetObservation]):
    """Two agents on a corridor of ``length`` cells move at once (left, right, stay) and win
    together when they stand on one cell. Each sees the other only from one cell away; an agent
    may instead say something (``say:<text>``), which the other reads in its next observation.
    It declares none of the PettingZoo hooks: the adapters' fallbacks must carry it."""

    family = "meet"
    simultaneous = True
    legal_actions_exhaustive = False  # ``say:<any text>`` is legal too

    def __init__(self, length: int = 5, t_max: int = 8) -> None:
        self.length, self.t_max = length, t_max

    @property
    def agents(self) -> tuple[AgentId, ...]:
        return ("ann", "ben")

    def reset(self, seed: int) -> MeetState:
        return MeetState(0, (0, self.length - 1), ((), ()))

    def active_agents(self, state: MeetState) -> tuple[AgentId, ...]:
        return () if self.done(state) else self.agents

    def legal_actions(self, state: MeetState, agent: AgentId) -> tuple[str, ...]:
        if agent not in self.active_agents(state):
            return ()
        cell = state.cells[self.agents.index(agent)]
        return tuple(["stay"] + (["left"] if cell > 0 else []) + (["right"] if cell < self.length - 1 else []))

    def why_illegal(self, state: MeetState, agent: AgentId, action: str) -> str | None:
        if agent in self.active_agents(state) and action.startswith("say:"):
            return None
        return super().why_illegal(state, agent, action)

    def message_action(self, state: MeetState, agent: AgentId, text: str,
                       recipients: Sequence[AgentId] = ()) -> str:
        return f"say:{text}"

    def step(self, state: MeetState, joint_action: Mapping[AgentId, str]) -> StepResult[MeetState]:
        require_joint(self, state, joint_action)
        cells, inbox, messages, events = list(state.cells), [[], []], [], []
        for a, agent in enumerate(self.agents):
            action = joint_action[agent]
            if not self.is_legal(state, agent, action):
                raise IllegalAction(f"{agent}: {self.why_illegal(state, agent, action)}")
            if action.startswith("say:"):
                inbox[1 - a].append(action[4:])
                messages.append(Message(agent, (self.agents[1 - a],), action[4:], cost=1))
            else:
                cells[a] += {"stay": 0, "left": -1, "right": 1}[action]
        if cells[0] == cells[1]:
            events.append(WorldEvent("met", None, {"cell": cells[0]}))
        after = MeetState(state.t + 1, tuple(cells), (tuple(inbox[0]), tuple(inbox[1])))
        return StepResult(after, tuple(events), tuple(messages))

    def observe(self, state: MeetState, agent: AgentId) -> MeetObservation:
        a = self.agents.index(agent)
        others = tuple((other, cell if abs(cell - state.cells[a]) <= 1 else None)
                       for other, cell in zip(self.agents, state.cells) if other != agent)
        return MeetObservation(agent, state.cells[a], others, state.inbox[a])

    def done(self, state: MeetState) -> bool:
        return state.t >= self.t_max or state.cells[0] == state.cells[1]

    def state_key(self, state: MeetState) -> tuple:
        return state.key()

    def outcome(self, state: MeetState) -> dict[str, Any]:
        return {"success": state.cells[0] == state.cells[1], "ticks": state.t}

    def render_text(self, state: MeetState) -> str:
        row = ["."] * self.length
        for agent, cell in zip(self.agents, state.cells):
            row[cell] = "*" if row[cell] != "." else agent[0]
        return f"tick {state.t}/{self.t_max}  " + "".join(row)


def tradecraft_instances() -> list[str]:
    """Two instances of each TradeCraft category (alchemy 1v1, minecraft 1v1, minecraft 3 players)."""
    by_category: dict[str, list[str]] = {}
    for info in list_scenarios():
        if info.family == "tradecraft":
            by_category.setdefault(info.path.parent.name, []).append(str(info.path))
    return [p for paths in by_category.values() for p in sorted(paths)[:2]]


def masked_random_play(env: WorldAECEnv, seed: int, max_iter: int = 2000) -> int:
    """Play uniformly among masked actions; check every masked action with the world's rules."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in env.agent_iter(max_iter=max_iter):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0, f"{agent} must move but no action of the list is legal"
        for i in legal:
            assert env.world.is_legal(env.world_state, agent, env.actions[i]), env.actions[i]
        env.step(int(rng.choice(legal)))
        steps += 1
    return steps


# ---------------------------------------------------------------------- Doors, Keys and Gems

def test_dkg_mask_is_the_legal_action_set_in_random_play():
    env = make_dkg_env("two-rooms", render_mode="ansi")
    assert env.actions[:5] == ["up", "down", "left", "right", "wait"]
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter(max_iter=500):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert obs["observation"].shape == (env.observation_space(agent)["observation"].shape)
        legal = np.flatnonzero(obs["action_mask"])
        assert {env.actions[i] for i in legal} == set(env.world.legal_actions(env.world_state, agent))
        env.step(int(rng.choice(legal)))
        steps += 1
    assert steps == env.world.t_max or env.world.done(env.world_state)
    assert "tick" in env.render()


def test_dkg_goal_rewards_and_termination_with_planner_actions():
    from agents.dkg.agents import planner_for
    from agents.dkg.planner import Task

    env = make_dkg_env("two-rooms")
    env.reset(seed=0)
    planner = planner_for(env.world)
    total = {a: 0.0 for a in env.possible_agents}
    ended = {}
    for agent in env.agent_iter(max_iter=200):
        _, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            ended[agent] = (terminated, truncated)
            env.step(None)
            continue
        a = env.world.agent_index[agent]
        plan = planner.plan(env.world_state, a, Task.hold(env.world.goal_item[a]))
        env.step(env.index_of(planner.first_action(env.world_state, a, plan) or "wait"))
    assert total == {"alice": 1.0, "bob": 1.0}
    assert ended == {"alice": (True, False), "bob": (True, False)}


def test_dkg_waiting_out_the_clock_is_a_truncation():
    env = make_dkg_env("two-rooms")
    env.reset(seed=0)
    wait = env.index_of("wait")
    ended = {}
    for agent in env.agent_iter(max_iter=1000):
        _, reward, terminated, truncated, _ = env.last()
        assert reward == 0.0
        if terminated or truncated:
            ended[agent] = (terminated, truncated)
            env.step(None)
            continue
        env.step(wait)
    assert env.world_state.t == env.world.t_max
    assert ended == {"alice": (False, True), "bob": (False, True)}


# ----------------------------------------------------------------------------- TradeCraft

def test_tradecraft_action_list_holds_the_sampled_actions_of_the_first_turn():
    from sim.tradecraft.world import DONE, Pass, Respond

    env = make_env("mc3p-01")
    world, state = env.world, env.world_state
    assert env.actions[:4] == [Pass(), Respond(False), Respond(True), DONE]
    proposer = world.active_agents(state)[0]
    sampled = world.legal_actions(state, proposer)
    assert len(sampled) > 10
    assert all(env.index_of(action) is not None for action in sampled)
    env.reset(seed=0)
    mask = env.observe(proposer)["action_mask"]
    assert {env.actions[i] for i in np.flatnonzero(mask)} == set(sampled)  # one-for-one swaps are all it has
    assert not env.observe(world.agents[1])["action_mask"].any()  # not bob's move
    assert "Your secret target" in decode_text(env.observe(proposer)["observation"])


def test_tradecraft_masked_random_play_follows_the_rules():
    for path in tradecraft_instances()[:4]:
        env = make_env(path)
        assert masked_random_play(env, seed=1) > 0
        assert env.world.done(env.world_state)


def test_tradecraft_win_rewards_the_winner_and_terminates():
    from sim.tradecraft.instance import validate_instance

    spec = validate_instance({"world": "tradecraft", "name": "one-craft", "rules": "minecraft",
                              "hands": [{"oak_log": 1}, {"cobblestone": 1}],
                              "targets": [{"oak_planks": 4}, {"stick": 4}]}, "test")
    env = aec_env(build_world("tradecraft", spec))
    planks = next(i for i, a in enumerate(env.actions)
                  if type(a).__name__ == "CraftTurn" and a.crafts and a.crafts[0].recipe == "minecraft:oak_planks"
                  and a.crafts[0].times == 1)
    env.reset(seed=0)
    # alice passes, crafts her planks and is done; bob is done at once
    moves = {"alice": [0, planks, 3], "bob": [3]}
    total, ended = {"alice": 0.0, "bob": 0.0}, {}
    for agent in env.agent_iter(max_iter=50):
        _, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            ended[agent] = (terminated, truncated)
            env.step(None)
            continue
        env.step(moves[agent].pop(0))
    assert moves == {"alice": [], "bob": []}
    assert env.world.winners(env.world_state) == ["alice"]
    assert total == {"alice": 1.0, "bob": 0.0}
    assert ended == {"alice": (True, False), "bob": (True, False)}


# -------------------------------------------------------------- generic fallbacks, Parallel

def test_fallbacks_carry_a_world_without_hooks():
    world = MeetWorld()
    assert discover_actions(world) == ["stay", "right", "left"]
    env = aec_env(world)
    assert env.actions == ["stay", "right", "left"]
    assert not any(a.startswith("say:") for a in env.actions)  # no free text in the action list
    env.reset(seed=0)
    obs = env.observe("ann")
    assert decode_text(obs["observation"]) == canonical_text(world.observe(env.world_state, "ann"))
    assert '"others":[["ben",null]]' in decode_text(obs["observation"])  # ben is out of sight
    assert list(obs["action_mask"]) == [1, 1, 0]


def test_aec_collects_simultaneous_actions_before_the_world_steps():
    env = aec_env(MeetWorld(length=3))
    env.reset(seed=0)
    assert env.agent_selection == "ann"
    env.step(env.index_of("right"))
    assert env.world_state.t == 0 and env.agent_selection == "ben"
    assert not env.observe("ann")["action_mask"].any()  # ann has chosen for this step
    env.step(env.index_of("left"))  # both reach the middle cell at once
    assert env.world_state.cells == (1, 1)
    assert env.rewards == {"ann": 1.0, "ben": 1.0}
    assert env.terminations == {"ann": True, "ben": True}
    api_test(aec_env(MeetWorld()), num_cycles=50)


def test_messages_reach_an_agent_only_through_its_observation():
    world = MeetWorld()
    start = world.reset(0)
    result = world.step(start, {"ann": world.message_action(start, "ann", "left?"), "ben": "stay"})
    assert [m.text for m in result.messages] == ["left?"]
    encoding = aec_env(world).encoding
    assert '"inbox":["left?"]' in decode_text(encoding.encode(result.state, "ben"))
    assert '"inbox":[]' in decode_text(encoding.encode(result.state, "ann"))


def test_parallel_api_test_passes_on_a_simultaneous_world():
    parallel_api_test(parallel_env(MeetWorld()), num_cycles=50)
    env = parallel_env(MeetWorld(length=3))
    observations, _ = env.reset(seed=0)
    assert set(observations) == {"ann", "ben"}
    _, rewards, terminations, truncations, _ = env.step({"ann": env.index_of("right"), "ben": env.index_of("left")})
    assert rewards == {"ann": 1.0, "ben": 1.0} and terminations == {"ann": True, "ben": True}
    assert env.agents == []


def test_parallel_adapter_truncates_at_max_cycles_and_refuses_turn_based_worlds():
    env = parallel_env(MeetWorld(length=9, t_max=100), max_cycles=3)
    env.reset(seed=0)
    stay = env.index_of("stay")
    for _ in range(2):
        assert env.step({"ann": stay, "ben": stay})[3] == {"ann": False, "ben": False}
    assert env.step({"ann": stay, "ben": stay})[3] == {"ann": True, "ben": True}
    with pytest.raises(ValueError, match="takes turns"):
        WorldParallelEnv(make_dkg_env().world)


def test_illegal_actions_raise_with_the_reason_or_fall_back():
    env = aec_env(MeetWorld())
    env.reset(seed=0)
    with pytest.raises(IllegalAction, match="ann"):
        env.step(env.index_of("left"))  # ann stands at the left end
    env = aec_env(MeetWorld(), on_illegal="fallback")
    env.reset(seed=0)
    env.step(env.index_of("left"))
    assert env.infos["ann"]["illegal_action"]
    with pytest.raises(ValueError, match="outside"):
        env.step(99)


def test_text_encoding_is_bounded_and_reads_back():
    assert decode_text(encode_text("héllo")) == "héllo"
    long = encode_text("x" * 5000, size=64)
    assert long.shape == (64,) and decode_text(long).endswith("...") and len(decode_text(long)) == 64
    assert canonical_text({"b": 1, "a": (1, 2)}) == '{"a":[1,2],"b":1}'


# ---------------------------------------------------------------------- household

@pytest.mark.parametrize("scenario", ["household-prepare-tea-01", "transport-food-high-01"])
def test_household_action_list_covers_the_house_and_its_mask_is_the_legal_set(scenario):
    """The household declares its actions (every move of the house but messages): the list is
    fixed by the scenario, holds every legal action met in play, and the mask is exactly the
    legal set (messages aside) for the agent to move, in both task kinds, with grabs by name of
    objects out of sight besides."""
    env = make_env(scenario, parallel=True)
    world = env.world
    actions = world.pettingzoo_actions()
    assert env.actions == actions and len(set(actions)) == len(actions)
    assert actions[:2] == ["wait", "explore"] and not any(a.startswith("say") for a in actions)
    assert len(actions) == (2 + len(world.room_ids) + len(world.objects)
                            + 2 * sum(p.openable for p in world.places)
                            + len(world.objects) * sum(p.kind in ("surface", "floor") for p in world.places)
                            + sum(o.kind != "container" for o in world.objects)
                            * (sum(o.kind == "container" for o in world.objects)
                               + sum(p.kind == "receptacle" for p in world.places)))
    observations, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if not env.agents:
            break
        joint = {}
        for agent in env.agents:
            legal = set(world.legal_actions(env.world_state, agent))
            masked = {actions[i] for i in np.flatnonzero(observations[agent]["action_mask"])}
            # besides the listed actions, a grab by name may be tried (a partner's report is acted
            # on without looking): the mask holds it, the world fails it when it completes
            tried = {a for a in masked - legal if a.startswith("grab ")}
            assert masked - tried == legal, (agent, masked ^ legal)
            joint[agent] = actions.index(sorted(legal)[rng.integers(len(legal))]) if legal else 0
        observations, *_ = env.step(joint)
