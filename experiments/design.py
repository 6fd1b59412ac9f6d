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
      "cooks": null,                                  cooks on gym-cooking levels (1-4; null: 2), as run --cooks
      "agents": ["boltzmann:temperature=0.3"],        seat specs as for --agents (default: the world's)
      "conditions": [
        {"name": "none"},
        {"name": "protom", "mechanisms": ["protom:phi=0.0,eps=0.1"]},
        {"name": "planners", "agents": ["alice=planner", "bob=boltzmann"], "mechanisms": [
            {"kind": "protom", "params": {"goal_prior": {"gem1": 2.0}}}]},
        {"name": "all-teams", "mechanisms": ["random-teams"], "over_teams": "mean"},   every team the
        {"name": "best-team", "mechanisms": ["random-teams"], "over_teams": "best"}    draw could give
      ],
      "baseline": "none",                             what derived metrics compare with
      "reference": "protom",                          what the tests compare every condition with
      "floor": "none",                                the condition without the mechanism
      "ceiling": "oracle",                            with free information (an oracle); needs a floor
      "share_metrics": ["success", "speedup"],        whose share of the gain the report gives (default: tested)
      "checks": [{"hook": "experiments.protom_dkg:check_category"}],     per-scenario pre-checks
      "groups": {"by": "category", "order": ["not_needed", "useful", "necessary"], "labels": {...},
                 "mix": {"not_needed": 7, "useful": 7, "necessary": 7}, "mix_label": "the paper's 7/7/7"},
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
that type, or with that ``status``, the episode emitted). Hooks are ``module:function`` names
of the hook registry (``hooks()``): functions the experiments package's own modules register with
``@check_hook`` or ``@derive_hook``; a name in a design file is looked up there, never imported. A
check is ``(path, world, spec, **params) -> dict`` of scenario attributes (raise
``ExperimentError`` to stop the experiment); a derived metric is ``(episodes, design, **params)
-> {episode key: value}``. A hook's ``params`` are checked against its signature (names, and
types without conversion) when the design is loaded, before any episode runs.

The file is read by the project's strict reader (``sim.inputs.read_json``: UTF-8, at most 8 MiB,
no duplicate keys, 64 levels, integers of at most 30 digits) and validated without conversion:
``"42"`` is not 42, ``true`` is not 1 (docs/limits.md).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from sim.inputs import plain_validation_error, read_json

NAME = r"^[a-z0-9][a-z0-9_-]*$"
HOOK_NAME = r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$"
#: a spec or pattern string of a design (an agent or mechanism spec, a scenario pattern)
Spec = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
#: every model of a design: unknown fields refused, values never converted ("42" is not 42)
STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)


class ExperimentError(ValueError):
    """A design, scenario or results-file problem that stops the experiment; says where and what."""


class SeedsConfig(BaseModel):
    model_config = STRICT
    count: int = Field(1, ge=1, le=1_000_000, description="episodes per scenario and condition")
    first: int = Field(0, ge=0, le=2**63 - 1, description="seed of the first episode")

    def seeds(self, count: int | None = None) -> list[int]:
        return list(range(self.first, self.first + (self.count if count is None else count)))


class MechanismConfig(BaseModel):
    """A mechanism with parameters a spec string cannot hold (mappings, lists)."""

    model_config = STRICT
    kind: str = Field(min_length=1, max_length=1000)
    params: dict[str, Any] = {}


