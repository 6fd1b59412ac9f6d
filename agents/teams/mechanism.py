"""Team formation as a Mechanism of the Session: Algorithm 1 of seed 000 with seed 001's
adaptation round, and the random-formation baseline. World-independent: it reads only the
joint actions of each step and the agents' belief snapshots.

What it reads (``StepView.beliefs[agent][kind]`` after step t, the registered payload types of
``sim.snapshots``; ``AlignmentTracker.update`` also takes the recorded dicts):

- ``"predictions"``: ``{"about": {other: {"trajectory": [a1, a2, ...]}}}`` (or ``{"action": a}``
  for one step), the agent's prediction of the other's next actions from step t + 1 on, as the
  world encodes actions. Each prediction is resolved once the other has taken that many more
  actions (steps where it does not act are skipped) and scored by ``trajectory_alignment``.
  An optional ``"level"`` (the agent's ToM level k) is shown in the team state.
- ``"alignment_self_evaluation"``: ``{"scores": {other: score}}`` or ``{"answer": text}`` (the
  model's answer to the Appendix A prompt), LLM agents' own phi scores, used as they come.

With ``embedding="features"`` (Appendix A's domain feature extractor, on worlds that have one:
``World.action_features``), each action is embedded as phi(s, a) in the state it was taken in and
each prediction as phi of its actions rolled out from the state it was made in (step t's after-
state) with the predicted agent acting alone, unless the entry carries the predictor's own
``"features"`` (one vector per predicted step). A prediction whose both sides embed to zero
(nothing predicted to happen, nothing happened) gets no score (``alignment.alignment_cosine``).

phi(i, j) is the mean of the last ``window`` scores of i about j (unknown until one exists); with
``window="round"``, the mean of the scores of the current cooperation round (seed 000's phi of round
R: i's beliefs about j's actions in round R against j's actions in round R), and for a pair with no
score yet in this round, its mean over the last round that had one.

What it emits after every step (``belief_snapshots``):

- ``"alignment_matrix"``: ``{"agents", "phi" (rows: predictor, None = unknown), "samples",
  "eps", "theta"}``;
- ``"team_state"``: ``{"teams", "idle", "welfare", "stable", "bas", "ftm", "phase",
  "misaligned", "rounds", "lifetimes", "levels", "solver"}``.

and a ``TeamAssignment`` (one team named ``"team"``; the others are idle) with its reason when
the team forms or re-forms, told to every agent (``TeamBroadcast``) so that idle agents know.
``episode_summary()`` gives the final team, BAS, welfare, FTM and lifetimes for experiments.

The monitor (Algorithm 1): the team starts as every agent. At the end of each round
(``round_steps`` world steps; ``round_steps="task"``: each task round of the Session,
``Session(rounds=R)``, so that a round of Algorithm 1 is an interaction round of seed 000) it
takes the share of the team's ordered pairs (i, j) with a known phi whose phi < eps. When that
share exceeds theta for tau consecutive rounds, the team is told nothing yet but enters seed
001's adaptation phase: it keeps working for ``adaptation`` more rounds; if the share still
exceeds theta at the end, Eq. 5 is re-solved over all agents with the current phi (unknown as 0)
and the new team is assigned. If the share recovered, the team is kept. ``counter="literal"`` reads line 11 as printed instead of the share: c, the
misaligned pairs counted at each round's end since the last re-optimization, over |T|.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import PlainValidator

from agents.teams.alignment import (
    EMBEDDINGS,
    SelfEvaluationError,
    feature_alignment,
    parse_self_evaluation,
    trajectory_alignment,
)
from agents.teams.formation import TeamProblem, TeamSolution, default_eta, welfare
from agents.teams.metrics import bas, ftm
from agents.teams.solver import StabilityChecker, solve
from sim.events import ErrorEvent
from sim.rounds import TASK_ROUND
from sim.seats import Intervention, Mechanism, SeatContext, StepView, TeamAssignment
from sim.snapshots import (
    ABSENT,
    AlignmentMatrix,
    Predictions,
    SelfEvaluation,
    Skill,
    SnapshotError,
    SnapshotPayload,
    TeamState,
    as_payload,
)
from sim.world import AgentId, World

PREDICTIONS_KIND = Predictions.kind
SELF_EVALUATION_KIND = SelfEvaluation.kind
SKILL_KIND = Skill.kind
TEAM_NAME = "team"
#: the group of agents outside formation (``candidates``), told in every assignment so they keep working
OUTSIDE_NAME = "others"
#: ``window`` for phi over the current cooperation round
ROUND_WINDOW = "round"
#: ``embedding`` by default: the world's features phi(s, a) where it has an extractor, else ``steps``
AUTO_EMBEDDING = "auto"


def _count_or(word: str, what: str, means: str) -> Callable[[Any], int | str]:
    """A check of a value that is a whole number >= 1 (``what``) or ``word`` (``means``)."""
    def check(value: Any) -> int | str:
        if value == word or (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            return value
        raise ValueError(f"expected a whole number >= 1 ({what}) or '{word}' ({means})")
    return check


_round_steps = _count_or(TASK_ROUND, "world steps per cooperation round", "a round is a task round of the episode")
_window = _count_or(ROUND_WINDOW, "the last scores phi averages", "the scores of the current cooperation round")
#: the annotated types of the two parameters, so that a spec's bad value is refused in one line
RoundSteps = Annotated[int | str, PlainValidator(_round_steps)]
Window = Annotated[int | str, PlainValidator(_window)]


def check_round_steps(round_steps: Any) -> int | str:
    """``round_steps`` as a whole number >= 1 or ``"task"``, or a ValueError saying so."""
    try:
        return _round_steps(round_steps)
    except ValueError as exc:
        raise ValueError(f"round_steps: {exc}, got {round_steps!r}") from None


def check_window(window: Any) -> int | str:
    """``window`` as a whole number >= 1 or ``"round"``, or a ValueError saying so."""
    try:
        return _window(window)
    except ValueError as exc:
        raise ValueError(f"window: {exc}, got {window!r}") from None


@dataclass(frozen=True, slots=True)
class TeamBroadcast(TeamAssignment):
    """A TeamAssignment told to every agent (``everyone``), members and idle alike, so that an
    idle agent learns it is idle (``team_of`` is None) and can stand aside."""

    everyone: tuple[AgentId, ...] = ()

    def recipients(self) -> tuple[AgentId, ...]:
        return tuple(self.everyone) or TeamAssignment.recipients(self)


#: (state, agent, action as the world encodes it) -> (phi(s, a), the state after it when the agent acts alone)
Featurizer = Callable[[Any, AgentId, Any], tuple[Sequence[float], Any]]


def has_featurizer(world: World) -> bool:
    """Whether ``world`` brings a feature extractor phi(s, a) (``action_features``, ``feature_names``)."""
    return callable(getattr(world, "action_features", None)) and bool(getattr(world, "feature_names", None))


def world_featurizer(world: World) -> tuple[Featurizer, int]:
    """The world's feature extractor phi(s, a) (``action_features``, see ``sim/dkg/features.py``)
    taking encoded actions, and its number of features; ValueError naming the world when it
    has none."""
    hook = getattr(world, "action_features", None)
    names = getattr(world, "feature_names", None)
    if not callable(hook) or not names:
        raise ValueError(f"embedding=features needs the world's feature extractor phi(s, a), and "
                         f"{world.family} worlds have none (no action_features/feature_names); use "
                         f"embedding=steps or net, or give the world an extractor")

    def featurize(state: Any, agent: AgentId, action: Any) -> tuple[Sequence[float], Any]:
        return hook(state, agent, world.decode_action(action))

    return featurize, len(tuple(names))


class AlignmentTracker:
    """phi(i, j) from the agents' predictions and what the others then did.

    With ``featurize`` (``embedding="features"``), every action is embedded as phi(s, a) in the
    state it was taken in, every prediction as the features of its actions rolled out from the
    state it was made in with the predicted agent acting alone (or as the ``features`` the
    predictor sent with it), and the two are compared by ``feature_alignment``."""

    def __init__(self, agents: Sequence[AgentId], window: Window = 5, discount: float = 1.0,
                 embedding: str = "steps", action_vectors: Mapping[str, Sequence[float]] | None = None,
                 featurize: Featurizer | None = None, dims: int | None = None) -> None:
        check_window(window)
        if embedding == "features" and (featurize is None or not dims):
            raise ValueError("embedding=features needs a feature extractor (featurize and dims)")
        self.agents = tuple(agents)
        self.index = {a: k for k, a in enumerate(self.agents)}
        self.window = window
        self.embedding, self.discount = embedding, discount
        self.featurize, self.dims = (featurize, dims) if embedding == "features" else (None, None)
        self.score_args = {"discount": discount, "embedding": embedding, "action_vectors": action_vectors}
        self.taken: dict[AgentId, list[Any]] = {a: [] for a in self.agents}
        #: with features: phi(s, a) of every action taken, in order
        self.taken_features: dict[AgentId, list[tuple[float, ...]]] = {a: [] for a in self.agents}
        #: (predictor, about) -> predictions waiting for their actions: (first action index, actions,
        #: or with features their feature vectors)
        self.pending: dict[tuple[AgentId, AgentId], list[tuple[int, list[Any]]]] = {}
        #: predictions resolved without a score: both sides all zeros (see alignment.alignment_cosine)
        self.unscored: int = 0
        #: (predictor, about) -> the scores phi averages: the last ``window``, or the current round's
        self.scores: dict[tuple[AgentId, AgentId], deque[float]] = {}
        #: with ``window="round"``: (predictor, about) -> (mean, count) of the last round that had a score
        self.carried: dict[tuple[AgentId, AgentId], tuple[float, int]] = {}
        #: (predictor, about) -> [sum, count] of every score of the episode (not only the window)
        self.totals: dict[tuple[AgentId, AgentId], list[float]] = {}
        #: the latest self-reported specialization score of each agent (``skill`` snapshots)
        self.skills: dict[AgentId, float] = {}
        self.levels: dict[AgentId, int] = {}
        self.problems: list[str] = []

    def update(self, joint_action: Mapping[AgentId, Any], beliefs: Mapping[str, Mapping[str, Any]],
               before: Any = None, after: Any = None) -> int:
        """Record a step's actions (encoded), resolve what they settle, read the new snapshots;
        returns the number of scores added. ``before``/``after``: the states around the step
        (needed with features: actions are embedded in ``before``, predictions rolled out from
        ``after``)."""
        for agent, action in joint_action.items():
            if agent in self.taken:
                self.taken[agent].append(action)
                if self.featurize is not None:
                    self.taken_features[agent].append(self._features_of(before, agent, action))
        added = 0
        actual_of = self.taken_features if self.featurize is not None else self.taken
        for (owner, about), waiting in self.pending.items():
            if not waiting:
                continue
            ready = [len(actual_of[about]) >= start + len(predicted) for start, predicted in waiting]
            for (start, predicted), due in zip(waiting, ready):
                if not due:
                    continue
                actual = actual_of[about][start:start + len(predicted)]
                if self.featurize is not None:
                    score = feature_alignment(predicted, actual, discount=self.discount)
                else:
                    score = trajectory_alignment(predicted, actual, **self.score_args)
                if score is None:
                    self.unscored += 1  # nothing predicted to happen, nothing happened: no evidence
                    continue
                self._add(owner, about, score)
                added += 1
            if any(ready):
                waiting[:] = [w for w, due in zip(waiting, ready) if not due]
        for owner, kinds in beliefs.items():
            if owner not in self.index:
                continue
            if (predictions := self._typed(owner, Predictions, kinds)) is not None:
                self._read_predictions(owner, predictions, after)
            if (evaluation := self._typed(owner, SelfEvaluation, kinds)) is not None:
                added += self._read_self_evaluation(owner, evaluation)
            if (skill := self._typed(owner, Skill, kinds)) is not None:
                self._read_skill(owner, skill)
        return added

    def _typed(self, owner: AgentId, cls: type[SnapshotPayload], kinds: Mapping[str, Any]) -> Any:
        """``owner``'s snapshot of ``cls.kind`` as ``cls`` (the Session hands typed payloads; a
        caller may hand the recorded dicts); None (and a problem when it does not fit) otherwise."""
        if cls.kind not in kinds:
            return None
        try:
            return as_payload(cls, kinds[cls.kind])
        except SnapshotError as exc:
            self.problems.append(f"{owner}: {cls.kind!r} snapshot: {exc}")
            return None

    def drop_pending(self) -> None:
        """Forget the predictions still waiting for their actions (a task round ended)."""
        for waiting in self.pending.values():
            waiting.clear()

    def close_round(self) -> None:
        """A cooperation round ended: with ``window="round"``, each pair's scores of the round become
        its carried phi and the next round starts without scores (otherwise nothing to do)."""
        if self.window != ROUND_WINDOW:
            return
        for pair, scores in self.scores.items():
            if scores:
                self.carried[pair] = (float(np.mean(scores)), len(scores))
                scores.clear()

    def _add(self, owner: AgentId, about: AgentId, score: float) -> None:
        maxlen = None if self.window == ROUND_WINDOW else self.window
        self.scores.setdefault((owner, about), deque(maxlen=maxlen)).append(float(score))
        total = self.totals.setdefault((owner, about), [0.0, 0])
        total[0] += float(score)
        total[1] += 1

    def _read_skill(self, owner: AgentId, skill: Skill) -> None:
        value = skill.alpha
        if not 0.0 <= value <= 1.0:
            self.problems.append(f"{owner}: 'skill' snapshot needs an 'alpha' in [0, 1], got {value!r}")
            return
        self.skills[owner] = float(value)

    def _features_of(self, state: Any, agent: AgentId, action: Any) -> tuple[float, ...]:
        vector, _ = self.featurize(state, agent, action)
        return tuple(float(x) for x in vector)

    def _imagine(self, state: Any, agent: AgentId, actions: Sequence[Any]) -> list[tuple[float, ...]]:
        """The features of ``agent`` taking ``actions`` from ``state`` alone (the others still)."""
        out = []
        for action in actions:
            vector, state = self.featurize(state, agent, action)
            out.append(tuple(float(x) for x in vector))
        return out

    def _given_features(self, owner: AgentId, other: AgentId, given: Any, steps: int) -> list[tuple[float, ...]] | None:
        """A predictor's own ``features`` for its predicted steps, checked; None (and a problem) if unusable."""
        ok = (isinstance(given, list) and len(given) == steps and all(
            isinstance(v, list) and len(v) == self.dims and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)
            for v in given))
        if not ok:
            self.problems.append(f"{owner}: prediction about {other}: 'features' must be one list of {self.dims} "
                                 f"numbers per predicted step ({steps}), got {given!r}")
            return None
        return [tuple(float(x) for x in v) for v in given]

    def _read_predictions(self, owner: AgentId, predictions: Predictions, state: Any = None) -> None:
        if predictions.level is not ABSENT:
            self.levels[owner] = predictions.level
        for other, entry in predictions.about.items():
            if other not in self.index or other == owner:
                self.problems.append(f"{owner}: prediction about {other!r}, not another agent of this world")
                continue
            if isinstance(entry, Mapping) and isinstance(entry.get("trajectory"), list) and entry["trajectory"]:
                predicted = list(entry["trajectory"])
            elif isinstance(entry, Mapping) and "action" in entry:
                predicted = [entry["action"]]
            else:
                self.problems.append(f"{owner}: prediction about {other} needs a non-empty 'trajectory' "
                                     f"list or an 'action', got {entry!r}")
                continue
            if self.featurize is not None:
                if "features" in entry:
                    predicted = self._given_features(owner, other, entry["features"], len(predicted))
                    if predicted is None:
                        continue
                else:
                    try:
                        predicted = self._imagine(state, other, predicted)
                    except Exception as exc:  # a predicted action the world cannot read
                        self.problems.append(f"{owner}: prediction about {other}: cannot embed the predicted "
                                             f"actions {predicted!r}: {exc}")
                        continue
            self.pending.setdefault((owner, other), []).append((len(self.taken[other]), predicted))

    def _read_self_evaluation(self, owner: AgentId, evaluation: SelfEvaluation) -> int:
        try:
            scores = parse_self_evaluation(evaluation.answer if evaluation.answer is not ABSENT
                                           else evaluation.scores)
        except SelfEvaluationError as exc:
            self.problems.append(f"{owner}: self-evaluation: {exc}")
            return 0
        added = 0
        for other, score in scores.items():
            if other in self.index and other != owner:
                self._add(owner, other, score)
                added += 1
        return added

    def matrix(self) -> np.ndarray:
        """phi with NaN where unknown (and on the diagonal)."""
        n = len(self.agents)
        phi = np.full((n, n), np.nan)
        for (owner, about), (mean, _) in self.carried.items():
            phi[self.index[owner], self.index[about]] = mean
        for (owner, about), scores in self.scores.items():
            if scores:
                phi[self.index[owner], self.index[about]] = float(np.mean(scores))
        return phi

    def episode_matrix(self) -> np.ndarray:
        """phi over every score of the episode (not only the last ``window``), NaN where unknown."""
        n = len(self.agents)
        phi = np.full((n, n), np.nan)
        for (owner, about), (total, count) in self.totals.items():
            if count:
                phi[self.index[owner], self.index[about]] = total / count
        return phi

    def sample_counts(self) -> list[list[int]]:
        """How many scores each entry of ``matrix()`` averages."""
        n = len(self.agents)
        counts = [[0] * n for _ in range(n)]
        for (owner, about), (_, count) in self.carried.items():
            counts[self.index[owner]][self.index[about]] = count
        for (owner, about), scores in self.scores.items():
            if scores:
                counts[self.index[owner]][self.index[about]] = len(scores)
        return counts


