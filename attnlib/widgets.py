"""Interactive explorers for the book, built on :mod:`attnlib.viz`.

Each builder returns an ``ipywidgets`` widget whose picture is drawn by the
same function that draws the static figure in the book, so a reader without a
kernel sees the figure and a reader with one moves the sliders. ipywidgets is
imported here, not by ``import attnlib``.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from IPython.display import display

from . import viz
from ._validation import check_choice, check_sequences
from .attention import KINDS, _check_heads
from .heads import Heads
from .landscape import loss_along_line, partners


def _interactive(draw, **controls):
    """An ``ipywidgets.interactive`` that displays the figure ``draw(**values)`` returns."""

    def show(**values):
        display(draw(**values))

    return widgets.interactive(show, **controls)


def attention_explorer(X, heads: Heads, *, kind: str = "softmax", causal: bool = False):
    """Attention maps of a batch of sequences, with the sharpness of Theta on a slider.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
        Sequences to choose from.
    heads : Heads
    kind, causal
        Starting values of the controls.

    Returns
    -------
    ipywidgets.interactive
        Controls: the multiplier c of every Theta_i (log scale), the kind, the
        causal mask, and the example shown. The picture is
        :func:`attnlib.viz.plot_attention_maps`.
    """
    heads = _check_heads(heads)
    check_choice("kind", kind, KINDS)
    X3, _ = check_sequences(X, d=heads.d)

    def draw(log10_c, kind, causal, example):
        c = 10.0**log10_c
        return viz.plot_attention_maps(X3[example], Heads(c * heads.Theta, heads.W), kind=kind, causal=causal)

    return _interactive(
        draw,
        log10_c=widgets.FloatSlider(value=0.0, min=-2.0, max=2.0, step=0.1, description="log10 c",
                                    continuous_update=False),
        kind=widgets.ToggleButtons(options=list(KINDS), value=kind, description="kind"),
        causal=widgets.Checkbox(value=bool(causal), description="causal"),
        example=widgets.IntSlider(value=0, min=0, max=X3.shape[0] - 1, description="example",
                                  continuous_update=False),
    )


def loss_landscape_explorer(X, Y, teacher: Heads, *, kind: str = "softmax", causal: bool = False, rng=None):
    """The training loss along a line from the teacher to a partner point.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    Y : array_like of shape (N, n, d) or (N, d)
        Targets, usually ``attention(X, teacher)``.
    teacher : Heads
        Start of every line.
    kind, causal
        As in :func:`attnlib.attention`.
    rng : int, numpy.random.Generator or None
        For the random partner.

    Returns
    -------
    ipywidgets.interactive
        Controls: the partner (see :func:`attnlib.landscape.partners`), how far
        past the endpoints the line extends, and how many examples enter the
        loss. The picture is :func:`attnlib.viz.plot_loss_along_line`.
    """
    teacher = _check_heads(teacher)
    X3, _ = check_sequences(X, d=teacher.d)
    Y = np.asarray(Y, dtype=float)
    ends = partners(teacher, kind=kind, rng=rng)

    def draw(partner, reach, examples):
        ts = np.linspace(-reach, 1.0 + reach, 121)
        losses = loss_along_line(X3[:examples], Y[:examples], teacher, ends[partner], ts, kind=kind, causal=causal)
        return viz.plot_loss_along_line(ts, {partner: losses}, title=f"{kind} attention, N = {examples}")

    N = X3.shape[0]
    return _interactive(
        draw,
        partner=widgets.Dropdown(options=list(ends), description="line to"),
        reach=widgets.FloatSlider(value=0.25, min=0.0, max=1.0, step=0.05, description="reach",
                                  continuous_update=False),
        examples=widgets.IntSlider(value=N, min=1, max=N, description="N", continuous_update=False),
    )
