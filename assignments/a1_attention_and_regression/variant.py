"""The course variant of assignment 1: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes a
generator seeded from it): the data of every question, and the *form* of every code question
(which axis is masked and how, which tokens a token sees, the order of the features, the layout
of the coefficients, which quantity the experiment returns), drawn from ``FORMS``. The master's
solutions are written for the canonical form (``CANONICAL``), which no variant asks: each form
adds a few lines that reduce it to the canonical one (``*_in``, ``*_out``), so the published code,
pasted into a variant, answers a different question. ``library(values)`` is the example
submission that answers every coding question by calling attnlib (it must score below half).
"""

import numpy as np

#: q1: the softmax's axis, and whether the mask marks the entries kept or dropped.
Q1 = {(-1, True): None, (0, True): "first", (-1, False): "last, drop", (0, False): "first, drop"}
#: q2: which keys b a token a sees, as a Python condition on (_a, _b).
Q2 = {"_b <= _a": ("itself and the tokens before it", r"b\le a"),
      "_b >= _a": ("itself and the tokens after it", r"b\ge a"),
      "_b < _a": ("the tokens strictly before it (the first row is zero)", "b<a"),
      "_b > _a": ("the tokens strictly after it (the last row is zero)", "b>a")}
#: q4: the order of the pairs, as test code with ``_d``, and the prompt's words.
Q4_PAIRS = {
    "diagonal": ("[(j, j) for j in range(_d)] + [(j, k) for j in range(_d) for k in range(j + 1, _d)]",
                 r"the pairs $p$ are first the diagonal $(0,0),(1,1),\dots,(d-1,d-1)$, then the pairs "
                 r"$(j,k)$ with $j<k$ row by row ($(0,1),(0,2),\dots,(1,2),\dots$)"),
    "off-diagonal": ("[(j, k) for j in range(_d) for k in range(j + 1, _d)] + [(j, j) for j in range(_d)]",
                     r"the pairs $p$ are first the pairs $(j,k)$ with $j<k$ row by row "
                     r"($(0,1),(0,2),\dots,(1,2),\dots$), then the diagonal $(0,0),\dots,(d-1,d-1)$"),
    "rows": ("[(j, k) for j in range(_d) for k in range(j, _d)]",
             r"the pairs $p=(j,k)$ with $j\le k$ row by row: $(0,0),(0,1),\dots,(0,d-1),(1,1),(1,2),\dots$"),
}
Q4_LAYOUT = {"pl": "feature `p * d + l`", "lp": "feature `l * P + p` (with $P=d(d+1)/2$ pairs)"}
Q6 = {"smallest_exact_N": ("the smallest $N$ in `N_values` for which the fit is exact",
                           "int(min(N for N, ok in exact.items() if ok))"),
      "largest_inexact_N": ("the largest $N$ in `N_values` for which the fit is *not* exact",
                            "int(max(N for N, ok in exact.items() if not ok))"),
      "exact_count": ("how many $N$ in `N_values` give an exact fit", "int(sum(exact.values()))")}

#: The form the master's solutions are written for; no variant asks it.
CANONICAL_FORM = {"q1": (-1, True), "q2": "_b <= _a", "q4": ("diagonal", "pl"), "q5": ("last", "pd"),
                  "q6": "smallest_exact_N"}


def _q1(axis: int, keep: bool) -> dict:
    mask = "keep" if keep else "drop"
    words = "*last* axis (`axis=-1`)" if axis == -1 else "*first* axis (`axis=0`)"
    rule = ("the entries where the boolean array `keep` (same shape) is `True`" if keep else
            "the entries where the boolean array `drop` (same shape) is `False` (`drop` marks the entries "
            "masked out)")
    to_last = ("keep" if keep else "~drop") if axis == -1 else f"np.moveaxis({'keep' if keep else '~drop'}, 0, -1)"
    if (axis, keep) == (-1, True):
        line = ""
    elif axis == -1:
        line = "keep = ~drop                                          # as the canonical form: keep"
    else:
        line = f"S, keep = np.moveaxis(S, 0, -1), {to_last}    # as the canonical form: last axis, keep"
    return {"q1_mask": mask, "q1_axis": axis, "q1_keep": keep, "q1_axis_words": words, "q1_rule": rule,
            "q1_in": line, "q1_out": "P" if axis == -1 else "np.moveaxis(P, -1, 0)"}


