"""Feedback that names the mistake (issue 38, item 5): a table of typical wrong answers, one or more per check.

Each row is a wrong answer a student writes. Every row must fail its check; a row with words must
get a message that names the kind of mistake with those words, *outside* the check's "Common slip"
line (which every failure carries, so it cannot count as naming anything). At least 75 % of the
rows must be named. Correct variants (a guarded -inf maximum, lstsq for solve, float32 where the
check allows it...) must still pass. The last tests show that the detectors are what names the
mistakes: with ``_diagnose.ENABLED = False`` the share falls far below 75 %.

See the share: ``python -m pytest tests/checks/test_checks_named.py -q -s -k share``.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import attnlib.checks as checks
from attnlib import Heads, attention, softmax
from attnlib.checks import CheckFailure, _diagnose
from attnlib.lower_bounds import walsh_hadamard
from attnlib.rkhs import cubic_features, heads_from_coef, kernel, parameter_map
from attnlib.sculpt import logit_gaps


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


# --- pieces the wrong answers are built from -----------------------------------------------------------


def softmax_along(S, axis):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def head(X, Theta, W, scale=1.0):
    return softmax_along(scale * X @ Theta @ X.T, -1) @ X @ W


def gradient(X, Y, Theta, W, factor=2.0, denominator=None):
    G = np.einsum("Nbk,Nbl->Nkl", X, X)
    F = np.einsum("Naj,ijk,Nkl,ile->Nae", X, Theta, G, W)
    E = factor * (F - Y) / (Y.size if denominator is None else denominator)
    return np.einsum("Naj,Nae,ile,Nlk->ijk", X, E, W, G), np.einsum("Nlk,ijk,Naj,Nae->ile", G, Theta, X, E)


def descent(X, Y, Theta, W, step, steps):
    for _ in range(steps):
        dTheta, dW = gradient(X, Y, Theta, W)
        Theta, W = Theta - step * dTheta, W - step * dW
    return Theta, W


def split(d):
    """Where the pair features (j < k) end and the diagonal ones begin, in Algorithm 2's order."""
    return d * d * (d - 1) // 2


def scaled_features(X, pairs=1.0, diagonal=1.0):
    Phi = cubic_features(X).copy()
    s = split(X.shape[-1])
    Phi[..., :s] *= pairs
    Phi[..., s:] *= diagonal
    return Phi


def list_features(x):
    """One sequence's features in a Python list, in plain loops."""
    G, last, d = (x.T @ x).tolist(), x[-1].tolist(), x.shape[1]
    order = [(j, k) for j in range(d) for k in range(j + 1, d)] + [(j, j) for j in range(d)]
    return [G[j][k] * last[l] for j, k in order for l in range(d)]


def grams(X):
    return np.einsum("Nnj,Nnk->Njk", X, X)


def gram_kernel(X, X2, diagonal=1.0, dots=True):
    G, G2 = grams(X), grams(X2)
    K = (np.einsum("Njk,Mjk->NM", G, G2) + diagonal * np.einsum("Njj,Mjj->NM", G, G2)) / 2
    return K * (X[:, -1] @ X2[:, -1].T) if dots else K


def hand_features(X):
    """The features written by hand, without cubic_features: what check_kernel must still refuse."""
    G = grams(X)
    j, k = np.triu_indices(X.shape[-1], 1)
    pairs = np.concatenate([G[:, j, k], np.einsum("Njj->Nj", G)], axis=1)
    return (pairs[:, :, None] * X[:, -1, None, :]).reshape(len(X), -1)


def coef_rows(C, pairs=1.0, diagonal=1.0):
    C = np.array(C, dtype=float)
    s = split(C.shape[1])
    C[:s] *= pairs
    C[s:] *= diagonal
    return C


def fold_half_and_half(C):
    """One head per (l, j) with Theta = E_lj and W = M[l, j], M holding half of each pair's coefficient on
    either order (j, k) and (k, j): d^2 heads."""
    d = C.shape[1]
    order = [(j, k) for j in range(d) for k in range(j + 1, d)] + [(j, j) for j in range(d)]
    M = np.zeros((d, d, d, d))                                    # (l, j, k, a)
    for p, (j, k) in enumerate(order):
        for l in range(d):
            row = C[p * d + l]
            if j == k:
                M[l, j, j] = row
            else:
                M[l, j, k], M[l, k, j] = row / 2, row / 2
    Theta = np.zeros((d * d, d, d))
    for h, (l, j) in enumerate(itertools.product(range(d), range(d))):
        Theta[h, l, j] = 1.0
    return Theta, M.reshape(d * d, d, d)


