"""Links: empty xrefs get their target's text (topicpull); topics reached only by links are warned."""

from __future__ import annotations

import copy
from pathlib import Path
from urllib.parse import unquote

from lxml import etree

from valid.contracts import ExportWarning

from valid.dita.loader import (
    SourceFile,
    find_fragment,
    first_topic,
    has_url_scheme,
    is_external,
    reference_format,
    split_href,
)
from valid.dita.stages.keys import LINK_KEYREF
from valid.dita.stages.nodes import line_of


def _has(el: etree._Element, class_token: str) -> bool:
    return class_token in (el.get("class") or "")


class LinkStage:
    """Link text and link-only topics."""

    def _pull_link_text(self, root: etree._Element, sf: SourceFile) -> None:
        """Give an empty cross-reference its target's text, as DITA-OT's topicpull step does.

        Without it the chunk text reads "see ." where a published page reads "see <title>". The
        text comes from the target as this profile filters it.
        """
        for el in root.iter():
            if not isinstance(el.tag, str) or " topic/xref " not in (el.get("class") or ""):
                continue
            href = el.get("href")
            if not href or len(el) or (el.text or "").strip() or is_external(el) or has_url_scheme(href):
                continue
            self._append_target_title(el, href, sf)

    def _append_target_title(self, el: etree._Element, href: str, sf: SourceFile) -> bool:
        """Append to el the text an empty link to `href` (relative to sf) shows, when it names a
        local DITA topic or element (`_link_text_source`), marked as generated text; False if there
        is no such text in this profile."""
        path, fragment = split_href(href)
        target_path = self.docset.resolve(sf.file.parent, unquote(path)) if path else sf.file
        # A copy (@copy-to, e.g. through a key whose definition has one) has its source's title.
        out = self.outputs.get(target_path)
        target_sf = out.source if out is not None else self.docset.get(target_path)
        if target_sf is None or target_sf.format != "dita":
            return False
        target_root = self._filtered(target_sf, out.filters) if out is not None else self._filtered(target_sf)
        if target_root is None:
            return False
        target = find_fragment(target_root, fragment, el, self._ids(target_sf)) if fragment else first_topic(target_root)
        if target is None:
            return False
        number = _numbered_label(target_root, target)
        if number is None:
            number = _list_item_number(target)
        if number is not None:
            # A titled figure or table is linked to by its number, as DITA-OT writes it.
            marker = etree.ProcessingInstruction("ditaot", "gentext")
            marker.tail = number
            el.append(marker)
            return True
        if target_path in self.pulling_titles:
            return False  # a title that names itself through keys: DITA-OT leaves it empty too
        self.pulling_titles.add(target_path)
        try:
            source = self._link_text_source(target)
            # The text as the target publishes it: its keyrefs and conrefs resolved (DITA-OT
            # pulls link text from the already resolved target).
            text = self._resolved_copy(source) if source is not None else None
            if text is None:
                return False
            self._resolve_keyrefs(text, target_sf)
        finally:
            self.pulling_titles.discard(target_path)
        # DITA-OT marks pulled link text with <?ditaot gentext?>; the stylesheet keeps it.
        marker = etree.ProcessingInstruction("ditaot", "gentext")
        marker.tail = " ".join("".join(text.itertext()).split())
        el.append(marker)
        return True

    def _link_text_source(self, target: etree._Element) -> etree._Element | None:
        """The element whose text an empty link to `target` shows, as DITA-OT's topicpull picks it
        (topicpullImpl.xsl, mode topicpull:resolvelinktext): a title's parent stands for it; a
        definition-list entry shows its first term, a term itself; anything else its title. A
        target whose content comes from a conref (a section reused from another topic) is read
        after the conref is resolved."""
        if _has(target, " topic/title ") and target.getparent() is not None:
            target = target.getparent()
        if target.get("conref") is not None or target.get("conkeyref") is not None:
            target = self._resolved_copy(target)
            if target is None:
                return None
        if _has(target, " topic/dt "):
            return target
        wanted = " topic/dt " if _has(target, " topic/dlentry ") else " topic/title "
        return next((c for c in target if isinstance(c.tag, str) and _has(c, wanted)), None)

    def _resolved_copy(self, el: etree._Element) -> etree._Element | None:
        """A copy of `el` with its conrefs resolved, its own included. Only for reading text: the
        files and warnings the resolution notes belong to the build of the element's own topic."""
        conref_targets, warnings = list(self.conref_targets), len(self.warnings)
        holder = etree.Element("holder")
        pulled = copy.deepcopy(el)
        pulled.tail = None
        holder.append(pulled)
        self._resolve_conrefs(holder, [])
        self.conref_targets[:] = conref_targets
        del self.warnings[warnings:]
        return next((c for c in holder if isinstance(c.tag, str)), None)

    def _link_targets(self, root: etree._Element | None, sf: SourceFile) -> list[tuple[Path, str, str, int]]:
        """The DITA topics a written file links to, in order: (target, href path, and the link's
        source path and line). Not the elements: they would keep every written tree alive."""
        found: list[tuple[Path, str, str, int]] = []
        for el in root.iter() if root is not None else ():
            if not isinstance(el.tag, str) or el.get("href") is None:
                continue
            cls = el.get("class") or ""
            if not any(t in cls for t in LINK_KEYREF) or is_external(el) or has_url_scheme(el.get("href")):
                continue
            path = split_href(el.get("href"))[0]
            if not path or reference_format(el, path) != "dita":
                continue
            found.append((self.docset.resolve(sf.file.parent, unquote(path)), path, self._path_of(el), line_of(el)))
        return found

    def _warn_link_only_topics(self, links: list[tuple[Path, str, str, int]], written: set[Path]) -> None:
        """Warn once per topic that a written file links to and the build does not write, and at
        every link to a file that does not exist (DITA-OT's DOTX008E: the link has no target)."""
        seen: set[Path] = set()
        for target, path, source, line in links:
            if target in written or target in seen:
                continue
            if target not in self.docset.files and not target.exists():
                self.warnings.append(ExportWarning(
                    path=source, line=line, feature="missing-file",
                    message=f"[DOTX008E] a link to '{path}' names a file that does not exist; the link has no target",
                ))
                continue
            seen.add(target)
            message = (
                f"'{path}' is reached only by a link in profile {self.name}; topics are exported only "
                "through map references"
            )
            self.warnings.append(ExportWarning(path=source, line=line, feature="link-crawl", message=message))