def _self_term(X: str = "X") -> str:
    return f'np.einsum("Naj,ijk,Nak,Nal,ile->Nae", {X}, Theta, {X}, {X}, W, optimize=True)'


def _q2(rule: str) -> dict:
    words, tex = Q2[rule]
    reverse = ">" in rule
    strict = "=" not in rule
    out = f"F - {_self_term()}" if strict else "F"
    if reverse:
        out = f"({out})[:, ::-1]"
    return {"q2_keys": rule, "q2_words": words, "q2_rule": tex,
            "q2_in": "X = X[:, ::-1]                                        # as the canonical form: b <= a"
            if reverse else "", "q2_out": out}


def _pairs(order: str, d: int) -> list:
    return eval(Q4_PAIRS[order][0], {"_d": d})  # noqa: S307 (our own table)


def _q4(order: str, layout: str) -> dict:
    lines = []
    if order != "diagonal":
        lines += ["F = F.reshape(N, -1, d)                                # (N, P, d), the canonical order",
                  "canonical = list(zip(J.tolist(), K.tolist()))",
                  f"F = F[:, [canonical.index(p) for p in {Q4_PAIRS[order][0].replace('_d', 'd')}]]"]
    if layout == "lp":
        lines += ["F = F.reshape(N, -1, d).transpose(0, 2, 1)             # feature l * P + p"]
    if lines:
        lines += ["F = F.reshape(N, -1)"]
    d, G, xn = 2, np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([1.0, 2.0])
    pairs = _pairs(order, d)
    F = np.array([[(1.0 if j == k else np.sqrt(2)) * G[j, k] * xn[l] for l in range(d)] for j, k in pairs])
    F = F.T if layout == "lp" else F
    return {"q4_pairs": Q4_PAIRS[order][0], "q4_order_words": Q4_PAIRS[order][1],
            "q4_layout_words": Q4_LAYOUT[layout], "q4_einsum_out": layout,
            "q4_out": "\n".join(lines), "q4_example": ", ".join(repr(round(float(v), 15)) for v in F.ravel())}


def _q5(targets: str, layout: str) -> dict:
    Y_words = ("of shape `(N, d)`: the outputs at the last token" if targets == "last" else
               "of shape `(N, n, d)`: the layer's outputs at every position (only the last one is fitted)")
    C_words = ("of shape `(psi, d)` (row $p$ holds feature $p$'s coefficients)" if layout == "pd" else
               "of shape `(d, psi)` (column $p$ holds feature $p$'s coefficients)")
    check = "fit(X, np.repeat(np.asarray(Y)[:, None], np.shape(X)[1], axis=1))" if targets == "all" else "fit(X, Y)"
    check = f"np.transpose({check})" if layout == "dp" else check
    return {"q5_Y_words": Y_words, "q5_C_words": C_words,
            "q5_fit_in": "Y = np.asarray(Y)[:, -1]                             # as the canonical form: (N, d)"
            if targets == "all" else "",
            "q5_fit_out": "C.T" if layout == "dp" else "C",
            "q5_predict_in": "C = np.asarray(C).T                                  # as the canonical form: (psi, d)"
            if layout == "dp" else "",
            "q5_check": "fit" if (targets, layout) == ("last", "pd") else f"lambda X, Y: {check}",
            "q5_Y_in": "_Yall" if targets == "all" else "_Yall[:, -1]",
            "q5_C_of": "_C0.T" if layout == "dp" else "_C0"}


