"""Internal general entities of a DOCTYPE's internal subset, expanded safely.

Doc sets keep version strings in one place with `<!DOCTYPE topic [ <!ENTITY PRODUCT_MINOR "28.0"> ]>`.
Such internal general entities are expanded, as an XML parser would expand them for DITA-OT. Nothing
else a DTD can do is allowed: external entities (SYSTEM/PUBLIC), parameter entities and conditional
sections are refused with the line of their declaration, so no file or URL is ever read through an
entity. Expansion is bounded before any of it happens (number of declarations, nesting depth, number
of expansions and total expanded size per file), so entity amplification ("billion laughs") fails
with file:line instead of eating memory.

The internal subset is read here, from the raw text, before lxml parses the file; lxml then parses
with entity resolution off and `expand()` replaces each reference by its parsed replacement text, with
the line of the reference, so warnings and errors about that content name the real line.
"""

from __future__ import annotations

import codecs
import re
from copy import deepcopy
from dataclasses import dataclass

from lxml import etree

from valid.errors import DitaSyntaxError, UnsafeReferenceError

MAX_DECLARATIONS = 1_000
MAX_DEPTH = 10
MAX_EXPANSIONS = 64_000  # references expanded per file, nested ones included
MAX_EXPANDED_CHARS = 10_000_000  # characters produced by expansion per file

PREDEFINED = frozenset({"lt", "gt", "amp", "apos", "quot"})

_NAME = r"[A-Za-z_:][\w.:\-\u00b7-\uffff]*"
_DOCTYPE = re.compile(r"<!DOCTYPE\s+" + _NAME + r"(?:\s+(?:SYSTEM|PUBLIC)(?:\s+(?:\"[^\"]*\"|'[^']*'))+)?\s*\[")
_ENTITY_START = re.compile(r"<!ENTITY\s+(%\s+)?(" + _NAME + r")\s+")
_LITERAL = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_OTHER_DECL = re.compile(r"<!(?:ELEMENT|ATTLIST|NOTATION)\b")
_PE_REF = re.compile(r"%" + _NAME + ";")
_GENERAL_REF = re.compile(r"&(" + _NAME + r");")
_CHAR_REF = re.compile(r"&#(x[0-9A-Fa-f]+|[0-9]+);")
_ENCODING = re.compile(rb"^<\?xml[^>]*\bencoding\s*=\s*[\"']([A-Za-z0-9._-]+)[\"']")

REFUSED = "(no DTD or external entity is ever read)"


@dataclass(frozen=True)
class Declaration:
    name: str
    replacement: str  # the replacement text: character references already expanded
    line: int


@dataclass(frozen=True)
class InternalEntities:
    """The internal general entities a file declares, checked against every bound."""

    declarations: dict[str, Declaration]
    _texts: dict[str, str]

    def text(self, name: str) -> str:
        """The fully expanded replacement text (nested declared references substituted)."""
        return self._texts[name]


def read(data: bytes, display: str) -> InternalEntities | None:
    """Check the file's internal subset and its entity references; None when nothing is declared.

    Raises UnsafeReferenceError (with the declaration's or reference's line) for anything refused
    or over a bound, DitaSyntaxError for an internal subset that cannot be read.
    """
    if b"<!DOCTYPE" not in data:
        return None
    text = _decode(data)
    start = _DOCTYPE.search(text)
    if start is None:
        return None
    declarations, end = _scan_subset(text, start.end(), display)
    if not declarations:
        return None
    lengths, counts = _measure(declarations, display)
    _check_document_references(text, end, declarations, lengths, counts, display)
    texts: dict[str, str] = {}
    for name in declarations:
        _expand_text(name, declarations, texts)
    return InternalEntities(declarations, texts)


def _decode(data: bytes) -> str:
    match = _ENCODING.match(data)
    encoding = match.group(1).decode("ascii") if match else "utf-8"
    try:
        codecs.lookup(encoding)
    except LookupError:
        encoding = "utf-8"
    return data.decode(encoding, errors="replace")


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# ----------------------------------------------------------------------------- the internal subset


