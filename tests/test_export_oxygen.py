"""The Oxygen XML user guide (oxygenxml/userguide) exported as it comes, with the settings a user gets.

Runs where OXYGEN_USERGUIDE points at a checkout (map DITA/UserManual.ditamap); its profiles are
the trap set's (tests/trapsets/oxygen-userguide.toml). Skipped otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures.public_docsets import docset

from valid.cli import main
from valid.export import export

TRAPSET = Path(__file__).parent / "trapsets" / "oxygen-userguide.toml"


@pytest.fixture(scope="module")
def guide() -> tuple[Path, dict[str, Path]]:
    """The guide's root map and its profiles (name -> DITAVAL), in the trap set's order."""
    return docset("OXYGEN_USERGUIDE", TRAPSET, "oxygenxml/userguide")


@pytest.mark.slow
def test_the_oxygen_guide_exports_as_it_comes_and_lists_every_warning(tmp_path, guide):
    root_map, profiles = guide
    out = tmp_path / "oxygen.jsonl"
    arguments = ["export", str(root_map), *(f"--profile={name}={path}" for name, path in profiles.items()), "-o", str(out)]
    result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "warning(s) by kind:" in result.output
    # Lines end in "\n" only: chunk text may hold U+2028 and the like, which splitlines() splits at.
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").rstrip("\n").split("\n")]
    header, chunks = lines[0], lines[1:]
    assert [p["name"] for p in header["profiles"]] == list(profiles)
    assert all(header["counts"]["per_profile"][name] > 0 for name in profiles)
    assert len({c["id"] for c in chunks}) == len(chunks) > 5000
    warnings = header["warnings"]
    assert all(w["line"] > 0 for w in warnings if w["feature"] in ("missing-file", "conref", "conkeyref"))
    listed = CliRunner().invoke(main, ["warnings", str(out)], catch_exceptions=False)
    assert len(listed.output.strip().splitlines()) == len(warnings)  # every one, one line each


@pytest.mark.slow
def test_the_oxygen_guide_is_chunked_in_batches_and_the_same_bytes_for_one_or_two_jobs(tmp_path, guide):
    # Its topics' key-scope and copy-to copies, and sections conref'd from reuse files into topics
    # of several batches, once made every batch's join fall back to one run over the whole guide.
    root_map, profiles = guide
    three = {name: profiles[name] for name in ("editor-sa", "author-sa", "license-server")}
    outputs = []
    for jobs in (1, 2):
        events: list[tuple[str, int, int]] = []
        out = tmp_path / f"jobs-{jobs}.jsonl"
        export(root_map, profiles=three, out=out, jobs=jobs, progress=lambda *e: events.append(e))
        merged = [e for e in events if e[0] == "chunk and merge"]
        assert ("chunk and merge", 0, 1) not in merged and merged[-1][2] > 1, merged  # batches, joined
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert b'-x2.dita#' in outputs[0] or b'-2.dita#' in outputs[0]  # copies are exported
