"""The course variant of assignment 3: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes a
generator seeded from it): the data of every question and the *form* of every code question, never
the canonical form the master's solutions are written for (``CANONICAL_FORM``; ``canonical()`` gives
its placeholders). Most forms change the mathematics, not only names: which attention weight or
which difference of weights, the scale of the scores, the Fourier weights of a transformed function
(times the full parity, or smoothed by the noise operator), which part of a rounded family's
spectrum, the token whose output is the label (``FORMS_SUMMARY`` says, per question, what differs).
The ``*_in``/``*_out`` values are the lines that turn the master's solution into the variant's: the
build grades the master's solutions, so they must stay correct for every form.

``library(values)`` is the example submission that answers every coding question by calling
attnlib; ``honest(values)`` one written from the prompts alone, as a careful student would; ``ABOUT``
names, per code question, the attnlib functions that implement what it asks (the copy detector
compares submissions with their source).
"""

import numpy as np

CANONICAL_FORM = {"q1": ("self", 0, "Nm"), "q2": ("d - 1", "0", 1), "q3": "weights", "q4": "linear_weight",
                  "q6": ("d - 1", "tuple", 1)}
Q4 = {"linear_weight": ("the weight at degree 1", "float(weights[1])"),
      "leaked_weight": ("the total weight at the degrees $2,\\dots,2s$ (strictly between 1 and $2s+1$)",
                        "float(weights[2:2 * s + 1].sum())"),
      "parity_weight": ("the weight at degree $2s+1$", "float(weights[2 * s + 1])")}

#: The forms a variant draws from, per code question (never the canonical one).
FORMS = {"q1": [("other", 0, "Nm"), ("other", 1, "mN"), ("difference", 0, "Nm"), ("difference", 1, "mN"),
                ("scaled", 0, "Nm"), ("scaled", 1, "mN")],
         "q2": [("d - 1", "0", -1), ("0", "d - 1", -1), ("d - 1", "d - 1", -1)],
         "q3": ["parity", "noisy_half", "noisy_four_fifths"],
         "q4": ["leaked_weight", "parity_weight"],
         "q6": [("0", "tuple", 2), ("d - 1", "tuple", 2), ("0", "indicator", 2), ("d - 1", "indicator", 2)]}

#: Per code question: how many forms a variant draws from, and what differs between them.
FORMS_SUMMARY = {
    "q1": "6 forms: the weight a token puts on the other token, sigma(-2 beta j) (the published solution is the "
          "weight on itself, sigma(2 beta j)), the weight on itself minus the weight on the other, tanh(beta j), or "
          "the weight on the other token when the scores are scaled by 1/|S|, sigma(-2 beta j / |S|); each either "
          "with token 1 as the query and shape (N, m), or token 2 and heads first (m, N)",
    "q2": "3 forms: the scores are -beta_i diag(1_S) (the published solution has +beta_i), so the weights c are not "
          "the library's and must be derived (sum_i c_i sigma(-2 beta_i j) = (-1)^j); with the read-out coordinate r "
          "and the output coordinate o of W_i = c_i e_r e_o^T (0 or d - 1)",
    "q3": "3 forms: the Fourier weights of g = f * x_1...x_K (the degrees reversed, D -> K - D, to be derived), or "
          "those of the noisy T_rho f with rho = 1/2 or 4/5 (the weight at degree D damped by rho^(2D), to be derived "
          "from the definition of T_rho); the published solution gives the weights of f",
    "q4": "2 forms: the weight of the rounded family leaked to the degrees 2..2s, or the weight left at degree "
          "2s + 1 (another target quantity of the same experiment; the published solution gives the weight at "
          "degree 1)",
    "q6": "4 forms: the label is the output of token 2 (the published solution decodes token 1's: the roles of x_1 "
          "and x_2 in the equation swap), with the read-out coordinate r (0 or d - 1) and the answer a sorted tuple "
          "or a 0/1 indicator array",
}

