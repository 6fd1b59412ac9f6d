"""A grid world for team formation in the app, declared from outside ``sim/``: five agents, each
on its own lane of a 5 x 9 grid, all moving at once (left, right or stay) by a zigzag
schedule; and agents that predict each other from those schedules, accurately, neutrally
(always "stay") or in reverse, at a ToM level given as a parameter. With the ``teams``
mechanism the accurate predictors end up teamed; an agent that changes course (``switch``)
makes its teammates' predictions fail and the team re-forms.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pygame

from agents.registry import AgentKind, kinds_registered
from sim.plugins import WorldPlugin, registered
from sim.seats import Agent
from sim.world import StepResult, World, require_joint
from ui.render.base import KeyBinding, Overlays, WorldRenderer

FAMILY = "test-lanes"
NAMES = ("a", "b", "c", "d", "e")
PERIODS = {"a": 2, "b": 3, "c": 4, "d": 5, "e": 3}
WIDTH = 9
HORIZON = 24
OPPOSITE = {"left": "right", "right": "left", "stay": "stay"}


def steady(agent: str, t: int) -> str:
    """What ``agent`` does at tick ``t`` by its schedule (what everybody expects of it)."""
    return "right" if (t // PERIODS[agent]) % 2 == 0 else "left"


@dataclass(frozen=True, slots=True)
class LanesState:
    t: int
    cols: tuple[int, ...]


class LanesWorld(World[LanesState, str, LanesState]):
    family = FAMILY
    simultaneous = True

    def __init__(self, spec: Mapping[str, Any] | None = None) -> None:
        self._spec = dict(spec or {"world": FAMILY, "name": "five-lanes"})
        self.name = self._spec.get("name", "five-lanes")

    @property
    def agents(self) -> tuple[str, ...]:
        return NAMES

    def spec(self) -> dict[str, Any]:
        return dict(self._spec)

    def reset(self, seed: int) -> LanesState:
        return LanesState(0, tuple(WIDTH // 2 for _ in NAMES))

    def active_agents(self, state: LanesState) -> tuple[str, ...]:
        return () if self.done(state) else NAMES

    def legal_actions(self, state: LanesState, agent: str) -> tuple[str, ...]:
        return ("left", "right", "stay") if agent in self.active_agents(state) else ()

    def step(self, state: LanesState, joint_action: Mapping[str, str]) -> StepResult[LanesState]:
        require_joint(self, state, joint_action)
        delta = {"left": -1, "right": 1, "stay": 0}
        cols = tuple(min(WIDTH - 1, max(0, c + delta[joint_action[a]])) for a, c in zip(NAMES, state.cols))
        return StepResult(LanesState(state.t + 1, cols))

    def observe(self, state: LanesState, agent: str) -> LanesState:
        return state

    def done(self, state: LanesState) -> bool:
        return state.t >= HORIZON

    def state_key(self, state: LanesState) -> tuple:
        return (state.t, state.cols)

    def outcome(self, state: LanesState) -> dict[str, Any]:
        return {"success": True, "length": state.t}

    def render_text(self, state: LanesState) -> str:
        return "\n".join("".join(a if c == col else "." for c in range(WIDTH)) for a, col in zip(NAMES, state.cols))


class LanesPredictor(Agent):
    """Acts by its schedule (reversed from tick ``switch`` on, which nobody expects); after each
    step predicts the others' next ``horizon`` actions from their schedules: ``accurate``,
    ``neutral`` (always "stay": phi 0) or ``opposite`` (phi -1)."""

    kind = "lanes-predictor"

    def __init__(self, style: str = "accurate", level: int = 1, horizon: int = 2, switch: int = -1) -> None:
        if style not in ("accurate", "neutral", "opposite"):
            raise ValueError(f"style must be accurate, neutral or opposite, got {style!r}")
        self.style, self.level, self.horizon, self.switch = style, int(level), int(horizon), int(switch)

    def act(self, observation: LanesState, legal_actions: Sequence[str]) -> str:
        me = self.ctx.agent_id
        move = steady(me, observation.t)
        return OPPOSITE[move] if 0 <= self.switch <= observation.t else move

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        t = self.ctx.tick
        about = {}
        for other in NAMES:
            if other == self.ctx.agent_id:
                continue
            truth = [steady(other, t + k) for k in range(self.horizon)]
            guess = (["stay"] * self.horizon if self.style == "neutral" else
                     [OPPOSITE[a] for a in truth] if self.style == "opposite" else truth)
            about[other] = {"trajectory": guess}
        return [("predictions", {"about": about, "level": self.level})]


class LanesRenderer(WorldRenderer):
    family = FAMILY

    def grid_shape(self) -> tuple[int, int]:
        return len(NAMES), WIDTH

    def draw(self, surface: pygame.Surface, state: LanesState, previous: Any = None, alpha: float = 1.0,
             overlays: Overlays = Overlays()) -> None:
        surface.fill((30, 30, 36))
        for r in range(len(NAMES)):
            for c in range(WIDTH):
                pygame.draw.rect(surface, (235, 232, 220) if (r + c) % 2 else (222, 219, 206), self.cell_rect(r, c))
        # seen through one agent's eyes, only its own lane and the lanes next to it
        me = NAMES.index(overlays.viewer) if overlays.viewer in NAMES else None
        self.drawn_agents = [a for r, a in enumerate(NAMES) if me is None or abs(r - me) <= 1]
        for r, (agent, col) in enumerate(zip(NAMES, state.cols)):
            if agent in self.drawn_agents:
                pygame.draw.circle(surface, self.agent_color(agent), self.cell_rect(r, col).center,
                                   max(3, self.tile // 3))

    def agent_anchor(self, state: LanesState, agent: str) -> tuple[int, int] | None:
        rect = self.cell_rect(NAMES.index(agent), state.cols[NAMES.index(agent)])
        return rect.centerx, rect.top

    def action_for_key(self, key: str, state: LanesState, agent: str, legal: Sequence[Any]) -> Any | None:
        move = {"left": "left", "right": "right", "space": "stay"}.get(key.lower())
        return move if move in legal else None

    def key_bindings(self) -> list[KeyBinding]:
        return [KeyBinding("left/right", "move"), KeyBinding("space", "stay")]


def _validate(data: dict[str, Any], source: str) -> dict[str, Any]:
    return {"world": FAMILY, "name": str(data.get("name", "five-lanes"))}


PLUGIN = WorldPlugin(
    name=FAMILY, title="Five lanes (a test world)", validate=_validate, build=LanesWorld,
    rules_text="Five agents walk their lanes at once; each predicts the others.",
    default_agent="lanes-predictor", renderer="tests.teams_lanes:LanesRenderer")

PREDICTOR_KIND = AgentKind("lanes-predictor", (FAMILY,), "predicts the others from their schedules", LanesPredictor)


@contextmanager
def installed() -> Iterator[None]:
    """The world and its agent kind registered for the block (tests use this; nothing ships it);
    both registries are as they were once it ends, so the world does not outlive its tests."""
    with registered(PLUGIN), kinds_registered(PREDICTOR_KIND):
        yield
