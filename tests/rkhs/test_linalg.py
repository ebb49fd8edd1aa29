"""The least-squares policy's Cholesky factor and the bracket on lambda_min (attnlib._linalg, issue 27).

Oracles: ``numpy.linalg.cholesky``, ``numpy.linalg.solve`` and ``numpy.linalg.eigvalsh`` on the
same matrices, and matrices built from a known spectrum (``Q diag(w) Q^T``).
"""

from __future__ import annotations

import numpy as np
import pytest

from attnlib._linalg import (
    MAX_CONDITION,
    cholesky,
    largest_eigenvalue,
    smallest_eigenvalue,
    solve_normal,
)


def with_spectrum(w, rng):
    """A symmetric matrix with eigenvalues w and a random orthonormal eigenbasis (and that basis)."""
    Q, _ = np.linalg.qr(rng.standard_normal((len(w), len(w))))
    G = (Q * w) @ Q.T
    return (G + G.T) / 2, Q


# --- the equilibrated Cholesky factor -----------------------------------------------------


def test_cholesky_is_the_factor_of_the_equilibrated_matrix_and_solves():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((300, 40)) * rng.uniform(0.1, 10.0, size=40)  # columns of very different sizes
    G = A.T @ A
    f = cholesky(G)
    D = np.sqrt(np.diag(G))
    L = np.linalg.cholesky(G / np.outer(D, D))  # lower, the oracle
    np.testing.assert_allclose(f.factor, L.T, atol=1e-12)
    np.testing.assert_allclose(f.inv_scale, 1 / D, rtol=1e-15)
    b = rng.standard_normal((40, 3))
    np.testing.assert_allclose(f.solve(b), np.linalg.solve(G, b), rtol=1e-10)
    np.testing.assert_allclose(f.solve(b[:, 0]), np.linalg.solve(G, b[:, 0]), rtol=1e-10)
    # dpocon estimates the 1-norm condition number of the equilibrated matrix, within a small factor
    exact = np.linalg.cond(G / np.outer(D, D), 1)
    assert exact / 3 <= f.condition <= exact * 1.0001 and f.trusted


def test_cholesky_refuses_what_is_not_positive_definite():
    assert cholesky(np.array([[1.0, 2.0], [2.0, 1.0]])) is None  # indefinite
    assert cholesky(np.array([[1.0, 0.0], [0.0, 0.0]])) is None  # a zero column
    G = np.array([[4.0, 2.0], [2.0, 3.0]])
    cholesky(G, overwrite=True)
    assert G[0, 0] == 1.0  # overwritten: the factor of the equilibrated matrix has a unit corner


def test_solve_normal_keeps_the_conditioning_policy():
    rng = np.random.default_rng(1)
    w = np.concatenate([[1e-10], np.ones(9)])  # condition 1e10 > MAX_CONDITION
    G, _ = with_spectrum(w, rng)
    assert cholesky(G) is not None and not cholesky(G).trusted and MAX_CONDITION < 1e10
    assert solve_normal(G, np.ones(10)) is None
    x, condition = solve_normal(G + np.eye(10), np.ones(10))
    np.testing.assert_allclose(x, np.linalg.solve(G + np.eye(10), np.ones(10)), rtol=1e-12)
    assert condition < 10


# --- the bracket ----------------------------------------------------------------------------


# name: (spectrum, relative width of the bracket at most, relative error of the estimate at most)
SPECTRA = {
    "wishart": (lambda rng: np.linalg.eigvalsh((lambda A: A.T @ A)(rng.standard_normal((500, 120)))), 2e-3, 1e-9),
    "ill-conditioned": (lambda rng: np.logspace(-9, 0, 150), 2e-3, 1e-9),
    "repeated smallest": (lambda rng: np.concatenate([[0.5, 0.5, 0.5], rng.uniform(1, 100, 97)]), 2e-3, 1e-9),
    "outlier on top": (lambda rng: np.concatenate([rng.uniform(1, 2, 99), [1e6]]), 2e-3, 1e-9),
    # twenty eigenvalues 1e-4 apart at the bottom: Lanczos stops inside the cluster, the first shift is too
    # high, and the bracket is proved with a lower one; the estimate lies in the cluster
    "clustered bottom": (lambda rng: np.concatenate([1.0 + 1e-4 * np.arange(20), np.linspace(2, 50, 130)]),
                         0.1, 2e-3),
}


@pytest.mark.parametrize("name", SPECTRA)
def test_bracket_contains_the_smallest_eigenvalue_and_its_estimate_is_accurate(name):
    rng = np.random.default_rng(2)
    spectrum, width, error = SPECTRA[name]
    w = np.sort(spectrum(rng))
    G, Q = with_spectrum(w, rng)
    exact = np.linalg.eigvalsh(G)[0]  # the oracle for the floating-point G (w up to rounding)
    b = smallest_eigenvalue(G)
    assert b is not None
    assert b.lower <= exact <= b.upper and b.lower <= b.value <= b.upper
    assert b.upper - b.lower <= width * exact + 1e-12 * w[-1]
    assert abs(b.value - exact) <= error * exact + 1e-13 * w[-1]
    # the vector is a unit approximate eigenvector of lambda_min
    assert np.linalg.norm(b.vector) == pytest.approx(1.0, rel=1e-12)
    assert np.linalg.norm(G @ b.vector - b.value * b.vector) <= 1e-6 * w[-1] + 2 * error * exact


def test_bracket_uses_a_given_factor():
    rng = np.random.default_rng(3)
    G, _ = with_spectrum(np.linspace(1, 10, 60), rng)
    f = cholesky(G)
    a, b = smallest_eigenvalue(G, factor=f), smallest_eigenvalue(G)
    assert (a.value, a.lower, a.upper) == (b.value, b.lower, b.upper)


def test_bracket_is_refused_when_lanczos_misses_the_smallest_eigenvalue():
    # a start with no component along e_0 keeps the Krylov space of a diagonal matrix off e_0 exactly, so
    # Lanczos finds lambda = 2, not 1; the factorisation of G - tau I then fails and no bracket is returned
    G = np.diag(np.linspace(1.0, 10.0, 50))
    start = np.ones(50)
    start[0] = 0.0
    assert smallest_eigenvalue(G, start=start) is None
    assert smallest_eigenvalue(G, start=np.ones(50)).lower <= 1.0  # with a component: found


def test_bracket_refuses_a_matrix_that_is_not_positive_definite():
    rng = np.random.default_rng(4)
    G, _ = with_spectrum(np.concatenate([[-1e-3], np.ones(19)]), rng)
    assert smallest_eigenvalue(G) is None
    assert smallest_eigenvalue(np.zeros((3, 3))) is None


def test_largest_eigenvalue_matches_eigvalsh():
    rng = np.random.default_rng(5)
    for w in (np.linspace(1, 10, 80), np.concatenate([rng.uniform(0, 1, 79), [50.0]])):
        G, _ = with_spectrum(w, rng)
        top = largest_eigenvalue(G)
        assert top == pytest.approx(np.linalg.eigvalsh(G)[-1], rel=1e-10)
