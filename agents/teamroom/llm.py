"""LLM minds for the team room, with the k-level ToM prompts of Belief-Aligned Team Formation
(seed 000): Appendix C for the project manager, Appendix D for debaters, the same form for
engineers (whose action is their code), and Appendix A's self-evaluation of teammates.

One agent kind (``room-llm``) plays every seat; its role comes from the world:

- **project manager**: the Appendix C prompt ("There are engineers in the team. Your current
  action is ... You have the ability of k Level Theory of Mind ...") with the task, every
  subtask's signature, assignment and test results, and the formed team; the answer is the
  level-k JSON (``ToM_level0`` or ``ToM_level1`` [+ ``ToM_level2``], each ``belief``,
  ``explanation``, ``action``) plus ``assignments`` (subtask -> an engineer of the team, pinned
  by the schema). The highest level's action is the instruction. No usable answer: the level-1
  scripted manager's assignment (``agents/teamroom/scripted.py``) and an ``llm_fallback`` event;
- **engineer**: the same form for its assigned, still failing subtasks (signatures,
  descriptions, examples, its last test results, the manager's instruction); the highest
  level's action is the code it submits. No usable code: it sits the round out
  (``llm_fallback``), never a reference solution;
- **debater**: the Appendix D prompt with the motion, its side and the transcript so far; the
  highest level's action is its statement. No usable answer: it sits the speech out;
- **judge**: scores both sides from 0 to 10 with a reason; no usable answer: the scripted
  rubric's scores (``llm_fallback``).

Alignment (Appendix A): an agent with k >= 1 that holds a belief y from its previous decision
asks, before its next decision, the Appendix A prompt (``agents.teams.alignment``) about what the
others it formed the belief about did since (the manager: the engineers' submissions and test
results; an engineer: the other engineers'; a debater: its teammates' statements), and emits
the scores as an ``alignment_self_evaluation`` snapshot for the ``teams`` mechanism. It also
emits ``predictions`` with its level and no trajectories (its beliefs are text, scored by the
self-evaluation), so the level shows in the team state. Outside the formed team, engineers and
debaters sit out without calling the model; the manager always plans.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.llm.agent import SETTING_PARAMS, Decision, LLMSeat, settings_from_params
from agents.llm.client import LLMClient
from agents.llm.server import require_runnable
from agents.llm.tom import check_k, level_names
from agents.teamroom.scripted import LEVEL_FIRST, pm_assignments, pm_instruction, rubric
from agents.teams.alignment import SelfEvaluationError, parse_self_evaluation, self_evaluation_prompt
from sim.events import ErrorEvent
from sim.seats import SeatContext, TeamAssignment
from sim.snapshots import Predictions, SelfEvaluation, SnapshotPayload, ToM, Verdict
from sim.teamroom.world import (
    AFFIRMATIVE,
    IDLE,
    JUDGE,
    DebateRoom,
    DebateState,
    ProgrammingRoom,
    ProgrammingState,
    RoomObservation,
)

# llama.cpp turns string bounds into grammar repetitions and refuses (or crashes on) large ones, so
# free text is bounded like the other LLM agents' (160-240 characters) and code only by max_tokens.
BELIEF_CHARS = 200
EXPLANATION_CHARS = 240
ACTION_CHARS: dict[str, int | None] = {"pm": 240, "engineer": None, "debater": 240}
MODULE = "planning"
ALIGNMENT_MODULE = "alignment"

PM_PROMPT = ("There are engineers in the team. Your current action is {action}. You have the ability of {k} Level "
             "Theory of Mind. You can **recursively** infer the mental states of other agents in the team. Then, you "
             "will provide outline {{x_i}} based on this belief\n## Please explain your thought process for inferring "
             "others' actions '{{y_i}}' and choosing '{{x_i}}' at each level. Remember MUST Respond in the following "
             "JSON format, including each key, and replace every {{...}} with your own words:")
DEBATER_PROMPT = ("You are a member of the debating team. The debate topic is {topic}, and your current action is "
                  "{action}. You have the ability of {k} Level Theory of Mind. You can **recursively** infer the "
                  "mental states of other agents in the team. Then, you will provide outline {{x_i}} based on this "
                  "belief ## Please explain your thought process for inferring others' actions '{{y_i}}' and choosing "
                  "'{{x_i}}' at each level. Remember MUST Respond in the following JSON format, including each key, "
                  "and replace every {{...}} with your own words:")
ENGINEER_PROMPT = ("You are an engineer in the team. Your current action is {action}. You have the ability of {k} "
                   "Level Theory of Mind. You can **recursively** infer the mental states of other agents in the "
                   "team. Then, you will provide your code {{x_i}} based on this belief\n## Please explain your "
                   "thought process for inferring others' actions '{{y_i}}' and choosing '{{x_i}}' at each level. "
                   "Remember MUST Respond in the following JSON format, including each key, and replace every "
                   "{{...}} with your own words:")

#: (belief y_1, belief y_2, action x) hints per role, worded as in Appendices C and D
HINTS = {
    "pm": ("{y_1 inferred actions for engineers}", "{y_2 inferred actions for engineers based on your action x_1}",
           "{x_%d The instruction for engineers. Begin with \"The Engineer should ...\"}"),
    "debater": ("{y_1: inferred actions for teammate debaters, such as the angle of argument}",
                "{y_2: inferred actions for teammate debaters based on your arguments x_1}",
                "{x_%d: your arguments}"),
    "engineer": ("{y_1: inferred actions of the other engineers}",
                 "{y_2: inferred actions of the other engineers based on your code x_1}",
                 "{x_%d: the complete Python code of your functions}"),
}


def template(role: str, k: int) -> str:
    """The Appendix C/D answer template for ``role`` at level ``k``."""
    y1, y2, x = HINTS[role]
    if k == 0:
        data: dict[str, Any] = {"ToM_level0": {"belief": "no belief", "action": x % 0}}
    else:
        data = {"ToM_level1": {"belief": y1, "explanation": "{Concise explanation of inferring actions y_1 and "
                                                            "choosing x_1 based on this belief}", "action": x % 1}}
        if k == 2:
            data["ToM_level2"] = {"belief": y2, "explanation": "{Concise explanation of inferring actions y_2 and "
                                                               "choosing x_2 based on this belief}", "action": x % 2}
    return json.dumps(data, indent=2)


def level_schema(role: str, k: int) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "string", "minLength": 1}
    if ACTION_CHARS[role] is not None:
        action["maxLength"] = ACTION_CHARS[role]
    if k == 0:
        levels = {"ToM_level0": {"type": "object", "properties": {"belief": {"type": "string", "enum": ["no belief"]},
                                                                  "action": action},
                                 "required": ["belief", "action"], "additionalProperties": False}}
    else:
        level = {"type": "object", "properties": {"belief": {"type": "string", "maxLength": BELIEF_CHARS},
                                                  "explanation": {"type": "string", "maxLength": EXPLANATION_CHARS},
                                                  "action": action},
                 "required": ["belief", "explanation", "action"], "additionalProperties": False}
        levels = {name: level for name in level_names(k)}
    return {"type": "object", "properties": levels, "required": list(levels), "additionalProperties": False}


def alignment_schema(names: Sequence[str]) -> dict[str, Any]:
    entry = {"type": "object", "properties": {"score": {"type": "number", "minimum": -1, "maximum": 1},
                                              "explanation": {"type": "string", "maxLength": 80},
                                              "justification": {"type": "string", "maxLength": 200}},
             "required": ["score", "explanation", "justification"], "additionalProperties": False}
    return {"type": "object", "properties": {n: entry for n in names}, "required": list(names),
            "additionalProperties": False}


#: the short prompts' belief: a teammate's name, "will", then words (llama.cpp makes a grammar of it)
BELIEF_PATTERN = "^({names}) will [a-zA-Z0-9_ ,.()'-]{{3,80}}$"

#: prompt styles: the appendices' prompts with their placeholder templates, or a short prompt with a
#: filled example answer (about another task) that a small model can follow; ``auto``: short for
#: the embedded model, the appendices' otherwise
PROMPTS = ("auto", "paper", "short")

#: per role, a filled example (belief, explanation, action) about another task, for the short prompts;
#: its names are nobody's in the room, so a belief constrained to name a teammate cannot copy it
EXAMPLES = {
    "pm": ("dev2 will write parse_date and dev3 will write format_date",
           "each engineer gets the function closest to the last one it got right",
           "The Engineer should handle empty input first, then follow the examples exactly."),
    "debater": ("pat will argue that uniforms cost families less",
                "I take a different angle so that our side covers more ground",
                "Uniforms let pupils focus on learning instead of on clothes."),
    "engineer": ("dev2 will write is_even",
                 "I write my own function and leave is_even to dev2",
                 "def add(a, b):\n    return a + b"),
}


def example_answer(role: str, k: int) -> dict[str, Any]:
    """The short prompts' filled example answer for ``role`` at level ``k``."""
    belief, explanation, action = EXAMPLES[role]
    if k == 0:
        return {"ToM_level0": {"belief": "no belief", "action": action}}
    return {name: {"belief": belief, "explanation": explanation, "action": action} for name in level_names(k)}


