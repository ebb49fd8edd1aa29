"""The course variant of assignment 1: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes a
generator seeded from it): the data of every question, and the *form* of every code question,
drawn from ``FORMS_Q*``. Every form changes the mathematics, not only names: the exponential's
base in q1, an average instead of a sum in q2, another kernel (token, mean Gram matrix) in q4,
another fitted token in q5, another quantity in q6; axes, masks, orders and layouts vary on top.
The master's solutions are written for the canonical form (``CANONICAL_FORM``), which no variant
asks: each form adds a few lines that reduce it to the canonical one (``*_in``, ``*_out``), so the
published code, pasted into a variant, answers a different question (``FORMS_SUMMARY`` says what
differs, per question). ``ABOUT`` names the attnlib functions each question is about (the copy
detector compares submissions with their source); ``library(values)`` is the example submission
that answers by calling them, ``honest(values)`` one written from the prompts alone.
"""

import numpy as np

#: q1: the softmax's axis, and whether the mask marks the entries kept or dropped.
Q1 = {(-1, True): None, (0, True): "first", (-1, False): "last, drop", (0, False): "first, drop"}
#: q1: the base of the exponential (its literal in test code, its logarithm's numpy function, and
#: the prompt's words); every variant asks a base other than e, so the weights change, not only names.
Q1_BASE = {"e": ("np.e", "np.log", r"with weights $P_i=e^{S_i}/\sum_{j\text{ kept}}e^{S_j}$"),
           "2": ("2.0", "np.log2", r"in base 2: the weights are $P_i=2^{S_i}/\sum_{j\text{ kept}}2^{S_j}$ "
                 r"(powers of 2, not of $e$)"),
           "10": ("10.0", "np.log10", r"in base 10: the weights are $P_i=10^{S_i}/\sum_{j\text{ kept}}10^{S_j}$ "
                  r"(powers of 10, not of $e$)")}
#: q2: which keys b a token a sees, as a Python condition on (_a, _b).
Q2 = {"_b <= _a": ("itself and the tokens before it", r"b\le a"),
      "_b >= _a": ("itself and the tokens after it", r"b\ge a"),
      "_b < _a": ("the tokens strictly before it (the first row is zero)", "b<a"),
      "_b > _a": ("the tokens strictly after it (the last row is zero)", "b>a")}
#: q2: a sum over the tokens a token sees, or their average (the factor before the sum, and the words
#: after the formula); every variant asks the average, so the running sums need the right counts.
Q2_NORM = {"sum": ("", ""),
           "mean": (r"\frac{1}{|B_a|}", r", where $B_a$ is the set of tokens $b$ that $a$ sees: an average, not a sum "
                    r"(a row with $B_a$ empty is zero)")}
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
#: q4: the kernel itself: which token's inner product (its index, its subscript in the prompt) and
#: whether G is the sum or the mean of the x_b x_b^T. Every variant asks another kernel than the master's.
Q4_TOKEN = {"last": (-1, "n", r"$x_n$, $x'_n$ the last tokens"),
            "first": (0, "1", r"$x_1$, $x'_1$ the *first* tokens")}
Q4_GRAM = {"sum": r"$G=X^\top X$, $G'=X'^\top X'$",
           "mean": r"$G=\frac1nX^\top X$, $G'=\frac1{n'}X'^\top X'$ for sequences of $n$ and $n'$ tokens (the *mean* "
                   r"of the $x_bx_b^\top$, not their sum)"}
#: q5: the token whose outputs are fitted and predicted: its index, its words, its subscript. Every
#: variant fits another token than the master's last one, whose features cubic_features does not give.
Q5_TOKEN = {"last": (-1, "last", "n"), "first": (0, "first", "1"), "second": (1, "second", "2"),
            "second to last": (-2, "second to last", "n-1")}
Q6 = {"smallest_exact_N": ("the smallest $N$ in `N_values` for which the fit is exact",
                           "int(min(N for N, ok in exact.items() if ok))"),
      "largest_inexact_N": ("the largest $N$ in `N_values` for which the fit is *not* exact",
                            "int(max(N for N, ok in exact.items() if not ok))"),
      "exact_count": ("how many $N$ in `N_values` give an exact fit", "int(sum(exact.values()))")}

#: The form the master's solutions are written for; no variant asks it.
CANONICAL_FORM = {"q1": (-1, True, "e"), "q2": ("_b <= _a", "sum"), "q4": ("diagonal", "pl", "last", "sum"),
                  "q5": ("last", "last", "pd"), "q6": "smallest_exact_N"}


