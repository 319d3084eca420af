"""Read an export (JSON lines: header, then chunks) into `valid.contracts.Export`.

The audit works on the export alone, so it validates what it reads: a line that breaks the contract
is reported with its file and line number instead of surfacing later as a wrong finding.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from valid.contracts import Chunk, Export, ExportHeader
from valid.errors import ConfigError, ExportContractError


def load_export(path: str | Path) -> Export:
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such export file (write one with `valid export`)") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ExportContractError(f"{path}: cannot read the export: {err}") from None
    return parse_export(lines, str(path))


def parse_export(lines: list[str], name: str = "<export>") -> Export:
    header: ExportHeader | None = None
    chunks: list[Chunk] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if header is None:
                header = ExportHeader.model_validate(data)
            else:
                chunks.append(Chunk.model_validate(data))
        except json.JSONDecodeError as err:
            raise ExportContractError(f"{name}:{number}: not JSON: {err.msg}") from None
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "line"
            kind = "header" if header is None else "chunk"
            raise ExportContractError(f"{name}:{number}: invalid {kind}: {where}: {first['msg']}") from None
    if header is None:
        raise ExportContractError(f"{name}: empty export: the first line must be the header")
    names = [p.name for p in header.profiles]
    for chunk in chunks:
        if sorted(chunk.scope) != sorted(names):
            raise ExportContractError(
                f"{name}: chunk {chunk.id} has scope fields {sorted(chunk.scope)}, the header's profiles are {names}"
            )
    return Export(header=header, chunks=chunks)
