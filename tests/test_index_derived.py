"""What depends only on the release is computed once by `valid index` and stored with it (issue 27
item 5): vocabulary, owned values and title are read back, never recomputed per process; the full
content check runs once per release and its files (valid.index.verified); an older release says
to re-run `valid index`.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import replace

import pytest
from click.testing import CliRunner

from valid.answer.vocabulary import read_vocabulary
from valid.audit.owned import owned_values
from valid.cli import main
from valid.contracts import Chunk, Export
from valid.errors import ReleaseError
from valid.export.file import read_export
from valid.index import Store, open_release, vectors
from valid.index.derived import map_title
from valid.index.verified import STAMP_FILE


def chunks_of(export_path):
    return [Chunk.model_validate_json(line) for line in export_path.read_text(encoding="utf-8").splitlines()[1:]]


@pytest.fixture
def state(sample_build, tmp_path):
    """A copy of the indexed sample (these tests write stamps and damage files)."""
    copy = tmp_path / "state"
    shutil.copytree(sample_build.state, copy)
    return copy


def test_the_stored_derived_data_equals_what_the_old_per_process_computation_gives(sample_build):
    loaded = read_export(sample_build.export)
    old_table = owned_values(Export(header=loaded.header, chunks=loaded.chunks))
    with open_release(Store(sample_build.state), sample_build.release_id) as release:
        stored = release.derived
        vocabulary = release.vocabulary()
    # The words most chunks write are read from the release's full-text index (valid.index.fts), as
    # no export-side reader knows the index's tokens: everything else is what the old reader gives.
    assert replace(vocabulary, common=frozenset()) == read_vocabulary(loaded.chunks)
    assert "tpu" in vocabulary.common and stored.to_vocabulary().common == frozenset()
    # The titles a cross-reference shows are read from the release's chunk store, not kept twice.
    assert vocabulary.titles == {c.title for c in loaded.chunks} and stored.to_vocabulary().titles == frozenset()
    assert stored.to_vocabulary().abbreviations, "the sample defines abbreviations: the comparison must not be empty"
    table = stored.to_owned()
    assert table.to_dict() == old_table.to_dict() and len(table) > 0
    assert table.why == old_table.why
    assert stored.title == map_title(loaded.chunks) != ""


def test_a_release_of_an_older_index_schema_says_to_rerun_valid_index(state, sample_build):
    manifest_path = state / "releases" / sample_build.release_id / "release.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["identity"]["index_schema_version"] = "2"
    manifest_path.write_text(json.dumps(manifest))
    result = CliRunner().invoke(main, ["ask", "Which --version on v6e?", "--state", str(state), "--no-log"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("valid: error:"), result.output
    assert "index schema 2" in lines[0] and "rebuild it with `valid index`" in lines[0]


def test_derived_data_edited_after_the_build_is_refused(state, sample_build):
    path = state / "releases" / sample_build.release_id / "derived.json"
    data = json.loads(path.read_text())
    data["title"] = "Someone else's docs"
    path.write_text(json.dumps(data))
    with open_release(Store(state), sample_build.release_id) as release:
        with pytest.raises(ReleaseError, match="derived.json differs from the digest recorded at build"):
            release.derived


def test_a_release_is_checked_in_full_once_then_opened_by_its_stamp(state, sample_build, monkeypatch):
    full_checks = []
    real = vectors.all_metadata
    monkeypatch.setattr(vectors, "all_metadata", lambda c: full_checks.append(1) or real(c))
    (state / "releases" / sample_build.release_id / STAMP_FILE).unlink(missing_ok=True)
    for _ in range(3):
        with open_release(Store(state), sample_build.release_id) as release:
            assert release.search_bm25("version", "v6e", 3)
    assert len(full_checks) == 1
    assert (state / "releases" / sample_build.release_id / STAMP_FILE).is_file()


def test_an_fts_file_changed_after_its_stamp_is_checked_in_full_again(state, sample_build):
    with open_release(Store(state), sample_build.release_id):
        pass  # checked in full, stamped
    fts_path = state / "releases" / sample_build.release_id / "fts.sqlite"
    db = sqlite3.connect(fts_path)
    inside = db.execute('SELECT rowid FROM chunks WHERE "in_tpu7x" = 1 LIMIT 1').fetchone()[0]
    outside = db.execute('SELECT rowid FROM chunks WHERE "in_tpu7x" = 0 LIMIT 1').fetchone()[0]
    db.execute('UPDATE chunks SET "in_tpu7x" = 1 - "in_tpu7x" WHERE rowid IN (?, ?)', (inside, outside))
    db.commit()
    db.close()
    with pytest.raises(ReleaseError, match="content digest"):
        open_release(Store(state), sample_build.release_id)
