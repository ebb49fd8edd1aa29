"""Shared checks of :mod:`attnlib.tasks`: automata, states and words."""

from __future__ import annotations

import numpy as np

from .._validation import check_int_array


def check_dfa(dfa, name: str = "dfa"):
    """``dfa`` if it is a DFA, else a TypeError naming ``name``."""
    from .dfa import DFA

    if not isinstance(dfa, DFA):
        raise TypeError(f"{name} must be an attnlib.tasks.automata.DFA; received {type(dfa).__name__}")
    return dfa


def check_dfas(dfas) -> list:
    """One DFA or a non-empty sequence of DFAs of one (S, A), as a list."""
    from .dfa import DFA

    if not isinstance(dfas, (DFA, list, tuple)):
        raise TypeError(f"dfas must be a DFA or a list of DFAs; received {type(dfas).__name__}")
    dfas = [dfas] if isinstance(dfas, DFA) else list(dfas)
    if not dfas:
        raise ValueError("dfas must hold at least one DFA; received none")
    for k, dfa in enumerate(dfas):
        check_dfa(dfa, f"dfas[{k}]")
    sizes = {(dfa.n_states, dfa.n_symbols) for dfa in dfas}
    if len(sizes) > 1:
        raise ValueError(f"dfas must all have the same (S, A); received {sorted(sizes)}")
    return dfas


def check_states(name: str, values, upper: int) -> np.ndarray:
    """An int array with every entry in 0 .. upper - 1 (states or symbols)."""
    return check_int_array(name, values, low=0, upper=upper)


def check_words(words, n_symbols: int, *, two_d: bool = False, name: str = "words") -> np.ndarray:
    """A word (L,) of symbols in 0 .. n_symbols - 1, or with ``two_d`` words (N, L) (one word becomes (1, L))."""
    words = check_states(name, words, n_symbols)
    if two_d:
        if words.ndim == 1:
            words = words[None]
        if words.ndim != 2 or words.shape[1] == 0:
            raise ValueError(f"words must have shape (L,) or (N, L) with L >= 1; received shape {words.shape}")
    elif words.ndim != 1:
        raise ValueError(f"word must have shape (L,); received shape {words.shape}")
    return words
