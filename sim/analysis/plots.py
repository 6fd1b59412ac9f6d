"""Bar charts with error bars and significance marks, like Figures 3 and A10 of seed 003;
forest plots of effects with their intervals and paired plots of one value per scenario.

One panel per metric; one bar per condition (mean ± standard error); a bracket with
``*``/``**``/``***`` between the reference condition and each condition it differs from
(adjusted p-values). Figures are written as PNG with matplotlib's Agg backend.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sim.analysis.stats import MeanSem, stars  # noqa: E402


def _save(fig: Any, path: str | Path, dpi: int = 110, layout: Any = None) -> Path:
    """Lay ``fig`` out (``layout``, by default ``tight_layout``), write it to ``path`` (its
    folder made) and close it."""
    (layout or tight_layout)(fig)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path

def warm_up() -> None:
    """Draw a small figure into memory: what the first figure of a process would load on its way
    (the Agg canvas and its renderer, the font and its metrics, PIL's PNG writer) is loaded
    now, so that a process that forks the drawing processes afterwards hands it to each."""
    import io

    fig, ax = plt.subplots(figsize=(2, 2), dpi=110)
    ax.bar([0, 1], [1.0, 0.5], yerr=[0.1, 0.1], capsize=4)
    ax.set_xticks([0, 1], ["a", "b"], rotation=30, ha="right")
    ax.set_title("warm", y=1.0)
    ax.text(0.5, 1.0, "*")
    fig.suptitle("warm")
    tight_layout(fig)
    fig.savefig(io.BytesIO(), format="png", dpi=110)
    plt.close(fig)


def wrapped(text: str, width_inches: float, fontsize: float = 12.0) -> str:
    """``text`` broken into lines that fit ``width_inches`` at ``fontsize`` (about 0.55 em a
    character), so a long title never runs off a narrow figure."""
    per_line = max(12, int(width_inches * 72 / (0.55 * fontsize)))
    return "\n".join(textwrap.wrap(text, per_line)) or text


def tight_layout(fig: Any) -> None:
    """``fig.tight_layout()`` without the placeholder layout engine it leaves on the figure,
    for which ``savefig`` lays the figure out once more (a whole draw without rendering) before
    the draw that writes the file: the same layout and the same PNG, one draw fewer.

    The tight layout measures every Axes twice (its second pass fits the subplots into the
    margins the first found) while nothing moves between the two: each Axes is measured once
    here (``_measured_once``), which halves the layout's cost (the text extents of every tick
    label and title) and gives the same numbers."""
    from matplotlib.layout_engine import TightLayoutEngine

    for ax in fig.axes:
        ax.get_tightbbox = _measured_once(ax.get_tightbbox)
    try:
        TightLayoutEngine().execute(fig)
    finally:
        for ax in fig.axes:
            del ax.get_tightbbox  # the method again, for the draws to come


def _measured_once(measure: Any) -> Any:
    """``measure`` (an Axes' ``get_tightbbox``) answering a repeated call from its first answer."""
    answers: dict[Any, Any] = {}

    def once(renderer: Any = None, *args: Any, **kwargs: Any) -> Any:
        key = (id(renderer), args, tuple(sorted(kwargs.items())))
        if key not in answers:
            answers[key] = measure(renderer, *args, **kwargs)
        return answers[key]

    return once


def measured_layout(fig: Any) -> None:
    """The tight layout's margins and spacing (matplotlib's own arithmetic) from boxes measured
    off what each Axes puts around it (``_around``), without walking its artists: the tick
    labels' strings measured where the ticks will be, the tick marks from their length, the
    titles and texts as they are. The figure should be at the resolution it is saved at, so
    that the text measured here is measured once for the draw as well.

    Matplotlib's own measure places and measures every tick of every axis twice (once for the
    axis, once to place its label) and every artist of the Axes; for the nine-panel per-group
    grid that was a third of its drawing time."""
    from matplotlib.layout_engine import TightLayoutEngine

    for ax in fig.axes:
        ax.get_tightbbox = _measured_once(lambda renderer=None, *args, _ax=ax, **kwargs: _around(_ax, renderer))
    try:
        TightLayoutEngine().execute(fig)
    finally:
        for ax in fig.axes:
            del ax.get_tightbbox


def _around(ax: Any, renderer: Any) -> Any:
    """The box (in pixels) of ``ax`` and what is drawn around it, for the layout: what
    ``Axes.get_tightbbox(for_layout_only=True)`` gives, measured from strings and lengths."""
    from matplotlib.spines import Spine
    from matplotlib.transforms import Bbox

    fig = ax.get_figure(root=True)
    if renderer is None:
        renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    boxes = [frame]
    if ax.axison:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_visible() and axis.get_in_layout():
                boxes += _axis_boxes(axis, frame, renderer)
    for title in (ax.title, ax._left_title, ax._right_title):
        if title.get_visible():
            box = title.get_window_extent(renderer)
            if box.width > 0:  # its width does not count, as in matplotlib's layout
                box.x0 = (box.x0 + box.x1) / 2 - 0.5
                box.x1 = box.x0 + 1.0
            boxes.append(box)
    for artist in ax.get_default_bbox_extra_artists():
        if isinstance(artist, Spine):
            continue  # the frame and the tick marks (``_axis_boxes``)
        box = artist.get_tightbbox(renderer)
        if box is not None and box._is_finite():
            boxes.append(box)
    return Bbox.union(boxes)


def _axis_boxes(axis: Any, frame: Any, renderer: Any) -> list[Any]:
    """The boxes of an axis's tick marks (outward, on the bottom or left spine), tick labels
    (each string where its tick will be, with its tick label's font, rotation and alignment),
    its label (where matplotlib places it: below or left of the tick labels by its pad; an
    empty label is a point there) and its offset text."""
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox, IdentityTransform

    fig = axis.get_figure(root=True)
    boxes = []
    tick = axis.majorTicks[0]
    scale = axis.get_transform()  # the ticks drawn, as matplotlib chooses them: in the view (1e-10 of it to spare)
    low, high = sorted(scale.transform(axis.get_view_interval()))
    spare = (high - low) * 1e-10
    every = list(axis.get_majorticklocs())
    locs = [loc for loc in every if low - spare <= scale.transform(loc) <= high + spare]
    x_axis = axis.axis_name == "x"
    marks = frame.frozen()
    if locs and tick.tick1line.get_visible() and tick._tickdir != "in":
        out = tick._size / 72 * fig.dpi * (1 if tick._tickdir == "out" else 0.5)
        if x_axis:
            marks.y0 -= out
        else:
            marks.x0 -= out
    boxes.append(marks)
    labels = []
    if locs and tick.label1.get_visible():
        shown = dict(zip(every, axis.major.formatter.format_ticks(every)))
        transform = tick.label1.get_transform()
        for loc in locs:
            x, y = transform.transform((loc, 0) if x_axis else (0, loc))
            text = Text(x, y, shown[loc])
            text.update_from(tick.label1)
            text.set_rotation_mode(tick.label1.get_rotation_mode())
            text.set_transform(IdentityTransform())
            text.set_figure(fig)
            labels.append(text.get_window_extent(renderer))
    boxes += labels
    edge = Bbox.union([*labels, marks])
    pad = axis.labelpad * fig.dpi / 72
    if axis.label.get_visible() and axis._autolabelpos:
        x, y = axis.label.get_position()
        if x_axis and axis.label_position == "bottom":
            axis.label.set_position((x, edge.y0 - pad))
        elif not x_axis and axis.label_position == "left":
            axis.label.set_position((edge.x0 - pad, y))
    if axis.label.get_visible():
        box = axis.label.get_window_extent(renderer)
        if x_axis and box.width > 0:  # as in matplotlib's layout: the label's length does not count
            box.x0, box.x1 = (box.x0 + box.x1) / 2 - 0.5, (box.x0 + box.x1) / 2 + 0.5
        if not x_axis and box.height > 0:
            box.y0, box.y1 = (box.y0 + box.y1) / 2 - 0.5, (box.y0 + box.y1) / 2 + 0.5
        boxes.append(box)
    if axis.offsetText.get_visible() and axis.major.formatter.get_offset():
        raise ValueError("measured_layout: an axis with an offset text (plain numbers only)")
    return [b for b in boxes if b._is_finite()]


#: ten distinct colours (the designs have up to nine conditions): a condition's bar never takes
#: another's colour
PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
           "#ccb974", "#64b5cd")


