"""One small call of every figure function of attnlib.viz, for the tests that check every figure.

``EXAMPLES`` maps ``"module.plot_name"`` to a function of no arguments that draws the figure
with data shaped like the chapter's. ``tests/viz/test_viz_legible.py`` fails when a figure
function has no example here, so a new figure cannot skip the checks.
"""

from __future__ import annotations

import numpy as np

from attnlib import attention, boolean_inputs, gaussian_inputs, random_heads


def _attention():
    from attnlib.viz import attention as v

    X = boolean_inputs(1, 4, 4, rng=1)[0]
    two = random_heads(2, 4, scale=3.0, rng=0)
    return {"plot_attention_maps": lambda: v.plot_attention_maps(X, two),
            "plot_sharpness": lambda: v.plot_sharpness(X, two, query=1)}


def _training():
    from attnlib.viz import training as v

    t = np.arange(200)
    ts = np.linspace(-0.5, 1.5, 41)
    return {
        "plot_loss_curves": lambda: v.plot_loss_curves(
            {"1 head": 0.3 * np.exp(-t / 50) + 0.3, "2 heads": np.exp(-t / 30), "4 heads": np.exp(-t / 20) + 1e-3},
            title="Adam on a planted 2-head softmax layer (d=4, n=4, N=512)"),
        "plot_loss_along_line": lambda: v.plot_loss_along_line(
            ts, {"swap heads": (ts * (1 - ts)) ** 2, "scale gauge": 0.5 * (ts * (1 - ts)) ** 2},
            ylabel="loss / mean squared target", title="zero loss at both ends, positive in between"),
        "plot_errorbars": lambda: v.plot_errorbars(
            [10, 100, 1000], {"empirical risk (mean ± sd of 200 samples)": [1.2, 1.05, 1.01]},
            {"empirical risk (mean ± sd of 200 samples)": [0.3, 0.1, 0.03]}, reference={"exact risk R(F)": 1.0},
            xlabel="sample size N", ylabel="risk", logx=True),
    }


def _rkhs():
    from attnlib.rkhs import certificate
    from attnlib.rkhs.experiments import Sweep
    from attnlib.viz import rkhs as v

    epochs = np.arange(101)
    panels = {f"d = {d}": ({"1 head": np.exp(-epochs / 40) + 0.1, "4 heads": [np.exp(-epochs / 20) + 1e-4] * 3},
                           1e-31 if d < 4 else 0.05) for d in (2, 3, 4)}
    sweep = Sweep(np.linspace(0, 1, 6), np.array([0.0, 0.0, 2.0**-9, 2.0**-6, 2.0**-4, 2.0**-3]),
                  np.array([30, 34, 36, 36, 36, 36]),
                  {"minimum norm": np.array([0.9, 0.5, 1e-13, 1e-14, 1e-14, 1e-15]),
                   "exact": np.array([0.6, 0.4, 1e-13, 1e-14, 1e-14, 1e-15]),
                   "iterative": np.array([0.7, 0.5, 0.2, 0.05, 1e-3, 1e-5])},
                  {"minimum norm": np.array([0.1, 0.05, 1e-28, 1e-29, 1e-29, 1e-30]),
                   "exact": np.array([0.08, 0.04, 1e-28, 1e-29, 1e-29, 1e-30]),
                   "iterative": np.array([0.09, 0.05, 0.01, 1e-3, 1e-5, 1e-7])}, 100)
    certs = {"Gaussian": certificate(gaussian_inputs(2000, 5, 3, rng=0)),
             "hypercube": certificate(boolean_inputs(2000, 5, 3, rng=0))}
    levels = np.geomspace(1e-4, 1e-1, 6)
    return {
        "plot_head_spectrum": lambda: v.plot_head_spectrum(
            {"1 head": random_heads(1, 4, rng=0), "3 heads": random_heads(3, 4, rng=1),
             "random C": np.random.default_rng(2).normal(size=(40, 4))}, title="d = 4"),
        "plot_heads_vs_regression": lambda: v.plot_heads_vs_regression(panels),
        "plot_learning_curve": lambda: v.plot_learning_curve(
            [4, 8, 16, 32, 64], {"no noise": [1, 0.8, 0.5, 0.0, 0.0], "noise 1%": [1, 0.8, 0.5, 0.02, 0.01]}, psi=18,
            title="d = 3, two-head teacher"),
        "plot_spectra": lambda: v.plot_spectra(certs, title="d = 3, n = 5, N = 2000"),
        "plot_identifiability": lambda: v.plot_identifiability(sweep),
        "plot_bound_check": lambda: v.plot_bound_check([1e-6, 1e-4, 1e-3], [1e-5, 1e-3, 1e-1],
                                                      xlabel=r"bound $d\,\epsilon/\lambda_{\min}$",
                                                      title="Lemma A.7 on 9 runs"),
        "plot_certificate_landscape": lambda: v.plot_certificate_landscape(
            {"a bowl": [[1.6, 0.6], [0.6, 0.5]], "a valley": [[1.6, 0.8], [0.8, 0.4]]}),
        "plot_noise_bound": lambda: v.plot_noise_bound(levels, levels**2, 10 * levels**2,
                                                      title="Lemma E.2, deterministic form"),
    }