def _scan_subset(text: str, pos: int, display: str) -> tuple[dict[str, Declaration], int]:
    """Declarations of the internal subset starting at pos; also where the subset ends."""
    declarations: dict[str, Declaration] = {}
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            raise DitaSyntaxError(display, _line(text, pos), "the DOCTYPE's internal subset is not closed")
        line = _line(text, pos)
        if text.startswith("]", pos):
            return declarations, pos
        if text.startswith("<!--", pos):
            pos = _skip_to(text, pos, "-->", display)
        elif text.startswith("<?", pos):
            pos = _skip_to(text, pos, "?>", display)
        elif text.startswith("<!ENTITY", pos):
            decl, pos = _entity(text, pos, line, display)
            if decl.name in declarations:
                continue  # XML: the first declaration binds
            if len(declarations) >= MAX_DECLARATIONS:
                raise UnsafeReferenceError(display, line, f"more than {MAX_DECLARATIONS:,} entity declarations")
            declarations[decl.name] = decl
        elif _OTHER_DECL.match(text, pos):
            pos = _skip_declaration(text, pos, display)
        elif _PE_REF.match(text, pos):
            raise UnsafeReferenceError(display, line, f"parameter entity reference {_PE_REF.match(text, pos).group()} is refused {REFUSED}")
        elif text.startswith("<![", pos):
            raise UnsafeReferenceError(display, line, "conditional sections are refused in the internal subset")
        else:
            raise DitaSyntaxError(display, line, "malformed XML: unexpected text in the DOCTYPE's internal subset")


def _skip_to(text: str, pos: int, end: str, display: str) -> int:
    found = text.find(end, pos)
    if found < 0:
        raise DitaSyntaxError(display, _line(text, pos), f"malformed XML: '{end}' missing in the internal subset")
    return found + len(end)


