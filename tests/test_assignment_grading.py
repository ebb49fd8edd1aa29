"""The grading plugin (assignments/_support/assignment_grading.py): definitions trusted for what they
are, honest top-level values kept, the book checks' messages shown, uploads cleared to the notebook."""

import importlib.util
import json
import math
import os
import pickle
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from _grading import GIVEN_CELLS, SUPPORT_DIR, load, notebook
from _grading import given as shared_given

ROOT = Path(__file__).resolve().parents[1]
grading = load("assignment_grading", "assignment_grading_under_test")


def given():
    return shared_given(grading)


def graded_code(*cells):
    """What the grader runs of the student's cells (the notebook holds only those; the given cells come
    from the configuration, first)."""
    graded, _ = grading.graded_notebook(notebook(*cells), given(), {}, None)
    return "\n".join(c["source"] for c in graded["cells"][len(GIVEN_CELLS):-1])


#: A stand-in for the given cells when the kept code runs on its own.
GIVEN_STAND_IN = "import numpy as np\nrng = np.random.default_rng(1)\n"


# --- 1. definitions are trusted by what they are, not by their names -------------------------------

RUNS = 'open(__import__("os").environ["RAN"], "w").close()'
#: Each cell runs student code while something is being defined (a decorator, a base class, a class
#: hook), through a name that looks safe; with the flag note each must raise.
SHADOWING = {
    "own dataclass": (f"def dataclass(cls):\n    {RUNS}\n    return cls\n@dataclass\nclass A:\n    x: int = 1",
                      ["binds dataclass", "@dataclass of class A"]),
    "own property": (f"def property(f):\n    {RUNS}\n    return f\nclass B:\n    @property\n    def v(self):\n"
                     "        return 1", ["binds property", "@property of B.v"]),
    "exception base with __init_subclass__": (
        f"class ValueError(Exception):\n    def __init_subclass__(cls):\n        {RUNS}\nclass C(ValueError):\n"
        "    pass", ["binds ValueError", "the base ValueError"]),
    "import bound to a safe name": ('import os\nfrom os import system as property\nclass B:\n    @property\n'
                                    '    def v(self):\n        return 1\nos.environ["RAN"]',
                                    ["binds property", "@property of B.v"]),
    "__set_name__": (f"class D:\n    def __set_name__(self, owner, name):\n        {RUNS}\nclass E:\n    d = D()",
                     ["class D defines __set_name__"]),
    "__class_getitem__": (f"class K:\n    def __class_getitem__(cls, item):\n        {RUNS}\nclass E:\n"
                          "    x: K[int] = 1", ["__class_getitem__"]),
    "metaclass keyword": (f"class M(type):\n    def __new__(mcs, *a):\n        {RUNS}\n"
                          "        return type.__new__(mcs, *a)\nclass N(metaclass=M):\n    pass", ["metaclass=M"]),
    "own decorator": (f"def tamper(f):\n    {RUNS}\n    return f\n@tamper\ndef answer(x):\n    return x",
                      ["binds tamper", "@tamper of answer"]),
    "own base": (f"class Base:\n    def __init_subclass__(cls):\n        {RUNS}\nclass Child(Base):\n    pass",
                 ["binds Base", "the base Base"]),
}


@pytest.mark.parametrize("case", list(SHADOWING), ids=list(SHADOWING))
def test_a_definition_that_runs_code_through_a_safe_looking_name_is_dropped_and_flagged(case, tmp_path):
    code, expected = SHADOWING[case]
    flags = " ".join(grading.flags(notebook(*GIVEN_CELLS, code), given()))
    notes = " ".join(grading.dropped_notes(notebook(*GIVEN_CELLS, code), given()))
    for part in expected:
        assert part in flags and part in notes, f"{case}: {part!r} not in {flags!r} / {notes!r}"
    ran = tmp_path / "ran"
    env = {**os.environ, "RAN": str(ran)}
    raw = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert ran.exists() or case == "import bound to a safe name", f"{case}: the cell itself must run code ({raw})"
    ran.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, "-c", GIVEN_STAND_IN + graded_code(code)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not ran.exists(), f"{case}: the kept code ran student code: {done.stderr}"


