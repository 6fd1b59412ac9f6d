"""The simulated human of ProToM's kitchen: a stochastic heuristic-based planner.

Each tick the agent
1. revises its beliefs: every station it sees now holds what it sees; a station out of view
   holds what the agent last saw there (possibly outdated). A station never seen is unknown
   (rules 2, the paper's: the agent knows the layout only) or holds what the level put there
   (rules 1). An object it expected that is gone surprises it, and it chooses again;
2. picks a subtask from what it holds and believes (deliver, get a plate, merge, chop, get the
   ingredient, put down something useless, or, when nothing it needs is known, explore: walk
   towards the station seen longest ago, never-seen ones first), or the feedback it is following (pick up an item; pass an item over a counter the partner can reach);
3. walks the shortest path to the subtask's station (breadth-first distances of the World), with
   ties broken at random, and moves into the station to work it;
4. with probability ``epsilon`` takes instead a uniformly random one of the actions that do not
   work a station (a step or a pause: the noise of a person's walking, never a random pick-up);
5. where agents block each other (``collisions: block``), walks round agents in view and backs
   off at random after a blocked move.

Everything random comes from the seat's own stream (``ctx.rng``), so an episode is a function of
its seed. Feedback payloads (see docs/kitchen.md)::

    {"type": "pickup", "agent": "bob", "item": "FreshTomato", "at": [row, col]}
    {"type": "pass", "agent": "bob", "item": "FreshTomato", "at": [row, col], "to": "alice",
     "via": [row, col]}        # "via" (optional): the counter to leave it on
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.params import Probability
from sim.events import FeedbackStatusEvent
from sim.kitchen.world import (
    ACTIONS,
    BOARD,
    COUNTER,
    DELIVERY,
    ITEM_CODE,
    ITEM_NAMES,
    NOTHING,
    PLATE,
    RECIPE_DISH,
    UNKNOWN,
    KitchenObservation,
    KitchenWorld,
)
from sim.seats import Agent, Feedback, SeatContext
from sim.snapshots import Plan


@dataclass(frozen=True, slots=True)
class Subtask:
    """What the agent is doing now: ``verb`` at station ``station`` (None: nowhere to go)."""

    verb: str  # deliver | plate | merge | chop | fetch | put_down | explore | wait | pickup | pass
    station: int | None
    item: int = NOTHING

    def describe(self, world: KitchenWorld) -> str:
        what = f" {ITEM_NAMES[self.item]}" if self.item else ""
        where = f" at {world.station_name(self.station)}" if self.station is not None else ""
        return f"{self.verb}{what}{where}"


class FeedbackTask:
    """A facilitator's Pickup(i, item) or Pass(i, item, j) being carried out."""

    def __init__(self, world: KitchenWorld, feedback: Feedback) -> None:
        payload = feedback.payload
        kind = payload.get("type")
        if kind not in ("pickup", "pass"):
            raise ValueError(f"kitchen feedback type must be 'pickup' or 'pass', got {kind!r}")
        self.feedback = feedback
        self.kind: str = kind
        self.item: int = ITEM_CODE[payload["item"]]
        self.source: int = world.station_at[world.cell(*payload["at"])]
        self.to: str | None = payload.get("to")
        via = payload.get("via")
        self.via: int | None = world.station_at[world.cell(*via)] if via is not None else None
        self.picked = False  # the item taken from ``source`` is in hand


