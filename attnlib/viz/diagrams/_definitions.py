"""Diagrams of Parts I and II: one head (chapter 1), the cubic lift (chapter 3), a DFA lookup (chapter 6)."""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from ..._arguments import arguments, instance
from ...attention import attention, attention_weights
from ...heads import Heads
from ...tasks.automata import DFA, lookup_heads, query_tokens, table_tokens
from .._kinds import one_sequence
from .._style import styled
from ._canvas import FONT, SMALL, WIDTH, canvas, draw_arrow, draw_box, draw_matrix, side_of, tint

# --------------------------------------------------------------------------- chapter 1: one head


@arguments(X="array", heads="heads", head="index", query="index")
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
    X = one_sequence(X, heads.d, "plot_head")
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
    fig, ax = canvas(WIDTH, top_y + n * cell + 0.62)
    title = dict(ha="center", va="bottom", fontsize=FONT, linespacing=1.3)

    bx = draw_matrix(ax, xs[0], top_y, X, cell=cell, digits=0)
    bq = draw_matrix(ax, xs[1], top_y, Q, cell=cell)
    bs = draw_matrix(ax, xs[2], top_y, S, cell=cell, row=query)
    bv = draw_matrix(ax, xs[0], bottom_y, V, cell=cell)
    bf = draw_matrix(ax, xs[1], bottom_y, F, cell=cell, row=query)
    ba = draw_matrix(ax, xs[2], bottom_y, A, cell=cell, digits=2, shade=A, row=query)
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
        draw_arrow(ax, (b0[0] + b0[2] + 0.06, mid), (b1[0] - 0.06, mid))
        ax.text((b0[0] + b0[2] + b1[0]) / 2, mid + 0.06, label, ha="center", va="bottom", fontsize=SMALL)
    ax.text((bq[0] + bq[2] + bs[0]) / 2, mid - 0.06, "keys", ha="center", va="top", fontsize=SMALL)
    # down: X -> V (times W) and S -> A (softmax of each row)
    for b0, b1, label, side in ((bx, bv, r"$\cdot W$", 1), (bs, ba, "softmax,\nrow by row", -1)):
        x = b0[0] + b0[2] / 2
        draw_arrow(ax, (x, b0[1] - 0.06), (x, b1[1] + b1[3] + 0.06))
        ax.text(x + 0.1 * side, (b0[1] + b1[1] + b1[3]) / 2, label, ha="left" if side > 0 else "right",
                va="center", fontsize=SMALL, linespacing=1.2)
    # into F = A V: from V on the left, from A on the right
    vmid = bottom_y + n * cell / 2
    draw_arrow(ax, (bv[0] + bv[2] + 0.06, vmid), (bf[0] - 0.06, vmid))
    draw_arrow(ax, (ba[0] - 0.06, vmid), (bf[0] + bf[2] + 0.06, vmid))
    ax.text(0.05, 0.05, f"$F=AV$: row $a$ of $A$ mixes the rows of $V$. Dashed: query $a={query + 1}$,\n"
            f"whose output row is $\\Sigma_b A_{{ab}}\\,x_b^\\top W$.", ha="left", va="bottom", fontsize=SMALL,
            linespacing=1.4)
    return fig


# --------------------------------------------------------------------------- chapter 3: the lift


def _feature_order(d: int) -> list[tuple[int, int, int]]:
    """(j, k, l), 1-based, in the order of Algorithm 2: pairs j < k row by row, then j = k; l fastest."""
    pairs = [(j, k) for j in range(1, d + 1) for k in range(j + 1, d + 1)] + [(j, j) for j in range(1, d + 1)]
    return [(j, k, l) for j, k in pairs for l in range(1, d + 1)]


