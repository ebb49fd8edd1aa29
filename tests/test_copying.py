"""scripts/copying.py: a copy of a reference is found whatever its names, numbers, comments and layout;
honest answers written from the prompts stay below the threshold; placeholders and the code every student
receives count for nothing. The calibration runs on the real masters: the public template and a private
variant rendered from a seed."""

import ast
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


copying = _load("copying")
variants = _load("assignment_variants")

NAMES = ["a1_attention_and_regression", "a2_certificates_and_sculpting", "a3_lower_bounds"]
#: The library functions each question is about (their source is in every student zip's wheel).
LIBRARY = {"a2_certificates_and_sculpting": {"q4": ["attnlib.sculpt.gap_feature"],
                                             "q5": ["attnlib.sculpt.constant_sum_W"],
                                             "q6": ["attnlib.sculpt.learn_single_head"]},
           "a3_lower_bounds": {"q6": ["attnlib.lower_bounds.parity_by_elimination"]}}


class Rename(ast.NodeTransformer):
    """Gives every argument, local and nested function of each function a new name, as a copier would."""

    def visit_FunctionDef(self, node):
        names = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
        names |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
            elif isinstance(sub, ast.FunctionDef) and sub is not node:
                names.add(sub.name)
        new = {old: f"my_{i}_{old.lower()[::-1]}" for i, old in enumerate(sorted(names))}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in new:
                sub.id = new[sub.id]
            elif isinstance(sub, ast.arg) and sub.arg in new:
                sub.arg = new[sub.arg]
            elif isinstance(sub, ast.FunctionDef) and sub is not node and sub.name in new:
                sub.name = new[sub.name]
        return node


def renamed(code: str) -> str:
    out = ast.unparse(Rename().visit(ast.parse(code)))
    assert out != code
    return out


