"""Least squares for the whole library: one conditioning policy, in one place.

Every least-squares problem ``min ||A X - B||`` of the learners (Algorithm 1 in
:mod:`attnlib.rkhs`, the low-degree regression in :mod:`attnlib.lower_bounds`,
the phases of :mod:`attnlib.sculpt`) is solved the same way:

1. if A has at least as many rows as columns, form the normal equations
   ``(A^T A) X = A^T B``: equilibrate the Gram matrix to a unit diagonal, factorise
   it by Cholesky, and estimate its condition number (LAPACK ``dpocon``);
2. solve them only if the estimate is below ``MAX_CONDITION`` = 1e8, so that at
   least 8 of the 16 digits survive the squaring of the condition number
   (:func:`lstsq` solves the small systems by LU, the same on every CPU; the
   streamed Algorithm 1 keeps the Cholesky factor);
3. otherwise (ill-conditioned, rank deficient, or fewer rows than columns) solve by
   an SVD (``np.linalg.lstsq``), which gives the minimum-norm solution.

The Gram matrix is small (columns x columns), so step 1 avoids a threaded
factorisation of the tall matrix, which is slow on a busy machine. scipy is
imported on first use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: the normal equations are trusted below this condition number of the (equilibrated) Gram matrix
MAX_CONDITION = 1e8


def solve_normal(G: np.ndarray, b: np.ndarray, *, overwrite: bool = False) -> tuple[np.ndarray, float] | None:
    """Solve ``G x = b`` for a symmetric positive definite Gram matrix G, or None if it cannot be trusted.

    Parameters
    ----------
    G : ndarray of shape (p, p)
        ``A^T A``. Overwritten if ``overwrite``.
    b : ndarray of shape (p,) or (p, k)
        ``A^T B``.

    Returns
    -------
    (x, condition) or None
        None when a column of A is zero, the Cholesky factorisation fails, or the
        condition estimate of the equilibrated G exceeds ``MAX_CONDITION``.
    """
    from scipy.linalg import lapack

    s = np.sqrt(np.diag(G))
    if not np.all(s > 0):
        return None  # a column that is identically zero
    inv = 1.0 / s
    Gs = G if overwrite else G.copy()
    Gs *= inv[:, None]
    Gs *= inv[None, :]
    anorm = float(lapack.dlange("1", Gs.T))  # Gs.T is Fortran-ordered: no copy
    # Gs is symmetric, so its transpose is the same matrix in Fortran order: factorised in place
    c, info = lapack.dpotrf(Gs.T, lower=0, clean=1, overwrite_a=1)
    if info != 0:
        return None
    rcond, info = lapack.dpocon(c, anorm, uplo="U")
    if info != 0 or rcond * MAX_CONDITION < 1.0:
        return None
    bs = b * (inv[:, None] if b.ndim == 2 else inv)
    x, info = lapack.dpotrs(c, bs, lower=0)
    if info != 0:
        return None
    return x * (inv[:, None] if b.ndim == 2 else inv), 1.0 / rcond


@dataclass(frozen=True)
class LeastSquares:
    """What :func:`lstsq` returns: the solution, the rank of A, the condition number of ``A^T A``."""

    x: np.ndarray
    rank: int
    condition: float
    solver: str  # "cholesky" or "svd"


def lstsq(A: np.ndarray, B: np.ndarray, *, gram: np.ndarray | None = None,
          rhs: np.ndarray | None = None, min_norm: bool = False) -> LeastSquares:
    """``argmin_X ||A X - B||`` by the library's policy (see the module docstring).

    Parameters
    ----------
    A : ndarray of shape (N, p)
    B : ndarray of shape (N,) or (N, k)
    gram, rhs : ndarray, optional
        ``A^T A`` and ``A^T B`` if the caller has them already.
    min_norm : bool, default False
        Always solve by the SVD: the minimum-norm solution whatever the rank of A
        (for a correction that must not move what the data do not determine).

    Examples
    --------
    >>> from attnlib._linalg import lstsq
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> sol = lstsq(A, A @ np.array([2.0, -1.0]))
    >>> sol.x.round(12), sol.rank, sol.solver
    (array([ 2., -1.]), 2, 'cholesky')
    >>> lstsq(np.ones((3, 2)), np.ones(3)).solver   # rank deficient: the minimum-norm solution
    'svd'
    """
    N, p = A.shape
    if N == 0:
        return LeastSquares(np.zeros((p,) + B.shape[1:]), 0, np.inf, "svd")
    if N >= p and not min_norm:
        G = A.T @ A if gram is None else gram
        b = A.T @ B if rhs is None else rhs
        solved = solve_normal(G, b)
        if solved is not None:
            # Solved again by LU: OpenBLAS's Cholesky kernels differ by a few ulps between CPU types,
            # which the iterative trimming of the sculpt phases amplifies; LU on a well-conditioned
            # system gives the same digits on every CPU.
            return LeastSquares(np.linalg.solve(G, b), p, solved[1], "cholesky")
    x, _, rank, sv = np.linalg.lstsq(A, B, rcond=None)
    condition = float((sv[0] / sv[-1]) ** 2) if len(sv) and sv[-1] > 0 else np.inf  # of A^T A, as above
    return LeastSquares(x, int(rank), condition, "svd")