#: Per code question: the attnlib functions that implement what it asks (the copy detector's sources).
ABOUT = {
    "q1": ("attnlib.attention.attention_weights", "attnlib.attention.attention"),
    "q2": ("attnlib.lower_bounds.family.parity_instance", "attnlib.lower_bounds.family.parity_heads"),
    "q3": ("attnlib.lower_bounds.fourier.walsh_hadamard", "attnlib.lower_bounds.fourier.fourier_spectrum",
           "attnlib.lower_bounds.fourier.FourierSpectrum.weight_by_degree"),
    "q4": ("attnlib.lower_bounds.fourier.fourier_spectrum",
           "attnlib.lower_bounds.fourier.FourierSpectrum.weight_by_degree",
           "attnlib.lower_bounds.family.parity_instance"),
    "q6": ("attnlib.lower_bounds.parities.parity_by_elimination",
           "attnlib.lower_bounds.family.decode_parity_examples"),
}


def _subset(rng, coordinates, s):
    return tuple(int(j) for j in np.sort(rng.choice(coordinates, size=s, replace=False)))


def _q1_value(quantity: str, j, beta, s: int):
    """The asked quantity for j disagreements on S (|S| = s) and scale beta: the closed form."""
    t = 2.0 * beta * j
    return {"self": 1 / (1 + np.exp(-t)), "other": 1 / (1 + np.exp(t)), "difference": np.tanh(t / 2),
            "scaled": 1 / (1 + np.exp(t / s))}[quantity]


def _q1(quantity: str, row: int, layout: str) -> dict:
    """quantity: the weight on itself (the canonical form), on the other token, the difference of the two,
    or the weight on the other token with the scores scaled by 1/|S|; row: the query token."""
    line = {"self": [],
            "other": ["weights = 1.0 - weights                                # the other token: sigma(-2 beta j)"],
            "difference": ["weights = 2.0 * weights - 1.0                          # itself minus the other: "
                           "tanh(beta j)"],
            "scaled": ["weights = 0.5 * (1.0 - np.tanh(np.outer(j, betas) / len(S)))  # the other token, scores "
                       "/ |S|"]}[quantity]
    lines = line + (["weights = weights.T                                    # heads first"] if layout == "mN"
                    else [])
    other = 2 - row  # 1-based: the other token
    words = {"self": f"the weight that token {row + 1} (as the query) puts on itself (token {row + 1})",
             "other": f"the weight that token {row + 1} (as the query) puts on token {other}",
             "difference": f"the weight that token {row + 1} (as the query) puts on itself minus the weight it "
                           f"puts on token {other}",
             "scaled": f"the weight that token {row + 1} (as the query) puts on token {other}"}[quantity]
    read = {"self": f"_A[:, :, {row}, {row}]", "other": f"_A[:, :, {row}, {1 - row}]",
            "difference": f"_A[:, :, {row}, {row}] - _A[:, :, {row}, {1 - row}]",
            "scaled": f"_A[:, :, {row}, {1 - row}]"}[quantity]
    weights = _q1_value(quantity, 1, np.array([0.0, np.log(3.0) / 2]), 2)  # the public example: j = 1, |S| = 2
    example = weights[None] if layout == "Nm" else weights[:, None]
    theta = ("\\tfrac{\\beta_i}{|S|}\\operatorname{diag}(\\mathbf 1_S)" if quantity == "scaled"
             else "\\beta_i\\operatorname{diag}(\\mathbf 1_S)")
    return {"q1_words": words, "q1_theta_tex": theta,
            "q1_layout_words": "of shape `(N, m)`" if layout == "Nm" else "of shape `(m, N)` (heads first)",
            "q1_in": "\n".join(lines), "q1_read": read, "q1_scale": "len(_S)" if quantity == "scaled" else "1",
            "q1_at_zero": "0.0" if quantity == "difference" else "0.5", "q1_layout_T": "" if layout == "Nm" else ".T",
            "q1_example": repr(np.round(example, 12).tolist())}


