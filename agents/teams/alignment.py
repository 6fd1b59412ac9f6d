"""Belief-action alignment phi(i, j) in [-1, 1] (seed 000, Appendix A).

Two sources:

- Agents without language (planners): the non-LLM extension of Appendix A, the cosine of
  embedded trajectories, ``phi = cos(embed(predicted), embed(actual))``. A trajectory is the
  list of a seat's next actions (the JSON values the world encodes them as). The embedding
  (``embed_trajectories``) gives each step its own block of the vector, so order matters:

  - a grid move (up/down/left/right, north/south/east/west) is its unit displacement (dx, dy)
    in the block's first two coordinates, so the same move scores 1, the opposite move -1 and
    a perpendicular move 0;
  - any other action (stay, interact, a message, a structured action) is a one-hot coordinate of
    its own in the block, so the same action scores 1 and a different one 0;
  - step t's block is weighted by ``discount ** t`` (1: every step counts the same).

  With unit blocks the cosine is the weighted mean of the per-step agreements. ``embedding="net"``
  instead sums the blocks over the steps (net displacement plus action counts), ignoring order.
  ``action_vectors`` maps other action names to displacement vectors for worlds that name
  their moves differently.

  ``embedding="features"`` is Appendix A's own prescription: each step (s_t, a_t) is embedded by
  the world's domain-specific feature extractor phi(s, a) (``World.action_features``, e.g.
  ``sim/dkg/features.py``), step t's block weighted by ``discount ** t``
  (``embed_feature_steps``, ``feature_alignment``). What an action *does* in its state is
  compared, not its name: a ``wait`` (or any action that changes nothing) is the zero block.

  **The zero vector** (``alignment_cosine``): the cosine is undefined when either vector is
  zero. When both are zero (nothing predicted to happen, nothing happened), the prediction
  carries no information and is not scored at all (None: no sample, it does not count as
  evidence of alignment). When exactly one is zero (a no-op predicted and something done, or
  the reverse), the inner product, the shared part, is 0 and one side did what the other did
  not: it scores 0, seed 000's "neutral/no alignment". The ``steps`` embedding never yields a
  zero vector (every action has a unit block), so the rule changes none of its scores.
- LLM agents: self-evaluation with the JSON prompt of Appendix A, read by
  ``parse_self_evaluation`` into ``{teammate: score}`` clipped to [-1, 1].
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

#: displacement of the usual grid moves (x grows rightwards, y downwards)
GRID_MOVES: dict[str, tuple[float, float]] = {
    "up": (0.0, -1.0), "down": (0.0, 1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0),
    "north": (0.0, -1.0), "south": (0.0, 1.0), "west": (-1.0, 0.0), "east": (1.0, 0.0),
}


def action_token(action: Any) -> str:
    """A stable text key for any JSON action value."""
    return action if isinstance(action, str) else json.dumps(action, sort_keys=True)


def embed_trajectories(trajectories: Sequence[Sequence[Any]], *, discount: float = 1.0,
                       embedding: str = "steps",
                       action_vectors: Mapping[str, Sequence[float]] | None = None) -> np.ndarray:
    """One row per trajectory, in a shared feature space (see the module docstring)."""
    if embedding not in ("steps", "net"):
        raise ValueError(f"embedding must be 'steps' or 'net' for actions (or 'features' for feature vectors, "
                         f"see feature_alignment), got {embedding!r}")
    moves = {k: tuple(float(x) for x in v) for k, v in {**GRID_MOVES, **(action_vectors or {})}.items()}
    dims = {len(v) for v in moves.values()}
    if len(dims) != 1:
        raise ValueError(f"action_vectors must all have the same length, got lengths {sorted(dims)}")
    d = dims.pop()
    tokens = sorted({action_token(a) for traj in trajectories for a in traj} - set(moves))
    column = {t: d + k for k, t in enumerate(tokens)}
    width = d + len(tokens)
    steps = max((len(t) for t in trajectories), default=0)
    blocks = 1 if embedding == "net" else steps
    out = np.zeros((len(trajectories), max(blocks, 1) * width))
    for r, traj in enumerate(trajectories):
        for t, action in enumerate(traj):
            base = 0 if embedding == "net" else t * width
            weight = discount ** t
            token = action_token(action)
            if token in moves:
                out[r, base:base + d] += weight * np.asarray(moves[token])
            else:
                out[r, base + column[token]] += weight
    return out


EMBEDDINGS = ("steps", "net", "features")


def alignment_cosine(a: np.ndarray, b: np.ndarray) -> float | None:
    """Cosine similarity with the zero-vector rule of the module docstring: None (no score)
    when both are zero, 0 when only one is."""
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 and nb == 0.0:
        return None
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.clip(np.dot(a, b) / (na * nb), -1.0, 1.0))


def trajectory_alignment(predicted: Sequence[Any], actual: Sequence[Any], *, discount: float = 1.0,
                         embedding: str = "steps",
                         action_vectors: Mapping[str, Sequence[float]] | None = None) -> float | None:
    """phi for one prediction: the cosine of the embedded predicted and actual trajectories
    (compared over the shorter of the two); None when both embed to zero (``net`` only)."""
    steps = min(len(predicted), len(actual))
    if steps == 0:
        raise ValueError("cannot compare empty trajectories")
    rows = embed_trajectories([list(predicted[:steps]), list(actual[:steps])], discount=discount,
                              embedding=embedding, action_vectors=action_vectors)
    return alignment_cosine(rows[0], rows[1])


def embed_feature_steps(steps: Sequence[Sequence[float]], *, discount: float = 1.0) -> np.ndarray:
    """One trajectory of per-step feature vectors phi(s_t, a_t) as one vector: the blocks side by
    side, step t's weighted by ``discount ** t``."""
    rows = [np.asarray(v, dtype=float) for v in steps]
    if not rows:
        raise ValueError("cannot embed an empty trajectory")
    widths = {r.shape for r in rows}
    if len(widths) != 1 or rows[0].ndim != 1:
        raise ValueError(f"feature vectors must all have one length, got shapes {sorted(widths)}")
    return np.concatenate([(discount ** t) * r for t, r in enumerate(rows)])


