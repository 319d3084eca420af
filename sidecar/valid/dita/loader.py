"""Secure loading of a DITA doc set: the root map and everything it pulls in.

Nothing outside the doc set is ever read. Parsing uses lxml with entity resolution, DTD loading and
the network off; internal general entities of the DOCTYPE's internal subset are expanded within
bounds, every other entity is refused (XXE, parameter entities, billion laughs: valid.dita.entities),
the DOCTYPE is otherwise ignored, XInclude is never run. References are followed from the root map only through maprefs,
topicrefs, key definitions and conrefs, and each one is checked before the file it names is opened:
it must stay inside the doc-set root (the root map's directory unless `root=` widens it) and must not
use a URL scheme. Link targets (xref, link) are not loaded.

Each loaded element gets what a DITA-OT 4.x map/topic reader would give it: `@class` from the
grammar defaults (valid.dita.classes), the debug attributes `@xtrf`/`@xtrc`, and one attribute of
VALID's own, `valid:xpath`, the element's positional path in its file. Anything VALID does not
support is collected as a warning with file and line; nothing is dropped silently. What DITA-OT
reports and builds past (a referenced file that is missing or not well-formed, a conref target that
does not exist) is a warning too, with DITA-OT's message id, and loading goes on without it; the
root map itself must exist and parse, and anything unsafe is still refused.
"""

from __future__ import annotations

import html.entities
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote

from lxml import etree

from valid.contracts import ExportWarning
from valid.dita import classes, entities, markdown
from valid.dita.grammar import Grammar, Grammars, read_catalog
from valid.errors import DitaSyntaxError, MissingTargetError, UnsafeReferenceError

VALID_NS = "urn:valid:dita"
XPATH_ATTR = f"{{{VALID_NS}}}xpath"
XINCLUDE_NS = "http://www.w3.org/2001/XInclude"

_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

# Only local DITA content is loaded; other formats (html, pdf, images) are left as links.
_DITA_FORMATS = {"dita": "dita", "ditamap": "ditamap"}
_EXTENSION_FORMATS = {".dita": "dita", ".xml": "dita", ".ditamap": "ditamap"}


@dataclass
class SourceFile:
    """One parsed and annotated source file."""

    file: Path  # absolute, symlinks resolved
    path: str  # relative to the root map's directory, '/' separated (what users and the export see)
    job_uri: str  # relative to the doc-set root: where the file goes in a job directory
    uri: str  # absolute file: URI, the value of @xtrf
    format: str  # "dita" or "ditamap"
    tree: etree._ElementTree | None  # None after DocSet.release_trees

    @property
    def root(self) -> etree._Element:
        return self.tree.getroot()


@dataclass
class DocSet:
    root_dir: Path
    map_dir: Path
    root_map: SourceFile
    files: dict[Path, SourceFile]  # in the order they were reached
    warnings: list[ExportWarning] = field(default_factory=list)
    # (directory, relative path) -> resolved path: every profile's build resolves the same
    # references, and resolving (realpath) asks the file system for each path component.
    _resolved: dict[tuple[Path, str], Path] = field(default_factory=dict, repr=False, compare=False)
    _relative: dict[tuple[Path, Path], str] = field(default_factory=dict, repr=False, compare=False)
    # The root map with its submaps inlined: the same for every profile's build (filtering comes
    # after), so it is made once and each build takes a copy.
    inlined_map: etree._Element | None = field(default=None, repr=False, compare=False)

    def get(self, file: Path) -> SourceFile | None:
        return self.files.get(file)

    def resolve(self, directory: Path, path: str) -> Path:
        """`directory / path` with symlinks resolved (as Path.resolve), cached for this doc set."""
        key = (directory, path)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = (directory / path).resolve()
        return found

    def release_trees(self) -> None:
        """Drop every file's parsed tree (paths and names stay): once the builds are written, the
        stylesheet reads them from disk, and a large doc set's trees are hundreds of megabytes."""
        for sf in self.files.values():
            sf.tree = None
        self.inlined_map = None

    def relative(self, path: Path, start: Path) -> str:
        """`path` relative to the directory `start`, '/'-separated (os.path.relpath), cached."""
        key = (path, start)
        found = self._relative.get(key)
        if found is None:
            found = self._relative[key] = Path(os.path.relpath(path, start)).as_posix()
        return found

    def display(self, file: Path) -> str:
        return _relpath(file, self.map_dir)


