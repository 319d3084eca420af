"""Reading an export file (JSON lines: header, then chunks) and checking it against the contract.

The one reader of exports: the audit, the index and the evaluation all use it. Beyond the pydantic
models it checks what later stages rely on: unique chunk ids, every chunk's
scope naming exactly the header's profiles, `digest` really being sha256 of `text` (the embedding
cache trusts it), and the header's counts matching the chunks.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from valid.contracts import SCHEMA_VERSION, Chunk, Export, ExportHeader
from valid.errors import ConfigError, ExportContractError

# Profile names become Chroma metadata keys (in_<name>) and SQLite column names.
PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

# Header fields that describe a run rather than the content: not part of the release identity.
OPERATIONAL_HEADER_FIELDS = frozenset({"source_commit", "warnings", "counts"})


def canonical_json(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class LoadedExport:
    path: Path
    header: ExportHeader
    chunks: list[Chunk]
    digest: str  # sha256 of the chunk lines, exactly as written

    @property
    def profiles(self) -> list[str]:
        return [p.name for p in self.header.profiles]

    def as_export(self) -> Export:
        return Export(header=self.header, chunks=self.chunks)

    @property
    def header_digest(self) -> str:
        """sha256 of the header's behaviour-carrying fields (profiles, labels, owned values, versions)."""
        return sha256_hex(canonical_json(self.header.model_dump(mode="json", exclude=set(OPERATIONAL_HEADER_FIELDS))))


def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "line"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"{where}: {first.get('msg')}{more}"


def read_export(path: str | Path) -> LoadedExport:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such export file (write one with `valid export`)") from None
    except OSError as err:
        raise ExportContractError(f"{path}: cannot read the export ({err.strerror}); run `valid export` first") from None
    return parse_export(raw, path)


def parse_export(raw: bytes, path: str | Path) -> LoadedExport:
    """Check an export's bytes against the contract; `path` names it in errors ("path:line: ...")."""
    path = Path(path)
    header: ExportHeader | None = None
    chunks: list[Chunk] = []
    digest = hashlib.sha256()
    seen: dict[str, int] = {}
    for number, line in enumerate(raw.split(b"\n"), start=1):
        line = line.rstrip(b"\r")
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise ExportContractError(f"{path}:{number}: not UTF-8") from None
        if header is None:
            try:
                header = ExportHeader.model_validate_json(text)
            except ValidationError as err:
                raise ExportContractError(f"{path}:{number}: the first line is not an export header: {_first_error(err)}") from None
            _check_header(path, number, header)
            profiles = [p.name for p in header.profiles]
            continue
        try:
            chunk = Chunk.model_validate_json(text)
        except ValidationError as err:
            raise ExportContractError(f"{path}:{number}: invalid chunk: {_first_error(err)}") from None
        if chunk.id in seen:
            raise ExportContractError(f"{path}:{number}: duplicate chunk id {chunk.id!r} (first on line {seen[chunk.id]})")
        seen[chunk.id] = number
        if list(chunk.scope) != profiles:
            raise ExportContractError(
                f"{path}:{number}: chunk {chunk.id!r} has scope keys {list(chunk.scope)}, expected the header's profiles {profiles}"
            )
        if not any(chunk.scope.values()):
            raise ExportContractError(f"{path}:{number}: chunk {chunk.id!r} is in no profile's scope; it should not be exported")
        if sha256_hex(chunk.text.encode("utf-8")) != chunk.digest:
            raise ExportContractError(f"{path}:{number}: chunk {chunk.id!r} digest is not sha256 of its text")
        digest.update(line + b"\n")
        chunks.append(chunk)

    if header is None:
        raise ExportContractError(f"{path}: empty export (no header line)")
    counts = header.counts
    if counts.chunks != len(chunks):
        raise ExportContractError(f"{path}: header counts {counts.chunks} chunks, the file has {len(chunks)}")
    actual = {p: sum(1 for c in chunks if c.scope[p]) for p in profiles}
    if counts.per_profile and counts.per_profile != actual:
        raise ExportContractError(f"{path}: header per-profile counts {counts.per_profile} do not match the chunks {actual}")
    return LoadedExport(path=path, header=header, chunks=chunks, digest=digest.hexdigest())


def _check_header(path: Path, number: int, header: ExportHeader) -> None:
    if header.schema_version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise ExportContractError(
            f"{path}:{number}: export schema {header.schema_version} is not compatible with {SCHEMA_VERSION}; re-export"
        )
    names = [p.name for p in header.profiles]
    if not names:
        raise ExportContractError(f"{path}:{number}: the header lists no profiles")
    if len(set(names)) != len(names):
        raise ExportContractError(f"{path}:{number}: duplicate profile names {names}")
    for name in names:
        if not PROFILE_NAME.match(name):
            raise ExportContractError(
                f"{path}:{number}: profile name {name!r} must be letters, digits, '_', '-' or '.', starting with a letter or digit"
            )