def notebook(*sources):
    return {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": s} for s in sources]}


def solution_cells(master: dict) -> list[str]:
    """The code cells a student fills in, as the master's solution has them (markers left out)."""
    cells, inside = [], False
    for cell in master["cells"]:
        text = copying._source(cell)
        if cell["cell_type"] == "raw":
            head = text.strip().split("\n")[0]
            inside = True if head == "# BEGIN SOLUTION" else False if head == "# END SOLUTION" else inside
        elif inside and cell["cell_type"] == "code":
            cells.append("\n".join(line for line in text.splitlines() if "SOLUTION" not in line))
    return cells


#: Honest answers, written from the prompts alone (loops, scipy, other names and orders).
HONEST = {
"a1_attention_and_regression": [
# q1, a loop over the slices
'''def masked_softmax(S, keep):
    S = np.asarray(S, dtype=np.float64)
    flat = S.reshape(-1, S.shape[-1])
    ok = np.broadcast_to(keep, S.shape).reshape(flat.shape)
    result = np.zeros_like(flat)
    for row in range(flat.shape[0]):
        if not ok[row].any():
            continue
        biggest = flat[row][ok[row]].max()
        weights = np.exp(flat[row] - biggest) * ok[row]
        result[row] = weights / weights.sum()
    return result.reshape(S.shape)
''',
# q1, vectorised (close to what anyone would write)
'''def masked_softmax(S, keep):
    logits = np.where(keep, np.asarray(S, float), -np.inf)
    peak = np.max(logits, axis=-1, keepdims=True)
    peak[~np.isfinite(peak)] = 0.0
    e = np.exp(logits - peak)
    total = np.sum(e, axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
''',
# q5, through scipy
'''import scipy.linalg

def fit(X, Y):
    feats = cubic_features(X)
    gram = feats.T @ feats
    coef = scipy.linalg.solve(gram, feats.T @ Y, assume_a="pos")
    return coef.T

def predict(C, X):
    return cubic_features(X) @ np.asarray(C).T
''',
],
"a2_certificates_and_sculpting": [
# q5, a loop and scipy's least squares
'''from scipy.linalg import lstsq

def sum_W_from_constant(X, Y):
    rows_in, rows_out = [], []
    for seq, out in zip(X, Y):
        if all(np.array_equal(tok, seq[0]) for tok in seq):
            rows_in.append(seq[0])
            rows_out.append(out[0])
    solution, residues, rank, sv = lstsq(np.array(rows_in), np.array(rows_out))
    return solution
''',
# q1, an explicit average of outer products
'''def second_moment(X):
    feats = cubic_features(X)
    total = np.zeros((feats.shape[1], feats.shape[1]))
    for f in feats:
        total += np.outer(f, f)
    return total / feats.shape[0]
''',
],
"a3_lower_bounds": [
# q6, Gaussian elimination over GF(2) written from the prompt
'''def hidden_set(X, y):
    d = X.shape[2]
    r = d - 1
    useful = X[:, 0, r] != X[:, 1, r]
    z = X[useful, 0, :] * X[useful, 1, :]
    chi = (y[useful] - 2 * X[useful, 1, r]) / (X[useful, 0, r] - X[useful, 1, r])
    system = np.concatenate([(1 - z[:, :r]) // 2, ((1 - chi) // 2)[:, None]], axis=1).astype(np.int64) % 2
    pivots, row = [], 0
    for col in range(r):
        hits = np.nonzero(system[row:, col])[0]
        if len(hits) == 0:
            continue
        swap = row + hits[0]
        system[[row, swap]] = system[[swap, row]]
        for other in range(len(system)):
            if other != row and system[other, col]:
                system[other] ^= system[row]
        pivots.append(col)
        row += 1
        if row == len(system):
            break
    found = [col for i, col in enumerate(pivots) if system[i, -1]]
    return tuple(sorted(found))
''',
# q3, the Walsh-Hadamard transform by explicit characters
'''def fourier_weights(values):
    values = np.asarray(values, dtype=float)
    K = int(round(np.log2(len(values))))
    points = np.arange(2 ** K)
    weights = np.zeros(K + 1)
    for T in range(2 ** K):
        signs = np.array([(-1) ** bin(p & T).count("1") for p in points])
        coefficient = np.mean(values * signs)
        weights[bin(T).count("1")] += coefficient ** 2
    return weights
''',
],
}


@pytest.fixture(scope="module", params=NAMES)
def assignment(request):
    """(name, references of a private variant, the variant's rendered master)."""
    name = request.param
    master = json.loads((ROOT / "assignments" / name / f"{name}.ipynb").read_text())
    seed = "a private course seed for the copying tests"
    values = {**variants.variant_values(name, seed),
              **variants.fixed_values(master, "attnlib-0.0-py3-none-any.whl", seed)}
    rendered = variants.render(master, values, strict=False)
    public, given = copying.split_master(master)
    mine, _ = copying.split_master(rendered)
    return name, copying.references(mine, public, LIBRARY.get(name, {}), given), rendered


def test_the_reference_itself_matches_whole_and_the_blank_notebook_nothing(assignment):
    name, refs, rendered = assignment
    scores = copying.scores(notebook(*solution_cells(rendered)), refs)
    judged = {(m.question, m.kind) for m in scores}
    assert sum(kind == "variant" for _, kind in judged) >= 4, f"{name}: most questions are judged"
    assert all(m.score >= 0.99 for m in scores if m.kind in ("variant", "public")), scores
    assert max(m.score for m in copying.scores(notebook(refs["given"]), refs)) == 0.0


def test_a_renamed_copy_with_the_variants_lines_is_flagged(assignment):
    name, refs, rendered = assignment
    copy = notebook(*(renamed(c) for c in solution_cells(rendered)))
    flagged = {(m.question, m.kind) for m in copying.compare(copy, refs)}
    judged = {(m.question, m.kind) for m in copying.scores(copy, refs) if m.kind != "library"}
    assert judged <= flagged, f"{name}: not flagged: {sorted(judged - flagged)}"


def test_pasted_library_source_with_renamed_locals_is_flagged(assignment):
    name, refs, _ = assignment
    for question, functions in LIBRARY.get(name, {}).items():
        for function in functions:
            pasted = notebook(renamed(copying.library_source(function)))
            found = [m for m in copying.compare(pasted, refs) if m.kind == "library" and m.name == function]
            assert found and found[0].question == question, (function, copying.scores(pasted, refs))


def test_honest_answers_stay_below_the_threshold(assignment):
    name, refs, _ = assignment
    for answer in HONEST[name]:
        assert copying.compare(notebook(answer), refs) == [], (answer[:30], copying.scores(notebook(answer), refs))
    assert copying.compare(notebook(*HONEST[name]), refs) == []


def test_tokens_abstract_what_a_copier_changes_and_keep_what_the_code_does():
    a = ("def f(x, y):\n    # scale it\n    z = np.linalg.solve(x.T @ x, y) * 2.5  # comment\n"
         "    return len(z), 'done'\n")
    b = "def other(A, B):\n    C = np.linalg.solve(A.T @ A, B) * 7\n\n    return len(C), \"over\"\n"
    assert copying.tokens(a) == copying.tokens(b)
    assert copying.tokens(a)[:8] == ["def", "V", "(", "V", ",", "V", ")", ":"]
    assert "solve" in copying.tokens(a) and "len" in copying.tokens(a), "attributes and builtins are kept"
    assert copying.tokens(a) != copying.tokens(a.replace("solve", "lstsq")), "another call is other code"
    assert copying.tokens("%pip install x\n!ls\nx = 1\n") == ["V", "=", "0", ";"]
    assert copying.tokens("x = (1,\n") == ["V", "=", "(", "0", ","], "unfinished code: the tokens so far"


def test_placeholders_count_for_nothing():
    template = ("def {{name}}(X, w):\n    Phi = features(X)\n    {{line}}\n    M = Phi.T @ Phi / len(Phi)\n"
                "    values, vectors = np.linalg.eigh(M)\n    order = np.argsort(values)[::-1]\n"
                "    return values[order], vectors[:, order]\n")
    grams = copying.kgrams(template)
    assert None in grams and len([h for h in grams if h is not None]) >= 2
    filled = template.replace("{{name}}", "moment").replace("{{line}}", "Phi = Phi * w[:, None]")
    assert {h for h in grams if h is not None} <= set(copying.kgrams(filled))
    refs = copying.references({"q1": filled}, {"q1": template})
    assert [(m.kind, m.score) for m in copying.scores(notebook(filled), refs)] == [("variant", 1.0), ("public", 1.0)]
    other = filled.replace("np.argsort(values)[::-1]", "np.flip(np.argsort(values))")
    assert [m.kind for m in copying.compare(notebook(other), refs)] == ["variant", "public"], "a small change"
    assert copying.compare(notebook(other), refs, threshold=0.99) == []


def test_split_master_separates_solutions_from_what_students_receive():
    raw = lambda text: {"cell_type": "raw", "source": text}  # noqa: E731
    code = lambda text: {"cell_type": "code", "source": text}  # noqa: E731
    master = {"cells": [code("import numpy as np"), raw("# BEGIN QUESTION\nname: q1\npoints: 2"),
                        {"cell_type": "markdown", "source": "Write `f`."}, raw("# BEGIN SOLUTION"),
                        code("def helper(x):\n    return x\n\n\ndef f(x):\n    # BEGIN SOLUTION\n    y = x + 1\n"
                             "    # END SOLUTION\n\n\ndef g(x):\n    # BEGIN SOLUTION\n    return 2 * x\n"
                             "    # END SOLUTION"),
                        raw("# END SOLUTION"), raw("# BEGIN TESTS"), code("assert f(1) == 2"), raw("# END TESTS"),
                        raw("# END QUESTION")]}
    solutions, given = copying.split_master(master)
    assert list(solutions) == ["q1"]
    assert [line.strip() for line in solutions["q1"].splitlines() if line.strip()] == \
        ["y = x + 1", copying.BREAK, "return 2 * x"]
    assert "def helper(x):" in given and "def g(x):" in given and "import numpy as np" in given
    assert "assert f(1)" not in given and "y = x + 1" not in given


def test_library_source_unwraps_decorators_and_bad_names_are_clear():
    import attnlib.sculpt

    source = copying.library_source("attnlib.sculpt.gap_feature")
    assert source.splitlines()[0].startswith("def gap_feature("), "the def, without the library's decorator"
    assert source in Path(attnlib.sculpt.hypercube.__file__).read_text()
    with pytest.raises(ValueError, match="no such function"):
        copying.library_source("attnlib.sculpt.no_such_function")
    with pytest.raises(ValueError, match="no such module"):
        copying.library_source("no_such_package.f")
    with pytest.raises(ValueError, match="without a reference solution"):
        copying.references({"q1": "x = 1"}, {"q2": "y = 2"})
    with pytest.raises(ValueError, match="not a copying references file"):
        copying.scores(notebook("x = 1"), {"questions": {}})


STUDENT_A = '''def sum_W_from_constant(X, Y):
    same = np.all(X == X[:, :1], axis=(1, 2))
    inputs, outputs = X[same, 0], Y[same, 0]
    answer = np.linalg.pinv(inputs) @ outputs
    if not np.isfinite(answer).all():
        raise ValueError("no constant sequence")
    return answer
'''


def submission(*answers):
    """A submission laid out as the student notebook is: each answer cell followed by its check."""
    cells = []
    for i, answer in enumerate(answers, start=1):
        cells += [answer, f'grader.check("q{i}")']
    return notebook(*cells)


def test_pairwise_flags_a_renamed_copy_of_another_student_and_not_honest_pairs():
    honest = HONEST["a2_certificates_and_sculpting"]
    plain = "def second_moment(X):\n    F = cubic_features(X)\n    return F.T @ F / F.shape[0]\n"
    class_ = {"a.ipynb": submission(honest[1], STUDENT_A), "b.ipynb": submission(honest[1] + "\n", renamed(STUDENT_A)),
              "c.ipynb": submission(plain, honest[0])}
    assert copying.answers(class_["a.ipynb"]) == {"q1": honest[1], "q2": STUDENT_A}
    found = copying.pairwise(class_)
    assert ("a.ipynb", "b.ipynb", "q2", 1.0) in found and ("a.ipynb", "b.ipynb", "q1", 1.0) in found
    assert not [f for f in found if "c.ipynb" in f], found


def test_references_from_masters_is_split_master_and_references():
    name = "a3_lower_bounds"
    master = json.loads((ROOT / "assignments" / name / f"{name}.ipynb").read_text())
    seed = "another course seed"
    values = {**variants.variant_values(name, seed),
              **variants.fixed_values(master, "attnlib-0.0-py3-none-any.whl", seed)}
    rendered = variants.render(master, values, strict=False)
    refs = copying.references_from_masters(master, rendered, LIBRARY[name])
    assert json.loads(json.dumps(refs)) == refs, "JSON-able"
    assert refs["format"] == copying.FORMAT and "{{" not in refs["given"]
    kinds = {q: [r["kind"] for r in rs] for q, rs in refs["questions"].items()}
    assert kinds["q6"] == ["variant", "public", "library"] and "{{" in refs["questions"]["q6"][1]["code"]
    assert "{{" not in refs["questions"]["q6"][0]["code"].replace(copying.BREAK, "")


def test_the_guide_states_the_threshold_the_detector_uses():
    guide = (Path(__file__).resolve().parents[1] / "book" / "instructors.md").read_text()
    assert f"The flag is raised at a score of {copying.THRESHOLD:g}" in guide
