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

The factor of step 1 is kept (:class:`Cholesky`), because it serves twice: the
certificate of :mod:`attnlib.rkhs` needs the smallest eigenvalue of the same
Gram matrix, and :func:`smallest_eigenvalue` brackets it with the factor, a
Lanczos iteration and one more factorisation, without a dense ``eigh``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: the normal equations are trusted below this condition number of the (equilibrated) Gram matrix
MAX_CONDITION = 1e8

_EPS = np.finfo(float).eps  # 2**-52, twice the unit roundoff: every bound below uses it, so they are generous


def _gamma(k: int) -> float:
    """``k u / (1 - k u)`` with u = eps (Higham's gamma_k, with twice the unit roundoff)."""
    return k * _EPS / (1.0 - k * _EPS)


@dataclass(frozen=True, eq=False)
class Cholesky:
    """An equilibrated Cholesky factorisation ``G = D R^T R D`` of a symmetric positive definite G.

    Attributes
    ----------
    factor : ndarray of shape (p, p)
        R, upper triangular (zeros below the diagonal), Fortran-ordered, of
        the equilibrated matrix ``D^-1 G D^-1``, which has a unit diagonal.
    inv_scale : ndarray of shape (p,)
        ``D^-1 = 1 / sqrt(diag(G))``.
    condition : float
        LAPACK's estimate (``dpocon``, 1-norm) of the condition number of the
        equilibrated matrix.
    """

    factor: np.ndarray = field(repr=False)
    inv_scale: np.ndarray = field(repr=False)
    condition: float

    @property
    def trusted(self) -> bool:
        """Whether the library's policy solves with this factor: ``condition <= MAX_CONDITION``."""
        return self.condition * (1.0 / MAX_CONDITION) <= 1.0

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``G^-1 b`` for b of shape (p,) or (p, k), by two triangular solves."""
        from scipy.linalg import lapack

        inv = self.inv_scale if b.ndim == 1 else self.inv_scale[:, None]
        x, info = lapack.dpotrs(self.factor, b * inv, lower=0)
        if info != 0:  # only for malformed arguments, which this module never passes
            raise RuntimeError(f"LAPACK dpotrs failed with info={info}")
        return x * inv

    def __repr__(self) -> str:
        return f"Cholesky(p={self.factor.shape[0]}, condition={self.condition:.3g})"


def cholesky(G: np.ndarray, *, overwrite: bool = False) -> Cholesky | None:
    """Equilibrate a symmetric matrix to a unit diagonal and factorise it, or None if it is not positive definite.

    Parameters
    ----------
    G : ndarray of shape (p, p)
        Symmetric, e.g. ``A^T A``; only its upper triangle is read. Overwritten
        (by the factor) if ``overwrite``.

    Returns
    -------
    Cholesky or None
        None when a diagonal entry is not positive (a zero column of A) or the
        factorisation breaks down (G is not numerically positive definite).

    Examples
    --------
    >>> from attnlib._linalg import cholesky
    >>> G = np.array([[4.0, 2.0], [2.0, 3.0]])
    >>> f = cholesky(G)
    >>> f.solve(G @ np.array([1.0, -2.0])).round(12), f.trusted
    (array([ 1., -2.]), True)
    >>> cholesky(np.array([[1.0, 2.0], [2.0, 1.0]])) is None   # indefinite
    True
    """
    from scipy.linalg import lapack

    d = np.diag(G)
    if not np.all(d > 0):
        return None  # a column that is identically zero, or not a Gram matrix
    inv = 1.0 / np.sqrt(d)
    Gs = G if overwrite else G.copy()
    Gs *= inv[:, None]
    Gs *= inv[None, :]
    anorm = float(lapack.dlange("1", Gs.T))  # Gs.T is Fortran-ordered: no copy
    # Gs is symmetric, so its transpose is the same matrix in Fortran order: factorised in place
    c, info = lapack.dpotrf(Gs.T, lower=0, clean=1, overwrite_a=1)
    if info != 0:
        return None
    rcond, info = lapack.dpocon(c, anorm, uplo="U")
    condition = 1.0 / rcond if info == 0 and rcond > 0 else np.inf
    return Cholesky(c, inv, condition)


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
    factor = cholesky(G, overwrite=overwrite)
    if factor is None or not factor.trusted:
        return None
    return factor.solve(b), factor.condition


# --- the smallest eigenvalue, bracketed ----------------------------------------------


@dataclass(frozen=True, eq=False)
class EigenBracket:
    """What :func:`smallest_eigenvalue` returns: ``lower <= lambda_min(G) <= upper``.

    Attributes
    ----------
    value : float
        The Rayleigh quotient ``v^T G v`` of the unit vector ``vector``: an upper
        bound on lambda_min, and its estimate.
    lower, upper : float
        The bracket. ``lower`` holds because the Cholesky factorisation of
        ``G - tau I`` succeeded: then ``lambda_min(G) >= tau - gamma_{p+1} ||R||_F^2
        - eps max_i |G_ii - tau|`` (Demmel's backward error of Cholesky, Higham
        Thm. 10.3, R the computed factor, plus the rounding of the shift).
        ``upper`` is ``value`` plus the rounding bound of the quotient,
        ``gamma_{2p+2} (sum_i sqrt(G_ii) |v_i|)^2``. Both are bounds for the
        floating-point matrix G as given (not for whatever G approximates).
    vector : ndarray of shape (p,)
        The unit vector of ``value``: an approximate eigenvector of lambda_min.
    steps : int
        Solves with a Cholesky factor that the bracket took (Lanczos steps,
        then inverse iteration).
    """

    value: float
    lower: float
    upper: float
    vector: np.ndarray = field(repr=False)
    steps: int

    def __repr__(self) -> str:
        return (f"EigenBracket(value={self.value:.6g}, lower={self.lower:.6g}, upper={self.upper:.6g}, "
                f"steps={self.steps})")


def _lanczos_top(apply, p: int, *, rtol: float, max_steps: int, start: np.ndarray):
    """Largest Ritz pair of a symmetric operator by Lanczos with full reorthogonalisation.

    Stops when the residual bound ``|beta_k s_k|`` falls below ``rtol`` times the
    Ritz value, or after ``max_steps`` steps (or when the Krylov space is
    invariant). Returns (Ritz value, unit Ritz vector, steps). The products
    with the basis go through scipy's BLAS, like the operators of this module,
    so that a multithreaded run does not alternate between two thread pools.
    """
    from scipy.linalg import blas, eigh_tridiagonal

    k_max = min(max_steps, p)
    Q = np.empty((p, k_max), order="F")  # the Lanczos basis; Q[:, :k] is a Fortran block, passed without a copy
    q = start / np.linalg.norm(start)
    alpha, beta = [], []
    for k in range(k_max):
        Q[:, k] = q
        w = apply(q)
        alpha.append(float(q @ w))
        # full reorthogonalisation, twice (Kahan's "twice is enough"): the basis stays orthonormal
        B = Q[:, : k + 1]
        for _ in range(2):
            w = blas.dgemv(-1.0, B, blas.dgemv(1.0, B, w, trans=1), beta=1.0, y=w, overwrite_y=1)
        b = float(np.linalg.norm(w))
        if k == 0:
            mu, s = np.array([alpha[0]]), np.ones((1, 1))
        else:
            mu, s = eigh_tridiagonal(np.array(alpha), np.array(beta))
        if abs(b * s[-1, -1]) <= rtol * abs(mu[-1]) or b <= _EPS * abs(mu[-1]) or k == k_max - 1:
            return float(mu[-1]), blas.dgemv(1.0, B, s[:, -1]), k + 1
        beta.append(b)
        q = w / b
    raise AssertionError("unreachable")  # the loop returns at k == k_max - 1


def _symv(G: np.ndarray):
    """``v -> G v`` for a symmetric G, by scipy's BLAS (G.T is G, in Fortran order when G is C-ordered)."""
    from scipy.linalg import blas

    GF = G.T if G.flags.c_contiguous else np.asfortranarray(G)
    return lambda v: blas.dsymv(1.0, GF, v)


