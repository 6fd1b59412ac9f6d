"""The three TradeCraft analyses of seed 002, Section 4, over any set of recordings.

1. ToM accuracy (Figure 4): per turn, the KL divergence between a player's first-order
   report V1 and its opponent's own V0 of the same turn: KL(P_opp_V0 || P_V1), where each
   value map becomes a distribution over the items in all hands, p_i = (v_i + alpha) / sum
   (alpha = 0.5 smooths zeros).
2. Proposal values (Figure 5): for every proposal, the proposer's V0 summed over what it
   requests (x) and over what it offers (y), amounts counted; per group Pearson r and the
   slope m of the least-squares line offer = m * request + c, with 90% confidence intervals
   from an episode-level bootstrap (B = 2000: whole episodes are resampled).
3. Decision utility fitting (Table 1, Figure 6): the decision maker's reports give
   G_k (value of what it would receive) and L_k (of what it would give) for k = 0, 1, 2;
   U(0) = G0 - rho L0, U(0,1) = U(0) + w1 (G1 - gamma L1), U(0,1,2) = U(0,1) + w2 (G2 - kappa L2).
   The parameters come from a grid search (grid points are scored by the likelihood of a
   logistic model on the standardized utility, fitted for many points at once by Newton's
   method; about five values per parameter first, then the full-resolution neighbourhood of
   the best point until it stops moving), then P(accept) = sigmoid(beta * U~ + b) is fitted by scikit-learn's logistic
   regression (LBFGS). Macro-F1 comes from episode-wise 3-fold cross-validation (the grid
   search is redone inside each fold); the normalized coefficients are the weights of each
   G_k / L_k in the fitted logit, divided by the sum of their absolute values.

Groups: a player's configuration from the recording header (``kind``, ``model`` when
present, ``order``), e.g. ``trader order=2``. Everything is read from the recorded events:
``tom_values`` belief reports (``agents.tradecraft.trader`` documents the format), the
proposal and decision actions, and the turn boundaries (``craft_phase_end`` world events).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

TOM_VALUES = "tom_values"
FEATURES = ("G0", "L0", "G1", "L1", "G2", "L2")
SMOOTHING = 0.5
BOOTSTRAP = 2000
GRID_CHUNK = 1024

#: parameter grids of the utility models (generic, symmetric ranges)
GRID = {
    "rho": tuple(np.round(np.arange(0.0, 3.01, 0.25), 2)),
    "w1": tuple(np.round(np.arange(-1.0, 1.01, 0.1), 2)),
    "gamma": tuple(np.round(np.arange(-1.0, 2.01, 0.25), 2)),
    "w2": tuple(np.round(np.arange(-1.0, 1.01, 0.1), 2)),
    "kappa": tuple(np.round(np.arange(-1.0, 2.01, 0.25), 2)),
}
MODELS = {"U0": ("rho",), "U01": ("rho", "w1", "gamma"), "U012": ("rho", "w1", "gamma", "w2", "kappa")}
MODEL_ORDER = {"U0": 0, "U01": 1, "U012": 2}


# ----------------------------------------------------------------------- data

@dataclass
class Report:
    episode: str
    owner: str
    stage: str
    turn: int
    opponent: str
    values: dict[str, dict[str, float]]  # "V0"/"V1"/"V2" -> item -> value


@dataclass
class ProposalRow:
    episode: str
    group: str
    proposer: str
    partner: str
    turn: int
    request_value: float
    offer_value: float
    accepted: bool | None


@dataclass
class DecisionRow:
    episode: str
    group: str
    decider: str
    turn: int
    accepted: int
    orders: int  # highest order the decider reported
    G0: float = 0.0
    L0: float = 0.0
    G1: float = 0.0
    L1: float = 0.0
    G2: float = 0.0
    L2: float = 0.0


@dataclass
class Dataset:
    episodes: list[str] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)
    proposals: list[ProposalRow] = field(default_factory=list)
    decisions: list[DecisionRow] = field(default_factory=list)
    groups: dict[tuple[str, str], str] = field(default_factory=dict)  # (episode, player) -> group
    warnings: list[str] = field(default_factory=list)


def group_label(seat: Mapping[str, Any]) -> str:
    parts = [str(seat.get("kind", "?"))]
    if seat.get("model"):
        parts.append(str(seat["model"]))
    if "order" in seat:
        parts.append(f"order={seat['order']}")
    return " ".join(parts)


def _multiset_value(items: Mapping[str, Any], values: Mapping[str, float]) -> float:
    return float(sum(float(n) * float(values.get(i, 0.0)) for i, n in items.items()))


def recording_files(paths: Iterable[str | Path]) -> list[Path]:
    """Every recording under the given files or folders (``*.jsonl`` and ``*.jsonl.gz``)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.name.endswith((".jsonl", ".jsonl.gz")))
        elif p.exists():
            out.append(p)
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    return out