def _tasks():
    from attnlib.tasks import automata as am
    from attnlib.tasks import turing as tu
    from attnlib.viz import tasks as v

    dfa = am.random_dfa(2, 2, rng=0)
    word = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    return {"plot_dfa_step": lambda: v.plot_dfa_step(dfa, word, 4),
            "plot_tm_run": lambda: v.plot_tm_run(tu.run(tu.busy_beaver(), [0] * 5, 2, 6))}


def _sculpt():
    from attnlib.sculpt import PhaseSeconds, min_norm_proxy, planted_instance, sculpt_body
    from attnlib.sculpt.diagnostics import Geometry, LayerErrors, PhaseDiagnostics, SumWErrors
    from attnlib.viz import sculpt as v

    def slices():
        heads = planted_instance(2, 4, rng=0)
        X = boolean_inputs(1000, 3, 4, rng=1)
        Y = attention(X, heads)
        bodies = [sculpt_body(X[:N], Y[:N], heads.W.sum(0)) for N in (300, 1000)]
        return v.plot_body_slices(bodies, heads, proxies=[min_norm_proxy(b) for b in bodies],
                                  titles=[f"N = {N}: {b.n_constraints} halfspaces"
                                          for N, b in zip((300, 1000), bodies, strict=True)])

    diag = PhaseDiagnostics(SumWErrors(crude=0.3, slice=1e-3, final=1e-9),
                            Geometry(proxy_cosine=0.98, span=0.999, random_span=0.3),
                            LayerErrors(face=0.2, pre_polish=1e-3, final=1e-10),
                            PhaseSeconds(sum_w=0.01, sculpted=1.3, span=0.5, candidates=0.3))
    rng = np.random.default_rng(0)
    methods = ["sculpt", "adam", "adam, 5 starts"]
    return {
        "plot_recovery": lambda: v.plot_recovery(np.arange(2, 31, 2), {"W": np.geomspace(1, 1e-12, 15),
                                                                        "Theta": np.geomspace(1, 1e-9, 15)},
                                                 threshold=9, threshold_label="counting bound $d^2/n$"),
        "plot_body_slices": slices,
        "plot_slice_threshold": lambda: v.plot_slice_threshold(
            np.geomspace(0.003, 0.5, 10), {"true Theta*": np.geomspace(1e-3, 1e-1, 10),
                                           "sculpted proxy": np.geomspace(2e-3, 1e-1, 10)}, crude=0.05,
            title=r"sharp heads, $\|\Theta_i\|_F=8$"),
        "plot_phase_report": lambda: v.plot_phase_report(diag, title="one run, m = 2, d = 4"),
        "plot_method_comparison": lambda: v.plot_method_comparison(
            {k: 10.0 ** rng.uniform(-12, 0, 5) for k in methods}, {k: rng.uniform(0.1, 10, 5) for k in methods},
            title="5 seeds"),
        "plot_sweep": lambda: v.plot_sweep([0.5, 8.0], [500, 1500],
                                           {k: rng.integers(0, 2, (2, 2)).astype(float) for k in methods},
                                           title="success (error < 1e-3), one seed per cell", seeds=1),
    }


