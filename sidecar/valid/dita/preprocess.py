"""An emulation of DITA-OT 4.x `preprocess2` for one profile: a job directory the stylesheet reads.

The order is DITA-OT's (filter-stage=early), because the order decides scope:

1. inline submaps into the root map (mapref and topicref format="ditamap"): a `submap` wrapper
   carries the mapref's attributes; the submap root's profiling attributes are copied onto its
   first-level topicrefs that lack their own (as DITA-OT's mapref step, maprefImpl.xsl, does);
2. filter the map: an element whose own attributes exclude it goes, with its subtree;
3. branch filtering (`ditavalref`, valid.dita.branches): split branches, filter each by its
   DITAVALs on top of the profile's, and name the branch copies of topics; `@copy-to` names a copy
   of its topic (ignored, with a warning, when it names a file that exists, as in DITA-OT);
4. build the key spaces from the filtered map (key scopes, valid.dita.keyspace) and resolve
   topicref keyrefs to hrefs in each topicref's scope; a topic with key references that is
   referenced from several key scopes is resolved once per scope, the second and later under
   `<name>-<n>.<ext>` (DITA-OT's KeyrefModule);
5. reach topics only through kept references (no link crawl);
6. filter each topic the same way (a branch copy also by its branch DITAVALs), then resolve
   conref/conkeyref (the target filtered in its own
   file by its own path; a target that is gone drops the referencing element, as DITA-OT does) and
   keyref text in the topic's key scope;
7. write the files and `.job.xml` (docs/architecture.md, "The job directory").

This module is the driver and holds one build's state; the stages are in valid.dita.stages
(maps, filtering, keys, conrefs, links, jobdir), the concepts they use in valid.dita.keyspace,
valid.dita.branches and valid.dita.conrefpush.
"""

from __future__ import annotations

import copy
from pathlib import Path

from lxml import etree

from valid.contracts import ExportWarning
from valid.dita import branches, classes, keyspace
from valid.dita.ditaval import Ditaval, Filter, props_chains
from valid.dita.loader import DocSet, IdIndex, SourceFile
from valid.dita.stages.conrefs import ConrefStage
from valid.dita.stages.filtering import FilterStage
from valid.dita.stages.jobdir import Job, JobFile, Output, write_file, write_job_xml
from valid.dita.stages.keys import KeyStage
from valid.dita.stages.links import LinkStage
from valid.dita.stages.maps import MapStage
from valid.dita.stages.nodes import line_of
from valid.errors import DitaError

__all__ = ["UNFILTERED", "Job", "JobFile", "Output", "make_filter", "preprocess"]

UNFILTERED = "_unfiltered"


def make_filter(docset: DocSet, ditaval: Ditaval | None) -> Filter:
    """The filter DITA-OT preprocess2 builds: DITAVAL + print defaults, refined by the subject
    schemes that the resolved root map itself contains (not by a scheme given only on the command
    line, which a DITA-OT build of the same map would not see)."""
    from valid.dita.scheme import load_scheme  # scheme imports loader; keep module imports acyclic

    hierarchy: dict[str, dict[str, list[str]]] = {}
    if ditaval is not None and any(r.val for r in ditaval.rules):
        for sf in docset.files.values():
            if classes.has_class(sf.root, classes.SUBJECT_SCHEME):
                for att, table in load_scheme(sf.file, root=docset.root_dir).hierarchy().items():
                    merged = hierarchy.setdefault(att, {})
                    for value, kids in table.items():
                        merged.setdefault(value, kids)
    return Filter(ditaval, hierarchy=hierarchy)


def preprocess(docset: DocSet, ditaval: Ditaval | None, job_dir: Path, *, name: str = "") -> Job:
    """Write one profile's job directory and return what is in it."""
    return _Preprocessor(docset, make_filter(docset, ditaval), name or UNFILTERED).run(Path(job_dir))