def one_sided_map(Theta, W):
    """p(Theta) with each pair row missing its swapped term Theta[l, k] W[j, e]."""
    m, d, _ = Theta.shape
    order = [(j, k) for j in range(d) for k in range(j + 1, d)] + [(j, j) for j in range(d)]
    return np.concatenate([np.einsum("il,ia->la", Theta[:, :, j], W[:, k]) for j, k in order])


def fit(X, Y, solver="lstsq"):
    Phi = cubic_features(X)
    if solver == "solve":
        return np.linalg.solve(Phi.T @ Phi, Phi.T @ Y)
    if solver == "pinv":
        return np.linalg.pinv(Phi) @ Y
    return np.linalg.lstsq(Phi, Y, rcond=None)[0]


def lookup(dfa, accept_of=None, flag=True):
    """The accepting lookup built from the definitions: table tokens and one head."""
    S, A = dfa.delta.shape
    d = S * A + S + 1
    T = np.zeros((S * A, d))
    for s, a in itertools.product(range(S), range(A)):
        row, nxt = s * A + a, dfa.delta[s, a]
        T[row, row] = 1.0
        T[row, S * A + nxt] = 1.0
        T[row, -1] = float(dfa.accepting[nxt if accept_of is None else accept_of(s, nxt)])
    Theta, W = np.zeros((1, d, d)), np.zeros((1, d, d))
    Theta[0, : S * A, : S * A] = np.eye(S * A)
    for r in range(S * A, d if flag else d - 1):
        W[0, r, r] = 1.0
    return T, (Theta, W)


def gaps(X, Theta):
    S = np.einsum("Nap,pq,Nbq->Nab", X, Theta, X)
    return S[:, :, :, None] - S[:, :, None, :]


def normals(X, e, a, b, dtype=float, sign=1.0, transpose=False, unique=True):
    found = []
    for i, q, t in zip(e, a, b, strict=True):
        for c in range(X.shape[1]):
            if not np.array_equal(X[i, c], X[i, t]):
                Z = np.outer(X[i, q], sign * (X[i, t] - X[i, c])) + 0.0
                found.append(Z.T if transpose else Z)
    Z = np.array(found, dtype=dtype)
    return np.unique(Z, axis=0) if unique else Z


def fit_w(X, Y, Theta, residual="relative", one_at_a_time=False):
    N, n, d = X.shape
    blocks = [(softmax_along(np.einsum("Nap,pq,Nbq->Nab", X, T, X), -1) @ X).reshape(N * n, d) for T in Theta]
    y = Y.reshape(N * n, d)
    if one_at_a_time:
        W = np.concatenate([np.linalg.lstsq(B, y, rcond=None)[0] for B in blocks])
    else:
        W = np.linalg.lstsq(np.hstack(blocks), y, rcond=None)[0]
    r = np.linalg.norm(np.hstack(blocks) @ W - y)
    value = {"relative": r / np.linalg.norm(y), "absolute": r}[residual]
    return W.reshape(len(Theta), d, d), value


def parity_learner(X, Y, mistake=None):
    """Find the hidden set S by trying every subset, then build the family's heads (default-like scales)."""
    N, _, d = X.shape
    r = d - 1
    y = Y[:, 0, 0]
    for s in range(1, d):
        for S in itertools.combinations(range(d - 1), s):
            chi = np.prod(X[:, 0, list(S)] * X[:, 1, list(S)], axis=1)
            if np.allclose(2 * X[:, 1, r] + (X[:, 0, r] - X[:, 1, r]) * chi, y, atol=1e-8):
                break
        else:
            continue
        break
    betas = np.append(0.3 * np.arange(s) / (s - np.arange(s)), 25.0)
    j = np.arange(s + 1)
    c = np.linalg.solve(sigmoid(2 * np.outer(j, betas)), (-1.0) ** j)
    mask = np.zeros(d)
    mask[list(S)] = 1.0
    Theta = betas[:, None, None] * np.diag(mask)
    W = np.zeros((s + 1, d, d))
    if mistake == "W transposed":
        W[:, 0, r] = c
    else:
        W[:, r, 0] = c
    return Theta, W


def degrees(size):
    return np.array([bin(t).count("1") for t in range(size)])


def weights(v, power=2, mean=True):
    c = walsh_hadamard(v) * (1 if mean else v.size)
    return np.bincount(degrees(v.size), weights=c**power, minlength=v.size.bit_length())


