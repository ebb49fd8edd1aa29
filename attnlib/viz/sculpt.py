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
from ..sculpt import Body, body_slice
from ..sculpt.diagnostics import PhaseDiagnostics, SliceCurves
from ..sculpt.instances import min_norm_point
from ._style import COLORS, COLUMN_IN, GREYS, MARKERS, legend_below, series, styled, subplots

#: what the figures and tables call the methods of :func:`attnlib.sculpt.compare_methods`
METHOD_LABELS = {
    "sculpt_polish": "sculpt + polish",
    "sculpt_no_polish": "sculpt, no polish",
    "polish_random": "polish from random",
    "lbfgs": "L-BFGS restarts",
    "adam": "Adam",
}
#: what they call the kinds of start of :func:`attnlib.sculpt.single_starts`
START_LABELS = {
    "sculpted": "sculpted candidate",
    "other": "other candidate",
    "perturbed": "half-RMS perturbations",
    "perturbed_small": "0.05-RMS perturbations",
    "random": "random heads",
}
#: what :func:`plot_phase_report` calls each entry of a :class:`~attnlib.sculpt.diagnostics.PhaseDiagnostics`,
#: panel by panel
PHASE_REPORT_LABELS = {
    "sum_W": {"crude": "crude", "phase1": "phase 1", "slice": "phase 3", "final": "final"},
    "geometry": {"proxy_cosine": "proxy cosine", "span": "span", "random_span": "random span"},
    "errors": {"face": "face", "net": "net", "pre_polish": "pre-polish", "final": "final"},
    "seconds": {"sum_w": "phase 1", "sculpted": "phases 2-3", "span": "phase 4", "candidates": "phase 5",
                "polish": "polish"},
}
#: what :func:`plot_slice_threshold` calls the curves of a :class:`~attnlib.sculpt.diagnostics.SliceCurves`
SLICE_LABELS = {"true_proxy": "true Theta*", "sculpted_proxy": "sculpted proxy"}


def phase_report_entries(diagnostics: PhaseDiagnostics) -> dict:
    """The entries of a run's diagnostics under their labels, panel by panel (the ones the run reached).

    Returns
    -------
    dict of str -> dict of str -> float
        ``{"sum_W": {"crude": ..., "phase 1": ...}, "geometry": ..., "errors": ..., "seconds": ...}``.
    """
    diagnostics = check_instance("diagnostics", diagnostics, PhaseDiagnostics, where="phase_diagnostics")
    return {panel: {label: getattr(getattr(diagnostics, panel), name) for name, label in labels.items()
                    if getattr(getattr(diagnostics, panel), name) is not None}
            for panel, labels in PHASE_REPORT_LABELS.items()}


@styled
def plot_recovery(x, errors: dict, *, xlabel: str = "examples N", ylabel: str = "relative error",
                  threshold: float | None = None, threshold_label: str = "", title: str | None = None):
    """Errors against a resource (log scale), one line per key, with an optional vertical marker.

    Parameters
    ----------
    x : array_like of shape (T,)
    errors : dict of str -> array_like of shape (T,)
        Non-positive entries are drawn at the bottom of the axis (exact recovery).
    threshold : float, optional
        Draw a dashed vertical line there (e.g. the counting bound d^2 / n).

    Returns
    -------
    matplotlib.figure.Figure
    """
    x = check_axis_values("x", x)
    errors = check_series("errors", errors, length=x.size)
    x = np.asarray(x, dtype=float)
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    floor = 1e-16
    for j, (label, y) in enumerate(errors.items()):
        y = np.maximum(np.asarray(y, dtype=float), floor)
        ax.plot(x, y, **series(j), ms=5, label=label)
    if threshold is not None:
        ax.axvline(threshold, color=GREYS["mid"], ls=(0, (6, 3)), lw=1.2, label=threshold_label or None)
    ax.set_yscale("log")
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
        The legend's name for each body (default its ``repr``).
    proxies : list of ndarray of shape (d, d), optional
        Min-norm proxies, one per body, marked where they project onto the plane.
    box : float, optional
        How far the drawing goes along each axis; default 1.4 times the largest head coordinate.

    Returns
    -------
    matplotlib.figure.Figure
        Each slice is shaded lightly (where slices overlap the shade deepens) and
        outlined in its own colour and line style along the body's faces only: where
        a slice meets the edge of the drawing it is left open, because the body goes on
        (it is unbounded). Black dots: the heads; dotted grey: the segment between them
        and the rays through them (the idealised body ``conv + cone`` up to scale).
        Open stars: the proxies projected onto the plane. A proxy is not in the plane,
        so its projection may fall outside the slice; the legend gives its distance
        from the plane.
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
    titles = [repr(b) for b in bodies] if titles is None else [str(t) for t in titles]
    B = head_plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], B)  # heads in plane coordinates
    half = box if box is not None else 1.4 * float(np.abs(pts).max())
    fig = plt.figure(figsize=(COLUMN_IN, 4.1), constrained_layout=True)
    ax = fig.add_subplot()
    for j, (body, title) in enumerate(zip(bodies, titles, strict=True)):
        poly = body_slice(body, np.zeros((body.d, body.d)), B, box=half)
        style = series(j, marker=False)
        if len(poly):
            ax.fill(poly[:, 0], poly[:, 1], color=COLORS[0], alpha=0.13, lw=0)
            closed = np.vstack([poly, poly[:1]])
            for k, clipped in enumerate(clip_edges(poly, half)):
                if not clipped:
                    ax.plot(closed[k:k + 2, 0], closed[k:k + 2, 1], color=style["color"], ls=style["ls"], lw=2,
                            solid_capstyle="round")
        ax.plot([], [], color=style["color"], ls=style["ls"], lw=2, label=title)
    for p in pts:
        ax.plot([0, p[0] * 10], [0, p[1] * 10], color=GREYS["mid"], lw=1, ls=":")
    ax.plot([pts[0, 0], pts[1, 0]], [pts[0, 1], pts[1, 1]], color=GREYS["mid"], lw=1, ls=":")
    ax.plot(pts[:, 0], pts[:, 1], "o", color="black", ms=7, label=r"heads $\Theta_1,\Theta_2$")
    if proxies is not None:
        for j, proxy in enumerate(proxies):
            q, off = plane_coordinates(np.asarray(proxy, dtype=float), B)
            last = j == len(proxies) - 1
            ax.plot(q[0], q[1], "*", color=series(j)["color"], mfc="white", mew=1.5, ms=15,
                    label=f"proxy $P$, projected\n($P$ is {off:.2f} off\nthis plane)" if last else None)
    ax.fill([], [], color=COLORS[0], alpha=0.25, lw=0,
            label="slice, open where it\nleaves the frame:\nthe body goes on")
    ax.set_xlim(-0.1 * half, half)
    ax.set_ylim(-0.75 * half, 0.75 * half)
    ax.set_aspect("equal")
    ax.plot([0], [0], "+", color="black", ms=8)
    ax.set_xlabel(r"along $\Theta^\star$")
    ax.set_ylabel(r"along $\Theta_1-\Theta^\star$")
    fig.legend(loc="outside right center", handlelength=2.4)
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
        named by :data:`PHASE_REPORT_LABELS`.

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
        One entry per method (an identifier of :data:`METHOD_LABELS`, shown by its label, or a label):
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


