"""Sculpting against local optimisation, on the same data (chapter 9 and ``benchmarks/sculpt.py``).

Every method gets the same training examples and is scored on the same fresh
test examples by the relative test error ``||F_hat - F|| / ||F||``. A run
counts as a success when that error is at most ``success`` (1e-3).

Every method also accepts a start by one rule, the rule of :func:`learn`: W
refit by least squares on all the training data for the start's Theta_i, and
a relative training residual of that layer at most ``accept`` (1e-6).
How often a *single* start of each kind passes that rule: :mod:`attnlib.sculpt.starts`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, interval, names, structure
from .._validation import check_axis_values, check_int_array
from ..attention import attention
from ..heads import Heads
from ..inputs import boolean_inputs
from ..training import train
from ._common import SculptError, check_data, check_m, check_nonzero_labels
from .instances import planted_instance
from .local import lbfgs_restarts, polish_from_random, refit_residual
from .pipeline import SculptReport, learn

#: the methods :func:`compare_methods` runs, by identifier (their labels are :data:`METHOD_LABELS`):
#: sculpting with and without the polish, the polish from random starts, L-BFGS with restarts, and Adam
METHODS = ("sculpt_polish", "sculpt_no_polish", "polish_random", "lbfgs", "adam")
#: what the book's figures, tables and the sculpt benchmark call each method of :data:`METHODS`
METHOD_LABELS = {
    "sculpt_polish": "sculpt + polish",
    "sculpt_no_polish": "sculpt, no polish",
    "polish_random": "polish from random",
    "lbfgs": "L-BFGS restarts",
    "adam": "Adam",
}


@dataclass(frozen=True, eq=False)
class MethodRun:
    """One method's run in :func:`compare_methods`.

    Attributes
    ----------
    method : str
        Which method (one of :data:`METHODS`).
    error : float
        Relative test error of the accepted start, or of the best one (``nan`` if the method
        returned no layer).
    starts : int
        Starts used.
    certified : bool
        Whether a start was accepted (relative training residual at most ``accept``).
    seconds : float
        Wall-clock time of the method, timed on its own.
    failed_phase : str or None
        For sculpting, the phase that raised, if any.
    report : SculptReport or None
        For sculpting, the report of :func:`learn`.
    residual : float
        Relative training residual (all the training data) of the layer returned (``nan`` if none).
    """

    method: str
    error: float
    starts: int
    certified: bool
    seconds: float
    failed_phase: str | None = None
    report: SculptReport | None = None
    residual: float = float("nan")

    def __repr__(self) -> str:
        return (f"MethodRun({self.method!r}, error={float(self.error):.2g}, starts={self.starts}, "
                f"certified={self.certified})")


@dataclass(frozen=True, eq=False)
class Comparison:
    """What :func:`compare_methods` returns: one :class:`MethodRun` per method, in the order asked for.

    ``comparison["lbfgs"]`` is the run of a method, by its identifier.
    """

    runs: tuple

    @property
    def methods(self) -> tuple[str, ...]:
        """The identifiers of the methods run, in order."""
        return tuple(run.method for run in self.runs)

    def __getitem__(self, method: str) -> MethodRun:
        for run in self.runs:
            if run.method == method:
                return run
        raise KeyError(f"{method!r} was not run; the methods run are {list(self.methods)}")

    def __repr__(self) -> str:
        return f"Comparison({', '.join(self.methods)})"


@dataclass(frozen=True, eq=False)
class SweepResult:
    """What :func:`sweep` returns: per method (by identifier, :data:`METHODS`), arrays over (scale, size[, seed]).

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


@arguments(heads="heads", X_test="array", Y_test="array")
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
    X_test, Y_test = check_data(X_test, Y_test, d=heads.d, names=("X_test", "Y_test"))
    check_nonzero_labels("Y_test", Y_test)
    error = float(np.linalg.norm(attention(X_test, heads) - Y_test) / np.linalg.norm(Y_test))
    if not np.isfinite(error):
        raise ValueError("the relative test error of heads on X_test, Y_test overflows float64; rescale Y_test")
    return error


