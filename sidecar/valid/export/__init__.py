"""The export: DITA doc set -> JSON-lines chunks, each with its scope per profile.

    from valid.export import export, read_export

    export("docs/guide.ditamap", scheme="docs/releases.ditamap", out="chunks.jsonl")
    loaded = read_export("chunks.jsonl")      # what valid index and valid audit read

run (the pipeline) -> workers (processes) and batches (topic batches) -> xslt (the stylesheet,
SaxonC) -> file (the export file read back and checked) and warnings (export warnings for a
person). See docs/export.md.
"""

from valid.lazy import lazy_attributes

# name -> submodule. Imported on first use, so that what only reads an export (valid ask opens an
# index, which reads valid.export.file) does not load the pipeline's DITA loader and lxml with it.
_EXPORTS = {
    "BUILDS_PER_RUN": "run",
    "TOPICS_PER_RUN": "run",
    "ExportResult": "run",
    "Profile": "run",
    "contract_schema": "run",
    "contract_schema_json": "run",
    "export": "run",
    "resolve_profiles": "run",
    "source_commit": "run",
    "validate_lines": "run",
    "write_run_document": "run",
    "LoadedExport": "file",
    "parse_export": "file",
    "read_export": "file",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_attributes(__name__, _EXPORTS)
