"""Checks for the coding exercises of Part IV: the hard family of chapter 10 (a parity hidden in m heads),
and Fourier analysis over the hypercube (chapters 10-11).

For the Fourier checks, inputs enumerate {-1, +1}^K in the order of
:func:`attnlib.lower_bounds.boolean_cube`: entry t has ``x_k = -1`` exactly when bit k of t is set,
and coefficient T belongs to the monomial of the variables named by the bits of T.
"""

from __future__ import annotations

import numpy as np

from .._arguments import arguments
from ..attention import attention
from ._core import Case, CheckFailure, case_rng, returned_heads, run_check

__all__ = ["check_parity_coefficients", "check_parity_learner", "check_walsh_hadamard", "check_weight_by_degree"]


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _lb():
    from .. import lower_bounds  # lazily: scipy is imported on first use

    return lower_bounds


@arguments(fn="function")
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

    def variants(case):
        betas = case.args[0]
        j = np.arange(len(betas), dtype=float)
        sign = (-1.0) ** j
        found = {}
        for what, M in [("the solution of the transposed system (M[i, j] instead of M[j, i] = sigmoid(2 beta_i j))",
                         _sigmoid(2 * np.outer(j, betas)).T),
                        ("the solution with sigmoid(beta_i j), without the factor 2", _sigmoid(np.outer(j, betas))),
                        ("the solution with j = 1, ..., s + 1 instead of j = 0, ..., s",
                         _sigmoid(2 * np.outer(j + 1, betas)))]:
            try:
                found[what] = np.linalg.solve(M, sign)
            except np.linalg.LinAlgError:
                pass
        return found

    run_check("check_parity_coefficients", fn, cases, ["betas"], rtol=1e-7, atol=1e-8, label="c", variants=variants,
              sizes=lambda case: {"s + 1": len(case.args[0])}, axes=("head",),
              slip="row j = 0, ..., s of the system reads sum_i c_i sigmoid(2 beta_i j) = (-1)**j: "
                   "M[j, i] = sigmoid(2 beta_i j), then c = solve(M, (-1)**j).")


