"""Checks for the coding exercises on the hard family of chapter 10 (a parity hidden in m heads)."""

from __future__ import annotations

import numpy as np

from ..attention import attention
from ._core import Case, returned_heads, run_check

__all__ = ["check_parity_coefficients", "check_parity_learner"]


def _lb():
    from .. import lower_bounds  # lazily: scipy is imported on first use

    return lower_bounds


def check_parity_coefficients(fn) -> None:
    """Check the weights of the parity family: ``fn(betas)`` with betas of shape (s + 1,).

    Returns c of shape (s + 1,) solving ``sum_i c_i sigmoid(2 beta_i j) = (-1)**j``
    for j = 0, ..., s (Lemma 10.1 of the book: head i attends to the first
    token with weight ``sigmoid(2 beta_i j)`` when the tokens disagree on j
    coordinates of S).

    Examples
    --------
    >>> from attnlib import lower_bounds as lb
    >>> check_parity_coefficients(lambda betas: lb.parity_coefficients(len(betas) - 1, betas=betas))
    check_parity_coefficients: all 5 cases passed.
    """
    lb = _lb()
    specs = {"s=1, a hard second head": [0.0, 20.0], "s=2, default scales": lb.parity_betas(2),
             "s=3, default scales": lb.parity_betas(3), "s=4, equally spaced scales": np.linspace(0.0, 1.5, 5),
             "s=2, no uniform head": [0.5, 1.0, 2.0]}
    cases = []
    for label, betas in specs.items():
        betas = np.asarray(betas, dtype=float)
        cases.append(Case(label, (betas,), lb.parity_coefficients(len(betas) - 1, betas=betas)))
    run_check("check_parity_coefficients", fn, cases, ["betas"], rtol=1e-7, atol=1e-8, label="c")


def check_parity_learner(fn) -> None:
    """Check a learner for the parity family: ``fn(X, Y)`` returns a layer computing the same function.

    X has shape (N, 2, d), Y = F(X) of shape (N, 2, d) for an unknown member of
    the family with read-out r = d - 1 and the default scales; return
    ``attnlib.Heads`` or a pair ``(Theta, W)``. The check compares your layer's
    softmax outputs with the truth on held-out inputs.

    Examples
    --------
    >>> from attnlib.checks import CheckFailure
    >>> def guess_nothing(X, Y):
    ...     d = X.shape[-1]
    ...     return np.zeros((1, d, d)), np.zeros((1, d, d))
    >>> try:
    ...     check_parity_learner(guess_nothing)
    ... except CheckFailure as failure:
    ...     print(failure)
    check_parity_learner: on case 'd=6, s=1' (X of shape (200, 2, 6), Y of shape (200, 2, 6)),
    the output of your layer on held-out inputs at index (0, 0, 0) is 0; expected 4
    (752 of 6000 entries differ).
    """
    from ..inputs import boolean_inputs

    lb = _lb()
    rng = np.random.default_rng(20260400)
    cases = []
    for d, s, N in [(6, 1, 200), (8, 2, 200), (12, 3, 300), (16, 2, 300)]:
        inst = lb.parity_instance(d, s, rng=rng)
        X = boolean_inputs(N, 2, d, rng=rng)
        X_test = boolean_inputs(500, 2, d, rng=rng)
        cases.append(Case(f"d={d}, s={s}", (X, attention(X, inst.heads)), attention(X_test, inst.heads),
                          extra={"X_test": X_test}))

    def convert(got, case):
        d = case.args[0].shape[-1]
        return attention(case.extra["X_test"], returned_heads("check_parity_learner", got, case, d))

    run_check("check_parity_learner", fn, cases, ["X", "Y"], rtol=1e-6, atol=1e-6, convert=convert,
              label="the output of your layer on held-out inputs")
