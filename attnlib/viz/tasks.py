"""Figures for chapter 6: a DFA step seen through the attention layer, and a Turing-machine run.

Like :mod:`attnlib.viz`, every function draws one static figure and returns it;
:mod:`attnlib.widgets.tasks` wraps the same functions in sliders.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from .._arguments import arguments, instance
from ..heads import Heads
from ..tasks import automata as am
from ..tasks import turing as tu
from ._style import COLORS, COLUMN_IN, GREYS, styled, subplots


@arguments(dfa=instance(am.DFA, where="attnlib.tasks.automata"), word="intarray", t="index", heads="optheads",
           rows="optsize")
@styled
def plot_dfa_step(dfa, word, t: int = 0, heads: Heads | None = None, *, rows: int | None = None):
    """One step of a DFA run by linear attention: the context, what each token contributes, the output.

    Parameters
    ----------
    dfa : attnlib.tasks.automata.DFA
    word : array_like of int, shape (L,)
    t : int, default 0
        The step shown (0-based); the states fed back are the layer's own.
    heads : Heads, optional
        The layer; by default the explicit lookup head.
    rows : int, optional
        Room for this many context rows, blank below the context: at least this
        step's (the table's S*A tokens and t + 1 queries), which is the default.
        :func:`attnlib.widgets.tasks.dfa_stepper` gives every step the last one's,
        so that the page does not jump as the steps go by.

    Returns
    -------
    matplotlib.figure.Figure
        Left: the context (rows are tokens: the table, then the queries so
        far; the key block left of the dashed line, the value block right of
        it; the current query outlined). Middle, on the same rows: for one
        head, the logit ``x_n^T Theta x_b`` of the current query x_n on every
        token b; for several heads, token b's contribution
        ``sum_i (x_n^T Theta_i x_b) (x_b^T W_i)`` to the decoded state's
        coordinate. A token whose key holds the query's pair (s, a) (the
        matching table token, the query itself, and earlier queries of the same
        pair) is a solid blue bar; every other token is a hatched grey bar.
        Right: the value block of the output, one grey bar per next state s'
        (the decoded state is the tallest), the true next state marked with a
        triangle. A legend under the panels names the two kinds of bar and
        the triangle.
    """
    if word.ndim != 1 or word.size == 0 or word.min() < 0 or word.max() >= dfa.n_symbols:
        raise ValueError(f"word must be a non-empty 1-D array of symbols in 0 .. {dfa.n_symbols - 1}; "
                         f"received {word.tolist()}")
    heads = am.lookup_heads(dfa.n_states, dfa.n_symbols) if heads is None else heads
    if not 0 <= t < word.size:
        raise ValueError(f"t must be a step in 0 .. {word.size - 1}; received {t}")
    S, A = dfa.n_states, dfa.n_symbols
    SA = S * A
    run = am.execute(dfa, word, heads)
    states = run.states[0]
    X = am.run_contexts(dfa, word, states)[t]  # (SA + t + 1, d)
    n = X.shape[0]
    rows = n if rows is None else rows
    if rows < n:
        raise ValueError(f"rows must be at least the {n} tokens of the context at step {t}; received {rows}")
    x = X[-1]
    y = run.outputs[0, t]
    decoded = int(states[t + 1])
    scores = np.einsum("i,hij,bj->hb", x, heads.Theta, X)  # (m, n) logits of the query on every token
    if heads.m == 1:
        bars, title, label = scores[0], "score", r"$x_n^\top\Theta x_b$"
    else:
        values = np.einsum("bj,hjk->hbk", X, heads.W)[:, :, SA + decoded]  # (m, n)
        bars, title, label = (scores * values).sum(axis=0), "contribution", f"to state {decoded}"
    truth = int(dfa.run(word[: t + 1])[-1])
    same = np.all(X[:, :SA] == x[:SA], axis=1)  # (n,) tokens whose key holds the query's pair
    pair = f"({states[t]},{word[t]})"

    fig, axes = subplots(1, 3, width=2.3, height=max(3.0, 0.3 * rows + 1.4), constrained_layout=True,
                          gridspec_kw={"width_ratios": [1.7, 0.9, 0.8]})
    ax = axes[0, 0]
    ax.imshow(X, cmap="Greys", vmin=0, vmax=1.4, aspect="auto", interpolation="none")
    ax.set_ylim(rows - 0.5, -0.5)  # rows past the context stay blank
    ax.axvline(SA - 0.5, color=COLORS[1], ls="--", lw=1.5)
    names = [f"({s},{a})→{dfa.delta[s, a]}" for s in range(S) for a in range(A)]
    names += [f"q{k}: ({states[k]},{word[k]})" for k in range(t + 1)]
    ax.set_yticks(range(n), names)
    ax.set_xticks(range(X.shape[1]), [f"{s}{a}" for s in range(S) for a in range(A)] + [str(s) for s in range(S)])
    ax.tick_params(axis="x", labelrotation=90)
    ax.add_patch(Rectangle((-0.5, n - 1.5), X.shape[1], 1, fill=False, ec=COLORS[0], lw=2.5))
    ax.set_title(f"context at step {t}")
    ax.set_xlabel("key sa | value s'")

    ax = axes[0, 1]
    match = {"color": COLORS[0], "edgecolor": COLORS[0], "lw": 0.8}
    other = {"color": GREYS["faint"], "edgecolor": GREYS["dark"], "lw": 0.8, "hatch": "///"}
    for b in range(n):
        ax.barh(b, bars[b], **(match if same[b] else other))
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_yticks(range(n), [""] * n)
    ax.axvline(0, color=GREYS["dark"], lw=0.8)
    ax.set_xlabel(label)
    ax.set_title(title)

    ax = axes[0, 2]
    value = y[SA:]
    ax.bar(range(S), value, color=GREYS["mid"])
    ax.plot([truth], [max(value.max(), 1.0) * 1.08], "v", color=COLORS[1], ms=9)
    ax.set_xticks(range(S), [str(s) for s in range(S)])
    ax.set_xlabel("next state s'")
    ax.set_title(f"output: {decoded}")

    handles = [Patch(facecolor=match["color"], edgecolor=match["edgecolor"]),
               Patch(facecolor=other["color"], edgecolor=other["edgecolor"], hatch=other["hatch"]),
               Line2D([], [], ls="none", marker="v", color=COLORS[1], ms=9)]
    labels = [f"the query's pair {pair}", "other pair", "true next state"]
    fig.set_figheight(fig.get_figheight() + 0.3)
    fig.legend(handles, labels, loc="outside lower center", ncol=3, handlelength=1.5, handletextpad=0.5,
               columnspacing=1.0)
    return fig


@arguments(run=instance(tu.TMRun, where="attnlib.tasks.turing.run"))
@styled
def plot_tm_run(run):
    """A Turing-machine run by the attention program: the tape over time, and the tokens each step wrote.

    Parameters
    ----------
    run : attnlib.tasks.turing.TMRun

    Returns
    -------
    matplotlib.figure.Figure
        Left: space-time diagram (rows are steps, columns cells, the head's cell
        outlined and labelled with the state). Right, on the same rows: the context
        as a schematic, one block per token. The first row is the starting context;
        every step after it appends one token per instruction of the program, the
        same instructions in the same order (named at the top, each kind in its own
        tint), and each block gives the token's row in the context.
    """
    configs = run.configs
    tapes = np.array([c[2] for c in configs])
    X = run.X
    fig, (ax, right) = plt.subplots(1, 2, figsize=(COLUMN_IN, 0.42 * len(configs) + 2.1), constrained_layout=True,
                                    gridspec_kw={"width_ratios": [tapes.shape[1], 8.6]})
    ax.imshow(tapes, cmap="Greys", vmin=0, vmax=max(1, tapes.max()) * 4, aspect="auto", interpolation="none")
    for step, (state, head, tape) in enumerate(configs):
        ax.add_patch(Rectangle((head - 0.5, step - 0.5), 1, 1, fill=False, ec=COLORS[1], lw=2.5))
        ax.text(head, step, f"q{state}", ha="center", va="center", color=COLORS[1], fontweight="bold")
        for cell, letter in enumerate(tape):
            if cell != head:
                ax.text(cell, step, str(letter), ha="center", va="center", color=GREYS["dark"])
    ax.set_xticks(range(tapes.shape[1]))
    ax.set_yticks(range(len(configs)))
    ax.set_xlabel("tape cell")
    ax.set_ylabel("step")
    ax.set_title("the machine")

    n0 = X.shape[0] - len(run.names)
    per_step = max(len(run.names) // max(len(configs) - 1, 1), 1)  # instructions per machine step
    program = run.names[:per_step]
    kinds = list(dict.fromkeys(name.split()[0] for name in program))
    tints = {kind: COLORS[j % len(COLORS)] for j, kind in enumerate(kinds)}
    right.add_patch(Rectangle((0.04, -0.42), per_step - 0.08, 0.84, facecolor=GREYS["light"], alpha=0.5, lw=0))
    right.text(per_step / 2, 0, f"starting context: rows 1–{n0}", ha="center", va="center")
    for k, name in enumerate(run.names):
        step, j = divmod(k, per_step)
        right.add_patch(Rectangle((j + 0.04, step + 1 - 0.42), 0.92, 0.84, facecolor=tints[name.split()[0]],
                                  alpha=0.35, lw=0))
        right.text(j + 0.5, step + 1, str(n0 + k + 1), ha="center", va="center")
    right.set_xlim(0, per_step)
    right.set_ylim(len(configs) - 0.5, -0.5)
    right.xaxis.tick_top()
    right.set_xticks(np.arange(per_step) + 0.5, program, rotation=60, ha="left", rotation_mode="anchor")
    right.set_yticks([])
    right.tick_params(length=0)
    for spine in right.spines.values():
        spine.set_visible(False)
    right.set_xlabel(f"one token per instruction, each of\nd = {X.shape[1]} coordinates; its row in the context")
    return fig