def _lower_bounds():
    from attnlib.lower_bounds import fourier_spectrum, gd_experiment, parity_betas, parity_instance
    from attnlib.viz import lower_bounds as v

    return {
        # s = 4: the most heads the chapter draws, the longest legend
        "plot_alternating_heads": lambda: v.plot_alternating_heads(parity_betas(4), title="$s = 4$"),
        "plot_fourier_spectrum": lambda: v.plot_fourier_spectrum(
            fourier_spectrum(parity_instance(6, 2, rng=0).heads), title="$d = 6$, $s = 2$"),
        "plot_regression_errors": lambda: v.plot_regression_errors(
            {1: [0, 1, 2, 3, 4], 2: [0, 1, 2, 3, 4, 5]}, {1: [6, 2.1, 1.9, 0.1, 0], 2: [6, 2.1, 2.0, 2.0, 1.9, 0.1]},
            exact={1: [6, 2, 2, 0, 0], 2: [6, 2, 2, 2, 2, 0]}, trivial=2.0),
        "plot_gd_runs": lambda: v.plot_gd_runs({f"s = {k}": gd_experiment(6, k, N=64, N_test=64, epochs=5, rng=0)
                                               for k in (1, 2)}, title="$d = 6$, $N = 64$, 5 epochs"),
        "plot_weight_growth": lambda: v.plot_weight_growth(np.arange(1, 6), {"sum |c_i|": 3.0 ** np.arange(1, 6),
                                                                             "max |c_i|": 2.0 ** np.arange(1, 6)}),
    }


def _diagrams():
    from attnlib.sculpt import planted_instance, sculpt_body
    from attnlib.tasks.automata import DFA
    from attnlib.viz import diagrams as v

    def halfspaces():
        heads = planted_instance(2, 4, rng=0)
        X = boolean_inputs(2000, 3, 4, rng=1)
        return v.plot_halfspaces(sculpt_body(X, attention(X, heads), heads.W.sum(0), delta=0.02), heads)

    def face():
        from attnlib.sculpt import Body, face_span, min_norm_proxy

        heads = planted_instance(2, 4, rng=0)
        Z = np.random.default_rng(1).normal(size=(20_000, 4, 4))
        keep = np.einsum("kpq,ipq->ki", Z, heads.Theta).min(axis=1) >= 2.0
        ideal = Body(Z[keep], gamma=1.0, bound=None, certified=int(keep.sum()))
        X = boolean_inputs(3000, 3, 4, rng=2)
        real = sculpt_body(X, attention(X, heads), heads.W.sum(0))
        spans = [face_span(b, min_norm_proxy(b), 2, rng=3) for b in (ideal, real)]
        return v.plot_face(heads, ideal, spans[0], real, spans[1], kappa=0.5)

    X = boolean_inputs(1, 4, 4, rng=1)[0]
    return {
        "plot_face": face,
        "plot_head": lambda: v.plot_head(X, random_heads(1, 4, scale=1.5, rng=2), query=1),
        # d = 3 is the tallest and widest table (18 rows); the chapter draws d = 2
        "plot_cubic_lift": lambda: v.plot_cubic_lift(3),
        # 4 states, 2 symbols: the widest grid the function accepts (8 table tokens, d = 12)
        "plot_dfa_lookup": lambda: v.plot_dfa_lookup(DFA([[1, 0], [3, 2], [0, 0], [2, 1]]), 3, 1),
        # d = 3 with two decimals in Theta and a token in two roles: the widest top row it draws
        "plot_logit_gap": lambda: v.plot_logit_gap(boolean_inputs(1, 3, 3, rng=3)[0],
                                                   random_heads(1, 3, scale=9.0, rng=1), 1, 1, 0),
        "plot_halfspaces": halfspaces,
        "plot_phase_flow": v.plot_phase_flow,
        "plot_two_roads": lambda: v.plot_two_roads(d=16, heads=(2, 3, 4, 5)),
    }


def examples() -> dict:
    out = {}
    for module, table in (("attention", _attention), ("training", _training), ("rkhs", _rkhs), ("tasks", _tasks),
                          ("sculpt", _sculpt), ("lower_bounds", _lower_bounds), ("diagrams", _diagrams)):
        out.update({f"{module}.{name}": draw for name, draw in table().items()})
    return out
