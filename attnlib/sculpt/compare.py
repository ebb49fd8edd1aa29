"""Sculpting against local optimisation, on the same data (chapter 9 and ``benchmarks/sculpt.py``).

Every method gets the same training examples and is scored on the same fresh
test examples by the relative test error ``||F_hat - F|| / ||F||``. A run
counts as a success when that error is at most ``success`` (1e-3).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._validation import check_axis_values, check_int_array, check_positive_float, check_positive_int, check_rng
from ..attention import attention
from ..heads import Heads
from ..inputs import boolean_inputs
from ..training import train
from ._common import ItemAccess, SculptError, check_data, check_heads, check_m, check_nonzero_labels
from .instances import planted_instance
from .local import lbfgs_restarts, polish_from_random
from .pipeline import SculptReport, learn

METHODS = ("sculpt + polish", "sculpt, no polish", "polish from random", "L-BFGS restarts", "Adam")


@dataclass(frozen=True, eq=False)
class MethodRun(ItemAccess):
    """One method's run in :func:`compare_methods`.

    Attributes
    ----------
    error : float
        Relative test error of the accepted start, or of the best one (``nan`` if the method raised).
    starts : int
        Starts used.
    certified : bool
        Whether a start was accepted (relative training residual at most ``accept``).
    seconds : float
        Wall-clock time of all its starts.
    failed_phase : str or None
        For sculpting, the phase that raised, if any.
    report : SculptReport or None
        For "sculpt + polish", the report of :func:`learn`.
    """

    error: float
    starts: int
    certified: bool
    seconds: float
    failed_phase: str | None = None
    report: SculptReport | None = None


@dataclass(frozen=True, eq=False)
class SweepResult(ItemAccess):
    """What :func:`sweep` returns: per method, arrays over (scale, size[, seed]).

    Attributes
    ----------
    success : dict of str -> ndarray of shape (len(scales), len(sizes))
        Success rates.
    errors, seconds, starts : dict of str -> ndarray of shape (len(scales), len(sizes), seeds)
        Relative test errors, wall-clock seconds and starts used.
    """

    success: dict
    errors: dict
    seconds: dict
    starts: dict


def relative_test_error(heads: Heads, X_test, Y_test) -> float:
    """Relative error ``||F_hat(X) - Y|| / ||Y||`` on held-out examples.

    Examples
    --------
    >>> from attnlib.sculpt.compare import relative_test_error
    >>> heads = random_heads(1, 3, rng=0)
    >>> X = boolean_inputs(10, 3, 3, rng=1)
    >>> relative_test_error(heads, X, attention(X, heads))
    0.0
    """
    heads = check_heads(heads)
    X_test, Y_test = check_data(X_test, Y_test, boolean=False, d=heads.d, names=("X_test", "Y_test"))
    check_nonzero_labels("Y_test", Y_test)
    return float(np.linalg.norm(attention(X_test, heads) - Y_test) / np.linalg.norm(Y_test))


def compare_methods(X, Y, m: int, X_test, Y_test, *, methods=METHODS, restarts: int = 5, accept: float = 1e-6,
                    adam_epochs: int = 1000, adam_lr: float = 0.02, rng=None) -> dict:
    """Run each method on the same data with the same budget of starts; report test error, starts and time.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
        Training examples (X on the hypercube).
    m : int
    X_test, Y_test : array_like of shape (N_test, n, d)
    methods : sequence of str
        Any of ``"sculpt + polish"``, ``"sculpt, no polish"`` (the phase-5
        candidate of the same run), ``"polish from random"`` (the same
        Levenberg-Marquardt polish from random starts), ``"L-BFGS restarts"``
        and ``"Adam"`` (:func:`attnlib.train`, full batch).
    restarts : int, default 5
        Every method gets at most this many starts: polish runs of
        :func:`learn` (its ``starts``), random starts of the polish, of L-BFGS
        and of Adam. "sculpt, no polish" has one candidate and one start.
    accept : float, default 1e-6
        One acceptance rule for all: a start is accepted, and the restarts stop,
        when its relative training residual ``||F(X) - Y|| / ||Y||`` is at most
        ``accept``.
    adam_epochs : int, default 1000
    adam_lr : float, default 0.02
    rng : int, numpy.random.Generator or None

    Returns
    -------
    dict of str -> MethodRun
        One :class:`MethodRun` per method, in the order of ``methods``.

    Notes
    -----
    Restarts stop at the first accepted start, so over many instances the
    fraction ``sum(certified) / sum(starts)`` estimates the chance that a
    single start succeeds, and the fraction of instances with a small test
    error is the success rate with restarts.
    """
    rng = check_rng(rng)
    X, Y = check_data(X, Y)
    m = check_m(m)
    restarts = check_positive_int("restarts", restarts)
    accept = check_positive_float("accept", accept)
    adam_epochs = check_positive_int("adam_epochs", adam_epochs)
    adam_lr = check_positive_float("adam_lr", adam_lr)
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise ValueError(f"unknown methods {sorted(unknown)}; choose from {METHODS}")
    out: dict = {}
    streams = dict(zip(METHODS, rng.spawn(len(METHODS)), strict=True))

    def run(heads, starts, seconds, **extra):
        if heads is None:
            return MethodRun(float("nan"), starts, False, seconds, **extra)
        return MethodRun(relative_test_error(heads, X_test, Y_test), starts,
                         relative_test_error(heads, X, Y) <= accept, seconds, **extra)

    if {"sculpt + polish", "sculpt, no polish"} & set(methods):
        start = time.perf_counter()
        failed, heads = None, None
        try:
            result = learn(X, Y, m, rng=streams["sculpt + polish"], tol=accept, starts=restarts)
            heads, report = result.heads, result.report
        except SculptError as err:
            failed, report = err.phase, err.report or SculptReport()
            heads = report.heads  # the best polished layer of a run that certified none
        total = time.perf_counter() - start
        pre = report.pre_polish_heads
        polish_seconds = report.seconds.get("polish", 0.0)
        if "sculpt + polish" in methods:
            out["sculpt + polish"] = run(heads, report.starts, total, failed_phase=failed, report=report)
        if "sculpt, no polish" in methods:
            out["sculpt, no polish"] = run(pre, 1 if pre is not None else 0, total - polish_seconds,
                                           failed_phase=failed if pre is None else None)
    if "polish from random" in methods:
        heads, info = polish_from_random(X, Y, m, restarts=restarts, tol=accept, rng=streams["polish from random"])
        out["polish from random"] = run(heads, info.restarts, info.seconds)
    if "L-BFGS restarts" in methods:
        heads, info = lbfgs_restarts(X, Y, m, restarts=restarts, tol=accept**2, rng=streams["L-BFGS restarts"])
        out["L-BFGS restarts"] = run(heads, info.restarts, info.seconds)
    if "Adam" in methods:
        best, best_res, seconds, starts = None, np.inf, 0.0, 0
        for g in streams["Adam"].spawn(restarts):
            starts += 1
            res = train(X, Y, m, epochs=adam_epochs, lr=adam_lr, schedule="cosine", rng=g)
            seconds += res.seconds
            train_res = relative_test_error(res.heads, X, Y)
            if train_res < best_res:
                best, best_res = res.heads, train_res
            if train_res <= accept:
                break
        out["Adam"] = run(best, starts, seconds)
    return {name: out[name] for name in methods}


def sweep(scales, sizes, *, seeds: int = 3, m: int = 2, d: int = 4, n: int = 3, shared: float = 0.6,
          methods=METHODS, success: float = 1e-3, rng=None, **kwargs) -> SweepResult:
    """Success rate of each method over planted instances of varying sharpness and sample size.

    Parameters
    ----------
    scales : sequence of float
        ``scale`` of :func:`planted_instance` (``||Theta_i||_F``); outside the
        conditions' norm window the instances are drawn anyway (``check=False``).
    sizes : sequence of int
        Numbers of training examples.
    seeds : int, default 3
    m, d, n, shared
        The planted instances.
    methods : sequence of str
    success : float, default 1e-3
    rng : int, numpy.random.Generator or None
    **kwargs
        Passed to :func:`compare_methods`.

    Returns
    -------
    SweepResult
    """
    scales = check_axis_values("scales", scales)
    if (scales <= 0).any():
        raise ValueError(f"scales must be positive; received {scales.tolist()}")
    sizes = check_int_array("sizes", sizes, low=1)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(f"sizes must be a non-empty 1-D list of sample sizes; received shape {sizes.shape}")
    seeds = check_positive_int("seeds", seeds)
    m, d, n = check_positive_int("m", m), check_positive_int("d", d), check_positive_int("n", n)
    success = check_positive_float("success", success)
    rng = check_rng(rng)
    shape = (len(scales), len(sizes), seeds)
    errors = {k: np.full(shape, np.nan) for k in methods}
    seconds = {k: np.full(shape, np.nan) for k in methods}
    starts = {k: np.zeros(shape, dtype=int) for k in methods}
    for a, scale in enumerate(scales):
        for b, N in enumerate(sizes):
            for s in range(seeds):
                g = rng.spawn(1)[0]
                teacher = planted_instance(m, d, scale=float(scale), shared=shared, check=False, rng=g)
                X = boolean_inputs(int(N), n, d, rng=g)
                X_test = boolean_inputs(2000, n, d, rng=g)
                res = compare_methods(X, attention(X, teacher), m, X_test, attention(X_test, teacher),
                                      methods=methods, rng=g, **kwargs)
                for k in methods:
                    errors[k][a, b, s] = res[k].error
                    seconds[k][a, b, s] = res[k].seconds
                    starts[k][a, b, s] = res[k].starts
    rates = {k: np.mean(np.nan_to_num(errors[k], nan=np.inf) <= success, axis=2) for k in methods}
    return SweepResult(rates, errors, seconds, starts)
