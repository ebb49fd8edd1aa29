"""Explanatory diagrams: schematics of the book's objects, drawn from real small examples.

The other modules of :mod:`attnlib.viz` plot data; these draw the pictures the prose explains in
words, one per idea, so that each part of the book has at least one:

* :func:`plot_head` -- one softmax head on a real sequence: queries, keys, values, the softmax,
  the output (chapter 1)
* :func:`plot_cubic_lift` -- the cubic features and where each coefficient of ``p(Theta)`` goes
  (chapter 3)
* :func:`plot_dfa_lookup` -- a DFA's transition table as context tokens, and one lookup step
  (chapter 6)
* :func:`plot_logit_gap` -- the weights of a row are nonlinear in ``Theta``, but the log-ratio of two
  of them is ``<Theta, x_a (x_b - x_c)^T>_F``, linear: both sides computed on one example (chapter 7)
* :func:`plot_halfspaces` -- certified rows become halfspaces; a real 2-D slice of a sculpted body
  and the halfspaces that bound it (chapter 8)
* :func:`plot_phase_flow` -- the five phases of Part III, the book's reconstruction (chapter 8)
* :func:`plot_face` -- the face of the idealised body nearest the origin, along the heads, beside the tip
  of a body from data, in the plane of two heads: what phase 4 searches (chapter 9)
* :func:`plot_two_roads` -- the two results side by side: what each assumes, costs, and where the
  lower bound bites (chapter 11)

Every diagram is drawn on one axes whose data units are inches of the figure, so boxes, arrows
and text keep their sizes. Like every figure of the book (``attnlib/viz/_style.py``), a diagram
is at most ``COLUMN_IN`` inches wide, so the page shows it unshrunk, and no text is smaller than
``MIN_PT`` points (16 px, the body text): dense diagrams are stacked vertically rather than shrunk.
Colours come from ``COLORS`` by index, and never carry meaning alone: every coloured element also
has a label, a hatch or a line style.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Polygon, Rectangle

from .._validation import (as_float_array, check_nonnegative_int, check_positive_float, check_positive_int,
                           check_sequences)
from ..attention import attention, attention_weights
from ..heads import Heads, as_heads
from ..lower_bounds import n_monomials
from ..sculpt import (Body, Span, body_slice, clip_polygon, gap_feature, min_norm_point, min_norm_proxy,
                      span_alignment)
from ..tasks.automata import DFA, lookup_heads, query_tokens, table_tokens
from ._style import COLORS, COLUMN_IN, GREYS, MIN_PT, styled
from .sculpt import clip_edges, head_plane, plane_coordinates  # one plane for the slices of chapter 8 and this diagram

__all__ = ["plot_cubic_lift", "plot_dfa_lookup", "plot_face", "plot_halfspaces", "plot_head", "plot_logit_gap",
           "plot_phase_flow", "plot_two_roads"]

FONT = 12  # pt: titles of a diagram
SMALL = MIN_PT  # pt: the smallest text drawn (at 100 dpi, 16 px: the page's body text)
WIDTH = COLUMN_IN  # in: every canvas; its tight bounding box is at most WIDTH + 0.2 in (660 px)


# --------------------------------------------------------------------------- drawing primitives


def _canvas(width: float, height: float):
    """A figure whose single axes has data units of inches, origin bottom left, no frame."""
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return fig, ax


def _tint(index: int, alpha: float = 0.16):
    """A light fill of palette colour ``index``."""
    from matplotlib.colors import to_rgba

    return to_rgba(COLORS[index % len(COLORS)], alpha)


def _box(ax, x, y, w, h, text="", *, color=0, size=FONT, fill=True, hatch=None, ls="-", weight="normal",
         align="center"):
    """A rounded box with its lower-left corner at (x, y); returns (x, y, w, h) for arrows."""
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=0.06",
                                facecolor=_tint(color) if fill else "none",
                                edgecolor=COLORS[color % len(COLORS)], lw=1.2, hatch=hatch, ls=ls))
    if text:
        tx = x + w / 2 if align == "center" else x + 0.1
        ax.text(tx, y + h / 2, text, ha=align, va="center", fontsize=size, weight=weight,
                linespacing=1.35)
    return (x, y, w, h)


def _edge(box, side):
    """Midpoint of a side ('left', 'right', 'top', 'bottom') of a box (x, y, w, h)."""
    x, y, w, h = box
    return {"left": (x, y + h / 2), "right": (x + w, y + h / 2),
            "top": (x + w / 2, y + h), "bottom": (x + w / 2, y)}[side]


def _arrow(ax, start, end, *, color="0.25", ls="-", rad=0.0, lw=1.3):
    """An arrow whose tip ends exactly at ``end`` (no shrinking)."""
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=13, color=color, lw=lw,
                                 ls=ls, shrinkA=0, shrinkB=0, connectionstyle=f"arc3,rad={rad}"))


def _fmt(value: float, digits: int = 1) -> str:
    """A number short enough for a matrix cell: ``digits`` decimals, none at 10 and above."""
    value = float(value)
    if abs(value) >= 10:
        text = f"{value:.0f}"
    else:
        text = f"{value:.{digits}f}"
    if text in ("-0", "-0.0", "-0.00"):
        text = text[1:]
    return text  # ASCII '-': narrower than the minus sign, so four characters fit a cell


def _matrix(ax, x, y, M, *, cell=0.4, digits=1, shade=None, color=0, size=SMALL, row=None):
    """A grid of numbers, row 0 at the top; ``shade`` in [0, 1] per entry tints the cells.

    ``row`` outlines one row with a thick dashed frame. Returns the box (x, y, w, h).
    """
    M = np.atleast_2d(M)
    r, c = M.shape
    for i in range(r):
        for j in range(c):
            cx, cy = x + j * cell, y + (r - 1 - i) * cell
            face = _tint(color, 0.08 + 0.6 * float(shade[i, j])) if shade is not None else "white"
            ax.add_patch(Rectangle((cx, cy), cell, cell, facecolor=face, edgecolor="0.55", lw=0.6))
            ax.text(cx + cell / 2, cy + cell / 2, _fmt(M[i, j], digits), ha="center", va="center",
                    fontsize=size)
    if row is not None:
        ax.add_patch(Rectangle((x - 0.03, y + (r - 1 - row) * cell - 0.03), c * cell + 0.06, cell + 0.06,
                               facecolor="none", edgecolor="black", lw=1.8, ls="--"))
    return (x, y, c * cell, r * cell)


# --------------------------------------------------------------------------- chapter 1: one head


@styled
def plot_head(X, heads: Heads, *, head: int = 0, query: int = 1):
    """One softmax head on one sequence, every intermediate matrix with its numbers.

    Parameters
    ----------
    X : array_like of shape (n, d)
        One sequence, tokens as rows (n, d <= 6 so the numbers fit).
    heads : Heads
        The layer; one head is drawn.
    head : int, default 0
        Which head (0-based).
    query : int, default 1
        The query token a (0-based) whose row is outlined; the figure labels it ``a = query + 1``.

    Returns
    -------
    matplotlib.figure.Figure
        Top row: the input ``X``, the queries ``Q = X Theta``, the logits ``S = Q X^T`` (the keys
        are the tokens themselves) and the weights ``A = softmax(S)``. Bottom row: the values
        ``V = X W`` and the output ``F = A V``. Row a is outlined in ``S``, ``A`` and ``F``.

    Examples
    --------
    >>> from attnlib import boolean_inputs, random_heads
    >>> fig = plot_head(boolean_inputs(1, 4, 4, rng=0)[0], random_heads(1, 4, rng=1))
    >>> len(fig.axes)
    1
    """
    heads = as_heads(heads)
    X3, single = check_sequences(X, d=heads.d)
    if not single:
        raise ValueError(f"plot_head draws one sequence of shape (n, d); received shape {X3.shape}")
    X = X3[0]
    n, d = X.shape
    if n > 6 or d > 6:
        raise ValueError(f"plot_head draws sequences with n, d <= 6 so that every number fits; received n={n}, d={d}")
    if not 0 <= head < heads.m:
        raise ValueError(f"head must be in 0..{heads.m - 1}; received {head}")
    if not 0 <= query < n:
        raise ValueError(f"query must be a token index in 0..{n - 1}; received {query}")
    one = heads[head]
    Theta, W = one.Theta[0], one.W[0]
    Q = X @ Theta                                   # (n, d) queries
    S = Q @ X.T                                     # (n, n) logits S[a, b] = x_a Theta x_b
    A = attention_weights(X, one)[0]                # (n, n) row-wise softmax
    V = X @ W                                       # (n, d) values
    F = attention(X, one)                           # (n, d) = A V

    # three columns, two rows: X -> Q -> S on top; S -> A down the right; A and V into F below
    cell = 0.4
    side = max(n, d) * cell
    gap = (WIDTH - 0.38 - 0.1 - 3 * side) / 2       # the dashed frames stick out 0.03 in on the right
    xs = [0.38 + k * (side + gap) for k in range(3)]
    bottom_y = 1.05
    top_y = bottom_y + n * cell + 0.75
    fig, ax = _canvas(WIDTH, top_y + n * cell + 0.62)
    title = dict(ha="center", va="bottom", fontsize=FONT, linespacing=1.3)

    bx = _matrix(ax, xs[0], top_y, X, cell=cell, digits=0)
    bq = _matrix(ax, xs[1], top_y, Q, cell=cell)
    bs = _matrix(ax, xs[2], top_y, S, cell=cell, row=query)
    bv = _matrix(ax, xs[0], bottom_y, V, cell=cell)
    bf = _matrix(ax, xs[1], bottom_y, F, cell=cell, row=query)
    ba = _matrix(ax, xs[2], bottom_y, A, cell=cell, digits=2, shade=A, row=query)
    for (x, y, w, h), text in ((bx, f"input $X$ ({n}$\\times${d})\nrows: tokens $x_b$"),
                               (bq, f"queries $Q=X\\Theta$\n({n}$\\times${d})"),
                               (bs, "logits $S=QX^\\top$\n$S_{ab}=x_a^\\top\\Theta x_b$")):
        ax.text(x + w / 2, y + h + 0.07, text, **title)
    for (x, y, w, _), text in ((bv, "values $V=XW$"), (bf, "output $F(X)=AV$"), (ba, "weights $A$")):
        ax.text(x + w / 2, y - 0.07, text, **{**title, "va": "top"})
    for b in range(n):  # token labels left of X
        ax.text(xs[0] - 0.06, top_y + (n - 1 - b) * cell + cell / 2, f"$x_{b + 1}$", ha="right", va="center",
                fontsize=SMALL)
    # arrows along the top: X -> Q (times Theta), Q -> S (times X^T: the keys)
    mid = top_y + n * cell / 2
    for b0, b1, label in ((bx, bq, r"$\cdot\Theta$"), (bq, bs, r"$\cdot X^\top$")):
        _arrow(ax, (b0[0] + b0[2] + 0.06, mid), (b1[0] - 0.06, mid))
        ax.text((b0[0] + b0[2] + b1[0]) / 2, mid + 0.06, label, ha="center", va="bottom", fontsize=SMALL)
    ax.text((bq[0] + bq[2] + bs[0]) / 2, mid - 0.06, "keys", ha="center", va="top", fontsize=SMALL)
    # down: X -> V (times W) and S -> A (softmax of each row)
    for b0, b1, label, side in ((bx, bv, r"$\cdot W$", 1), (bs, ba, "softmax,\nrow by row", -1)):
        x = b0[0] + b0[2] / 2
        _arrow(ax, (x, b0[1] - 0.06), (x, b1[1] + b1[3] + 0.06))
        ax.text(x + 0.1 * side, (b0[1] + b1[1] + b1[3]) / 2, label, ha="left" if side > 0 else "right",
                va="center", fontsize=SMALL, linespacing=1.2)
    # into F = A V: from V on the left, from A on the right
    vmid = bottom_y + n * cell / 2
    _arrow(ax, (bv[0] + bv[2] + 0.06, vmid), (bf[0] - 0.06, vmid))
    _arrow(ax, (ba[0] - 0.06, vmid), (bf[0] + bf[2] + 0.06, vmid))
    ax.text(0.05, 0.05, f"$F=AV$: row $a$ of $A$ mixes the rows of $V$. Dashed: query $a={query + 1}$,\n"
            f"whose output row is $\\Sigma_b A_{{ab}}\\,x_b^\\top W$.", ha="left", va="bottom", fontsize=SMALL,
            linespacing=1.4)
    return fig


# --------------------------------------------------------------------------- chapter 3: the lift


def _feature_order(d: int) -> list[tuple[int, int, int]]:
    """(j, k, l), 1-based, in the order of Algorithm 2: pairs j < k row by row, then j = k; l fastest."""
    pairs = [(j, k) for j in range(1, d + 1) for k in range(j + 1, d + 1)] + [(j, j) for j in range(1, d + 1)]
    return [(j, k, l) for j, k in pairs for l in range(1, d + 1)]


@styled
def plot_cubic_lift(d: int = 2):
    """The cubic feature map ``phi(X) = g (x) x_n`` and the coefficient ``p(Theta)`` of each feature.

    Parameters
    ----------
    d : int, default 2
        Token dimension, 2 or 3 (``psi = d^2 (d + 1) / 2`` rows are drawn: 6 or 18).

    Returns
    -------
    matplotlib.figure.Figure
        Left: the Gram matrix ``G = X^T X``; its distinct entries are numbered in the order of
        Algorithm 2 (pairs ``j < k`` row by row, then the diagonal), and each entry below the
        diagonal is folded onto its mirror image. Middle: the features ``G_jk x_{n,l}``, one row
        each, with ``l`` running fastest. Right: the coefficient of that feature in the output
        ``y_a = p(Theta)^T phi(X)``; a pair ``j < k`` collects the two terms ``(j, k)`` and
        ``(k, j)`` of the sum over the tensor ``T``.

    Examples
    --------
    >>> len(plot_cubic_lift(2).axes)
    1
    """
    d = check_positive_int("d", d)
    if d not in (2, 3):
        raise ValueError(f"plot_cubic_lift draws d = 2 or d = 3 (6 or 18 feature rows); received d={d}")
    order = _feature_order(d)
    psi = len(order)
    # on top the Gram matrix and its notes; below it the table of features and coefficients
    rowh = 0.33
    cell = 0.62
    table_top = 0.75 + psi * rowh                                   # top of the table's first row
    gy = table_top + 0.55                                           # bottom of the Gram matrix
    fig, ax = _canvas(WIDTH, gy + d * cell + 0.42)
    gx = 0.9
    pair_index = {}
    for j, k, _ in order:
        pair_index.setdefault((j, k), len(pair_index) + 1)
    for j in range(1, d + 1):
        for k in range(1, d + 1):
            cx, cy = gx + (k - 1) * cell, gy + (d - j) * cell
            folded = j > k
            ax.add_patch(Rectangle((cx, cy), cell, cell, facecolor="white" if folded else _tint(1, 0.12),
                                   edgecolor="0.4", lw=0.8, hatch="///" if folded else None))
            text = f"$G_{{{k}{j}}}$" if folded else f"$G_{{{j}{k}}}$"
            ax.text(cx + cell / 2, cy + cell / 2 + (0 if folded else 0.1), text, ha="center", va="center",
                    fontsize=SMALL, bbox=dict(facecolor="white", edgecolor="none", pad=0.5) if folded else None)
            if not folded:
                ax.text(cx + cell / 2, cy + 0.13, f"no. {pair_index[(j, k)]}", ha="center", va="center",
                        fontsize=SMALL, color="0.25")
    ax.text(gx + d * cell / 2, gy + d * cell + 0.08, "Gram matrix $G=X^\\top X$", ha="center", va="bottom",
            fontsize=FONT)
    note_x = gx + d * cell + 0.35
    last = ",".join(f"x_{{n,{l}}}" for l in range(1, d + 1))
    ax.text(note_x, gy + d * cell, "hatched: $G_{kj}=G_{jk}$ is the\nsame feature, so its term folds\nonto the "
            f"mirror entry.\nLast token $x_n=({last})$.", ha="left", va="top", fontsize=SMALL, linespacing=1.4)
    # the features and their coefficients
    fx, fw = 1.55, 1.15
    px = fx + fw + 0.4
    bracket = 0.62
    ax.text(fx - 0.42, table_top + 0.06, "$(jk,l)$", ha="center", va="bottom", fontsize=SMALL)
    ax.text(fx + fw / 2, table_top + 0.06, "feature $\\phi(X)$", ha="center", va="bottom", fontsize=FONT)
    ax.text(px + 0.05, table_top + 0.06, "its coefficient $p(\\Theta)_{(jk,l),a}$", ha="left", va="bottom",
            fontsize=FONT)
    for r, (j, k, l) in enumerate(order):
        y = table_top - (r + 1) * rowh
        group = pair_index[(j, k)] - 1
        ax.add_patch(Rectangle((fx, y), fw, rowh, facecolor=_tint(1, 0.16) if group % 2 == 0 else "white",
                               edgecolor="0.55", lw=0.6))
        ax.text(fx - 0.42, y + rowh / 2, f"$({j}{k},{l})$", ha="center", va="center", fontsize=SMALL)
        ax.text(fx + fw / 2, y + rowh / 2, f"$G_{{{j}{k}}}\\,x_{{n,{l}}}$", ha="center", va="center",
                fontsize=SMALL)
        if j < k:
            coef = f"$\\Sigma_i\\,(\\Theta_{{i,{l}{j}}}W_{{i,{k}a}}+\\Theta_{{i,{l}{k}}}W_{{i,{j}a}})$"
        else:
            coef = f"$\\Sigma_i\\,\\Theta_{{i,{l}{j}}}W_{{i,{j}a}}$"
        ax.text(px + 0.05, y + rowh / 2, coef, ha="left", va="center", fontsize=SMALL)
        _arrow(ax, (fx + fw + 0.06, y + rowh / 2), (px - 0.04, y + rowh / 2), lw=0.8, color="0.5")
    for (j, k), idx in pair_index.items():  # a bracket over each Gram entry's block of d rows
        rows = [r for r, (jj, kk, _) in enumerate(order) if (jj, kk) == (j, k)]
        y0, y1 = table_top - (rows[-1] + 1) * rowh + 0.04, table_top - rows[0] * rowh - 0.04
        ax.plot([bracket + 0.08, bracket, bracket, bracket + 0.08], [y0, y0, y1, y1], color="0.3", lw=1)
        ax.text(bracket - 0.06, (y0 + y1) / 2, f"no. {idx}", ha="right", va="center", fontsize=SMALL)
    ax.text(0.05, 0.1, f"$\\psi=d^2(d+1)/2={psi}$ rows for $d={d}$; output "
            "$\\hat y_a(X)=\\Sigma_{\\mathrm{rows}}\\,\\phi(X)\\,p(\\Theta)_{\\cdot,a}$",
            ha="left", va="bottom", fontsize=SMALL)
    return fig


# --------------------------------------------------------------------------- chapter 6: DFA lookup


@styled
def plot_dfa_lookup(dfa: DFA, state: int = 0, symbol: int = 0):
    """A DFA's transition table written into the context, and one lookup by the explicit head.

    Parameters
    ----------
    dfa : DFA
        With S * A <= 8 table tokens (so the picture fits the page).
    state, symbol : int
        The current pair ``(s_t, a_t)`` of the query.

    Returns
    -------
    matplotlib.figure.Figure
        Rows: one table token ``[e_(s,a) | e_delta(s,a)]`` per pair, then the query
        ``[e_(s_t,a_t) | 0]``; the key block is left of the dashed line, the value block right of
        it, and a 1 is written in every nonzero cell. Right of each row: the head's score
        ``x_n^T Theta x_b``. Below: the output's value block, the decoded next state, and the
        driver's next query.

    Examples
    --------
    >>> from attnlib.tasks.automata import DFA
    >>> len(plot_dfa_lookup(DFA([[0, 1], [1, 0]]), 1, 1).axes)
    1
    """
    if not isinstance(dfa, DFA):
        raise TypeError(f"dfa must be an attnlib.tasks.automata.DFA; received {type(dfa).__name__}")
    S, A = dfa.n_states, dfa.n_symbols
    if S * A > 8:
        raise ValueError(f"plot_dfa_lookup draws at most 8 table tokens; received S*A = {S}*{A} = {S * A}")
    if not (0 <= int(state) < S and 0 <= int(symbol) < A):
        raise ValueError(f"(state, symbol) must be in 0..{S - 1} x 0..{A - 1}; received ({state}, {symbol})")
    state, symbol = int(state), int(symbol)
    table = table_tokens(dfa)                                       # (S*A, d)
    query = query_tokens([state], [symbol], S, A)                   # (1, d)
    X = np.vstack([table, query])                                   # (S*A + 1, d): the context
    head = lookup_heads(S, A)
    scores = X @ head.Theta[0] @ X[-1]                              # (S*A + 1,) score of each token
    out = attention(X, head, kind="linear")[-1]                     # (d,)
    nxt = int(np.argmax(out[S * A:]))
    d = S * A + S
    # the context grid with its labels and scores on top; the output and the driver below it
    cell = min(0.3, 2.9 / d)
    rows = S * A + 1
    gx = 2.05
    sx = gx + d * cell + 0.35                                       # the score column
    gy = 2.05
    fig, ax = _canvas(WIDTH, gy + (rows + 0.6) * cell + 0.55)
    ys = [gy + (rows - 1 - r) * cell for r in range(rows)]
    ys[-1] -= 0.6 * cell  # the query sits a little below the table
    for r in range(rows):
        is_query = r == S * A
        for c in range(d):
            on = X[r, c] != 0
            ax.add_patch(Rectangle((gx + c * cell, ys[r]), cell, cell,
                                   facecolor=_tint(0 if c < S * A else 3, 0.55) if on else "white",
                                   edgecolor="0.6", lw=0.6))
            if on:
                ax.text(gx + (c + 0.5) * cell, ys[r] + cell / 2, "1", ha="center", va="center", fontsize=SMALL)
        if is_query:
            label = f"query $(s_t,a_t)=({state},{symbol})$"
        else:
            s, a = divmod(r, A)
            label = f"$({s},{a})\\mapsto\\delta={dfa.delta[s, a]}$"
        ax.text(gx - 0.1, ys[r] + cell / 2, label, ha="right", va="center", fontsize=SMALL)
        score = scores[r]
        ax.text(sx, ys[r] + cell / 2, f"{score:.0f}", ha="center", va="center", fontsize=SMALL,
                weight="bold" if score and not is_query else "normal")
        if score and not is_query:  # the match: outline the row
            ax.add_patch(Rectangle((gx - 0.03, ys[r] - 0.03), d * cell + 0.06, cell + 0.06, facecolor="none",
                                   edgecolor="black", lw=1.8, ls="--", zorder=5))  # over the next row's cells
    split = gx + S * A * cell
    ax.plot([split, split], [ys[-1] - 0.08, ys[0] + cell + 0.08], color="black", lw=1.2, ls=(0, (4, 3)))
    head_y = ys[0] + cell + 0.1
    ax.text(gx + S * A * cell / 2, head_y, f"key $e_{{(s,a)}}$\n({S * A} cells)", ha="center", va="bottom",
            fontsize=SMALL, linespacing=1.2)
    ax.text(split + S * cell / 2, head_y, "value\n$e_{\\delta(s,a)}$", ha="center", va="bottom", fontsize=SMALL,
            linespacing=1.2)
    ax.text(sx, head_y, "score\n$x_n^\\top\\Theta x_b$", ha="center", va="bottom", fontsize=SMALL, linespacing=1.2)
    ax.text(gx - 0.1, head_y, "token $(s,a)$", ha="right", va="bottom", fontsize=SMALL)
    # below: the output (under the score column) and the driver (left of it)
    match = int(np.flatnonzero(scores[:-1])[0])                     # the table token that matches
    ow, oh = 2.3, 0.95
    ob = _box(ax, WIDTH - 0.08 - ow, 0.72, ow, oh,
              f"output at the last\ntoken: $[\\,0\\mid e_{{\\delta({state},{symbol})}}\\,]$,\n"
              f"value block: state {nxt}", color=3, size=SMALL)
    db = _box(ax, 0.3, 0.72, 2.6, oh, f"driver: argmax gives\n$s_{{t+1}}={nxt}$; append the\n"
              f"query of $(s_{{t+1}},a_{{t+1}})$", color=0, size=SMALL)
    down = sx + 0.3                                                 # right of the scores, inside the output box
    ax.plot([sx + 0.18, down], [ys[match] + cell / 2] * 2, color="0.25", lw=1.3)
    _arrow(ax, (down, ys[match] + cell / 2), (down, ob[1] + oh))
    _arrow(ax, _edge(ob, "left"), _edge(db, "right"))
    _arrow(ax, _edge(db, "top"), (gx + S * A * cell / 2, ys[-1] - 0.04), ls="--")
    ax.text(0.05, 0.05, "Dashed frame: the one table token whose key matches the query\n"
            "(the query also scores 1 on itself; its value block is 0).", ha="left", va="bottom",
            fontsize=SMALL, linespacing=1.3)
    return fig


# --------------------------------------------------------------------------- chapter 7: logit gaps


def _digits(M) -> int:
    """Decimals a matrix's cells need: none when every entry is an integer, else two."""
    return 0 if np.allclose(M, np.round(M), rtol=0, atol=1e-12) else 2