def parity_c(betas, factor=2.0, transpose=False, sign=1.0):
    j = np.arange(len(betas))
    M = sigmoid(factor * np.outer(j, betas))
    return np.linalg.solve(M.T if transpose else M, sign * (-1.0) ** j)


def causal_features(X, kind):
    Phi = cubic_features(X, causal=True)
    own = cubic_features(X.reshape(-1, 1, X.shape[-1])).reshape(Phi.shape)
    if kind == "exclusive":
        return Phi - own
    n = X.shape[1]
    return np.stack([cubic_features(np.concatenate([X, X[:, t:t + 1]], axis=1)) - own[:, t] for t in range(n)],
                    axis=1)


def jacobian(s):
    p = softmax(s)
    return np.diag(p) - np.outer(p, p)


def guarded_softmax(S):
    M = S.max(axis=-1, keepdims=True)
    E = np.exp(S - np.where(np.isfinite(M), M, 0.0))  # a row of -inf keeps its -inf, not nan
    return E / E.sum(axis=-1, keepdims=True)


def bits_reversed(size):
    K = size.bit_length() - 1
    return [int(f"{t:0{K}b}"[::-1], 2) if K else 0 for t in range(size)]


# --- the table: (check, wrong answer, words that name the mistake, or None) -------------------------------

PAIRS_DIFFER = r"pair (features|rows) \(j < k\) differ; the diagonal (features|rows) \(j = k\) match"

def certificate_from(moment):
    """A certificate built from ``moment(Phi)`` with the book's threshold psi * eps * lam_max."""
    def fn(Phi):
        Lam = moment(Phi)
        w = np.linalg.eigvalsh(Lam)
        rank = int(np.sum(w > Lam.shape[0] * np.finfo(float).eps * w[-1]))
        return Lam, rank, (w[0] if rank == Lam.shape[0] else 0.0)
    return fn


def span_residual(Phi, phi):
    """The relative residual of phi's rows against the row space of Phi (an SVD, no threshold games)."""
    _, s, Vt = np.linalg.svd(Phi, full_matrices=False)
    V = Vt[s > Phi.shape[1] * np.finfo(float).eps * s[0]].T
    return np.linalg.norm(phi - phi @ V @ V.T, axis=1) / np.linalg.norm(phi, axis=1)


def min_norm_point(Z, gamma):
    from attnlib.sculpt import Body, min_norm_proxy

    return min_norm_proxy(Body(Z, gamma=gamma, bound=None, certified=len(Z)))


C = checks

def lookup_head(S, A, *, w="values", scale=1.0):
    """The DFA lookup head from its definition; ``w="all"`` copies the key block too."""
    d = S * A + S
    Theta = np.zeros((d, d))
    Theta[: S * A, : S * A] = np.eye(S * A)
    W = np.eye(d) if w == "all" else np.zeros((d, d))
    if w == "values":
        W[S * A :, S * A :] = scale * np.eye(S)
    return Theta[None], W[None]


def w_from_labels(X, Y, *, skip=True, transpose=False, invert=True):
    """Step 2 of the single-head learner (the reference of tests/checks/test_checks_sculpt.py), with
    its slips as switches."""
    from test_checks_sculpt import good_W_from_labels

    return good_W_from_labels(X, Y, skip=skip, transpose=transpose, invert=invert)


