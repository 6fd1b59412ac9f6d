"""Scripted minds for the team room: real policies that need no model, for runs without an
LLM and for fast tests. They act from the scenario's data, as documented here, and model each
other with the same rules (which is what their ToM levels are about).

**Engineer** (``profiles`` in the scenario). Each round it works on the subtasks assigned to it
whose counted code does not pass yet (an engineer whose profile says ``follows: false`` works
on its ``favourite`` subtask instead, whatever the plan says). For a subtask in its ``skills``
it writes the scenario's ``reference``; otherwise it tries the scenario's ``drafts`` in order,
one more after each of its own failed attempts, and writes the reference once the drafts are
used up (it learns from the test results). Nothing to do, or outside the formed team: it sits
the round out.

**Project manager** (level k):

- k = 0: assigns the subtasks round-robin over the engineers of the team, the same every round;
- k = 1: models the engineers as level-0 engineers with the skills their profiles list (their
  CVs; it assumes they follow the plan): keeps a passing subtask with its engineer, gives an
  unsolved one to a team engineer skilled in it, else to the least loaded one. It predicts each
  engineer's next submission with that model (the ``predictions`` snapshot, exact actions);
- k = 2: also reasons about how the engineers answered its previous instructions: an engineer
  who worked but left out a subtask the plan gave it gets no unsolved subtask any more (unless
  every engineer did so).

**Debater** (level k), from its side's ``arguments`` in the scenario:

- k = 0: the first argument it has not made yet (it ignores its teammates, so teammates repeat
  each other);
- k = 1: models its teammates as level 0, predicts the argument each will make, and picks the
  first argument its side has not made and no teammate is predicted to make (it complements);
- k = 2: models its teammates as level 1 and expects them to complement, so it opens a new
  issue: the last such argument of the bank.

Inside a team formed by a mechanism, a debater speaks when it is in the team or when nobody of
its side is; otherwise it sits the speech out.

**Judge**: scores each side from 0 to 10 by a fixed rubric over the transcript (``rubric``):
70 % novelty (the share of each statement's content words that its side had not used before,
averaged over statements) and 30 % presence (the share of its side's speeches in which at least
one debater spoke).

Agents with k >= 1 emit ``predictions`` (``{"level": k, "about": {other: {"action": a}}}``) of
the next action of each agent they model that acts in the next step; the ``teams`` mechanism
scores them against what those agents then do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sim.seats import Agent, SeatContext, TeamAssignment
from sim.snapshots import Predictions, SnapshotPayload
from sim.teamroom.world import (
    AFFIRMATIVE,
    CODE,
    IDLE,
    JUDGE,
    NEGATIVE,
    PLAN,
    DebateRoom,
    DebateState,
    ProgrammingRoom,
    ProgrammingState,
    RoomObservation,
)

#: the key order of these agents' ``predictions`` snapshots (their recordings have always had it)
LEVEL_FIRST = ("level", "about")

STOPWORDS = frozenset("""that this with from have they them their there than then what when which while would
could should about into more most other over such only also very just been being were will your ours ourselves
does doing because these those where after before under again further once each some same both""".split())


# ------------------------------------------------------------------------- engineers


def passing(state: ProgrammingState, subtask: str) -> bool:
    report = state.counted_report(subtask)
    return report is not None and report.ok


def failed_attempts(state: ProgrammingState, engineer: str, subtask: str) -> int:
    return sum(1 for s in state.submissions if s.engineer == engineer and (r := s.report(subtask)) is not None
               and not r.ok)


def engineer_action(world: ProgrammingRoom, state: ProgrammingState, engineer: str, *, skills: Sequence[str],
                    follows: bool = True, favourite: str | None = None, in_team: bool = True) -> dict[str, Any]:
    """The scripted engineer's action in the code phase of ``state`` (see the module docstring)."""
    if not in_team:
        return dict(IDLE)
    if follows:
        targets = [s for s, e in state.assignments if e == engineer and not passing(state, s)]
    else:
        targets = [favourite] if favourite is not None else []
    if not targets:
        return dict(IDLE)
    pieces = []
    for s in targets:
        spec = world.by_name[s]
        if s in skills:
            pieces.append(spec["reference"])
        else:
            tries = [*spec.get("drafts", []), spec["reference"]]
            pieces.append(tries[min(failed_attempts(state, engineer, s), len(tries) - 1)])
    return {"type": "submit", "subtasks": list(targets), "code": "\n\n\n".join(pieces)}


