"""Figures of chapters 7 and 8: recovery, slices of the body, the slice threshold."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..._arguments import arguments, choice, sequence_of, structure
from ..._validation import check_instance, check_series
from ...heads import Heads
from ...sculpt import Body, body_slice
from ...sculpt.diagnostics import SliceCurves
from ...sculpt.geometry import clip_edges, head_plane, plane_coordinates
from .._kinds import LABEL, OPTLABEL, same_length
from .._style import COLORS, COLUMN_IN, GREYS, legend_below, series, styled, subplots

#: what :func:`plot_slice_threshold` calls the curves of a :class:`~attnlib.sculpt.diagnostics.SliceCurves`
SLICE_LABELS = {"true_proxy": "true Theta*", "sculpted_proxy": "sculpted proxy"}


@arguments(x="axis", errors="series", xlabel=LABEL, ylabel=LABEL, threshold="optreal", threshold_label=LABEL,
           xscale=choice("linear", "log"), title=OPTLABEL)
@styled
def plot_recovery(x, errors: dict, *, xlabel: str = "examples N", ylabel: str = "relative error",
                  threshold: float | None = None, threshold_label: str = "", xscale: str = "linear",
                  title: str | None = None):
    """Errors (log scale) against a resource, one line per key, with an optional vertical marker.

    Parameters
    ----------
    x : array_like of shape (T,)
    errors : dict of str -> array_like of shape (T,)
        Non-positive entries are drawn at the bottom of the axis (exact recovery).
        The keys ``"W"`` and ``"Theta"`` are typeset as maths in the legend.
    threshold : float, optional
        Draw a dashed vertical line there (e.g. the counting bound d^2 / n).
    xscale : {"linear", "log"}, default "linear"
        ``"log"`` for sizes on a geometric grid, so that a drop near the smallest
        size is not crushed against the left edge.

    Returns
    -------
    matplotlib.figure.Figure
    """
    same_length("errors", errors, x.size)
    x = np.asarray(x, dtype=float)
    if xscale == "log" and np.any(x <= 0):
        raise ValueError(f"x must be positive on a log axis; received min {x.min():g}")
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    floor = 1e-16
    for j, (label, y) in enumerate(errors.items()):
        y = np.maximum(np.asarray(y, dtype=float), floor)
        ax.plot(x, y, **series(j), ms=5, label=_typeset(label))
    if threshold is not None:
        ax.axvline(threshold, color=GREYS["mid"], ls=(0, (6, 3)), lw=1.2, label=threshold_label or None)
    ax.set_yscale("log")
    ax.set_xscale(xscale)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    legend_below(fig, ax)
    return fig


def _slice_view(heads: Heads, box: float | None = None) -> tuple[tuple[float, float], tuple[float, float], float]:
    """What :func:`plot_body_slices` shows: its x and y limits and the half-width of the square it clips to.

    With ``box`` the drawing goes to ``box`` along Theta_star and ``0.75 box`` either side. Without
    it, the drawing zooms on the origin, the tip of the slices and the heads: to 1.3 times the heads'
    coordinate along Theta_star and 1.3 times their distance from that axis (at least 0.6 times the
    former), inside a clipping square of 1.4 times their largest coordinate.
    """
    B = head_plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], B)  # heads in plane coordinates
    if box is not None:
        return (-0.1 * box, box), (-0.75 * box, 0.75 * box), box
    half = 1.4 * float(np.abs(pts).max())
    reach = float(pts[:, 0].max())
    top = min(max(1.3 * float(np.abs(pts[:, 1]).max()), 0.6 * reach), half)
    return (-0.08 * reach, min(1.3 * reach, half)), (-top, top), half


@arguments(bodies=structure("a list of Body (from attnlib.sculpt.sculpt_body)"), heads="heads",
           titles=sequence_of(str, optional=True),
           proxies=sequence_of(np.ndarray, list, optional=True), box="opttol")
@styled
def plot_body_slices(bodies: list, heads: Heads, *, titles=None, proxies=None, box: float | None = None):
    """Slices of sculpted bodies through the plane of the first two planted heads, drawn one over another.

    Parameters
    ----------
    bodies : list of Body
        One outline per body (e.g. built from more and more examples), in the order given.
    heads : Heads
        The planted layer (m >= 2); the plane is spanned by Theta_1 and Theta_2,
        drawn with Theta_star (their min-norm point) along the horizontal axis.
    titles : list of str, optional
        The name written for each body (default its ``repr``).
    proxies : list of ndarray of shape (d, d), optional
        Min-norm proxies, one per body, marked where they project onto the plane.
    box : float, optional
        How far the drawing goes along Theta_star (and 0.75 times that either side); by default it
        zooms on the origin, the slices' tips and the heads (:func:`_slice_view`).

    Returns
    -------
    matplotlib.figure.Figure
        One panel, to scale, whose view depends on the heads only (so drawings of
        different bodies compare). Each slice is outlined in its own colour and line
        style along the body's faces only (where a slice meets the edge of the drawing
        it is left open: the body is unbounded and goes on), and shaded in its colour
        over the slices before it, so a band between two outlines is what the later
        body cut away; a key under the panel names the outlines. With two or more
        bodies whose tips (the points of the slices furthest left, along Theta_star)
        differ, an arrow labelled "tip moves" runs from the first tip to the last.
        Black dots: the heads, labelled; dotted grey: the segment between them and the
        rays through them (the idealised body ``conv + cone`` up to scale); a plus: the
        origin. Open stars: the proxies projected onto the plane; a note in the top
        left corner gives their distance from it (a proxy is not in the plane, so its
        projection may fall outside the slice).
    """
    if isinstance(bodies, (str, bytes, dict)) or not hasattr(bodies, "__iter__"):
        raise TypeError(f"bodies must be a list of Body (from attnlib.sculpt.sculpt_body); "
                        f"received {type(bodies).__name__}")
    bodies = list(bodies)
    if not bodies:
        raise ValueError("bodies must hold at least one Body; received an empty list")
    for body in bodies:
        check_instance("bodies", body, Body, "attnlib.sculpt.sculpt_body")
    if proxies is not None and len(proxies) != len(bodies):
        raise ValueError(f"proxies must give one proxy per body ({len(bodies)}); received {len(proxies)}")
    if titles is not None and len(titles) != len(bodies):
        raise ValueError(f"titles must give one title per body ({len(bodies)}); received {len(titles)}")
    titles = [repr(b) for b in bodies] if titles is None else [str(t) for t in titles]
    B = head_plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], B)  # heads in plane coordinates
    (x0, x1), (y0, y1), half = _slice_view(heads, box)
    # to scale: at most 3.8 in tall and COLUMN_IN less the axis labels wide; the key below, one row
    height = min(3.8, (COLUMN_IN - 0.8) * (y1 - y0) / (x1 - x0))
    fig = plt.figure(figsize=(COLUMN_IN, height + 1.3), layout="constrained")
    ax = fig.add_subplot()
    tips, handles = [], []
    for j, (body, title) in enumerate(zip(bodies, titles, strict=True)):
        poly = body_slice(body, np.zeros((body.d, body.d)), B, box=half)
        style = series(j, marker=False)
        if len(poly):
            # white first, so each slice shows its own shade over the slices before it, not a sum of shades
            ax.fill(poly[:, 0], poly[:, 1], color="white", lw=0, zorder=1)
            ax.fill(poly[:, 0], poly[:, 1], color=style["color"], alpha=0.16, lw=0, zorder=1)
            closed = np.vstack([poly, poly[:1]])
            for k, clipped in enumerate(clip_edges(poly, half)):
                if not clipped:
                    ax.plot(closed[k:k + 2, 0], closed[k:k + 2, 1], color=style["color"], ls=style["ls"], lw=2,
                            solid_capstyle="round", zorder=3)
            tips.append(poly[np.argmin(poly[:, 0])])  # the tip: the slice's leftmost point
        handles.append(ax.plot([], [], color=style["color"], ls=style["ls"], lw=2, label=title)[0])
    for p in pts:
        ax.plot([0, p[0] * 10], [0, p[1] * 10], color=GREYS["mid"], lw=1, ls=":", zorder=2)
    ax.plot([pts[0, 0], pts[1, 0]], [pts[0, 1], pts[1, 1]], color=GREYS["mid"], lw=1, ls=":", zorder=2)
    ax.plot(pts[:, 0], pts[:, 1], "o", color="black", ms=7, zorder=4)
    for i, p in enumerate(pts):
        ax.annotate(rf"$\Theta_{i + 1}$", p, xytext=(7, 0), textcoords="offset points", va="center", zorder=5)
    ax.plot([0], [0], "+", color="black", ms=9, mew=1.5, zorder=4)
    ax.annotate("0", (0, 0), xytext=(-4, 4), textcoords="offset points", ha="right", va="bottom")
    if len(tips) >= 2 and tips[-1][0] - tips[0][0] > 0.02 * (x1 - x0):
        # the tip's move, drawn just below the first tip, named on its left
        y = tips[0][1] - 0.06 * (y1 - y0)
        ax.annotate("", (tips[-1][0], y), xytext=(tips[0][0], y),
                    arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 1.5, "shrinkA": 0, "shrinkB": 0})
        ax.annotate("tip moves", (tips[0][0], y), xytext=(-5, 0), textcoords="offset points", ha="right",
                    va="center", bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "lw": 0})
    if proxies is not None:
        offs = []
        for j, proxy in enumerate(proxies):
            q, off = plane_coordinates(np.asarray(proxy, dtype=float), B)
            offs.append(off)
            ax.plot(q[0], q[1], "*", color=series(j)["color"], mfc="white", mew=1.5, ms=15, zorder=4)
        far = f"{min(offs):.2f}" if np.ptp(offs) < 0.005 else f"{min(offs):.2f}–{max(offs):.2f}"
        ax.text(0.02, 0.98, f"☆ {'proxies' if len(proxies) > 1 else 'proxy'}, projected\n({far} off the plane)",
                transform=ax.transAxes, ha="left", va="top", zorder=5,
                bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "alpha": 0.8, "lw": 0})
    # the key under the panel, one column per body; a title "N = 300: 90 halfspaces" breaks after its colon
    fig.legend(handles=handles, labels=[t.replace(": ", ":\n", 1) for t in titles], loc="outside lower center",
               ncol=min(3, len(handles)), handlelength=2.4, columnspacing=1.2)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xlabel(r"along $\Theta^\star$")
    ax.set_ylabel(r"along $\Theta_1-\Theta^\star$")
    return fig


#: ASCII names of the library's results, as a figure writes them
TYPESET = {"true Theta*": r"true $\Theta^\star$", "Theta": r"$\Theta$", "W": "$W$"}


def _typeset(label: str) -> str:
    return TYPESET.get(label, label)


#: the relative errors of sum_i W_i are drawn over at least this range (near rounding to worse than useless)
ERROR_RANGE = (1e-6, 3.0)


@arguments(quantiles="axis", errors=structure("a dict of label -> one error per quantile, or a SliceCurves"),
           crude="optreal", title=OPTLABEL)
@styled
def plot_slice_threshold(quantiles, errors, *, crude: float | None = None, title: str | None = None):
    """Error of the phase-3 estimate of sum_i W_i against the slice size.

    Parameters
    ----------
    quantiles : array_like of shape (Q,)
        Slice sizes (fraction of rows kept, largest proxy margin first).
    errors : SliceCurves or dict of str -> array_like of shape (Q,)
        Relative errors, one curve per proxy: the curves of
        :func:`attnlib.sculpt.diagnostics.slice_threshold_data` (labelled by :data:`SLICE_LABELS`,
        with their crude error), or any curves by label.
    crude : float, optional
        The crude estimate's error, drawn as a horizontal line.

    Returns
    -------
    matplotlib.figure.Figure
        The error axis spans at least ``ERROR_RANGE``, so figures drawn for different
        heads share their scale.
    """
    if isinstance(errors, SliceCurves):
        curves, errors = errors, {label: getattr(errors, name) for name, label in SLICE_LABELS.items()
                                  if getattr(errors, name) is not None}
        crude = curves.crude if crude is None else crude
    q = quantiles
    errors = check_series("errors", errors, length=q.size)
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, y) in enumerate(errors.items()):
        ax.plot(q, np.maximum(np.asarray(y, dtype=float), 1e-16), **series(j), ms=5, label=_typeset(label))
    if crude is not None:
        ax.axhline(crude, color=COLORS[len(errors) % len(COLORS)], ls=(0, (6, 3)), lw=1.5, label="crude mean $X^TY$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    # one range for every such figure, so that two of them compare at a glance
    low, high = ax.get_ylim()
    ax.set_ylim(min(low, ERROR_RANGE[0]), max(high, ERROR_RANGE[1]))
    ax.set_xlabel("slice size (fraction of rows, largest proxy margin first)")
    ax.set_ylabel(r"relative error of $\sum_i W_i$")
    if title:
        ax.set_title(title)
    legend_below(fig, ax, ncol=min(3, len(errors) + (crude is not None)))
    return fig