def _weight(w: float) -> str:
    """A softmax weight to what it resolves: two decimals, or two significant digits below 0.01."""
    if w >= 0.01:
        return f"{w:.2f}"
    return f"{w:.2g}" if w >= 1e-4 else f"{w:.1e}"


def _factor(value: float, digits: int) -> str:
    """One factor of a product in mathtext: a negative number in parentheses."""
    text = _fmt(value, digits)
    return f"({text})" if text.startswith("-") else text


def _width(fig, text: str, size: float = SMALL) -> float:
    """The width in inches of ``text`` drawn at ``size`` points on ``fig``."""
    probe = fig.text(0, 0, text, fontsize=size)
    width = probe.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi
    probe.remove()
    return width


@styled
def plot_logit_gap(X, Theta, a: int = 0, b: int = 1, c: int = 2, *, head: int = 0):
    """The weights of a row are nonlinear in ``Theta``; the log-ratio of two is linear in it.

    Parameters
    ----------
    X : array_like of shape (n, d)
        One sequence, tokens as rows (n <= 3, d <= 3, so that every number fits).
    Theta : Heads or array_like of shape (d, d)
        The head: an ``attnlib.Heads`` (head ``head`` is drawn; its ``W`` plays no part) or its
        attention matrix.
    a, b, c : int, default 0, 1, 2
        The query token, the token whose weight is the numerator and the competing token
        (0-based, as in code; ``b != c``, and ``a`` may be either). The figure names them
        ``x_a``, ``x_b``, ``x_c``, and a token with no role ``x_k`` by its 1-based index.
    head : int, default 0
        Which head of a ``Heads`` (0-based).

    Returns
    -------
    matplotlib.figure.Figure
        Top, left to right: the tokens ``X``, the head ``Theta`` and, after the softmax of row
        ``a``, the weights ``A[a, k]`` as bars with their values (``attnlib.attention_weights``),
        the two of the ratio in colour: nonlinear in ``Theta``. Bottom left: the gap feature
        ``Z = x_a (x_b - x_c)^T`` (``attnlib.sculpt.gap_feature``), built from the tokens.
        Bottom right, fed by the bars and by ``Z``: the equation
        ``log A[a,b] - log A[a,c] = <Theta, Z>_F`` and the number of each side, the left one from
        the two weights, the right one as the sum of the products ``Theta_pq Z_pq`` (written out
        when they fit): the same number, linear in ``Theta``.

    Raises
    ------
    TypeError
        ``Theta`` neither a ``Heads`` nor an array of numbers, or an index not an integer.
    ValueError
        ``X`` not one sequence with n <= 3 and d <= 3, ``Theta`` of the wrong shape, an index out
        of range, ``b == c``, or a weight ``A[a, b]`` or ``A[a, c]`` that underflows to 0.

    Examples
    --------
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]])
    >>> fig = plot_logit_gap(X, np.diag([2.0, 1.0]), 0, 1, 2)
    >>> len(fig.axes)
    1
    >>> [t.get_text() for t in fig.axes[0].texts if t.get_gid() in ("lhs", "rhs")]
    ['left side: $\\\\log 0.12-\\\\log 0.0022=4.00$', 'right side: $2\\\\cdot2+0\\\\cdot2=4.00$']
    """
    X3, single = check_sequences(X)
    if not single:
        raise ValueError(f"plot_logit_gap draws one sequence of shape (n, d); received shape {X3.shape}")
    X = X3[0]
    n, d = X.shape
    if n > 3 or d > 3:
        raise ValueError(f"plot_logit_gap draws n <= 3 tokens of dimension d <= 3 so that every number fits; "
                         f"received n={n}, d={d}")
    if isinstance(Theta, Heads):
        heads = as_heads(Theta, d=d, name="Theta")
        head = check_nonnegative_int("head", head)
        if head >= heads.m:
            raise ValueError(f"head must be in 0..{heads.m - 1}; received {head}")
        Theta = heads.Theta[head]
    else:
        Theta = as_float_array("Theta", Theta)
        if Theta.shape != (d, d):
            raise ValueError(f"Theta must be an attnlib.Heads or a ({d}, {d}) matrix for tokens of dimension "
                             f"d = {d}; received shape {Theta.shape}")
    a, b, c = (check_nonnegative_int(name, value) for name, value in (("a", a), ("b", b), ("c", c)))
    for name, value in (("a", a), ("b", b), ("c", c)):
        if value >= n:
            raise ValueError(f"{name} must be a token index in 0..{n - 1}; received {value}")
    if b == c:
        raise ValueError(f"b and c must be two different tokens; received b = c = {b}")
    row = attention_weights(X, Heads(Theta, np.eye(d)))[0][a]      # (n,) the weights of row a
    if row[b] <= 0 or row[c] <= 0:
        raise ValueError(f"the weights A[a,b] = {row[b]:.1e} and A[a,c] = {row[c]:.1e} must be positive to take "
                         "their logarithms; received a head so sharp that one underflows")
    Z = gap_feature(X[a], X[b], X[c])                               # (d, d) x_a (x_b - x_c)^T
    lhs = float(np.log(row[b]) - np.log(row[c]))                    # from the weights
    rhs = float(np.sum(Theta * Z))                                  # <Theta, Z>_F, entry by entry

    def label(k: int) -> str:
        roles = [r for r, i in (("a", a), ("b", b), ("c", c)) if i == k]
        return "$" + "{=}".join(f"x_{r}" for r in roles) + "$" if roles else f"$x_{k + 1}$"

    # top: tokens, Theta, and the bars of row a; bottom: Z, and the equation both of them feed
    cx, ct, cz = (0.4 if _digits(M) == 0 else 0.5 for M in (X, Theta, Z))
    bar_h, pitch, bar_w = 1.15, 0.68, 0.4
    eq_h = 1.2
    top_h = max(n * cx, d * ct, 0.3 + bar_h + 0.3)                # the bars, their labels and values
    bottom_h = max(d * cz, eq_h)
    y_bot = 0.1
    y_top = y_bot + bottom_h + 0.95                                 # room for the headings between the rows
    fig, ax = _canvas(WIDTH, y_top + top_h + 0.72)
    head_kw = dict(ha="center", va="bottom", fontsize=SMALL, linespacing=1.25)
    left = 0.12 + max(_width(fig, label(k)) for k in range(n))      # room for the token labels

    bx = _matrix(ax, left, y_top + top_h - n * cx, X, cell=cx, digits=_digits(X))
    for k in range(n):
        ax.text(left - 0.07, bx[1] + (n - 1 - k) * cx + cx / 2, label(k), ha="right", va="center", fontsize=SMALL)
    ax.text(bx[0] + bx[2] / 2, y_top + top_h + 0.08, "tokens", **head_kw)
    bt = _matrix(ax, bx[0] + bx[2] + 0.3, y_top + top_h - d * ct, Theta, cell=ct, digits=_digits(Theta))
    ax.text(bt[0] + bt[2] / 2, y_top + top_h + 0.08, "head $\\Theta$", **head_kw)

    # the bars of row a, flush right: the two of the ratio in colour, any other grey
    values = [_weight(w) for w in row]
    half = max(bar_w, *(_width(fig, v) for v in values)) / 2       # a value is centred on its bar
    centres = [WIDTH - 0.05 - half - (n - 1 - k) * pitch for k in range(n)]
    base = y_top + 0.3
    for k, x in enumerate(centres):
        ax.add_patch(Rectangle((x - bar_w / 2, base), bar_w, bar_h * float(row[k]), edgecolor="black", lw=0.8,
                               facecolor=COLORS[0] if k in (b, c) else GREYS["light"], gid=f"bar-{k}"))
        ax.text(x, base + bar_h * float(row[k]) + 0.04, values[k], ha="center", va="bottom", fontsize=SMALL,
                gid=f"weight-{k}")
        ax.text(x, base - 0.05, label(k), ha="center", va="top", fontsize=SMALL)
    ax.plot([centres[0] - half, centres[-1] + half], [base, base], color="black", lw=0.8)
    bars_mid = (centres[0] + centres[-1]) / 2
    title = "softmax of row $a$ of $A$:\nnonlinear in $\\Theta$"
    ax.text(min(bars_mid, WIDTH - 0.05 - _width(fig, title) / 2), y_top + top_h + 0.08, title, **head_kw)
    mid = bt[1] + bt[3] / 2
    _arrow(ax, (bt[0] + bt[2] + 0.08, mid), (centres[0] - half - 0.08, mid))

    # bottom left: the gap feature, from the tokens
    bz = _matrix(ax, left, y_bot + bottom_h - d * cz, Z, cell=cz, digits=_digits(Z))
    ax.text(bz[0] - 0.05, y_bot + bottom_h + 0.08, "gap feature\n$Z=x_a(x_b-x_c)^\\top$", **{**head_kw, "ha": "left"})
    _arrow(ax, (bx[0] + bx[2] / 2, bx[1] - 0.08), (bz[0] + bz[2] / 2, y_bot + bottom_h + 0.62))

    # bottom right: the equation; its left side from the bars, its right side from Z
    ex = bz[0] + bz[2] + 0.4
    inner = WIDTH - 0.05 - ex - 0.24                                # the box's width for text
    products = [(Theta[p, q], Z[p, q]) for p in range(d) for q in range(d) if _fmt(Z[p, q], _digits(Z)) != "0"]
    terms = "+".join(f"{_factor(t, _digits(Theta))}\\cdot{_factor(z, _digits(Z))}" for t, z in products) or "0"
    for prefix in ("left side", "left"):
        lhs_text = f"{prefix}: $\\log {values[b]}-\\log {values[c]}={lhs:.2f}$"
        if _width(fig, lhs_text) <= inner:
            break
    for body in (terms, "\\Sigma_{pq}\\Theta_{pq}Z_{pq}"):
        rhs_text = f"right side: ${body}={rhs:.2f}$"
        if _width(fig, rhs_text) <= inner:
            break
    eb = _box(ax, ex, y_bot + bottom_h - eq_h, WIDTH - 0.05 - ex, eq_h, color=2)
    lines = [("claim", "$\\log A[a,b]-\\log A[a,c]=\\langle\\Theta,Z\\rangle_F$"), ("lhs", lhs_text), ("rhs", rhs_text)]
    for k, (gid, text) in enumerate(lines):
        ax.text(ex + 0.12, eb[1] + eq_h - 0.2 - k * 0.38, text, ha="left", va="center", fontsize=SMALL, gid=gid)
    ax.text(ex + eb[2] / 2, eb[1] + eq_h + 0.08, "linear in $\\Theta$: both sides agree", **head_kw)
    _arrow(ax, (bars_mid, base - 0.36), (bars_mid, eb[1] + eq_h + 0.4))
    _arrow(ax, (bz[0] + bz[2] + 0.08, bz[1] + bz[3] / 2), (ex - 0.04, bz[1] + bz[3] / 2))
    return fig


