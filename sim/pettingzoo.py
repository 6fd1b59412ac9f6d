"""PettingZoo environments for every World: a generic AEC adapter, and a Parallel adapter
for worlds whose agents move at once (``World.simultaneous``).

The World stays pure: the adapter holds the current state, ``reset(seed)`` calls
``world.reset(seed)`` and each completed joint action calls ``world.step``. What PettingZoo
needs beyond the World contract comes from optional hooks a world may implement (the
Protocols below), each with a generic fallback:

* ``pettingzoo_actions()`` -> a fixed, finite list of the world's actions; the action space
  is ``Discrete(len(list))``. Fallback: the legal actions met while exploring the world
  breadth-first from ``reset(0)`` (at most ``EXPLORE_STATES`` states), in the order met.
  Worlds whose ``legal_actions`` is only a sample should declare their own list.
* ``pettingzoo_observation_space(agent)`` and ``pettingzoo_observation(observation, agent)``:
  the encoding of ``world.observe(state, agent)``. Fallback: ``canonical_text`` of the
  observation as UTF-8 bytes in a ``uint8`` array of ``TEXT_BYTES`` (zero-padded; read it back
  with ``decode_text``). Not a gymnasium ``Text`` space: PettingZoo's ``api_test`` compares
  the dtype of every observation with its space, which a Python string does not have.
* ``pettingzoo_reward(before, after, agent)``: the reward of one world step. Fallback: 1 when
  ``world.outcome(after)`` newly counts the agent as successful (it is in ``"winners"``, or,
  for outcomes without winners, ``"success"`` became true for the whole team), else 0.
* ``pettingzoo_truncated(state)``: whether a finished episode ended at the world's time
  limit (truncation) rather than by its rules (termination). Fallback: never.

Every observation is ``{"observation": ..., "action_mask": int8 array}``. The mask marks the
list's actions that are legal now: for worlds with an exhaustive ``legal_actions`` those in
it, for the others each entry ``world.is_legal`` accepts. An agent that is not to move (not
active, or it already chose in this simultaneous step) sees an all-zero mask.

Messages: the action list holds no free text, so PettingZoo agents cannot talk; messages
other seats send reach an agent only through its observation (as the world encodes it).
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections import deque
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from sim.world import AgentId, IllegalAction, World

#: size of the fallback text observation, in bytes (longer texts are cut and end in "...")
TEXT_BYTES = 4096
#: states the fallback action discovery visits at most
EXPLORE_STATES = 256


# ------------------------------------------------------------------------------ hooks

@runtime_checkable
class DeclaresPettingZooActions(Protocol):
    def pettingzoo_actions(self) -> Sequence[Any]:
        """The fixed action list of this world instance (the same for every agent)."""


@runtime_checkable
class EncodesPettingZooObservations(Protocol):
    def pettingzoo_observation_space(self, agent: AgentId) -> spaces.Space:
        """The space of ``pettingzoo_observation``'s values for ``agent``."""

    def pettingzoo_observation(self, observation: Any, agent: AgentId) -> Any:
        """``world.observe(state, agent)`` as a value of that space."""


@runtime_checkable
class RewardsPettingZooSteps(Protocol):
    def pettingzoo_reward(self, before: Any, after: Any, agent: AgentId) -> float:
        """The reward ``agent`` receives for the world step from ``before`` to ``after``."""


@runtime_checkable
class TruncatesPettingZooEpisodes(Protocol):
    def pettingzoo_truncated(self, state: Any) -> bool:
        """For a finished ``state``: True when the episode ran into the world's time limit."""


# ------------------------------------------------------------------------------- text

