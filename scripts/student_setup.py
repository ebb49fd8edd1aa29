"""Run the set-up cell of student zips as a student on Colab would, offline, in a fresh virtual environment.

    python scripts/student_setup.py _build/assignments/*/*-student.zip

``scripts/assignments.py`` runs it on the zips it builds. A fresh venv gets what Colab has before
the cell runs: attnlib's dependencies (numpy, scipy and threadpoolctl, which Colab preinstalls) as
``requirements.txt`` pins them, and IPython, which runs ``%pip`` and ``!`` lines; ``attnlib`` is
not in it. Then, for each zip, with no package index and every network request refused (pip reads
no configuration, ``PIP_NO_INDEX``, and a proxy at a closed local port), the notebook's set-up
cell runs under IPython in a folder holding only the zip, as on Colab: ``google.colab`` is an
empty stand-in module, so the cell unpacks the zip itself, and so is ``otter`` (the cell only asks
whether it is installed; installing it would need the index). The cell must install ``attnlib``
from the zip's wheel: afterwards ``attnlib`` imports from the venv at the wheel's version. Run a
second time, the cell installs nothing. Before each zip the venv's ``attnlib`` is removed again.
Any failure is printed and the exit status is 1.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: An address where nothing listens: a request through this proxy fails at once.
DEAD_PROXY = "http://127.0.0.1:9"


class SetupError(RuntimeError):
    """A set-up cell did not install attnlib from its zip."""


def setup_cell(zip_path: Path) -> tuple[str, str]:
    """The notebook's name and its set-up cell (the first code cell with a ``%pip`` line)."""
    with zipfile.ZipFile(zip_path) as z:
        notebooks = [n for n in z.namelist() if n.endswith(".ipynb") and "/" not in n]
        if len(notebooks) != 1:
            raise SetupError(f"{zip_path.name}: expected one notebook at the top of the zip, found {notebooks}")
        cells = json.loads(z.read(notebooks[0]))["cells"]
    for cell in cells:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "code" and "%pip" in source:
            return notebooks[0], source
    raise SetupError(f"{zip_path.name}: its notebook has no set-up cell (no %pip line)")


def wheel_version(zip_path: Path) -> str:
    """The version of the attnlib wheel inside the zip (its file name says it)."""
    with zipfile.ZipFile(zip_path) as z:
        wheels = [n for n in z.namelist() if re.fullmatch(r"attnlib-[^-/]+-py3-none-any\.whl", n)]
    if len(wheels) != 1:
        raise SetupError(f"{zip_path.name}: expected one attnlib wheel at the top of the zip, found {wheels}")
    return wheels[0].split("-")[1]


def pins() -> list[str]:
    """attnlib's dependencies as requirements.txt pins them, and this IPython: what Colab has before the cell."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [re.match(r"[A-Za-z0-9_.-]+", spec).group(0).lower() for spec in declared]
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    pinned = dict(line.strip().lower().split("==", 1) for line in lines if re.match(r"[A-Za-z0-9_.-]+==", line.strip()))
    missing = [name for name in names if name not in pinned]
    if missing:
        raise SetupError(f"requirements.txt pins none of attnlib's dependencies {missing}")
    return [*(f"{name}=={pinned[name]}" for name in names), f"ipython=={importlib.metadata.version('ipython')}"]


def make_env(folder: Path) -> Path:
    """A fresh venv with attnlib's dependencies and IPython (fetched now, before the offline part); its python."""
    venv.create(folder, with_pip=True)
    python = folder / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", *pins()], capture_output=True, text=True)
    if done.returncode != 0:
        raise SetupError(f"could not make the venv of a Colab student:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    stubs = folder / "stubs"
    for package in ("google", "google/colab", "otter"):
        (stubs / package).mkdir(parents=True, exist_ok=True)
        (stubs / package / "__init__.py").write_text('"""A stand-in: scripts/student_setup.py."""\n')
    return python


def offline_env(stubs: Path) -> dict:
    """The environment of the offline run: no pip configuration or index, a dead proxy, the stand-ins."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k.lower() not in (
        "http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env.update({"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "http_proxy": DEAD_PROXY, "https_proxy": DEAD_PROXY, "HTTP_PROXY": DEAD_PROXY,
                "HTTPS_PROXY": DEAD_PROXY, "ALL_PROXY": DEAD_PROXY, "PYTHONPATH": str(stubs)})
    env.pop("MPLBACKEND", None)
    # an activated venv (as in .ci/run) would make the student's IPython add its site-packages, where
    # attnlib is installed: the set-up cell would then find attnlib and install nothing
    env.pop("VIRTUAL_ENV", None)
    return env


def run_cell(python: Path, source: str, cwd: Path, env: dict) -> str:
    """The cell under IPython, as on Colab (``google.colab`` imported first); its output."""
    ipython = python.parent / "ipython"
    done = subprocess.run([str(ipython), "--quick", "--no-banner", "-c", "import google.colab\n" + source],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    if done.returncode != 0 or re.search(r"Error|ERROR", out):
        raise SetupError(f"the set-up cell failed:\n{out[-3000:]}")
    return out


def check(zip_path: Path, python: Path) -> str:
    """Run the zip's set-up cell twice in ``python``'s venv, offline; what it showed, in one line."""
    name, source = setup_cell(zip_path)
    version = wheel_version(zip_path)
    subprocess.run([str(python), "-m", "pip", "uninstall", "-q", "-y", "attnlib"], capture_output=True)
    env = offline_env(python.parent.parent / "stubs")
    probe = "import importlib.util; spec = importlib.util.find_spec('attnlib'); print(spec.origin if spec else '')"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        found = subprocess.run([str(python), "-c", probe], cwd=folder, capture_output=True, text=True, env=env)
        if found.stdout.strip():
            raise SetupError(f"attnlib is importable ({found.stdout.strip()}) before the set-up cell ran: the "
                             "check would prove nothing")
        (folder / zip_path.name).write_bytes(zip_path.read_bytes())  # uploaded with the Files panel
        first = run_cell(python, source, folder, env)
        if not (folder / name).exists():
            raise SetupError(f"{zip_path.name}: the set-up cell did not unpack the zip")
        where = subprocess.run([str(python), "-c", "import attnlib; print(attnlib.__version__, attnlib.__file__)"],
                               cwd=folder, env=env, capture_output=True, text=True)
        got, _, origin = where.stdout.strip().partition(" ")
        if where.returncode != 0 or got != version or not origin.startswith(str(python.parent.parent)):
            raise SetupError(f"{zip_path.name}: after the set-up cell attnlib is {where.stdout.strip() or 'missing'} "
                             f"{where.stderr[-500:]}; expected {version} in {python.parent.parent}\n{first[-2000:]}")
        second = run_cell(python, source, folder, env)
        if "restart the kernel" in second:  # what %pip says after installing
            raise SetupError(f"{zip_path.name}: run again, the set-up cell installed something:\n{second[-2000:]}")
    return f"{zip_path.name}: the set-up cell installed attnlib {version} from the zip's wheel, offline; again, nothing"


def main(argv: list[str]) -> int:
    zips = [Path(a).resolve() for a in argv]
    if not zips or not all(zipfile.is_zipfile(z) for z in zips):
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        try:
            python = make_env(Path(tmp) / "venv")
            for zip_path in zips:
                print(check(zip_path, python))
        except SetupError as err:
            print(f"FAILED {err}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
