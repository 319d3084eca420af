"""The saxonche runner for the export stylesheets in xsl/, and the stylesheet digest.

    run_export(run_document)  -> the JSON lines text (header line, then chunk lines)
    stylesheet_digest()       -> sha256 over the xsl/*.xsl bytes
    xsl_dir()                 -> the xsl/ directory ($VALID_XSL_DIR, else the repository's)

The stylesheet is compiled once per process and directory. Saxon is configured never to leave the
machine: only file: URIs may be read (doc(), unparsed-text(), imports), and source files are parsed
without loading their external DTDs (DITA source names DTDs the export does not need).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from urllib.parse import quote

from saxonche import PySaxonApiError, PySaxonProcessor

from valid.errors import ConfigError, ExportContractError

ENTRY_STYLESHEET = "valid-index.xsl"
XSL_DIR_ENV = "VALID_XSL_DIR"
DEFERRED = "deferred"  # the digest the stylesheet writes with digests=deferred

_PARSER_FEATURE = "http://saxon.sf.net/feature/parserFeature?uri="
SAXON_CONFIG = {
    # doc(), unparsed-text(), xsl:import: file: only, so nothing is ever fetched over a network.
    "http://saxon.sf.net/feature/allowedProtocols": "file",
    _PARSER_FEATURE + quote("http://apache.org/xml/features/nonvalidating/load-external-dtd", safe=""): "false",
    _PARSER_FEATURE + quote("http://xml.org/sax/features/external-general-entities", safe=""): "false",
    _PARSER_FEATURE + quote("http://xml.org/sax/features/external-parameter-entities", safe=""): "false",
    # Saxon also prints each error's stack to stderr; the raised error carries what a user needs.
    "http://saxon.sf.net/feature/standardErrorOutputFile": os.devnull,
}

_lock = threading.Lock()  # one transformation at a time: the cached executable is shared
_processor: PySaxonProcessor | None = None
_compiled: dict[Path, object] = {}


def xsl_dir() -> Path:
    """The stylesheet directory: $VALID_XSL_DIR if set, else the repository's xsl/."""
    configured = os.environ.get(XSL_DIR_ENV)
    directory = Path(configured) if configured else Path(__file__).resolve().parents[3] / "xsl"
    if not (directory / ENTRY_STYLESHEET).is_file():
        source = f"${XSL_DIR_ENV}" if configured else "the repository"
        raise ConfigError(f"no {ENTRY_STYLESHEET} in {directory} (from {source}): set {XSL_DIR_ENV} to the xsl/ directory")
    return directory.resolve()


def stylesheet_digest(directory: Path | None = None) -> str:
    """sha256 over the bytes of every *.xsl under the directory, concatenated in sorted order of
    their '/'-separated relative paths (Python string order). The DITA-OT plugin computes the same
    with Ant's concat + checksum."""
    root = directory or xsl_dir()
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.xsl"), key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def run_export(run_document: Path, *, digests: str = "python") -> str:
    """Run xsl/valid-index.xsl over a run document; return its output, the export's JSON lines.

    digests="python" (the default) has the stylesheet write a placeholder and fills in each chunk's
    SHA-256 here with hashlib: byte-identical to the stylesheet's own digests, and some hundred
    times faster than SHA-256 in XSLT under SaxonC-HE. digests="sha256" lets the stylesheet compute
    them (the DITA-OT plugin defers them too, and hashes with Ant's checksum task).
    """
    if digests not in ("sha256", "python"):
        raise ValueError(f"digests must be 'sha256' or 'python', not {digests!r}")
    path = Path(run_document).resolve()
    if not path.is_file():
        raise ExportContractError(f"{path}: run document not found")
    with _lock:
        executable = _executable(xsl_dir())
        executable.clear_parameters()
        executable.clear_xsl_messages()
        executable.set_parameter("digests", _proc().make_string_value("deferred" if digests == "python" else "sha256"))
        try:
            output = executable.transform_to_string(source_file=str(path))
        except PySaxonApiError as error:
            raise ExportContractError(_failure(path, error, executable)) from None
    if output is None:
        raise ExportContractError(f"{path}: the export stylesheet produced no output")
    return fill_digests(output) if digests == "python" else output


def fill_digests(lines: str) -> str:
    """Replace the stylesheet's deferred digests with the SHA-256 of each chunk's text.

    digest is the last key of a chunk line, so only the line's tail changes and every other byte
    stays as the stylesheet wrote it."""
    placeholder = f',"digest":"{DEFERRED}"}}'
    out = []
    for line in lines.split("\n"):
        if line.startswith('{"kind":"chunk",') and line.endswith(placeholder):
            text = json.loads(line)["text"]
            line = line[: -len(placeholder)] + f',"digest":"{hashlib.sha256(text.encode("utf-8")).hexdigest()}"}}'
        out.append(line)
    return "\n".join(out)


def _proc() -> PySaxonProcessor:
    global _processor
    if _processor is None:
        processor = PySaxonProcessor(license=False)
        for name, value in SAXON_CONFIG.items():
            processor.set_configuration_property(name, value)
        _processor = processor
    return _processor


def _executable(directory: Path):
    if directory not in _compiled:
        compiler = _proc().new_xslt30_processor()
        try:
            executable = compiler.compile_stylesheet(stylesheet_file=str(directory / ENTRY_STYLESHEET))
        except PySaxonApiError as error:
            raise ConfigError(f"{directory / ENTRY_STYLESHEET}: does not compile: {_one_line(str(error))}") from None
        executable.set_save_xsl_message(True)
        _compiled[directory] = executable
    return _compiled[directory]


def _failure(run_document: Path, error: PySaxonApiError, executable) -> str:
    """The stylesheet's own terminating message when there is one (it names the file), else Saxon's."""
    messages = executable.get_xsl_messages() or []
    text = [m.string_value for m in messages if m.string_value.strip()]
    reason = text[-1] if text else str(error)
    return f"{run_document}: export failed: {_one_line(reason)}"


def _one_line(text: str) -> str:
    return " ".join(text.split())