#: The forms a variant may ask, per question: the mathematics always differs from the canonical form's
#: (another base, an average, another kernel, another token), and names, axes and orders vary on top.
FORMS_Q1 = [(a, k, b) for (a, k) in Q1 for b in Q1_BASE if b != "e"]
FORMS_Q2 = [(rule, "mean") for rule in Q2]
FORMS_Q4 = [(o, la, t, g) for o in Q4_PAIRS for la in Q4_LAYOUT for t in Q4_TOKEN for g in Q4_GRAM
            if (t, g) != ("last", "sum")]
FORMS_Q5 = [(t, y, la) for t in Q5_TOKEN if t != "last" for y in ("last", "all") for la in ("pd", "dp")]
FORMS_Q6 = [k for k in Q6 if k != CANONICAL_FORM["q6"]]


def _q1(axis: int, keep: bool, base: str) -> dict:
    mask = "keep" if keep else "drop"
    words = "*last* axis (`axis=-1`)" if axis == -1 else "*first* axis (`axis=0`)"
    rule = ("the entries where the boolean array `keep` (same shape) is `True`" if keep else
            "the entries where the boolean array `drop` (same shape) is `False` (`drop` marks the entries "
            "masked out)")
    to_last = ("keep" if keep else "~drop") if axis == -1 else f"np.moveaxis({'keep' if keep else '~drop'}, 0, -1)"
    if (axis, keep) == (-1, True):
        lines = []
    elif axis == -1:
        lines = ["keep = ~drop                                          # as the canonical form: keep"]
    else:
        lines = [f"S, keep = np.moveaxis(S, 0, -1), {to_last}    # as the canonical form: last axis, keep"]
    if base != "e":  # b^S = e^(S ln b)
        lines.append(f"S = S * np.log({Q1_BASE[base][0]})                              # as the canonical form: base e")
    literal, log, base_words = Q1_BASE[base]
    return {"q1_mask": mask, "q1_axis": axis, "q1_keep": keep, "q1_axis_words": words, "q1_rule": rule,
            "q1_base": literal, "q1_log": log, "q1_base_words": base_words,
            "q1_in": "\n".join(lines), "q1_out": "P" if axis == -1 else "np.moveaxis(P, -1, 0)"}


def _self_term(X: str = "X") -> str:
    return f'np.einsum("Naj,ijk,Nak,Nal,ile->Nae", {X}, Theta, {X}, {X}, W, optimize=True)'


def _q2(rule: str, norm: str) -> dict:
    words, tex = Q2[rule]
    reverse = ">" in rule
    strict = "=" not in rule
    out = f"F - {_self_term()}" if strict else "F"
    if norm == "mean":  # token a of the (maybe reversed) sequence sees a + 1 tokens, or a if strict
        out = f"({out}) / np.maximum(np.arange(X.shape[1]) + {0 if strict else 1}, 1)[:, None]"
    if reverse:
        out = f"({out})[:, ::-1]"
    return {"q2_keys": rule, "q2_words": words, "q2_rule": tex, "q2_mean": norm == "mean",
            "q2_scale": Q2_NORM[norm][0], "q2_norm_words": Q2_NORM[norm][1],
            "q2_in": "X = X[:, ::-1]                                        # as the canonical form: b <= a"
            if reverse else "", "q2_out": out}


def _pairs(order: str, d: int) -> list:
    return eval(Q4_PAIRS[order][0], {"_d": d})  # noqa: S307 (our own table)


def _q4(order: str, layout: str, token: str, gram: str) -> dict:
    lines = []
    if order != "diagonal":
        lines += ["F = F.reshape(N, -1, d)                                # (N, P, d), the canonical order",
                  "canonical = list(zip(J.tolist(), K.tolist()))",
                  f"F = F[:, [canonical.index(p) for p in {Q4_PAIRS[order][0].replace('_d', 'd')}]]"]
    if layout == "lp":
        lines += ["F = F.reshape(N, -1, d).transpose(0, 2, 1)             # feature l * P + p"]
    if lines:
        lines += ["F = F.reshape(N, -1)"]
    if gram == "mean":
        lines += ["F = F / n                                              # the mean: G / n"]
    d, G, xn = 2, np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([1.0, 2.0])
    pairs = _pairs(order, d)
    F = np.array([[(1.0 if j == k else np.sqrt(2)) * G[j, k] * xn[l] for l in range(d)] for j, k in pairs])
    F = F.T if layout == "lp" else F
    tok, sub, token_words = Q4_TOKEN[token]
    return {"q4_pairs": Q4_PAIRS[order][0], "q4_order_words": Q4_PAIRS[order][1],
            "q4_layout_words": Q4_LAYOUT[layout], "q4_einsum_out": layout, "q4_tok": tok, "q4_t": sub,
            "q4_mean": gram == "mean", "q4_kernel_words": f"{Q4_GRAM[gram]}, and {token_words}",
            "q4_in": "X = X[:, ::-1]                                         # the first token last: G is the same"
            if token == "first" else "",
            "q4_out": "\n".join(lines), "q4_example": ", ".join(repr(round(float(v), 15)) for v in F.ravel())}


