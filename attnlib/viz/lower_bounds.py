"""Figures for chapter 10 (lower bounds). matplotlib is imported here, not by ``import attnlib``.

:func:`plot_alternating_heads` is the picture of the chapter's central idea (each head's
attention weight against the disagreement count, and their weighted sum alternating in sign);
the others plot the chapter's results.

Each function draws one static figure and returns the ``matplotlib.figure.Figure``;
:mod:`attnlib.widgets.lower_bounds` wraps the same functions.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import LogLocator

from .._arguments import arguments, instance, mapping_of
from ..lower_bounds import FourierSpectrum, GDRun, parity_coefficients
from ._kinds import LABEL, OPTLABEL, same_length
from ._style import COLORS, GREYS, MARKERS, MIN_PT, legend_below, styled, subplots
from ._style import series as line_style

#: coefficients below this are drawn on the floor of the log axis and marked as zero.
_FLOOR = 1e-17


@arguments(spectrum=instance(FourierSpectrum, where="attnlib.lower_bounds.fourier_spectrum"), threshold="tol",
           title=OPTLABEL)
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
        Left: the largest |f_hat(U)| over monomials U of each degree, as a dot on a
        log axis (grey below the dashed threshold; exact zeros are written 0 on the
        floor). Right: ``E[(f - f_{<=delta})^2]``,
        the error left by the best polynomial of degree <= delta.
    """
    top = spectrum.max_abs_by_degree()
    K = top.size - 1
    degrees = np.arange(K + 1)
    fig, axes = subplots(1, 2, width=3.0, height=3.4, constrained_layout=True)
    ax = axes[0, 0]
    nonzero = top > _FLOOR
    # dots, not bars: a bar's length on a log axis means nothing
    ax.plot(degrees[nonzero], top[nonzero], "o", ms=8, ls="none", color=COLORS[0])
    small = nonzero & (top <= threshold)
    ax.plot(degrees[small], top[small], "o", ms=8, ls="none", color=GREYS["light"])
    for k in degrees[small]:  # grey says: rounding, not signal
        ax.annotate("rounding", (k, top[k]), xytext=(0, 6), textcoords="offset points", ha="center",
                    va="bottom", color=GREYS["dark"], fontsize=MIN_PT)
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
    ax.set_xlabel("degree $|U|$")
    ax.set_title("largest $|\\hat f(U)|$ of\neach degree")
    ax.yaxis.set_major_locator(LogLocator(base=10.0, numticks=5))
    ax = axes[0, 1]
    tail = np.array([spectrum.truncation_error(D) for D in degrees])
    ax.step(degrees, tail, where="mid", color=COLORS[2])
    ax.plot(degrees, tail, "o", color=COLORS[2], ms=6)
    ax.set_xticks(ticks)
    ax.set_xlim(-0.6, K + 0.6)
    ax.set_ylim(-0.05 * max(tail.max(), 1e-12), 1.1 * max(tail.max(), 1e-12))
    ax.set_xlabel("degree $\\delta$")
    ax.set_title("error of the best fit\nof degree $\\leq \\delta$")
    ax.set_ylabel(r"$E[(f - f_{\leq \delta})^2]$")
    if title:
        fig.suptitle(title)
    return fig


