"""Checks for the coding exercises on automata executed by attention (chapter 6).

The lookup head, and a lookup that also says accept.
"""

from __future__ import annotations

import numpy as np

from .._arguments import arguments
from ..attention import attention
from ._core import Case, CheckFailure, case_rng, returned_heads, run_check

__all__ = ["check_accepting_lookup", "check_lookup_heads"]


@arguments(fn="function")
def check_accepting_lookup(fn) -> None:
    """Check a lookup that also says whether the next state is accepting: ``fn(dfa)``.

    ``dfa`` is an :class:`attnlib.tasks.automata.DFA` with S states and A
    symbols. Return ``(T, heads)``: the table tokens T of shape (S*A, d) with
    ``d = S*A + S + 1`` (key block, value block, one extra coordinate), and a
    one-layer linear-attention ``heads`` (``attnlib.Heads`` or a pair
    ``(Theta, W)``). For every pair (s, a), the context ``[T; q]`` ending in
    the query ``q = [e_(s, a) | 0 | 0]`` (row ``s*A + a`` of the key block) must
    give, at its last token, ``[0 | e_delta(s, a) | 1 if delta(s, a) is
    accepting else 0]``.

    Examples
    --------
    The chapter's lookup, without the extra coordinate, is rejected:

    >>> from attnlib.tasks import automata as am
    >>> plain = lambda dfa: (am.table_tokens(dfa), am.lookup_heads(dfa.n_states, dfa.n_symbols))
    >>> try:
    ...     check_accepting_lookup(plain)
    ... except CheckFailure as failure:
    ...     print(failure)
    check_accepting_lookup: on case 'parity automaton (S=2, A=2)', T has shape (4, 6);
    expected (S*A, S*A + S + 1) = (4, 7)
    """
    from ..tasks.automata import DFA, random_dfa

    rng = case_rng(300)
    dfas = {"parity automaton (S=2, A=2)": DFA([[0, 1], [1, 0]], accepting=[False, True]),
            "random, S=3, A=2": random_dfa(3, 2, rng=rng),
            "random, S=4, A=3": random_dfa(4, 3, rng=rng),
            "one state, accepting (S=1, A=2)": DFA([[0, 0]], accepting=[True])}
    cases = []
    for label, dfa in dfas.items():
        S, A = dfa.n_states, dfa.n_symbols
        expected = np.zeros((S * A, S * A + S + 1))
        nxt = dfa.delta.ravel()
        expected[np.arange(S * A), S * A + nxt] = 1.0
        expected[:, -1] = dfa.accepting[nxt]
        cases.append(Case(label, (dfa,), expected))

    def convert(got, case):
        dfa = case.args[0]
        S, A = dfa.n_states, dfa.n_symbols
        d = S * A + S + 1
        where = f"check_accepting_lookup: on case '{case.name}'"
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            raise CheckFailure(f"{where}, return a pair (T, heads); received {type(got).__name__}")
        try:
            T = np.asarray(got[0], dtype=float)
        except (TypeError, ValueError):
            raise CheckFailure(f"{where}, T must be an array of numbers") from None
        if not np.isfinite(T).all():
            raise CheckFailure(f"{where}, T contains nan or inf")
        if T.shape != (S * A, d):
            raise CheckFailure(f"{where}, T has shape {T.shape}; expected (S*A, S*A + S + 1) = {(S * A, d)}")
        heads = returned_heads("check_accepting_lookup", got[1], case, d)
        out = np.empty((S * A, d))
        for p in range(S * A):
            q = np.zeros(d)
            q[p] = 1.0
            out[p] = attention(np.vstack([T, q]), heads, kind="linear")[-1]
        return out

    def groups(case, label):
        dfa = case.args[0]
        SA = dfa.n_states * dfa.n_symbols
        return ((1, (("key-block entries", np.arange(SA)), ("value-block entries", np.arange(SA, SA + dfa.n_states)),
                     ("accepting-flag entries (the last coordinate)", np.array([SA + dfa.n_states])))),)

    def variants(case):
        dfa = case.args[0]
        out = case.expected.copy()
        out[:, -1] = np.repeat(dfa.accepting, dfa.n_symbols)
        return {"the lookup with the accepting flag of the current state s, not of the next state delta(s, a)": out}

    run_check("check_accepting_lookup", fn, cases, ["dfa"], rtol=1e-9, atol=1e-9, convert=convert,
              label="the last output row for the query of pair (s, a), row s*A + a,", groups=groups,
              variants=variants, axes=("pair (s, a)", "coordinate"),
              sizes=lambda case: {"S*A": case.args[0].n_states * case.args[0].n_symbols},
              slip="the last output coordinate says whether the NEXT state delta(s, a) is accepting; the key "
                   "block of the output stays 0, the value block is the one-hot e_delta(s, a).")


