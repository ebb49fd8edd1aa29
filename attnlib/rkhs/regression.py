"""Learning linear attention by least squares on the cubic features (Algorithm 1, chapter 4)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._arguments import arguments
from ..heads import Heads
from . import _normal_equations as _ne
from . import _sequences as _seq
from .coefficients import OPTLAYER, heads_from_coef
from .features import n_features
from .identifiability import Certificate, certify

__all__ = ["LinearFit", "fit_linear_attention"]


@dataclass(frozen=True, eq=False)
class LinearFit:
    """What :func:`fit_linear_attention` returns.

    Attributes
    ----------
    heads : Heads
        At most d^2 heads computing the fitted function (from the SVD).
    coef : ndarray of shape (psi, d)
        Coefficients on :func:`cubic_features`; ``predict`` uses them.
    train_loss : float
        Mean squared error over every target entry of the training data.
    mode : {"last", "all", "causal"}
        Last-token targets, every token with the full Gram, or every token causally.
    solver : str
        "cholesky" (normal equations), "qr" (the stable fallback) or
        "gradient descent (K steps)".
    rank : int
        Rank of the features on the training data (psi when identifiable).

    The fit also keeps the normal equations it solved (their distinct entries
    and, when it solved by Cholesky, the factor), so that :meth:`certificate`
    needs no second pass over the data; that is O(psi^2) memory, whatever N is.
    """

    heads: Heads
    coef: np.ndarray = field(repr=False)
    train_loss: float
    mode: str
    solver: str
    rank: int
    _moments: _ne.NormalEquations | None = field(default=None, repr=False)
    _factor: object = field(default=None, repr=False)
    _scale: float = field(default=1.0, repr=False)

    @arguments(X=_seq.SEQUENCES)
    def predict(self, X):
        """Outputs of the fitted layer: (N, d) at the last token, or (N, n, d) at every token.

        Uses the same targets as the fit (last token, every token, or causal).
        """
        d = self.coef.shape[1]
        seqs = _seq.check_dimension(X, d)
        # phi(X) c = phi(X / s) (s**3 c): data of extreme size are brought near 1 by a power of two s
        scale = _seq.power_of_two_scale(seqs)
        seqs, coef = _seq.rescaled(seqs, scale), _seq.cube_scaled(self.coef, scale, "X")
        return _ne.map_rows(seqs, self.mode, lambda g, x: _ne.apply_coef(g, x, coef), d)

    def certificate(self) -> Certificate:
        """The certificate of the training inputs, from the normal equations this fit already formed.

        Returns
        -------
        Certificate
            Equal to ``certificate(X)`` (``certificate(X, causal=True)`` for a
            causal fit) of the training inputs X, to the last bit, without
            walking the data again; when the fit solved by Cholesky, its factor
            serves the bracket on ``lam_min`` too.

        Raises
        ------
        ValueError
            For a fit of every token with the full Gram matrix (``mode ==
            "all"``), whose features the certificate does not cover.

        Examples
        --------
        >>> from attnlib.rkhs import certificate, fit_linear_attention
        >>> X = gaussian_inputs(300, 5, 2, rng=0)
        >>> fit = fit_linear_attention(X, attention(X, random_heads(1, 2, rng=1), kind="linear")[:, -1])
        >>> fit.certificate().lam_min == certificate(X).lam_min
        True
        """
        if self.mode == "all":
            raise ValueError("this fit has targets at every token with the full Gram matrix (causal=False); the "
                             "certificate covers last-token features or causal prefixes: use certificate(X) or a "
                             "causal fit")
        return certify(self._moments, self._scale, self._factor)

    def __repr__(self) -> str:
        return (f"LinearFit(d={self.coef.shape[1]}, heads={self.heads.m}, mode={self.mode!r}, "
                f"train_loss={self.train_loss:.3g}, solver={self.solver!r}, rank={self.rank}/{self.coef.shape[0]})")


@arguments(X=_seq.SEQUENCES, Y=_seq.TARGETS, causal="flag", steps="optsize", start=OPTLAYER)
def fit_linear_attention(X, Y, *, causal: bool = False, steps: int | None = None, start=None) -> LinearFit:
    """Learn multi-head linear attention by least squares on the cubic features (Algorithm 1).

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of N arrays of shape (n_i, d)
        Training sequences; lengths may differ.
    Y : array_like of shape (N, d), or (N, n, d), or a list of (n_i, d) arrays
        Last-token targets, or a target at every token. Any real numbers: the
        data need not come from an attention layer (agnostic learning).
    causal : bool, default False
        With every-token targets: token t sees tokens 1..t (prefix Grams).
        Without, every token sees the whole sequence. No effect on last-token
        targets.
    steps : int, optional
        If given, run this many full-batch gradient-descent steps (step
        ``1 / lambda_max``) from ``start`` instead of solving exactly: a
        finite-budget iterative solver, as behind the paper's Fig. 2.
    start : Heads or ndarray of shape (psi, d), optional
        Starting point of the iterations (default zero). Without ``steps``,
        the exact minimiser nearest to ``start`` is returned, which is where
        gradient descent from ``start`` converges; it differs from the
        minimum-norm one only when the minimiser is not unique.

    Returns
    -------
    LinearFit
        ``.heads`` (at most d^2), ``.coef``, ``.predict(X)``, ``.train_loss``,
        and ``.certificate()``, the certificate of X from the same pass.

    Warns
    -----
    RuntimeWarning
        If the minimiser is not unique (fewer feature rows than psi, or
        rank-deficient features): the minimum-norm solution, or the one nearest
        to ``start``, is returned. If the normal equations are ill-conditioned:
        they are solved by a streamed QR instead.

    Notes
    -----
    The normal equations are built in one pass over chunks of the data, from
    the Kronecker form ``phi = vech(G) ⊗ x`` (memory O(psi^2), independent of
    N): one GEMM of ``vech(g g^T)`` against ``vech(x x^T)`` per block of rows,
    about half the flops of ``Phi.T @ Phi`` as a symmetric rank-k update and a
    quarter of a general matrix product, shared between as many threads as
    numpy's BLAS may use (the result does not depend on how many). They are equilibrated and solved by
    one Cholesky factorisation for all d outputs. If its condition estimate exceeds 1e8, or the minimiser is not
    unique, a streamed QR of ``[Phi, Y]`` and an SVD of R give the
    minimum-norm solution instead. Chapter 4 of the book.

    Examples
    --------
    >>> from attnlib.rkhs import fit_linear_attention
    >>> teacher = random_heads(2, 3, rng=0)
    >>> X = gaussian_inputs(60, 7, 3, rng=1)
    >>> fit = fit_linear_attention(X, attention(X, teacher, kind="linear")[:, -1])
    >>> fit.heads.m <= 9, fit.train_loss < 1e-20
    (True, True)
    """
    seqs = X
    if seqs.single:
        raise ValueError("X must be a batch of shape (N, n, d) or a list of sequences; received one sequence")
    kind, targets = _seq.as_targets(Y, seqs)
    mode = "last" if kind == "last" else ("causal" if causal else "all")
    d = seqs.d
    psi = n_features(d)
    _ne.check_memory("fit_linear_attention", _ne.solve_memory(d, d), d)
    c0 = start  # the coefficients of the starting point (declared: Heads, a fit or an array become them)
    if c0 is not None:
        if c0.shape != (psi, d):
            raise ValueError(f"start must have coefficients of shape ({psi}, {d}); received shape {c0.shape}")

    # data of extreme size are fitted as X / s (s a power of two; the features scale by s**3, the
    # coefficients by s**-3, and least squares, gradient descent and the rank are unchanged)
    scale = _seq.power_of_two_scale(seqs)
    seqs = _seq.rescaled(seqs, scale)
    if c0 is not None:
        c0 = _seq.cube_scaled(c0, scale, "X")

    # Algorithm 1: least squares on the cubic features (streamed; phi is never stored whole) ...
    if steps is None:
        solution = _ne.solve(seqs, mode, targets, start=c0)
    else:
        solution = _ne.gradient_descent(seqs, mode, targets, steps, c0)
    coef = _seq.cube_scaled(solution.coef, 1.0 / scale, "X")
    # ... then the SVD of the coefficients gives back at most d^2 heads
    return LinearFit(heads_from_coef(coef), coef, solution.loss, mode, solution.solver, solution.rank,
                     solution.moments, solution.factor, scale)
