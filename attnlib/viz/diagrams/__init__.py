"""Explanatory diagrams: schematics of the book's objects, drawn from real small examples.

The other modules of :mod:`attnlib.viz` plot data; these draw the pictures the prose explains in
words, one per idea, so that each part of the book has at least one:

* :func:`plot_head` -- one softmax head on a real sequence: queries, keys, values, the softmax,
  the output (chapter 1)
* :func:`plot_cubic_lift` -- the cubic features and where each coefficient of ``p(Theta)`` goes
  (chapter 3)
* :func:`plot_dfa_lookup` -- a DFA's transition table as context tokens, and one lookup step
  (chapter 6)
* :func:`plot_logit_gap` -- the weights of a row are nonlinear in ``Theta``, but the log-ratio of two
  of them is ``<Theta, x_a (x_b - x_c)^T>_F``, linear: both sides computed on one example (chapter 7)
* :func:`plot_halfspaces` -- certified rows become halfspaces; a real 2-D slice of a sculpted body
  and the halfspaces that bound it (chapter 8)
* :func:`plot_phase_flow` -- the five phases of Part III, the book's reconstruction (chapter 8)
* :func:`plot_face` -- the face of the idealised body nearest the origin, along the heads, beside the tip
  of a body from data, in the plane of two heads: what phase 4 searches (chapter 9)
* :func:`plot_two_roads` -- the two results side by side: what each assumes, costs, and where the
  lower bound bites (chapter 11)

Every diagram is drawn on one axes whose data units are inches of the figure, so boxes, arrows
and text keep their sizes. Like every figure of the book (``attnlib/viz/_style.py``), a diagram
is at most ``COLUMN_IN`` inches wide, so the page shows it unshrunk, and no text is smaller than
``MIN_PT`` points (16 px, the body text): dense diagrams are stacked vertically rather than shrunk.
Colours come from ``COLORS`` by index, and never carry meaning alone: every coloured element also
has a label, a hatch or a line style.
"""

from __future__ import annotations

from ._definitions import plot_cubic_lift, plot_dfa_lookup, plot_head
from ._hypercube import plot_halfspaces, plot_logit_gap
from ._phases import PHASES, plot_face, plot_phase_flow  # noqa: F401  (PHASES: the table plot_phase_flow draws)
from ._two_roads import plot_two_roads

__all__ = ["plot_cubic_lift", "plot_dfa_lookup", "plot_face", "plot_halfspaces", "plot_head", "plot_logit_gap",
           "plot_phase_flow", "plot_two_roads"]
