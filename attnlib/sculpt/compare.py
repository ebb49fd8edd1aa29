"""Sculpting against local optimisation, on the same data (chapter 9 and ``benchmarks/sculpt.py``).

Every method gets the same training examples and is scored on the same fresh
test examples by the relative test error ``||F_hat - F|| / ||F||``. A run
counts as a success when that error is at most ``success`` (1e-3).

Every method also accepts a start by one rule, the rule of :func:`learn`: W
refit by least squares on all the training data for the start's Theta_i, and
a relative training residual of that layer at most ``accept`` (1e-6).
:func:`single_starts` measures how often a *single* start of each kind
passes that rule, and :func:`binomial_interval` puts an interval on a rate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, choice, interval, names, structure
from .._validation import check_axis_values, check_int_array
from ..attention import attention
from ..heads import Heads, random_heads
from ..inputs import boolean_inputs
from ..training import train
from ._common import SculptError, check_data, check_m, check_nonzero_labels
from .instances import planted_instance
from .local import RESTART_SPREAD, lbfgs_restarts, perturbed_start, polish, polish_from_random, refit_residual
from .pipeline import SculptReport, learn

#: the methods :func:`compare_methods` runs, by identifier (their labels are :data:`METHOD_LABELS`):
#: sculpting with and without the polish, the polish from random starts, L-BFGS with restarts, and Adam
METHODS = ("sculpt_polish", "sculpt_no_polish", "polish_random", "lbfgs", "adam")
#: the kinds of single start that :func:`single_starts` measures (labels: :data:`START_LABELS`)
START_KINDS = ("sculpted", "other", "perturbed", "perturbed_small", "random")
#: what the book's figures, tables and the sculpt benchmark call each method of :data:`METHODS`
METHOD_LABELS = {
    "sculpt_polish": "sculpt + polish",
    "sculpt_no_polish": "sculpt, no polish",
    "polish_random": "polish from random",
    "lbfgs": "L-BFGS restarts",
    "adam": "Adam",
}
#: what they call each kind of start of :data:`START_KINDS`
START_LABELS = {
    "sculpted": "sculpted candidate",
    "other": "other candidate",
    "perturbed": "half-RMS perturbations",
    "perturbed_small": "0.05-RMS perturbations",
    "random": "random heads",
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


@dataclass(frozen=True, eq=False)
class SingleStarts:
    """What :func:`single_starts` returns: one polish run per start, by kind of start.

    Attributes
    ----------
    residuals : dict of str -> ndarray
        Per kind of start (:data:`START_KINDS`), the relative training residual of
        each run, on all the training data after refitting W (``inf`` where the
        start does not exist: sculpting raised before phase 5).
    errors : dict of str -> ndarray
        The relative test errors of the same layers (``nan`` where the start does not exist).
    seconds : dict of str -> ndarray
        Wall-clock time of each polish run (``nan`` where the start does not exist).
    sculpt_seconds : float
        Phases 1-5 of the sculpting run that made the candidates.
    failed_phase : str or None
        The phase that raised before phase 5 produced candidates, if any.
    """

    residuals: dict
    errors: dict
    seconds: dict
    sculpt_seconds: float
    failed_phase: str | None = None

    @arguments(accept="tol")
    def successes(self, accept: float = 1e-6) -> dict:
        """Per kind of start (:data:`START_KINDS`), how many runs passed the rule (residual at most ``accept``)."""
        return {k: int(np.sum(v <= accept)) for k, v in self.residuals.items()}

    def trials(self) -> dict:
        """Per kind of start, how many runs were counted (starts that do not exist count as failures)."""
        return {k: int(v.size) for k, v in self.residuals.items()}


@arguments(X="cube", Y="array", m="size", X_test="array", Y_test="array", perturbed="size", random="size",
           spreads="array", init_scale="tol", rng="rng")
def single_starts(X, Y, m: int, X_test, Y_test, *, perturbed: int = 4, random: int = 4, spreads=(RESTART_SPREAD, 0.05),
                  init_scale: float = 1.0, rng=None) -> SingleStarts:
    """One polish run from each kind of start, each scored by the one acceptance rule.

    The polish is :func:`polish` (Levenberg-Marquardt on the first examples, as
    in :func:`learn`). Its starts are: the better phase-5 candidate of
    :func:`learn` ("sculpted"), the other one ("other"), ``perturbed`` starts
    near the better one with every Theta_i moved by noise of ``spreads[0]``
    (half) its RMS entry ("perturbed", the restarts of :func:`learn`), as many
    with ``spreads[1]`` ("perturbed_small"), and ``random`` random heads
    ("random", the starts of :func:`polish_from_random`). After each run W is
    refit on all the training data; the run passes when that layer's relative
    training residual is at most ``accept`` (see :meth:`SingleStarts.successes`).

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
        Training examples (X on the hypercube).
    m : int
    X_test, Y_test : array_like of shape (N_test, n, d)
    perturbed : int, default 4
        Starts per perturbation size.
    random : int, default 4
        Random starts.
    spreads : pair of float, default (0.5, 0.05)
        Noise of the two kinds of perturbed start, in units of each head's RMS entry.
    init_scale : float, default 1.0
        ``scale`` of the random starts (:func:`attnlib.random_heads`), as in :func:`polish_from_random`.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    SingleStarts

    Examples
    --------
    >>> from attnlib.sculpt import planted_instance, single_starts
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X, X_test = boolean_inputs(3000, 3, 4, rng=1), boolean_inputs(500, 3, 4, rng=2)
    >>> out = single_starts(X, attention(X, teacher), 2, X_test, attention(X_test, teacher),
    ...                     perturbed=1, random=1, rng=3)
    >>> out.trials()
    {'sculpted': 1, 'other': 1, 'perturbed': 1, 'perturbed_small': 1, 'random': 1}
    >>> out.successes()["sculpted"]
    1
    """
    X, Y = check_data(X, Y)
    m = check_m(m, X.shape[-1])
    X_test, Y_test = check_data(X_test, Y_test, d=X.shape[-1], names=("X_test", "Y_test"))
    if spreads.shape != (2,) or np.any(spreads <= 0):
        raise ValueError(f"spreads must be two positive numbers; received {spreads.tolist()}")
    sculpt_rng, perturb_rng, random_rng = rng.spawn(3)
    start = time.perf_counter()
    failed, report = None, None
    try:
        report = learn(X, Y, m, rng=sculpt_rng, polish=False).report
    except SculptError as err:
        report = err.report
        if report is None or report.candidates is None:
            failed = err.phase
    sculpt_seconds = time.perf_counter() - start
    counts = {"sculpted": 1, "other": 1, "perturbed": perturbed, "perturbed_small": perturbed, "random": random}
    residuals = {k: np.full(c, np.inf) for k, c in counts.items()}
    errors = {k: np.full(c, np.nan) for k, c in counts.items()}
    seconds = {k: np.full(c, np.nan) for k, c in counts.items()}

    def run(kind, j, heads):
        polished, info = polish(X, Y, heads)
        W, res = refit_residual(X, Y, polished.Theta)
        residuals[kind][j] = res
        seconds[kind][j] = info.seconds
        if W is not None:
            errors[kind][j] = relative_test_error(Heads(polished.Theta, W), X_test, Y_test)

    if failed is None:
        better, other = report.candidates.best, report.candidates.other
        run("sculpted", 0, better)
        run("other", 0, other)
        for kind, spread in zip(("perturbed", "perturbed_small"), spreads, strict=True):
            for j in range(perturbed):
                run(kind, j, perturbed_start(X, Y, better, float(spread), perturb_rng))
    for j in range(random):
        run("random", j, random_heads(m, X.shape[-1], scale=init_scale, rng=random_rng))
    return SingleStarts(residuals, errors, seconds, sculpt_seconds, failed)


@arguments(successes="count", trials="size", confidence=interval(0.0, 1.0, low_open=True, high_open=True),
           method=choice("wilson", "clopper-pearson"))
def binomial_interval(successes: int, trials: int, *, confidence: float = 0.95, method: str = "wilson"
                      ) -> tuple[float, float]:
    """A confidence interval for a success probability from ``successes`` of ``trials``.

    Parameters
    ----------
    successes, trials : int
        ``0 <= successes <= trials``, ``trials >= 1``.
    confidence : float, default 0.95
    method : {"wilson", "clopper-pearson"}, default "wilson"
        Wilson's score interval, or the exact (conservative) Clopper-Pearson interval.

    Returns
    -------
    (low, high) : tuple of float
        Within ``[0, 1]``; Wilson's contains ``successes / trials``.

    Notes
    -----
    Wilson: with ``p = k / n`` and ``z`` the two-sided normal quantile,
    ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``. Clopper-Pearson:
    the ``alpha/2`` and ``1 - alpha/2`` quantiles of Beta(k, n - k + 1) and
    Beta(k + 1, n - k), with 0 and 1 at the ends.

    Examples
    --------
    >>> from attnlib.sculpt import binomial_interval
    >>> [round(v, 3) for v in binomial_interval(20, 20)]
    [0.839, 1.0]
    >>> [round(v, 3) for v in binomial_interval(20, 20, method="clopper-pearson")]
    [0.832, 1.0]
    """
    from scipy.special import betaincinv, ndtri

    k, n = successes, trials
    if k > n:
        raise ValueError(f"successes must be at most trials; received successes={k}, trials={n}")
    alpha = 1.0 - confidence
    if method == "wilson":
        z = float(ndtri(1.0 - alpha / 2))
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        low = 0.0 if k == 0 else max(0.0, float(centre - half))  # exactly 0 and 1 at the ends
        high = 1.0 if k == n else min(1.0, float(centre + half))
        return low, high
    low = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, alpha / 2))
    high = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1 - alpha / 2))
    return low, high
