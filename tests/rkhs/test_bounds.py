"""Bounds on approximate minimisers: Lemma A.7 (stopping early), the pairwise repair of Lemma E.2,
and the noisy bound at extreme input scales (issue 24, item 3).

Oracles: the features are rebuilt here from their definition (products of Gram entries with the
last token, in another order than the library's), lambda_min and the least-squares loss come from
``numpy.linalg.eigvalsh`` and ``numpy.linalg.lstsq`` on them, and the bounds are checked against
layers whose coefficients are known exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnlib import attention, gaussian_inputs, random_heads
from attnlib.rkhs import (
    fit_linear_attention,
    noisy_label_bound,
    pairwise_bound,
    parameter_map,
    stopping_bound,
)


def naive_features(X):
    """phi(X) from the definition: G[j, k] x_n[l] for j <= k, in (l, j, k) order."""
    X = np.asarray(X, dtype=float)
    out = []
    for Xi in X:
        G = Xi.T @ Xi
        x = Xi[-1]
        d = len(x)
        out.append([G[j, k] * x[l] for l in range(d) for j in range(d) for k in range(j, d)])
    return np.array(out)


def naive_lam_min(X):
    Phi = naive_features(X)
    return float(np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))[0])


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    X = gaussian_inputs(150, 5, 2, rng=rng)
    teacher = random_heads(2, 2, rng=rng)
    noise = 0.1 * rng.standard_normal((150, 2))
    Y = attention(X, teacher, kind="linear")[:, -1]
    return X, teacher, noise, Y, rng


# --- the noisy bound at extreme scales (the bug: it divided by lambda_min of X / scale) -----------


@pytest.mark.parametrize("c", [2.0**-20, 2.0**20])
def test_noisy_bound_at_extreme_scales_issue24(data, c):
    """Inputs times c and the teacher times c**-3 compute the same targets; the coefficients scale by
    c**-3, so squared distances (and the bound) by c**-6, and lambda_min by c**6."""
    X, teacher, noise, Y, _ = data
    at_one = noisy_label_bound(X, noise, fit_linear_attention(X, Y + noise).train_loss)
    fit = fit_linear_attention(c * X, Y + noise)
    scaled = noisy_label_bound(c * X, noise, fit.train_loss)
    assert np.isclose(scaled.lam_min, at_one.lam_min * c**6, rtol=1e-6)
    assert np.isclose(scaled.bound, at_one.bound * c**-6, rtol=1e-6)
    # and it still bounds the least-squares fit's squared distance to the teacher's coefficients
    dist2 = float(np.sum((fit.coef - parameter_map(teacher) / c**3) ** 2))
    assert dist2 <= scaled.bound * (1 + 1e-6)


# --- Lemma A.7: stopping early ---------------------------------------------------------------------


def test_stopping_bound_is_d_epsilon_over_lambda_min(data):
    X, *_ = data
    b = stopping_bound(X, 0.02)
    lam = naive_lam_min(X)
    assert np.isclose(b.lam_min, lam, rtol=1e-8)
    assert np.isclose(b.bound, 2 * 0.02 / lam, rtol=1e-8)
    assert stopping_bound(X, 0.0).bound == 0.0


def test_stopping_bound_holds_and_is_attained_along_the_lambda_min_direction(data):
    X, teacher, _, Y, rng = data
    Phi = naive_features(X)
    lam, V = np.linalg.eigh(Phi.T @ Phi / len(Phi))
    # naive_features orders columns (l, j, k); the library's p * d + l with pairs j < k first, then
    # the diagonal: move the eigenvector to the library's order through the features themselves
    from attnlib.rkhs import cubic_features
    Phi_lib = cubic_features(X)
    perm = [int(np.argmin(np.abs(Phi - Phi_lib[:, [c]]).sum(axis=0))) for c in range(Phi.shape[1])]
    assert np.allclose(Phi[:, perm], Phi_lib)
    v = V[perm, 0]
    C_star = parameter_map(teacher)
    for t in (1e-3, 0.1, 1.0):
        C = C_star.copy()
        C[:, 1] += t * v                              # a layer t away from the teacher, in direction v
        eps = float(np.mean((Phi_lib @ C - Y) ** 2))
        b = stopping_bound(X, eps)
        assert np.isclose(t**2, b.bound, rtol=1e-6)    # equality: the bound is tight along v
    for t in (1e-3, 0.1, 1.0):
        C = C_star + t * rng.standard_normal(C_star.shape)
        eps = float(np.mean((Phi_lib @ C - Y) ** 2))
        assert np.sum((C - C_star) ** 2) <= stopping_bound(X, eps).bound * (1 + 1e-9)


def test_stopping_bound_on_outputs(data):
    X, teacher, _, Y, rng = data
    b = stopping_bound(X, 0.01)
    X_test = gaussian_inputs(20, 9, 2, rng=rng)
    phi2 = np.sum(naive_features(X_test) ** 2, axis=1)
    assert np.allclose(b.output_bound(X_test), b.bound * phi2, rtol=1e-10)
    assert np.all(phi2 <= np.sum(X_test**2, axis=(1, 2)) ** 3 * (1 + 1e-12))   # ||phi||^2 <= ||X||_F^6


@pytest.mark.parametrize("c", [2.0**-20, 2.0**20])
def test_stopping_bound_at_extreme_scales(data, c):
    X, *_ = data
    assert np.isclose(stopping_bound(c * X, 0.01).bound, stopping_bound(X, 0.01).bound * c**-6, rtol=1e-8)
    assert np.isclose(stopping_bound(c * X, 0.01).lam_min, naive_lam_min(X) * c**6, rtol=1e-6)


# --- the pairwise bound: Lemma E.2 repaired ---------------------------------------------------------


def test_pairwise_bound_matches_an_independent_least_squares(data):
    X, _, noise, Y, _ = data
    Phi = naive_features(X)
    residual = Y + noise - Phi @ np.linalg.lstsq(Phi, Y + noise, rcond=None)[0]
    ls_loss = float(np.mean(residual**2))
    lam = naive_lam_min(X)
    eps = ls_loss + 0.003
    b = pairwise_bound(X, Y + noise, eps)
    assert np.isclose(b.ls_loss, ls_loss, rtol=1e-8)
    assert np.isclose(b.lam_min, lam, rtol=1e-8)
    assert np.isclose(b.to_least_squares, 2 * 0.003 / lam, rtol=1e-6)
    assert np.isclose(b.bound, 4 * 2 * 0.003 / lam, rtol=1e-6)


def test_pairwise_bound_holds_for_any_two_layers_and_is_attained(data):
    X, _, noise, Y, rng = data
    from attnlib.rkhs import cubic_features
    Phi = cubic_features(X)
    T = Y + noise
    C_ls = np.linalg.lstsq(Phi, T, rcond=None)[0]
    lam, V = np.linalg.eigh(Phi.T @ Phi / len(Phi))

    def loss(C):
        return float(np.mean((Phi @ C - T) ** 2))

    for t in (1e-3, 0.1, 1.0):
        up, down = C_ls.copy(), C_ls.copy()
        up[:, 0] += t * V[:, 0]
        down[:, 0] -= t * V[:, 0]                    # both at the same loss, 2t apart
        eps = max(loss(up), loss(down))
        b = pairwise_bound(X, T, eps)
        assert np.isclose(np.sum((up - down) ** 2), b.bound, rtol=1e-5)
        for _ in range(3):
            A = C_ls + t * rng.standard_normal(C_ls.shape)
            B = C_ls + t * rng.standard_normal(C_ls.shape)
            b = pairwise_bound(X, T, max(loss(A), loss(B)))
            assert np.sum((A - B) ** 2) <= b.bound * (1 + 1e-9)
            assert np.sum((A - C_ls) ** 2) <= b.to_least_squares * (1 + 1e-9)


def test_pairwise_bound_needs_no_noise_and_agrees_with_the_noisy_form_at_the_teacher(data):
    """With noisy realizable targets, epsilon - L_LS = epsilon - s + a^2: the noisy bound's numerator
    with the concentration term replaced by what it must bound."""
    X, teacher, noise, Y, _ = data
    T = Y + noise
    eps = float(np.mean(noise**2))                   # the teacher's own loss
    b = pairwise_bound(X, T, eps)
    nb = noisy_label_bound(X, noise, eps)
    assert np.isclose(eps - b.ls_loss, nb.excess + nb.cross**2, rtol=1e-6)
    # the teacher is an eps-minimiser, so it is within to_least_squares of the fit
    fit = fit_linear_attention(X, T)
    assert np.sum((fit.coef - parameter_map(teacher)) ** 2) <= b.to_least_squares * (1 + 1e-9)


@pytest.mark.parametrize("c", [2.0**-20, 2.0**20])
def test_pairwise_bound_at_extreme_scales(data, c):
    X, _, noise, Y, _ = data
    T = Y + noise
    eps = fit_linear_attention(X, T).train_loss + 0.001
    assert np.isclose(pairwise_bound(c * X, T, eps).bound, pairwise_bound(X, T, eps).bound * c**-6, rtol=1e-6)


def test_bounds_refuse_what_they_cannot_bound(data):
    X, _, noise, Y, _ = data
    T = Y + noise
    ls = fit_linear_attention(X, T).train_loss
    with pytest.raises(ValueError, match="below the least-squares loss"):
        pairwise_bound(X, T, 0.5 * ls)
    assert pairwise_bound(X, T, ls).bound == pytest.approx(0.0, abs=1e-9)  # the fit itself: no room
    signs = np.sign(X) + (X == 0)
    for call in (lambda: stopping_bound(signs, 0.1), lambda: pairwise_bound(signs, T, 0.1)):
        with pytest.raises(ValueError, match="Lambda_D is singular"):
            call()
    with pytest.raises(ValueError, match=r"epsilon must be a finite number in \[0, inf\)"):
        stopping_bound(X, -1.0)
    with pytest.raises(ValueError, match=r"Y must have shape \(150, 2\)"):
        pairwise_bound(X, T[:10], 0.1)
    with pytest.raises(ValueError, match="last-token targets"):
        pairwise_bound(X, np.zeros((150, 5, 2)), 0.1)
