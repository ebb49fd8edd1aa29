"""Measurements of what each phase knows, against a planted layer (for chapters 7-9 and the benchmark)."""

from __future__ import annotations

import numpy as np

from .._validation import check_rng
from ..attention import attention
from ..heads import Heads
from ..inputs import boolean_inputs
from ._common import SculptError, check_heads
from .compare import relative_test_error
from .instances import min_norm_point, planted_instance
from .pipeline import SculptReport, carve
from .proxy import slice_curve
from .single_head import learn_single_head
from .span import span_alignment
from .sum_w import crude_sum_W


def relative(a, b) -> float:
    """``||a - b|| / ||b||`` in the Frobenius norm: how far an estimate ``a`` is from the truth ``b``.

    Examples
    --------
    >>> from attnlib.sculpt.diagnostics import relative
    >>> relative([1.0, 1.0], [1.0, 0.0])
    1.0
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def cosine(a, b) -> float:
    """Cosine of the angle between two arrays, read as vectors.

    Examples
    --------
    >>> from attnlib.sculpt.diagnostics import cosine
    >>> round(cosine([1.0, 1.0], [1.0, 0.0]), 3)
    0.707
    """
    a, b = np.ravel(a), np.ravel(b)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def phase_diagnostics(report: SculptReport, teacher: Heads, X_test, Y_test) -> dict:
    """Turn a :func:`learn` report into the numbers :func:`attnlib.viz.sculpt.plot_phase_report` draws.

    Parameters
    ----------
    report : SculptReport
        ``learn(...).report``, or the partial report of a :class:`SculptError`.
    teacher : Heads
        The planted layer.
    X_test, Y_test : array_like of shape (N, n, d)

    Returns
    -------
    dict
        ``"sum_W"``: relative errors of the estimates of sum_i W_i (crude, phase 1,
        phase-3 slices, final); ``"geometry"``: cosine of the proxy with
        Theta_star, alignment of the phase-4 span with the offsets
        ``Theta_i - Theta_star``, and the same for a random span (expected
        value ``sqrt((m - 1) / (d^2 - 1))``); ``"errors"``: relative test errors
        of the candidates, the pre-polish layer and the final one; ``"seconds"``.
        Entries the report lacks (a failed phase) are left out.
    """
    teacher = check_heads(teacher)
    S = teacher.W.sum(axis=0)
    star, _ = min_norm_point(teacher.Theta)
    out: dict = {"sum_W": {}, "geometry": {}, "errors": {}, "seconds": dict(report.seconds)}
    if report.phase1 is not None and "crude" in report.phase1.get("candidates", {}):
        out["sum_W"]["crude"] = relative(report.phase1["candidates"]["crude"], S)
    for key, label in (("sum_W_phase1", "phase 1"), ("sum_W_slice", "phase 3"), ("sum_W", "final")):
        if getattr(report, key) is not None:
            out["sum_W"][label] = relative(getattr(report, key), S)
    if report.proxy is not None:
        out["geometry"]["proxy cosine"] = abs(cosine(report.proxy, star))
    if report.span is not None and teacher.m > 1:
        out["geometry"]["span"] = float(np.mean(span_alignment(report.span, teacher.Theta)["offsets"]))
        d, m = teacher.d, teacher.m
        out["geometry"]["random span"] = float(np.sqrt((m - 1) / (d * d - 1)))
    for key, label in (("face_candidate", "face"), ("net_candidate", "net"), ("pre_polish_heads", "pre-polish"),
                       ("heads", "final")):
        if getattr(report, key) is not None:
            out["errors"][label] = relative_test_error(getattr(report, key), X_test, Y_test)
    return out


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
    head = check_heads(head)
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


def slice_threshold_data(scale: float, shared: float, *, d: int = 4, n: int = 3, N: int = 3000, quantiles=None,
                         rng=None) -> tuple[dict, float]:
    """Curves for :func:`attnlib.viz.sculpt.plot_slice_threshold` on one fresh planted instance.

    Returns
    -------
    curves : dict
        ``"true Theta*"`` and, if sculpting succeeds, ``"sculpted proxy"``: the
        relative error of the slice regression at each slice size.
    crude : float
        Relative error of the crude estimate on the same data.
    """
    g = check_rng(rng)
    quantiles = np.geomspace(0.003, 0.5, 10) if quantiles is None else np.asarray(quantiles, dtype=float)
    heads = planted_instance(2, d, scale=scale, shared=shared, check=False, rng=g)
    X = boolean_inputs(N, n, d, rng=g)
    Y = attention(X, heads)
    S = heads.W.sum(axis=0)
    curves = {"true Theta*": slice_curve(X, Y, min_norm_point(heads.Theta)[0], S, quantiles)}
    try:
        curves["sculpted proxy"] = slice_curve(X, Y, carve(X, Y).proxy, S, quantiles)
    except SculptError:
        pass
    return curves, relative(crude_sum_W(X, Y), S)