class ConditionConfig(BaseModel):
    model_config = STRICT
    name: str = Field(pattern=NAME, max_length=64)
    title: str = Field("", max_length=200)
    #: seat specs as on the command line (``planner``, ``alice=planner``); None: the design's
    agents: list[Spec] | None = Field(None, max_length=64)
    #: mechanism specs (``protom:eps=0.2``) or objects with params; ``none`` entries are dropped
    mechanisms: list[Spec | MechanismConfig] = Field([], max_length=64)

    @field_validator("mechanisms", mode="before")
    @classmethod
    def _mechanism_items(cls, value: Any) -> Any:
        if isinstance(value, list):
            for k, item in enumerate(value):
                if not isinstance(item, (str, dict)):
                    raise ValueError(f"item {k}: expected a mechanism spec in quotes (\"protom:eps=0.2\") or an object "
                                     f"{{\"kind\": ..., \"params\": {{...}}}}, got {item!r:.80}")
        return value

    #: a team condition computed by the runner from every team a ``random-teams`` draw could give
    #: (the condition's one team mechanism, ``every=0``): each team plays every seed, and the
    #: condition's value is the mean over the teams (``mean``: the exact expectation of the draw)
    #: or that of the best team (``best``: the team with the best mean over the seeds on
    #: ``best_by``, per scenario). Where there are more than ``team_limit`` teams, that many
    #: distinct teams drawn at random (a fixed seed) stand for them.
    over_teams: Literal["mean", "best"] | None = None
    best_by: str | None = Field(None, pattern=r"^[a-z][a-z0-9_]*$", max_length=64)
    team_limit: int = Field(1000, ge=1, le=100_000)

    def mechanism_specs(self) -> list[tuple[str, dict[str, Any]]]:
        return [(m, {}) if isinstance(m, str) else (m.kind, dict(m.params)) for m in self.mechanisms]

    def team_mechanism(self) -> int | None:
        """The index of the condition's ``random-teams`` mechanism when it is the only one of that
        kind, else None."""
        kinds = [spec.partition(":")[0].strip() for spec, _ in self.mechanism_specs()]
        return kinds.index("random-teams") if kinds.count("random-teams") == 1 else None


class HookConfig(BaseModel):
    model_config = STRICT
    hook: str = Field(pattern=HOOK_NAME, max_length=200, description="module:function of the hook registry")
    params: dict[str, Any] = {}


class MetricConfig(BaseModel):
    model_config = STRICT
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)
    label: str = Field("", max_length=200)
    source: str | None = Field(None, pattern=r"^(outcome|metrics|events)\.[\w.-]+$", max_length=200)
    derive: str | None = Field(None, pattern=HOOK_NAME, max_length=200)
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
    model_config = STRICT
    by: str = Field(min_length=1, max_length=200,
                    description="a scenario attribute (from a check hook or the scenario file)")
    order: list[str] = []
    labels: dict[str, str] = {}
    #: weights of another mix of groups (e.g. a paper's scenario counts per group): the report gives
    #: the pooled means and differences also at that mix, beside the design's own
    mix: dict[str, Annotated[float, Field(gt=0, le=1e6)]] = Field({}, max_length=100)
    mix_label: str = Field("", max_length=200, description="what the mix is, e.g. the paper's 7/7/7")

    @model_validator(mode="after")
    def _mix(self) -> "GroupsConfig":
        if self.mix and self.order and set(self.mix) != set(self.order):
            raise ValueError(f"groups.mix: weigh exactly the groups of 'order' ({', '.join(self.order)}), "
                             f"got {', '.join(self.mix)}")
        return self


class TestsConfig(BaseModel):
    model_config = STRICT
    #: pairs to compare; default: the reference against every other condition
    compare: list[Annotated[list[str], Field(min_length=2, max_length=2)]] | None = None
    alpha: float = Field(0.05, gt=0, lt=1)
    bootstrap: int = Field(2000, ge=100, le=1_000_000, description="bootstrap resamples of scenarios")
    confidence: float = Field(0.95, gt=0.5, lt=1)
    bootstrap_seed: int = Field(0, ge=0, le=2**63 - 1)


