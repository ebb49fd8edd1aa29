"""Sphinx helpers for the book's API reference (loaded through ``_config.yml``).

Three things, each small:

``.. attnlib-api::``
    Expands into the API reference, generated from the docstrings with
    autodoc (numpy style through napoleon). It walks the package, so a module
    added to ``attnlib`` appears in the reference without editing any page.
    ``:part: attnlib`` gives the top-level names and the modules outside the
    subpackages; ``:part: attnlib.rkhs`` gives one subpackage (``parts`` lists
    them), one page each:

    - every name in ``attnlib.__all__``, documented as ``attnlib.<name>`` and
      grouped by the module that defines it;
    - every other public module and subpackage (any dotted path without a
      component starting with ``_``): the names in its ``__all__``, or else the
      functions and classes it defines. An object is documented once, at the
      first (shortest) public path that exposes it.

Links from the chapters
    An inline literal in prose such as ```attnlib.train``` or
    ```viz.plot_loss_curves(...)``` becomes a link to its entry in the
    reference, the first time it occurs on a page. Authors write nothing
    special; only names that the reference documents are linked.

References to other projects
    The book builds offline, so there is no intersphinx inventory for numpy or
    Python. Type fields such as ``ndarray of shape (N, n, d)`` or
    ``numpy.random.Generator`` are therefore shown as plain text instead of
    warning under ``-n``. A reference to an ``attnlib`` name that does not exist
    still warns, so a typo in our own API fails the strict build.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import re
import sys
from types import ModuleType

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode, nested_parse_with_titles

PACKAGE = "attnlib"


# --------------------------------------------------------------------------- discovery


def public_modules(package: ModuleType) -> list[ModuleType]:
    """The package's public modules and subpackages, imported, in dotted-name order."""
    names = [
        info.name
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
        if not any(part.startswith("_") for part in info.name.split(".")[1:])
    ]
    return [importlib.import_module(name) for name in sorted(names)]


def module_names(module: ModuleType) -> list[str]:
    """A module's public names: its ``__all__``, else the functions and classes it defines."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == module.__name__
    ]


def _summary(module: ModuleType) -> str:
    doc = inspect.getdoc(module) or ""
    return doc.strip().splitlines()[0].rstrip(".") if doc.strip() else ""


def _auto(path: str, obj) -> list[str]:
    if inspect.isclass(obj):
        return [f".. autoclass:: {path}", "   :members:", ""]
    if callable(obj):
        return [f".. autofunction:: {path}", ""]
    return [f".. autodata:: {path}", ""]


def _is_public(modname: str) -> bool:
    return not any(part.startswith("_") for part in modname.split(".")[1:])


class Section:
    """One module's part of the reference."""

    def __init__(self, module: ModuleType, title: str):
        self.module = module
        self.title = title
        self.entries: list[tuple[str, object]] = []  # (documented path, object), documented here
        self.elsewhere: list[tuple[str, str]] = []   # (name here, documented path): re-exports


def api_plan(package: ModuleType) -> tuple[list[Section], list[Section]]:
    """(top-level sections, submodule sections): what the reference shows, and where.

    Each object is documented once: as ``attnlib.<name>`` if it is in ``attnlib.__all__``;
    otherwise in the outermost public package or module on the way to the module that
    defines it and lists it (``attnlib.checks.check_softmax``, not
    ``attnlib.checks.attention.check_softmax``), or else in the first public module, in
    dotted order, that lists it. Every other module that lists it points there.
    """
    modules = {m.__name__: m for m in public_modules(package)}
    documented: dict[int, str] = {}
    top: dict[str, Section] = {}
    for name in package.__all__:
        obj = getattr(package, name)
        home = getattr(obj, "__module__", None) or package.__name__
        if not home.startswith(package.__name__ + ".") or home not in sys.modules:
            home = package.__name__
        if home not in top:
            title = "Package" if home == package.__name__ else home.rsplit(".", 1)[-1].strip("_")
            top[home] = Section(sys.modules[home], title.replace("_", " ").capitalize())
        path = f"{package.__name__}.{name}"
        top[home].entries.append((path, obj))
        documented.setdefault(id(obj), path)

    listed = {modname: [(name, getattr(module, name)) for name in module_names(module)]
              for modname, module in sorted(modules.items())}
    owner: dict[int, str] = {}
    for names in listed.values():
        for _, obj in names:
            if id(obj) in documented or id(obj) in owner:
                continue
            home = getattr(obj, "__module__", None) or ""
            listers = [m for m, ns in listed.items() if any(o is obj for _, o in ns)]
            packages = [m for m in listers if home == m or home.startswith(m + ".")]
            owner[id(obj)] = min(packages, key=len) if packages else listers[0]

    rest: list[Section] = []
    for modname, names in listed.items():
        section = top.get(modname) or Section(modules[modname], f"``{modname}``")
        for name, obj in names:
            if id(obj) not in documented and owner.get(id(obj)) == modname:
                documented[id(obj)] = f"{modname}.{name}"
                section.entries.append((f"{modname}.{name}", obj))
        if modname not in top:
            rest.append(section)
    for section in rest:
        here = section.module.__name__
        section.elsewhere = [(name, documented[id(obj)]) for name, obj in listed[here]
                             if id(obj) in documented and documented[id(obj)] != f"{here}.{name}"]
    return [top[home] for home in sorted(top)], rest