@dataclass(frozen=True)
class Reference:
    """A parsed @href/@conref value relative to the file it appears in."""

    file: Path | None  # None: the same file (fragment-only reference)
    fragment: str | None


def file_uri(path: Path, directory: bool = False) -> str:
    """DITA-OT's URI form for a local file, file:/abs/path (one slash): @xtrf, .job.xml, run document."""
    uri = "file:" + quote(path.as_posix(), safe="/:@!$&'()*+,;=-._~")
    return uri + "/" if directory and not uri.endswith("/") else uri


# ----------------------------------------------------------------------------- parsing


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
    )


@dataclass(frozen=True)
class UndeclaredEntity:
    """A reference to an entity no DTD is read for, already replaced in the tree."""

    name: str
    line: int
    replacement: str  # the HTML character of that name, or "" when it was dropped


@dataclass(frozen=True)
class Parsed:
    tree: etree._ElementTree
    undeclared: tuple[UndeclaredEntity, ...]


def parse_secure(file: Path, display: str) -> Parsed:
    """Parse one XML file without resolving entities, loading DTDs or touching the network.

    Raises UnsafeReferenceError for an entity that is not internal or is over a bound,
    DitaSyntaxError for malformed XML.
    """
    try:
        data = file.read_bytes()
    except OSError as err:
        raise MissingTargetError(display, None, f"cannot read file: {err.strerror}") from None
    return parse_bytes(data, display, base_url=file_uri(file))


def parse_bytes(data: bytes, display: str, base_url: str | None = None) -> Parsed:
    # The internal subset is checked before the parser sees the file, so nothing an entity names is
    # ever read and no expansion runs past its bounds (valid.dita.entities).
    internal = entities.read(data, display)
    try:
        root = etree.fromstring(data, _parser(), base_url=base_url)
    except etree.XMLSyntaxError as err:
        line = err.lineno or None
        raise DitaSyntaxError(display, line, f"malformed XML: {_syntax_message(err)}") from None
    tree = root.getroottree()
    _check_parsed_entities(tree, internal, display)
    # Lines before any text changes: lxml derives an entity reference's line from its neighbouring
    # text, which every replacement rewrites (without a line).
    lines = {e: e.sourceline or 0 for e in root.iter() if isinstance(e, etree._Entity)}
    if internal is not None:
        entities.expand(root, internal, display)
    undeclared = [e for e in root.iter() if isinstance(e, etree._Entity)]  # also any inside expanded text
    return Parsed(tree, tuple(_replace_undeclared(e, lines.get(e, e.sourceline or 0)) for e in undeclared))


def _replace_undeclared(ent: etree._Entity, line: int) -> UndeclaredEntity:
    # With no DTD, a named entity such as &nbsp; stays a reference; writing it back would make the
    # job file unparseable. Use the HTML character of that name when there is one, else drop it.
    char = html.entities.html5.get(f"{ent.name};", "")
    parent = ent.getparent()
    text = char + (ent.tail or "")
    prev = ent.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + text
    else:
        parent.text = (parent.text or "") + text
    parent.remove(ent)
    return UndeclaredEntity(ent.name, line, char)


def _check_parsed_entities(tree: etree._ElementTree, internal, display: str) -> None:
    """Defence in depth: the parser saw no entity the internal-subset reader did not accept."""
    dtd = tree.docinfo.internalDTD
    if dtd is None:
        return
    accepted = internal.declarations if internal is not None else {}
    for ent in dtd.entities():
        if ent.name not in accepted or ent.system_url:
            raise UnsafeReferenceError(display, None, f"entity '{ent.name}' is refused {entities.REFUSED}")