def _json_matrix(phi: np.ndarray) -> list[list[float | None]]:
    return [[None if np.isnan(v) else round(float(v), 6) for v in row] for row in phi]


class _TeamMechanismBase(Mechanism):
    """Alignment tracking, team bookkeeping and snapshots shared by the mechanism and its baseline."""

    #: what ``misaligned`` holds: the round's share of misaligned team pairs (``literal``: c / |T|)
    counter = "share"

    def __init__(self, *, eps: float = 0.2, theta: float = 0.3, lam: float = 1.0,
                 alpha: Mapping[str, float] | Literal["self"] | None = None,
                 round_steps: RoundSteps = 1, window: Window = 5,
                 discount: float = 1.0, embedding: str = "auto",
                 action_vectors: Mapping[str, Sequence[float]] | None = None,
                 min_size: int | None = None, max_size: int | str | None = None,
                 candidates: Sequence[AgentId] | str | None = None, warmup: int = 0) -> None:
        if not -1.0 <= eps <= 1.0:
            raise ValueError(f"eps must be in [-1, 1], got {eps}")
        if not 0.0 <= theta <= 1.0:
            raise ValueError(f"theta must be in [0, 1], got {theta}")
        check_round_steps(round_steps)
        check_window(window)
        if embedding not in (*EMBEDDINGS, AUTO_EMBEDDING):
            raise ValueError(f"embedding must be one of {', '.join((AUTO_EMBEDDING, *EMBEDDINGS))}, got {embedding!r}")
        if max_size is not None and max_size != "eta" and not isinstance(max_size, int):
            raise ValueError(f"max_size must be a whole number or 'eta' (the minimum size), got {max_size!r}")
        if alpha is not None and alpha != "self" and not isinstance(alpha, Mapping):
            raise ValueError("alpha must map agent names to specialization scores in [0, 1], or be 'self' "
                             "(the agents' own 'skill' snapshots)")
        self.eps, self.theta, self.lam = float(eps), float(theta), float(lam)
        self.alpha = dict(alpha) if isinstance(alpha, Mapping) else alpha
        self.round_steps, self.window, self.discount, self.embedding = round_steps, window, discount, embedding
        #: as given: "auto" is resolved per world at reset (``self.embedding``)
        self.embedding_param = embedding
        self.action_vectors = dict(action_vectors) if action_vectors else None
        self.min_size, self.max_size = min_size, max_size
        if isinstance(candidates, str):
            candidates = [c for c in candidates.split("+") if c]
        if candidates is not None and not candidates:
            raise ValueError("candidates must name at least one agent (names joined by '+', e.g. aff1+aff2+aff3)")
        self.candidates = tuple(candidates) if candidates is not None else None
        if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
            raise ValueError(f"warmup must be a whole number >= 0 (rounds every agent plays before the first team "
                             f"is formed), got {warmup!r}")
        self.warmup = warmup

    # ------------------------------------------------------------------ set-up

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        super().reset(world, state, ctx)
        self.agents = tuple(world.agents)
        if self.candidates is not None:
            unknown = sorted(set(self.candidates) - set(self.agents))
            if unknown:
                raise ValueError(f"candidates names agents this world does not have: {unknown} "
                                 f"(agents: {list(self.agents)})")
        #: the agents teams are formed from (all by default); the others keep working, outside formation
        # teams are formed within each group the world declares (the debate's sides: seed 000 forms
        # the team within one side, and the judge is no member), unless candidates name the pool
        declared = getattr(world, "formation_groups", None)
        groups: dict[str, tuple[AgentId, ...]] = {}
        if self.candidates is None and declared is not None:
            groups = {name: tuple(a for a in self.agents if a in set(members)) for name, members in declared().items()}
        grouped = {x for g in groups.values() for x in g}
        self.pool = tuple(a for a in self.agents
                          if (a in grouped if groups else self.candidates is None or a in self.candidates))
        self.outside = tuple(a for a in self.agents if a not in self.pool)
        self._pool_index = [self.agents.index(a) for a in self.pool]
        #: name -> members of each group teams are formed in (one group, the pool, by default)
        self.groups: dict[str, tuple[AgentId, ...]] = groups or {TEAM_NAME: self.pool}
        self._group_of = {a: name for name, members in self.groups.items() for a in members}
        if isinstance(self.alpha, Mapping):
            unknown = sorted(set(self.alpha) - set(self.agents))
            if unknown:
                raise ValueError(f"alpha names agents this world does not have: {unknown} (agents: {list(self.agents)})")
        #: per group: (eta, largest team size); eta and top are their sums (the size of the union)
        self.group_sizes: dict[str, tuple[int, int]] = {}
        for name, members in self.groups.items():
            m = len(members)
            eta = default_eta(m) if self.min_size is None else int(self.min_size)
            top = m if self.max_size is None else eta if self.max_size == "eta" else int(self.max_size)
            if not 1 <= eta <= top <= m:
                where = (f"the {m} agents of group {name!r}" if len(self.groups) > 1 else
                         f"{'candidates' if self.outside else 'agents'} ({m})")
                raise ValueError(f"team sizes must satisfy 1 <= min_size ({eta}) <= max_size ({top}) <= {where}")
            self.group_sizes[name] = (eta, top)
        self.eta = sum(e for e, _ in self.group_sizes.values())
        self.top = sum(t for _, t in self.group_sizes.values())
        # Appendix A's phi(s, a) by default where the world has a feature extractor, actions elsewhere
        self.embedding = (("features" if has_featurizer(world) else "steps") if self.embedding_param == AUTO_EMBEDDING
                          else self.embedding_param)
        featurize, dims = world_featurizer(world) if self.embedding == "features" else (None, None)
        self.tracker = AlignmentTracker(self.agents, self.window, self.discount, self.embedding, self.action_vectors,
                                        featurize, dims)
        # the same predictions scored under the other embeddings, for comparable BAS across conditions
        self.measures: dict[str, AlignmentTracker] = {}
        for other in ("steps", "features"):
            if other == self.embedding or (other == "features" and not has_featurizer(world)):
                continue
            f, d = world_featurizer(world) if other == "features" else (None, None)
            self.measures[other] = AlignmentTracker(self.agents, self.window, self.discount, other,
                                                    self.action_vectors, f, d)
        self.team: tuple[AgentId, ...] = ()
        self.steps = 0
        self.rounds = 0
        self.lifetimes: list[dict[str, Any]] = []
        self.phase = "monitoring"
        self.misaligned: float | None = None
        self.last_solution: TeamSolution | None = None
        self._reported = 0

    def _problem(self, phi: np.ndarray, eps: float | None, group: str = TEAM_NAME) -> TeamProblem:
        """Eq. 5's problem over a group (indices into ``self.groups[group]``; the pool by default)."""
        members = self.groups[group]
        alpha = None
        if self.alpha == "self":
            alpha = np.array([self.tracker.skills.get(a, 0.0) for a in members])
        elif self.alpha is not None:
            alpha = np.array([float(self.alpha.get(a, 0.0)) for a in members])
        index = [self.agents.index(a) for a in members]
        sub = phi[np.ix_(index, index)]
        eta, top = self.group_sizes[group]
        return TeamProblem(np.nan_to_num(sub), alpha, self.lam, eps, eta, top)

    def _local(self, team: Sequence[AgentId], group: str = TEAM_NAME) -> list[int]:
        """Indices of ``team``'s members of a group in that group (the problem's indices)."""
        members = self.groups[group]
        return [members.index(a) for a in team if a in members]

    def _by_group(self, phi: np.ndarray, team: Sequence[AgentId]) -> tuple[float | None, bool | None]:
        """Welfare (summed over the groups) and stability (in every group) of ``team``."""
        total, stable = 0.0, True
        for name in self.groups:
            local = self._local(team, name)
            if not local:
                continue
            problem = self._problem(phi, None, name)
            total += welfare(problem, local)
            stable = stable and StabilityChecker(problem).check(tuple(local)).stable
        return (round(total, 6), stable) if team else (None, None)

    def _teams(self, team: Sequence[AgentId]) -> dict[str, list[AgentId]]:
        """The team as the assignment names it: one team, or one per group (named by the group)."""
        return {name: [a for a in members if a in set(team)] for name, members in self.groups.items()}

    def _assign(self, team: Sequence[AgentId], reason: str, tick: int, data: dict[str, Any]) -> TeamAssignment:
        self.team = tuple(a for a in self.agents if a in set(team))
        self.lifetimes.append({"team": list(self.team), "formed_tick": tick + 1, "formed_round": self.rounds,
                               "rounds": 0, "reason": reason})
        teams = {name: tuple(members) for name, members in self._teams(self.team).items()}
        if self.outside:  # agents outside formation keep working: they are told so as a group of their own
            teams[OUTSIDE_NAME] = self.outside
        return TeamBroadcast(0, teams, reason, data, everyone=self.agents)

    def _draw_from_pool(self, k: int) -> tuple[AgentId, ...]:
        """``k`` agents at random: from the pool, or with groups, k's share from each group."""
        if len(self.groups) > 1:
            sizes = [(members, eta) for members, (eta, _) in zip(self.groups.values(), self.group_sizes.values())]
            if k != self.eta:
                raise ValueError(f"a random team of {k} cannot be drawn group by group (their sizes sum to {self.eta})")
            out: set[AgentId] = set()
            for members, size in sizes:
                picked = self.ctx.rng.choice(len(members), size=size, replace=False)
                out.update(members[int(i)] for i in picked)
            return tuple(a for a in self.agents if a in out)
        picked = self.ctx.rng.choice(len(self.pool), size=k, replace=False)
        return tuple(self.pool[i] for i in sorted(int(i) for i in picked))

    def _team_pairs(self) -> list[tuple[int, int]]:
        """The team's ordered pairs of teammates (with groups: members of one group)."""
        return [(self.tracker.index[a], self.tracker.index[b]) for a in self.team for b in self.team
                if a != b and self._group_of.get(a) == self._group_of.get(b)]

    def _misaligned_pairs(self, phi: np.ndarray) -> int:
        """How many of the team's ordered pairs have a known phi below eps (Algorithm 1's lines 5-8)."""
        return sum(1 for i, j in self._team_pairs() if not np.isnan(phi[i, j]) and phi[i, j] < self.eps)

    def _misaligned_share(self, phi: np.ndarray) -> float | None:
        pairs = [phi[i, j] for i, j in self._team_pairs() if not np.isnan(phi[i, j])]
        if not pairs:
            return None
        return float(np.mean(np.asarray(pairs) < self.eps))

    def _report_problems(self, tick: int) -> None:
        for message in self.tracker.problems[self._reported:]:
            self.ctx.emit(ErrorEvent(tick=tick + 1, source=self.name, kind="bad_snapshot", message=message))
        self._reported = len(self.tracker.problems)

    # ------------------------------------------------------------------ loop

    def start(self, state: Any) -> Sequence[Intervention]:
        """The first team, told before anyone acts (so an idle agent never moves)."""
        return [self.initial(self.ctx.tick - 1)]  # the episode's tick: a take-over may start in a later round

    def after_step(self, step: StepView) -> Sequence[Intervention]:
        out: list[Intervention] = []
        encoded = {a: self.world.encode_action(x) for a, x in step.joint_action.items()}
        self.tracker.update(encoded, step.beliefs, step.before, step.after)
        for tracker in self.measures.values():
            tracker.update(encoded, step.beliefs, step.before, step.after)
        self._report_problems(step.tick)
        self.steps += 1
        trackers = (self.tracker, *self.measures.values())
        if step.round_end:  # predictions about a round that ended are not held against the next one
            for tracker in trackers:
                tracker.drop_pending()
        if step.round_end if self.round_steps == TASK_ROUND else self.steps % self.round_steps == 0:
            self.rounds += 1
            self.lifetimes[-1]["rounds"] = self.rounds - self.lifetimes[-1]["formed_round"]
            made = self.end_of_round(step.tick)
            if made is not None:
                out.append(made)
            for tracker in trackers:
                tracker.close_round()
        return out

    def initial(self, tick: int) -> TeamAssignment:
        raise NotImplementedError

    def end_of_round(self, tick: int) -> TeamAssignment | None:
        raise NotImplementedError

    # ------------------------------------------------------------------ snapshots

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        phi = self.tracker.matrix()
        matrix = AlignmentMatrix(agents=list(self.agents), phi=_json_matrix(phi), samples=self.tracker.sample_counts(),
                                 eps=self.eps, theta=self.theta)
        team_welfare, stable = self._by_group(phi, self.team)
        ftm_values = ftm(phi, self.eps) if len(self.agents) > 1 else np.zeros(len(self.agents))
        state = TeamState(
            teams=self._teams(self.team),
            idle=[a for a in self.pool if a not in self.team],
            outside=list(self.outside),
            welfare=team_welfare,
            stable=stable,
            bas=self._bas(phi),
            ftm={a: round(float(v), 6) for a, v in zip(self.agents, ftm_values)},
            phase=self.phase,
            misaligned=None if self.misaligned is None else round(self.misaligned, 6),
            counter=self.counter,
            rounds=self.rounds,
            lifetimes=[dict(entry) for entry in self.lifetimes],
            levels=dict(self.tracker.levels),
            solver=self._solver_summary(),
        )
        return [("alignment_matrix", matrix), ("team_state", state)]

    def episode_summary(self) -> dict[str, Any]:
        """The episode's team results, for experiment records: the final team, its BAS (over the
        last ``window`` scores of each pair, and ``bas_episode`` over every score of the episode),
        welfare, the mean FTM, the number of teams formed and their average lifetime (rounds),
        ``bas_episode_<embedding>``: the same BAS with the predictions scored under each embedding
        (``steps``, and ``features`` where the world has an extractor; the mechanism's own is
        ``bas_episode``), so that conditions of different embeddings compare on one scale, the
        team sizes the mechanism allows (``sizes``: [smallest, largest] of a formed team) and how
        many predictions were scored or left unscored (both sides zero). ``team_size`` is the final
        team's: Algorithm 1 starts from every agent, so a mechanism that never re-forms ends with a
        team larger than ``sizes`` allows."""
        phi = self.tracker.matrix()
        whole = self.tracker.episode_matrix()
        ftm_values = ftm(phi, self.eps) if len(self.agents) > 1 else np.zeros(len(self.agents))
        lifetimes = [entry["rounds"] for entry in self.lifetimes]
        return {"kind": self.kind, "team": list(self.team), "team_size": len(self.team),
                "idle": [a for a in self.pool if a not in self.team],
                "outside": list(self.outside),
                "bas": self._bas(phi), "bas_episode": self._bas(whole),
                **{f"bas_episode_{name}": self._bas(tracker.episode_matrix())
                   for name, tracker in {self.embedding: self.tracker, **self.measures}.items()},
                "welfare": self._by_group(phi, self.team)[0],
                "teams": self._teams(self.team),
                "ftm": round(float(np.mean(ftm_values)), 6), "teams_formed": len(self.lifetimes),
                "average_lifetime": round(float(np.mean(lifetimes)), 6) if lifetimes else None,
                "rounds": self.rounds, "levels": dict(self.tracker.levels),
                "sizes": list(self.team_sizes()),
                "scored": int(sum(count for _, count in self.tracker.totals.values())),
                "unscored": self.tracker.unscored}

    def team_sizes(self) -> tuple[int, int]:
        """The smallest and largest team this mechanism forms (after ``reset``)."""
        return self.eta, self.top

    def _bas(self, phi: np.ndarray) -> float | None:
        """BAS of the team (with groups: the mean of each group's team's BAS, weighted by members)."""
        parts = [(len(members), bas(phi, [self.tracker.index[a] for a in members]))
                 for members in self._teams(self.team).values() if members]
        if not parts:
            return None
        return round(sum(n * b for n, b in parts) / sum(n for n, _ in parts), 6)

    def _solver_summary(self) -> dict[str, Any] | None:
        s = self.last_solution
        if s is None:
            return None
        return {"method": s.method, "welfare": round(s.welfare, 6), "optimal": s.optimal, "gap": round(s.gap, 6),
                "filtered": s.filtered, "refuted": s.refuted, "certificate": s.certificate}

    def _common_params(self) -> dict[str, Any]:
        return {"eps": self.eps, "theta": self.theta, "lam": self.lam, "alpha": self.alpha,
                "round_steps": self.round_steps, "window": self.window, "discount": self.discount,
                "embedding": self.embedding, "action_vectors": self.action_vectors, "min_size": self.min_size,
                "max_size": self.max_size, "candidates": None if self.candidates is None else list(self.candidates),
                "warmup": self.warmup}