# --------------------------------------------------------------------------- chapter 8: halfspaces


def _bounding_lines(body: Body, basis: np.ndarray, poly: np.ndarray, tol: float = 1e-7) -> list[tuple]:
    """The halfspaces whose lines carry an edge of the slice polygon, one per distinct line.

    Returns (k, u, v) with the line ``u s + v t = gamma`` of halfspace k in plane coordinates.
    """
    U = np.einsum("jpq,kpq->kj", basis, body.Z)          # (K, 2): <B1, Z_k>, <B2, Z_k>
    found, seen = [], []
    for p0, p1 in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        for k, (u, v) in enumerate(U):
            norm = np.hypot(u, v)
            if norm < 1e-12:
                continue
            on = abs(u * p0[0] + v * p0[1] - body.gamma) < tol * norm * 10 and \
                abs(u * p1[0] + v * p1[1] - body.gamma) < tol * norm * 10
            if on:
                key = np.array([u, v]) / body.gamma
                if not any(np.allclose(key, s, atol=1e-9) for s in seen):
                    seen.append(key)
                    found.append((k, u, v))
                break
    return found


@styled
def plot_halfspaces(body: Body, heads: Heads, *, box: float | None = None):
    """How certified rows become halfspaces, and the halfspaces that bound a real slice of the body.

    Parameters
    ----------
    body : Body
        A sculpted body (``attnlib.sculpt.sculpt_body``).
    heads : Heads
        The planted layer (m >= 2); the slice is the plane through the origin spanned by
        ``Theta_1`` and ``Theta_2``, with ``Theta_star`` (their min-norm point) along the horizontal axis.
    box : float, optional
        Half-width of the square drawn; default 1.5 times the largest head coordinate.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the rule, from a certified row to a halfspace ``<Theta, Z>_F >= gamma``. Right:
        the slice (shaded), the line ``<Theta, Z_k>_F = gamma`` of every halfspace that carries
        one of its edges, hatched on the side the halfspace cuts away and numbered, the heads
        and the body's min-norm point (projected onto the plane).

    Examples
    --------
    >>> from attnlib import attention, boolean_inputs
    >>> from attnlib.sculpt import planted_instance, sculpt_body
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(2000, 3, 4, rng=1)
    >>> len(plot_halfspaces(sculpt_body(X, attention(X, heads), heads.W.sum(0)), heads).axes)
    2
    """
    if not isinstance(body, Body):
        raise TypeError(f"body must be an attnlib.sculpt.Body; received {type(body).__name__}")
    heads = as_heads(heads)
    if heads.m < 2 or heads.d != body.d:
        raise ValueError(f"plot_halfspaces needs a layer with m >= 2 heads of dimension d = {body.d}; "
                         f"received m = {heads.m}, d = {heads.d}")
    basis = head_plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], basis)          # (2, 2): heads in the plane
    half = box if box is not None else 1.5 * float(np.abs(pts).max())
    poly = body_slice(body, np.zeros((body.d, body.d)), basis, box=half)
    lines = _bounding_lines(body, basis, poly) if len(poly) else []
    proxy, off = plane_coordinates(min_norm_proxy(body), basis)
    # the view: the slice's tip and the heads; the origin lies to the left, marked by an arrow
    tip = float(poly[:, 0].min()) if len(poly) else 0.0
    s_lo, s_hi = min(0.55 * tip, tip - 0.35), float(pts[:, 0].max()) + 0.55
    t_hi = 0.62 * (s_hi - s_lo)
    t_lo = -t_hi

    # left the rule, three steps one under the other; right the slice, in its own axes
    bw, boxh, gap = 2.6, 1.18, 0.34
    height = 3 * boxh + 2 * gap + 0.2
    steps = [
        ("certified row $a$ of an\nexample $X$: its label\n$F(X)_a$ is close to the atom\n"
         "$x_b^\\top(W_1+\\dots+W_m)$, so\nevery head attends to $x_b$", 0),
        ("each competitor token $c$\nwith $x_c\\neq x_b$ gives a\ngap feature $Z=x_a(x_b-x_c)^\\top$", 1),
        ("halfspace $H=\\{\\Theta:$\n$\\langle\\Theta,Z\\rangle_F\\geq\\gamma\\}$; every\nhead lies in it; the body\n"
         "$K$ is the intersection", 3),
    ]
    fig, ax = _canvas(WIDTH, height)
    boxes = [_box(ax, 0.05, height - 0.1 - (k + 1) * boxh - k * gap, bw, boxh, text, color=color, size=SMALL)
             for k, (text, color) in enumerate(steps)]
    for b0, b1 in zip(boxes, boxes[1:], strict=False):
        _arrow(ax, _edge(b0, "bottom"), _edge(b1, "top"))
    left, below = bw + 0.45, 0.4                                    # room for the axis labels
    side = min(WIDTH - left - 0.05, (height - below - 0.6) * (s_hi - s_lo) / (t_hi - t_lo))
    high = side * (t_hi - t_lo) / (s_hi - s_lo)                     # equal aspect
    sub = fig.add_axes((left / WIDTH, below / height, side / WIDTH, high / height))
    if len(poly):
        sub.fill(poly[:, 0], poly[:, 1], color=COLORS[0], alpha=0.22, lw=0, label="slice of $K$")
        closed = np.vstack([poly, poly[:1]])
        for k, clipped in enumerate(clip_edges(poly, half)):
            if not clipped:   # a face of the body; the square's edge is where the drawing stops
                sub.plot(closed[k:k + 2, 0], closed[k:k + 2, 1], color=COLORS[0], lw=2.2, zorder=3,
                         solid_capstyle="round")
    width, span = 0.022 * (s_hi - s_lo), s_hi - s_lo
    view = (s_lo, s_hi, t_lo, t_hi)
    placed, number = [p for p in pts] + [proxy], 0
    for k, u, v in lines:
        normal = np.array([u, v]) / np.hypot(u, v)                  # points into H
        along = np.array([-normal[1], normal[0]])
        edge = _edge_on(poly, u, v, body.gamma)                     # the face this halfspace carries
        reach = max(0.45 * np.linalg.norm(edge[1] - edge[0]), 0.12 * span)
        a0, a1 = sorted((e - edge[0]) @ along for e in edge)
        ends = _clip_segment(edge[0] + (a0 - reach) * along, edge[0] + (a1 + reach) * along, view)
        if ends is None:
            continue
        number += 1
        sub.plot(ends[:, 0], ends[:, 1], color=COLORS[1], lw=1.2, gid=f"halfspace-{k}")
        strip = np.array([ends[0], ends[1], ends[1] - width * normal, ends[0] - width * normal])
        sub.add_patch(Polygon(strip, closed=True, facecolor="none", edgecolor=COLORS[1], hatch="////", lw=0))
        # the label: outside the body, by one end of the drawn line, away from what is placed already
        margin = 0.06 * span
        candidates = [np.clip(e + 0.15 * (ends[1 - i] - e) - 0.07 * span * normal, [s_lo + margin, t_lo + margin],
                              [s_hi - margin, t_hi - margin]) for i, e in enumerate(ends)]
        best = max(candidates, key=lambda q: min(np.linalg.norm(q - p) for p in placed))
        placed.append(best)
        sub.text(best[0], best[1], f"$H_{{{number}}}$", ha="center", va="center", fontsize=SMALL,
                 bbox=dict(facecolor="white", edgecolor="none", pad=0.3), zorder=4)
    sub.plot(pts[:, 0], pts[:, 1], "o", color="black", ms=7, label=r"heads $\Theta_1,\Theta_2$")
    for i, p in enumerate(pts, start=1):
        sub.annotate(f"$\\Theta_{i}$", p, xytext=(0, 7 if p[1] > 0 else -8), textcoords="offset points",
                     ha="center", va="bottom" if p[1] > 0 else "top", fontsize=SMALL)
    sub.plot([proxy[0]], [proxy[1]], "*", color=COLORS[2], mfc="white", mew=1.5, ms=13, zorder=5)
    sub.annotate(f"min-norm point\nof $K$, projected\n({off:.2f} off the plane)", proxy,
                 xytext=(proxy[0] + 0.25 * span, 0.0), ha="left", va="center",
                 fontsize=SMALL, arrowprops=dict(arrowstyle="-", color="0.3", lw=0.8),
                 bbox=dict(facecolor="white", edgecolor="none", pad=0.4), zorder=4)
    sub.annotate("to 0", (s_lo, t_hi - 0.12 * (t_hi - t_lo)), xytext=(s_lo + 0.2 * (s_hi - s_lo),
                 t_hi - 0.12 * (t_hi - t_lo)), ha="left", va="center", fontsize=SMALL,
                 arrowprops=dict(arrowstyle="->", color="0.3", lw=1))
    sub.set_xlim(s_lo, s_hi)
    sub.set_ylim(t_lo, t_hi)
    sub.set_aspect("equal")
    sub.set_xticks([])
    sub.set_yticks([])
    sub.set_xlabel(r"along $\Theta^\star$", fontsize=SMALL, labelpad=2)
    sub.set_ylabel(r"along $\Theta_1-\Theta^\star$", fontsize=SMALL, labelpad=2)
    sub.set_title(f"a slice: {len(lines)} of the {body.n_constraints} halfspaces\nbound it, {number} in this view",
                  fontsize=SMALL)
    return fig