def _q2(r: str, o: str, sign: int) -> dict:
    """r, o: the read-out and output coordinates; sign: of the scores, +-beta_i diag(1_S) (the weights c of -1
    are not the library's: they solve sum_i c_i sigma(-2 beta_i j) = (-1)^j)."""
    lines = (["Theta = -Theta                                         # scores -beta_i diag(1_S): other weights c",
              "W[:, d - 1, 0] = np.linalg.solve(1 / (1 + np.exp(2.0 * np.outer(np.arange(len(S) + 1), betas))),",
              "                                 (-1.0) ** np.arange(len(S) + 1))"] if sign < 0 else []) \
        + (["W = np.roll(W, 1, axis=1)                              # read-out row d - 1 -> 0"]
           if r == "0" else []) \
        + (["W = np.roll(W, -1, axis=2)                             # output column 0 -> d - 1"]
           if o == "d - 1" else [])
    return {"q2_r_tex": r.replace(" ", ""), "q2_o_tex": o.replace(" ", ""), "q2_o_code": o, "q2_in": "\n".join(lines),
            "q2_r_of": f"(lambda d: {r})", "q2_o_of": f"(lambda d: {o})", "q2_sign": str(sign),
            "q2_theta_tex": "-\\beta_i" if sign < 0 else "\\beta_i",
            "q2_S_public": "(1, 3)" if r == "0" else "(0, 2)", "q2_S_small": "(2,)"}


Q3_RHO = {"noisy_half": ("1/2", 0.5), "noisy_four_fifths": ("4/5", 0.8)}


def _q3(form: str) -> dict:
    """weights (canonical), parity (the weights of f times the full parity: degrees reversed), or noisy_* (the
    weights of T_rho f: rho**(2D) w_D)."""
    noise = ("the Fourier weights $w_0(T_\\rho f),\\dots,w_K(T_\\rho f)$ of the noisy function $T_\\rho f$ with "
             "$\\rho={rho}$, where $T_\\rho f(x)=\\mathbb E_y[f(y)]$ and each $y_k$ independently equals $x_k$ with "
             "probability $(1+\\rho)/2$ and $-x_k$ otherwise")
    words = {"weights": "the weights $w_0,\\dots,w_K$",
             "parity": "the Fourier weights $w_0(g),\\dots,w_K(g)$ of the function $g(x)=f(x)\\,x_1x_2\\cdots x_K$"}
    out = {"weights": "weights", "parity": "weights[::-1]"}
    undo = {"weights": "(lambda w: w)", "parity": "(lambda w: w[::-1])"}
    expected = {"weights": "_spectrum(_v)", "parity": "_spectrum(_v * np.prod(_x, axis=1))"}
    if form in Q3_RHO:
        tex, rho = Q3_RHO[form]
        words[form] = noise.format(rho=tex)
        out[form] = f"weights * {rho!r} ** (2 * np.arange(K + 1))"
        undo[form] = f"(lambda w: w / {rho!r} ** (2 * np.arange(len(w))))"
        expected[form] = f"_spectrum(_noise({rho!r}) @ _v)"
    return {"q3_words": words[form], "q3_out": out[form], "q3_undo": undo[form], "q3_expected": expected[form]}


def _q4_value(name: str, d: int, S: tuple, betas: list, digits: int) -> float:
    from attnlib import Heads, attention
    from attnlib import lower_bounds as lb

    mask = np.zeros(d)
    mask[list(S)] = 1.0
    W = np.zeros((len(betas), d, d))
    W[:, d - 1, 0] = np.round(lb.parity_coefficients(len(S), betas=betas), digits)
    layer = Heads(np.multiply.outer(np.asarray(betas), np.diag(mask)), W)
    bits = (np.arange(2 ** (2 * d))[:, None] >> np.arange(2 * d)) & 1
    coefficients = lb.walsh_hadamard(attention((1.0 - 2.0 * bits).reshape(-1, 2, d), layer)[:, 0, 0])
    degrees = np.array([bin(t).count("1") for t in range(len(coefficients))])
    weights = np.bincount(degrees, weights=coefficients**2, minlength=2 * d + 1)
    return eval(Q4[name][1], {"weights": weights, "s": len(S), "float": float})  # noqa: S307 (our own table)


def _family(rng, name: str):
    """A family with s = 2, and rounding whose answer is well away from zero."""
    while True:
        d = int(rng.choice([4, 5]))
        S = _subset(rng, d - 1, 2)
        betas = [0.0, round(float(rng.uniform(0.3, 0.5)), 2), 20.0]
        digits = int(rng.choice([0, 1]))
        value = _q4_value(name, d, S, betas, digits)
        if value > 1e-6:
            return d, S, betas, digits, value


