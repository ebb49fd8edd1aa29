"""The grading support shipped with the assignments: time limits, isolation, no library shortcuts, plain
answers, feedback, hand-in; and the otter plugin that grades only what a student defines."""

import json
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import numpy as np
import pytest
from _grading import GIVEN_CELLS, SUPPORT_DIR, load, notebook
from _grading import given as shared_given

import attnlib
from attnlib.checks import CheckFailure, check_softmax

ROOT = Path(__file__).resolve().parents[1]


support = load("assignment_support")
grading = load("assignment_grading")
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="isolation forks, on Linux")


def my_softmax(S):
    E = np.exp(S - np.max(S, axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def library_softmax(S):
    return attnlib.softmax(S)


def spin(x):
    while True:
        try:
            x += 1
        except Exception:  # a loop that swallows the first alarm is stopped too
            pass


def retry(x):
    """An honest mistake: a retry loop whose bare except swallows every time limit."""
    while True:
        try:
            while True:
                x += 1
        except:  # noqa: E722
            pass


@pytest.fixture(autouse=True)
def fresh_registry():
    support._timed_out.clear()
    support.ISOLATE = None
    yield
    support._timed_out.clear()
    support.ISOLATE = None


@pytest.fixture(params=[False, pytest.param(True, marks=linux)], ids=["in-process", "isolated"])
def isolate(request):
    support.ISOLATE = request.param
    return request.param


# --- time limits --------------------------------------------------------------------------------


def test_a_loop_is_stopped_and_not_run_again(isolate):
    start = time.monotonic()
    with pytest.raises(support.TimeLimitExceeded, match=r"spin\(\.\.\.\) ran longer than 0.3 s"):
        support.call(spin, 0, seconds=0.3)
    assert time.monotonic() - start < 3
    with pytest.raises(support.TimeLimitExceeded, match="spin already ran out of time"):
        support.call(spin, 0, seconds=0.3)
    assert time.monotonic() - start < 3


@linux
def test_a_swallowed_limit_is_stopped_in_isolation():
    support.ISOLATE = True
    start = time.monotonic()
    with pytest.raises(support.TimeLimitExceeded):
        support.call(retry, 0, seconds=0.5)
    assert time.monotonic() - start < 3
    np.testing.assert_allclose(support.call(my_softmax, np.zeros(2)), [0.5, 0.5])  # the next call works


def test_in_process_a_swallowed_limit_is_not_stopped():
    """Why grading isolates: in-process, a bare except in a retry loop swallows every alarm."""
    script = textwrap.dedent(f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("s", {str(SUPPORT_DIR / 'assignment_support.py')!r})
        s = importlib.util.module_from_spec(spec); spec.loader.exec_module(s)
        s.ISOLATE = False
        def retry(x):
            while True:
                try:
                    while True:
                        x += 1
                except:
                    pass
        print("looping", flush=True)
        s.call(retry, 0, seconds=0.3)
    """)
    with pytest.raises(subprocess.TimeoutExpired) as stopped:
        subprocess.run([sys.executable, "-c", script], timeout=8, capture_output=True)
    assert b"looping" in (stopped.value.stdout or b""), "the loop started, and was still running at 8 s"


def test_nested_limits_keep_the_outer_one():
    with pytest.raises(support.TimeLimitExceeded, match="outer"):
        with support.time_limit(0.3, "outer"):
            with support.time_limit(5, "inner"):
                pass
            while True:
                pass


# --- isolation: what a function changes dies with its process ------------------------------------


def tampers(S):
    np.isclose = lambda *args, **kwargs: np.True_
    support.expect_close = lambda *args, **kwargs: True
    globals()["my_softmax"] = lambda S: S
    return np.zeros(np.shape(S))


@linux
def test_tampering_inside_a_function_does_not_reach_the_grader():
    support.ISOLATE = True
    isclose, expect_close = np.isclose, support.expect_close
    got = support.call(tampers, np.zeros(3))
    assert np.isclose is isclose and support.expect_close is expect_close and my_softmax.__name__ == "my_softmax"
    with pytest.raises(AssertionError, match="entries differ"):
        support.expect_close(got, [1.0, 1.0, 1.0], "x")


def test_in_process_tampering_would_reach_the_grader(monkeypatch):
    """What isolation prevents (undone by monkeypatch): in-process, the patch outlives the call."""
    support.ISOLATE = False
    monkeypatch.setattr(np, "isclose", np.isclose)
    monkeypatch.setattr(support, "expect_close", support.expect_close)
    monkeypatch.setitem(globals(), "my_softmax", my_softmax)
    support.call(tampers, np.zeros(3))
    assert support.expect_close(np.zeros(3), [1.0, 1.0, 1.0], "x") is True


class Liar:
    def __eq__(self, other):
        return True

    def __array__(self, dtype=None, copy=None):
        return np.ones(3)


def test_answers_are_plain_data(isolate):
    with pytest.raises(support.AnswerTypeError, match="returned a Liar"):
        support.call(lambda: Liar())
    with pytest.raises(support.AnswerTypeError, match="dtype object"):
        support.call(lambda: np.array([Liar()], dtype=object))
    got = support.call(lambda: (np.float64(1.5), [1, 2], np.arange(3), True, None, "s"))
    assert got[0] == 1.5 and isinstance(got[0], np.floating) and got[1] == [1, 2] and got[3] is True
    np.testing.assert_array_equal(got[2], np.arange(3))
    assert support.expect_equal((1, 2), (1, 2), "t") and support.expect_equal(np.array([0, 1]), np.array([0, 1]), "a")
    with pytest.raises(AssertionError, match="expected a int"):
        support.expect_equal(1.0, 1, "an int")
    with pytest.raises(AssertionError, match="expected a bool"):
        support.expect_equal(np.float64(1.0), True, "a bool")


def raises_value_error(x):
    raise ValueError("bad x")


class MyError(Exception):
    pass


def raises_own(x):
    raise MyError("mine")


def test_exceptions_come_back_by_kind(isolate):
    with pytest.raises(ValueError, match="bad x"):
        support.call(raises_value_error, 1)
    error = support.StudentError if isolate else MyError
    with pytest.raises(error, match="mine"):
        support.call(raises_own, 1)
    assert support.raises(ValueError, raises_value_error, 1)
    with pytest.raises(AssertionError, match="expected ValueError, but it returned"):
        support.raises(ValueError, my_softmax, np.zeros(2))


def changes_input(X):
    X[0] = 99.0
    return X.sum()


def test_in_place_changes_are_seen_by_the_checks(isolate):
    X = np.zeros(3)
    assert support.call(changes_input, X) == 99.0
    assert X[0] == 99.0


def builds_a_matrix(n):
    return np.ones((n, n)).sum()


def test_memory_is_measured_where_the_function_runs(isolate):
    got, peak = support.call_measured(builds_a_matrix, 500)
    assert got == 250000.0 and peak >= 500 * 500 * 8
    got, peak = support.call_measured(lambda n: float(n), 500)
    assert peak < 500 * 500 * 8 / 4


# --- no library shortcuts -----------------------------------------------------------------------


def test_library_call_is_refused_and_the_library_restored(isolate):
    with pytest.raises(support.LibraryCallForbidden, match="calls attnlib's softmax"):
        support.call(library_softmax, np.zeros(3))
    np.testing.assert_allclose(attnlib.softmax(np.zeros(2)), [0.5, 0.5])  # restored afterwards
    np.testing.assert_allclose(support.call(my_softmax, np.zeros(2)), [0.5, 0.5])


def test_the_library_calls_itself_and_allowed_names_go_through(isolate):
    from attnlib.rkhs import cubic_features, fit_linear_attention

    X = attnlib.gaussian_inputs(30, 3, 2, rng=0)
    Y = X[:, -1]
    # allowed, fit_linear_attention runs, and its own calls inside the library (cubic_features) go through
    coef = support.call(lambda X: fit_linear_attention(X, Y).coef, X, allow=("fit_linear_attention",))
    np.testing.assert_allclose(coef, fit_linear_attention(X, Y).coef)
    got = support.call(lambda X: cubic_features(X), X, allow=("cubic_features",))
    assert got.shape == (30, 6)
    with pytest.raises(support.LibraryCallForbidden, match="fit_linear_attention"):
        support.call(lambda X: fit_linear_attention(X, Y).coef, X, allow=("cubic_features",))
    # an allowed function's argument checks call the library too (the heads kind calls as_heads)
    heads = attnlib.random_heads(1, 2, rng=0)
    got = support.call(lambda X: attnlib.attention(X, heads), X, allow=("attention",))
    np.testing.assert_allclose(got, attnlib.attention(X, heads))


def test_only_public_functions_are_guarded():
    guarded = [f for f, _ in support._library()[0]]
    names = {f"{f.__module__}.{f.__qualname__}" for f in guarded}
    assert "attnlib.attention.softmax" in names and "attnlib.rkhs.features.cubic_features" in names
    private = [n for n in names if n.split(".")[-1].startswith("_")]
    assert not private, f"private functions guarded: {private[:5]}"
    assert not [n for n in names if n.startswith("attnlib.checks")], "the checks are the tests' own"


HONEST_SCIPY = textwrap.dedent("""
    import importlib.util, sys
    spec = importlib.util.spec_from_file_location("s", {path!r})
    s = importlib.util.module_from_spec(spec); spec.loader.exec_module(s)
    s.ISOLATE = {isolate}
    assert "scipy.linalg" not in sys.modules
    def solve(A, b):
        from scipy.linalg import solve as scipy_solve   # an honest import inside an answer
        return scipy_solve(A, b)
    print(s.call(solve, [[2.0, 0.0], [0.0, 4.0]], [2.0, 4.0]))
""")


@pytest.mark.parametrize("isolate", [False, pytest.param(True, marks=linux)], ids=["in-process", "isolated"])
def test_an_honest_scipy_import_goes_through(isolate):
    script = HONEST_SCIPY.format(path=str(SUPPORT_DIR / "assignment_support.py"), isolate=isolate)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[1. 1.]"


# --- feedback -----------------------------------------------------------------------------------


def test_check_passes_and_fails_with_the_books_message(isolate):
    assert support.check(check_softmax, my_softmax) is True
    with pytest.raises(CheckFailure, match="LibraryCallForbidden"):
        support.check(check_softmax, library_softmax)
    with pytest.raises(CheckFailure, match="check_softmax: on case"):
        support.check(check_softmax, lambda S: np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True))


def test_expect_close_says_what_differs():
    assert support.expect_close([1.0, 2.0], [1.0, 2.0], "x")
    with pytest.raises(AssertionError, match=r"x: 1 of 2 entries differ, first at index \(1,\): got 3, expected 2"):
        support.expect_close([1.0, 3.0], [1.0, 2.0], "x")
    with pytest.raises(AssertionError, match=r"x: shape \(3,\), expected \(2,\)"):
        support.expect_close([1.0, 2.0, 3.0], [1.0, 2.0], "x")
    with pytest.raises(support.AnswerTypeError):
        support.expect_close(Liar(), [1.0, 1.0, 1.0], "x")


# --- the notebook and handing in ----------------------------------------------------------------


def test_the_grader_object_works_whatever_the_file_is_called(tmp_path, monkeypatch):
    pytest.importorskip("otter")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "smith_1234_a1.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                              "nbformat_minor": 5}))
    grader = support.notebook("a1")  # otter.Notebook("a1.ipynb") raises here
    assert Path(grader._notebook).name == "smith_1234_a1.ipynb"


def test_hand_in_on_colab_writes_and_downloads_the_zip(tmp_path, monkeypatch):
    downloaded = []
    colab = types.ModuleType("google.colab")
    colab._message = types.SimpleNamespace(blocking_request=lambda what, timeout_sec: {"ipynb": {"cells": []}})
    colab.files = types.SimpleNamespace(download=downloaded.append)
    google = types.ModuleType("google")
    google.colab = colab
    monkeypatch.setitem(sys.modules, "google", google)
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.chdir(tmp_path)

    class Grader:  # otter's export would raise on Colab; it must not be called
        _grading_mode = False

        def export(self, *args, **kwargs):
            raise RuntimeError("This method is not compatible with Google Colab")

    out = support.hand_in(Grader(), "a1")
    assert downloaded == [out] and (tmp_path / out).exists() and (tmp_path / "a1.ipynb").exists()


def test_hand_in_does_nothing_while_grading():
    class Grader:
        _grading_mode = True

    assert support.hand_in(Grader(), "a1") == ""


# --- the plugin: what the grader runs of a submission --------------------------------------------

def given():
    return shared_given(grading)


HONEST = '''import math
from scipy.linalg import solve

TOLERANCE = 1e-8
ORDER = (0, 1, 2)


def helper(x, scale=2.0, kind=np.float64):
    """A docstring."""
    return scale * x


@staticmethod
def tidy(x: np.ndarray) -> np.ndarray:
    return x


class Box:
    size = 3

    def area(self):
        return self.size ** 2


def answer(x):
    while True:
        try:
            return helper(x)
        except ValueError:
            pass
'''

# The tampering cells of issue 30, each with the flags it must raise.
TAMPERING = {
    "rewrites the hidden tests": ('''import glob
for path in glob.glob("tests/q*.py"):
    with open(path, "w") as f:
        f.write("OK_FORMAT = True\\ntest = {}")''', ["open(", "tests/"]),
    "patches otter's doctest runner": ('''import otter.test_files.ok_test as ok_test
ok_test.run_doctest = lambda name, code, env: (True, "")''',
                                        ["otter", "attribute assignment on a module (ok_test.run_doctest)"]),
    "patches the support file": ('''import assignment_support
assignment_support.expect_close = lambda *args, **kwargs: True''',
                                 ["assignment_support",
                                  "attribute assignment on a module (assignment_support.expect_close)"]),
    "patches numpy.isclose": ('''import numpy
numpy.isclose = lambda *args, **kwargs: numpy.True_''', ["attribute assignment on a module (numpy.isclose)"]),
    "hooks post_run_cell": ('''import pickle
def rewrite(result):
    pickle.dump("full marks", open("/tmp/results.pkl", "wb"))
get_ipython().events.register("post_run_cell", rewrite)''', ["pickle", "open(", "get_ipython"]),
    "a decorator that runs at definition": ('''def tamper(f):
    import numpy
    numpy.isclose = lambda *a, **k: True
    return f
@tamper
def answer(x):
    return x''', ["attribute assignment on a module (numpy.isclose)", "the decorator @tamper"]),
    "a default argument that runs at definition": ('''import sys
def answer(x, _=setattr(sys.modules["numpy"], "isclose", lambda *a, **k: True)):
    return x''', ["sys.modules", "the default setattr"]),
    "a metaclass": ('''class Meta(type):
    def __new__(mcs, name, bases, ns):
        import assignment_support
        assignment_support.call = lambda *a, **k: None
        return super().__new__(mcs, name, bases, ns)
class Answer(metaclass=Meta):
    pass''', ["assignment_support", "metaclass"]),
    "rebinds a name the tests use": ('''def attention(*args, **kwargs):
    return 0''', ["rebinds the given name attention"]),
    "an answer that lies about equality": ('''class Always:
    def __eq__(self, other):
        return True
def answer(x):
    return Always()''', ["__eq__"]),
    "reads frames and code objects": ('''import sys
def answer(x):
    return sys._getframe(1).f_globals["_expected"], answer.__code__, answer.__globals__''',
                                      ["sys._getframe", "frames (f_globals)", "__code__", "__globals__"]),
    "exits the grader": ('''import os, signal
def answer(x):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    os._exit(0)''', ["signal", "os._exit"]),
    "runs text as code": ('''def answer(x):
    return eval("x") + exec("pass")''', ["eval", "exec"]),
}


def kept(code):
    return grading.definitions(code, given())


def test_honest_definitions_are_kept_whole_and_not_flagged():
    code, notes = kept(HONEST)
    for name in ("math", "solve", "TOLERANCE", "ORDER", "helper", "tidy", "Box", "answer"):
        assert name in code
    assert notes == []
    assert grading.flags(notebook(*GIVEN_CELLS, HONEST), given()) == []
    scope = {"np": np}
    exec(code, scope)  # what is kept runs, and means what it meant
    assert scope["answer"](2.0) == 4.0 and scope["Box"]().area() == 9 and scope["ORDER"] == (0, 1, 2)


def test_what_does_not_define_is_dropped_with_a_note():
    code, notes = kept("x = np.zeros(3)\nprint(x)\nfor i in range(3):\n    pass\nnp.isclose = None\n"
                       "N = 23\ngrader.check('q1')\n%timeit 1")
    assert code == "x = np.zeros(3)\nN = 23", "a plain value is kept"
    assert len(notes) == 5 and all(n.startswith("not a definition") for n in notes)
    assert kept("def f(:\n")[0] == "" and "does not parse" in kept("def f(:\n")[1][0]


def test_the_given_code_is_kept_and_protected():
    assert kept(GIVEN_CELLS[1])[0].count("import") == 2, "the given imports, unchanged, are kept"
    assert kept("import numpy as np")[0] == "import numpy as np"
    assert kept("import math as np")[0] == "" and "rebinds the given name np" in kept("import math as np")[1][0]
    assert kept("rng = 3")[0] == ""


@pytest.mark.parametrize("case", list(TAMPERING), ids=list(TAMPERING))
def test_each_tampering_cell_is_neutralised_and_flagged(case):
    code, expected = TAMPERING[case]
    flags = " ".join(grading.flags(notebook(*GIVEN_CELLS, code), given()))
    for flag in expected:
        assert flag in flags, f"{case}: {flag!r} not in {flags!r}"
    graded, _ = kept(code)
    # what is left runs nothing at definition time, and leaves numpy, the support file and otter alone
    script = textwrap.dedent(f"""
        import sys, types, numpy
        sys.modules["assignment_support"] = support = types.ModuleType("assignment_support")
        support.call = support.expect_close = marker = object()
        # otter comes with the course extra only: stand in for the module a cell may patch
        for name in ("otter", "otter.test_files", "otter.test_files.ok_test"):
            sys.modules[name] = types.ModuleType(name)
        sys.modules["otter"].test_files = sys.modules["otter.test_files"]
        sys.modules["otter.test_files"].ok_test = ok_test = sys.modules["otter.test_files.ok_test"]
        ok_test.run_doctest = marker
        isclose = numpy.isclose
        def get_ipython():
            raise AssertionError("the IPython hook was registered")
        exec(compile({graded!r}, "kept", "exec"), {{"np": numpy, "get_ipython": get_ipython}})
        assert numpy.isclose is isclose and support.call is marker and support.expect_close is marker
        assert ok_test.run_doctest is marker
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr[-1500:]


def test_without_the_filter_the_tampering_works():
    """The check above can fail: the unfiltered numpy and support-file cells do patch."""
    for case in ("patches numpy.isclose", "patches the support file", "a decorator that runs at definition"):
        script = textwrap.dedent(f"""
            import sys, types, numpy
            sys.modules["assignment_support"] = types.ModuleType("assignment_support")
            isclose = numpy.isclose
            exec(compile({TAMPERING[case][0]!r}, "cell", "exec"), {{"np": numpy}})
            patched = numpy.isclose is not isclose or hasattr(sys.modules["assignment_support"], "expect_close")
            sys.exit(0 if patched else 1)
        """)
        assert subprocess.run([sys.executable, "-c", script], timeout=60).returncode == 0, case


def test_the_graded_notebook():
    nb = notebook(*GIVEN_CELLS, "def answer(x):\n    return x + 1\nanswer(1)\nwhile True:\n    pass")
    tests = {"./tests/q1.py": "OK_FORMAT = True\ntest = {}"}
    graded, dropped = grading.graded_notebook(nb, given(), tests, "/tmp/progress.json")
    sources = [c["source"] for c in graded["cells"]]
    assert sources[:3] == GIVEN_CELLS and "return x + 1" in sources[-2] and "while True" not in "".join(sources[:-1])
    assert len(dropped) == 2 and graded["metadata"]["kernelspec"]["name"] == "python3"
    last = sources[-1]
    assert "Checker.check_if_not_already_checked" in last and "/tmp/progress.json" in last
    compile(last, "progress", "exec")


def test_public_output_keeps_the_error_and_removes_hidden_text():
    hidden_test = ("OK_FORMAT = True\ntest = {'name': 'q1', 'suites': [{'cases': "
                   "[{'code': '>>> assert secret_answer == 42', 'hidden': True}]}]}")
    hidden = grading.hidden_lines({"./tests/q1.py": hidden_test})
    assert hidden == {"assert secret_answer == 42"}
    message = ("❌ Test case failed\nTrying:\n    x = 1\nExpecting nothing\nok\nFailed example:\n    f(1)\n"
               "Exception raised:\n    Traceback (most recent call last):\n      File ...\n"
               "    ValueError: OK_FORMAT = True assert secret_answer == 42\n    more text\n" + "x" * 5000)
    shown = grading.public_message(message, hidden)
    assert "secret_answer" not in shown and "f(1)" in shown and "ValueError" in shown and len(shown) <= 600
    printed = "❌ Test case failed\nFailed example:\n    f(1)\nExpected nothing\nGot:\n    assert secret_answer == 42\n"
    assert ("secret" not in grading.public_message(printed, hidden)
            and "printed output" in grading.public_message(printed, hidden))


def test_hand_in_notes_list_what_the_grader_skips():
    nb = notebook(*GIVEN_CELLS, "W = np.load('w.npy')\ndef answer(x):\n    return W @ x", "grader.check('q1')")
    notes = grading.dropped_notes(nb, given())
    assert notes[0].startswith("At grading, only imports") and any("W = np.load('w.npy')" in n for n in notes)
    assert not any("grader.check" in n for n in notes)
    assert grading.dropped_notes(notebook(*GIVEN_CELLS), given()) == []
