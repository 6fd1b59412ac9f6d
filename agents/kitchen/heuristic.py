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
   off at random after a blocked move; two cooks jammed where there is no way round give way by
   index (the higher index steps aside, the lower holds its way; docs/kitchen.md, "Giving way").

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
    ITEM_PARTS,
    NOTHING,
    PLATE,
    RECIPE_DISH,
    UNKNOWN,
    KitchenObservation,
    KitchenWorld,
    merged,
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

    #: giving way (docs/kitchen.md): ticks without coming closer to its station before a cook with
    #: another cook within two steps is jammed; ticks the higher index waits aside; ticks past
    #: ``JAM_TICKS`` the lower index holds its way at most
    JAM_TICKS = 3
    YIELD_TICKS = 3
    HOLD_TICKS = 12

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
        #: team-orders mode (gym-cooking's rules): no dish of its own; the team's orders
        self.orders = bool(world.orders)
        if self.orders:
            self.dish = self.chopped = self.fresh = NOTHING
            self._orders_setup()
        else:
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
        #: giving way: the station walked to, the fewest steps to it so far, the ticks since then
        self._way_station: int | None = None
        self._way_best = 0
        self._way_stalled = 0
        self._yield_left = 0  # ticks left to wait aside after giving way
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
        if self.orders:
            return self._orders_subtask(here, held)
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

    # ------------------------------------------------------------------ team orders

    def _orders_setup(self) -> None:
        """Team-orders mode: the regions of the layout (cells that reach each other) and which
        stations and station kinds each reaches, for passing objects over counters."""
        w = self.world
        region = [-1] * len(w.walkable)
        n = 0
        for cell in range(len(w.walkable)):
            if w.walkable[cell] and region[cell] < 0:
                for other in range(len(w.walkable)):
                    if w.dist[cell][other] >= 0:
                        region[other] = n
                n += 1
        self.region_of: tuple[int, ...] = tuple(region)
        cell_of = [region.index(r) for r in range(n)]
        #: stations each region reaches, and the regions from which each station is reached
        self.region_reach: tuple[frozenset[int], ...] = tuple(
            frozenset(s for s in range(len(w.station_cells)) if w.station_dist[s][cell_of[r]] >= 0) for r in range(n))
        self.reached_from: tuple[frozenset[int], ...] = tuple(
            frozenset(r for r in range(n) if s in self.region_reach[r]) for s in range(len(w.station_cells)))
        #: kind -> the regions that reach a station of that kind
        self.kind_regions: dict[int, frozenset[int]] = {
            kind: frozenset(r for r in range(n) if any(w.station_kind[s] == kind for s in self.region_reach[r]))
            for kind in (BOARD, DELIVERY)}
        self._between: dict[tuple[int, int], int] = {}
        self._obs: KitchenObservation | None = None

    def _station_to_station(self, a: int, b: int) -> int:
        """Fewest actions from working station ``a`` to working station ``b`` (-1: cannot)."""
        key = (a, b)
        if key not in self._between:
            w = self.world
            ds = [w.station_dist[b][c] for c in w.station_access[a] if w.station_dist[b][c] >= 0]
            self._between[key] = min(ds) if ds else -1
        return self._between[key]

    def _orders_subtask(self, here: int, held: int) -> Subtask:
        """gym-cooking's rules: the cooks share the orders. Every cook in view (this one
        included) gets work in turn by index, each taking the best job no lower-index cook took
        (so two cooks in one room do not chase one object); this cook does its own."""
        obs = self._obs
        assert obs is not None
        w = self.world
        open_dishes = [w.order_dish[k] for k, d in enumerate(obs.orders) if d < 0]
        plan = _OrdersPlan(self, open_dishes, [(j, c, h) for j, c, h in obs.agents])
        mine = Subtask("wait", None)
        for j, cell, item in sorted(obs.agents):
            job = plan.job(cell, item if j != self.index else held)
            if j == self.index:
                mine = job
                break
        if mine.verb == "wait":
            explore = self._explore(here)
            if explore.station is not None:
                return explore
        return mine

    # ------------------------------------------------------------------ acting

    def _walk(self, here: int, s: int, agents: Sequence[tuple[int, int, int]], others: Sequence[int]) -> str:
        """``step_towards`` station ``s``, giving way where agents block each other: a cook that
        has not come closer to ``s`` for ``JAM_TICKS`` ticks with another cook in view within two
        steps is jammed with the nearest of them (lowest index among ties); the higher index of the
        two steps aside (``_give_way``), the lower holds its way for ``HOLD_TICKS`` ticks at most."""
        w = self.world
        if not w.agents_block:
            return self.step_towards(here, s, others)
        d = w.station_dist[s][here]
        if d <= 1 or s != self._way_station or d < self._way_best:
            self._way_station, self._way_best, self._way_stalled = s, d, 0
        else:
            self._way_stalled += 1
        if self._way_stalled >= self.JAM_TICKS:
            near = [(w.dist[here][cell], j, cell) for j, cell, _ in agents
                    if j != self.index and 0 <= w.dist[here][cell] <= 2]
            if near:
                _, j, cell = min(near)
                if self.index > j:
                    action = self._give_way(here, cell, others)
                    if action is not None:
                        return action
                else:
                    hold = self._way_stalled < self.JAM_TICKS + self.HOLD_TICKS
                    return self.step_towards(here, s, others, hold=hold)
        return self.step_towards(here, s, others)

    def _give_way(self, here: int, other: int, others: Sequence[int]) -> str | None:
        """Step to a free neighbouring cell, turning aside from the line the cook on ``other``
        stands on where possible (else straight back), farther from it first, then up, down, left,
        right; then wait there ``YIELD_TICKS`` ticks. None: no free neighbouring cell."""
        w = self.world
        row, col = w.rc(here)
        orow, ocol = w.rc(other)
        options = []
        for a in range(4):
            n = w.trans[here * 5 + a]
            if n < 0 or n == here or n in others:
                continue
            r, c = w.rc(n)
            in_line = r == row == orow or c == col == ocol
            options.append((in_line, -w.dist[other][n], a))
        if not options:
            return None
        self._yield_left = self.YIELD_TICKS
        return ACTIONS[min(options)[2]]

    def step_towards(self, here: int, s: int, others: Sequence[int] = (), hold: bool = False) -> str:
        """The first action of a shortest way to work station ``s`` (random among ties).
        ``others``: cells of agents in view; where agents block each other, a way round them is
        taken, and with none the agent steps aside half of the time (so two cooks facing each
        other in a corridor do not wait forever), unless it ``hold``s its way (it has the right of
        way in a jam: it waits instead, and does not back off after a blocked move)."""
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
                if hold or not free or self.rng.random() < 0.5:
                    return "stay"
                return ACTIONS[free[int(self.rng.integers(len(free)))]]
        if not options:
            return "stay"
        if w.agents_block and self._bumped and not hold and self.rng.random() < 0.5:
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
            if self.orders:
                self._obs = observation
            self.subtask = self.choose_subtask(here, held)
            s = self.subtask.station
            others = [cell for j, cell, _ in observation.agents if j != self.index]
            if self._yield_left > 0:  # gave way: wait aside, then choose the way afresh
                self._yield_left -= 1
                action = "stay"
                if self._yield_left == 0:
                    self._way_station = None
            elif s is not None:
                action = self._walk(here, s, observation.agents, others)
            else:
                self._way_station = None
                action = self._out_of_the_way(here, others) if self.orders else "stay"
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