def _syntax_message(err: etree.XMLSyntaxError) -> str:
    msg = str(err.msg or err)
    return re.sub(r"\s*\(.*, line \d+\)$", "", msg).rstrip(".")


# ----------------------------------------------------------------------------- annotation


def _qname(el: etree._Element) -> str:
    local = etree.QName(el).localname
    return f"{el.prefix}:{local}" if el.prefix else local


def annotate(
    sf: SourceFile, warnings: list[ExportWarning], grammar: Grammar | None = None, xpaths: bool = True
) -> None:
    """Add @class defaults, DITA-OT's @xtrf/@xtrc and valid:xpath to every element of the file
    (`xpaths`: False for a topic parsed from Markdown, whose source has no elements to point at).

    Defaults come from the file's own grammar when the doc set ships it (valid.dita.grammar), else
    from the built-in DITA 1.3 table."""
    # A DTD-validating parser (DITA-OT's) normalizes @id, declared ID on topics and NMTOKEN on other
    # elements: "examine_schema " is the id examine_schema. Files without a DOCTYPE are left as written.
    tokenized_ids = bool(sf.root.getroottree().docinfo.doctype)
    root = _with_valid_namespace(sf)
    counts: dict[str, int] = {}
    unknown: dict[str, list[int]] = {}
    # Ancestors come first in document order, so until some element is foreign markup's container
    # no element can be inside one, and the ancestor walk of _in_foreign is skipped.
    any_foreign = False
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue  # comments and processing instructions
        if tokenized_ids and el.get("id") is not None:
            el.set("id", " ".join(el.get("id").split()))
        qname = _qname(el)
        counts[qname] = counts.get(qname, 0) + 1
        el.set("xtrf", sf.uri)
        el.set("xtrc", f"{qname}:{counts[qname]};{el.sourceline or 0}:1")
        ns = etree.QName(el).namespace
        if ns == XINCLUDE_NS:
            warnings.append(_warning(sf, el, "xinclude", "XInclude is not processed; the element is kept as is"))
            continue
        if el.get("class") is not None:
            any_foreign = any_foreign or _holds_foreign(el.get("class"))
            continue
        if any_foreign and _in_foreign(el):
            continue
        local = etree.QName(el).localname
        if ns is None and local in classes.UNCLASSIFIED_BY_DESIGN:
            continue
        declared = grammar.class_of(local) if grammar is not None and ns is None else None
        cls = declared or (classes.default_class(local) if ns is None else None)
        if cls is None:
            unknown.setdefault(qname, []).append(el.sourceline or 0)
            continue
        el.set("class", cls)
        any_foreign = any_foreign or _holds_foreign(cls)
        extra = grammar.attributes_of(local) if declared else classes.ATTRIBUTE_DEFAULTS.get(local, {})
        for att, value in extra.items():
            if el.get(att) is None:
                el.set(att, value)
    if xpaths:
        _add_xpaths(root)
    for qname, lines in unknown.items():
        more = f" ({len(lines) - 1} more in this file)" if len(lines) > 1 else ""
        warnings.append(
            ExportWarning(
                path=sf.path,
                line=lines[0],
                feature="unknown-element",
                message=f"<{qname}> has no @class and is not a known DITA 1.3 element; "
                f"it is not filtered{more}",
            )
        )


def _with_valid_namespace(sf: SourceFile) -> etree._Element:
    """Re-root the tree so the valid: prefix is declared once, on the root element."""
    old = sf.root
    if old.nsmap.get("valid") == VALID_NS:
        return old
    root = etree.Element(old.tag, attrib=dict(old.attrib), nsmap={**old.nsmap, "valid": VALID_NS})
    root.sourceline = old.sourceline
    root.text = old.text
    root.extend(list(old))
    sf.tree = root.getroottree()
    return root


def _in_foreign(el: etree._Element) -> bool:
    """Inside <foreign>/<unknown> (or their specializations) markup is not DITA and not classified."""
    return any(_holds_foreign(anc.get("class") or "") for anc in el.iterancestors())


def _holds_foreign(cls: str) -> bool:
    return classes.FOREIGN in cls or classes.UNKNOWN in cls