WRONG = {
    # softmax and its Jacobian
    "softmax: no maximum subtracted": (C.check_softmax, lambda S: np.exp(S) / np.exp(S).sum(-1, keepdims=True),
                                       r"overflow in exp"),
    "softmax: not normalised": (C.check_softmax, lambda S: np.exp(S - S.max(-1, keepdims=True)), r"do not sum to 1"),
    "softmax: along the wrong axis": (C.check_softmax, lambda S: softmax_along(S, 0),
                                      r"sum to 1 down the columns.*wrong axis"),
    "softmax: negated logits": (C.check_softmax, lambda S: softmax_along(-S, -1), None),
    "jacobian: sign flipped": (C.check_softmax_jacobian, lambda s: -jacobian(s),
                               r"minus the expected one.*flipped sign"),
    "jacobian: diag(p) only": (C.check_softmax_jacobian, lambda s: np.diag(softmax(s)), r"-p p\^T is missing"),
    "jacobian: on the logits": (C.check_softmax_jacobian, lambda s: np.diag(s) - np.outer(s, s),
                                r"logits s instead of p"),
    "jacobian: doubled": (C.check_softmax_jacobian, lambda s: 2 * jacobian(s), r"2 times the expected.*factor 2"),
    # one softmax head, linear attention
    "head: Theta transposed": (C.check_attention_head, lambda X, Theta, W: head(X, Theta.T, W), r"Theta transposed"),
    "head: a practitioner's 1/sqrt(d)": (C.check_attention_head,
                                         lambda X, Theta, W: head(X, Theta, W, 1 / np.sqrt(X.shape[1])),
                                         r"scaled by 1/sqrt\(d\)"),
    "head: W forgotten": (C.check_attention_head, lambda X, Theta, W: head(X, Theta, np.eye(len(W))),
                          r"without the projection W"),
    "head: Theta and W swapped": (C.check_attention_head, lambda X, Theta, W: head(X, W, Theta),
                                  r"Theta and W swapped"),
    "head: softmax down the columns": (C.check_attention_head,
                                       lambda X, Theta, W: softmax_along(X @ Theta @ X.T, 0) @ X @ W,
                                       r"down the columns"),
    "linear: mean over heads": (C.check_linear_attention,
                                lambda X, Theta, W: attention(X, Heads(Theta, W), kind="linear") / len(Theta),
                                r"1/3 of the expected.*1/m with m = 3"),
    "linear: a 1/n": (C.check_linear_attention,
                      lambda X, Theta, W: attention(X, Heads(Theta, W), kind="linear") / X.shape[1],
                      r"1/4 of the expected.*1/n with n = 4"),
    "linear: causal mask": (C.check_linear_attention,
                            lambda X, Theta, W: attention(X, Heads(Theta, W), kind="linear", causal=True), r"causal"),
    "linear: Theta transposed": (C.check_linear_attention,
                                 lambda X, Theta, W: attention(X, Heads(Theta.swapaxes(1, 2), W), kind="linear"),
                                 r"Theta_i transposed"),
    # training
    "gradient: the factor 2 forgotten": (C.check_linear_attention_gradient,
                                         lambda X, Y, Theta, W: gradient(X, Y, Theta, W, factor=1.0),
                                         r"1/2 of the expected.*missing factor 2"),
    "gradient: a sum, not a mean": (C.check_linear_attention_gradient,
                                    lambda X, Y, Theta, W: gradient(X, Y, Theta, W, denominator=1),
                                    r"36 times the expected.*1/\(N n d\)"),
    "gradient: ÷N only": (C.check_linear_attention_gradient,
                          lambda X, Y, Theta, W: gradient(X, Y, Theta, W, denominator=len(X)),
                          r"12 times the expected.*missing 1/\(n d\)"),
    "gradient: dTheta transposed": (C.check_linear_attention_gradient,
                                    lambda X, Y, Theta, W: (gradient(X, Y, Theta, W)[0].swapaxes(1, 2),
                                                            gradient(X, Y, Theta, W)[1]), r"transposed"),
    "gradient: outputs swapped": (C.check_linear_attention_gradient,
                                  lambda X, Y, Theta, W: gradient(X, Y, Theta, W)[::-1], r"outputs in the wrong order"),
    "gradient: of Y - F": (C.check_linear_attention_gradient,
                           lambda X, Y, Theta, W: gradient(X, Y, Theta, W, factor=-2.0), r"flipped sign"),
    "descent: uphill": (C.check_gradient_descent,
                        lambda X, Y, Theta, W, step, steps: descent(X, Y, Theta, W, -step, steps), r"gradient ascent"),
    "descent: one step too many": (C.check_gradient_descent,
                                   lambda X, Y, Theta, W, step, steps: descent(X, Y, Theta, W, step, steps + 1),
                                   r"one too many"),
    "descent: a step twice as long": (C.check_gradient_descent,
                                      lambda X, Y, Theta, W, step, steps: descent(X, Y, Theta, W, 2 * step, steps),
                                      None),
    # the cubic features, their kernel, the coefficients
    "features: each pair j < k twice": (C.check_cubic_features, lambda X: scaled_features(X, pairs=2.0),
                                        PAIRS_DIFFER + r".*2 times"),
    "features: the diagonal doubled": (C.check_cubic_features, lambda X: scaled_features(X, diagonal=2.0),
                                       r"diagonal features \(j = k\) differ; the pair features \(j < k\) "
                                       r"match.*2 times"),
    "features: the pair entries forgotten": (C.check_cubic_features, lambda X: scaled_features(X, pairs=0.0),
                                             r"pair features \(j < k\) differ.*all zero: forgotten"),
    "features: the pair columns left out": (C.check_cubic_features, lambda X: cubic_features(X)[:, split(X.shape[-1]):],
                                            r"only the diagonal pairs \(j, j\)"),
    "features: a mean over tokens": (C.check_cubic_features, lambda X: cubic_features(X) / X.shape[1],
                                     r"1/5 of the expected.*1/n with n = 5"),
    "features: the first token": (C.check_cubic_features, lambda X: cubic_features(np.concatenate([X, X[:, :1]], 1))
                                  - cubic_features(X[:, :1]), r"first token x_1 in place of the last"),
    "features: all d^3 products": (C.check_cubic_features,
                                   lambda X: np.einsum("Njk,Nl->Njkl", grams(X), X[:, -1]).reshape(len(X), -1),
                                   r"d\^3 columns"),
    "causal features: an exclusive prefix": (lambda f: C.check_cubic_features(f, causal=True),
                                             lambda X: causal_features(X, "exclusive"), r"exclusive prefix"),
    "causal features: the full Gram matrix": (lambda f: C.check_cubic_features(f, causal=True),
                                              lambda X: causal_features(X, "full"),
                                              r"full Gram matrix at every position"),
    "causal features: a mean over the prefix": (lambda f: C.check_cubic_features(f, causal=True),
                                                lambda X: cubic_features(X, causal=True)
                                                / np.arange(1, X.shape[1] + 1)[:, None], r"Only the first position"),
    "kernel: cubic_features(X) @ cubic_features(X2).T": (C.check_kernel,
                                                         lambda X, X2: cubic_features(X) @ cubic_features(X2).T,
                                                         r"calls cubic_features, which forms"),
    "kernel: features written by hand": (C.check_kernel, lambda X, X2: hand_features(X) @ hand_features(X2).T,
                                         r"seems to form the features"),
    "kernel: features as Python lists": (C.check_kernel, lambda X, X2: np.array([list_features(x) for x in X])
                                         @ np.array([list_features(y) for y in X2]).T, r"seems to form the features"),
    "kernel: the d^3 kernel": (C.check_kernel, lambda X, X2: 2 * gram_kernel(X, X2, diagonal=0.0),
                               r"all d\^3 products"),
    "kernel: the diagonal term forgotten": (C.check_kernel, lambda X, X2: gram_kernel(X, X2, diagonal=0.0),
                                            r"sum_j G_jj G'_jj is missing"),
    "kernel: no 1/2": (C.check_kernel, lambda X, X2: 2 * gram_kernel(X, X2), r"2 times the expected"),
    "kernel: no last-token product": (C.check_kernel, lambda X, X2: gram_kernel(X, X2, dots=False),
                                      r"without the factor <x, x'>"),
    "parameter map: Theta transposed": (C.check_parameter_map,
                                        lambda Theta, W: parameter_map(Heads(Theta.swapaxes(1, 2), W)),
                                        r"every Theta_i transposed"),
    "parameter map: the swapped term forgotten": (C.check_parameter_map, one_sided_map,
                                                  PAIRS_DIFFER),
    "parameter map: the diagonal doubled": (C.check_parameter_map,
                                            lambda Theta, W: coef_rows(parameter_map(Heads(Theta, W)), diagonal=2.0),
                                            r"diagonal rows \(j = k\) differ.*2 times"),
    "parameter map: a mean over heads": (C.check_parameter_map,
                                         lambda Theta, W: parameter_map(Heads(Theta, W)) / len(Theta),
                                         r"1/3 of the expected.*1/m with m = 3"),
    "heads from C: the pair coefficients on both orders": (C.check_heads_from_coef,
                                                            lambda C_: heads_from_coef(coef_rows(C_, pairs=2.0)),
                                                            r"pair rows \(j < k\) differ.*2 times"),
    "heads from C: W transposed": (C.check_heads_from_coef,
                                   lambda C_: (heads_from_coef(C_).Theta, heads_from_coef(C_).W.swapaxes(1, 2)), None),
    "fit: Phi^T Y / N": (C.check_fit_coefficients, lambda X, Y: cubic_features(X).T @ Y / len(X), r"a correlation"),
    "fit: the first token's features": (C.check_fit_coefficients,
                                        lambda X, Y: np.linalg.lstsq(cubic_features(X[:, ::-1]), Y, rcond=None)[0],
                                        None),
    "fit: the pair columns doubled": (C.check_fit_coefficients,
                                      lambda X, Y: np.linalg.lstsq(scaled_features(X, pairs=2.0), Y, rcond=None)[0],
                                      r"pair rows \(j < k\) differ.*1/2 of the expected"),
    "second moment: centred": (C.check_second_moment,
                               lambda X: np.cov(cubic_features(X), rowvar=False, bias=True), r"centred covariance"),
    "second moment: ÷(N - 1)": (C.check_second_moment,
                                lambda X: cubic_features(X).T @ cubic_features(X) / (len(X) - 1),
                                r"N/\(N - 1\) with N = 50: a division by N - 1 where N is meant"),
    "second moment: np.cov": (C.check_second_moment, lambda X: np.cov(cubic_features(X), rowvar=False),
                              r"centred covariance with N - 1"),
    "second moment: no 1/N": (C.check_second_moment, lambda X: cubic_features(X).T @ cubic_features(X),
                              r"50 times the expected.*missing 1/N"),
    # the certificate and its span form (chapter 5)
    "certificate: ÷(N - 1)": (C.check_certificate, certificate_from(lambda Phi: Phi.T @ Phi / (len(Phi) - 1)),
                              r"divided by N - 1"),
    "certificate: centred": (C.check_certificate, certificate_from(lambda Phi: np.cov(Phi, rowvar=False, bias=True)),
                             r"removed the mean"),
    "certificate: Phi Phi^T": (C.check_certificate, certificate_from(lambda Phi: Phi @ Phi.T / len(Phi)),
                               r"that is Phi Phi\^T"),
    "span cover: absolute residual": (C.check_span_cover, lambda Phi, phi: span_residual(Phi, phi)
                                      * np.linalg.norm(phi, axis=1), r"not relative"),
    # the min-norm point of a body (chapter 8)
    "min-norm point: twice the point": (C.check_min_norm_point, lambda Z, gamma: 2 * min_norm_point(Z, gamma),
                                        r"2 times the expected"),
    "min-norm point: the mean normal": (C.check_min_norm_point, lambda Z, gamma: gamma * Z.mean(axis=0), None),
    # automata
    "lookup: the current state's flag": (C.check_accepting_lookup, lambda dfa: lookup(dfa, accept_of=lambda s, nxt: s),
                                         r"accepting flag of the current state"),
    "lookup: W forgets the flag": (C.check_accepting_lookup, lambda dfa: lookup(dfa, flag=False),
                                   r"accepting-flag entries \(the last coordinate\) differ; the key-block entries "
                                   r"and the value-block entries match"),
    "lookup head: W copies the keys too": (C.check_lookup_heads, lambda S, A: lookup_head(S, A, w="all"),
                                           r"key block of the output is not zero"),
    "lookup head: half of each value": (C.check_lookup_heads, lambda S, A: lookup_head(S, A, scale=0.5), None),
    # the book's reconstruction of sculpting
    "W from labels: V returned, not its inverse": (C.check_W_from_labels,
                                                  lambda X, Y: w_from_labels(X, Y, invert=False),
                                                  r"you returned V = W\^-1"),
    "W from labels: the equations transposed": (C.check_W_from_labels,
                                                lambda X, Y: w_from_labels(X, Y, transpose=True), r"W is transposed"),
    "W from labels: dependent sequences kept": (C.check_W_from_labels, lambda X, Y: w_from_labels(X, Y, skip=False),
                                                r"LinAlgError.*skip them"),
    "gaps: Theta transposed": (C.check_logit_gaps, lambda X, Theta: gaps(X, Theta.T), r"Theta transposed"),
    "gaps: c minus b": (C.check_logit_gaps, lambda X, Theta: -logit_gaps(X, Theta), r"flipped sign"),
    "gaps: the logits, not their gaps": (C.check_logit_gaps,
                                         lambda X, Theta: np.broadcast_to(
                                             np.einsum("Nap,pq,Nbq->Nab", X, Theta, X)[..., None],
                                             (len(X),) + (X.shape[1],) * 3),
                                         r"logits x_a\^T Theta x_b themselves"),
    "halfspaces: transposed normals": (C.check_halfspaces, lambda X, e, a, b: normals(X, e, a, b, transpose=True),
                                       r"each normal is transposed"),
    "halfspaces: x_c - x_b": (C.check_halfspaces, lambda X, e, a, b: normals(X, e, a, b, sign=-1.0),
                              r"each normal has the wrong sign"),
    "halfspaces: duplicates kept": (C.check_halfspaces, lambda X, e, a, b: normals(X, e, a, b, unique=False),
                                    r"remove the duplicates"),
    "fit W: the absolute residual": (C.check_fit_W, lambda X, Y, Theta: fit_w(X, Y, Theta, residual="absolute"),
                                     r"absolute residual"),
    "fit W: one head at a time": (C.check_fit_W, lambda X, Y, Theta: fit_w(X, Y, Theta, one_at_a_time=True), None),
    "fit W: W transposed": (C.check_fit_W,
                            lambda X, Y, Theta: (fit_w(X, Y, Theta)[0].swapaxes(1, 2), fit_w(X, Y, Theta)[1]),
                            r"transposed"),
    # lower bounds and Fourier analysis
    "parity c: the transposed system": (C.check_parity_coefficients, lambda betas: parity_c(betas, transpose=True),
                                        r"transposed system"),
    "parity c: no factor 2 in the sigmoid": (C.check_parity_coefficients, lambda betas: parity_c(betas, factor=1.0),
                                             r"without the factor 2"),
    "parity c: (-1)**(j + 1)": (C.check_parity_coefficients, lambda betas: parity_c(betas, sign=-1.0), r"flipped sign"),
    "parity learner: W transposed": (C.check_parity_learner, lambda X, Y: parity_learner(X, Y, "W transposed"),
                                     r"Coordinates 0, 5 differ; coordinates 1 to 4 are right"),
    "parity learner: the zero layer": (C.check_parity_learner,
                                       lambda X, Y: (np.zeros((1, X.shape[2], X.shape[2])),) * 2,
                                       r"Only the first coordinate \(0\) differs"),
    "walsh: a sum, not a mean": (C.check_walsh_hadamard, lambda v: walsh_hadamard(v) * v.size,
                                 r"2\*\*K times too large"),
    "walsh: the opposite convention": (C.check_walsh_hadamard,
                                       lambda v: walsh_hadamard(v) * (-1.0) ** degrees(v.size), r"opposite convention"),
    "walsh: the bits reversed": (C.check_walsh_hadamard, lambda v: walsh_hadamard(v)[bits_reversed(v.size)],
                                 r"right values in the wrong order"),
    "weights: not squared": (C.check_weight_by_degree, lambda v: weights(v, power=1), r"without squaring"),
    "weights: from the sums": (C.check_weight_by_degree, lambda v: weights(v, mean=False),
                               r"64 times the expected.*missing 1/\(4\*\*K\)"),
    "weights: degree order reversed": (C.check_weight_by_degree, lambda v: weights(v)[::-1], r"reverse order"),
}

