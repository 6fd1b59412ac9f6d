"""The team room: a programming project (a project manager and engineers, pass@1 by running
hidden tests) and a debate (two sides of debaters and a judge), the cooperative tasks of
Belief-Aligned Team Formation (seed 000, Sections 3 and 6).

**Programming** (``ProgrammingRoom``). Each round has two world steps:

1. ``plan``: the project manager acts alone: ``{"type": "plan", "assignments": {subtask:
   engineer}, "instruction": text}`` (subtasks it leaves out keep their engineer; the first
   assignment is round-robin) or ``{"type": "idle"}`` (the assignment stays). The instruction
   and the assignment reach every engineer as a message.
2. ``code``: every engineer acts at once: ``{"type": "submit", "subtasks": [names], "code":
   text}`` or ``{"type": "idle"}`` (sits the round out, as one outside the formed team does).
   The room runs the hidden tests of every named subtask on the code in a sandboxed
   subprocess (``sandbox.py``). A submission *counts* for a subtask when the engineer is
   assigned to it this round; the subtask's code is then replaced by it. Other submissions are
   tested and shown, not counted. Each submitter tells the manager what it submitted (a message).

Measured (``outcome``): ``pass_at_1``, the share of subtasks whose first counted submission
passes all its hidden tests (a subtask never submitted counts as failed); ``final_pass``, the
share whose counted code passes after the last round; ``pass_by_round``; ``tests_passed``, the
share of hidden test cases the final code passes.

**Debate** (``DebateRoom``). Each round the affirmative side speaks (its debaters at once:
``{"type": "speak", "text": ...}`` or ``{"type": "idle"}``), then the negative side. After the
last round the judge acts alone: ``{"type": "verdict", "affirmative": a, "negative": b,
"reason": text}`` with scores in [0, 10]; the higher score wins (equal: a tie). Speeches and the
verdict reach everyone as messages.

Agents who sit out are recorded per round (``idle``): the room shows who worked, which is how a
team mechanism's teams appear in the world. The rules are deterministic: the same actions give
the same states (a submission near its time limit is the one exception: see ``sandbox.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sim.teamroom import sandbox
from sim.teamroom.sandbox import Limits, TestReport, run_tests
from sim.world import AgentId, IllegalAction, Message, StepResult, World, WorldEvent, require_joint

PLAN, CODE, OVER = "plan", "code", "over"
AFFIRMATIVE, NEGATIVE, JUDGE = "affirmative", "negative", "judge"
IDLE = {"type": "idle"}
MAX_INSTRUCTION = 2000
MAX_SPEECH = 2000
MAX_REASON = 1000


@dataclass(frozen=True, slots=True)
class Posted:
    """A message as delivered (kept in the state for the recipients' next observation)."""

    sender: AgentId
    recipients: tuple[AgentId, ...]
    text: str


def _action_type(action: Any) -> str | None:
    return action.get("type") if isinstance(action, Mapping) else None


class RoomWorld(World):
    """What both rooms share."""

    family = "teamroom"
    simultaneous = True
    legal_actions_exhaustive = False

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self._spec = dict(spec)
        self.name = spec["name"]
        self.kind = spec["kind"]
        self.rounds = int(spec["rounds"])

    def spec(self) -> dict[str, Any]:
        return dict(self._spec)

    def observe(self, state: Any, agent: AgentId) -> "RoomObservation":
        inbox = tuple((p.sender, p.text) for p in state.inbox if agent in p.recipients)
        return RoomObservation(agent, self.role_of(agent), state, inbox)

    def observation_digest(self, observation: "RoomObservation") -> str:
        from sim.world import stable_digest
        return stable_digest((observation.agent, observation.role, self.state_key(observation.state),
                              observation.inbox))

    def role_of(self, agent: AgentId) -> str:
        raise NotImplementedError

    def encode_action(self, action: Any) -> Any:
        return dict(action) if isinstance(action, Mapping) else action

    def decode_action(self, data: Any) -> Any:
        return dict(data) if isinstance(data, Mapping) else data

    def fallback_action(self, state: Any, agent: AgentId) -> Any:
        legal = self.legal_actions(state, agent)
        if not legal:
            raise IllegalAction(f"{agent} has no legal action")
        return legal[0]

    def done(self, state: Any) -> bool:
        return state.phase == OVER

    def sat_out(self, state: Any, round_: int) -> tuple[AgentId, ...]:
        """Who sat round ``round_`` out."""
        return tuple(a for r, a in state.idle if r == round_)


@dataclass(frozen=True, slots=True)
class RoomObservation:
    """What a seat perceives: the whole room state (nothing in it is private: hidden tests stay
    in the world's rules, only their outcomes are in the state) and its messages of the last step."""

    agent: AgentId
    role: str
    state: Any
    inbox: tuple[tuple[AgentId, str], ...]


# ---------------------------------------------------------------------------- programming


@dataclass(frozen=True, slots=True)
class Plan:
    round: int
    assignments: tuple[tuple[str, AgentId], ...]
    instruction: str

    def key(self) -> tuple:
        return (self.round, self.assignments, self.instruction)


@dataclass(frozen=True, slots=True)
class Submission:
    round: int
    engineer: AgentId
    subtasks: tuple[str, ...]
    code: str
    reports: tuple[TestReport, ...]
    counted: tuple[str, ...]

    def report(self, subtask: str) -> TestReport | None:
        return next((r for r in self.reports if r.function == subtask), None)

    def key(self) -> tuple:
        return (self.round, self.engineer, self.subtasks, self.code, tuple(r.key() for r in self.reports), self.counted)


@dataclass(frozen=True, slots=True)
class ProgrammingState:
    t: int
    round: int
    phase: str
    assignments: tuple[tuple[str, AgentId], ...]
    plans: tuple[Plan, ...] = ()
    submissions: tuple[Submission, ...] = ()
    #: subtask -> index of its counted submission (-1: none yet)
    current: tuple[tuple[str, int], ...] = ()
    #: subtask -> whether its first counted submission passed (None: not submitted yet)
    first: tuple[tuple[str, bool | None], ...] = ()
    #: share of subtasks whose counted code passes, after each round's code step
    pass_by_round: tuple[float, ...] = ()
    idle: tuple[tuple[int, AgentId], ...] = ()
    inbox: tuple[Posted, ...] = ()

    def assignment(self) -> dict[str, AgentId]:
        return dict(self.assignments)

    def counted_report(self, subtask: str) -> TestReport | None:
        index = dict(self.current).get(subtask, -1)
        return None if index < 0 else self.submissions[index].report(subtask)


class ProgrammingRoom(RoomWorld):
    """A project manager and engineers on one small Python task (see the module docstring)."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        super().__init__(spec)
        self.pm: AgentId = spec["pm"]
        self.engineers: tuple[AgentId, ...] = tuple(spec["engineers"])
        self.task = dict(spec["task"])
        self.subtasks: tuple[dict[str, Any], ...] = tuple(dict(s) for s in spec["subtasks"])
        self.subtask_names = tuple(s["name"] for s in self.subtasks)
        self.by_name = {s["name"]: s for s in self.subtasks}
        self.profiles = {e: dict(p) for e, p in spec.get("profiles", {}).items()}
        limits = spec.get("limits") or {}
        self.limits = Limits(case_seconds=float(limits.get("case_seconds", 2.0)),
                             memory_mb=int(limits.get("memory_mb", 256)))
        self._reports: dict[tuple[str, str], TestReport] = {}

    @property
    def agents(self) -> tuple[AgentId, ...]:
        return (self.pm, *self.engineers)

    def cannot_run_here(self) -> str | None:
        return sandbox.unavailable()

    def role_of(self, agent: AgentId) -> str:
        return "pm" if agent == self.pm else "engineer"

    def default_assignments(self) -> tuple[tuple[str, AgentId], ...]:
        return tuple((name, self.engineers[k % len(self.engineers)]) for k, name in enumerate(self.subtask_names))

    def reset(self, seed: int) -> ProgrammingState:
        return ProgrammingState(t=0, round=0, phase=PLAN, assignments=self.default_assignments(),
                                current=tuple((n, -1) for n in self.subtask_names),
                                first=tuple((n, None) for n in self.subtask_names))

    def active_agents(self, state: ProgrammingState) -> tuple[AgentId, ...]:
        if state.phase == PLAN:
            return (self.pm,)
        if state.phase == CODE:
            return self.engineers
        return ()

    def legal_actions(self, state: ProgrammingState, agent: AgentId) -> tuple[Any, ...]:
        if agent not in self.active_agents(state):
            return ()
        if state.phase == PLAN:
            return ({"type": "plan", "assignments": dict(state.assignments),
                     "instruction": "The Engineer should implement the assigned functions so that they pass their tests."},
                    dict(IDLE))
        mine = [s for s, e in state.assignments if e == agent]
        sample: list[Any] = [dict(IDLE)]
        if mine:
            code = "\n\n".join(self.by_name[s]["reference"] for s in mine)
            sample.append({"type": "submit", "subtasks": mine, "code": code})
        return tuple(sample)

    def fallback_action(self, state: ProgrammingState, agent: AgentId) -> Any:
        """The manager keeps the assignment; an engineer sits the round out."""
        if agent not in self.active_agents(state):
            raise IllegalAction(f"{agent} has no legal action")
        return dict(IDLE)

    def why_illegal(self, state: ProgrammingState, agent: AgentId, action: Any) -> str | None:
        if agent not in self.active_agents(state):
            return f"it is not {agent}'s turn (phase {state.phase})"
        kind = _action_type(action)
        if kind == "idle":
            return None
        if state.phase == PLAN:
            if kind != "plan":
                return f"the manager plans now: expected type 'plan' or 'idle', got {kind!r}"
            assignments = action.get("assignments", {})
            if not isinstance(assignments, Mapping):
                return "field 'assignments': expected an object {subtask: engineer}"
            for subtask, engineer in assignments.items():
                if subtask not in self.by_name:
                    return f"field 'assignments': no subtask {subtask!r}; expected one of {list(self.subtask_names)}"
                if engineer not in self.engineers:
                    return f"field 'assignments.{subtask}': {engineer!r} is not an engineer; expected one of {list(self.engineers)}"
            instruction = action.get("instruction", "")
            if not isinstance(instruction, str) or len(instruction) > MAX_INSTRUCTION:
                return f"field 'instruction': expected text of at most {MAX_INSTRUCTION} characters"
            return None
        if kind != "submit":
            return f"engineers code now: expected type 'submit' or 'idle', got {kind!r}"
        subtasks = action.get("subtasks")
        if not isinstance(subtasks, Sequence) or isinstance(subtasks, str) or not subtasks:
            return "field 'subtasks': expected a non-empty list of subtask names"
        for s in subtasks:
            if s not in self.by_name:
                return f"field 'subtasks': no subtask {s!r}; expected some of {list(self.subtask_names)}"
        if len(set(subtasks)) != len(subtasks):
            return "field 'subtasks': a subtask is named twice"
        code = action.get("code")
        if not isinstance(code, str) or not code.strip():
            return "field 'code': expected the Python code as non-empty text"
        return None

    def report(self, code: str, subtask: str) -> TestReport:
        """The hidden tests of ``subtask`` on ``code`` (run once per code and subtask)."""
        key = (code, subtask)
        found = self._reports.get(key)
        if found is None:
            found = self._reports[key] = run_tests(code, subtask, self.by_name[subtask]["tests"], self.limits)
        return found

    def step(self, state: ProgrammingState, joint_action: Mapping[AgentId, Any]) -> StepResult[ProgrammingState]:
        if state.phase == OVER:
            raise IllegalAction("the project is over")
        require_joint(self, state, joint_action)
        for agent, action in joint_action.items():
            why = self.why_illegal(state, agent, action)
            if why is not None:
                raise IllegalAction(f"{agent}: {why}")
        if state.phase == PLAN:
            return self._plan(state, joint_action[self.pm])
        return self._code(state, joint_action)

    def _plan(self, state: ProgrammingState, action: Mapping[str, Any]) -> StepResult[ProgrammingState]:
        if _action_type(action) == "idle":
            nxt = _replace(state, t=state.t + 1, phase=CODE, idle=state.idle + ((state.round, self.pm),), inbox=())
            return StepResult(nxt, (WorldEvent("sat_out", self.pm, {"round": state.round}),))
        assignment = state.assignment()
        assignment.update(action.get("assignments", {}))
        assignments = tuple((n, assignment[n]) for n in self.subtask_names)
        instruction = action.get("instruction", "").strip()
        plan = Plan(state.round, assignments, instruction)
        lines = [instruction] if instruction else []
        lines += [f"{e}: {', '.join(s for s, who in assignments if who == e)}"
                  for e in self.engineers if any(who == e for _, who in assignments)]
        text = f"Round {state.round + 1} plan. " + "\n".join(lines)
        posted = Posted(self.pm, self.engineers, text)
        nxt = _replace(state, t=state.t + 1, phase=CODE, assignments=assignments, plans=state.plans + (plan,),
                       inbox=(posted,))
        event = WorldEvent("plan", self.pm, {"round": state.round, "assignments": dict(assignments)})
        return StepResult(nxt, (event,), (Message(self.pm, self.engineers, text),))

    def _code(self, state: ProgrammingState, joint: Mapping[AgentId, Any]) -> StepResult[ProgrammingState]:
        assignment = state.assignment()
        submissions = list(state.submissions)
        current = dict(state.current)
        first = dict(state.first)
        idle = list(state.idle)
        events: list[WorldEvent] = []
        messages: list[Message] = []
        posted: list[Posted] = []
        for engineer in self.engineers:
            action = joint[engineer]
            if _action_type(action) == "idle":
                idle.append((state.round, engineer))
                events.append(WorldEvent("sat_out", engineer, {"round": state.round}))
                continue
            subtasks = tuple(action["subtasks"])
            code = action["code"]
            reports = tuple(self.report(code, s) for s in subtasks)
            counted = tuple(s for s in subtasks if assignment.get(s) == engineer)
            index = len(submissions)
            submissions.append(Submission(state.round, engineer, subtasks, code, reports, counted))
            for s, r in zip(subtasks, reports):
                if s in counted:
                    current[s] = index
                    if first[s] is None:
                        first[s] = r.ok
            summary = "; ".join(f"{r.function} {r.passed}/{r.total} tests"
                                + ("" if s in counted else " (not mine: not counted)") for s, r in zip(subtasks, reports))
            text = f"{engineer} submitted {summary}."
            events.append(WorldEvent("submission", engineer, {"round": state.round, "subtasks": list(subtasks),
                                                              "counted": list(counted),
                                                              "reports": [r.to_dict() for r in reports]}))
            messages.append(Message(engineer, (self.pm,), text))
            posted.append(Posted(engineer, (self.pm,), text))
        passing = sum(1 for s in self.subtask_names if current[s] >= 0
                      and (kept := submissions[current[s]].report(s)) is not None and kept.ok)
        share = passing / len(self.subtask_names)
        last = state.round + 1 >= self.rounds
        nxt = ProgrammingState(t=state.t + 1, round=state.round if last else state.round + 1,
                               phase=OVER if last else PLAN, assignments=state.assignments, plans=state.plans,
                               submissions=tuple(submissions), current=tuple((n, current[n]) for n in self.subtask_names),
                               first=tuple((n, first[n]) for n in self.subtask_names),
                               pass_by_round=state.pass_by_round + (share,), idle=tuple(idle), inbox=tuple(posted))
        events.append(WorldEvent("round_tested", None, {"round": state.round, "pass": share}))
        return StepResult(nxt, tuple(events), tuple(messages))

    # ------------------------------------------------------------------ measures

    def pass_at_1(self, state: ProgrammingState) -> float:
        return sum(1 for _, ok in state.first if ok) / len(self.subtask_names)

    def final_pass(self, state: ProgrammingState) -> float:
        return sum(1 for n in self.subtask_names if (r := state.counted_report(n)) is not None and r.ok) / len(
            self.subtask_names)

    def tests_passed(self, state: ProgrammingState) -> float:
        total = sum(len(s["tests"]) for s in self.subtasks)
        passed = sum(r.passed for n in self.subtask_names if (r := state.counted_report(n)) is not None)
        return passed / total

    def outcome(self, state: ProgrammingState) -> dict[str, Any]:
        final = self.final_pass(state)
        return {"success": final == 1.0, "pass_at_1": round(self.pass_at_1(state), 6), "final_pass": round(final, 6),
                "tests_passed": round(self.tests_passed(state), 6),
                "pass_by_round": [round(x, 6) for x in state.pass_by_round], "subtasks": len(self.subtask_names),
                "rounds": len(state.pass_by_round), "submissions": len(state.submissions),
                "sat_out": len(state.idle)}

    def state_key(self, state: ProgrammingState) -> tuple:
        return (state.t, state.round, state.phase, state.assignments, tuple(p.key() for p in state.plans),
                tuple(s.key() for s in state.submissions), state.current, state.first, state.pass_by_round,
                state.idle, tuple((p.sender, p.recipients, p.text) for p in state.inbox))

    def render_text(self, state: ProgrammingState) -> str:
        lines = [f"{self.name}: round {min(state.round + 1, self.rounds)}/{self.rounds}, phase {state.phase}"]
        for n in self.subtask_names:
            r = state.counted_report(n)
            who = state.assignment()[n]
            lines.append(f"  {n:<24} {who:<12} " + ("not submitted" if r is None else f"{r.passed}/{r.total} tests"))
        lines.append(f"  pass@1 {self.pass_at_1(state):.2f}, passing now {self.final_pass(state):.2f}")
        return "\n".join(lines)

    def message_action(self, state: ProgrammingState, agent: AgentId, text: str,
                       recipients: Sequence[AgentId] = ()) -> Any | None:
        if state.phase == PLAN and agent == self.pm:
            return {"type": "plan", "assignments": dict(state.assignments), "instruction": text[:MAX_INSTRUCTION]}
        return None


def _replace(state: ProgrammingState, **changes: Any) -> ProgrammingState:
    import dataclasses
    return dataclasses.replace(state, **changes)


# ---------------------------------------------------------------------------- debate


@dataclass(frozen=True, slots=True)
class Speech:
    round: int
    side: str
    parts: tuple[tuple[AgentId, str], ...]

    @property
    def text(self) -> str:
        return "\n".join(t for _, t in self.parts)


@dataclass(frozen=True, slots=True)
class Verdict:
    judge: AgentId
    affirmative: float
    negative: float
    reason: str

    @property
    def winner(self) -> str:
        if self.affirmative == self.negative:
            return "tie"
        return AFFIRMATIVE if self.affirmative > self.negative else NEGATIVE


@dataclass(frozen=True, slots=True)
class DebateState:
    t: int
    round: int
    phase: str
    speeches: tuple[Speech, ...] = ()
    verdict: Verdict | None = None
    idle: tuple[tuple[int, AgentId], ...] = ()
    inbox: tuple[Posted, ...] = ()


class DebateRoom(RoomWorld):
    """Two sides of debaters and a judge on one motion (see the module docstring)."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        super().__init__(spec)
        self.motion: str = spec["motion"]
        self.sides = {AFFIRMATIVE: tuple(spec["affirmative"]), NEGATIVE: tuple(spec["negative"])}
        self.judge: AgentId = spec["judge"]
        self.arguments = {side: tuple(spec.get("arguments", {}).get(side, [])) for side in (AFFIRMATIVE, NEGATIVE)}

    @property
    def agents(self) -> tuple[AgentId, ...]:
        return (*self.sides[AFFIRMATIVE], *self.sides[NEGATIVE], self.judge)

    def role_of(self, agent: AgentId) -> str:
        if agent == self.judge:
            return JUDGE
        return AFFIRMATIVE if agent in self.sides[AFFIRMATIVE] else NEGATIVE

    def formation_groups(self) -> dict[str, tuple[AgentId, ...]]:
        """The groups team mechanisms form teams within: each side (seed 000 forms the debate's
        team within one side); the judge is in none, so it is never a team member."""
        return dict(self.sides)

    def side_of(self, agent: AgentId) -> str | None:
        role = self.role_of(agent)
        return role if role != JUDGE else None

    def reset(self, seed: int) -> DebateState:
        return DebateState(t=0, round=0, phase=AFFIRMATIVE)

    def active_agents(self, state: DebateState) -> tuple[AgentId, ...]:
        if state.phase in self.sides:
            return self.sides[state.phase]
        if state.phase == JUDGE:
            return (self.judge,)
        return ()

    def legal_actions(self, state: DebateState, agent: AgentId) -> tuple[Any, ...]:
        if agent not in self.active_agents(state):
            return ()
        if state.phase == JUDGE:
            return ({"type": "verdict", "affirmative": 5.0, "negative": 5.0, "reason": "no decision: a tie"},)
        return (dict(IDLE), {"type": "speak", "text": f"I speak for the {state.phase} side on: {self.motion}"})

    def why_illegal(self, state: DebateState, agent: AgentId, action: Any) -> str | None:
        if agent not in self.active_agents(state):
            return f"it is not {agent}'s turn (phase {state.phase})"
        kind = _action_type(action)
        if state.phase == JUDGE:
            if kind != "verdict":
                return f"the judge decides now: expected type 'verdict', got {kind!r}"
            for side in (AFFIRMATIVE, NEGATIVE):
                score = action.get(side)
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 10:
                    return f"field '{side}': expected a score from 0 to 10, got {score!r:.40}"
            reason = action.get("reason", "")
            if not isinstance(reason, str) or len(reason) > MAX_REASON:
                return f"field 'reason': expected text of at most {MAX_REASON} characters"
            return None
        if kind == "idle":
            return None
        if kind != "speak":
            return f"debaters speak now: expected type 'speak' or 'idle', got {kind!r}"
        text = action.get("text")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_SPEECH:
            return f"field 'text': expected a non-empty speech of at most {MAX_SPEECH} characters"
        return None

    def step(self, state: DebateState, joint_action: Mapping[AgentId, Any]) -> StepResult[DebateState]:
        if state.phase == OVER:
            raise IllegalAction("the debate is over")
        require_joint(self, state, joint_action)
        for agent, action in joint_action.items():
            why = self.why_illegal(state, agent, action)
            if why is not None:
                raise IllegalAction(f"{agent}: {why}")
        import dataclasses
        if state.phase == JUDGE:
            a = joint_action[self.judge]
            verdict = Verdict(self.judge, float(a["affirmative"]), float(a["negative"]), a.get("reason", "").strip())
            text = (f"Verdict: affirmative {verdict.affirmative:g}, negative {verdict.negative:g}: "
                    f"{'a tie' if verdict.winner == 'tie' else verdict.winner + ' wins'}. {verdict.reason}").strip()
            others = tuple(x for x in self.agents if x != self.judge)
            nxt = dataclasses.replace(state, t=state.t + 1, phase=OVER, verdict=verdict,
                                      inbox=(Posted(self.judge, others, text),))
            return StepResult(nxt, (WorldEvent("verdict", self.judge, {"affirmative": verdict.affirmative,
                                                                       "negative": verdict.negative,
                                                                       "winner": verdict.winner}),),
                              (Message(self.judge, others, text),))
        side = state.phase
        parts, idle, events, messages, posted = [], list(state.idle), [], [], []
        for agent in self.sides[side]:
            action = joint_action[agent]
            if _action_type(action) == "idle":
                idle.append((state.round, agent))
                events.append(WorldEvent("sat_out", agent, {"round": state.round, "side": side}))
                continue
            text = action["text"].strip()
            parts.append((agent, text))
            others = tuple(x for x in self.agents if x != agent)
            messages.append(Message(agent, others, text))
            posted.append(Posted(agent, others, text))
        speech = Speech(state.round, side, tuple(parts))
        events.append(WorldEvent("speech", None, {"round": state.round, "side": side,
                                                  "speakers": [a for a, _ in parts]}))
        if side == AFFIRMATIVE:
            phase, round_ = NEGATIVE, state.round
        elif state.round + 1 < self.rounds:
            phase, round_ = AFFIRMATIVE, state.round + 1
        else:
            phase, round_ = JUDGE, state.round
        nxt = DebateState(t=state.t + 1, round=round_, phase=phase, speeches=state.speeches + (speech,),
                          verdict=None, idle=tuple(idle), inbox=tuple(posted))
        return StepResult(nxt, tuple(events), tuple(messages))

    def fallback_action(self, state: DebateState, agent: AgentId) -> Any:
        """A debater sits the speech out; the judge declares a tie."""
        return self.legal_actions(state, agent)[0] if agent in self.active_agents(state) else dict(IDLE)

    def outcome(self, state: DebateState) -> dict[str, Any]:
        v = state.verdict
        spoken = {side: sum(len(s.parts) for s in state.speeches if s.side == side) for side in self.sides}
        return {"success": v is not None, "winner": None if v is None else v.winner,
                "scores": None if v is None else {AFFIRMATIVE: v.affirmative, NEGATIVE: v.negative},
                "speeches": len(state.speeches), "statements": spoken, "sat_out": len(state.idle)}

    def state_key(self, state: DebateState) -> tuple:
        v = state.verdict
        return (state.t, state.round, state.phase, tuple((s.round, s.side, s.parts) for s in state.speeches),
                None if v is None else (v.judge, v.affirmative, v.negative, v.reason), state.idle,
                tuple((p.sender, p.recipients, p.text) for p in state.inbox))

    def render_text(self, state: DebateState) -> str:
        lines = [f"{self.name}: {self.motion}", f"round {state.round + 1}/{self.rounds}, phase {state.phase}"]
        for s in state.speeches:
            for agent, text in s.parts:
                lines.append(f"  [{s.round + 1} {s.side}] {agent}: {text[:100]}")
        if state.verdict is not None:
            v = state.verdict
            lines.append(f"  verdict: affirmative {v.affirmative:g}, negative {v.negative:g} ({v.winner})")
        return "\n".join(lines)

    def message_action(self, state: DebateState, agent: AgentId, text: str,
                       recipients: Sequence[AgentId] = ()) -> Any | None:
        if state.phase in self.sides and agent in self.sides[state.phase] and text.strip():
            return {"type": "speak", "text": text[:MAX_SPEECH]}
        return None


def build_room(spec: Mapping[str, Any]) -> RoomWorld:
    """The room a validated spec describes."""
    return ProgrammingRoom(spec) if spec["kind"] == "programming" else DebateRoom(spec)
