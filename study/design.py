"""Human studies (seed 003, Section 4.5 and Appendix C): the study file, the drawn order of each
pair's trials, and what a study stores (one folder per study: the pairs' recordings, an episode
index and one answers CSV).

A study file (``scenarios/studies/*.json``) names the scenarios (kitchen, or Doors, Keys and Gems,
levels for two), the facilitator conditions (mechanism specs: ``protom``, ``llm``, none), the trials per condition, how each pair's order is
drawn (``random``: the pair's trials shuffled with the study seed and the pair number;
``latin_square``: condition blocks in the row of a balanced Latin square picked by the pair number),
the tutorial episode, the consent and instruction pages, the questionnaire (items and scale) and
the end-of-episode reveal. It is read with the project's strict reader and validated field by field;
a bad file is one line naming the file, the field and what was expected.

Qt-free: the networked host (``ui/net/host.py``) and the tests drive it.
"""

from __future__ import annotations

import csv
import os
import random
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sim.inputs import InputError, read_json, validate_model

STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)
NAME = r"^[a-z0-9][a-z0-9_-]*$"
#: the columns of a study's answers CSV, one row per answered item
ANSWER_COLUMNS = ("study", "pair", "participant", "seat", "condition", "trial", "scenario", "item", "answer",
                  "scale_points")
#: the columns of a study's episode index, one row per played episode (tutorial included)
EPISODE_COLUMNS = ("study", "pair", "trial", "condition", "scenario", "recording", "participants", "success",
                   "length", "ticks", "stopped")
#: where the shipped studies live
STUDIES_DIR = Path(__file__).resolve().parents[1] / "scenarios" / "studies"


class StudyError(InputError):
    """A study file or folder ToM Arena refuses; the message names the file and the field."""


class Page(BaseModel):
    model_config = STRICT
    title: str = Field(max_length=200)
    text: str = Field(max_length=20_000)


class Condition(BaseModel):
    model_config = STRICT
    name: str = Field(pattern=NAME, max_length=64)
    title: str = Field("", max_length=200)
    #: mechanism specs as on the command line (``protom:phi=2.0``, ``llm``); empty: no facilitator
    mechanisms: list[str] = Field([], max_length=8)
    #: the name participants see for the facilitator (the paper showed a codename)
    codename: str = Field("", max_length=64)

    @property
    def facilitated(self) -> bool:
        return any(m.strip() and m.strip() != "none" for m in self.mechanisms)


class Order(BaseModel):
    model_config = STRICT
    draw: Literal["random", "latin_square"]
    seed: int = Field(0, ge=0, le=2**63 - 1)


class Tutorial(BaseModel):
    model_config = STRICT
    scenario: str = Field(max_length=200)
    max_ticks: int | None = Field(None, ge=1, le=100_000)
    mechanisms: list[str] = Field([], max_length=8)
    page: Page


class Item(BaseModel):
    model_config = STRICT
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)
    text: str = Field(max_length=500)


class Scale(BaseModel):
    model_config = STRICT
    points: int = Field(ge=2, le=11)
    low: str = Field(max_length=100)
    high: str = Field(max_length=100)


class Questionnaire(BaseModel):
    model_config = STRICT
    #: after which trials: those with a facilitator (the paper's), or every trial
    after: Literal["facilitated", "every"] = "facilitated"
    title: str = Field("About the assistant", max_length=200)
    scale: Scale
    items: list[Item] = Field(min_length=1, max_length=40)

    @model_validator(mode="after")
    def _distinct(self) -> "Questionnaire":
        ids = [i.id for i in self.items]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"item ids must be distinct; repeated: {', '.join(twice)}")
        return self


class Reveal(BaseModel):
    model_config = STRICT
    other_goal: bool = True
    completion: bool = True
    feedback_history: bool = True


