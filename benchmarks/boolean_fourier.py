"""The hypercube tools of chapter 10 against the plain alternatives.

    python benchmarks/boolean_fourier.py [--K 12] [--N 4096] [--d 5] [--degree 7] [--repeats 5]

Two comparisons, each measured in one run (the machine is shared, so only the
ratios are meaningful):

1. ``walsh_hadamard`` (K butterflies, O(K 2^K)) against multiplying by the dense
   2^K x 2^K Hadamard matrix built with ``np.kron`` (one BLAS product, O(4^K)),
   on a random function of K Boolean variables.
2. ``low_degree_curve`` (one Gram matrix, then a Cholesky solve per degree)
   against calling ``np.linalg.lstsq`` on the monomial features once per degree
   0..D, on N two-token sequences of dimension d.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import median_seconds

from attnlib import boolean_inputs
from attnlib.lower_bounds.fourier import low_degree_curve, monomial_features, n_monomials, walsh_hadamard


def dense_transform(H, f):
    return H @ f / f.size


def lstsq_curve(Phi, y, counts):
    return [np.linalg.lstsq(Phi[:, :p], y, rcond=None)[0] for p in counts]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--K", type=int, default=12)
    parser.add_argument("--N", type=int, default=4096)
    parser.add_argument("--d", type=int, default=5)
    parser.add_argument("--degree", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)

    f = rng.standard_normal(2**args.K)
    H = np.array([[1.0]])
    for _ in range(args.K):
        H = np.kron(np.array([[1.0, 1.0], [1.0, -1.0]]), H)  # Sylvester order = boolean_cube order
    np.testing.assert_allclose(walsh_hadamard(f), dense_transform(H, f), atol=1e-12)
    t_fast = median_seconds(lambda: walsh_hadamard(f), args.repeats)
    t_slow = median_seconds(lambda: dense_transform(H, f), args.repeats)
    print(f"Walsh-Hadamard transform, K={args.K} ({2**args.K} inputs), median of {args.repeats}")
    print(f"  butterflies {t_fast * 1e3:8.2f} ms   dense Hadamard product {t_slow * 1e3:8.2f} ms   "
          f"speed-up {t_slow / t_fast:6.1f}x")

    X = boolean_inputs(args.N, 2, args.d, rng=rng)
    y = rng.standard_normal(args.N)
    Phi, _ = monomial_features(X, args.degree)
    counts = [n_monomials(2 * args.d, D) for D in range(args.degree + 1)]
    curve = low_degree_curve(X, y, args.degree)
    plain = [np.mean((Phi[:, :p] @ c - y) ** 2) for p, c in zip(counts, lstsq_curve(Phi, y, counts), strict=True)]
    np.testing.assert_allclose(curve.train_mse, plain, rtol=1e-8)
    t_fast = median_seconds(lambda: low_degree_curve(X, y, args.degree), args.repeats)
    t_slow = median_seconds(lambda: (monomial_features(X, args.degree), lstsq_curve(Phi, y, counts)), args.repeats)
    print(f"regression at degrees 0..{args.degree}, N={args.N}, {2 * args.d} variables, "
          f"{counts[-1]} features at the top degree, median of {args.repeats}")
    print(f"  low_degree_curve {t_fast * 1e3:8.1f} ms   lstsq per degree {t_slow * 1e3:8.1f} ms   "
          f"speed-up {t_slow / t_fast:6.1f}x")


if __name__ == "__main__":
    main()