def bar_panel(ax, title: str, conditions: Sequence[str], values: Mapping[str, MeanSem],
              p_values: Mapping[str, float] | None = None, reference: str | None = None,
              ylim: tuple[float, float] | None = None, name_conditions: bool = True) -> None:
    """One metric: bars with SEM error bars; brackets from ``reference`` to each condition
    whose adjusted p-value in ``p_values`` is below 0.05. Without ``name_conditions`` the x
    ticks are left to the panel ``ax`` shares its x axis with (setting them on every panel of a
    shared axis sets them again on all of them)."""
    xs = range(len(conditions))
    means = [values[c].mean for c in conditions]
    sems = [values[c].sem for c in conditions]
    colors = [PALETTE[i % len(PALETTE)] for i in xs]
    ax.bar(xs, means, yerr=sems, color=colors, capsize=4, edgecolor="black", linewidth=0.6)
    if name_conditions:
        ax.set_xticks(list(xs), conditions, rotation=30, ha="right")
    # The title at its place above the Axes (y=1.0), not placed by matplotlib on every draw,
    # which measures every y tick label for a multiplier ("1e6") that could collide with it:
    # the y axis shows plain numbers, never a multiplier or an offset.
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    ax.set_title(wrapped(title, ax.get_position().width * ax.figure.get_figwidth()), y=1.0)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.spines[["top", "right"]].set_visible(False)
    tops = [m + (s if s == s else 0) for m, s in zip(means, sems)]
    finite = [t for t in tops if t == t] or [1.0]
    span = (max(finite) - min(0.0, min(finite))) or 1.0
    level = max(finite) + 0.08 * span
    if p_values and reference in conditions:
        r = conditions.index(reference)
        for c in conditions:
            mark = stars(p_values.get(c, 1.0)) if c != reference else ""
            if not mark:
                continue
            k = conditions.index(c)
            lo, hi = sorted((r, k))
            ax.plot([lo, lo, hi, hi], [level - 0.02 * span, level, level, level - 0.02 * span],
                    color="black", linewidth=0.8)
            ax.text((lo + hi) / 2, level, mark, ha="center", va="bottom", fontsize=10)
            level += 0.1 * span
    if ylim is not None:
        ax.set_ylim(*ylim)
    else:
        bottom = min(0.0, min(m - s for m, s in zip(means, sems) if m == m) if any(m == m for m in means) else 0.0)
        ax.set_ylim(bottom * 1.15 if bottom < 0 else 0, level + 0.05 * span)


