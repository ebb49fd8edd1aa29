"""Timing of notebook execution, phase by phase, and a time budget for every cell.

The build executes each chapter in a fresh kernel (myst-nb, ``execute_notebooks: cache``,
through jupyter-cache and nbclient). A chapter that runs in 8 s was once logged at 307 s
with no error, and nothing said which phase or cell had waited. This module makes every
phase visible, stops a runaway cell long before the 300 s ``execute.timeout``, and fixes
the cause of that stall: a cell's reply stranded in the shell socket by nbclient's own
widget messages until the poll's timeout (see ``poll_in_slices``).

``TimedNotebookClient``
    An nbclient ``NotebookClient`` that timestamps, on the client side, the kernel launch,
    the kernel answering (``wait_for_ready``), the ``kernel_info`` request, every code cell
    (request sent to reply and idle status received) and the kernel shutdown. It also reads
    the kernel's own timestamps of each cell (nbclient's ``record_timing``: ``status: busy``,
    ``execute_input``, ``execute_reply``), so a cell that *waited* (the request sat unread,
    or a message was late) can be told from a cell that *worked*. The per-cell budget is
    nbclient's per-cell timeout, set to ``min(timeout, budget)``; a cell past it raises
    ``CellBudgetExceeded`` (a ``CellTimeoutError``) naming the notebook and the cell. Its
    shell channel is polled in short slices (``poll_in_slices``). The timing record lands
    in ``nb.metadata["execution_timing"]``; the kernel's per-cell stamps are removed again,
    because jupyter-cache hashes cell metadata and would never match the executed notebook
    to its source.

Sphinx extension (``setup``)
    jupyter-cache executes through ``jupyter_cache.executors.utils.executenb`` (nbclient's
    ``execute``); the extension points that name at ``TimedNotebookClient``, and wraps
    myst-nb's ``start_client`` to know which chapter runs. A chapter served from the
    jupyter cache gets the record stored with its cached notebook. At the end of every
    build, failed or not, ``_build/execution_times.txt`` (for people) and
    ``_build/execution_times.json`` (for ``scripts/execution_times.py``) list every chapter
    and every cell of ``SLOW_CELL`` seconds or more. The budget is the Sphinx option
    ``execution_cell_budget`` (``sphinx.config`` in ``_config.yml``).

Why hooks in the executor rather than reading ``record_timing`` back from the cache or
``_build/jupyter_execute``: the kernel start and shutdown happen outside any cell and
leave no trace in the notebook, a failed chapter is never cached, and cell metadata in
the cache would break its hashing (above). ``scripts/execute_notebooks.py`` uses the same
client, so a chapter re-executed by hand has the same budget and the same report.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import functools
import json
import time
from pathlib import Path
from queue import Empty
from typing import Any

from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError
from nbclient.util import run_sync

DEFAULT_CELL_BUDGET = 120  # seconds; the slowest cells of the book take 20-40 s on a busy 2-core machine
SLOW_CELL = 1.0  # seconds: cells at least this slow are listed in the report
METADATA_KEY = "execution_timing"
SHELL_POLL_SLICE = 0.2  # seconds: the longest single wait on the shell socket (see poll_in_slices)


class CellBudgetExceeded(CellTimeoutError):
    """A cell (or the kernel_info request) ran past its time budget."""


def _first_line(source: str, width: int = 60) -> str:
    lines = [line.strip() for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]
    text = lines[0] if lines else ""
    return text if len(text) <= width else text[: width - 3] + "..."


def _epoch(stamp: str | None) -> float | None:
    """Seconds since the epoch of an nbclient/Jupyter ISO timestamp such as '2026-12-03T08:12:15.123456Z'."""
    if not stamp:
        return None
    try:
        when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return when.timestamp()


def _span(start: float | None, end: float | None) -> float | None:
    return None if start is None or end is None else round(end - start, 3)


def kernel_times(stamps: dict, sent: float) -> dict:
    """What the kernel's own timestamps of a cell say (nbclient ``record_timing`` metadata).

    Parameters
    ----------
    stamps : dict
        A cell's ``metadata["execution"]``: ``iopub.status.busy``, ``iopub.execute_input``,
        ``shell.execute_reply`` (ISO times from the kernel's message headers).
    sent : float
        When the client sent the request (seconds since the epoch).

    Returns
    -------
    dict
        ``queued``: request sent until the kernel reported busy (long: the request sat
        unread); ``kernel``: the kernel's execute_input until its execute_reply (the work).
        ``None`` where a stamp is missing.
    """
    return {"queued": _span(sent, _epoch(stamps.get("iopub.status.busy"))),
            "kernel": _span(_epoch(stamps.get("iopub.execute_input")), _epoch(stamps.get("shell.execute_reply")))}


def _created(msg) -> float | None:
    """Wall-clock creation time of a Jupyter message (its header's date), or None."""
    date = (msg.get("header") or {}).get("date") if isinstance(msg, dict) else None
    if isinstance(date, dt.datetime):
        return (date if date.tzinfo else date.replace(tzinfo=dt.UTC)).timestamp()
    return _epoch(date) if isinstance(date, str) else None


def poll_in_slices(get_msg, step: float = SHELL_POLL_SLICE, on_stranded=None):
    """Wrap a channel's ``async get_msg(timeout)`` so that no single socket poll lasts over ``step`` s.

    The stall this module was written for: nbclient 0.11 waits for a cell's ``execute_reply``
    with one ``shell_channel.get_msg(timeout=<cell timeout>)``, a single zmq.asyncio poll of
    the shell socket. While that poll is pending, nbclient's mock of the ipywidgets ``Output``
    widget sends ``comm_msg`` updates on the *same* socket (``OutputWidget.sync_state``, from
    the IOPub handler). When the reply lands as such a send goes out, the poll is never woken:
    the reply sits in the socket until the poll's timeout fires, pyzmq's last zero-time check
    finds it, and the cell "succeeds" exactly ``timeout`` seconds late (jupyter/nbclient#312;
    reproduced here: an Output widget printing 200 lines stalled 4 runs in 6 by the full
    timeout). Each poll ends with that zero-time check, so polling in short slices up to the
    same deadline finds a stranded reply within ``step`` seconds. The semantics are unchanged:
    ``queue.Empty`` after ``timeout`` seconds, never with ``timeout=None``.

    ``on_stranded(seconds)`` is called when a slice ran to its end and only then found a
    message created more than 0.1 s earlier: a reply that sat unnoticed, and how long.
    """

    async def get_msg_in_slices(timeout: float | None = None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = step if deadline is None else max(0.0, min(step, deadline - time.monotonic()))
            began = time.monotonic()
            try:
                msg = await get_msg(timeout=wait)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                continue
            created = _created(msg)
            if on_stranded is not None and wait > 0 and created is not None \
                    and time.monotonic() - began >= 0.9 * wait and time.time() - created > 0.1:
                on_stranded(round(time.time() - created, 3))
            return msg

    get_msg_in_slices.poll_in_slices = True
    return get_msg_in_slices


class TimedNotebookClient(NotebookClient):
    """``NotebookClient`` that times every phase and holds each cell to ``cell_budget`` seconds.

    Parameters
    ----------
    nb : NotebookNode
        The notebook, executed in place.
    label : str
        How errors and reports name the notebook (e.g. ``book/ch05_certificate.ipynb``).
    cell_budget : float or None
        Seconds (at least 1) a cell may take, from its request to its reply; ``None`` for no
        budget beyond nbclient's ``timeout``.
    **kwargs
        Any other ``NotebookClient`` option (``timeout``, ``kernel_name``, ``resources`` ...).
    """

    def __init__(self, nb, km=None, *, label: str = "notebook", cell_budget: float | None = DEFAULT_CELL_BUDGET,
                 **kwargs: Any) -> None:
        kwargs["record_timing"] = True
        super().__init__(nb, km=km, **kwargs)
        if cell_budget is not None and not cell_budget >= 1:  # nbclient's timeout is whole seconds, 0 = none
            raise ValueError(f"cell_budget must be at least 1 (seconds) or None, got {cell_budget!r}")
        self.label = label
        self.cell_budget = cell_budget
        if cell_budget is not None:
            budget = int(cell_budget)
            self.timeout = budget if not self.timeout or self.timeout < 0 else min(self.timeout, budget)
        self.on_notebook_start = self._on_ready
        self.on_cell_execute = self._on_cell_sent
        self.on_cell_executed = self._on_cell_done
        self.on_notebook_complete = self._on_closed
        self._marks: dict[str, float] = {}
        self._cells: list[dict[str, Any]] = []
        self._current: dict[str, Any] | None = None
        self._saved_metadata: Any = None
        self._error: str | None = None
        self._stranded: list[float] = []

    # -- timestamps (monotonic for spans, wall clock to compare with the kernel's own stamps) --
    def _mark(self, name: str) -> None:
        self._marks.setdefault(name, time.monotonic())

    def _on_ready(self, notebook) -> None:
        self._mark("ready")

    def _on_cell_sent(self, cell, cell_index) -> None:
        self._mark("first_cell")
        self._current = {"index": cell_index, "sent": time.monotonic(), "sent_wall": time.time(), "cell": cell,
                         "saved": self._saved_metadata}

    def _on_cell_done(self, cell, cell_index, execute_reply) -> None:
        self._finish_cell(finished=True)

    def _on_closed(self, notebook) -> None:
        self._mark("closed")

    def _finish_cell(self, finished: bool) -> None:
        current, self._current = self._current, None
        if current is None:
            return
        now = time.monotonic()
        self._marks["last_cell_done"] = now
        cell = current["cell"]
        self._cells.append({
            "index": current["index"],
            "count": cell.get("execution_count"),
            "seconds": round(now - current["sent"], 3),
            **kernel_times(cell.metadata.get("execution") or {}, current["sent_wall"]),
            "finished": finished,
            "stranded": max(current.get("stranded", [0.0])),  # reply found this late in the socket
            "first_line": _first_line(cell.source),
        })
        # the kernel's stamps are in the record now; jupyter-cache hashes cell metadata. (A cell
        # that did not finish keeps them: nbclient may still be writing them, and a failed
        # notebook is neither cached nor saved.)
        if finished and current["saved"] is None:
            cell.metadata.pop("execution", None)
        elif finished:
            cell.metadata["execution"] = current["saved"]

    # -- phases nbclient has no hook for --
    async def async_start_new_kernel(self, **kwargs: Any) -> None:
        self._mark("launch")
        await super().async_start_new_kernel(**kwargs)
        self._mark("launched")

    async def async_start_new_kernel_client(self):
        kc = await super().async_start_new_kernel_client()
        shell = kc.shell_channel
        if not getattr(shell.get_msg, "poll_in_slices", False):
            shell.get_msg = poll_in_slices(shell.get_msg, on_stranded=self._on_stranded)
        return kc

    def _on_stranded(self, seconds: float) -> None:
        self._stranded.append(seconds)
        if self._current is not None:
            self._current.setdefault("stranded", []).append(seconds)

    async def _async_handle_timeout(self, timeout: int, cell=None):
        if cell is None:  # nbclient asserts here: the kernel_info request went unanswered
            raise CellBudgetExceeded(
                f"{self.label}: the kernel did not answer its kernel_info request within {timeout} s "
                "(a lost shell message: the kernel started but its reply never came)")
        return await super()._async_handle_timeout(timeout, cell)

    async def async_execute_cell(self, cell, cell_index: int, execution_count: int | None = None,
                                 store_history: bool = True):
        # nbclient empties cell.metadata["execution"] before its on_cell_execute hook: keep the original
        self._saved_metadata = cell.metadata.get("execution") if cell.cell_type == "code" else None
        try:
            return await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        except CellTimeoutError as err:
            # name the cell and say what the kernel did, before the kernel is shut down
            self._error = str(err) if isinstance(err, CellBudgetExceeded) else self._budget_message()
            self._finish_cell(finished=False)
            if isinstance(err, CellBudgetExceeded):
                raise
            raise CellBudgetExceeded(self._error) from err
        except BaseException:
            self._finish_cell(finished=False)
            raise

    async def async_execute(self, reset_kc: bool = False, **kwargs: Any):
        self._marks = {"start": time.monotonic()}
        self._wall_start = time.time()
        self._cells, self._current, self._error, self._stranded = [], None, None, []
        try:
            return await super().async_execute(reset_kc=reset_kc, **kwargs)
        except CellBudgetExceeded as err:
            self._error = str(err)
            raise
        finally:
            self._marks["end"] = time.monotonic()
            self.nb.metadata[METADATA_KEY] = self.timing()

    execute = run_sync(async_execute)

    def _budget_message(self) -> str:
        current = self._current
        if current is None:
            return f"{self.label}: timed out after {self.timeout} s outside any cell"
        cell = current["cell"]
        stamps = cell.metadata.get("execution") or {}
        number = sum(1 for c in self.nb.cells[: current["index"] + 1] if c.cell_type == "code")
        if "iopub.status.busy" not in stamps:
            why = "the kernel never reported busy for this request: it was not read (a lost or stuck shell message)"
        elif "shell.execute_reply" in stamps:
            why = "the kernel replied but the client did not see the reply in time (a late shell/iopub message)"
        else:
            why = "the kernel was still running the cell (work, not a lost message)"
        limit = "per-cell budget" if self.cell_budget is not None and self.timeout == int(self.cell_budget) \
            else "timeout"
        return (f"{self.label}: cell {current['index'] + 1} (In [{number}]: `{_first_line(cell.source)}`) "
                f"ran past its {limit} of {self.timeout} s; {why}")

    def timing(self) -> dict[str, Any]:
        """The timing record of the last execution (seconds; ``None`` where a phase did not happen)."""
        m = self._marks
        cells = [dict(c) for c in self._cells]
        return {
            "notebook": self.label,
            "executed": dt.datetime.fromtimestamp(getattr(self, "_wall_start", time.time()), dt.UTC)
            .strftime("%Y-%m-%dT%H:%M:%SZ"),
            "total": _span(m.get("start"), m.get("end")),
            "kernel_start": _span(m.get("start"), m.get("ready")),
            "kernel_launch": _span(m.get("launch"), m.get("launched")),
            "kernel_info": _span(m.get("ready"), m.get("first_cell")),
            "cells_total": round(sum(c["seconds"] for c in cells), 3),
            "shutdown": _span(m.get("last_cell_done", m.get("ready")), m.get("closed")),
            "cell_budget": self.cell_budget,
            "stranded_replies": len(self._stranded),  # shell messages found only at the end of a poll
            "cells": cells,
            "error": self._error,
        }


# ---------------------------------------------------------------- reports


def _fmt(value: float | None, width: int = 7) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}.2f}"


def slow_cells(records: list[dict], threshold: float = SLOW_CELL) -> list[tuple[dict, dict]]:
    """(record, cell) pairs of the cells of at least ``threshold`` seconds, slowest first."""
    pairs = [(r, c) for r in records for c in r.get("cells") or [] if c["seconds"] >= threshold]
    return sorted(pairs, key=lambda rc: -rc[1]["seconds"])


def format_slowest(records: list[dict], n: int = 5) -> str:
    """The ``n`` slowest cells of the build, one line each."""
    lines = [f"The {n} slowest cells (wall s; kernel = the kernel's own time, queue = until the kernel read it):"]
    for record, cell in slow_cells(records, threshold=0.0)[:n]:
        lines.append(_cell_line(record, cell))
    if len(lines) == 1:
        lines.append("  (no cell timing recorded)")
    return "\n".join(lines)


def _cell_line(record: dict, cell: dict) -> str:
    mark = "" if cell.get("finished", True) else "  [did not finish]"
    if cell.get("stranded"):
        mark += f"  [reply found {cell['stranded']:.1f} s late in the socket]"
    count = "-" if cell.get("count") is None else str(cell["count"])
    return (f"  {record['notebook']:<34} cell {cell['index'] + 1:>3}  In [{count:>3}] {_fmt(cell['seconds'])} s  "
            f"kernel {_fmt(cell.get('kernel'), 6)}  queue {_fmt(cell.get('queued'), 5)}  {cell['first_line']}{mark}")


def format_report(records: list[dict], threshold: float = SLOW_CELL) -> str:
    """The text of ``_build/execution_times.txt``."""
    budget = next((r.get("cell_budget") for r in records if r.get("cell_budget")), None)
    out = [
        "Notebook execution times of the build (wall clock, seconds), by book/_ext/execution_timing.py.",
        f"Per-cell budget: {budget or 'none'} s (sphinx.config.execution_cell_budget in _config.yml).",
        "start = kernel launch until it answers; info = the kernel_info request; cells = sum of the",
        "cells; stop = kernel shutdown; other = the rest of the client's time. source: executed in this",
        "build, cached (from the jupyter cache; times are those of the run that filled it), or kept",
        "(not re-read by this build).",
        "",
        f"{'chapter':<34} {'source':<9} {'total':>7} {'start':>7} {'info':>7} {'cells':>7} {'stop':>7} "
        f"{'other':>7}  executed",
    ]
    for r in records:
        parts = [r.get(k) for k in ("kernel_start", "kernel_info", "cells_total", "shutdown")]
        other = None
        if r.get("total") is not None and all(p is not None for p in parts):
            other = round(r["total"] - sum(parts), 3)
        out.append(f"{r['notebook']:<34} {r.get('source', 'executed'):<9} {_fmt(r.get('total'))} "
                   + " ".join(_fmt(p) for p in parts) + f" {_fmt(other)}  {r.get('executed', '-')}")
        if r.get("error"):
            out.append(f"  FAILED: {r['error']}")
    if not records:
        out.append("(no notebook was executed or read from the cache)")
    out += ["", f"Cells of {threshold:g} s or more, slowest first (kernel = the kernel's own execute_input to",
            "execute_reply; queue = request sent until the kernel reported busy; a wall time far above",
            "the kernel time is a wait on messages, not work):"]
    pairs = slow_cells(records, threshold)
    out += [_cell_line(r, c) for r, c in pairs] or ["  (none)"]
    unfinished = [(r, c) for r in records for c in r.get("cells") or [] if not c.get("finished", True)]
    out += [_cell_line(r, c) for r, c in unfinished if c["seconds"] < threshold]
    return "\n".join(out) + "\n"


def write_reports(records: list[dict], folder: Path) -> Path:
    """Write ``execution_times.txt`` and ``execution_times.json`` into ``folder``; return the text file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "execution_times.json").write_text(json.dumps(records, indent=1) + "\n", encoding="utf8")
    text = folder / "execution_times.txt"
    text.write_text(format_report(records), encoding="utf8")
    return text


# ---------------------------------------------------------------- Sphinx extension

_CURRENT: contextvars.ContextVar[dict | None] = contextvars.ContextVar("execution_timing_current", default=None)
_APP = None


def execute(nb, cwd: str | None = None, km=None, **kwargs: Any):
    """Drop-in for ``nbclient.execute`` (what jupyter-cache calls), through ``TimedNotebookClient``."""
    context = _CURRENT.get() or {}
    kwargs.pop("record_timing", None)
    resources = {"metadata": {"path": cwd}} if cwd is not None else {}
    client = TimedNotebookClient(nb, km=km, resources=resources, label=context.get("label", "notebook"),
                                 cell_budget=context.get("budget", DEFAULT_CELL_BUDGET), **kwargs)
    try:
        return client.execute()
    finally:
        context["record"] = nb.metadata.get(METADATA_KEY)


def _cached_record(client, notebook) -> dict | None:
    from jupyter_cache import get_cache

    try:
        cache = get_cache(client.nb_config.execution_cache_path or ".jupyter_cache")
        bundle = cache.get_cache_bundle(cache.match_cache_notebook(notebook).pk)
    except Exception:  # no cache or no match: the page shows no timing, nothing else depends on it
        return None
    record = bundle.nb.metadata.get(METADATA_KEY)
    return dict(record) if record else None


def _timed_start_client(original):
    @functools.wraps(original)
    def start_client(self) -> None:
        app = _APP
        if app is None or self.path is None:
            return original(self)
        label = Path(self.path).resolve().relative_to(Path(app.srcdir).resolve()).as_posix()
        context = {"label": label, "budget": app.config.execution_cell_budget, "record": None}
        source_notebook = self.notebook
        token = _CURRENT.set(context)
        try:
            original(self)
        except BaseException:
            if context["record"] is not None:
                _store(app, self.path, _report_error({**context["record"], "source": "executed"}))
            raise
        finally:
            _CURRENT.reset(token)
        if context["record"] is not None:
            record = _report_error({**context["record"], "source": "executed"})
        else:
            record = _cached_record(self, source_notebook) or {
                "notebook": label, "total": (self.exec_metadata or {}).get("runtime"), "cells": []}
            record["source"] = "cached"
        _store(app, self.path, record)

    start_client._execution_timing = True
    return start_client


def _report_error(record: dict) -> dict:
    """Log a record's budget error as a Sphinx warning (myst-nb shows only the exception's name)."""
    if record.get("error"):
        from sphinx.util import logging

        logging.getLogger(__name__).warning(record["error"], type="execution_timing", subtype="budget")
    return record


def _store(app, path, record: dict) -> None:
    env = app.env
    if not hasattr(env, "execution_timing"):
        env.execution_timing = {}
    env.execution_timing[env.path2doc(str(path)) or record["notebook"]] = record


def _purge(app, env, docname) -> None:
    getattr(env, "execution_timing", {}).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    if not hasattr(env, "execution_timing"):
        env.execution_timing = {}
    for docname in docnames:
        if docname in getattr(other, "execution_timing", {}):
            env.execution_timing[docname] = other.execution_timing[docname]


def _note_read(app, env, docnames) -> None:
    app._execution_timing_read = set(docnames)


def build_records(app) -> list[dict]:
    stored = getattr(app.env, "execution_timing", {})
    read = getattr(app, "_execution_timing_read", set(stored))
    records = []
    for docname in sorted(stored):
        record = dict(stored[docname])
        if docname not in read:
            record["source"] = "kept"
        records.append(record)
    return records


def _write(app, exception) -> None:
    folder = Path(app.outdir).parent
    path = write_reports(build_records(app), folder)
    from sphinx.util import logging

    logging.getLogger(__name__).info(f"notebook execution times written to {path}")


def install() -> None:
    """Route the build's notebook execution through ``TimedNotebookClient`` (idempotent)."""
    import jupyter_cache.executors.utils as executor_utils
    from myst_nb.core.execute.cache import NotebookClientCache
    from myst_nb.core.execute.direct import NotebookClientDirect

    if not hasattr(executor_utils, "executenb"):
        raise RuntimeError("jupyter_cache.executors.utils.executenb is gone: execution_timing needs updating "
                           "for this jupyter-cache version")
    executor_utils.executenb = execute
    for cls in (NotebookClientCache, NotebookClientDirect):
        if not getattr(cls.start_client, "_execution_timing", False):
            cls.start_client = _timed_start_client(cls.start_client)


def setup(app):
    global _APP
    _APP = app
    app.add_config_value("execution_cell_budget", DEFAULT_CELL_BUDGET, "env", types=(int, float))
    install()
    app.connect("env-before-read-docs", _note_read)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _write)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