def _redundant(rng, N_hi: int, n: int, psi: int) -> dict:
    """Sequences of X_train that repeat earlier ones (tokens before the last reordered, maybe negated)."""
    r = int(rng.integers(2, 5))
    to = sorted(int(t) for t in rng.choice(np.arange(psi // 2, psi + r - 1), size=r, replace=False))
    source = [int(rng.integers(0, t)) for t in to]
    order = [int(i) for i in rng.permutation(n - 1)] + [n - 1]
    signs = [float(s) for s in rng.choice([-1.0, 1.0], size=r)]
    return {"to": to, "from": source, "order": order, "signs": signs}


def _exact_Ns(m, d, n, n_test, seeds, N_lo, N_hi, copies) -> dict:
    from attnlib import attention, gaussian_inputs, random_heads
    from attnlib.rkhs import cubic_features

    teacher = random_heads(m, d, rng=seeds[0])
    X_train = gaussian_inputs(N_hi, n, d, rng=seeds[1])
    X_train[copies["to"]] = X_train[copies["from"]][:, copies["order"]] * np.array(copies["signs"])[:, None, None]
    X_test = gaussian_inputs(seeds[3], n_test, d, rng=seeds[2])
    Y_train = attention(X_train, teacher, kind="linear")[:, -1]
    Y_test = attention(X_test, teacher, kind="linear")[:, -1]
    Phi_test = cubic_features(X_test)
    exact = {}
    for N in range(N_lo, N_hi + 1):
        C, *_ = np.linalg.lstsq(cubic_features(X_train[:N]), Y_train[:N], rcond=None)
        exact[N] = bool(np.linalg.norm(Phi_test @ C - Y_test) / np.linalg.norm(Y_test) < 1e-8)
    return exact


def _q6_answer(name: str, exact: dict) -> int:
    return eval(Q6[name][1], {"exact": exact})  # noqa: S307 (our own table)


def _experiment(rng, seed, d: int, n: int, n_test: int, N_test: int, m: int) -> dict:
    """A planted layer, data with redundant sequences, and which N give an exact fit (a clean variant)."""
    psi = d * d * (d + 1) // 2
    while True:
        copies = _redundant(rng, psi + 12, n, psi)
        r_before = len(copies["to"])
        N_lo, N_hi = psi - int(rng.integers(3, 7)), psi + r_before + int(rng.integers(4, 9))
        seeds = (seed(), seed(), seed(), N_test)
        exact = _exact_Ns(m, d, n, n_test, seeds, N_lo, N_hi, copies)
        first = min((N for N, ok in exact.items() if ok), default=None)
        # generic apart from the copies: exact from psi + (copies before it) on, and never before
        if first == psi + r_before and all(exact[N] == (N >= first) for N in exact):
            return {"copies": copies, "N_lo": N_lo, "N_hi": N_hi, "seeds": seeds, "exact": exact, "psi": psi}


def parameters(rng: np.random.Generator) -> dict:
    seed = lambda: int(rng.integers(1000, 10**6))  # noqa: E731
    p = {"seed_rng": seed()}
    p.update({name: seed() for name in ("seed_q1", "seed_q2", "seed_q2b", "seed_q2c", "seed_q2d", "seed_q4",
                                        "seed_q4b", "seed_q5", "seed_q5b", "seed_q5c", "seed_q5d", "seed_q5e")})
    p["keep_q1"] = round(float(rng.uniform(0.4, 0.8)), 2)
    p["big_q1"] = float(rng.choice([9999.0, 9990.0, 9980.0]))
    p["keep_big_q1"] = bool(rng.integers(2))
    p["m_q2"], p["d_q2"], p["n_q2"] = int(rng.integers(1, 4)), int(rng.integers(2, 5)), int(rng.integers(5, 10))
    p["N_q4"], p["n_q4"], p["d_q4"] = int(rng.integers(3, 8)), int(rng.integers(2, 8)), int(rng.integers(2, 5))
    p["n_q4b"], p["d_q4b"] = int(rng.integers(3, 9)), int(rng.integers(2, 5))
    p["m_q5"], p["n_q5"] = int(rng.integers(1, 5)), int(rng.integers(15, 30))

    # the forms: never the canonical one
    q1 = [k for k in Q1 if k != CANONICAL_FORM["q1"]]
    p.update(_q1(*q1[int(rng.integers(len(q1)))]))
    q2 = [k for k in Q2 if k != CANONICAL_FORM["q2"]]
    p.update(_q2(q2[int(rng.integers(len(q2)))]))
    q4 = [(o, la) for o in Q4_PAIRS for la in Q4_LAYOUT if (o, la) != CANONICAL_FORM["q4"]]
    p.update(_q4(*q4[int(rng.integers(len(q4)))]))
    q5 = [(t, la) for t in ("last", "all") for la in ("pd", "dp") if (t, la) != CANONICAL_FORM["q5"]]
    p.update(_q5(*q5[int(rng.integers(len(q5)))]))
    q6 = [k for k in Q6 if k != CANONICAL_FORM["q6"]]
    name = q6[int(rng.integers(len(q6)))]

    d, n, n_test = int(rng.choice([3, 4])), int(rng.integers(5, 9)), int(rng.integers(9, 15))
    p.update({"m_q6": int(rng.choice([2, 3, 5])), "d_q6": d, "n_q6": n, "n_q6_test": n_test})
    main = _experiment(rng, seed, d, n, n_test, 200, p["m_q6"])
    p.update({"seed_q6": main["seeds"][0], "seed_q6b": main["seeds"][1], "seed_q6c": main["seeds"][2],
              "N_lo": main["N_lo"], "N_hi": main["N_hi"], "psi_q6": main["psi"],
              "q6_to": main["copies"]["to"], "q6_from": main["copies"]["from"], "q6_order": main["copies"]["order"],
              "q6_signs": main["copies"]["signs"], "q6_name": name, "q6_words": Q6[name][0], "q6_out": Q6[name][1],
              "q6_answer": _q6_answer(name, main["exact"]), "q6_exact": min(N for N, ok in main["exact"].items() if ok),
              "q6_to_words": ", ".join(str(t) for t in main["copies"]["to"])})
    d_b, m_b = 7 - d, int(rng.choice([1, 2, 4]))  # d_b: the other of 3 and 4
    other = _experiment(rng, seed, d_b, n, n_test, 100, m_b)
    p.update({"m_q6b": m_b, "d_q6b": d_b, "q6_order_b": other["copies"]["order"],
              "seed_q6d": other["seeds"][0], "seed_q6e": other["seeds"][1], "seed_q6f": other["seeds"][2],
              "N_lo_b": other["N_lo"], "N_hi_b": other["N_hi"],
              "q6_to_b": other["copies"]["to"], "q6_from_b": other["copies"]["from"],
              "q6_signs_b": other["copies"]["signs"], "q6_answer_b": _q6_answer(name, other["exact"])})
    return p


def canonical() -> dict:
    """The form placeholders of the canonical form: the master's solutions as published."""
    name = CANONICAL_FORM["q6"]
    return {**_q1(*CANONICAL_FORM["q1"]), **_q2(CANONICAL_FORM["q2"]), **_q4(*CANONICAL_FORM["q4"]),
            **_q5(*CANONICAL_FORM["q5"]), "q6_name": name, "q6_words": Q6[name][0], "q6_out": Q6[name][1]}


def library(v: dict) -> dict:
    """Answers that call attnlib's own implementation (in this variant's form)."""
    return {
        "masked_softmax": f"""def masked_softmax(S, {v['q1_mask']}):
    import attnlib
    S = np.asarray(S, dtype=float)
    {v['q1_mask']} = np.asarray({v['q1_mask']}, dtype=bool)
    {v['q1_in'] or 'pass'}
    P = np.where(keep, attnlib.softmax(np.where(keep, S, -1e300)), 0.0)
    return {v['q1_out']}""",
        "masked_linear_attention": f"""def masked_linear_attention(X, Theta, W):
    from attnlib import Heads
    {v['q2_in'] or 'pass'}
    F = attention(X, Heads(Theta, W), kind="linear", causal=True)
    return {v['q2_out']}""",
        "iso_features": """def iso_features(X):
    from attnlib.rkhs import cubic_features
    N, n, d = X.shape
    Phi = cubic_features(X).reshape(N, -1, d)
    off = d * (d - 1) // 2
    F = np.concatenate([Phi[:, off:], np.sqrt(2) * Phi[:, :off]], axis=1).reshape(N, -1)
    return F""",
        "fit": f"""def fit(X, Y):
    from attnlib.rkhs import fit_linear_attention
    {v['q5_fit_in'] or 'pass'}
    C = fit_linear_attention(X, Y).coef
    return {v['q5_fit_out']}""",
    }