def _clip_segment(p0: np.ndarray, p1: np.ndarray, view: tuple) -> np.ndarray | None:
    """The part of the segment p0 -> p1 inside the rectangle ``view = (s_lo, s_hi, t_lo, t_hi)`` (Liang-Barsky)."""
    lo, hi, d = 0.0, 1.0, p1 - p0
    for p, q in ((-d[0], p0[0] - view[0]), (d[0], view[1] - p0[0]), (-d[1], p0[1] - view[2]), (d[1], view[3] - p0[1])):
        if abs(p) < 1e-15:
            if q < 0:
                return None
            continue
        r = q / p
        lo, hi = (max(lo, r), hi) if p < 0 else (lo, min(hi, r))
    return None if lo >= hi else np.array([p0 + lo * d, p0 + hi * d])


def _edge_on(poly: np.ndarray, u: float, v: float, gamma: float) -> np.ndarray:
    """The two extreme vertices of ``poly`` on the line ``u s + v t = gamma`` (the face it carries)."""
    on = poly[np.abs(poly @ [u, v] - gamma) <= 1e-6 * max(abs(gamma), np.hypot(u, v))]
    along = np.array([-v, u]) / np.hypot(u, v)
    return on[[int(np.argmin(on @ along)), int(np.argmax(on @ along))]]