# --------------------------------------------------------------------------- the directive


def subpackages(package: ModuleType) -> list[str]:
    """The public subpackages of ``package`` (``attnlib.rkhs``, ...): one page of the reference each."""
    return [m.__name__ for m in public_modules(package) if hasattr(m, "__path__") and m.__name__.count(".") == 1]


def in_part(modname: str, part: str, package: ModuleType) -> bool:
    """Whether a module's section belongs to the page of ``part`` (a subpackage, or the package itself)."""
    if part == package.__name__:
        return not any(modname == sub or modname.startswith(sub + ".") for sub in subpackages(package))
    return modname == part or modname.startswith(part + ".")


class AttnlibAPI(SphinxDirective):
    """Generate the API reference: one section per module, autodoc entries inside."""

    has_content = False
    optional_arguments = 1
    option_spec = {"top-intro": directives.unchanged, "sub-intro": directives.unchanged,
                   "part": directives.unchanged}

    def run(self):
        package = importlib.import_module(self.arguments[0] if self.arguments else PACKAGE)
        top, rest = api_plan(package)
        part = self.options.get("part")
        if part:
            if part != package.__name__ and part not in subpackages(package):
                raise self.error(f"attnlib-api: :part: must be {package.__name__} or one of "
                                 f"{subpackages(package)}; received {part!r}")
            top = top if part == package.__name__ else []
            rest = [s for s in rest if in_part(s.module.__name__, part, package)]
        out = []
        for group, sections, intro in (("Top-level names", top, self.options.get("top-intro", "")),
                                       ("Submodules", rest, self.options.get("sub-intro", ""))):
            if not sections:
                continue
            # on a page of its own (``:part:``), a subpackage's modules are the page's sections
            group_node = nodes.container() if part else self._section(group)
            if intro:
                self._parse([intro, ""], group_node)
            for section in sections:
                module = section.module
                self.env.note_dependency(inspect.getfile(module))
                node = self._section(section.title)
                if group == "Submodules":
                    lines = [f".. automodule:: {module.__name__}", ""]
                else:
                    summary = _summary(module)
                    lines = [f"{summary} (defined in ``{module.__name__}``).", ""] if summary else []
                    names = {path for path, _ in section.entries}
                    if _is_public(module.__name__) and module.__name__ not in names and module is not package:
                        # a target for :py:mod:, unless a function of the same name holds it
                        lines = [f".. py:module:: {module.__name__}", ""] + lines
                for path, obj in section.entries:
                    lines += _auto(path, obj)
                if section.elsewhere:
                    links = ", ".join(f":py:obj:`{name} <{path}>`" for name, path in section.elsewhere)
                    lines += [f"Also importable from ``{module.__name__}``, documented where they are "
                              f"defined: {links}.", ""]
                self._parse(lines, node)
                self._note_canonical(node, section.entries)
                group_node += node
            out.extend(group_node.children if isinstance(group_node, nodes.container) else [group_node])
        return out

    def _note_canonical(self, node: nodes.Element, entries) -> None:
        """Let ``attnlib.landscape.partners`` find ``attnlib.partners``, as autodoc does for classes."""
        domain = self.env.get_domain("py")
        documented = {path: obj for path, obj in entries}
        for sig in node.findall(addnodes.desc_signature):
            path = ".".join(filter(None, (sig.get("module"), sig.get("fullname"))))
            obj = documented.get(path)
            if obj is None or inspect.isclass(obj) or not sig["ids"]:
                continue
            canonical = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
            if canonical != path and canonical not in domain.objects:
                objtype = sig.parent.get("objtype", "function")
                domain.note_object(canonical, objtype, sig["ids"][0], aliased=True, location=sig)

    def _section(self, title: str) -> nodes.section:
        text = title.replace("``", "")
        section = nodes.section(ids=[nodes.make_id("api-" + text)], names=[nodes.fully_normalize_name(text)])
        textnodes, _ = self.state.inline_text(title, self.lineno)
        section += nodes.title(title, "", *textnodes)
        self.state.document.note_implicit_target(section, section)
        return section

    def _parse(self, lines: list[str], node: nodes.Element) -> None:
        content = StringList(lines, source="<attnlib-api>")
        nested_parse_with_titles(self.state, content, node)


