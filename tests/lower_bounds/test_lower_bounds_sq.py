"""Tests for attnlib.lower_bounds.sq: the SQ correlations against an enumeration, Bessel's bound, the query count."""

import itertools
import math

import numpy as np

from attnlib.lower_bounds import boolean_cube, sq_correlations, sq_dimension, sq_query_lower_bound


def test_sq_correlations_match_enumeration():
    d, s = 4, 2
    rng = np.random.default_rng(4)
    g = rng.choice([-1.0, 1.0], size=4**d)
    X = boolean_cube(2, d)
    r = d - 1
    naive = []
    for S in itertools.combinations(range(d - 1), s):
        chi = np.prod(X[:, 0, list(S)] * X[:, 1, list(S)], axis=1)
        naive.append(np.mean(g * (X[:, 0, r] - X[:, 1, r]) * chi) / np.sqrt(2))
    np.testing.assert_allclose(sq_correlations(g, d, s), naive, atol=1e-14)
    assert sq_dimension(d, s) == len(naive) == math.comb(3, 2)


def test_bessel_bounds_the_total_correlation_of_any_query():
    d, s = 5, 2
    rng = np.random.default_rng(6)
    for _ in range(5):
        g = rng.uniform(-1, 1, size=4**d)
        assert np.sum(sq_correlations(g, d, s) ** 2) <= np.mean(g**2) + 1e-12


def test_sq_query_lower_bound_is_the_fewest_queries_that_can_rule_out_all_but_one():
    # q queries rule out at most 2 q / tau^2 of the D candidates (Bessel): the bound is the
    # smallest q with 2 q / tau^2 >= D - 1 (tolerances that are powers of 2, so the test is exact)
    for d, s in ((50, 3), (12, 1), (20, 4)):
        D = math.comb(d - 1, s)
        for tau in (1.0, 0.5, 0.125, 0.0625):
            q = sq_query_lower_bound(d, s, tau)
            assert 2 * q / tau**2 >= D - 1 > 2 * (q - 1) / tau**2
    assert sq_query_lower_bound(50, 3, 0.5) > sq_query_lower_bound(50, 3, 0.0625)