def test_the_real_decorators_and_bases_are_kept_unflagged():
    code = ("import functools\nfrom functools import cache\nfrom dataclasses import dataclass\nfrom math import pow\n"
            "@functools.lru_cache(maxsize=None)\ndef f(x):\n    return x + 1\n@cache\ndef g(x):\n    return 2 * x\n"
            "@dataclass\nclass P:\n    a: int = 3\nclass Bad(ValueError):\n    pass\nclass Box:\n    @property\n"
            "    def size(self):\n        return 4\n    @staticmethod\n    def twice(x):\n        return 2 * x\n"
            "@np.vectorize\ndef h(x):\n    return x * 3")
    assert grading.flags(notebook(*GIVEN_CELLS, code), given()) == []
    assert grading.dropped_notes(notebook(*GIVEN_CELLS, code), given()) == []
    scope = {"np": np}
    exec(graded_code(code), scope)
    values = (scope["f"](1), scope["g"](2), scope["P"]().a, scope["Box"]().size, scope["Box"].twice(5))
    assert values == (2, 4, 3, 4, 10)
    assert issubclass(scope["Bad"], ValueError) and list(scope["h"](np.array([1, 2]))) == [3, 6]


def test_a_renamed_import_of_a_decorator_is_not_trusted():
    code = "import functools as ft\n@ft.cache\ndef f(x):\n    return x"
    assert "@ft.cache of f" in " ".join(grading.flags(notebook(*GIVEN_CELLS, code), given()))


# --- 2. honest top-level helpers are kept -----------------------------------------------------------

HELPERS = ("SQRT2 = np.sqrt(2.0)\nEPS = 1e-12 * 3\nrelu = lambda x, floor=0.0: np.maximum(x, floor)\n"
           "W = np.eye(3)\nn: int = W.shape[0]\nHALF, THIRD = 1 / 2, 1 / 3\nimport math\nPI_4 = math.pi / 4\n"
           "ORDER = [k ** 2 for k in range(n)]\n"
           "def answer(x):\n    return relu(W @ x - EPS) * SQRT2")


def test_honest_top_level_values_are_kept_and_mean_what_they_meant():
    assert grading.dropped_notes(notebook(*GIVEN_CELLS, HELPERS), given()) == []
    assert grading.flags(notebook(*GIVEN_CELLS, HELPERS), given()) == []
    scope = {"np": np}
    exec(graded_code(HELPERS), scope)
    x = np.array([1.0, -2.0, 3.0])
    expected = np.array([max(v - 3e-12, 0.0) * math.sqrt(2) for v in x])
    assert np.allclose(scope["answer"](x), expected, rtol=0, atol=1e-15)
    assert (scope["n"], scope["HALF"], scope["ORDER"], scope["PI_4"]) == (3, 0.5, [0, 1, 4], math.atan(1.0))


UNSAFE_VALUES = {
    "x = open('f').read()": "method",
    "y = np.load('a.npy')": "numpy.load",
    "z = my_function(3)": "my_function",
    "q = (lambda: __import__('os'))()": "lambda",
    "w = np.seterr(all='ignore')": "numpy.seterr",
    "s = ().__class__.__base__.__subclasses__()": "method",
    "u = np.random.seed(0)": "numpy.random.seed",
    "f = np.ndarray.fill": "not a module",
    "v = np.add(rng, 1, out=rng)": "out=",
    "W = np.eye(2)\nm = np.multiply(W, 0, W)": "out, by position",
    "c = np.cumsum(np.ones(3), 0, None, rng)": "out, by position",
    "t = attention": "attnlib",
    "r = rng.normal()": "method",
    "import fractions\np = fractions.sys.exit": "sys",
    "k = list(map(lambda a: a, [1]))": "lambda",
}


@pytest.mark.parametrize("line", list(UNSAFE_VALUES), ids=list(UNSAFE_VALUES))
def test_a_value_that_would_run_code_or_touch_the_world_is_dropped_with_a_reason(line):
    code = "def my_function(a):\n    return a\n" + line
    graded = graded_code(code)
    target = line.splitlines()[-1].split(" = ")[0]
    assert f"{target} =" not in graded, graded
    notes = [n for n in grading.dropped_notes(notebook(*GIVEN_CELLS, code), given()) if f"{target} =" in n]
    assert len(notes) == 1 and "not a plain value" in notes[0] and UNSAFE_VALUES[line] in notes[0], notes


