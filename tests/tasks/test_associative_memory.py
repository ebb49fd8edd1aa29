"""Tests for attnlib.tasks.associative_memory: the lookup layer, its data, and the Fig. 2 sweep."""

import numpy as np
import pytest

from attnlib import attention
from attnlib.rkhs import certificate
from attnlib.rkhs.experiments import identifiability_sweep
from attnlib.tasks.associative_memory import Memories, memory_heads, sample_memories


def test_shapes_and_bookkeeping():
    data = sample_memories(40, 3, orthogonal_share=0.25, rng=0)
    assert isinstance(data, Memories)
    assert data.X.shape == (40, 4, 6) and data.Y.shape == (40, 6)
    assert data.query.shape == (40,) and data.orthogonal.sum() == 10
    assert memory_heads(3).m == 1 and memory_heads(3).d == 6
    assert repr(data) == "Memories(N=40, m=3, orthogonal_share=0.25)"


def test_targets_are_the_lookup_plus_the_query_term():
    """y = [0, sum_j <q, k_j> v_j + ||q||^2 zeta], written out with loops."""
    m = 3
    data = sample_memories(30, m, orthogonal_share=0.5, rng=1)
    for X, y, i in zip(data.X, data.Y, data.query, strict=True):
        keys, values, q, zeta = X[:m, :m], X[:m, m:], X[m, :m], X[m, m:]
        np.testing.assert_array_equal(q, keys[i])
        expected = sum((q @ keys[j]) * values[j] for j in range(m)) + (q @ q) * zeta
        np.testing.assert_allclose(y[m:], expected, atol=1e-12)
        np.testing.assert_allclose(y[:m], 0.0, atol=1e-12)
    np.testing.assert_allclose(data.Y, attention(data.X, data.heads, kind="linear")[:, -1])


def test_orthogonal_tables_recall_value_plus_filler():
    m = 4
    data = sample_memories(25, m, orthogonal_share=1.0, rng=2)
    for X, y, i in zip(data.X, data.Y, data.query, strict=True):
        keys, values = X[:m, :m], X[:m, m:]
        np.testing.assert_allclose(keys @ keys.T, np.eye(m), atol=1e-12)
        np.testing.assert_allclose(values @ values.T, np.eye(m), atol=1e-12)
        np.testing.assert_allclose(y[m:], values[i] + X[m, m:], atol=1e-12)


def test_gaussian_tables_are_unit_norm_by_default_only():
    unit = sample_memories(50, 2, rng=3).X[:, :2]
    np.testing.assert_allclose(np.linalg.norm(unit[..., :2], axis=-1), 1.0)
    raw = sample_memories(50, 2, unit_norm=False, rng=3).X[:, :2]
    assert np.abs(np.linalg.norm(raw[..., :2], axis=-1) - 1.0).max() > 0.1


@pytest.mark.parametrize("m", [2, 3])
def test_certificate_positive_on_gaussian_and_singular_on_orthogonal_tables(m):
    gaussian = certificate(sample_memories(4000, m, rng=4).X)
    orthogonal = certificate(sample_memories(4000, m, orthogonal_share=1.0, rng=4).X)
    assert gaussian.identifiable and gaussian.lam_min > 1e-3
    assert not orthogonal.identifiable and orthogonal.rank < orthogonal.psi


def test_sweep_exact_is_all_or_nothing_and_iterative_is_graded():
    sweep = identifiability_sweep([0.9, 0.99, 1.0], N=3000, steps=2000, N_test=500, rng=5)
    assert sweep.rank[:2].tolist() == [40, 40] and sweep.rank[2] < 40
    assert sweep.lam_min[0] > sweep.lam_min[1] > sweep.lam_min[2] == 0.0
    exact, iterative = sweep.distance["exact"], sweep.distance["iterative"]
    assert np.all(exact[:2] < 1e-10) and exact[2] > 0.1
    assert sweep.ood["exact"][2] > 1e-3 > sweep.ood["exact"][0]
    assert 1e-3 < iterative[0] < iterative[1] < iterative[2]


def test_errors():
    with pytest.raises(ValueError, match=r"orthogonal_share must be a finite number in \[0, 1\]; received 1.5"):
        sample_memories(10, 2, orthogonal_share=1.5)
    with pytest.raises(TypeError, match="m must be a positive integer"):
        memory_heads(2.0)
