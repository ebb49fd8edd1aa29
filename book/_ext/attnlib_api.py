"""Sphinx helpers for the book's API reference (loaded through ``_config.yml``).

Three things, each small:

``.. attnlib-api::``
    Expands into the whole API reference, generated from the docstrings with
    autodoc (numpy style through napoleon). It walks the package, so a module
    added to ``attnlib`` appears in the reference without editing any page:

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

import importlib
import inspect
import pkgutil
import re
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


def api_plan(package: ModuleType):
    """[(group title, [(module, title, summary, [(path, obj)])])]: what the reference shows."""
    seen: set[int] = set()
    by_module: dict[str, list] = {}
    for name in package.__all__:
        obj = getattr(package, name)
        seen.add(id(obj))
        home = getattr(obj, "__module__", None) or package.__name__
        if not home.startswith(package.__name__):
            home = package.__name__
        by_module.setdefault(home, []).append((f"{package.__name__}.{name}", obj))
    modules = {m.__name__: m for m in public_modules(package)}
    modules[package.__name__] = package

    top = []
    for home in sorted(by_module):
        module = modules.get(home) or importlib.import_module(home)
        title = home.rsplit(".", 1)[-1].replace("_", " ").capitalize() if home != package.__name__ else "Package"
        top.append((module, title, _summary(module), by_module[home]))

    rest = []
    for modname, module in sorted(modules.items()):
        if modname == package.__name__:
            continue
        entries = []
        for name in module_names(module):
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            entries.append((f"{modname}.{name}", obj))
        if entries:
            rest.append((module, f"``{modname}``", _summary(module), entries))
    return [("Top-level names", top), ("Submodules", rest)]


# --------------------------------------------------------------------------- the directive


class AttnlibAPI(SphinxDirective):
    """Generate the API reference: one section per module, autodoc entries inside."""

    has_content = False
    optional_arguments = 1
    option_spec = {"top-intro": directives.unchanged, "sub-intro": directives.unchanged}

    def run(self):
        package = importlib.import_module(self.arguments[0] if self.arguments else PACKAGE)
        self.env.note_dependency(inspect.getfile(package))
        intros = {"Top-level names": self.options.get("top-intro", ""),
                  "Submodules": self.options.get("sub-intro", "")}
        out = []
        for group, sections in api_plan(package):
            if not sections:
                continue
            group_node = self._section(group)
            if intros[group]:
                self._parse([intros[group], ""], group_node)
            for module, title, summary, entries in sections:
                self.env.note_dependency(inspect.getfile(module))
                node = self._section(title)
                if group == "Submodules":
                    lines = [f".. automodule:: {module.__name__}", ""]
                else:
                    lines = [f"{summary} (defined in ``{module.__name__}``).", ""] if summary else []
                for path, obj in entries:
                    lines += _auto(path, obj)
                self._parse(lines, node)
                self._note_canonical(node, entries)
                group_node += node
            out.append(group_node)
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

LITERAL = re.compile(r"^([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?$", re.S)


class LinkAPILiterals(SphinxPostTransform):
    """Turn the first inline literal naming a documented ``attnlib`` object on a page into a link."""

    default_priority = 5  # before the reference resolver; the links are made directly

    def run(self, **kwargs) -> None:
        domain = self.env.get_domain("py")
        objects = domain.objects
        submodules = {name.split(".")[1] for name in objects if name.startswith(PACKAGE + ".")}
        linked: set[str] = set()
        for node in list(self.document.findall(nodes.literal)):
            if isinstance(node, nodes.literal_block) or _inside_link_or_title(node):
                continue
            match = LITERAL.match(node.astext().strip())
            if not match:
                continue
            name = match.group(1)
            first = name.split(".")[0]
            if first != PACKAGE and first not in submodules:
                continue
            target = name if first == PACKAGE else f"{PACKAGE}.{name}"
            entry = objects.get(target)
            if entry is None or target in linked or entry.docname == self.env.docname:
                continue
            linked.add(target)
            ref = make_refnode(self.app.builder, self.env.docname, entry.docname, entry.node_id,
                               node.deepcopy(), title=target)
            ref["classes"].append("api-link")
            node.replace_self(ref)


def _inside_link_or_title(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, (nodes.reference, addnodes.pending_xref, nodes.title, addnodes.desc_signature,
                               nodes.literal_block)):
            return True
        parent = parent.parent
    return False


# --------------------------------------------------------------------------- external names


def external_as_text(app, env, node, contnode):
    """Show a Python reference to another project as plain text (no intersphinx offline)."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    if target == PACKAGE or target.startswith(PACKAGE + "."):
        return None  # our own API must resolve
    return contnode


def setup(app):
    app.add_directive("attnlib-api", AttnlibAPI)
    app.add_post_transform(LinkAPILiterals)
    app.connect("missing-reference", external_as_text, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
