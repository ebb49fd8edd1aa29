"""Bad input to attnlib.sculpt: one valid call per public function, the bad values generated from the
declarations (tests/_declared.py), and the reproducers whose messages are pinned."""

import numpy as np
import pytest
from _declared import Call, bad_argument_test, coverage_tests

from attnlib import attention, boolean_inputs, sculpt
from attnlib.sculpt import diagnostics as sd

TEACHER = sculpt.planted_instance(2, 4, rng=0)
XS = boolean_inputs(40, 3, 4, rng=1)
YS = attention(XS, TEACHER)
S = TEACHER.W.sum(0)
CERTS = sculpt.certify(XS, YS, S)
body = sculpt.sculpt_body(XS, YS, S)
proxy = sculpt.min_norm_proxy(body)
span = sculpt.random_span(proxy, 2, rng=0)
SPAN = sculpt.face_span(body, proxy, 2, rng=0)
square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
candidates = sculpt.Candidates(TEACHER, 0.1, TEACHER, 0.2)
sculpted = sculpt.sculpt_rounds(XS, YS, S)
report = sculpt.carve(XS, YS)
diag = sd.phase_diagnostics(report, TEACHER, XS, YS)
starts = sculpt.single_starts(XS, YS, 2, XS, YS, rng=0)

CALLS = [
    # sculpt: the hypercube, one head, the planted instances (chapter 7)
    Call(sculpt.all_tokens, 3),
    Call(sculpt.gap_feature, XS[0, 0], XS[0, 1], XS[0, 2]),
    Call(sculpt.logit_gaps, XS, TEACHER.Theta[0]),
    Call(sculpt.gap_feature_rank, 2, samples=10),
    Call(sculpt.fourth_moment, np.ones(4)),
    Call(sculpt.constant_sequences, XS),
    Call(sculpt.learn_single_head, XS, attention(XS, TEACHER[0])),
    Call(sculpt.min_norm_point, TEACHER.Theta),
    Call(sculpt.planted_instance, 2, 4),
    Call(sculpt.measure_conditions, TEACHER),
    # phase 1
    Call(sculpt.crude_sum_W, XS, YS),
    Call(sculpt.constant_sum_W, XS, YS),
    Call(sculpt.atom_residuals, XS, YS, S),
    Call(sculpt.atom_score, XS, YS, S),
    Call(sculpt.trimmed_sum_W, XS, YS, S),
    Call(sculpt.estimate_sum_W, XS, YS),
    Call(sculpt.SumWCandidates(S, S).get, "crude"),
    Call(sculpt.AtomScores(0.1, 0.2).get, "trimmed"),
    # phase 2
    Call(sculpt.certify, XS, YS, S),
    Call(sculpt.halfspaces, XS, CERTS),
    Call(sculpt.sculpt_body, XS, YS, S),
    Call(body.slack, TEACHER.Theta),
    Call(body.contains, TEACHER.Theta),
    Call(body.with_bound, 3.0),
    Call(sculpt.support, sculpt.Body(np.eye(2)[None], gamma=1.0, bound=3.0, certified=1), -np.eye(2)),
    Call(sculpt.prune, body),
    Call(sculpt.feasible_point, body),
    Call(sculpt.body_slice, body, proxy, np.eye(16)[:2].reshape(2, 4, 4)),
    Call(sculpt.clip_polygon, square, 1.0, 0.0, 0.5),
    # the face of the body in the plane of two heads (chapter 8's figures)
    Call(sculpt.head_plane, TEACHER),
    Call(sculpt.clip_edges, square, 1.0),
    Call(sculpt.plane_coordinates, np.eye(4), sculpt.head_plane(TEACHER)),
    Call(sculpt.face_geometry, TEACHER, body, SPAN, proxy=proxy, kappa=0.5),
    # phase 3, and phases 2-3 in rounds
    Call(sculpt.min_norm_proxy, body),
    Call(sculpt.proxy_margins, XS, proxy),
    Call(sculpt.refine_sum_W, XS, YS, proxy),
    Call(sculpt.slice_curve, XS, YS, proxy, S, [0.5]),
    Call(sculpt.sculpt_rounds, XS, YS, S),
    # phase 4
    Call(sculpt.face_span, body, proxy, 2),
    Call(sculpt.spectral_span, XS, YS, S, proxy, 2),
    Call(sculpt.random_span, proxy, 2),
    Call(sculpt.find_span, XS, YS, sculpted, 2),
    Call(SPAN.project, TEACHER.Theta),
    Call(sculpt.span_alignment, SPAN, TEACHER.Theta),
    # phase 5 and the polish
    Call(sculpt.design_matrix, XS, TEACHER.Theta),
    Call(sculpt.fit_W, XS, YS, TEACHER.Theta),
    Call(sculpt.best_scale, XS, YS, TEACHER.Theta),
    Call(sculpt.face_candidates, body, SPAN, 2),
    Call(sculpt.net_candidates, span, 2),
    Call(sculpt.certify_candidates, XS, YS, TEACHER.Theta[None]),
    Call(sculpt.refine_in_span, XS, YS, TEACHER, SPAN),
    Call(sculpt.span_candidates, XS, YS, body, SPAN, 2),
    Call(sculpt.residual_jacobian, XS[:3], TEACHER.Theta, TEACHER.W),
    Call(sculpt.polish, XS, YS, TEACHER, max_nfev=1),
    Call(sculpt.refit_residual, XS, YS, TEACHER.Theta),
    Call(sculpt.polish_from_random, XS, YS, 2, max_nfev=1),
    Call(sculpt.lbfgs_restarts, XS, YS, 2, maxiter=1),
    Call(sculpt.perturbed_start, XS, YS, TEACHER, 0.5),
    Call(sculpt.polish_starts, XS, YS, candidates),
    # the pipeline, its report and what measures it
    Call(sculpt.carve, XS, YS),
    Call(sculpt.learn, XS, YS, 2),
    Call(sd.phase_diagnostics, report, TEACHER, XS, YS),
    Call(sd.phase_report_entries, diag),
    Call(sd.relative, [1.0, 1.0], [1.0, 0.0]),
    Call(sd.cosine, [1.0, 1.0], [1.0, 0.0]),
    Call(sd.single_head_curve, XS, attention(XS, TEACHER[0]), TEACHER[0], [10, 40]),
    Call(sd.slice_threshold_data, 8.0, 0.8, N=40),
    # comparisons (chapter 9)
    Call(sculpt.relative_test_error, TEACHER, XS, YS),
    Call(sculpt.compare_methods, XS, YS, 2, XS, YS, methods=("adam",), adam_epochs=1),
    Call(sculpt.sweep, [1.0], [40], seeds=1, methods=("sculpt_no_polish",)),
    Call(sculpt.single_starts, XS, YS, 2, XS, YS),
    Call(starts.successes, 1e-6),
    Call(sculpt.binomial_interval, 3, 5),
]

