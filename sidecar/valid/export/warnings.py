"""Export warnings for a person: a summary by kind, every warning as text or JSON, read back from an export.

A warning's kind is its `feature`; where DITA-OT reports the same problem, the message starts with
DITA-OT's message id in brackets (`[DOTX010E] ...`, from DITA-OT's config/messages_template.xml),
so a writer can match VALID's list against a DITA-OT build log. Pure functions, except
`read_export_warnings`, which reads an export's header line.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter

from valid.contracts import ExportWarning
from valid.errors import OutputError

_MESSAGE_ID = re.compile(r"^\[(DOT[A-Z]\d{3}[A-Z])\]\s*")
# How each build names itself in its warnings (valid.dita.preprocess: "... in profile NAME; ...").
_IN_PROFILE = re.compile(r" in profile ([A-Za-z0-9_][A-Za-z0-9_.-]*?)(?=[;:,]|\s|$)")

FORMATS = ("text", "json")


def message_id(warning: ExportWarning) -> str | None:
    """DITA-OT's message id for this warning, when DITA-OT has one."""
    found = _MESSAGE_ID.match(warning.message)
    return found.group(1) if found else None


def where(warning: ExportWarning) -> str:
    return f"{warning.path}:{warning.line}" if warning.line else warning.path


def merge_profiles(warnings: list[ExportWarning], builds: list[str]) -> list[ExportWarning]:
    """One warning for a problem that several builds report alike: each build of the doc set (every
    profile and the unfiltered one) reports an undefined key in its own words ("in profile v5p"),
    so a key no build defines would be listed once per build. They become one warning that names
    the builds ("in every profile" when all of them), at the place of the first."""
    groups: dict[tuple, list[str]] = {}
    first: dict[tuple, ExportWarning] = {}
    for w in warnings:
        found = _IN_PROFILE.search(w.message)
        shape = _IN_PROFILE.sub(" in profile {}", w.message, count=1) if found else w.message
        key = (w.path, w.line, w.feature, shape)
        first.setdefault(key, w)
        if found and found.group(1) not in groups.setdefault(key, []):
            groups[key].append(found.group(1))
    merged = []
    for key, w in first.items():
        names = groups.get(key, [])
        if len(names) <= 1:
            merged.append(w)
            continue
        every = set(names) >= set(builds)
        said = " in every profile" if every else " in profiles " + ", ".join(n for n in builds if n in names)
        merged.append(w.model_copy(update={"message": key[3].replace(" in profile {}", said, 1)}))
    return merged


def summary(warnings: list[ExportWarning], first: int = 3) -> str:
    """`N warning(s)`, then one line per kind, most frequent first: count, DITA-OT ids, first places."""
    if not warnings:
        return "0 warnings"
    kinds = Counter(w.feature for w in warnings)
    lines = [f"{len(warnings)} warning(s) by kind:"]
    width = max(len(kind) for kind in kinds)
    for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0])):
        of_kind = [w for w in warnings if w.feature == kind]
        ids = sorted({i for i in map(message_id, of_kind) if i})
        places = ", ".join(where(w) for w in of_kind[:first]) + (", ..." if count > first else "")
        lines.append(f"  {kind:<{width}}  {count:>5}  {'(' + ' '.join(ids) + ') ' if ids else ''}{places}")
    return "\n".join(lines)


def listing(warnings: list[ExportWarning], fmt: str = "text") -> str:
    """Every warning: `file:line: kind: message` lines, or a JSON array (with `id` where DITA-OT has one)."""
    if fmt == "json":
        return json.dumps([{**w.model_dump(), "id": message_id(w)} for w in warnings], ensure_ascii=False, indent=1)
    if fmt != "text":
        raise OutputError(f"unknown warnings format '{fmt}': use one of {', '.join(FORMATS)}")
    return "\n".join(f"{where(w)}: {w.feature}: {w.message}" for w in warnings)


def read_export_warnings(path: str | os.PathLike) -> list[ExportWarning]:
    """The warnings in an existing export's header, the export checked by the one export reader."""
    from valid.export.file import read_export

    return list(read_export(path).header.warnings)