def undeclared_entity_warning(path: str, ent: UndeclaredEntity) -> ExportWarning:
    what = f"replaced by U+{ord(ent.replacement[0]):04X}" if ent.replacement else "dropped"
    return ExportWarning(
        path=path,
        line=ent.line,
        feature="entity",
        message=f"entity reference &{ent.name}; is not declared (no DTD is read); {what}",
    )


def _add_xpaths(root: etree._Element) -> None:
    root.set(XPATH_ATTR, f"/{etree.QName(root).localname}[1]")
    stack = [root]
    while stack:
        parent = stack.pop()
        base = parent.get(XPATH_ATTR)
        seen: dict[str, int] = {}
        for child in parent:
            if not isinstance(child.tag, str):
                continue
            seen[child.tag] = seen.get(child.tag, 0) + 1
            child.set(XPATH_ATTR, f"{base}/{etree.QName(child).localname}[{seen[child.tag]}]")
            stack.append(child)


def _warning(sf: SourceFile, el: etree._Element, feature: str, message: str) -> ExportWarning:
    return ExportWarning(path=sf.path, line=el.sourceline or 0, feature=feature, message=message)


# ----------------------------------------------------------------------------- references


def split_href(href: str) -> tuple[str, str | None]:
    path, sep, fragment = href.partition("#")
    return path, (fragment if sep else None)


def has_url_scheme(href: str) -> bool:
    return bool(_URL_SCHEME.match(href))


def reference_format(el: etree._Element, href_path: str) -> str | None:
    """'dita', 'ditamap' or None (not DITA content) for a reference's target. A Markdown format is
    'dita': DITA-OT parses the file into a topic before any stage reads it (valid.dita.markdown)."""
    fmt = el.get("format")
    if fmt:
        return "dita" if markdown.is_markdown(fmt) else _DITA_FORMATS.get(fmt)
    return _EXTENSION_FORMATS.get(os.path.splitext(href_path)[1].lower())


def is_external(el: etree._Element) -> bool:
    return el.get("scope") in ("external", "peer")


def resolve_reference(
    source_file: Path, display: str, el: etree._Element, attr: str, value: str, root_dir: Path
) -> Reference:
    """Check one local reference and return its absolute target; refuse anything unsafe."""
    path, fragment = split_href(value)
    line = el.sourceline
    if has_url_scheme(value):
        raise UnsafeReferenceError(
            display,
            line,
            f"@{attr}='{value}' uses a URL scheme; local DITA content must be a relative path "
            "(mark web links scope=\"external\")",
        )
    if not path:
        return Reference(None, fragment)
    if path.startswith("/") or path.startswith("\\"):
        raise UnsafeReferenceError(display, line, f"@{attr}='{value}' is an absolute path; use a relative one")
    target = (source_file.parent / unquote(path)).resolve()
    if not target.is_relative_to(root_dir):
        raise UnsafeReferenceError(
            display,
            line,
            f"@{attr}='{value}' points outside the doc-set root; widen it with --root if this is intended",
        )
    return Reference(target, fragment)


def _relpath(file: Path, base: Path) -> str:
    return Path(os.path.relpath(file, base)).as_posix()


# Elements by @id in document order, found by libxml2's XPath engine: a Python walk over every
# element of a large file per lookup was most of a build's time on a guide that conrefs heavily.
_WITH_ID = etree.XPath("descendant-or-self::*[@id = $id]")
_HAVING_ID = etree.XPath("descendant-or-self::*[@id]")

IdIndex = dict[str, list[etree._Element]]


def id_index(root: etree._Element) -> IdIndex:
    """Every element of the tree under `root` that has an @id, by id, in document order: for a
    tree that many references look into and that no longer changes (find_fragment's `index`)."""
    index: IdIndex = {}
    for el in _HAVING_ID(root):
        index.setdefault(el.get("id"), []).append(el)
    return index