def _q5(token: str, targets: str, layout: str) -> dict:
    t, words, sub = Q5_TOKEN[token]
    Y_words = (f"of shape `(N, d)`: the outputs at the {words} token" if targets == "last" else
               f"of shape `(N, n, d)`: the layer's outputs at every position (only the {words} one is fitted)")
    C_words = ("of shape `(psi, d)` (row $p$ holds feature $p$'s coefficients)" if layout == "pd" else
               "of shape `(d, psi)` (column $p$ holds feature $p$'s coefficients)")
    features = ("" if token == "last" else
                rf" The {words} token's output is linear in the features $G_{{j_pk_p}}\,x_{{{sub},l}}$ (with "
                rf"$G=X^\top X$): those of `cubic_features`, $G_{{j_pk_p}}\,x_{{n,l}}$, with the {words} token "
                rf"$x_{{{sub}}}$ in place of the last token $x_n$, numbered in the same order; `C` holds their "
                "coefficients.")
    roll = -(t + 1)  # np.roll(X, roll, axis=1) puts the fitted token last; G = X^T X does not change
    X = f"np.roll(X, {t + 1}, axis=1)" if token != "last" else "X"  # the check's last token where we fit
    check = (f"fit({X}, np.repeat(np.asarray(Y)[:, None], np.shape(X)[1], axis=1))" if targets == "all"
             else f"fit({X}, Y)")
    check = f"np.transpose({check})" if layout == "dp" else check
    to_last = (f"X = np.roll(X, {roll}, axis=1)                         # the {words} token last: G is the same"
               if token != "last" else "")
    fit_in = [to_last] if to_last else []
    if targets == "all":
        fit_in.append(f"Y = np.asarray(Y)[:, {t}]                             # as the canonical form: (N, d)")
    predict_in = [to_last] if to_last else []
    if layout == "dp":
        predict_in.append("C = np.asarray(C).T                                  # as the canonical form: (psi, d)")
    return {"q5_Y_words": Y_words, "q5_C_words": C_words, "q5_token_words": words, "q5_features_words": features,
            "q5_fit_in": "\n".join(fit_in), "q5_fit_out": "C.T" if layout == "dp" else "C",
            "q5_predict_in": "\n".join(predict_in),
            "q5_check": "fit" if (token, targets, layout) == ("last", "last", "pd") else f"lambda X, Y: {check}",
            "q5_Y_in": "_Yall" if targets == "all" else f"_Yall[:, {t}]", "q5_tok": t, "q5_roll": roll,
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
    for forms, make in ((FORMS_Q1, _q1), (FORMS_Q2, _q2), (FORMS_Q4, _q4), (FORMS_Q5, _q5)):
        p.update(make(*forms[int(rng.integers(len(forms)))]))
    name = FORMS_Q6[int(rng.integers(len(FORMS_Q6)))]

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
    return {**_q1(*CANONICAL_FORM["q1"]), **_q2(*CANONICAL_FORM["q2"]), **_q4(*CANONICAL_FORM["q4"]),
            **_q5(*CANONICAL_FORM["q5"]), "q6_name": name, "q6_words": Q6[name][0], "q6_out": Q6[name][1]}


def _lines(code: str) -> str:
    """Reduction lines for the body of a function written at 4 spaces (``pass`` if there are none)."""
    return "\n    ".join(code.split("\n")) if code else "pass"


def library(v: dict) -> dict:
    """Answers that call attnlib's own implementation (in this variant's form)."""
    return {
        "masked_softmax": f"""def masked_softmax(S, {v['q1_mask']}):
    import attnlib
    S = np.asarray(S, dtype=float)
    {v['q1_mask']} = np.asarray({v['q1_mask']}, dtype=bool)
    {_lines(v['q1_in'])}
    P = np.where(keep, attnlib.softmax(np.where(keep, S, -1e300)), 0.0)
    return {v['q1_out']}""",
        "masked_linear_attention": f"""def masked_linear_attention(X, Theta, W):
    from attnlib import Heads
    {_lines(v['q2_in'])}
    F = attention(X, Heads(Theta, W), kind="linear", causal=True)
    return {v['q2_out']}""",
        "iso_features": f"""def iso_features(X):
    from attnlib.rkhs import cubic_features
    N, n, d = X.shape
    {_lines(v['q4_in'])}
    Phi = cubic_features(X).reshape(N, -1, d) / (n if {v['q4_mean']} else 1)
    off = d * (d - 1) // 2
    F = np.concatenate([Phi[:, off:], np.sqrt(2) * Phi[:, :off]], axis=1).reshape(N, -1)
    return F""",
        "fit": f"""def fit(X, Y):
    from attnlib.rkhs import fit_linear_attention
    {_lines(v['q5_fit_in'])}
    C = fit_linear_attention(X, Y).coef
    return {v['q5_fit_out']}""",
    }


#: Per code question, how many forms a variant may ask and what differs between them (quoted in the
#: closing note of issue 41). Every variant's form differs from the master's in its mathematics.
FORMS_SUMMARY = {
    "q1": f"{len(FORMS_Q1)} forms: the exponential's base (2 or 10, the master's e is never asked), times the "
          "softmax's axis (first or last) and whether the mask marks entries kept or dropped",
    "q2": f"{len(FORMS_Q2)} forms: always the average over the tokens seen (the master sums), which tokens a token "
          "sees (itself and those before or after it, or strictly before or after: the counts differ)",
    "q4": f"{len(FORMS_Q4)} forms: the kernel (the first token's inner product instead of the last's, G as the mean "
          "of the x_b x_b^T instead of their sum, or both), times the order of the pairs (3) and of the features (2)",
    "q5": f"{len(FORMS_Q5)} forms: the fitted token (first, second or second to last; the master's last one is "
          "never asked, and cubic_features gives only its features), times the targets' shape (that token's "
          "outputs, or every position's) and the coefficients' layout (psi x d or d x psi)",
    "q6": f"{len(FORMS_Q6)} forms: the quantity returned (the largest N whose fit is not exact, or how many N give "
          "an exact fit; the master returns the smallest exact N); the data and the copies differ per variant",
}

#: Per code question, the attnlib functions that implement what it asks (module.function: import the
#: module, then getattr the name); the copy detector compares a submission with their source.
ABOUT = {
    "q1": ("attnlib.attention.softmax",),
    "q2": ("attnlib.attention.attention", "attnlib.attention.forward"),
    "q4": ("attnlib.rkhs.features.cubic_features", "attnlib.rkhs.features.kernel"),
    "q5": ("attnlib.rkhs.regression.fit_linear_attention", "attnlib.rkhs.features.cubic_features"),
    "q6": ("attnlib.rkhs.regression.fit_linear_attention", "attnlib.rkhs.experiments.learning_curve"),
}


def _honest_pairs(v: dict) -> str:
    """The q4 pair order as a careful student would write it from the prompt's words (not the test's code)."""
    if v["q4_pairs"].startswith("[(j, j)"):
        return ("    pairs = [(j, j) for j in range(d)]\n"
                "    for j in range(d):\n        for k in range(j + 1, d):\n            pairs.append((j, k))")
    if v["q4_pairs"].startswith("[(j, k) for j in range(_d) for k in range(j + 1"):
        return ("    pairs = []\n    for j in range(d):\n        for k in range(j + 1, d):\n"
                "            pairs.append((j, k))\n    pairs += [(j, j) for j in range(d)]")
    return "    pairs = [(j, k) for j in range(d) for k in range(d) if j <= k]"


def honest(v: dict) -> dict:
    """Answers written from the prompts alone, independently of the master's solutions (variant ``v``).

    Their structure differs from the master's on purpose: the softmax works along the asked axis, the
    attention loops over heads with running sums of x_b (x_b^T W_i), the features loop over pairs with
    top-level helpers (a constant computed by numpy and a lambda), the fit builds the fitted token's
    features itself and solves with scipy, the experiment counts in a loop and returns a numpy integer.
    Counts are float32 (small integers, exact); a list of feature columns is stacked.
    """
    mask = v["q1_mask"]
    kept = "np.asarray(keep, dtype=bool)" if v["q1_keep"] else "~np.asarray(drop, dtype=bool)"
    rule = v["q2_keys"]
    after = ">" in rule
    strict = "=" not in rule
    if after:
        prefix = "P = np.cumsum(M[:, ::-1], axis=1)[:, ::-1]" + (" - M" if strict else "")
        count = "n - 1 - a" if strict else "n - a"
    else:
        prefix = "P = np.cumsum(M, axis=1)" + (" - M" if strict else "")
        count = "a" if strict else "a + 1"
    average = v["q2_mean"]
    t5 = v["q5_tok"]
    all_targets = v["q5_Y_in"] == "_Yall"
    transposed = v["q5_C_of"] == "_C0.T"
    name6 = v["q6_name"]
    if name6 == "exact_count":
        q6_return = "    return np.sum(np.array(exact, dtype=np.int64))"
    elif name6 == "largest_inexact_N":
        q6_return = ("    inexact = [N for N, ok in zip(N_values, exact) if not ok]\n"
                     "    return np.int64(inexact[-1])")
    else:
        q6_return = "    return np.int64(next(N for N, ok in zip(N_values, exact) if ok))"
    return {
        "masked_softmax": f"""LOG_BASE = np.log({v['q1_base']})     # base ** s == exp(s * ln(base))


def masked_softmax(S, {mask}):
    S = np.array(S, dtype=np.float64)
    kept = {kept}
    axis = {v['q1_axis']}
    logits = np.where(kept, S * LOG_BASE, -np.inf)
    top = np.max(logits, axis=axis, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    weights = np.exp(logits - top)
    total = weights.sum(axis=axis, keepdims=True)
    total[total == 0.0] = 1.0
    return weights / total""",
        "masked_linear_attention": f"""def masked_linear_attention(X, Theta, W):
    X = np.asarray(X, dtype=np.float64)
    N, n, d = X.shape
    out = np.zeros((N, n, d))
    for Th, Wi in zip(np.asarray(Theta, dtype=np.float64), np.asarray(W, dtype=np.float64)):
        Q = X @ Th                                   # row a: x_a^T Theta_i
        V = X @ Wi                                   # row b: x_b^T W_i
        M = X[:, :, :, None] * V[:, :, None, :]      # x_b (x_b^T W_i), one d x d matrix per token
        {prefix}
        out += np.einsum("Naj,Najk->Nak", Q, P)
    if {average}:
        a = np.arange(n, dtype=np.float32)           # token counts are small integers: exact in float32
        out = out / np.maximum({count}, 1)[None, :, None]
    return out""",
        "iso_features": f"""SQRT2 = np.sqrt(2.0)
weight = lambda j, k: 1.0 if j == k else SQRT2      # noqa: E731


def iso_features(X):
    X = np.asarray(X, dtype=np.float64)
    N, n, d = X.shape
    G = np.einsum("Nbj,Nbk->Njk", X, X)
    if {v['q4_mean']}:
        G = G / n
    x = X[:, {v['q4_tok']}]
{_honest_pairs(v)}
    columns = [weight(j, k) * G[:, j, k] for j, k in pairs]
    C = np.stack(columns, axis=1)
    if {v['q4_einsum_out'] == 'pl'}:
        F = C[:, :, None] * x[:, None, :]
    else:
        F = x[:, :, None] * C[:, None, :]
    return F.reshape(N, -1)""",
        "fit": f"""def token_features(X):
    # cubic_features' numbering (pairs j < k row by row, then the diagonal; feature p * d + l),
    # with the fitted token in place of the last one
    X = np.asarray(X, dtype=np.float64)
    N, n, d = X.shape
    G = np.einsum("Nbj,Nbk->Njk", X, X)
    pairs = [(j, k) for j in range(d) for k in range(j + 1, d)] + [(j, j) for j in range(d)]
    x = X[:, {t5}]
    return np.concatenate([G[:, j, k][:, None] * x for j, k in pairs], axis=1)


def fit(X, Y):
    from scipy.linalg import solve
    Y = np.asarray(Y, dtype=np.float64)
    if {all_targets}:
        Y = Y[:, {t5}]
    Phi = token_features(X)
    C = solve(Phi.T @ Phi, Phi.T @ Y, assume_a="pos")
    return C.T if {transposed} else C""",
        "predict": f"""def predict(C, X):
    C = np.asarray(C, dtype=np.float64)
    if {transposed}:
        C = C.T
    return token_features(X) @ C""",
        name6: f"""def {name6}(teacher, X_train, X_test, N_values):
    last = lambda X: attention(X, teacher, kind="linear")[:, -1]      # noqa: E731
    Y_train, Y_test = last(X_train), last(X_test)
    Phi_test = cubic_features(X_test)
    exact = []
    for N in N_values:
        coef = np.linalg.lstsq(cubic_features(X_train[:N]), Y_train[:N], rcond=None)[0]
        error = np.linalg.norm(Phi_test @ coef - Y_test) / np.linalg.norm(Y_test)
        exact.append(bool(error < 1e-8))
{q6_return}""",
    }
