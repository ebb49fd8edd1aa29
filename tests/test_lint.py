"""ruff over the repository: the library, tests, scripts, benchmarks, build extensions and chapters.

The rules and their exceptions, each with its reason, are in ``pyproject.toml`` (``[tool.ruff]``),
``book/ruff.toml`` (the chapters' 79 columns) and ``book/_ext/ruff.toml``.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(exe).exists():
        pytest.skip("ruff is not installed (requirements.txt pins it)")
    return subprocess.run([exe, "check", "--no-cache", *args], cwd=cwd, capture_output=True, text=True)


def test_ruff_passes_on_the_repository():
    result = ruff(".")
    assert result.returncode == 0, f"ruff check . found problems:\n{result.stdout[-6000:]}{result.stderr}"


def test_ruff_fails_on_a_finding(tmp_path):
    """The check can fail: an unused import under the project's configuration is a finding."""
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "bad.py").write_text("import os\n")
    result = ruff("bad.py", cwd=tmp_path)
    assert result.returncode == 1 and "F401" in result.stdout, result.stdout