def find_fragment(
    root: etree._Element, fragment: str, context: etree._Element | None = None, index: IdIndex | None = None
):
    """The element a DITA fragment identifier names inside a file, or None.

    'topicid' names a topic (or, in a map, any element with that id); 'topicid/elementid' an element
    inside that topic; './elementid' an element inside the topic that contains `context`.
    `index`: id_index(root), when the caller keeps one; the answer is the same.
    """
    def with_id(under: etree._Element, element_id: str) -> list[etree._Element]:
        return index.get(element_id, []) if index is not None else _WITH_ID(under, id=element_id)

    if "/" in fragment:
        topic_id, _, element_id = fragment.partition("/")
        if topic_id == ".":
            # The topic around `context`, which is in another tree than `root` and its index.
            topic = _enclosing_topic(context) if context is not None else None
            candidates = _WITH_ID(topic, id=element_id) if topic is not None else []
        else:
            topic = _topic_among(with_id(root, topic_id))
            candidates = with_id(topic, element_id) if topic is not None else []
        # Only elements whose nearest topic is this one (an index holds the whole file's).
        return next((el for el in candidates if _enclosing_topic(el) is topic), None)
    topic = _topic_among(with_id(root, fragment))
    if topic is not None:
        return topic
    found = with_id(root, fragment)
    return found[0] if found else None


def _find_topic(root: etree._Element, topic_id: str):
    return _topic_among(_WITH_ID(root, id=topic_id))


def _topic_among(candidates: list[etree._Element]):
    return next((el for el in candidates if classes.has_class(el, classes.TOPIC)), None)


def _enclosing_topic(el: etree._Element):
    for anc in el.iterancestors():
        if classes.has_class(anc, classes.TOPIC):
            return anc
    return None


def first_topic(root: etree._Element):
    """The first topic of a file: its root, or the first topic inside a <dita> wrapper."""
    if classes.has_class(root, classes.TOPIC):
        return root
    for child in root:
        if isinstance(child.tag, str) and classes.has_class(child, classes.TOPIC):
            return child
    return None


# ----------------------------------------------------------------------------- loading


def load(
    map_path: str | os.PathLike,
    *,
    root: str | os.PathLike | None = None,
    catalog: str | os.PathLike | None = None,
) -> DocSet:
    """Load the root map and every map, topic and conref target it reaches, securely.

    `catalog`: an OASIS XML catalog that maps the doc set's DOCTYPEs to its own DTD shells.
    """
    given = Path(map_path)
    map_file = given.resolve()
    if not map_file.is_file():
        raise MissingTargetError(str(given), None, "root map not found")
    root_dir = Path(root).resolve() if root is not None else map_file.parent
    if not root_dir.is_dir():
        raise MissingTargetError(str(root), None, "doc-set root is not a directory")
    if not map_file.is_relative_to(root_dir):
        raise UnsafeReferenceError(str(given), None, "the root map is outside the doc-set root given with --root")
    map_dir = map_file.parent
    grammars = Grammars(root_dir, read_catalog(catalog) if catalog is not None else None)
    grammar_warned: set[str] = set()
    warnings: list[ExportWarning] = []
    files: dict[Path, SourceFile] = {}
    # (file, format, the Markdown format it is parsed as or None)
    queue: list[tuple[Path, str, str | None]] = [(map_file, "ditamap", None)]
    conrefs: list[tuple[SourceFile, etree._Element, Reference]] = []
    topicrefs: list[tuple[SourceFile, etree._Element, Reference]] = []  # those with a fragment
    unreadable: set[Path] = set()
    while queue:
        file, fmt, markdown_format = queue.pop(0)
        if file in files or file in unreadable:
            continue
        display = _relpath(file, map_dir)
        parsed = _parse_referenced(file, display, file == map_file, warnings, markdown_format)
        if parsed is None:
            unreadable.add(file)
            continue
        sf = SourceFile(
            file=file,
            path=display,
            job_uri=_relpath(file, root_dir),
            uri=file_uri(file),
            format=fmt,
            tree=parsed.tree,
        )
        grammar, why_not = grammars.for_tree(parsed.tree, file)
        if why_not is not None and why_not not in grammar_warned:
            grammar_warned.add(why_not)  # once per grammar, at the first file that names it
            warnings.append(ExportWarning(path=display, line=1, feature="grammar", message=why_not))
        warnings.extend(undeclared_entity_warning(display, ent) for ent in parsed.undeclared)
        annotate(sf, warnings, grammar, xpaths=markdown_format is None)
        files[file] = sf
        for ref, target_fmt, el, attr in _references(sf, root_dir, warnings):
            if ref.file is not None:
                if ref.file.is_file():
                    given = el.get("format") if attr == "href" else None
                    queue.append((ref.file, target_fmt, given if markdown.is_markdown(given) else None))
                else:
                    # DITA-OT reports a missing file (DOTX008E) and builds without it; every
                    # reference is listed, since each one loses content.
                    unreadable.add(ref.file)
                    warnings.append(_warning(
                        sf, el, "missing-file",
                        f"[DOTX008E] @{attr}='{el.get(attr)}' names a file that does not exist; "
                        + _what_is_lost(el, attr),
                    ))
            if attr == "conref":
                conrefs.append((sf, el, ref))
            elif ref.fragment and target_fmt == "dita":
                topicrefs.append((sf, el, ref))
    docset = DocSet(root_dir=root_dir, map_dir=map_dir, root_map=files[map_file], files=files, warnings=warnings)
    _check_conref_targets(docset, conrefs, warnings)
    _check_topicref_fragments(docset, topicrefs, warnings)
    return docset


