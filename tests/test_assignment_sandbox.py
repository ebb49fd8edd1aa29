"""The sandbox of the child process that runs a student's answer, and the library guard's reach.

Each attack is run twice: in the sandbox, where it must be refused with ``SandboxViolation`` and
leave no trace, and with the sandbox switched off (``_sandbox`` replaced by a no-op), where it
must succeed: so every check here fails when the defence it guards is taken away.
"""

import importlib
import importlib.util
import inspect
import os
import pkgutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _grading import SUPPORT_DIR, load

import attnlib

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux's")


support = load("assignment_support")


@pytest.fixture(autouse=True)
def isolated():
    support._timed_out.clear()
    support.ISOLATE = True
    yield
    support.ISOLATE = None


@pytest.fixture(params=["sandboxed", "unsandboxed"])
def sandboxed(request, monkeypatch):
    """Both ways: ``True`` in the sandbox, ``False`` with the sandbox switched off (the attack works)."""
    if request.param == "unsandboxed":
        monkeypatch.setattr(support, "_sandbox", lambda scratch, decide=None: [])
        monkeypatch.setattr(support, "_on_a_fresh_stack", _on_the_graders_stack)
        monkeypatch.setattr(support, "_forget_the_tests", lambda: None)
    return request.param == "sandboxed"


def _on_the_graders_stack(fn, args, kwargs, prepare):
    """What the child did before the sandbox: run the answer on the grader's own stack."""
    refused = prepare()
    try:
        return refused, False, fn(*args, **kwargs)
    except BaseException as err:  # noqa: BLE001
        return refused, True, err


def _attempt(fn, *args, refused: str, sandboxed: bool):
    """Run ``fn`` as the grader does: refused (naming ``refused``) in the sandbox, or its answer."""
    if sandboxed:
        with pytest.raises(support.SandboxViolation, match=refused):
            support.call(fn, *args)
        return None
    return support.call(fn, *args)


def _appears(path: Path, seconds: float = 1.5) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.05)
    return False


# --- processes, files, signals, sockets, C -------------------------------------------------------


def forks(marker):
    pid = os.fork()
    if pid == 0:
        Path(marker).write_text("the answer's own process")
        os._exit(0)
    os.waitpid(pid, 0)
    return 1.0


def popens(marker):
    subprocess.Popen(["sh", "-c", f"sleep 0.3; echo detached > {marker}"], start_new_session=True)
    return 1.0


def systems(marker):
    os.system(f"echo system > {marker}")
    return 1.0


@pytest.mark.parametrize("attack, event", [(forks, "os.fork"), (popens, "subprocess.Popen"),
                                           (systems, "os.system")])
def test_an_answer_starts_no_process(attack, event, sandboxed, tmp_path):
    marker = tmp_path / "started"
    _attempt(attack, str(marker), refused=rf"start processes \({event}\)", sandboxed=sandboxed)
    assert _appears(marker) is not sandboxed


def test_processes_started_behind_the_audit_hook_are_stopped_too(sandboxed, tmp_path):
    """``_posixsubprocess`` starts a process without an audit event: it is out of reach."""
    marker = tmp_path / "started"

    def raw(marker):
        fork_exec = getattr(sys.modules.get("subprocess"), "_fork_exec", None)
        if fork_exec is None:
            import _posixsubprocess  # refused in the sandbox
            fork_exec = _posixsubprocess.fork_exec
        args = [b"/bin/sh", b"-c", f"echo raw > {marker}".encode()]
        errpipe_read, errpipe_write = os.pipe()
        fork_exec(args, [b"/bin/sh"], True, (errpipe_write,), None, None, -1, -1, -1, -1, -1, -1,
                  errpipe_read, errpipe_write, False, True, -1, None, None, None, -1, None, False)
        return 1.0

    _attempt(raw, str(marker), refused="start processes|import _posixsubprocess", sandboxed=sandboxed)
    assert _appears(marker) is not sandboxed


