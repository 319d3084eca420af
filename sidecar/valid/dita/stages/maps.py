"""The map stages: submaps inlined, @copy-to and branch copies named, kept topic references."""

from __future__ import annotations

import copy
from pathlib import Path
from urllib.parse import quote, unquote

from lxml import etree

from valid.dita import branches, classes, markdown
from valid.dita.ditaval import Filter, read_ditaval
from valid.dita.loader import SourceFile, has_url_scheme, is_external, reference_format, split_href
from valid.dita.stages.jobdir import Output
from valid.dita.stages.nodes import line_of, processing_role, remove
from valid.errors import DitaError, DitavalError


# Working attribute on a @copy-to topicref pointed at its copy: the source topic's href.
COPY_SOURCE = "{urn:valid:dita}copy-source"

# Profiling attributes a submap root passes to its first-level topicrefs (maprefImpl.xsl).
_SUBMAP_ROOT_ATTRIBUTES = ("audience", "product", "platform", "otherprops", "props", "rev")


class MapStage:
    """Submaps, copies and the topics a build references."""

    def _inline(self, sf: SourceFile, stack: list[Path]) -> etree._Element:
        """A copy of the map with every submap inlined (recursively), hrefs relative to the root map."""
        root = copy.deepcopy(sf.root)
        for el in list(root.iter()):
            if not isinstance(el.tag, str) or el.getparent() is None and el is not root:
                continue
            cls = el.get("class") or ""
            # Root-map hrefs too: each then names its target's real path, percent-encoded, the
            # way the job directory holds it (symlinked and non-ASCII names included).
            self._rebase_map_element(el, sf)
            if markdown.is_markdown(el.get("format")):
                # DITA-OT parses the file into a topic first, and its map then says so; the job
                # directory holds that topic (valid.dita.markdown).
                el.set("format", "dita")
            if classes.TOPICREF not in cls or el.get("href") is None or is_external(el):
                continue
            href = el.get("href")
            if reference_format(el, split_href(href)[0]) != "ditamap" or has_url_scheme(href):
                continue
            target = self._map_target(href)
            if target is None:
                continue
            if target not in self.docset.files:
                remove(el)  # a missing submap (warned when loaded): DITA-OT drops the reference
                continue
            if target in stack:
                raise DitaError(sf.path, line_of(el), f"map reference cycle through '{href}'")
            sub = self.docset.files[target]
            submap = self._inline(sub, [*stack, target])
            el.getparent().replace(el, self._submap(el, submap, sub))
        return root

    def _map_target(self, href: str) -> Path | None:
        """The loaded file an href of the root map (relative to its directory) names."""
        path = split_href(href)[0]
        if not path:
            return None
        return self.docset.resolve(self.docset.map_dir, unquote(path))

    def _rebase_map_element(self, el: etree._Element, sf: SourceFile) -> None:
        for att in ("href", "copy-to"):
            href = el.get(att)
            if href is None or is_external(el) or has_url_scheme(href):
                continue
            path, fragment = split_href(href)
            if not path:
                continue
            target = self.docset.resolve(sf.file.parent, unquote(path))
            rel = quote(self.docset.relative(target, self.docset.map_dir), safe="/-._~")
            el.set(att, rel + (f"#{fragment}" if fragment is not None else ""))

    def _submap(self, mapref: etree._Element, submap: etree._Element, sub: SourceFile) -> etree._Element:
        wrapper = etree.Element("submap")
        for att, value in mapref.attrib.items():
            if att not in ("href", "format", "class"):
                wrapper.set(att, value)
        wrapper.set("class", classes.SUBMAP_CLASS)
        # A keyscope on the referenced map's root scopes the submap too (DITA 1.3 key scopes).
        names = dict.fromkeys([*(mapref.get("keyscope") or "").split(), *(submap.get("keyscope") or "").split()])
        if names:
            wrapper.set("keyscope", " ".join(names))
        if classes.has_class(submap, classes.SUBJECT_SCHEME) or mapref.get("type") == "subjectScheme":
            # Inlined schemes are resource-only, as in DITA-OT: their subjects are not content.
            wrapper.set("processing-role", wrapper.get("processing-role") or "resource-only")
            wrapper.set("toc", wrapper.get("toc") or "no")
        wrapper.text = "\n"
        wrapper.tail = mapref.tail
        for child in list(submap):
            if not isinstance(child.tag, str):
                continue
            cls = child.get("class") or ""
            if " topic/title " in cls or classes.TOPICMETA in cls:
                continue  # the submap's own title and metadata stay with it
            if classes.TOPICREF in cls:
                for att in _SUBMAP_ROOT_ATTRIBUTES:
                    if child.get(att) is None and submap.get(att) is not None:
                        child.set(att, submap.get(att))
            wrapper.append(child)
        return wrapper

    def _ignore_copy_to_existing(self, kept_map: etree._Element) -> None:
        """DITA-OT ignores a @copy-to that names an existing file (DOTX064W): the topic keeps its name."""
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or not el.get("copy-to"):
                continue
            copy_to = el.get("copy-to")
            target = self._map_target(copy_to) if not has_url_scheme(copy_to) else None
            if target is not None and (target in self.docset.files or target.exists()):
                self._warn(el, "copy-to", f"copy-to '{copy_to}' names an existing file; the attribute is ignored")
                del el.attrib["copy-to"]

    def _ignore_copy_to_in_merged_pages(self, kept_map: etree._Element) -> None:
        """A @copy-to on a topicref inside a chunk="to-content" one makes no topic of its own in
        DITA-OT 4.2.4: the copy's content is merged into the page under its source's identity,
        and no page has the copy's name. The topicref then reads as its source."""
        for top in _merging(kept_map):
            for el in top.iterdescendants():
                if isinstance(el.tag, str) and el.get("copy-to") is not None:
                    del el.attrib["copy-to"]

    def _check_root_ditavalrefs(self, kept_map: etree._Element) -> None:
        refs = [c for c in kept_map if isinstance(c.tag, str) and branches.DITAVALREF in (c.get("class") or "")]
        if len(refs) > 1:
            raise DitaError(
                self._path_of(refs[1]), line_of(refs[1]),
                "a root map holds at most one <ditavalref>; put several in topicgroups (one branch each)",
            )

    def _branch_filter(self, ref: etree._Element) -> Filter:
        """The filter of a ditavalref's DITAVAL (no subject-scheme refinement, as in DITA-OT)."""
        href = ref.get("href") or ""
        path = self._map_target(href) if href and not has_url_scheme(href) else None
        if path is None:
            raise DitaError(self._path_of(ref), line_of(ref), "<ditavalref> has no local @href to a DITAVAL file")
        if path not in self.branch_filters:
            if not path.is_relative_to(self.docset.root_dir):
                raise DitaError(
                    self._path_of(ref), line_of(ref),
                    f"ditavalref '{href}' points outside the doc-set root; widen it with --root if this is intended",
                )
            try:
                ditaval = read_ditaval(path, display=self.docset.display(path))
            except DitavalError as err:
                raise DitaError(self._path_of(ref), line_of(ref), f"ditavalref '{href}': {err}") from None
            self.branch_filters[path] = Filter(ditaval)
        return self.branch_filters[path]

    def _name_outputs(self, kept_map: etree._Element, branched: bool = True) -> None:
        """Point renamed topicrefs (branch copies, @copy-to) at their copies and record what each
        copy is: its source topic and the branch filters on top of the profile's. `branched`: the
        map has ditavalrefs (without any, no topicref has branch filters to look for)."""
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or classes.TOPICREF not in (el.get("class") or ""):
                continue
            branch_copy = el.attrib.pop(branches.COPY_TO, None)
            copy_to = el.attrib.pop("copy-to", None)
            name = branch_copy or copy_to
            if branches.DITAVALREF in (el.get("class") or ""):
                continue
            href = el.get("href")
            if not href or is_external(el) or has_url_scheme(href) or reference_format(el, split_href(href)[0]) != "dita":
                continue
            source = self.docset.files.get(self._map_target(href))
            if source is None:
                continue
            filters = tuple(self._branch_filter(r) for r in branches.branch_ditavalrefs(el)) if branched else ()
            if name:
                fragment = split_href(href)[1]
                self.outputs.setdefault(self._map_target(name), Output(source, filters))
                if not branch_copy and processing_role(el) != "resource-only":
                    # DITA-OT 4.2.4 keeps the source in the build beside its copy (its HTML5 build
                    # publishes both); the job map gets DITA-OT's shape back in _copy_to_as_dita_ot.
                    el.set(COPY_SOURCE, href)
                el.set("href", split_href(name)[0] + (f"#{fragment}" if fragment is not None else ""))
            elif filters and processing_role(el) != "resource-only":
                # DITA-OT filters a branch's topic in place only for normal references: a
                # resource-only one is not branch filtered (dita-ot#4119, open in 4.2.4).
                self.outputs.setdefault(source.file, Output(source, filters))

    def _topic_references(self, kept_map: etree._Element) -> dict[Path, bool]:
        """Files referenced by kept topicrefs -> True if every reference is resource-only."""
        found: dict[Path, bool] = {}
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or el.get("href") is None:
                continue
            if classes.TOPICREF not in (el.get("class") or "") or is_external(el):
                continue
            href = el.get("href")
            if has_url_scheme(href) or reference_format(el, split_href(href)[0]) != "dita":
                continue
            target = self._map_target(href)
            if target is None or (target not in self.docset.files and target not in self.outputs):
                continue
            resource_only = processing_role(el) == "resource-only"
            found[target] = found.get(target, True) and resource_only
            source = self._map_target(el.get(COPY_SOURCE)) if el.get(COPY_SOURCE) else None
            if source is not None and source in self.docset.files:
                found[source] = found.get(source, True) and resource_only
        return found

    def _merged_pages(self, kept_map: etree._Element) -> dict[Path, int]:
        """Topics that a chunk="to-content" topicref (or map) merges into one document -> that
        document's number. `valid export` keeps a chunk per topic, but what DITA-OT renders
        once per document, the first reference to a glossary key in its full form, follows the
        merged document: the topics in map order."""
        pages: dict[Path, int] = {}
        for number, top in enumerate(_merging(kept_map)):
            for el in top.iter():
                href = el.get("href") if isinstance(el.tag, str) else None
                if href is None or classes.TOPICREF not in (el.get("class") or "") or is_external(el):
                    continue
                if has_url_scheme(href) or reference_format(el, split_href(href)[0]) != "dita":
                    continue
                target = self._map_target(href)
                if target is not None and processing_role(el) != "resource-only":
                    pages.setdefault(target, number)
        return pages

    @staticmethod
    def _copy_to_as_dita_ot(kept_map: etree._Element) -> None:
        """Write a @copy-to topicref as DITA-OT 4.2.4's job map has it: @href on the source topic,
        @copy-to on the copy (the stylesheet then takes both, as for a DITA-OT job)."""
        for el in kept_map.iter():
            if isinstance(el.tag, str) and el.get(COPY_SOURCE) is not None:
                el.set("copy-to", el.get("href"))
                el.set("href", el.attrib.pop(COPY_SOURCE))

    def _output(self, path: Path) -> Output:
        return self.outputs.get(path) or Output(self.docset.files[path])

    def _unused(self, path: Path) -> Path:
        while path in self.outputs or path in self.docset.files or path.exists():
            path = path.with_name(f"{path.stem}-1{path.suffix}")
        return path

    def _job_uri(self, path: Path) -> str:
        return self.docset.relative(path, self.docset.root_dir)

    def _map_href(self, path: Path) -> str:
        return quote(self.docset.relative(path, self.docset.map_dir), safe="/-._~")


def _merging(kept_map: etree._Element) -> list[etree._Element]:
    """The outermost elements with chunk="to-content" (the map itself too): each makes one
    document of the topics it references."""
    return [
        el for el in kept_map.iter()
        if isinstance(el.tag, str) and "to-content" in (el.get("chunk") or "").split()
        and not any("to-content" in (a.get("chunk") or "").split() for a in el.iterancestors())
    ]
