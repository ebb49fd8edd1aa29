"""Linear attention as a linear model on cubic features: features, kernel, regression, certificate.

Multi-head linear attention is linear in a fixed cubic polynomial of its input
(Yau et al., 2025). At the last token of X (rows are tokens),

    y_a = sum_i x_n^T Theta_i X^T X W_i[:, a] = <c_a, phi(X)>,

with ``phi(X) = vech(X^T X) ⊗ x_n``: the psi = d^2 (d + 1) / 2 distinct products
``G[j, k] x_n[l]`` of the Gram matrix ``G = X^T X`` with the last token. So
learning the layer is least squares on ``phi`` (Algorithm 1), the least-squares
solution folds back into at most d^2 heads by an SVD, and the data determine
the function exactly when the second moment ``Lambda_D`` of the features has
full rank (Algorithm 2, Lemma A.3).

One feature order is used throughout, the paper's Algorithm 2: the Gram
entries ``G[j, k]`` with ``j < k`` row by row, then the diagonal ``G[j, j]``; feature
``p * d + l`` is the p-th entry times ``x_n[l]``. The coefficients
(:func:`parameter_map`) use the same order.

Sequences may have different lengths: pass a list of (n_i, d) arrays. With
``causal=True`` (or targets at every token) there is one feature row per token,
built from the prefix Gram matrix ``G_t = sum_{s <= t} x_s x_s^T`` (or the full
Gram for non-causal every-token targets).

Chapters 3-5 of the book develop this subpackage.

Modules, one concept each:

* ``features`` -- the cubic features phi(X) and their kernel (chapter 3)
* ``coefficients`` -- the coefficients p(Theta) of a layer and the SVD back to heads (chapters 3-4)
* ``regression`` -- Algorithm 1: least squares on the features; a fit keeps its normal equations, so
  ``fit.certificate()`` certifies the same data without a second pass (chapter 4)
* ``identifiability`` -- the certificate Lambda_D and its span form, and the certificate for any
  feature map (Lemma E.1) (chapter 5)
* ``bounds`` -- how far approximate minimisers can be: stopped early (Lemma A.7), under label
  noise, and two of them on any targets (the pairwise repair of Lemma E.2) (chapter 5)
* ``stack`` -- stacks of causal linear-attention layers (with optional MLP sublayers) trained by
  Adam, the layers arm of the paper's Fig. 1 (chapter 4)
* ``experiments`` -- the chapters' experiments: learning curves, heads against regression,
  Adam on associative memories, the identifiability sweep (chapters 4-5)
"""

from .bounds import NoisyBound, PairwiseBound, StoppingBound, noisy_label_bound, pairwise_bound, stopping_bound
from .coefficients import coefficient_matrix, heads_from_coef, parameter_distance, parameter_map
from .features import cubic_features, kernel, n_features
from .identifiability import Certificate, PolynomialCertificate, certificate, polynomial_certificate
from .regression import LinearFit, fit_linear_attention

__all__ = [
    "Certificate",
    "LinearFit",
    "NoisyBound",
    "PairwiseBound",
    "PolynomialCertificate",
    "StoppingBound",
    "certificate",
    "coefficient_matrix",
    "cubic_features",
    "fit_linear_attention",
    "heads_from_coef",
    "kernel",
    "n_features",
    "noisy_label_bound",
    "pairwise_bound",
    "parameter_distance",
    "parameter_map",
    "polynomial_certificate",
    "stopping_bound",
]
