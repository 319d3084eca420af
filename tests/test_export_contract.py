"""The export contract: the committed JSON Schema, and line-by-line validation before writing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from valid.cli import main
from valid.contracts import Chunk, ExportCounts, ExportHeader, ProfileInfo, SourceLocation
from valid.errors import ExportContractError
from valid.export import contract_schema_json, validate_lines

ROOT = Path(__file__).parent.parent
PROFILES = ["v5p", "v6e"]


def test_committed_schema_matches_the_pydantic_models():
    committed = (ROOT / "docs" / "export.schema.json").read_text(encoding="utf-8")
    assert committed == contract_schema_json(), "regenerate with: valid schema -o docs/export.schema.json"


def test_schema_command_prints_the_schema():
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["discriminator"]["propertyName"] == "kind"
    assert set(schema["$defs"]) >= {"ExportHeader", "Chunk", "ProfileInfo", "SourceLocation"}


def header(chunks: int = 1, profiles=PROFILES) -> str:
    return ExportHeader(
        map="m.ditamap",
        attribute="platform",
        profiles=[ProfileInfo(name=p, labels=[p], ditaval_digest="0" * 64) for p in profiles],
        exporter_version="0.1.0",
        stylesheet_digest="1" * 64,
        counts=ExportCounts(chunks=chunks, kept_by_no_profile=0, per_profile={p: chunks for p in profiles}),
    ).model_dump_json()


def chunk(id="t.dita#t/body", text="Hello", scope=None, digest=None) -> str:
    return Chunk(
        id=id,
        text=text,
        title="T",
        breadcrumbs=["M", "T"],
        type="body",
        topic_id="t",
        source=SourceLocation(path="t.dita", line=1, xpath="/topic[1]/body[1]"),
        scope=scope if scope is not None else dict.fromkeys(PROFILES, True),
        scope_origin="shared",
        digest=digest or hashlib.sha256(text.encode()).hexdigest(),
    ).model_dump_json()


def test_valid_lines_pass():
    parsed, count = validate_lines(header(2) + "\n" + chunk() + "\n" + chunk(id="t.dita#t/s1") + "\n", PROFILES)
    assert count == 2
    assert [p.name for p in parsed.profiles] == PROFILES


@pytest.mark.parametrize(
    "lines, message",
    [
        ([], "export: empty export (no header line)"),
        (["{not json"], "export:1: the first line is not an export header"),
        ([header(1), '{"kind": "chunk"}'], "export:2: invalid chunk: id: Field required"),
        ([header(1), chunk(scope={"v5p": True})], "export:2: chunk 't.dita#t/body' has scope keys ['v5p']"),
        ([header(1), chunk(digest="f" * 64)], "export:2: chunk 't.dita#t/body' digest is not sha256 of its text"),
        ([header(2), chunk(), chunk()], "export:3: duplicate chunk id 't.dita#t/body'"),
        ([header(3), chunk()], "export: header counts 3 chunks, the file has 1"),
        ([header(0, profiles=["v5p"])], "the header's profiles ['v5p'] are not the requested ['v5p', 'v6e']"),
        ([header(1), chunk().replace('"type":"body"', '"type":"paragraph"')], "export:2: invalid chunk: type"),
    ],
)
def test_bad_lines_are_an_export_contract_error_naming_the_line(lines, message):
    with pytest.raises(ExportContractError) as caught:
        validate_lines("\n".join(lines), PROFILES)
    assert message in str(caught.value)
