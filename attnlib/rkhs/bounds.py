"""How far can approximate minimisers be from the truth, or from each other? Bounds from the certificate (chapter 5).

Each bound divides a training loss by ``lambda_min(Lambda_D)`` of :func:`attnlib.rkhs.certificate`:
a layer stopped early on realisable data (Lemma A.7 of Yau et al., :func:`stopping_bound`), a layer
on noisy labels (the book's form of their Lemma E.2, :func:`noisy_label_bound`), and two layers on any
targets, computable from the data alone (the book's repair, :func:`pairwise_bound`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._arguments import arguments, interval
from .._linalg import cholesky
from . import _normal_equations as _ne
from . import _sequences as _seq
from .features import n_features
from .identifiability import certificate, certify, over_lam_min, require_identifiable

__all__ = ["NoisyBound", "PairwiseBound", "StoppingBound", "noisy_label_bound", "pairwise_bound", "stopping_bound"]

#: a training MSE: a finite number >= 0
EPSILON = interval(0.0, np.inf, high_open=True)


def _feature_norms2(seqs: _seq.Sequences, psi: int) -> np.ndarray:
    """``||phi(X_i)||^2`` of each test input (N,), computed on ``X / s`` and scaled back by ``s**6``."""
    d = _ne.d_from_psi(psi)
    _seq.check_dimension(seqs, d)
    scale = _seq.power_of_two_scale(seqs)
    Phi = _ne.map_rows(_seq.rescaled(seqs, scale), "last", _ne.features, n_features(d))
    out = _seq.sixth_power(np.sum(Phi**2, axis=-1), scale)
    return float(out) if seqs.single else out


@dataclass(frozen=True, eq=False)
class NoisyBound:
    """The certificate under label noise: the book's bound (not Lemma E.2 of Yau et al., false as stated).

    Attributes
    ----------
    bound : float
        Upper bound on ``||p(Theta) - p(Theta_star)||_F^2`` for a layer with
        training MSE ``epsilon`` on targets ``f_star(X) + noise``:
        ``d (eta + sqrt(eta^2 + excess))^2 / lam_min``.
    excess : float
        ``epsilon - s`` with ``s = mean(noise^2)``: the paper's numerator without
        its concentration term. It is ``-eta^2`` (negative) at the least-squares fit.
    cross : float
        ``eta = ||P noise||_F / sqrt(N d)``, P the projection on the span of the
        training features: the part of the noise a fit can absorb. For i.i.d.
        noise of variance sigma^2, ``eta^2`` is about ``sigma^2 psi / N``, the
        usual variance of least squares.
    lam_min : float
        Smallest eigenvalue of ``Lambda_D`` of the data X themselves (for data
        outside [2**-16, 2**16], not the rescaled value ``certificate(X).lam_min``).
    """

    bound: float
    excess: float
    cross: float
    lam_min: float

    def __repr__(self) -> str:
        return (f"NoisyBound(bound={self.bound:.3g}, excess={self.excess:.3g}, cross={self.cross:.3g}, "
                f"lam_min={self.lam_min:.3g})")


@arguments(X=_seq.SEQUENCES, noise="array", epsilon=EPSILON)
def noisy_label_bound(X, noise, epsilon: float) -> NoisyBound:
    """How far from the teacher can a layer with training MSE epsilon be, when the labels are noisy?

    An analysis tool, not a certificate: it needs the noise vector itself, which
    a learner never sees. :func:`pairwise_bound` is the form computable from the
    data alone.

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
    and the cross term is at most ``2 u eta``. So ``u <= eta + sqrt(eta^2 + excess)``
    and ``||Delta||_F^2 <= d u^2 / lam_min``. Lemma E.2 of Yau et al. (2025) has
    the numerator ``epsilon - (1/N) sum zeta_i^2 + (B^2 / N) log(1/delta)``: the
    same excess, plus a term that does not bound ``eta^2`` (the book's chapter 5
    shows the lemma fails as stated). At the least-squares fit ``excess = -eta^2``
    and ``u = eta`` exactly, so the cross term cannot be dropped.

    Examples
    --------
    >>> from attnlib.rkhs import noisy_label_bound
    >>> X = gaussian_inputs(300, 5, 2, rng=0)
    >>> noise = 0.1 * np.random.default_rng(1).standard_normal((300, 2))
    >>> b = noisy_label_bound(X, noise, epsilon=np.mean(noise**2))   # the teacher's own loss
    >>> round(b.excess, 12), bool(0 < b.cross < 0.1), bool(b.bound > 0)
    (0.0, True, True)
    """
    seqs = X
    d = seqs.d
    if noise.shape != (seqs.N, d):
        raise ValueError(f"noise must have shape (N, d) = ({seqs.N}, {d}), one row per sequence; "
                         f"received shape {noise.shape}")
    cert = require_identifiable(certificate(seqs), "no layer-independent bound on the parameters")
    # the projection on the span of the features is that of X / scale: the span does not change
    rows = np.atleast_2d(_ne.map_rows(_seq.rescaled(seqs, cert.scale), "last", _ne.features, cert.psi))
    proj = rows @ np.linalg.lstsq(rows, noise, rcond=None)[0]
    a2 = float(np.sum(proj**2)) / noise.size
    excess = epsilon - float(np.mean(noise**2))
    if a2 + excess < -1e-12 * max(a2, 1.0):
        raise ValueError(f"epsilon={epsilon:.3g} is below the least-squares loss {epsilon - a2 - excess:.3g}; "
                         "no layer reaches it")
    u = np.sqrt(a2) + np.sqrt(max(a2 + excess, 0.0))
    lam_min = cert.data_lam_min  # of X itself: cert.lam_min is of X / scale (issue 24)
    return NoisyBound(over_lam_min(d * u**2, cert), excess, float(np.sqrt(a2)), lam_min)


@dataclass(frozen=True, eq=False)
class StoppingBound:
    """How far from the teacher a layer stopped early can be (Lemma A.7 of Yau et al., restated).

    Attributes
    ----------
    bound : float
        ``d epsilon / lam_min``: an upper bound on ``||p(Theta) - p(Theta_star)||_F^2``
        for every layer with training MSE at most ``epsilon`` on data realizable
        by ``Theta_star``.
    epsilon : float
        The training MSE bounded (over all ``N d`` target entries).
    lam_min : float
        Smallest eigenvalue of ``Lambda_D`` of the training inputs themselves.
    """

    bound: float
    epsilon: float
    lam_min: float
    _psi: int = field(default=0, repr=False)

    @arguments(X=_seq.SEQUENCES)
    def output_bound(self, X):
        """Bound on ``||y_Theta(X) - y_star(X)||^2`` for each test input: ``bound * ||phi(X)||^2``.

        Parameters
        ----------
        X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays

        Returns
        -------
        float or ndarray of shape (N,)
            At most ``bound * ||X||_F^6`` (the paper's form).
        """
        return self.bound * _feature_norms2(X, self._psi)

    def __repr__(self) -> str:
        return f"StoppingBound(bound={self.bound:.3g}, epsilon={self.epsilon:.3g}, lam_min={self.lam_min:.3g})"


@arguments(X=_seq.SEQUENCES, epsilon=EPSILON)
def stopping_bound(X, epsilon: float) -> StoppingBound:
    """Lemma A.7: a layer with training MSE epsilon on realizable data is within ``d epsilon / lam_min`` of the truth.

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs, with a positive certificate. The targets are not
        needed: the data are assumed realizable, so the teacher has loss 0.
    epsilon : float
        Training MSE (over all ``N d`` target entries) of the layer to bound,
        e.g. ``fit.train_loss`` of an iterative fit stopped early.

    Returns
    -------
    StoppingBound
        ``.bound`` bounds ``||p(Theta) - p(Theta_star)||_F^2``, and
        ``.output_bound(X_test)`` the squared output error on test inputs.

    Raises
    ------
    ValueError
        If ``Lambda_D`` is singular: no layer-independent bound exists.

    Notes
    -----
    With ``Delta = p(Theta) - p(Theta_star)``, realizability makes the loss
    ``epsilon = (1/d) sum_a Delta_a^T Lambda_D Delta_a >= (lam_min / d) ||Delta||_F^2``.
    The bound is attained by a layer that differs from the teacher along the
    eigenvector of ``lam_min`` only. Yau et al. (2025) state the output form as
    ``epsilon / lam_min ||Z||_F^6`` for two minimisers; their loss sums over the
    d outputs, and two minimisers are ``4 d epsilon / lam_min`` apart at most.
    Chapter 5 of the book.

    Examples
    --------
    >>> from attnlib.rkhs import stopping_bound
    >>> X = gaussian_inputs(300, 5, 2, rng=0)
    >>> b = stopping_bound(X, 1e-4)
    >>> bool(np.isclose(b.bound, 2 * 1e-4 / b.lam_min)), b.output_bound(X[:3]).shape
    (True, (3,))
    """
    seqs = X
    cert = require_identifiable(certificate(seqs), "no layer-independent bound on the parameters")
    return StoppingBound(over_lam_min(seqs.d * epsilon, cert), epsilon, cert.data_lam_min, cert.psi)


@dataclass(frozen=True, eq=False)
class PairwiseBound:
    """How far apart two layers with training MSE at most epsilon can be, for any targets.

    The book's repair of Lemma E.2 of Yau et al.: no realizability, no noise model, computable from
    the data alone.

    Attributes
    ----------
    bound : float
        ``4 d (epsilon - ls_loss) / lam_min``: an upper bound on
        ``||p(Theta) - p(Theta')||_F^2`` for every two layers (any head counts)
        with training MSE at most ``epsilon``.
    to_least_squares : float
        ``d (epsilon - ls_loss) / lam_min``: the bound on the squared distance
        of one such layer to the least-squares fit.
    ls_loss : float
        The least-squares training MSE, the smallest loss any layer reaches.
    epsilon : float
    lam_min : float
        Smallest eigenvalue of ``Lambda_D`` of the training inputs themselves.
    """

    bound: float
    to_least_squares: float
    ls_loss: float
    epsilon: float
    lam_min: float
    _psi: int = field(default=0, repr=False)

    @arguments(X=_seq.SEQUENCES)
    def output_bound(self, X):
        """Bound on ``||y_Theta(X) - y_Theta'(X)||^2`` for each test input: ``bound * ||phi(X)||^2``.

        Parameters
        ----------
        X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays

        Returns
        -------
        float or ndarray of shape (N,)
        """
        return self.bound * _feature_norms2(X, self._psi)

    def __repr__(self) -> str:
        return (f"PairwiseBound(bound={self.bound:.3g}, ls_loss={self.ls_loss:.3g}, epsilon={self.epsilon:.3g}, "
                f"lam_min={self.lam_min:.3g})")


@arguments(X=_seq.SEQUENCES, Y=_seq.TARGETS, epsilon=EPSILON)
def pairwise_bound(X, Y, epsilon: float) -> PairwiseBound:
    """Two layers with training MSE at most epsilon are within ``4 d (epsilon - L_LS) / lam_min`` of each other.

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs, with a positive certificate.
    Y : array_like of shape (N, d)
        Last-token targets, any real numbers (noisy, or from no layer at all).
    epsilon : float
        Training MSE (over all ``N d`` target entries) that both layers reach.

    Returns
    -------
    PairwiseBound
        ``.bound`` bounds ``||p(Theta) - p(Theta')||_F^2``, ``.to_least_squares``
        the squared distance of each to the least-squares fit, and
        ``.output_bound(X_test)`` the squared output gap on test inputs.

    Raises
    ------
    ValueError
        If ``Lambda_D`` is singular, or ``epsilon`` is below the least-squares
        loss (no layer reaches it).

    Notes
    -----
    The residual of the least-squares fit ``C_LS`` is orthogonal to the span of
    the features, so every coefficient matrix C has training MSE
    ``L_LS + ||Phi (C - C_LS)||_F^2 / (N d) >= L_LS + (lam_min / d) ||C - C_LS||_F^2``.
    A layer with MSE at most epsilon is therefore within
    ``sqrt(d (epsilon - L_LS) / lam_min)`` of ``C_LS``, and two of them, by the
    triangle inequality through ``C_LS``, within twice that. The constant 4 is
    attained by ``C_LS +- t v`` along the eigenvector v of ``lam_min``. With
    noisy realizable targets ``epsilon - L_LS = epsilon - s + eta^2`` in the
    notation of :func:`noisy_label_bound`. Chapter 5 of the book.

    Examples
    --------
    >>> from attnlib.rkhs import fit_linear_attention, pairwise_bound
    >>> X = gaussian_inputs(300, 5, 2, rng=0)
    >>> Y = np.random.default_rng(1).standard_normal((300, 2))          # targets from no layer
    >>> ls = fit_linear_attention(X, Y).train_loss
    >>> b = pairwise_bound(X, Y, ls + 1e-3)
    >>> bool(np.isclose(b.ls_loss, ls)), bool(np.isclose(b.bound, 4 * b.to_least_squares))
    (True, True)
    """
    seqs = X
    if seqs.single:
        raise ValueError("X must be a batch of shape (N, n, d) or a list of sequences; received one sequence")
    kind, targets = _seq.as_targets(Y, seqs)
    if kind != "last":
        raise ValueError(f"Y must hold last-token targets of shape ({seqs.N}, {seqs.d}); received a target "
                         "at every token, which the last-token certificate does not cover")
    # one pass for both the certificate and the least-squares loss (of X / scale, which is that of X: the
    # coefficients absorb scale**3)
    scale = _seq.power_of_two_scale(seqs)
    scaled = _seq.rescaled(seqs, scale)
    _ne.check_memory("pairwise_bound", _ne.solve_memory(seqs.d, seqs.d), seqs.d)
    ne = _ne.normal_equations(scaled, "last", targets)
    factor = cholesky(ne.gram(), overwrite=True) if ne.rows >= n_features(seqs.d) else None
    cert = require_identifiable(certify(ne, scale, factor), "no layer-independent bound on the parameters")
    ls_loss = float(_ne.solve(scaled, "last", targets, ne=ne, factor=factor).loss)
    yy = float(np.mean(np.concatenate(targets) ** 2))
    room = epsilon - ls_loss
    if room < -1e-10 * max(yy, ls_loss, 1e-300):
        raise ValueError(f"epsilon={epsilon:.3g} is below the least-squares loss {ls_loss:.3g}; no layer reaches it")
    room = max(room, 0.0)
    to_ls = over_lam_min(seqs.d * room, cert)
    return PairwiseBound(4 * to_ls, to_ls, ls_loss, epsilon, cert.data_lam_min, cert.psi)