# --------------------------------------------------------------------------- chapter 9: the phases

#: the five phases of the book's reconstruction: name, what it does, its calls, what it hands on, chapter
PHASES = (
    ("phase 1", "estimate $W_1+\\dots+W_m$ from the labels: crude, from\n"
     "constant sequences, or by trimmed atom regression",
     "estimate_sum_W", "$S\\approx W_1+\\dots+W_m$", "ch. 8"),
    ("phase 2", "certify rows whose label is an atom $x_b^\\top S$;\nintersect the halfspaces they give",
     "sculpt_body, prune", "a body $K$ around the $\\Theta_i$", "ch. 8"),
    ("phase 3", "the min-norm point of $K$; regress on the slices\nwhere it is confident (2 and 3 repeat)",
     "min_norm_proxy, refine_sum_W", "a proxy $P$ and a refined $S$", "ch. 8"),
    ("phase 4", "the face of $K$ nearest the origin: the span\nof the heads",
     "face_span", "the span of the $\\Theta_i$", "ch. 9"),
    ("phase 5", "candidates in the span; least squares for the $W_i$;\na zero residual certifies a candidate",
     "face_candidates, fit_W, best_scale", "heads $(\\Theta_i,W_i)_{i=1}^m$", "ch. 9"),
    ("polish", "the book's addition: Levenberg-Marquardt with\nrestarts, one of them from the sculpted candidate",
     "polish", "certified heads, or an error naming the phase", "ch. 9"),
)