@arguments(fn="function")
def check_lookup_heads(fn) -> None:
    """Check the one-head layer that looks up a DFA transition: ``fn(S, A)``.

    Return the layer (``attnlib.Heads`` or a pair ``(Theta, W)``) on tokens of
    dimension ``d = S*A + S``: a key block (the one-hot code of a pair (s, a),
    at coordinate ``s*A + a``) and a value block (a state). For *every* DFA with
    S states and A symbols, a context made of the table tokens
    ``[e_(s, a) | e_delta(s, a)]``, earlier queries, and the query
    ``[e_(s, a) | 0]`` last must give ``[0 | e_delta(s, a)]`` at its last token
    under linear attention.

    Examples
    --------
    >>> from attnlib.tasks import automata as am
    >>> check_lookup_heads(am.lookup_heads)
    check_lookup_heads: all 4 cases passed.
    """
    from ..tasks.automata import DFA, random_dfa

    rng = case_rng(301)
    dfas = {"parity automaton (S=2, A=2)": DFA([[0, 1], [1, 0]]),
            "random, S=3, A=2": random_dfa(3, 2, rng=rng),
            "random, S=4, A=3": random_dfa(4, 3, rng=rng),
            "one state (S=1, A=3)": DFA([[0, 0, 0]])}
    contexts = {}
    cases = []
    for label, dfa in dfas.items():
        S, A = dfa.n_states, dfa.n_symbols
        d = S * A + S
        T = np.zeros((S * A, d))
        T[:, : S * A] = np.eye(S * A)
        T[np.arange(S * A), S * A + dfa.delta.ravel()] = 1.0
        earlier = np.zeros((3, d))                                  # three earlier queries, value block empty
        earlier[np.arange(3), rng.integers(0, S * A, size=3)] = 1.0
        contexts[label] = (T, earlier)
        expected = np.zeros((S * A, d))
        expected[np.arange(S * A), S * A + dfa.delta.ravel()] = 1.0
        cases.append(Case(label, (S, A), expected, extra={"T": T, "earlier": earlier}))

    def convert(got, case):
        S, A = case.args
        d = S * A + S
        heads = returned_heads("check_lookup_heads", got, case, d)
        T, earlier = case.extra["T"], case.extra["earlier"]
        out = np.empty((S * A, d))
        for p in range(S * A):
            q = np.zeros(d)
            q[p] = 1.0
            out[p] = attention(np.vstack([T, earlier, q]), heads, kind="linear")[-1]
        if np.all(np.isfinite(out)) and np.abs(out[:, : S * A]).max() > 1e-9:
            raise CheckFailure(f"check_lookup_heads: on case '{case.name}', the key block of the output is not "
                               "zero: W should copy only the value block (W = 0 on the key rows)")
        return out

    run_check("check_lookup_heads", fn, cases, ["S", "A"], rtol=1e-9, atol=1e-9, convert=convert,
              label="the last output row for the query of pair (s, a), row s*A + a,",
              slip="Theta scores the key blocks (identity there), W copies only the value block (identity there); "
                   "the head must work for every DFA, so it holds no transition of its own.")
