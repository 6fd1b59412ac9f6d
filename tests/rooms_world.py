"""A small world that exercises the whole core, declared as a plug-in from outside ``sim/``:
simultaneous moves, partial observation (an agent sees only its own room) and messages
(saying something costs the step, and the others read it in their next observation).

Two rooms side by side joined by two doors; each agent wants to reach its flag. Actions are
strings: ``up``, ``down``, ``left``, ``right``, ``stay`` and ``say <text>``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from agents.registry import AgentKind, kinds_registered
from sim.plugins import WorldPlugin, registered
from sim.seats import Agent
from sim.world import IllegalAction, Message, StepResult, World, WorldEvent, require_joint

FAMILY = "test-rooms"
MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1), "stay": (0, 0)}
#   #########
#   #a..D..A#
#   #...#...#
#   #B..D..b#
#   #########   lowercase: start, uppercase: flag; D: a door (column 4)
LAYOUT = ("#########",
          "#.......#",
          "#...#...#",
          "#.......#",
          "#########")
STARTS = {"alice": (1, 1), "bob": (3, 7)}
FLAGS = {"alice": (1, 7), "bob": (3, 1)}
T_MAX = 30


@dataclass(frozen=True, slots=True)
class RoomsState:
    t: int
    cells: tuple[tuple[int, int], ...]
    inboxes: tuple[tuple[tuple[str, str], ...], ...]  # per agent: (sender, text) received last step


@dataclass(frozen=True, slots=True)
class RoomsObservation:
    agent: str
    t: int
    room: str
    seen: tuple[tuple[str, tuple[int, int]], ...]  # agents in the same room, with their cells
    inbox: tuple[tuple[str, str], ...]

    def key(self) -> tuple:
        return (self.agent, self.t, self.room, self.seen, self.inbox)


class RoomsWorld(World[RoomsState, str, RoomsObservation]):
    family = FAMILY
    simultaneous = True
    legal_actions_exhaustive = False  # any text can be said

    def __init__(self, spec: Mapping[str, Any] | None = None) -> None:
        self._spec = dict(spec or {"world": FAMILY, "name": "two-rooms-talk"})
        self.name = self._spec.get("name", "two-rooms-talk")

    @property
    def agents(self) -> tuple[str, ...]:
        return ("alice", "bob")

    def spec(self) -> dict[str, Any]:
        return dict(self._spec)

    @staticmethod
    def room(cell: tuple[int, int]) -> str:
        return "west" if cell[1] < 4 else ("east" if cell[1] > 4 else "door")

    def reset(self, seed: int) -> RoomsState:
        return RoomsState(t=0, cells=tuple(STARTS[a] for a in self.agents), inboxes=((), ()))

    def active_agents(self, state: RoomsState) -> tuple[str, ...]:
        return () if self.done(state) else self.agents

    def legal_actions(self, state: RoomsState, agent: str) -> tuple[str, ...]:
        if agent not in self.active_agents(state):
            return ()
        r, c = state.cells[self.agents.index(agent)]
        return tuple(m for m, (dr, dc) in MOVES.items() if LAYOUT[r + dr][c + dc] != "#")

    def why_illegal(self, state: RoomsState, agent: str, action: Any) -> str | None:
        if agent not in self.active_agents(state):
            return f"it is not {agent}'s turn"
        if isinstance(action, str) and action.startswith("say "):
            return None if action[4:].strip() else "say what? the message is empty"
        if action in self.legal_actions(state, agent):
            return None
        return f"{action!r}: a wall is in the way" if action in MOVES else f"unknown action {action!r}"

    def message_action(self, state: RoomsState, agent: str, text: str, recipients: Sequence[str] = ()) -> str:
        return f"say {text}"

    def step(self, state: RoomsState, joint_action: Mapping[str, str]) -> StepResult[RoomsState]:
        require_joint(self, state, joint_action)
        for agent, action in joint_action.items():
            reason = self.why_illegal(state, agent, action)
            if reason is not None:
                raise IllegalAction(f"{agent}: {reason}")
        targets = []
        for i, agent in enumerate(self.agents):
            action = joint_action[agent]
            dr, dc = MOVES.get(action, (0, 0))
            targets.append((state.cells[i][0] + dr, state.cells[i][1] + dc))
        # Two agents into one cell, or swapping cells: both stay.
        if targets[0] == targets[1] or (targets[0] == state.cells[1] and targets[1] == state.cells[0]):
            targets = list(state.cells)
        messages, events = [], []
        inboxes: list[list[tuple[str, str]]] = [[] for _ in self.agents]
        for i, agent in enumerate(self.agents):
            action = joint_action[agent]
            if action.startswith("say "):
                text = action[4:].strip()
                others = tuple(a for a in self.agents if a != agent)
                messages.append(Message(agent, others, text, cost=1.0))
                for j, other in enumerate(self.agents):
                    if other != agent:
                        inboxes[j].append((agent, text))
            elif targets[i] == FLAGS[agent] and state.cells[i] != FLAGS[agent]:
                events.append(WorldEvent("flag", agent))
        after = RoomsState(t=state.t + 1, cells=tuple(targets), inboxes=tuple(tuple(x) for x in inboxes))
        return StepResult(after, tuple(events), tuple(messages))

    def observe(self, state: RoomsState, agent: str) -> RoomsObservation:
        i = self.agents.index(agent)
        room = self.room(state.cells[i])
        seen = tuple((a, state.cells[j]) for j, a in enumerate(self.agents)
                     if j == i or self.room(state.cells[j]) in (room, "door") or room == "door")
        return RoomsObservation(agent=agent, t=state.t, room=room, seen=seen, inbox=state.inboxes[i])

    def done(self, state: RoomsState) -> bool:
        return state.t >= T_MAX or all(state.cells[i] == FLAGS[a] for i, a in enumerate(self.agents))

    def state_key(self, state: RoomsState) -> tuple:
        return (state.t, state.cells, state.inboxes)

    def outcome(self, state: RoomsState) -> dict[str, Any]:
        reached = [a for i, a in enumerate(self.agents) if state.cells[i] == FLAGS[a]]
        return {"success": len(reached) == len(self.agents), "winners": reached, "length": state.t}

    def render_text(self, state: RoomsState) -> str:
        rows = [list(r) for r in LAYOUT]
        for a, (r, c) in FLAGS.items():
            rows[r][c] = a[0].upper()
        for i, a in enumerate(self.agents):
            r, c = state.cells[i]
            rows[r][c] = a[0]
        return f"tick {state.t}\n" + "\n".join("".join(r) for r in rows)


class WalkerAgent(Agent):
    """Walks along its row to its flag, and says so once in the door."""

    kind = "rooms-walker"

    def reset(self, ctx: Any) -> None:
        super().reset(ctx)
        self.said = False

    def act(self, observation: RoomsObservation, legal_actions: Sequence[str]) -> str:
        me = dict(observation.seen)[observation.agent]
        flag = FLAGS[observation.agent]
        if me[1] == 4 and not self.said:
            self.said = True
            return f"say I am passing the door at tick {observation.t}"
        if me[1] != flag[1]:
            move = "right" if flag[1] > me[1] else "left"
        else:
            move = "down" if flag[0] > me[0] else ("up" if flag[0] < me[0] else "stay")
        return move if move in legal_actions else "stay"


def _validate(data: dict[str, Any], source: str) -> dict[str, Any]:
    return {"world": FAMILY, "name": str(data.get("name", "two-rooms-talk")), "title": "two rooms, talking"}


PLUGIN = WorldPlugin(
    name=FAMILY, title="Two rooms (a test world)", validate=_validate, build=RoomsWorld,
    rules_text="Both agents move at once; each sees only its own room; saying something costs the step.",
    default_agent="rooms-walker", renderer="tests.rooms_render:RoomsRenderer")

WALKER_KIND = AgentKind("rooms-walker", (FAMILY,), "walks to its flag and says so at the door", WalkerAgent)


@contextmanager
def installed() -> Iterator[None]:
    """The world and its agent kind registered for the block (tests use this; nothing ships it);
    both registries are as they were once it ends, so the world does not outlive its tests."""
    with registered(PLUGIN), kinds_registered(WALKER_KIND):
        yield