@styled
def plot_phase_flow():
    """The five phases of Part III as a flow: what each does, its library calls, and what it hands on.

    Returns
    -------
    matplotlib.figure.Figure
        One box per phase, top to bottom, with the ``attnlib.sculpt`` functions that carry it out
        and the chapter; right of each box, what the phase hands to the next. The examples
        ``(X, Y)`` feed every phase. The last box, dashed, is the local polish the book adds:
        Levenberg-Marquardt with restarts, one of whose starts is the sculpted candidate (the
        others are the second candidate and perturbations of the first; chapter 9).

    Notes
    -----
    The phases are the book's reconstruction of the idea of Chen and Li (STOC 2025), not the
    paper's algorithm; the figure says so in its heading.

    Examples
    --------
    >>> len(plot_phase_flow().axes)
    1
    """
    # one box per phase, full width; what a phase hands on labels the arrow to the next box
    boxh, step = 0.9, 1.3
    count = len(PHASES)
    top = 0.12 + count * step
    fig, ax = _canvas(WIDTH, top + 0.95)
    ax.text(WIDTH / 2, top + 0.92,
            "Part III: the book's reconstruction of the idea of Chen and Li,\nnot the paper's algorithm",
            ha="center", va="top", fontsize=SMALL, style="italic", linespacing=1.3)
    ax.text(0.05, top + 0.08, "examples $(X,Y)$", ha="left", va="bottom", fontsize=SMALL)
    bus = 0.3
    ax.plot([bus, bus], [top + 0.05, top - count * step + boxh / 2 + (step - boxh)], color="0.35", lw=1.5)
    bx, bw = 0.62, WIDTH - 0.7
    ax.text(bx + bw, top + 0.08, "learn(X, Y, m) runs them all", ha="right", va="bottom", fontsize=SMALL,
            family="monospace")
    boxes = []
    for k, (name, what, calls, hands, chapter) in enumerate(PHASES):
        y = top - (k + 1) * step + (step - boxh)
        last = k == count - 1
        b = _box(ax, bx, y, bw, boxh, "", color=2 if last else k % 2, ls="--" if last else "-")
        ax.text(bx + 0.1, y + boxh - 0.07, f"{name} ({chapter})", ha="left", va="top", fontsize=SMALL,
                weight="bold")
        ax.text(bx + bw - 0.1, y + boxh - 0.07, calls, ha="right", va="top", fontsize=SMALL, family="monospace",
                color="0.15")
        ax.text(bx + 0.1, y + 0.07, what, ha="left", va="bottom", fontsize=SMALL, linespacing=1.25)
        _arrow(ax, (bus, y + boxh / 2), _edge(b, "left"), lw=1.0, color="0.35")
        end = (b[0] + 0.5, y - (step - boxh) + 0.04) if last else None
        x_out = bx + 0.5
        if boxes:
            _arrow(ax, (x_out, boxes[-1][1]), (x_out, y + boxh))
        if last:
            _arrow(ax, (x_out, y), end)
        ax.text(x_out + 0.12, y - (step - boxh) / 2 + (0.02 if last else 0), f"hands on: {hands}", ha="left",
                va="center", fontsize=SMALL)
        boxes.append(b)
    return fig


