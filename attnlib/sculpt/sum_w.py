"""Phase 1 of the book's reconstruction: estimates of ``S = sum_i W_i`` from the data alone.

Phase 3 refines these estimates on a slice of the body (:mod:`attnlib.sculpt.proxy`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, choice, structure
from .._linalg import lstsq
from .._validation import as_float_array
from ._common import (
    SculptError,
    atom_distances,
    check_data,
    check_finite,
    check_matrix,
    check_nonzero_labels,
    gather_tokens,
    score_of,
    spanning_prefix,
)
from .hypercube import constant_sequences

#: phase 1's estimates of sum_i W_i, by name
ESTIMATES = ("crude", "trimmed", "constant")


@dataclass(frozen=True, eq=False)
class SumWCandidates:
    """Phase 1's estimates of ``sum_i W_i``, each of shape (d, d).

    Attributes
    ----------
    crude : ndarray
        :func:`crude_sum_W`.
    trimmed : ndarray
        :func:`trimmed_sum_W` from the crude estimate, anchored on the constant sequences.
    constant : ndarray or None
        :func:`constant_sum_W`; None when the constant sequences do not span R^d.
    """

    crude: np.ndarray
    trimmed: np.ndarray
    constant: np.ndarray | None = None

    def __post_init__(self):
        shapes = [S.shape for S in (self.crude, self.trimmed, self.constant) if S is not None]
        if len(set(shapes)) != 1 or len(shapes[0]) != 2 or shapes[0][0] != shapes[0][1]:
            raise ValueError(f"crude, trimmed and constant must be (d, d) matrices of one shape; received shapes "
                             f"{shapes}")

    @arguments(name=choice(*ESTIMATES))
    def get(self, name: str) -> np.ndarray | None:
        """The estimate called ``name`` (one of :data:`ESTIMATES`)."""
        return getattr(self, name)

    def __repr__(self) -> str:
        have = [name for name in ESTIMATES if getattr(self, name) is not None]
        return f"SumWCandidates({', '.join(have)}; d={self.crude.shape[-1]})"


@dataclass(frozen=True)
class AtomScores:
    """The ranking score of each phase-1 estimate: :func:`atom_score` at q = 0.05 plus at q = 0.2 (lower is better).

    ``inf`` for an estimate that maps most tokens to zero; ``constant`` is None without that estimate.
    """

    crude: float
    trimmed: float
    constant: float | None = None

    @arguments(name=choice(*ESTIMATES))
    def get(self, name: str) -> float | None:
        """The score of the estimate called ``name`` (one of :data:`ESTIMATES`)."""
        return getattr(self, name)


@dataclass(frozen=True, eq=False)
class SumWEstimate:
    """Phase 1 (:func:`estimate_sum_W`): the chosen estimate of ``sum_i W_i`` and the ones it beat.

    Attributes
    ----------
    estimate : ndarray of shape (d, d)
        The candidate with the lowest score.
    chosen : {"crude", "trimmed", "constant"}
        Its name.
    candidates : SumWCandidates
    scores : AtomScores
    """

    estimate: np.ndarray
    chosen: str
    candidates: SumWCandidates
    scores: AtomScores

    def __post_init__(self):
        if self.candidates.get(self.chosen) is None:
            raise ValueError(f"chosen is {self.chosen!r}, but the candidates have no such estimate")

    def __repr__(self) -> str:
        return f"SumWEstimate(chosen={self.chosen!r}, score={self.scores.get(self.chosen):.3g})"


@arguments(X="cube", Y="array")
def crude_sum_W(X, Y) -> np.ndarray:
    """The correlation estimate ``mean_N X^T F(X)`` of ``sum_i W_i``.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)

    Returns
    -------
    ndarray of shape (d, d)

    Notes
    -----
    ``E[X^T F(X)] = sum_i E[X^T A_i(X) X] W_i``; at Theta_i = 0 every
    ``A_i = 1 1^T / n`` and ``E[X^T 1 1^T X] / n = I``, so the estimate is unbiased.
    When attention is sharp, A_i correlates with X and the bias is of the order
    of S itself (chapter 8).

    Examples
    --------
    >>> from attnlib.sculpt import crude_sum_W
    >>> heads = Heads(np.zeros((2, 3, 3)), random_heads(2, 3, rng=0).W)
    >>> X = boolean_inputs(20000, 4, 3, rng=1)
    >>> bool(np.abs(crude_sum_W(X, attention(X, heads)) - heads.W.sum(0)).max() < 0.05)
    True
    """
    X, Y = check_data(X, Y)
    return np.einsum("Nap,Naq->pq", X, Y) / X.shape[0]


@arguments(X="cube", Y="array")
def constant_sum_W(X, Y) -> np.ndarray:
    """The exact value of ``sum_i W_i`` read off the sequences whose tokens are all equal.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)

    Returns
    -------
    ndarray of shape (d, d)

    Raises
    ------
    SculptError
        (phase 1) if the constant sequences do not span R^d; they occur with
        probability ``2^(-(n-1) d)`` each, so this needs about
        ``d 2^((n-1) d)`` examples: fine for d = 4, n = 3, hopeless soon after.

    Examples
    --------
    >>> from attnlib.sculpt import constant_sum_W, planted_instance
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(4000, 3, 4, rng=1)
    >>> bool(np.allclose(constant_sum_W(X, attention(X, heads)), heads.W.sum(0)))
    True
    """
    X, Y = check_data(X, Y)
    N, n, d = X.shape
    same = constant_sequences(X)
    tokens, labels = X[same, 0], Y[same, 0]  # (k, d)
    rank = np.linalg.matrix_rank(tokens) if len(tokens) else 0
    if rank < d:
        raise SculptError(
            "phase 1",
            f"{int(same.sum())} of {N} sequences are constant and their tokens span {rank} < d = {d} "
            f"dimensions; expected about N 2^(-(n-1) d) = {N * 2.0 ** (-(n - 1) * d):.3g} of them",
        )
    return lstsq(tokens, labels).x


@arguments(X="cube", Y="array", sum_W="array")
def atom_residuals(X, Y, sum_W) -> tuple[np.ndarray, np.ndarray]:
    """For every row, the nearest atom ``x_b^T S`` and its distance.

    Returns
    -------
    b : ndarray of int, shape (N, n)
        The token whose atom is nearest to ``Y[N, a]``.
    r : ndarray of shape (N, n)
        ``min_b ||Y[N, a] - x_b^T S||``.
    """
    X, Y = check_data(X, Y)
    S = check_matrix("sum_W", sum_W, X.shape[-1])
    return atom_distances(X, Y, S)


@arguments(X="cube", Y="array", sum_W="array", q="fraction")
def atom_score(X, Y, sum_W, *, q: float = 0.05) -> float:
    """How close the nearest rows come to atoms ``x_b^T S``: a data-only score of an estimate S.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    sum_W : array_like of shape (d, d)
    q : float, default 0.05
        Which quantile of the distances to report.

    Returns
    -------
    float
        The q-quantile of ``min_b ||Y[N, a] - x_b^T S||`` over rows, divided by
        the median atom norm ``||x^T S||``. With sharp attention a fraction of the
        labels are (nearly) atoms of the true sum, so a good S scores near 0.
        Some wrong matrices, such as ``W_1 - W_2``, are exact atoms of a few rows
        (those whose heads attend to opposite tokens) and score near 0 at q = 0.05
        too, but not at q = 0.2; :func:`estimate_sum_W` therefore ranks by the sum
        of both (chapter 8).
    """
    X, Y = check_data(X, Y)
    S = check_matrix("sum_W", sum_W, X.shape[-1])
    score = score_of(X, Y, S, q)
    if not np.isfinite(score):
        raise ValueError("sum_W maps most tokens to zero (median atom norm 0), so the atom score is undefined")
    return score


@arguments(X="cube", Y="array", init="array", keep="fraction", iterations="size",
           anchors=structure("a pair (tokens, labels) of arrays of shape (k, d)"))
def trimmed_sum_W(X, Y, init, *, keep: float = 0.2, iterations: int = 30, anchors=None) -> np.ndarray:
    """Robust estimate of ``sum_i W_i`` from the rows that look like atoms (trimmed regression).

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    init : array_like of shape (d, d)
        Starting estimate, e.g. :func:`crude_sum_W`.
    keep : float in (0, 1], default 0.2
        Fraction of rows kept at each step: those nearest to an atom.
    iterations : int, default 30
    anchors : (ndarray of shape (k, d), ndarray of shape (k, d)), optional
        Pairs (x, x^T S) known exactly, e.g. from constant sequences; they are
        imposed on the start and kept in every fit with a large weight.

    Returns
    -------
    ndarray of shape (d, d)

    Notes
    -----
    Alternate: give each row its nearest atom ``x_b^T S``; keep the fraction
    ``keep`` of rows with the smallest distance; refit S by least squares of
    ``Y[N, a]`` on ``x_b``. Stops when S no longer changes. A local method: it
    needs a start in the basin of the true S (chapter 8 measures when it has one).

    Examples
    --------
    >>> from attnlib.sculpt import crude_sum_W, planted_instance, trimmed_sum_W
    >>> heads = planted_instance(2, 8, scale=6.0, rng=0)
    >>> X = boolean_inputs(4000, 4, 8, rng=1)
    >>> Y = attention(X, heads)
    >>> S = trimmed_sum_W(X, Y, crude_sum_W(X, Y))
    >>> bool(np.linalg.norm(S - heads.W.sum(0)) < 0.1 * np.linalg.norm(heads.W.sum(0)))
    True
    """
    X, Y = check_data(X, Y)
    S = check_matrix("init", init, X.shape[-1])
    d = X.shape[-1]
    T, L = _check_anchors(anchors, d)
    if len(T):
        S = S + lstsq(T, L - T @ S, min_norm=True).x  # nearest start that fits the anchors
    weight = 1e3
    N, n, _ = X.shape
    for _ in range(iterations):
        b, r = atom_distances(X, Y, S)
        tokens = gather_tokens(X, b).reshape(N * n, d)
        rows = spanning_prefix(tokens, np.argsort(r.ravel()), int(np.ceil(keep * N * n)), phase="phase 1")
        A = np.vstack([tokens[rows], weight * T])
        B = np.vstack([Y.reshape(N * n, d)[rows], weight * L])
        new = lstsq(A, B).x
        if np.allclose(new, S, rtol=1e-12, atol=1e-14):
            break
        S = new
    return check_finite("the trimmed estimate of sum_i W_i", S, "Y")


def _check_anchors(anchors, d: int) -> tuple[np.ndarray, np.ndarray]:
    if anchors is None:
        return np.zeros((0, d)), np.zeros((0, d))
    if not isinstance(anchors, (tuple, list)) or len(anchors) != 2:
        raise TypeError(f"anchors must be a pair (tokens, labels) of arrays of shape (k, {d}); "
                        f"received {type(anchors).__name__}")
    T, L = (_rows(name, a, d) for name, a in (("anchors[0]", anchors[0]), ("anchors[1]", anchors[1])))
    if T.shape != L.shape:
        raise ValueError(f"anchors must pair as many tokens as labels; received shapes {T.shape} and {L.shape}")
    return T, L


def _rows(name: str, A, d: int) -> np.ndarray:
    """A finite array of shape (k, d)."""
    A = as_float_array(name, A)
    if A.ndim != 2 or A.shape[1] != d:
        raise ValueError(f"{name} must have shape (k, {d}); received shape {A.shape}")
    return A


@arguments(X="cube", Y="array")
def estimate_sum_W(X, Y) -> SumWEstimate:
    """Phase 1: the best data-only estimate of ``sum_i W_i`` among the crude, trimmed and exact ones.

    The trimmed regression starts from the crude estimate and is anchored on
    the constant sequences, if there are any; the exact estimate
    (:func:`constant_sum_W`) is a candidate when they span R^d.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)

    Returns
    -------
    SumWEstimate
        ``estimate`` (the chosen one), ``chosen`` (its name), ``candidates``
        (every estimate) and ``scores``: the sum of :func:`atom_score` at
        q = 0.05 and q = 0.2 of each; the lowest is chosen, the exact one on a tie.

    Raises
    ------
    ValueError
        If Y is all zero: every estimate is then 0 and no score is defined.

    Examples
    --------
    >>> from attnlib.sculpt import estimate_sum_W, planted_instance
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(4000, 3, 4, rng=1)
    >>> phase1 = estimate_sum_W(X, attention(X, heads))
    >>> phase1.candidates
    SumWCandidates(crude, trimmed, constant; d=4)
    >>> bool(np.allclose(phase1.estimate, heads.W.sum(0)))
    True
    """
    X, Y = check_data(X, Y)
    check_nonzero_labels("Y", Y)
    crude = check_finite("the crude estimate of sum_i W_i", np.einsum("Nap,Naq->pq", X, Y) / X.shape[0], "Y")
    same = constant_sequences(X)
    anchors = (X[same, 0], Y[same, 0]) if same.any() else None
    try:
        constant = constant_sum_W(X, Y)
    except SculptError:
        constant = None
    candidates = SumWCandidates(crude, trimmed_sum_W(X, Y, crude, anchors=anchors), constant)
    scores = AtomScores(*(None if S is None else score_of(X, Y, S) + score_of(X, Y, S, q=0.2)
                          for S in (candidates.crude, candidates.trimmed, candidates.constant)))
    chosen = min((name for name in ESTIMATES if scores.get(name) is not None),
                 key=lambda name: (scores.get(name), name != "constant"))
    return SumWEstimate(candidates.get(chosen), chosen, candidates, scores)
