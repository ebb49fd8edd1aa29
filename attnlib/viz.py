"""Figures for the book. matplotlib is imported here, not by ``import attnlib``.

Every function draws one static figure from arrays or ``Heads`` and returns the
``matplotlib.figure.Figure``, already closed in pyplot: end a notebook cell with
the call (no semicolon) and the figure is shown once, as the cell's value. The
widgets in :mod:`attnlib.widgets` call these same functions, so the static page
and the live widget show the same picture.
"""

from __future__ import annotations

import functools

import matplotlib.pyplot as plt
import numpy as np

from ._validation import check_sequences
from .attention import _check_heads, attention_weights
from .heads import Heads

STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "legend.frameon": False,
    "image.cmap": "viridis",
}

COLORS = ["#1b6ca8", "#d1495b", "#edae49", "#66a182", "#8d6cab", "#00798c", "#555555", "#e07a5f"]


def _styled(func):
    """Draw with the book's rc settings and hand back a closed figure.

    Only the keys of STYLE are restored afterwards: ``plt.rc_context`` would also
    restore ``interactive``, which the notebook backend switches on when it draws
    its first figure. The figure is closed in pyplot, so a notebook shows it
    exactly once, as the value of the cell, and never again at the end of the
    cell; ``fig.savefig`` still works.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        saved = {key: plt.rcParams[key] for key in STYLE}
        plt.rcParams.update(STYLE)
        try:
            fig = func(*args, **kwargs)
        finally:
            plt.rcParams.update(saved)
        plt.close(fig)
        return fig

    return wrapper


def _subplots(nrows=1, ncols=1, *, width=3.2, height=2.8, **kwargs):
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kwargs)
    return fig, axes


@_styled
def plot_attention_maps(X, heads: Heads, *, kind: str = "softmax", causal: bool = False, annotate: bool = True):
    """Heat maps of every head's attention matrix on one sequence.

    Parameters
    ----------
    X : array_like of shape (n, d)
    heads : Heads
    kind, causal
        As in :func:`attnlib.attention`.
    annotate : bool, default True
        Write each weight in its cell (only for n <= 8).

    Returns
    -------
    matplotlib.figure.Figure
        Panel i shows ``A_i[a, b]``: rows are queries a, columns keys b.
    """
    heads = _check_heads(heads)
    X3, single = check_sequences(X, d=heads.d)
    if not single:
        raise ValueError(f"plot_attention_maps draws one sequence of shape (n, d); received shape {X3.shape}")
    A = attention_weights(X3[0], heads, kind=kind, causal=causal)  # (m, n, n)
    n = A.shape[-1]
    fig, axes = _subplots(1, heads.m, width=2.9, height=2.9, constrained_layout=True)
    if kind == "softmax":
        vmin, vmax, cmap = 0.0, 1.0, "viridis"
    else:
        vmax = max(float(np.abs(A).max()), 1e-12)
        vmin, cmap = -vmax, "RdBu_r"
    for i, ax in enumerate(axes[0]):
        im = ax.imshow(A[i], vmin=vmin, vmax=vmax, cmap=cmap)
        ax.set_title(f"head {i + 1}")
        ax.set_xticks(range(n), [str(b + 1) for b in range(n)])
        ax.set_yticks(range(n), [str(a + 1) for a in range(n)])
        ax.set_xlabel("key token b")
        if i == 0:
            ax.set_ylabel("query token a")
        if annotate and n <= 8:
            for a in range(n):
                for b in range(n):
                    value = A[i, a, b]
                    light = (value - vmin) / (vmax - vmin) < 0.55 if kind == "softmax" else abs(value) > 0.6 * vmax
                    ax.text(b, a, f"{value:.2f}", ha="center", va="center", fontsize=7,
                            color="white" if light else "black")
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label="weight $A_i[a,b]$" if kind == "softmax" else "score")
    return fig


@_styled
def plot_sharpness(X, heads: Heads, *, query: int = 0, head: int = 0, scales=None):
    """How one query's softmax weights move from uniform to hard as Theta grows.

    Parameters
    ----------
    X : array_like of shape (n, d)
    heads : Heads
    query : int
        The query token a (0-based).
    head : int
        Which head's Theta to scale.
    scales : array_like, optional
        Multipliers c of Theta; default ``geomspace(0.01, 100, 200)``.

    Returns
    -------
    matplotlib.figure.Figure
        One curve per key token b: the weight ``softmax(c x_a Theta X^T)_b``.
    """
    heads = _check_heads(heads)
    X3, single = check_sequences(X, d=heads.d)
    if not single:
        raise ValueError(f"plot_sharpness draws one sequence of shape (n, d); received shape {X3.shape}")
    X = X3[0]
    scales = np.geomspace(0.01, 100, 200) if scales is None else np.asarray(scales, dtype=float)
    one = heads[head]
    weights = np.array([attention_weights(X, Heads(c * one.Theta, one.W))[0, query] for c in scales])
    fig, axes = _subplots(1, 1, width=5.0, height=3.0, constrained_layout=True)
    ax = axes[0, 0]
    for b in range(X.shape[0]):
        ax.plot(scales, weights[:, b], color=COLORS[b % len(COLORS)], label=f"key {b + 1}")
    ax.set_xscale("log")
    ax.set_xlabel(r"multiplier $c$ of $\Theta$")
    ax.set_ylabel(f"weight of query {query + 1}")
    ax.set_ylim(-0.02, 1.02)
    ax.axhline(1.0 / X.shape[0], color="0.7", lw=0.8, ls="--")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


@_styled
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
    fig, axes = _subplots(1, 1, width=6.0, height=3.2, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, y) in enumerate(curves.items()):
        y = np.asarray(y, dtype=float)
        color = COLORS[j % len(COLORS)]
        ax.plot(np.arange(len(y)), y, color=color, label=label)
        if bands and label in bands:
            lo, hi = (np.asarray(b, dtype=float) for b in bands[label])
            ax.fill_between(np.arange(len(y)), lo, hi, color=color, alpha=0.2, lw=0)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


@_styled
def plot_loss_along_line(ts, losses: dict, *, xlabel: str = "position t on the line", ylabel: str = "training MSE",
                         title: str | None = None, chords: bool = True):
    """The loss along lines in parameter space, with the chords convexity would require.

    Parameters
    ----------
    ts : array_like of shape (T,)
    losses : dict of str -> array_like of shape (T,)
        One curve per line, e.g. from :func:`attnlib.landscape.loss_along_line`.
    chords : bool, default True
        Draw the straight chord between the endpoints of each curve: a convex
        function lies on or below it.

    Returns
    -------
    matplotlib.figure.Figure
    """
    ts = np.asarray(ts, dtype=float)
    fig, axes = _subplots(1, 1, width=5.2, height=3.2, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, y) in enumerate(losses.items()):
        y = np.asarray(y, dtype=float)
        color = COLORS[j % len(COLORS)]
        ax.plot(ts, y, color=color, label=label)
        if chords:
            i0, i1 = int(np.argmin(np.abs(ts))), int(np.argmin(np.abs(ts - 1)))
            ax.plot([ts[i0], ts[i1]], [y[i0], y[i1]], color=color, ls=":", lw=1)
            ax.plot([ts[i0], ts[i1]], [y[i0], y[i1]], "o", color=color, ms=4)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper center", fontsize=8)
    return fig


@_styled
def plot_errorbars(x, means: dict, errors: dict | None = None, *, xlabel: str = "", ylabel: str = "",
                   logx: bool = False, logy: bool = False, title: str | None = None, reference: dict | None = None):
    """Points with error bars, one series per key, plus optional horizontal reference lines.

    Returns
    -------
    matplotlib.figure.Figure
    """
    x = np.asarray(x, dtype=float)
    fig, axes = _subplots(1, 1, width=5.2, height=3.2, constrained_layout=True)
    ax = axes[0, 0]
    for j, (label, y) in enumerate(means.items()):
        err = None if errors is None else errors.get(label)
        ax.errorbar(x, y, yerr=err, color=COLORS[j % len(COLORS)], marker="o", ms=4, capsize=3, label=label)
    for j, (label, value) in enumerate((reference or {}).items()):
        ax.axhline(value, color=COLORS[(j + len(means)) % len(COLORS)], ls="--", lw=1, label=label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    return fig
