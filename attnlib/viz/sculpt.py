"""Figures for Part III (the sculpting reconstruction). matplotlib is imported here, not by ``import attnlib``.

Every function draws one static figure from numbers the chapter computed with
:mod:`attnlib.sculpt` and returns the closed ``matplotlib.figure.Figure``, with
the book's style (the same as :mod:`attnlib.viz`). The explorers in
:mod:`attnlib.widgets.sculpt` call the same functions.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

from .._validation import (
    as_float_array,
    check_axis_values,
    check_instance,
    check_mapping,
    check_positive_float,
    check_series,
)
from ..heads import Heads, as_heads
from ..sculpt import METHOD_LABELS, Body, body_slice
from ..sculpt.diagnostics import PhaseDiagnostics, SliceCurves, phase_report_entries
from ..sculpt.instances import min_norm_point
from ._style import COLORS, COLUMN_IN, GREYS, MARKERS, MIN_PT, legend_below, series, styled, subplots

#: what :func:`plot_slice_threshold` calls the curves of a :class:`~attnlib.sculpt.diagnostics.SliceCurves`
SLICE_LABELS = {"true_proxy": "true Theta*", "sculpted_proxy": "sculpted proxy"}


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
    x = check_axis_values("x", x)
    errors = check_series("errors", errors, length=x.size)
    if xscale not in ("linear", "log"):
        raise ValueError(f"xscale must be 'linear' or 'log'; received {xscale!r}")
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


def head_plane(heads: Heads) -> np.ndarray:
    """Orthonormal basis (2, d, d) of the plane of Theta_1 and Theta_2; the first along Theta_star."""
    star, _ = min_norm_point(heads.Theta[:2])
    other = heads.Theta[0] - star
    B1 = star / np.linalg.norm(star)
    B2 = other - np.sum(other * B1) * B1
    return np.stack([B1, B2 / np.linalg.norm(B2)])


def clip_edges(poly: np.ndarray, half: float, tol: float = 1e-9) -> np.ndarray:
    """For each edge ``poly[k] -> poly[k + 1]`` of a slice clipped to ``|s|, |t| <= half``: True if it is the clip.

    An edge on the square's boundary is where the drawing stops, not a face of the body.
    """
    poly = as_float_array("poly", poly)
    if poly.ndim != 2 or poly.shape[1] != 2:
        raise ValueError(f"poly must be the vertices of a polygon, shape (V, 2); received shape {poly.shape}")
    half = check_positive_float("half", half)
    ends = np.roll(poly, -1, axis=0)
    on = [(np.abs(poly[:, i] - side * half) <= tol * half) & (np.abs(ends[:, i] - side * half) <= tol * half)
          for i in (0, 1) for side in (-1, 1)]
    return np.any(on, axis=0)


def plane_coordinates(M, basis: np.ndarray) -> tuple[np.ndarray, float]:
    """The coordinates of a (d, d) matrix in the plane of ``basis`` and its distance from that plane.

    ``basis`` is orthonormal, of shape (2, d, d), as :func:`attnlib.sculpt.body_slice` takes it.
    """
    M, basis = as_float_array("M", M), as_float_array("basis", basis)
    if basis.ndim != 3 or basis.shape[0] != 2 or M.shape != basis.shape[1:]:
        raise ValueError(f"M must be (d, d) and basis (2, d, d) of the same d; received shapes {M.shape} and "
                         f"{basis.shape}")
    q = np.einsum("pq,jpq->j", M, basis)
    return q, float(np.linalg.norm(M - np.einsum("j,jpq->pq", q, basis)))


def _slice_view(heads: Heads, box: float | None = None) -> tuple[tuple[float, float], tuple[float, float], float]:
    """What :func:`plot_body_slices` shows: its x and y limits and the half-width of the square it clips to.

    With ``box`` the drawing goes to ``box`` along Theta_star and ``0.75 box`` either side. Without
    it, the drawing zooms on the origin, the tip of the slices and the heads: to 1.3 times the heads'
    coordinate along Theta_star and 1.3 times their distance from that axis (at least 0.6 times the
    former), inside a clipping square of 1.4 times their largest coordinate.
    """
    B = head_plane(as_heads(heads))
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], B)  # heads in plane coordinates
    if box is not None:
        half = check_positive_float("box", box)
        return (-0.1 * half, half), (-0.75 * half, 0.75 * half), half
    half = 1.4 * float(np.abs(pts).max())
    reach = float(pts[:, 0].max())
    top = min(max(1.3 * float(np.abs(pts[:, 1]).max()), 0.6 * reach), half)
    return (-0.08 * reach, min(1.3 * reach, half)), (-top, top), half


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
    heads = as_heads(heads)
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
    q = check_axis_values("quantiles", quantiles)
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


@styled
def plot_phase_report(diagnostics: PhaseDiagnostics, *, title: str | None = None):
    """Per-phase diagnostics of one run of :func:`attnlib.sculpt.learn`, in four panels (two by two).

    Parameters
    ----------
    diagnostics : PhaseDiagnostics
        From :func:`attnlib.sculpt.diagnostics.phase_diagnostics`: relative errors of the estimates of
        sum_i W_i; the geometry (proxy cosine, span alignment, random baseline, each in [0, 1]);
        relative test errors (candidates, pre-polish, final); seconds per phase. Each entry is
        named by ``attnlib.sculpt.diagnostics.PHASE_REPORT_LABELS``.

    Returns
    -------
    matplotlib.figure.Figure
        One row per entry, named on the left, with its value written beside it. The
        errors (log axes) are dots: a bar's length on a log axis means nothing. The
        cosines and seconds (linear axes, from 0) are bars. Values below ``ROUNDING``
        are drawn at it and written "< 1e-16".
    """
    diagnostics = phase_report_entries(diagnostics)
    fig, axes = subplots(2, 2, width=3.4, height=2.6, constrained_layout=True)
    panels = [
        ("sum_W", r"error of $\sum_i W_i$", True, "{:.0e}"),
        ("geometry", "cosine / alignment", False, "{:.2f}"),
        ("errors", "relative test error", True, "{:.0e}"),
        ("seconds", "seconds", False, "{:.2g}"),
    ]
    for ax, (key, label, logx, fmt) in zip(axes.flat, panels, strict=True):
        items = diagnostics.get(key, {})
        names = list(items)
        values = np.array([items[k] for k in names], dtype=float)
        rows = np.arange(len(names))
        ax.set_yticks(rows, names)
        ax.set_ylim(len(names) - 0.5, -0.5)
        ax.set_title(label)
        if logx:
            # a bar's length on a log axis means nothing: a dot at each value, on a faint line per row
            shown = np.maximum(values, ROUNDING)
            for row in rows:
                ax.axhline(row, color=GREYS["faint"], lw=1, zorder=0)
            ax.plot(shown, rows, "o", color=COLORS[0], ms=8, ls="none")
            ax.set_xscale("log")
            low = float(shown.min()) if shown.size else ROUNDING
            top = float(shown.max()) if shown.size else 1.0
            ax.set_xlim(low / 30, top * 3e4)
            ax.xaxis.set_major_locator(_log_ticks())
            ax.tick_params(axis="y", length=0)
        else:
            shown = values
            ax.barh(rows, values, color=COLORS[0], height=0.6)
            if key == "geometry":
                ax.set_xlim(0, 1.35)
                ax.set_xticks([0, 0.5, 1])
            else:
                ax.set_xlim(0, 1.45 * float(values.max()) if values.size and values.max() > 0 else 1.0)
        for row, (v, w) in enumerate(zip(values, shown, strict=True)):
            text = fmt.format(v) if not (logx and v < ROUNDING) else f"< {ROUNDING:.0e}"
            ax.text(w, row, "  " + text, va="center", ha="left")
    if title:
        fig.suptitle(title)
    return fig


#: below this an error is rounding: drawn at it, written "< 1e-16"
ROUNDING = 1e-16


def _log_ticks():
    from matplotlib.ticker import LogLocator

    return LogLocator(base=10.0, numticks=4)


@styled
def plot_method_comparison(errors: dict, seconds: dict, *, success: float = 1e-3, title: str | None = None):
    """Relative test error and time of several methods over seeds.

    Parameters
    ----------
    errors : dict of str -> array_like of shape (S,)
        One entry per method (an identifier of :data:`attnlib.sculpt.METHOD_LABELS`, shown by its label, or a label):
        its relative test error on each seed.
    seconds : dict of str -> array_like of shape (S,)
    success : float, default 1e-3
        Errors at or below this count as success (dashed line).

    Returns
    -------
    matplotlib.figure.Figure
        One row per method (named on the left), one point per seed, jittered
        vertically; left: the error (log axis), right: the seconds (log axis).
    """
    errors, seconds = check_series("errors", errors), check_series("seconds", seconds)
    if set(errors) != set(seconds):
        raise ValueError(f"errors and seconds must have the same methods; received {sorted(errors)} and "
                         f"{sorted(seconds)}")
    success = check_positive_float("success", success)
    names = list(errors)
    fig, axes = subplots(1, 2, width=3.4, height=max(2.6, 0.55 * len(names) + 1.3), constrained_layout=True,
                         sharey=True, gridspec_kw={"width_ratios": [1.2, 1.0]})
    rng = np.random.default_rng(0)  # vertical jitter only
    for j, name in enumerate(names):
        e = np.maximum(np.asarray(errors[name], dtype=float), 1e-16)
        s = np.asarray(seconds[name], dtype=float)
        jitter = rng.uniform(-0.15, 0.15, size=len(e))
        style = {"ls": "none", "marker": MARKERS[j % len(MARKERS)], "color": COLORS[j % len(COLORS)], "ms": 6}
        axes[0, 0].plot(e, j + jitter, **style)
        axes[0, 1].plot(s, j + jitter, **style)
    axes[0, 0].axvline(success, color=GREYS["mid"], ls=(0, (6, 3)), lw=1.2)
    axes[0, 0].set_xscale("log")
    axes[0, 0].set_xlabel("relative test error")
    axes[0, 0].xaxis.set_major_locator(_log_ticks())
    axes[0, 1].set_xscale("log")
    axes[0, 1].set_xlabel("seconds")
    axes[0, 0].set_yticks(range(len(names)), [METHOD_LABELS.get(name, name) for name in names])
    axes[0, 0].set_ylim(len(names) - 0.5, -0.5)
    if title:
        fig.suptitle(title)
    return fig


#: how :func:`plot_sweep` shades a cell: every seed succeeded (faint), some failed, every one failed (strong)
_SWEEP_SHADES = {"success": (COLORS[2], 0.14), "some": (COLORS[1], 0.3), "none": (COLORS[1], 0.7)}


def _size_label(N: float) -> str:
    """A sample size short enough for a narrow column: 500, 1k, 1.5k, 30k."""
    return f"{N / 1000:g}k" if N >= 1000 else f"{N:g}"


def _sweep_mark(rate: float, seeds: int | None) -> str:
    """What a cell of :func:`plot_sweep` reads: nothing (every seed succeeded), ✗ (none) or the successes."""
    if rate >= 1:
        return ""
    if rate <= 0:
        return "✗"
    return f"{round(rate * seeds):d}/{seeds}" if seeds else f"{np.floor(rate * 100):.0f}%"


def _two_lines(label: str) -> str:
    """A title broken at the space that makes its longer line shortest (a narrow panel's title)."""
    words = label.split(" ")
    if len(words) < 2:
        return label
    # ties go to the later line: "sculpt" over "+ polish"
    k = min(range(1, len(words)), key=lambda k: (max(len(" ".join(words[:k])), len(" ".join(words[k:]))), k))
    return " ".join(words[:k]) + "\n" + " ".join(words[k:])


@styled
def plot_sweep(scales, sizes, success: dict, *, title: str | None = None, seeds: int | None = None):
    """Where each method fails over a grid of attention sharpness and sample size.

    Parameters
    ----------
    scales : array_like of shape (A,)
        ``||Theta_i||_F`` of the planted heads.
    sizes : array_like of shape (B,)
        Numbers of examples N.
    success : dict of str -> ndarray of shape (A, B)
        Fraction of seeds that succeeded, per method (an identifier of :data:`attnlib.sculpt.METHOD_LABELS`, shown by
        its label, or a label).
    seeds : int, optional
        Seeds per cell: a cell where some seeds failed then reads "k/seeds" instead of a percentage.

    Returns
    -------
    matplotlib.figure.Figure
        One small grid per method, side by side (four per row): rows the sharpness
        (sharpest on top), columns N; every grid has the same rows, named on the left.
        A cell where every seed succeeded is blank on a faint green; one where every
        seed failed reads ✗ on a strong orange; one where some failed reads the
        successes ("k/seeds", or the percentage) on a light orange. So the failures,
        and only they, carry a mark. A key under the grids says so (the third kind of
        cell only where there is one).
    """
    from matplotlib.patches import Patch

    scales, sizes = check_axis_values("scales", scales), check_axis_values("sizes", sizes)
    success = check_mapping("success", success)
    for name, rate in success.items():
        rate = as_float_array(f"success[{name!r}]", rate)
        if rate.shape != (scales.size, sizes.size):
            raise ValueError(f"success[{name!r}] must have shape (len(scales), len(sizes)) = "
                             f"({scales.size}, {sizes.size}); received {rate.shape}")
    names = list(success)
    ncols = min(4, len(names))
    nrows = -(-len(names) // ncols)
    # a row of cells per sharpness, 0.2 in: a 12-pt mark fits; titles, ticks and the key take the rest
    height = nrows * (0.2 * scales.size + 1.0) + 0.35 + (0.3 if title else 0.0)
    fig, axes = plt.subplots(nrows, ncols, figsize=(COLUMN_IN, height), squeeze=False, sharey=True,
                             layout="constrained")
    for ax in axes.flat[len(names):]:
        ax.set_axis_off()
    for k, (ax, name) in enumerate(zip(axes.flat[: len(names)], names, strict=True)):
        S = np.asarray(success[name], dtype=float)
        for a in range(S.shape[0]):
            for b in range(S.shape[1]):
                rate = S[a, b]
                shade = "success" if rate >= 1 else "none" if rate <= 0 else "some"
                colour, alpha = _SWEEP_SHADES[shade]
                ax.add_patch(Rectangle((b - 0.47, a - 0.45), 0.94, 0.9, facecolor=colour, alpha=alpha, lw=0))
                mark = _sweep_mark(rate, seeds)
                if mark:
                    ax.text(b, a, mark, ha="center", va="center", weight="bold" if shade == "none" else "normal")
        ax.set_xlim(-0.5, S.shape[1] - 0.5)
        ax.set_ylim(-0.5, S.shape[0] - 0.5)
        ax.set_xticks(range(len(sizes)), [_size_label(s) for s in sizes])
        ax.set_yticks(range(len(scales)), [f"{s:g}" for s in scales])
        ax.tick_params(length=0, pad=2)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(_two_lines(METHOD_LABELS.get(name, name)), fontsize=MIN_PT)
        if k % ncols == 0:
            ax.set_ylabel(r"sharpness $\|\Theta_i\|_F$")
    for i, ax in enumerate(axes.flat[: len(names)]):
        if i + ncols >= len(names):  # the lowest grid of its column
            ax.set_xlabel("examples N")
    # the key: the two kinds of cell always, the third where some cell has it
    key = {"success": "blank: all succeed", "none": "✗: all fail",
           "some": f"k/{seeds}: k of {seeds} succeed" if seeds else "%: share that succeed"}
    if not any(((S > 0) & (S < 1)).any() for S in map(np.asarray, success.values())):
        del key["some"]
    fig.legend(handles=[Patch(facecolor=_SWEEP_SHADES[k][0], alpha=_SWEEP_SHADES[k][1], label=label)
                        for k, label in key.items()],
               loc="outside lower center", ncol=len(key), handlelength=1.4, columnspacing=1.2)
    if title:
        fig.suptitle(title)
    return fig


# --------------------------------------------------------------------------- tables of the benchmark


def _seconds(s) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.2f} s" if s < 1 else f"{s:.1f} s"


def _error(e) -> str:
    from ._text import format_value

    if e is None:
        return "none"
    return format_value(float(e), ".0e") if e < 1e-3 else format_value(float(e), ".2g")


def _check_results(name: str, results, keys) -> dict:
    if not isinstance(results, dict):
        raise TypeError(f"{name} must be a dict read from benchmarks/results/sculpt.json; "
                        f"received {type(results).__name__}")
    missing = [k for k in keys if k not in results]
    if missing:
        raise ValueError(f"{name} lacks the keys {missing}: pass the entry of the results file, e.g. "
                         f"bench[{name!r}]; it has {sorted(results)}")
    return results


def comparison_table(size: dict):
    """The benchmark's comparison at one size as a Markdown table (``bench["sizes"]["small"]``).

    Parameters
    ----------
    size : dict
        One entry of ``results["sizes"]`` of ``benchmarks/results/sculpt.json``.

    Returns
    -------
    IPython.display.Markdown
        One row per method: successes with restarts, starts used, accepted starts among them,
        median test error, median seconds.

    Examples
    --------
    >>> from attnlib.viz.sculpt import comparison_table
    >>> row = {"label": "polish from random", "successes": 3, "runs": 3, "starts": 4, "accepted_starts": 3,
    ...        "median_error": 2e-16, "median_seconds": 0.14}
    >>> print(comparison_table({"methods": {"polish_random": row}}).data.splitlines()[-1])
    | polish from random | 3/3 | 4 | 3/4 | 2×10⁻¹⁶ | 0.14 s |
    """
    from ._text import markdown_table

    size = _check_results("size", size, ["methods"])
    rows = [[r["label"], f"{r['successes']}/{r['runs']}", r["starts"], f"{r['accepted_starts']}/{r['starts']}",
             _error(r["median_error"]), _seconds(r["median_seconds"])] for r in size["methods"].values()]
    return markdown_table(["method", "success", "starts", "accepted", "median error", "median time"], rows)


def single_start_table(settings: dict, *, kinds=None, names=None):
    """Single-start success rates with their intervals, one row per kind of start and one column per setting.

    Parameters
    ----------
    settings : dict
        ``results["single_start"]["settings"]`` of ``benchmarks/results/sculpt.json``, or a
        sub-dict of it (the columns, in order).
    kinds : sequence of str, optional
        The rows (default: every kind of start of the first setting).
    names : dict of str -> str, optional
        Column titles by setting (default: each setting's ``label``).

    Returns
    -------
    IPython.display.Markdown
        Cells ``k/n [low, high]``: successes of trials and the interval of the file
        (95% Wilson).

    Examples
    --------
    >>> from attnlib.viz.sculpt import single_start_table
    >>> cell = {"label": "random heads", "successes": 44, "trials": 48, "low": 0.80, "high": 0.967}
    >>> out = single_start_table({"small": {"label": "d=4", "starts": {"random": cell}}})
    >>> print(out.data.splitlines()[-1])
    | random heads | 44/48 [0.80, 0.97] |
    """
    from ._text import markdown_table

    if not isinstance(settings, dict) or not settings:
        raise TypeError("settings must be a non-empty dict: results['single_start']['settings'] of "
                        f"benchmarks/results/sculpt.json; received {type(settings).__name__}")
    for name, s in settings.items():
        _check_results(name, s, ["label", "starts"])
    first = next(iter(settings.values()))
    kinds = list(first["starts"]) if kinds is None else list(kinds)
    names = {} if names is None else dict(names)
    header = ["start", *[names.get(k, s["label"]) for k, s in settings.items()]]
    rows = []
    for kind in kinds:
        row = [first["starts"][kind]["label"]]
        for s in settings.values():
            c = s["starts"][kind]
            row.append(f"{c['successes']}/{c['trials']} [{c['low']:.2f}, {c['high']:.2f}]")
        rows.append(row)
    return markdown_table(header, rows)


def sweep_failure_table(sweep: dict):
    """Where each method of the benchmark's sweep failed (``results["sweep"]``), as a Markdown table.

    Returns
    -------
    IPython.display.Markdown
        One row per method: cells with a failure (of all), where (norm, N and seeds failed),
        starts used in all runs.

    Examples
    --------
    >>> from attnlib.viz.sculpt import sweep_failure_table
    >>> sweep = {"seeds": 3, "scales": [0.5, 1.0], "sizes": [500], "methods": {"lbfgs": {
    ...     "label": "L-BFGS restarts", "failed_cells": [{"scale": 0.5, "N": 500, "failed_seeds": 2}],
    ...     "starts": 9, "runs": 6}}}
    >>> print(sweep_failure_table(sweep).data.splitlines()[-1])
    | L-BFGS restarts | 1 of 2 | norm 0.5, N = 500: 2 of 3 seeds | 9 in 6 runs |
    """
    from ._text import markdown_table

    sweep = _check_results("sweep", sweep, ["seeds", "scales", "sizes", "methods"])
    cells = len(sweep["scales"]) * len(sweep["sizes"])
    rows = []
    for r in sweep["methods"].values():
        failed = r["failed_cells"]
        if len(failed) == cells:
            where = "everywhere"
        elif not failed:
            where = "nowhere"
        else:
            where = "; ".join(f"norm {c['scale']:g}, N = {c['N']}: {c['failed_seeds']} of {sweep['seeds']} seeds"
                              for c in failed)
        rows.append([r["label"], f"{len(failed)} of {cells}", where, f"{r['starts']} in {r['runs']} runs"])
    return markdown_table(["method", "cells with a failure", "where", "starts used"], rows)


def rate_text(cell: dict) -> str:
    """One single-start rate of the results file as prose: ``"44 of 48 (95% interval 0.80-0.97)"``.

    Parameters
    ----------
    cell : dict
        One kind of start of one setting: ``starts[kind]`` of an entry of
        ``results["single_start"]["settings"]``, with ``successes``, ``trials``, ``low``, ``high``.

    Examples
    --------
    >>> from attnlib.viz.sculpt import rate_text
    >>> rate_text({"successes": 44, "trials": 48, "low": 0.8037, "high": 0.9672})
    '44 of 48 (95% interval 0.80–0.97)'
    """
    cell = _check_results("cell", cell, ["successes", "trials", "low", "high"])
    return f"{cell['successes']} of {cell['trials']} (95% interval {cell['low']:.2f}–{cell['high']:.2f})"
