"""Every public name that worked before the reorganisation still works from its old path.

``OLD_API`` lists, for every public module path of the flat layout (commit 48196ed), the names
it offered. A path that moved must warn ``DeprecationWarning`` and hand back the very object
that now lives at its new home; a path that still exists must not warn.
"""

import importlib
import sys
import warnings

import pytest

import attnlib
from attnlib._deprecated import MOVED_MODULES

OLD_API = {
    "attnlib": [
        "Heads",
        "TrainResult",
        "attention",
        "attention_weights",
        "boolean_inputs",
        "gaussian_inputs",
        "interpolate",
        "loss_along_line",
        "loss_and_gradient",
        "partners",
        "random_heads",
        "softmax",
        "squared_loss",
        "train",
    ],
    "attnlib._coefficients": ["coefficient_matrix", "heads_from_coef", "parameter_distance", "parameter_map"],
    "attnlib.attention": ["KINDS", "attention", "attention_weights", "softmax"],
    "attnlib.boolean_fourier": [
        "FourierSpectrum",
        "LowDegreeCurve",
        "LowDegreeFit",
        "MAX_CUBE_VARIABLES",
        "boolean_cube",
        "feature_count",
        "fourier_spectrum",
        "low_degree_curve",
        "low_degree_regression",
        "monomial_features",
        "walsh_hadamard",
    ],
    "attnlib.checks": [
        "CheckFailure",
        "check_accepting_lookup",
        "check_attention_head",
        "check_cubic_features",
        "check_fit_W",
        "check_fit_coefficients",
        "check_gradient_descent",
        "check_halfspaces",
        "check_heads_from_coef",
        "check_kernel",
        "check_linear_attention",
        "check_linear_attention_gradient",
        "check_logit_gaps",
        "check_parameter_map",
        "check_parity_coefficients",
        "check_parity_learner",
        "check_second_moment",
        "check_softmax",
        "check_softmax_jacobian",
        "check_walsh_hadamard",
        "check_weight_by_degree",
    ],
    "attnlib.checks.attention": [
        "check_attention_head",
        "check_linear_attention",
        "check_softmax",
        "check_softmax_jacobian",
    ],
    "attnlib.checks.automata": ["check_accepting_lookup"],
    "attnlib.checks.boolean_fourier": ["check_walsh_hadamard", "check_weight_by_degree"],
    "attnlib.checks.lower_bounds": ["check_parity_coefficients", "check_parity_learner"],
    "attnlib.checks.rkhs": [
        "check_cubic_features",
        "check_fit_coefficients",
        "check_heads_from_coef",
        "check_kernel",
        "check_parameter_map",
        "check_second_moment",
    ],
    "attnlib.checks.sculpt": ["check_fit_W", "check_halfspaces", "check_logit_gaps"],
    "attnlib.checks.training": ["check_gradient_descent", "check_linear_attention_gradient"],
    "attnlib.experiments_linear": ["HeadsRace", "adam_on_memories", "heads_vs_regression", "learning_curve"],
    "attnlib.heads": ["Heads", "random_heads"],
    "attnlib.inputs": ["boolean_inputs", "gaussian_inputs"],
    "attnlib.landscape": ["interpolate", "loss_along_line", "partners"],
    "attnlib.lower_bounds": [
        "FourierSpectrum",
        "GDRun",
        "LowDegreeCurve",
        "LowDegreeFit",
        "ParityInstance",
        "boolean_cube",
        "decode_parity_examples",
        "feature_count",
        "fourier_spectrum",
        "gd_experiment",
        "low_degree_curve",
        "low_degree_regression",
        "monomial_features",
        "parity_betas",
        "parity_by_elimination",
        "parity_by_enumeration",
        "parity_coefficients",
        "parity_heads",
        "parity_instance",
        "sq_correlations",
        "sq_dimension",
        "sq_query_lower_bound",
        "walsh_hadamard",
    ],
    "attnlib.parities": ["parity_by_elimination", "parity_by_enumeration"],
    "attnlib.rkhs": [
        "Certificate",
        "LinearFit",
        "certificate",
        "coefficient_matrix",
        "cubic_features",
        "fit_linear_attention",
        "heads_from_coef",
        "kernel",
        "n_features",
        "parameter_distance",
        "parameter_map",
    ],
    "attnlib.sculpt": [
        "Body",
        "Certificates",
        "Conditions",
        "METHODS",
        "SculptError",
        "SculptResult",
        "Span",
        "all_tokens",
        "atom_residuals",
        "atom_score",
        "best_scale",
        "body_slice",
        "certify",
        "certify_candidates",
        "check_conditions",
        "check_feasible",
        "compare_methods",
        "constant_sequences",
        "constant_sum_W",
        "crude_sum_W",
        "estimate_sum_W",
        "face_candidates",
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
        "relative_test_error",
        "residual_jacobian",
        "sculpt",
        "sculpt_body",
        "slice_curve",
        "span_alignment",
        "spectral_span",
        "support",
        "sweep",
        "trimmed_sum_W",
    ],
    "attnlib.sculpt.body": [
        "Body",
        "Certificates",
        "body_slice",
        "certify",
        "check_feasible",
        "halfspaces",
        "prune",
        "sculpt_body",
        "support",
    ],
    "attnlib.sculpt.candidates": [
        "best_scale",
        "certify_candidates",
        "face_candidates",
        "fit_W",
        "net_candidates",
        "refine_in_span",
    ],
    "attnlib.sculpt.compare": ["METHODS", "compare_methods", "relative_test_error", "sweep"],
    "attnlib.sculpt.diagnostics": ["phase_diagnostics", "single_head_curve", "slice_threshold_data"],
    "attnlib.sculpt.hypercube": [
        "all_tokens",
        "constant_sequences",
        "fourth_moment",
        "gap_feature",
        "gap_feature_rank",
        "logit_gaps",
    ],
    "attnlib.sculpt.instances": [
        "Conditions",
        "MAX_GRAM_CONDITION",
        "MAX_SUM_W_CONDITION",
        "MIN_NORM_RATIO",
        "MIN_SEPARATION",
        "NORM_WINDOW",
        "check_conditions",
        "min_norm_point",
        "planted_instance",
    ],
    "attnlib.sculpt.local": ["lbfgs_restarts", "polish", "polish_from_random", "residual_jacobian"],
    "attnlib.sculpt.phases": [
        "atom_residuals",
        "atom_score",
        "constant_sum_W",
        "crude_sum_W",
        "estimate_sum_W",
        "min_norm_proxy",
        "proxy_margins",
        "refine_sum_W",
        "slice_curve",
        "trimmed_sum_W",
    ],
    "attnlib.sculpt.pipeline": ["SPAN_METHODS", "SculptResult", "learn", "sculpt"],
    "attnlib.sculpt.single_head": ["learn_single_head"],
    "attnlib.sculpt.span": ["Span", "face_span", "random_span", "span_alignment", "spectral_span"],
    "attnlib.tasks.associative_memory": [
        "Memories",
        "Sweep",
        "identifiability_sweep",
        "memory_heads",
        "sample_memories",
    ],
    "attnlib.tasks.automata": [
        "DFA",
        "DFAEvaluation",
        "DFARun",
        "TransitionData",
        "decode_states",
        "evaluate",
        "execute",
        "fresh_dfas",
        "learn_step",
        "lookup_heads",
        "query_tokens",
        "random_dfa",
        "random_words",
        "run_contexts",
        "step_contexts",
        "table_tokens",
        "token_dim",
        "transition_data",
    ],
    "attnlib.tasks.turing": [
        "Layout",
        "Op",
        "TMRun",
        "TuringMachine",
        "busy_beaver",
        "compile_step",
        "copy",
        "embed",
        "if_then",
        "instruction",
        "lookup",
        "random_machine",
        "round_token",
        "run",
        "run_program",
        "tm_layout",
    ],
    "attnlib.training": ["TrainResult", "loss_and_gradient", "squared_loss", "train"],
    "attnlib.viz": [
        "COLORS",
        "STYLE",
        "plot_attention_maps",
        "plot_errorbars",
        "plot_loss_along_line",
        "plot_loss_curves",
        "plot_sharpness",
    ],
    "attnlib.viz_lower_bounds": [
        "plot_fourier_spectrum",
        "plot_gd_runs",
        "plot_regression_errors",
        "plot_weight_growth",
    ],
    "attnlib.viz_rkhs": [
        "plot_bound_check",
        "plot_head_spectrum",
        "plot_heads_vs_regression",
        "plot_identifiability",
        "plot_learning_curve",
        "plot_spectra",
    ],
    "attnlib.viz_sculpt": [
        "plot_body_slices",
        "plot_method_comparison",
        "plot_phase_report",
        "plot_recovery",
        "plot_slice_threshold",
        "plot_sweep",
    ],
    "attnlib.viz_tasks": ["plot_dfa_step", "plot_tm_run"],
    "attnlib.widgets": ["attention_explorer", "loss_landscape_explorer"],
    "attnlib.widgets_lower_bounds": ["MAX_D", "spectrum_explorer"],
    "attnlib.widgets_rkhs": ["head_spectrum_explorer", "identifiability_explorer", "sample_size_explorer"],
    "attnlib.widgets_sculpt": ["body_explorer", "report_explorer", "single_head_explorer", "slice_explorer"],
    "attnlib.widgets_tasks": ["dfa_stepper"],
}