@arguments(fn="function")
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
    check_parity_learner: on case 'd=6, s=1' (X of shape (200, 2, 6), Y of shape (200, 2, 6)), the output of
    your layer on held-out inputs at index (0, 0, 0) is 0; expected 4 (752 of 6000 entries differ). Only the
    first coordinate (0) differs; the other 5 are right. Common slip: head i of the family is Theta_i =
    beta_i diag(1_S), W_i = c_i e_r e_0^T with r = d - 1 (it reads coordinate r of the attended token and
    writes output coordinate 0); find S from the data, keep the default scales.
    """
    from ..inputs import boolean_inputs

    lb = _lb()
    rng = case_rng(400)
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
              label="the output of your layer on held-out inputs", axes=("example", "token", "coordinate"),
              slip="head i of the family is Theta_i = beta_i diag(1_S), W_i = c_i e_r e_0^T with r = d - 1 "
                   "(it reads coordinate r of the attended token and writes output coordinate 0); find S from the "
                   "data, keep the default scales.")


# --- Fourier analysis on the hypercube ---------------------------------------------------------

_ORDER = ("coefficient T must belong to the monomial of the variables whose bits are set in T "
          "(bit k = variable x_k), in the same bit order as the inputs.")


def _cube_functions():
    """(name, values on the cube of K variables) for a few functions with known and unknown spectra."""
    from ..lower_bounds.fourier import boolean_cube

    rng = case_rng(500)
    x = boolean_cube(1, 3)[:, 0]
    y = boolean_cube(1, 5)[:, 0]
    return [
        ("x_0 x_1 + 0.5 on K=3 variables", x[:, 0] * x[:, 1] + 0.5),
        ("a single variable, x_2, K=3", x[:, 2]),
        ("majority of 3", np.sign(x.sum(axis=1))),
        ("random values, K=5", rng.normal(size=2**5)),
        ("x_0 x_1 x_2 x_3 x_4 - 2 x_3, K=5", np.prod(y, axis=1) - 2 * y[:, 3]),
        ("a constant on K=1", np.array([3.0, 3.0])),
    ]


@arguments(fn="function")
def check_walsh_hadamard(fn) -> None:
    """Check the Fourier coefficients of a function on the hypercube: ``fn(values)``.

    ``values`` of shape (2**K,) are f on every input of {-1, +1}^K in
    ``boolean_cube`` order. Return the coefficients of shape (2**K,),
    ``coefficients[T] = E_x[f(x) chi_T(x)]`` (a mean, not a sum).

    Examples
    --------
    >>> from attnlib.lower_bounds import walsh_hadamard
    >>> check_walsh_hadamard(walsh_hadamard)
    check_walsh_hadamard: all 6 cases passed.
    """
    from ..lower_bounds.fourier import walsh_hadamard

    cases = [Case(name, (v,), walsh_hadamard(v)) for name, v in _cube_functions()]

    def variants(case):
        c = case.expected
        degree = np.array([bin(t).count("1") for t in range(c.size)])
        return {"the coefficients of the opposite convention (x_k = +1 when bit k is set)": c * (-1.0) ** degree}

    def convert(got, case):
        size = case.args[0].size
        try:
            got = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            return got
        if got.shape == (size,) and np.allclose(got, size * case.expected, atol=1e-9) and size > 1 and np.any(
                case.expected):
            raise CheckFailure(f"check_walsh_hadamard: on case '{case.name}', your coefficients are {size} = 2**K "
                               "times too large: a coefficient is a mean over the cube, not a sum.")
        return got

    run_check("check_walsh_hadamard", fn, cases, ["values"], rtol=1e-9, atol=1e-12, convert=convert,
              label="the coefficients", order_hint=_ORDER, variants=variants,
              sizes=lambda case: {"2**K": case.args[0].size, "K": case.args[0].size.bit_length() - 1},
              slip="coefficients[T] = the mean over the 2**K inputs of f(x) chi_T(x), with chi_T the product of "
                   "the x_k whose bit k is set in T, and x_k = -1 exactly when bit k of the input's index is set.")


@arguments(fn="function")
def check_weight_by_degree(fn) -> None:
    """Check the Fourier weight at each degree: ``fn(values)``.

    ``values`` as in :func:`check_walsh_hadamard`. Return w of shape (K + 1,),
    ``w[D]`` the sum of the squared coefficients of the monomials of degree D
    (D = 0, ..., K); the entries sum to E[f^2] (Parseval).

    Examples
    --------
    >>> from attnlib.lower_bounds import walsh_hadamard
    >>> from attnlib.checks import CheckFailure
    >>> forgot_squares = lambda v: np.bincount([bin(t).count("1") for t in range(v.size)], walsh_hadamard(v))
    >>> try:
    ...     check_weight_by_degree(forgot_squares)
    ... except CheckFailure as failure:
    ...     print(failure)
    check_weight_by_degree: on case 'x_0 x_1 + 0.5 on K=3 variables' (values of shape (8,)), w at index (0,)
    is 0.5; expected 0.25 (1 of 4 entries differ). Your w equals the coefficients summed by degree without
    squaring them. Common slip: square each coefficient (a mean over the cube, not a sum) and add the
    squares by degree |T|, D = 0, ..., K; the entries sum to E[f^2].
    """
    from ..lower_bounds.fourier import walsh_hadamard

    cases = []
    for name, v in _cube_functions():
        c = walsh_hadamard(v)
        K = v.size.bit_length() - 1
        degrees = np.array([bin(t).count("1") for t in range(v.size)])
        cases.append(Case(name, (v,), np.bincount(degrees, weights=c**2, minlength=K + 1), extra={"c": c}))

    def variants(case):
        c, w = case.extra["c"], case.expected
        degrees = np.array([bin(t).count("1") for t in range(c.size)])
        return {"the coefficients summed by degree without squaring them": np.bincount(degrees, weights=c,
                                                                                    minlength=w.size),
                "the absolute coefficients summed by degree: square them": np.bincount(degrees, weights=np.abs(c),
                                                                                      minlength=w.size),
                "the weights in reverse order: w[D] belongs to degree D, from 0 to K": w[::-1],
                "the number of monomials of each degree, not their weight": np.bincount(degrees, minlength=w.size)}

    run_check("check_weight_by_degree", fn, cases, ["values"], rtol=1e-9, atol=1e-12, label="w", variants=variants,
              sizes=lambda case: {"2**K": case.args[0].size, "4**K": case.args[0].size ** 2}, axes=("degree",),
              slip="square each coefficient (a mean over the cube, not a sum) and add the squares by degree |T|, "
                   "D = 0, ..., K; the entries sum to E[f^2].")
