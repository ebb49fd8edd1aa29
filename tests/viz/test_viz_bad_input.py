"""Bad input to the figures (attnlib.viz), generated from their declarations (``attnlib._arguments``).

One valid call per public figure or table, on tiny data: every declared argument receives the bad
values of its kind and must raise, naming it, before anything is drawn. Arguments with a structure
of their own (``structure(...)``) are tested by hand beside the figure's other tests.
"""

from __future__ import annotations

import numpy as np
import pytest
from _declared import Call, bad_argument_test, coverage_tests

from attnlib import Heads, boolean_inputs, gaussian_inputs, random_heads, rkhs
from attnlib import lower_bounds as lb
from attnlib.rkhs.experiments import Sweep
from attnlib.sculpt import Body, PhaseSeconds, Span, planted_instance
from attnlib.sculpt.diagnostics import Geometry, LayerErrors, PhaseDiagnostics, SumWErrors
from attnlib.tasks import turing
from attnlib.tasks.automata import DFA
from attnlib.viz import attention as va
from attnlib.viz import diagrams as vd
from attnlib.viz import lower_bounds as vl
from attnlib.viz import rkhs as vr
from attnlib.viz import sculpt as vs
from attnlib.viz import tasks as vt
from attnlib.viz import training as vtr

X1 = boolean_inputs(1, 3, 4, rng=1)[0]
H = random_heads(2, 4, rng=0)
CURVE = {"a": [1.0, 0.5, 0.25]}
DFA2 = DFA([[0, 1], [1, 0]], accepting=[False, True])
# the plane of two heads in d = 2, with a body of one halfspace <I, Theta> >= 1 and the span of the plane
HEADS2 = Heads(np.stack([np.diag([2.0, 0.0]), np.diag([0.0, 2.0])]), np.ones((2, 2, 2)))
BODY2 = Body(np.eye(2)[None], gamma=1.0, bound=None, certified=1)
SPAN2 = Span(np.stack([np.eye(2), np.diag([1.0, -1.0])]) / np.sqrt(2.0), HEADS2.Theta.copy(), "by hand")
TEACHER = planted_instance(2, 4, rng=0)
BODY4 = Body(np.eye(4)[None], gamma=1.0, bound=None, certified=1)
SWEEP = Sweep(np.linspace(0, 1, 3), np.array([0.0, 2.0**-6, 2.0**-3]), np.array([30, 36, 36]),
              {"exact": np.array([0.6, 1e-13, 1e-15])}, {"exact": np.array([0.08, 1e-28, 1e-30])}, 100)
DIAGNOSTICS = PhaseDiagnostics(SumWErrors(crude=0.3, slice=1e-3, final=1e-9),
                               Geometry(proxy_cosine=0.98, span=0.999, random_span=0.3),
                               LayerErrors(face=0.2, pre_polish=1e-3, final=1e-10),
                               PhaseSeconds(sum_w=0.01, sculpted=1.3, span=0.5, candidates=0.3))
CELL = {"label": "random heads", "successes": 44, "trials": 48, "low": 0.80, "high": 0.967}
SETTINGS = {"small": {"label": "d=4", "starts": {"random": CELL}}}
METHOD = {"label": "sculpt + polish", "successes": 1, "runs": 1, "starts": 1, "accepted_starts": 1,
          "median_error": 1e-14, "median_seconds": 0.5}
LEVELS = np.geomspace(1e-4, 1e-1, 3)

