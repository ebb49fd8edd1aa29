"""Every bad input a clear error, and no silent wrong answer (issue 15).

Two kinds of test:

* a table of cases, generated from one valid call per public function: each
  argument has a kind (array, flag, size, rng, tolerance, choice, heads, ...)
  and receives the bad values of that kind. Each case asserts the exception
  type and a ``match=`` on the argument's name. For ``attnlib.sculpt``,
  ``attnlib.lower_bounds`` and ``attnlib.tasks`` the kinds are read from the
  functions' own declarations (``attnlib._arguments``), and two tests check
  that every public function, result class and method of these packages
  declares every argument and has a valid call in the table (``DECLARED``);
  the other parts still tag their arguments here (``Spec(..., kinds=...)``);
* the issue's reproducers, the valid edge cases (with their right answers),
  and hypothesis properties (rescaling, no NaN for finite input, checkers that
  cannot hang).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attnlib
from attnlib import (
    attention,
    attention_weights,
    boolean_inputs,
    checks,
    gaussian_inputs,
    interpolate,
    loss_along_line,
    loss_and_gradient,
    lower_bounds,
    partners,
    random_heads,
    rkhs,
    sculpt,
    softmax,
    squared_loss,
    train,
)
from attnlib._arguments import declared
from attnlib.checks import CheckFailure
from attnlib.checks import _core as check_core
from attnlib.lower_bounds import fourier
from attnlib.rkhs import experiments as rkhs_exp
from attnlib.tasks import associative_memory as am
from attnlib.tasks import automata, turing

# ---------------------------------------------------------------------------
# shared valid inputs (the setup)
# ---------------------------------------------------------------------------
X = boolean_inputs(6, 3, 4, rng=1)
H = random_heads(2, 4, rng=0)
Y = attention(X, H)
YL = attention(X, H, kind="linear")[:, -1]
XL = gaussian_inputs(40, 4, 2, rng=3)
YLL = attention(XL, random_heads(1, 2, rng=4), kind="linear")[:, -1]
C = rkhs.parameter_map(random_heads(1, 2, rng=5))
TEACHER = sculpt.planted_instance(2, 4, rng=0)
XS = boolean_inputs(40, 3, 4, rng=1)
YS = attention(XS, TEACHER)
DFA = automata.DFA([[0, 1], [1, 0]], accepting=[False, True])
BB = turing.busy_beaver()
LAYOUT = turing.tm_layout(BB, 5, 2)

# ---------------------------------------------------------------------------
# bad values by kind: (value, expected exception types, label)
# ---------------------------------------------------------------------------


def _bad_arrays(valid):
    """None, text, objects, complex, and a NaN / inf entry in an array of the valid shape."""
    valid = np.asarray(valid, dtype=float)
    nan, inf = valid.copy(), valid.copy()
    nan.flat[0], inf.flat[-1] = np.nan, np.inf
    return [
        (None, TypeError, "None"),
        ("abc", TypeError, "a string"),
        (np.array(["a", "b"]), TypeError, "an array of strings"),
        (np.array([1, None], dtype=object), TypeError, "an object array"),
        (valid + 1j, TypeError, "a complex array"),
        ({"a": 1}, TypeError, "a dict"),
        (nan, ValueError, "a NaN entry"),
        (inf, ValueError, "an inf entry"),
    ]


BAD = {
    "flag": [("False", TypeError, "the string 'False'"), ("True", TypeError, "the string 'True'"),
             (1, TypeError, "the int 1"), (0, TypeError, "the int 0"), (None, TypeError, "None"),
             (1.0, TypeError, "a float"), (np.array([True]), TypeError, "an array")],
    "size": [(2.5, TypeError, "a float"), (2.0, TypeError, "an integral float"), (True, TypeError, "True"),
             (np.bool_(True), TypeError, "numpy True"), (0, ValueError, "zero"), (-1, ValueError, "negative"),
             ("3", TypeError, "a string"), (None, TypeError, "None")],
    "optsize": [(2.5, TypeError, "a float"), (True, TypeError, "True"), (0, ValueError, "zero"),
                (-2, ValueError, "negative"), ("3", TypeError, "a string")],
    "index": [(2.5, TypeError, "a float"), (True, TypeError, "True"), (-1, ValueError, "negative"),
              ("3", TypeError, "a string"), (None, TypeError, "None"), (99, ValueError, "out of range")],
    "count": [(2.5, TypeError, "a float"), (True, TypeError, "True"), (-1, ValueError, "negative"),
              ("3", TypeError, "a string"), (None, TypeError, "None")],
    "layer": [(None, TypeError, "None"), ("abc", TypeError, "a string"), ((np.eye(4), np.eye(4)), ValueError, "a pair"),
              (np.eye(4), ValueError, "coefficients of another d"), (np.eye(4) + 1j, TypeError, "complex")],
    "series": [(None, TypeError, "None"), ([1.0, 2.0], TypeError, "a list"), ({"a": "abc"}, TypeError, "text"),
               ({"a": [1 + 1j, 2, 3]}, TypeError, "complex values"), ({"a": 1.0}, ValueError, "a scalar"),
               ({"a": np.ones((3, 2))}, ValueError, "a 2-D array")],
    "rng": [("abc", TypeError, "a string"), (-1, ValueError, "a negative seed"), (1.5, TypeError, "a float"),
            (True, TypeError, "a bool"), ([1, 2], TypeError, "a list"), (object(), TypeError, "an object")],
    # any finite real number, of either sign
    "real": [(float("nan"), ValueError, "NaN"), (float("inf"), ValueError, "inf"), ("x", TypeError, "a string"),
             (True, TypeError, "a bool"), (None, TypeError, "None")],
    "tol": [(float("nan"), ValueError, "NaN"), (float("inf"), ValueError, "inf"), (0.0, ValueError, "zero"),
            (-1.0, ValueError, "negative"), ("x", TypeError, "a string"), (True, TypeError, "a bool"),
            (None, TypeError, "None")],
    "opttol": [(float("nan"), ValueError, "NaN"), (float("inf"), ValueError, "inf"), (0.0, ValueError, "zero"),
               (-1.0, ValueError, "negative"), ("x", TypeError, "a string"), (True, TypeError, "a bool")],
    "choice": [("bogus", ValueError, "an unknown name"), (None, ValueError, "None"), (1, ValueError, "an int"),
               ("", ValueError, "the empty string"), (["softmax"], ValueError, "a list")],
    "function": [(None, TypeError, "None"), ("softmax", TypeError, "a string"), (np.ones(3), TypeError, "an array")],
    "heads": [(None, TypeError, "None"), ("abc", TypeError, "a string"), ((np.eye(4), np.eye(4)), TypeError, "a pair"),
              (np.eye(4), TypeError, "an array")],
    # a result object of the library (a spectrum, a sweep, a run) that a figure draws
    "object": [(None, TypeError, "None"), ("abc", TypeError, "a string"), (np.ones(3), TypeError, "an array"),
               ({"a": 1}, TypeError, "a dict")],
    # a dict of label -> something a figure draws, one entry per line or panel
    "mapping": [(None, TypeError, "None"), ("abc", TypeError, "a string"), ([1.0, 2.0], TypeError, "a list"),
                ({}, ValueError, "an empty dict")],
    # the same, whose values must be result objects of one class
    "results": [(None, TypeError, "None"), ("abc", TypeError, "a string"), ([1.0, 2.0], TypeError, "a list"),
                ({}, ValueError, "an empty dict"), ({"a": "abc"}, TypeError, "a dict of text")],
}


class Spec:
    """One public function, valid arguments for it, and the kind of each argument to corrupt."""

    def __init__(self, func, *args, kinds: dict, **kwargs):
        self.func, self.args, self.kwargs, self.kinds = func, args, kwargs, kinds
        self.name = f"{func.__module__.replace('attnlib.', '')}.{func.__name__}"

    def cases(self):
        sig = inspect.signature(self.func)
        for param, kind in self.kinds.items():
            if kind in ("array", "optarray", "intarray"):
                bound = sig.bind(*self.args, **self.kwargs)
                bad = _bad_arrays(bound.arguments[param])
                if kind == "optarray":  # None is the default
                    bad = [b for b in bad if b[0] is not None]
                if kind == "intarray":  # a float array is of the wrong type, whatever its values
                    bad = [(v, TypeError if lab.endswith("entry") else e, lab) for v, e, lab in bad]
            else:
                bad = BAD[kind]
            for value, exc, label in bad:
                yield pytest.param(self, param, value, exc, id=f"{self.name}-{param}={label}")

    def call_with(self, param, value):
        bound = inspect.signature(self.func).bind(*self.args, **self.kwargs)
        bound.arguments[param] = value
        return self.func(*bound.args, **bound.kwargs)


body = sculpt.sculpt_body(XS, YS, TEACHER.W.sum(0))
proxy = sculpt.min_norm_proxy(body)
span = sculpt.random_span(proxy, 2, rng=0)


# ---------------------------------------------------------------------------
# the declared packages (sculpt, lower_bounds, tasks): the kinds come from each
# function's own declaration (attnlib._arguments), never restated here
# ---------------------------------------------------------------------------


def _bad_values(kind, valid):
    """The bad values of a declared kind: (value, exception type, label), ``None`` left out if it is optional."""
    family, options = kind.family, kind.options
    if family in ("array", "cube"):
        bad = _bad_arrays(np.ones(4) if valid is None else valid)
        if family == "cube":
            half = np.ones(4) if valid is None else np.array(valid, dtype=float)
            half.flat[0] = 0.5
            bad.append((half, ValueError, "an entry off the cube"))
    elif family == "floats":  # inf and NaN are allowed (a diverged run): only the type is checked
        bad = [b for b in _bad_arrays(np.ones(4) if valid is None else valid) if b[1] is TypeError]
    elif family == "intarray":
        bad = [(v, TypeError if lab.endswith("entry") else e, lab) for v, e, lab in _bad_arrays(np.ones(2))]
        bad.append((np.array([True, False]), TypeError, "an array of booleans"))
    elif family == "mask":
        bad = [(None, TypeError, "None"), ("abc", TypeError, "a string"), (np.array([1, 0]), TypeError, "ints"),
               (np.array([0.5]), TypeError, "floats")]
    elif family == "sizes":
        bad = [(None, TypeError, "None"), ("abc", TypeError, "a string"), (3, TypeError, "an int, not a list"),
               ([], ValueError, "an empty list"), ([0], ValueError, "a zero"), ([1.5], TypeError, "a float")]
    elif family == "index":
        bad = BAD["index"]
    elif family == "score":
        bad = [(float("nan"), ValueError, "NaN"), (-1.0, ValueError, "negative"), ("x", TypeError, "a string"),
               (True, TypeError, "a bool"), (None, TypeError, "None")]
    elif family == "interval":
        low, high, low_open, high_open = options
        bad = [(low - 1.0, ValueError, "below the interval"), (high + 1.0, ValueError, "above the interval"),
               (float("nan"), ValueError, "NaN"), ("x", TypeError, "a string"), (True, TypeError, "a bool"),
               (None, TypeError, "None")]
        bad += [(low, ValueError, "the open low end")] * low_open
        bad += [(high, ValueError, "the open high end")] * high_open
    elif family == "text":
        bad = [(None, TypeError, "None"), (1, TypeError, "an int"), ("", TypeError, "the empty string"),
               (["a"], TypeError, "a list")]
    elif family == "names":
        bad = [(None, TypeError, "None"), ("abc", TypeError, "a string"), ([], ValueError, "an empty list"),
               (["bogus"], ValueError, "an unknown name"), ([options[0]] * 2, ValueError, "a repeated name")]
    elif family == "structure":  # a structure of its own: checked by hand (NAMES_AND_STRUCTURES)
        bad = []
    else:  # size, count, tol, real, flag, rng, heads, choice, object
        bad = BAD[family]
    return [b for b in bad if not (kind.optional and b[0] is None)]


class Declared(Spec):
    """A public function, class or bound method of a declared package, with valid arguments for it.

    Every declared argument receives the bad values of its kind, read from ``__arguments__``.
    """

    def __init__(self, func, *args, **kwargs):
        super().__init__(func, *args, kinds=declared(func), **kwargs)
        self.name = f"{func.__module__.replace('attnlib.', '')}.{func.__qualname__}"

    def cases(self):
        bound = inspect.signature(self.func).bind(*self.args, **self.kwargs)
        bound.apply_defaults()
        for param, kind in self.kinds.items():
            for value, exc, label in _bad_values(kind, bound.arguments.get(param)):
                yield pytest.param(self, param, value, exc, id=f"{self.name}-{param}={label}")


def fields_of(result) -> dict:
    """A result dataclass's fields, to build it again through its (declared) constructor."""
    return {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}