def _q6(r: str, out: str, token: int) -> dict:
    """r: the read-out coordinate; out: tuple or indicator; token: whose output (1 or 2) is the label."""
    shift = "(j + 1) % d" if r == "0" else "j"
    found = "found" if r == "d - 1" else "tuple(sorted((j + 1) % d for j in found))"
    if out == "indicator":
        found = f"np.isin(np.arange(d), {found}).astype(int)"
    expected = f"tuple(sorted({shift} for j in inst.support))"
    if out == "indicator":
        expected = f"np.isin(np.arange(d), {expected}).astype(int)"
    labels = ("attention(np.roll(X, -1, axis=2), inst.heads)" if r == "0"
              else "attention(X, inst.heads)") + f"[:, {token - 1}, 0]"
    lines = (["X = np.roll(X, -1, axis=2)                             # coordinate 0 becomes the last"]
             if r == "0" else []) \
        + (["X = X[:, ::-1]                                         # token 2's output is token 1's, swapped"]
           if token == 2 else [])
    return {"q6_r_tex": r.replace(" ", ""), "q6_out": found, "q6_in": "\n".join(lines), "q6_token": str(token),
            "q6_words": "the sorted tuple $S$ (a list is accepted)" if out == "tuple" else
            "the indicator of $S$: an `int` array of length $d$, 1 at the coordinates of $S$ and 0 elsewhere",
            "q6_labels": f"(lambda X, inst: {labels})", "q6_expected": f"(lambda inst, d: {expected})"}


def _q6_public(v: dict) -> str:
    from attnlib import lower_bounds as lb

    inst = lb.parity_instance(6, 2, rng=5)
    got = eval(v["q6_expected"], {"np": np})(inst, 6)  # noqa: S307 (our own table)
    return repr(got) if isinstance(got, tuple) else f"np.array({got.tolist()})"


def parameters(rng: np.random.Generator) -> dict:
    seed = lambda: int(rng.integers(1000, 10**6))  # noqa: E731
    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    p = {name: seed() for name in ("seed_q1", "seed_q1b", "seed_q2", "seed_q2b", "seed_q3", "seed_q3b",
                                   "seed_q6", "seed_q6b", "seed_q6c", "seed_q6d")}
    d1 = int(rng.integers(4, 8))
    p["d_q1"], p["S_q1"] = d1, _subset(rng, d1 - 1, int(rng.integers(1, 4)))
    p["betas_q1"] = [round(float(b), 2) for b in np.sort(rng.uniform(0, 3, size=int(rng.integers(2, 5))))]
    p.update(_q1(*pick(FORMS["q1"])))

    r, o, sign = pick(FORMS["q2"])
    p.update(_q2(r, o, sign))
    d2 = int(rng.integers(5, 8))
    s2 = int(rng.integers(1, 3))
    coordinates = np.arange(1, d2) if r == "0" else np.arange(d2 - 1)
    p["d_q2"], p["S_q2"] = d2, _subset(rng, coordinates, s2)
    p["betas_q2"] = [0.0, round(float(rng.uniform(0.3, 0.5)), 2), 20.0][: s2 + 1] if s2 == 2 else [0.0, 20.0]

    p["K_q3"] = int(rng.integers(4, 8))
    p.update(_q3(pick(FORMS["q3"])))

    name = pick(FORMS["q4"])
    d4, S4, b4, digits, value = _family(rng, name)
    d4b, S4b, b4b, digits_b, value_b = _family(rng, name)
    p.update({"q4_name": name, "q4_words": Q4[name][0], "q4_out": Q4[name][1], "d_q4": d4, "S_q4": S4,
              "betas_q4": b4, "q4_digits": digits, "q4_answer": repr(value), "d_q4b": d4b, "S_q4b": S4b,
              "betas_q4b": b4b, "q4_digits_b": digits_b, "q4_answer_b": repr(value_b)})

    p["d_q6"], p["s_q6"], p["N_q6"] = int(rng.integers(10, 17)), int(rng.integers(1, 4)), int(rng.integers(100, 160))
    p.update(_q6(*pick(FORMS["q6"])))
    p["q6_public"] = _q6_public(p)
    return p


