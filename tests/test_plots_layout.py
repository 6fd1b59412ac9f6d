"""The per-group grid's layout (``sim.analysis.plots.measured_layout``): the margins and spacing
matplotlib's tight layout gives, measured from the strings instead of through every tick, and
nothing written outside the figure or over another panel, long condition names included."""

from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sim.analysis.plots import grid_figure  # noqa: E402
from sim.analysis.stats import MeanSem  # noqa: E402

LONG = ["none", "protom-with-a-long-condition-name", "oracle-facilitator-with-free-information",
        "a-random-facilitator-that-hands-over-keys-at-random"]


def _grid(tmp_path, conditions, groups, metrics, scale=1.0, negative=False):
    """Draw a grid figure; the figure as it is written (laid out, drawn) is returned."""
    seen = {}
    real_savefig = plt.Figure.savefig

    def keep(fig, *args, **kwargs):
        seen["fig"] = fig
        seen["params"] = _params(fig)
        fig.canvas.draw()
        seen["texts"] = _texts(fig)
        return real_savefig(fig, *args, **kwargs)

    values = {g: {m: {c: MeanSem(scale * (i + 1) * (-1 if negative and i % 2 else 1), 0.1 * scale * (i + 1), 10)
                      for i, c in enumerate(conditions)} for m, _ in metrics} for g, _ in groups}
    p_values = {g: {m: {c: 0.001 for c in conditions[1:]} for m, _ in metrics} for g, _ in groups}
    plt.Figure.savefig = keep
    try:
        grid_figure(tmp_path / "groups.png", "per group of scenarios", groups, conditions, metrics, values, p_values,
                    conditions[0])
    finally:
        plt.Figure.savefig = real_savefig
    assert (tmp_path / "groups.png").stat().st_size > 0
    return seen


def _params(fig):
    p = fig.subplotpars
    return (p.left, p.right, p.bottom, p.top, p.wspace, p.hspace)


def _texts(fig):
    """(owner, box) of every text drawn: the figure's and each Axes' titles, tick labels, texts."""
    renderer = fig.canvas.get_renderer()
    found = [(None, t.get_window_extent(renderer)) for t in fig.texts if t.get_visible() and t.get_text()]
    for k, ax in enumerate(fig.axes):
        texts = [ax.title, *ax.texts, ax.xaxis.label, ax.yaxis.label]
        for axis in (ax.xaxis, ax.yaxis):
            texts += [t.label1 for t in axis.get_major_ticks() if t.label1.get_visible()
                      and axis.get_view_interval().min() - 1e-9 <= t.get_loc() <= axis.get_view_interval().max() + 1e-9]
        found += [(k, t.get_window_extent(renderer)) for t in texts if t.get_visible() and t.get_text()]
    return found


SHAPES = [
    (["a", "b"], [("g1", "group one")], [("m", "metric")]),
    (["none", "protom", "oracle", "random"], [("g1", "feedback not needed"), ("g2", "feedback useful"),
                                              ("g3", "feedback necessary")],
     [("success", "success rate"), ("speedup", "speedup"), ("feedback", "# feedback")]),
    (LONG, [("g1", "feedback not needed"), ("g2", "feedback useful")],
     [("success", "success rate"), ("speedup", "speedup")]),
    (LONG[:3], [("g1", "a group whose label is long enough to wrap over two lines")],
     [("tokens", "communication tokens per episode, a long metric title"), ("rate", "rate")]),
]


@pytest.mark.parametrize("shape", range(len(SHAPES)))
@pytest.mark.parametrize("scale,negative", [(1.0, False), (12345.0, True)])
def test_the_measured_layout_is_matplotlibs_tight_layout(tmp_path, shape, scale, negative):
    conditions, groups, metrics = SHAPES[shape]
    seen = _grid(tmp_path, conditions, groups, metrics, scale, negative)
    fig = seen["fig"]
    # matplotlib's own tight layout of the same figure, from the same starting place
    fig.subplots_adjust(**{k: matplotlib.rcParams[f"figure.subplot.{k}"]
                           for k in ("left", "right", "bottom", "top", "wspace", "hspace")})
    fig.tight_layout()
    assert seen["params"] == pytest.approx(_params(fig), abs=1e-9)
    plt.close(fig)


@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_no_text_leaves_the_figure_or_runs_over_another_panel(tmp_path, shape):
    conditions, groups, metrics = SHAPES[shape]
    seen = _grid(tmp_path, conditions, groups, metrics, scale=12345.0, negative=True)
    fig = seen["fig"]
    box = fig.bbox
    texts = seen["texts"]
    assert any(owner is not None and b.width > 200 for owner, b in texts) or conditions != LONG
    for owner, b in texts:
        assert box.x0 - 1 <= b.x0 and b.x1 <= box.x1 + 1 and box.y0 - 1 <= b.y0 and b.y1 <= box.y1 + 1, (owner, b)
    frames = [ax.get_window_extent() for ax in fig.axes]
    for owner, b in texts:
        for k, frame in enumerate(frames):
            if k != owner:
                assert not b.overlaps(frame), (owner, k, b, frame)
        for other, c in texts:
            if other != owner:
                assert not b.overlaps(c), (owner, other, b, c)
    plt.close(fig)
