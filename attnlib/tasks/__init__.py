"""Tasks for linear attention: data generators with their ground truth, and explicit layers."""

from . import automata, turing  # noqa: F401