def _plain(value: Any) -> Any:
    """``value`` as JSON-ready data with a fixed order, for ``canonical_text``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        items = [(str(k) if isinstance(k, str) else json.dumps(_plain(k)), _plain(v)) for k, v in value.items()]
        return dict(sorted(items))
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.name
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, bytes):
        return value.hex()
    return repr(value)


def canonical_text(observation: Any) -> str:
    """A deterministic text of any observation: strings as they are; dataclasses, mappings
    and sequences as JSON with fields in declaration order and mapping keys sorted."""
    if isinstance(observation, str):
        return observation
    return json.dumps(_plain(observation), ensure_ascii=False, separators=(",", ":"))


def text_space(size: int = TEXT_BYTES) -> spaces.Box:
    """The space of ``encode_text(..., size)``: UTF-8 bytes, zero-padded."""
    return spaces.Box(0, 255, (size,), dtype=np.uint8)


def encode_text(text: str, size: int = TEXT_BYTES) -> np.ndarray:
    """``text`` as UTF-8 bytes in a zero-padded array of ``size``; a longer text is cut and
    ends in ``...`` (NUL characters become spaces so that the padding stays unambiguous)."""
    data = text.replace("\x00", " ").encode("utf-8")
    if len(data) > size:
        data = data[:size - 3] + b"..."
    out = np.zeros(size, dtype=np.uint8)
    out[:len(data)] = np.frombuffer(data, dtype=np.uint8)
    return out


def decode_text(array: np.ndarray) -> str:
    """The text ``encode_text`` stored (a character cut at the size limit reads as U+FFFD)."""
    data = np.asarray(array, dtype=np.uint8).tobytes()
    return data.split(b"\x00", 1)[0].decode("utf-8", errors="replace")


# ---------------------------------------------------------------------- the world side

def action_key(world: World, action: Any) -> str:
    """A string that identifies an action: its JSON form with sorted keys."""
    return json.dumps(world.encode_action(action), sort_keys=True, default=str)


def discover_actions(world: World, seed: int = 0, max_states: int = EXPLORE_STATES) -> list[Any]:
    """The legal actions met in a breadth-first walk from ``world.reset(seed)``, in the order
    met. Each visited state is expanded by joint actions that together try every active
    agent's every legal action (not their full product), so the walk stays linear."""
    found: dict[str, Any] = {}
    start = world.reset(seed)
    seen = {world.state_key(start)}
    frontier = deque([start])
    while frontier:
        state = frontier.popleft()
        if world.done(state):
            continue
        active = world.active_agents(state)
        legal = [tuple(world.legal_actions(state, agent)) for agent in active]
        for actions in legal:
            for action in actions:
                found.setdefault(action_key(world, action), action)
        if not legal or not all(legal):
            continue
        for k in range(max(len(actions) for actions in legal)):
            joint = {agent: actions[k % len(actions)] for agent, actions in zip(active, legal)}
            try:
                after = world.step(state, joint).state
            except IllegalAction:  # legal one by one, not together (two agents into one cell)
                continue
            key = world.state_key(after)
            if key not in seen and len(seen) < max_states:
                seen.add(key)
                frontier.append(after)
    return list(found.values())


def _successful(world: World, outcome: Mapping[str, Any]) -> frozenset[AgentId]:
    winners = outcome.get("winners")
    if isinstance(winners, (list, tuple)):
        return frozenset(winners)
    return frozenset(world.agents) if outcome.get("success") is True else frozenset()


