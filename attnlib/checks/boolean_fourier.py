"""Checks for the coding exercises on Fourier analysis over the hypercube (chapters 10-11).

Inputs enumerate {-1, +1}^K in the order of :func:`attnlib.lower_bounds.boolean_cube`:
entry t has ``x_k = -1`` exactly when bit k of t is set, and coefficient T
belongs to the monomial of the variables named by the bits of T.
"""

from __future__ import annotations

import numpy as np

from ._core import Case, CheckFailure, run_check

__all__ = ["check_walsh_hadamard", "check_weight_by_degree"]

_ORDER = ("coefficient T must belong to the monomial of the variables whose bits are set in T "
          "(bit k = variable x_k), in the same bit order as the inputs.")


def _cube_functions():
    """(name, values on the cube of K variables) for a few functions with known and unknown spectra."""
    from ..lower_bounds.fourier import boolean_cube

    rng = np.random.default_rng(20260500)
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
              label="the coefficients", order_hint=_ORDER)


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
    check_weight_by_degree: on case 'x_0 x_1 + 0.5 on K=3 variables' (values of shape (8,)),
    w at index (0,) is 0.5; expected 0.25 (1 of 4 entries differ).
    """
    from ..lower_bounds.fourier import walsh_hadamard

    cases = []
    for name, v in _cube_functions():
        c = walsh_hadamard(v)
        K = v.size.bit_length() - 1
        degrees = np.array([bin(t).count("1") for t in range(v.size)])
        cases.append(Case(name, (v,), np.bincount(degrees, weights=c**2, minlength=K + 1)))
    run_check("check_weight_by_degree", fn, cases, ["values"], rtol=1e-9, atol=1e-12, label="w")
