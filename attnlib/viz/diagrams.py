"""Explanatory diagrams: schematics of the book's objects, drawn from real small examples.

The other modules of :mod:`attnlib.viz` plot data; these draw the pictures the prose explains in
words, one per idea, so that each part of the book has at least one:

* :func:`plot_head` -- one softmax head on a real sequence: queries, keys, values, the softmax,
  the output (chapter 1)
* :func:`plot_cubic_lift` -- the cubic features and where each coefficient of ``p(Theta)`` goes
  (chapter 3)
* :func:`plot_dfa_lookup` -- a DFA's transition table as context tokens, and one lookup step
  (chapter 6)
* :func:`plot_halfspaces` -- certified rows become halfspaces; a real 2-D slice of a sculpted body
  and the halfspaces that bound it (chapter 8)
* :func:`plot_phase_flow` -- the five phases of Part III, the book's reconstruction (chapter 9)
* :func:`plot_two_roads` -- the two results side by side: what each assumes, costs, and where the
  lower bound bites (chapter 11)

Every diagram is drawn on one axes whose data units are inches of the figure, so boxes, arrows
and text keep their sizes and fonts stay at least 9 pt (legible at the width of the text column).
Colours come from ``COLORS`` by index, and never carry meaning alone: every coloured element also
has a label, a hatch or a line style.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Polygon, Rectangle

from .._validation import check_positive_int, check_sequences
from ..attention import attention, attention_weights
from ..heads import Heads, as_heads
from ..lower_bounds import n_monomials
from ..sculpt import Body, body_slice, min_norm_proxy
from ..sculpt.instances import min_norm_point
from ..tasks.automata import DFA, lookup_heads, query_tokens, table_tokens
from ._style import COLORS, styled

__all__ = ["plot_cubic_lift", "plot_dfa_lookup", "plot_halfspaces", "plot_head", "plot_phase_flow",
           "plot_two_roads"]

FONT = 10  # pt: body text of a diagram
SMALL = 9  # pt: the smallest text drawn (at 100 dpi, 12.5 px)


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


def _matrix(ax, x, y, M, *, cell=0.32, digits=1, shade=None, color=0, size=SMALL, row=None):
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

    cell = 0.32
    side = max(n, d) * cell
    gap = 0.55
    left = 0.38
    xs = [left + k * (side + gap) for k in range(4)]
    top_y, bottom_y = 2.45, 0.2
    width = xs[-1] + side + 0.12
    fig, ax = _canvas(width, top_y + n * cell + 0.62)
    title = dict(ha="center", va="bottom", fontsize=FONT, linespacing=1.3)

    bx = _matrix(ax, xs[0], top_y, X, cell=cell, digits=0)
    bq = _matrix(ax, xs[1], top_y, Q, cell=cell)
    bs = _matrix(ax, xs[2], top_y, S, cell=cell, row=query)
    ba = _matrix(ax, xs[3], top_y, A, cell=cell, digits=2, shade=A, row=query)
    bv = _matrix(ax, xs[1], bottom_y, V, cell=cell)
    bf = _matrix(ax, xs[3], bottom_y, F, cell=cell, row=query)
    heads_text = [
        (bx, f"input $X$ ({n}$\\times${d})\nrows: tokens $x_b$"),
        (bq, f"queries $Q=X\\Theta$\n({n}$\\times${d})"),
        (bs, "logits $S=QX^\\top$\n$S_{ab}=x_a^\\top\\Theta x_b$"),
        (ba, "weights $A=$ softmax$(S)$\nrow by row"),
        (bv, f"values $V=XW$ ({n}$\\times${d})"),
        (bf, f"output $F(X)=AV$ ({n}$\\times${d})"),
    ]
    for (x, y, w, h), text in heads_text:
        right = x + w > xs[3]  # the last column: flush right, so the title stays on the figure
        ax.text(x + w if right else x + w / 2, y + h + 0.07, text, **{**title, "ha": "right" if right else "center"})
    for b in range(n):  # token labels left of X
        ax.text(xs[0] - 0.06, top_y + (n - 1 - b) * cell + cell / 2, f"$x_{b + 1}$", ha="right", va="center",
                fontsize=SMALL)
    # arrows: X -> Q (times Theta), Q -> S (times X^T: the keys), S -> A (softmax of each row)
    mid = top_y + n * cell / 2
    for b0, b1, label in ((bx, bq, r"$\cdot\Theta$"), (bq, bs, r"$\cdot X^\top$"), (bs, ba, "")):
        _arrow(ax, (b0[0] + b0[2] + 0.06, mid), (b1[0] - 0.06, mid))
        if label:
            ax.text((b0[0] + b0[2] + b1[0]) / 2, mid + 0.06, label, ha="center", va="bottom", fontsize=SMALL)
    ax.text((bq[0] + bq[2] + bs[0]) / 2, mid - 0.06, "keys", ha="center", va="top", fontsize=SMALL)
    # X -> V (times W): down from X, then right into V
    vmid = bottom_y + n * cell / 2
    down = xs[0] + side / 2
    ax.plot([down, down], [top_y - 0.04, vmid], color="0.25", lw=1.3)
    _arrow(ax, (down, vmid), (bv[0] - 0.04, vmid))
    ax.text((down + bv[0]) / 2, vmid + 0.06, r"$\cdot W$", ha="center", va="bottom", fontsize=SMALL)
    # V -> F and A -> F: F = A V
    _arrow(ax, (bv[0] + bv[2] + 0.04, vmid), (bf[0] - 0.04, vmid))
    ax.text((bv[0] + bv[2] + bf[0]) / 2, vmid + 0.06, "$A$ mixes the rows of $V$", ha="center",
            va="bottom", fontsize=SMALL)
    _arrow(ax, (ba[0] + ba[2] / 2, top_y - 0.06), (bf[0] + bf[2] / 2, bottom_y + bf[3] + 0.3))
    ax.text((bv[0] + bv[2] + bf[0]) / 2, vmid - 0.1,
            f"dashed: query $a={query + 1}$, whose\noutput row is $\\sum_b A_{{ab}}\\,x_b^\\top W$",
            ha="center", va="top", fontsize=SMALL, linespacing=1.4)
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
    rowh = 0.36 if d == 2 else 0.27
    top = 0.75 + psi * rowh
    fig, ax = _canvas(7.3, top + 0.45)
    # the Gram matrix, its distinct entries numbered in feature order
    cell = 0.62 if d == 2 else 0.5
    gx, gy = 0.3, top - d * cell - 0.05
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
            ax.text(cx + cell / 2, cy + cell / 2 + (0 if folded else 0.09), text, ha="center", va="center",
                    fontsize=SMALL, bbox=dict(facecolor="white", edgecolor="none", pad=0.5) if folded else None)
            if not folded:
                ax.text(cx + cell / 2, cy + 0.11, f"no. {pair_index[(j, k)]}", ha="center", va="center",
                        fontsize=SMALL, color="0.25")
    ax.text(gx + d * cell / 2, gy + d * cell + 0.08, "Gram matrix $G=X^\\top X$", ha="center", va="bottom",
            fontsize=FONT)
    ax.text(gx, gy - 0.12, "hatched: $G_{kj}=G_{jk}$,\nthe same feature: its\nterm folds onto the\nmirror entry",
            ha="left", va="top", fontsize=SMALL, linespacing=1.3)
    last = ",".join(f"x_{{n,{l}}}" for l in range(1, d + 1))
    ax.text(gx, gy - 1.05, f"last token $x_n=({last})$", ha="left", va="top", fontsize=SMALL)
    # the features and their coefficients
    fx, fw = 3.1, 1.3
    px = fx + fw + 0.45
    bracket = fx - 0.95
    ax.text(fx - 0.5, top + 0.06, "$(jk,l)$", ha="center", va="bottom", fontsize=SMALL)
    ax.text(fx + fw / 2, top + 0.06, "feature $\\phi(X)$", ha="center", va="bottom", fontsize=FONT)
    ax.text(px + 0.05, top + 0.06, "its coefficient $p(\\Theta)_{(jk,l),a}$", ha="left", va="bottom", fontsize=FONT)
    for r, (j, k, l) in enumerate(order):
        y = top - (r + 1) * rowh
        group = pair_index[(j, k)] - 1
        ax.add_patch(Rectangle((fx, y), fw, rowh, facecolor=_tint(1, 0.16) if group % 2 == 0 else "white",
                               edgecolor="0.55", lw=0.6))
        ax.text(fx - 0.5, y + rowh / 2, f"$({j}{k},{l})$", ha="center", va="center", fontsize=SMALL)
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
        y0, y1 = top - (rows[-1] + 1) * rowh + 0.04, top - rows[0] * rowh - 0.04
        ax.plot([bracket + 0.08, bracket, bracket, bracket + 0.08], [y0, y0, y1, y1], color="0.3", lw=1)
        ax.text(bracket - 0.06, (y0 + y1) / 2, f"no. {idx}", ha="right", va="center", fontsize=SMALL)
    ax.text(px + 0.05, 0.1, f"$\\psi=d^2(d+1)/2={psi}$ rows for $d={d}$;\n"
            "output $\\hat y_a(X)=\\Sigma_{\\mathrm{rows}}\\,\\phi(X)\\,p(\\Theta)_{\\cdot,a}$",
            ha="left", va="bottom", fontsize=SMALL, linespacing=1.4)
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
    cell = min(0.3, 2.9 / d)
    rows = S * A + 1
    gx = 1.75
    gy = 1.35
    ox, ow = gx + d * cell + 0.95, 1.8
    fig, ax = _canvas(max(7.3, ox + ow + 0.08), gy + (rows + 0.6) * cell + 0.5)
    ys = [gy + (rows - 1 - r) * cell + (0 if r < S * A else -0.0) for r in range(rows)]
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
        ax.text(gx + d * cell + 0.42, ys[r] + cell / 2, f"{score:.0f}", ha="center", va="center", fontsize=SMALL,
                weight="bold" if score and not is_query else "normal")
        if score and not is_query:  # the match: outline the row
            ax.add_patch(Rectangle((gx - 0.03, ys[r] - 0.03), d * cell + 0.06, cell + 0.06, facecolor="none",
                                   edgecolor="black", lw=1.8, ls="--"))
    split = gx + S * A * cell
    ax.plot([split, split], [ys[-1] - 0.08, ys[0] + cell + 0.08], color="black", lw=1.2, ls=(0, (4, 3)))
    head_y = ys[0] + cell + 0.1
    ax.text(gx + S * A * cell / 2, head_y, f"key $e_{{(s,a)}}$ ({S * A} cells)", ha="center", va="bottom",
            fontsize=SMALL)
    ax.text(split + S * cell / 2, head_y, "value\n$e_{\\delta(s,a)}$", ha="center", va="bottom", fontsize=SMALL,
            linespacing=1.2)
    ax.text(gx + d * cell + 0.42, head_y, "score\n$x_n^\\top\\Theta x_b$", ha="center", va="bottom",
            fontsize=SMALL, linespacing=1.2)
    ax.text(gx - 0.1, head_y, "token $(s,a)$", ha="right", va="bottom", fontsize=SMALL)
    # the output and the driver, right of the grid
    match = int(np.flatnonzero(scores[:-1])[0])                     # the table token that matches
    ob = _box(ax, ox, ys[match] + cell / 2 - 0.475, ow, 0.95,
              f"output at the last\ntoken: $[\\,0\\mid e_{{\\delta({state},{symbol})}}\\,]$,\n"
              f"value block: state {nxt}", color=3, size=SMALL)
    db = _box(ax, ox, 0.15, ow, 0.95, f"driver: argmax gives\n$s_{{t+1}}={nxt}$; append the\n"
              f"query of $(s_{{t+1}},a_{{t+1}})$", color=0, size=SMALL)
    _arrow(ax, (gx + d * cell + 0.62, ys[match] + cell / 2), _edge(ob, "left"))
    _arrow(ax, _edge(ob, "bottom"), _edge(db, "top"))
    _arrow(ax, _edge(db, "left"), (gx + d * cell / 2, ys[-1] - 0.04), rad=-0.2, ls="--")
    ax.text(0.12, 0.15, "dashed frame: the one table\ntoken whose key matches\nthe query (the query also\n"
            "scores 1 on itself; its\nvalue block is 0)", ha="left", va="bottom", fontsize=SMALL,
            linespacing=1.25)
    return fig


# --------------------------------------------------------------------------- chapter 8: halfspaces


def _slice_plane(heads: Heads) -> np.ndarray:
    """Orthonormal basis (2, d, d): along Theta_star, then along Theta_1 - Theta_star."""
    star, _ = min_norm_point(heads.Theta[:2])
    other = heads.Theta[0] - star
    B1 = star / np.linalg.norm(star)
    B2 = other - np.sum(other * B1) * B1
    return np.stack([B1, B2 / np.linalg.norm(B2)])


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
    basis = _slice_plane(heads)
    pts = np.einsum("ipq,jpq->ij", heads.Theta[:2], basis)          # (2, 2): heads in the plane
    half = box if box is not None else 1.5 * float(np.abs(pts).max())
    poly = body_slice(body, np.zeros((body.d, body.d)), basis, box=half)
    lines = _bounding_lines(body, basis, poly) if len(poly) else []
    proxy = np.einsum("pq,jpq->j", min_norm_proxy(body), basis)
    # the view: from just left of the origin to the square's edge; the heads have positive s
    s_lo, s_hi = -0.1 * half, half
    t_lo, t_hi = -0.55 * (s_hi - s_lo), 0.55 * (s_hi - s_lo)

    fig, ax = _canvas(7.3, 3.9)
    steps = [
        ("certified row $a$ of an example $X$:\nits label $F(X)_a$ is close to the\n"
         "atom $x_b^\\top(W_1+\\dots+W_m)$,\nso every head attends to $x_b$", 0),
        ("each competitor token $c$ with\n$x_c\\neq x_b$ gives a gap feature\n$Z=x_a(x_b-x_c)^\\top$", 1),
        ("halfspace $H=\\{\\Theta:\\langle\\Theta,Z\\rangle_F\\geq\\gamma\\}$;\n"
         "every head lies in it; the\nbody $K$ is the intersection", 3),
    ]
    boxes = [_box(ax, 0.12, 2.72 - k * 1.3, 2.85, 1.06, text, color=color, size=SMALL)
             for k, (text, color) in enumerate(steps)]
    for b0, b1 in zip(boxes, boxes[1:], strict=False):
        _arrow(ax, _edge(b0, "bottom"), _edge(b1, "top"))
    # right: the slice, in its own axes with equal aspect
    sub = fig.add_axes((3.75 / 7.3, 0.38 / 3.9, 3.25 / 7.3, 3.1 / 3.9))
    if len(poly):
        sub.fill(poly[:, 0], poly[:, 1], color=COLORS[0], alpha=0.22, lw=0, label="slice of $K$")
    width = 0.035 * (s_hi - s_lo)
    placed = [p for p in pts] + [proxy]
    for number, (k, u, v) in enumerate(lines, start=1):
        normal = np.array([u, v]) / np.hypot(u, v)                  # points into H
        foot = body.gamma / np.hypot(u, v) * normal                 # the line's point nearest 0
        along = np.array([-normal[1], normal[0]])
        ends = np.array([foot - 4 * half * along, foot + 4 * half * along])
        sub.plot(ends[:, 0], ends[:, 1], color=COLORS[1], lw=1.2, gid=f"halfspace-{k}")
        strip = np.array([ends[0], ends[1], ends[1] - width * normal, ends[0] - width * normal])
        sub.add_patch(Polygon(strip, closed=True, facecolor="none", edgecolor=COLORS[1], hatch="////", lw=0))
        # label: where the line leaves the view, on the end farthest from the labels placed so far
        candidates = []
        for sign in (-1, 1):
            for r in np.linspace(0, 4 * half, 400):
                q = foot + sign * r * along
                if not (s_lo < q[0] < s_hi and t_lo < q[1] < t_hi):
                    candidates.append(foot + sign * max(r - 0.09 * (s_hi - s_lo), 0) * along)
                    break
        best = max(candidates, key=lambda q: min(np.linalg.norm(q - p) for p in placed))
        placed.append(best)
        margin = 0.07 * (s_hi - s_lo)
        label_at = best - 0.06 * (s_hi - s_lo) * normal
        label_at = np.clip(label_at, [s_lo + margin, t_lo + margin], [s_hi - margin, t_hi - margin])
        sub.text(label_at[0], label_at[1], f"$H_{{{number}}}$", ha="center", va="center", fontsize=SMALL,
                 bbox=dict(facecolor="white", edgecolor="none", pad=0.4))
    sub.plot(pts[:, 0], pts[:, 1], "o", color=COLORS[1], mec="black", ms=7, label=r"heads $\Theta_1,\Theta_2$")
    for i, p in enumerate(pts, start=1):
        sub.annotate(f"$\\Theta_{i}$", p, xytext=(0, 7 if p[1] > 0 else -8), textcoords="offset points",
                     ha="center", va="bottom" if p[1] > 0 else "top", fontsize=SMALL)
    sub.plot([proxy[0]], [proxy[1]], "*", color=COLORS[2], mec="black", ms=12, label="min-norm point")
    sub.annotate("min-norm\npoint of $K$", proxy, xytext=(proxy[0] + 0.25 * half, t_lo + 0.3 * (t_hi - t_lo)),
                 ha="left", va="center", fontsize=SMALL, arrowprops=dict(arrowstyle="-", color="0.3", lw=0.8),
                 bbox=dict(facecolor="white", edgecolor="none", pad=0.4))
    sub.text(0.75 * s_hi, 0.0, "slice of\nthe body $K$", ha="center", va="center", fontsize=SMALL)
    sub.plot([0], [0], "+", color="black", ms=8)
    sub.annotate("0", (0, 0), xytext=(-4, -4), textcoords="offset points", ha="right", va="top", fontsize=SMALL)
    sub.set_xlim(s_lo, s_hi)
    sub.set_ylim(t_lo, t_hi)
    sub.set_aspect("equal")
    sub.set_xticks([])
    sub.set_yticks([])
    sub.set_xlabel(r"along $\Theta^\star$", fontsize=SMALL, labelpad=2)
    sub.set_ylabel(r"along $\Theta_1-\Theta^\star$", fontsize=SMALL, labelpad=2)
    sub.set_title(f"a slice: {len(lines)} of the {body.n_constraints} halfspaces bound it", fontsize=SMALL)
    return fig


# --------------------------------------------------------------------------- chapter 9: the phases

#: the five phases of the book's reconstruction: name, what it does, its calls, what it hands on, chapter
PHASES = (
    ("phase 1", "estimate $W_1+\\dots+W_m$ from the labels: crude, from\n"
     "constant sequences, or by trimmed atom regression",
     "estimate_sum_W", "$S\\approx W_1+\\dots$\n$\\dots+W_m$", "ch. 8"),
    ("phase 2", "certify rows whose label is an atom $x_b^\\top S$;\nintersect the halfspaces they give",
     "sculpt_body, prune", "body $K$ around\nthe $\\Theta_i$", "ch. 8"),
    ("phase 3", "the min-norm point of $K$; regress on the slices\nwhere it is confident (2 and 3 repeat)",
     "min_norm_proxy, refine_sum_W", "proxy $P$,\nrefined $S$", "ch. 8"),
    ("phase 4", "the face of $K$ nearest the origin: the span\nof the heads",
     "face_span", "span of\nthe $\\Theta_i$", "ch. 9"),
    ("phase 5", "candidates in the span; least squares for the $W_i$;\na zero residual certifies a candidate",
     "face_candidates, fit_W, best_scale", "heads\n$(\\Theta_i,W_i)_{i=1}^m$", "ch. 9"),
    ("polish", "the book's addition: Levenberg-Marquardt\nfrom the phase-5 candidate",
     "polish", "certified heads, or\nan error naming\nthe phase", "ch. 9"),
)


@styled
def plot_phase_flow():
    """The five phases of Part III as a flow: what each does, its library calls, and what it hands on.

    Returns
    -------
    matplotlib.figure.Figure
        One box per phase, top to bottom, with the ``attnlib.sculpt`` functions that carry it out
        and the chapter; right of each box, what the phase hands to the next. The examples
        ``(X, Y)`` feed every phase. The last box, dashed, is the local polish the book adds.

    Notes
    -----
    The phases are the book's reconstruction of the idea of Chen and Li (STOC 2025), not the
    paper's algorithm; the figure says so in its heading.

    Examples
    --------
    >>> len(plot_phase_flow().axes)
    1
    """
    boxh, step = 0.74, 0.9
    count = len(PHASES)
    top = 0.1 + count * step
    fig, ax = _canvas(7.3, top + 0.72)
    ax.text(3.6, top + 0.68,
            "Part III: the book's reconstruction of the idea of Chen and Li, not the paper's algorithm",
            ha="center", va="top", fontsize=SMALL, style="italic")
    ax.text(0.1, top + 0.08, "examples\n$(X,Y)$", ha="left", va="bottom", fontsize=SMALL, linespacing=1.2)
    bus = 0.4
    ax.plot([bus, bus], [top + 0.05, top - count * step + boxh / 2], color="0.35", lw=1.5)
    bx, bw = 0.85, 4.5
    out_x = bx + bw + 0.42
    ax.text(bx + bw / 2, top + 0.08, "learn(X, Y, m) runs them all", ha="center", va="bottom", fontsize=SMALL,
            family="monospace")
    ax.text(out_x, top + 0.08, "hands on", ha="left", va="bottom", fontsize=SMALL, weight="bold")
    boxes = []
    for k, (name, what, calls, hands, chapter) in enumerate(PHASES):
        y = top - (k + 1) * step + (step - boxh) / 2
        last = k == count - 1
        b = _box(ax, bx, y, bw, boxh, "", color=2 if last else k % 2, ls="--" if last else "-")
        ax.text(bx + 0.1, y + boxh - 0.06, f"{name} ({chapter})", ha="left", va="top", fontsize=SMALL,
                weight="bold")
        ax.text(bx + bw - 0.1, y + boxh - 0.06, calls, ha="right", va="top", fontsize=SMALL, family="monospace",
                color="0.15")
        ax.text(bx + 0.1, y + 0.06, what, ha="left", va="bottom", fontsize=SMALL, linespacing=1.25)
        _arrow(ax, (bus, y + boxh / 2), _edge(b, "left"), lw=1.0, color="0.35")
        _arrow(ax, _edge(b, "right"), (out_x - 0.06, y + boxh / 2), lw=1.0, color="0.35")
        ax.text(out_x, y + boxh / 2, hands, ha="left", va="center", fontsize=SMALL, linespacing=1.2)
        if boxes:
            _arrow(ax, _edge(boxes[-1], "bottom"), _edge(b, "top"))
        boxes.append(b)
    return fig


# --------------------------------------------------------------------------- chapter 11: two roads


@styled
def plot_two_roads(*, d: int = 16, heads=(2, 3, 4, 5)):
    """The two results as two roads: assumptions, algorithm, cost, and where the lower bound bites.

    Parameters
    ----------
    d : int, default 16
        Token dimension used for the cost column (monomials in the ``2d`` entries of two tokens).
    heads : sequence of int, default (2, 3, 4, 5)
        Numbers of heads m for the table of degrees and monomials (at most 5).

    Returns
    -------
    matplotlib.figure.Figure
        Top lane: linear attention (Yau et al.); bottom lane: softmax attention on the hypercube
        (Chen and Li; the middle of that lane is the book's reconstruction). The hatched box marks
        its cost and the lower bound. Below: the degree of the function a layer computes on the hypercube and
        the number of monomials a polynomial method must fit at that degree
        (``attnlib.lower_bounds.n_monomials(2d, D)``): ``D = 3`` for linear attention whatever m,
        ``D = 2m - 1`` for the softmax family of chapter 10.

    Examples
    --------
    >>> len(plot_two_roads().axes)
    1
    """
    d = check_positive_int("d", d)
    ms = [check_positive_int("heads", m) for m in heads]
    if not ms or len(ms) > 5:
        raise ValueError(f"heads must list 1 to 5 numbers of heads; received {list(heads)}")
    fig, ax = _canvas(7.3, 5.0)
    lanes = [
        (3.75, 0, "linear attention (Yau et al.)",
         ["any inputs, any labels\n(agnostic)", "$m$ heads of linear\nattention: cubic in $X$",
          "least squares on $\\psi$\ncubic features; SVD\nback to $\\leq d^2$ heads",
          "cost polynomial in $d$,\nthe same for every $m$"]),
        (2.3, 1, "softmax attention (Chen and Li)",
         ["inputs uniform on\n$\\{\\pm1\\}^{k\\times d}$, labels\nfrom a hidden layer",
          "$m$ heads of softmax\nattention", "sculpt a convex body,\nthen the heads (Part III:\nour reconstruction)",
          "time $(dk)^{O(m^3)}$;\nlower bound: some\nexponential in $m$"]),
    ]
    bw, bh, gap, x0 = 1.6, 0.9, 0.26, 0.12
    for y, color, title, stages in lanes:
        ax.text(x0, y + bh + 0.06, title, ha="left", va="bottom", fontsize=FONT, weight="bold")
        prev = None
        for k, text in enumerate(stages):
            wall = color == 1 and k == len(stages) - 1
            b = _box(ax, x0 + k * (bw + gap), y, bw, bh, text, color=color, size=SMALL,
                     ls="-" if color == 0 else "--", hatch="xx" if wall else None)
            if wall:  # keep the text readable on the hatching
                ax.texts[-1].set_bbox(dict(facecolor="white", edgecolor="none", pad=1.5))
            if prev is not None:
                _arrow(ax, _edge(prev, "right"), _edge(b, "left"))
            prev = b
    # below: degree and monomials, computed
    ty = 2.12
    ax.text(x0, ty, f"Where the lower bound bites: the degree $D$ of the function on the hypercube, and the "
            f"number of\nmonomials of degree $\\leq D$ a polynomial method must fit ($d={d}$, two tokens, "
            f"$2d={2 * d}$ variables)", ha="left", va="top", fontsize=SMALL, linespacing=1.3)
    cx = [x0 + 3.0 + 1.0 * j for j in range(len(ms))]
    rows = [("linear attention", lambda m: 3, "linear"),
            ("softmax family of ch. 10", lambda m: 2 * m - 1, "softmax")]
    for j, m in enumerate(ms):
        ax.text(cx[j], ty - 0.58, f"$m={m}$", ha="center", va="center", fontsize=SMALL, weight="bold")
    y = ty - 0.58
    for name, degree, gid in rows:
        y -= 0.3
        ax.text(x0, y, f"{name}: degree $D$", ha="left", va="center", fontsize=SMALL)
        ax.text(x0 + 0.25, y - 0.26, "monomials", ha="left", va="center", fontsize=SMALL)
        for j, m in enumerate(ms):
            D = degree(m)
            mant, exp = f"{n_monomials(2 * d, D):.1e}".split("e")
            ax.text(cx[j], y, f"{D}", ha="center", va="center", fontsize=SMALL, gid=f"degree-{gid}-{m}")
            ax.text(cx[j], y - 0.26, f"${mant}\\times10^{{{int(exp)}}}$", ha="center", va="center",
                    fontsize=SMALL, gid=f"monomials-{gid}-{m}")
        y -= 0.26
    return fig