# --------------------------------------------------------------------------- chapter 9: the face


def _clip_to(poly: np.ndarray, s_lo, s_hi, t_lo, t_hi) -> np.ndarray:
    """Clip a polygon (V, 2) to the rectangle [s_lo, s_hi] x [t_lo, t_hi]."""
    for u, v, c in ((1, 0, s_lo), (-1, 0, -s_hi), (0, 1, t_lo), (0, -1, -t_hi)):
        poly = clip_polygon(poly, u, v, c)
    return poly


def face_geometry(heads: Heads, body: Body, span: Span, *, proxy=None, eps: float = 0.2,
                  kappa: float | None = None) -> dict:
    """The numbers :func:`plot_face` draws for one body, in the plane of ``Theta_1`` and ``Theta_2``.

    Coordinates ``(s, t)`` are along ``Theta_star / ||Theta_star||`` and along the part of
    ``Theta_1 - Theta_star`` orthogonal to it, where ``Theta_star`` is the min-norm point of the
    first two heads (the plane of ``attnlib.viz.sculpt.plot_body_slices``).

    Parameters
    ----------
    heads : Heads
        The planted layer (m >= 2).
    body : Body
    span : Span
        ``face_span(body, proxy, m, eps=eps)``: its ``points`` are the LP's extreme points.
    proxy : array_like of shape (d, d), optional
        The min-norm point P of ``body`` (default: computed, one QP).
    eps : float, default 0.2
        The slab of :func:`attnlib.sculpt.face_span`: ``<P, Theta> <= (1 + eps) ||P||^2``.
    kappa : float, optional
        If given, the idealised body ``kappa (conv + cone)`` of the two heads replaces the body's
        own slice (``"slice"``) and its face ``kappa [Theta_1, Theta_2]`` is returned as ``"face"``.

    Returns
    -------
    dict
        ``"heads"`` (2, 2), ``"star"`` (2,), ``"proxy"`` (2,) (P projected on the plane),
        ``"slab"`` ``(u, v, c)``: the slab is ``u s + v t <= c`` in the plane; ``"slice"``
        (V, 2) the slice of the body (or of the idealised body) in the view ``"view"``
        ``(s_lo, s_hi, t_lo, t_hi)``; ``"cap"`` (V', 2) its part inside the slab; ``"points"``
        (k, 2) the LP's extreme points projected on the plane; ``"face"`` (2, 2) or None;
        ``"offsets"``: the span's mean alignment with the offsets (``span_alignment``).

    Examples
    --------
    >>> from attnlib.sculpt import face_span, planted_instance, sculpt_body
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(2000, 3, 4, rng=1)
    >>> body = sculpt_body(X, attention(X, heads), heads.W.sum(0))
    >>> geo = face_geometry(heads, body, face_span(body, min_norm_proxy(body), 2, rng=2))
    >>> geo["heads"].shape, geo["points"].shape
    ((2, 2), (64, 2))
    """
    heads = as_heads(heads)
    if not isinstance(body, Body):
        raise TypeError(f"body must be an attnlib.sculpt.Body; received {type(body).__name__}")
    if not isinstance(span, Span):
        raise TypeError(f"span must be an attnlib.sculpt.Span (from face_span); received {type(span).__name__}")
    if heads.m < 2 or heads.d != body.d:
        raise ValueError(f"face_geometry needs a layer with m >= 2 heads of dimension d = {body.d}; "
                         f"received m = {heads.m}, d = {heads.d}")
    eps = check_positive_float("eps", eps)
    if kappa is not None:
        kappa = check_positive_float("kappa", kappa)
    P = min_norm_proxy(body) if proxy is None else as_float_array("proxy", proxy)
    if P.shape != (body.d, body.d):
        raise ValueError(f"proxy must be a ({body.d}, {body.d}) matrix; received shape {P.shape}")
    basis = head_plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], basis)
    star = np.einsum("pq,jpq->j", min_norm_point(heads.Theta[:2])[0], basis)
    p = np.einsum("pq,jpq->j", P, basis)
    slab = (float(p[0]), float(p[1]), float((1 + eps) * np.sum(P * P)))
    s_hi = 1.3 * float(pts[:, 0].max())
    s_lo = -0.1 * s_hi
    t_hi = max(0.5 * (s_hi - s_lo), 1.25 * float(np.abs(pts[:, 1]).max()))
    view = (s_lo, s_hi, -t_hi, t_hi)
    far = 10.0 * (s_hi - s_lo)
    if kappa is not None:
        a, b = kappa * pts[0], kappa * pts[1]
        ideal = np.array([a, a + far * pts[0] / np.linalg.norm(pts[0]), b + far * pts[1] / np.linalg.norm(pts[1]),
                          b])
        turn = (ideal[1] - ideal[0]) @ np.array([[0.0, -1.0], [1.0, 0.0]]) @ (ideal[2] - ideal[1])
        if turn > 0:  # counter-clockwise, as body_slice returns its polygons
            ideal = ideal[::-1]
        poly, face = _clip_to(ideal, *view), np.array([a, b])
    else:
        poly = _clip_to(body_slice(body, np.zeros((body.d, body.d)), basis, box=far), *view)
        face = None
    cap = clip_polygon(poly, -slab[0], -slab[1], -slab[2]) if len(poly) else poly
    points = np.einsum("kpq,jpq->kj", span.points, basis) if len(span.points) else np.zeros((0, 2))
    offsets = span_alignment(span, heads.Theta).mean_offset
    return {"heads": pts, "star": star, "proxy": p, "slab": slab, "slice": poly, "cap": cap, "points": points,
            "face": face, "view": view, "offsets": offsets}


