"""Bad input to the core (attention, heads, inputs, training, landscape): generated from the declarations.

One valid call per public function and class; the kinds come from each function's ``@arguments``
(``attnlib._arguments``), and ``tests/_declared.py`` gives every declared argument the bad values of
its kind. Arguments with a structure of their own (softmax's ``axis``) and the relations between
arguments are tested by hand in the module's own test file.
"""

from __future__ import annotations

import numpy as np
from _declared import Call, bad_argument_test, coverage_tests

import attnlib
from attnlib import (
    attention,
    attention_weights,
    boolean_inputs,
    gaussian_inputs,
    interpolate,
    loss_along_line,
    loss_and_gradient,
    partners,
    random_heads,
    softmax,
    squared_loss,
    train,
)

X = boolean_inputs(6, 3, 4, rng=1)
H = random_heads(2, 4, rng=0)
Y = attention(X, H)

CALLS = [
    # attention, heads, inputs (chapter 1)
    Call(softmax, np.zeros((2, 3))),
    Call(attention, X, H),
    Call(attention_weights, X, H),
    Call(attnlib.Heads, np.zeros((1, 3, 3)), np.zeros((1, 3, 3))),
    Call(random_heads, 2, 3),
    Call(boolean_inputs, 2, 3, 4),
    Call(gaussian_inputs, 2, 3, 4),
    # training and the landscape (chapter 2)
    Call(squared_loss, X, Y, H),
    Call(loss_and_gradient, X, Y, H),
    Call(train, X, Y, 1, epochs=1, batch_size=2, init=H[:1], X_val=X, Y_val=Y),
    Call(interpolate, H, H, 0.5),
    Call(loss_along_line, X, Y, H, H, [0.0, 1.0]),
    Call(partners, H),
]

test_bad_argument_is_named = bad_argument_test(CALLS)
test_declares_every_argument, test_has_a_valid_call = coverage_tests(
    ["attnlib.attention", "attnlib.heads", "attnlib.inputs", "attnlib.training", "attnlib.landscape"], CALLS,
    outputs=(attnlib.TrainResult, attnlib.Partners))
