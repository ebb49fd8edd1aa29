"""Facts special to softmax attention on the Boolean hypercube {-1, +1}^d.

Each function here computes one object that chapter 7 states a fact about, so
the chapter (and the tests) can check the fact numerically: all tokens of the
cube, the logit gaps and their features, the rank of those features, and the
fourth moment that shows the cube is not rotation invariant.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._arguments import arguments
from .._validation import sequences_shape
from ._common import check_matrix, gap_features

_MAX_ENUMERATED_D = 16


@arguments(d="size")
def all_tokens(d: int) -> np.ndarray:
    """Every point of the hypercube {-1, +1}^d, one per row.

    Parameters
    ----------
    d : int
        Token dimension, at most 16 (the list has 2^d rows).

    Returns
    -------
    ndarray of shape (2**d, d)

    Examples
    --------
    >>> from attnlib.sculpt import all_tokens
    >>> all_tokens(3).shape
    (8, 3)
    """
    if d > _MAX_ENUMERATED_D:
        raise ValueError(f"all_tokens enumerates 2^d points; d must be at most {_MAX_ENUMERATED_D}, received {d}")
    return np.array(list(itertools.product([-1.0, 1.0], repeat=d)))


@arguments(x_a="array", x_b="array", x_c="array")
def gap_feature(x_a, x_b, x_c) -> np.ndarray:
    """The feature ``Z = x_a (x_b - x_c)^T`` whose inner product with Theta is a logit gap.

    Parameters
    ----------
    x_a, x_b, x_c : array_like of shape (..., d)
        Query token, attended token and competing token (broadcast together).

    Returns
    -------
    Z : ndarray of shape (..., d, d)

    Notes
    -----
    For any head, ``log A[a, b] - log A[a, c] = x_a^T Theta (x_b - x_c) = <Theta, Z>_F``:
    the logit gap is *linear* in Theta (chapter 7). This holds for every input,
    not only on the hypercube.

    Examples
    --------
    >>> from attnlib.sculpt import gap_feature
    >>> gap_feature([1.0, -1.0], [1.0, 1.0], [-1.0, 1.0])
    array([[ 2.,  0.],
           [-2., -0.]])
    """
    try:
        x_a, x_b, x_c = np.broadcast_arrays(x_a, x_b, x_c)
    except ValueError:
        raise ValueError(f"x_a, x_b and x_c must broadcast to one shape (..., d); received shapes {x_a.shape}, "
                         f"{x_b.shape} and {x_c.shape}") from None
    if x_a.ndim == 0:
        raise ValueError("tokens must have at least one dimension (d,)")
    return gap_features(x_a, x_b, x_c)


@arguments(X="array", Theta="array")
def logit_gaps(X, Theta) -> np.ndarray:
    """All logit gaps ``G[N, a, b, c] = x_a^T Theta (x_b - x_c)`` of one head.

    Parameters
    ----------
    X : array_like of shape (n, d) or (N, n, d)
    Theta : array_like of shape (d, d)

    Returns
    -------
    G : ndarray of shape (n, n, n) or (N, n, n, n)
        ``G[..., a, b, c] = log A[a, b] - log A[a, c]`` for ``A = softmax(X Theta X^T)``.

    Examples
    --------
    >>> from attnlib.sculpt import logit_gaps
    >>> X = boolean_inputs(2, 3, 4, rng=0)
    >>> logit_gaps(X, np.eye(4)).shape
    (2, 3, 3, 3)
    """
    X3, single = sequences_shape(X)
    Theta = check_matrix("Theta", Theta, X3.shape[-1])
    S = np.einsum("Nap,pq,Nbq->Nab", X3, Theta, X3)  # logits (N, n, n)
    G = S[:, :, :, None] - S[:, :, None, :]  # (N, a, b, c)
    return G[0] if single else G


@arguments(d="size", samples="optsize", rng="rng")
def gap_feature_rank(d: int, *, samples: int | None = None, rng=None) -> int:
    """The dimension of the span of all gap features ``x (y - z)^T`` with x, y, z in {-1, +1}^d.

    Parameters
    ----------
    d : int
    samples : int, optional
        Use this many random triples instead of all 2^(3d) of them.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    int
        ``d**2`` exactly when logit gaps determine Theta (chapter 7).

    Examples
    --------
    >>> from attnlib.sculpt import gap_feature_rank
    >>> gap_feature_rank(3)
    9
    """
    if samples is None:
        if 3 * d > 18:
            raise ValueError(f"enumerating 2^(3d) triples is too many for d={d}; pass samples=...")
        T = all_tokens(d)
        idx = np.array(list(itertools.product(range(len(T)), repeat=3)))
        x, y, z = T[idx[:, 0]], T[idx[:, 1]], T[idx[:, 2]]
    else:
        x, y, z = (2.0 * rng.integers(0, 2, size=(samples, d)) - 1.0 for _ in range(3))
    Z = gap_feature(x, y, z).reshape(len(x), d * d)
    return int(np.linalg.matrix_rank(Z))


@arguments(u="array")
def fourth_moment(u) -> float:
    """``E[(u^T x)^4]`` for x uniform on the hypercube, by enumerating all 2^d points.

    Parameters
    ----------
    u : array_like of shape (d,)
        A direction, d <= 16.

    Returns
    -------
    float
        Equals ``3 ||u||^4 - 2 sum_j u_j^4``; for a standard Gaussian x it would
        be ``3 ||u||^4`` in every direction. The difference is why rotation
        arguments fail on the cube (chapter 7).

    Examples
    --------
    >>> from attnlib.sculpt import fourth_moment
    >>> fourth_moment([1.0, 0.0, 0.0, 0.0]), fourth_moment([0.5, 0.5, 0.5, 0.5])
    (1.0, 2.5)
    """
    if u.ndim != 1 or u.size == 0:
        raise ValueError(f"u must be a vector of shape (d,), d >= 1; received shape {u.shape}")
    T = all_tokens(u.shape[0])
    return float(np.mean((T @ u) ** 4))


@arguments(X="cube")
def constant_sequences(X) -> np.ndarray:
    """Which sequences have all their tokens equal.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries +-1

    Returns
    -------
    ndarray of bool, shape (N,)
        On such a sequence ``X = 1 x^T`` every head averages copies of x, so
        ``F(X) = 1 x^T sum_i W_i`` exactly, whatever the Theta_i (chapter 7).
        On the hypercube this happens with probability ``2^(-(n-1) d)``.

    Examples
    --------
    >>> from attnlib.sculpt import constant_sequences
    >>> X = np.array([[[1.0, -1.0], [1.0, -1.0]], [[1.0, 1.0], [1.0, -1.0]]])
    >>> constant_sequences(X)
    array([ True, False])
    """
    X3, _ = sequences_shape(X)
    return np.all(X3 == X3[:, :1], axis=(1, 2))
