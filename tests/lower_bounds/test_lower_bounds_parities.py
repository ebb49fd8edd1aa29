"""Tests for attnlib.lower_bounds.parities: elimination over GF(2) and exhaustive search."""

import itertools

import numpy as np
import pytest

from attnlib.lower_bounds.parities import parity_by_elimination, parity_by_enumeration


def test_elimination_recovers_the_hidden_set_and_rejects_noise():
    rng = np.random.default_rng(10)
    for trial in range(5):
        K, S = 12, tuple(sorted(rng.choice(12, size=3, replace=False).tolist()))
        Z = rng.choice([-1.0, 1.0], size=(40, K))
        chi = np.prod(Z[:, list(S)], axis=1)
        assert parity_by_elimination(Z, chi) == S
        noisy = chi.copy()
        noisy[trial] *= -1
        assert parity_by_elimination(Z, noisy) is None  # 40 equations, 12 unknowns: one flip is inconsistent


def test_enumeration_matches_brute_force_agreement():
    rng = np.random.default_rng(11)
    Z = rng.choice([-1.0, 1.0], size=(120, 6))
    chi = Z[:, 0] * Z[:, 3] * np.where(rng.random(120) < 0.15, -1, 1)
    S, agree = parity_by_enumeration(Z, chi, 2)
    scores = {T: np.mean(np.prod(Z[:, list(T)], axis=1) == chi) for T in itertools.combinations(range(6), 2)}
    assert agree == max(scores.values()) and S == (0, 3)


def test_elimination_on_an_underdetermined_system_returns_a_consistent_set():
    rng = np.random.default_rng(12)
    Z = rng.choice([-1.0, 1.0], size=(5, 10))
    chi = Z[:, 2] * Z[:, 7]
    found = parity_by_elimination(Z, chi)
    assert found is not None and np.all(np.prod(Z[:, list(found)], axis=1) == chi)


def test_errors():
    with pytest.raises(ValueError, match=r"Z must have shape \(M, K\)"):
        parity_by_elimination(np.ones((3, 2)), np.ones(4))
    with pytest.raises(ValueError, match="K >= s=3"):
        parity_by_enumeration(np.ones((3, 2)), np.ones(3), 3)
    with pytest.raises(ValueError, match="s must be a positive integer"):
        parity_by_enumeration(np.ones((3, 2)), np.ones(3), 0)
