"""Figures of attention itself: the attention maps of every head, and sharpness (chapter 1)."""

from __future__ import annotations

import numpy as np

from .._arguments import arguments, choice
from ..attention import KINDS, attention_weights
from ..heads import Heads
from ._kinds import one_sequence
from ._style import DIVERGING, GREYS, MIN_PT, SEQUENTIAL, series, styled, subplots


@arguments(X="array", heads="heads", kind=choice(*KINDS), causal="flag", annotate="flag")
@styled
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
    X = one_sequence(X, heads.d, "plot_attention_maps")
    A = attention_weights(X, heads, kind=kind, causal=causal)  # (m, n, n)
    n = A.shape[-1]
    ncols = min(heads.m, 3)
    nrows = -(-heads.m // ncols)
    fig, axes = subplots(nrows, ncols, width=3.0, height=3.0, constrained_layout=True)
    if kind == "softmax":
        vmin, vmax, cmap = 0.0, 1.0, SEQUENTIAL
    else:
        vmax = max(float(np.abs(A).max()), 1e-12)
        vmin, cmap = -vmax, DIVERGING
    # a weight is written in its cell only where the cell is wide enough for its longest text
    cell_in = fig.get_figwidth() * 0.75 / ncols / n
    texts = np.vectorize(_cell_text)(A)
    wide_enough = max(len(t) for t in texts.flat) * DIGIT_IN <= 0.9 * cell_in
    for ax in axes.flat[heads.m:]:
        ax.set_axis_off()
    for i, ax in enumerate(axes.flat[: heads.m]):
        im = ax.imshow(A[i], vmin=vmin, vmax=vmax, cmap=cmap, interpolation="none")  # one sharp cell per weight
        ax.set_title(f"head {i + 1}")
        ax.set_xticks(range(n), [str(b + 1) for b in range(n)])
        ax.set_yticks(range(n), [str(a + 1) for a in range(n)])
        ax.set_xlabel("key token b")
        if i % ncols == 0:
            ax.set_ylabel("query token a")
        if annotate and n <= 8 and wide_enough:
            for a in range(n):
                for b in range(n):
                    value = A[i, a, b]
                    light = (value - vmin) / (vmax - vmin) < 0.55 if kind == "softmax" else abs(value) > 0.6 * vmax
                    ax.text(b, a, texts[i, a, b], ha="center", va="center", color="white" if light else "black")
    fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.8,
                 label="weight $A_i[a,b]$" if kind == "softmax" else "score")
    return fig


#: width of one character of cell text (a digit of DejaVu Sans at MIN_PT), in inches
DIGIT_IN = 0.64 * MIN_PT / 72


def _cell_text(value: float) -> str:
    """A weight or score as at most four characters: ".25", "-3.1", "231", "-2k"."""
    size = abs(value)
    if size < 0.995:
        return f"{value:.2f}".replace("0.", ".", 1)
    if size < 9.95:
        return f"{value:.1f}"
    if size < 999.5:
        return f"{value:.0f}"
    return f"{value / 1000:.0f}k"


@arguments(X="array", heads="heads", query="index", head="index", scales="optaxis")
@styled
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
    X = one_sequence(X, heads.d, "plot_sharpness")
    if query >= X.shape[0]:
        raise ValueError(f"query must be a token index in 0..{X.shape[0] - 1}; received {query}")
    if head >= heads.m:
        raise ValueError(f"head must be in 0..{heads.m - 1}; received {head}")
    scales = np.geomspace(0.01, 100, 200) if scales is None else scales
    one = heads[head]
    weights = np.array([attention_weights(X, Heads(c * one.Theta, one.W))[0, query] for c in scales])
    fig, axes = subplots(1, 1, width=6.4, height=3.6, constrained_layout=True)
    ax = axes[0, 0]
    for b in range(X.shape[0]):
        ax.plot(scales, weights[:, b], **series(b, marker=False), label=f"key {b + 1}")
    ax.set_xscale("log")
    ax.set_xlabel(r"multiplier $c$ of $\Theta$")
    ax.set_ylabel(f"weight of query {query + 1}")
    ax.set_ylim(-0.02, 1.02)
    ax.axhline(1.0 / X.shape[0], color=GREYS["light"], lw=1, ls="--")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig
