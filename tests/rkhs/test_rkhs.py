"""Tests for attnlib.rkhs across its modules: errors that name what was received, memory refused before allocating."""


import numpy as np
import pytest

from attnlib import gaussian_inputs, random_heads
from attnlib.rkhs import (
    certificate,
    cubic_features,
    fit_linear_attention,
    heads_from_coef,
    parameter_distance,
)


def test_errors_name_what_was_received():
    X = gaussian_inputs(10, 4, 3, rng=0)
    with pytest.raises(ValueError, match=r"Y must have shape \(10, 3\) for last-token targets"):
        fit_linear_attention(X, np.zeros((10, 2)))
    with pytest.raises(ValueError, match="must be finite"):
        fit_linear_attention(np.where(X > 2, np.nan, X), np.zeros((10, 3)))
    with pytest.raises(ValueError, match="batch"):
        fit_linear_attention(X[0], np.zeros(3))
    with pytest.raises(ValueError, match="share the token dimension"):
        cubic_features([np.zeros((3, 2)), np.zeros((3, 4))])
    with pytest.raises(ValueError, match=r"X\[1\] must be one sequence"):
        certificate([np.zeros((3, 2)), np.zeros(3)])
    with pytest.raises(ValueError, match=r"Y\[0\] must have shape \(4, 3\)"):
        fit_linear_attention(list(X), [np.zeros((3, 3))] * 10)
    with pytest.raises(ValueError, match="model expects d=3"):
        fit_linear_attention(gaussian_inputs(30, 4, 3, rng=1), np.zeros((30, 3))).predict(np.zeros((2, 4, 5)))
    with pytest.raises(ValueError, match="coefficient shapes"):
        parameter_distance(random_heads(1, 2, rng=0), random_heads(1, 3, rng=0))
    with pytest.raises(ValueError, match=r"steps must be a positive integer"):
        fit_linear_attention(X, np.zeros((10, 3)), steps=0)
    with pytest.raises(ValueError, match=r"coef must have shape \(psi, d\) = \(18, 3\)"):
        heads_from_coef(np.zeros((17, 3)))


def test_too_large_d_is_refused_before_allocating():
    X = np.ones((2, 3, 80))  # psi = 259,200: the normal equations alone would need about 1.6 TB
    with pytest.raises(MemoryError, match=r"d=80 \(psi=259200 cubic features\) needs about"):
        fit_linear_attention(X, np.zeros((2, 80)))
    with pytest.raises(MemoryError, match="certificate at d=80"):
        certificate(X)
    with pytest.raises(MemoryError, match=r"cubic_features at d=40 \(psi=32800 cubic features\)"):
        cubic_features(np.zeros((200_000, 1, 40)))  # the features would take 52 GB
