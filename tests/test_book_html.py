"""Checks on the built HTML that need no browser: launch buttons, the API reference, offline assets.

Skipped when ``_build/html`` is missing or stale (see ``tests/_site.py``); run after
``jupyter-book build .``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import pytest
from _site import CONFIG, HTML, ROOT, built, element_ids, is_chapter, raw_link_texts, require_build, toc_docnames

import attnlib

DOCNAMES = toc_docnames()
CHAPTERS = [d for d in DOCNAMES if is_chapter(d)]


@pytest.fixture(scope="module", autouse=True)
def _built_book():
    require_build()


class Elements(HTMLParser):
    """Every start tag of a page, as (tag, attributes)."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def tags(docname: str) -> list[tuple[str, dict]]:
    return Elements(built(docname).read_text()).tags


def expected_launch_targets(docname: str) -> dict[str, str]:
    """The Binder and Colab URLs of a chapter, from _config.yml alone."""
    repo = CONFIG["repository"]
    org, name = urlsplit(repo["url"]).path.strip("/").split("/")[:2]
    branch = repo.get("branch", "main")
    prefix = repo.get("path_to_book", "").strip("/")
    path = f"{prefix}/{docname}.ipynb" if prefix else f"{docname}.ipynb"
    buttons = CONFIG["launch_buttons"]
    ui = {"classic": "tree", "jupyterlab": "lab/tree"}[buttons.get("notebook_interface", "classic")]
    return {
        "Binder": f"{buttons['binderhub_url'].rstrip('/')}/v2/gh/{org}/{name}/{branch}?urlpath={ui}/{path}",
        "Colab": f"{buttons['colab_url'].rstrip('/')}/github/{org}/{name}/blob/{branch}/{path}",
        "notebook": path,
    }


@pytest.mark.parametrize("docname", CHAPTERS)
def test_chapter_has_binder_colab_and_thebe_buttons_to_its_notebook(docname):
    want = expected_launch_targets(docname)
    assert (ROOT / want["notebook"]).exists(), f"launch buttons point at {want['notebook']}, which does not exist"
    page = tags(docname)
    hrefs = {a.get("href") for tag, a in page if tag == "a"}
    assert want["Binder"] in hrefs, f"no Binder button to {want['Binder']}"
    assert want["Colab"] in hrefs, f"no Colab button to {want['Colab']}"
    thebe = [a for tag, a in page if tag == "button" and "btn-launch-thebe" in a.get("class", "")]
    assert thebe and thebe[0].get("onclick") == "initThebeSBT()", "no Live Code (Thebe) button"
    text = built(docname).read_text()
    org_repo = urlsplit(CONFIG["repository"]["url"]).path.strip("/")
    config = re.search(r'<script type="text/x-thebe-config">(.*?)</script>', text, re.S)
    assert config, "no Thebe configuration on the page"
    assert f'repo: "{org_repo}"' in config.group(1)
    assert f'ref: "{CONFIG["repository"].get("branch", "main")}"' in config.group(1)


def test_only_chapters_have_launch_buttons():
    for docname in DOCNAMES:
        if not is_chapter(docname):
            assert "mybinder.org/v2" not in built(docname).read_text(), f"{docname} is not a notebook"


