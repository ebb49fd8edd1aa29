"""Instant feedback for the book's coding exercises.

Each check takes *your* function, runs it against the reference implementation on
random and edge-case inputs, and either prints one line saying that every case
passed, or raises :class:`CheckFailure` saying which input failed, what was
expected and what was received, or which shape was wrong. It never shows the
reference code.

>>> from attnlib.checks import check_softmax
>>> def my_softmax(S):
...     E = np.exp(S)                      # forgets to subtract the maximum
...     return E / E.sum(axis=-1, keepdims=True)
>>> try:
...     check_softmax(my_softmax)
... except CheckFailure as failure:
...     print(str(failure)[:72])
check_softmax: on case 'logits as large as 1e4' (S of shape (2, 4)), the
"""

from ._core import CheckFailure
from .attention import check_attention_head, check_linear_attention, check_softmax
from .training import check_linear_attention_gradient

__all__ = [
    "CheckFailure",
    "check_attention_head",
    "check_linear_attention",
    "check_linear_attention_gradient",
    "check_softmax",
]
