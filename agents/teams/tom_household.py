"""k-level ToM planner helpers for household teams (seed 000, Eq. 1).

Each helper has a ToM level k in {0, 1, 2}. Its belief B_i^(k) is its prediction of every other
helper's next actions, built from what the others did (read off consecutive states) and its
(k - 1)-level model of them:

- **k = 0** (naive, no recursion): the other repeats the action it chose last (``wait`` before
  it chose any).
- **k >= 1**: the other is simulated as a level-(k - 1) helper (the policies below) for its next
  ``horizon`` choices from the current state, the others held where they are.

The policies pi_k of a team member are the sub-goal rules of RHP (``agents/household/planner.py``:
deliver what a predicate or the bed still needs, fetch the nearest known object, explore), with
ties broken by name instead of at random, so a policy is a function of what the helper knows:

- **pi_0**: RHP as it is: every helper goes for the nearest thing it knows of, so helpers that
  know the same things go for the same ones.
- **pi_1**: models its teammates as pi_0 helpers and leaves them what it expects them to do and
  to get to first (nearer, or as near and listed before it): the objects they go for and the
  rooms they explore (RHP's coordination hooks ``avoided_objects`` and
  ``avoided_rooms``: taken only when nothing else is left); in household tasks the predicate units
  they are carrying to their places are not fetched twice (``partner_brings``).
- **pi_2**: the same with its teammates modelled as pi_1 helpers.

Levels that differ divide the work (a level-1 helper leaves the nearest object to a level-0 one
that gets there first); helpers of one level above 0 misjudge each other (a level-1 helper
expects a level-1 teammate to take the nearest object, which that teammate leaves to a third),
the mutual-modelling errors that belief-aligned team formation is meant to expose. An idle helper (outside the team of the latest ``TeamAssignment``) waits, and is
predicted to wait; teammates' work is what the hooks leave out, idle helpers' is not.

A helper's own memory of objects is RHP's (what it saw itself). Its model of a teammate knows
what that teammate can have seen: every object in the rooms it explored, outside closed
receptacles, as the state now holds them. Positions, hands and rooms explored come from the whole
state the Session gives every seat (``observe_state``): seed 000's agents predict teammates from
the history of their actions, which needs those actions seen. The helpers never talk. They follow
an episode from its start (a Session that takes over after recorded steps replays those states to them; a state
missed all the same is refused with a clear error).

After each of its choices a helper emits the ``predictions`` snapshot the team mechanism reads,
``{"about": {other: {"trajectory": [...]}}, "level": k}``. ``k="cycle"`` gives the seat the level
``index mod 3`` of its place in the scenario's agents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agents.household.planner import TRANSPORT_CONTAINER_UNTIL, TRANSPORT_GO_HOME_FRAME, Intent, SubgoalAgent
from agents.teams.tom import (
    Horizon,
    Level,
    TeamPlay,
    TeamPolicies,
    TeamView,
    ToMTeamAgent,
    fields_of,
    following,
)
from sim.household.world import MESSAGES, HouseholdObservation, HouseholdState, HouseholdWorld
from sim.seats import SeatContext
from sim.snapshots import Plan

WAIT = "wait"


class _Rules(SubgoalAgent):
    """RHP's rules with deterministic ties and hooks filled from predicted intents."""

    kind = "tom-helper"

    def _hooks_from(self, intents: Mapping[int, Intent], carried: Sequence[str]) -> None:
        self._avoid_objects = {i[1] for i in intents.values() if len(i) >= 2 and i[0] == "fetch"}
        self._avoid_rooms = {i[1] for i in intents.values() if len(i) >= 2 and i[0] == "explore"} | \
                            {i[2] for i in intents.values() if len(i) >= 3 and i[0] == "look"}
        self._brings = list(carried)

    def _clear_hooks(self) -> None:
        self._avoid_objects, self._avoid_rooms, self._brings = set(), set(), []

    def avoided_objects(self) -> set[str]:
        return set(self._avoid_objects)

    def avoided_rooms(self) -> set[str]:
        return set(self._avoid_rooms)

    def partner_brings(self) -> list[str]:
        return list(self._brings) if self.world.task == "household" else []

    def _nearest(self, here: str, candidates: list[tuple[str, str]]) -> tuple[str, str] | None:
        """The (thing, room) pair closest to ``here``; ties: the first by name."""
        if not candidates:
            return None
        best = min(self.distance(here, room) for _, room in candidates)
        return min(c for c in candidates if self.distance(here, c[1]) <= best + 1e-9)

    def _revisit(self, obs: HouseholdObservation) -> str:
        others = [r for r in self.world.room_ids if r != obs.room]
        oldest = min(self.visited.get(r, -1) for r in others)
        room = min(r for r in others if self.visited.get(r, -1) == oldest)
        return self._set("look again", "", f"walk {room}", ("wander", room))