def collect(paths: Iterable[str | Path]) -> Dataset:
    """Read TradeCraft recordings into reports, proposals and decisions."""
    from sim.events import BeliefEvent, StepEvent
    from sim.recording import load_recording

    data = Dataset()
    for path in recording_files(paths):
        rec = load_recording(path)
        data.warnings += rec.warnings
        if rec.header.get("world") != "tradecraft":
            continue
        episode = str(path)
        data.episodes.append(episode)
        for player, seat in (rec.header.get("seats") or {}).items():
            data.groups[(episode, player)] = group_label(seat or {})
        turn = 0
        reports: dict[tuple[str, str, int], Report] = {}
        pending: tuple[str, dict[str, Any], int] | None = None  # proposer, proposal, turn
        proposal_rows: dict[int, ProposalRow] = {}
        for event in rec.events:
            if isinstance(event, BeliefEvent) and event.kind == TOM_VALUES:
                d = event.data
                values = {k: {i: float(v) for i, v in d[k].items()} for k in ("V0", "V1", "V2")
                          if isinstance(d.get(k), Mapping)}
                report = Report(episode, event.owner, str(d.get("stage")), int(d.get("turn", turn)),
                                str(d.get("opponent", "")), values)
                reports[(report.owner, report.stage, report.turn)] = report
                data.reports.append(report)
            elif isinstance(event, StepEvent):
                for agent, action in event.joint_action.items():
                    kind = action.get("type") if isinstance(action, Mapping) else None
                    if kind == "propose":
                        pending = (agent, action, turn)
                        own = reports.get((agent, "proposal", turn))
                        if own is not None and "V0" in own.values:
                            row = ProposalRow(episode, data.groups.get((episode, agent), "?"), agent,
                                              str(action.get("to")), turn,
                                              _multiset_value(action.get("request", {}), own.values["V0"]),
                                              _multiset_value(action.get("offer", {}), own.values["V0"]), None)
                            proposal_rows[turn] = row
                            data.proposals.append(row)
                    elif kind in ("accept", "reject") and pending is not None:
                        proposer, proposal, pturn = pending
                        accepted = kind == "accept"
                        if pturn in proposal_rows:
                            proposal_rows[pturn].accepted = accepted
                        own = reports.get((agent, "decision", pturn))
                        if own is not None and "V0" in own.values:
                            receive, give = proposal.get("offer", {}), proposal.get("request", {})
                            row = DecisionRow(episode, data.groups.get((episode, agent), "?"), agent, pturn,
                                              int(accepted), max(int(k[1]) for k in own.values))
                            for k in (0, 1, 2):
                                v = own.values.get(f"V{k}")
                                if v is not None:
                                    setattr(row, f"G{k}", _multiset_value(receive, v))
                                    setattr(row, f"L{k}", _multiset_value(give, v))
                            data.decisions.append(row)
                        pending = None
                for world_event in event.world_events:
                    if world_event.get("kind") == "craft_phase_end":
                        turn += 1
                        pending = None
    return data


# ---------------------------------------------------------------- 1. ToM accuracy