def canonical() -> dict:
    """The form placeholders of the canonical form: the master's solutions as published."""
    name = CANONICAL_FORM["q4"]
    return {**_q1(*CANONICAL_FORM["q1"]), **_q2(*CANONICAL_FORM["q2"]), **_q3(CANONICAL_FORM["q3"]),
            "q4_name": name, "q4_words": Q4[name][0], "q4_out": Q4[name][1], **_q6(*CANONICAL_FORM["q6"])}


def _indent(lines: str) -> str:
    """A form's lines as a function body's (four spaces), ``pass`` if there are none."""
    return "\n".join("    " + line for line in (lines or "pass").split("\n"))


def library(v: dict) -> dict:
    """Answers that call attnlib's own implementation (in this variant's form)."""
    return {
        "pair_weights": f'''def pair_weights(X, S, betas):
    d = X.shape[-1]
    mask = np.zeros(d)
    mask[list(S)] = 1.0
    _S = S
    scale = {v["q1_scale"]}
    heads = Heads(np.multiply.outer(np.asarray(betas, float) / scale, np.diag(mask)), np.zeros((len(betas), d, d)))
    _A = attention_weights(X, heads)
    return ({v["q1_read"]}){v["q1_layout_T"]}''',
        "parity_layer": f'''def parity_layer(d, S, betas):
    heads = lb.parity_instance(d, len(S), betas=betas).heads
    Theta, W = heads.Theta, heads.W
{_indent(v["q2_in"])}
    return Theta, W''',
        "fourier_weights": f'''def fourier_weights(values):
    values = np.asarray(values, dtype=float)
    K = len(values).bit_length() - 1
    weights = lb.fourier_spectrum(lambda X: values[np.arange(len(values))], n=1, d=K).weight_by_degree()
    return {v["q3_out"]}''',
        "hidden_set": f'''def hidden_set(X, y):
    N, _, d = X.shape
{_indent(v["q6_in"])}
    found = lb.parity_by_elimination(*lb.decode_parity_examples(X, y, readout=d - 1))
    return {v["q6_out"]}''',
    }


def _form(v: dict, q: str):
    """The form of question ``q`` that the values ``v`` ask (read back from its placeholders)."""
    matches = [form for form in FORMS[q] + [CANONICAL_FORM[q]]
               if all(v.get(k) == x for k, x in {"q1": lambda f: _q1(*f), "q2": lambda f: _q2(*f),
                                                  "q3": _q3, "q6": lambda f: _q6(*f),
                                                  "q4": lambda f: {"q4_name": f}}[q](form).items())]
    if len(matches) != 1:
        raise ValueError(f"the values ask {len(matches)} forms of {q}, not one")
    return matches[0]


