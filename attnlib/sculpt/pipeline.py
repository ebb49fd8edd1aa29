"""The whole pipeline of the book's reconstruction, phase by phase, with a report of each phase."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields

import numpy as np

from .._validation import check_choice, check_flag, check_positive_float, check_positive_int, check_rng
from ..heads import Heads
from ._common import ItemAccess, SculptError, check_data, check_heads, check_m
from .body import Body, prune, sculpt_body
from .candidates import best_scale, certify_candidates, face_candidates, fit_W, net_candidates
from .local import PolishInfo
from .local import polish as _polish
from .proxy import min_norm_proxy, refine_sum_W
from .span import Span, face_span, random_span, spectral_span
from .sum_w import _atom_score, estimate_sum_W

SPAN_METHODS = ("face", "spectral", "random")
RESTART_SPREAD = 0.5  # the polish restarts of learn: noise of half the RMS entry of each Theta_i


@dataclass(frozen=True, eq=False)
class SculptReport(ItemAccess):
    """What each phase of the book's reconstruction produced: :func:`carve` fills phases 1-3,
    :func:`learn` all of them. A field that a failed run did not reach is ``None``.

    Attributes
    ----------
    sum_W_phase1 : ndarray of shape (d, d)
        Phase 1's estimate of sum_i W_i; ``phase1`` is the dict of :func:`estimate_sum_W`.
    sum_W_slice : ndarray of shape (d, d)
        The last slice regression of phase 3 alone; ``slice`` is its dict (:func:`refine_sum_W`).
    sum_W : ndarray of shape (d, d)
        The final estimate (the one with the better atom score), ``atom_score`` its score.
    body : Body
        Certified with ``sum_W``; ``n_constraints`` is its number of halfspaces and
        ``certified_rows`` the rows behind them. ``dropped``: contradicting halfspaces removed by
        :func:`prune`, per round.
    proxy : ndarray of shape (d, d)
        The body's min-norm point.
    span : Span
        Phase 4.
    face_candidate, net_candidate : Heads
        Phase 5's best candidates of each source, with ``face_residual`` and ``net_residual``;
        ``pre_polish_heads`` and ``pre_polish_residual`` are the better one
        (``candidate_source``: ``"face"`` or ``"net"``).
    polish : PolishInfo
        The last polish run.
    starts : int
        Polish runs used; ``start_residuals`` is the relative training residual of each, in order.
    heads : Heads
        The answer, ``residual`` its relative training residual.
    seconds : dict of str -> float
        Wall-clock time per phase.
    """

    sum_W_phase1: np.ndarray | None = None
    phase1: dict | None = None
    sum_W_slice: np.ndarray | None = None
    slice: dict | None = None
    sum_W: np.ndarray | None = None
    atom_score: float | None = None
    body: Body | None = None
    dropped: tuple = ()
    proxy: np.ndarray | None = None
    span: Span | None = None
    face_candidate: Heads | None = None
    face_residual: float | None = None
    net_candidate: Heads | None = None
    net_residual: float | None = None
    candidate_source: str | None = None
    pre_polish_heads: Heads | None = None
    pre_polish_residual: float | None = None
    polish: PolishInfo | None = None
    starts: int = 0
    start_residuals: tuple = ()
    residual: float | None = None
    heads: Heads | None = None
    seconds: dict = field(default_factory=dict)

    @property
    def n_constraints(self) -> int | None:
        return None if self.body is None else self.body.n_constraints

    @property
    def certified_rows(self) -> int | None:
        return None if self.body is None else self.body.certified

    def __repr__(self) -> str:
        reached = [f.name for f in fields(self) if not _empty(getattr(self, f.name))]
        return f"SculptReport({', '.join(reached)})"


def _empty(value) -> bool:
    return value is None or (isinstance(value, (tuple, dict, int)) and not value)


@dataclass(frozen=True, eq=False)
class SculptResult:
    """What :func:`learn` returns.

    Attributes
    ----------
    heads : Heads
        The learned layer (certified: its relative training residual is at most ``tol``).
    report : SculptReport
        Per-phase diagnostics.
    """

    heads: Heads
    report: SculptReport

    def __repr__(self) -> str:
        r = self.report
        return (
            f"SculptResult(heads={self.heads!r}, residual={r.residual:.2e}, "
            f"pre_polish_residual={r.pre_polish_residual:.2e}, halfspaces={r.n_constraints}, starts={r.starts})"
        )


def carve(X, Y, *, rounds: int = 2, delta: float = 0.05, quantile: float = 0.05) -> SculptReport:
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
    SculptReport
        With the fields of phases 1-3 filled: ``sum_W_phase1``, ``phase1``,
        ``sum_W_slice``, ``slice``, ``sum_W``, ``atom_score``, ``body``,
        ``dropped``, ``proxy`` and ``seconds``.

    Raises
    ------
    SculptError
        If nothing is certified (phase 2) or the body is empty (phase 3), with the
        report so far in ``.report``.

    Examples
    --------
    >>> from attnlib.sculpt import carve, planted_instance
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> out = carve(X, attention(X, teacher))
    >>> out.proxy.shape, out.sum_W.shape, out.body.d
    ((4, 4), (4, 4), 4)
    """
    X, Y = check_data(X, Y)
    rounds = check_positive_int("rounds", rounds)
    delta = check_positive_float("delta", delta)
    quantile = check_positive_float("quantile", quantile)
    if quantile > 1:
        raise ValueError(f"quantile must be in (0, 1]; received {quantile}")
    out: dict = {"seconds": {}}
    clock = time.perf_counter()
    S, info = estimate_sum_W(X, Y)
    out.update(sum_W_phase1=S, phase1=info)
    now = time.perf_counter()
    out["seconds"]["phase 1"], clock = now - clock, now
    try:
        _sculpt_rounds(X, Y, S, out, rounds, delta, quantile)
    except SculptError as err:
        err.report = SculptReport(**out)
        raise
    out["seconds"]["phases 2-3"] = time.perf_counter() - clock
    return SculptReport(**out)


