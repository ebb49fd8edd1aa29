"""Bad input to attnlib.lower_bounds: one valid call per public function, the bad values generated from
the declarations (tests/_declared.py), and the reproducers whose messages are pinned."""

import numpy as np
import pytest
from _declared import Call, bad_argument_test, coverage_tests

from attnlib import boolean_inputs, lower_bounds
from attnlib.lower_bounds import family as lb_family
from attnlib.lower_bounds import fourier

PAR = lower_bounds.parity_instance(4, 1, rng=0)
spectrum = lower_bounds.fourier_spectrum(PAR.heads)
ZP = lower_bounds.boolean_cube(1, 4)[:, 0]
CHI = np.prod(ZP[:, :2], axis=1)
Xp = boolean_inputs(16, 2, 2, rng=0)
low_fit = lower_bounds.low_degree_regression(Xp, Xp[:, 0, 0], 1)

CALLS = [
    # lower bounds (chapters 10-11)
    Call(lower_bounds.parity_betas, 2),
    Call(lower_bounds.parity_coefficients, 2),
    Call(lower_bounds.alternating_sigmoid_sum, 2, np.ones(3)),
    Call(lower_bounds.search_parity_betas, 2),
    Call(lower_bounds.parity_instance, 4, 2),
    Call(PAR.parity, boolean_inputs(3, 2, 4, rng=0)),
    Call(PAR.formula, boolean_inputs(3, 2, 4, rng=0)),
    Call(lower_bounds.parity_heads, 4, 2),
    Call(lb_family.decode_parity_examples, boolean_inputs(3, 2, 4, rng=0), np.ones(3), readout=3),
    Call(lower_bounds.boolean_cube, 2, 2),
    Call(fourier.walsh_hadamard, np.ones(4)),
    Call(lower_bounds.fourier_spectrum, lambda X: X[:, 0, 0], n=1, d=2),
    Call(spectrum.truncation_error, 1),
    Call(spectrum.coefficient, [(0, 0)]),
    Call(spectrum.support),
    Call(lower_bounds.n_monomials, 4, 2),
    Call(lower_bounds.monomial_features, np.ones((4, 3)), 2),
    Call(lower_bounds.low_degree_regression, ZP[:, None, :], CHI, 1),
    Call(low_fit.predict, Xp),
    Call(lower_bounds.low_degree_curve, ZP[:, None, :], CHI, 2),
    Call(lower_bounds.parity_by_elimination, ZP, CHI),
    Call(lower_bounds.parity_by_enumeration, ZP, CHI, 2),
    Call(lower_bounds.sq_dimension, 6, 2),
    Call(lower_bounds.sq_query_lower_bound, 6, 2, 0.1),
    Call(lower_bounds.sq_correlations, np.ones(16), 2, 1),
    Call(lower_bounds.gd_experiment, 4, 2, N=8, N_test=8, epochs=1),
]

OUTPUTS = (lower_bounds.GDRun, lower_bounds.ScaleSearch, lower_bounds.ParityInstance, lower_bounds.FourierSpectrum,
           lower_bounds.LowDegreeFit, lower_bounds.LowDegreeCurve)

test_bad_argument_is_named = bad_argument_test(CALLS)
test_declares_every_argument, test_has_a_valid_call = coverage_tests(["attnlib.lower_bounds"], CALLS,
                                                                     outputs=OUTPUTS)

REPRODUCERS = [
    ("parity_by_elimination on entries off the cube", lambda: lower_bounds.parity_by_elimination(ZP * 0.5, CHI),
     ValueError, r"^Z must have entries \+1 or -1"),
    ("truncation_error(-1)", lambda: spectrum.truncation_error(-1), ValueError, r"^degree must be an integer >= 0"),
    ("low_degree_regression with labels near 1e300", lambda: lower_bounds.low_degree_regression(
        ZP[:, None, :], CHI * 1e300, 1), ValueError, r"overflow float64 \(labels y too large\)"),
    ("FourierSpectrum.coefficient(monomial=[1])", lambda: spectrum.coefficient([1]), TypeError,
     r"monomial must hold pairs"),
    ("fourier_spectrum(target=1)", lambda: lower_bounds.fourier_spectrum(1, d=2), TypeError,
     r"target must be an attnlib.Heads"),
]


@pytest.mark.parametrize(("label", "call", "exc", "pattern"), REPRODUCERS, ids=[r[0] for r in REPRODUCERS])
def test_reproducer_raises_naming_the_argument(label, call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()
