"""Learning softmax attention on the hypercube by sculpting a convex body: the book's reconstruction.

Chen and Li (STOC 2025) learn a multi-head softmax layer on Boolean inputs with
an algorithm that "is centered around using examples to sculpt a convex body
containing the unknown parameters". Only
the abstract of their paper was available to us. Everything in this subpackage
below that level is **the book's reconstruction of the idea**, not the paper's
algorithm, and carries none of its guarantees (chapters 7-9).

Modules, one concept each (the phases, their calls and results: :mod:`attnlib.sculpt.pipeline`):

* ``hypercube`` -- facts special to ±1 inputs (logit gaps are linear in Theta, ...)
* ``single_head`` -- an exact linear learner for one head
* ``instances`` -- planted heads and the conditions the reconstruction needs
* ``sum_w`` -- phase 1: estimates of sum_i W_i from the data alone
* ``proxy`` -- phase 3: the min-norm proxy, its slices, and the refined sum_i W_i
* ``geometry`` -- the body's face in the plane of two heads, as chapter 8 draws it
* ``body`` -- phase 2: certified rows, halfspaces, the body and LPs over it (HiGHS)
* ``span`` -- phase 4: the span of the Theta_i
* ``candidates`` -- phase 5: candidate heads certified by least squares for the W_i
* ``local`` -- local optimisation: the Levenberg-Marquardt polish, and L-BFGS with restarts
* ``pipeline`` -- the phase plan, ``carve`` (phases 1-3) and ``learn`` (the whole pipeline)
* ``compare`` -- sculpting against local optimisation on the same data
* ``starts`` -- how often a single start of each kind passes the acceptance rule, with an interval
* ``diagnostics`` -- what each phase knows, measured against a planted layer

This subpackage needs scipy; ``import attnlib`` does not import it.
"""

from ._common import SculptError
from .body import (
    Body,
    Certificates,
    body_slice,
    certify,
    clip_polygon,
    feasible_point,
    halfspaces,
    prune,
    sculpt_body,
    support,
)
from .candidates import (
    Candidates,
    best_scale,
    certify_candidates,
    design_matrix,
    face_candidates,
    fit_W,
    net_candidates,
    refine_in_span,
    span_candidates,
)
from .compare import (
    METHOD_LABELS,
    METHODS,
    Comparison,
    MethodRun,
    SweepResult,
    compare_methods,
    relative_test_error,
    sweep,
)
from .geometry import FaceGeometry, clip_edges, face_geometry, head_plane, plane_coordinates
from .hypercube import all_tokens, constant_sequences, fourth_moment, gap_feature, gap_feature_rank, logit_gaps
from .instances import Conditions, measure_conditions, min_norm_point, planted_instance
from .local import (
    PolishInfo,
    PolishRuns,
    RestartInfo,
    lbfgs_restarts,
    perturbed_start,
    polish,
    polish_from_random,
    polish_starts,
    refit_residual,
    residual_jacobian,
)
from .pipeline import PhaseSeconds, SculptReport, SculptResult, carve, learn
from .proxy import Sculpted, SliceFit, min_norm_proxy, proxy_margins, refine_sum_W, sculpt_rounds, slice_curve
from .single_head import learn_single_head
from .span import SPAN_METHODS, Span, SpanAlignment, face_span, find_span, random_span, span_alignment, spectral_span
from .starts import START_KINDS, START_LABELS, SingleStarts, binomial_interval, single_starts
from .sum_w import (
    AtomScores,
    SumWCandidates,
    SumWEstimate,
    atom_residuals,
    atom_score,
    constant_sum_W,
    crude_sum_W,
    estimate_sum_W,
    trimmed_sum_W,
)

__all__ = [
    "METHODS",
    "METHOD_LABELS",
    "SPAN_METHODS",
    "START_KINDS",
    "START_LABELS",
    "AtomScores",
    "Body",
    "Candidates",
    "Certificates",
    "Comparison",
    "Conditions",
    "FaceGeometry",
    "MethodRun",
    "PhaseSeconds",
    "PolishInfo",
    "PolishRuns",
    "RestartInfo",
    "SculptError",
    "SculptReport",
    "SculptResult",
    "Sculpted",
    "SingleStarts",
    "SliceFit",
    "Span",
    "SpanAlignment",
    "SumWCandidates",
    "SumWEstimate",
    "SweepResult",
    "all_tokens",
    "atom_residuals",
    "atom_score",
    "best_scale",
    "binomial_interval",
    "body_slice",
    "carve",
    "certify",
    "certify_candidates",
    "clip_edges",
    "clip_polygon",
    "compare_methods",
    "constant_sequences",
    "constant_sum_W",
    "crude_sum_W",
    "design_matrix",
    "estimate_sum_W",
    "face_candidates",
    "face_geometry",
    "face_span",
    "feasible_point",
    "find_span",
    "fit_W",
    "fourth_moment",
    "gap_feature",
    "gap_feature_rank",
    "halfspaces",
    "head_plane",
    "lbfgs_restarts",
    "learn",
    "learn_single_head",
    "logit_gaps",
    "measure_conditions",
    "min_norm_point",
    "min_norm_proxy",
    "net_candidates",
    "perturbed_start",
    "plane_coordinates",
    "planted_instance",
    "polish",
    "polish_from_random",
    "polish_starts",
    "proxy_margins",
    "prune",
    "random_span",
    "refine_in_span",
    "refine_sum_W",
    "refit_residual",
    "relative_test_error",
    "residual_jacobian",
    "sculpt_body",
    "sculpt_rounds",
    "single_starts",
    "slice_curve",
    "span_alignment",
    "span_candidates",
    "spectral_span",
    "support",
    "sweep",
    "trimmed_sum_W",
]
