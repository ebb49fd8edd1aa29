"""Does the data pin down the function? The certificate Lambda_D (Algorithm 2, Lemma A.3; chapter 5)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .._validation import as_float_array, check_flag, check_real
from . import _normal_equations as _ne
from .features import cubic_features, n_features


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
        Certified: every empirical risk minimiser computes the same function on
        every input of every length (for realisable data, or any data with d^2
        heads). False means *not certified*, which is weaker than not
        identifiable: with fewer than d^2 heads the minimisers can still agree.
    causal : bool
        Whether the features are those of every prefix.
    eigenvalues : ndarray of shape (psi,)
        The whole spectrum of ``Lambda_D``, ascending.
    scale : float
        The power of two the data were divided by (1 for data of ordinary size):
        ``lam_min``, ``lam_max`` and ``eigenvalues`` are those of ``X / scale``,
        and ``Lambda_D`` of ``X`` itself has ``scale**6`` times them.
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
    scale: float = 1.0

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
        verdict = "identifiable" if self.identifiable else "not certified"
        scaled = "" if self.scale == 1.0 else f", of X / {self.scale:.3g}"
        return (f"Certificate({verdict}, lam_min={self.lam_min:.3g}{scaled}, rank={self.rank} of psi={self.psi}, "
                f"N={self.N})")


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
    minimiser computes the same function (Lemma A.3): a sufficient condition,
    and not a necessary one for fewer than d^2 heads. One-hot and ±1 inputs
    always give a singular ``Lambda_D`` for d >= 2: then the span form certifies
    agreement on the test inputs whose features lie in its range. Chapter 5.

    The certificate is scale-invariant: the features are cubic, so ``c X`` has
    ``Lambda_D`` equal to ``c**6`` times that of ``X``, with the same rank, the
    same range (span form) and the same verdict. Data whose largest entry lies
    outside [2**-16, 2**16] are divided by a power of two ``scale`` (exact in
    floating point) before ``Lambda_D`` is formed, so that ``c**6`` neither
    overflows nor underflows; the eigenvalues are then reported for
    ``X / scale`` (attribute ``scale``).

    Examples
    --------
    >>> from attnlib.rkhs import certificate
    >>> certificate(gaussian_inputs(200, 5, 2, rng=0)).identifiable
    True
    >>> certificate(boolean_inputs(200, 5, 2, rng=0))
    Certificate(not certified, lam_min=0, rank=4 of psi=6, N=200)
    """
    seqs = _ne.as_sequences(X)
    causal = check_flag("causal", causal)
    scale = _power_of_two_scale(seqs)
    if scale != 1.0:
        seqs = replace(seqs, blocks=[(idx, arr / scale) for idx, arr in seqs.blocks])
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
    return Certificate(lam_min, top, rank, psi, rows, identifiable, causal, w, V[:, keep], scale)


def _power_of_two_scale(seqs) -> float:
    """1, or the power of two that brings the largest entry of data outside [2**-16, 2**16] into [0.5, 1)."""
    big = max(float(np.abs(arr).max()) for _, arr in seqs.blocks)
    if big == 0.0 or 2.0**-16 <= big <= 2.0**16:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(big)[1])))


def _rescaled(seqs, scale: float):
    """``seqs`` divided by ``scale`` (exact for a power of two)."""
    return seqs if scale == 1.0 else replace(seqs, blocks=[(idx, arr / scale) for idx, arr in seqs.blocks])


def _cube_scaled(coef: np.ndarray, scale: float, name: str) -> np.ndarray:
    """``coef * scale**3`` exactly (a power of two), refusing a result that overflows or underflows."""
    if scale == 1.0:
        return coef
    with np.errstate(over="ignore", under="ignore"):  # checked just below, with a clearer message
        out = np.ldexp(coef, 3 * (int(np.frexp(scale)[1]) - 1))
    if not np.isfinite(out).all() or np.any((out == 0) & (coef != 0)):
        raise ValueError(
            f"the coefficients for data {name} of this size do not fit in float64: the output is cubic in "
            f"{name}, so they scale as 1 / {name}**3; rescale {name}"
        )
    return out



@dataclass(frozen=True, eq=False)
class NoisyBound:
    """The certificate under label noise (Lemma E.2 of Yau et al., in a deterministic form).

    Attributes
    ----------
    bound : float
        Upper bound on ``||p(Theta) - p(Theta_star)||_F^2`` for a layer with
        training MSE ``epsilon`` on targets ``f_star(X) + noise``:
        ``d (a + sqrt(a^2 + excess))^2 / lam_min``.
    excess : float
        ``epsilon - mean(noise^2)``: the paper's numerator without its
        concentration term. It is negative at the least-squares fit.
    cross : float
        ``a = ||P noise||_F / sqrt(N d)``, P the projection on the span of the
        training features: the part of the noise a fit can absorb.
    lam_min : float
        Smallest eigenvalue of ``Lambda_D``.
    """

    bound: float
    excess: float
    cross: float
    lam_min: float

    def __repr__(self) -> str:
        return (f"NoisyBound(bound={self.bound:.3g}, excess={self.excess:.3g}, cross={self.cross:.3g}, "
                f"lam_min={self.lam_min:.3g})")


