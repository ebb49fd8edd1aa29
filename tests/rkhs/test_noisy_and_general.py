"""The certificate under label noise (Lemma E.2), for any feature map (Lemma E.1), and minimisers by head count.

Oracles: the features are rebuilt here from their definition (products of Gram entries with the last
token, in another order than the library's), and the bound is checked against layers whose distance
to the teacher is known exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnlib import gaussian_inputs, random_heads
from attnlib.rkhs import cubic_features, noisy_label_bound, parameter_map, polynomial_certificate
from attnlib.rkhs.experiments import minimisers_by_heads
from attnlib.tasks.associative_memory import sample_memories


def naive_features(X):
    """phi(X) from the definition: G[j, k] x_n[l] for j <= k, in (l, j, k) order."""
    X = np.asarray(X, dtype=float)
    N, n, d = X.shape
    out = []
    for i in range(N):
        G = X[i].T @ X[i]
        x = X[i, -1]
        out.append([G[j, k] * x[l] for l in range(d) for j in range(d) for k in range(j, d)])
    return np.array(out)


@pytest.fixture
def noisy():
    rng = np.random.default_rng(3)
    X = gaussian_inputs(120, 4, 2, rng=rng)
    teacher = random_heads(2, 2, rng=rng)
    noise = 0.2 * rng.standard_normal((120, 2))
    return X, teacher, noise, rng


def test_noisy_bound_holds_for_layers_at_known_distances(noisy):
    X, teacher, noise, rng = noisy
    Phi = naive_features(X)                          # independent features, permuted columns
    Phi_lib = cubic_features(X)
    C_star = parameter_map(teacher)
    Y = Phi_lib @ C_star + noise
    lam_min = np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))[0]
    ls = np.linalg.lstsq(Phi_lib, Y, rcond=None)[0]
    for scale in (0.0, 0.01, 0.1, 1.0):
        C = ls + scale * rng.standard_normal(ls.shape)
        eps = float(np.mean((Phi_lib @ C - Y) ** 2))
        b = noisy_label_bound(X, noise, eps)
        dist2 = float(np.sum((C - C_star) ** 2))
        assert dist2 <= b.bound * (1 + 1e-9)
        assert np.isclose(b.lam_min, lam_min, rtol=1e-8)
        assert np.isclose(b.excess, eps - np.mean(noise**2), rtol=1e-10, atol=1e-14)


def test_noisy_bound_cross_term_is_the_projected_noise(noisy):
    X, _, noise, _ = noisy
    Phi = naive_features(X)
    P_noise = Phi @ np.linalg.pinv(Phi) @ noise
    b = noisy_label_bound(X, noise, float(np.mean(noise**2)))
    assert np.isclose(b.cross, np.linalg.norm(P_noise) / np.sqrt(noise.size), rtol=1e-8)
    # at the least-squares loss the excess is exactly -a^2: the paper's numerator without its slack is negative
    ls_loss = float(np.mean((noise - P_noise) ** 2))
    at_ls = noisy_label_bound(X, noise, ls_loss)
    assert np.isclose(at_ls.excess, -at_ls.cross**2, rtol=1e-8) and at_ls.excess < 0


def test_noisy_bound_refuses_impossible_inputs(noisy):
    X, _, noise, _ = noisy
    with pytest.raises(ValueError, match="below the least-squares loss"):
        noisy_label_bound(X, noise, 0.0)
    with pytest.raises(ValueError, match=r"noise must have shape \(N, d\) = \(120, 2\)"):
        noisy_label_bound(X, noise[:10], 0.1)
    signs = np.sign(X) + (X == 0)
    with pytest.raises(ValueError, match="Lambda_D is singular"):
        noisy_label_bound(signs, noise, 0.1)


def test_polynomial_certificate_matches_a_direct_rank():
    rng = np.random.default_rng(0)
    H = rng.standard_normal((50, 6))
    cert = polynomial_certificate(H)
    assert cert.identifiable and cert.rank == 6
    assert np.isclose(cert.lam_min, np.linalg.svd(H, compute_uv=False)[-1] ** 2 / 50, rtol=1e-8)
    H_dup = np.column_stack([H, H[:, 0] - 2 * H[:, 1]])     # a feature that is a combination of two others
    dup = polynomial_certificate(H_dup)
    assert not dup.identifiable and dup.rank == np.linalg.matrix_rank(H_dup) == 6 and dup.lam_min == 0.0


def test_polynomial_certificate_is_invariant_under_invertible_feature_maps():
    X = gaussian_inputs(300, 5, 2, rng=1)
    Phi = naive_features(X)
    M = np.random.default_rng(2).standard_normal((6, 6)) + 3 * np.eye(6)
    assert polynomial_certificate(Phi).rank == polynomial_certificate(Phi @ M).rank == 6


def test_polynomial_certificate_rejects_bad_features():
    with pytest.raises(ValueError, match=r"shape \(N, psi\); received shape \(3,\)"):
        polynomial_certificate(np.ones(3))
    with pytest.raises(ValueError, match=r"H must be finite; received nan"):
        polynomial_certificate(np.array([[1.0, np.nan]]))


def test_exact_minimisers_with_d2_heads_fit_and_differ_along_the_null_space():
    data = sample_memories(64, 2, orthogonal_share=1.0, rng=0)
    runs = minimisers_by_heads(data, heads=(16,), seeds=3, rng=1)
    assert runs.method[16] == "exact" and runs.zero_loss(16).all()
    assert np.all(runs.distance[16] > 0.1)
    Phi = naive_features(data.X)
    assert np.linalg.matrix_rank(Phi) < Phi.shape[1]     # singular data: room to differ


def test_adam_runs_report_their_own_loss():
    data = sample_memories(32, 2, orthogonal_share=1.0, rng=0)
    runs = minimisers_by_heads(data, heads=(1,), seeds=2, epochs=20, rng=0)
    assert runs.method[1] == "adam" and runs.loss[1].shape == (2,) and np.all(runs.loss[1] > 0)
    with pytest.raises(ValueError, match="seeds"):
        minimisers_by_heads(data, heads=(1,), seeds=0)