@arguments(d="size")
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
    if d not in (2, 3):
        raise ValueError(f"plot_cubic_lift draws d = 2 or d = 3 (6 or 18 feature rows); received d={d}")
    order = _feature_order(d)
    psi = len(order)
    # on top the Gram matrix and its notes; below it the table of features and coefficients
    rowh = 0.33
    cell = 0.62
    table_top = 0.75 + psi * rowh                                   # top of the table's first row
    gy = table_top + 0.55                                           # bottom of the Gram matrix
    fig, ax = canvas(WIDTH, gy + d * cell + 0.42)
    gx = 0.9
    pair_index = {}
    for j, k, _ in order:
        pair_index.setdefault((j, k), len(pair_index) + 1)
    for j in range(1, d + 1):
        for k in range(1, d + 1):
            cx, cy = gx + (k - 1) * cell, gy + (d - j) * cell
            folded = j > k
            ax.add_patch(Rectangle((cx, cy), cell, cell, facecolor="white" if folded else tint(1, 0.12),
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
        ax.add_patch(Rectangle((fx, y), fw, rowh, facecolor=tint(1, 0.16) if group % 2 == 0 else "white",
                               edgecolor="0.55", lw=0.6))
        ax.text(fx - 0.42, y + rowh / 2, f"$({j}{k},{l})$", ha="center", va="center", fontsize=SMALL)
        ax.text(fx + fw / 2, y + rowh / 2, f"$G_{{{j}{k}}}\\,x_{{n,{l}}}$", ha="center", va="center",
                fontsize=SMALL)
        if j < k:
            coef = f"$\\Sigma_i\\,(\\Theta_{{i,{l}{j}}}W_{{i,{k}a}}+\\Theta_{{i,{l}{k}}}W_{{i,{j}a}})$"
        else:
            coef = f"$\\Sigma_i\\,\\Theta_{{i,{l}{j}}}W_{{i,{j}a}}$"
        ax.text(px + 0.05, y + rowh / 2, coef, ha="left", va="center", fontsize=SMALL)
        draw_arrow(ax, (fx + fw + 0.06, y + rowh / 2), (px - 0.04, y + rowh / 2), lw=0.8, color="0.5")
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


@arguments(dfa=instance(DFA, where="attnlib.tasks.automata"), state="index", symbol="index")
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
    fig, ax = canvas(WIDTH, gy + (rows + 0.6) * cell + 0.55)
    ys = [gy + (rows - 1 - r) * cell for r in range(rows)]
    ys[-1] -= 0.6 * cell  # the query sits a little below the table
    for r in range(rows):
        is_query = r == S * A
        for c in range(d):
            on = X[r, c] != 0
            ax.add_patch(Rectangle((gx + c * cell, ys[r]), cell, cell,
                                   facecolor=tint(0 if c < S * A else 3, 0.55) if on else "white",
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
    ob = draw_box(ax, WIDTH - 0.08 - ow, 0.72, ow, oh,
              f"output at the last\ntoken: $[\\,0\\mid e_{{\\delta({state},{symbol})}}\\,]$,\n"
              f"value block: state {nxt}", color=3, size=SMALL)
    db = draw_box(ax, 0.3, 0.72, 2.6, oh, f"driver: argmax gives\n$s_{{t+1}}={nxt}$; append the\n"
              f"query of $(s_{{t+1}},a_{{t+1}})$", color=0, size=SMALL)
    down = sx + 0.3                                                 # right of the scores, inside the output box
    ax.plot([sx + 0.18, down], [ys[match] + cell / 2] * 2, color="0.25", lw=1.3)
    draw_arrow(ax, (down, ys[match] + cell / 2), (down, ob[1] + oh))
    draw_arrow(ax, side_of(ob, "left"), side_of(db, "right"))
    draw_arrow(ax, side_of(db, "top"), (gx + S * A * cell / 2, ys[-1] - 0.04), ls="--")
    ax.text(0.05, 0.05, "Dashed frame: the one table token whose key matches the query\n"
            "(the query also scores 1 on itself; its value block is 0).", ha="left", va="bottom",
            fontsize=SMALL, linespacing=1.3)
    return fig