def noisy_label_bound(X, noise, epsilon: float) -> NoisyBound:
    """How far from the teacher can a layer with training MSE epsilon be, when the labels are noisy?

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs, with a positive certificate.
    noise : array_like of shape (N, d)
        The label noise: the targets are ``y_i = f_star(X_i) + noise_i`` at the last token.
    epsilon : float
        Training MSE (over all ``N d`` target entries) of the layer to bound.

    Returns
    -------
    NoisyBound
        ``.bound`` bounds ``||p(Theta) - p(Theta_star)||_F^2``; outputs then obey
        ``||y_Theta(Z) - y_star(Z)||^2 <= bound * ||phi(Z)||^2`` on every input.

    Raises
    ------
    ValueError
        If ``Lambda_D`` is singular (no bound on the parameters exists), or
        ``epsilon`` is below the least-squares loss (no layer has it).

    Notes
    -----
    With ``Delta = p(Theta) - p(Theta_star)`` and ``u^2 = ||Phi Delta||^2 / (N d)``,
    expanding the loss gives ``u^2 = epsilon - mean(noise^2) + 2 <Phi Delta, noise> / (N d)``,
    and the cross term is at most ``2 u a``. So ``u <= a + sqrt(a^2 + excess)`` and
    ``||Delta||_F^2 <= d u^2 / lam_min``. Lemma E.2 of Yau et al. (2025) has the
    numerator ``epsilon - (1/N) sum zeta_i^2 + (B^2 / N) log(1/delta)``: the same
    excess, with a high-probability bound on the cross term in place of ``a``.
    At the least-squares fit ``excess = -a^2`` and ``u = a`` exactly, so the
    cross term cannot be dropped.

    Examples
    --------
    >>> from attnlib.rkhs import noisy_label_bound
    >>> X = gaussian_inputs(300, 5, 2, rng=0)
    >>> noise = 0.1 * np.random.default_rng(1).standard_normal((300, 2))
    >>> b = noisy_label_bound(X, noise, epsilon=np.mean(noise**2))   # the teacher's own loss
    >>> round(b.excess, 12), bool(0 < b.cross < 0.1), bool(b.bound > 0)
    (0.0, True, True)
    """
    seqs = _ne.as_sequences(X)
    d = seqs.d
    noise = as_float_array("noise", noise)
    if noise.shape != (seqs.N, d):
        raise ValueError(f"noise must have shape (N, d) = ({seqs.N}, {d}), one row per sequence; "
                         f"received shape {noise.shape}")
    epsilon = check_real("epsilon", epsilon, low=0.0)
    cert = certificate(X)
    if not cert.identifiable:
        raise ValueError(f"Lambda_D is singular (rank {cert.rank} of psi={cert.psi}): "
                         "no layer-independent bound on the parameters exists; use Certificate.span_residual")
    rows = np.atleast_2d(cubic_features(X))
    proj = rows @ np.linalg.lstsq(rows, noise, rcond=None)[0]
    a2 = float(np.sum(proj**2)) / noise.size
    excess = epsilon - float(np.mean(noise**2))
    if a2 + excess < -1e-12 * max(a2, 1.0):
        raise ValueError(f"epsilon={epsilon:.3g} is below the least-squares loss {epsilon - a2 - excess:.3g}; "
                         "no layer reaches it")
    u = np.sqrt(a2) + np.sqrt(max(a2 + excess, 0.0))
    return NoisyBound(d * u**2 / cert.lam_min, excess, float(np.sqrt(a2)), cert.lam_min)


@dataclass(frozen=True, eq=False)
class PolynomialCertificate:
    """The general certificate for any model linear in a fixed feature map (Lemma E.1 of Yau et al.).

    Attributes
    ----------
    lam_min : float
        Smallest eigenvalue of ``E_D[H H^T]`` (0 if the rank is deficient).
    rank, psi, N : int
    identifiable : bool
        ``rank == psi``: every realisable minimiser computes the same function.
    """

    lam_min: float
    rank: int
    psi: int
    N: int
    identifiable: bool

    def __repr__(self) -> str:
        verdict = "identifiable" if self.identifiable else "not certified"
        return f"PolynomialCertificate({verdict}, lam_min={self.lam_min:.3g}, rank={self.rank} of psi={self.psi}, N={self.N})"


def polynomial_certificate(H) -> PolynomialCertificate:
    """Lemma E.1: the certificate for a model ``y_a = <p_a(theta), H(Z)>`` with any feature map H.

    Parameters
    ----------
    H : array_like of shape (N, psi)
        The features ``H(Z_i)`` of the training inputs, one row each, from any
        fixed feature map (polynomial in Lemma E.1; the proof uses only linearity
        in the parameters' image ``p(theta)``).

    Returns
    -------
    PolynomialCertificate
        Positive ``lam_min`` of ``H^T H / N``: if the data are realisable by the
        model, every empirical risk minimiser has the same ``p(theta)`` and so
        computes the same function. Algorithm 2 (:func:`certificate`) is the case
        H = the cubic features of linear attention.

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features, polynomial_certificate
    >>> X = gaussian_inputs(200, 5, 2, rng=0)
    >>> polynomial_certificate(cubic_features(X)).rank == certificate(X).rank
    True
    >>> polynomial_certificate(np.ones((10, 2)))
    PolynomialCertificate(not certified, lam_min=0, rank=1 of psi=2, N=10)
    """
    H = as_float_array("H", H)
    if H.ndim != 2 or H.shape[0] == 0 or H.shape[1] == 0:
        raise ValueError(f"H must be a non-empty feature matrix of shape (N, psi); received shape {H.shape}")
    N, psi = H.shape
    w = np.linalg.eigvalsh(H.T @ H / N)
    top = max(float(w[-1]), 0.0)
    rank = int(np.sum(w > psi * np.finfo(float).eps * top))
    identifiable = rank == psi
    return PolynomialCertificate(float(max(w[0], 0.0)) if identifiable else 0.0, rank, psi, N, identifiable)