@arguments(degrees="series", test_mse="series", exact="optseries", trivial="optreal", title=OPTLABEL)
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
        Solid lines with markers: sampled fits; dotted lines: the exact population
        values; a thin vertical line in each curve's colour marks D = 2s + 1, the
        first degree whose fit can reach zero error. The legend names all three.
    """
    for s in test_mse:
        if s not in degrees:
            raise ValueError(f"degrees must have an entry for every s of test_mse; s = {s!r} is missing")
        same_length("test_mse", {s: test_mse[s]}, len(degrees[s]))
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
    if exact is not None:  # keys to the dotted and the vertical lines, in grey as they are in every colour
        ax.plot([], [], ":", color=GREYS["dark"], lw=2, label="exact population error")
    ax.plot([], [], "-", color=GREYS["dark"], lw=1, alpha=0.4, label="$\\delta = 2s + 1$")
    ax.set_xlabel("degree $\\delta$ of the polynomial")
    ax.set_ylabel("test MSE")
    if title:
        ax.set_title(title)
    legend_below(fig, ax, ncol=2)
    return fig


@arguments(runs=mapping_of(GDRun, where="attnlib.lower_bounds.gd_experiment"), title=OPTLABEL)
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
    fig, axes = subplots(1, 1, width=6.4, height=3.4, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, run) in enumerate(runs.items()):
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


@arguments(s_values="axis", series="series", ylabel=LABEL, title=OPTLABEL)
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
    same_length("series", series, s_values.size)
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


@arguments(betas="axis", coefficients="optaxis", title=OPTLABEL)
@styled
def plot_alternating_heads(betas, coefficients=None, *, title: str | None = None):
    """Each head's weight on its own token against the disagreement count, and their weighted sum.

    Head i of the parity family puts weight ``sigmoid(2 beta_i l)`` on its own token when the
    two tokens disagree on l coordinates of the hidden set. With the weights c of
    :func:`attnlib.lower_bounds.parity_coefficients`, the sum ``sum_i c_i sigmoid(2 beta_i l)``
    is ``(-1)**l`` at every integer l = 0..s: the heads add up to a parity.

    Parameters
    ----------
    betas : array_like of shape (s + 1,)
        Distinct attention scales, one per head.
    coefficients : array_like of shape (s + 1,), optional
        The weights c; default ``parity_coefficients(s, betas=betas)``.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Top: ``sigmoid(2 beta_i l)`` for each head, l from 0 to s (markers at the integers).
        Bottom: the weighted sum, a thin line between the integers and a dot at each integer
        (at +1 or -1, written beside it), with dashed lines at +1 and -1. The dots are the
        last line of the bottom axes.

    Examples
    --------
    >>> fig = plot_alternating_heads([0.0, 20.0])   # one head averages, one switches
    >>> fig.axes[1].get_lines()[-1].get_ydata().round(6)
    array([ 1., -1.])
    """
    if betas.size < 2:
        raise ValueError(f"betas must hold at least two scales (s >= 1); received {betas.size}")
    s = betas.size - 1
    if coefficients is None:
        c = parity_coefficients(s, betas=betas)
    else:
        c = coefficients
        if c.shape != betas.shape:
            raise ValueError(f"coefficients must have the shape of betas, ({s + 1},); received shape {c.shape}")
    fine = np.linspace(0.0, s, 40 * s + 1)
    ticks = np.arange(s + 1)

    def weight(beta, ell):  # sigmoid(2 beta l) without overflow
        return 0.5 * (1.0 + np.tanh(beta * np.asarray(ell, dtype=float)))

    fig, axes = subplots(2, 1, width=6.0, height=2.4, constrained_layout=True, sharex=True)
    top, bottom = axes[0, 0], axes[1, 0]
    for i, beta in enumerate(betas):
        # markevery=40: a marker at each integer l, where the system holds
        top.plot(fine, weight(beta, fine), **line_style(i), ms=7, markevery=40,
                 label=f"head {i}: $\\beta_{i}$ = {beta:.3g}, $c_{i}$ = {c[i]:.3g}")
    top.set_ylim(0.45, 1.05)
    top.set_ylabel("weight on\nits own token")
    total = sum(ci * weight(beta, fine) for ci, beta in zip(c, betas, strict=True))
    at_integers = sum(ci * weight(beta, ticks) for ci, beta in zip(c, betas, strict=True))
    for level in (1.0, -1.0):
        bottom.axhline(level, color=GREYS["mid"], ls=(0, (6, 3)), lw=1.2)
    bottom.plot(fine, total, color=GREYS["dark"], lw=1.2)
    bottom.plot(ticks, at_integers, "o", color=COLORS[0], ms=9, zorder=3)
    for ell, value in zip(ticks, at_integers, strict=True):
        bottom.annotate(f"{value:+.0f}", (ell, value), textcoords="offset points", xytext=(9, -4 if value > 0 else 0),
                        va="top" if value > 0 else "bottom", color=COLORS[0])
    span = max(2.0, float(np.abs(total).max()))
    bottom.set_ylim(-min(span, 4.0) - 0.3, min(span, 4.0) + 0.3)
    bottom.set_ylabel("$\\sum_i c_i\\,\\sigma(2\\beta_i \\ell)$")
    bottom.set_xlabel("$\\ell$: coordinates of $S$ where the tokens disagree")
    bottom.set_xticks(ticks)
    bottom.set_xlim(-0.25, s + 0.4)
    if title:
        top.set_title(title)
    legend_below(fig, top, ncol=1)
    return fig