def pm_assignments(world: ProgrammingRoom, state: ProgrammingState, k: int,
                   team: Sequence[str]) -> dict[str, str]:
    """The scripted manager's assignment at level ``k`` (see the module docstring)."""
    workers = [e for e in world.engineers if e in team] or list(world.engineers)
    if k == 0:
        return {s: workers[i % len(workers)] for i, s in enumerate(world.subtask_names)}
    current = state.assignment()
    load = {e: 0 for e in workers}
    out: dict[str, str] = {}
    ignorers = ignored_plan(state) if k >= 2 else set()
    trusted = [e for e in workers if e not in ignorers] or workers
    for s in world.subtask_names:
        if passing(state, s):
            out[s] = current[s]
            continue
        keep = current[s] if current[s] in trusted else None
        skilled = [e for e in trusted if s in world.profiles.get(e, {}).get("skills", [])]
        if skilled:
            choice = keep if keep in skilled else min(skilled, key=lambda e: (load[e], workers.index(e)))
        else:
            choice = keep if keep is not None else min(trusted, key=lambda e: (load[e], workers.index(e)))
        out[s] = choice
        load[choice] += 1
    return out


def ignored_plan(state: ProgrammingState) -> set[str]:
    """Engineers who, in some past round, worked but left out an unsolved subtask the plan gave them."""
    out = set()
    for plan in state.plans:
        worked = {sub.engineer: set(sub.subtasks) for sub in state.submissions if sub.round == plan.round}
        for subtask, engineer in plan.assignments:
            if engineer in worked and subtask not in worked[engineer] and not passing_before(state, subtask, plan.round):
                out.add(engineer)
    return out


def passing_before(state: ProgrammingState, subtask: str, round_: int) -> bool:
    """Whether ``subtask``'s counted code passed when round ``round_`` began."""
    counted = [sub for sub in state.submissions if sub.round < round_ and subtask in sub.counted]
    return bool(counted) and counted[-1].report(subtask).ok  # type: ignore[union-attr]


def pm_instruction(world: ProgrammingRoom, assignments: Mapping[str, str]) -> str:
    parts = [f"{e} implements {', '.join(s for s, who in assignments.items() if who == e)}"
             for e in world.engineers if e in assignments.values()]
    return "The Engineer should write the assigned functions so that they pass their tests: " + "; ".join(parts) + "."


# ------------------------------------------------------------------------- debaters


def content_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4 and w not in STOPWORDS]


def rubric(world: DebateRoom, state: DebateState) -> dict[str, float]:
    """Each side's score in [0, 10] (see the module docstring)."""
    scores = {}
    for side in (AFFIRMATIVE, NEGATIVE):
        speeches = [s for s in state.speeches if s.side == side]
        used: set[str] = set()
        novelty = []
        for speech in speeches:
            for _, text in speech.parts:
                words = content_words(text)
                if words:
                    novelty.append(sum(1 for w in set(words) if w not in used) / len(set(words)))
                used.update(words)
        presence = sum(1 for s in speeches if s.parts) / len(speeches) if speeches else 0.0
        mean_novelty = sum(novelty) / len(novelty) if novelty else 0.0
        scores[side] = round(10 * (0.7 * mean_novelty + 0.3 * presence), 2)
    return scores


def spoken_by(state: DebateState, agent: str) -> set[str]:
    return {t for s in state.speeches for a, t in s.parts if a == agent}


def spoken_by_side(state: DebateState, side: str) -> set[str]:
    return {t for s in state.speeches if s.side == side for _, t in s.parts}


def debater_argument(world: DebateRoom, state: DebateState, agent: str, k: int) -> str | None:
    """The argument the level-``k`` scripted debater makes now (None: nothing left to say)."""
    side = world.side_of(agent)
    bank = list(world.arguments.get(side, ()))
    if not bank:
        return None
    if k == 0:
        mine = spoken_by(state, agent)
        return next((a for a in bank if a not in mine), None)
    teammates = [x for x in world.sides[side] if x != agent]
    predicted = {debater_argument(world, state, x, k - 1) for x in teammates}
    made = spoken_by_side(state, side)
    free = [a for a in bank if a not in made and a not in predicted]
    if not free:
        mine = spoken_by(state, agent)
        free = [a for a in bank if a not in mine]
    if not free:
        return None
    return free[0] if k == 1 else free[-1]


