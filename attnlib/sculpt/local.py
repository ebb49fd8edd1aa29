"""Local optimisation on the exact loss: the optional polish of phase 5, and the baselines it is compared with.

:func:`polish` is Levenberg-Marquardt (scipy's MINPACK) on the residuals
``F(X) - Y`` with the exact Jacobian. Chapter 9 runs the same polish from the
sculpted candidate and from random starts, and compares both with L-BFGS with
restarts (:func:`lbfgs_restarts`) and Adam (:func:`attnlib.train`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_float, check_positive_int, check_rng, check_sequences
from ..attention import forward as _forward
from ..heads import Heads, random_heads
from ..training import loss_and_gradient_arrays as _loss_grad
from ._common import ItemAccess, check_data, check_heads, check_m, check_nonzero_labels


@dataclass(frozen=True)
class PolishInfo(ItemAccess):
    """One polish run: relative residual on the examples used, function evaluations, seconds."""

    residual: float
    nfev: int
    seconds: float


@dataclass(frozen=True)
class RestartInfo(ItemAccess):
    """Restarts of a local method: the best run's relative residual, runs made, total seconds."""

    residual: float
    restarts: int
    seconds: float


def _unpack(theta: np.ndarray, m: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    half = m * d * d
    return theta[:half].reshape(m, d, d), theta[half:].reshape(m, d, d)


def residual_jacobian(X, Theta, W) -> np.ndarray:
    """The Jacobian of ``F(X)`` (flattened) with respect to ``(Theta, W)`` (flattened).

    Parameters
    ----------
    X : ndarray of shape (N, n, d)
    Theta, W : ndarray of shape (m, d, d)

    Returns
    -------
    J : ndarray of shape (N n d, 2 m d^2)
        Columns: all entries of Theta (head, row, column), then all of W.

    Notes
    -----
    With ``V_i = X W_i`` and ``Abar_i = A_i V_i``,
    ``dF[a, q] / dTheta_i[p, r] = x_a[p] sum_b A_i[a, b] (V_i[b, q] - Abar_i[a, q]) x_b[r]``
    and ``dF[a, q] / dW_i[p, s] = (A_i X)[a, p] [q = s]``.

    Examples
    --------
    >>> from attnlib.sculpt import residual_jacobian
    >>> heads = random_heads(2, 3, rng=0)
    >>> residual_jacobian(boolean_inputs(5, 4, 3, rng=1), heads.Theta, heads.W).shape
    (60, 36)
    """
    X, _ = check_sequences(X)
    heads = Heads(Theta, W)  # checks both: real, finite, (m, d, d) alike
    Theta, W = heads.Theta, check_heads(heads, X.shape[-1]).W
    N, n, d = X.shape
    m = Theta.shape[0]
    _, A, AX = _forward(X, Theta, W, "softmax", False)  # A (N, m, n, n), AX (N, m, n, d)
    V = np.einsum("Nbp,ipq->Nibq", X, W)  # (N, m, n, d)
    Abar = np.matmul(A, V)  # (N, m, n, d)
    G = np.einsum("Niab,Nibq,Nbr->Niaqr", A, V, X) - Abar[..., :, None] * AX[..., None, :]  # (N, m, a, q, r)
    J_theta = np.einsum("Nap,Niaqr->Naqipr", X, G).reshape(N * n * d, m * d * d)
    J_W = np.einsum("Niap,qs->Naqips", AX, np.eye(d)).reshape(N * n * d, m * d * d)
    return np.hstack([J_theta, J_W])


def polish(X, Y, heads: Heads, *, max_examples: int | None = None, max_nfev: int = 200) -> tuple[Heads, PolishInfo]:
    """Levenberg-Marquardt on the exact squared loss, started from ``heads``.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    Y : array_like of shape (N, n, d)
    heads : Heads
        Starting point.
    max_examples : int, optional
        Fit on the first ``max_examples`` examples (the Jacobian has ``N n d``
        rows and ``2 m d^2`` columns). Default: enough for 30 residuals per
        parameter, at least 200 examples.
    max_nfev : int, default 200
        Limit on evaluations.

    Returns
    -------
    heads : Heads
    info : PolishInfo
        ``residual`` (relative, on the examples used), ``nfev``, ``seconds``.

    Examples
    --------
    >>> from attnlib.sculpt import polish
    >>> teacher = random_heads(1, 3, scale=2.0, rng=0)
    >>> X = boolean_inputs(100, 3, 3, rng=1)
    >>> start = Heads(teacher.Theta + 0.1, teacher.W - 0.1)
    >>> heads, info = polish(X, attention(X, teacher), start)
    >>> bool(info.residual < 1e-8)
    True
    """
    from scipy.optimize import least_squares

    X, Y = check_data(X, Y, boolean=False)
    heads = check_heads(heads, X.shape[-1])
    m, d = heads.m, heads.d
    N, n, _ = X.shape
    if max_examples is not None:
        max_examples = check_positive_int("max_examples", max_examples)
    check_nonzero_labels("Y", Y[: max_examples or N])
    if max_examples is None:
        max_examples = max(200, -(-30 * 2 * m * d * d // (n * d)))
    max_examples = check_positive_int("max_examples", max_examples)
    max_nfev = check_positive_int("max_nfev", max_nfev)
    X, Y = X[:max_examples], Y[:max_examples]
    target = Y.ravel()
    norm = float(np.linalg.norm(target))

    def fun(theta):
        Theta, W = _unpack(theta, m, d)
        return _forward(X, Theta, W, "softmax", False)[0].ravel() - target

    def jac(theta):
        return residual_jacobian(X, *_unpack(theta, m, d))

    start = time.perf_counter()
    x0 = np.concatenate([heads.Theta.ravel(), heads.W.ravel()])
    with np.errstate(over="ignore", invalid="ignore"):
        res = least_squares(fun, x0, jac=jac, method="lm", max_nfev=max_nfev, xtol=1e-15, ftol=1e-15, gtol=1e-15)
    seconds = time.perf_counter() - start
    Theta, W = _unpack(res.x, m, d)
    return Heads(Theta, W), PolishInfo(float(np.linalg.norm(res.fun) / norm), int(res.nfev), seconds)


def _refit_residual(X, Y, Theta) -> tuple[np.ndarray | None, float]:
    """The acceptance rule shared by every method: W refit on all the data, then the relative residual.

    Parameters
    ----------
    X, Y : ndarray of shape (N, n, d)
        All the training examples (already checked).
    Theta : ndarray of shape (m, d, d)

    Returns
    -------
    W : ndarray of shape (m, d, d), or None
        :func:`attnlib.sculpt.fit_W` on all of ``X, Y``; None if ``Theta`` is not finite
        (a diverged run).
    residual : float
        ``||F(X) - Y|| / ||Y||`` of the layer ``(Theta, W)``; ``inf`` for a diverged run.

    Examples
    --------
    >>> from attnlib.sculpt.local import _refit_residual
    >>> heads = random_heads(2, 3, scale=2.0, rng=0)
    >>> X = boolean_inputs(100, 3, 3, rng=1)
    >>> W, res = _refit_residual(X, attention(X, heads), heads.Theta)
    >>> bool(np.allclose(W, heads.W) and res < 1e-10)
    True
    >>> _refit_residual(X, attention(X, heads), np.full((2, 3, 3), np.nan))
    (None, inf)
    """
    from .candidates import fit_W

    Theta = np.asarray(Theta, dtype=float)
    if not np.all(np.isfinite(Theta)):
        return None, float("inf")
    return fit_W(X, Y, Theta)


def polish_from_random(X, Y, m: int, *, restarts: int = 1, init_scale: float = 1.0, tol: float = 1e-6,
                       max_examples: int | None = None, max_nfev: int = 200, rng=None) -> tuple[Heads, RestartInfo]:
    """The same polish started from random heads, restarting until a run is accepted.

    Every run is scored by the rule of :func:`attnlib.sculpt.learn`: W is refit by
    least squares (:func:`attnlib.sculpt.fit_W`) on all of ``X, Y`` for the run's
    Theta_i, and the run is accepted, and the restarts stop, when the relative
    residual ``||F(X) - Y|| / ||Y||`` of that layer is at most ``tol``.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    m : int
    restarts : int, default 1
        Most runs.
    init_scale : float, default 1.0
        ``scale`` of the random starts (:func:`attnlib.random_heads`).
    tol : float, default 1e-6
        The acceptance threshold.
    max_examples, max_nfev
        As in :func:`polish` (each run fits on the first ``max_examples`` examples).
    rng : int, numpy.random.Generator or None

    Returns
    -------
    heads : Heads
        The best run, with W refit on all the data.
    info : RestartInfo
        ``residual`` (relative, on all the data, of ``heads``), ``restarts`` (runs made),
        ``seconds`` (total).

    Examples
    --------
    >>> from attnlib.sculpt import polish_from_random
    >>> teacher = random_heads(1, 3, scale=1.0, rng=0)
    >>> X = boolean_inputs(300, 3, 3, rng=1)
    >>> heads, info = polish_from_random(X, attention(X, teacher), 1, restarts=3, rng=2)
    >>> bool(info.residual <= 1e-6), info.restarts
    (True, 1)
    """
    X, Y = check_data(X, Y, boolean=False)
    m = check_m(m)
    restarts = check_positive_int("restarts", restarts)
    init_scale = check_positive_float("init_scale", init_scale)
    tol = check_positive_float("tol", tol)
    rng = check_rng(rng)
    best, best_res, total, runs = None, np.inf, 0.0, 0
    for _ in range(restarts):
        runs += 1
        start = random_heads(m, X.shape[-1], scale=init_scale, rng=rng)
        heads, info = polish(X, Y, start, max_examples=max_examples, max_nfev=max_nfev)
        W, res = _refit_residual(X, Y, heads.Theta)  # the acceptance rule of learn: all the data, W refit
        total = total + info.seconds
        if best is None or res < best_res:
            best, best_res = Heads(heads.Theta, heads.W if W is None else W), res
        if best_res <= tol:
            break
    return best, RestartInfo(float(best_res), runs, total)


def lbfgs_restarts(X, Y, m: int, *, restarts: int = 5, init_scale: float = 1.0, tol: float = 1e-6,
                   maxiter: int = 2000, max_examples: int = 1000, rng=None) -> tuple[Heads, RestartInfo]:
    """L-BFGS (scipy) on the mean squared loss from random starts, restarting until a run is accepted.

    Each run minimises the loss on the first ``max_examples`` examples; it is then
    scored by the rule of :func:`attnlib.sculpt.learn`: W refit by least squares
    (:func:`attnlib.sculpt.fit_W`) on all of ``X, Y``, accepted (the restarts stop)
    when the relative residual of that layer is at most ``tol``.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    m : int
    restarts : int, default 5
    init_scale : float, default 1.0
    tol : float, default 1e-6
        The acceptance threshold.
    maxiter : int, default 2000
    max_examples : int, default 1000
    rng : int, numpy.random.Generator or None

    Returns
    -------
    heads : Heads
        The best run, with W refit on all the data.
    info : RestartInfo
        ``residual`` (relative, on all the data, of ``heads``), ``restarts``, ``seconds``.

    Examples
    --------
    >>> from attnlib.sculpt import lbfgs_restarts
    >>> teacher = random_heads(1, 3, scale=1.0, rng=0)
    >>> X = boolean_inputs(100, 3, 3, rng=1)
    >>> heads, info = lbfgs_restarts(X, attention(X, teacher), 1, restarts=2, rng=2)
    >>> bool(info.residual < 1e-3)
    True
    """
    from scipy.optimize import minimize

    X, Y = check_data(X, Y, boolean=False)
    m = check_m(m)
    restarts = check_positive_int("restarts", restarts)
    max_examples = check_positive_int("max_examples", max_examples)
    maxiter = check_positive_int("maxiter", maxiter)
    init_scale = check_positive_float("init_scale", init_scale)
    tol = check_positive_float("tol", tol)
    rng = check_rng(rng)
    Xs, Ys = X[:max_examples], Y[:max_examples]
    d = X.shape[-1]

    def fun(theta):
        Theta, W = _unpack(theta, m, d)
        loss, dTheta, dW = _loss_grad(Xs, Ys, False, Theta, W, "softmax", False)
        return loss, np.concatenate([dTheta.ravel(), dW.ravel()])

    start = time.perf_counter()
    best, best_res, runs = None, np.inf, 0
    for _ in range(restarts):
        runs += 1
        init = random_heads(m, d, scale=init_scale, rng=rng)
        x0 = np.concatenate([init.Theta.ravel(), init.W.ravel()])
        with np.errstate(over="ignore", invalid="ignore"):
            res = minimize(fun, x0, jac=True, method="L-BFGS-B",
                           options={"maxiter": maxiter, "ftol": 1e-20, "gtol": 1e-14})
        Theta, W_run = _unpack(res.x, m, d)
        W, residual = _refit_residual(X, Y, Theta)  # the acceptance rule of learn: all the data, W refit
        if best is None or residual < best_res:
            best, best_res = Heads(Theta, W_run if W is None else W), residual
        if best_res <= tol:
            break
    return best, RestartInfo(float(best_res), runs, time.perf_counter() - start)