def copied_template(answer: dict[str, Any]) -> str | None:
    """The problem with an answer that repeats the template's placeholders or the short prompts'
    example answer word for word (small models do), or None."""
    examples = {text for texts in EXAMPLES.values() for text in texts}
    for level, block in answer.items():
        if not level.startswith("ToM_level") or not isinstance(block, dict):
            continue
        for key in ("belief", "explanation", "action"):
            text = str(block.get(key, "")).strip()
            if text.startswith(("{x_", "{y_", "{Concise")):
                return (f"{level}.{key} repeats the template's placeholder {short(text, 40)!r}; replace it with "
                        f"your own words")
            if text in examples:
                return (f"{level}.{key} repeats the example answer {short(text, 40)!r}; it was about another task: "
                        f"answer about this one in your own words")
    return None


def strip_fences(code: str) -> str:
    """Code without a surrounding markdown fence (models add them)."""
    text = code.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        if text.rstrip().endswith("```"):
            text = text.rstrip()[:-3]
    return text.strip("\n")


def short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class RoomDecision(Decision):
    snapshots: list[tuple[str, SnapshotPayload]] = field(default_factory=list)


class LLMRoomAgent(LLMSeat):
    """An LLM mind for any seat of the team room (see the module docstring)."""

    kind = "room-llm"

    def __init__(self, k: int = 1, asynchronous: bool = False, *, client: LLMClient | None = None,
                 config: str | None = None, prompt: str = "auto", **settings: Any) -> None:
        unknown = sorted(set(settings) - set(SETTING_PARAMS))
        if unknown:
            raise TypeError(f"unknown parameter(s) {', '.join(unknown)}; room-llm takes k, asynchronous, config, "
                            f"prompt and {', '.join(SETTING_PARAMS)}")
        if prompt not in PROMPTS:
            raise ValueError(f"prompt must be one of {', '.join(PROMPTS)}, got {prompt!r}")
        self.prompt = prompt
        self.k = check_k(k)
        if client is None:
            client = LLMClient(settings_from_params(settings, config))
        super().__init__(client=client, asynchronous=asynchronous)

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, (ProgrammingRoom, DebateRoom)):
            raise TypeError(f"room-llm plays the team room, not {ctx.world.family}")
        self.world = ctx.world
        self.me = ctx.agent_id
        role = self.world.role_of(self.me)
        self.role = role if role in ("pm", "engineer", JUDGE) else "debater"
        self.team: frozenset[str] | None = None
        #: the belief of the last decision and the tick it was formed at (for Appendix A)
        self.belief: str | None = None
        self.belief_tick = -1

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "k": self.k, "asynchronous": self.asynchronous, "prompt": self.prompt,
                "llm": self.client.describe()}

    @property
    def short_prompts(self) -> bool:
        """Whether the short prompts with a filled example are used (``prompt``; auto: the embedded model)."""
        if self.prompt == "auto":
            return bool(self.client.settings.uses_embedded)
        return self.prompt == "short"

    def receive_team(self, assignment: TeamAssignment) -> None:
        self.team = frozenset(a for members in assignment.teams.values() for a in members)

    def in_team(self, agent: str) -> bool:
        return self.team is None or agent in self.team

    def _finish(self, decision: Decision) -> Any:
        if isinstance(decision, RoomDecision):
            self._snapshots.extend(decision.snapshots)
        return super()._finish(decision)

    # ------------------------------------------------------------ deciding

    def decide(self, observation: RoomObservation, legal_actions: Sequence[Any]) -> Decision:
        state = observation.state
        tick = state.t
        decision = RoomDecision(action=dict(IDLE))
        if self.role == JUDGE:
            return self._judge(state, decision)
        if self.role == "engineer" and not self.in_team(self.me):
            return decision
        if self.role == "debater":
            side_members = self.world.sides[self.world.side_of(self.me)]
            if self.team is not None and any(x in self.team for x in side_members) and self.me not in self.team:
                return decision
        if self.role == "engineer" and not self._my_subtasks(state):
            return decision
        self._self_evaluate(state, decision)
        messages, schema = self._messages(observation)
        outcome = self.client.ask_json(messages, schema, agent=self.me, module=MODULE, tick=tick,
                                       schema_name=f"{self.role}_tom_level{self.k}", seed=self.ctx.seed + tick,
                                       check=copied_template)
        decision.events.extend(outcome.events)
        levels = outcome.value
        top = levels[level_names(self.k)[-1]] if levels is not None else None
        source = "model" if top is not None else "fallback"
        if top is not None:
            decision.action = self._action_from(state, levels, top["action"])
            if self.k >= 1:
                self.belief, self.belief_tick = top["belief"], tick
        else:
            decision.action = self._fallback(state)
            did = "kept the scripted manager's assignment" if self.role == "pm" else "sat out"
            decision.events.append(ErrorEvent(tick=tick, source=self.me, kind="llm_fallback",
                                              message=f"the model gave no usable answer ({outcome.failure}); {did}"))
        decision.snapshots.append(("tom", ToM(k=self.k, role=self.role, levels=levels,
                                              level_names=level_names(self.k), source=source,
                                              calls=outcome.attempts)))
        decision.snapshots.append(("predictions", Predictions(about={}, level=self.k, key_order=LEVEL_FIRST)))
        return decision

    def _my_subtasks(self, state: ProgrammingState) -> list[str]:
        from agents.teamroom.scripted import passing
        return [s for s, e in state.assignments if e == self.me and not passing(state, s)]

    def _action_from(self, state: Any, levels: dict[str, Any], text: str) -> dict[str, Any]:
        if self.role == "pm":
            assignments = dict(levels.get("assignments") or {})
            return {"type": "plan", "assignments": assignments, "instruction": text.strip()}
        if self.role == "engineer":
            return {"type": "submit", "subtasks": self._my_subtasks(state), "code": strip_fences(text) or "pass"}
        return {"type": "speak", "text": text.strip()}

    def _fallback(self, state: Any) -> dict[str, Any]:
        if self.role == "pm":
            team = [e for e in self.world.engineers if self.in_team(e)]
            assignments = pm_assignments(self.world, state, 1, team)
            return {"type": "plan", "assignments": assignments, "instruction": pm_instruction(self.world, assignments)}
        return dict(IDLE)

    # ------------------------------------------------------------ prompts

    def _constrain_beliefs(self, schema: dict[str, Any], teammates: Sequence[str]) -> None:
        """Short prompts: each level's belief must begin with a teammate's name and "will" (the
        schema's pattern, a grammar for llama.cpp), so the example's belief cannot be copied."""
        if self.k == 0 or not teammates:
            return
        pattern = BELIEF_PATTERN.format(names="|".join(teammates))
        for name in level_names(self.k):
            level = schema["properties"][name]
            level["properties"] = {**level["properties"], "belief": {"type": "string", "pattern": pattern}}

    def _short_request(self, role: str, what: str, extra: dict[str, Any] | None = None) -> str:
        """The short prompts' request: one sentence per level and a filled example answer."""
        example = example_answer(role, self.k)
        if extra:
            example.update(extra)
        levels = ("Level 0: just act." if self.k == 0 else
                  "ToM_level1: belief = what your teammates will do next; explanation = why; action = " + what
                  + (". ToM_level2: the same, believing your teammates expect your level-1 action." if self.k == 2
                     else "."))
        return (f"Answer with JSON only. {levels} Write about THIS task, not the example. "
                f"Example answer (about another task):\n{json.dumps(example)}")

    def _messages(self, observation: RoomObservation) -> tuple[list[dict[str, str]], dict[str, Any]]:
        state = observation.state
        schema = level_schema(self.role, self.k)
        brief = self.short_prompts
        inbox = "\n".join(f"- {sender}: {short(text, 400)}" for sender, text in observation.inbox)
        if self.role == "debater":
            side = self.world.side_of(self.me)
            mates = [x for x in self.world.sides[side] if x != self.me]
            system = (f"You are {self.me}, a debater on the {side} side ({'for' if side == AFFIRMATIVE else 'against'} "
                      f"the motion). Your teammates are {', '.join(mates)}. Each round the affirmative side speaks, "
                      f"then the negative side; a judge scores both sides at the end.")
            lines = [f"{s.side} (round {s.round + 1}) {a}: {short(t, 300)}" for s in state.speeches for a, t in s.parts]
            if brief:
                self._constrain_beliefs(schema, mates)
            user = [f"Motion: {self.world.motion}", f"Round {state.round + 1} of {self.world.rounds}.",
                    "Transcript so far:\n" + ("\n".join(lines[-(6 if brief else 12):]) if lines else "(nothing said yet)"),
                    self._short_request("debater", f"one new argument {'for' if side == AFFIRMATIVE else 'against'} "
                                                   f"the motion, one sentence") if brief else
                    DEBATER_PROMPT.format(topic=self.world.motion, action=f"to speak for the {side} side",
                                          k=self.k) + "\n" + template("debater", self.k)]
            return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(user)}], schema
        world: ProgrammingRoom = self.world
        task = f"Task: {world.task['title']}. {world.task['description']}"
        if self.role == "pm":
            team = [e for e in world.engineers if self.in_team(e)] or list(world.engineers)
            schema["properties"]["assignments"] = {
                "type": "object", "properties": {s: {"type": "string", "enum": team} for s in world.subtask_names},
                "required": list(world.subtask_names), "additionalProperties": False}
            schema["required"] = [*schema["required"], "assignments"]
            system = (f"You are {self.me}, the project manager of a software team. The engineers are "
                      f"{', '.join(world.engineers)}; the team formed for this round is {', '.join(team)}. Each round "
                      f"you assign every function to an engineer of the team and write one instruction; the "
                      f"engineers then submit code, which is checked by hidden tests.")
            user = [task, f"Round {state.round + 1} of {world.rounds}. Functions:\n" + self._status(state)]
            if inbox:
                user.append("Messages from the engineers:\n" + inbox)
            if brief:
                self._constrain_beliefs(schema, team)
                user.append(self._short_request("pm", "one instruction for the engineers, beginning with 'The "
                                                      "Engineer should'",
                                                {"assignments": {s: team[i % len(team)]
                                                                 for i, s in enumerate(world.subtask_names)}}))
            else:
                template_text = template("pm", self.k)[:-2] + ',\n  "assignments": {' + ", ".join(
                    f'"{s}": "<engineer>"' for s in world.subtask_names) + "}\n}"
                user.append(PM_PROMPT.format(action=f"to plan round {state.round + 1}", k=self.k) + "\n"
                            + template_text)
            return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(user)}], schema
        mine = self._my_subtasks(state)
        others = [e for e in world.engineers if e != self.me]
        system = (f"You are {self.me}, a Python engineer in a team with {', '.join(others)} and the project manager "
                  f"{world.pm}. Write plain Python functions (standard library only, no input(), no printing).")
        parts = [task, f"Round {state.round + 1} of {world.rounds}. Your functions:"]
        for s in mine:
            spec = world.by_name[s]
            examples = "; ".join(f"{s}({', '.join(json.dumps(a) for a in ex['args'])}) == {json.dumps(ex['expected'])}"
                                 for ex in spec.get("examples", []) if ex.get("raises") is None)
            last = next((sub.report(s) for sub in reversed(state.submissions) if sub.engineer == self.me
                         and sub.report(s) is not None), None)
            parts.append(f"- {spec['signature']}: {spec['description']}" + (f" Example: {examples}." if examples else "")
                         + ("" if last is None else f" Your last attempt passed {last.passed}/{last.total} hidden "
                                                    f"tests ({last.problem or 'all passed'})."))
        if inbox:
            parts.append("Messages:\n" + inbox)
        if brief:
            self._constrain_beliefs(schema, others)
            parts.append(self._short_request("engineer", "the complete Python code of " + ", ".join(mine)))
        else:
            parts.append(ENGINEER_PROMPT.format(action="to write " + ", ".join(mine), k=self.k) + "\n"
                         + template("engineer", self.k))
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}], schema

    def _status(self, state: ProgrammingState) -> str:
        lines = []
        for s in self.world.subtask_names:
            spec = self.world.by_name[s]
            r = state.counted_report(s)
            result = "not submitted yet" if r is None else f"{r.passed}/{r.total} hidden tests pass" + (
                f" ({r.problem})" if r.problem else "")
            lines.append(f"- {spec['signature']}: {short(spec['description'], 200)} Assigned to "
                         f"{state.assignment()[s]}; {result}.")
        return "\n".join(lines)

    # ------------------------------------------------------------ Appendix A

    def _recent_actions(self, state: Any) -> dict[str, str]:
        """What the agents this one formed its belief about did since (name -> words)."""
        if isinstance(state, ProgrammingState):
            last = state.round - 1  # the last finished round, from both the plan and the code phase
            about = self.world.engineers if self.role == "pm" else [e for e in self.world.engineers if e != self.me]
            out = {}
            for e in about:
                subs = [s for s in state.submissions if s.round == last and s.engineer == e]
                if subs:
                    sub = subs[-1]
                    results = ", ".join(f"{r.function} {r.passed}/{r.total} tests" for r in sub.reports)
                    out[e] = f"Submitted {', '.join(sub.subtasks)} ({results}): {short(sub.code, 240)}"
                elif (last, e) in state.idle:
                    out[e] = "Sat the round out (submitted nothing)."
            return out
        side = self.world.side_of(self.me)
        mates = [x for x in self.world.sides[side] if x != self.me]
        speeches = [s for s in state.speeches if s.side == side]
        if not speeches:
            return {}
        said = dict(speeches[-1].parts)
        return {m: (f"Argued: {short(said[m], 300)}" if m in said else "Sat the speech out.") for m in mates}

    def _self_evaluate(self, state: Any, decision: RoomDecision) -> None:
        if self.k == 0 or self.belief is None:
            return
        actions = self._recent_actions(state)
        if not actions:
            return
        tick = state.t
        prompt = self_evaluation_prompt(actions, self.belief)
        outcome = self.client.ask_json([{"role": "user", "content": prompt}], alignment_schema(list(actions)),
                                       agent=self.me, module=ALIGNMENT_MODULE, tick=tick, schema_name="alignment",
                                       seed=self.ctx.seed + tick + 7919)
        decision.events.extend(outcome.events)
        if outcome.value is None:
            decision.events.append(ErrorEvent(tick=tick, source=self.me, kind="llm_fallback",
                                              message=f"no alignment self-evaluation this time ({outcome.failure})"))
            return
        try:
            scores = parse_self_evaluation(outcome.value, teammates=list(actions))
        except SelfEvaluationError as exc:
            decision.events.append(ErrorEvent(tick=tick, source=self.me, kind="llm_fallback",
                                              message=f"unreadable alignment self-evaluation: {exc}"))
            return
        decision.snapshots.append(("alignment_self_evaluation", SelfEvaluation(
            scores=scores, extra={"belief": self.belief, "actions": actions})))

    # ------------------------------------------------------------ the judge

    def _judge(self, state: DebateState, decision: RoomDecision) -> RoomDecision:
        lines = [f"{s.side} (round {s.round + 1}) {a}: {short(t, 300)}" for s in state.speeches for a, t in s.parts]
        sat = [f"{s.side} round {s.round + 1}: nobody spoke" for s in state.speeches if not s.parts]
        prompt = (f"You judge a debate on the motion: {self.world.motion}\nTranscript:\n"
                  + ("\n".join(lines[-24:]) or "(nobody spoke)") + ("\n" + "\n".join(sat) if sat else "")
                  + "\n\nScore each side from 0 to 10 for the strength, variety and teamwork of its arguments, and "
                    "give a short reason. Respond with JSON: {\"affirmative\": number, \"negative\": number, "
                    "\"reason\": text}")
        schema = {"type": "object", "properties": {"affirmative": {"type": "number", "minimum": 0, "maximum": 10},
                                                   "negative": {"type": "number", "minimum": 0, "maximum": 10},
                                                   "reason": {"type": "string", "maxLength": 200}},
                  "required": ["affirmative", "negative", "reason"], "additionalProperties": False}
        outcome = self.client.ask_json([{"role": "user", "content": prompt}], schema, agent=self.me, module=MODULE,
                                       tick=state.t, schema_name="verdict", seed=self.ctx.seed + state.t)
        decision.events.extend(outcome.events)
        if outcome.value is not None:
            v = outcome.value
            decision.action = {"type": "verdict", "affirmative": float(v["affirmative"]),
                               "negative": float(v["negative"]), "reason": v["reason"].strip()}
            source = "model"
        else:
            scores = rubric(self.world, state)
            decision.action = {"type": "verdict", **scores, "reason": "rubric (the model gave no usable verdict)"}
            decision.events.append(ErrorEvent(tick=state.t, source=self.me, kind="llm_fallback",
                                              message=f"the model gave no usable verdict ({outcome.failure}); "
                                                      f"scored by the rubric"))
            source = "fallback"
        decision.snapshots.append(("verdict", Verdict(source=source, affirmative=decision.action["affirmative"],
                                                      negative=decision.action["negative"],
                                                      reason=decision.action["reason"])))
        return decision


def make_room_llm(k: int = 1, asynchronous: bool = False, config: str | None = None, **settings: Any) -> LLMRoomAgent:
    """Factory for specs such as ``room-llm:k=2,model=llama3.1,base_url=http://127.0.0.1:11434/v1``;
    fails early, with the fix, when no endpoint is configured and the embedded model is missing."""
    client = settings.pop("client", None)
    agent = LLMRoomAgent(k=k, asynchronous=asynchronous, client=client, config=config, **settings)
    if client is None:
        require_runnable(agent.client.settings)
    return agent