class Study(BaseModel):
    model_config = STRICT
    study: str = Field(pattern=NAME, max_length=64)
    title: str = Field(max_length=200)
    description: str = Field("", max_length=5000)
    scenarios: list[str] = Field(min_length=1, max_length=200)
    conditions: list[Condition] = Field(min_length=1, max_length=16)
    #: the condition speedups are measured against (the paper's: no facilitator)
    baseline: str = Field(pattern=NAME, max_length=64)
    trials_per_condition: int = Field(ge=1, le=50)
    order: Order
    #: the longest trial in steps (None: the level's own t_max)
    max_ticks: int | None = Field(None, ge=1, le=100_000)
    consent: Page
    instructions: list[Page] = Field([], max_length=20)
    tutorial: Tutorial | None = None
    questionnaire: Questionnaire
    reveal: Reveal = Reveal()

    @model_validator(mode="after")
    def _consistent(self) -> "Study":
        names = [c.name for c in self.conditions]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"condition names must be distinct; repeated: {', '.join(twice)}")
        if self.baseline not in names:
            raise ValueError(f"baseline {self.baseline!r} is not a condition; expected one of {', '.join(names)}")
        return self

    @property
    def trials(self) -> int:
        return len(self.conditions) * self.trials_per_condition

    def condition(self, name: str) -> Condition:
        return next(c for c in self.conditions if c.name == name)

    def asks_after(self, condition: str) -> bool:
        return self.questionnaire.after == "every" or self.condition(condition).facilitated


def load_study(path: str | Path) -> Study:
    """A study file read strictly and checked: its scenarios load as two-player levels of one game, its
    mechanism specs make mechanisms. Raises StudyError with one line."""
    data = read_json(path, StudyError)
    study: Study = validate_model(Study, data, str(path), StudyError)
    _check_parts(study, str(path))
    return study


def find_study(name: str) -> Path:
    """A study by path, or by name among the shipped ones (``scenarios/studies/NAME.json``)."""
    path = Path(name)
    if path.is_file():
        return path
    shipped = STUDIES_DIR / f"{name}.json"
    if shipped.is_file():
        return shipped
    known = ", ".join(sorted(p.stem for p in STUDIES_DIR.glob("*.json")))
    raise StudyError(f"no study file or shipped study named {name!r:.120}; expected a .json file or one of: {known}")


def _check_parts(study: Study, source: str) -> None:
    from agents.registry import make_mechanism
    from sim.registry import load_scenario

    named = [(f"scenarios[{k}]", s) for k, s in enumerate(study.scenarios)]
    if study.tutorial is not None:
        named.append(("tutorial.scenario", study.tutorial.scenario))
    from study.seat_view import NETWORKED_FAMILIES, check_networked

    family = ""
    for where, name in named:
        try:
            world, _ = load_scenario(name)
        except InputError as exc:
            raise StudyError(f"{source}: field '{where}': {exc}") from None
        if world.family not in NETWORKED_FAMILIES or len(world.agents) != 2:
            raise StudyError(f"{source}: field '{where}': {name!r} is a {world.family} scenario with "
                             f"{len(world.agents)} agents; expected a kitchen or dkg level for two people")
        try:
            check_networked(world)
        except ValueError as exc:
            raise StudyError(f"{source}: field '{where}': {exc}") from None
        if family and world.family != family:
            raise StudyError(f"{source}: field '{where}': {name!r} is a {world.family} level; expected a "
                             f"{family} level like the study's first (one study plays one game)")
        if family:
            continue
        family = world.family
        specs = [(f"conditions[{k}].mechanisms", c.mechanisms) for k, c in enumerate(study.conditions)]
        if study.tutorial is not None:
            specs.append(("tutorial.mechanisms", study.tutorial.mechanisms))
        for field_name, mechanisms in specs:
            for spec in mechanisms:
                try:
                    make_mechanism(spec, world.family)
                except (ValueError, LookupError) as exc:
                    hint = ""
                    if _llm_settings(spec) is not None:
                        hint = ("; the study's LLM condition needs a model: bash scripts/run.sh installs the "
                                "embedded one, or name another with OPENAI_BASE_URL and TOM_ARENA_LLM_MODEL, in "
                                "llm.toml or as llm:base_url=...,model=... (docs/llm.md)")
                    raise StudyError(f"{source}: field '{field_name}': {exc}{hint}") from None


def _llm_settings(spec: str) -> Any:
    """The settings an ``llm`` mechanism spec resolves to (spec parameters, the config file, the
    environment), or None for another spec or settings that do not resolve."""
    from agents.llm.agent import SETTING_PARAMS, settings_from_params
    from agents.registry import parse_agent_spec

    try:
        kind, params = parse_agent_spec(spec)
        if kind != "llm":
            return None
        return settings_from_params({k: params[k] for k in SETTING_PARAMS if k in params}, params.get("config"))
    except (ValueError, LookupError, InputError):
        return None