def smallest_eigenvalue(G: np.ndarray, *, factor: Cholesky | None = None, rtol: float = 1e-3,
                        max_steps: int = 200, start: np.ndarray | None = None) -> EigenBracket | None:
    """A certified bracket on the smallest eigenvalue of a symmetric positive definite matrix, without ``eigh``.

    Parameters
    ----------
    G : ndarray of shape (p, p)
        Symmetric. Not modified.
    factor : Cholesky, optional
        ``cholesky(G)`` if the caller has it (a least-squares fit does).
    rtol : float, default 1e-3
        Target relative width of the bracket: Lanczos stops once its residual
        bound says the shift ``tau`` can be taken this close below the estimate.
    max_steps : int, default 200
        At most this many Lanczos steps.
    start : ndarray of shape (p,), optional
        Starting vector (default: a fixed pseudo-random one, so results repeat).

    Returns
    -------
    EigenBracket or None
        None when G is not numerically positive definite, or when the check
        below fails; then the caller uses a dense eigensolver.

    Notes
    -----
    Three steps. (1) Lanczos on ``G^-1``, applied with the Cholesky factor (two
    triangular solves a step), gives its largest Ritz value mu and a residual r:
    some eigenvalue of G lies at or above ``tau = 1 / (mu + r)``, and if Lanczos
    found the smallest one, lambda_min >= tau. (2) That is checked: the Cholesky
    factorisation of ``G - tau I`` succeeds only if ``G - tau I`` is (up to the
    rounding bound in :class:`EigenBracket`) positive definite, which proves
    lambda_min >= tau. If it fails (Lanczos found another eigenvalue of a
    cluster at the bottom of the spectrum), tau is moved ten times further
    below the estimate, twice at most, and then None is returned. (3) Inverse
    iteration with the shifted factor refines the vector; its Rayleigh quotient
    is the upper end. It converges fast when tau is closer to lambda_min than
    the next eigenvalue is; within a cluster, ``value`` lies in the cluster.
    Cost: about ``p^3 / 3`` flops for each shifted factor, and ``2 p^2`` per step.

    Examples
    --------
    >>> from attnlib._linalg import smallest_eigenvalue
    >>> A = np.random.default_rng(0).standard_normal((400, 30))
    >>> b = smallest_eigenvalue(A.T @ A)
    >>> exact = np.linalg.eigvalsh(A.T @ A)[0]
    >>> bool(b.lower <= exact <= b.upper), bool(abs(b.value - exact) < 1e-9 * exact)
    (True, True)
    """
    from scipy.linalg import lapack

    p = G.shape[0]
    factor = cholesky(G) if factor is None else factor
    if factor is None:
        return None
    v0 = np.random.default_rng(0).standard_normal(p) if start is None else np.asarray(start, dtype=float)
    # (1) the largest eigenvalue of G^-1
    mu, y, steps = _lanczos_top(factor.solve, p, rtol=rtol / 2, max_steps=max_steps, start=v0)
    r = float(np.linalg.norm(factor.solve(y) - mu * y))
    steps += 1
    if not mu > 0:
        return None
    theta = 1.0 / mu  # >= lambda_min
    tau = 1.0 / (mu + r)
    # (2) the check: G - tau I is positive definite. If Lanczos converged to another eigenvalue of a cluster
    # at the bottom, it fails: then twice more, each time ten times further below the estimate
    shifted = np.empty((p, p), order="F")  # G - tau I; G is symmetric, so G.T is G, and copies in this order
    gap = max(theta - tau, rtol * theta)
    for attempt in range(3):
        if not tau > 0:
            return None
        shifted[:] = G.T
        shifted.flat[:: p + 1] -= tau
        diag_shifted = float(np.abs(np.diag(shifted)).max())
        R, info = lapack.dpotrf(shifted, lower=0, clean=1, overwrite_a=1)
        if info == 0:
            break
        if attempt == 2:
            return None
        gap *= 10
        tau = theta - gap
    lower = tau - _gamma(p + 1) * float(np.linalg.norm(R)) ** 2 * (1 + 1e-6) - _EPS * diag_shifted
    # (3) inverse iteration with the shifted factor, from the Lanczos vector: z^T (G - tau I)^-1 z = 1 / (lam - tau)
    # at an eigenvector, so tau + 1 / nu estimates lambda_min along the way; the Rayleigh quotient in G at the end
    # is the bound
    z = y / np.linalg.norm(y)
    estimate = np.inf
    for _ in range(50):
        u, _ = lapack.dpotrs(R, z, lower=0)
        steps += 1
        nu = float(z @ u)
        z = u / np.linalg.norm(u)
        new = tau + 1.0 / nu if nu > 0 else np.inf
        done = abs(new - estimate) <= 1e-13 * abs(new)
        estimate = new
        if done:
            break
    value = float(z @ _symv(G)(z))
    s = np.sqrt(np.diag(G))
    upper = value + _gamma(2 * p + 2) * float(s @ np.abs(z)) ** 2
    return EigenBracket(value, min(lower, value), upper, z, steps)


def largest_eigenvalue(G: np.ndarray, *, rtol: float = 1e-10, max_steps: int = 200) -> float:
    """The largest eigenvalue of a symmetric matrix by Lanczos (a lower bound, accurate to about ``rtol``).

    Parameters
    ----------
    G : ndarray of shape (p, p)
    rtol : float, default 1e-10
        Lanczos stops when its residual bound is below ``rtol`` times the
        estimate; the eigenvalue error is then about the square of that, over
        the gap to the next eigenvalue.
    max_steps : int, default 200

    Returns
    -------
    float
        The largest Ritz value: at most lambda_max(G) (up to rounding).

    Examples
    --------
    >>> from attnlib._linalg import largest_eigenvalue
    >>> A = np.random.default_rng(0).standard_normal((400, 30))
    >>> bool(np.isclose(largest_eigenvalue(A.T @ A), np.linalg.eigvalsh(A.T @ A)[-1], rtol=1e-12))
    True
    """
    p = G.shape[0]
    start = np.random.default_rng(1).standard_normal(p)
    mu, _, _ = _lanczos_top(_symv(G), p, rtol=rtol, max_steps=max_steps, start=start)
    return mu


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
