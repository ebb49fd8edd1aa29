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

The library is laid out as the book is, one folder per part:

=================  ========================================================  ========
module             what it holds                                             chapters
=================  ========================================================  ========
``heads``          the parameters ``Heads`` of a layer, random draws         1
``inputs``         Boolean and Gaussian input sequences                      1-2
``attention``      softmax and linear multi-head attention                   1
``training``       the gradient baseline: Adam on the squared loss           2
``landscape``      the loss along lines between equivalent layers            2
``rkhs/``          Part II, linear attention as regression: ``features``,    3-5
                   ``coefficients``, ``regression``, ``identifiability``,
                   ``experiments``
``tasks/``         data with exact solutions: associative memory,            5-6
                   automata, Turing-machine primitives
``sculpt/``        Part III, softmax attention sculpted (the book's          7-9
                   reconstruction): ``hypercube``, ``single_head``,
                   ``instances``, ``sum_w``, ``body``, ``proxy``, ``span``,
                   ``candidates``, ``local``, ``pipeline``, ``compare``,
                   ``diagnostics``
``lower_bounds/``  Part IV: the parity ``family``, ``fourier`` spectra and   10-11
                   low-degree regression, ``parities``, the ``sq`` count,
                   ``experiments``
``viz/``           figures, one module per concept: ``attention``,           all
                   ``training``, ``rkhs``, ``tasks``, ``sculpt``,
                   ``lower_bounds``
``widgets/``       explorers, with the same module names as ``viz/``         all
``checks/``        instant feedback for the exercises, named alike           all
=================  ========================================================  ========

The rules of the layout (``tests/test_architecture.py`` enforces them):
``import attnlib`` loads numpy only; the core modules above ``rkhs/`` import no
learner; ``rkhs`` and ``sculpt`` never import each other; no algorithm imports
``checks``; no part imports a view (``viz``, ``widgets``); no module imports a
private module of another subpackage; and no module takes a private name (``_name``)
from another module, inside its own subpackage too: a helper that several modules
share has a public name (in a private module such as ``sculpt/_common.py``).

Every subpackage is imported on first use, so matplotlib, ipywidgets and scipy
load only when a chapter needs them. A chapter imports its views one way:
``from attnlib.viz import rkhs as viz`` and ``from attnlib.widgets import rkhs as widgets``.
"""

from __future__ import annotations

import importlib
import importlib.metadata

from .attention import attention, attention_weights, softmax
from .heads import Heads, random_heads
from .inputs import boolean_inputs, gaussian_inputs
from .landscape import Partners, interpolate, loss_along_line, partners
from .training import TrainResult, loss_and_gradient, squared_loss, train

#: The installed distribution's version: pyproject.toml is its one source.
try:
    __version__ = importlib.metadata.version("attnlib")
except importlib.metadata.PackageNotFoundError:  # imported from a checkout that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Heads",
    "Partners",
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

_SUBPACKAGES = ("checks", "viz", "widgets", "rkhs", "tasks", "sculpt", "lower_bounds")


def __getattr__(name):
    """The subpackages, imported on first use (``attnlib.rkhs`` after ``import attnlib``)."""
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
