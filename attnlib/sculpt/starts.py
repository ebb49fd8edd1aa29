"""How often a *single* start passes the acceptance rule, and an interval on a rate (chapter 9).

:func:`single_starts` runs the polish of :func:`learn` once from each kind of start (the sculpted
candidates, perturbations of them, random heads), and scores each by the one acceptance rule of
:mod:`attnlib.sculpt.compare`; :func:`binomial_interval` puts a confidence interval on a success
rate, as the book's tables of rates do.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, choice, interval
from ..heads import Heads, random_heads
from ._common import SculptError, check_data, check_m
from .compare import relative_test_error
from .local import RESTART_SPREAD, perturbed_start, polish, refit_residual
from .pipeline import learn

#: the kinds of single start that :func:`single_starts` measures (labels: :data:`START_LABELS`)
START_KINDS = ("sculpted", "other", "perturbed", "perturbed_small", "random")
#: what they call each kind of start of :data:`START_KINDS`
START_LABELS = {
    "sculpted": "sculpted candidate",
    "other": "other candidate",
    "perturbed": "half-RMS perturbations",
    "perturbed_small": "0.05-RMS perturbations",
    "random": "random heads",
}


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
