"""Bad input to attnlib.checks: one valid call per public function; the bad values come from the declarations."""

import numpy as np
from _declared import Call, bad_argument_test, coverage_tests

from attnlib import checks, rkhs
from attnlib.checks import CheckFailure, compare_prediction

CALLS = [
    # a checker takes the learner's function: any callable is a valid argument (the call is never run)
    *[Call(getattr(checks, name), np.exp) for name in checks.__all__ if name.startswith("check_")],
    Call(checks.check_cubic_features, rkhs.cubic_features, causal=True),
    Call(compare_prediction, 6, 6, what="the number of heads"),
]

test_bad_argument_is_named = bad_argument_test(CALLS)
test_declares_every_argument, test_has_a_valid_call = coverage_tests(["attnlib.checks"], CALLS,
                                                                     outputs=(CheckFailure,))
