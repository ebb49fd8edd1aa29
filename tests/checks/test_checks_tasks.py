"""Tests for attnlib.checks.tasks: the accepting-lookup check passes a hand-built layer and rejects mistakes."""

import numpy as np
import pytest

from attnlib.checks import CheckFailure, check_accepting_lookup, check_lookup_heads


def build(dfa, *, accept_of=None, value_rows=None, key_order="sa"):
    """Table tokens [e_(s,a) | e_delta(s,a) | acc] and one head, from the definitions (no attnlib.tasks)."""
    S, A = dfa.delta.shape
    d = S * A + S + 1
    T = np.zeros((S * A, d))
    for s in range(S):
        for a in range(A):
            row = s * A + a if key_order == "sa" else a * S + s
            nxt = dfa.delta[s, a]
            T[row, row] = 1.0
            T[row, S * A + nxt] = 1.0
            T[row, -1] = float(dfa.accepting[nxt if accept_of is None else accept_of(s, a, nxt)])
    Theta = np.zeros((d, d))
    Theta[: S * A, : S * A] = np.eye(S * A)
    W = np.zeros((d, d))
    rows = range(S * A, d) if value_rows is None else value_rows(S, A, d)
    for r in rows:
        W[r, r] = 1.0
    return T, (Theta[None], W[None])


def test_reference_passes(capsys):
    check_accepting_lookup(build)
    assert capsys.readouterr().out == "check_accepting_lookup: all 4 cases passed.\n"


@pytest.mark.parametrize("wrong, message", [
    (lambda dfa: build(dfa, value_rows=lambda S, A, d: range(S * A, d - 1)),            # W forgets the new coordinate
     r"'parity automaton \(S=2, A=2\)'.*row s\*A \+ a, at index \(\d, 6\)"),
    (lambda dfa: build(dfa, accept_of=lambda s, a, nxt: s),                               # current state, not next
     r"'parity automaton \(S=2, A=2\)'.*at index \(\d, 6\)"),
    (lambda dfa: build(dfa, key_order="as"), r"'random, S=3, A=2'"),                       # keys indexed a*S + s
    (lambda dfa: (build(dfa)[0][:, :-1], build(dfa)[1]), r"T has shape \(4, 6\); expected .* = \(4, 7\)"),
    (lambda dfa: build(dfa)[0], r"return a pair \(T, heads\)"),
])
def test_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_accepting_lookup: .*" + message):
        check_accepting_lookup(wrong)


# check_lookup_heads: the one-head transition lookup, built from the definition


def lookup(S, A, *, theta="keys", w="values"):
    d = S * A + S
    Theta = np.zeros((d, d))
    if theta == "keys":
        Theta[: S * A, : S * A] = np.eye(S * A)
    elif theta == "all":                                             # also right: queries have an empty value block
        Theta = np.eye(d)
    elif theta == "values":
        Theta[S * A :, S * A :] = np.eye(S)
    W = np.zeros((d, d))
    if w == "values":
        W[S * A :, S * A :] = np.eye(S)
    elif w == "all":
        W = np.eye(d)
    elif w == "half":
        W[S * A :, S * A :] = 0.5 * np.eye(S)
    return Theta[None], W[None]


def test_lookup_reference_and_a_correct_variant_pass(capsys):
    check_lookup_heads(lookup)
    check_lookup_heads(lambda S, A: lookup(S, A, theta="all"))
    assert capsys.readouterr().out == "check_lookup_heads: all 4 cases passed.\n" * 2


@pytest.mark.parametrize("wrong, message", [
    # keys copied
    (lambda S, A: lookup(S, A, w="all"), r"'parity automaton \(S=2, A=2\)', the key block of the output is not zero"),
    (lambda S, A: lookup(S, A, theta="values"), r"'parity automaton \(S=2, A=2\)'"),                  # matches values
    (lambda S, A: lookup(S, A, w="half"), r"'parity automaton \(S=2, A=2\)'"),                         # a factor 1/2
    (lambda S, A: lookup(S + 1, A), r"must both have shape \(m, 6, 6\)"),                             # d wrong
    (lambda S, A: "heads", r"return attnlib.Heads or a pair"),
])
def test_lookup_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_lookup_heads: .*" + message):
        check_lookup_heads(wrong)


def test_nan_in_a_returned_table_is_a_check_failure():
    from attnlib.tasks import automata as am

    def nan_table(dfa):
        T = am.table_tokens(dfa)
        T = np.hstack([T, np.zeros((len(T), 1))])
        T[0, 0] = np.nan
        return T, (np.zeros((1, T.shape[1], T.shape[1])), np.zeros((1, T.shape[1], T.shape[1])))

    with pytest.raises(CheckFailure, match="T contains nan or inf"):
        check_accepting_lookup(nan_table)
