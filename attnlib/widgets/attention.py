"""Explorer of attention itself: the attention maps as the logits are scaled (chapter 1)."""

from __future__ import annotations

import ipywidgets as widgets

from .._validation import check_choice, check_flag, check_sequences
from ..attention import KINDS
from ..heads import Heads, as_heads
from ..viz import attention as viz
from ._core import interactive


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
        :func:`attnlib.viz.attention.plot_attention_maps`.
    """
    heads = as_heads(heads)
    check_choice("kind", kind, KINDS)
    causal = check_flag("causal", causal)
    X3, _ = check_sequences(X, d=heads.d)

    def draw(log10_c, kind, causal, example):
        c = 10.0**log10_c
        return viz.plot_attention_maps(X3[example], Heads(c * heads.Theta, heads.W), kind=kind, causal=causal)

    return interactive(
        draw,
        log10_c=widgets.FloatSlider(value=0.0, min=-2.0, max=2.0, step=0.1, description="log10 c",
                                    continuous_update=False),
        kind=widgets.ToggleButtons(options=list(KINDS), value=kind, description="kind"),
        causal=widgets.Checkbox(value=bool(causal), description="causal"),
        example=widgets.IntSlider(value=0, min=0, max=X3.shape[0] - 1, description="example",
                                  continuous_update=False),
    )