def _public_objects():
    """(path, object) for every name in attnlib.__all__ and every public submodule's public names."""
    found = [(f"attnlib.{name}", getattr(attnlib, name)) for name in attnlib.__all__]
    for info in pkgutil.walk_packages(attnlib.__path__, "attnlib."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        module = importlib.import_module(info.name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n, o in vars(module).items() if not n.startswith("_")
                     and (inspect.isfunction(o) or inspect.isclass(o)) and o.__module__ == module.__name__]
        found += [(f"{info.name}.{name}", getattr(module, name)) for name in names]
    return found


def _resolve(dotted: str):
    """The object at a dotted path, preferring attributes (``attnlib.attention`` is the function)."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=2):
        found = getattr(obj, part, None)
        if found is None:
            try:
                found = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                return None
        obj = found
    return obj


API_PAGES = [d for d in DOCNAMES if d == "book/api" or d.startswith("book/api/")]


def api_ids() -> set[str]:
    """The anchors of every page of the API reference (one page per subpackage)."""
    return {anchor for d in API_PAGES for anchor in element_ids(HTML / f"{d}.html")}


def test_api_reference_is_one_page_per_subpackage():
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    from attnlib_api import subpackages

    pages = {d.removeprefix("book/api/") for d in API_PAGES if d != "book/api"}
    assert pages == {"attnlib"} | {name.split(".")[1] for name in subpackages(attnlib)}
    for d in API_PAGES:
        assert (HTML / f"{d}.html").exists(), f"{d} is not built: is it in _toc.yml?"
    # no page is one long scroll any more: the largest holds a fraction of the entries
    sizes = {d: (HTML / f"{d}.html").read_text().count('<dl class="py ') for d in API_PAGES}
    assert max(sizes.values()) < 0.5 * sum(sizes.values()), sizes


def test_api_reference_documents_every_public_name():
    documented = {id(_resolve(anchor)) for anchor in api_ids() if anchor.startswith("attnlib.")}
    missing = [path for path, obj in _public_objects() if id(obj) not in documented]
    assert not missing, f"not in the API reference: {missing}"


def test_api_reference_shows_docstrings_with_sections_and_examples():
    text = (HTML / "book" / "api" / "attnlib.html").read_text()
    functions = [name for name in attnlib.__all__ if inspect.isfunction(getattr(attnlib, name))]
    assert text.count('<dl class="py function">') >= len(functions), functions
    assert "Parameters" in text and "Returns" in text
    assert '<div class="doctest highlight-default notranslate">' in text, "docstring examples are not rendered"


@pytest.mark.parametrize("docname", CHAPTERS)
def test_chapter_links_to_the_api_reference(docname):
    links = [a["href"] for tag, a in tags(docname) if tag == "a" and re.search(r"api/\w+\.html#attnlib\.",
                                                                              a.get("href", ""))]
    assert links, (f"{docname} never links to the API reference: in the markdown, name a function as "
                   "inline code where it is first used, e.g. `attnlib.train`, `viz.plot_loss_curves`, or as "
                   "the chapter imports it (CONTRIBUTING.md, 'Linking from a chapter')")
    for href in links:
        anchor = unquote(href.split("#", 1)[1])
        page = HTML / "book" / href.split("#", 1)[0]
        assert anchor in element_ids(page.resolve()), f"dead API link {href}"


@pytest.mark.parametrize("docname", DOCNAMES)
def test_figures_and_scripts_are_served_with_the_book(docname):
    """Images come from the build itself, and MathJax is the local copy."""
    for tag, attrs in tags(docname):
        if tag == "img":
            assert not re.match(r"(https?:)?//", attrs.get("src", "")), f"image fetched from outside: {attrs['src']}"
        if tag == "script" and "mathjax" in attrs.get("src", "").lower():
            src = attrs["src"]
            assert not re.match(r"(https?:)?//", src), f"MathJax from a CDN: {src}"
            assert (built(docname).parent / src.split("?")[0]).resolve().exists(), f"MathJax missing: {src}"


def test_claims_index_links_every_statement_and_witness_to_its_place():
    """Each entry of book/claims links to its statement, and each witness link to an anchor on its cell."""
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import claims
    import prose

    links = [a.get("href", "") for tag, a in tags("book/claims") if tag == "a"]
    targets = {}
    for page in [prose.read_page(p, ROOT) for p in claims.toc_pages(ROOT)]:
        for s in prose.statements(page):
            targets[f"{page.name.split('/')[-1]}.html#{s.label}"] = s.label
        for w in prose.witnesses(page):
            anchor = claims.witness_label(w.page, w.cell)
            targets[f"{page.name.split('/')[-1]}.html#{anchor}"] = anchor
            assert anchor in element_ids(built(page.name)), f"{page.name} has no anchor {anchor} on its witness cell"
    missing = [t for t in targets if t not in links]
    assert not missing, f"the claims index does not link {missing[:10]}"


@pytest.mark.parametrize("docname", toc_docnames())
def test_link_texts_are_plain_words(docname):
    require_build()
    found = raw_link_texts(built(docname).read_text())
    assert not found, f"{docname}: cross-references whose text is LaTeX source (give them words): {found}"
