"""Tests of attnlib.rkhs.features: the cubic features and their kernel, against loops (chapter 3)."""

import itertools

import numpy as np
import pytest
from _oracles import naive_features, raw_features

from attnlib import gaussian_inputs
from attnlib.rkhs import (
    cubic_features,
    kernel,
    n_features,
)


def test_feature_and_kernel_shapes():
    X = gaussian_inputs(5, 7, 3, rng=0)
    assert n_features(3) == 18
    assert cubic_features(X).shape == (5, 18)
    assert cubic_features(X, causal=True).shape == (5, 7, 18)
    assert cubic_features(X[0]).shape == (18,)
    assert cubic_features(X[0], causal=True).shape == (7, 18)
    ragged = [X[0], X[1, :4], X[2, :2]]
    assert cubic_features(ragged).shape == (3, 18)
    causal = cubic_features(ragged, causal=True)
    assert [c.shape for c in causal] == [(7, 18), (4, 18), (2, 18)]
    assert kernel(X, X[:2]).shape == (5, 2)
    assert kernel(X[0], X).shape == (5,)
    assert isinstance(kernel(X[0], X[1]), float)


@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_features_match_algorithm_2_loops(d):
    rng = np.random.default_rng(d)
    X = gaussian_inputs(4, 6, d, rng=rng)
    expected = np.array([naive_features(x) for x in X])
    np.testing.assert_allclose(cubic_features(X), expected, rtol=1e-12, atol=1e-12)
    # causal features: row t is the last-token feature of the prefix x_1..x_t
    causal = cubic_features(X, causal=True)
    for i, t in itertools.product(range(4), range(6)):
        np.testing.assert_allclose(causal[i, t], naive_features(X[i, : t + 1]), rtol=1e-12, atol=1e-12)


def test_kernel_is_inner_product_of_features_and_raw_kernel_formula():
    rng = np.random.default_rng(1)
    A = [rng.standard_normal((n, 3)) for n in (2, 5, 9)]
    B = [rng.standard_normal((n, 3)) for n in (4, 4, 1, 7)]
    K = kernel(A, B)
    expected = np.array([[naive_features(a) @ naive_features(b) for b in B] for a in A])
    np.testing.assert_allclose(K, expected, rtol=1e-12)
    # raw features (all d^3 products) have the kernel ||X X2^T||_F^2 <x_n, x2_n>
    for a, b in itertools.product(A, B):
        raw = raw_features(a) @ raw_features(b)
        assert raw == pytest.approx(np.linalg.norm(a @ b.T) ** 2 * (a[-1] @ b[-1]), rel=1e-12)


# --- bad input (moved from tests/test_bad_input.py) ----------------------------------------------
XL = gaussian_inputs(40, 4, 2, rng=3)


@pytest.mark.parametrize("text", ["False", "True"])
def test_causal_must_be_a_bool_not_text(text):
    with pytest.raises(TypeError, match=r"causal must be True or False; received '(True|False)' \(str\)"):
        cubic_features(XL, causal=text)


def test_cubic_features_that_overflow_name_X():
    with pytest.raises(ValueError, match=r"cubic features of X overflow"):
        cubic_features(XL * 1e120)


def test_kernel_overflow_names_its_inputs():
    with pytest.raises(ValueError, match="kernel of X and X2 overflows"):
        kernel(XL * 1e60, XL * 1e60)


def test_kernel_of_sequences_of_another_dimension_names_X2():
    with pytest.raises(ValueError, match="X2 has token dimension 3 but the model expects d=2"):
        kernel(XL, gaussian_inputs(2, 4, 3, rng=0))


def test_n_features_refuses_a_float():
    with pytest.raises(TypeError, match=r"d must be a positive integer"):
        n_features(2.5)
