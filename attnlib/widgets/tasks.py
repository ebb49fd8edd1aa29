"""Interactive explorers for chapter 6, built on :mod:`attnlib.viz.tasks`."""

from __future__ import annotations

from .._arguments import arguments, instance, structure
from ..heads import Heads
from ..tasks import automata as am
from ..viz import tasks as viz
from ._core import explorer, slider, toggle


@arguments(dfa=instance(am.DFA, where="attnlib.tasks.automata"), word="intarray",
           heads=structure("a Heads, a dict of name -> Heads, or None"), live="flag")
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
    if word.ndim != 1 or word.size < 2:
        raise ValueError(f"word must have at least 2 symbols, so that there are steps to move between; "
                         f"received shape {word.shape}")
    if word.min() < 0 or word.max() >= dfa.n_symbols:
        raise ValueError(f"word must hold symbols in 0 .. {dfa.n_symbols - 1}; received {word.tolist()}")
    if not (heads is None or isinstance(heads, Heads) or (isinstance(heads, dict) and heads
                                                          and all(isinstance(h, Heads) for h in heads.values()))):
        raise TypeError(f"heads must be a Heads, a non-empty dict of name -> Heads, or None; received {heads!r}")
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
