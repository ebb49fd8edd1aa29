"""attnlib: the companion library of *Learning Attention, Provably*.

Notation (the same letters in the book, the code and the tests):

=========  ==========================================  =====================
symbol     meaning                                     in code
=========  ==========================================  =====================
n          tokens in a sequence                        ``n``
d          token dimension                             ``d``
m          heads                                       ``m``
N          examples                                    ``N``
X          a sequence; rows are tokens x_1 .. x_n      ``X`` (n, d) or (N, n, d)
Theta_i    attention matrix of head i (query-key)      ``heads.Theta[i]`` (d, d)
W_i        projection of head i (value-output)         ``heads.W[i]`` (d, d)
F(X)       sum_i softmax(X Theta_i X^T) X W_i           ``attention(X, heads)``
F(X)       sum_i (X Theta_i X^T) X W_i                  ``kind="linear"``
=========  ==========================================  =====================

``attnlib.viz`` (matplotlib) and ``attnlib.widgets`` (ipywidgets) are imported
on first use, so ``import attnlib`` needs only numpy.
"""

from __future__ import annotations

import importlib

from .attention import attention, attention_weights, softmax
from .heads import Heads, random_heads
from .inputs import boolean_inputs, gaussian_inputs
from .landscape import interpolate, loss_along_line, partners
from .training import TrainResult, loss_and_gradient, squared_loss, train

__version__ = "0.1.0"

__all__ = [
    "Heads",
    "TrainResult",
    "attention",
    "attention_weights",
    "boolean_inputs",
    "gaussian_inputs",
    "interpolate",
    "loss_along_line",
    "partners",
    "loss_and_gradient",
    "random_heads",
    "softmax",
    "squared_loss",
    "train",
]

_LAZY_SUBMODULES = (
    "checks",
    "viz",
    "widgets",
    # Part II: linear attention
    "rkhs",
    "viz_rkhs",
    "widgets_rkhs",
    "experiments_linear",
    "tasks",
    "viz_tasks",
    "widgets_tasks",
    # Part III: softmax attention, sculpted
    "sculpt",
    "viz_sculpt",
    "widgets_sculpt",
    # Part IV: lower bounds
    "boolean_fourier",
    "parities",
    "lower_bounds",
    "viz_lower_bounds",
    "widgets_lower_bounds",
)


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'attnlib' has no attribute {name!r}")
