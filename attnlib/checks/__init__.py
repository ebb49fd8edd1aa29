"""Instant feedback for the book's coding exercises.

Each check takes *your* function, runs it against the reference implementation on
random and edge-case inputs, and either prints one line saying that every case
passed, or raises :class:`CheckFailure` saying which input failed, what was
expected and what was received, or which shape was wrong. Where the pattern of
the error is plain, the message also names the kind of mistake (a factor 1/n, a
flipped sign, a transpose, the pair rows, normalised along the wrong axis, a
known slip of that exercise), and it ends with the exercise's most common slip.
It never shows the reference code.

>>> from attnlib.checks import check_softmax
>>> def my_softmax(S):
...     E = np.exp(S)                      # forgets to subtract the maximum
...     return E / E.sum(axis=-1, keepdims=True)
>>> try:
...     check_softmax(my_softmax)
... except CheckFailure as failure:
...     print(str(failure)[:72])
check_softmax: on case 'logits as large as 1e4' (S of shape (2, 4)), the
"""

from ._core import CheckFailure
from .attention import check_attention_head, check_linear_attention, check_softmax, check_softmax_jacobian
from .certificate import check_certificate, check_second_moment, check_span_cover
from .lower_bounds import (
    check_parity_coefficients,
    check_parity_learner,
    check_walsh_hadamard,
    check_weight_by_degree,
)
from .predictions import compare_prediction
from .rkhs import (
    check_cubic_features,
    check_fit_coefficients,
    check_heads_from_coef,
    check_kernel,
    check_parameter_map,
)
from .sculpt import check_fit_W, check_halfspaces, check_logit_gaps, check_min_norm_point, check_W_from_labels
from .tasks import check_accepting_lookup, check_lookup_heads
from .training import check_gradient_descent, check_linear_attention_gradient

__all__ = [
    "CheckFailure",
    # attention (chapter 1-2)
    "check_softmax",
    "check_softmax_jacobian",
    "check_attention_head",
    "check_linear_attention",
    # training (chapter 2)
    "check_linear_attention_gradient",
    "check_gradient_descent",
    # rkhs: features, kernel, coefficients, regression (chapters 3-4); certificate (chapter 5)
    "check_cubic_features",
    "check_kernel",
    "check_parameter_map",
    "check_heads_from_coef",
    "check_fit_coefficients",
    "check_second_moment",
    "check_certificate",
    "check_span_cover",
    # tasks: automata (chapter 6)
    "check_accepting_lookup",
    "check_lookup_heads",
    # sculpt: softmax attention on the hypercube, the book's reconstruction (chapters 7-9)
    "check_logit_gaps",
    "check_min_norm_point",
    "check_W_from_labels",
    "check_halfspaces",
    "check_fit_W",
    # lower bounds and Fourier analysis (chapters 10-11)
    "check_parity_coefficients",
    "check_parity_learner",
    "check_walsh_hadamard",
    "check_weight_by_degree",
    # predict, then run: how close a prediction was (every chapter)
    "compare_prediction",
]