def _face_panel(ax, geo: dict):
    """One panel of :func:`plot_face`: the slice, the strip phase 4 searches, and the face or the tip, named.

    Few marks, each named on the panel rather than in a legend: the body, the heads and their line,
    ``Theta_star``, ``P``, the origin, the hatched strip with its far edge, the extreme points, and
    the face (idealised body) or the tip (a body from data). The labels of the face, the tip and the
    extreme points sit in the empty corners left of the body, off every line.
    """
    s_lo, s_hi, t_lo, t_hi = geo["view"]
    poly, cap, pts, star, p = geo["slice"], geo["cap"], geo["heads"], geo["star"], geo["proxy"]
    width, height = s_hi - s_lo, t_hi - t_lo
    if len(poly):
        ax.fill(poly[:, 0], poly[:, 1], color=COLORS[0], alpha=0.2, lw=0, gid="slice")
        # named just left of the heads' segment, which lies in both bodies
        low = pts[np.argmin(pts[:, 1])]
        ax.text(0.5 * (star[0] + low[0]) - 0.04 * width, 0.5 * (star[1] + low[1]), "body $K$", ha="right",
                va="center", fontsize=SMALL, color=GREYS["dark"], gid="body-label")
    u, v, c = geo["slab"]
    if len(cap):  # the strip phase 4 searches: the body inside the slab <P, Theta> <= (1 + eps) ||P||^2
        ax.add_patch(Polygon(cap, closed=True, facecolor="none", edgecolor=COLORS[2], hatch="////", lw=0,
                             gid="cap"))
        edge = _edge_on(cap, u, v, c)  # the slab's far edge, only where it crosses the body
        ax.plot(edge[:, 0], edge[:, 1], color=COLORS[2], ls="--", lw=1.2, gid="slab")
    # the affine line of the two heads, with Theta_star on it, nearest the origin
    direction = (pts[1] - pts[0]) / np.linalg.norm(pts[1] - pts[0])
    line = np.array([star - 4 * t_hi * direction, star + 4 * t_hi * direction])
    ax.plot(line[:, 0], line[:, 1], color=GREYS["dark"], ls=":", lw=1.3, gid="affine")
    face = geo["face"]
    if face is not None:
        ax.plot(face[:, 0], face[:, 1], color=COLORS[1], lw=3.2, solid_capstyle="butt", gid="face")
    q = geo["points"]
    ax.plot(q[:, 0], q[:, 1], "o", color="black", ms=2.2, ls="none", gid="points")
    ax.plot(pts[:, 0], pts[:, 1], "o", color=COLORS[1], mec="black", ms=7, ls="none", gid="heads")
    for i, h in enumerate(pts, start=1):
        up = h[1] > 0
        ax.annotate(f"$\\Theta_{i}$", h, xytext=(-6, 6 if up else -7), textcoords="offset points",
                    ha="right", va="bottom" if up else "top", fontsize=SMALL)
    ax.plot([star[0]], [star[1]], "D", color="white", mec="black", ms=5, gid="star")
    ax.annotate(r"$\Theta^\star$", star, xytext=(7, 3), textcoords="offset points", ha="left", va="bottom",
                fontsize=SMALL)
    ax.plot([p[0]], [p[1]], "*", color=COLORS[3], mec="black", ms=11, gid="proxy")
    ax.annotate("$P$", p, xytext=(-7, -3), textcoords="offset points", ha="right", va="top", fontsize=SMALL)
    ax.plot([0], [0], "+", color="black", ms=8, gid="origin")
    ax.annotate("0", (0, 0), xytext=(-3, -4), textcoords="offset points", ha="right", va="top", fontsize=SMALL)
    upper, lower = (s_lo + 0.2 * width, t_hi - 0.17 * height), (s_lo + 0.2 * width, t_lo + 0.17 * height)
    if len(q):  # lower left: a leader to the lowest extreme point
        ax.annotate("LP extreme\npoints", q[np.argmin(q[:, 1])], xytext=lower, ha="center", va="center",
                    fontsize=SMALL, linespacing=1.1, arrowprops=dict(arrowstyle="-", color="black", lw=0.8),
                    gid="points-label")
    named = dict(ha="center", va="center", fontsize=SMALL, color=COLORS[1], weight="bold",
                 arrowprops=dict(arrowstyle="-", color=COLORS[1], lw=1.0))
    if face is not None:  # upper left: a leader to the face's upper end
        ax.annotate("face", face[np.argmax(face[:, 1])], xytext=upper, gid="face-label", **named)
    elif len(poly):
        tip = poly[np.argmin(poly @ np.array([u, v]))]  # the slice's vertex nearest the slab's edge
        ax.annotate("tip", tip, xytext=upper, gid="tip", **named)
    ax.set_xlim(s_lo, s_hi)
    ax.set_ylim(t_lo, t_hi)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(True)
        spine.set_color(GREYS["light"])
    ax.set_xlabel(r"along $\Theta^\star$", fontsize=SMALL, labelpad=2)


@styled
def plot_face(heads: Heads, ideal: Body, ideal_span: Span, real: Body, real_span: Span, *, kappa: float,
              ideal_proxy=None, real_proxy=None, eps: float = 0.2):
    """What phase 4 searches: the idealised body has a face along the heads, a body from data a tip.

    Both panels are the plane of ``Theta_1`` and ``Theta_2`` (``Theta_star`` along the horizontal
    axis, the origin at the left), computed by :func:`face_geometry`. Every mark is named on the
    panel (no legend); each title states the panel's point.

    Parameters
    ----------
    heads : Heads
        The planted layer (m >= 2).
    ideal : Body
        A body close to the idealised one of the two heads (e.g. from many Gaussian features on
        which both heads have large gaps); ``ideal_span`` is its ``face_span``.
    real : Body
        A body sculpted from data for the same heads; ``real_span`` its ``face_span``.
    kappa : float
        ``gamma / gamma'`` of the idealised body: the left panel draws ``kappa (conv + cone)``.
    ideal_proxy, real_proxy : array_like of shape (d, d), optional
        The bodies' min-norm points (default: computed).
    eps : float, default 0.2
        The slab of ``face_span``.

    Returns
    -------
    matplotlib.figure.Figure
        Left, titled "idealised: a face along Theta_1 - Theta_2": the idealised body
        ``kappa (conv + cone)`` (shaded, "body K") and its face ``kappa [Theta_1, Theta_2]``
        (thick, labelled "face"), parallel to the heads' affine line (dotted) on which
        ``Theta_star`` is the point nearest 0; the min-norm point ``P`` of ``ideal`` (star), the
        part of the body inside the slab ``<P, Theta> <= (1 + eps) ||P||^2`` (hatched, its far edge
        dashed) and the extreme points of ``ideal_span`` projected on the plane (dots, labelled
        "LP extreme points"): they spread along the face. Right, titled "from data: only a tip":
        the same for the slice of ``real``, whose vertex nearest the slab's edge is labelled "tip";
        the extreme points bunch near it. The second line of each title gives the span's mean
        alignment with the offsets ``Theta_i - Theta_star``.

    Raises
    ------
    TypeError, ValueError
        As :func:`face_geometry`: a body or span of the wrong type, fewer than two heads, a
        dimension that does not match, a proxy of the wrong shape, a non-positive ``eps`` or
        ``kappa``.

    Examples
    --------
    >>> from attnlib.sculpt import Body, face_span, planted_instance, sculpt_body
    >>> heads = planted_instance(2, 4, rng=0)
    >>> Z = np.random.default_rng(1).normal(size=(20000, 4, 4))
    >>> keep = np.einsum("kpq,ipq->ki", Z, heads.Theta).min(axis=1) >= 2.0
    >>> ideal = Body(Z[keep], gamma=1.0, bound=None, certified=int(keep.sum()))
    >>> X = boolean_inputs(2000, 3, 4, rng=2)
    >>> real = sculpt_body(X, attention(X, heads), heads.W.sum(0))
    >>> spans = [face_span(b, min_norm_proxy(b), 2, rng=3) for b in (ideal, real)]
    >>> len(plot_face(heads, ideal, spans[0], real, spans[1], kappa=0.5).axes)
    2
    """
    left = face_geometry(heads, ideal, ideal_span, proxy=ideal_proxy, eps=eps, kappa=kappa)
    right = face_geometry(heads, real, real_span, proxy=real_proxy, eps=eps)
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.7))
    fig.subplots_adjust(left=0.01, right=0.99, top=0.86, bottom=0.08, wspace=0.05)
    _face_panel(axes[0], left)
    _face_panel(axes[1], right)
    axes[0].set_title(f"idealised: a face along $\\Theta_1-\\Theta_2$\noffsets captured: {left['offsets']:.2f}",
                      fontsize=SMALL)
    axes[1].set_title(f"from data: only a tip\noffsets captured: {right['offsets']:.2f}", fontsize=SMALL)
    return fig


# --------------------------------------------------------------------------- chapter 11: two roads


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
    d = check_positive_int("d", d)
    ms = [check_positive_int("heads", m) for m in heads]
    if not ms or len(ms) > 5:
        raise ValueError(f"heads must list 1 to 5 numbers of heads; received {list(heads)}")
    ms = sorted(set(ms))
    # two columns of boxes, one per result, inside the canvas; below them the chart of the cost
    margin, col_gap, bw, bh, gap = 0.06, 0.24, 0.0, 0.82, 0.3
    bw = (WIDTH - 2 * margin - col_gap) / 2
    chart_h, chart_top = 2.3, 3.35  # the chart's axes: height, and the top of its title
    lane_top = chart_top + 0.25 + 4 * bh + 3 * gap
    fig, ax = _canvas(WIDTH, lane_top + 0.62)
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
            b = _box(ax, x, lane_top - (k + 1) * bh - k * gap, bw, bh, text, color=color, size=SMALL,
                     ls="-" if color == 0 else "--")
            if color == 1 and k == len(stages) - 1:  # the wall: the lower bound, a heavy solid edge
                ax.patches[-1].set(lw=3.0, ls="-")
            if prev is not None:
                _arrow(ax, _edge(prev, "bottom"), _edge(b, "top"))
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
    for j, (gid, label, degree) in enumerate(roads):
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