@styled
def plot_sweep(scales, sizes, success: dict, *, title: str | None = None, seeds: int | None = None):
    """Success rate of each method over a grid of attention sharpness and sample size.

    Parameters
    ----------
    scales : array_like of shape (A,)
        ``||Theta_i||_F`` of the planted heads.
    sizes : array_like of shape (B,)
        Numbers of examples N.
    success : dict of str -> ndarray of shape (A, B)
        Fraction of seeds that succeeded, per method (an identifier of :data:`METHOD_LABELS`, shown by
        its label, or a label).
    seeds : int, optional
        Seeds per cell: the cells then read "k/seeds" instead of a rate.

    Returns
    -------
    matplotlib.figure.Figure
        One small table per method (three per row): rows the sharpness, columns N.
        Each cell reads ✓ (every seed succeeded), ✗ (none) or ~ (some), with the
        count "k/seeds" (or the rate), on a green shade that deepens with the rate
        or an orange one where every seed failed.
    """
    scales, sizes = check_axis_values("scales", scales), check_axis_values("sizes", sizes)
    success = check_mapping("success", success)
    for name, rate in success.items():
        rate = as_float_array(f"success[{name!r}]", rate)
        if rate.shape != (scales.size, sizes.size):
            raise ValueError(f"success[{name!r}] must have shape (len(scales), len(sizes)) = "
                             f"({scales.size}, {sizes.size}); received {rate.shape}")
    names = list(success)
    ncols = min(3, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = subplots(nrows, ncols, width=2.0, height=max(2.2, 0.5 * len(scales) + 1.3),
                         constrained_layout=True, sharey=True)
    for ax in axes.flat[len(names):]:
        ax.set_axis_off()
    for k, (ax, name) in enumerate(zip(axes.flat[: len(names)], names, strict=True)):
        S = np.asarray(success[name], dtype=float)
        for a in range(S.shape[0]):
            for b in range(S.shape[1]):
                rate = S[a, b]
                colour = COLORS[2] if rate > 0 else COLORS[1]
                ax.add_patch(Rectangle((b - 0.46, a - 0.44), 0.92, 0.88, facecolor=colour,
                                       alpha=0.15 + 0.35 * rate if rate > 0 else 0.18, lw=0))
                mark = "✓" if rate >= 1 else "✗" if rate <= 0 else "~"
                count = f" {round(rate * seeds):d}/{seeds}" if seeds else f" {rate:.1f}"
                ax.text(b, a, mark + count, ha="center", va="center")
        ax.set_xlim(-0.5, S.shape[1] - 0.5)
        ax.set_ylim(-0.5, S.shape[0] - 0.5)
        ax.set_xticks(range(len(sizes)), [str(int(s)) for s in sizes])
        ax.set_yticks(range(len(scales)), [f"{s:g}" for s in scales])
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_xlabel("examples N")
        ax.set_title(METHOD_LABELS.get(name, name))
        if k % ncols == 0:
            ax.set_ylabel(r"sharpness $\|\Theta_i\|_F$")
    if title:
        fig.suptitle(title)
    return fig


# --------------------------------------------------------------------------- tables of the benchmark


def _seconds(s) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.2f} s" if s < 1 else f"{s:.1f} s"


def _error(e) -> str:
    from .prose import format_value

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
    from .prose import markdown_table

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
    from .prose import markdown_table

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
    from .prose import markdown_table

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
