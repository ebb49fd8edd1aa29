"""The API reference's extension (book/_ext/attnlib_api.py) on its own, without a built book."""

import inspect
import sys
from pathlib import Path

from attnlib import sculpt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
from attnlib_api import document_constants  # noqa: E402


def test_a_re_exported_constant_reads_its_own_comment_not_its_types_docstring():
    """attnlib.sculpt.METHODS (a tuple defined in attnlib.sculpt.compare) was documented as "Built-in
    immutable sequence. ...", and a dict's type docstring broke the build with invalid markup."""
    for name, value in (("METHODS", sculpt.METHODS), ("METHOD_LABELS", sculpt.METHOD_LABELS)):
        lines = inspect.getdoc(type(value)).splitlines()
        document_constants(None, "data", f"attnlib.sculpt.{name}", value, {}, lines)
        assert lines and "Built-in" not in lines[0] and "dict()" not in lines[0], (name, lines)
        assert ":data:" in " ".join(lines)  # each names its partner: the identifiers and their labels
    own = ["a constant's own docstring"]
    document_constants(None, "data", "attnlib.sculpt.METHODS", sculpt.METHODS, {}, own)
    assert own == ["a constant's own docstring"]  # anything but the type's docstring is left alone