class TeamFormationMechanism(_TeamMechanismBase):
    """Belief-aligned team formation (seed 000 Algorithm 1, seed 001's adaptation round)."""

    kind = "teams"

    def __init__(self, *, eps: float = 0.2, theta: float = 0.3, tau: int = 1, adaptation: int = 1,
                 exact_limit: int = 20, restarts: int = 32, choose: Literal["welfare", "random"] = "welfare",
                 counter: Literal["share", "literal"] = "share", **common: Any) -> None:
        super().__init__(eps=eps, theta=theta, **common)
        if choose not in ("welfare", "random"):
            raise ValueError(f"choose must be 'welfare' (Eq. 5) or 'random', got {choose!r}")
        if counter not in ("share", "literal"):
            raise ValueError(f"counter must be 'share' (the round's share of misaligned pairs) or 'literal' "
                             f"(Algorithm 1's c / |T| as printed), got {counter!r}")
        self.choose, self.counter = choose, counter
        if tau < 1:
            raise ValueError(f"tau must be >= 1, got {tau}")
        if adaptation < 0:
            raise ValueError(f"adaptation must be >= 0, got {adaptation}")
        if not 1 <= exact_limit <= 22:
            raise ValueError(f"exact_limit must be in [1, 22], got {exact_limit}")
        self.tau, self.adaptation, self.exact_limit, self.restarts = tau, adaptation, exact_limit, restarts

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        super().reset(world, state, ctx)
        self.over_rounds = 0
        self.adapt_left = 0
        self.count = 0  # counter=literal: Algorithm 1's c, misaligned pairs counted since the last re-formation

    def initial(self, tick: int) -> TeamAssignment:
        return self._assign(self.pool, "initial team: every agent (Algorithm 1 starts from T = N)" if not self.outside
                            else "initial team: every candidate (Algorithm 1 starts from T = N)", tick,
                            {"phase": "initial"})

    def end_of_round(self, tick: int) -> TeamAssignment | None:
        phi = self.tracker.matrix()
        share = self._misaligned_share(phi)
        if self.warmup and self.rounds <= self.warmup:  # every agent plays; then the first formation
            self.misaligned = share
            return self._reform(tick, share, first=True) if self.rounds == self.warmup else None
        if self.counter == "literal" and share is not None:  # line 7 adds the round's pairs to c; line 11: c / |T|
            self.count += self._misaligned_pairs(phi)
            share = self.count / len(self.team)
        self.misaligned = share
        over = share is not None and share > self.theta
        if self.phase == "adapting":
            self.adapt_left -= 1
            if self.adapt_left > 0:
                return None
            self.phase = "monitoring"
            self.over_rounds = 0
            if not over:
                return None  # the team realigned during the adaptation round(s)
            return self._reform(tick, share)
        self.over_rounds = self.over_rounds + 1 if over else 0
        if self.over_rounds < self.tau:
            return None
        if self.adaptation > 0:
            self.phase = "adapting"
            self.adapt_left = self.adaptation
            return None
        self.over_rounds = 0
        return self._reform(tick, share)

    def _reform(self, tick: int, share: float | None, first: bool = False) -> TeamAssignment | None:
        self.count = 0  # line 13: c is reset once Eq. 5 is re-optimized, whatever team it gives
        if self.choose == "random":
            return self._reform_at_random(tick, share, first)
        phi = self.tracker.matrix()
        chosen: list[AgentId] = []
        solutions: list[TeamSolution] = []
        for name, members in self.groups.items():  # Eq. 5 within each group (one group: the pool)
            solution = solve(self._problem(phi, self.eps, name), exact_limit=self.exact_limit,
                             restarts=self.restarts, seed=int(self.ctx.seed) % (2 ** 32))
            solutions.append(solution)
            chosen += [members[i] for i in solution.team]
        self.last_solution = solutions[-1] if len(solutions) == 1 else _combined(solutions)
        solution = self.last_solution
        team = tuple(a for a in self.agents if a in set(chosen))
        if set(team) == set(self.team):
            return None  # Eq. 5 keeps the team as it is
        how = ("eps-filtered" if solution.filtered else
               "fallback over all teams: no team has every pair's phi >= eps")
        within = f" within each of {', '.join(self.groups)}" if len(self.groups) > 1 else ""
        reason = (f"{self._trigger(share, first)}; Eq. 5{within} ({how}) chose {', '.join(team)} "
                  f"(welfare {solution.welfare:.3f})")
        return self._assign(team, reason, tick, {"phase": "formed", "misaligned": share, "welfare": solution.welfare,
                                                 "filtered": solution.filtered, "optimal": solution.optimal,
                                                 "gap": solution.gap, "method": solution.method})

    def _trigger(self, share: float | None, first: bool = False) -> str:
        """Why the team is re-formed: the start of a re-formation's reason."""
        if first:
            return f"formed after {self.warmup} warm-up round(s) played by every agent"
        wait = f" and still after {self.adaptation} adaptation round(s)" if self.adaptation else ""
        if self.counter == "literal":
            return (f"re-formed: c / |T| = {share:.2f} (pairs with phi < eps {self.eps:g} counted every round since "
                    f"Eq. 5 last chose, per member; > theta {self.theta:g}) for {self.tau} round(s){wait}")
        return (f"re-formed: {share:.0%} of the team's ordered pairs had phi < eps {self.eps:g} "
                f"(> theta {self.theta:.0%}) for {self.tau} round(s){wait}")

    def _reform_at_random(self, tick: int, share: float | None, first: bool = False) -> TeamAssignment:
        """The matched baseline: the same monitor, trigger and adaptation round, and a team of the
        size Eq. 5 would give (``max_size=eta``: eta) drawn at random instead of Eq. 5's choice."""
        k = self.eta if self.top == self.eta or len(self.groups) > 1 else int(self.ctx.rng.integers(self.eta, self.top + 1))
        team = self._draw_from_pool(k)
        reason = f"{self._trigger(share, first)}; {k} agents drawn at random (baseline): {', '.join(team)}"
        return self._assign(team, reason, tick, {"phase": "formed", "misaligned": share, "method": "random"})

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, **self._common_params(), "tau": self.tau, "adaptation": self.adaptation,
                "exact_limit": self.exact_limit, "restarts": self.restarts, "choose": self.choose,
                "counter": self.counter}


