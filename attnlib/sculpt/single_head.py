"""An exact learner for one softmax head from noiseless examples (the book's reconstruction).

With one head, ``F(X) = A(X) X W``. If W is invertible and the n tokens of X
are linearly independent (n <= d), the attention matrix can be read off the
labels, ``A = F W^{-1} X^T (X X^T)^{-1}``, and the rows of A summing to one
give equations that are *linear* in ``V = W^{-1}``. Then the logit gaps
``log A[a, b] - log A[a, c] = x_a^T Theta (x_b - x_c)`` are linear in Theta.
Two least-squares problems recover the head exactly. Chapter 7 derives it.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._arguments import arguments
from .._linalg import lstsq
from ..heads import Heads
from ._common import SculptError, check_data, gap_features

_ILL_CONDITIONED = 1e8


@arguments(X="array", Y="array")
def learn_single_head(X, Y) -> Heads:
    """Recover one softmax head (Theta, W) exactly from examples (X, F(X)).

    Parameters
    ----------
    X : array_like of shape (N, n, d)
        Input sequences with n <= d (any real entries; ±1 in the book).
    Y : array_like of shape (N, n, d)
        The layer's output at every position, ``Y = attention(X, head)``.

    Returns
    -------
    Heads
        One head, ``m = 1``.

    Raises
    ------
    ValueError
        If n > d (the tokens of a sequence cannot be independent), or shapes are wrong.
    SculptError
        If a condition of the method fails on these data: too few sequences with
        independent tokens, a singular W (the equations for W^{-1} lose rank),
        weights that are not positive (the labels did not come from one softmax
        head), or logit-gap equations of rank below d^2.

    Notes
    -----
    Conditions, each checked: n <= d; enough sequences whose n tokens are
    linearly independent (about d^2 / n of them); W invertible; the labels come
    from a single softmax head (every recovered weight is positive). With
    ``q(X) = X^T (X X^T)^{-1} 1``, every row a gives the linear equation
    ``F(X)_a V q(X) = 1`` in ``V = W^{-1}`` (rows of A sum to one). Then
    ``A = F V X^T (X X^T)^{-1}`` and Theta solves the logit-gap regression.
    A warning is issued when either system is ill-conditioned (condition number
    above 1e8). This is the book's reconstruction, not an algorithm from the
    paper; see chapter 7.

    Examples
    --------
    >>> from attnlib.sculpt import learn_single_head
    >>> head = random_heads(1, 5, scale=2.0, rng=0)
    >>> X = boolean_inputs(60, 3, 5, rng=1)
    >>> learned = learn_single_head(X, attention(X, head))
    >>> bool(np.allclose(learned.Theta, head.Theta) and np.allclose(learned.W, head.W))
    True
    """
    X, Y = check_data(X, Y)
    N, n, d = X.shape
    if n > d:
        raise ValueError(
            f"learn_single_head needs n <= d so that the tokens of a sequence can be independent; "
            f"received n={n}, d={d}"
        )
    phase = "single head"
    G = X @ X.swapaxes(1, 2)  # Gram matrices (N, n, n)
    usable = np.linalg.matrix_rank(X) == n
    k = int(usable.sum())
    if k == 0:
        raise SculptError(phase, f"none of the {N} sequences has {n} linearly independent tokens")
    Xu, Yu, Gu = X[usable], Y[usable], G[usable]
    q = np.linalg.solve(Gu, np.ones((k, n, 1)))[..., 0]  # (XX^T)^{-1} 1, (k, n)
    qv = np.einsum("kbp,kb->kp", Xu, q)  # q(X) = X^T (XX^T)^{-1} 1, (k, d)

    # rows of A sum to one: sum_{p,r} F[a, p] V[p, r] q[r] = 1
    M = np.einsum("kap,kr->kapr", Yu, qv).reshape(k * n, d * d)
    V, rank = _lstsq(M, np.ones(k * n))
    if rank < d * d:
        raise SculptError(
            phase,
            f"the equations for W^-1 have rank {rank} < d^2 = {d * d} ({k} of {N} sequences usable): "
            f"W is singular or there are too few examples",
        )
    V = V.reshape(d, d)
    if np.linalg.cond(V) > _ILL_CONDITIONED:
        warnings.warn(f"W^-1 is ill-conditioned (condition number {np.linalg.cond(V):.1e})", stacklevel=2)
    W = np.linalg.solve(V, np.eye(d))

    # A = F V X^T (X X^T)^{-1}; G is symmetric, so A^T = G^{-1} (X V^T F^T)
    B = Yu @ V @ Xu.swapaxes(1, 2)  # (k, n, n)
    A = np.linalg.solve(Gu, B.swapaxes(1, 2)).swapaxes(1, 2)  # (k, n, n)
    scale = np.abs(A).max()
    if A.min() < -1e-8 * scale:
        raise SculptError(
            phase,
            f"a recovered attention weight is negative ({A.min():.2e}): the labels were not produced by a "
            f"single softmax head",
        )

    # logit gaps against the largest weight of each row, where both weights are resolvable
    ref = A.argmax(axis=-1)  # (k, n)
    A_ref = np.take_along_axis(A, ref[..., None], axis=-1)  # (k, n, 1)
    keep = (A > 1e-12 * A_ref) & (np.arange(n)[None, None, :] != ref[..., None])  # (k, a, b)
    e, a, b = np.nonzero(keep)
    c = ref[e, a]
    Z = gap_features(Xu[e, a], Xu[e, b], Xu[e, c]).reshape(len(e), d * d)
    gaps = np.log(A[e, a, b]) - np.log(A[e, a, c])
    theta, rank = _lstsq(Z, gaps)
    if rank < d * d:
        raise SculptError(phase, f"the logit-gap equations have rank {rank} < d^2 = {d * d}; add examples")
    return Heads(theta.reshape(1, d, d), W[None])


def _lstsq(M: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, int]:
    """The library's least squares, warning when a full-rank M is ill-conditioned."""
    sol = lstsq(M, rhs)
    if sol.rank == M.shape[1] and sol.condition > _ILL_CONDITIONED**2:  # cond(M)^2 = cond(M^T M)
        warnings.warn(f"least squares is ill-conditioned (condition number {np.sqrt(sol.condition):.1e})",
                      stacklevel=3)
    return sol.x, sol.rank