class WorldEncoding:
    """What both adapters need from one World: its action list, spaces, encodings, masks,
    rewards and truncation, with the hooks above or their fallbacks."""

    def __init__(self, world: World, text_bytes: int = TEXT_BYTES) -> None:
        self.world = world
        if isinstance(world, DeclaresPettingZooActions):
            actions = list(world.pettingzoo_actions())
        else:
            actions = discover_actions(world)
        if not actions:
            raise ValueError(f"{type(world).__name__}: no actions for PettingZoo (pettingzoo_actions() is empty "
                             "or no legal action was found from reset(0))")
        self.actions: list[Any] = actions
        self.action_index: dict[str, int] = {}
        for i, action in enumerate(actions):
            key = action_key(world, action)
            if key in self.action_index:
                raise ValueError(f"{type(world).__name__}.pettingzoo_actions(): entries {self.action_index[key]} "
                                 f"and {i} are the same action {key}")
            self.action_index[key] = i
        self.text_bytes = text_bytes
        self.encoder = world if isinstance(world, EncodesPettingZooObservations) else None
        self.encodes = self.encoder is not None
        halves = [hasattr(world, name) for name in ("pettingzoo_observation_space", "pettingzoo_observation")]
        if any(halves) and not all(halves):
            raise TypeError(f"{type(world).__name__} defines only one of pettingzoo_observation_space and "
                            "pettingzoo_observation: define both (the space must describe the encoding) or neither")
        n = len(actions)
        self.observation_spaces: dict[AgentId, spaces.Dict] = {}
        self.action_spaces: dict[AgentId, spaces.Discrete] = {}
        for agent in world.agents:
            inner = self.encoder.pettingzoo_observation_space(agent) if self.encoder is not None else text_space(text_bytes)
            self.observation_spaces[agent] = spaces.Dict(
                {"observation": inner, "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8)})
            self.action_spaces[agent] = spaces.Discrete(n)

    def index_of(self, action: Any) -> int | None:
        """The position of ``action`` in the list, or None when the list lacks it."""
        return self.action_index.get(action_key(self.world, action))

    def action_at(self, index: Any) -> Any:
        try:
            i = int(index)
        except (TypeError, ValueError):
            raise ValueError(f"expected an action index (an int), got {index!r}") from None
        if not 0 <= i < len(self.actions):
            raise ValueError(f"action index {i} is outside 0..{len(self.actions) - 1}")
        return self.actions[i]

    def mask(self, state: Any, agent: AgentId) -> np.ndarray:
        world = self.world
        out = np.zeros(len(self.actions), dtype=np.int8)
        if agent not in world.active_agents(state):
            return out
        if world.legal_actions_exhaustive:
            for action in world.legal_actions(state, agent):
                i = self.index_of(action)
                if i is not None:
                    out[i] = 1
        else:
            for i, action in enumerate(self.actions):
                if world.is_legal(state, agent, action):
                    out[i] = 1
        return out

    def encode(self, state: Any, agent: AgentId) -> Any:
        observation = self.world.observe(state, agent)
        if self.encoder is not None:
            return self.encoder.pettingzoo_observation(observation, agent)
        return encode_text(canonical_text(observation), self.text_bytes)

    def rewards(self, before: Any, after: Any, agents: Sequence[AgentId]) -> dict[AgentId, float]:
        world = self.world
        if isinstance(world, RewardsPettingZooSteps):
            return {a: float(world.pettingzoo_reward(before, after, a)) for a in agents}
        newly = _successful(world, world.outcome(after)) - _successful(world, world.outcome(before))
        return {a: 1.0 if a in newly else 0.0 for a in agents}

    def truncated(self, state: Any) -> bool:
        world = self.world
        return bool(world.pettingzoo_truncated(state)) if isinstance(world, TruncatesPettingZooEpisodes) else False

    def check(self, state: Any, agent: AgentId, index: Any, on_illegal: str) -> tuple[Any, str | None]:
        """(the action to play, the reason the chosen one was refused or None)."""
        action = self.action_at(index)
        reason = self.world.why_illegal(state, agent, action)
        if reason is None:
            return action, None
        if on_illegal == "raise":
            raise IllegalAction(f"{agent}: action {int(index)} ({action_key(self.world, action)}) is illegal: {reason}"
                                " (sample from the action_mask, or pass on_illegal='fallback')")
        return self.world.fallback_action(state, agent), reason


def _metadata(world: World) -> dict[str, Any]:
    return {"render_modes": ["ansi"], "name": f"tom_arena_{world.family or type(world).__name__.lower()}_v0",
            "is_parallelizable": bool(world.simultaneous)}


def _check_options(render_mode: str | None, on_illegal: str) -> None:
    if render_mode not in (None, "ansi"):
        raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
    if on_illegal not in ("raise", "fallback"):
        raise ValueError(f"on_illegal must be 'raise' or 'fallback', got {on_illegal!r}")


# ------------------------------------------------------------------------------- AEC

class WorldAECEnv(AECEnv):
    """Any World as a PettingZoo AEC environment.

    Agents act one at a time in the order of ``world.active_agents``; when several are active
    (simultaneous moves) the adapter collects one action from each before it steps the world,
    so they all choose in the same state. ``max_cycles`` truncates after that many world steps.
    ``on_illegal``: ``"raise"`` (``IllegalAction`` with the reason) or ``"fallback"`` (play the
    world's fallback action and put the reason in ``infos[agent]["illegal_action"]``).
    """

    def __init__(self, world: World, render_mode: str | None = None, max_cycles: int | None = None,
                 on_illegal: str = "raise", text_bytes: int = TEXT_BYTES) -> None:
        super().__init__()
        _check_options(render_mode, on_illegal)
        self.world = world
        self.encoding = WorldEncoding(world, text_bytes)
        self.actions = self.encoding.actions
        self.metadata = _metadata(world)
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.on_illegal = on_illegal
        self.possible_agents = list(world.agents)
        self.seed_ = 0
        self.world_state: Any = world.reset(self.seed_)
        self.cycles = 0
        self._to_move: list[AgentId] = []
        self._chosen: dict[AgentId, Any] = {}
        self._observed: dict[AgentId, dict[str, Any]] = {}

    def observation_space(self, agent: AgentId) -> spaces.Space:
        return self.encoding.observation_spaces[agent]

    def action_space(self, agent: AgentId) -> spaces.Space:
        return self.encoding.action_spaces[agent]

    def index_of(self, action: Any) -> int | None:
        return self.encoding.index_of(action)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.seed_ = int(seed)
        self.world_state = self.world.reset(self.seed_)
        self.cycles = 0
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[AgentId, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        if self.world.done(self.world_state):
            self._finish()
            self.agent_selection = self.agents[0]
        else:
            self._begin_world_step()

    def _begin_world_step(self) -> None:
        self._observed = {}
        self._chosen = {}
        self._to_move = list(self.world.active_agents(self.world_state))
        if not self._to_move:
            raise RuntimeError(f"{type(self.world).__name__}: no active agent in a state that is not done "
                               f"(tick {self.world.tick_of(self.world_state)})")
        self.agent_selection = self._to_move[0]

    def _finish(self) -> None:
        truncated = self.encoding.truncated(self.world_state)
        for a in self.agents:
            (self.truncations if truncated else self.terminations)[a] = True

    def observe(self, agent: AgentId) -> dict[str, Any]:
        cached = self._observed.get(agent)
        if cached is None:
            to_move = agent in self._to_move
            mask = (self.encoding.mask(self.world_state, agent) if to_move
                    else np.zeros(len(self.actions), dtype=np.int8))
            cached = self._observed[agent] = {"observation": self.encoding.encode(self.world_state, agent),
                                              "action_mask": mask}
        return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in cached.items()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is still playing: step() needs an action index, not None")
        chosen, reason = self.encoding.check(self.world_state, agent, action, self.on_illegal)
        self.infos[agent] = {"illegal_action": reason} if reason else {}
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._chosen[agent] = chosen
        self._to_move.remove(agent)
        self._observed.pop(agent, None)  # its mask is now empty
        if self._to_move:
            self.agent_selection = self._to_move[0]
            self._accumulate_rewards()
            return
        before = self.world_state
        self.world_state = self.world.step(before, self._chosen).state
        self.cycles += 1
        self.rewards = self.encoding.rewards(before, self.world_state, self.agents)
        if self.world.done(self.world_state):
            self._to_move, self._observed = [], {}
            self._finish()
        elif self.max_cycles is not None and self.cycles >= self.max_cycles:
            self._to_move, self._observed = [], {}
            for a in self.agents:
                self.truncations[a] = True
        else:
            self._begin_world_step()
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def render(self) -> str | None:
        return None if self.render_mode is None else self.world.render_text(self.world_state)

    def close(self) -> None:
        pass


# -------------------------------------------------------------------------- Parallel

class WorldParallelEnv(ParallelEnv):
    """A World with simultaneous moves as a PettingZoo Parallel environment.

    ``step`` takes an action for every live agent; only the active agents' actions are played
    (an agent the world does not ask to move this step sees an all-zero mask, and its action
    is ignored). Options as in ``WorldAECEnv``.
    """

    def __init__(self, world: World, render_mode: str | None = None, max_cycles: int | None = None,
                 on_illegal: str = "raise", text_bytes: int = TEXT_BYTES) -> None:
        if not world.simultaneous:
            raise ValueError(f"{type(world).__name__} takes turns (simultaneous = False): use WorldAECEnv "
                             "(sim.pettingzoo.aec_env) for it")
        _check_options(render_mode, on_illegal)
        self.world = world
        self.encoding = WorldEncoding(world, text_bytes)
        self.actions = self.encoding.actions
        self.metadata = _metadata(world)
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.on_illegal = on_illegal
        self.possible_agents = list(world.agents)
        self.agents: list[AgentId] = []
        self.seed_ = 0
        self.world_state: Any = world.reset(self.seed_)
        self.cycles = 0

    def observation_space(self, agent: AgentId) -> spaces.Space:
        return self.encoding.observation_spaces[agent]

    def action_space(self, agent: AgentId) -> spaces.Space:
        return self.encoding.action_spaces[agent]

    def index_of(self, action: Any) -> int | None:
        return self.encoding.index_of(action)

    def _observations(self) -> dict[AgentId, dict[str, Any]]:
        return {a: {"observation": self.encoding.encode(self.world_state, a),
                    "action_mask": self.encoding.mask(self.world_state, a)} for a in self.agents}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[AgentId, Any], dict[AgentId, dict[str, Any]]]:
        if seed is not None:
            self.seed_ = int(seed)
        self.world_state = self.world.reset(self.seed_)
        self.cycles = 0
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: Mapping[AgentId, Any]) -> tuple[dict, dict, dict, dict, dict]:
        state = self.world_state
        infos: dict[AgentId, dict[str, Any]] = {a: {} for a in self.agents}
        joint = {}
        for agent in self.world.active_agents(state):
            if agent not in actions:
                raise ValueError(f"no action for {agent}, who moves in this step (actions given for "
                                 f"{sorted(actions)})")
            joint[agent], reason = self.encoding.check(state, agent, actions[agent], self.on_illegal)
            if reason:
                infos[agent]["illegal_action"] = reason
        self.world_state = self.world.step(state, joint).state
        self.cycles += 1
        rewards = self.encoding.rewards(state, self.world_state, self.agents)
        done = self.world.done(self.world_state)
        truncated = self.encoding.truncated(self.world_state) if done else (
            self.max_cycles is not None and self.cycles >= self.max_cycles)
        terminations = {a: done and not truncated for a in self.agents}
        truncations = {a: truncated for a in self.agents}
        observations = self._observations()
        if done or truncated:
            self.agents = []
        if self.render_mode == "ansi":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return None if self.render_mode is None else self.world.render_text(self.world_state)

    def close(self) -> None:
        pass


# ------------------------------------------------------------------------- factories

def aec_env(world: World, **options: Any) -> WorldAECEnv:
    """The AEC environment of ``world`` (options: render_mode, max_cycles, on_illegal, text_bytes)."""
    return WorldAECEnv(world, **options)


def parallel_env(world: World, **options: Any) -> WorldParallelEnv:
    """The Parallel environment of a world with simultaneous moves (options as ``aec_env``)."""
    return WorldParallelEnv(world, **options)


def make_env(scenario: str, parallel: bool = False, **options: Any) -> WorldAECEnv | WorldParallelEnv:
    """The environment of a shipped scenario (by name, ``family/name`` or path)."""
    from sim.registry import load_scenario

    world, _ = load_scenario(scenario)
    return parallel_env(world, **options) if parallel else aec_env(world, **options)