class _OrdersPlan:
    """One tick's choice of work for the cooks in view under gym-cooking's rules (team-orders
    mode), on one cook's beliefs. Jobs, best first:

    - holding a dish an open order asks for: deliver it;
    - holding a fresh ingredient an order needs: chop it on an empty board;
    - holding chopped food or a plate: merge it with an object on a station when the result is
      still part of an open order's dish (chopped foods first, the plate last, when the food is
      complete), else put it down;
    - with empty hands: fetch a dish to deliver; fetch one of two objects on stations that merge
      as above (the one nearer for the walk to the other); fetch a fresh ingredient the orders
      still need (counting what is chopped, merged or carried already);
    - and where the station an object needs next (a board for fresh food, the delivery for the
      rest) cannot be reached from the cook's region, carry it to an empty counter reachable from
      both its region and one that has that station (the full-divider levels need this).
    A station or an ingredient taken by a job is not given to the next cook."""

    def __init__(self, cook: KitchenHeuristicAgent, open_dishes: list[int],
                 agents: list[tuple[int, int, int]]) -> None:
        self.cook = cook
        self.w = cook.world
        self.open_dishes = open_dishes
        self.open_masks = [ITEM_PARTS[d][0] for d in open_dishes]
        self.claimed: set[int] = set()
        belief = cook.belief
        objects = [c for c in belief if c not in (NOTHING, UNKNOWN)] + [h for _, _, h in agents if h != NOTHING]
        # per ingredient bit: how many open orders need it, how many objects already carry it on
        # (chopped, merged, or fresh in a cook's hand)
        self.demand = [sum(1 for m in self.open_masks if m >> k & 1) for k in range(3)]
        self.progressed = [sum(1 for c in objects if c > 0 and not ITEM_PARTS[c][2] and ITEM_PARTS[c][0] >> k & 1)
                           + sum(1 for _, _, h in agents if h and ITEM_PARTS[h][2] and ITEM_PARTS[h][0] >> k & 1)
                           for k in range(3)]
        boards = cook.kind_regions[BOARD]
        # fresh food already where a board can be reached: counted as on its way when passing
        self.fresh_near_board = [sum(1 for s, c in enumerate(belief) if c > 0 and ITEM_PARTS[c][2]
                                     and ITEM_PARTS[c][0] >> k & 1 and cook.reached_from[s] & boards)
                                 for k in range(3)]
        deliveries = cook.kind_regions[DELIVERY]
        self.plates_ok = (sum(1 for s, c in enumerate(belief) if c > 0 and ITEM_PARTS[c][1]
                              and cook.reached_from[s] & deliveries)
                          + sum(1 for _, _, h in agents if h and ITEM_PARTS[h][1]))

    # what objects are good for

    def useful(self, item: int) -> bool:
        mask, _, fresh = ITEM_PARTS[item]
        if item == NOTHING or not self.open_masks:
            return False
        if fresh:
            return any(mask & m for m in self.open_masks)
        return any(mask & ~m == 0 for m in self.open_masks)

    def good_merge(self, a: int, b: int) -> bool:
        """Merging ``a`` and ``b`` makes part of an open order's dish; a plate only joins food
        that is complete (chopped foods first, the plate last)."""
        made = merged(a, b)
        if made is None:
            return False
        mask, plate, _ = ITEM_PARTS[made]
        return any((mask == m) if plate else (mask & ~m == 0) for m in self.open_masks)

    def need(self, item: int) -> tuple[int, ...]:
        """The station kinds ``item`` goes to next: a board for fresh food, the delivery else."""
        return (BOARD,) if ITEM_PARTS[item][2] else (DELIVERY,)

    # choosing

    def _nearest(self, here: int, stations: Sequence[int]) -> int | None:
        dist = self.w.station_dist
        best = min(((dist[s][here], s) for s in stations if s not in self.claimed and dist[s][here] >= 0), default=None)
        return best[1] if best is not None else None

    def _take(self, verb: str, s: int | None, item: int) -> Subtask:
        if s is None:
            return Subtask("wait", None)
        self.claimed.add(s)
        return Subtask(verb, s, item)

    def _counters(self, here: int) -> list[int]:
        w, belief = self.w, self.cook.belief
        return [s for s in w.counters if belief[s] == NOTHING and w.station_dist[s][here] >= 0]

    def _handoff(self, here: int, kind: int) -> int | None:
        """An empty counter this cook reaches that a region with a station of ``kind`` reaches."""
        cook = self.cook
        mine = cook.region_of[here]
        targets = cook.kind_regions[kind] - {mine}
        return self._nearest(here, [s for s in self._counters(here) if cook.reached_from[s] & targets])

    def job(self, here: int, held: int) -> Subtask:
        """The job of a cook on ``here`` holding ``held`` (stations it takes are claimed)."""
        cook, w, belief = self.cook, self.w, self.cook.belief
        region = cook.region_of[here]
        reach = cook.region_reach[region]
        if held != NOTHING:
            fresh = ITEM_PARTS[held][2]
            if held in self.open_dishes:
                if region in cook.kind_regions[DELIVERY]:
                    return Subtask("deliver", self._nearest(here, w.deliveries), held)
                return self._take("pass", self._handoff(here, DELIVERY), held)
            if fresh and self.useful(held):
                if region in cook.kind_regions[BOARD]:
                    board = self._nearest(here, [s for s in w.boards if belief[s] == NOTHING])
                    if board is not None:
                        return self._take("chop", board, held)
                else:
                    return self._take("pass", self._handoff(here, BOARD), held)
            elif not fresh and self.useful(held):
                partner = self._nearest(here, [s for s in reach if belief[s] not in (NOTHING, UNKNOWN)
                                               and w.station_kind[s] != DELIVERY and self.good_merge(held, belief[s])])
                if partner is not None:
                    return self._take("merge", partner, belief[partner])
                if region not in cook.kind_regions[DELIVERY]:
                    handoff = self._handoff(here, DELIVERY)
                    if handoff is not None:
                        return self._take("pass", handoff, held)
            return self._take("put_down", self._nearest(here, self._counters(here)), held)
        # empty hands
        jobs: list[tuple[int, int, int, str, int, tuple[int, ...]]] = []  # rank, cost, station, verb, item, claims
        stations = [s for s in reach if belief[s] not in (NOTHING, UNKNOWN) and s not in self.claimed
                    and w.station_kind[s] != DELIVERY]
        dist = w.station_dist
        delivery_here = region in cook.kind_regions[DELIVERY]
        board_here = region in cook.kind_regions[BOARD]
        for s in stations:
            c = belief[s]
            if not self.useful(c):
                continue
            d = dist[s][here]
            parts = ITEM_PARTS[c]
            if c in self.open_dishes and delivery_here:
                jobs.append((0, d, s, "fetch", c, (s,)))
                continue
            if not parts[2]:
                for t in stations:
                    if t != s and self.good_merge(c, belief[t]):
                        between = cook._station_to_station(s, t)
                        if between >= 0:
                            jobs.append((1, d + between, s, "fetch", c, (s, t)))
            k = parts[0].bit_length() - 1
            if parts[2] and board_here and self.progressed[k] < self.demand[k]:
                jobs.append((2, d, s, "fetch", c, (s,)))
            # pass over a counter: the object's next station cannot be reached from here
            kinds = self.need(c)
            if any(region in cook.kind_regions[kind] for kind in kinds):
                continue
            if cook.reached_from[s] & cook.kind_regions[kinds[0]]:
                continue  # already where a cook who can go on with it reaches it
            if parts[2] and self.progressed[k] + self.fresh_near_board[k] >= self.demand[k]:
                continue
            if c == PLATE and self.plates_ok >= len(self.open_dishes):
                continue
            if self._handoff(here, kinds[0]) is not None:
                jobs.append((3, d, s, "fetch", c, (s,)))
        if not jobs:
            return Subtask("wait", None)
        rank, _, s, verb, item, claims = min(jobs)
        self.claimed.update(claims)
        k = ITEM_PARTS[item][0].bit_length() - 1
        if ITEM_PARTS[item][2] and rank in (2, 3):
            self.progressed[k] += 1
        if item == PLATE and rank == 3:
            self.plates_ok += 1
        return Subtask(verb, s, item)