@dataclass(frozen=True)
class _Budget:
    """What every method of :func:`compare_methods` gets: starts, the acceptance rule, Adam's settings."""

    restarts: int
    accept: float
    adam_epochs: int
    adam_lr: float


@dataclass(frozen=True)
class _Outcome:
    """A runner's answer: its best layer (None if it has none), starts used, the phase that failed, the report."""

    heads: Heads | None
    starts: int
    failed_phase: str | None = None
    report: SculptReport | None = None


def _sculpt_polish(X, Y, m, budget: _Budget, rng) -> _Outcome:
    try:
        result = learn(X, Y, m, rng=rng, tol=budget.accept, starts=budget.restarts)
        return _Outcome(result.heads, result.report.polish.starts, None, result.report)
    except SculptError as err:
        report = err.report or SculptReport()
        return _Outcome(report.heads, 0 if report.polish is None else report.polish.starts, err.phase, report)


def _sculpt_no_polish(X, Y, m, budget: _Budget, rng) -> _Outcome:
    try:
        result = learn(X, Y, m, rng=rng, tol=budget.accept, polish=False)
        return _Outcome(result.heads, 1, None, result.report)
    except SculptError as err:  # the candidate is rarely certified: it is scored all the same
        report = err.report or SculptReport()
        found = report.candidates is not None
        return _Outcome(report.heads, int(found), None if found else err.phase, report)


def _polish_random(X, Y, m, budget: _Budget, rng) -> _Outcome:
    heads, info = polish_from_random(X, Y, m, restarts=budget.restarts, tol=budget.accept, rng=rng)
    return _Outcome(heads, info.restarts)


def _lbfgs(X, Y, m, budget: _Budget, rng) -> _Outcome:
    heads, info = lbfgs_restarts(X, Y, m, restarts=budget.restarts, tol=budget.accept, rng=rng)
    return _Outcome(heads, info.restarts)


def _adam(X, Y, m, budget: _Budget, rng) -> _Outcome:
    best, best_res, starts = None, np.inf, 0
    for g in rng.spawn(budget.restarts):
        starts += 1
        res = train(X, Y, m, epochs=budget.adam_epochs, lr=budget.adam_lr, schedule="cosine", rng=g)
        W, train_res = refit_residual(X, Y, res.heads.Theta)  # the same rule: W refit on all the data
        if train_res < best_res:
            best, best_res = Heads(res.heads.Theta, res.heads.W if W is None else W), train_res
        if train_res <= budget.accept:
            break
    return _Outcome(best, starts)


#: every method of compare_methods, called with (X, Y, m, budget, rng)
_RUNNERS = {"sculpt_polish": _sculpt_polish, "sculpt_no_polish": _sculpt_no_polish, "polish_random": _polish_random,
            "lbfgs": _lbfgs, "adam": _adam}


def _streams(rng: np.random.Generator) -> dict:
    """One independent stream per method; sculpting without the polish replays the stream of sculpting with it,
    so that its candidate is the one the polish starts from."""
    streams = dict(zip(METHODS, rng.spawn(len(METHODS)), strict=True))
    bits = streams["sculpt_polish"].bit_generator
    streams["sculpt_no_polish"] = np.random.Generator(type(bits)(bits.seed_seq))
    return streams


@arguments(X="cube", Y="array", m="size", X_test="array", Y_test="array", methods=names(*METHODS), restarts="size",
           accept="tol", adam_epochs="size", adam_lr="tol", rng="rng")