def _declared_specs():
    """One valid call of every public function, class and method of sculpt, lower_bounds and tasks."""
    from attnlib.lower_bounds import family as lb_family
    from attnlib.sculpt import diagnostics as sd
    from attnlib.tasks import dfa as tdfa
    from attnlib.tasks import programs

    S = TEACHER.W.sum(0)
    fit = sculpt.SliceFit(S, S, 10, 0.5)
    sculpted = sculpt.Sculpted(body, proxy, S, 0.01, fit, (0, 0, 0))
    candidates = sculpt.Candidates(TEACHER, 0.1, TEACHER, 0.2)
    info = sculpt.PolishInfo(0.1, 3, 0.01)
    runs = sculpt.PolishRuns(TEACHER, 0.1, (info,), (0.1,))
    phase1 = sculpt.SumWEstimate(S, "crude", sculpt.SumWCandidates(S, S), sculpt.AtomScores(0.1, 0.2))
    seconds = sculpt.PhaseSeconds(sum_w=0.1)
    report = sculpt.SculptReport(phase1, sculpted, SPAN, candidates, runs, seconds)
    method_run = sculpt.MethodRun("sculpt_polish", 0.1, 1, True, 1.0)
    starts = sculpt.SingleStarts({"random": np.ones(1)}, {"random": np.ones(1)}, {"random": np.ones(1)}, 1.0)
    diag = sd.PhaseDiagnostics(sd.SumWErrors(), sd.Geometry(), sd.LayerErrors(), seconds)
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    spectrum = lower_bounds.fourier_spectrum(PAR.heads)
    Xp = boolean_inputs(16, 2, 2, rng=0)
    low_fit = lower_bounds.low_degree_regression(Xp, Xp[:, 0, 0], 1)
    curve = lower_bounds.low_degree_curve(Xp, Xp[:, 0, 0], 1)
    run = automata.execute(DFAS, WORDS)
    evaluation = automata.evaluate(automata.lookup_heads(2, 2), DFAS, WORDS)
    layout = programs.Layout([("pos", 3), ("k", 2), ("v", 2)])
    tm_run = turing.run(BB, [0] * 5, 2, 2)
    gd = lower_bounds.gd_experiment(4, 1, N=8, N_test=8, epochs=1, rng=0)
    search = lower_bounds.search_parity_betas(1, starts=1, rng=0)
    return [
        # sculpt: the hypercube, one head, the planted instances (chapter 7)
        Declared(sculpt.all_tokens, 3),
        Declared(sculpt.gap_feature, XS[0, 0], XS[0, 1], XS[0, 2]),
        Declared(sculpt.logit_gaps, XS, TEACHER.Theta[0]),
        Declared(sculpt.gap_feature_rank, 2, samples=10),
        Declared(sculpt.fourth_moment, np.ones(4)),
        Declared(sculpt.constant_sequences, XS),
        Declared(sculpt.learn_single_head, XS, attention(XS, TEACHER[0])),
        Declared(sculpt.min_norm_point, TEACHER.Theta),
        Declared(sculpt.planted_instance, 2, 4),
        Declared(sculpt.measure_conditions, TEACHER),
        Declared(sculpt.Conditions, **fields_of(sculpt.measure_conditions(TEACHER))),
        # phase 1
        Declared(sculpt.crude_sum_W, XS, YS),
        Declared(sculpt.constant_sum_W, XS, YS),
        Declared(sculpt.atom_residuals, XS, YS, S),
        Declared(sculpt.atom_score, XS, YS, S),
        Declared(sculpt.trimmed_sum_W, XS, YS, S),
        Declared(sculpt.estimate_sum_W, XS, YS),
        Declared(sculpt.SumWCandidates, S, S, S),
        Declared(sculpt.SumWCandidates(S, S).get, "crude"),
        Declared(sculpt.AtomScores, 0.1, 0.2, 0.3),
        Declared(sculpt.AtomScores(0.1, 0.2).get, "trimmed"),
        Declared(sculpt.SumWEstimate, **fields_of(phase1)),
        # phase 2
        Declared(sculpt.certify, XS, YS, S),
        Declared(sculpt.Certificates, **fields_of(CERTS)),
        Declared(sculpt.halfspaces, XS, CERTS),
        Declared(sculpt.sculpt_body, XS, YS, S),
        Declared(sculpt.Body, **fields_of(body)),
        Declared(body.slack, TEACHER.Theta),
        Declared(body.contains, TEACHER.Theta),
        Declared(body.with_bound, 3.0),
        Declared(sculpt.support, sculpt.Body(np.eye(2)[None], gamma=1.0, bound=3.0, certified=1), -np.eye(2)),
        Declared(sculpt.prune, body),
        Declared(sculpt.feasible_point, body),
        Declared(sculpt.body_slice, body, proxy, np.eye(16)[:2].reshape(2, 4, 4)),
        Declared(sculpt.clip_polygon, square, 1.0, 0.0, 0.5),
        # phase 3, and phases 2-3 in rounds
        Declared(sculpt.min_norm_proxy, body),
        Declared(sculpt.proxy_margins, XS, proxy),
        Declared(sculpt.refine_sum_W, XS, YS, proxy),
        Declared(sculpt.SliceFit, **fields_of(fit)),
        Declared(sculpt.slice_curve, XS, YS, proxy, S, [0.5]),
        Declared(sculpt.sculpt_rounds, XS, YS, S),
        Declared(sculpt.Sculpted, **fields_of(sculpted)),
        # phase 4
        Declared(sculpt.face_span, body, proxy, 2),
        Declared(sculpt.spectral_span, XS, YS, S, proxy, 2),
        Declared(sculpt.random_span, proxy, 2),
        Declared(sculpt.find_span, XS, YS, sculpted, 2),
        Declared(sculpt.Span, **fields_of(SPAN)),
        Declared(SPAN.project, TEACHER.Theta),
        Declared(sculpt.span_alignment, SPAN, TEACHER.Theta),
        Declared(sculpt.SpanAlignment, np.ones(2), np.ones(2)),
        # phase 5 and the polish
        Declared(sculpt.design_matrix, XS, TEACHER.Theta),
        Declared(sculpt.fit_W, XS, YS, TEACHER.Theta),
        Declared(sculpt.best_scale, XS, YS, TEACHER.Theta),
        Declared(sculpt.face_candidates, body, SPAN, 2),
        Declared(sculpt.net_candidates, span, 2),
        Declared(sculpt.certify_candidates, XS, YS, TEACHER.Theta[None]),
        Declared(sculpt.refine_in_span, XS, YS, TEACHER, SPAN),
        Declared(sculpt.span_candidates, XS, YS, body, SPAN, 2),
        Declared(sculpt.Candidates, **fields_of(candidates)),
        Declared(sculpt.residual_jacobian, XS[:3], TEACHER.Theta, TEACHER.W),
        Declared(sculpt.polish, XS, YS, TEACHER, max_nfev=1),
        Declared(sculpt.refit_residual, XS, YS, TEACHER.Theta),
        Declared(sculpt.polish_from_random, XS, YS, 2, max_nfev=1),
        Declared(sculpt.lbfgs_restarts, XS, YS, 2, maxiter=1),
        Declared(sculpt.perturbed_start, XS, YS, TEACHER, 0.5),
        Declared(sculpt.polish_starts, XS, YS, candidates),
        Declared(sculpt.PolishInfo, **fields_of(info)),
        Declared(sculpt.RestartInfo, 0.1, 2, 1.0),
        Declared(sculpt.PolishRuns, **fields_of(runs)),
        # the pipeline, its report and what measures it
        Declared(sculpt.carve, XS, YS),
        Declared(sculpt.learn, XS, YS, 2),
        Declared(sculpt.PhaseSeconds, **fields_of(seconds)),
        Declared(sculpt.SculptReport, **fields_of(report)),
        Declared(sculpt.SculptResult, TEACHER, report),
        Declared(sculpt.SculptError, "phase 2", "nothing certified", n_constraints=0),
        Declared(sd.phase_diagnostics, report, TEACHER, XS, YS),
        Declared(sd.phase_report_entries, diag),
        Declared(sd.PhaseDiagnostics, **fields_of(diag)),
        Declared(sd.SumWErrors, 0.1, 0.2, 0.3, 0.4),
        Declared(sd.Geometry, 0.9, 0.5, 0.3),
        Declared(sd.LayerErrors, 0.4, 0.4, 0.3, 1e-9),
        Declared(sd.relative, [1.0, 1.0], [1.0, 0.0]),
        Declared(sd.cosine, [1.0, 1.0], [1.0, 0.0]),
        Declared(sd.single_head_curve, XS, attention(XS, TEACHER[0]), TEACHER[0], [10, 40]),
        Declared(sd.slice_threshold_data, 8.0, 0.8, N=40),
        Declared(sd.SliceCurves, np.ones(2), np.ones(2), None, 0.5),
        # comparisons (chapter 9)
        Declared(sculpt.relative_test_error, TEACHER, XS, YS),
        Declared(sculpt.compare_methods, XS, YS, 2, XS, YS, methods=("adam",), adam_epochs=1),
        Declared(sculpt.MethodRun, **fields_of(method_run)),
        Declared(sculpt.Comparison, (method_run,)),
        Declared(sculpt.sweep, [1.0], [40], seeds=1, methods=("sculpt_no_polish",)),
        Declared(sculpt.SweepResult, {}, {}, {}, {}),
        Declared(sculpt.single_starts, XS, YS, 2, XS, YS),
        Declared(sculpt.SingleStarts, **fields_of(starts)),
        Declared(starts.successes, 1e-6),
        Declared(sculpt.binomial_interval, 3, 5),
        # lower bounds (chapters 10-11)
        Declared(lower_bounds.parity_betas, 2),
        Declared(lower_bounds.parity_coefficients, 2),
        Declared(lower_bounds.alternating_sigmoid_sum, 2, np.ones(3)),
        Declared(lower_bounds.search_parity_betas, 2),
        Declared(lower_bounds.ScaleSearch, **fields_of(search)),
        Declared(lower_bounds.parity_instance, 4, 2),
        Declared(lower_bounds.ParityInstance, **fields_of(PAR)),
        Declared(PAR.parity, boolean_inputs(3, 2, 4, rng=0)),
        Declared(PAR.formula, boolean_inputs(3, 2, 4, rng=0)),
        Declared(lower_bounds.parity_heads, 4, 2),
        Declared(lb_family.decode_parity_examples, boolean_inputs(3, 2, 4, rng=0), np.ones(3), readout=3),
        Declared(lower_bounds.boolean_cube, 2, 2),
        Declared(fourier.walsh_hadamard, np.ones(4)),
        Declared(lower_bounds.fourier_spectrum, lambda X: X[:, 0, 0], n=1, d=2),
        Declared(lower_bounds.FourierSpectrum, **fields_of(spectrum)),
        Declared(spectrum.truncation_error, 1),
        Declared(spectrum.coefficient, [(0, 0)]),
        Declared(spectrum.support),
        Declared(lower_bounds.n_monomials, 4, 2),
        Declared(lower_bounds.monomial_features, np.ones((4, 3)), 2),
        Declared(lower_bounds.low_degree_regression, ZP[:, None, :], CHI, 1),
        Declared(lower_bounds.LowDegreeFit, **fields_of(low_fit)),
        Declared(low_fit.predict, Xp),
        Declared(lower_bounds.low_degree_curve, ZP[:, None, :], CHI, 2),
        Declared(lower_bounds.LowDegreeCurve, **fields_of(curve)),
        Declared(lower_bounds.parity_by_elimination, ZP, CHI),
        Declared(lower_bounds.parity_by_enumeration, ZP, CHI, 2),
        Declared(lower_bounds.sq_dimension, 6, 2),
        Declared(lower_bounds.sq_query_lower_bound, 6, 2, 0.1),
        Declared(lower_bounds.sq_correlations, np.ones(16), 2, 1),
        Declared(lower_bounds.gd_experiment, 4, 2, N=8, N_test=8, epochs=1),
        Declared(lower_bounds.GDRun, **fields_of(gd)),
        # tasks (chapters 5-6)
        Declared(am.memory_heads, 3),
        Declared(am.sample_memories, 4, 3),
        Declared(am.Memories, **fields_of(MEM)),
        Declared(tdfa.DFA, [[0, 1], [1, 0]], accepting=[False, True]),
        Declared(DFA.run, [0, 1, 1]),
        Declared(DFA.accepts, [0, 1, 1]),
        Declared(tdfa.random_dfa, 3, 2),
        Declared(tdfa.random_words, 4, 5, 2),
        Declared(tdfa.token_dim, 3, 2),
        Declared(tdfa.table_tokens, DFA),
        Declared(tdfa.query_tokens, [0, 1], [1, 0], 2, 2),
        Declared(tdfa.lookup_heads, 3, 2),
        Declared(tdfa.decode_states, np.zeros((2, 6)), 2, 2),
        Declared(tdfa.execute, DFAS, WORDS),
        Declared(tdfa.DFARun, **fields_of(run)),
        Declared(tdfa.run_contexts, DFA, [0, 1, 1]),
        Declared(automata.transition_data, 2, 3, 2, length=4),
        Declared(automata.TransitionData, **fields_of(TD)),
        Declared(automata.learn_step, TD),
        Declared(automata.fresh_dfas, 2, 3, 2),
        Declared(automata.step_contexts, DFAS, WORDS),
        Declared(automata.evaluate, automata.lookup_heads(2, 2), DFAS, WORDS),
        Declared(automata.DFAEvaluation, **fields_of(evaluation)),
        Declared(evaluation.accuracy_where, True),
        Declared(programs.Layout, [("pos", 3), ("k", 2)]),
        Declared(layout.size, "k"),
        Declared(layout.token, pos=0, k=1),
        Declared(programs.Op, "k", "k", (("v", "v", None),), B_Q=np.eye(2)),
        Declared(programs.lookup, "k", "k", [("v", "v")], B_Q=np.eye(2)),
        Declared(programs.copy, 1, [("v", "v")], 3),
        Declared(programs.if_then, "k", [(("v", None), ("v", None))], "k", "v", "v", 3),
        Declared(programs.instruction, layout, [programs.copy(0, [("v", "v")], 3)]),
        Declared(programs.round_token, np.zeros(layout.d), layout),
        Declared(programs.run_program, np.zeros((1, layout.d)), [], layout),
        Declared(turing.TuringMachine, {(0, 0): (1, 1, 1)}, 2, 2),
        Declared(BB.step, 0, 2, [0] * 5),
        Declared(turing.random_machine, 3, 2),
        Declared(turing.tm_layout, BB, 5, 2),
        Declared(turing.embed, BB, [0] * 5, 2, LAYOUT),
        Declared(turing.compile_step, BB, LAYOUT, 0),
        Declared(turing.run, BB, [0] * 5, 2, 2),
        Declared(turing.TMRun, **fields_of(tm_run)),
    ]

