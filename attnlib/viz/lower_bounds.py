"""Figures for chapter 10 (lower bounds). matplotlib is imported here, not by ``import attnlib``.

Each function draws one static figure and returns the ``matplotlib.figure.Figure``;
:mod:`attnlib.widgets.lower_bounds` wraps the same functions.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import LogLocator

from .._validation import check_axis_values, check_mapping, check_positive_float, check_series
from ..lower_bounds import FourierSpectrum, GDRun
from ._style import COLORS, GREYS, MARKERS, legend_below, styled, subplots
from ._style import series as line_style

#: coefficients below this are drawn on the floor of the log axis and marked as zero.
_FLOOR = 1e-17


@styled
def plot_fourier_spectrum(spectrum: FourierSpectrum, *, threshold: float = 1e-12, title: str | None = None):
    """The Fourier spectrum of one output entry, degree by degree.

    Parameters
    ----------
    spectrum : FourierSpectrum
        From :func:`attnlib.lower_bounds.fourier_spectrum`.
    threshold : float, default 1e-12
        Drawn as a dashed line: coefficients below it count as zero.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Left: the largest |f_hat(T)| over monomials of each degree, as a dot on a
        log axis (grey below the dashed threshold; exact zeros are written 0 on the
        floor). Right: ``E[(f - f_{<=D})^2]``,
        the error left by the best polynomial of degree <= D.
    """
    if not isinstance(spectrum, FourierSpectrum):
        raise TypeError(f"spectrum must be a FourierSpectrum; received {type(spectrum).__name__}")
    threshold = check_positive_float("threshold", threshold)
    top = spectrum.max_abs_by_degree()
    K = top.size - 1
    degrees = np.arange(K + 1)
    fig, axes = subplots(1, 2, width=3.0, height=3.4, constrained_layout=True)
    ax = axes[0, 0]
    nonzero = top > _FLOOR
    # dots, not bars: a bar's length on a log axis means nothing
    for k in degrees:
        ax.axvline(k, color=GREYS["faint"], lw=1, zorder=0)
    ax.plot(degrees[nonzero], top[nonzero], "o", ms=8, ls="none", color=COLORS[0])
    small = nonzero & (top <= threshold)
    ax.plot(degrees[small], top[small], "o", ms=8, ls="none", color=GREYS["light"])
    for k in degrees[~nonzero]:
        ax.text(k, _FLOOR, "0", ha="center", va="bottom", color=GREYS["dark"])
    ax.axhline(threshold, color=COLORS[1], ls=(0, (6, 3)), lw=1.5)
    ax.text(0.98, threshold, f"zero below {threshold:.0e}", transform=ax.get_yaxis_transform(), ha="right",
            va="bottom", color=COLORS[1])
    ax.set_yscale("log")
    ax.set_ylim(_FLOOR * 0.5, 30.0)
    ticks = degrees if K <= 8 else degrees[::2]  # labels of two digits need the room
    ax.set_xticks(ticks)
    ax.set_xlim(-0.6, K + 0.6)
    ax.set_xlabel("degree $|T|$")
    ax.set_title("largest $|\\hat f(T)|$ of\neach degree")
    ax.yaxis.set_major_locator(LogLocator(base=10.0, numticks=5))
    ax = axes[0, 1]
    tail = np.array([spectrum.truncation_error(D) for D in degrees])
    ax.step(degrees, tail, where="mid", color=COLORS[2])
    ax.plot(degrees, tail, "o", color=COLORS[2], ms=6)
    ax.set_xticks(ticks)
    ax.set_xlim(-0.6, K + 0.6)
    ax.set_ylim(-0.05 * max(tail.max(), 1e-12), 1.1 * max(tail.max(), 1e-12))
    ax.set_xlabel("degree $D$")
    ax.set_title("error of the best fit\nof degree $\\leq D$")
    ax.set_ylabel(r"$E[(f - f_{\leq D})^2]$")
    if title:
        fig.suptitle(title)
    return fig


@styled
def plot_regression_errors(degrees: dict, test_mse: dict, *, exact: dict | None = None, trivial: float | None = None,
                           title: str | None = None):
    """Test error of low-degree regression against the degree, one curve per s.

    Parameters
    ----------
    degrees, test_mse : dict of int -> array_like
        For each s, the degrees D tried and the test MSE of the fit of degree D.
    exact : dict of int -> array_like, optional
        For each s, the population error ``E[(f - f_{<=D})^2]`` at the same degrees.
    trivial : float, optional
        Drawn as a dashed line (the error of the linear term alone).

    Returns
    -------
    matplotlib.figure.Figure
        Solid markers: sampled fits; dotted lines: the exact population values;
        a tick on top marks D = 2s + 1 for each s.
    """
    degrees, test_mse = check_mapping("degrees", degrees), check_mapping("test_mse", test_mse)
    for s in test_mse:
        if s not in degrees:
            raise ValueError(f"degrees must have an entry for every s of test_mse; s = {s!r} is missing")
        D = check_axis_values(f"degrees[{s!r}]", degrees[s])
        check_series("test_mse", {s: test_mse[s]}, length=D.size)
    fig, axes = subplots(1, 1, width=6.4, height=3.4, constrained_layout=True)
    ax = axes[0, 0]
    for j, s in enumerate(sorted(test_mse)):
        color = COLORS[j % len(COLORS)]
        D = np.asarray(degrees[s], dtype=float)
        ax.plot(D, np.asarray(test_mse[s], dtype=float), "-", marker=MARKERS[j % len(MARKERS)], color=color, ms=6,
                label=f"s = {s} (m = {s + 1})")
        if exact is not None and s in exact:
            ax.plot(D, np.asarray(exact[s], dtype=float), ":", color=color, lw=2)
        ax.axvline(2 * s + 1, color=color, lw=1, ls="-", alpha=0.4)
    if trivial is not None:
        ax.axhline(trivial, color=GREYS["mid"], ls=(0, (6, 3)), lw=1.2, label="linear term only")
    ax.set_xlabel("degree D of the polynomial")
    ax.set_ylabel("test MSE")
    if title:
        ax.set_title(title)
    legend_below(fig, ax, ncol=2)
    return fig


@styled
def plot_gd_runs(runs: dict, *, title: str | None = None):
    """Fixed-budget gradient runs on parity instances: loss relative to the trivial level.

    Parameters
    ----------
    runs : dict of str -> GDRun
        One run per label, from :func:`attnlib.lower_bounds.gd_experiment`.

    Returns
    -------
    matplotlib.figure.Figure
        Solid: test loss / (2/d); dashed: training loss / (2/d). The grey line at
        1 is what every polynomial of degree <= 2s achieves at best.
    """
    runs = check_mapping("runs", runs, of=GDRun, where="attnlib.lower_bounds.gd_experiment")
    fig, axes = subplots(1, 1, width=6.4, height=3.4, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, run) in enumerate(runs.items()):
        if not isinstance(run, GDRun):
            raise TypeError(f"runs[{label!r}] must be a GDRun; received {type(run).__name__}")
        color = COLORS[j % len(COLORS)]
        epochs = np.arange(run.loss.size)
        every = max(1, run.loss.size // 6)
        ax.plot(epochs, run.relative_test_loss, color=color, marker=MARKERS[j % len(MARKERS)], markevery=every,
                label=f"{label}: test")
        ax.plot(epochs, run.loss / run.trivial, color=color, ls="--", lw=1.2, marker=MARKERS[j % len(MARKERS)],
                mfc="white", markevery=every, label=f"{label}: train")
    ax.axhline(1.0, color=GREYS["mid"], lw=1.2, ls=":")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("loss / (2/d)")
    if title:
        ax.set_title(title)
    legend_below(fig, ax, ncol=2)
    return fig


@styled
def plot_weight_growth(s_values, series: dict, *, ylabel: str = "size of the weights", title: str | None = None):
    """Growth of the projection weights c with s, on a log axis.

    Parameters
    ----------
    s_values : array_like of shape (S,)
    series : dict of str -> array_like of shape (S,)
        E.g. ``{"sum |c_i|": ..., "max |c_i|": ...}``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    s_values = check_axis_values("s_values", s_values)
    series = check_series("series", series, length=s_values.size)
    s_values = np.asarray(s_values, dtype=float)
    fig, axes = subplots(1, 1, width=6.0, height=3.6, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, y) in enumerate(series.items()):
        ax.plot(s_values, np.asarray(y, dtype=float), **line_style(j), ms=6, label=label)
    ax.set_yscale("log")
    ax.set_xticks(s_values)
    ax.set_xlabel("s (m = s + 1 heads)")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left")
    return fig