def _check_topicref_fragments(docset: DocSet, topicrefs, warnings: list[ExportWarning]) -> None:
    """A topicref whose fragment names no topic of its file: DITA-OT warns (DOTX061W) and builds the
    whole file, and so does the export."""
    for sf, el, ref in topicrefs:
        target = docset.files.get(ref.file)
        if target is not None and _find_topic(target.root, ref.fragment) is None:
            warnings.append(_warning(
                sf, el, "topicref-fragment",
                f"[DOTX061W] @href='{el.get('href')}': the fragment names no topic in {target.path}; "
                "the whole file is exported",
            ))


def _what_is_lost(el: etree._Element, attr: str) -> str:
    if attr != "conref":
        return "it is not exported"
    if el.get("conaction") is not None:
        return "nothing is pushed"  # the pushing element stays where it is
    return "the element is dropped"


def _parse_referenced(
    file: Path, display: str, is_root: bool, warnings: list[ExportWarning], markdown_format: str | None = None
) -> "Parsed | None":
    """The parsed file, or None for a referenced file that is not well-formed: DITA-OT reports it
    (DOTJ013E) and builds without it. The root map, and anything unsafe, still stop the run.
    `markdown_format`: the file is Markdown of that format, read as the topic DITA-OT makes of it."""
    try:
        if markdown_format is not None:
            return _parse_markdown(file, display, markdown_format)
        return parse_secure(file, display)
    except MissingTargetError as err:  # a file that exists but cannot be read
        if is_root:
            raise
        warnings.append(ExportWarning(path=display, line=0, feature="missing-file",
                                      message=f"[DOTX008E] {err.message}; the file is not exported"))
        return None
    except DitaSyntaxError as err:
        if is_root:
            raise
        warnings.append(ExportWarning(
            path=display, line=err.line or 0, feature="unreadable-file",
            message=f"[DOTJ013E] {err.message}; the file is not exported",
        ))
        return None


