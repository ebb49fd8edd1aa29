"""The whole pipeline of the book's reconstruction, phase by phase, with a typed report of each phase.

The phase plan, written here once (the package's docstring, :func:`learn` and the chapters refer
to it). Each phase is one call that returns its own result; the :class:`SculptReport` is their
composition, one field per phase (:data:`PHASES`):

1. phase 1, :func:`estimate_sum_W` (module ``sum_w``): sum_i W_i from the labels alone, a
   :class:`SumWEstimate`;
2. phases 2-3, :func:`sculpt_rounds` (modules ``body`` and ``proxy``): :func:`sculpt_body` and
   :func:`prune`, then :func:`min_norm_proxy` and :func:`refine_sum_W`, ``rounds`` times, a
   :class:`Sculpted`;
3. phase 4, :func:`find_span` (module ``span``): the span of the Theta_i, a :class:`Span`;
4. phase 5, :func:`span_candidates` (module ``candidates``): face and net candidates, their W by
   :func:`fit_W`, a :class:`Candidates`;
5. the polish, :func:`polish_starts` (module ``local``): Levenberg-Marquardt from the candidates,
   a :class:`PolishRuns`.

:func:`carve` runs phases 1-3 and :func:`learn` all of them. Only the abstract of Chen and Li was
available to us: this pipeline is the book's reconstruction of the idea, not the paper's
algorithm, and carries none of its guarantees (chapters 7-9).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, replace

from .._arguments import arguments, choice
from ..heads import Heads
from ._common import SculptError, check_data, check_m, check_nonzero_labels
from .candidates import Candidates, span_candidates
from .local import PolishRuns, polish_starts
from .proxy import Sculpted, sculpt_rounds
from .span import SPAN_METHODS, Span, find_span
from .sum_w import SumWEstimate, estimate_sum_W

#: the report's phases, in order: the field that holds each one's result
PHASES = ("sum_w", "sculpted", "span", "candidates", "polish")


@dataclass(frozen=True)
class PhaseSeconds:
    """Wall-clock seconds of each phase of a run (``None`` for a phase the run did not reach).

    The fields are those of :class:`SculptReport`: ``sum_w`` (phase 1), ``sculpted`` (phases 2-3),
    ``span`` (phase 4), ``candidates`` (phase 5) and ``polish``.
    """

    sum_w: float | None = None
    sculpted: float | None = None
    span: float | None = None
    candidates: float | None = None
    polish: float | None = None

    @property
    def total(self) -> float:
        """The seconds of every phase reached."""
        return float(sum(getattr(self, name) or 0.0 for name in PHASES))


@dataclass(frozen=True, eq=False)
class SculptReport:
    """What each phase of the book's reconstruction produced: :func:`carve` fills phases 1-3,
    :func:`learn` all of them. A phase that a failed run did not reach is ``None``.

    Attributes
    ----------
    sum_w : SumWEstimate
        Phase 1 (:func:`estimate_sum_W`): every estimate of ``sum_i W_i`` and the one chosen,
        e.g. ``report.sum_w.candidates.crude``.
    sculpted : Sculpted
        Phases 2-3 (:func:`sculpt_rounds`): the body, its min-norm proxy, the slice regression and
        the refined ``sum_W``.
    span : Span
        Phase 4 (:func:`find_span`).
    candidates : Candidates
        Phase 5 (:func:`span_candidates`): the best candidate of the face and of the net.
    polish : PolishRuns
        The polish (:func:`polish_starts`), if it ran.
    seconds : PhaseSeconds
        Wall-clock time per phase.
    """

    sum_w: SumWEstimate | None = None
    sculpted: Sculpted | None = None
    span: Span | None = None
    candidates: Candidates | None = None
    polish: PolishRuns | None = None
    seconds: PhaseSeconds = PhaseSeconds()

    @property
    def heads(self) -> Heads | None:
        """The answer so far: the polished layer, else phase 5's better candidate (``None`` before phase 5)."""
        if self.polish is not None:
            return self.polish.heads
        return None if self.candidates is None else self.candidates.best

    @property
    def residual(self) -> float | None:
        """The relative training residual ``||F(X) - Y|| / ||Y||`` of :attr:`heads`."""
        if self.polish is not None:
            return self.polish.residual
        return None if self.candidates is None else self.candidates.best_residual

    def __repr__(self) -> str:
        reached = [name for name in PHASES if getattr(self, name) is not None]
        return f"SculptReport(phases reached: {', '.join(reached) or 'none'})"


@dataclass(frozen=True, eq=False)
class SculptResult:
    """What :func:`learn` returns.

    Attributes
    ----------
    heads : Heads
        The learned layer (certified: its relative training residual is at most ``tol``).
    report : SculptReport
        Per-phase results.
    """

    heads: Heads
    report: SculptReport

    def __repr__(self) -> str:
        r = self.report
        starts = 0 if r.polish is None else r.polish.starts
        return (f"SculptResult(heads={self.heads!r}, residual={r.residual:.2e}, "
                f"pre_polish_residual={r.candidates.best_residual:.2e}, "
                f"halfspaces={r.sculpted.body.n_constraints}, starts={starts})")


