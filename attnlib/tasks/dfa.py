"""DFAs, their encoding as key/value tokens, the explicit lookup head and the driver (chapter 6).

A DFA runs as repeated lookups in its transition table held in the context: the table is S*A
key/value tokens ``[e_(s, a) | e_delta(s, a)]``, a query token ``[e_(s, a) | 0]`` asks for one
transition, and one linear-attention head (:func:`lookup_heads`) answers it. :mod:`attnlib.tasks.automata`
builds data sets from these and re-exports the names of this module.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance, structure
from .._validation import check_array_dtype
from ..heads import Heads
from ._checks import check_dfas, check_states, check_words

# --- the automaton -------------------------------------------------------------


@arguments(delta="intarray", start="index", accepting=structure("booleans (or 0/1), one per state"))
@dataclass(frozen=True, eq=False)
class DFA:
    """A deterministic finite automaton.

    Parameters
    ----------
    delta : array_like of int, shape (S, A)
        ``delta[s, a]`` is the state after reading symbol a in state s.
    start : int, default 0
        The start state.
    accepting : array_like of bool, shape (S,), optional
        Accepting states; by default none.

    Examples
    --------
    >>> parity = DFA([[0, 1], [1, 0]], accepting=[False, True])
    >>> parity
    DFA(S=2, A=2, start=0)
    >>> parity.run([1, 1, 0, 1]).tolist(), parity.accepts([1, 1, 0, 1])
    ([0, 1, 0, 0, 1], True)
    """

    delta: np.ndarray
    start: int = 0
    accepting: np.ndarray | None = None

    def __post_init__(self):
        delta = self.delta
        if delta.ndim != 2 or 0 in delta.shape:
            raise ValueError(f"delta must have shape (S, A) with S, A >= 1; received shape {delta.shape}")
        S = delta.shape[0]
        if delta.min() < 0 or delta.max() >= S:
            raise ValueError(
                f"delta must map into the states 0 .. {S - 1}; received values {delta.min()} .. {delta.max()}"
            )
        if not 0 <= self.start < S:
            raise ValueError(f"start must be a state in 0 .. {S - 1}; received {self.start!r}")
        if self.accepting is None:
            accepting = np.zeros(S, dtype=bool)
        else:  # a copy: the caller's array stays writable
            accepting = check_array_dtype("accepting", self.accepting)
            if accepting.dtype != bool and not np.isin(accepting, (0, 1)).all():
                raise ValueError(f"accepting must hold booleans (or 0/1); received {accepting.tolist()}")
            accepting = np.array(accepting, dtype=bool)
        if accepting.shape != (S,):
            raise ValueError(f"accepting must have shape ({S},); received shape {accepting.shape}")
        delta = delta.astype(np.int64)
        for name, arr in (("delta", delta), ("accepting", accepting)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "start", int(self.start))

    @property
    def n_states(self) -> int:
        """Number of states S."""
        return self.delta.shape[0]

    @property
    def n_symbols(self) -> int:
        """Alphabet size A."""
        return self.delta.shape[1]

    @arguments(word="intarray")
    def run(self, word) -> np.ndarray:
        """States visited on ``word``: an int array of length ``len(word) + 1``, starting at ``start``."""
        word = check_words(word, self.n_symbols, name="word")
        states = np.empty(word.size + 1, dtype=np.int64)
        states[0] = self.start
        for t, a in enumerate(word):
            states[t + 1] = self.delta[states[t], a]
        return states

    @arguments(word="intarray")
    def accepts(self, word) -> bool:
        """Whether the run on ``word`` ends in an accepting state."""
        return bool(self.accepting[self.run(word)[-1]])

    def __repr__(self) -> str:
        return f"DFA(S={self.n_states}, A={self.n_symbols}, start={self.start})"


@arguments(n_states="size", n_symbols="size", rng="rng")
def random_dfa(n_states: int, n_symbols: int, *, rng=None) -> DFA:
    """Draw a DFA whose transitions are independent and uniform over the states.

    Parameters
    ----------
    n_states, n_symbols : int
        S and A.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    DFA
        Start state 0; each state is accepting with probability 1/2.

    Examples
    --------
    >>> random_dfa(4, 3, rng=0).delta.shape
    (4, 3)
    """
    S, A = n_states, n_symbols
    return DFA(rng.integers(0, S, size=(S, A)), 0, rng.random(S) < 0.5)


@arguments(N="size", length="size", n_symbols="size", rng="rng")
def random_words(N: int, length: int, n_symbols: int, *, rng=None) -> np.ndarray:
    """Draw N words of the given length, symbols uniform and independent.

    Returns
    -------
    words : ndarray of int, shape (N, length)

    Examples
    --------
    >>> random_words(5, 7, 2, rng=0).shape
    (5, 7)
    """
    return rng.integers(0, n_symbols, size=(N, length))


# --- the encoding --------------------------------------------------------------


@arguments(n_states="size", n_symbols="size")
def token_dim(n_states: int, n_symbols: int) -> int:
    """Token dimension ``d = S*A + S`` of the one-token-per-step encoding.

    Examples
    --------
    >>> token_dim(3, 2)
    9
    """
    return n_states * n_symbols + n_states


@arguments(dfa=instance(DFA))
def table_tokens(dfa: DFA) -> np.ndarray:
    """The transition table as S*A key/value tokens.

    Returns
    -------
    T : ndarray of shape (S*A, d)
        Row ``s*A + a`` is ``[e_(s, a) | e_delta(s, a)]``.

    Examples
    --------
    >>> T = table_tokens(DFA([[0, 1], [1, 0]]))
    >>> T.shape, T[1].tolist()
    ((4, 6), [0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    """
    S, A = dfa.n_states, dfa.n_symbols
    T = np.zeros((S * A, S * A + S))
    T[:, : S * A] = np.eye(S * A)
    T[np.arange(S * A), S * A + dfa.delta.ravel()] = 1.0
    return T


@arguments(states="intarray", symbols="intarray", n_states="size", n_symbols="size")
def query_tokens(states, symbols, n_states: int, n_symbols: int) -> np.ndarray:
    """Query tokens ``[e_(s, a) | 0]`` for arrays of states and symbols of the same shape.

    Returns
    -------
    Q : ndarray of shape ``states.shape + (d,)``

    Examples
    --------
    >>> query_tokens([0, 1], [1, 1], 2, 2)
    array([[0., 1., 0., 0., 0., 0.],
           [0., 0., 0., 1., 0., 0.]])
    """
    S, A = n_states, n_symbols
    states = check_states("states", states, S)
    symbols = check_states("symbols", symbols, A)
    if states.shape != symbols.shape:
        raise ValueError(f"states and symbols must have the same shape; received {states.shape} and {symbols.shape}")
    Q = np.zeros(states.shape + (S * A + S,))
    np.put_along_axis(Q, (states * A + symbols)[..., None], 1.0, axis=-1)
    return Q


@arguments(n_states="size", n_symbols="size")
def lookup_heads(n_states: int, n_symbols: int) -> Heads:
    """The explicit one-head layer that performs one transition lookup.

    Returns
    -------
    Heads
        One head: ``Theta`` is the identity on the key block (the logit of the
        query on a token is 1 if their pairs agree, else 0) and ``W`` copies the
        value block to the value block.

    Notes
    -----
    At the last token of a context ending in the query of pair (s, a),
    ``F(X)_n = sum_b (x_n Theta x_b) x_b W = [0 | e_delta(s, a)]``: the one
    matching table token contributes its value; the query token and earlier
    queries also match their own keys but carry a zero value block. Chapter 6.

    Examples
    --------
    >>> dfa = DFA([[0, 1], [1, 0]])
    >>> X = np.vstack([table_tokens(dfa), query_tokens([1], [1], 2, 2)])
    >>> attention(X, lookup_heads(2, 2), kind="linear")[-1]
    array([0., 0., 0., 0., 1., 0.])
    """
    S, A = n_states, n_symbols
    d = S * A + S
    Theta = np.zeros((d, d))
    Theta[: S * A, : S * A] = np.eye(S * A)
    W = np.zeros((d, d))
    W[S * A :, S * A :] = np.eye(S)
    return Heads(Theta, W)


@arguments(Y="array", n_states="size", n_symbols="size")
def decode_states(Y, n_states: int, n_symbols: int) -> np.ndarray:
    """Round outputs to states: the argmax of the value block.

    Parameters
    ----------
    Y : array_like of shape (..., d)

    Returns
    -------
    ndarray of int, shape ``Y.shape[:-1]``

    Examples
    --------
    >>> decode_states([[0, 0, 0, 0, 0.1, 0.9], [0, 0, 0, 0, 0.7, 0.2]], 2, 2)
    array([1, 0])
    """
    S, A = n_states, n_symbols
    if Y.ndim == 0 or Y.shape[-1] != S * A + S:
        raise ValueError(f"Y must have last dimension d = S*A + S = {S * A + S}; received shape {Y.shape}")
    return np.argmax(Y[..., S * A :], axis=-1)


# --- the driver ----------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DFARun:
    """The result of :func:`execute`.

    Attributes
    ----------
    states : ndarray of int, shape (N, L+1)
        Decoded states; ``states[:, 0]`` is the start state.
    outputs : ndarray of shape (N, L, d)
        The layer's raw output at the last token of every step, before rounding.
    """

    states: np.ndarray
    outputs: np.ndarray

    def __post_init__(self):
        if self.states.ndim != 2 or self.outputs.ndim != 3 or self.outputs.shape[:2] != (
                self.states.shape[0], self.states.shape[1] - 1):
            raise ValueError(f"states must have shape (N, L+1) and outputs (N, L, d); received shapes "
                             f"{self.states.shape} and {self.outputs.shape}")

    def __repr__(self) -> str:
        N, L = self.outputs.shape[:2]
        return f"DFARun(N={N}, L={L})"


@arguments(dfas=structure("a DFA or a list of DFAs of one (S, A)"), words="intarray", heads="optheads")
def execute(dfas, words, heads: Heads | None = None) -> DFARun:
    """Run automata with a linear-attention layer: look up, round, feed back.

    Parameters
    ----------
    dfas : DFA or sequence of N DFAs
        All with the same S and A.
    words : array_like of int, shape (L,) or (N, L)
        One word per automaton (a single word is shared by all).
    heads : Heads, optional
        The layer, of dimension ``d = S*A + S``; by default :func:`lookup_heads`.

    Returns
    -------
    DFARun
        With ``states`` of shape (N, L+1) and ``outputs`` of shape (N, L, d).

    Notes
    -----
    The context starts as the S*A table tokens. At step t the query token of
    (s_t, a_t) is appended, the layer's output at the last token is
    ``y_t = sum_i x_t^T Theta_i (X^T X) W_i`` (linear attention, kept as the
    running Gram matrix ``X^T X`` so a step costs O(m d^2)), and
    ``s_(t+1) = argmax`` of the value block of ``y_t``. The decoded state,
    not the true one, is fed back, so errors compound.

    Examples
    --------
    >>> dfa = random_dfa(3, 2, rng=0)
    >>> word = random_words(1, 20, 2, rng=1)[0]
    >>> run = execute(dfa, word)
    >>> run.states.shape, bool((run.states[0] == dfa.run(word)).all())
    ((1, 21), True)
    """
    dfas = check_dfas(dfas)
    S, A = dfas[0].n_states, dfas[0].n_symbols
    words = check_words(words, A, two_d=True)
    if words.shape[0] == 1 and len(dfas) > 1:
        words = np.broadcast_to(words, (len(dfas), words.shape[1]))
    if words.shape[0] != len(dfas):
        raise ValueError(f"received {len(dfas)} DFAs but {words.shape[0]} words; give one word per DFA or one in all")
    heads = lookup_heads(S, A) if heads is None else heads
    d = S * A + S
    if heads.d != d:
        raise ValueError(f"heads have d={heads.d} but the encoding of S={S}, A={A} has d = S*A + S = {d}")
    N, L = words.shape
    T = np.stack([table_tokens(dfa) for dfa in dfas])  # (N, S*A, d)
    G = np.einsum("nbi,nbj->nij", T, T)  # (N, d, d), the Gram X^T X of the context
    states = np.empty((N, L + 1), dtype=np.int64)
    states[:, 0] = [dfa.start for dfa in dfas]
    outputs = np.empty((N, L, d))
    for t in range(L):
        q = query_tokens(states[:, t], words[:, t], S, A)  # (N, d)
        G += q[:, :, None] * q[:, None, :]
        qTheta = np.einsum("ni,hij->nhj", q, heads.Theta)  # (N, m, d)
        qThetaG = np.einsum("nhj,njk->nhk", qTheta, G)  # (N, m, d)
        outputs[:, t] = np.einsum("nhk,hkl->nl", qThetaG, heads.W)  # (N, d)
        states[:, t + 1] = np.argmax(outputs[:, t, S * A :], axis=-1)
    if not np.isfinite(outputs).all():
        raise ValueError("the layer's outputs overflow float64 (heads with entries too large for these tokens); "
                         "rescale heads")
    return DFARun(states, outputs)


@arguments(dfa=instance(DFA), word="intarray", states="optintarray")
def run_contexts(dfa: DFA, word, states=None) -> list[np.ndarray]:
    """The context seen at every step of a run: table tokens, then the queries so far.

    Parameters
    ----------
    dfa : DFA
    word : array_like of int, shape (L,)
    states : array_like of int, shape (L+1,), optional
        The states fed back; by default the true run ``dfa.run(word)``.

    Returns
    -------
    list of L arrays; entry t has shape (S*A + t + 1, d) and ends in the query of step t.

    Examples
    --------
    >>> [X.shape for X in run_contexts(DFA([[0, 1], [1, 0]]), [1, 0])]
    [(5, 6), (6, 6)]
    """
    word = check_words(word, dfa.n_symbols, name="word")
    states = dfa.run(word) if states is None else check_states("states", states, dfa.n_states)
    if states.shape != (word.size + 1,):
        raise ValueError(f"states must have shape ({word.size + 1},) for a word of length {word.size}; "
                         f"received {states.shape}")
    Q = query_tokens(states[:-1], word, dfa.n_states, dfa.n_symbols)  # (L, d)
    T = table_tokens(dfa)
    return [np.vstack([T, Q[: t + 1]]) for t in range(word.size)]
