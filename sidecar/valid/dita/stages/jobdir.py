"""The job directory: what a build writes (the files and `.job.xml`, docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from valid.contracts import ExportWarning
from valid.dita.ditaval import Filter
from valid.dita.loader import VALID_NS, DocSet, SourceFile, file_uri


@dataclass
class JobFile:
    source: SourceFile
    format: str  # dita / ditamap
    input: bool = False
    resource_only: bool = False
    conref_target: bool = False
    kept: bool = True  # False: the topic root was excluded; the file is written empty
    uri: str = ""  # where the file is in the job directory; a copy's own name, else the source's
    path: Path | None = None  # the file's name in the doc set (a copy's generated name)

    def __post_init__(self) -> None:
        self.uri = self.uri or self.source.job_uri
        self.path = self.path or self.source.file


@dataclass(frozen=True)
class Output:
    """A topic file of the job: its source and the branch filters applied on top of the profile's."""

    source: SourceFile
    filters: tuple[Filter, ...] = ()


@dataclass
class Job:
    name: str
    directory: Path
    files: list[JobFile]
    warnings: list[ExportWarning] = field(default_factory=list)

    @property
    def job_file(self) -> Path:
        return self.directory / ".job.xml"


def write_file(path: Path, root: etree._Element | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if root is None:
        path.write_bytes(b"")  # topic root excluded: a file with no topic root is not kept
        return
    etree.cleanup_namespaces(root, top_nsmap={"valid": VALID_NS})
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n")


def write_job_xml(job: Job, docset: DocSet) -> None:
    root = etree.Element("job")
    root.text = "\n  "
    for name, value in (
        ("user.input.file", docset.root_map.job_uri),
        ("InputMapDir.uri", file_uri(docset.map_dir, directory=True)),
        ("valid.profile", job.name),
    ):
        prop = etree.SubElement(root, "property", name=name)
        etree.SubElement(prop, "string").text = value
        prop.tail = "\n  "
    files = etree.SubElement(root, "files")
    files.text = "\n    "
    files.tail = "\n"
    for jf in sorted(job.files, key=lambda f: f.uri):
        # A copy (branch, copy-to, key scope) keeps its source's @src and has its own @result, as
        # in DITA-OT's job: the stylesheet names the copy's chunks after @result.
        el = etree.SubElement(
            files,
            "file",
            src=file_uri(jf.source.file),
            uri=jf.uri,
            path=jf.uri,
            result=file_uri(jf.path),
            format=jf.format,
        )
        if jf.input:
            el.set("input", "true")
        if jf.resource_only:
            el.set("resource-only", "true")
        if jf.conref_target:
            el.set("conref-target", "true")
        if not jf.kept:
            el.set("valid-excluded", "true")
        el.tail = "\n    "
    if len(files):
        files[-1].tail = "\n  "
    job.job_file.parent.mkdir(parents=True, exist_ok=True)
    job.job_file.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n")