def start_embedded_model(study: Study, say: Any) -> bool:
    """Start the embedded model in the background when a condition's assistant uses it, so that the
    first trial with it does not wait for the server to start (its first answer still takes what
    it takes); ``say`` gets one line for the log (a failure too). True when it was started."""
    import threading

    from agents.llm.server import embedded_missing, shared_pool

    embedded = [settings for c in study.conditions for spec in c.mechanisms
                if (settings := _llm_settings(spec)) is not None and settings.uses_embedded]
    if not embedded or (embedded_missing() and not embedded[0].embedded.model_path):
        return False

    def start() -> None:
        try:
            shared_pool(embedded[0].embedded).start()
            say("the embedded model is ready")
        except Exception as exc:  # noqa: BLE001 - reported; the trial will say it again when it asks
            say(f"the embedded model did not start: {exc}")

    say("starting the embedded model in the background (the LLM condition's assistant)")
    threading.Thread(target=start, name="tom-arena-study-model", daemon=True).start()
    return True


def model_lines(study: Study) -> list[str]:
    """For every condition whose assistant is a language model: which model answers for it and how
    to choose another (``study host`` and ``study check`` print them when the study loads)."""
    from agents.llm.server import embedded_missing

    lines = []
    for c in study.conditions:
        for spec in c.mechanisms:
            settings = _llm_settings(spec)
            if settings is None:
                continue
            who = f"condition {c.name}" + (f" ({c.codename})" if c.codename else "")
            if settings.uses_embedded:
                where = (f"the embedded model {settings.model_name} (llama.cpp on this computer"
                         + (f", {settings.embedded.model_path}" if settings.embedded.model_path else ", Gemma 3 270M")
                         + ")")
                missing = embedded_missing() if not settings.embedded.model_path else None
                state = " - not installed here: bash scripts/setup.sh llm" if missing else ""
            else:
                where, state = f"{settings.model_name} at {settings.public_dict()['base_url']}", ""
            lines.append(f"{who}: the LLM facilitator answers with {where}{state}. Another model: base_url and "
                         "model in llm.toml, OPENAI_BASE_URL and TOM_ARENA_LLM_MODEL, or llm:base_url=...,model=... "
                         "in the study file (docs/llm.md)")
    return lines


# ---------------------------------------------------------------------- the order of a pair's trials

@dataclass(frozen=True)
class Trial:
    """One trial of a pair: its number (1-based), condition and scenario."""

    number: int
    condition: str
    scenario: str


def balanced_latin_square(n: int) -> list[list[int]]:
    """Rows of a balanced Latin square of ``n`` conditions (Williams design: for even ``n`` each
    condition follows every other once; for odd ``n`` the mirrored rows are added)."""
    first = [0]
    lo, hi = 1, n - 1
    for k in range(1, n):
        if k % 2:
            first.append(lo)
            lo += 1
        else:
            first.append(hi)
            hi -= 1
    rows = [[(x + r) % n for x in first] for r in range(n)]
    if n % 2:
        rows += [list(reversed(row)) for row in rows]
    return rows


def draw_trials(study: Study, pair: int) -> list[Trial]:
    """Pair ``pair``'s trials (pairs count from 1) in the drawn order. Conditions: ``random``
    shuffles all the pair's trials; ``latin_square`` plays condition blocks in the order of row
    ``(pair - 1) mod rows`` of a balanced Latin square. Scenarios: shuffled per pair and handed
    to the trials in turn (cycled when there are fewer scenarios than trials), so that every
    scenario meets every condition across pairs. Both draws use ``Random(order.seed, pair)``."""
    rng = random.Random(f"{study.order.seed}:{pair}")
    names = [c.name for c in study.conditions]
    if study.order.draw == "random":
        conditions = [n for n in names for _ in range(study.trials_per_condition)]
        rng.shuffle(conditions)
    else:
        rows = balanced_latin_square(len(names))
        row = rows[(pair - 1) % len(rows)]
        conditions = [names[k] for k in row for _ in range(study.trials_per_condition)]
    scenarios = list(study.scenarios)
    rng.shuffle(scenarios)
    return [Trial(k + 1, c, scenarios[k % len(scenarios)]) for k, c in enumerate(conditions)]