def _skip_declaration(text: str, pos: int, display: str) -> int:
    """Past the '>' that ends an ELEMENT/ATTLIST/NOTATION declaration (quoted '>' does not count)."""
    quote = None
    for i in range(pos, len(text)):
        ch = text[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "%":
            if _PE_REF.match(text, i):
                raise UnsafeReferenceError(display, _line(text, i), f"parameter entity references are refused {REFUSED}")
        elif ch == ">":
            return i + 1
    raise DitaSyntaxError(display, _line(text, pos), "malformed XML: unterminated declaration in the internal subset")


def _entity(text: str, pos: int, line: int, display: str) -> tuple[Declaration, int]:
    match = _ENTITY_START.match(text, pos)
    if match is None:
        raise DitaSyntaxError(display, line, "malformed XML: unreadable <!ENTITY declaration")
    parameter, name = match.groups()
    if parameter:
        raise UnsafeReferenceError(display, line, f"parameter entity '{name}' is refused {REFUSED}")
    literal = _LITERAL.match(text, match.end())
    if literal is None:
        raise UnsafeReferenceError(display, line, f"external entity '{name}' is refused {REFUSED}")
    after = literal.end()
    while after < len(text) and text[after].isspace():
        after += 1
    if not text.startswith(">", after):
        raise DitaSyntaxError(display, line, f"malformed XML: entity '{name}' declaration is not closed")
    value = literal.group(1) if literal.group(1) is not None else literal.group(2)
    if _PE_REF.search(value):
        raise UnsafeReferenceError(display, line, f"parameter entity references are refused {REFUSED}")
    return Declaration(name, _CHAR_REF.sub(_char, value), line), after + 1


def _char(match: re.Match) -> str:
    ref = match.group(1)
    return chr(int(ref[1:], 16) if ref.startswith("x") else int(ref))


# ----------------------------------------------------------------------------- bounds


def _measure(declarations: dict[str, Declaration], display: str) -> tuple[dict[str, int], dict[str, int]]:
    """Expanded length and expansion count of every entity, computed without expanding anything."""
    lengths: dict[str, int] = {}
    counts: dict[str, int] = {}
    depths: dict[str, int] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        decl = declarations[name]
        length, count, depth = len(decl.replacement), 1, 1
        for ref in _GENERAL_REF.finditer(decl.replacement):
            inner = ref.group(1)
            if inner not in declarations:
                continue  # predefined or undeclared: left for the parser
            if inner in path:
                raise UnsafeReferenceError(display, decl.line, f"entity '{name}' refers to itself through '{inner}'")
            if inner not in lengths:
                visit(inner, path + (inner,))
            length += lengths[inner] - len(ref.group())
            count += counts[inner]
            depth = max(depth, depths[inner] + 1)
        if depth > MAX_DEPTH:
            raise UnsafeReferenceError(display, decl.line, f"entity '{name}' nests more than {MAX_DEPTH} levels deep")
        if length > MAX_EXPANDED_CHARS or count > MAX_EXPANSIONS:
            raise UnsafeReferenceError(display, decl.line, _over_bound(name))
        lengths[name], counts[name], depths[name] = length, count, depth

    for name in declarations:
        if name not in lengths:
            visit(name, (name,))
    return lengths, counts


def _check_document_references(
    text: str, start: int, declarations: dict[str, Declaration], lengths: dict[str, int], counts: dict[str, int], display: str
) -> None:
    """All references of the file together stay within the bounds (comments count too: safe side)."""
    total_chars = total_count = 0
    for ref in _GENERAL_REF.finditer(text, start):
        name = ref.group(1)
        if name not in declarations:
            continue
        total_chars += lengths[name]
        total_count += counts[name]
        if total_chars > MAX_EXPANDED_CHARS or total_count > MAX_EXPANSIONS:
            raise UnsafeReferenceError(display, _line(text, ref.start()), _over_bound(name, in_file=True))


def _over_bound(name: str, in_file: bool = False) -> str:
    what = "this reference to entity" if in_file else "entity"
    return (
        f"{what} '{name}' takes entity expansion past its bounds ({MAX_EXPANDED_CHARS:,} characters, "
        f"{MAX_EXPANSIONS:,} expansions per file); entity amplification is refused"
    )


def _expand_text(name: str, declarations: dict[str, Declaration], texts: dict[str, str]) -> str:
    if name not in texts:
        def sub(ref: re.Match) -> str:
            inner = ref.group(1)
            return _expand_text(inner, declarations, texts) if inner in declarations else ref.group()

        texts[name] = _GENERAL_REF.sub(sub, declarations[name].replacement)
    return texts[name]


# ----------------------------------------------------------------------------- expansion in the tree

# A DOCTYPE with an external id (never loaded) lets undeclared references such as &nbsp; parse as
# entity references, which the loader then reports with their line like any other.
_FRAGMENT_PROLOG = b'<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE v SYSTEM "none.dtd"><v>'


def expand(root: etree._Element, entities: InternalEntities, display: str) -> None:
    """Replace each reference to a declared entity by its parsed replacement text, in place."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    fragments: dict[str, etree._Element] = {}
    # Lines first: lxml derives an entity reference's line from its neighbours, and the text nodes a
    # replacement rewrites have none, so a later reference in the same text would read line 0.
    references = [
        (e, e.sourceline or 0) for e in root.iter() if isinstance(e, etree._Entity) and e.name in entities.declarations
    ]
    for ent, line in references:
        if ent.name not in fragments:
            data = _FRAGMENT_PROLOG + entities.text(ent.name).encode("utf-8") + b"</v>"
            try:
                fragments[ent.name] = etree.fromstring(data, parser)
            except etree.XMLSyntaxError as err:
                raise DitaSyntaxError(
                    display, line, f"malformed XML in the replacement text of entity '{ent.name}': {err.msg}"
                ) from None
        _replace(ent, fragments[ent.name], line)
    # Attribute values read expanded, but would serialise as the references: store them as text.
    for el in root.iter():
        if isinstance(el.tag, str) and len(el.attrib):
            for att, value in el.attrib.items():
                el.set(att, value)


def _replace(ent: etree._Entity, fragment: etree._Element, line: int) -> None:
    parent = ent.getparent()
    copy = deepcopy(fragment)  # each reference gets its own nodes
    for node in copy.iter():
        if node is not copy:
            node.sourceline = line
    text, children, tail = copy.text or "", list(copy), ent.tail or ""
    prev = ent.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + text
    else:
        parent.text = (parent.text or "") + text
    index = parent.index(ent)
    parent.remove(ent)  # lxml moves ent.tail along with it; it is re-attached below
    for offset, child in enumerate(children):
        parent.insert(index + offset, child)
    if children:
        children[-1].tail = (children[-1].tail or "") + tail
    elif index > 0:
        before = parent[index - 1]
        before.tail = (before.tail or "") + tail
    else:
        parent.text = (parent.text or "") + tail