# --------------------------------------------------------------------------- links from prose

LITERAL = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*\))?$", re.S)


def imported_names(code: str) -> dict[str, str]:
    """What the page's code imports from attnlib: {local name: dotted path}.

    ``from attnlib import lower_bounds as lb`` gives ``{"lb": "attnlib.lower_bounds"}``;
    ``from attnlib.rkhs import cubic_features`` gives ``{"cubic_features": "attnlib.rkhs.cubic_features"}``.
    """
    names: dict[str, str] = {}
    # IPython magics (`%pip install ...` in the Colab cell) become `pass`, keeping the indentation
    lines = [re.sub(r"^(\s*)[%!].*", r"\1pass", line) for line in code.splitlines()]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else PACKAGE
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                node.module == PACKAGE or node.module.startswith(PACKAGE + ".")):
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


class LinkAPILiterals(SphinxPostTransform):
    """Link the first inline literal on a page that names a documented ``attnlib`` object.

    A name counts if it is written with its module (```attnlib.train```,
    ```viz.plot_loss_curves```) or as the page's own code imports it
    (```cubic_features(X)``` after ``from attnlib.rkhs import cubic_features``,
    ```lb.fourier_spectrum``` after ``from attnlib import lower_bounds as lb``), in a cell
    the page shows or in one whose input it removes (the set-up cell).
    """

    default_priority = 5  # before the reference resolver; the links are made directly

    def run(self, **kwargs) -> None:
        domain = self.env.get_domain("py")
        objects = {name: entry for name, entry in domain.objects.items() if name.startswith(PACKAGE + ".")}
        if not objects:
            return
        by_identity: dict[int, str] | None = None
        # submodules by their short name (viz.plot_x), and whatever the page imports
        scope = {name.split(".")[1]: name for name, entry in objects.items()
                 if entry.objtype == "module" and name.count(".") == 1}
        scope[PACKAGE] = PACKAGE
        for block in self.document.findall(nodes.literal_block):
            scope.update(imported_names(block.astext()))
        for code in _notebook_code(self.env.doc2path(self.env.docname)):
            scope.update(imported_names(code))  # also cells whose input the page does not show
        linked: set[str] = set()
        for node in list(self.document.findall(nodes.literal)):
            if isinstance(node, nodes.literal_block) or _inside_link_or_title(node):
                continue
            match = LITERAL.match(node.astext().strip())
            if not match:
                continue
            head, _, rest = match.group(1).partition(".")
            if head not in scope:
                continue
            target = f"{scope[head]}.{rest}" if rest else scope[head]
            if target not in objects:
                if by_identity is None:
                    by_identity = {}
                    for name, entry in objects.items():
                        if not entry.aliased:
                            by_identity.setdefault(id(_resolve(name)), name)
                obj = _resolve(target)
                target = by_identity.get(id(obj)) if obj is not None else None
            entry = objects.get(target) if target else None
            if entry is None or target in linked or entry.docname == self.env.docname:
                continue
            linked.add(target)
            ref = make_refnode(self.app.builder, self.env.docname, entry.docname, entry.node_id,
                               node.deepcopy(), title=target)
            ref["classes"].append("api-link")
            node.replace_self(ref)


def _notebook_code(path) -> list[str]:
    """The code cells of a notebook source (the set-up cell's imports are removed from the page)."""
    import json
    from pathlib import Path

    path = Path(path)
    if path.suffix != ".ipynb" or not path.exists():
        return []
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    return ["".join(c.get("source", [])) for c in cells if c.get("cell_type") == "code"]


def _inside_link_or_title(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, (nodes.reference, addnodes.pending_xref, nodes.title, addnodes.desc_signature,
                               nodes.literal_block)):
            return True
        parent = parent.parent
    return False


# --------------------------------------------------------------------------- references


def _resolve(dotted: str):
    """The object at a dotted path, preferring attributes (``attnlib.attention`` is the function)."""
    parts = dotted.split(".")
    try:
        obj = importlib.import_module(parts[0])
    except ImportError:
        return None
    for i, part in enumerate(parts[1:], start=2):
        found = getattr(obj, part, None)
        if found is None:
            try:
                found = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                return None
        obj = found
    return obj