#: names that moved out of a module that still exists: (module, name) -> new module
MOVED_NAMES = {
    ("attnlib.viz", "plot_attention_maps"): "attnlib.viz.attention",
    ("attnlib.viz", "plot_sharpness"): "attnlib.viz.attention",
    ("attnlib.viz", "plot_loss_curves"): "attnlib.viz.training",
    ("attnlib.viz", "plot_loss_along_line"): "attnlib.viz.training",
    ("attnlib.viz", "plot_errorbars"): "attnlib.viz.training",
    ("attnlib.widgets", "attention_explorer"): "attnlib.widgets.attention",
    ("attnlib.widgets", "loss_landscape_explorer"): "attnlib.widgets.training",
    ("attnlib.tasks.associative_memory", "Sweep"): "attnlib.rkhs.experiments",
    ("attnlib.tasks.associative_memory", "identifiability_sweep"): "attnlib.rkhs.experiments",
}

#: old names kept as deprecated aliases of renamed functions: (module, old) -> new name
RENAMED = {
    ("attnlib.sculpt", "check_conditions"): "measure_conditions",
    ("attnlib.sculpt.instances", "check_conditions"): "measure_conditions",
    ("attnlib.sculpt", "check_feasible"): "feasible_point",
    ("attnlib.sculpt.body", "check_feasible"): "feasible_point",
    ("attnlib.lower_bounds", "feature_count"): "n_monomials",
    ("attnlib.boolean_fourier", "feature_count"): "n_monomials",
    ("attnlib.sculpt", "sculpt"): "carve",
    ("attnlib.sculpt.pipeline", "sculpt"): "carve",
}