def test_a_kept_value_uses_no_function_of_the_students():
    code = "def f(a):\n    return a\nrelu = lambda a: a\nA = f\nB = relu(2)\nC = np.vectorize(f)"
    graded = graded_code(code)
    assert "A =" not in graded and "B =" not in graded and "C =" not in graded and "relu = lambda" in graded


def test_a_kept_value_does_not_rebind_a_given_name():
    code = "rng = np.random.default_rng(7)"
    assert "rng" not in graded_code(code)
    assert any("rebinds the given name rng" in f for f in grading.flags(notebook(*GIVEN_CELLS, code), given()))


# --- 5. one decision: what is graded, what the student is told, what the instructor sees -----------

def test_the_hand_in_notes_list_exactly_what_grading_drops():
    cells = [HELPERS, SHADOWING["own property"][0], "def helper(x):\n    return x\nz = helper(2)\nprint(z)"]
    nb = notebook(*GIVEN_CELLS, *cells)
    _, dropped = grading.graded_notebook(nb, given(), {}, None)
    notes = grading.dropped_notes(nb, given())
    strip = [n.split(": ", 1)[1].removesuffix(" (reported to your instructor)") for n in notes[1:]]
    assert strip == [d.split(": ", 1)[1] for d in dropped] and len(strip) == 4
    flagged = [n for n in notes if n.endswith("(reported to your instructor)")]
    flags = " ".join(grading.flags(nb, given()))
    assert len(flagged) == 2 and all(n.split(": ", 1)[1].split(" (reported")[0] in flags for n in flagged)


# --- 3. a failed book check's message reaches the student -----------------------------------------

#: A failed public test of A1's q1 as otter 7.0.0 records it (``otter run`` on a float32 answer;
#: the doctest output of otter.test_files.ok_test.run_doctest, prefixed as OKTestFile.run does).
CHECK_FAILED = """❌ Test case failed
Trying:
    import assignment_support as _s
Expecting nothing
ok
Trying:
    from attnlib.checks import check_softmax
Expecting nothing
ok
Trying:
    assert _s.check(check_softmax, lambda S: masked_softmax(S, np.full(np.shape(S), False)))
Expecting nothing
**********************************************************************
Line 3, in q1 0
Failed example:
    assert _s.check(check_softmax, lambda S: masked_softmax(S, np.full(np.shape(S), False)))
Exception raised:
    Traceback (most recent call last):
      File "/root/.pyenv/versions/3.11.7/lib/python3.11/doctest.py", line 1353, in __run
        exec(compile(example.source, filename, "single",
      File "<doctest q1 0[2]>", line 1, in <module>
        assert _s.check(check_softmax, lambda S: masked_softmax(S, np.full(np.shape(S), False)))
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "/tmp/tmpx33kk0gf/autograder/submission/assignment_support.py", line 448, in check
        book_check(guarded(fn, min(SECONDS, seconds), allow))
      File "/work/venv-course/lib/python3.11/site-packages/attnlib/checks/_core.py", line 204, in _compare_one
        raise CheckFailure(
    attnlib.checks._core.CheckFailure: check_softmax: on case 'one row of logits' (S of shape (5,)), the output \
at index (0,) is 0.444817 (relative error 6.5e-08, above the tolerance rtol=1e-09, atol=1e-12); expected 0.444817 \
(5 of 5 entries differ). Your answer is float32, which holds about 6 digits; compute in float64. Common slip: \
subtract each row's maximum before exp (a row of -inf needs a guard), then divide by the row's sum, both along \
the last axis.
"""