def metric_figure(path: str | Path, title: str, conditions: Sequence[str],
                  metrics: Sequence[tuple[str, str]], values: Mapping[str, Mapping[str, MeanSem]],
                  p_values: Mapping[str, Mapping[str, float]], reference: str) -> Path:
    """One row of panels: ``metrics`` are (key, panel title); ``values[key][condition]``;
    ``p_values[key][condition]``: adjusted p of reference vs condition."""
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.6 * len(metrics), 3.8), squeeze=False)
    for ax, (key, label) in zip(axes[0], metrics):
        bar_panel(ax, label, conditions, values[key], p_values.get(key), reference)
    fig.suptitle(wrapped(title, fig.get_figwidth()))
    return _save(fig, path, dpi=120)


def grid_figure(path: str | Path, title: str, groups: Sequence[tuple[str, str]], conditions: Sequence[str],
                metrics: Sequence[tuple[str, str]], values: Mapping[str, Mapping[str, Mapping[str, MeanSem]]],
                p_values: Mapping[str, Mapping[str, Mapping[str, float]]], reference: str) -> Path:
    """One row per group (e.g. scenario category): ``values[group][metric][condition]``; the
    rows share their x axis, the conditions named under the bottom row only."""
    dpi = 110
    fig, axes = plt.subplots(len(groups), len(metrics), figsize=(3.6 * len(metrics), 3.4 * len(groups)),
                             squeeze=False, sharex=True, dpi=dpi)
    for row, (group, group_label) in enumerate(groups):
        for col, (key, label) in enumerate(metrics):
            bar_panel(axes[row][col], f"{group_label}: {label}", conditions, values[group][key],
                      p_values.get(group, {}).get(key), reference, name_conditions=row == len(groups) - 1)
    fig.suptitle(wrapped(title, fig.get_figwidth()))
    return _save(fig, path, dpi=dpi, layout=measured_layout)