class _Draft:
    """The report of a run so far, phase by phase, timed; a SculptError leaves with it as ``.report``."""

    def __init__(self):
        self.report = SculptReport()
        self.clock = time.perf_counter()

    def add(self, phase: str, result):
        """Record one phase's result and the seconds since the last one; return the result."""
        now = time.perf_counter()
        seconds = replace(self.report.seconds, **{phase: now - self.clock})
        self.report, self.clock = replace(self.report, **{phase: result, "seconds": seconds}), now
        return result

    def extend(self, earlier: SculptReport) -> SculptReport:
        """Take the phases (and their seconds) of a report made by an inner call, e.g. :func:`carve`."""
        self.report = _merge(earlier, self.report)
        self.clock = time.perf_counter()
        return self.report

    def __enter__(self):
        return self

    def __exit__(self, kind, err, traceback):
        if isinstance(err, SculptError):
            err.report = self.report if err.report is None else _merge(err.report, self.report)
        return False


def _merge(first: SculptReport, then: SculptReport) -> SculptReport:
    """The phases of ``first``, with those ``then`` reached as well."""
    phases = {name: getattr(then, name) for name in PHASES if getattr(then, name) is not None}
    seconds = {f.name: getattr(then.seconds, f.name) for f in fields(PhaseSeconds)
               if getattr(then.seconds, f.name) is not None}
    return replace(first, **phases, seconds=replace(first.seconds, **seconds))


@arguments(X="cube", Y="array", rounds="size", delta="tol", quantile="fraction")
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
        With phases 1-3 filled: ``sum_w`` (:func:`estimate_sum_W`), ``sculpted``
        (:func:`sculpt_rounds`) and their ``seconds``.

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
    >>> out.sculpted.proxy.shape, out.sculpted.sum_W.shape, out.sculpted.body.d
    ((4, 4), (4, 4), 4)
    """
    X, Y = check_data(X, Y)
    check_nonzero_labels("Y", Y)
    with _Draft() as draft:
        phase1 = draft.add("sum_w", estimate_sum_W(X, Y))
        draft.add("sculpted", sculpt_rounds(X, Y, phase1.estimate, rounds=rounds, delta=delta, quantile=quantile))
    return draft.report


@arguments(X="cube", Y="array", m="size", rng="rng", polish="flag", tol="tol", starts="size", rounds="size",
           span=choice(*SPAN_METHODS), delta="tol", quantile="fraction")
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
        Drives the random directions of phase 4, the net of phase 5 and the polish restarts.
    polish : bool, default True
        Finish with Levenberg-Marquardt on the exact loss from the phase-5 candidates.
    tol : float, default 1e-3
        The answer must reach relative training residual ``||F - Y|| / ||Y|| <= tol``.
    starts : int, default 8
        Most polish runs (:func:`polish_starts`).
    rounds : int, default 2
        Rounds of phase 2 (certify) and phase 3 (refine sum W).
    span : {"face", "spectral", "random"}, default "face"
        Phase-4 method.
    delta, quantile : float
        Certification tolerance (:func:`sculpt_body`) and slice size (:func:`refine_sum_W`).

    Returns
    -------
    SculptResult
        ``.heads`` and ``.report``, a :class:`SculptReport` of every phase.

    Raises
    ------
    SculptError
        Naming the phase that failed, with the report so far in ``.report``:
        nothing certified (phase 2), an empty body (phase 3), an unbounded or
        infeasible LP (phases 4-5), or a final residual above ``tol``
        ("phase 5" without polish, "polish" with it). Never a silent guess.

    Notes
    -----
    One call per phase, in the order of the phase plan (:mod:`attnlib.sculpt.pipeline`). The
    book's reconstruction, not Chen and Li's algorithm (chapters 8 and 9). Why the polish
    restarts: :func:`polish_starts`.

    Examples
    --------
    >>> from attnlib.sculpt import learn, planted_instance
    >>> teacher = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(3000, 3, 4, rng=1)
    >>> result = learn(X, attention(X, teacher), 2, rng=2)
    >>> result.heads, bool(result.report.residual < 1e-3), result.report.polish.starts
    (Heads(m=2, d=4), True, 1)
    """
    X, Y = check_data(X, Y)
    m = check_m(m, X.shape[-1])
    with _Draft() as draft:
        carved = draft.extend(carve(X, Y, rounds=rounds, delta=delta, quantile=quantile)).sculpted  # phases 1-3
        found = draft.add("span", find_span(X, Y, carved, m, method=span, rng=rng))  # phase 4
        candidates = draft.add("candidates", span_candidates(X, Y, carved.body, found, m, rng=rng))  # phase 5
        if polish:
            draft.add("polish", polish_starts(X, Y, candidates, starts=starts, tol=tol, rng=rng))
    report = draft.report
    if not report.residual <= tol:
        tried = f" after {report.polish.starts} polish starts" if polish else ""
        raise SculptError("polish" if polish else "phase 5",
                          f"no candidate is certified{tried}: relative residual {report.residual:.3g} > tol {tol:g}",
                          report=report)
    return SculptResult(report.heads, report)
