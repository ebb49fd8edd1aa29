"""Tests of attnlib.rkhs.coefficients: p(Theta), the matrix view, the SVD back to heads, the distance."""


import numpy as np
import pytest
from _oracles import naive_features, naive_linear_attention

from attnlib import Heads, attention, gaussian_inputs, random_heads
from attnlib.rkhs import (
    coefficient_matrix,
    cubic_features,
    fit_linear_attention,
    heads_from_coef,
    n_features,
    parameter_distance,
    parameter_map,
)


@pytest.mark.parametrize("m,d", [(1, 2), (2, 3), (3, 4)])
def test_parameter_map_reproduces_linear_attention(m, d):
    rng = np.random.default_rng(10 * m + d)
    heads = random_heads(m, d, rng=rng)
    coef = parameter_map(heads)
    for n in (1, 3, 11):
        X = gaussian_inputs(5, n, d, rng=rng)
        expected = np.array([naive_linear_attention(x, heads) for x in X])
        np.testing.assert_allclose(cubic_features(X) @ coef, expected, rtol=1e-10, atol=1e-12)


def test_parameter_map_matches_cor_a4_formula():
    """Entries of p(Theta) from the paper's formula, in the paper's column convention."""
    heads = random_heads(2, 3, rng=4)
    d = 3
    V = heads.W.transpose(0, 2, 1)  # Yau et al.: V_h = W_h^T, Q_h = Theta_h^T
    Q = heads.Theta.transpose(0, 2, 1)
    expected = []
    for j in range(d):
        for k in range(j + 1, d):
            expected.extend([[sum(V[h, a, j] * Q[h, k, l] + V[h, a, k] * Q[h, j, l] for h in range(2))
                              for a in range(d)] for l in range(d)])
    for j in range(d):
        expected.extend([[sum(V[h, a, j] * Q[h, j, l] for h in range(2)) for a in range(d)] for l in range(d)])
    np.testing.assert_allclose(parameter_map(heads), np.array(expected), rtol=1e-12)


def test_parameter_distance_is_zero_exactly_for_equal_functions():
    rng = np.random.default_rng(5)
    heads = random_heads(3, 3, rng=rng)
    # gauge: scale each head, permute heads, and split one head in two halves
    gauge = Heads(np.concatenate([3.0 * heads.Theta[::-1], heads.Theta[:1]]),
                  np.concatenate([heads.W[::-1] / 3.0, np.zeros((1, 3, 3))]))
    assert parameter_distance(heads, gauge) < 1e-12
    other = Heads(heads.Theta + 1e-3 * rng.standard_normal(heads.Theta.shape), heads.W)
    X = gaussian_inputs(50, 4, 3, rng=rng)
    gap = np.abs(attention(X, heads, kind="linear") - attention(X, other, kind="linear")).max()
    assert parameter_distance(heads, other) > 1e-5 and gap > 1e-6


def test_heads_from_coef_round_trip_and_bound():
    rng = np.random.default_rng(11)
    for d in (2, 3, 4):
        coef = rng.standard_normal((n_features(d), d))
        heads = heads_from_coef(coef)
        assert heads.m <= d * d
        np.testing.assert_allclose(parameter_map(heads), coef, atol=1e-12 * np.abs(coef).max())
    zero = heads_from_coef(np.zeros((18, 3)))
    assert zero.m == 1 and not zero.W.any()


def test_coefficient_matrix_gives_the_output_and_truncation_is_eckart_young():
    rng = np.random.default_rng(22)
    d = 3
    coef = rng.standard_normal((n_features(d), d))
    M = coefficient_matrix(coef)
    X = rng.standard_normal((5, d))
    G, x = X.T @ X, X[-1]
    y = [sum(x[l] * G[j, k] * M[l * d + j, k * d + a] for l in range(d) for j in range(d) for k in range(d))
         for a in range(d)]
    np.testing.assert_allclose(y, naive_features(X) @ coef, rtol=1e-12)
    s = np.linalg.svd(M, compute_uv=False)
    for k in (1, 4, 9):
        approx = heads_from_coef(coef, max_heads=k)
        assert approx.m == k
        Mk = sum(np.outer(T.ravel(), W.ravel()) for T, W in zip(approx.Theta, approx.W, strict=True))
        gap = np.linalg.norm(Mk - M)
        assert gap == pytest.approx(np.sqrt(np.sum(s[k:] ** 2)), abs=1e-10)


# --- bad input (moved from tests/test_bad_input.py) ----------------------------------------------


def test_parameter_map_overflow_names_heads():
    H = random_heads(2, 4, rng=0)
    big = Heads(H.Theta * 1e200, H.W * 1e200)
    with pytest.raises(ValueError, match="coefficients of heads overflow"):
        parameter_map(big)


def test_heads_from_coef_refuses_a_nan_rtol():
    with pytest.raises(ValueError, match=r"rtol must be a finite positive"):
        heads_from_coef(parameter_map(random_heads(2, 4, rng=0)), rtol=float("nan"))


def test_a_layer_is_heads_a_fit_or_coefficients():
    """parameter_distance takes Heads, a LinearFit or a coefficient array; anything else is named."""
    X = gaussian_inputs(40, 4, 2, rng=3)
    heads = random_heads(1, 2, rng=4)
    fit = fit_linear_attention(X, attention(X, heads, kind="linear")[:, -1])
    assert parameter_distance(fit, heads) < 1e-8
    assert parameter_distance(parameter_map(heads).tolist(), heads) == 0.0
    with pytest.raises(TypeError, match=r"^heads_b must be Heads, a LinearFit or an array of shape \(psi, d\)"):
        parameter_distance(heads, 1.5)
    with pytest.raises(ValueError, match=r"^heads_a must be Heads, a LinearFit or an array of shape \(psi, d\); "
                                         r"received shape \(3,\)"):
        parameter_distance(np.ones(3), heads)
    with pytest.raises(ValueError, match="coefficient shapes"):
        parameter_distance(np.eye(4), heads)
