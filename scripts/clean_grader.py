"""Grade a submission the way a clean grader (Gradescope, Docker) would: a fresh environment with only
what the autograder zip itself asks for.

    python scripts/clean_grader.py AUTOGRADER_ZIP SUBMISSION

It unpacks the zip as Gradescope does (into ``<tmp>/autograder/source``), makes a fresh virtual
environment, installs the ``pip:`` entries of the zip's ``environment.yml`` (otter-grader, numpy,
scipy and the attnlib wheel from ``files/``, pinned by its hash; ``/autograder/source`` is read as
the unpacked folder), grades SUBMISSION with that environment's ``otter run`` and prints the
score. As on Gradescope, the grading plugin (``assignment_grading.py``, at the zip's root) is
imported from the unpacked zip and from nowhere else. Conda itself is not used (the machine may
have no internet): the Python packages are the same, the Python version is this one (the zip asks
for the one that built it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import venv
import zipfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def pip_requirements(environment: dict, source: Path) -> list[str]:
    """The pip entries of otter's environment.yml, with /autograder/source pointing at ``source``."""
    entries = []
    for dep in environment.get("dependencies", []):
        if isinstance(dep, dict) and "pip" in dep:
            entries += [str(e).replace("/autograder/source", str(source)) for e in dep["pip"]]
    return entries


def python_of(environment: dict) -> str | None:
    """The Python version environment.yml asks for (``python=3.11``)."""
    for dep in environment.get("dependencies", []):
        if isinstance(dep, str) and dep.startswith("python="):
            return dep.split("=", 1)[1]
    return None


def _grade_class():
    spec = importlib.util.spec_from_file_location("grade_class", ROOT / "scripts" / "grade_class.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    zip_path, submission = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    if not zipfile.is_zipfile(zip_path) or not submission.is_file():
        print(f"expected an autograder zip and a submission (.ipynb or .zip); got {zip_path} and {submission}")
        return 2
    grade_class = _grade_class()
    try:
        info = grade_class.read_autograder(zip_path)
        nb, _ = grade_class.notebook_of(submission)
    except grade_class.GradingError as err:
        print(err)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "autograder" / "source"
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(source)
        environment = yaml.safe_load((source / "environment.yml").read_text())
        wanted = python_of(environment)
        here = f"{sys.version_info.major}.{sys.version_info.minor}"
        print(f"the zip asks for Python {wanted}; this clean environment runs {here}")
        requirements = pip_requirements(environment, source)
        print("installing:", *requirements, sep="\n  ")
        env = Path(tmp) / "venv"
        venv.create(env, with_pip=True)
        python = env / "bin" / "python"
        (Path(tmp) / "requirements.txt").write_text("\n".join(requirements) + "\n")
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(Path(tmp) / "requirements.txt")],
                       check=True)
        where = subprocess.run([str(python), "-c", "import attnlib; print(attnlib.__file__)"], cwd=tmp,
                               capture_output=True, text=True, check=True).stdout.strip()
        print("attnlib in the grader:", where)
        if not where.startswith(str(env)):
            print("attnlib does not come from the clean environment")
            return 1
        out = Path(tmp) / "out"
        out.mkdir()
        graded = Path(tmp) / f"{info['name'] or submission.stem}.ipynb"  # the assignment's own name
        graded.write_text(json.dumps(nb))
        plugin_path = {"PYTHONPATH": str(source)} if (source / f"{grade_class.PLUGIN_MODULE}.py").exists() else {}
        done = subprocess.run([str(python), "-m", "otter", "run", "-a", str(zip_path), "-o", str(out),
                               str(graded)], cwd=tmp, capture_output=True, text=True, timeout=600,
                              env={**os.environ, **plugin_path})
        results = out / "results.json"
        if done.returncode != 0 or not results.exists():
            print(done.stdout[-3000:], done.stderr[-3000:])
            return 1
        tests = [t for t in json.loads(results.read_text())["tests"]
                 if "max_score" in t and t["name"] != "Public Tests"]
        score, total = sum(t.get("score") or 0 for t in tests), sum(t["max_score"] for t in tests)
        print(f"{submission.name}: {score:g}/{total:g} in a clean grader " +
              " ".join(f"{t['name']}={t.get('score') or 0:g}" for t in tests))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