#: The same, for an expect_close failure whose message spans two lines, raised while handling another.
CLOSE_FAILED = """❌ Test case failed
Trying:
    _got = _s.call(masked_softmax, _S, _drop)
Expecting nothing
ok
Trying:
    assert _s.expect_close(_got, _secret_expected, 'masked_softmax on a 2 x 3 example')
Expecting nothing
**********************************************************************
Line 2, in q1 1
Failed example:
    assert _s.expect_close(_got, _secret_expected, 'masked_softmax on a 2 x 3 example')
Exception raised:
    Traceback (most recent call last):
      File "assignment_support.py", line 470, in expect_close
        got = np.asarray(got, dtype=float)
    TypeError: float() argument must be a string or a real number, not 'NoneType'
    <BLANKLINE>
    During handling of the above exception, another exception occurred:
    <BLANKLINE>
    Traceback (most recent call last):
      File "<doctest q1 1[1]>", line 1, in <module>
        assert _s.expect_close(_got, _secret_expected, 'masked_softmax on a 2 x 3 example')
      File "assignment_support.py", line 482, in expect_close
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} entries differ")
    AssertionError: masked_softmax on a 2 x 3 example: 6 of 6 entries differ, first at index (0, 0):
      got 0.268941, expected 0.25
"""


def test_the_book_checks_message_reaches_the_student():
    shown = grading.public_message(CHECK_FAILED, set())
    assert "compute in float64" in shown and "CheckFailure: check_softmax: on case 'one row of logits'" in shown
    assert "Traceback" not in shown and "doctest.py" not in shown and "assignment_support.py" not in shown
    assert shown.splitlines()[1].strip().startswith("assert _s.check(check_softmax")
    close = grading.public_message(CLOSE_FAILED, set())
    assert close.endswith("AssertionError: masked_softmax on a 2 x 3 example: 6 of 6 entries differ, first at index "
                          "(0, 0):\n      got 0.268941, expected 0.25")
    assert "TypeError" not in close


def test_the_message_keeps_no_hidden_line_and_stays_short():
    hidden = {"assert _s.expect_close(_got, _secret_expected, 'masked_softmax on a 2 x 3 example')"}
    shown = grading.public_message(CLOSE_FAILED, hidden)
    assert "_secret_expected" not in shown and "6 of 6 entries differ" in shown
    long = CHECK_FAILED.replace("the last axis.", "the last axis. " + "x" * 5000)
    assert len(grading.public_message(long, set())) <= grading.PUBLIC_OUTPUT
    printed = "❌ Test case failed\nFailed example:\n    f(1)\nExpected nothing\nGot:\n    secret\n"
    assert "secret" not in grading.public_message(printed, set())


# --- 4. everything in an upload but the notebook is deleted ---------------------------------------

def _otter_layout(tmp_path: Path) -> tuple[Path, Path]:
    """An autograder folder as otter leaves it when the plugin runs: source/ (the zip), submission/ (the
    upload, with otter's copies of source/files and source/tests, and its __init__.py)."""
    source, submission = tmp_path / "source", tmp_path / "submission"
    (source / "files").mkdir(parents=True)
    (source / "tests").mkdir()
    (source / "files" / "assignment_support.py").write_text("REAL = True\n")
    (source / "tests" / "q1.py").write_text("OK_FORMAT = True\ntest = {}\n")
    submission.mkdir()
    (submission / "a1.ipynb").write_text("{}")
    (submission / "numpy").mkdir()
    (submission / "numpy" / "__init__.py").write_text("raise ImportError\n")
    (submission / "helpers.py").write_text("x = 1\n")
    (submission / ".OTTER_LOG").write_text("log")
    (submission / "__init__.py").write_text("import os\n")
    shutil.copytree(source / "tests", submission / "tests")
    shutil.copy(source / "files" / "assignment_support.py", submission)
    return source, submission


def test_the_upload_is_cleared_to_the_notebook_and_the_graders_files(tmp_path):
    source, submission = _otter_layout(tmp_path)
    removed = grading.clear_upload(str(submission), "a1.ipynb", str(source))
    assert removed == ["__init__.py", "helpers.py", "numpy/"]
    assert sorted(p.name for p in submission.iterdir()) == ["__init__.py", "a1.ipynb", "assignment_support.py", "tests"]
    assert (submission / "__init__.py").read_text() == "" and (submission / "assignment_support.py").read_text() == \
        "REAL = True\n"
    assert [p.name for p in (submission / "tests").iterdir()] == ["q1.py"]