# Link text DITA-OT's topicpull gives a link to a titled figure or table (its default
# figurelink.style and tablelink.style, NUMBER; English strings).
_NUMBERED = ((" topic/fig ", "Figure"), (" topic/table ", "Table"))


def _numbered_label(root: etree._Element, target: etree._Element) -> str | None:
    """"Figure N" or "Table N" for a titled figure or table: N counts the titled ones before it in
    the file as this profile filters it (XPath's preceding axis, as topicpull counts), or None."""
    cls = target.get("class") or ""
    for token, word in _NUMBERED:
        if token in cls and _has_title(target):
            ancestors = set(target.iterancestors())
            before = 0
            for el in root.iter():
                if el is target:
                    return f"{word} {before + 1}"
                if isinstance(el.tag, str) and token in (el.get("class") or "") and el not in ancestors and _has_title(el):
                    before += 1
    return None


def _list_item_number(target: etree._Element) -> str | None:
    """The number a link to an ordered list's item (a task's step) shows, as topicpull writes it
    (xsl:number level="multiple", format "1.a.i.1.a.i..."): "3", or "2.b" for an item of a list
    inside the second item; None for anything else (an unordered item's link stays empty)."""
    if not _ordered_item(target):
        return None
    levels = [
        1 + sum(1 for s in el.itersiblings(preceding=True) if _ordered_item(s))
        for el in [target, *target.iterancestors()] if _ordered_item(el)
    ]
    return ".".join(_FORMATS[min(depth, _FORMAT_DEPTH - 1) % 3](n) for depth, n in enumerate(reversed(levels)))


def _ordered_item(el: etree._Element) -> bool:
    parent = el.getparent()
    return (isinstance(el.tag, str) and " topic/li " in (el.get("class") or "")
            and parent is not None and " topic/ol " in (parent.get("class") or ""))


def _alphabetic(n: int) -> str:
    letters = ""
    while n > 0:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _roman(n: int) -> str:
    out = ""
    for value, numeral in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                           (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out, n = out + numeral, n - value
    return out


# topicpull's format "1.a.i.1.a.i.1.a.i": three tokens, nine levels; the last serves deeper ones too.
_FORMATS = (str, _alphabetic, _roman)
_FORMAT_DEPTH = 9


def _has_title(el: etree._Element) -> bool:
    return any(isinstance(c.tag, str) and " topic/title " in (c.get("class") or "") for c in el)

