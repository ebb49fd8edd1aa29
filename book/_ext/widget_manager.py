"""Serve the ipywidgets manager with the book, so the precomputed explorers move offline.

A chapter page carries its widget state (``metadata.widgets`` of the executed notebook,
written into the page by myst-nb) and needs a manager in the browser to draw it. myst-nb's
default loads RequireJS and ``@jupyter-widgets/html-manager`` from two CDNs, which an
offline reader cannot reach. This extension instead

1. fetches the pinned html-manager package from the npm registry with ``npm pack``
   (checking the registry's sha512 integrity), once, into ``_build/.widget-manager``;
2. keeps its ``dist/embed.js`` (the self-contained bundle: all standard controls, no
   RequireJS, no requests to other hosts) with the font files it references, and writes
   the licences beside them: the bundle's third-party notices (``embed.js.LICENSE.txt``),
   the package's ``package.json`` (licence BSD-3-Clause) and the ipywidgets licence text
   (from the installed ipywidgets, same project and licence);
3. adds that folder to ``html_static_path``, so it lands in ``_build/html/_static/widgets/``.

``_config.yml`` points myst-nb at it: ``nb_ipywidgets_js: {widgets/embed.js: {}}``.
Nothing minified is committed to the repository. Without npm, or without the registry,
the build stops with a message saying so (a page whose widgets cannot draw is a broken page).
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
from importlib import metadata
from pathlib import Path

from sphinx.errors import ExtensionError

PACKAGE = "@jupyter-widgets/html-manager"
VERSION = "1.0.15"  # matches ipywidgets 8.1 (controls 5, base 6); see requirements.txt
INTEGRITY = "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA=="
FONTS = (".woff2", ".woff", ".ttf", ".eot", ".svg")
SUBDIR = "widgets"  # under _static


def _integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def fetch(cache: Path) -> Path:
    """The folder ``cache/widgets`` holding embed.js, its fonts and licences; fetched if missing."""
    target = cache / SUBDIR
    stamp = target / "VERSION"
    if stamp.is_file() and stamp.read_text().strip() == f"{PACKAGE}@{VERSION}" and (target / "embed.js").is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise ExtensionError(f"npm is needed to fetch {PACKAGE}@{VERSION} (the widget manager served with the "
                             "book): install Node.js (Debian: apt-get install npm)")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            out = subprocess.run([npm, "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", tmp, "--json"],
                                 capture_output=True, text=True, check=True, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
            raise ExtensionError(f"`npm pack {PACKAGE}@{VERSION}` failed (is the npm registry reachable?): "
                                 f"{getattr(err, 'stderr', '') or err}") from err
        filename = json.loads(out.stdout)[0]["filename"]
        tarball = Path(tmp) / Path(filename).name
        if _integrity(tarball) != INTEGRITY:
            raise ExtensionError(f"{tarball.name} does not match the pinned integrity {INTEGRITY}")
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        with tarfile.open(tarball) as archive:
            for member in archive.getmembers():
                name = member.name
                keep = (name in ("package/dist/embed.js", "package/dist/embed.js.LICENSE.txt", "package/package.json")
                        or (name.startswith("package/dist/") and name.endswith(FONTS)))
                if keep and member.isfile():
                    data = archive.extractfile(member).read()
                    (target / Path(name).name).write_bytes(data)
    try:
        licence = next(f for f in metadata.distribution("ipywidgets").files or []
                       if f.name.upper().startswith("LICENSE"))
        (target / "LICENSE.ipywidgets.txt").write_text(licence.read_text())
    except (StopIteration, metadata.PackageNotFoundError):
        pass
    (target / "README.txt").write_text(
        f"{PACKAGE}@{VERSION} from the npm registry (npm pack, integrity {INTEGRITY}).\n"
        "embed.js and its fonts are copied unchanged; licence: BSD-3-Clause (package.json, and the\n"
        "ipywidgets licence text in LICENSE.ipywidgets.txt); bundled third-party code and fonts:\n"
        "embed.js.LICENSE.txt. Fetched by book/_ext/widget_manager.py at build time.\n")
    stamp.write_text(f"{PACKAGE}@{VERSION}\n")
    return target


def serve_manager(app, config) -> None:
    cache = Path(app.outdir).parent / ".widget-manager"
    fetch(cache)
    config.html_static_path = list(config.html_static_path) + [str(cache)]


def setup(app):
    app.connect("config-inited", serve_manager)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
