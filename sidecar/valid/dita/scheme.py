"""Subject scheme maps: the one list of profiling values, their hierarchy, names and owned values.

VALID takes its profiles from the information architect's subject scheme:

- valid values of a bound attribute = every key of every descendant of the bound subject; the
  category itself is not a value (as in DITA-OT's SubjectSchemeReader);
- wrappers such as hasInstance, hasKind, subjectHead are transparent; `<subjectdef keyref="x">`
  outside an enumeration extends subject x; schemeref pulls in another scheme;
- display name = topicmeta/navtitle (else @navtitle, else the key); other names =
  topicmeta/keywords/keyword; values owned by a subject = `<data name="valid-value" value="..."/>`;
- `implied_ditaval(attribute, value)` writes the DITAVAL of one profile with attribute-scoped rules
  only (never a global default, which would also drop content whose other attributes have no rule);
  it keeps content tagged with the value, a narrower value or a broader one;
- `profile_values(attribute)` are the values with nothing narrower below them: a broader value
  (`unix` over `mac` and `linux`) is a profile only when the writer names it;
- `validate(docset)` fails on any token of a bound attribute that the scheme does not declare,
  reporting every offending line at once.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

from lxml import etree

from valid.dita import classes
from valid.dita.ditaval import groups
from valid.dita.loader import VALID_NS, DocSet, SourceFile, annotate, file_uri, parse_secure, resolve_reference
from valid.errors import DitaError, SchemeValueError

_WRAPPERS = (
    " subjectScheme/hasInstance ",
    " subjectScheme/hasKind ",
    " subjectScheme/hasNarrower ",
    " subjectScheme/hasPart ",
    " subjectScheme/hasRelated ",
    " subjectScheme/subjectHead ",
)
_SUBJECTDEF = " subjectScheme/subjectdef "
_ENUMERATIONDEF = " subjectScheme/enumerationdef "
_SCHEMEREF = " subjectScheme/schemeref "


@dataclass
class Subject:
    keys: tuple[str, ...]
    navtitle: str | None
    keywords: list[str]
    owned: list[str]
    path: str
    line: int
    parent: str | None = None
    children: list[str] = field(default_factory=list)  # primary keys, document order

    @property
    def key(self) -> str:
        return self.keys[0]


@dataclass
class Binding:
    attribute: str
    element: str | None  # None: every element
    subjects: list[str]  # keys of the bound subjects (their descendants are the values)
    default: str | None
    path: str
    line: int


@dataclass
class SubjectScheme:
    file: Path
    path: str
    digest: str  # sha256 of the scheme file's bytes
    subjects: dict[str, Subject]  # every key (aliases too) -> its subject
    order: list[str]  # primary keys in document order
    bindings: list[Binding]
    resolved: etree._Element | None = None  # the scheme with schemerefs inlined, annotated

    def resolved_xml(self) -> bytes:
        """The scheme as one self-contained document: schemeref'd schemes inlined, @class on every
        element, no DOCTYPE. What the stylesheet reads, so no XML processor ever opens the source."""
        root = copy.deepcopy(self.resolved)
        etree.cleanup_namespaces(root, top_nsmap={"valid": VALID_NS})
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"

    # --------------------------------------------------------------------- queries

    def attributes(self) -> list[str]:
        """Bound attributes, in binding order."""
        seen: list[str] = []
        for b in self.bindings:
            if b.attribute not in seen:
                seen.append(b.attribute)
        return seen

    def _descendants(self, key: str) -> list[Subject]:
        subject = self.subjects.get(key)
        if subject is None:
            return []
        found: list[Subject] = []
        queue = [self.subjects[c] for c in subject.children]
        while queue:
            s = queue.pop(0)
            if s not in found:
                found.append(s)
                queue[0:0] = [self.subjects[c] for c in s.children]  # document (depth-first) order
        return found

    def _bindings(self, attribute: str, element: str | None) -> list[Binding]:
        specific = [b for b in self.bindings if b.attribute == attribute and b.element == element]
        if element is not None and specific:
            return specific
        return [b for b in self.bindings if b.attribute == attribute and b.element is None]

    def values(self, attribute: str, element: str | None = None) -> list[str] | None:
        """Every valid token of the attribute (aliases included), or None if it is not bound."""
        bindings = self._bindings(attribute, element)
        if not bindings:
            return None
        values: list[str] = []
        for b in bindings:
            for key in b.subjects:
                for s in self._descendants(key):
                    values.extend(k for k in s.keys if k not in values)
        return values

    def profile_values(self, attribute: str, parents: Sequence[str] = ()) -> list[str]:
        """One value per subject bound to the attribute (primary keys, document order): the values
        with no narrower value below them, plus the broader values named in `parents`.

        A broader value (`unix` over `mac` and `linux`) is a way to tag content that applies to
        every value under it, not a build readers ask for, unless the writer says so."""
        values = self.values(attribute) or []
        for parent in parents:
            if parent not in values:
                raise SchemeValueError(self.path, None, f"'{parent}' is not a value of @{attribute} in this subject scheme")
        chosen = {self.subjects[p].key for p in parents}
        bindings = [b for b in self.bindings if b.attribute == attribute]
        keys: list[str] = []
        for b in bindings:
            for key in b.subjects:
                for s in self._descendants(key):
                    if s.key not in keys and (not s.children or s.key in chosen):
                        keys.append(s.key)
        return keys

    def parent_values(self, attribute: str) -> list[str]:
        """The values of the attribute that have narrower values below them (primary keys)."""
        values = self.values(attribute) or []
        return [k for k in self.order if k in values and self.subjects[k].children]

    def narrower(self, value: str) -> list[str]:
        """The values below `value` (primary keys, document order)."""
        return [d.key for d in self._descendants(value)]

    def ancestors(self, attribute: str, value: str) -> list[str]:
        """The broader values above `value` (primary keys, nearest first); the bound category,
        which is not itself a value, is not one of them."""
        values = self.values(attribute) or []
        found: list[str] = []
        parent = self.subjects[value].parent if value in self.subjects else None
        while parent is not None and parent in values and parent not in found:
            found.append(parent)
            parent = self.subjects[parent].parent
        return found

    def hierarchy(self) -> dict[str, dict[str, list[str]]]:
        """attribute -> value -> child values: what DITAVAL refinement walks."""
        result: dict[str, dict[str, list[str]]] = {}
        for b in self.bindings:
            table = result.setdefault(b.attribute, {})
            for key in b.subjects:
                for s in [self.subjects[key], *self._descendants(key)] if key in self.subjects else []:
                    kids = [k for c in s.children for k in self.subjects[c].keys]
                    for k in s.keys:
                        table.setdefault(k, kids)
        return result

    def labels(self, value: str) -> list[str]:
        """Display name first, then the other names readers use."""
        s = self.subjects.get(value)
        if s is None:
            return [value]
        labels = [s.navtitle or s.key]
        labels.extend(k for k in s.keywords if k not in labels)
        return labels

    def owned_values(self, value: str) -> list[str]:
        s = self.subjects.get(value)
        return list(s.owned) if s else []

    def implied_ditaval(self, attribute: str, value: str) -> str:
        """The DITAVAL of the profile `attribute=value`.

        Attribute-scoped: `<prop att=A action=exclude/>` plus an include for the value, its other
        keys (aliases), every descendant's keys, so content profiled with a narrower value (v5p-pod
        under v5p) is in the broader value's build, and every ancestor's keys, so content tagged
        with a broader value (`unix` over `linux`) is in the narrower value's build. The other
        values under those ancestors get an explicit exclude: without one, DITA-OT's subject-scheme
        refinement would copy the ancestor's include down to them (the `mac` content in the
        `linux` build). Every value the build depends on thus has its own rule, so the result does
        not depend on how a processor walks the hierarchy. Never a global default. With the
        attribute default at exclude, an undeclared value is excluded from every profile;
        validate() refuses such values before any export.
        """
        s = self.subjects.get(value)
        if s is None or value not in (self.values(attribute) or []):
            raise SchemeValueError(self.path, None, f"'{value}' is not a value of @{attribute} in this subject scheme")
        included = list(s.keys)
        for d in self._descendants(s.key):
            included.extend(k for k in d.keys if k not in included)
        ancestors = self.ancestors(attribute, s.key)
        for a in ancestors:
            included.extend(k for k in self.subjects[a].keys if k not in included)
        excluded: list[str] = []
        for a in ancestors:
            for d in self._descendants(a):
                excluded.extend(k for k in d.keys if k not in included and k not in excluded)
        att = quoteattr(attribute)
        lines = [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f"<!-- VALID profile {attribute}={value}, implied by the subject scheme -->",
            "<val>",
            f"  <prop att={att} action=\"exclude\"/>",
        ]
        lines += [f"  <prop att={att} val={quoteattr(k)} action=\"include\"/>" for k in included]
        lines += [f"  <prop att={att} val={quoteattr(k)} action=\"exclude\"/>" for k in excluded]
        lines.append("</val>")
        return "\n".join(lines) + "\n"

    # --------------------------------------------------------------------- validation

    def validate(self, docset: DocSet) -> None:
        """Refuse any profiling token the scheme does not declare (every offending line reported)."""
        problems: list[tuple[str, int, str, str]] = []
        bound = self.attributes()
        for sf in docset.files.values():
            if classes.has_class(sf.root, classes.SUBJECT_SCHEME):
                continue
            for el in sf.root.iter():
                if not isinstance(el.tag, str) or el.get("class") is None:
                    continue
                for att in bound:
                    value = el.get(att)
                    if not value:
                        continue
                    allowed = self.values(att, etree.QName(el).localname)
                    if allowed is None:
                        continue
                    for _, tokens in groups(value):
                        for token in tokens:
                            if token not in allowed:
                                problems.append((sf.path, el.sourceline or 0, att, token))
        if not problems:
            return
        path, line, att, token = problems[0]
        declared = ", ".join(self.values(att) or []) or "none"
        message = f"@{att} value '{token}' is not declared in subject scheme {self.file.name} (declared: {declared})"
        if len(problems) > 1:
            others = "; ".join(f"{p}:{ln} '{t}'" for p, ln, _, t in problems[1:4])
            more = ", ..." if len(problems) > 4 else ""
            message += f"; {len(problems) - 1} more undeclared value(s): {others}{more}"
        err = SchemeValueError(path, line, message)
        err.problems = problems  # every (path, line, attribute, token), for callers that list them
        raise err


# ----------------------------------------------------------------------------- reading


def load_scheme(path: str | os.PathLike, *, root: str | os.PathLike | None = None) -> SubjectScheme:
    """Read a subject scheme map (and the schemes it schemeref's) securely."""
    file = Path(path).resolve()
    if not file.is_file():
        raise DitaError(str(path), None, "subject scheme not found")
    root_dir = Path(root).resolve() if root is not None else file.parent
    reader = _Reader(root_dir)
    resolved = reader.read(file)
    reader.resolve_extensions()
    return SubjectScheme(
        file=file,
        path=Path(path).name,
        digest=hashlib.sha256(file.read_bytes()).hexdigest(),
        subjects=reader.subjects,
        order=reader.order,
        bindings=reader.bindings,
        resolved=resolved,
    )


class _Reader:
    def __init__(self, root_dir: Path):
        self.root_dir = root_dir
        self.subjects: dict[str, Subject] = {}
        self.order: list[str] = []
        self.bindings: list[Binding] = []
        self.extensions: list[tuple[str, Subject, str, int]] = []  # (keyref, child, path, line)
        self.read_files: set[Path] = set()

    def read(self, file: Path) -> etree._Element | None:
        """Read one scheme file; return its root with the schemerefs it holds inlined."""
        if file in self.read_files:
            return None
        self.read_files.add(file)
        display = os.path.relpath(file, self.root_dir)
        tree = parse_secure(file, display).tree
        sf = SourceFile(file=file, path=display, job_uri=display, uri=file_uri(file), format="ditamap", tree=tree)
        annotate(sf, [])
        if not classes.has_class(sf.root, classes.SUBJECT_SCHEME) and not classes.has_class(sf.root, classes.MAP):
            raise DitaError(display, sf.root.sourceline, "not a subject scheme map")
        self._walk(sf, sf.root, None, None)
        return sf.root

    def _walk(self, sf: SourceFile, parent_el, parent: Subject | None, extends: str | None) -> None:
        for el in list(parent_el):  # a snapshot: schemerefs are replaced while walking
            if not isinstance(el.tag, str):
                continue
            cls = el.get("class") or ""
            if _SCHEMEREF in cls and el.get("href"):
                ref = resolve_reference(sf.file, sf.path, el, "href", el.get("href"), self.root_dir)
                if ref.file is not None:
                    if not ref.file.is_file():
                        raise DitaError(sf.path, el.sourceline, f"schemeref '{el.get('href')}' not found")
                    included = self.read(ref.file)
                    # inline the referenced scheme's content in place of the schemeref
                    index = parent_el.index(el)
                    parent_el.remove(el)
                    if included is not None:
                        for offset, child in enumerate(c for c in list(included) if isinstance(c.tag, str)):
                            parent_el.insert(index + offset, child)
            elif _ENUMERATIONDEF in cls:
                self._enumeration(sf, el)
            elif _SUBJECTDEF in cls:
                keys = tuple((el.get("keys") or "").split())
                if not keys:
                    keyref = el.get("keyref")
                    # <subjectdef keyref="x"> outside an enumeration: more children for subject x
                    self._walk(sf, el, None, keyref or (parent.key if parent else extends))
                    continue
                subject = self._subject(sf, el, keys)
                if parent is not None:
                    subject.parent = parent.key
                    parent.children.append(subject.key)
                elif extends:
                    self.extensions.append((extends, subject, sf.path, el.sourceline or 0))
                self._walk(sf, el, subject, None)
            elif any(w in cls for w in _WRAPPERS):
                self._walk(sf, el, parent, extends)

    def _subject(self, sf: SourceFile, el, keys: tuple[str, ...]) -> Subject:
        meta = next((c for c in el if isinstance(c.tag, str) and classes.TOPICMETA in (c.get("class") or "")), None)
        navtitle = el.get("navtitle")
        keywords: list[str] = []
        owned: list[str] = []
        if meta is not None:
            for c in meta.iter():
                if not isinstance(c.tag, str):
                    continue
                cls = c.get("class") or ""
                if " topic/navtitle " in cls:
                    navtitle = " ".join("".join(c.itertext()).split()) or navtitle
                elif " topic/keyword " in cls and " topic/keywords " in (c.getparent().get("class") or ""):
                    text = " ".join("".join(c.itertext()).split())
                    if text and text not in keywords:
                        keywords.append(text)
        for c in [*el, *(meta if meta is not None else [])]:
            if isinstance(c.tag, str) and " topic/data " in (c.get("class") or "") and c.get("name") == "valid-value":
                value = c.get("value") or " ".join("".join(c.itertext()).split())
                if value and value not in owned:
                    owned.append(value)
        subject = Subject(keys=keys, navtitle=navtitle, keywords=keywords, owned=owned, path=sf.path, line=el.sourceline or 0)
        for k in keys:
            if k in self.subjects:
                raise DitaError(sf.path, el.sourceline, f"subject key '{k}' is defined twice")
            self.subjects[k] = subject
        self.order.append(keys[0])
        return subject

    def _enumeration(self, sf: SourceFile, el) -> None:
        attribute = element = default = None
        bound: list[str] = []
        for c in el:
            if not isinstance(c.tag, str):
                continue
            cls = c.get("class") or ""
            if " subjectScheme/attributedef " in cls:
                attribute = c.get("name")
            elif " subjectScheme/elementdef " in cls:
                element = c.get("name")
            elif " subjectScheme/defaultSubject " in cls:
                default = c.get("keyref")
            elif _SUBJECTDEF in cls:
                keys = (c.get("keys") or "").split()
                if keys:  # an inline category: define it here
                    subject = self._subject(sf, c, tuple(keys))
                    self._walk(sf, c, subject, None)
                    bound.append(keys[0])
                elif c.get("keyref"):
                    bound.append(c.get("keyref"))
                else:
                    bound.append("")  # <subjectdef/>: an empty enumeration, no value is valid
        if not attribute:
            raise DitaError(sf.path, el.sourceline, "enumerationdef without attributedef/@name")
        self.bindings.append(
            Binding(attribute, element, [b for b in bound if b], default, sf.path, el.sourceline or 0)
        )

    def resolve_extensions(self) -> None:
        for keyref, subject, path, line in self.extensions:
            parent = self.subjects.get(keyref)
            if parent is None:
                raise DitaError(path, line, f"subjectdef keyref='{keyref}' names no subject")
            subject.parent = parent.key
            parent.children.append(subject.key)
        for b in self.bindings:
            for key in b.subjects:
                if key not in self.subjects:
                    raise DitaError(b.path, b.line, f"enumerationdef binds @{b.attribute} to undefined subject '{key}'")
