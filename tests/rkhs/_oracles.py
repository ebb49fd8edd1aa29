"""Naive oracles of the rkhs tests, written independently of the library (loops over the definitions)."""

import numpy as np


def naive_features(X):
    """Algorithm 2 for one sequence, as loops: pairs j < k then the diagonal, l innermost."""
    n, d = X.shape
    x = X[-1]
    out = []
    for j in range(d):
        for k in range(j + 1, d):
            g = sum(X[t, j] * X[t, k] for t in range(n))
            out.extend(g * x[l] for l in range(d))
    for j in range(d):
        g = sum(X[t, j] ** 2 for t in range(n))
        out.extend(g * x[l] for l in range(d))
    return np.array(out)


def raw_features(X):
    """All d^3 products G[j, k] x[l], without removing the Gram symmetry (Alg. 8)."""
    G = X.T @ X
    return np.einsum("jk,l->jkl", G, X[-1]).ravel()


def naive_linear_attention(X, heads):
    """Last-token output of linear attention with explicit loops over heads and tokens."""
    n, d = X.shape
    y = np.zeros(d)
    for Theta, W in zip(heads.Theta, heads.W, strict=True):
        for t in range(n):
            y += (X[-1] @ Theta @ X[t]) * (X[t] @ W)
    return y


def relative_error(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / np.linalg.norm(b)
