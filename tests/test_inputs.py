"""Tests for attnlib.inputs: the two input distributions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlib import boolean_inputs, gaussian_inputs


@pytest.mark.parametrize("sampler", [boolean_inputs, gaussian_inputs])
def test_shapes_and_dtype(sampler):
    X = sampler(4, 3, 5, rng=0)
    assert X.shape == (4, 3, 5) and X.dtype == np.float64


def test_boolean_entries_are_fair_independent_signs():
    X = boolean_inputs(2000, 4, 5, rng=1)
    assert set(np.unique(X)) == {-1.0, 1.0}
    # mean 0 (sd of the mean is 1/sqrt(40000) = 0.005) and uncorrelated coordinates
    assert abs(X.mean()) < 0.025
    flat = X.reshape(-1, 5)
    C = flat.T @ flat / len(flat)
    np.testing.assert_allclose(C, np.eye(5), atol=0.03)


def test_gaussian_moments():
    X = gaussian_inputs(4000, 4, 3, rng=2).ravel()
    assert abs(X.mean()) < 0.02
    assert X.var() == pytest.approx(1.0, abs=0.03)
    assert np.mean(X**4) == pytest.approx(3.0, abs=0.15)


@pytest.mark.parametrize("sampler", [boolean_inputs, gaussian_inputs])
def test_reproducible_with_seed_and_generator(sampler):
    np.testing.assert_array_equal(sampler(3, 2, 2, rng=5), sampler(3, 2, 2, rng=5))
    g1, g2 = np.random.default_rng(9), np.random.default_rng(9)
    np.testing.assert_array_equal(sampler(3, 2, 2, rng=g1), sampler(3, 2, 2, rng=g2))


@pytest.mark.parametrize("sampler", [boolean_inputs, gaussian_inputs])
@pytest.mark.parametrize("args, exc, match", [
    ((0, 3, 4), ValueError, "N must be a positive integer; received 0"),
    ((5, -2, 4), ValueError, "n must be a positive integer; received -2"),
    ((5, 3, 2.0), TypeError, "d must be a positive integer; received 2.0"),
])
def test_bad_sizes(sampler, args, exc, match):
    with pytest.raises(exc, match=match):
        sampler(*args)


# --- seeds and sizes (moved from tests/test_bad_input.py) -----------------------------------------


def test_sizes_accept_numpy_integers():
    assert boolean_inputs(np.int64(2), np.int32(3), np.uint8(4), rng=0).shape == (2, 3, 4)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.text(max_size=5), st.floats(), st.booleans(), st.integers(max_value=-1),
                 st.lists(st.integers(0, 5), max_size=2)))
def test_bad_rng_is_named(value):
    with pytest.raises((TypeError, ValueError), match="rng must be None, an integer seed"):
        boolean_inputs(2, 2, 2, rng=value)
