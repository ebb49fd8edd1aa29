"""Measurements of what each phase knows, against a planted layer (for chapters 7-9 and the benchmark)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance, interval
from ..attention import attention
from ..heads import Heads
from ..inputs import boolean_inputs
from ._common import SculptError, check_data
from .compare import relative_test_error
from .instances import min_norm_point, planted_instance
from .pipeline import PhaseSeconds, SculptReport, carve
from .proxy import slice_curve
from .single_head import learn_single_head
from .span import span_alignment
from .sum_w import crude_sum_W


@arguments(a="array", b="array")
def relative(a, b) -> float:
    """``||a - b|| / ||b||`` in the Frobenius norm: how far an estimate ``a`` is from the truth ``b``.

    Examples
    --------
    >>> from attnlib.sculpt.diagnostics import relative
    >>> relative([1.0, 1.0], [1.0, 0.0])
    1.0
    """
    if a.shape != b.shape or not np.any(b):
        raise ValueError(f"a and b must have one shape and b must be nonzero; received shapes {a.shape} and "
                         f"{b.shape}{'' if np.any(b) else ', b zero'}")
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


@arguments(a="array", b="array")
def cosine(a, b) -> float:
    """Cosine of the angle between two arrays, read as vectors.

    Examples
    --------
    >>> from attnlib.sculpt.diagnostics import cosine
    >>> round(cosine([1.0, 1.0], [1.0, 0.0]), 3)
    0.707
    """
    a, b = np.ravel(a), np.ravel(b)
    if a.shape != b.shape or not (np.any(a) and np.any(b)):
        raise ValueError(f"a and b must have as many entries and be nonzero; received {a.size} and {b.size} entries")
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@dataclass(frozen=True)
class SumWErrors:
    """Relative errors ``||S - sum_i W_i|| / ||sum_i W_i||`` of a run's estimates (``None``: not reached).

    ``crude`` (:func:`crude_sum_W`), ``phase1`` (the estimate phase 1 chose), ``slice`` (the last slice
    regression of phase 3) and ``final`` (the estimate the body was certified with).
    """

    crude: float | None = None
    phase1: float | None = None
    slice: float | None = None
    final: float | None = None


@dataclass(frozen=True)
class Geometry:
    """What phases 3-4 found, as numbers in [0, 1] (``None``: not reached, or one head).

    ``proxy_cosine``: |cosine| of the proxy with the heads' min-norm point Theta*; ``span``: the mean
    alignment of the phase-4 span with the offsets ``Theta_i - Theta*``
    (:attr:`SpanAlignment.mean_offset`); ``random_span``: the same expected of a random span,
    ``sqrt((m - 1) / (d^2 - 1))``.
    """

    proxy_cosine: float | None = None
    span: float | None = None
    random_span: float | None = None


@dataclass(frozen=True)
class LayerErrors:
    """Relative test errors of a run's layers (``None``: not reached).

    ``face`` and ``net``: phase 5's candidates; ``pre_polish``: the better one; ``final``: the answer.
    """

    face: float | None = None
    net: float | None = None
    pre_polish: float | None = None
    final: float | None = None


@dataclass(frozen=True)
class PhaseDiagnostics:
    """What each phase of a run knows, against the planted layer (:func:`phase_diagnostics`).

    Attributes
    ----------
    sum_W : SumWErrors
    geometry : Geometry
    errors : LayerErrors
    seconds : PhaseSeconds
        The run's own.
    """

    sum_W: SumWErrors
    geometry: Geometry
    errors: LayerErrors
    seconds: PhaseSeconds


@arguments(report=instance(SculptReport, where="learn(...).report or a SculptError's .report"), teacher="heads",
           X_test="array", Y_test="array")
def phase_diagnostics(report: SculptReport, teacher: Heads, X_test, Y_test) -> PhaseDiagnostics:
    """Measure a :func:`learn` report against the planted layer: what :func:`attnlib.viz.sculpt.plot_phase_report`
    draws.

    Parameters
    ----------
    report : SculptReport
        ``learn(...).report``, or the partial report of a :class:`SculptError`.
    teacher : Heads
        The planted layer.
    X_test, Y_test : array_like of shape (N, n, d)

    Returns
    -------
    PhaseDiagnostics
        Entries the report lacks (a failed phase) are ``None``.

    Examples
    --------
    >>> from attnlib.sculpt import learn, planted_instance
    >>> from attnlib.sculpt.diagnostics import phase_diagnostics
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X, X_test = boolean_inputs(3000, 3, 4, rng=1), boolean_inputs(500, 3, 4, rng=2)
    >>> report = learn(X, attention(X, teacher), 2, rng=3).report
    >>> found = phase_diagnostics(report, teacher, X_test, attention(X_test, teacher))
    >>> bool(found.errors.final < 1e-8), found.geometry.random_span == (1 / 15) ** 0.5
    (True, True)
    """
    X_test, Y_test = check_data(X_test, Y_test, d=teacher.d, names=("X_test", "Y_test"))
    S = teacher.W.sum(axis=0)
    return PhaseDiagnostics(_sum_W_errors(report, S), _geometry(report, teacher),
                            _test_errors(report, X_test, Y_test), report.seconds)


#: what the book's phase report (``attnlib.viz.sculpt.plot_phase_report``) and the sculpt benchmark call
#: each entry of a :class:`PhaseDiagnostics`, panel by panel
PHASE_REPORT_LABELS = {
    "sum_W": {"crude": "crude", "phase1": "phase 1", "slice": "phase 3", "final": "final"},
    "geometry": {"proxy_cosine": "proxy cosine", "span": "span", "random_span": "random span"},
    "errors": {"face": "face", "net": "net", "pre_polish": "pre-polish", "final": "final"},
    "seconds": {"sum_w": "phase 1", "sculpted": "phases 2-3", "span": "phase 4", "candidates": "phase 5",
                "polish": "polish"},
}


@arguments(diagnostics=instance(PhaseDiagnostics))
def phase_report_entries(diagnostics: PhaseDiagnostics) -> dict:
    """The entries of a run's diagnostics under their labels, panel by panel (the ones the run reached).

    Returns
    -------
    dict of str -> dict of str -> float
        ``{"sum_W": {"crude": ..., "phase 1": ...}, "geometry": ..., "errors": ..., "seconds": ...}``.
    """
    return {panel: {label: getattr(getattr(diagnostics, panel), name) for name, label in labels.items()
                    if getattr(getattr(diagnostics, panel), name) is not None}
            for panel, labels in PHASE_REPORT_LABELS.items()}


def _sum_W_errors(report: SculptReport, S: np.ndarray) -> SumWErrors:
    p1, s = report.sum_w, report.sculpted
    return SumWErrors(
        crude=None if p1 is None else relative(p1.candidates.crude, S),
        phase1=None if p1 is None else relative(p1.estimate, S),
        slice=None if s is None else relative(s.slice.estimate, S),
        final=None if s is None else relative(s.sum_W, S),
    )


def _geometry(report: SculptReport, teacher: Heads) -> Geometry:
    star, _ = min_norm_point(teacher.Theta)
    s, several = report.sculpted, teacher.m > 1
    return Geometry(
        proxy_cosine=None if s is None else abs(cosine(s.proxy, star)),
        span=span_alignment(report.span, teacher.Theta).mean_offset if report.span is not None and several else None,
        random_span=float(np.sqrt((teacher.m - 1) / (teacher.d**2 - 1))) if report.span is not None and several
        else None,
    )


def _test_errors(report: SculptReport, X_test, Y_test) -> LayerErrors:
    c = report.candidates
    return LayerErrors(
        face=None if c is None else relative_test_error(c.face, X_test, Y_test),
        net=None if c is None else relative_test_error(c.net, X_test, Y_test),
        pre_polish=None if c is None else relative_test_error(c.best, X_test, Y_test),
        final=None if report.heads is None else relative_test_error(report.heads, X_test, Y_test),
    )


@arguments(X="array", Y="array", head="heads", sizes="sizes")
def single_head_curve(X, Y, head: Heads, sizes) -> tuple[np.ndarray, np.ndarray]:
    """Relative errors of W and Theta learned from the first N examples, for each N in ``sizes``.

    A size at which :func:`learn_single_head` raises (too few examples) gets error 1.

    Examples
    --------
    >>> from attnlib.sculpt.diagnostics import single_head_curve
    >>> head = random_heads(1, 4, rng=0)
    >>> X = boolean_inputs(40, 3, 4, rng=1)
    >>> err_W, err_T = single_head_curve(X, attention(X, head), head, [2, 40])
    >>> float(err_W[0]), bool(err_W[1] < 1e-8)
    (1.0, True)
    """
    X, Y = check_data(X, Y, d=head.d)
    if head.m != 1:
        raise ValueError(f"head must be one head (m = 1); received {head!r}")
    err_W, err_T = [], []
    for N in sizes:
        try:
            learned = learn_single_head(X[:N], Y[:N])
            err_W.append(relative(learned.W, head.W))
            err_T.append(relative(learned.Theta, head.Theta))
        except SculptError:
            err_W.append(1.0)
            err_T.append(1.0)
    return np.array(err_W), np.array(err_T)


@dataclass(frozen=True, eq=False)
class SliceCurves:
    """What :func:`slice_threshold_data` returns: the error of phase 3's slice regression at each slice size.

    Attributes
    ----------
    quantiles : ndarray of shape (Q,)
        Slice sizes, as fractions of the rows.
    true_proxy : ndarray of shape (Q,)
        Relative error of the estimate of ``sum_i W_i`` from slices cut by the heads' own min-norm point.
    sculpted_proxy : ndarray of shape (Q,) or None
        The same with slices cut by the proxy that :func:`carve` sculpted (None if sculpting failed).
    crude : float
        Relative error of the crude estimate (:func:`crude_sum_W`) on the same data.
    """

    quantiles: np.ndarray
    true_proxy: np.ndarray
    sculpted_proxy: np.ndarray | None
    crude: float


@arguments(scale="tol", shared=interval(0.0, 1.0, high_open=True), d="size", n="size", N="size", quantiles="optarray",
           rng="rng")
def slice_threshold_data(scale: float, shared: float, *, d: int = 4, n: int = 3, N: int = 3000, quantiles=None,
                         rng=None) -> SliceCurves:
    """Curves for :func:`attnlib.viz.sculpt.plot_slice_threshold` on one fresh planted instance of two heads.

    Parameters
    ----------
    scale, shared : float
        The instance (:func:`planted_instance`, drawn without checking its conditions).
    d, n, N : int
        Token dimension, tokens per sequence, examples.
    quantiles : array_like of numbers in (0, 1], optional
        Slice sizes (default ten from 0.003 to 0.5).
    rng : int, numpy.random.Generator or None

    Returns
    -------
    SliceCurves

    Examples
    --------
    >>> from attnlib.sculpt.diagnostics import slice_threshold_data
    >>> curves = slice_threshold_data(8.0, 0.8, quantiles=[0.01, 0.5], rng=0)
    >>> curves.true_proxy.shape, bool(curves.crude > curves.true_proxy.min())
    ((2,), True)
    """
    quantiles = np.geomspace(0.003, 0.5, 10) if quantiles is None else quantiles
    heads = planted_instance(2, d, scale=scale, shared=shared, check=False, rng=rng)
    X = boolean_inputs(N, n, d, rng=rng)
    Y = attention(X, heads)
    S = heads.W.sum(axis=0)
    true_proxy = slice_curve(X, Y, min_norm_point(heads.Theta)[0], S, quantiles)
    try:
        sculpted = slice_curve(X, Y, carve(X, Y).sculpted.proxy, S, quantiles)
    except SculptError:
        sculpted = None
    return SliceCurves(quantiles, true_proxy, sculpted, relative(crude_sum_W(X, Y), S))