SPECS = [
    # core: attention, heads, inputs, training, landscape (chapters 1-2)
    Spec(softmax, np.zeros((2, 3)), kinds={"S": "array"}),
    Spec(attention, X, H, kinds={"X": "array", "heads": "heads", "causal": "flag", "kind": "choice"}),
    Spec(attention_weights, X, H, kinds={"X": "array", "heads": "heads", "causal": "flag", "kind": "choice"}),
    Spec(random_heads, 2, 3, kinds={"m": "size", "d": "size", "scale": "tol", "rng": "rng"}),
    Spec(boolean_inputs, 2, 3, 4, kinds={"N": "size", "n": "size", "d": "size", "rng": "rng"}),
    Spec(gaussian_inputs, 2, 3, 4, kinds={"N": "size", "n": "size", "d": "size", "rng": "rng"}),
    Spec(attnlib.Heads, np.zeros((1, 3, 3)), np.zeros((1, 3, 3)), kinds={"Theta": "array", "W": "array"}),
    Spec(squared_loss, X, Y, H, kinds={"X": "array", "Y": "array", "heads": "heads", "causal": "flag",
                                       "kind": "choice"}),
    Spec(loss_and_gradient, X, Y, H, kinds={"X": "array", "Y": "array", "heads": "heads", "causal": "flag",
                                            "kind": "choice"}),
    Spec(train, X, Y, 1, epochs=1, kinds={"X": "array", "Y": "array", "causal": "flag", "kind": "choice",
                                          "schedule": "choice", "epochs": "size", "lr": "tol", "init_scale": "tol",
                                          "batch_size": "optsize", "rng": "rng"}),
    Spec(interpolate, H, H, 0.5, kinds={"start": "heads", "end": "heads"}),
    Spec(loss_along_line, X, Y, H, H, [0.0, 1.0], kinds={"X": "array", "Y": "array", "start": "heads",
                                                        "end": "heads", "ts": "array", "causal": "flag",
                                                        "kind": "choice"}),
    Spec(partners, H, kinds={"heads": "heads", "kind": "choice", "rng": "rng"}),
    # rkhs (chapters 3-5)
    Spec(rkhs.cubic_features, XL, kinds={"X": "array", "causal": "flag"}),
    Spec(rkhs.kernel, XL[:3], XL[:2], kinds={"X": "array", "X2": "array"}),
    Spec(rkhs.n_features, 3, kinds={"d": "size"}),
    Spec(rkhs.parameter_map, H, kinds={"heads": "heads"}),
    Spec(rkhs.coefficient_matrix, C, kinds={"coef": "array"}),
    Spec(rkhs.heads_from_coef, C, kinds={"coef": "array", "rtol": "opttol", "max_heads": "optsize"}),
    Spec(rkhs.fit_linear_attention, XL, YLL, kinds={"X": "array", "Y": "array", "causal": "flag",
                                                     "steps": "optsize"}),
    Spec(rkhs.fit_linear_attention, XL, YLL, start=C, kinds={"start": "optarray"}),
    Spec(rkhs.certificate, XL, kinds={"X": "array", "causal": "flag"}),
    Spec(rkhs_exp.learning_curve, 2, 0.1, Ns=[20], N_test=20, kinds={"d": "size", "rng": "rng"}),
    # more of the core and of rkhs: sizes, arrays and choices of the remaining public functions
    Spec(rkhs.parameter_distance, H, H, kinds={"heads_a": "layer", "heads_b": "layer"}),
    Spec(rkhs_exp.heads_vs_regression, 2, N=8, n=3, heads=(1,), epochs=1, n_val=4,
         kinds={"d": "size", "N": "size", "n": "size", "seeds": "size", "epochs": "size", "lr": "tol",
                "batch_size": "optsize", "n_val": "size", "rng": "rng"}),
    Spec(rkhs_exp.identifiability_sweep, [0.5], N=64, steps=2, N_test=8,
         kinds={"N": "size", "m": "size", "steps": "size", "N_test": "size", "rng": "rng"}),
    # checkers: the learner's function must be callable
    *[Spec(getattr(checks, name), np.exp, kinds={"fn": "function"}) for name in checks.__all__
      if name.startswith("check_")],
    Spec(checks.check_cubic_features, rkhs.cubic_features, kinds={"causal": "flag"}),
]