class Design(BaseModel):
    model_config = STRICT
    experiment: str = Field(pattern=NAME, max_length=64)
    title: str = Field("", max_length=200)
    description: str = Field("", max_length=4000)
    scenarios: list[Spec] = Field(min_length=1, max_length=1000, description="scenario names or shell-style patterns")
    seeds: SeedsConfig = SeedsConfig()
    max_ticks: int | None = Field(None, ge=1, le=1_000_000)
    rounds: int = Field(1, ge=1, le=1000, description="task rounds per episode: the scenario played again from its start, "
                                             "with the same seats and mechanisms; outcomes are the last round's")
    cooks: int | None = Field(None, ge=1, le=4,  # sim.kitchen.level.MAX_COOKS
                              description="how many cooks play the design's gym-cooking levels (run --cooks; their "
                                          "files give start positions, not cooks); null: the levels' default, 2. "
                                          "A scenario that names its own cooks refuses it")
    agents: list[Spec] = Field([], max_length=64)
    conditions: list[ConditionConfig] = Field(min_length=1, max_length=100)
    baseline: str | None = None
    reference: str | None = None
    #: the condition without the mechanism and, where one can be built, the one with free
    #: information (an oracle): with both the report gives every other condition's share of the
    #: available gain, (method - floor) / (ceiling - floor) (``experiments.stats.share_rows``)
    floor: str | None = None
    ceiling: str | None = None
    #: the metrics whose share is given (default: every tested metric); needs floor and ceiling
    share_metrics: list[str] | None = Field(None, min_length=1, max_length=100)
    checks: list[HookConfig] = Field([], max_length=100)
    groups: GroupsConfig | None = None
    metrics: list[MetricConfig] = Field(min_length=1, max_length=100)
    tests: TestsConfig = TestsConfig()
    #: LLM answers are cached under <out>/llm-cache (or this folder) so re-runs do not pay twice
    llm_cache: bool | str = True

    @field_validator("llm_cache", mode="before")
    @classmethod
    def _cache(cls, value: Any) -> Any:
        if not isinstance(value, (bool, str)) or (isinstance(value, str) and not 0 < len(value.strip()) <= 4096):
            raise ValueError(f"expected true, false or a folder name in quotes, got {value!r:.80}")
        return value

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
        for role in ("baseline", "reference", "floor", "ceiling"):
            value = getattr(self, role)
            if value is not None and value not in names:
                raise ValueError(f"{role} {value!r} is not a condition ({', '.join(names)})")
        if self.ceiling is not None and self.floor is None:
            raise ValueError(f"ceiling {self.ceiling!r} needs a floor too: the share of the gain is "
                             "(method - floor) / (ceiling - floor)")
        if self.floor is not None and self.floor == self.ceiling:
            raise ValueError(f"floor and ceiling are the same condition {self.floor!r}; the ceiling is the "
                             "condition with free information (an oracle), the floor the one without the mechanism")
        metric_names = [m.name for m in self.metrics]
        dup = sorted({n for n in metric_names if metric_names.count(n) > 1})
        if dup:
            raise ValueError(f"metric names must be distinct: {', '.join(dup)}")
        if self.share_metrics is not None:
            if self.ceiling is None:
                raise ValueError("share_metrics needs a floor and a ceiling condition")
            for n in self.share_metrics:
                if n not in metric_names:
                    raise ValueError(f"share_metrics: {n!r} is not a metric ({', '.join(metric_names)})")
        for c in self.conditions:
            if c.over_teams is None:
                if c.best_by is not None:
                    raise ValueError(f"condition {c.name!r}: best_by needs \"over_teams\": \"best\"")
                continue
            if c.team_mechanism() is None:
                raise ValueError(f"condition {c.name!r}: over_teams plays every team of the condition's one "
                                 "'random-teams' mechanism; give it exactly one (e.g. \"random-teams:round_steps=6\")")
            if c.over_teams == "mean" and c.best_by is not None:
                raise ValueError(f"condition {c.name!r}: best_by is for \"over_teams\": \"best\", not \"mean\"")
            if c.over_teams == "best":
                by = self.best_metric(c)
                metric = next((m for m in self.metrics if m.name == by), None)
                if metric is None:
                    raise ValueError(f"condition {c.name!r}: best_by {by!r} is not a metric ({', '.join(metric_names)})")
                if metric.higher_is_better is None:
                    raise ValueError(f"condition {c.name!r}: the best team is chosen on metric {by!r}, which does not "
                                     "say which way is better; give it \"higher_is_better\": true or false")
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

    def shared_metrics(self) -> list[MetricConfig]:
        """The metrics whose share of the available gain the report gives (none without a floor)."""
        if self.ceiling is None:
            return []
        if self.share_metrics is not None:
            return [m for n in self.share_metrics for m in self.metrics if m.name == n]
        return [m for m in self.metrics if m.test]

    def best_metric(self, condition: ConditionConfig) -> str:
        """The metric the best team of an ``over_teams: best`` condition is chosen on: ``best_by``,
        or the first share metric, or the first tested metric."""
        if condition.best_by is not None:
            return condition.best_by
        if self.share_metrics:
            return self.share_metrics[0]
        return next((m.name for m in self.metrics if m.test), self.metrics[0].name)

    def condition(self, name: str) -> ConditionConfig:
        return next(c for c in self.conditions if c.name == name)

    def title_text(self) -> str:
        return self.title or self.experiment