class HouseholdTeamPolicies(TeamPolicies):
    """The policies pi_0, pi_1, pi_2 of any helper in any state, and the seat's side of the
    k-level agent (``TeamPolicies``): a level-0 model repeats any choice; the seat's own choices
    use its own memory (``own``, RHP's rules), with the ``plan`` snapshot."""

    idle = WAIT
    world: HouseholdWorld

    def __init__(self, world: HouseholdWorld, go_home_frame: int = TRANSPORT_GO_HOME_FRAME,
                 container_until: int = TRANSPORT_CONTAINER_UNTIL) -> None:
        super().__init__(world)
        self.go_home_frame, self.container_until = go_home_frame, container_until
        self._mirrors: dict[tuple[tuple, int], _Rules] = {}

    def mirror(self, state: HouseholdState, a: int) -> _Rules:
        """A model of helper ``a`` that knows what ``a`` can have seen in ``state``: the objects
        of every room it explored (outside closed receptacles) and what it holds."""
        key = (state.key(), a)
        found = self._mirrors.get(key)
        if found is not None:
            return found
        if len(self._mirrors) > 4096:
            self._mirrors.clear()
        world = self.world
        rules = _Rules(self.go_home_frame, self.container_until)
        rules.world, rules.me = world, world.agents[a]
        rules.partners = tuple(x for x in world.agents if x != rules.me)
        rules.memory, rules.visited, rules.looked_inside = {}, {}, set()
        rules.rule = rules.subgoal = ""
        rules.intent = ()
        rules._clear_hooks()
        here = state.rooms[a]
        rooms = [r for r in range(len(world.room_ids)) if state.explored[a] >> r & 1 and r != here] + [here]
        for r in rooms:  # the room it stands in last, so its view there wins
            rules.remember(world.observe(replace(state, rooms=state.rooms[:a] + (r,) + state.rooms[a + 1:]),
                                         rules.me))
        self._mirrors[key] = rules
        return rules

    def teammates_intents(self, level: int, state: HouseholdState, a: int,
                          team: TeamView) -> tuple[dict[int, Intent], list[str]]:
        """What ``a``, at ToM level ``level`` >= 1, expects each teammate to do next (their
        level-(``level`` - 1) intents), and the predicate classes they carry."""
        world = self.world
        intents: dict[int, Intent] = {}
        carried: list[str] = []
        for m in sorted(team.members):
            if m == a:
                continue
            _, intent = self.choice(level - 1, state, m, team)
            target = intent[2] if intent and intent[0] in ("fetch", "look") and len(intent) >= 3 else \
                intent[1] if intent and intent[0] == "explore" and len(intent) >= 2 else None
            if target is not None and not self._first_there(state, m, a, target):
                continue  # a would get there first: m's intent leaves it nothing to avoid
            intents[m] = intent
            if world.task == "household" and intent and intent[0] == "deliver":
                places = {p for _, cls, p, _ in world.goal}
                for o in state.hands[m]:
                    if o >= 0 and intent[1] in places:
                        carried.append(world.objects[o].cls)
        return intents, carried

    def _first_there(self, state: HouseholdState, m: int, a: int, room: str) -> bool:
        """Does ``m`` reach ``room`` before ``a`` (equally near: the one listed first, as the
        world applies simultaneous completions in the agents' order)?"""
        world = self.world
        target = world.room_index[room]
        dm, da = world.distance[state.rooms[m]][target], world.distance[state.rooms[a]][target]
        return dm < da - 1e-9 or (abs(dm - da) <= 1e-9 and m < a)

    def choice(self, level: int, state: HouseholdState, a: int, team: TeamView,
               rules: _Rules | None = None) -> tuple[str, Intent]:
        """The action and intent of helper ``a`` as a level-``level`` helper in ``state``, with
        ``rules`` (its own memory) or the model of what it can have seen."""
        if a not in team.members:
            return WAIT, ("wait",)
        rules = rules or self.mirror(state, a)
        if level >= 1:
            rules._hooks_from(*self.teammates_intents(level, state, a, team))
        else:
            rules._clear_hooks()
        action = rules.plan(self.world.observe(state, self.world.agents[a]))
        intent = rules.intent
        rules._clear_hooks()
        return action, intent

    def rollout(self, level: int, state: HouseholdState, a: int, team: TeamView, horizon: int) -> list[str]:
        """``a``'s next ``horizon`` choices as a level-``level`` helper, the others held where
        they are (their actions in progress never complete)."""
        world = self.world
        hold = world.budget + 1
        name = world.agents[a]
        out: list[str] = []
        for _ in range(horizon * 4):
            if len(out) >= horizon:
                break
            if world.done(state):
                out.append(WAIT)
                continue
            state = replace(state, pending=tuple(p if b == a else (WAIT, hold)
                                                 for b, p in enumerate(state.pending)))
            joint: dict[str, str] = {}
            if state.pending[a] is None:
                action, _ = self.choice(level, state, a, team)
                out.append(action)
                joint[name] = action
            state = world.step(state, joint).state
        return out + [WAIT] * (horizon - len(out))

    # ---------------------------------------------------------------- the seat

    def start(self, ctx: SeatContext) -> HouseholdState:
        """The seat's own rules and memory, and the state it starts from."""
        self.own = _Rules(self.go_home_frame, self.container_until)
        self.own.reset(ctx)
        self.own._clear_hooks()
        return self.world.reset(ctx.seed)  # the layout is the scenario's; seeds drive agents

    def seen(self, before: HouseholdState, after: HouseholdState) -> list[tuple[int, str]]:
        """What each helper chose between consecutive states (not those that were busy)."""
        if after.t != before.t + 1:
            return []
        chosen = [(a, chosen_action(self.world, before, after, a)) for a in range(len(self.world.agents))]
        return [(a, action) for a, action in chosen if action is not None]

    def current(self, observation: HouseholdObservation, known: HouseholdState, kind: str) -> HouseholdState:
        following(kind, known.time, observation.time, "time")
        return known

    def own_action(self, level: int, state: HouseholdState, a: int, team: TeamView,
                   observation: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        """The seat's choice with its own memory (an idle helper waits)."""
        own = self.own
        own.remember(observation)
        if a not in team.members:
            own.rule, own.subgoal, own.intent = "idle", "stand aside", ("wait",)
            return WAIT
        action, _ = self.choice(level, state, a, team, rules=own)
        return action

    def snapshots(self) -> list[tuple[str, Any]]:
        """The plan (rule and sub-goal) of the seat's own rules, after every step."""
        return [("plan", Plan(rule=self.own.rule, subgoal=self.own.subgoal))]


def chosen_action(world: HouseholdWorld, before: HouseholdState, after: HouseholdState, a: int) -> str | None:
    """The action helper ``a`` chose between consecutive states (None: it was busy). An action
    still under way is in ``after.pending``; one that completed at once is read off what changed
    (a failed action and a wait look alike; a message reads ``say``)."""
    if before.pending[a] is not None or world.done(before):
        return None
    if after.pending[a] is not None:
        return after.pending[a][0]
    if after.stats[a][MESSAGES] > before.stats[a][MESSAGES]:
        return "say"
    if after.rooms[a] != before.rooms[a]:
        return f"walk {world.room_ids[after.rooms[a]]}"
    if after.explored[a] != before.explored[a]:
        return "explore"
    for o in after.hands[a]:
        if o >= 0 and o not in before.hands[a]:
            return f"grab {world.objects[o].id}"
    for o in before.hands[a]:
        if o >= 0 and o not in after.hands[a]:
            where = world.where(after, o)
            place = world.place_index.get(where)
            verb = "put" if place is not None and world.places[place].kind != "receptacle" else "putin"
            return f"{verb} {world.objects[o].id} {where}"
    changed = before.open_places ^ after.open_places
    for p in world.places_in_room[before.rooms[a]]:
        if changed >> p & 1:
            return f"{'open' if after.open_places >> p & 1 else 'close'} {world.places[p].id}"
    return WAIT


def tom_helper(k: Level = 1, horizon: Horizon = 3, go_home_frame: int = TRANSPORT_GO_HOME_FRAME,
               container_until: int = TRANSPORT_CONTAINER_UNTIL) -> ToMTeamAgent:
    """The ``tom-helper`` kind: a k-level ToM planner helper of a household team."""
    _Rules(go_home_frame, container_until)  # refuses frames below 0
    return ToMTeamAgent("tom-helper", {"go_home_frame": go_home_frame, "container_until": container_until,
                                       "k": k, "horizon": horizon})


def team_score(outcome: Mapping[str, Any], team: Sequence[str], timed: bool = True) -> float:
    """A household team's task score: the team shares one task; ``1 - steps_to_finish / budget``
    when it was finished, 0 when not (``timed=False``: 1 when finished)."""
    if not team:
        return 0.0
    budget, reached, total = outcome.get("budget"), outcome.get("reached"), outcome.get("total")
    if not budget or not isinstance(reached, int) or not isinstance(total, int) or "steps_to_finish" not in outcome:
        raise ValueError(f"the team score of a household outcome needs 'reached', 'total', 'steps_to_finish' and "
                         f"'budget'; this one has: {fields_of(outcome)}")
    if reached < total:
        return 0.0
    return 1.0 - float(outcome["steps_to_finish"]) / float(budget) if timed else 1.0


TEAM_PLAY = TeamPlay(agent="tom-helper:k=cycle", score=team_score, policies=HouseholdTeamPolicies)