def _views():
    """The chapters' views (viz, widgets): figures and explorers get the same checks."""
    from attnlib.viz import attention as viz_attention
    from attnlib.viz import lower_bounds as viz_lower_bounds
    from attnlib.viz import rkhs as viz_rkhs
    from attnlib.viz import sculpt as viz_sculpt
    from attnlib.viz import tasks as viz_tasks
    from attnlib.viz import training as viz_training
    from attnlib.widgets import attention as widgets_attention
    from attnlib.widgets import lower_bounds as widgets_lower_bounds
    from attnlib.widgets import rkhs as widgets_rkhs
    from attnlib.widgets import sculpt as widgets_sculpt
    from attnlib.widgets import tasks as widgets_tasks
    from attnlib.widgets import training as widgets_training

    curve = {"a": [1.0, 0.5, 0.25]}
    XB = boolean_inputs(120, 3, 4, rng=2)
    return [
        Spec(viz_training.plot_loss_curves, curve, kinds={"curves": "series", "logy": "flag"}),
        Spec(viz_training.plot_loss_along_line, [0.0, 0.5, 1.0], curve, kinds={"ts": "array", "losses": "series",
                                                                              "chords": "flag"}),
        Spec(viz_training.plot_errorbars, [1.0, 2.0, 3.0], curve, kinds={"x": "array", "means": "series",
                                                                        "logx": "flag", "logy": "flag"}),
        Spec(viz_rkhs.plot_learning_curve, [10.0, 20.0, 40.0], curve, psi=18,
             kinds={"Ns": "array", "errors": "series", "noise": "opttol"}),
        Spec(viz_lower_bounds.plot_weight_growth, [1.0, 2.0, 3.0], curve, kinds={"s_values": "array",
                                                                                "series": "series"}),
        Spec(viz_sculpt.plot_recovery, [10.0, 20.0, 40.0], curve, kinds={"x": "array", "errors": "series",
                                                                                    "xscale": "choice"}),
        Spec(viz_attention.plot_attention_maps, X[0], H, kinds={"X": "array", "heads": "heads", "causal": "flag",
                                                                "kind": "choice", "annotate": "flag"}),
        Spec(viz_attention.plot_sharpness, X[0], H, kinds={"X": "array", "heads": "heads"}),
        Spec(viz_tasks.plot_dfa_step, DFA, [0, 1, 1], kinds={"word": "intarray", "t": "index",
                                                                 "rows": "optsize"}),
        *_more_views(),
        Spec(widgets_attention.attention_explorer, X[0], H, kinds={"X": "array", "heads": "heads", "causal": "flag",
                                                                   "kind": "choice"}),
        Spec(widgets_training.loss_landscape_explorer, X, Y, H, kinds={"X": "array", "Y": "array",
                                                                       "teacher": "heads", "causal": "flag",
                                                                       "kind": "choice", "rng": "rng"}),
        Spec(widgets_rkhs.head_spectrum_explorer, kinds={"rng": "rng"}),
        Spec(widgets_rkhs.identifiability_explorer, kinds={"rng": "rng"}),
        Spec(widgets_rkhs.sample_size_explorer, kinds={"rng": "rng"}),
        Spec(widgets_sculpt.report_explorer, kinds={"d": "size", "n": "size", "m": "size", "rng": "rng"}),
        Spec(widgets_sculpt.single_head_explorer, kinds={"d": "size", "n": "size", "rng": "rng"}),
        Spec(widgets_sculpt.slice_explorer, kinds={"d": "size", "n": "size", "N": "size", "rng": "rng"}),
        Spec(widgets_lower_bounds.spectrum_explorer, kinds={"d": "size", "s": "size", "rng": "rng", "live": "flag"}),
        Spec(widgets_sculpt.body_explorer, XB, attention(XB, TEACHER), TEACHER, TEACHER.W.sum(0),
             kinds={"X": "array", "Y": "array", "heads": "heads", "sum_W": "array", "live": "flag"}),
        Spec(widgets_tasks.dfa_stepper, DFA, [0, 1, 1], kinds={"word": "intarray", "live": "flag"}),
    ]


from attnlib.rkhs import stack as rkhs_stack  # noqa: E402

PAR = lower_bounds.parity_instance(4, 1, rng=0)
PAR_SPECTRUM = lower_bounds.fourier_spectrum(PAR.heads)
ZP = lower_bounds.boolean_cube(1, 4)[:, 0]
CHI = np.prod(ZP[:, :2], axis=1)
MEM = am.sample_memories(8, 2, rng=0)
STACK = rkhs_stack.init_stack(2, rng=0)
XST = gaussian_inputs(8, 3, 2, rng=0)
YST = XST[::-1].copy()
CERTS = sculpt.certify(XS, YS, TEACHER.W.sum(0))
SPAN = sculpt.face_span(body, proxy, 2, rng=0)
TD = automata.transition_data(2, 3, 2, length=4, rng=0)
WORDS = automata.random_words(2, 4, 2, rng=0)
DFAS = [DFA, DFA]