CORRECT = {
    "softmax with a guarded -inf maximum": (C.check_softmax, guarded_softmax),
    "softmax via scipy": (C.check_softmax, lambda S: __import__("scipy.special").special.softmax(S, axis=-1)),
    "head with an explicit loop": (C.check_attention_head,
                                   lambda X, Theta, W: np.array([softmax(x @ Theta @ X.T) for x in X]) @ X @ W),
    "fit with solve on the normal equations": (C.check_fit_coefficients, lambda X, Y: fit(X, Y, "solve")),
    "fit with pinv": (C.check_fit_coefficients, lambda X, Y: fit(X, Y, "pinv")),
    "fit with lstsq": (C.check_fit_coefficients, fit),
    "kernel from the Gram matrices with a (N, N2, d, d) broadcast": (
        C.check_kernel, lambda X, X2: 0.5 * ((grams(X)[:, None] * grams(X2)[None]).sum((2, 3))
                                             + np.einsum("NMjj->NM", grams(X)[:, None] * grams(X2)[None]))
        * (X[:, -1] @ X2[:, -1].T)),
    "heads from C, the library's fold": (C.check_heads_from_coef, heads_from_coef),
    "heads from C, each pair coefficient split half and half between its two orders": (
        C.check_heads_from_coef, fold_half_and_half),
    "halfspaces in float32 (the normals are small integers)": (
        C.check_halfspaces, lambda X, e, a, b: normals(X, e, a, b, dtype=np.float32)),
    "halfspaces as integers": (C.check_halfspaces, lambda X, e, a, b: normals(X, e, a, b, dtype=int)),
    "second moment as a mean of outer products": (
        C.check_second_moment, lambda X: np.mean([np.outer(p, p) for p in cubic_features(X)], axis=0)),
    "walsh with an explicit sum over the cube": (C.check_walsh_hadamard, walsh_hadamard),
    "parity c with lstsq": (C.check_parity_coefficients, lambda betas: np.linalg.lstsq(
        sigmoid(2 * np.outer(np.arange(len(betas)), betas)), (-1.0) ** np.arange(len(betas)), rcond=None)[0]),
    "parity learner from the data": (C.check_parity_learner, parity_learner),
    "accepting lookup": (C.check_accepting_lookup, lookup),
    "gradient descent": (C.check_gradient_descent, descent),
    "gradient": (C.check_linear_attention_gradient, gradient),
}