def compare_methods(X, Y, m: int, X_test, Y_test, *, methods=METHODS, restarts: int = 5, accept: float = 1e-6,
                    adam_epochs: int = 1000, adam_lr: float = 0.02, rng=None) -> Comparison:
    """Run each method on the same data with the same budget of starts; report test error, starts and time.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
        Training examples (X on the hypercube).
    m : int
    X_test, Y_test : array_like of shape (N_test, n, d)
    methods : sequence of str, default METHODS
        Any of ``"sculpt_polish"`` (:func:`learn`), ``"sculpt_no_polish"`` (its phase-5
        candidate: the same run without the polish, on the same random stream),
        ``"polish_random"`` (the same Levenberg-Marquardt polish from random starts,
        :func:`polish_from_random`), ``"lbfgs"`` (:func:`lbfgs_restarts`) and ``"adam"``
        (:func:`attnlib.train`, full batch).
    restarts : int, default 5
        Every method gets at most this many starts: polish runs of
        :func:`learn` (its ``starts``), random starts of the polish, of L-BFGS
        and of Adam. Sculpting without the polish has one candidate and one start.
    accept : float, default 1e-6
        One acceptance rule for all, the rule of :func:`learn`: a start's W is
        refit by least squares on all of ``X, Y`` (:func:`fit_W`), and the start
        is accepted, and the restarts stop, when the relative training residual
        ``||F(X) - Y|| / ||Y||`` of that layer is at most ``accept``. Every
        method returns its best start with W so refit.
    adam_epochs : int, default 1000
    adam_lr : float, default 0.02
    rng : int, numpy.random.Generator or None

    Returns
    -------
    Comparison
        One :class:`MethodRun` per method, in the order of ``methods``; each method is timed on its own.

    Notes
    -----
    Restarts stop at the first accepted start, so over many instances the
    fraction ``sum(certified) / sum(starts)`` estimates the chance that a
    single start succeeds, and the fraction of instances with a small test
    error is the success rate with restarts.

    Examples
    --------
    >>> from attnlib.sculpt import compare_methods, planted_instance
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X, X_test = boolean_inputs(3000, 3, 4, rng=1), boolean_inputs(500, 3, 4, rng=2)
    >>> runs = compare_methods(X, attention(X, teacher), 2, X_test, attention(X_test, teacher),
    ...                        methods=("sculpt_polish", "sculpt_no_polish"), rng=3)
    >>> bool(runs["sculpt_polish"].error < 1e-8), runs["sculpt_no_polish"].certified
    (True, False)
    """
    X, Y = check_data(X, Y)
    X_test, Y_test = check_data(X_test, Y_test, d=X.shape[-1], names=("X_test", "Y_test"))
    m = check_m(m, X.shape[-1])
    budget, streams = _Budget(restarts, accept, adam_epochs, adam_lr), _streams(rng)
    runs = []
    for method in methods:
        start = time.perf_counter()
        outcome = _RUNNERS[method](X, Y, m, budget, streams[method])
        runs.append(_scored(method, outcome, time.perf_counter() - start, X, Y, X_test, Y_test, accept))
    return Comparison(tuple(runs))


def _scored(method, outcome: _Outcome, seconds, X, Y, X_test, Y_test, accept) -> MethodRun:
    """A runner's outcome scored by the one rule: training residual (accepted at most ``accept``), test error."""
    if outcome.heads is None:
        return MethodRun(method, float("nan"), outcome.starts, False, seconds, outcome.failed_phase, outcome.report)
    residual = relative_test_error(outcome.heads, X, Y)
    return MethodRun(method, relative_test_error(outcome.heads, X_test, Y_test), outcome.starts, residual <= accept,
                     seconds, outcome.failed_phase, outcome.report, residual)


@arguments(scales="array", sizes="intarray", seeds="size", m="size", d="size", n="size",
           shared=interval(0.0, 1.0, high_open=True), methods=names(*METHODS), success="tol", rng="rng",
           kwargs=structure("keywords of compare_methods"))
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
        Identifiers of :data:`METHODS`.
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
    m = check_m(m, d)
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
