"""An experiment as data: ``scenarios/experiments/<name>.json``.

A design names scenarios (of any world), conditions (seats and mechanisms, written as on the
command line), seeds, metrics and the tests to run on them::

    {
      "experiment": "protom-dkg",
      "title": "...",
      "scenarios": ["protom-*"],                      names or shell patterns; "dkg/protom-*" for one world
      "seeds": {"count": 10, "first": 42},            episode seeds first .. first+count-1
      "max_ticks": null,                              the Session's cap (null: the world's own end)
      "rounds": 1,                                    task rounds per episode (outcome: the last round's)
      "agents": ["boltzmann:temperature=0.3"],        seat specs as for --agents (default: the world's)
      "conditions": [
        {"name": "none"},
        {"name": "protom", "mechanisms": ["protom:phi=0.0,eps=0.1"]},
        {"name": "planners", "agents": ["alice=planner", "bob=boltzmann"], "mechanisms": [
            {"kind": "protom", "params": {"goal_prior": {"gem1": 2.0}}}]}
      ],
      "baseline": "none",                             what derived metrics compare with
      "reference": "protom",                          what the tests compare every condition with
      "checks": [{"hook": "experiments.protom_dkg:check_category"}],     per-scenario pre-checks
      "groups": {"by": "category", "order": ["not_needed", "useful", "necessary"], "labels": {...}},
      "metrics": [
        {"name": "success", "source": "outcome.success", "kind": "binary"},
        {"name": "length", "source": "metrics.ticks", "test": false},
        {"name": "speedup", "derive": "experiments.protom_dkg:speedup", "params": {"of": "length"}},
        {"name": "accepted", "source": "events.feedback_status.accepted", "test": false}
      ],
      "tests": {"bootstrap": 2000, "confidence": 0.95, "alpha": 0.05}
    }

Metric sources: ``outcome.<key>`` (the world's ``outcome()``), ``metrics.<key>``
(``Session.metrics()``), ``events.<type>`` or ``events.<type>.<status>`` (how many events of
that type, or with that ``status``, the episode emitted). Hooks are ``module:function`` names,
imported when the experiment runs: a check is ``(path, world, spec, **params) -> dict`` of
scenario attributes (raise ``ExperimentError`` to stop the experiment); a derived metric is
``(episodes, design, **params) -> {episode key: value}``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

NAME = r"^[a-z0-9][a-z0-9_-]*$"


class ExperimentError(ValueError):
    """A design, scenario or results-file problem that stops the experiment; says where and what."""


class SeedsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    count: int = Field(1, ge=1, le=1_000_000, description="episodes per scenario and condition")
    first: int = Field(0, ge=0, le=2**63 - 1, description="seed of the first episode")

    def seeds(self, count: int | None = None) -> list[int]:
        return list(range(self.first, self.first + (self.count if count is None else count)))


class MechanismConfig(BaseModel):
    """A mechanism with parameters a spec string cannot hold (mappings, lists)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: str = Field(min_length=1)
    params: dict[str, Any] = {}


class ConditionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(pattern=NAME)
    title: str = ""
    #: seat specs as on the command line (``planner``, ``alice=planner``); None: the design's
    agents: list[str] | None = None
    #: mechanism specs (``protom:eps=0.2``) or objects with params; ``none`` entries are dropped
    mechanisms: list[str | MechanismConfig] = []

    def mechanism_specs(self) -> list[tuple[str, dict[str, Any]]]:
        return [(m, {}) if isinstance(m, str) else (m.kind, dict(m.params)) for m in self.mechanisms]


class HookConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    hook: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$", description="module:function")
    params: dict[str, Any] = {}


class MetricConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    label: str = ""
    source: str | None = Field(None, pattern=r"^(outcome|metrics|events)\.[\w.-]+$")
    derive: str | None = Field(None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    params: dict[str, Any] = {}
    #: binary: 0/1 per episode (success), tested with exact sign / McNemar tests; continuous: Wilcoxon
    kind: Literal["binary", "continuous"] = "continuous"
    test: bool = True
    #: what "better" means, for the report's wording only
    higher_is_better: bool | None = None

    @model_validator(mode="after")
    def _one_source(self) -> "MetricConfig":
        if (self.source is None) == (self.derive is None):
            raise ValueError(f"metric {self.name!r}: give exactly one of 'source' (outcome.X, metrics.X, "
                             "events.X) and 'derive' (module:function)")
        return self

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ")


class GroupsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    by: str = Field(min_length=1, description="a scenario attribute (from a check hook or the scenario file)")
    order: list[str] = []
    labels: dict[str, str] = {}


class TestsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    #: pairs to compare; default: the reference against every other condition
    compare: list[tuple[str, str]] | None = None
    alpha: float = Field(0.05, gt=0, lt=1)
    bootstrap: int = Field(2000, ge=100, le=1_000_000, description="bootstrap resamples of scenarios")
    confidence: float = Field(0.95, gt=0.5, lt=1)
    bootstrap_seed: int = Field(0, ge=0)


class Design(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    experiment: str = Field(pattern=NAME)
    title: str = ""
    description: str = ""
    scenarios: list[str] = Field(min_length=1, description="scenario names or shell-style patterns")
    seeds: SeedsConfig = SeedsConfig()
    max_ticks: int | None = Field(None, ge=1)
    rounds: int = Field(1, ge=1, le=1000, description="task rounds per episode: the scenario played again from its start, "
                                             "with the same seats and mechanisms; outcomes are the last round's")
    agents: list[str] = []
    conditions: list[ConditionConfig] = Field(min_length=1)
    baseline: str | None = None
    reference: str | None = None
    checks: list[HookConfig] = []
    groups: GroupsConfig | None = None
    metrics: list[MetricConfig] = Field(min_length=1)
    tests: TestsConfig = TestsConfig()
    #: LLM answers are cached under <out>/llm-cache (or this folder) so re-runs do not pay twice
    llm_cache: bool | str = True

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return {"count": value}
        return value

    @model_validator(mode="after")
    def _names(self) -> "Design":
        names = [c.name for c in self.conditions]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"condition names must be distinct: {', '.join(dup)} more than once")
        for role in ("baseline", "reference"):
            value = getattr(self, role)
            if value is not None and value not in names:
                raise ValueError(f"{role} {value!r} is not a condition ({', '.join(names)})")
        metric_names = [m.name for m in self.metrics]
        dup = sorted({n for n in metric_names if metric_names.count(n) > 1})
        if dup:
            raise ValueError(f"metric names must be distinct: {', '.join(dup)}")
        if self.tests.compare is not None:
            for a, b in self.tests.compare:
                for n in (a, b):
                    if n not in names:
                        raise ValueError(f"tests.compare: {n!r} is not a condition ({', '.join(names)})")
        return self

    def comparisons(self) -> list[tuple[str, str]]:
        if self.tests.compare is not None:
            return [tuple(p) for p in self.tests.compare]  # type: ignore[misc]
        if self.reference is None:
            return []
        return [(self.reference, c.name) for c in self.conditions if c.name != self.reference]

    def condition(self, name: str) -> ConditionConfig:
        return next(c for c in self.conditions if c.name == name)

    def title_text(self) -> str:
        return self.title or self.experiment


def load_design(path: str | Path) -> Design:
    """Read and validate a design; every problem names the file and the field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ExperimentError(f"{path}: cannot read the file ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExperimentError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})") from None
    if isinstance(data, dict) and "facilitators" in data:
        raise ExperimentError(f"{path}: this is the old ProToM-only format ('facilitators', 'agents' as an "
                              "object); write 'conditions' with 'mechanisms' instead (docs/experiments.md)")
    try:
        design = Design.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise ExperimentError(f"{path}: field '{where}': {err['msg'].removeprefix('Value error, ')}") from None
    for where, name in ([(f"checks.{i}.hook", h.hook) for i, h in enumerate(design.checks)]
                        + [(f"metrics.{i}.derive", m.derive) for i, m in enumerate(design.metrics) if m.derive]):
        try:
            resolve_hook(name)
        except ExperimentError as exc:
            raise ExperimentError(f"{path}: field '{where}': {exc}") from None
    return design


def resolve_hook(name: str) -> Callable[..., Any]:
    """``module:function`` -> the function; a clear error when either is missing."""
    module_name, _, attr = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ExperimentError(f"hook {name!r}: cannot import {module_name!r} ({exc})") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ExperimentError(f"hook {name!r}: {module_name} has no function {attr!r}")
    return fn


def fingerprint(data: Any) -> str:
    """A short stable hash of JSON-ready data (canonical key order)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def episode_key(scenario: str, condition: str, seed: int) -> str:
    return f"{scenario}|{condition}|{seed}"


_SPEC_SAFE = re.compile(r"^[\w.:=,/-]+$")


def quote_arg(text: str) -> str:
    """``text`` as one shell word (for the reproduce command)."""
    return text if _SPEC_SAFE.match(text) else "'" + text.replace("'", "'\\''") + "'"