def failure(check, wrong) -> str:
    try:
        check(wrong)
    except CheckFailure as err:
        return str(err)
    raise AssertionError("the check accepted a wrong answer")


def without_slip(message: str) -> str:
    return message.split(" Common slip: ")[0]


@pytest.mark.parametrize("name", list(WRONG))
def test_wrong_answer_fails_and_is_named(name, capsys):
    check, wrong, words = WRONG[name]
    message = failure(check, wrong)
    capsys.readouterr()
    if words is not None:
        assert re.search(words, without_slip(message), re.S), message


def named_share():
    named = sum(words is not None and re.search(words, without_slip(failure(check, wrong)), re.S) is not None
                for check, wrong, words in WRONG.values())
    return named, len(WRONG)


def test_share_named_the_table_covers_every_check_and_names_three_quarters(capsys):
    covered = set()
    for check, *_ in WRONG.values():
        covered.add(check.__name__ if hasattr(check, "__name__") and check.__name__ != "<lambda>"
                    else "check_cubic_features")
    assert covered == {name for name in checks.__all__ if name.startswith("check_")} - {"compare_prediction"}
    named, total = named_share()
    capsys.readouterr()
    with capsys.disabled():
        print(f"\n{named} of {total} wrong answers named ({named / total:.0%})")
    assert total >= 40 and named >= 0.75 * total