def resolve_reference(app, env, node, contnode):
    """References the Python domain could not resolve.

    - ``attnlib.lower_bounds.fourier_spectrum``, a path through which a documented
      object is importable, links to where it is documented;
    - a name from another project is shown as plain text (there is no intersphinx
      inventory offline);
    - a name in a private module (``attnlib._linalg.smallest_eigenvalue``), which a
      docstring may name for developers, is shown as code without a link: private
      helpers have no page;
    - any other ``attnlib`` name is left alone, so the strict build warns about it.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    if target != PACKAGE and not target.startswith(PACKAGE + "."):
        return contnode
    if any(part.startswith("_") for part in target.split(".")[1:-1]) and _resolve(target) is not None:
        return contnode
    obj = _resolve(target)
    if obj is None:
        return None
    domain = env.get_domain("py")
    for name, entry in domain.objects.items():
        if name.startswith(PACKAGE + ".") and not entry.aliased and _resolve(name) is obj:
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, name)
    return None


# --------------------------------------------------------------------------- docstrings

# |x| in a docstring means an absolute value or a size, but reStructuredText reads it as a
# substitution reference and fails. Outside inline literals and roles, such bars are escaped.
SUBSTITUTION = re.compile(r"(?<![\\|\w])\|(?=[^\s|])([^|\n]*?[^\s|\\])\|(?![\w|])")
LITERAL_SPANS = re.compile(r"(``.+?``|:[\w:.-]+:`[^`]*`|`[^`]*`_?)")


def escape_bars(app, what, name, obj, options, lines) -> None:
    for i, line in enumerate(lines):
        if "|" not in line or re.match(r"\s*(\| |\|$|\+[-=])", line):
            continue  # line blocks and grid tables keep their bars
        parts = LITERAL_SPANS.split(line)
        lines[i] = "".join(part if j % 2 else SUBSTITUTION.sub(r"\\|\1\\|", part) for j, part in enumerate(parts))


def data_comment(name: str, obj) -> list[str] | None:
    """The ``#:`` comment of a module-level constant, from the module that defines it.

    A constant re-exported by a package (``attnlib.sculpt.METHODS``, defined in
    ``attnlib.sculpt.compare``) has its comment in the defining module, which autodoc does not read, so
    it fell back to the docstring of the value's type ("Built-in immutable sequence. ..."; a dict's
    is not even valid reStructuredText). None if no module of the package defines ``name`` as ``obj``
    with a comment.
    """
    from sphinx.pycode import ModuleAnalyzer

    modname, _, attr = name.rpartition(".")
    for modname_ in sorted(m for m in sys.modules if m == modname or m.startswith(modname + ".")):
        if getattr(sys.modules[modname_], attr, None) is not obj:
            continue
        try:
            comment = ModuleAnalyzer.for_module(modname_).find_attr_docs().get(("", attr))
        except Exception:  # a module without source (a C extension) has no comments to read
            continue
        if comment:
            return [line.rstrip("\n") for line in comment]
    return None


def document_constants(app, what, name, obj, options, lines) -> None:
    """A constant's entry reads its own ``#:`` comment, never the docstring of its value's type."""
    if what != "data":
        return
    inherited = (inspect.getdoc(type(obj)) or "").strip()
    if not inherited or "\n".join(lines).strip() != inherited:
        return
    lines[:] = data_comment(name, obj) or []


def _documented_attributes(cls) -> set[str]:
    """Names listed in the ``Attributes`` section of a class's numpy-style docstring."""
    doc = inspect.getdoc(cls) or ""
    section = re.search(r"^Attributes\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.M | re.S)
    if section is None:
        return set()
    names = re.findall(r"^(\w+(?:, \w+)*) ?:", section.group(1), re.M)
    return {name for group in names for name in group.split(", ")}


def skip_documented_property(app, what, name, obj, skip, options):
    """A property the class's ``Attributes`` section already describes is not described twice.

    Napoleon turns that section into attribute entries, and autodoc would add the property as
    a member under the same name: a duplicate object description, which the strict build refuses.
    """
    function = obj.fget if isinstance(obj, property) else getattr(obj, "func", None)
    if what != "class" or skip or not isinstance(obj, (property, functools.cached_property)):
        return None
    owner = getattr(function, "__qualname__", "").rpartition(".")[0]
    module = sys.modules.get(getattr(function, "__module__", ""), None)
    cls = getattr(module, owner, None) if module is not None and owner else None
    if cls is not None and name in _documented_attributes(cls):
        return True
    return None


def setup(app):
    app.add_directive("attnlib-api", AttnlibAPI)
    app.add_post_transform(LinkAPILiterals)
    app.connect("missing-reference", resolve_reference, priority=900)
    app.connect("autodoc-process-docstring", document_constants, priority=400)
    app.connect("autodoc-process-docstring", escape_bars)
    app.connect("autodoc-skip-member", skip_documented_property)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