# ------------------------------------------------------------------------- the agent


class ScriptedRoomAgent(Agent):
    """A scripted mind for any seat of the team room; its role comes from the world."""

    kind = "room-scripted"

    def __init__(self, k: int = 1) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 2:
            raise ValueError(f"k (the Theory-of-Mind level) must be 0, 1 or 2, got {k!r}")
        self.k = k

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, (ProgrammingRoom, DebateRoom)):
            raise TypeError(f"room-scripted plays the team room, not {ctx.world.family}")
        self.world = ctx.world
        self.me = ctx.agent_id
        self.role = self.world.role_of(self.me)
        self.team: frozenset[str] | None = None  # None: no mechanism formed a team yet (everyone works)
        self._snapshots: list[tuple[str, SnapshotPayload]] = []

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k}

    def receive_team(self, assignment: TeamAssignment) -> None:
        self.team = frozenset(a for members in assignment.teams.values() for a in members)

    def in_team(self, agent: str) -> bool:
        return self.team is None or agent in self.team

    # ------------------------------------------------------------ acting

    def act(self, observation: RoomObservation, legal_actions: Sequence[Any]) -> Any:
        state = observation.state
        if isinstance(self.world, ProgrammingRoom):
            if state.phase == PLAN:
                return self.plan(state)
            return self.model_engineer(state, self.me)
        if self.role == JUDGE:
            scores = rubric(self.world, state)
            return {"type": "verdict", **scores,
                    "reason": "rubric: 70% novelty of each statement's content words, 30% presence in the speeches"}
        return self.model_debater(state, self.me, self.k)

    def plan(self, state: ProgrammingState) -> dict[str, Any]:
        team = [e for e in self.world.engineers if self.in_team(e)]
        assignments = pm_assignments(self.world, state, self.k, team)
        return {"type": "plan", "assignments": assignments, "instruction": pm_instruction(self.world, assignments)}

    def model_engineer(self, state: ProgrammingState, engineer: str, *, as_seen: bool = False) -> dict[str, Any]:
        """``engineer``'s action: its own profile when it is this seat, its public skills (follows
        assumed) when another agent models it (``as_seen``)."""
        profile = self.world.profiles.get(engineer, {})
        if as_seen:
            return engineer_action(self.world, state, engineer, skills=profile.get("skills", []),
                                   in_team=self.in_team(engineer))
        return engineer_action(self.world, state, engineer, skills=profile.get("skills", []),
                               follows=profile.get("follows", True), favourite=profile.get("favourite"),
                               in_team=self.in_team(engineer))

    def model_debater(self, state: DebateState, agent: str, k: int) -> dict[str, Any]:
        side = self.world.side_of(agent)
        side_in_team = self.team is not None and any(x in self.team for x in self.world.sides[side])
        if side_in_team and agent not in self.team:
            return dict(IDLE)
        text = debater_argument(self.world, state, agent, k)
        return {"type": "speak", "text": text} if text else dict(IDLE)

    # ------------------------------------------------------------ beliefs

    def observe_state(self, state: Any) -> None:
        if self.k == 0 or self.world.done(state):
            return
        about: dict[str, dict[str, Any]] = {}
        nxt = self.world.active_agents(state)
        if isinstance(self.world, ProgrammingRoom):
            if state.phase == CODE:
                for e in nxt:
                    if e != self.me:
                        about[e] = {"action": self.model_engineer(state, e, as_seen=True)}
        elif self.role != JUDGE:
            side = self.world.side_of(self.me)
            if state.phase == side:
                for x in nxt:
                    if x != self.me:
                        about[x] = {"action": self.model_debater(state, x, self.k - 1)}
        if about:
            self._snapshots.append(("predictions", Predictions(about=about, level=self.k, key_order=LEVEL_FIRST)))

    def belief_snapshots(self) -> Sequence[tuple[str, SnapshotPayload]]:
        out, self._snapshots = self._snapshots, []
        return out
