"""The diagram of Part IV: the two roads, side by side (chapter 11)."""

from __future__ import annotations

import numpy as np

from ..._arguments import arguments
from ...lower_bounds import n_monomials
from .._style import COLORS, styled
from ._canvas import FONT, SMALL, WIDTH, canvas, draw_arrow, draw_box, side_of

# --------------------------------------------------------------------------- chapter 11: two roads


@arguments(d="size", heads="sizes")
@styled
def plot_two_roads(*, d: int = 16, heads=(2, 3, 4, 5)):
    """The two results as two roads: assumptions, algorithm, cost, and where the lower bound bites.

    Parameters
    ----------
    d : int, default 16
        Token dimension used for the cost chart (monomials in the ``2d`` entries of two tokens).
    heads : sequence of int, default (2, 3, 4, 5)
        The numbers of heads m on the chart's axis (1 to 5 of them).

    Returns
    -------
    matplotlib.figure.Figure
        Top, two columns of boxes: linear attention (Yau et al.) and softmax attention on the
        hypercube (Chen and Li; the middle of that column is the book's reconstruction). The last
        box of the softmax column, drawn with a heavy edge, holds its cost and the lower bound.
        Below, a chart on a log scale: the number of monomials of degree at most ``D`` that a
        polynomial method must fit (``attnlib.lower_bounds.n_monomials(2d, D)``) against m, with
        ``D = 3`` for linear attention whatever m (a flat line) and ``D = 2m - 1`` for the softmax
        family of chapter 10 (a rising one), each point of it labelled with its degree.

    Examples
    --------
    >>> len(plot_two_roads().axes)
    2
    """
    ms = list(heads)
    if len(ms) > 5:
        raise ValueError(f"heads must list 1 to 5 numbers of heads; received {list(heads)}")
    ms = sorted(set(ms))
    # two columns of boxes, one per result, inside the canvas; below them the chart of the cost
    margin, col_gap, bw, bh, gap = 0.06, 0.24, 0.0, 0.82, 0.3
    bw = (WIDTH - 2 * margin - col_gap) / 2
    chart_h, chart_top = 2.3, 3.35  # the chart's axes: height, and the top of its title
    lane_top = chart_top + 0.25 + 4 * bh + 3 * gap
    fig, ax = canvas(WIDTH, lane_top + 0.62)
    lanes = [
        (margin, 0, "linear attention\n(Yau et al.)",
         ["any inputs, any labels\n(agnostic)", "$m$ heads of linear\nattention: cubic in $X$",
          "least squares on $\\psi$ cubic\nfeatures; SVD back to\n$\\leq d^2$ heads",
          "cost polynomial in $d$,\nthe same for every $m$"]),
        (margin + bw + col_gap, 1, "softmax attention\n(Chen and Li)",
         ["inputs uniform on $\\{\\pm1\\}^{k\\times d}$,\nlabels from a hidden layer",
          "$m$ heads of softmax\nattention", "sculpt a convex body, then\nthe heads (Part III:\nour reconstruction)",
          "time $(dk)^{O(m^3)}$; lower\nbound: some exponential\nin $m$"]),
    ]
    for x, color, title, stages in lanes:
        ax.text(x + bw / 2, lane_top + 0.06, title, ha="center", va="bottom", fontsize=FONT, weight="bold",
                linespacing=1.25)
        prev = None
        for k, text in enumerate(stages):
            b = draw_box(ax, x, lane_top - (k + 1) * bh - k * gap, bw, bh, text, color=color, size=SMALL,
                     ls="-" if color == 0 else "--")
            if color == 1 and k == len(stages) - 1:  # the wall: the lower bound, a heavy solid edge
                ax.patches[-1].set(lw=3.0, ls="-")
            if prev is not None:
                draw_arrow(ax, side_of(prev, "bottom"), side_of(b, "top"))
            prev = b
    # below: the monomials a polynomial method must fit, against m; flat for one road, rising for the other
    ax.text(margin, chart_top, f"Where the lower bound bites: monomials of degree $\\leq D$ to fit,\n"
            f"in the $2d={2 * d}$ entries of two tokens ($d={d}$)", ha="left", va="top", fontsize=SMALL,
            linespacing=1.3)
    left, bottom = 1.0, 0.55
    chart = fig.add_axes((left / WIDTH, bottom / fig.get_figheight(), (WIDTH - left - 0.25) / WIDTH,
                          chart_h / fig.get_figheight()))
    roads = [("linear", "linear attention: $D = 3$ for every $m$", lambda m: 3),
             ("softmax", "softmax family (ch. 10): $D = 2m-1$", lambda m: 2 * m - 1)]
    counts = {}
    for j, (gid, _label, degree) in enumerate(roads):
        counts[gid] = [n_monomials(2 * d, degree(m)) for m in ms]
        line, = chart.plot(ms, counts[gid], color=COLORS[j], marker=("o", "s")[j], ls=("-", "--")[j],
                           gid=f"monomials-{gid}")
    high = max(counts["softmax"] + counts["linear"])
    # direct labels: the flat line's under its right end, the rising one's in the empty upper left
    chart.text(ms[-1] + 0.2, counts["linear"][-1] / 3, roads[0][1], ha="right", va="top", fontsize=SMALL,
               color=COLORS[0], gid="label-linear")
    chart.text(ms[0] - 0.2, high * 3, roads[1][1], ha="left", va="top", fontsize=SMALL, color=COLORS[1],
               gid="label-softmax")
    for m, count in zip(ms, counts["softmax"], strict=True):
        if 2 * m - 1 != 3:
            chart.annotate(f"$D={2 * m - 1}$", (m, count), xytext=(-6, 6), textcoords="offset points",
                           ha="right", va="bottom", fontsize=SMALL, gid=f"degree-softmax-{m}")
    chart.set_yscale("log")
    chart.set_xticks(ms)
    chart.set_xlim(ms[0] - 0.3, ms[-1] + 0.3)
    bottom_y, top_y = min(counts["linear"]) / 30, high * 10
    chart.set_ylim(bottom_y, top_y)
    chart.set_yticks([10.0**k for k in range(int(np.ceil(np.log10(bottom_y))), int(np.log10(top_y)) + 1)])
    chart.minorticks_off()
    chart.set_xlabel("heads $m$", fontsize=SMALL)
    chart.set_ylabel("monomials", fontsize=SMALL)
    return fig