MORE = [
    Spec(rkhs.noisy_label_bound, XL, np.full((40, 2), 0.1), 0.5, kinds={"X": "array", "noise": "array",
                                                                       "epsilon": "tol"}),
    Spec(rkhs.polynomial_certificate, rkhs.cubic_features(XL), kinds={"H": "array"}),
    Spec(rkhs.stopping_bound, XL, 0.5, kinds={"X": "array"}),
    Spec(rkhs.pairwise_bound, XL, YLL + 0.1, 0.5, kinds={"X": "array", "Y": "array", "epsilon": "tol"}),
    Spec(rkhs_exp.adam_on_memories, MEM, heads=(1,), epochs=1, kinds={"epochs": "size", "lr": "tol",
                                                                      "init_scale": "tol", "rng": "rng"}),
    Spec(rkhs_exp.heads_and_layers, 2, N=8, n=3, heads=(1,), layers=(2,), seeds=1, epochs=1, n_val=4,
         kinds={"d": "size", "N": "size", "n": "size", "seeds": "size", "epochs": "size", "lr": "tol",
                "batch_size": "size", "n_val": "size", "rng": "rng"}),
    Spec(rkhs_exp.minimisers_by_heads, MEM, heads=(1,), seeds=1, epochs=1, kinds={"seeds": "size", "epochs": "size",
                                                                                  "lr": "tol", "rng": "rng"}),
    Spec(rkhs_stack.init_stack, 2, kinds={"d": "size", "layers": "size", "heads": "size", "mlp": "flag",
                                          "hidden": "optsize", "scale": "tol", "rng": "rng"}),
    Spec(rkhs_stack.stack_forward, STACK, XST, kinds={"X": "array"}),
    Spec(rkhs_stack.stack_loss_and_gradient, STACK, XST, YST, kinds={"X": "array", "Y": "array"}),
    Spec(rkhs_stack.train_stack, XST, YST, epochs=1, kinds={"X": "array", "Y": "array", "layers": "size",
                                                          "heads": "size", "mlp": "flag", "epochs": "size",
                                                          "lr": "tol", "batch_size": "size", "rng": "rng"}),
]

NAMES_AND_STRUCTURES = [  # attribute names, write lists and programs of the Turing-machine compiler
    ("lookup(writes='ab')", lambda: turing.lookup("q", "k", "ab"), r"writes must be a sequence"),
    ("lookup(writes=[('a',)])", lambda: turing.lookup("q", "k", [("a",)]), r"writes must hold \(source, dest\)"),
    ("if_then(pairs=[(1, 2)])", lambda: turing.if_then("a", [(1, 2)], "k", "v", "o", 4), r"pairs must hold"),
    ("instruction(layout='x')", lambda: turing.instruction("x", []), r"layout must be a Layout"),
    ("instruction(ops=[1])", lambda: turing.instruction(LAYOUT, [1]), r"ops must hold Op objects"),
    ("run_program(program=[1])", lambda: turing.run_program(np.zeros((1, LAYOUT.d)), [1], LAYOUT),
     r"program must be a sequence of Heads"),
    ("round_token(layout=None)", lambda: turing.round_token([0.0], None), r"layout must be a Layout"),
    ("lookup(writes=[('a', 1)])", lambda: turing.lookup("q", "k", [("a", 1)]), r"writes must hold"),
    ("if_then(carry='ab')", lambda: turing.if_then("a", [], "k", "v", "o", 4, carry="ab"), r"carry must be"),
    ("Layout(blocks=[('a', 0)])", lambda: turing.Layout([("a", 0)]), r"size of block 'a' must be a positive"),
    ("Layout(blocks=3)", lambda: turing.Layout(3), r"blocks must be a sequence"),
    ("Layout.size('zz')", lambda: LAYOUT.size("zz"), r"name must be one of"),
    ("Layout.token(zz=0)", lambda: LAYOUT.token(zz=0), r"a block's name must be one of"),
    ("Layout.token(pos='a')", lambda: LAYOUT.token(pos="a"), r"pos must be an index or an array"),
    ("TuringMachine(delta=[])", lambda: turing.TuringMachine([], 2, 2), r"delta must be a dict"),
    ("execute(dfas='abc')", lambda: automata.execute("abc", WORDS), r"dfas must be a DFA or a list"),
    ("execute(dfas=[DFA, 1])", lambda: automata.execute([DFA, 1], WORDS), r"dfas\[1\] must be an"),
    ("evaluate(certificate=1)", lambda: automata.evaluate(automata.lookup_heads(2, 2), DFAS, WORDS, certificate=1),
     r"certificate must be an attnlib.rkhs.Certificate"),
    ("support(extra=1)", lambda: sculpt.support(body, np.eye(4), extra=1), r"extra must be a pair"),
    ("trimmed_sum_W(anchors=1)", lambda: sculpt.trimmed_sum_W(XS, YS, TEACHER.W.sum(0), anchors=1),
     r"anchors must be a pair"),
    ("measure_conditions(norm_window=(2, 1))", lambda: sculpt.measure_conditions(TEACHER, norm_window=(2.0, 1.0)),
     r"norm_window must be a pair \(low, high\) with low < high"),
    ("FourierSpectrum.coefficient(monomial=[1])", lambda: PAR_SPECTRUM.coefficient([1]), r"monomial must hold pairs"),
    ("fourier_spectrum(target=1)", lambda: lower_bounds.fourier_spectrum(1, d=2), r"target must be an attnlib.Heads"),
    ("PolishRuns(runs=())", lambda: sculpt.PolishRuns(TEACHER, 0.1, (), ()), r"runs and residuals must hold"),
    ("train_stack(X_val without Y_val)", lambda: rkhs_stack.train_stack(XST, YST, epochs=1, X_val=XST),
     r"X_val and Y_val must be given together"),
    ("stack_forward(stack=None)", lambda: rkhs_stack.stack_forward(None, XST), r"stack must be a Stack"),
    ("face_candidates(span=None)", lambda: sculpt.face_candidates(body, None, 2), r"span must be a Span"),
    ("certify_candidates(candidates of 3 axes)", lambda: sculpt.certify_candidates(XS, YS, TEACHER.Theta),
     r"candidates must have shape \(k, m, 4, 4\)"),
    ("sweep(scales=[0])", lambda: sculpt.sweep([0.0], [40]), r"scales must be positive"),
    ("slice_curve(quantiles=[2])", lambda: sculpt.slice_curve(XS, YS, proxy, TEACHER.W.sum(0), [2.0]),
     r"quantiles must lie in \(0, 1\]"),
]


@pytest.mark.parametrize(("label", "call", "pattern"), NAMES_AND_STRUCTURES, ids=[c[0] for c in NAMES_AND_STRUCTURES])
def test_names_and_structures_are_checked(label, call, pattern):
    with pytest.raises((TypeError, ValueError), match=pattern):
        call()


def _more_views():
    """The figures of chapters 3-10 that draw result objects: the data of tests/viz/_examples.py, corrupted."""
    from attnlib.rkhs.experiments import Sweep
    from attnlib.viz import lower_bounds as vl
    from attnlib.viz import rkhs as vr
    from attnlib.viz import sculpt as vs
    from attnlib.viz import tasks as vt

    spectrum = lower_bounds.fourier_spectrum(lower_bounds.parity_instance(4, 1, rng=0).heads)
    gd = lower_bounds.gd_experiment(4, 1, N=16, N_test=16, epochs=1, rng=0)
    certs = {"Gaussian": rkhs.certificate(XL)}
    sweep = Sweep(np.linspace(0, 1, 3), np.array([0.0, 2.0**-6, 2.0**-3]), np.array([30, 36, 36]),
                  {"exact": np.array([0.6, 1e-13, 1e-15])}, {"exact": np.array([0.08, 1e-28, 1e-30])}, 100)
    levels = np.geomspace(1e-4, 1e-1, 4)
    from attnlib.sculpt.diagnostics import Geometry, LayerErrors, PhaseDiagnostics, SumWErrors

    diag = PhaseDiagnostics(SumWErrors(crude=0.3, final=1e-9), Geometry(), LayerErrors(face=0.2, final=1e-10),
                            sculpt.PhaseSeconds())
    errors = {"sculpt": np.array([1e-9, 1e-8]), "adam": np.array([0.1, 0.2])}
    return [
        Spec(vl.plot_fourier_spectrum, spectrum, kinds={"spectrum": "object", "threshold": "tol"}),
        Spec(vl.plot_regression_errors, {1: [0, 1, 2]}, {1: [2.0, 1.0, 0.1]}, kinds={"degrees": "mapping",
                                                                                     "test_mse": "mapping"}),
        Spec(vl.plot_gd_runs, {"s = 1": gd}, kinds={"runs": "results"}),
        Spec(vr.plot_head_spectrum, {"1 head": random_heads(1, 4, rng=0)}, kinds={"layers": "mapping"}),
        Spec(vr.plot_heads_vs_regression, {"d = 2": ({"1 head": np.exp(-np.arange(5.0))}, 0.01)},
             kinds={"panels": "mapping"}),
        Spec(vr.plot_spectra, certs, kinds={"certificates": "results"}),
        Spec(vr.plot_identifiability, sweep, kinds={"sweep": "object", "log_distance": "flag"}),
        Spec(vr.plot_bound_check, [1e-6, 1e-4], [1e-5, 1e-3], kinds={"actual": "array", "bound": "array"}),
        Spec(vr.plot_noise_bound, levels, levels**2, 10 * levels**2, kinds={"levels": "array", "observed": "array",
                                                                           "bound": "array"}),
        Spec(vs.plot_body_slices, [body], TEACHER, kinds={"heads": "heads"}),
        Spec(vs.plot_slice_threshold, [0.01, 0.1], {"proxy": [1e-2, 1e-1]}, kinds={"quantiles": "array",
                                                                                  "errors": "series"}),
        Spec(vs.plot_phase_report, diag, kinds={"diagnostics": "object"}),
        Spec(vs.plot_method_comparison, errors, {"sculpt": [1.0, 2.0], "adam": [3.0, 4.0]},
             kinds={"errors": "series", "seconds": "series", "success": "tol"}),
        Spec(vs.plot_sweep, [0.5, 8.0], [500, 1500], {"sculpt": np.ones((2, 2))},
             kinds={"scales": "array", "sizes": "array", "success": "mapping"}),
        Spec(vt.plot_tm_run, turing.run(BB, [0] * 5, 2, 2), kinds={"run": "object"}),
    ]


