"""Explorer of the training loss: along a line from the teacher to a partner point (chapter 2)."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._arguments import arguments, choice
from ..attention import KINDS
from ..heads import Heads
from ..landscape import loss_along_line, partners
from ..viz import training as viz
from ._core import as_batch, explorer, slider, toggle


@arguments(X="array", Y="array", teacher="heads", kind=choice(*KINDS), causal="flag", rng="rng", live="flag")
def loss_landscape_explorer(X, Y, teacher: Heads, *, kind: str = "softmax", causal: bool = False, rng=None,
                            live: bool = False):
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
    live : bool, default False
        False: 3 partners x 2 reaches x 4 sample sizes, precomputed and switched
        in the browser. True: redraw through the kernel for any reach and N.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
        Controls: the partner (see :func:`attnlib.landscape.partners`), how far
        past the endpoints the line extends, and how many examples enter the
        loss. The picture is :func:`attnlib.viz.training.plot_loss_along_line`.
    """
    X3 = as_batch(X, teacher.d)
    if Y.ndim not in (2, 3) or Y.shape[0] != X3.shape[0]:
        raise ValueError(f"Y must have one target per sequence of X ({X3.shape[0]}); received shape {Y.shape}")
    ends = {viz.PARTNER_LABELS[name]: end for name, end in partners(teacher, kind=kind, rng=rng).named()}

    def draw(partner, reach, examples):
        ts = np.linspace(-reach, 1.0 + reach, 121)
        losses = loss_along_line(X3[:examples], Y[:examples], teacher, ends[partner], ts, kind=kind, causal=causal)
        # the axis is set by the barrier between the ends, not by the walls past them
        barrier = float(losses[(ts >= 0) & (ts <= 1)].max())
        return viz.plot_loss_along_line(ts, {partner: losses}, title=f"{kind} attention, N = {examples}",
                                        ylim=(0.0, 1.4 * barrier))

    N = X3.shape[0]
    sizes = tuple(sorted({max(1, N // 64), max(1, N // 16), max(1, N // 4), N}))
    return explorer(draw, {
        "partner": toggle("line to", tuple(ends), note="the point at t = 1, which computes the teacher's function",
                          live=lambda: widgets.Dropdown(options=list(ends), description="line to")),
        "reach": slider("reach", (0.25, 1.0), 0.25, note="how far the line runs past t = 0 and t = 1",
                        live=lambda: widgets.FloatSlider(value=0.25, min=0.0, max=1.0, step=0.05, description="reach",
                                                         continuous_update=False)),
        "examples": slider("N", sizes, N, note="the examples in the loss: the barrier stays as N shrinks",
                           live=lambda: widgets.IntSlider(value=N, min=1, max=N, description="N",
                                                          continuous_update=False)),
    }, live=live)