CALLS = [
    Call(va.plot_attention_maps, X1, H),
    Call(va.plot_sharpness, X1, H, query=1),
    Call(vtr.plot_loss_curves, CURVE, bands={"a": ([0.9, 0.4, 0.2], [1.1, 0.6, 0.3])}),
    Call(vtr.plot_loss_along_line, [0.0, 0.5, 1.0], CURVE, ylim=(0.0, 1.0)),
    Call(vtr.plot_errorbars, [1.0, 2.0, 3.0], CURVE, {"a": [0.1, 0.1, 0.1]}, reference={"r": 1.0}),
    Call(vr.plot_head_spectrum, {"1 head": random_heads(1, 3, rng=0)}),
    Call(vr.plot_heads_vs_regression, {"d = 2": ({"1 head": np.exp(-np.arange(5.0))}, 0.01)}),
    Call(vr.plot_learning_curve, [10.0, 20.0, 40.0], CURVE, psi=18, noise=0.1),
    Call(vr.plot_spectra, {"Gaussian": rkhs.certificate(gaussian_inputs(40, 4, 2, rng=3))}),
    Call(vr.plot_identifiability, SWEEP),
    Call(vr.plot_bound_check, [1e-6, 1e-4], [1e-5, 1e-3]),
    Call(vr.plot_noise_bound, LEVELS, LEVELS**2, 10 * LEVELS**2),
    Call(vr.plot_certificate_landscape, {"bowl": [[2.0, 0.0], [0.0, 0.3]]}, steps=2),
    Call(vt.plot_dfa_step, DFA2, [0, 1, 1], 1, rows=9),
    Call(vt.plot_tm_run, turing.run(turing.busy_beaver(), [0] * 5, 2, 2)),
    Call(vs.plot_recovery, [10.0, 20.0, 40.0], CURVE, threshold=15.0),
    Call(vs.plot_body_slices, [BODY4], TEACHER, box=2.0),
    Call(vs.plot_slice_threshold, [0.01, 0.1], {"proxy": [1e-2, 1e-1]}, crude=0.5),
    Call(vs.plot_phase_report, DIAGNOSTICS),
    Call(vs.plot_method_comparison, {"sculpt": [1e-9, 1e-8]}, {"sculpt": [1.0, 2.0]}),
    Call(vs.plot_sweep, [0.5, 8.0], [500.0, 1500.0], {"sculpt": np.ones((2, 2))}, seeds=1),
    Call(vs.comparison_table, {"methods": {"sculpt": METHOD}}),
    Call(vs.single_start_table, SETTINGS, names={"small": "small"}),
    Call(vs.sweep_failure_table, {"seeds": 1, "scales": [0.5], "sizes": [500], "methods": {}}),
    Call(vs.rate_text, CELL),
    Call(vl.plot_fourier_spectrum, lb.fourier_spectrum(lb.parity_instance(4, 1, rng=0).heads)),
    Call(vl.plot_regression_errors, {1: [0, 1, 2]}, {1: [2.0, 1.0, 0.1]}, exact={1: [2.0, 1.0, 0.0]}, trivial=2.0),
    Call(vl.plot_gd_runs, {"s = 1": lb.gd_experiment(4, 1, N=16, N_test=16, epochs=1, rng=0)}),
    Call(vl.plot_weight_growth, [1.0, 2.0, 3.0], CURVE),
    Call(vl.plot_alternating_heads, [0.0, 20.0], [1.0, -1.0]),
    Call(vd.plot_head, X1, random_heads(1, 4, rng=2), query=1),
    Call(vd.plot_cubic_lift, 2),
    Call(vd.plot_dfa_lookup, DFA2, 1, 0),
    Call(vd.plot_logit_gap, np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]]), Heads(np.diag([2.0, 1.0]), np.eye(2))),
    Call(vd.plot_halfspaces, BODY2, HEADS2, box=3.0),
    Call(vd.plot_face, HEADS2, BODY2, SPAN2, BODY2, SPAN2, kappa=0.5, ideal_proxy=np.eye(2) / 2,
         real_proxy=np.eye(2) / 2),
    Call(vd.plot_two_roads, d=8, heads=(2, 3)),
]

test_bad_argument_is_named = bad_argument_test(CALLS)
test_declares_every_argument, test_has_a_valid_call = coverage_tests(
    ["attnlib.viz.attention", "attnlib.viz.training", "attnlib.viz.rkhs", "attnlib.viz.tasks", "attnlib.viz.sculpt",
     "attnlib.viz.lower_bounds", "attnlib.viz.diagrams"], CALLS)


@pytest.mark.parametrize("call", CALLS, ids=lambda call: call.name)
def test_the_valid_call_draws(call):
    """Each valid call of the table runs (so a bad value's error is about that value alone)."""
    assert call.func(*call.args, **call.kwargs) is not None


def test_a_series_of_the_wrong_length_is_named():
    with pytest.raises(ValueError, match=r"losses\['a'\] must have shape \(3,\)"):
        vtr.plot_loss_along_line([0.0, 0.5, 1.0], {"a": [1.0]})


def test_an_empty_label_is_a_label():
    fig = vtr.plot_errorbars([1.0, 2.0], {"a": [1.0, 2.0]}, xlabel="", ylabel="")
    assert fig.axes[0].get_xlabel() == ""

