"""Tests for attnlib.sculpt.span: orthonormal bases, alignment, and phase 4 against the random baseline."""

import numpy as np
import pytest

from attnlib import attention, boolean_inputs
from attnlib.sculpt import (
    Span,
    carve,
    face_span,
    min_norm_point,
    planted_instance,
    random_span,
    span_alignment,
    spectral_span,
)


@pytest.fixture(scope="module")
def sculpted():
    rng = np.random.default_rng(0)
    heads = planted_instance(2, 6, scale=4.0, shared=0.6, rng=rng)
    X = boolean_inputs(5000, 3, 6, rng=rng)
    Y = attention(X, heads)
    return heads, X, Y, carve(X, Y).sculpted


def orthonormal(basis):
    B = basis.reshape(len(basis), -1)
    return np.allclose(B @ B.T, np.eye(len(basis)), atol=1e-10)


# --- shape and property -------------------------------------------------------


def test_bases_are_orthonormal_and_start_with_the_proxy(sculpted):
    heads, X, Y, out = sculpted
    P = out.proxy / np.linalg.norm(out.proxy)
    for span in (face_span(out.body, out.proxy, 2, directions=16, rng=1),
                 spectral_span(X, Y, out.sum_W, out.proxy, 2),
                 random_span(out.proxy, 2, rng=1)):
        assert isinstance(span, Span) and span.basis.shape == (2, 6, 6)
        assert orthonormal(span.basis)
        np.testing.assert_allclose(span.basis[0], P, atol=1e-10)


def test_alignment_of_the_true_span_is_one(sculpted):
    heads = sculpted[0]
    Q, _ = np.linalg.qr(heads.Theta.reshape(2, -1).T)
    span = Span(Q.T.reshape(2, 6, 6), np.zeros((0, 6, 6)), "true")
    al = span_alignment(span, heads.Theta)
    np.testing.assert_allclose(al.heads, 1.0, atol=1e-10)
    assert al.offsets.shape == (2,) and al.mean_offset == pytest.approx(np.mean(al.offsets))


def test_projection_is_idempotent(sculpted):
    span = random_span(sculpted[3].proxy, 2, rng=3)
    T = np.random.default_rng(4).normal(size=(6, 6))
    np.testing.assert_allclose(span.project(span.project(T)), span.project(T), atol=1e-12)


def test_face_span_beats_random_directions_at_d6(sculpted):
    heads, X, Y, out = sculpted
    face = span_alignment(face_span(out.body, out.proxy, 2, rng=5), heads.Theta).mean_offset
    rand = np.mean([span_alignment(random_span(out.proxy, 2, rng=s), heads.Theta).mean_offset for s in range(20)])
    assert face > 0.85 and rand < 0.3


def test_min_norm_direction_is_shared_by_all_heads(sculpted):
    heads = sculpted[0]
    star, _ = min_norm_point(heads.Theta)
    # the part each head adds to Theta* is orthogonal to Theta* (the min-norm lemma)
    for T in heads.Theta:
        assert abs(np.sum((T - star) * star)) < 1e-10


# --- errors ------------------------------------------------------------------


def test_errors(sculpted):
    out = sculpted[3]
    with pytest.raises(ValueError, match="positive integer"):
        face_span(out.body, out.proxy, 0)
    with pytest.raises(ValueError, match=r"shape \(6, 6\)"):
        face_span(out.body, np.eye(5), 2)