def test_a_folder_named_like_a_graders_file_is_replaced(tmp_path):
    source, submission = _otter_layout(tmp_path)
    (submission / "assignment_support.py").unlink()
    (submission / "assignment_support.py").mkdir()  # otter's copy does not replace a folder
    removed = grading.clear_upload(str(submission), "a1.ipynb", str(source))
    assert "assignment_support.py/" in removed and (submission / "assignment_support.py").read_text() == "REAL = True\n"


SUPPORT = "def check(value):\n    return value == 4\n"
FAKE_SUPPORT = "def check(value):\n    return True\n"
TEST = """OK_FORMAT = True
test = {'name': 'q1', 'points': 1, 'suites': [{'cases': [{'code': '>>> import assignment_support as _s\\n'
        '>>> assert _s.check(answer(2))\\n', 'hidden': False, 'locked': False}], 'scored': True, 'setup': '',
        'teardown': '', 'type': 'doctest'}]}
"""


def _grade(tmp_path: Path, submission: Path) -> tuple[float, str]:
    autograder = tmp_path / "autograder.zip"
    config = {"lang": "python", "plugins": [{grading.PLUGIN: {"given": {"files": ["assignment_support.py"]}}}]}
    with zipfile.ZipFile(autograder, "w") as z:
        z.writestr("otter_config.json", json.dumps(config))
        z.writestr("tests/q1.py", TEST)
        z.writestr("files/assignment_support.py", SUPPORT)
    out = tmp_path / f"out-{submission.stem}"
    out.mkdir()
    plugin = tmp_path / "plugin"  # the plugin alone on the path, as scripts/grade_class.py puts it
    plugin.mkdir(exist_ok=True)
    shutil.copy(SUPPORT_DIR / "assignment_grading.py", plugin)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "otter", "run", "-a", str(autograder), "-o", str(out),
                           str(submission)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    results = json.loads((out / "results.json").read_text())
    score = sum(t.get("score") or 0 for t in results["tests"] if t.get("name") == "q1")
    return score, done.stdout + done.stderr


@pytest.mark.skipif(importlib.util.find_spec("otter") is None, reason="otter comes with the course extra")
def test_a_package_beside_the_notebook_is_not_imported_under_otter_run(tmp_path):
    nb = notebook("import numpy as np", "def answer(x):\n    return x + 1")  # wrong: 3, not 4
    (tmp_path / "a.ipynb").write_text(json.dumps(nb))
    upload = tmp_path / "upload.zip"
    with zipfile.ZipFile(upload, "w") as z:  # a package wins over a module of the same name on sys.path
        z.writestr("a.ipynb", json.dumps(nb))
        z.writestr("numpy/__init__.py", "raise ImportError('the numpy of the upload')\n")
        z.writestr("assignment_support.py", FAKE_SUPPORT)
        z.writestr("assignment_support/__init__.py", FAKE_SUPPORT)
    alone, _ = _grade(tmp_path, tmp_path / "a.ipynb")
    zipped, log = _grade(tmp_path, upload)
    assert alone == zipped == 0, log
    assert "removed from the upload (only the notebook is graded): assignment_support/, numpy/" in log, log
    right = notebook("def answer(x):\n    return x + 2")
    (tmp_path / "b.ipynb").write_text(json.dumps(right))
    assert _grade(tmp_path, tmp_path / "b.ipynb")[0] == 1, "the test can pass"


def test_the_hand_in_in_a_kernel_decides_as_the_grader_does(monkeypatch):
    """A Jupyter kernel adds display and get_ipython to the builtins; the plugin imported there (the
    hand-in cell) must not count them, or `def display(...)` would be dropped at home only."""
    import builtins

    monkeypatch.setattr(builtins, "display", print, raising=False)
    in_kernel = load("assignment_grading", "assignment_grading_under_test")
    assert in_kernel.BUILTIN_NAMES == grading.BUILTIN_NAMES and "display" not in grading.BUILTIN_NAMES
    code = "def display(x):\n    return x"
    assert in_kernel.dropped_notes(notebook(code), given()) == grading.dropped_notes(notebook(code), given()) == []