def participant_id() -> str:
    """An anonymous participant id (random; no name, address or time in it)."""
    return "P-" + secrets.token_hex(4)


# ---------------------------------------------------------------------- what a study stores

def next_pair(folder: Path) -> int:
    """The number of the next pair in a study folder (pairs already there keep theirs)."""
    numbers = [int(p.name.removeprefix("pair-")) for p in (folder / "recordings").glob("pair-*")
               if p.name.removeprefix("pair-").isdigit()] if (folder / "recordings").is_dir() else []
    return max(numbers, default=0) + 1


class AppendCSV:
    """A CSV a study appends to, row by row, flushed to disk after every row (a crash loses
    nothing written); the header goes in when the file is new."""

    def __init__(self, path: Path, columns: tuple[str, ...]) -> None:
        self.path, self.columns = Path(path), columns
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size == 0
        self._fh = open(self.path, "a", newline="", encoding="utf-8")
        self._writer = csv.DictWriter(self._fh, fieldnames=list(columns))
        if new:
            self._writer.writeheader()
            self._sync()

    def add(self, row: dict[str, Any]) -> None:
        self._writer.writerow({c: row.get(c, "") for c in self.columns})
        self._sync()

    def _sync(self) -> None:
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


def read_csv(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of a study CSV; StudyError naming the file when its header is not ``columns``."""
    from sim.inputs import read_text

    text = read_text(path, StudyError, max_bytes=64 * 1024 * 1024, kind="CSV file")
    rows = list(csv.DictReader(text.splitlines()))
    header = next(csv.reader(text.splitlines()[:1]), [])
    if tuple(header) != columns:
        raise StudyError(f"{path}: the header is {','.join(header)!r}; expected {','.join(columns)}")
    return rows


# ---------------------------------------------------------------------- the reveal

#: the paper's words for the final status of a feedback (Appendix C)
STATUS_WORDS = {"completed": "Completed", "ignored": "Ignored", "not_executable": "Not Executable",
                "accepted": "Accepted, not finished", "sent": "Not answered"}


def reveal(events: list[Any], outcome: dict[str, Any], seat: str, agents: tuple[str, ...],
           goals: dict[str, str] | None = None) -> dict[str, Any]:
    """What ``seat`` is shown when an episode ends: the other's goal, whether the episode was
    completed and every player's outcome (``outcomes``, the same for every seat), and every feedback given (to anyone) with its final status. ``goals``: the
    world's, where its outcome does not name them (Doors, Keys and Gems); "delivered" is a
    kitchen's dish delivered, or a gem held at the end."""
    from sim.events import FeedbackEvent, FeedbackStatusEvent

    goals = dict(outcome.get("goals") or goals or {})
    if "delivered" in outcome:
        delivered = {a: tick is not None for a, tick in dict(outcome["delivered"]).items()}
    else:
        delivered = {a: bool(held) for a, held in dict(outcome.get("holding_goal", {})).items()}
    status: dict[int, str] = {}
    for e in events:
        if isinstance(e, FeedbackStatusEvent):
            status[e.feedback_id] = e.status
    history = [{"id": e.feedback_id, "tick": e.tick, "to": e.target, "text": e.text, "payload": dict(e.feedback),
                "explanation": e.explanation, "status": STATUS_WORDS.get(status.get(e.feedback_id, "sent"),
                                                                          status.get(e.feedback_id, "sent"))}
               for e in events if isinstance(e, FeedbackEvent)]
    others = [a for a in agents if a != seat]
    ticks = dict(outcome.get("delivered") or {})
    return {"seat": seat, "own_goal": goals.get(seat, ""),
            "others": [{"name": a, "goal": goals.get(a, ""), "delivered": delivered.get(a, False)}
                       for a in others],
            # every player's outcome in the level's order (the same list whoever is shown it)
            "outcomes": [{"name": a, "wanted": bool(goals.get(a)), "delivered": delivered.get(a, False),
                          "tick": ticks.get(a)} for a in agents],
            "completed": bool(outcome.get("success")), "ticks": int(outcome.get("ticks", 0) or 0),
            "stopped": bool(outcome.get("stopped")), "feedback": history}
