"""Figures of training: loss curves, the loss along a line in parameter space, error bars (chapter 2)."""

from __future__ import annotations

import numpy as np

from .._arguments import arguments
from ._kinds import LABEL, OPTLABEL, same_length
from ._style import COLORS, legend_below, series, styled, subplots

#: what the figures call the partners of :func:`attnlib.partners`, by field
PARTNER_LABELS = {"permuted": "heads permuted", "gauge": "gauge c = -1", "random": "random heads"}


@arguments(curves="series", xlabel=LABEL, ylabel=LABEL, title=OPTLABEL, logy="flag", bands="optmapping")
@styled
def plot_loss_curves(curves: dict, *, xlabel: str = "epoch", ylabel: str = "training MSE", title: str | None = None,
                     logy: bool = True, bands: dict | None = None):
    """Loss histories on one axis.

    Parameters
    ----------
    curves : dict of str -> array_like of shape (T,)
        One line per entry, labelled by its key.
    bands : dict of str -> (lower, upper), optional
        Shaded ranges for some keys, e.g. the spread over seeds.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, y) in enumerate(curves.items()):
        y = np.asarray(y, dtype=float)
        color = COLORS[j % len(COLORS)]
        ax.plot(np.arange(len(y)), y, **series(j), markevery=max(1, len(y) // 8), label=label)
        if bands and label in bands:
            lo, hi = (np.asarray(b, dtype=float) for b in bands[label])
            ax.fill_between(np.arange(len(y)), lo, hi, color=color, alpha=0.2, lw=0)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    legend_below(fig, ax, ncol=2 if len(curves) > 1 else 1)
    return fig


@arguments(ts="axis", losses="series", xlabel=LABEL, ylabel=LABEL, title=OPTLABEL, chords="flag",
           ylim="optaxis")
@styled
def plot_loss_along_line(ts, losses: dict, *, xlabel: str = "position t on the line", ylabel: str = "training MSE",
                         title: str | None = None, chords: bool = True, ylim: tuple | None = None):
    """The loss along lines in parameter space, with the chords convexity would require.

    Parameters
    ----------
    ts : array_like of shape (T,)
    losses : dict of str -> array_like of shape (T,)
        One curve per line, e.g. from :func:`attnlib.landscape.loss_along_line`.
    chords : bool, default True
        Draw the straight chord between the endpoints of each curve: a convex
        function lies on or below it.
    ylim : (float, float), optional
        Fixed limits of the loss axis (an explorer holds them across its frames); by
        default the axis fits the curves.

    Returns
    -------
    matplotlib.figure.Figure
    """
    same_length("losses", losses, ts.size)
    if ylim is not None and ylim.shape != (2,):
        raise ValueError(f"ylim must be a pair (low, high); received shape {ylim.shape}")
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, y) in enumerate(losses.items()):
        y = np.asarray(y, dtype=float)
        color = COLORS[j % len(COLORS)]
        ax.plot(ts, y, **series(j, marker=False), label=label)
        if chords:
            i0, i1 = int(np.argmin(np.abs(ts))), int(np.argmin(np.abs(ts - 1)))
            ax.plot([ts[i0], ts[i1]], [y[i0], y[i1]], color=color, ls=":", lw=1.2)
            ax.plot([ts[i0], ts[i1]], [y[i0], y[i1]], ls="none", marker=series(j)["marker"], color=color, ms=6)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    legend_below(fig, ax, ncol=min(2, len(losses)))
    return fig


@arguments(x="axis", means="series", errors="optseries", xlabel=LABEL, ylabel=LABEL, logx="flag",
           logy="flag", title=OPTLABEL, reference="optmapping")
@styled
def plot_errorbars(x, means: dict, errors: dict | None = None, *, xlabel: str = "", ylabel: str = "",
                   logx: bool = False, logy: bool = False, title: str | None = None, reference: dict | None = None):
    """Points with error bars, one series per key, plus optional horizontal reference lines.

    Returns
    -------
    matplotlib.figure.Figure
    """
    same_length("means", means, x.size)
    fig, axes = subplots(1, 1, width=6.4, height=3.3, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, y) in enumerate(means.items()):
        err = None if errors is None else errors.get(label)
        ax.errorbar(x, y, yerr=err, **series(j), capsize=3, label=label)
    for j, (label, value) in enumerate((reference or {}).items()):
        ax.axhline(value, color=COLORS[(j + len(means)) % len(COLORS)], ls=(0, (6, 3)), lw=1.5, label=label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    legend_below(fig, ax, ncol=1 if len(means) + len(reference or {}) > 2 else 2)
    return fig