def _sculpt_rounds(X, Y, S, out, rounds, delta, quantile):
    score = _atom_score(X, Y, S)
    S_slice, info3 = None, None
    dropped_per_round = []
    for _ in range(rounds):
        # certify within the tolerance the current estimate allows (its atom score)
        body, dropped = prune(sculpt_body(X, Y, S, delta=max(delta, 3.0 * score)))
        dropped_per_round.append(dropped)
        out["dropped"] = tuple(dropped_per_round)
        proxy = min_norm_proxy(body)
        S_slice, info3 = refine_sum_W(X, Y, proxy, quantile=quantile)
        slice_score = _atom_score(X, Y, S_slice)
        if slice_score <= score:
            S, score = S_slice, slice_score
    body, dropped = prune(sculpt_body(X, Y, S, delta=max(delta, 3.0 * score)))
    dropped_per_round.append(dropped)
    proxy = min_norm_proxy(body)
    out.update(sum_W_slice=S_slice, slice=info3, sum_W=S, atom_score=score, body=body,
               dropped=tuple(dropped_per_round), proxy=proxy)


def learn(X, Y, m: int, *, rng=None, polish: bool = True, tol: float = 1e-3, starts: int = 8, rounds: int = 2,
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
        Finish with Levenberg-Marquardt on the exact loss from the phase-5 candidates.
    tol : float, default 1e-3
        The answer must reach relative training residual ``||F - Y|| / ||Y|| <= tol``.
    starts : int, default 8
        Most polish runs: from the better phase-5 candidate, then the other one,
        then from perturbations of the better one (see Notes). The first run
        whose residual is at most ``tol`` is accepted.
    rounds : int, default 2
        Rounds of phase 2 (certify) and phase 3 (refine sum W).
    span : {"face", "spectral", "random"}, default "face"
        Phase-4 method.
    delta, quantile : float
        Certification tolerance (:func:`sculpt_body`) and slice size (:func:`refine_sum_W`).

    Returns
    -------
    SculptResult
        ``.heads`` and ``.report``, a :class:`SculptReport` of every phase
        (among others ``sum_W``, ``proxy``, ``body``, ``span``,
        ``pre_polish_heads``, ``residual``, ``starts``, the polish runs used,
        and ``seconds`` per phase).

    Raises
    ------
    SculptError
        Naming the phase that failed, with the report so far in ``.report``:
        nothing certified (phase 2), an empty body (phase 3), an unbounded or
        infeasible LP (phases 4-5), or a final residual above ``tol``
        ("phase 5" without polish, "polish" with it). Never a silent guess.

    Notes
    -----
    Phases 1-3 are :func:`carve`: phase 1 :func:`estimate_sum_W`; phase 2 :func:`sculpt_body`; phase 3
    :func:`min_norm_proxy` and :func:`refine_sum_W` (phases 2-3 repeat ``rounds``
    times); phase 4 :func:`face_span`; phase 5 :func:`face_candidates`,
    :func:`net_candidates` and :func:`fit_W`; then :func:`polish`. Only the
    abstract of Chen and Li was available to us: this pipeline is the book's
    reconstruction of the idea, not the paper's algorithm, and carries none of
    its guarantees. Chapters 8 and 9.

    Whether one polish run from one candidate reaches the global minimum is
    chaotic: it can flip with the last bits of a BLAS result, i.e. with the
    reader's CPU. So the polish restarts deterministically (the starts are
    drawn from ``rng``) from the other candidate and from the better one with
    every Theta_i moved by Gaussian noise of half its root-mean-square entry (W
    refit by :func:`fit_W`), and accepts by one rule: the relative residual on
    all the training data, after refitting W, is at most ``tol``.

    Examples
    --------
    >>> from attnlib.sculpt import learn, planted_instance
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> result = learn(X, attention(X, teacher), 2, rng=2)
    >>> result.heads, bool(result.report.residual < 1e-3), result.report.starts
    (Heads(m=2, d=4), True, 1)
    """
    X, Y = check_data(X, Y)
    m = check_m(m, X.shape[-1])
    polish = check_flag("polish", polish)
    tol = check_positive_float("tol", tol)
    starts = check_positive_int("starts", starts)
    check_choice("span", span, SPAN_METHODS)
    rng = check_rng(rng)
    report: dict = {"seconds": {}}
    clock = time.perf_counter()

    def lap(name):
        nonlocal clock
        now = time.perf_counter()
        report["seconds"][name] = now - clock
        clock = now

    try:
        sculpted = carve(X, Y, rounds=rounds, delta=delta, quantile=quantile)
        report.update({f.name: getattr(sculpted, f.name) for f in fields(sculpted) if f.name != "seconds"})
        report["seconds"].update(sculpted.seconds)
        body, proxy, S = sculpted.body, sculpted.proxy, sculpted.sum_W
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
        source = "face" if face_res <= net_res else "net"
        pre, pre_res = (face_heads, face_res) if source == "face" else (net_heads, net_res)
        report.update(pre_polish_heads=pre, pre_polish_residual=pre_res, candidate_source=source)
        lap("phase 5")

        heads, res = pre, pre_res
        if polish:
            other = net_heads if source == "face" else face_heads
            heads, res, runs = _polish_from_starts(X, Y, [pre, other], starts, tol, rng)
            report.update(polish=runs[-1][1], starts=len(runs), start_residuals=tuple(r for r, _ in runs))
        report.update(residual=res, heads=heads)
        lap("polish")
    except SculptError as err:
        partial = err.report
        if isinstance(partial, SculptReport):  # a failure inside carve(): its fields, then ours
            report = {**{f.name: getattr(partial, f.name) for f in fields(partial)}, **report}
        err.report = SculptReport(**report)
        raise
    result = SculptReport(**report)
    if not res <= tol:
        stage = "polish" if polish else "phase 5"
        tried = f" after {result.starts} polish starts" if polish else ""
        raise SculptError(stage, f"no candidate is certified{tried}: relative residual {res:.3g} > tol {tol:g}",
                          report=result)
    return SculptResult(heads, result)


def _polish_from_starts(X, Y, candidates, starts, tol, rng):
    """Polish from each start in turn; stop at the first certified one. Returns the best heads, residual and runs."""
    best, best_res, runs = None, np.inf, []
    for k in range(starts):
        if k < len(candidates):
            start = candidates[k]
        else:  # the better candidate, every Theta_i moved by noise of half its RMS entry, W refit
            start = perturbed_start(X, Y, candidates[0], RESTART_SPREAD, rng)
        heads, info = _polish(X, Y, start)
        W, res = fit_W(X, Y, heads.Theta)  # certify on all the data, not just the examples polished on
        runs.append((res, info))
        if res < best_res:
            best, best_res = Heads(heads.Theta, W), res
        if res <= tol:
            break
    return best, best_res, runs


def perturbed_start(X, Y, heads: Heads, spread: float, rng) -> Heads:
    """A start near ``heads``: every Theta_i moved by Gaussian noise of ``spread`` times its RMS entry, W refit.

    The restarts of :func:`learn` (from its third polish start on) are such starts with
    ``spread = 0.5``; :func:`attnlib.sculpt.single_starts` measures them.

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
    >>> from attnlib.sculpt.pipeline import perturbed_start
    >>> heads = random_heads(2, 3, scale=2.0, rng=0)
    >>> X = boolean_inputs(50, 3, 3, rng=1)
    >>> start = perturbed_start(X, attention(X, heads), heads, 0.5, rng=2)
    >>> start, bool(np.all(start.Theta != heads.Theta))
    (Heads(m=2, d=3), True)
    """
    X, Y = check_data(X, Y, boolean=False)
    heads = check_heads(heads, X.shape[-1])
    spread = check_positive_float("spread", spread)
    rng = check_rng(rng)
    Theta = heads.Theta
    rms = np.sqrt(np.mean(Theta**2, axis=(1, 2), keepdims=True))  # (m, 1, 1)
    Theta = Theta + spread * rms * rng.standard_normal(Theta.shape)
    return Heads(Theta, fit_W(X, Y, Theta)[0])