_UNION_MEMBER = re.compile(r"\.(constrained-str|str|MechanismConfig)(?=[.\[]|$)")


def load_design(path: str | Path) -> Design:
    """Read and validate a design; every problem is one ExperimentError naming the file and the
    field. The hooks it names must be in the registry, with parameters their signatures take."""
    path = Path(path)
    data = read_json(path, ExperimentError)
    if isinstance(data, dict) and "facilitators" in data:
        raise ExperimentError(f"{path}: this is the old ProToM-only format ('facilitators', 'agents' as an "
                              "object); write 'conditions' with 'mechanisms' instead (docs/experiments.md)")
    try:
        design = Design.model_validate(data)
    except ValidationError as exc:
        where, message = plain_validation_error(exc, Design)
        where = _UNION_MEMBER.sub("", where)  # which member of "text or object" pydantic tried is no field
        raise ExperimentError(f"{path}: field '{where}': {message}") from None
    check_hooks(design, str(path))
    return design


# ---------------------------------------------------------------------- the hook registry

@dataclass(frozen=True)
class Hook:
    """A function a design may name: a scenario pre-check or a derived metric."""

    name: str  # module:function
    kind: Literal["check", "derive"]
    function: Callable[..., Any]
    #: the keyword parameters a design's ``params`` may set: name -> (annotation, default)
    params: dict[str, tuple[Any, Any]]
    #: optional (design, metric name, params) -> a problem with what the params refer to, or None
    refers: Callable[[Any, str, dict[str, Any]], str | None] | None = None

    def check_params(self, params: dict[str, Any], source: str, field: str) -> None:
        """Refuse a parameter the hook does not take, one it needs but is not given, and values of
        another type (checked strictly, as the design itself); the error names ``source`` and
        ``field`` (``metrics[2].params``)."""
        unknown = [n for n in params if n not in self.params]
        if unknown:
            takes = ", ".join(n + ("" if d is ... else f" (default {d!r})") for n, (_, d) in self.params.items())
            raise ExperimentError(f"{source}: field '{field}': {self.name} has no parameter {unknown[0]!r}; "
                                  "expected " + (f"one of {takes}" if takes else "no parameters"))
        fields: dict[str, Any] = dict(self.params)  # keyword arguments: mypy would match them to __config__ too
        model = create_model("Params", __config__=ConfigDict(strict=True, arbitrary_types_allowed=True), **fields)
        try:
            model.model_validate(params)
        except ValidationError as exc:
            where, message = plain_validation_error(exc, model)
            if message.startswith("missing"):
                message = f"missing; {self.name} needs this parameter"
            raise ExperimentError(f"{source}: field '{field}.{where}': {message}") from None


