"""Does the data pin down the function? The certificate Lambda_D (Algorithm 2, Lemma A.3; chapter 5)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _normal_equations as _ne
from .features import n_features


@dataclass(frozen=True, eq=False)
class Certificate:
    """The identifiability certificate of a data set (Algorithm 2, Lemma A.3).

    Attributes
    ----------
    lam_min, lam_max : float
        Smallest and largest eigenvalue of ``Lambda_D = Phi^T Phi / N`` (uncentred;
        ``lam_min`` clipped at 0).
    rank : int
        Numerical rank of ``Lambda_D`` (eigenvalues above ``psi * eps * lam_max``).
    psi : int
        Number of features; identifiable exactly when ``rank == psi``.
    N : int
        Number of feature rows (examples, or tokens if causal).
    identifiable : bool
        Every empirical risk minimiser computes the same function on every
        input of every length (for realisable data, or any data with d^2 heads).
    causal : bool
        Whether the features are those of every prefix.
    eigenvalues : ndarray of shape (psi,)
        The whole spectrum of ``Lambda_D``, ascending.
    """

    lam_min: float
    lam_max: float
    rank: int
    psi: int
    N: int
    identifiable: bool
    causal: bool
    eigenvalues: np.ndarray = field(repr=False)
    _basis: np.ndarray = field(repr=False)

    def span_residual(self, X):
        """Relative distance of each test feature vector from the span of the training features.

        Parameters
        ----------
        X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays

        Returns
        -------
        ndarray of shape (N,) (or (N, n) if causal)
            ``||(I - P) phi|| / ||phi||``, P the projection on the range of
            ``Lambda_D`` (0 for a zero feature vector). Where it is 0, every
            least-squares fit of these training data gives the same output.
        """
        seqs = _ne.as_sequences(X, d=_d_from_psi(self.psi))
        V = self._basis
        mode = "causal" if self.causal else "last"

        def residual(g, x):
            Phi = _ne.features(g, x)
            R = Phi - (Phi @ V) @ V.T
            norm = np.linalg.norm(Phi, axis=1)
            return (np.linalg.norm(R, axis=1) / np.where(norm > 0, norm, 1.0))[:, None]

        out = _ne.map_rows(seqs, mode, residual, 1)
        return [r[:, 0] for r in out] if isinstance(out, list) else out[..., 0]

    def covers(self, X, *, tol: float = 1e-6):
        """Whether every least-squares fit agrees on each test input: ``span_residual(X) <= tol``."""
        r = self.span_residual(X)
        return [v <= tol for v in r] if isinstance(r, list) else r <= tol

    def __repr__(self) -> str:
        verdict = "identifiable" if self.identifiable else "not identifiable"
        return f"Certificate({verdict}, lam_min={self.lam_min:.3g}, rank={self.rank} of psi={self.psi}, N={self.N})"


def _d_from_psi(psi: int) -> int:
    return next(k for k in range(1, 10_000) if n_features(k) >= psi)


def certificate(X, *, causal: bool = False) -> Certificate:
    """Does the data set pin down the function? The spectrum of ``Lambda_D``.

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs (targets are not needed).
    causal : bool, default False
        Certify last-token features (False) or every prefix (True).

    Returns
    -------
    Certificate
        ``.lam_min``, ``.rank``, ``.psi``, ``.identifiable``, and the span form
        ``.span_residual(X_test)`` / ``.covers(X_test)`` for singular ``Lambda_D``.

    Notes
    -----
    ``Lambda_D = (1/N) sum_i phi(X_i) phi(X_i)^T`` with the features of
    :func:`cubic_features` (eqs. 9-10 of Yau et al. 2025). If its smallest
    eigenvalue is positive and the data are realisable, every empirical risk
    minimiser computes the same function (Lemma A.3). One-hot and ±1 inputs
    always give a singular ``Lambda_D`` for d >= 2: then the span form certifies
    agreement on the test inputs whose features lie in its range. Chapter 5.

    Examples
    --------
    >>> from attnlib.rkhs import certificate
    >>> certificate(gaussian_inputs(200, 5, 2, rng=0)).identifiable
    True
    >>> certificate(boolean_inputs(200, 5, 2, rng=0))
    Certificate(not identifiable, lam_min=0, rank=4 of psi=6, N=200)
    """
    seqs = _ne.as_sequences(X)
    mode = "causal" if causal else "last"
    d = seqs.d
    psi = n_features(d)
    _ne.check_memory("certificate", _ne.solve_memory(d, 0), d)
    A, _, _, rows = _ne.normal_equations(seqs, mode)
    w, V = np.linalg.eigh(A / rows)
    top = max(float(w[-1]), 0.0)
    keep = w > psi * np.finfo(float).eps * top
    rank = int(keep.sum())
    identifiable = rank == psi
    lam_min = float(max(w[0], 0.0)) if identifiable else 0.0
    return Certificate(lam_min, top, rank, psi, rows, identifiable, bool(causal), w, V[:, keep])
