"""Read an export for the audit: the project's one export reader, as a `valid.contracts.Export`.

The audit works on the export alone, so what it reads is checked first (`valid.export.file`): a
line that breaks the contract is reported with its file and line instead of surfacing later as a
wrong finding.
"""

from __future__ import annotations

from pathlib import Path

from valid.contracts import Export
from valid.export.file import read_export


def load_export(path: str | Path) -> Export:
    return read_export(path).as_export()