def effect_figure(path: str | Path, title: str, rows: Sequence[Mapping[str, Any]], *,
                  confidence: float = 0.95) -> Path:
    """A forest plot: one line per comparison (``label``), its mean difference (``estimate``) with
    the interval (``low``, ``high``) and the marks of its adjusted p (``p_adj``), one panel per
    ``panel`` (a metric)."""
    panels = list(dict.fromkeys(str(r["panel"]) for r in rows))
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(3.8 * max(1, len(panels)), 0.9 + 0.45 * max(
        (sum(1 for r in rows if r["panel"] == p) for p in panels), default=1)), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        mine = [r for r in rows if r["panel"] == panel]
        ys = list(range(len(mine)))[::-1]
        for y, r in zip(ys, mine):
            est, low, high = float(r["estimate"]), float(r["low"]), float(r["high"])
            ax.plot([low, high], [y, y], color="black", linewidth=1.2)
            ax.plot([est], [y], "o", color=PALETTE[0])
            mark = stars(float(r.get("p_adj", 1.0)))
            if mark:
                ax.text(high, y + 0.12, " " + mark, va="bottom", fontsize=9)
        ax.axvline(0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_yticks(ys, [str(r["label"]) for r in mine])
        ax.set_title(panel, y=1.0)  # its place fixed, as in bar_panel (no multiplier on a category axis)
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_ylim(-0.7, len(mine) - 0.3)
    fig.suptitle(wrapped(f"{title} (mean difference, {confidence:.0%} bootstrap interval)", fig.get_figwidth(), 10),
                 fontsize=10)
    return _save(fig, path)


def share_figure(path: str | Path, title: str, rows: Sequence[Mapping[str, Any]], *,
                 confidence: float = 0.95) -> Path:
    """Each condition's share of the available gain (``estimate``) with its interval (``low``,
    ``high``; infinite bounds drawn to the panel's edge with an arrow), one line per ``label``
    and one panel per ``panel`` (a metric); dashed lines at 0 (the floor) and 1 (the ceiling)."""
    panels = list(dict.fromkeys(str(r["panel"]) for r in rows))
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(3.8 * max(1, len(panels)), 0.9 + 0.45 * max(
        (sum(1 for r in rows if r["panel"] == p) for p in panels), default=1)), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        mine = [r for r in rows if r["panel"] == panel]
        ys = list(range(len(mine)))[::-1]
        finite = [float(v) for r in mine for v in (r["estimate"], r["low"], r["high"])
                  if v == v and abs(float(v)) != float("inf")] + [0.0, 1.0]
        left, right = min(finite) - 0.15, max(finite) + 0.15
        for y, r in zip(ys, mine):
            est, low, high = float(r["estimate"]), float(r["low"]), float(r["high"])
            if est != est:
                continue
            a, b = max(low, left) if low == low else est, min(high, right) if high == high else est
            ax.plot([a, b], [y, y], color="black", linewidth=1.2)
            for end, bound, side in ((a, low, "<"), (b, high, ">")):
                if abs(bound) == float("inf"):
                    ax.plot([end], [y], side, color="black", markersize=5)
            ax.plot([est], [y], "o", color=PALETTE[0])
        for x, text in ((0.0, "floor"), (1.0, "ceiling")):
            ax.axvline(x, color="grey", linewidth=0.8, linestyle="--")
            ax.text(x, len(mine) - 0.35, text, ha="center", va="bottom", fontsize=8, color="grey")
        ax.set_xlim(left, right)
        ax.set_yticks(ys, [str(r["label"]) for r in mine])
        ax.set_title(panel, y=1.0)  # its place fixed, as in bar_panel (no multiplier on a category axis)
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_ylim(-0.7, len(mine) + 0.1)
    fig.suptitle(wrapped(f"{title} (share of the gain, {confidence:.0%} Fieller interval)", fig.get_figwidth(), 10),
                 fontsize=10)
    return _save(fig, path)


def paired_figure(path: str | Path, title: str, conditions: Sequence[str],
                  units: Mapping[str, Mapping[str, float]], ylabel: str) -> Path:
    """One line per unit (scenario) across the conditions: paired data drawn as paired."""
    fig, ax = plt.subplots(figsize=(1.4 + 1.2 * len(conditions), 3.8))
    xs = list(range(len(conditions)))
    for by_condition in units.values():
        points = [(x, by_condition[c]) for x, c in zip(xs, conditions) if c in by_condition]
        ax.plot([p[0] for p in points], [p[1] for p in points], "-o", color="grey", alpha=0.45, markersize=3,
                linewidth=0.8)
    means = [sum(u[c] for u in units.values() if c in u) / max(1, sum(1 for u in units.values() if c in u))
             for c in conditions]
    ax.plot(xs, means, "-s", color=PALETTE[0], linewidth=2, markersize=6, label="mean")
    ax.set_xticks(xs, conditions, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)  # the title's place fixed, as in bar_panel
    ax.set_title(wrapped(title, fig.get_figwidth(), 10), fontsize=10, y=1.0)
    ax.legend(frameon=False, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return _save(fig, path)
