"""Team-room scenario files: a programming project or a debate.

A programming project (``"kind": "programming"``): a project manager assigns the subtasks
(functions) of a small Python task to the engineers; each round the engineers submit code and
the room runs every subtask's hidden tests on it (``sim/teamroom/sandbox.py``)::

    {
      "world": "teamroom", "kind": "programming", "name": "text-tools", "title": "...",
      "rounds": 3,                                   # cooperation rounds (plan, then code)
      "pm": "pm", "engineers": ["engineer1", "engineer2", "engineer3", "engineer4"],
      "task": {"title": "...", "description": "..."},
      "subtasks": [{
          "name": "word_count",                      # the function the tests call
          "signature": "def word_count(text: str) -> int",
          "description": "...",
          "examples": [{"args": ["a b"], "expected": 2}],              # shown to everyone
          "tests": [{"args": ["a  b c"], "expected": 3}, {"args": [5], "raises": "TypeError"}],  # hidden
          "reference": "def word_count(text): ...",  # what a skilled scripted engineer writes
          "drafts": ["def word_count(text): ..."]   # a scripted engineer's attempts before it
      }],
      "profiles": {"engineer1": {"skills": ["word_count"], "follows": true, "favourite": null}},
      "limits": {"case_seconds": 2, "memory_mb": 256}
    }

``profiles`` describe the engineers that the scripted policy (``room-scripted``) plays: what
they know (``skills``: subtasks they write the reference for at once), and whether they follow
the manager's assignment (``follows``; one that does not works on its ``favourite`` subtask).
LLM engineers ignore them.

A debate (``"kind": "debate"``): three debaters a side speak in turn for ``rounds`` rounds
(affirmative first), then the judge scores both sides::

    {
      "world": "teamroom", "kind": "debate", "name": "...", "motion": "...", "rounds": 3,
      "affirmative": ["aff1", "aff2", "aff3"], "negative": ["neg1", "neg2", "neg3"], "judge": "judge",
      "arguments": {"affirmative": ["...", ...], "negative": ["...", ...]}   # the scripted debaters' bank
    }
"""

from __future__ import annotations

import keyword
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sim.inputs import check_tree, validate_model
from sim.registry import ScenarioError

NAME_RE = r"^[a-z0-9][a-z0-9_.-]*$"
AGENT_RE = re.compile(r"[a-z][a-z0-9_-]{0,31}")
FUNCTION_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
MAX_TEXT = 4000
MAX_CODE = 20_000


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    args: list[Any] = Field(default_factory=list, max_length=16)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    expected: Any = None
    raises: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=64)
    tolerance: float | None = Field(None, ge=0)


