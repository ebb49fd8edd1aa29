"""Vectorised attention against a naive loop over examples and heads.

    python benchmarks/attention_forward.py [--N 4096] [--n 16] [--d 16] [--m 4] [--repeats 5]

Both compute F(X) = sum_i A_i(X) X W_i on the same batch. The naive version is
what one writes first: a Python loop over examples and heads, with numpy inside
each iteration. The script prints the median time of each over several repeats
and their ratio, for softmax and linear attention. The machine is shared, so
only the ratio, measured in one run, is meaningful.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import median_seconds

from attnlib import attention, gaussian_inputs, random_heads


def naive_attention(X, heads, kind):
    out = np.zeros_like(X)
    for e in range(X.shape[0]):
        x = X[e]
        for i in range(heads.m):
            S = x @ heads.Theta[i] @ x.T
            if kind == "softmax":
                A = np.exp(S - S.max(axis=1, keepdims=True))
                A /= A.sum(axis=1, keepdims=True)
            else:
                A = S
            out[e] += A @ x @ heads.W[i]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--N", type=int, default=4096)
    parser.add_argument("--n", type=int, default=16)
    parser.add_argument("--d", type=int, default=16)
    parser.add_argument("--m", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    heads = random_heads(args.m, args.d, rng=rng)
    X = gaussian_inputs(args.N, args.n, args.d, rng=rng)
    print(f"attention forward, N={args.N}, n={args.n}, d={args.d}, m={args.m}, median of {args.repeats}")
    for kind in ("softmax", "linear"):
        fast = attention(X, heads, kind=kind)
        slow = naive_attention(X, heads, kind)
        assert np.allclose(fast, slow, rtol=1e-10, atol=1e-10 * np.abs(slow).max())
        t_fast = median_seconds(lambda kind=kind: attention(X, heads, kind=kind), args.repeats)
        t_slow = median_seconds(lambda kind=kind: naive_attention(X, heads, kind), args.repeats)
        print(f"  {kind:8s} attnlib {t_fast * 1e3:8.1f} ms   naive loop {t_slow * 1e3:8.1f} ms   "
              f"speed-up {t_slow / t_fast:6.1f}x")


if __name__ == "__main__":
    main()
