"""Bad input to attnlib.rkhs: generated from the declarations.

One valid call per public function, class and method of the subpackage; the kinds come from each
function's ``@arguments`` (``attnlib._arguments``), and ``tests/_declared.py`` gives every declared
argument the bad values of its kind. Relations between arguments (a token dimension, targets of
the wrong shape, X_val without Y_val) are tested by hand in the module's own test file.
"""

from __future__ import annotations

import numpy as np
from _declared import Call, bad_argument_test, coverage_tests

from attnlib import attention, gaussian_inputs, random_heads, rkhs
from attnlib.rkhs import experiments as rkhs_exp
from attnlib.rkhs import stack as rkhs_stack
from attnlib.tasks import associative_memory as am

H = random_heads(2, 4, rng=0)
XL = gaussian_inputs(40, 4, 2, rng=3)
YLL = attention(XL, random_heads(1, 2, rng=4), kind="linear")[:, -1]
C = rkhs.parameter_map(random_heads(1, 2, rng=5))
FIT = rkhs.fit_linear_attention(XL, YLL)
CERT = rkhs.certificate(XL)
MEM = am.sample_memories(8, 2, rng=0)
STACK = rkhs_stack.init_stack(2, rng=0)
XST = gaussian_inputs(8, 3, 2, rng=0)
YST = XST[::-1].copy()
COUNT = rkhs_exp.HeadCount({1: np.zeros(2)}, {1: np.ones(2)}, {1: "adam"})

CALLS = [
    # features and coefficients (chapter 3)
    Call(rkhs.cubic_features, XL),
    Call(rkhs.kernel, XL[:3], XL[:2]),
    Call(rkhs.n_features, 3),
    Call(rkhs.parameter_map, H),
    Call(rkhs.coefficient_matrix, C),
    Call(rkhs.heads_from_coef, C, max_heads=2, rtol=1e-12),
    Call(rkhs.parameter_distance, C, C),
    # regression (chapter 4)
    Call(rkhs.fit_linear_attention, XL, YLL, steps=3, start=C),
    Call(FIT.predict, XL),
    # the certificate and the bounds (chapter 5)
    Call(rkhs.certificate, XL),
    Call(CERT.span_residual, XL),
    Call(CERT.covers, XL, tol=1e-6),
    Call(rkhs.polynomial_certificate, rkhs.cubic_features(XL)),
    Call(rkhs.noisy_label_bound, XL, np.full((40, 2), 0.1), 0.5),
    Call(rkhs.stopping_bound, XL, 0.5),
    Call(rkhs.stopping_bound(XL, 0.5).output_bound, XL),
    Call(rkhs.pairwise_bound, XL, YLL + 0.1, 0.5),
    Call(rkhs.pairwise_bound(XL, YLL + 0.1, 0.5).output_bound, XL),
    # the experiments (chapters 4-5)
    Call(rkhs_exp.learning_curve, 2, 0.1, Ns=[20], N_test=20),
    Call(rkhs_exp.heads_vs_regression, 2, N=8, n=3, heads=(1,), epochs=1, batch_size=4, n_val=4),
    Call(rkhs_exp.heads_and_layers, 2, N=8, n=3, heads=(1,), layers=(2,), seeds=1, epochs=1, n_val=4),
    Call(rkhs_exp.adam_on_memories, MEM, heads=(1,), epochs=1, batch_size=4),
    Call(rkhs_exp.minimisers_by_heads, MEM, heads=(1,), seeds=1, epochs=1),
    Call(COUNT.zero_loss, 1),
    Call(rkhs_exp.identifiability_sweep, [0.5], N=64, steps=2, N_test=8),
    # stacks of layers (chapter 4)
    Call(rkhs_stack.init_stack, 2, hidden=3),
    Call(rkhs_stack.stack_forward, STACK, XST),
    Call(rkhs_stack.stack_loss_and_gradient, STACK, XST, YST),
    Call(rkhs_stack.train_stack, XST, YST, epochs=1, X_val=XST, Y_val=YST),
]

OUTPUTS = (rkhs.Certificate, rkhs.PolynomialCertificate, rkhs.LinearFit, rkhs.NoisyBound, rkhs.StoppingBound,
           rkhs.PairwiseBound, rkhs_exp.HeadsRace, rkhs_exp.MemoryRuns, rkhs_exp.HeadCount, rkhs_exp.Sweep,
           rkhs_stack.Stack, rkhs_stack.StackRun)

test_bad_argument_is_named = bad_argument_test(CALLS)
test_declares_every_argument, test_has_a_valid_call = coverage_tests(["attnlib.rkhs"], CALLS, outputs=OUTPUTS)