class RandomTeamMechanism(_TeamMechanismBase):
    """The baseline: a team of ``size`` agents (default ceil(n / 2)) drawn at random, redrawn
    every ``every`` rounds (0: never). It tracks alignment like the real mechanism, so the
    same panels and metrics (BAS, FTM) compare them.

    ``team`` (names joined by '+') makes the draw give that team: the draw is still made (the
    episode's random numbers are the same), and the named team is used instead of what it gave.
    The experiment runner's team conditions (``over_teams``: the mean over every team the draw
    could give, the best of them) play each of ``possible_teams()`` this way."""

    kind = "random-teams"

    def __init__(self, *, size: int | None = None, every: int = 0, team: Sequence[AgentId] | str | None = None,
                 **common: Any) -> None:
        super().__init__(**common)
        if size is not None and size < 1:
            raise ValueError(f"size must be >= 1, got {size}")
        if every < 0:
            raise ValueError(f"every must be >= 0, got {every}")
        if isinstance(team, str):
            team = [a for a in team.split("+") if a]
        if team is not None and (not team or len(set(team)) != len(team)):
            raise ValueError(f"team must name distinct agents (names joined by '+', e.g. ada+ben), got {team!r}")
        if team is not None and every:
            raise ValueError("team gives every draw the same team; it cannot be combined with every (redraws)")
        self.size, self.every = size, every
        self.team_given = tuple(team) if team is not None else None

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        super().reset(world, state, ctx)
        if self.size is not None and self.size > len(self.pool):
            raise ValueError(f"size {self.size} exceeds the {len(self.pool)} "
                             f"{'candidates' if self.outside else 'agents of this world'}")
        if self.team_given is not None:
            possible = set(self.possible_teams())
            if tuple(a for a in self.agents if a in set(self.team_given)) not in possible:
                k = self.team_sizes()[0]
                raise ValueError(f"team {'+'.join(self.team_given)} is not a team the draw could give: "
                                 f"{k} of the {'candidates' if self.outside else 'agents'} {list(self.pool)}"
                                 + (f", each group's share ({', '.join(f'{n}: {e}' for n, (e, _) in self.group_sizes.items())})"
                                    if len(self.groups) > 1 else ""))

    def team_sizes(self) -> tuple[int, int]:
        k = self.eta if self.size is None else self.size
        return k, k

    def possible_teams(self) -> list[tuple[AgentId, ...]]:
        """Every team the draw can give (after ``reset``), each as likely as the others, in turn
        order within a team and in lexicographic order of the agents' turn indices: ``size`` of
        the pool, or with groups each group's share of its members."""
        k = self.team_sizes()[0]
        if len(self.groups) > 1:
            if k != self.eta:
                raise ValueError(f"a random team of {k} cannot be drawn group by group (their sizes sum to {self.eta})")
            parts = [itertools.combinations(members, eta)
                     for members, (eta, _) in zip(self.groups.values(), self.group_sizes.values())]
            teams = [set(x for part in choice for x in part) for choice in itertools.product(*parts)]
            out = [tuple(a for a in self.agents if a in team) for team in teams]
            return sorted(out, key=lambda t: [self.agents.index(a) for a in t])
        return [tuple(c) for c in itertools.combinations(self.pool, k)]

    def _draw(self, tick: int, why: str) -> TeamAssignment:
        k = self.eta if self.size is None else self.size
        team = self._draw_from_pool(k)
        if self.team_given is not None:
            team = tuple(a for a in self.agents if a in set(self.team_given))
            return self._assign(team, f"{why}: the given team {', '.join(team)} (every team is played)", tick,
                                {"phase": "formed"})
        return self._assign(team, f"{why}: {k} agents drawn at random (baseline)", tick, {"phase": "formed"})

    def initial(self, tick: int) -> TeamAssignment:
        if self.warmup:
            return self._assign(self.pool, f"initial team: every {'candidate' if self.outside else 'agent'}, for "
                                f"{self.warmup} warm-up round(s)", tick, {"phase": "initial"})
        return self._draw(tick, "random team")

    def end_of_round(self, tick: int) -> TeamAssignment | None:
        self.misaligned = self._misaligned_share(self.tracker.matrix())
        if self.warmup and self.rounds <= self.warmup:
            return self._draw(tick, f"random team after {self.warmup} warm-up round(s)") \
                if self.rounds == self.warmup else None
        if self.every and (self.rounds - self.warmup) % self.every == 0:
            return self._draw(tick, f"random team redrawn after {self.every} round(s)")
        return None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, **self._common_params(), "size": self.size, "every": self.every,
                **({"team": list(self.team_given)} if self.team_given is not None else {})}


