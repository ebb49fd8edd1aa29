"""Tests for attnlib.lower_bounds.fourier: the hypercube, the Walsh-Hadamard transform, regression."""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import Heads, boolean_inputs
from attnlib.lower_bounds.fourier import (
    boolean_cube,
    fourier_spectrum,
    low_degree_curve,
    low_degree_regression,
    monomial_features,
    n_monomials,
    walsh_hadamard,
)


def all_cube(n, d):
    """Every input as a plain itertools product (independent of boolean_cube's bit order)."""
    return np.array(list(itertools.product([-1.0, 1.0], repeat=n * d))).reshape(-1, n, d)


def test_cube_and_features_shapes():
    assert boolean_cube(2, 3).shape == (64, 2, 3)
    Phi, mons = monomial_features(boolean_inputs(9, 2, 4, rng=0), 3)
    assert Phi.shape == (9, n_monomials(8, 3)) == (9, 1 + 8 + 28 + 56)
    assert len(mons) == Phi.shape[1]


def test_boolean_cube_enumerates_every_input_once():
    X = boolean_cube(2, 3)
    assert {tuple(x) for x in X.reshape(64, -1)} == {tuple(x) for x in all_cube(2, 3).reshape(64, -1)}


def test_walsh_hadamard_matches_naive_sum():
    rng = np.random.default_rng(0)
    K = 5
    X = boolean_cube(1, K)[:, 0]  # (32, 5)
    f = rng.standard_normal(2**K)
    naive = np.array([np.mean(f * np.prod(X[:, [k for k in range(K) if (T >> k) & 1]], axis=1))
                      for T in range(2**K)])
    np.testing.assert_allclose(walsh_hadamard(f), naive, atol=1e-14)


def test_monomial_features_match_products():
    X = boolean_inputs(7, 2, 3, rng=2)
    Phi, mons = monomial_features(X, 3)
    Z = X.reshape(7, -1)
    for q, mono in enumerate(mons):
        np.testing.assert_array_equal(Phi[:, q], np.prod(Z[:, list(mono)], axis=1))
    assert sorted(mons) == sorted(c for k in range(4) for c in itertools.combinations(range(6), k))


def test_spectrum_of_a_callable_matches_naive_correlations():
    rng = np.random.default_rng(1)
    d = 2
    table = rng.standard_normal(16)
    X = all_cube(2, d)
    index = {tuple(x.ravel()): i for i, x in enumerate(X)}

    def f(batch):
        return np.array([table[index[tuple(x.ravel())]] for x in batch])

    spec = fourier_spectrum(f, d=d)
    Z = X.reshape(16, -1)
    for T in itertools.chain.from_iterable(itertools.combinations(range(4), k) for k in range(5)):
        naive = np.mean(table * np.prod(Z[:, list(T)], axis=1))
        assert spec.coefficient([divmod(k, d) for k in T]) == pytest.approx(naive, abs=1e-14)
    assert spec.weight_by_degree().sum() == pytest.approx(np.mean(table**2), rel=1e-12)  # Parseval


@pytest.mark.parametrize("N", [40, 400])
def test_regression_matches_lstsq_and_curve_matches_single_fits(N):
    rng = np.random.default_rng(2)
    X = boolean_inputs(N, 2, 3, rng=rng)
    y = rng.standard_normal(N)
    X_test, y_test = boolean_inputs(50, 2, 3, rng=rng), rng.standard_normal(50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # N = 40 < 42 features at degree 3
        curve = low_degree_curve(X, y, 3, X_test=X_test, y_test=y_test)
        for D in range(4):
            Z = X.reshape(N, -1)
            Phi = np.column_stack([np.prod(Z[:, list(T)], axis=1)
                                   for k in range(D + 1) for T in itertools.combinations(range(6), k)])
            coef = np.linalg.lstsq(Phi, y, rcond=None)[0]
            fit = low_degree_regression(X, y, D, X_test=X_test, y_test=y_test)
            assert fit.train_mse == pytest.approx(np.mean((Phi @ coef - y) ** 2), abs=1e-10)
            assert curve.train_mse[D] == pytest.approx(fit.train_mse, abs=1e-10)
            assert curve.test_mse[D] == pytest.approx(fit.test_mse, rel=1e-8)
            np.testing.assert_allclose(fit.predict(X), Phi @ coef, atol=1e-8)
    assert list(curve.features) == [n_monomials(6, D) for D in range(4)]


def test_errors():
    with pytest.raises(ValueError, match="n\\*d <= 20"):
        boolean_cube(2, 11)
    with pytest.raises(ValueError, match=r"shape \(2\*\*K,\)"):
        walsh_hadamard(np.ones(6))
    with pytest.raises(ValueError, match="give the token dimension d"):
        fourier_spectrum(lambda X: X[:, 0, 0])
    with pytest.raises(ValueError, match="position must be in"):
        fourier_spectrum(Heads(np.zeros((1, 2, 2)), np.eye(2)), position=2)
    with pytest.raises(TypeError, match="Heads or a callable"):
        fourier_spectrum(np.zeros(3))
    with pytest.raises(ValueError, match=r"y must have shape \(5,\)"):
        low_degree_regression(boolean_inputs(5, 2, 2, rng=0), np.zeros(4), 1)
    with pytest.warns(RuntimeWarning, match="interpolates"):
        low_degree_regression(boolean_inputs(5, 2, 2, rng=0), np.zeros(5), 2)
    with pytest.raises(ValueError, match="give both X_test and y_test"):
        low_degree_curve(boolean_inputs(9, 2, 2, rng=0), np.zeros(9), 1, X_test=boolean_inputs(3, 2, 2, rng=0))
    with pytest.raises(ValueError, match="same number of entries per sequence"):
        low_degree_regression(boolean_inputs(9, 2, 2, rng=0), np.zeros(9), 1, X_test=boolean_inputs(3, 2, 3, rng=0),
                              y_test=np.zeros(3))
    with pytest.raises(TypeError, match="degree must be an integer >= 0"):
        n_monomials(4, 1.5)


def test_walsh_hadamard_near_the_float_limit():
    np.testing.assert_array_equal(walsh_hadamard(np.ones(4) * 1e308), [1e308, 0, 0, 0])
    np.testing.assert_array_equal(walsh_hadamard([1e308, -1e308, 1e308, -1e308]), [0, 1e308, 0, 0])


def test_walsh_hadamard_unchanged_on_ordinary_values():
    """Halving at each butterfly is exact: the same bits as the transform divided at the end."""
    v = np.random.default_rng(0).standard_normal(64)
    h = v.copy()
    for k in range(6):
        h = h.reshape(-1, 2, 2**k)
        h = np.concatenate([h[:, :1] + h[:, 1:], h[:, :1] - h[:, 1:]], axis=1)
    np.testing.assert_array_equal(walsh_hadamard(v), h.reshape(64) / 64)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e308, 1e308), min_size=8, max_size=8))
def test_walsh_hadamard_is_finite_and_inverts(values):
    h = walsh_hadamard(values)
    assert np.isfinite(h).all()
    assert np.abs(h).max() <= np.abs(values).max()