# --- otter's logging server ---------------------------------------------------------------------


class _Payload:
    """What an attack sends: unpickling it calls a function of the attacker's choice."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (Path.write_text, (Path(self.path), "ran in the grading process"))


def _otter_server_module(monkeypatch):
    """A stand-in for otter.execute.logging whose handler unpickles as otter 7.0.0's does (pickle.loads)."""
    import types

    handler = type("LogRecordStreamHandler", (), {"unpickle": lambda self, data: pickle.loads(data)})
    module = types.ModuleType("otter.execute.logging")
    module.LogRecordStreamHandler = handler
    for name in ("otter", "otter.execute"):
        monkeypatch.setitem(sys.modules, name, sys.modules.get(name) or types.ModuleType(name))
    monkeypatch.setattr(sys.modules["otter.execute"], "logging", module, raising=False)
    monkeypatch.setitem(sys.modules, "otter.execute.logging", module)
    return handler


def test_the_logging_server_unpickles_plain_records_only(tmp_path, monkeypatch):
    """otter's logging server unpickles what reaches its socket, in the grading process: after the plugin's
    patch a crafted pickle is refused (before it, it runs), and a real record still loads."""
    import logging.handlers

    handler = _otter_server_module(monkeypatch)
    target = tmp_path / "owned.txt"
    crafted = pickle.dumps(_Payload(target))
    handler().unpickle(crafted)
    assert target.exists(), "the stand-in must unpickle as otter does, or this test proves nothing"
    target.unlink()
    grading.plain_log_records()
    with pytest.raises(pickle.UnpicklingError, match="only plain data"):
        handler().unpickle(crafted)
    assert not target.exists()
    record = logging.makeLogRecord({"name": "otter", "msg": "graded %s", "args": ("q1",), "levelno": 20})
    sent = logging.handlers.SocketHandler("localhost", 0).makePickle(record)[4:]
    assert handler().unpickle(sent)["msg"] == "graded q1"


def test_the_real_logging_server_is_patched_by_the_plugin(monkeypatch):
    otter_logging = pytest.importorskip("otter.execute.logging")
    monkeypatch.setattr(otter_logging.LogRecordStreamHandler, "unpickle", otter_logging.LogRecordStreamHandler.unpickle)
    grading.GradeDefinitions("x.ipynb", None, {})
    with pytest.raises(pickle.UnpicklingError):
        otter_logging.LogRecordStreamHandler.unpickle(None, pickle.dumps(_Payload("/nonexistent/x")))


def test_the_upload_is_cleared_before_otter_reads_its_log(tmp_path):
    """otter unpickles (dill) a `.OTTER_LOG` found beside the notebook right after the plugins' before_grading
    hook: the upload must already be cleared then, not only before execution."""
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "a.ipynb").write_text("{}")
    (folder / ".OTTER_LOG").write_bytes(b"crafted")
    (folder / "numpy").mkdir()
    plugin = grading.GradeDefinitions(str(folder / "a.ipynb"), None, {"given": {"files": []}})
    plugin.before_grading(None)
    assert sorted(p.name for p in folder.iterdir()) == ["a.ipynb"]


@pytest.mark.parametrize("code, flagged", [
    ("import numpy as np\ndef f(top):\n    top[~np.isfinite(top)] = 0.0\n    return top", False),
    ("import numpy as np\ndef f(a):\n    a[np.argmax(a)], b = 1.0, 2\n    return a", False),
    ("import numpy as np\nnp.isclose = None", True),
    ("import numpy as np\ndef f():\n    np.linalg.norm = abs", True),
    ("import numpy as np\ndef f():\n    np.testing.x[0] = 1", True),
    ("import numpy as np\ndef f():\n    x, np.pi = 1, 3", True),
])
def test_an_index_that_calls_a_module_is_not_an_assignment_to_it(code, flagged):
    """Only what is assigned to counts: an index computed with numpy is not numpy's attribute."""
    found = " ".join(grading.flags(notebook(code), {}))
    assert ("attribute assignment on a module" in found) == flagged, found