class FixedTeamMechanism(_TeamMechanismBase):
    """A team chosen beforehand (``members``), assigned at the first step and kept: what a team
    does when it plays the task from the start (``experiments/team_diagnosis.py`` plays every team
    of a size this way). It tracks alignment like the other team mechanisms."""

    kind = "fixed-team"

    def __init__(self, *, members: Sequence[AgentId], **common: Any) -> None:
        super().__init__(**common)
        if isinstance(members, str) or not members:
            raise ValueError("members must name at least one agent (a list of names)")
        self.members = tuple(members)

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        super().reset(world, state, ctx)
        unknown = sorted(set(self.members) - set(self.agents))
        if unknown:
            raise ValueError(f"members names agents this world does not have: {unknown} (agents: {list(self.agents)})")
        outside = sorted(set(self.members) - set(self.pool))
        if outside:
            raise ValueError(f"members must be among the candidates {list(self.pool)}, not {outside}")

    def team_sizes(self) -> tuple[int, int]:
        return len(set(self.members)), len(set(self.members))

    def initial(self, tick: int) -> TeamAssignment:
        return self._assign(self.members, f"fixed team: {', '.join(self.members)}", tick, {"phase": "formed"})

    def end_of_round(self, tick: int) -> TeamAssignment | None:
        self.misaligned = self._misaligned_share(self.tracker.matrix())
        return None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, **self._common_params(), "members": list(self.members)}



def _combined(solutions: Sequence[TeamSolution]) -> TeamSolution:
    """The solutions of Eq. 5 in several groups as one (welfare and bounds summed; filtered,
    stable and optimal only when every group's is; the team is not meaningful across groups)."""
    return TeamSolution(team=(), welfare=sum(s.welfare for s in solutions), stable=all(s.stable for s in solutions),
                        filtered=all(s.filtered for s in solutions), optimal=all(s.optimal for s in solutions),
                        upper_bound=sum(s.upper_bound for s in solutions), gap=max(s.gap for s in solutions),
                        method="+".join(s.method for s in solutions), refuted=sum(s.refuted for s in solutions),
                        certificate="; ".join(s.certificate for s in solutions))