def test_no_second_interpreter_and_no_test_modules():
    def interpreter(x):
        import _xxsubinterpreters

        return _xxsubinterpreters.create()

    def test_module(x):
        import _testcapi

        return _testcapi.INT_MAX

    for attack, refused in ((interpreter, "import _xxsubinterpreters"), (test_module, "import _testcapi")):
        with pytest.raises(support.SandboxViolation, match=refused):
            support.call(attack, 1.0)


def test_special_files_cannot_be_made_outside(sandboxed, tmp_path):
    def fifo(path):
        os.mkfifo(path)
        return 1.0

    target = tmp_path / "fifo"
    if sandboxed:
        with pytest.raises(TypeError):  # os.mkfifo is gone (it has no audit event)
            support.call(fifo, str(target))
    else:
        support.call(fifo, str(target))
    assert target.exists() is not sandboxed


def writes_outside(path):
    with open(path, "w") as f:
        f.write("written by an answer")
    return 1.0


def removes(path):
    os.remove(path)
    return 1.0


def renames(path):
    os.rename(path, path + ".moved")
    return 1.0


def test_an_answer_writes_nothing_outside_its_scratch_folder(sandboxed, tmp_path):
    target = tmp_path / "results.json"
    _attempt(writes_outside, str(target), refused=r"write files outside its scratch folder \(open: ",
             sandboxed=sandboxed)
    assert target.exists() is not sandboxed
    target.write_text("the grader's")
    _attempt(removes, str(target), refused=r"outside its scratch folder \(os.remove: ", sandboxed=sandboxed)
    assert target.exists() is sandboxed
    target.write_text("the grader's")
    _attempt(renames, str(target), refused=r"outside its scratch folder \(os.rename: ", sandboxed=sandboxed)
    assert target.exists() is sandboxed


def test_relative_tricks_do_not_leave_the_scratch_folder(tmp_path):
    target = tmp_path / "escaped"
    for path in (f"../../../../../..{target}", f"/proc/self/cwd/../../{target}", f"/proc/self/root{target}"):
        with pytest.raises(support.SandboxViolation):
            support.call(writes_outside, path)
    assert not target.exists()

    def through_a_folder_descriptor(where):
        fd = os.open(where, os.O_RDONLY)
        os.open("escaped", os.O_WRONLY | os.O_CREAT, dir_fd=fd)
        return 1.0

    with pytest.raises(support.SandboxViolation, match="open folders outside its scratch folder"):
        support.call(through_a_folder_descriptor, str(tmp_path))
    assert not target.exists()


def kills(pid):
    os.kill(pid, signal.SIGKILL)
    return 1.0


def test_an_answer_signals_no_process(sandboxed):
    victim = subprocess.Popen(["sleep", "30"])  # stands for the grading kernel
    try:
        _attempt(kills, victim.pid, refused=r"send signals \(os.kill\)", sandboxed=sandboxed)
        time.sleep(0.2)
        assert (victim.poll() is None) is sandboxed
    finally:
        victim.kill()
        victim.wait()


def connects(port):
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(b"a pickle for the logging server")
    return 1.0


def test_an_answer_opens_no_socket(sandboxed):
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(1.0)
        _attempt(connects, server.getsockname()[1], refused=r"open network connections \(socket\.",
                 sandboxed=sandboxed)
        try:
            connection, _ = server.accept()
            with connection:
                received = connection.recv(100)
        except TimeoutError:
            received = b""
    assert (received == b"") is sandboxed


def pokes_memory(x):
    import ctypes

    return float(ctypes.c_double.from_address(id(x) + 16).value)


def test_an_answer_calls_no_c_code_through_ctypes(sandboxed):
    got = _attempt(pokes_memory, 2.5, refused=r"call C code through ctypes \(ctypes\.", sandboxed=sandboxed)
    assert sandboxed or got == 2.5


# --- the grader's frames ------------------------------------------------------------------------


def _search(frame):
    while frame is not None:
        for value in frame.f_locals.values():
            if type(value) is dict and "expected_answer" in value:
                return float(value["expected_answer"][0])
        frame = frame.f_back
    return -1.0


def by_getframe(x):
    return _search(sys._getframe(1))