@pytest.mark.parametrize("name", list(CORRECT))
def test_correct_variant_passes(name, capsys):
    check, right = CORRECT[name]
    check(right)
    assert "passed" in capsys.readouterr().out


def test_without_the_detectors_the_table_is_not_named(monkeypatch, capsys):
    """The words come from the detectors: with them switched off, far fewer rows are named."""
    monkeypatch.setattr(_diagnose, "ENABLED", False)
    named, total = named_share()
    capsys.readouterr()
    assert named < 0.5 * total, (named, total)


DETECTOR_ROWS = [("groups", "features: each pair j < k twice"), ("groups", "parameter map: the swapped term forgotten"),
                 ("factor", "linear: a 1/n"), ("factor", "gradient: a sum, not a mean"), ("factor", "gaps: c minus b"),
                 ("normalisation", "softmax: along the wrong axis"), ("transpose", "gradient: dTheta transposed"),
                 ("axes", "causal features: a mean over the prefix"), ("axes", "parity learner: the zero layer"),
                 ("variants", "kernel: the d^3 kernel"), ("variants", "second moment: centred"),
                 ("variants", "gradient: outputs swapped")]


@pytest.mark.parametrize("detector, name", DETECTOR_ROWS)
def test_each_detector_is_what_names_its_row(detector, name, monkeypatch, capsys):
    """With one detector switched off, the row it names loses its words (and still fails)."""
    check, wrong, words = WRONG[name]
    assert re.search(words, without_slip(failure(check, wrong)), re.S)
    monkeypatch.setattr(_diagnose, "DISABLED", {detector})
    assert not re.search(words, without_slip(failure(check, wrong)), re.S)
    capsys.readouterr()


