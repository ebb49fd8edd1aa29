"""A hard family for learning softmax attention: a parity hidden in m heads.

The book's own construction (chapter 10), in the spirit of the statistical-query
lower bound of Chen and Li; it is not their construction, which was not
available to us. Two tokens (n = 2), a hidden set S of s coordinates, a
read-out coordinate r outside S, and m = s + 1 heads

    Theta_i = beta_i diag(1_S),    W_i = c_i e_r e_0^T.

With z = x_1 * x_2 (entrywise), the logit gap of head i in row 1 is
beta_i u, u = sum_{j in S} (1 - z_j) = 2 #{j in S : z_j = -1}, so
A_i[0, 0] = sigmoid(beta_i u). The weights c solve

    sum_i c_i sigmoid(2 beta_i j) = (-1)^j,   j = 0, ..., s,

and then, exactly,

    F(X)[0, 0] = 2 x_{2,r} + (x_{1,r} - x_{2,r}) chi_S(x_1) chi_S(x_2),

a linear term plus two parities of degree 2s + 1 (row 2 is the mirror image;
every other output entry is 0).

Modules, one concept each (every public name is re-exported here):

* ``family`` -- the family itself: its scales and weights (and a search for the smallest), instances,
  heads, decoding
* ``fourier`` -- exact Fourier spectra on the cube and the low-degree regression baseline
* ``parities`` -- parity learners by elimination and by enumeration
* ``sq`` -- the statistical-query count
* ``experiments`` -- the gradient baseline on the family
"""

from .experiments import GDRun, gd_experiment
from .family import (
    BETA_SCALE,  # noqa: F401  (constants of the family, not listed)
    HARD_BETA,  # noqa: F401
    ParityInstance,
    ScaleSearch,
    alternating_sigmoid_sum,
    decode_parity_examples,
    parity_betas,
    parity_coefficients,
    parity_heads,
    parity_instance,
    search_parity_betas,
)
from .fourier import (
    FourierSpectrum,
    LowDegreeCurve,
    LowDegreeFit,
    boolean_cube,
    fourier_spectrum,
    low_degree_curve,
    low_degree_regression,
    monomial_features,
    n_monomials,
    walsh_hadamard,
)
from .parities import parity_by_elimination, parity_by_enumeration
from .sq import sq_correlations, sq_dimension, sq_query_lower_bound

__all__ = [
    "FourierSpectrum",
    "GDRun",
    "LowDegreeCurve",
    "LowDegreeFit",
    "ParityInstance",
    "ScaleSearch",
    "alternating_sigmoid_sum",
    "boolean_cube",
    "decode_parity_examples",
    "fourier_spectrum",
    "gd_experiment",
    "low_degree_curve",
    "low_degree_regression",
    "monomial_features",
    "n_monomials",
    "parity_betas",
    "parity_by_elimination",
    "parity_by_enumeration",
    "parity_coefficients",
    "parity_heads",
    "parity_instance",
    "search_parity_betas",
    "sq_correlations",
    "sq_dimension",
    "sq_query_lower_bound",
    "walsh_hadamard",
]