DECLARED = _declared_specs()
TABLE = [case for spec in SPECS + MORE + _views() + DECLARED for case in spec.cases()]
DECLARED_PACKAGES = ("sculpt", "lower_bounds", "tasks")


def public_callables() -> list:
    """Every public function, class and method of sculpt, lower_bounds and tasks: (name, object).

    Public: listed in the ``__all__`` of the package or of a public module, or defined in a public
    module without ``__all__``; methods: the public functions of a public class.
    """
    import importlib
    import pkgutil

    found = {}
    for package in (importlib.import_module(f"attnlib.{name}") for name in DECLARED_PACKAGES):
        modules = [package] + [importlib.import_module(f"{package.__name__}.{info.name}")
                               for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_")]
        for module in modules:
            listed = getattr(module, "__all__", None)
            for name in listed or [n for n in vars(module) if not n.startswith("_")]:
                obj = getattr(module, name)
                if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                    continue
                if obj.__module__ != module.__name__ and not (listed and obj.__module__.startswith(package.__name__)):
                    continue  # imported from elsewhere (a deprecated alias lives in attnlib._deprecated)
                found.setdefault(id(obj), (f"{obj.__module__}.{obj.__qualname__}", obj))
                if inspect.isclass(obj):
                    for attr, member in vars(obj).items():
                        if not attr.startswith("_") and inspect.isfunction(member):
                            found.setdefault(id(member), (f"{obj.__module__}.{member.__qualname__}", member))
    return sorted(found.values(), key=lambda pair: pair[0])


def _arguments_of(obj) -> set:
    return {name for name in inspect.signature(obj).parameters if name != "self"}


def test_every_public_function_of_the_declared_packages_declares_every_argument():
    undeclared = {name: sorted(_arguments_of(obj) - set(declared(obj))) for name, obj in public_callables()
                  if _arguments_of(obj) - set(declared(obj))}
    assert not undeclared, f"arguments without a declared kind: {undeclared}"


def test_every_public_function_of_the_declared_packages_is_in_the_table():
    """The generated table reaches them all, results objects and methods included."""
    in_table = {getattr(spec.func, "__func__", spec.func) for spec in DECLARED}
    missing = [name for name, obj in public_callables() if _arguments_of(obj) and obj not in in_table]
    assert not missing, f"public functions with arguments but no valid call in DECLARED: {missing}"
    assert len(public_callables()) > 150


def test_declared_table_size_per_package():
    """The generated cases, per package (the bad values of each declared argument's kind)."""
    sizes = {name: sum(1 for case in TABLE if isinstance(case.values[0], Declared)
                       and case.values[0].name.startswith(name + ".")) for name in DECLARED_PACKAGES}
    assert sizes["sculpt"] >= 2400 and sizes["lower_bounds"] >= 650 and sizes["tasks"] >= 700, sizes


@pytest.mark.parametrize(("spec", "param", "value", "exc"), TABLE)
def test_bad_argument_is_named(spec, param, value, exc):
    """The table: each bad argument raises the expected type, and the message names the argument."""
    with pytest.raises(exc, match=rf"(?<![A-Za-z_]){re.escape(param)}(?![A-Za-z_])"):
        spec.call_with(param, value)


def test_table_size_and_categories():
    """At least as many cases as the issue's first pass (about 940), every kind represented."""
    kinds = {kind for spec in SPECS + MORE + _views() for kind in spec.kinds.values()}
    assert kinds == {"array", "optarray", "intarray", "index", "layer", "series", "flag", "size",
                     "optsize", "rng", "tol", "opttol", "choice", "heads", "function", "object", "mapping", "results"}
    families = {kind.family for spec in DECLARED for kind in spec.kinds.values()}
    assert families == {"array", "cube", "floats", "intarray", "mask", "sizes", "size", "count", "index", "tol",
                        "interval", "score", "real", "flag", "rng", "heads", "choice", "names", "text", "object",
                        "structure"}, families
    assert len(TABLE) + len(REPRODUCERS) + len(NAMES_AND_STRUCTURES) >= 940


# ---------------------------------------------------------------------------
# the reproducers, each with the argument its error must name
# (setup: X = boolean_inputs(6, 3, 4, rng=1); H = random_heads(2, 4, rng=0))
# ---------------------------------------------------------------------------
FLAG_CALLS = {
    "attention": lambda v: attention(X, H, causal=v),
    "attention_weights": lambda v: attention_weights(X, H, causal=v),
    "train": lambda v: train(X, Y, 1, causal=v, epochs=1),
    "squared_loss": lambda v: squared_loss(X, Y, H, causal=v),
    "loss_and_gradient": lambda v: loss_and_gradient(X, Y, H, causal=v),
    "fit_linear_attention": lambda v: rkhs.fit_linear_attention(XL, YLL, causal=v),
    "certificate": lambda v: rkhs.certificate(XL, causal=v),
    "cubic_features": lambda v: rkhs.cubic_features(XL, causal=v),
    "sample_memories": lambda v: am.sample_memories(4, 3, unit_norm=v),
    "learn": lambda v: sculpt.learn(XS, YS, 2, polish=v),
}

REPRODUCERS = [
    ("softmax(None)", lambda: softmax(None), TypeError, r"S must be .*received None"),
    *[(f"{name}(flag={text!r})", functools.partial(f, text), TypeError,
       r"(causal|polish|unit_norm) must be True or False; received '(True|False)' \(str\)")
      for name, f in FLAG_CALLS.items() for text in ("False", "True")],
    ("softmax(complex)", lambda: softmax(np.array([1 + 2j, 3])), TypeError, r"S must be real; received a complex"),
    ("attention(complex X)", lambda: attention(X + 0j, H), TypeError, r"X must be real"),
    ("certificate(complex X)", lambda: rkhs.certificate(XL + 1j), TypeError, r"X must be real"),
    ("random_heads(rng='abc')", lambda: random_heads(2, 3, rng="abc"), TypeError, r"rng must be None, an integer"),
    ("random_heads(m=2.5, rng='abc'): sizes first", lambda: random_heads(2.5, 3, rng="abc"), TypeError,
     r"^m must be a positive integer"),
    ("train(init_scale=0)", lambda: train(X, Y, 1, init_scale=0), ValueError, r"init_scale must be"),
    ("fit_linear_attention(start='abc')", lambda: rkhs.fit_linear_attention(XL, YLL, start="abc"), TypeError,
     r"^start must be"),
    ("softmax([])", lambda: softmax([]), ValueError, r"S must be non-empty"),
    ("sculpt.learn(X, Y, 20) with m > d**2", lambda: sculpt.learn(X, Y, 20), ValueError, r"m must be at most d\*\*2"),
    ("heads_from_coef(rtol=nan)", lambda: rkhs.heads_from_coef(rkhs.parameter_map(H), rtol=float("nan")),
     ValueError, r"rtol must be a finite positive"),
    ("turing.run(head=2.0)", lambda: turing.run(BB, [0] * 5, 2.0, 2), TypeError, r"head must be an integer"),
    ("TuringMachine keyed by a float", lambda: turing.TuringMachine({(0.0, 0): (1, 1, 1)}, 2, 2), TypeError,
     r"delta must map pairs of ints"),
    ("n_features(2.5)", lambda: rkhs.n_features(2.5), TypeError, r"d must be a positive integer"),
    ("random_span(eye(3), 20)", lambda: sculpt.random_span(np.eye(3), 20), ValueError, r"m must be at most d\*\*2 = 9"),
    ("measure_conditions(norm_window=(1,))", lambda: sculpt.measure_conditions(TEACHER, norm_window=(1,)),
     ValueError, r"norm_window must be a pair"),
    ("fit_W with all-zero labels", lambda: sculpt.fit_W(XS, np.zeros_like(YS), TEACHER.Theta), ValueError,
     r"Y is all zero"),
    ("polish with all-zero labels", lambda: sculpt.polish(XS, np.zeros_like(YS), TEACHER), ValueError,
     r"Y is all zero"),
    ("atom_score with a zero sum_W", lambda: sculpt.atom_score(XS, YS, np.zeros((4, 4))), ValueError,
     r"sum_W maps most tokens to zero"),
    ("relative_test_error with all-zero labels", lambda: sculpt.relative_test_error(TEACHER, XS, np.zeros_like(YS)),
     ValueError, r"Y_test is all zero"),
    ("linear attention whose logits overflow", lambda: attention(np.full((3, 4), 1e160), H, kind="linear"),
     ValueError, r"largest \|X\| entry"),
    ("cubic features that overflow", lambda: rkhs.cubic_features(XL * 1e120), ValueError,
     r"cubic features of X overflow"),
    ("DFA accepting of strings", lambda: automata.DFA([[0]], accepting=["yes"]), TypeError, r"accepting must be"),
    ("fresh_dfas(exclude=[not a DFA])", lambda: automata.fresh_dfas(1, 2, 1, exclude=[np.zeros((2, 1))]), TypeError,
     r"exclude must hold DFAs"),
    # issue 28: errors that escaped from inside, or named an internal variable
    ("min_norm_proxy('body')", lambda: sculpt.min_norm_proxy("body"), TypeError, r"^body must be a Body"),
    ("halfspaces(X, 'cert')", lambda: sculpt.halfspaces(XS, "cert"), TypeError,
     r"^certificates must be a Certificates"),
    ("a Certificates whose example is out of range", lambda: sculpt.halfspaces(
        XS, sculpt.Certificates([999], [0], [0], [0.0], 1.0, 3000)), ValueError, r"certificates index example 999"),
    ("a Certificates whose example is not an integer", lambda: sculpt.Certificates([0.5], [0], [0], [0.0], 1.0, 3),
     TypeError, r"^example must be integers"),
    ("lbfgs_restarts on all-zero labels", lambda: sculpt.lbfgs_restarts(XS, np.zeros_like(YS), 2), ValueError,
     r"^Y is all zero"),
    ("planted_instance(2, 4, shared='a')", lambda: sculpt.planted_instance(2, 4, shared="a"), TypeError,
     r"^shared must be a real number in \[0, 1\)"),
    ("best_scale(..., scales=[])", lambda: sculpt.best_scale(XS, YS, TEACHER.Theta, scales=[]), ValueError,
     r"^scales must be a non-empty list"),
    ("learn(X, zeros, 2)", lambda: sculpt.learn(XS, np.zeros_like(YS), 2), ValueError, r"^Y is all zero"),
    # issue 28: results that were silently wrong
    ("fit_W with zero heads", lambda: sculpt.fit_W(XS, YS, np.zeros((0, 4, 4))), ValueError,
     r"Theta must have shape \(m, 4, 4\) with m >= 1"),
    ("refine_sum_W with zero labels", lambda: sculpt.refine_sum_W(XS, np.zeros_like(YS), proxy), ValueError,
     r"^Y is all zero"),
    ("certify with a zero estimate", lambda: sculpt.certify(XS, YS, np.zeros((4, 4))), ValueError,
     r"^sum_W gives atoms x\^T S of median norm 0"),
    ("random_span on a zero proxy", lambda: sculpt.random_span(np.zeros((4, 4)), 2), ValueError,
     r"^proxy is the zero matrix"),
    ("net_candidates with more heads than the span holds", lambda: sculpt.net_candidates(span, 3), ValueError,
     r"^m must be at most the span's dimension 2"),
    ("face_candidates with more heads than the span holds", lambda: sculpt.face_candidates(body, SPAN, 3),
     ValueError, r"^m must be at most the span's dimension 2"),
    ("residual_jacobian of X and heads of other d", lambda: sculpt.residual_jacobian(
        XS[:3, :, :3].tolist(), TEACHER.Theta, TEACHER.W), ValueError, r"d=3"),
    ("Body(gamma=nan)", lambda: sculpt.Body(np.eye(2)[None], gamma=np.nan, bound=None, certified=1), ValueError,
     r"^gamma must be a finite positive number"),
    ("span_alignment with a zero head", lambda: sculpt.span_alignment(SPAN, np.zeros((2, 4, 4))), ValueError,
     r"Theta\[0\] is zero"),
    ("parity_by_elimination on entries off the cube", lambda: lower_bounds.parity_by_elimination(ZP * 0.5, CHI),
     ValueError, r"^Z must have entries \+1 or -1"),
    ("truncation_error(-1)", lambda: PAR_SPECTRUM.truncation_error(-1), ValueError,
     r"^degree must be an integer >= 0"),
    ("TuringMachine.step with a negative head", lambda: BB.step(0, -1, [0] * 5), ValueError,
     r"^head must be an integer >= 0"),
    ("TuringMachine.step in a halting state", lambda: BB.step(2, 0, [0] * 5), ValueError,
     r"^state must be a live state"),
    ("estimate_sum_W on all-zero labels", lambda: sculpt.estimate_sum_W(XS, np.zeros_like(YS)), ValueError,
     r"^Y is all zero"),
    ("low_degree_regression with labels near 1e300", lambda: lower_bounds.low_degree_regression(
        ZP[:, None, :], CHI * 1e300, 1), ValueError, r"overflow float64 \(labels y too large\)"),
    ("execute with weights near 1e308", lambda: automata.execute(DFAS, WORDS, attnlib.Heads(
        automata.lookup_heads(2, 2).Theta * 1e308, automata.lookup_heads(2, 2).W * 1e308)), ValueError,
     r"outputs overflow float64"),
]


@pytest.mark.parametrize(("label", "call", "exc", "pattern"), REPRODUCERS, ids=[r[0] for r in REPRODUCERS])
def test_reproducer_raises_naming_the_argument(label, call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


# ---------------------------------------------------------------------------
# reproducers that must now return the right answer
# ---------------------------------------------------------------------------


def test_attention_of_huge_finite_input_is_rescaled():
    """attention(np.full((3, 4), 1e160), H) was all NaN; the softmax sees only logit differences."""
    F = attention(np.full((3, 4), 1e160), H)
    assert np.isfinite(F).all()
    # every token is equal, so every weight is 1/3 and F = x W summed over heads, scaled by 1e160
    expected = np.full((3, 4), 1.0) @ H.W.sum(axis=0)
    np.testing.assert_allclose(F / 1e160, expected, rtol=1e-12)


def test_attention_rescaling_agrees_with_saturated_softmax():
    Xg = gaussian_inputs(3, 4, 4, rng=7)
    for causal in (False, True):
        big = attention(Xg * 1e160, H, causal=causal) / 1e160
        # at scale 1e6 the softmax is already one-hot, as it is at 1e160
        moderate = attention(Xg * 1e6, H, causal=causal) / 1e6
        np.testing.assert_allclose(big, moderate, rtol=1e-9, atol=1e-12)
        A = attention_weights(Xg * 1e160, H, causal=causal)
        np.testing.assert_allclose(A.sum(axis=-1), 1.0)



@pytest.mark.parametrize("c", [1e60, 1e-60, 1e150, 1e-100])
def test_certificate_is_scale_invariant(c):
    """certificate(XL * 1e60) raised LinAlgError and certificate(XL * 1e-60) said rank 0."""
    plain = rkhs.certificate(XL)
    scaled = rkhs.certificate(XL * c)
    assert scaled.identifiable and scaled.rank == plain.rank == scaled.psi
    assert scaled.scale != 1.0
    # the eigenvalues are those of XL * c / scale, i.e. plain's times (c / scale)**6
    np.testing.assert_allclose(scaled.eigenvalues, plain.eigenvalues * (c / scale_of(scaled)) ** 6, rtol=1e-8)
    assert "of X /" in repr(scaled)


def scale_of(cert):
    return cert.scale


def test_certificate_of_ordinary_data_is_not_rescaled():
    cert = rkhs.certificate(XL)
    assert cert.scale == 1.0 and "of X /" not in repr(cert)


def test_singular_data_stay_singular_at_every_scale():
    Xb = boolean_inputs(200, 5, 2, rng=0)
    for c in (1.0, 1e60, 1e-60):
        cert = rkhs.certificate(Xb * c)
        assert not cert.identifiable and cert.rank == 4


@pytest.mark.parametrize("c", [1e60, 1e-60])
def test_fit_handles_the_scales_the_certificate_handles(c):
    """The fit, too, divides X by a power of two: the same solver and loss as at scale 1."""
    plain = rkhs.fit_linear_attention(XL, YLL)
    fit = rkhs.fit_linear_attention(XL * c, YLL)
    assert fit.solver == plain.solver and np.isfinite(fit.coef).all()
    np.testing.assert_allclose(fit.predict(XL * c), YLL, atol=1e-9)
    np.testing.assert_allclose(fit.coef * c**3, plain.coef, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("c", [1e120, 1e-120])
def test_fit_whose_coefficients_do_not_fit_in_float64_names_X(c):
    with pytest.raises(ValueError, match=r"coefficients for data X of this size do not fit in float64"):
        rkhs.fit_linear_attention(XL * c, YLL)


def test_train_on_targets_whose_loss_overflows_names_Y():
    """Targets near 1e180: the loss (quadratic) is not representable; an error names Y, not the learning rate."""
    with pytest.raises(ValueError, match=r"overflows float64 \(X has entries up to 1, Y up to 1(\.\d+)?e\+180"):
        train(X, Y * 1e180 / np.abs(Y).max(), 1, epochs=2)


def test_conditions_of_one_head_say_the_separation_is_vacuous():
    one = sculpt.planted_instance(1, 4, rng=0)
    cond = sculpt.measure_conditions(one)
    assert cond.separation == np.inf and cond.ok
    assert "separation=n/a (one head)" in repr(cond)
    assert "separation=inf" not in repr(cond)


def test_a_loss_that_overflows_names_its_inputs():
    with pytest.raises(ValueError, match="squared loss of X, Y and heads overflows"):
        squared_loss(X * 1e200, Y, H)
    with pytest.raises(ValueError, match="squared loss of X, Y and heads overflows"):
        loss_and_gradient(X * 1e200, Y, H)
    assert np.isfinite(squared_loss(X * 1e100, Y, H))


def test_kernel_and_parameter_map_overflow_name_their_input():
    with pytest.raises(ValueError, match="kernel of X and X2 overflows"):
        rkhs.kernel(XL * 1e60, XL * 1e60)
    big = attnlib.Heads(H.Theta * 1e200, H.W * 1e200)
    with pytest.raises(ValueError, match="coefficients of heads overflow"):
        rkhs.parameter_map(big)




# ---------------------------------------------------------------------------
# valid edge cases: the right answer
# ---------------------------------------------------------------------------


def test_flags_accept_numpy_booleans():
    np.testing.assert_array_equal(attention(X, H, causal=np.bool_(True)), attention(X, H, causal=True))
    assert rkhs.certificate(XL, causal=np.False_).identifiable


def test_rng_accepts_none_int_numpy_int_and_generator():
    a = random_heads(2, 3, rng=5)
    b = random_heads(2, 3, rng=np.int64(5))
    c = random_heads(2, 3, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.Theta, b.Theta)
    np.testing.assert_array_equal(a.Theta, c.Theta)
    assert random_heads(2, 3, rng=None).m == 2


def test_sizes_accept_numpy_integers():
    assert boolean_inputs(np.int64(2), np.int32(3), np.uint8(4), rng=0).shape == (2, 3, 4)


def test_softmax_edge_cases():
    np.testing.assert_array_equal(softmax([5.0]), [1.0])
    np.testing.assert_allclose(softmax([-np.inf, 0.0]), [0.0, 1.0])
    np.testing.assert_allclose(softmax([1e308, -1e308]), [1.0, 0.0])
    np.testing.assert_allclose(softmax(np.array([[1, 2]], dtype=np.int64), axis=0), [[1.0, 1.0]])
    np.testing.assert_allclose(softmax(np.array([True, False])), [np.e / (1 + np.e), 1 / (1 + np.e)])
    with pytest.raises(ValueError, match="axis must lie in"):
        softmax([1.0, 2.0], axis=1)
    with pytest.raises(TypeError, match="axis must be an integer"):
        softmax([1.0, 2.0], axis=0.0)



# ---------------------------------------------------------------------------
# checkers: no hang, messages a learner understands
# ---------------------------------------------------------------------------


@pytest.fixture
def short_timeout(monkeypatch):
    monkeypatch.setattr(check_core, "CASE_TIMEOUT", 0.3)


def test_a_function_that_loops_forever_fails_the_check(short_timeout):
    def loops(S):
        while True:
            pass

    start = time.perf_counter()
    with pytest.raises(CheckFailure, match="did not finish within 0.3 s"):
        checks.check_softmax(loops)
    assert time.perf_counter() - start < 5


def test_a_loop_that_swallows_exceptions_is_still_stopped(short_timeout):
    def stubborn(S):
        while True:
            try:
                while True:
                    pass
            except Exception:  # the timeout is a BaseException: not caught here
                pass

    with pytest.raises(CheckFailure, match="did not finish"):
        checks.check_softmax(stubborn)


def test_timeout_off_the_main_thread_falls_back_to_a_thread(short_timeout):
    stop = threading.Event()

    def loops(S):
        while not stop.is_set():
            pass

    out = {}

    def worker():
        try:
            checks.check_softmax(loops)
        except CheckFailure as err:
            out["message"] = str(err)

    t = threading.Thread(target=worker)
    t.start()
    t.join(10)
    stop.set()
    assert "still running in a background thread" in out["message"]


def test_timeout_restores_the_previous_alarm_handler(short_timeout):
    import signal

    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(CheckFailure):
        checks.check_softmax(lambda S: None)
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_none_is_reported_as_none():
    with pytest.raises(CheckFailure, match="your function returned None"):
        checks.check_softmax(lambda S: None)


def test_float32_answer_shows_its_relative_error():
    def f32(S):
        return softmax(S).astype(np.float32)

    with pytest.raises(CheckFailure, match=r"relative error .*Your answer is float32"):
        checks.check_softmax(f32)


def test_complex_answer_is_refused():
    with pytest.raises(CheckFailure, match="is complex"):
        checks.check_softmax(lambda S: softmax(S) + 0j)


def test_nan_in_a_returned_table_is_a_check_failure():
    from attnlib.tasks import automata as am_

    def nan_table(dfa):
        T = am_.table_tokens(dfa)
        T = np.hstack([T, np.zeros((len(T), 1))])
        T[0, 0] = np.nan
        return T, (np.zeros((1, T.shape[1], T.shape[1])), np.zeros((1, T.shape[1], T.shape[1])))

    with pytest.raises(CheckFailure, match="T contains nan or inf"):
        checks.check_accepting_lookup(nan_table)


def test_a_failure_while_reading_the_answer_is_a_check_failure():
    class Weird(tuple):
        def __len__(self):
            raise RuntimeError("boom")

    with pytest.raises(CheckFailure, match="could not be evaluated: RuntimeError: boom"):
        checks.check_accepting_lookup(lambda dfa: Weird((1, 2)))


# ---------------------------------------------------------------------------
# properties (hypothesis)
# ---------------------------------------------------------------------------
finite = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=1, max_size=8))
def test_softmax_of_finite_logits_is_a_distribution(logits):
    p = softmax(logits)
    assert np.isfinite(p).all() and abs(p.sum() - 1) < 1e-12 and (p >= 0).all()


@settings(max_examples=40, deadline=None)
@given(st.floats(-300, 300), st.integers(0, 2**16))
def test_softmax_attention_is_finite_at_every_scale(log_scale, seed):
    Xg = gaussian_inputs(2, 3, 4, rng=seed) * 10.0 ** (log_scale / 2)
    F = attention(Xg, H)
    assert np.isfinite(F).all()
    np.testing.assert_allclose(attention_weights(Xg, H).sum(axis=-1), 1.0)


@settings(max_examples=40, deadline=None)
@given(st.floats(-90, 90), st.integers(0, 2**16))
def test_certificate_verdict_is_scale_invariant(log_scale, seed):
    Xg = gaussian_inputs(30, 4, 2, rng=seed)
    assert rkhs.certificate(Xg * 10.0**log_scale).rank == rkhs.certificate(Xg).rank



flag_like = st.one_of(st.text(max_size=5), st.integers(), st.floats(), st.none(), st.lists(st.booleans(), max_size=2))


@settings(max_examples=60, deadline=None)
@given(flag_like)
def test_only_booleans_are_flags(value):
    with pytest.raises(TypeError, match="causal must be True or False"):
        attention(X, H, causal=value)


rng_like = st.one_of(st.text(max_size=5), st.floats(), st.booleans(), st.integers(max_value=-1),
                     st.lists(st.integers(0, 5), max_size=2))


@settings(max_examples=60, deadline=None)
@given(rng_like)
def test_bad_rng_is_named(value):
    with pytest.raises((TypeError, ValueError), match="rng must be None, an integer seed"):
        boolean_inputs(2, 2, 2, rng=value)


size_like = st.one_of(st.floats(), st.booleans(), st.integers(max_value=0), st.text(max_size=3), st.none())


@settings(max_examples=60, deadline=None)
@given(size_like)
def test_bad_sizes_are_named(value):
    with pytest.raises((TypeError, ValueError), match="^d must be a positive integer"):
        random_heads(2, value)


# ---------------------------------------------------------------------------
# the reproducers, under the names they have now
# ---------------------------------------------------------------------------


def test_reproducers_raise_named_errors():
    with pytest.raises(ValueError, match="norm_window must be a pair"):
        sculpt.measure_conditions(TEACHER, norm_window=(1,))
    with pytest.raises(TypeError, match="delta must be a positive number"):
        sculpt.carve(XS, YS, delta="big")
    np.testing.assert_array_equal(fourier.walsh_hadamard(np.ones(4) * 1e308), [1e308, 0, 0, 0])


def test_a_series_of_the_wrong_length_is_named():
    from attnlib.viz import training as viz_training

    with pytest.raises(ValueError, match=r"losses\['a'\] must have shape \(3,\)"):
        viz_training.plot_loss_along_line([0.0, 0.5, 1.0], {"a": [1.0]})