def test_check_kernel_puts_cubic_features_back():
    original = cubic_features.__code__
    failure(C.check_kernel, lambda X, X2: cubic_features(X) @ cubic_features(X2).T)
    assert cubic_features.__code__ is original
    X = np.ones((1, 2, 2))
    assert np.allclose(cubic_features(X) @ cubic_features(X).T, kernel(X, X))


def test_a_learner_function_may_not_see_a_refusal_as_its_own_error():
    def swallow(X, X2):
        try:
            return cubic_features(X) @ cubic_features(X2).T
        except Exception:  # the learner's code cannot turn the refusal into an answer
            return hand_features(X) @ hand_features(X2).T

    assert "seems to form the features" in failure(C.check_kernel, swallow)


def test_diagnose_names_factors_from_the_sizes():
    e = np.arange(1.0, 7.0).reshape(2, 3)
    wrong = np.ones_like(e, dtype=bool)
    say = lambda got, **sizes: " ".join(_diagnose.diagnose(got, e, wrong, rtol=1e-9, atol=1e-12,  # noqa: E731
                                                           clues=_diagnose.Clues(sizes=sizes)))
    assert "1/4 of the expected one" in say(e / 4, n=4) and "1/n with n = 4" in say(e / 4, n=4)
    assert "1/sqrt(d) with d = 9" in say(e / 3, d=9, n=5)
    assert "N/(N - 1) with N = 10" in say(e * 10 / 9, N=10)
    assert "0.7 times the expected one" in say(0.7 * e, n=4)
    assert "minus the expected one" in say(-e)
    assert "off by the same amount, 0.5" in say(e + 0.5)