def kl_divergence(p_values: Mapping[str, float], q_values: Mapping[str, float], alpha: float = SMOOTHING) -> float:
    """KL(P || Q) of two value maps made into distributions over their common items."""
    items = sorted(set(p_values) | set(q_values))
    p = np.array([max(0.0, p_values.get(i, 0.0)) + alpha for i in items])
    q = np.array([max(0.0, q_values.get(i, 0.0)) + alpha for i in items])
    p /= p.sum()
    q /= q.sum()
    return float(np.sum(p * np.log(p / q)))


def kl_rows(data: Dataset) -> list[dict[str, Any]]:
    by_turn: dict[tuple[str, str, int], list[Report]] = defaultdict(list)
    for r in data.reports:
        by_turn[(r.episode, r.owner, r.turn)].append(r)
    rows = []
    for (episode, owner, turn), reports in sorted(by_turn.items()):
        for r in reports:
            if "V1" not in r.values or not r.opponent:
                continue
            theirs = by_turn.get((episode, r.opponent, turn), [])
            v0 = next((o.values["V0"] for o in theirs if "V0" in o.values), None)
            if v0 is None:
                continue
            rows.append({"episode": episode, "group": data.groups.get((episode, owner), "?"), "player": owner,
                         "opponent": r.opponent, "turn": turn + 1, "stage": r.stage,
                         "kl": kl_divergence(v0, r.values["V1"])})
            break  # one V1 per player and turn
    return rows