OUTPUTS = (sculpt.Certificates, sculpt.Body, sculpt.Candidates, sculpt.MethodRun, sculpt.Comparison,
           sculpt.SweepResult, sculpt.SingleStarts, sd.SumWErrors, sd.Geometry, sd.LayerErrors,
           sd.PhaseDiagnostics, sd.SliceCurves, sculpt.Conditions, sculpt.PolishInfo, sculpt.RestartInfo,
           sculpt.PolishRuns, sculpt.PhaseSeconds, sculpt.SculptReport, sculpt.SculptResult, sculpt.SculptError,
           sculpt.SliceFit, sculpt.Sculpted, sculpt.Span, sculpt.SpanAlignment, sculpt.SumWCandidates,
           sculpt.AtomScores, sculpt.SumWEstimate, sculpt.FaceGeometry)

test_bad_argument_is_named = bad_argument_test(CALLS)
test_declares_every_argument, test_has_a_valid_call = coverage_tests(["attnlib.sculpt"], CALLS, outputs=OUTPUTS)

REPRODUCERS = [
    ("learn(polish='False')", lambda: sculpt.learn(XS, YS, 2, polish="False"), TypeError,
     r"polish must be True or False; received 'False' \(str\)"),
    ("learn(X, Y, 20) with m > d**2", lambda: sculpt.learn(XS, YS, 20), ValueError, r"m must be at most d\*\*2"),
    ("random_span(eye(3), 20)", lambda: sculpt.random_span(np.eye(3), 20), ValueError, r"m must be at most d\*\*2 = 9"),
    ("measure_conditions(norm_window=(1,))", lambda: sculpt.measure_conditions(TEACHER, norm_window=(1,)),
     ValueError, r"norm_window must be a pair"),
    ("measure_conditions(norm_window=(2, 1))", lambda: sculpt.measure_conditions(TEACHER, norm_window=(2.0, 1.0)),
     ValueError, r"norm_window must be a pair \(low, high\) with low < high"),
    ("fit_W with all-zero labels", lambda: sculpt.fit_W(XS, np.zeros_like(YS), TEACHER.Theta), ValueError,
     r"Y is all zero"),
    ("polish with all-zero labels", lambda: sculpt.polish(XS, np.zeros_like(YS), TEACHER), ValueError,
     r"Y is all zero"),
    ("atom_score with a zero sum_W", lambda: sculpt.atom_score(XS, YS, np.zeros((4, 4))), ValueError,
     r"sum_W maps most tokens to zero"),
    ("relative_test_error with all-zero labels", lambda: sculpt.relative_test_error(TEACHER, XS, np.zeros_like(YS)),
     ValueError, r"Y_test is all zero"),
    ("min_norm_proxy('body')", lambda: sculpt.min_norm_proxy("body"), TypeError, r"^body must be a Body"),
    ("halfspaces(X, 'cert')", lambda: sculpt.halfspaces(XS, "cert"), TypeError,
     r"^certificates must be a Certificates"),
    ("a Certificates whose example is out of range", lambda: sculpt.halfspaces(
        XS, sculpt.Certificates(np.array([999]), np.array([0]), np.array([0]), np.array([0.0]), 1.0, 3000)),
     ValueError, r"certificates index example 999"),
    ("lbfgs_restarts on all-zero labels", lambda: sculpt.lbfgs_restarts(XS, np.zeros_like(YS), 2), ValueError,
     r"^Y is all zero"),
    ("planted_instance(2, 4, shared='a')", lambda: sculpt.planted_instance(2, 4, shared="a"), TypeError,
     r"^shared must be a real number in \[0, 1\)"),
    ("best_scale(..., scales=[])", lambda: sculpt.best_scale(XS, YS, TEACHER.Theta, scales=[]), ValueError,
     r"^scales must be a non-empty list"),
    ("learn(X, zeros, 2)", lambda: sculpt.learn(XS, np.zeros_like(YS), 2), ValueError, r"^Y is all zero"),
    ("fit_W with zero heads", lambda: sculpt.fit_W(XS, YS, np.zeros((0, 4, 4))), ValueError,
     r"Theta must have shape \(m, 4, 4\) with m >= 1"),
    ("refine_sum_W with zero labels", lambda: sculpt.refine_sum_W(XS, np.zeros_like(YS), proxy), ValueError,
     r"^Y is all zero"),
    ("certify with a zero estimate", lambda: sculpt.certify(XS, YS, np.zeros((4, 4))), ValueError,
     r"^sum_W gives atoms x\^T S of median norm 0"),
    ("random_span on a zero proxy", lambda: sculpt.random_span(np.zeros((4, 4)), 2), ValueError,
     r"^proxy is the zero matrix"),
    ("net_candidates with more heads than the span holds", lambda: sculpt.net_candidates(span, 3), ValueError,
     r"^m must be at most the span's dimension 2"),
    ("face_candidates with more heads than the span holds", lambda: sculpt.face_candidates(body, SPAN, 3),
     ValueError, r"^m must be at most the span's dimension 2"),
    ("residual_jacobian of X and heads of other d", lambda: sculpt.residual_jacobian(
        XS[:3, :, :3].tolist(), TEACHER.Theta, TEACHER.W), ValueError, r"d=3"),
    ("span_alignment with a zero head", lambda: sculpt.span_alignment(SPAN, np.zeros((2, 4, 4))), ValueError,
     r"Theta\[0\] is zero"),
    ("estimate_sum_W on all-zero labels", lambda: sculpt.estimate_sum_W(XS, np.zeros_like(YS)), ValueError,
     r"^Y is all zero"),
    # structures no kind expresses, checked by hand in the bodies
    ("support(extra=1)", lambda: sculpt.support(body, np.eye(4), extra=1), TypeError, r"extra must be a pair"),
    ("trimmed_sum_W(anchors=1)", lambda: sculpt.trimmed_sum_W(XS, YS, S, anchors=1), TypeError,
     r"anchors must be a pair"),
    ("face_candidates(span=None)", lambda: sculpt.face_candidates(body, None, 2), TypeError, r"span must be a Span"),
    ("certify_candidates(candidates of 3 axes)", lambda: sculpt.certify_candidates(XS, YS, TEACHER.Theta),
     ValueError, r"candidates must have shape \(k, m, 4, 4\)"),
    ("sweep(scales=[0])", lambda: sculpt.sweep([0.0], [40]), ValueError, r"scales must be positive"),
    ("slice_curve(quantiles=[2])", lambda: sculpt.slice_curve(XS, YS, proxy, S, [2.0]), ValueError,
     r"quantiles must lie in \(0, 1\]"),
]


@pytest.mark.parametrize(("label", "call", "exc", "pattern"), REPRODUCERS, ids=[r[0] for r in REPRODUCERS])
def test_reproducer_raises_naming_the_argument(label, call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()