def _fresh_import(path):
    """Import ``path`` as a first import would, so that a deprecation warning is raised again."""
    sys.modules.pop(path, None)
    parent, _, child = path.rpartition(".")
    if parent and child in vars(sys.modules[parent]) and path in MOVED_MODULES:
        delattr(sys.modules[parent], child)
    return importlib.import_module(path)


def test_every_moved_module_is_listed_and_has_no_file():
    moved = {path for path in OLD_API if path in MOVED_MODULES}
    assert moved == {path for path in MOVED_MODULES if path in OLD_API}
    for path in MOVED_MODULES:  # found by the finder of old paths, not as a file
        assert not importlib.util.find_spec(path).has_location, f"{path} still has a file"


@pytest.mark.parametrize("path", sorted(OLD_API))
def test_old_module_path_still_offers_every_name(path):
    if path in MOVED_MODULES:
        with pytest.warns(DeprecationWarning, match=rf"{path} has moved to attnlib\."):
            module = _fresh_import(path)
    else:
        module = importlib.import_module(path)
    for name in OLD_API[path]:
        if (path, name) in MOVED_NAMES or (path, name) in RENAMED:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # a path that still exists does not warn
            obj = getattr(module, name)
        assert obj is not None, f"{path}.{name}"
        if path in MOVED_MODULES:
            homes = [importlib.import_module(target) for target in MOVED_MODULES[path]]
            assert any(getattr(home, name, None) is obj for home in homes), f"{path}.{name} is not the new object"