#: the two kinds of hooks and the positional parameters each is called with
HOOK_CALLS = {"check": ("path", "world", "spec"), "derive": ("episodes", "design")}
#: the modules that register hooks (imported once, by name, when a design is checked)
HOOK_MODULES = ("experiments.cobel", "experiments.protom_dkg", "experiments.protom_kitchen", "experiments.teams")
_HOOKS: dict[str, Hook] = {}
_LOADED = False


def _register(kind: Literal["check", "derive"], function: Callable[..., Any],
              refers: Callable[..., str | None] | None = None) -> Callable[..., Any]:
    name = f"{function.__module__}:{function.__name__}"
    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())
    positional = HOOK_CALLS[kind]
    first = [p.name for p in parameters[:len(positional)]
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    if len(first) != len(positional):
        raise TypeError(f"{kind} hook {name} must take ({', '.join(positional)}, **params) first")
    hints = typing.get_type_hints(function, include_extras=True)
    params: dict[str, tuple[Any, Any]] = {}
    for p in parameters[len(positional):]:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            raise TypeError(f"{kind} hook {name}: parameter {p.name!r} must be a named one (no *args, **kwargs)")
        params[p.name] = (hints.get(p.name, Any), ... if p.default is p.empty else p.default)
    if name in _HOOKS and _HOOKS[name].function is not function:
        raise TypeError(f"hook {name} is registered twice")
    _HOOKS[name] = Hook(name, kind, function, params, refers)
    return function


def check_hook(function: Callable[..., Any]) -> Callable[..., Any]:
    """Register a scenario pre-check ``(path, world, spec, **params) -> dict``."""
    return _register("check", function)


def derive_hook(refers: Callable[..., str | None] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a derived metric ``(episodes, design, **params) -> {episode key: value}``;
    ``refers(design, metric, params)`` checks what its parameters name (other metrics...)."""
    return lambda function: _register("derive", function, refers)


def hooks() -> dict[str, Hook]:
    """Every registered hook by its ``module:function`` name."""
    global _LOADED
    if not _LOADED:
        for module in HOOK_MODULES:
            importlib.import_module(module)
        _LOADED = True
    return dict(_HOOKS)


def resolve_hook(name: str, kind: Literal["check", "derive"] | None = None) -> Hook:
    """The registered hook of that name (and kind); a clear error naming the known ones."""
    known = hooks()
    hook = known.get(name)
    if hook is None or (kind is not None and hook.kind != kind):
        what = {"check": "pre-check", "derive": "derived-metric"}.get(kind or "", "")
        names = sorted(n for n, h in known.items() if kind is None or h.kind == kind)
        also = f" ({name} is a {hook.kind} hook)" if hook is not None else ""
        raise ExperimentError(f"no {what + ' ' if what else ''}hook {name!r}{also}; hooks are looked up in the "
                              f"registry, never imported; expected one of {', '.join(names) or 'none'}")
    return hook


def check_hooks(design: Design, source: str) -> None:
    """Every hook the design names is registered, of the right kind, with parameters it takes."""
    for i, h in enumerate(design.checks):
        try:
            hook = resolve_hook(h.hook, "check")
        except ExperimentError as exc:
            raise ExperimentError(f"{source}: field 'checks[{i}].hook': {exc}") from None
        hook.check_params(dict(h.params), source, f"checks[{i}].params")
    for i, m in enumerate(design.metrics):
        if m.derive:
            try:
                hook = resolve_hook(m.derive, "derive")
            except ExperimentError as exc:
                raise ExperimentError(f"{source}: field 'metrics[{i}].derive': {exc}") from None
            hook.check_params(dict(m.params), source, f"metrics[{i}].params")
            problem = hook.refers(design, m.name, dict(m.params)) if hook.refers else None
            if problem:
                raise ExperimentError(f"{source}: field 'metrics[{i}].params': {problem}")
        elif m.params:
            raise ExperimentError(f"{source}: field 'metrics[{i}].params': only a derived metric ('derive') "
                                  "takes params")


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
