"""@class and @domains defaults from a RELAX NG shell (DITA 1.3 RNG grammars), read locally.

A DITA 1.3 document can name its grammar with an `xml-model` processing instruction instead of a
DOCTYPE:

    <?xml-model href="widgetTopic.rng" schematypens="http://relaxng.org/ns/structure/1.0"?>

Its RNG modules declare attribute defaults as annotations, which DITA-OT applies when it parses the
document:

    <define name="widgetTopic.attlist" combine="interleave">
      <optional><attribute name="class" a:defaultValue="- topic/topic widgetTopic/widgetTopic "/></optional>
    </define>

`read_defaults` collects, for every `<element>` of the grammar, the `a:defaultValue` of the attributes
its pattern reaches through `<ref>`s (not through nested elements), following `<include>` and
`<externalRef>` (overriding `<define>`s inside an include replace the included ones). Files come only
from the caller's `locate`, which stays local; a module it cannot provide is reported, except the
OASIS DITA modules (`urn:oasis:names:tc:dita:rng:...`), whose elements the built-in table already
describes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from lxml import etree

RNG_NS = "http://relaxng.org/ns/structure/1.0"
ANNOTATIONS_NS = "http://relaxng.org/ns/compatibility/annotations/1.0"
_DEFAULT = f"{{{ANNOTATIONS_NS}}}defaultValue"
_OASIS_URN = "urn:oasis:names:tc:dita:rng:"
_MAX_FILES = 500  # a grammar of more modules than this is a loop or an attack

# href (as written), the file that names it -> the local file, or None when it is not available
Locate = Callable[[str, Path], Path | None]


def xml_model_href(tree: etree._ElementTree) -> str | None:
    """The href of the document's RELAX NG `xml-model` processing instruction, if it has one."""
    root = tree.getroot()
    for node in reversed(list(root.itersiblings(preceding=True))):
        if not isinstance(node, etree._ProcessingInstruction) or node.target != "xml-model":
            continue
        href = node.get("href")
        schematypens = node.get("schematypens")
        if href and (schematypens == RNG_NS or (schematypens is None and href.split("#")[0].endswith(".rng"))):
            return href
    return None


def is_standard(href: str) -> bool:
    """An OASIS DITA RNG module: the built-in table is that grammar."""
    return href.startswith(_OASIS_URN)


class RngError(Exception):
    """The grammar cannot be read locally; the message says which file and why."""


@dataclass
class _Grammar:
    defines: dict[str, list[etree._Element]] = field(default_factory=dict)
    elements: list[etree._Element] = field(default_factory=list)


def read_defaults(shell: Path, locate: Locate, attributes: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """Element name -> {attribute: default} for the given attributes, from the shell and its modules."""
    grammar = _Grammar()
    _load(shell, locate, grammar, opened=[])
    defaults: dict[str, dict[str, str]] = {}
    for element in grammar.elements:
        name = _name_of(element)
        if not name:
            continue
        found: dict[str, str] = {}
        _attributes(element, grammar, found, seen=set())
        for att, value in found.items():
            if att in attributes:
                defaults.setdefault(name, {}).setdefault(att, value)
    return defaults


def _parse(file: Path) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        return etree.parse(str(file), parser).getroot()
    except (OSError, etree.XMLSyntaxError) as err:
        raise RngError(f"'{file.name}' cannot be read ({err})") from None


def _load(file: Path, locate: Locate, grammar: _Grammar, opened: list[Path]) -> None:
    if len(opened) >= _MAX_FILES:
        raise RngError(f"more than {_MAX_FILES} modules")
    opened.append(file)
    _collect(_parse(file), file, locate, grammar, opened)


def _collect(parent: etree._Element, file: Path, locate: Locate, grammar: _Grammar, opened: list[Path]) -> None:
    for el in parent:
        if not isinstance(el.tag, str) or etree.QName(el).namespace != RNG_NS:
            continue
        local = etree.QName(el).localname
        if local == "define" and el.get("name"):
            grammar.defines.setdefault(el.get("name"), []).append(el)
            _collect_elements(el, file, locate, grammar, opened)
        elif local in ("div", "grammar"):
            _collect(el, file, locate, grammar, opened)
        elif local == "start":
            _collect_elements(el, file, locate, grammar, opened)
        elif local == "include" and el.get("href"):
            included = _Grammar()
            target = _module(el.get("href"), file, locate)
            if target is not None:
                _load(target, locate, included, opened)
            own = _Grammar()
            _collect(el, file, locate, own, opened)  # defines inside <include> override the module's
            for name in own.defines:
                included.defines.pop(name, None)
            for source in (included, own):
                for name, found in source.defines.items():
                    grammar.defines.setdefault(name, []).extend(found)
                grammar.elements.extend(source.elements)


def _collect_elements(pattern: etree._Element, file: Path, locate: Locate, grammar: _Grammar, opened: list[Path]) -> None:
    for el in pattern.iter(f"{{{RNG_NS}}}element", f"{{{RNG_NS}}}externalRef"):
        if etree.QName(el).localname == "element":
            grammar.elements.append(el)
        elif el.get("href"):
            target = _module(el.get("href"), file, locate)
            if target is not None:
                _load(target, locate, grammar, opened)


def _module(href: str, file: Path, locate: Locate) -> Path | None:
    target = locate(href, file)
    if target is None and not is_standard(href):
        raise RngError(f"'{href}' (named in {file.name}) is not available locally")
    return target


def _name_of(node: etree._Element) -> str | None:
    if node.get("name"):
        return node.get("name").split(":")[-1] if ":" in node.get("name") else node.get("name")
    name = node.find(f"{{{RNG_NS}}}name")
    return (name.text or "").strip() or None if name is not None else None


def _attributes(pattern: etree._Element, grammar: _Grammar, found: dict[str, str], seen: set[str]) -> None:
    """Attribute defaults the pattern reaches through refs, not inside nested elements."""
    for child in pattern:
        if not isinstance(child.tag, str) or etree.QName(child).namespace != RNG_NS:
            continue
        local = etree.QName(child).localname
        if local == "element":
            continue
        if local == "attribute":
            name = _name_of(child)
            if name and child.get(_DEFAULT) is not None:
                found.setdefault(name, child.get(_DEFAULT))
        elif local in ("ref", "parentRef"):
            target = child.get("name")
            if target and target not in seen:
                seen.add(target)
                for define in grammar.defines.get(target, []):
                    _attributes(define, grammar, found, seen)
        else:
            _attributes(child, grammar, found, seen)
