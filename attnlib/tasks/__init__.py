"""Tasks with known answers: data generators that also return the exact solution.

Each submodule builds inputs for a task that an attention layer can solve, the
heads that solve it, and the targets those heads produce, so that a learner's
output can be checked against the truth. Submodules are imported on first use
(``attnlib.tasks.associative_memory`` works after ``import attnlib.tasks``):

* ``associative_memory`` -- lookup tables of key-value pairs and the head that reads them
* ``dfa`` -- automata, their encoding as key/value tokens, the lookup head and the driver
* ``automata`` -- data sets of DFA steps, learning the step, evaluation (re-exports ``dfa``)
* ``programs`` -- Lookup, Copy and If-Then as explicit heads: autoregressive attention programs
* ``turing`` -- a Turing machine compiled from those programs (re-exports ``programs``)
"""

from __future__ import annotations

import importlib

_SUBMODULES = (
    "associative_memory",
    "automata", "dfa", "programs", "turing",
)


def __getattr__(name):
    """The submodules, imported on first use."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
