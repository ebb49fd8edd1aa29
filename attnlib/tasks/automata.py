"""Finite automata executed by linear attention, one table lookup per step.

A deterministic finite automaton (DFA) with states ``0 .. S-1``, symbols
``0 .. A-1`` and transition function ``delta`` is held *in the context*: one
token per pair (s, a), whose key is the one-hot code of the pair and whose
value is the one-hot code of ``delta(s, a)``. Tokens have dimension
``d = S*A + S``::

    token = [ key: e_(s, a) in R^(S*A) | value: e_delta(s, a) in R^S ]
    query = [ key: e_(s_t, a_t)         | value: 0                      ]

One linear-attention head with ``Theta`` the identity on the key block and
``W`` the identity on the value block returns, at the last token,
``[0 | e_delta(s_t, a_t)]``: the query matches exactly one table key. The
driver reads the next state off the value block by argmax, and appends the
query token of the pair (next state, next input symbol). Earlier query tokens
stay in the context (an autoregressive history, as in Def C.1 of Yau et al.);
their value blocks are zero, so they do not disturb the explicit head, but a
learned layer sees them.

This joint (state, symbol) encoding, one token per step, is the book's own
(chapter 6). The paper's universal-Turing-machine embedding (App F, Def F.2)
keeps one token per *state* and resolves the symbol by an If-Then program
over extra tokens; its DFA experiment (App G.4) trains a softmax Transformer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance, sequence_of, structure
from .._validation import wrap_fields
from ..heads import Heads
from ._checks import check_dfas, check_states, check_words
from .dfa import (
    DFA,
    DFARun,
    decode_states,
    execute,
    lookup_heads,
    query_tokens,
    random_dfa,
    random_words,
    run_contexts,
    table_tokens,
    token_dim,
)

__all__ = [
    "DFA",
    "DFAEvaluation",
    "DFARun",
    "TransitionData",
    "decode_states",
    "evaluate",
    "execute",
    "fresh_dfas",
    "learn_step",
    "lookup_heads",
    "query_tokens",
    "random_dfa",
    "random_words",
    "run_contexts",
    "step_contexts",
    "table_tokens",
    "token_dim",
    "transition_data",
]

# --- data for learning the step ------------------------------------------------


@dataclass(frozen=True, eq=False)
class TransitionData:
    """Examples of one DFA step, and the ground truth that produced them.

    Attributes
    ----------
    X : ndarray of shape (N, n, d)
        Contexts (table tokens, then the queries up to step t), padded at the
        front with zero tokens to the common length ``n = S*A + max_length``.
        Zero tokens change neither ``X^T X`` nor the last token, so the
        last-token output of any linear-attention layer is unchanged.
    Y : ndarray of shape (N, d)
        Targets ``[0 | e_delta(s_t, a_t)]``: the explicit layer's output.
    dfas : list of DFA
        The automata.
    words : ndarray of int, shape (n_dfas, max_length)
        One word per automaton.
    dfa_index, step : ndarray of int, shape (N,)
        Which automaton and which step each example comes from.
    """

    X: np.ndarray
    Y: np.ndarray
    dfas: list
    words: np.ndarray
    dfa_index: np.ndarray
    step: np.ndarray

    def __post_init__(self):
        dfas = check_dfas(self.dfas)
        N = len(self.X)
        if self.X.ndim != 3 or self.Y.shape != (N, self.X.shape[-1]) or self.dfa_index.shape != (N,) \
                or self.step.shape != (N,) or self.words.ndim != 2 or len(self.words) != len(dfas):
            raise ValueError(f"X must have shape (N, n, d), Y (N, d), dfa_index and step (N,), words (n_dfas, L); "
                             f"received shapes {self.X.shape}, {self.Y.shape}, {self.dfa_index.shape}, "
                             f"{self.step.shape} and {self.words.shape} for {len(dfas)} DFAs")

    def __repr__(self) -> str:
        N, n, d = self.X.shape
        return f"TransitionData(N={N}, n={n}, d={d}, dfas={len(self.dfas)})"


@arguments(n_dfas="size", n_states="size", n_symbols="size", length="size", rng="rng")
def transition_data(n_dfas: int, n_states: int, n_symbols: int, *, length: int, rng=None) -> TransitionData:
    """Examples of one step of fresh random DFAs on fresh random words.

    Parameters
    ----------
    n_dfas : int
        Number of random automata; each reads one random word.
    n_states, n_symbols : int
        S and A.
    length : int
        Word length L; every step of every word is one example, so
        ``N = n_dfas * L``.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    TransitionData

    Examples
    --------
    >>> data = transition_data(10, 3, 2, length=4, rng=0)
    >>> data
    TransitionData(N=40, n=10, d=9, dfas=10)
    """
    S, A, L = n_states, n_symbols, length
    dfa_rng, word_rng = rng.spawn(2)
    dfas = [random_dfa(S, A, rng=dfa_rng) for _ in range(n_dfas)]
    words = random_words(n_dfas, L, A, rng=word_rng)
    d, n = S * A + S, S * A + L
    X = np.zeros((n_dfas, L, n, d))
    Y = np.zeros((n_dfas, L, d))
    for i, (dfa, word) in enumerate(zip(dfas, words, strict=True)):
        states = dfa.run(word)
        Q = query_tokens(states[:-1], word, S, A)  # (L, d)
        T = table_tokens(dfa)
        for t in range(L):
            X[i, t, n - (S * A + t + 1) :] = np.vstack([T, Q[: t + 1]])
        Y[i, np.arange(L), S * A + states[1:]] = 1.0
    dfa_index = np.repeat(np.arange(n_dfas), L)
    step = np.tile(np.arange(L), n_dfas)
    return TransitionData(X.reshape(n_dfas * L, n, d), Y.reshape(n_dfas * L, d), dfas, words, dfa_index, step)


@arguments(data=instance(TransitionData, where="transition_data"))
def learn_step(data: TransitionData):
    """Learn the step by regression (:func:`attnlib.rkhs.fit_linear_attention` on last-token targets).

    Returns
    -------
    The fit result of :func:`attnlib.rkhs.fit_linear_attention`; its ``.heads``
    is a :class:`attnlib.Heads` that :func:`execute` runs.
    """
    from ..rkhs import fit_linear_attention

    return fit_linear_attention(data.X, data.Y)


@arguments(n="size", n_states="size", n_symbols="size", exclude=sequence_of(DFA), rng="rng")
def fresh_dfas(n: int, n_states: int, n_symbols: int, *, exclude=(), rng=None) -> list:
    """Draw n random DFAs none of whose transition tables occurs in ``exclude``.

    Parameters
    ----------
    n, n_states, n_symbols : int
    exclude : iterable of DFA
        For example the training automata, so that the test set is unseen.
    rng : int, numpy.random.Generator or None

    Examples
    --------
    >>> train = [random_dfa(2, 1, rng=s) for s in range(3)]
    >>> test = fresh_dfas(1, 2, 1, exclude=train, rng=0)
    >>> any((t.delta == test[0].delta).all() for t in train)
    False
    """
    S, A = n_states, n_symbols
    exclude = list(exclude)
    if not all(isinstance(dfa, DFA) for dfa in exclude):
        raise TypeError(f"exclude must hold DFAs; received {sorted({type(x).__name__ for x in exclude})}")
    # only tables of the same shape (S, A) can collide; the bytes alone would not say the shape
    seen = {dfa.delta.tobytes() for dfa in exclude if dfa.delta.shape == (S, A)}
    if len(seen) >= S ** (S * A):
        raise ValueError(f"exclude already holds all {S ** (S * A)} transition tables with S={S}, A={A}")
    out: list = []
    while len(out) < n:
        dfa = random_dfa(S, A, rng=rng)
        if dfa.delta.tobytes() not in seen:
            out.append(dfa)
    return out


@arguments(dfas=structure("a DFA or a list of DFAs of one (S, A)"), words="intarray", states="optintarray")
def step_contexts(dfas, words, states=None) -> np.ndarray:
    """The contexts of every step of every run, zero-padded at the front to one length.

    Parameters
    ----------
    dfas : DFA or sequence of N DFAs
    words : array_like of int, shape (N, L)
    states : array_like of int, shape (N, L+1), optional
        The states fed back; by default the true runs.

    Returns
    -------
    X : ndarray of shape (N, L, S*A + L, d)
        ``X[i, t]`` is the context of step t of run i, as in :func:`run_contexts`.

    Examples
    --------
    >>> step_contexts([random_dfa(3, 2, rng=0)], [[0, 1, 1]]).shape
    (1, 3, 9, 9)
    """
    dfas = check_dfas(dfas)
    S, A = dfas[0].n_states, dfas[0].n_symbols
    words = check_words(words, A, two_d=True)
    if words.shape[0] != len(dfas):
        raise ValueError(f"words must hold one word per DFA: received {len(dfas)} DFAs but {words.shape[0]} words")
    N, L = words.shape
    if states is None:
        states = np.array([dfa.run(word) for dfa, word in zip(dfas, words, strict=True)])
    states = check_states("states", states, S)
    if states.shape != (N, L + 1):
        raise ValueError(f"states must have shape ({N}, {L + 1}); received {states.shape}")
    T = np.stack([table_tokens(dfa) for dfa in dfas])  # (N, S*A, d)
    Q = query_tokens(states[:, :-1], words, S, A)  # (N, L, d)
    n = S * A + L
    X = np.zeros((N, L, n, S * A + S))
    for t in range(L):
        X[:, t, n - (S * A + t + 1) : n - (t + 1)] = T
        X[:, t, n - (t + 1) :] = Q[:, : t + 1]
    return X


@dataclass(frozen=True, eq=False)
class DFAEvaluation:
    """How a layer runs a set of automata, and where a certificate covers the inputs.

    Attributes
    ----------
    step_correct : ndarray of bool, shape (N, L)
        Whether the decoded state after step t equals the true one (free run:
        the layer's own decoded states are fed back).
    covered : ndarray of bool, shape (N, L), or None
        Whether the span form of the certificate covers the context of step t
        of the true run (None without a certificate).
    residual : ndarray of shape (N, L), or None
        The span residuals themselves.
    """

    step_correct: np.ndarray
    covered: np.ndarray | None
    residual: np.ndarray | None

    def __post_init__(self):
        shapes = [a.shape for a in (self.step_correct, self.covered, self.residual) if a is not None]
        if self.step_correct.ndim != 2 or len(set(shapes)) != 1:
            raise ValueError(f"step_correct, covered and residual must have one shape (N, L); received {shapes}")

    @property
    def correct(self) -> np.ndarray:
        """Whether each whole run is correct, shape (N,)."""
        return self.step_correct.all(axis=1)

    @property
    def accuracy(self) -> float:
        """Share of runs that are correct at every step."""
        return float(self.correct.mean())

    @property
    def word_covered(self) -> np.ndarray:
        """Whether every step of each run is covered, shape (N,)."""
        if self.covered is None:
            raise ValueError("this evaluation was made without a certificate")
        return self.covered.all(axis=1)

    @property
    def coverage(self) -> float:
        """Share of runs covered at every step."""
        return float(self.word_covered.mean())

    @arguments(covered="flag")
    def accuracy_where(self, covered: bool) -> float:
        """Share of correct runs among the covered (or the uncovered) ones; NaN if there are none."""
        mask = self.word_covered if covered else ~self.word_covered
        return float(self.correct[mask].mean()) if mask.any() else math.nan

    def __repr__(self) -> str:
        N, L = self.step_correct.shape
        fields = [f"N={N}", f"L={L}", f"accuracy={self.accuracy:.3f}"]
        if self.covered is not None:
            fields += [f"coverage={self.coverage:.3f}", f"covered accuracy={self.accuracy_where(True):.3f}",
                       f"uncovered accuracy={self.accuracy_where(False):.3f}"]
        return wrap_fields("DFAEvaluation", fields)


@arguments(heads="heads", dfas=structure("a DFA or a list of DFAs of one (S, A)"), words="intarray",
           certificate=structure("an attnlib.rkhs.Certificate"), tol="tol")
def evaluate(heads: Heads, dfas, words, *, certificate=None, tol: float = 1e-6) -> DFAEvaluation:
    """Run ``heads`` on automata and words; with a certificate, say which runs it covers.

    Parameters
    ----------
    heads : Heads
        A layer of dimension ``S*A + S``, for example ``learn_step(data).heads``.
    dfas : sequence of N DFAs
    words : array_like of int, shape (N, L)
    certificate : attnlib.rkhs.Certificate, optional
        The certificate of the training inputs (``attnlib.rkhs.certificate(data.X)``).
        Its span form is evaluated on the context of every step of the true runs.
    tol : float, default 1e-6
        A context is covered if its relative span residual is at most ``tol``.

    Returns
    -------
    DFAEvaluation

    Notes
    -----
    If the training data are realisable and the fit interpolates them, every
    least-squares fit agrees with the true layer on covered contexts. A run
    whose every step is covered is therefore decoded correctly at step 0,
    so the next context is the true one, and so on: the whole run is correct.
    Chapter 6.

    Examples
    --------
    >>> dfas = [random_dfa(3, 2, rng=s) for s in range(4)]
    >>> evaluate(lookup_heads(3, 2), dfas, random_words(4, 50, 2, rng=0)).accuracy
    1.0
    """
    if certificate is not None and not callable(getattr(certificate, "span_residual", None)):
        raise TypeError(f"certificate must be an attnlib.rkhs.Certificate (attnlib.rkhs.certificate(data.X)); "
                        f"received {type(certificate).__name__}")
    dfas = check_dfas(dfas)
    run = execute(dfas, words, heads)
    words = check_words(words, dfas[0].n_symbols, two_d=True)
    truth = np.array([dfa.run(word) for dfa, word in zip(dfas, words, strict=True)])
    step_correct = run.states[:, 1:] == truth[:, 1:]
    covered = residual = None
    if certificate is not None:
        N, L = words.shape
        residual = np.empty((N, L))
        chunk = max(1, 200_000 // (L * (L + 12)))  # bound the memory of the padded contexts
        for lo in range(0, N, chunk):
            X = step_contexts(dfas[lo : lo + chunk], words[lo : lo + chunk], truth[lo : lo + chunk])
            residual[lo : lo + chunk] = certificate.span_residual(X.reshape(-1, *X.shape[2:])).reshape(-1, L)
        covered = residual <= tol
    return DFAEvaluation(step_correct, covered, residual)
