"""The text an empty <term> or <abbreviated-form> shows when its key names a glossary entry.

DITA-OT 4.2.4 renders such a reference from the glossentry, not from the key's text: the first
reference to a key in a document (or any inside a copyright) shows the entry's surface form, else
its term; later ones show its preferred acronym or abbreviation, else its term. Without this the
reference would be empty in the export ("download the latest  version").

Language matching between the reference and several entries in one file is not modelled: the
entry the fragment names is used, else the file's first entry.
"""

from __future__ import annotations

from lxml import etree

from valid.dita import classes

GLOSSENTRY = " glossentry/glossentry "
_TERM = " glossentry/glossterm "
_SURFACE_FORM = " glossentry/glossSurfaceForm "
_ALT = " glossentry/glossAlt "
_STATUS = " glossentry/glossStatus "
_SHORT_FORMS = (" glossentry/glossAcronym ", " glossentry/glossAbbreviation ")
_COPYRIGHT = " topic/copyright "


def find_glossentry(root: etree._Element, fragment: str | None) -> etree._Element | None:
    """The glossentry a key's href names: by the topic id of its fragment, else the first one."""
    topic_id = fragment.split("/")[0] if fragment else None
    entries = [el for el in root.iter() if isinstance(el.tag, str) and classes.has_class(el, GLOSSENTRY)]
    if topic_id:
        return next((el for el in entries if el.get("id") == topic_id), None)
    return entries[0] if entries else None


def shows_full_form(term: etree._Element, first_with_keyref: bool) -> bool:
    """Whether a reference shows the full form: the first of its key in the document, or in a copyright."""
    return first_with_keyref or any(classes.has_class(a, _COPYRIGHT) for a in term.iterancestors())


def glossary_text(entry: etree._Element, full_form: bool) -> str:
    """The text DITA-OT shows for a reference to this entry (see the module docstring)."""
    if full_form:
        surface = [el for el in _descendants(entry, _SURFACE_FORM) if _text(el)]
        return "".join(_text(el) for el in surface) if surface else "".join(_text(el) for el in _descendants(entry, _TERM))
    short = _short_forms(entry)
    if short:
        return "".join(_text(el) for el in short)
    return "".join(_text(el) for el in entry if isinstance(el.tag, str) and classes.has_class(el, _TERM))


def _short_forms(entry: etree._Element) -> list[etree._Element]:
    """Acronyms or abbreviations before a 'preferred' status, else before one that is neither
    'prohibited' nor 'obsolete', else those of the first glossAlt that has no status."""
    preferred = _before_first_status(entry, lambda value: value == "preferred")
    if preferred:
        return preferred
    allowed = _before_first_status(entry, lambda value: value not in (None, "prohibited", "obsolete"))
    if allowed:
        return allowed
    alts = _descendants(entry, _ALT)
    if not alts:
        return []
    return [
        el
        for el in alts[0]
        if _is_short_form(el) and _text(el) and not any(_is_status(s) for s in el.itersiblings())
    ]


def _before_first_status(entry: etree._Element, accepts) -> list[etree._Element]:
    found: list[etree._Element] = []
    for parent in entry.iter():
        if not isinstance(parent.tag, str):
            continue
        status = next((c for c in parent if _is_status(c) and accepts(c.get("value"))), None)
        if status is None:
            continue
        found.extend(el for el in status.itersiblings(preceding=True) if _is_short_form(el) and _text(el))
    return sorted(found, key=_document_position(entry))


def _document_position(entry: etree._Element):
    order = {el: i for i, el in enumerate(entry.iter())}
    return lambda el: order[el]


def _descendants(entry: etree._Element, token: str) -> list[etree._Element]:
    return [el for el in entry.iter() if isinstance(el.tag, str) and classes.has_class(el, token)]


def _is_status(el) -> bool:
    return isinstance(el.tag, str) and classes.has_class(el, _STATUS)


def _is_short_form(el) -> bool:
    return isinstance(el.tag, str) and any(classes.has_class(el, t) for t in _SHORT_FORMS)


def _text(el: etree._Element) -> str:
    return "".join(el.itertext()).strip()