def by_traceback(x):
    try:
        raise ValueError
    except ValueError as err:
        return _search(err.__traceback__.tb_frame.f_back)


def by_objects(x):
    import gc

    found = [o["expected_answer"] for o in gc.get_objects() if type(o) is dict and "expected_answer" in o]
    return float(found[0][0]) if found else -1.0


def by_referrers(x):
    import gc

    found = [o["expected_answer"] for o in gc.get_referrers(x) if type(o) is dict and "expected_answer" in o]
    return float(found[0][0]) if found else -1.0


def by_generator(x):
    box = []

    def walk():
        yield _search(box[0].gi_frame.f_back)

    box.append(walk())
    return next(box[0])


@pytest.mark.parametrize("reader, event", [(by_getframe, "sys._getframe"), (by_traceback, "object.__getattr__"),
                                           (by_objects, "gc.get_objects"),
                                           (by_referrers, "gc.get_referrers"), (by_generator, "object.__getattr__")])
def test_an_answer_cannot_read_the_tests_frames(reader, event, sandboxed):
    case = np.zeros(1)
    hidden = {"case": case, "expected_answer": [31.25]}  # what a hidden test keeps in its frame
    got = _attempt(reader, case, refused=rf"\({event}\)", sandboxed=sandboxed)
    assert sandboxed or got == hidden["expected_answer"][0]


@pytest.mark.parametrize("reader", [by_getframe, by_traceback, by_generator])
def test_without_the_hook_the_answers_stack_still_ends_before_the_grader(reader, monkeypatch):
    """The answer runs on a thread of its own: walking back from its frames finds nothing of the test."""
    monkeypatch.setattr(support, "_sandbox", lambda scratch, decide=None: [])
    case = np.zeros(1)
    hidden = {"case": case, "expected_answer": [31.25]}
    assert support.call(reader, case) == -1.0 and hidden


def test_a_refusal_the_answer_catches_is_still_reported():
    def swallows(x):
        try:
            os.fork()
        except BaseException:
            pass
        return x

    with pytest.raises(support.SandboxViolation, match="start processes"):
        support.call(swallows, 1.0)


def test_the_hook_is_the_only_one_and_code_is_not_forged():
    def adds_a_hook(x):
        sys.addaudithook(lambda event, args: None)
        return x

    def loads_code(x):
        import marshal

        return marshal.loads(marshal.dumps(x))

    def replaces_code(x):
        def f():
            return 1.0
        f.__code__ = (lambda: 2.0).__code__
        return f()

    for attack, refused in ((adds_a_hook, "add an audit hook"), (loads_code, "load compiled code"),
                            (replaces_code, "replace a function's code")):
        with pytest.raises(support.SandboxViolation, match=refused):
            support.call(attack, 1.0)


@pytest.mark.skipif(os.geteuid() != 0, reason="as root only")
def test_as_root_the_answer_runs_as_nobody_without_processes():
    def who(x):
        import resource

        return (os.getuid(), os.getgid(), resource.getrlimit(resource.RLIMIT_NPROC)[0])

    assert support.call(who, 0) == (support.NOBODY, support.NOBODY, 0)


# --- honest answers -----------------------------------------------------------------------------


def honest(A, b):
    from scipy.linalg import solve  # a lazy import inside the answer

    with open("notes.txt", "w") as f:  # its own scratch folder
        f.write("fine")
    with open("notes.txt") as f:
        assert f.read() == "fine"
    import tempfile

    with tempfile.TemporaryFile("w+") as f:  # the scratch folder is the temporary folder too
        f.write("fine")
    big = np.ones((300, 300))
    x = solve(np.asarray(A, dtype=np.float32), np.asarray(b, dtype=np.float32))
    return x.astype(np.float32), float((big @ big)[0, 0])


def test_an_honest_answer_runs_in_the_sandbox():
    x, product = support.call(honest, [[2.0, 0.0], [0.0, 4.0]], [2.0, 4.0])
    assert x.dtype == np.float32 and np.allclose(x, [1.0, 1.0]) and product == 300.0


