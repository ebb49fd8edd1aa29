"""Learning softmax attention on the hypercube by sculpting a convex body: the book's reconstruction.

Chen and Li (STOC 2025) learn a multi-head softmax layer on Boolean inputs with
an algorithm that "is centered around using examples to sculpt a convex body
containing the unknown parameters". Only
the abstract of their paper was available to us. Everything in this subpackage
below that level is **the book's reconstruction of the idea**, not the paper's
algorithm, and carries none of its guarantees (chapters 7-9).

Modules, one concept each:

* ``hypercube`` -- facts special to ±1 inputs (logit gaps are linear in Theta, ...)
* ``single_head`` -- an exact linear learner for one head
* ``instances`` -- planted heads and the conditions the reconstruction needs
* ``sum_w`` -- phase 1: estimates of sum_i W_i from the data alone
* ``proxy`` -- phase 3: the min-norm proxy, its slices, and the refined sum_i W_i
* ``body`` -- phase 2: certified rows, halfspaces, the body and LPs over it (HiGHS)
* ``span`` -- phase 4: the span of the Theta_i
* ``candidates`` -- phase 5: candidate heads certified by least squares for the W_i
* ``local`` -- local optimisation: the Levenberg-Marquardt polish, and L-BFGS with restarts
* ``pipeline`` -- phases 1-3 (``carve``, also importable by its old name ``sculpt``) and the whole
  pipeline (``learn``) with a per-phase report
* ``compare`` -- sculpting against local optimisation on the same data
* ``diagnostics`` -- what each phase knows, measured against a planted layer

This subpackage needs scipy; ``import attnlib`` does not import it.
"""

from ._common import SculptError
from .body import (
    Body,
    Certificates,
    body_slice,
    clip_polygon,
    certify,
    feasible_point,
    halfspaces,
    prune,
    sculpt_body,
    support,
)
from .candidates import (
    best_scale,
    certify_candidates,
    design_matrix,
    face_candidates,
    fit_W,
    net_candidates,
    refine_in_span,
)
from .compare import (
    METHOD_IDS,
    METHODS,
    START_KINDS,
    START_LABELS,
    MethodRun,
    SingleStarts,
    SweepResult,
    binomial_interval,
    compare_methods,
    relative_test_error,
    single_starts,
    sweep,
)
from .hypercube import all_tokens, constant_sequences, fourth_moment, gap_feature, gap_feature_rank, logit_gaps
from .instances import Conditions, measure_conditions, min_norm_point, planted_instance
from .local import PolishInfo, RestartInfo, lbfgs_restarts, polish, polish_from_random, residual_jacobian
from .pipeline import SculptReport, SculptResult, carve, learn
from .proxy import min_norm_proxy, proxy_margins, refine_sum_W, slice_curve
from .single_head import learn_single_head
from .span import Span, face_span, random_span, span_alignment, spectral_span
from .sum_w import atom_residuals, atom_score, constant_sum_W, crude_sum_W, estimate_sum_W, trimmed_sum_W

__all__ = [
    "METHODS",
    "METHOD_IDS",
    "START_KINDS",
    "START_LABELS",
    "SingleStarts",
    "Body",
    "Certificates",
    "Conditions",
    "MethodRun",
    "PolishInfo",
    "RestartInfo",
    "SculptError",
    "SculptReport",
    "SculptResult",
    "SweepResult",
    "Span",
    "all_tokens",
    "atom_score",
    "atom_residuals",
    "best_scale",
    "binomial_interval",
    "body_slice",
    "clip_polygon",
    "certify",
    "certify_candidates",
    "carve",
    "compare_methods",
    "constant_sequences",
    "constant_sum_W",
    "crude_sum_W",
    "design_matrix",
    "estimate_sum_W",
    "face_candidates",
    "feasible_point",
    "face_span",
    "fit_W",
    "fourth_moment",
    "gap_feature",
    "gap_feature_rank",
    "halfspaces",
    "lbfgs_restarts",
    "learn",
    "learn_single_head",
    "logit_gaps",
    "measure_conditions",
    "min_norm_point",
    "min_norm_proxy",
    "net_candidates",
    "planted_instance",
    "polish",
    "polish_from_random",
    "proxy_margins",
    "prune",
    "random_span",
    "refine_in_span",
    "refine_sum_W",
    "residual_jacobian",
    "sculpt_body",
    "single_starts",
    "slice_curve",
    "span_alignment",
    "spectral_span",
    "support",
    "sweep",
    "relative_test_error",
    "trimmed_sum_W",
]