class _Preprocessor(MapStage, FilterStage, KeyStage, ConrefStage, LinkStage):
    """One profile's build: the state the stages share, and the driver."""

    def __init__(self, docset: DocSet, flt: Filter, name: str):
        self.docset = docset
        self.filter = flt
        self.name = name
        self.warnings: list[ExportWarning] = []
        self.by_uri = {sf.uri: sf for sf in docset.files.values()}
        self.filtered: dict[tuple[Path, tuple[Filter, ...]], etree._Element | None] = {}
        self.id_indexes: dict[Path, IdIndex] = {}  # of the profile-filtered files (no branch filters)
        self.pushed: set[Path] = set()  # files whose filtered tree a conref push may have changed
        self.keys: dict[str, etree._Element] = {}
        self.conref_targets: list[Path] = []
        self.outputs: dict[Path, Output] = {}  # named copies and branch-filtered files
        self.scopes: dict[Path, keyspace.KeyScope] = {}  # the key scope each output resolves in
        self.branch_filters: dict[Path, Filter] = {}
        self.merged_pages: dict[Path, int] = {}  # topics a chunk="to-content" merges -> their document
        self.page_terms: dict[int, set[str]] = {}  # glossary keys referenced so far in each such document
        self.pulling_titles: set[Path] = set()  # targets whose titles are being pulled: stops a cycle

    def run(self, job_dir: Path) -> Job:
        docset = self.docset
        root_map = docset.root_map
        if docset.inlined_map is None:
            docset.inlined_map = self._inline(root_map, [root_map.file])
        resolved = copy.deepcopy(docset.inlined_map)
        chains = props_chains(resolved.get("domains"))
        kept_map = self._filter(resolved, chains)
        if kept_map is None:
            raise DitaError(root_map.path, root_map.root.sourceline, f"profile {self.name} excludes the root map itself")
        self._ignore_copy_to_existing(kept_map)
        self._ignore_copy_to_in_merged_pages(kept_map)
        branched = branches.has_branches(kept_map)
        if branched:
            self._check_root_ditavalrefs(kept_map)
            branches.apply(kept_map, chains, self._branch_filter)
        self._name_outputs(kept_map, branched)
        self.root_scope = keyspace.build(kept_map)
        self._resolve_topicref_keys(kept_map)
        self._scope_copies(kept_map)
        self.keys = self.root_scope.keys
        self._resolve_conrefs(kept_map, [])
        # The map's own title shows key text (the product name) in DITA-OT's output, and it starts
        # every chunk's breadcrumbs: resolve its keyrefs in this profile's root key scope.
        for title in self._map_titles(kept_map):
            self._resolve_keyrefs(title, root_map)
        references = self._topic_references(kept_map)
        self.merged_pages = self._merged_pages(kept_map)
        self._push(references)

        # Each topic is written as soon as it is resolved, so a build holds one resolved topic at
        # a time, not all of them.
        job_dir.mkdir(parents=True, exist_ok=True)
        files: list[JobFile] = [JobFile(root_map, "ditamap", input=True)]
        written: set[Path] = set()
        links: list[tuple[Path, str, str, int]] = []

        def write(file: Path, topic: etree._Element | None, sf: SourceFile) -> None:
            written.add(file)
            links.extend(self._link_targets(topic, sf))
            write_file(job_dir / self._job_uri(file), topic)

        for file, resource_only in references.items():
            out = self._output(file)
            topic = self._resolved_topic(out, file)
            write(file, topic, out.source)
            self._forget_filtered(out.source, out.filters)
            files.append(
                JobFile(out.source, out.source.format, resource_only=resource_only, kept=topic is not None,
                        uri=self._job_uri(file), path=file)
            )
        # Conref targets reached from the written files (transitively) are in the job too.
        index = 0
        while index < len(self.conref_targets):
            file = self.conref_targets[index]
            index += 1
            if file in written or file == root_map.file:
                continue
            sf = docset.files[file]
            topic = self._resolved_topic(Output(sf), file)
            write(file, topic, sf)
            self._forget_filtered(sf)
            files.append(
                JobFile(sf, sf.format, resource_only=True, conref_target=True, kept=topic is not None)
            )
        for jf in files:
            if jf.path in self.conref_targets:
                jf.conref_target = True
        self._warn_link_only_topics(links, written)
        self._copy_to_as_dita_ot(kept_map)
        write_file(job_dir / root_map.job_uri, kept_map)
        job = Job(self.name, job_dir, files, self.warnings)
        write_job_xml(job, docset)
        return job

    @staticmethod
    def _map_titles(map_root: etree._Element) -> list[etree._Element]:
        """The root map's title elements: <title> and a bookmap's <booktitle>."""
        return [
            el for el in map_root
            if isinstance(el.tag, str) and any(t in (el.get("class") or "") for t in (" topic/title ", " bookmap/booktitle "))
        ]

    def _warn(self, el: etree._Element | None, feature: str, message: str) -> None:
        self.warnings.append(
            ExportWarning(path=self._path_of(el), line=line_of(el), feature=feature, message=message)
        )

    def _path_of(self, el: etree._Element | None) -> str:
        sf = self.by_uri.get(el.get("xtrf")) if el is not None else None
        return sf.path if sf is not None else self.docset.root_map.path

    def _resolved_topic(self, out: Output, path: Path) -> etree._Element | None:
        sf = out.source
        filtered = self._filtered(sf, out.filters)
        if filtered is None:
            return None
        self.keys = self.scopes.get(path, self.root_scope).keys
        root = copy.deepcopy(filtered)
        self._resolve_conrefs(root, [])
        # Pulled hrefs are rebased before keyrefs are resolved: a key's href is already written
        # relative to this topic, and rebasing it as if relative to the pulled content's file
        # sent links in reused content nowhere ("see ." where DITA-OT shows the target's title).
        self._rebase_pulled_hrefs(root, sf)
        page = self.merged_pages.get(path)
        self._resolve_keyrefs(root, sf, self.page_terms.setdefault(page, set()) if page is not None else None)
        self._pull_link_text(root, sf)
        return root