class KitchenHeuristicAgent(Agent):
    """ProToM's simulated human for the kitchen: subtask choice plus noisy shortest paths,
    acting on its own beliefs about objects it cannot see."""

    kind = "kitchen-heuristic"

    def __init__(self, epsilon: Probability = 0.1, compliance: Probability = 1.0, show_plan: bool = True) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
        if not 0.0 <= compliance <= 1.0:
            raise ValueError(f"compliance must be in [0, 1], got {compliance}")
        self.epsilon = float(epsilon)
        self.compliance = float(compliance)
        self.show_plan = show_plan

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "epsilon": self.epsilon, "compliance": self.compliance}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        world = ctx.world
        if not isinstance(world, KitchenWorld):  # e.g. a kitchen under overcooked_ai's rules
            raise ValueError(f"{self.kind} cooks play the kitchen under its own rules, not under "
                             f"{getattr(world, 'rules', world.family)!r} rules; use overcooked-random there")
        self.world: KitchenWorld = world
        self.rng = ctx.rng
        self.index = world.agent_index[ctx.agent_id]
        recipe = world.goals[ctx.agent_id]
        self.dish = RECIPE_DISH[recipe]
        self.chopped = self.dish - 1
        self.fresh = self.dish - 2
        initial = world.initial_state
        #: what the agent believes lies on each station (UNKNOWN: never seen, under rules 2)
        self.belief: list[int] = (list(initial.contents) if world.rules < 2
                                  else [UNKNOWN] * len(initial.contents))
        #: tick at which each station was last seen (-1: never)
        self.last_seen: list[int] = [-1] * len(initial.contents)
        #: last cell where each other agent was seen (its start cell, part of the layout, until then)
        self.partner_cells: dict[int, int] = {j: c for j, c in enumerate(initial.positions) if j != self.index}
        self.subtask: Subtask | None = None
        self.task: FeedbackTask | None = None
        self._last_worked: int | None = None
        self._last_move_to: int | None = None
        self._bumped = False
        self._parking: tuple[int, ...] | None = None
        self._snapshot: Plan | None = None
        self.revisions = 0  # how often what it saw contradicted what it believed
        self.surprises = 0  # how often an object it expected on a station was gone
        #: this tick's surprises: (station, expected object, object found)
        self._surprised: list[tuple[int, int, int]] = []
        self._obs_t = -1  # the tick of the last observation

    # ------------------------------------------------------------------ beliefs

    def update_beliefs(self, obs: KitchenObservation) -> None:
        belief, seen = self.belief, self.last_seen
        self._surprised = []
        self._obs_t = obs.t
        for s, content in obs.stations:
            was = belief[s]
            if was != content:
                belief[s] = content
                if was != UNKNOWN:
                    self.revisions += 1
                    if was != NOTHING:  # an object it expected is gone: it chooses afresh
                        self._surprised.append((s, was, content))
                        self.surprises += 1
                        if self.subtask is not None and self.subtask.station == s:
                            self.subtask = None
            seen[s] = obs.t
        for j, cell, _ in obs.agents:
            if j != self.index:
                self.partner_cells[j] = cell

    # ------------------------------------------------------------------ choice

    def _nearest(self, here: int, stations: Sequence[int], keep: int | None = None) -> int | None:
        """The reachable station of ``stations`` closest to ``here`` (random among ties); the
        current target ``keep`` wins while it is still among them (no dithering)."""
        dist = self.world.station_dist
        best, ties = None, []
        for s in stations:
            d = dist[s][here]
            if d < 0:
                continue
            if s == keep:
                return s
            if best is None or d < best:
                best, ties = d, [s]
            elif d == best:
                ties.append(s)
        if not ties:
            return None
        return ties[0] if len(ties) == 1 else ties[int(self.rng.integers(len(ties)))]

    def _holding(self, item: int) -> list[int]:
        return [s for s, content in enumerate(self.belief) if content == item]

    def _empty(self, kinds: tuple[int, ...], exclude: int | None = None) -> list[int]:
        w = self.world
        return [s for s, content in enumerate(self.belief)
                if content == NOTHING and w.station_kind[s] in kinds and s != exclude]

    def choose_subtask(self, here: int, held: int) -> Subtask:
        if self.task is not None:
            sub = self._feedback_subtask(here, held)
            if sub is not None:
                return sub
        return self._goal_subtask(here, held)

    def _goal_subtask(self, here: int, held: int) -> Subtask:
        w = self.world
        keep = self.subtask.station if self.subtask is not None else None
        near = lambda stations: self._nearest(here, stations, keep)  # noqa: E731
        if held == self.dish:
            s = near(w.deliveries)
            return Subtask("deliver", s, held) if s is not None else self._explore(here)
        if held == self.chopped:
            s = near(self._holding(PLATE))
            return Subtask("plate", s, PLATE) if s is not None else self._explore(here)
        if held == PLATE:
            s = near(self._holding(self.chopped))
            if s is not None:
                return Subtask("merge", s, self.chopped)
            return self._put_down(here, held)
        if held == self.fresh:
            s = near(self._empty((BOARD,)))
            return Subtask("chop", s, held) if s is not None else self._explore(here)
        if held != NOTHING:
            return self._put_down(here, held)
        for item in (self.dish, self.chopped, self.fresh):
            s = near(self._holding(item))
            if s is not None:
                return Subtask("fetch", s, item)
        return self._explore(here)

    def _put_down(self, here: int, held: int, exclude: int | None = None) -> Subtask:
        keep = self.subtask.station if self.subtask is not None and self.subtask.verb == "put_down" else None
        s = self._nearest(here, self._empty((COUNTER,), exclude), keep)
        return Subtask("put_down", s, held) if s is not None else self._explore(here)

    def _explore(self, here: int) -> Subtask:
        """Go and look at the reachable station seen longest ago (nothing needed is known)."""
        w = self.world
        oldest, candidates = None, []
        for s, seen in enumerate(self.last_seen):
            if w.station_kind[s] == DELIVERY or w.station_dist[s][here] < 0 or w.sees(here, w.station_cells[s]):
                continue
            if oldest is None or seen < oldest:
                oldest, candidates = seen, [s]
            elif seen == oldest:
                candidates.append(s)
        if not candidates:
            return Subtask("wait", None)
        return Subtask("explore", self._nearest(here, candidates))

    def _feedback_subtask(self, here: int, held: int) -> Subtask | None:
        """The next step of the feedback being followed, or None when it is over (its status
        is reported here)."""
        task = self.task
        assert task is not None
        w = self.world
        if task.picked and held != task.item:
            if task.kind == "pass" and self._last_worked == task.via and self.belief[task.via] == task.item:
                return self._end_feedback("completed")  # left on the shared counter
            task.picked = False  # the item left the hand some other way
        if not task.picked:
            if held == task.item and self._last_worked == task.source:
                task.picked = True
            elif self.belief[task.source] != task.item or w.station_dist[task.source][here] < 0:
                return self._end_feedback("not_executable")
        if task.picked:
            if task.kind == "pickup":
                return self._end_feedback("completed")
            target = task.via if task.via is not None else self._shared_counter(here, task)
            if target is None or self.belief[target] != NOTHING or w.station_dist[target][here] < 0:
                return self._end_feedback("not_executable")
            task.via = target
            return Subtask("pass", target, held)
        if held != NOTHING:
            return self._put_down(here, held, exclude=task.source)
        return Subtask("pickup", task.source, task.item)

    def _shared_counter(self, here: int, task: FeedbackTask) -> int | None:
        """An empty counter both this agent and the receiver can reach, preferring counters off
        the layout's border, then the least walking for the two together."""
        w = self.world
        j = w.agent_index.get(task.to, -1) if task.to else -1
        partner = self.partner_cells.get(j)
        if partner is None:
            return None
        best, best_key = None, None
        for s in self._empty((COUNTER,), exclude=task.source):
            mine, theirs = w.station_dist[s][here], w.station_dist[s][partner]
            if mine < 0 or theirs < 0:
                continue
            r, c = w.rc(w.station_cells[s])
            border = r in (0, w.height - 1) or c in (0, w.width - 1)
            key = (border, mine + theirs, s)
            if best_key is None or key < best_key:
                best, best_key = s, key
        return best

    def _end_feedback(self, status: str) -> None:
        """Report the feedback's end; the agent goes back to its own goal."""
        assert self.task is not None
        self._status(self.task.feedback, status)
        self.task = None
        self.subtask = None
        return None

    # ------------------------------------------------------------------ acting

    def step_towards(self, here: int, s: int, others: Sequence[int] = ()) -> str:
        """The first action of a shortest way to work station ``s`` (random among ties).
        ``others``: cells of agents in view; where agents block each other, a way round them is
        taken, and with none the agent steps aside half of the time (so two cooks facing each
        other in a corridor do not wait forever)."""
        w = self.world
        into = w.action_into(here, s)
        if into is not None:
            return into
        dist = w.station_dist[s]
        options = self._downhill(here, dist)
        if w.agents_block and others and any(w.trans[here * 5 + a] in others for a in options):
            dist = self._distances_avoiding(s, others)
            options = self._downhill(here, dist) if dist[here] > 0 else []
            if not options:
                free = [a for a in range(4) if (n := w.trans[here * 5 + a]) >= 0 and n != here and n not in others]
                if not free or self.rng.random() < 0.5:
                    return "stay"
                return ACTIONS[free[int(self.rng.integers(len(free)))]]
        if not options:
            return "stay"
        if w.agents_block and self._bumped and self.rng.random() < 0.5:
            return "stay"  # the last move was blocked: back off at random, as two people would
        return ACTIONS[options[0] if len(options) == 1 else options[int(self.rng.integers(len(options)))]]

    def _out_of_the_way(self, here: int, others: Sequence[int]) -> str:
        """Where agents block each other, an agent with nothing left to do keeps away from agents
        in view that come within two steps, and otherwise walks to the nearest cell next to no
        station (so it blocks no counter, board or delivery), then stays."""
        w = self.world
        if not w.agents_block:
            return "stay"
        near = [o for o in others if 0 <= w.dist[here][o] <= 2]
        if near:
            scored: list[tuple[int, int]] = []
            for a in range(5):
                n = w.trans[here * 5 + a]
                if n < 0 or (n != here and n in others):
                    continue
                scored.append((min(w.dist[n][o] if w.dist[n][o] >= 0 else 99 for o in near), a))
            best = max(score for score, _ in scored)
            moves = [a for score, a in scored if score == best]
            return ACTIONS[moves[0] if len(moves) == 1 else moves[int(self.rng.integers(len(moves)))]]
        parking = self._parking_cells()
        if not parking or here in parking:
            return "stay"
        dist = w.dist[here]
        best = min((dist[c], c) for c in parking if dist[c] > 0) if any(dist[c] > 0 for c in parking) else None
        if best is None:
            return "stay"
        target = best[1]
        to_target = w.dist[target]
        for a in range(4):
            n = w.trans[here * 5 + a]
            if n >= 0 and n != here and to_target[n] == to_target[here] - 1:
                return ACTIONS[a]
        return "stay"

    def _parking_cells(self) -> tuple[int, ...]:
        if self._parking is None:
            w = self.world
            self._parking = tuple(c for c in range(len(w.walkable)) if w.walkable[c] and not w.is_door[c]
                                  and all(w.trans[c * 5 + a] >= 0 for a in range(4)))
        return self._parking

    def _downhill(self, here: int, dist: Sequence[int]) -> list[int]:
        """Moves from ``here`` to a neighbour one step closer on the distance map ``dist``."""
        trans, d = self.world.trans, dist[here]
        return [a for a in range(4) if (n := trans[here * 5 + a]) >= 0 and n != here and dist[n] == d - 1]

    def _distances_avoiding(self, s: int, blocked: Sequence[int]) -> list[int]:
        """``station_dist[s]`` recomputed with the cells ``blocked`` taken out."""
        w = self.world
        dist = [-1] * len(w.station_dist[s])
        queue = deque(c for c in w.station_access[s] if c not in blocked)
        for c in queue:
            dist[c] = 1
        while queue:
            cell = queue.popleft()
            for other in w.neighbors[cell]:
                if dist[other] < 0 and other not in blocked:
                    dist[other] = dist[cell] + 1
                    queue.append(other)
        return dist

    def act(self, observation: KitchenObservation, legal_actions: Sequence[str]) -> str:
        if not legal_actions:
            return "stay"
        self.update_beliefs(observation)
        here, held = observation.position, observation.held
        # a move that left the agent where it was: another agent was in the way
        self._bumped = self._last_move_to is not None and here != self._last_move_to
        noisy = self.rng.random() < self.epsilon  # drawn every tick, so streams stay aligned
        if observation.delivered and self.task is None:
            self.subtask = Subtask("wait", None)
            others = [cell for j, cell, _ in observation.agents if j != self.index]
            action = self._out_of_the_way(here, others)
        else:
            self.subtask = self.choose_subtask(here, held)
            s = self.subtask.station
            others = [cell for j, cell, _ in observation.agents if j != self.index]
            action = self.step_towards(here, s, others) if s is not None else "stay"
        if noisy:  # a random step (or a pause), never a random pick-up or put-down
            calm = [a for a in range(5) if self.world.trans[here * 5 + a] >= 0]
            action = ACTIONS[calm[int(self.rng.integers(len(calm)))]]
        target = self.world.trans[here * 5 + ACTIONS.index(action)]
        self._last_worked = -1 - target if target < 0 else None  # the station this action works
        self._last_move_to = target if target >= 0 and target != here else None
        if self.show_plan:
            self._snapshot = self._plan_snapshot(here, action, noisy)
        return action

    # ------------------------------------------------------------------ feedback

    def receive_feedback(self, feedback: Feedback) -> None:
        if self.ctx.rng.random() >= self.compliance:
            self._status(feedback, "ignored")
            return
        try:
            task = FeedbackTask(self.world, feedback)
        except (KeyError, ValueError, TypeError):
            self._status(feedback, "not_executable")
            return
        if self.world.rules >= 2:
            # The feedback tells where the item lies (and that the counter to use is free); a
            # station in view keeps what the agent sees there.
            if self._obs_t < 0 or self.last_seen[task.source] != self._obs_t:
                self.belief[task.source] = task.item
            if task.via is not None and self.belief[task.via] == UNKNOWN:
                self.belief[task.via] = NOTHING
        if self.task is not None:  # a newer suggestion replaces an unfinished one
            self._status(self.task.feedback, "ignored")
        self.task = task
        self.subtask = None
        self._status(feedback, "accepted")

    def _status(self, feedback: Feedback, status: str) -> None:
        self.ctx.emit(FeedbackStatusEvent(tick=self.ctx.tick, feedback_id=feedback.feedback_id,
                                          agent=self.ctx.agent_id, status=status))

    # ------------------------------------------------------------------ snapshots

    def _plan_snapshot(self, here: int, action: str, noisy: bool) -> Plan:
        w = self.world
        sub = self.subtask
        path: list[list[int]] = []
        if sub is not None and sub.station is not None and w.station_dist[sub.station][here] > 0:
            cell, dist = here, w.station_dist[sub.station]
            while dist[cell] > 1:
                cell = next(n for n in w.neighbors[cell] if dist[n] == dist[cell] - 1)
                path.append(list(w.rc(cell)))
        return Plan(
            task=sub.describe(w) if sub is not None else "wait",
            target=list(w.rc(w.station_cells[sub.station])) if sub is not None and sub.station is not None else None,
            path=path,
            action=action,
            random=noisy,
            following_feedback=self.task.feedback.feedback_id if self.task is not None else None,
            extra={"believed_objects": [[*w.rc(w.station_cells[s]), ITEM_NAMES[item]]
                                        for s, item in enumerate(self.belief) if item not in (NOTHING, UNKNOWN)]},
        )

    def _belief_snapshot(self, t: int) -> dict[str, Any]:
        """What the agent believes lies on every station it does not see now (``objects``:
        [row, col, object, tick last seen], possibly outdated), which stations it has never seen
        (``unknown``) and the objects it expected that were gone this tick (``surprised``)."""
        w = self.world
        objects, unknown = [], []
        for s, item in enumerate(self.belief):
            if w.station_kind[s] == DELIVERY or self.last_seen[s] == t:
                continue
            r, c = w.rc(w.station_cells[s])
            if item == UNKNOWN:
                unknown.append([r, c])
            elif item != NOTHING:
                objects.append([r, c, ITEM_NAMES[item], self.last_seen[s]])
        return {"objects": objects, "unknown": unknown,
                "surprised": [{"at": list(w.rc(w.station_cells[s])), "expected": ITEM_NAMES[was],
                               "found": ITEM_NAMES[now]} for s, was, now in self._surprised],
                "surprises": self.surprises}

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        if self._snapshot is None:
            return ()
        snapshot, self._snapshot = self._snapshot, None
        if self.world.rules < 2:
            return (("plan", snapshot),)
        return (("plan", snapshot), ("belief", self._belief_snapshot(self._obs_t)))
