"""Tests for attnlib.sculpt.instances: planted heads, the min-norm point and the conditions."""

import itertools

import numpy as np
import pytest

from attnlib import Heads, random_heads
from attnlib.sculpt import measure_conditions, min_norm_point, planted_instance


def brute_min_norm(Theta):
    """Min over affine weights by the KKT system [[G, 1], [1^T, 0]] written out in the test."""
    m = Theta.shape[0]
    G = np.array([[np.sum(Theta[i] * Theta[j]) for j in range(m)] for i in range(m)])
    K = np.block([[2 * G, np.ones((m, 1))], [np.ones((1, m)), np.zeros((1, 1))]])
    lam = np.linalg.solve(K, np.r_[np.zeros(m), 1.0])[:m]
    return sum(lam[i] * Theta[i] for i in range(m)), lam


# --- shape -------------------------------------------------------------------


def test_planted_shapes_and_norms():
    heads = planted_instance(3, 5, scale=3.0, shared=0.5, rng=0)
    assert isinstance(heads, Heads) and heads.m == 3 and heads.d == 5
    np.testing.assert_allclose(np.linalg.norm(heads.Theta, axis=(1, 2)), 3.0)


# --- oracle ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_min_norm_point_matches_kkt_solution(seed):
    Theta = np.random.default_rng(seed).normal(size=(3, 4, 4)) + 0.5
    star, lam = min_norm_point(Theta)
    star2, lam2 = brute_min_norm(Theta)
    np.testing.assert_allclose(star, star2, atol=1e-10)
    np.testing.assert_allclose(lam, lam2, atol=1e-10)


def test_planted_min_norm_point_has_the_stated_closed_form():
    m, scale, shared = 3, 4.0, 0.6
    heads = planted_instance(m, 4, scale=scale, shared=shared, rng=1)
    star, lam = min_norm_point(heads.Theta)
    np.testing.assert_allclose(lam, 1 / m, atol=1e-10)
    ratio = np.linalg.norm(star) / scale
    assert ratio == pytest.approx(np.sqrt(shared + (1 - shared) / m), abs=1e-10)
    cos = [np.sum(a * b) / scale**2 for a, b in itertools.combinations(heads.Theta, 2)]
    np.testing.assert_allclose(cos, shared, atol=1e-10)


# --- property ----------------------------------------------------------------


def test_min_norm_lemma_every_head_has_the_same_component():
    for seed in range(5):
        Theta = random_heads(4, 5, rng=seed).Theta + 0.3
        star, _ = min_norm_point(Theta)
        inner = np.einsum("pq,ipq->i", star, Theta)
        np.testing.assert_allclose(inner, np.sum(star**2), rtol=1e-10)


def test_planted_heads_satisfy_the_conditions():
    for seed in range(10):
        c = measure_conditions(planted_instance(2, 4, rng=seed))
        assert c.ok, c
        assert c.sum_W_condition <= 10


def test_conditions_flag_each_failure():
    heads = planted_instance(2, 4, scale=1.0, check=False, rng=0)
    assert "(b)" in " ".join(measure_conditions(heads).failures)
    same = Heads(np.stack([np.eye(4), np.eye(4) * 1.0001]) * 3, planted_instance(2, 4, rng=0).W)
    failures = " ".join(measure_conditions(same).failures)
    assert "(d)" in failures
    opposite = Heads(np.stack([np.eye(4), -np.eye(4) + 0.01]) * 2, planted_instance(2, 4, rng=0).W)
    assert "(c)" in " ".join(measure_conditions(opposite).failures)
    assert "all hold" in repr(measure_conditions(planted_instance(2, 4, rng=3)))


# --- errors ------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match="positive integer"):
        planted_instance(0, 4)
    with pytest.raises(ValueError, match=r"shared must be a finite number in \[0, 1\)"):
        planted_instance(2, 4, shared=1.0)
    with pytest.raises(ValueError, match="m \\+ 1 <= d\\^2"):
        planted_instance(4, 2)
    with pytest.raises(ValueError, match="fail the reconstruction's conditions.*\\(b\\)"):
        planted_instance(2, 4, scale=0.5, rng=0)
    with pytest.raises(ValueError, match="shape \\(m, d, d\\)"):
        min_norm_point(np.ones((2, 3, 4)))


def test_conditions_repr_fits_the_book_column():
    # issue 18: chapter 8 prints this repr; on one line it was 122 characters, cut off at the page edge
    c = measure_conditions(planted_instance(2, 4, rng=0))
    lines = repr(c).splitlines()
    assert len(lines) == 2 and max(map(len, lines)) <= 79, repr(c)
    assert lines[0].startswith("Conditions(cond(sum W)=") and lines[1].startswith(" " * len("Conditions("))
    assert repr(c).endswith("; all hold)")


def test_conditions_of_one_head_say_the_separation_is_vacuous():
    one = planted_instance(1, 4, rng=0)
    cond = measure_conditions(one)
    assert cond.separation == np.inf and cond.ok
    assert "separation=n/a (one head)" in repr(cond)
    assert "separation=inf" not in repr(cond)
