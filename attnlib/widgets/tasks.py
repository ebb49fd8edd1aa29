"""Interactive explorers for chapter 6, built on :mod:`attnlib.viz.tasks`."""

from __future__ import annotations


from .._validation import check_int_array
from ..heads import Heads
from ..tasks import automata as am
from ..viz import tasks as viz
from ._core import explorer, slider, toggle


def dfa_stepper(dfa, word, heads: Heads | dict | None = None, *, live: bool = False):
    """Step through a DFA run and watch the lookup: the picture is :func:`attnlib.viz.tasks.plot_dfa_step`.

    Parameters
    ----------
    dfa : attnlib.tasks.automata.DFA
    word : array_like of int, shape (L,)
    heads : Heads or dict of str -> Heads, optional
        The layer, or several layers to choose from by name; by default the
        explicit lookup head.
    live : bool, default False
        False: one frame per step and layer, switched in the browser. True:
        redraw through the kernel.

    Returns
    -------
    FrameExplorer or ipywidgets.interactive
        Controls: the step t and, with several layers, which one runs.
    """
    if not isinstance(dfa, am.DFA):
        raise TypeError(f"dfa must be a DFA (attnlib.tasks.automata.DFA); received {type(dfa).__name__}")
    word = check_int_array("word", word, low=0, upper=dfa.n_symbols)
    if word.ndim != 1 or word.size < 2:
        raise ValueError(f"word must have at least 2 symbols, so that there are steps to move between; "
                         f"received shape {word.shape}")
    if heads is None:
        heads = {"explicit head": am.lookup_heads(dfa.n_states, dfa.n_symbols)}
    elif isinstance(heads, Heads):
        heads = {"layer": heads}

    rows = dfa.n_states * dfa.n_symbols + word.size  # the last step's context: every frame one size

    def draw(t, layer):
        return viz.plot_dfa_step(dfa, word, t, heads[layer], rows=rows)

    return explorer(draw, {
        "t": slider("step t", tuple(range(word.size)), note="the step of the run: one more query in the context"),
        "layer": toggle("layer", tuple(heads), note="which layer runs the lookup"),
    }, live=live, fixed_axes=False)
