"""Explorer of attention itself: the attention maps as the logits are scaled (chapter 1)."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._arguments import arguments, choice
from ..attention import KINDS
from ..heads import Heads
from ..viz import attention as viz
from ._core import as_batch, explorer, slider, toggle

#: the multipliers c of the frames, log10 c from -2 to 2 in steps of 1/2
LOG10_C = tuple(float(v) for v in np.linspace(-2.0, 2.0, 9))


@arguments(X="array", heads="heads", kind=choice(*KINDS), causal="flag", examples="size", live="flag")
def attention_explorer(X, heads: Heads, *, kind: str = "softmax", causal: bool = False, examples: int = 1,
                       live: bool = False):
    """Attention maps of a batch of sequences, with the sharpness of Theta on a slider.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
        Sequences to choose from.
    heads : Heads
    kind, causal
        Starting values of the controls.
    examples : int, default 1
        How many of the sequences the precomputed frames offer (all of them with ``live=True``).
    live : bool, default False
        False: 9 multipliers x 2 kinds x ``examples`` frames, drawn now at the
        given ``causal`` and switched in the browser without a kernel. True:
        redraw through the kernel for any c, mask and example.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
        Controls: the multiplier c of every Theta_i (as log10 c) and the kind;
        live, also the causal mask and the example shown. The picture is
        :func:`attnlib.viz.attention.plot_attention_maps`.
    """
    X3 = as_batch(X, heads.d)
    shown = X3.shape[0] if live else min(examples, X3.shape[0])

    def draw(log10_c, kind, causal, example):
        c = 10.0**log10_c
        return viz.plot_attention_maps(X3[example], Heads(c * heads.Theta, heads.W), kind=kind, causal=causal)

    return explorer(draw, {
        "log10_c": slider("log₁₀ c", LOG10_C, 0.0, note="multiplies every Θᵢ by c: softmax rows sharpen to one key as "
                          "c grows and flatten to uniform as it shrinks; linear scores just scale",
                          live=lambda: widgets.FloatSlider(value=0.0, min=-2.0, max=2.0, step=0.1,
                                                           description="log₁₀ c", continuous_update=False)),
        "kind": toggle("kind", KINDS, kind, note="softmax weights (each row sums to 1) or the raw linear scores"),
        "causal": toggle("causal", (causal,) if not live else (False, True), causal,
                         note="hides the keys after each query"),
        "example": slider("example", tuple(range(shown)), 0, note="which sequence of the batch is drawn",
                          live=lambda: widgets.IntSlider(value=0, min=0, max=X3.shape[0] - 1, description="example",
                                                         continuous_update=False)),
    }, live=live)