# --- the library guard, for every public function -----------------------------------------------


def _public_functions():
    """Every public function of attnlib, found from the modules' ``__all__`` (not by the support code)."""
    found = {}
    for info in pkgutil.walk_packages(attnlib.__path__, "attnlib."):
        if any(p.startswith("_") for p in info.name.split(".")) or info.name.startswith("attnlib.checks"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue
        for name in getattr(module, "__all__", []):
            value = getattr(module, name)
            if isinstance(value, type):
                for key, member in vars(value).items():
                    if key.startswith("_"):
                        continue
                    member = getattr(member, "__func__", member)
                    for f in ([member.fget] if isinstance(member, property) else [member]):
                        if inspect.isfunction(f):
                            found.setdefault(f"{info.name}.{name}.{key}", inspect.unwrap(f))
            elif inspect.isfunction(value) and value.__module__.startswith("attnlib"):
                found.setdefault(f"{module.__name__}.{name}", inspect.unwrap(value))
    return found


STUDENT = "def answer(target):\n    return target(no_such_argument=1)\n"


def _student_caller(scope_name: str, filename: str):
    scope = {"__name__": scope_name}
    exec(compile(STUDENT, filename, "exec"), scope)  # noqa: S102 (the test's own source)
    return scope["answer"]


def test_every_public_function_is_refused_to_a_student_and_allowed_by_name():
    functions = _public_functions()
    assert len(functions) > 150, len(functions)
    callers = {"notebook": _student_caller("__main__", "<ipython-input-3>"),
               "forged name": _student_caller("attnlib.core", "<string>"),
               "forged file": _student_caller("__main__", "<frozen importlib._bootstrap>"),
               "library's file": _student_caller("attnlib.attention", sys.modules["attnlib.attention"].__file__)}
    let_through = []
    for label, f in functions.items():
        for how, answer in callers.items():
            with support.no_library():
                try:
                    answer(f)
                except support.LibraryCallForbidden:
                    continue
                except Exception:  # noqa: S110 (it ran: the guard let it through)
                    pass
            let_through.append(f"{label} ({how})")
        with support.no_library(allow=(f.__name__,)):
            try:
                callers["notebook"](f)
            except support.LibraryCallForbidden:
                let_through.append(f"{label} refused although allowed")
            except Exception:  # noqa: S110 (bad arguments: it went through to the function)
                pass
    assert not let_through, f"{len(let_through)} calls went wrong: {let_through[:8]}"


def test_the_library_calling_itself_works_under_the_guard():
    from attnlib import sculpt

    teacher = sculpt.planted_instance(2, 4, rng=0)
    X = attnlib.boolean_inputs(400, 3, 4, rng=1)
    Y = attnlib.attention(X, teacher)
    expected = sculpt.learn(X, Y, 2, rng=0)
    learner = _student_caller("__main__", "<ipython-input-4>")
    learner.__globals__.update(sculpt=sculpt, X=X, Y=Y)
    exec(compile("def fit():\n    return sculpt.learn(X, Y, 2, rng=0)\n", "<ipython-input-5>", "exec"),
         learner.__globals__)
    fit = learner.__globals__["fit"]
    with support.no_library(allow=("learn",)):
        got = fit()
    with support.no_library(), pytest.raises(support.LibraryCallForbidden, match="learn"):
        fit()
    np.testing.assert_allclose(got.heads.W, expected.heads.W)
    np.testing.assert_allclose(got.heads.Theta, expected.heads.Theta)


def test_the_guard_state_is_out_of_the_answers_reach():
    """While grading, the hook decides: no closure of the guard's holds the originals or the trusted codes."""
    def steals(S):
        module = sys.modules["attnlib.attention"]
        assert module.__assignment_guard__.__closure__ is None  # nothing to change or take
        key = next(k for k in module.softmax.__wrapped__.__code__.co_consts if isinstance(k, str) and "#" in k)
        slot = []
        sys.audit("assignment_support.library_call", key, slot)  # asking the hook itself
        return slot[0](S)

    with pytest.raises(support.LibraryCallForbidden, match="asked by its stubs only"):
        support.call(steals, np.zeros(3))

    def replaces_the_guard(S):
        module = sys.modules["attnlib.attention"]
        real = module.__assignment_guard__
        module.__assignment_guard__ = lambda key, args, kwargs: real(key, args, kwargs)
        return module.softmax(S)

    with pytest.raises(support.LibraryCallForbidden, match="called by its stubs only"):
        support.call(replaces_the_guard, np.zeros(3), allow=("softmax",))


def test_in_a_students_own_session_the_guard_is_only_a_convenience():
    """Without the sandbox the closure guard's state can be changed: why grading asks the hook."""
    def widens(S):
        module = sys.modules["attnlib.attention"]
        decide = module.__assignment_guard__.__closure__[0].cell_contents
        for cell in decide.__closure__:
            if type(cell.cell_contents) is tuple:
                cell.cell_contents = ("softmax",)  # the allow-list
        return module.softmax(S)

    support.ISOLATE = False
    np.testing.assert_allclose(support.call(widens, np.zeros(2)), [0.5, 0.5])


# --- otter's logging server ---------------------------------------------------------------------


class _Marker:
    """Unpickled, it writes a file: what a crafted pickle does in the process that loads it."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (Path.write_text, (Path(self.path), "unpickled in the grading process"))


def sends_a_pickle(port, marker):
    import pickle
    import struct

    data = pickle.dumps(_Marker(marker))
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(struct.pack(">L", len(data)) + data)
    return 1.0


def test_an_answer_cannot_reach_otters_logging_server(sandboxed, tmp_path):
    """``otter run`` unpickles whatever reaches its logging server, in the grading process itself."""
    start_server = pytest.importorskip("otter.execute.logging").start_server

    marker = tmp_path / "pwned"
    (host, port), stop = start_server()
    try:
        _attempt(sends_a_pickle, port, str(marker), refused=r"open network connections", sandboxed=sandboxed)
        assert _appears(marker) is not sandboxed
    finally:
        stop()


# --- the grader's own files ---------------------------------------------------------------------

READS_THE_TESTS = """
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("s", {path!r})
s = importlib.util.module_from_spec(spec); spec.loader.exec_module(s)
s.ISOLATE = True
if {off}:
    s._sandbox = lambda scratch, decide=None: []
    s._on_a_fresh_stack = lambda fn, args, kwargs, prepare: (prepare(), False, fn(*args, **kwargs))
def peek(folder):
    with open(os.path.join(folder, "tests", "q1.py")) as f:
        return f.read()
try:
    print(s.call(peek, os.getcwd()))
except s.SandboxViolation as err:
    print("refused:", err)
"""


@pytest.mark.parametrize("off", [False, True], ids=["sandboxed", "unsandboxed"])
def test_an_answer_cannot_read_the_hidden_tests_beside_the_notebook(off, tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "q1.py").write_text("expected = 31.25  # hidden")
    script = READS_THE_TESTS.format(path=str(SUPPORT_DIR / "assignment_support.py"), off=off)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    if off:
        assert "31.25" in done.stdout
    else:
        assert done.stdout.startswith("refused: the grader does not let an answer read the grader's files")


# --- the running test case ----------------------------------------------------------------------


def reads_the_running_case(x):
    import linecache

    runner = getattr(linecache.getlines, "__self__", None)
    return runner.test.docstring if runner is not None else "nothing found"


def test_an_answer_cannot_find_the_running_test_case(sandboxed):
    """otter runs a case through doctest, which leaves the case's source reachable from linecache."""
    run_doctest = pytest.importorskip("otter.test_files.ok_test").run_doctest

    env = {"support": support, "peek": reads_the_running_case, "SECRET": "expected 31.25"}
    case = ">>> found = support.call(peek, 0.0)\n>>> print(found)\nnothing found\n>>> # SECRET 31.25\n"
    passed, message = run_doctest("q1 - 1", case, env)
    assert passed is sandboxed, message
    assert sandboxed or "31.25" in message  # the answer printed the case it found
