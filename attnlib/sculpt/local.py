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

from .._arguments import arguments, instance
from .._validation import sequences_shape
from ..attention import forward
from ..heads import Heads, random_heads
from ..training import loss_and_gradient_arrays
from ._common import check_data, check_heads, check_nonzero_labels
from .candidates import Candidates, fit_W

#: the polish restarts of :func:`attnlib.sculpt.learn`: noise of half the RMS entry of each Theta_i
RESTART_SPREAD = 0.5


@dataclass(frozen=True)
class PolishInfo:
    """One polish run: relative residual on the examples used, function evaluations, seconds."""

    residual: float
    nfev: int
    seconds: float


@dataclass(frozen=True)
class RestartInfo:
    """Restarts of a local method: the best run's relative residual, runs made, total seconds."""

    residual: float
    restarts: int
    seconds: float


def _unpack(theta: np.ndarray, m: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    half = m * d * d
    return theta[:half].reshape(m, d, d), theta[half:].reshape(m, d, d)


@arguments(X="array", Theta="array", W="array")
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
    X, _ = sequences_shape(X)
    heads = check_heads(Heads(Theta, W), X.shape[-1])  # Theta and W (m, d, d) alike, d that of X
    Theta, W = heads.Theta, heads.W
    N, n, d = X.shape
    m = Theta.shape[0]
    _, A, AX = forward(X, Theta, W, "softmax", False)  # A (N, m, n, n), AX (N, m, n, d)
    V = np.einsum("Nbp,ipq->Nibq", X, W)  # (N, m, n, d)
    Abar = np.matmul(A, V)  # (N, m, n, d)
    G = np.einsum("Niab,Nibq,Nbr->Niaqr", A, V, X) - Abar[..., :, None] * AX[..., None, :]  # (N, m, a, q, r)
    J_theta = np.einsum("Nap,Niaqr->Naqipr", X, G).reshape(N * n * d, m * d * d)
    J_W = np.einsum("Niap,qs->Naqips", AX, np.eye(d)).reshape(N * n * d, m * d * d)
    return np.hstack([J_theta, J_W])


@arguments(X="array", Y="array", heads="heads", max_examples="optsize", max_nfev="size")
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

    X, Y = check_data(X, Y)
    heads = check_heads(heads, X.shape[-1])
    m, d = heads.m, heads.d
    N, n, _ = X.shape
    check_nonzero_labels("Y", Y[: max_examples or N])
    if max_examples is None:
        max_examples = max(200, -(-30 * 2 * m * d * d // (n * d)))
    X, Y = X[:max_examples], Y[:max_examples]
    target = Y.ravel()
    norm = float(np.linalg.norm(target))

    def fun(theta):
        Theta, W = _unpack(theta, m, d)
        return forward(X, Theta, W, "softmax", False)[0].ravel() - target

    def jac(theta):
        return residual_jacobian(X, *_unpack(theta, m, d))

    start = time.perf_counter()
    x0 = np.concatenate([heads.Theta.ravel(), heads.W.ravel()])
    with np.errstate(over="ignore", invalid="ignore"):
        res = least_squares(fun, x0, jac=jac, method="lm", max_nfev=max_nfev, xtol=1e-15, ftol=1e-15, gtol=1e-15)
    seconds = time.perf_counter() - start
    Theta, W = _unpack(res.x, m, d)
    return Heads(Theta, W), PolishInfo(float(np.linalg.norm(res.fun) / norm), int(res.nfev), seconds)


@arguments(X="array", Y="array", Theta="floats")
def refit_residual(X, Y, Theta) -> tuple[np.ndarray | None, float]:
    """The acceptance rule shared by every method: W refit on all the data, then the relative residual.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
        All the training examples.
    Theta : array_like of shape (m, d, d)
        A run's attention matrices; entries that are not finite (a diverged run) are allowed.

    Returns
    -------
    W : ndarray of shape (m, d, d), or None
        :func:`attnlib.sculpt.fit_W` on all of ``X, Y``; None if ``Theta`` is not finite.
    residual : float
        ``||F(X) - Y|| / ||Y||`` of the layer ``(Theta, W)``; ``inf`` for a diverged run.

    Examples
    --------
    >>> from attnlib.sculpt.local import refit_residual
    >>> heads = random_heads(2, 3, scale=2.0, rng=0)
    >>> X = boolean_inputs(100, 3, 3, rng=1)
    >>> W, res = refit_residual(X, attention(X, heads), heads.Theta)
    >>> bool(np.allclose(W, heads.W) and res < 1e-10)
    True
    >>> refit_residual(X, attention(X, heads), np.full((2, 3, 3), np.nan))
    (None, inf)
    """
    if not np.all(np.isfinite(Theta)):
        return None, float("inf")
    return fit_W(X, Y, Theta)


@arguments(X="array", Y="array", m="size", restarts="size", init_scale="tol", tol="tol", max_examples="optsize",
           max_nfev="size", rng="rng")
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
    X, Y = check_data(X, Y)
    check_nonzero_labels("Y", Y)
    best, best_res, total, runs = None, np.inf, 0.0, 0
    for _ in range(restarts):
        runs += 1
        start = random_heads(m, X.shape[-1], scale=init_scale, rng=rng)
        heads, info = polish(X, Y, start, max_examples=max_examples, max_nfev=max_nfev)
        W, res = refit_residual(X, Y, heads.Theta)  # the acceptance rule of learn: all the data, W refit
        total = total + info.seconds
        if best is None or res < best_res:
            best, best_res = Heads(heads.Theta, heads.W if W is None else W), res
        if best_res <= tol:
            break
    return best, RestartInfo(float(best_res), runs, total)


@arguments(X="array", Y="array", m="size", restarts="size", init_scale="tol", tol="tol", maxiter="size",
           max_examples="size", rng="rng")
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

    X, Y = check_data(X, Y)
    check_nonzero_labels("Y", Y)
    Xs, Ys = X[:max_examples], Y[:max_examples]
    d = X.shape[-1]

    def fun(theta):
        Theta, W = _unpack(theta, m, d)
        loss, dTheta, dW = loss_and_gradient_arrays(Xs, Ys, False, Theta, W, "softmax", False)
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
        W, residual = refit_residual(X, Y, Theta)  # the acceptance rule of learn: all the data, W refit
        if best is None or residual < best_res:
            best, best_res = Heads(Theta, W_run if W is None else W), residual
        if best_res <= tol:
            break
    return best, RestartInfo(float(best_res), runs, time.perf_counter() - start)


@arguments(X="array", Y="array", heads="heads", spread="tol", rng="rng")
def perturbed_start(X, Y, heads: Heads, spread: float, rng=None) -> Heads:
    """A start near ``heads``: every Theta_i moved by Gaussian noise of ``spread`` times its RMS entry, W refit.

    The restarts of :func:`polish_starts` (from its third start on) are such starts with
    ``spread = RESTART_SPREAD``; :func:`attnlib.sculpt.single_starts` measures them.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    heads : Heads
    spread : float
        Standard deviation of the noise, in units of each head's root-mean-square entry.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    Heads
        The moved Theta_i, with the W_i of :func:`fit_W` on all of ``X, Y``.

    Examples
    --------
    >>> from attnlib.sculpt.local import perturbed_start
    >>> heads = random_heads(2, 3, scale=2.0, rng=0)
    >>> X = boolean_inputs(50, 3, 3, rng=1)
    >>> start = perturbed_start(X, attention(X, heads), heads, 0.5, rng=2)
    >>> start, bool(np.all(start.Theta != heads.Theta))
    (Heads(m=2, d=3), True)
    """
    X, Y = check_data(X, Y)
    heads = check_heads(heads, X.shape[-1])
    Theta = heads.Theta
    rms = np.sqrt(np.mean(Theta**2, axis=(1, 2), keepdims=True))  # (m, 1, 1)
    Theta = Theta + spread * rms * rng.standard_normal(Theta.shape)
    return Heads(Theta, fit_W(X, Y, Theta)[0])


@dataclass(frozen=True, eq=False)
class PolishRuns:
    """The polish of :func:`attnlib.sculpt.learn` (:func:`polish_starts`): one run per start until one is certified.

    Attributes
    ----------
    heads : Heads
        The best run, with W refit by least squares on all the training data.
    residual : float
        Its relative training residual ``||F(X) - Y|| / ||Y||`` on all the data.
    runs : tuple of PolishInfo
        Every run, in order.
    residuals : tuple of float
        The relative training residual of every run, after refitting W.
    """

    heads: Heads
    residual: float
    runs: tuple
    residuals: tuple

    def __post_init__(self):
        if len(self.runs) != len(self.residuals) or not self.runs:
            raise ValueError(f"runs and residuals must hold one entry per run, at least one; received "
                             f"{len(self.runs)} and {len(self.residuals)}")

    @property
    def starts(self) -> int:
        """Polish runs made."""
        return len(self.runs)

    def __repr__(self) -> str:
        return f"PolishRuns(starts={self.starts}, residual={self.residual:.2e})"


@arguments(X="array", Y="array", candidates=instance(Candidates, where="span_candidates"), starts="size", tol="tol",
           spread="tol", rng="rng")
def polish_starts(X, Y, candidates: Candidates, *, starts: int = 8, tol: float = 1e-3, spread: float = RESTART_SPREAD,
                  rng=None) -> PolishRuns:
    """The polish of :func:`attnlib.sculpt.learn`: :func:`polish` from each start in turn, until one is certified.

    The starts are the better candidate of phase 5, the other one, then the better one with every
    Theta_i moved by Gaussian noise of ``spread`` times its RMS entry (:func:`perturbed_start`).
    After each run W is refit on all the data (:func:`fit_W`); the first run whose relative
    residual is at most ``tol`` ends the polish.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    candidates : Candidates
        Phase 5's candidates.
    starts : int, default 8
        Most runs.
    tol : float, default 1e-3
    spread : float, default RESTART_SPREAD (0.5)
    rng : int, numpy.random.Generator or None
        Draws the perturbed starts.

    Returns
    -------
    PolishRuns

    Notes
    -----
    Whether one polish run from one candidate reaches the global minimum is
    chaotic: it can flip with the last bits of a BLAS result, i.e. with the
    reader's CPU. So the polish restarts deterministically (the starts are
    drawn from ``rng``) from the other candidate and from the better one with
    every Theta_i moved by Gaussian noise of half its root-mean-square entry (W
    refit by :func:`fit_W`), and accepts by one rule: the relative residual on
    all the training data, after refitting W, is at most ``tol``.

    Examples
    --------
    >>> from attnlib.sculpt import Candidates, polish_starts
    >>> teacher = random_heads(1, 3, scale=2.0, rng=0)
    >>> X = boolean_inputs(100, 3, 3, rng=1)
    >>> near = Heads(teacher.Theta + 0.1, teacher.W)
    >>> runs = polish_starts(X, attention(X, teacher), Candidates(near, 0.1, near, 0.1), rng=2)
    >>> runs.starts, bool(runs.residual < 1e-8)
    (1, True)
    """
    X, Y = check_data(X, Y)
    best, best_res, infos, residuals = None, np.inf, [], []
    for k in range(starts):
        if k < 2:
            start = candidates.best if k == 0 else candidates.other
        else:
            start = perturbed_start(X, Y, candidates.best, spread, rng)
        heads, info = polish(X, Y, start)
        W, res = fit_W(X, Y, heads.Theta)  # certify on all the data, not just the examples polished on
        infos.append(info)
        residuals.append(res)
        if best is None or res < best_res:
            best, best_res = Heads(heads.Theta, W), res
        if res <= tol:
            break
    return PolishRuns(best, float(best_res), tuple(infos), tuple(residuals))