def kl_summary(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    cells: dict[tuple[str, int], list[float]] = defaultdict(list)
    for r in rows:
        cells[(r["group"], r["turn"])].append(r["kl"])
    out = []
    for (group, turn), values in sorted(cells.items()):
        a = np.array(values)
        out.append({"group": group, "turn": turn, "n": len(a), "kl_mean": float(a.mean()),
                    "kl_sem": float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else 0.0})
    return out


# ------------------------------------------------------------ 2. proposal values

def _r_and_m(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    if len(x) < 3 or np.ptp(x) == 0:
        return math.nan, math.nan
    slope = float(np.polyfit(x, y, 1)[0])
    r = math.nan if np.ptp(y) == 0 else float(np.corrcoef(x, y)[0, 1])
    return r, slope


def proposal_summary(data: Dataset, bootstrap: int = BOOTSTRAP, seed: int = 0) -> list[dict[str, Any]]:
    """Pearson r and slope m per group, with episode-level bootstrap 90% intervals."""
    from scipy import stats

    by_group: dict[str, list[ProposalRow]] = defaultdict(list)
    for p in data.proposals:
        by_group[p.group].append(p)
    rng = np.random.default_rng(seed)
    out = []
    for group, rows in sorted(by_group.items()):
        x = np.array([p.request_value for p in rows])
        y = np.array([p.offer_value for p in rows])
        episodes = sorted({p.episode for p in rows})
        r, m = _r_and_m(x, y)
        p_value = math.nan
        if len(x) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
            p_value = float(stats.pearsonr(x, y).pvalue)
        idx = defaultdict(list)
        for k, p in enumerate(rows):
            idx[p.episode].append(k)
        per_episode = [np.array(idx[e]) for e in episodes]
        rs, ms = [], []
        for _ in range(bootstrap if len(episodes) > 1 else 0):
            pick = rng.integers(0, len(episodes), len(episodes))
            sel = np.concatenate([per_episode[i] for i in pick])
            br, bm = _r_and_m(x[sel], y[sel])
            if not math.isnan(bm):
                ms.append(bm)
            if not math.isnan(br):
                rs.append(br)
        ci = lambda v: (float(np.percentile(v, 5)), float(np.percentile(v, 95))) if v else (math.nan, math.nan)
        (r_lo, r_hi), (m_lo, m_hi) = ci(rs), ci(ms)
        out.append({"group": group, "n_proposals": len(rows), "n_episodes": len(episodes), "r": r,
                    "r_ci_low": r_lo, "r_ci_high": r_hi, "r_p_value": p_value, "m": m, "m_ci_low": m_lo,
                    "m_ci_high": m_hi, "bootstrap": bootstrap,
                    "accept_rate": float(np.mean([p.accepted for p in rows if p.accepted is not None]))
                    if any(p.accepted is not None for p in rows) else math.nan})
    return out


# --------------------------------------------------------- 3. utility fitting

def _weights(model: str, params: Mapping[str, float]) -> np.ndarray:
    """Feature weights (G0, L0, G1, L1, G2, L2) of U for one parameter point of a model."""
    w = np.zeros(6)
    w[0], w[1] = 1.0, -params["rho"]
    if model != "U0":
        w[2], w[3] = params["w1"], -params["w1"] * params["gamma"]
    if model == "U012":
        w[4], w[5] = params["w2"], -params["w2"] * params["kappa"]
    return w


def _grid_search(x: np.ndarray, y: np.ndarray, model: str, grid: Mapping[str, Sequence[float]]
                 ) -> tuple[dict[str, float], np.ndarray]:
    """The grid point of lowest logistic loss: a coarse grid (about five values per parameter) first,
    then the neighbourhood of the best point on the full grid until it stops moving."""
    names = MODELS[model]
    values = [list(grid[n]) for n in names]
    scores: dict[tuple[int, ...], float] = {}

    def evaluate(points: list[tuple[int, ...]]) -> None:
        todo = [p for p in dict.fromkeys(points) if p not in scores]
        for start in range(0, len(todo), GRID_CHUNK):  # chunks keep the n x points arrays small
            chunk = todo[start:start + GRID_CHUNK]
            w = np.array([_weights(model, {n: values[k][i] for k, (n, i) in enumerate(zip(names, p))})
                          for p in chunk])
            z, _, _ = _standardize(x @ w.T)
            for p, loss in zip(chunk, _batch_logistic(z, y)[2]):
                scores[p] = float(loss)

    strides = [max(1, math.ceil((len(v) - 1) / 5)) for v in values]
    coarse = [sorted(set(range(0, len(v), st)) | {len(v) - 1}) for v, st in zip(values, strides)]
    evaluate(list(itertools.product(*coarse)))
    best = min(scores, key=lambda p: (scores[p], p))
    radii = [math.ceil(st / 2) for st in strides]
    while True:
        around = [range(max(0, i - r), min(len(v), i + r + 1)) for i, v, r in zip(best, values, radii)]
        evaluate(list(itertools.product(*around)))
        new = min(scores, key=lambda p: (scores[p], p))
        if new == best and radii == [1] * len(radii):
            break
        best, radii = new, [1] * len(radii)
    params = {n: float(values[k][i]) for k, (n, i) in enumerate(zip(names, best))}
    return params, _weights(model, params)


def _standardize(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean = u.mean(axis=0)
    std = u.std(axis=0)
    ok = std > 1e-12
    z = np.where(ok, (u - mean) / np.where(ok, std, 1.0), 0.0)
    return z, mean, np.where(ok, std, 1.0)


def _batch_logistic(z: np.ndarray, y: np.ndarray, c: float = 1.0, iterations: int = 12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Penalized (beta^2 / 2C, as scikit-learn's default) logistic regression of y on each column
    of z, all columns at once by Newton's method. Returns (beta, b, negative log-likelihood)."""
    n, k = z.shape
    beta = np.zeros(k)
    b = np.full(k, math.log((y.mean() + 1e-9) / (1 - y.mean() + 1e-9)))
    yy = y[:, None]
    for _ in range(iterations):
        eta = z * beta + b
        p = 1.0 / (1.0 + np.exp(-eta))
        r = p - yy
        g_beta = (r * z).sum(axis=0) + beta / c
        g_b = r.sum(axis=0)
        wgt = p * (1 - p)
        h_bb = (wgt * z * z).sum(axis=0) + 1.0 / c
        h_b1 = (wgt * z).sum(axis=0)
        h_11 = wgt.sum(axis=0) + 1e-9
        det = h_bb * h_11 - h_b1 * h_b1
        det = np.where(np.abs(det) < 1e-12, 1e-12, det)
        beta = beta - (h_11 * g_beta - h_b1 * g_b) / det
        b = b - (h_bb * g_b - h_b1 * g_beta) / det
    eta = z * beta + b
    nll = (np.logaddexp(0.0, eta) - yy * eta).sum(axis=0) + beta ** 2 / (2 * c)
    return beta, b, nll


@dataclass
class UtilityFit:
    model: str
    params: dict[str, float]
    weights: np.ndarray  # of the six features in U
    mean: float
    std: float
    beta: float
    intercept: float

    def logit(self, x: np.ndarray) -> np.ndarray:
        return self.beta * ((x @ self.weights - self.mean) / self.std) + self.intercept

    def coefficients(self) -> np.ndarray:
        """Weight of each feature in the logit (raw units)."""
        return self.beta * self.weights / self.std


def fit_utility(x: np.ndarray, y: np.ndarray, model: str, grid: Mapping[str, Sequence[float]] = GRID) -> UtilityFit:
    """Grid search over the model's parameters, then LBFGS logistic regression on the standardized U."""
    from sklearn.linear_model import LogisticRegression

    params, weights = _grid_search(x, y, model, grid)
    zb, mean, std = _standardize(x @ weights[:, None])
    if len(np.unique(y)) < 2:
        beta, intercept = 0.0, (10.0 if y.mean() > 0.5 else -10.0)
    else:
        lr = LogisticRegression(solver="lbfgs", C=1.0, max_iter=1000).fit(zb, y)
        beta, intercept = float(lr.coef_[0, 0]), float(lr.intercept_[0])
    return UtilityFit(model, params, weights, float(mean[0]), float(std[0]), beta, intercept)


def cross_validate(x: np.ndarray, y: np.ndarray, groups: np.ndarray, model: str, folds: int = 3,
                   grid: Mapping[str, Sequence[float]] = GRID) -> list[float]:
    """Macro-F1 on each held-out fold of an episode-wise k-fold split."""
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GroupKFold

    if len(np.unique(groups)) < folds:
        return []
    scores = []
    for train, test in GroupKFold(n_splits=folds).split(x, y, groups):
        fit = fit_utility(x[train], y[train], model, grid)
        pred = (fit.logit(x[test]) > 0).astype(int)
        scores.append(float(f1_score(y[test], pred, average="macro", zero_division=0)))
    return scores


def utility_fits(data: Dataset, grid: Mapping[str, Sequence[float]] = GRID, folds: int = 3) -> list[dict[str, Any]]:
    """Per group and model: parameters, macro-F1 (mean, std over folds) and normalized coefficients."""
    by_group: dict[str, list[DecisionRow]] = defaultdict(list)
    for d in data.decisions:
        by_group[d.group].append(d)
    out = []
    for group, rows in sorted(by_group.items()):
        x = np.array([[getattr(d, f) for f in FEATURES] for d in rows])
        y = np.array([d.accepted for d in rows], dtype=float)
        episodes = np.array([d.episode for d in rows])
        reported = min(d.orders for d in rows)
        for model, order in MODEL_ORDER.items():
            if order > reported:
                continue
            fit = fit_utility(x, y, model, grid)
            scores = cross_validate(x, y, episodes, model, folds, grid)
            coef = fit.coefficients()
            total = float(np.abs(coef).sum()) or 1.0
            row: dict[str, Any] = {"group": group, "model": model, "n_decisions": len(rows),
                                   "n_episodes": len(set(episodes)), "accept_rate": float(y.mean()),
                                   "macro_f1_mean": float(np.mean(scores)) if scores else math.nan,
                                   "macro_f1_std": float(np.std(scores)) if scores else math.nan,
                                   "beta": fit.beta, "intercept": fit.intercept}
            for name in ("rho", "w1", "gamma", "w2", "kappa"):
                row[name] = fit.params.get(name, math.nan)
            for name, c in zip(FEATURES, coef):
                row[f"c_{name}"] = float(c / total) if MODEL_ORDER[model] >= int(name[1]) else math.nan
            out.append(row)
    return out


def normalized(coefficients: Mapping[str, float]) -> dict[str, float]:
    total = sum(abs(v) for v in coefficients.values()) or 1.0
    return {k: v / total for k, v in coefficients.items()}


def recovery(fit_row: Mapping[str, Any], truth: Mapping[str, float]) -> dict[str, Any]:
    """Compare fitted normalized coefficients with known ones: signs and order of magnitudes."""
    truth_n = normalized(truth)
    fitted = {k: float(fit_row[f"c_{k}"]) for k in truth}
    signs = all(math.copysign(1, fitted[k]) == math.copysign(1, v) for k, v in truth_n.items() if v != 0)
    order_truth = sorted(truth_n, key=lambda k: -abs(truth_n[k]))
    order_fit = sorted(fitted, key=lambda k: -abs(fitted[k]))
    from scipy.stats import spearmanr
    rho = float(spearmanr([abs(truth_n[k]) for k in truth], [abs(fitted[k]) for k in truth]).statistic)
    return {"signs_match": signs, "order_truth": order_truth, "order_fit": order_fit,
            "order_match": order_truth == order_fit, "spearman_abs": rho, "truth": truth_n, "fitted": fitted}


# ------------------------------------------------------------------ output

def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> None:
    from sim.redact import DictWriter

    columns = list(columns or (rows[0].keys() if rows else []))
    with open(path, "w", newline="") as fh:
        writer = DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def figures(data: Dataset, kl: Sequence[Mapping[str, Any]], proposals: Sequence[Mapping[str, Any]],
            fits: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The four figures as matplotlib Figures (the app embeds them; ``analyze`` saves them)."""
    from matplotlib.figure import Figure  # no pyplot: no backend switch inside the app

    figs: dict[str, Any] = {}
    # Figure 4: KL per turn
    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = fig.add_subplot()
    summary = kl_summary(kl)
    for group in sorted({s["group"] for s in summary}):
        pts = [s for s in summary if s["group"] == group]
        t = np.array([s["turn"] for s in pts])
        m = np.array([s["kl_mean"] for s in pts])
        e = np.array([s["kl_sem"] for s in pts])
        ax.plot(t, m, marker="o", label=group)
        ax.fill_between(t, m - e, m + e, alpha=0.2)
    ax.set_xlabel("turn")
    ax.set_ylabel("KL(opponent V0 || own V1)")
    ax.set_title("First-order ToM accuracy per turn")
    if summary:
        ax.legend(fontsize=8)
    figs["kl_per_turn"] = fig
    # Figure 5a: proposal scatter per group
    groups = sorted({p.group for p in data.proposals})
    fig = Figure(figsize=(4.0 * max(1, len(groups)), 4.0), layout="constrained")
    for k, group in enumerate(groups or ["(no proposals)"]):
        ax = fig.add_subplot(1, max(1, len(groups)), k + 1)
        rows = [p for p in data.proposals if p.group == group]
        x = np.array([p.request_value for p in rows])
        y = np.array([p.offer_value for p in rows])
        colors = ["tab:green" if p.accepted else "tab:red" if p.accepted is False else "tab:gray" for p in rows]
        ax.scatter(x, y, c=colors, s=14, alpha=0.6)
        summ = next((s for s in proposals if s["group"] == group), None)
        if summ and not math.isnan(summ["m"]) and len(x):
            c = float(np.polyfit(x, y, 1)[1])
            xs = np.linspace(0, max(x.max(), 1), 20)
            ax.plot(xs, summ["m"] * xs + c, color="black", lw=1)
            ax.set_title(f"{group}\nr={summ['r']:.2f}  m={summ['m']:.2f}", fontsize=9)
        else:
            ax.set_title(group, fontsize=9)
        ax.set_xlabel("requested value (own V0)")
        ax.set_ylabel("offered value (own V0)")
    figs["proposal_scatter"] = fig
    # Figure 5b: m-r map with bootstrap intervals
    fig = Figure(figsize=(5.6, 4.4), layout="constrained")
    ax = fig.add_subplot()
    for s in proposals:
        if math.isnan(s["m"]) or math.isnan(s["r"]):
            continue
        ax.errorbar(s["r"], s["m"], xerr=[[s["r"] - s["r_ci_low"]], [s["r_ci_high"] - s["r"]]],
                    yerr=[[s["m"] - s["m_ci_low"]], [s["m_ci_high"] - s["m"]]], fmt="o", capsize=3,
                    label=s["group"])
    by_kind: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for s in proposals:
        kind = s["group"].split(" order=")[0]
        if not math.isnan(s["m"]) and not math.isnan(s["r"]):
            by_kind[kind].append(s)
    for pts in by_kind.values():
        pts = sorted(pts, key=lambda s: s["group"])
        for a, b in zip(pts, pts[1:]):
            ax.annotate("", xy=(b["r"], b["m"]), xytext=(a["r"], a["m"]),
                        arrowprops={"arrowstyle": "->", "color": "gray"})
    ax.axhline(1.0, color="gray", lw=0.5, ls="--")
    ax.set_xlabel("Pearson r (offer vs request)")
    ax.set_ylabel("slope m (offer / request)")
    ax.set_title(f"Strategic consistency map (90% bootstrap CI, B={BOOTSTRAP})")
    if proposals:
        ax.legend(fontsize=8)
    figs["strategy_map"] = fig
    # Figure 6: normalized coefficients
    fig = Figure(figsize=(7.0, 0.6 + 0.45 * max(1, len(fits))), layout="constrained")
    ax = fig.add_subplot()
    mat = np.array([[r.get(f"c_{f}", math.nan) for f in FEATURES] for r in fits]) if fits else np.zeros((1, 6))
    im = ax.imshow(np.nan_to_num(mat), cmap="coolwarm", vmin=-1, vmax=1, aspect="auto")
    ax.set_xticks(range(6), FEATURES)
    ax.set_yticks(range(len(fits)), [f"{r['group']} {r['model']}" for r in fits] if fits else [])
    for (i, j), v in np.ndenumerate(mat):
        if not math.isnan(v):
            ax.text(j, i, f"{v:+.2f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax, shrink=0.8)
    ax.set_title("Normalized coefficients of the decision models")
    figs["utility_coefficients"] = fig
    return figs


def analyze(paths: Iterable[str | Path], out: str | Path, *, bootstrap: int = BOOTSTRAP,
            grid: Mapping[str, Sequence[float]] = GRID, folds: int = 3, plots: bool = True) -> dict[str, Any]:
    """Run the three analyses on recordings and write CSV tables (and PNG plots) into ``out``."""
    data = collect(paths)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    kl = kl_rows(data)
    proposals = proposal_summary(data, bootstrap=bootstrap)
    fits = utility_fits(data, grid=grid, folds=folds)
    _write_csv(out / "kl_per_turn.csv", kl, ["episode", "group", "player", "opponent", "turn", "stage", "kl"])
    _write_csv(out / "kl_summary.csv", kl_summary(kl), ["group", "turn", "n", "kl_mean", "kl_sem"])
    _write_csv(out / "proposals.csv", [asdict(p) for p in data.proposals],
               ["episode", "group", "proposer", "partner", "turn", "request_value", "offer_value", "accepted"])
    _write_csv(out / "proposal_summary.csv", proposals,
               ["group", "n_proposals", "n_episodes", "r", "r_ci_low", "r_ci_high", "r_p_value", "m", "m_ci_low",
                "m_ci_high", "bootstrap", "accept_rate"])
    _write_csv(out / "decisions.csv", [asdict(d) for d in data.decisions],
               ["episode", "group", "decider", "turn", "accepted", "orders", *FEATURES])
    _write_csv(out / "utility_fit.csv", fits,
               ["group", "model", "n_decisions", "n_episodes", "accept_rate", "macro_f1_mean", "macro_f1_std",
                "rho", "w1", "gamma", "w2", "kappa", "beta", "intercept", *[f"c_{f}" for f in FEATURES]])
    written = [p.name for p in sorted(out.glob("*.csv"))]
    if plots:
        for name, fig in figures(data, kl, proposals, fits).items():
            fig.savefig(out / f"{name}.png", dpi=120)
            written.append(f"{name}.png")
    return {"episodes": len(data.episodes), "reports": len(data.reports), "proposals": len(data.proposals),
            "decisions": len(data.decisions), "kl": kl_summary(kl), "proposal_summary": proposals,
            "utility_fit": fits, "files": written, "warnings": data.warnings}