class Subtask(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str
    signature: str = Field(min_length=1, max_length=400)
    description: str = Field(min_length=1, max_length=MAX_TEXT)
    examples: list[Case] = Field(default_factory=list, max_length=8)
    tests: list[Case] = Field(min_length=1, max_length=64)
    reference: str = Field(min_length=1, max_length=MAX_CODE)
    drafts: list[str] = Field(default_factory=list, max_length=8)

    @field_validator("name")
    @classmethod
    def _function_name(cls, v: str) -> str:
        if not FUNCTION_RE.fullmatch(v) or keyword.iskeyword(v):
            raise ValueError(f"expected a Python function name, got {v!r}")
        return v


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    title: str = Field(min_length=1, max_length=200)
    description: str = Field(min_length=1, max_length=MAX_TEXT)


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    skills: list[str] = Field(default_factory=list)
    follows: bool = True
    favourite: str | None = None


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    case_seconds: float = Field(2.0, gt=0, le=30)
    memory_mb: int = Field(256, ge=64, le=4096)


class Common(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    world: Literal["teamroom"]
    kind: Literal["programming", "debate"]
    name: str = Field(pattern=NAME_RE, max_length=64)
    title: str = Field("", max_length=200)
    description: str = Field("", max_length=MAX_TEXT)
    category: str | None = Field(None, max_length=64)
    rounds: int = Field(3, ge=1, le=20)


class Programming(Common):
    kind: Literal["programming"]
    pm: str = "pm"
    engineers: list[str] = Field(default_factory=lambda: ["engineer1", "engineer2", "engineer3", "engineer4"],
                                 min_length=1, max_length=8)
    task: Task
    subtasks: list[Subtask] = Field(min_length=1, max_length=8)
    profiles: dict[str, Profile] = Field(default_factory=dict)
    limits: Limits = Field(default_factory=Limits)


class Debate(Common):
    kind: Literal["debate"]
    motion: str = Field(min_length=1, max_length=400)
    affirmative: list[str] = Field(default_factory=lambda: ["aff1", "aff2", "aff3"], min_length=1, max_length=4)
    negative: list[str] = Field(default_factory=lambda: ["neg1", "neg2", "neg3"], min_length=1, max_length=4)
    judge: str = "judge"
    arguments: dict[Literal["affirmative", "negative"], list[str]] = Field(default_factory=dict)


def _fail(source: str, field: str, message: str) -> ScenarioError:
    return ScenarioError(f"{source}: field '{field}': {message}")


def validate_room(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Validate a team-room scenario; return the normalized spec or raise one ScenarioError
    naming the file and the field."""
    check_tree(data, source, ScenarioError)
    kind = data.get("kind")
    rooms: dict[str, type[Common]] = {"programming": Programming, "debate": Debate}
    model = rooms.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise _fail(source, "kind", f"expected 'programming' or 'debate', got {kind!r:.60}")
    room = validate_model(model, data, source, ScenarioError)
    spec = room.model_dump()
    seats = ([room.pm, *room.engineers] if isinstance(room, Programming)
             else [*room.affirmative, *room.negative, room.judge])
    field_of = (["pm"] + [f"engineers[{k}]" for k in range(len(room.engineers))] if isinstance(room, Programming)
                else [f"affirmative[{k}]" for k in range(len(room.affirmative))]
                + [f"negative[{k}]" for k in range(len(room.negative))] + ["judge"])
    for name, where in zip(seats, field_of):
        if not AGENT_RE.fullmatch(name):
            raise _fail(source, where, f"expected a lowercase name (letters, digits, - and _), got {name!r:.40}")
    duplicates = sorted({s for s in seats if seats.count(s) > 1})
    if duplicates:
        raise _fail(source, field_of[seats.index(duplicates[0], seats.index(duplicates[0]) + 1)],
                    f"{duplicates[0]!r} sits twice; expected every seat to have its own name")
    if isinstance(room, Programming):
        names = [s.name for s in room.subtasks]
        for k, name in enumerate(names):
            if names.index(name) != k:
                raise _fail(source, f"subtasks[{k}].name", f"{name!r} is used twice; expected distinct functions")
        for engineer, profile in room.profiles.items():
            if engineer not in room.engineers:
                raise _fail(source, f"profiles.{engineer}", f"not an engineer; expected one of {room.engineers}")
            for k, skill in enumerate(profile.skills):
                if skill not in names:
                    raise _fail(source, f"profiles.{engineer}.skills[{k}]",
                                f"no subtask {skill!r}; expected one of {names}")
            if profile.favourite is not None and profile.favourite not in names:
                raise _fail(source, f"profiles.{engineer}.favourite",
                            f"no subtask {profile.favourite!r}; expected one of {names}")
            if not profile.follows and profile.favourite is None:
                raise _fail(source, f"profiles.{engineer}.favourite",
                            "an engineer that does not follow the assignment needs a favourite subtask")
        spec["profiles"] = {e: spec["profiles"].get(e, {"skills": [], "follows": True, "favourite": None})
                            for e in room.engineers}
    else:
        for side in ("affirmative", "negative"):
            for k, text in enumerate(room.arguments.get(side, [])):
                if not 1 <= len(text) <= 1000:
                    raise _fail(source, f"arguments.{side}[{k}]", "expected an argument of 1 to 1000 characters")
        spec["arguments"] = {side: list(room.arguments.get(side, [])) for side in ("affirmative", "negative")}
    if not spec.get("title"):
        spec["title"] = room.task.title if isinstance(room, Programming) else room.motion
    if spec.get("category") is None:
        spec["category"] = kind
    return spec