@pytest.mark.parametrize(("path", "name"), sorted(MOVED_NAMES))
def test_moved_name_warns_and_is_the_new_object(path, name):
    module = importlib.import_module(path)
    new = MOVED_NAMES[path, name]
    with pytest.warns(DeprecationWarning, match=rf"{path}\.{name} has moved to {new}\.{name}"):
        obj = getattr(module, name)
    assert obj is getattr(importlib.import_module(new), name)


def test_from_import_of_an_old_path_works():
    sys.modules.pop("attnlib.viz_rkhs", None)
    vars(attnlib).pop("viz_rkhs", None)
    with pytest.warns(DeprecationWarning, match="attnlib.viz_rkhs has moved to attnlib.viz.rkhs"):
        from attnlib.viz_rkhs import plot_head_spectrum
    from attnlib.viz.rkhs import plot_head_spectrum as new

    assert plot_head_spectrum is new


def test_old_module_as_an_attribute_of_the_package():
    sys.modules.pop("attnlib.widgets_lower_bounds", None)
    vars(attnlib).pop("widgets_lower_bounds", None)
    with pytest.warns(DeprecationWarning, match="attnlib.widgets_lower_bounds has moved"):
        module = attnlib.widgets_lower_bounds
    from attnlib.widgets.lower_bounds import spectrum_explorer

    assert module.spectrum_explorer is spectrum_explorer


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'plot_nothing'"):
        attnlib.viz.plot_nothing  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        attnlib.nothing  # noqa: B018


@pytest.mark.parametrize(("path", "old"), sorted(RENAMED))
def test_renamed_function_warns_and_gives_the_same_answer(path, old):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old module path itself may warn
        module = importlib.import_module(path)
    new = RENAMED[path, old]
    alias, function = getattr(module, old), getattr(module, new)
    assert alias is not function
    args = {"n_monomials": (12, 5), "measure_conditions": None, "feasible_point": None, "carve": None}[new]
    if args is None:  # the sculpt predicates: on a planted layer and its body
        from attnlib import attention, boolean_inputs
        from attnlib.sculpt import crude_sum_W, planted_instance, sculpt_body

        heads = planted_instance(2, 3, rng=0)
        if new == "measure_conditions":
            args = (heads,)
        elif new == "carve":
            X = boolean_inputs(3000, 3, 4, rng=1)
            heads = planted_instance(2, 4, rng=0)
            args = (X, attention(X, heads))
        else:
            X = boolean_inputs(400, 3, 3, rng=1)
            Y = attention(X, heads)
            args = (sculpt_body(X, Y, crude_sum_W(X, Y)),)
    with pytest.warns(DeprecationWarning, match=rf"{old} has been renamed {new}"):
        got = alias(*args)
    assert repr(got) == repr(function(*args))


def test_the_sculpt_stutter_ends_and_the_old_name_still_works():
    import attnlib.sculpt as sculpt_package

    assert "carve" in sculpt_package.__all__ and "sculpt" not in sculpt_package.__all__
    assert sculpt_package.sculpt is not sculpt_package.carve  # a warning alias (tested with the renamed functions)


def test_n_test_keyword_is_now_N_test():
    from attnlib.rkhs.experiments import learning_curve

    new = learning_curve(2, 0.0, Ns=[20], N_test=10, rng=0)
    with pytest.warns(DeprecationWarning, match="the keyword n_test has been renamed N_test"):
        old = learning_curve(2, 0.0, Ns=[20], n_test=10, rng=0)
    assert new[1].tolist() == old[1].tolist()
