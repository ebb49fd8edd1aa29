"""Figures for chapter 6: a DFA step seen through the attention layer, and a Turing-machine run.

Like :mod:`attnlib.viz`, every function draws one static figure and returns it;
:mod:`attnlib.widgets.tasks` wraps the same functions in sliders.
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from .._validation import check_array_dtype, check_nonnegative_int
from ..heads import Heads, as_heads
from ..tasks import automata as am
from ..tasks import turing as tu
from ._style import COLORS, styled, subplots


@styled
def plot_dfa_step(dfa, word, t: int = 0, heads: Heads | None = None):
    """One step of a DFA run by linear attention: the context, what each token contributes, the output.

    Parameters
    ----------
    dfa : attnlib.tasks.automata.DFA
    word : array_like of int, shape (L,)
    t : int, default 0
        The step shown (0-based); the states fed back are the layer's own.
    heads : Heads, optional
        The layer; by default the explicit lookup head.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the context (rows are tokens: the table, then the queries so
        far; the key block left of the dashed line, the value block right of
        it). Middle: for one head, its logit ``x_t Theta x_b`` on every token
        b; for several heads, token b's contribution
        ``sum_i (x_t Theta_i x_b) (x_b W_i)`` to the decoded state's
        coordinate. Right: the value block of the output, the decoded state
        (argmax) filled, the true next state marked.
    """
    heads = am.lookup_heads(dfa.n_states, dfa.n_symbols) if heads is None else as_heads(heads)
    word = check_array_dtype("word", word)
    if word.dtype.kind not in "iu":
        raise TypeError(f"word must hold integer symbols; received dtype {word.dtype}")
    t = check_nonnegative_int("t", t)
    if not 0 <= t < word.size:
        raise ValueError(f"t must be a step in 0 .. {word.size - 1}; received {t}")
    S, A = dfa.n_states, dfa.n_symbols
    SA = S * A
    run = am.execute(dfa, word, heads)
    states = run.states[0]
    X = am.run_contexts(dfa, word, states)[t]  # (SA + t + 1, d)
    n = X.shape[0]
    x = X[-1]
    y = run.outputs[0, t]
    decoded = int(states[t + 1])
    scores = np.einsum("i,hij,bj->hb", x, heads.Theta, X)  # (m, n) logits of the query on every token
    if heads.m == 1:
        bars, label = scores[0], r"logit $x_t\Theta x_b$"
    else:
        values = np.einsum("bj,hjk->hbk", X, heads.W)[:, :, SA + decoded]  # (m, n)
        bars, label = (scores * values).sum(axis=0), f"contribution to state {decoded}"
    truth = int(dfa.run(word[: t + 1])[-1])

    fig, axes = subplots(1, 3, width=3.0, height=max(2.6, 0.24 * n + 1.0), constrained_layout=True,
                          gridspec_kw={"width_ratios": [1.6, 1.0, 0.9]})
    ax = axes[0, 0]
    ax.imshow(X, cmap="Greys", vmin=0, vmax=1.4, aspect="auto")
    ax.axvline(SA - 0.5, color=COLORS[1], ls="--", lw=1)
    rows = [f"({s},{a})→{dfa.delta[s, a]}" for s in range(S) for a in range(A)]
    rows += [f"query {k}: ({states[k]},{word[k]})" for k in range(t + 1)]
    ax.set_yticks(range(n), rows, fontsize=7)
    ax.set_xticks(range(X.shape[1]), [f"{s},{a}" for s in range(S) for a in range(A)] + [str(s) for s in range(S)],
                  fontsize=7)
    ax.add_patch(Rectangle((-0.5, n - 1.5), X.shape[1], 1, fill=False, ec=COLORS[0], lw=2))
    ax.set_title(f"context at step {t}: key (s,a) | value s'")

    ax = axes[0, 1]
    colors = [COLORS[0] if abs(v) > 0.5 else "0.6" for v in bars]
    ax.barh(range(n), bars, color=colors)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_yticks(range(n), [""] * n)
    ax.axvline(0, color="0.3", lw=0.8)
    ax.set_xlabel(label)
    ax.set_title("per token" if heads.m > 1 else "one head")

    ax = axes[0, 2]
    value = y[SA:]
    ax.bar(range(S), value, color=[COLORS[0] if s == decoded else "0.75" for s in range(S)])
    ax.plot([truth], [max(value.max(), 1.0) * 1.08], "v", color=COLORS[1], ms=7)
    ax.set_xticks(range(S), [str(s) for s in range(S)])
    ax.set_xlabel("next state s' (▼ the true one)")
    ax.set_title(f"output: decoded {decoded}")
    return fig


@styled
def plot_tm_run(run):
    """A Turing-machine run by the attention program: the tape over time, and the context it wrote.

    Parameters
    ----------
    run : attnlib.tasks.turing.TMRun

    Returns
    -------
    matplotlib.figure.Figure
        Left: space-time diagram (rows are steps, columns cells, shade the
        letter, the head's cell outlined and labelled with the state). Right:
        the non-zero entries of the context, one row per token, coloured by
        the instruction that wrote it; the columns of each step's If-Then
        dummies sit in blocks of their own, which is why the width grows with
        the number of steps.
    """
    if not isinstance(run, tu.TMRun):
        raise TypeError(f"run must be a TMRun; received {type(run).__name__}")
    configs = run.configs
    tapes = np.array([c[2] for c in configs])
    fig, axes = subplots(1, 2, width=3.6, height=3.6, constrained_layout=True,
                          gridspec_kw={"width_ratios": [0.8, 1.6]})
    ax = axes[0, 0]
    ax.imshow(tapes, cmap="Blues", vmin=0, vmax=max(1, tapes.max()) * 2.5, aspect="auto")
    for step, (state, head, tape) in enumerate(configs):
        ax.add_patch(Rectangle((head - 0.5, step - 0.5), 1, 1, fill=False, ec=COLORS[1], lw=2))
        ax.text(head, step, f"q{state}", ha="center", va="center", fontsize=8, color=COLORS[1])
        for cell, letter in enumerate(tape):
            if cell != head:
                ax.text(cell, step, str(letter), ha="center", va="center", fontsize=7, color="0.2")
    ax.set_xlabel("tape cell")
    ax.set_ylabel("step")
    ax.set_title("the machine")

    ax = axes[0, 1]
    X = run.X
    n0 = X.shape[0] - len(run.names)
    kinds = ["context"] + sorted(set(n.split()[0] for n in run.names), key=lambda k: run.names.index(
        next(m for m in run.names if m.split()[0] == k)))
    row_kind = ["context"] * n0 + [n.split()[0] for n in run.names]
    for j, kind in enumerate(kinds):
        rows, cols = np.nonzero(np.abs(X[[i for i, k in enumerate(row_kind) if k == kind]]) > 0.5)
        index = np.array([i for i, k in enumerate(row_kind) if k == kind])
        ax.plot(cols, index[rows], "s", ms=1.6, color="0.6" if kind == "context" else COLORS[(j - 1) % len(COLORS)],
                label=kind)
    ax.set_ylim(X.shape[0] - 0.5, -0.5)
    ax.set_xlim(-0.5, X.shape[1] - 0.5)
    ax.set_xlabel(f"coordinate (d = {X.shape[1]})")
    ax.set_ylabel("token")
    ax.set_title("the context the program wrote")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7, markerscale=3)
    return fig