def feature_alignment(predicted: Sequence[Sequence[float]], actual: Sequence[Sequence[float]], *,
                      discount: float = 1.0) -> float | None:
    """Appendix A's ``cos(phi(b(tau_j)), phi(tau_j))`` for trajectories given as per-step feature
    vectors (compared over the shorter of the two); None when both are all zeros."""
    steps = min(len(predicted), len(actual))
    if steps == 0:
        raise ValueError("cannot compare empty trajectories")
    return alignment_cosine(embed_feature_steps(predicted[:steps], discount=discount),
                            embed_feature_steps(actual[:steps], discount=discount))


class SelfEvaluationError(ValueError):
    """A model's Appendix A answer that cannot be read."""


def parse_self_evaluation(answer: str | Mapping[str, Any], teammates: Sequence[str] | None = None) -> dict[str, float]:
    """``{teammate: score}`` from the Appendix A answer::

        {"Engineer1": {"score": 0.7, "explanation": "...", "justification": "..."}, ...}

    ``answer`` is the JSON text (a fenced ```json block or surrounding prose is tolerated) or the
    parsed object. Scores are clipped to [-1, 1]. With ``teammates``, every one must be scored
    and no one else."""
    data: Any = answer
    if isinstance(answer, str):
        from agents.llm.client import AnswerError, extract_json

        try:
            data = extract_json(answer)
        except AnswerError as exc:
            raise SelfEvaluationError(str(exc)) from None
    if not isinstance(data, Mapping):
        raise SelfEvaluationError(f"expected a JSON object of teammates, got {type(data).__name__}")
    scores: dict[str, float] = {}
    for name, entry in data.items():
        raw = entry.get("score") if isinstance(entry, Mapping) else entry
        if isinstance(raw, str):
            try:
                raw = float(raw.strip())
            except ValueError:
                raise SelfEvaluationError(f"{name}.score: expected a number in [-1, 1], got {raw!r}") from None
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
            raise SelfEvaluationError(f"{name}.score: expected a number in [-1, 1], got {raw!r}")
        scores[str(name)] = float(min(1.0, max(-1.0, raw)))
    if teammates is not None:
        missing = [t for t in teammates if t not in scores]
        unknown = [s for s in scores if s not in teammates]
        if missing or unknown:
            raise SelfEvaluationError(f"scores must cover exactly {list(teammates)}: missing {missing}, "
                                      f"unknown {unknown}")
    return scores


def self_evaluation_prompt(actions: Mapping[str, str], belief: str) -> str:
    """The Appendix A instruction for scoring teammates' actions against one's belief."""
    names = list(actions)
    body = ",\n".join(
        f'    "{n}": {{\n        "score": float (-1 to 1). Belief alignment score for {n},\n'
        f'        "explanation": Brief explanation of {n}\'s alignment score in 10 words or less,\n'
        f'        "justification": Detailed justification of {n}\'s alignment score, considering '
        f'their actions and your belief model, in 30-50 words\n    }}' for n in names)
    return ("You will provide your belief alignment scores for each teammate's actions based on your belief model.\n\n"
            f"Teammates' actions: {json.dumps(dict(actions), indent=4)}\n\n"
            f"# Your belief model:\n{belief}\n\n"
            "# Instruction:\n"
            "For each teammate, provide a belief alignment score between -1 and 1. "
            "Respond in the following JSON format:\n{\n" + body + "\n}")
