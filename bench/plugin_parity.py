"""Compare two VALID exports of the same doc set: the DITA-OT plugin's and `valid export`'s.

    python3 bench/plugin_parity.py PLUGIN.jsonl EXPORT.jsonl            # counts, then up to 10 of each kind
    python3 bench/plugin_parity.py PLUGIN.jsonl EXPORT.jsonl --all      # every difference
    python3 bench/plugin_parity.py PLUGIN.jsonl EXPORT.jsonl --json     # the whole report as JSON

Chunks are matched by id. A chunk is reported when it is only in one export, or when its text or its
scope (the profiles that keep it) differ. Exit 0 when the two agree, 1 when they do not.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class Difference:
    id: str
    field: str
    plugin: object
    export: object


@dataclass
class Parity:
    plugin_chunks: int
    export_chunks: int
    only_in_plugin: list[str] = field(default_factory=list)
    only_in_export: list[str] = field(default_factory=list)
    differ: list[Difference] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return not (self.only_in_plugin or self.only_in_export or self.differ)

    def counts(self) -> dict[str, int]:
        return {
            "plugin chunks": self.plugin_chunks,
            "export chunks": self.export_chunks,
            "only in plugin": len(self.only_in_plugin),
            "only in export": len(self.only_in_export),
            "text differs": sum(d.field == "text" for d in self.differ),
            "scope differs": sum(d.field == "scope" for d in self.differ),
        }


def chunks(path: Path) -> dict[str, dict]:
    """The chunk lines of an export by id (the header line is skipped)."""
    by_id: dict[str, dict] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record.get("kind") == "chunk":
                by_id[record["id"]] = record
    return by_id


def kept_by(chunk: dict) -> list[str]:
    return sorted(name for name, kept in chunk["scope"].items() if kept)


def compare(plugin: dict[str, dict], export: dict[str, dict]) -> Parity:
    parity = Parity(plugin_chunks=len(plugin), export_chunks=len(export))
    parity.only_in_plugin = sorted(plugin.keys() - export.keys())
    parity.only_in_export = sorted(export.keys() - plugin.keys())
    for chunk_id in sorted(plugin.keys() & export.keys()):
        a, b = plugin[chunk_id], export[chunk_id]
        if a["text"] != b["text"]:
            parity.differ.append(Difference(chunk_id, "text", a["text"], b["text"]))
        if kept_by(a) != kept_by(b):
            parity.differ.append(Difference(chunk_id, "scope", kept_by(a), kept_by(b)))
    return parity


def report(parity: Parity, limit: int | None) -> str:
    lines = [f"{name}: {count}" for name, count in parity.counts().items()]
    for title, ids in (("only in plugin", parity.only_in_plugin), ("only in export", parity.only_in_export)):
        if ids:
            lines.append(f"\n{title}:")
            lines += [f"  {chunk_id}" for chunk_id in ids[:limit]]
    if parity.differ:
        lines.append("\ndiffer:")
        for difference in parity.differ[:limit]:
            lines.append(f"  {difference.id} [{difference.field}]")
            lines.append(f"    plugin: {difference.plugin!r}")
            lines.append(f"    export: {difference.export!r}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("plugin", type=Path, help="the export `dita --format=valid-index` wrote")
    parser.add_argument("export", type=Path, help="the export `valid export` wrote")
    parser.add_argument("--all", action="store_true", help="list every difference, not the first 10 of each kind")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    parity = compare(chunks(args.plugin), chunks(args.export))
    if args.json:
        print(json.dumps({"counts": parity.counts(), **asdict(parity)}, indent=1, ensure_ascii=False))
    else:
        print(report(parity, None if args.all else 10))
    return 0 if parity.agree else 1


if __name__ == "__main__":
    sys.exit(main())
