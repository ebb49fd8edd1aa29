"""The whole pipeline of the book's reconstruction, phase by phase, with a report of each phase."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_float, check_positive_int
from ..heads import Heads
from ._common import SculptError, check_data, check_m
from .body import prune, sculpt_body
from .candidates import best_scale, certify_candidates, face_candidates, fit_W, net_candidates
from .local import polish as _polish
from .proxy import min_norm_proxy, refine_sum_W
from .span import face_span, random_span, spectral_span
from .sum_w import atom_score, estimate_sum_W

SPAN_METHODS = ("face", "spectral", "random")


@dataclass(frozen=True, eq=False)
class SculptResult:
    """What :func:`learn` returns.

    Attributes
    ----------
    heads : Heads
        The learned layer (certified: its relative training residual is at most ``tol``).
    report : dict
        Per-phase diagnostics; see :func:`learn`.
    """

    heads: Heads
    report: dict

    def __repr__(self) -> str:
        r = self.report
        return (
            f"SculptResult(heads={self.heads!r}, residual={r['residual']:.2e}, "
            f"pre_polish_residual={r['pre_polish_residual']:.2e}, halfspaces={r['n_constraints']})"
        )


def sculpt(X, Y, *, rounds: int = 2, delta: float = 0.05, quantile: float = 0.05) -> dict:
    """Phases 1-3: estimate sum_i W_i, sculpt the body, take its min-norm proxy, refine the sum.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    rounds : int, default 2
        Rounds of certification (phase 2) and slice regression (phase 3).
    delta : float, default 0.05
        Smallest relative certification tolerance; a round certifies within
        ``max(delta, 3 * atom_score)`` of the current estimate.
    quantile : float, default 0.05
        Slice size of phase 3.

    Returns
    -------
    dict
        ``"sum_W_phase1"`` and ``"phase1"`` (:func:`estimate_sum_W`),
        ``"sum_W_slice"`` (the last slice regression, phase 3 alone),
        ``"sum_W"`` (the estimate with the better atom score), ``"atom_score"``,
        ``"body"`` (certified with ``"sum_W"``), ``"n_constraints"``,
        ``"certified_rows"``, ``"dropped"`` (contradicting halfspaces removed by
        :func:`prune`, per round), ``"proxy"``, ``"seconds"``.

    Raises
    ------
    SculptError
        If nothing is certified (phase 2) or the body is empty (phase 3).

    Examples
    --------
    >>> from attnlib.sculpt import planted_instance, sculpt
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> out = sculpt(X, attention(X, teacher))
    >>> out["proxy"].shape, out["sum_W"].shape, out["body"].d
    ((4, 4), (4, 4), 4)
    """
    X, Y = check_data(X, Y)
    rounds = check_positive_int("rounds", rounds)
    out: dict = {"seconds": {}}
    clock = time.perf_counter()
    S, info = estimate_sum_W(X, Y)
    out.update(sum_W_phase1=S, phase1=info)
    now = time.perf_counter()
    out["seconds"]["phase 1"], clock = now - clock, now
    try:
        _sculpt_rounds(X, Y, S, out, rounds, delta, quantile)
    except SculptError as err:
        err.report = out
        raise
    out["seconds"]["phases 2-3"] = time.perf_counter() - clock
    return out


def _sculpt_rounds(X, Y, S, out, rounds, delta, quantile):
    score = atom_score(X, Y, S)
    S_slice = None
    out["dropped"] = []
    for _ in range(rounds):
        # certify within the tolerance the current estimate allows (its atom score)
        body, dropped = prune(sculpt_body(X, Y, S, delta=max(delta, 3.0 * score)))
        out["dropped"].append(dropped)
        proxy = min_norm_proxy(body)
        S_slice, info3 = refine_sum_W(X, Y, proxy, quantile=quantile)
        slice_score = atom_score(X, Y, S_slice)
        if slice_score <= score:
            S, score = S_slice, slice_score
    body, dropped = prune(sculpt_body(X, Y, S, delta=max(delta, 3.0 * score)))
    out["dropped"].append(dropped)
    proxy = min_norm_proxy(body)
    out.update(sum_W_slice=S_slice, slice=info3, sum_W=S, atom_score=score, body=body,
               n_constraints=body.n_constraints, certified_rows=body.certified, proxy=proxy)


def learn(X, Y, m: int, *, rng=None, polish: bool = True, tol: float = 1e-3, rounds: int = 2,
          span: str = "face", delta: float = 0.05, quantile: float = 0.05) -> SculptResult:
    """Learn an m-head softmax layer from Boolean examples by sculpting (the book's reconstruction).

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
        Labels at every position, ``Y = attention(X, teacher)``.
    m : int
        Number of heads.
    rng : int, numpy.random.Generator or None
        Drives the random directions of phase 4.
    polish : bool, default True
        Finish with Levenberg-Marquardt on the exact loss from the phase-5 candidate.
    tol : float, default 1e-3
        The answer must reach relative training residual ``||F - Y|| / ||Y|| <= tol``.
    rounds : int, default 2
        Rounds of phase 2 (certify) and phase 3 (refine sum W).
    span : {"face", "spectral", "random"}, default "face"
        Phase-4 method.
    delta, quantile : float
        Certification tolerance (:func:`sculpt_body`) and slice size (:func:`refine_sum_W`).

    Returns
    -------
    SculptResult
        ``.heads`` and ``.report``, a dict with (among others) ``"sum_W"`` (d x d,
        the final estimate of sum_i W_i), ``"sum_W_phase1"``, ``"sum_W_slice"``
        (the phase-3 regression alone), ``"proxy"`` (d x d, the min-norm proxy),
        ``"body"``, ``"n_constraints"``, ``"span"``, ``"pre_polish_heads"``,
        ``"pre_polish_residual"``, ``"residual"`` and ``"seconds"`` (per phase).

    Raises
    ------
    SculptError
        Naming the phase that failed, with the report so far in ``.report``:
        nothing certified (phase 2), an empty body (phase 3), an unbounded or
        infeasible LP (phases 4-5), or a final residual above ``tol``
        ("phase 5" without polish, "polish" with it). Never a silent guess.

    Notes
    -----
    Phase 1 :func:`estimate_sum_W`; phase 2 :func:`sculpt_body`; phase 3
    :func:`min_norm_proxy` and :func:`refine_sum_W` (phases 2-3 repeat ``rounds``
    times); phase 4 :func:`face_span`; phase 5 :func:`face_candidates`,
    :func:`net_candidates` and :func:`fit_W`; then :func:`polish`. Only the
    abstract of Chen and Li was available to us: this pipeline is the book's
    reconstruction of the idea, not the paper's algorithm, and carries none of
    its guarantees. Chapters 8 and 9.

    Examples
    --------
    >>> from attnlib.sculpt import learn, planted_instance
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> result = learn(X, attention(X, teacher), 2, rng=2)
    >>> result.heads, bool(result.report["residual"] < 1e-3)
    (Heads(m=2, d=4), True)
    """
    rng = np.random.default_rng(rng)
    X, Y = check_data(X, Y)
    m = check_m(m)
    tol = check_positive_float("tol", tol)
    if span not in SPAN_METHODS:
        raise ValueError(f"span must be one of {SPAN_METHODS}; received {span!r}")
    report: dict = {"seconds": {}}
    clock = time.perf_counter()

    def lap(name):
        nonlocal clock
        now = time.perf_counter()
        report["seconds"][name] = now - clock
        clock = now

    try:
        sculpted = sculpt(X, Y, rounds=rounds, delta=delta, quantile=quantile)
        report.update(sculpted)
        body, proxy, S = sculpted["body"], sculpted["proxy"], sculpted["sum_W"]
        report["seconds"].update(sculpted["seconds"])
        clock = time.perf_counter()

        if span == "face":
            sp = face_span(body, proxy, m, rng=rng)
        elif span == "spectral":
            sp = spectral_span(X, Y, S, proxy, m)
        else:
            sp = random_span(proxy, m, rng=rng)
        report["span"] = sp
        lap("phase 4")

        face_heads, face_res, _ = best_scale(X, Y, face_candidates(body, sp, m))
        net_heads, net_res, _ = certify_candidates(X, Y, net_candidates(sp, m, rng=rng))
        report.update(face_candidate=face_heads, face_residual=face_res, net_candidate=net_heads, net_residual=net_res)
        pre, pre_res = (face_heads, face_res) if face_res <= net_res else (net_heads, net_res)
        report.update(pre_polish_heads=pre, pre_polish_residual=pre_res,
                      candidate_source="face" if face_res <= net_res else "net")
        lap("phase 5")

        heads, res = pre, pre_res
        if polish:
            heads, info = _polish(X, Y, pre)
            W, res = fit_W(X, Y, heads.Theta)
            heads = Heads(heads.Theta, W)
            report["polish"] = info
        report.update(residual=res, heads=heads)
        lap("polish")
    except SculptError as err:
        err.report = {**report, **(err.report or {})}
        raise
    if not res <= tol:
        stage = "polish" if polish else "phase 5"
        raise SculptError(stage, f"no candidate is certified: relative residual {res:.3g} > tol {tol:g}",
                          report=report)
    return SculptResult(heads, report)