def _parse_markdown(file: Path, display: str, markdown_format: str) -> Parsed:
    """A Markdown file as the topic DITA-OT's parser makes of it; a file that is not UTF-8, or whose
    headings the format cannot place, is a DitaSyntaxError with its line."""
    try:
        data = file.read_bytes()
    except OSError as err:
        raise MissingTargetError(display, None, f"cannot read file: {err.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise DitaSyntaxError(display, line, "Markdown topics must be UTF-8 encoded") from None
    try:
        topic = markdown.to_topic(text, file.name, markdown_format)
    except markdown.MarkdownStructureError as err:
        raise DitaSyntaxError(display, err.line, f"Markdown ({markdown_format}): {err}") from None
    return Parsed(etree.ElementTree(topic), ())


def _references(sf: SourceFile, root_dir: Path, warnings: list[ExportWarning]):
    """Yield (reference, target format, element, attribute) for every reference to follow."""
    is_map = sf.format == "ditamap"
    for el in sf.root.iter():
        if not isinstance(el.tag, str):
            continue
        cls = el.get("class") or ""
        if el.get("conref") is not None:
            ref = resolve_reference(sf.file, sf.path, el, "conref", el.get("conref"), root_dir)
            # @format describes @href, not @conref: the target's kind comes from its extension.
            fmt = _EXTENSION_FORMATS.get(os.path.splitext(split_href(el.get("conref"))[0])[1].lower(), "dita")
            yield ref, fmt, el, "conref"
        if el.get("conrefend") is not None and el.get("conref") is None and el.get("conkeyref") is None:
            # A @conkeyref becomes the range's start (DITA-OT resolves it to @conref first).
            warnings.append(_warning(sf, el, "conrefend", "@conrefend without @conref or @conkeyref is ignored"))
        if not is_map:
            continue
        if " ditavalref-d/ditavalref " in cls:
            continue  # its DITAVAL is read by preprocess (branch filtering)
        if " map/navref " in cls or " mapgroup-d/anchorref " in cls or " mapgroup-d/topicsetref " in cls:
            name = etree.QName(el).localname
            warnings.append(_warning(sf, el, name, f"<{name}> is not supported; its target is not loaded"))
            continue
        if classes.TOPICREF not in cls or el.get("href") is None:
            continue
        href = el.get("href")
        if is_external(el):
            continue
        fmt = reference_format(el, split_href(href)[0])
        if fmt is None:
            if not has_url_scheme(href):
                warnings.append(
                    _warning(sf, el, "non-dita-reference", f"'{href}' is not DITA content; it is not exported")
                )
            continue
        ref = resolve_reference(sf.file, sf.path, el, "href", href, root_dir)
        yield ref, fmt, el, "href"


def _check_conref_targets(docset: DocSet, conrefs, warnings: list[ExportWarning]) -> None:
    """Warn about every conref whose target is not in the source at all (the builds drop the
    referencing element, as DITA-OT does); a target some profile filters out is each build's concern."""
    for sf, el, ref in conrefs:
        if el.get("conaction") is not None:
            continue  # conref push: each build reports a target it cannot push to
        target = sf if ref.file is None else docset.files.get(ref.file)
        conref = el.get("conref")
        if target is None:
            if ref.file.is_file():  # not well-formed (DOTJ013E, warned once for the file)
                warnings.append(_warning(
                    sf, el, "conref", f"[DOTX010E] @conref='{conref}': its file is not well-formed; the element is dropped"
                ))
            continue  # a missing file: warned where it is referenced
        if not ref.fragment:
            warnings.append(_warning(
                sf, el, "conref", f"[DOTX010E] @conref='{conref}' has no fragment identifier; the element is dropped"
            ))
        elif find_fragment(target.root, ref.fragment, el) is None:
            warnings.append(_warning(
                sf, el, "conref",
                f"[DOTX010E] @conref='{conref}': no element with that id in {target.path}; the element is dropped",
            ))
        elif el.get("conrefend") is not None and not conrefend_exists(docset, sf, el, target):
            warnings.append(_warning(
                sf, el, "conrefend",
                f"[DOTX071E] @conrefend='{el.get('conrefend')}' names no element; only the start is pulled",
            ))


def conrefend_exists(docset: DocSet, sf: SourceFile, el: etree._Element, target: SourceFile) -> bool:
    """Whether the element a @conrefend names exists in its (unfiltered) file."""
    end = el.get("conrefend")
    end_ref = resolve_reference(sf.file, sf.path, el, "conrefend", end, docset.root_dir)
    end_file = target if end_ref.file is None else docset.files.get(end_ref.file)
    return end_file is not None and bool(end_ref.fragment) and find_fragment(end_file.root, end_ref.fragment, el) is not None
