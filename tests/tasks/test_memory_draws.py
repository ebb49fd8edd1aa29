"""Orthogonal tables drawn two ways: Haar (the default) and plain QR without a sign fix (the authors' code)."""

import numpy as np
import pytest

from attnlib.rkhs import certificate
from attnlib.tasks.associative_memory import sample_memories


def key_dets(data, m):
    return np.linalg.det(data.X[:, :m, :m])


def test_qr_tables_at_two_pairs_are_all_reflections_and_lose_rank():
    qr = sample_memories(2000, 2, orthogonal_share=1.0, orthogonal_draw="qr", rng=0)
    haar = sample_memories(2000, 2, orthogonal_share=1.0, rng=0)
    assert np.allclose(key_dets(qr, 2), -1.0)
    dets = key_dets(haar, 2)
    assert np.any(dets > 0.5) and np.any(dets < -0.5)            # Haar: both components of O(2)
    assert certificate(qr.X).rank == 28 and certificate(haar.X).rank == 36


def test_qr_tables_are_orthogonal_and_answer_the_lookup():
    data = sample_memories(50, 3, orthogonal_share=1.0, orthogonal_draw="qr", rng=1)
    K = data.X[:, :3, :3]
    assert np.allclose(K @ K.transpose(0, 2, 1), np.eye(3))
    assert np.allclose(np.linalg.det(K), 1.0)                     # at 3 pairs: always a rotation


def test_unknown_draw_is_refused():
    with pytest.raises(ValueError, match="orthogonal_draw must be one of 'haar', 'qr'; received 'sobol'"):
        sample_memories(5, 2, orthogonal_draw="sobol")