def honest(v: dict) -> dict:
    """Answers written from the prompts alone, independently of the master's solutions, in this variant's
    form (explicit loops, a top-level constant and lambda, scipy, float32 and a list where they suffice)."""
    quantity, _, layout = _form(v, "q1")
    value = {"other": "logistic(-TWO * beta * j)", "difference": "np.tanh(beta * j)",
             "scaled": "logistic(-TWO * beta * j / len(S))", "self": "logistic(TWO * beta * j)"}[quantity]
    pair_weights = f'''TWO = np.float32(2.0)
logistic = lambda t: 0.5 * (1.0 + np.tanh(t / 2.0))   # sigma(t), without exp overflow


def pair_weights(X, S, betas):
    X = np.asarray(X)
    out = np.zeros((X.shape[0], len(betas)), dtype=np.float32)
    for n in range(X.shape[0]):
        j = sum(1 for k in S if X[n, 0, k] != X[n, 1, k])
        for i, beta in enumerate(np.asarray(betas, dtype=np.float32)):
            out[n, i] = {value}
    return out{".T" if layout == "mN" else ""}'''
    r, o, sign = _form(v, "q2")
    parity_layer = f'''def parity_layer(d, S, betas):
    from scipy.linalg import solve

    s, m = len(S), len(betas)
    sign = {sign}                                    # the scores are sign * beta_i diag(1_S)
    sigmoid = [[1.0 / (1.0 + np.exp(-2.0 * sign * beta * j)) for beta in betas] for j in range(s + 1)]
    c = solve(np.array(sigmoid), np.array([(-1.0) ** j for j in range(s + 1)]))   # F(X)_(1,o) needs these
    r, o = {r}, {o}
    Theta, W = np.zeros((m, d, d)), np.zeros((m, d, d))
    for i in range(m):
        for k in S:
            Theta[i, k, k] = sign * betas[i]
        W[i, r, o] = c[i]
    return [Theta, W]'''
    form = _form(v, "q3")
    rho = Q3_RHO[form][1] if form in Q3_RHO else 1.0
    body = (["f = f * np.prod(points, axis=1)                # g(x) = f(x) x_1 ... x_K"] if form == "parity" else []) \
        + ["w = np.zeros(K + 1)", "for T in range(2**K):", "    members = [k for k in range(K) if (T >> k) & 1]",
           "    coefficient = np.mean(f * np.prod(points[:, members], axis=1))"
           + (f" * {rho!r} ** len(members)   # E[chi_T(y) | x] = rho^|T| chi_T(x)" if form in Q3_RHO else ""),
           "    w[len(members)] += coefficient**2", "return w"]
    cube = """def cube(K):
    return np.array([[-1.0 if (t >> k) & 1 else 1.0 for k in range(K)] for t in range(2**K)]).reshape(2**K, K)"""
    fourier_weights = """def fourier_weights(values):
    f = np.asarray(values, dtype=float)
    K = len(f).bit_length() - 1
    points = cube(K)
""" + "\n".join("    " + line for line in body)
    name = v["q4_name"]
    target = {"linear_weight": "w[1]", "leaked_weight": "w[2:2 * s + 1].sum()",
              "parity_weight": "w[2 * s + 1]"}[name]
    q4 = f'''def {name}(d, S, betas, digits):
    s, m = len(S), len(betas)
    c = np.round(lb.parity_coefficients(s, betas=betas), digits)
    Theta, W = np.zeros((m, d, d)), np.zeros((m, d, d))
    for i in range(m):
        Theta[i, list(S), list(S)] = betas[i]
        W[i, d - 1, 0] = c[i]
    outputs = attention(cube(2 * d).reshape(-1, 2, d), Heads(Theta, W))[:, 0, 0]
    coefficients = lb.walsh_hadamard(outputs)
    w = np.zeros(2 * d + 1)
    for t, coefficient in enumerate(coefficients):
        w[bin(t).count("1")] += coefficient**2
    return {target}'''
    r6, out, token = _form(v, "q6")
    label = ("(y[n] - 2 * b[r]) / (a[r] - b[r])" if token == 1   # y = 2 b_r + (a_r - b_r) chi
             else "(y[n] - 2 * a[r]) / (b[r] - a[r])")             # y = 2 a_r + (b_r - a_r) chi
    answer = "sorted(found)" if out == "tuple" else "np.array([1 if k in found else 0 for k in range(d)])"
    hidden_set = f'''def hidden_set(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    N, _, d = X.shape
    r = {r6}                                       # the read-out coordinate, never in S
    pivots = {{}}                                   # pivot column -> (row bits, right-hand side)
    for n in range(N):
        a, b = X[n, 0], X[n, 1]
        if a[r] == b[r]:
            continue
        chi = {label}
        bits = sum(1 << k for k in range(d) if k != r and a[k] * b[k] < 0)
        rhs = 1 if chi < 0 else 0
        for col, (pbits, prhs) in pivots.items():
            if (bits >> col) & 1:
                bits, rhs = bits ^ pbits, rhs ^ prhs
        if bits == 0:
            continue
        col = (bits & -bits).bit_length() - 1    # the lowest coordinate left
        for other, (pbits, prhs) in list(pivots.items()):
            if (pbits >> col) & 1:
                pivots[other] = (pbits ^ bits, prhs ^ rhs)
        pivots[col] = (bits, rhs)
    found = [col for col, (_, rhs) in pivots.items() if rhs == 1]   # free variables are 0
    return {answer}'''
    return {"pair_weights": pair_weights, "parity_layer": parity_layer, "cube": cube,
            "fourier_weights": fourier_weights, name: q4, "hidden_set": hidden_set}
