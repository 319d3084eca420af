"""Corrupt state fails closed with one line: `valid ask`, `valid serve` and `valid releases`, run as
real command-line processes over a copy of the indexed sample whose files were then damaged or
tampered with. Each exits non-zero with one `valid: error:` line naming what is wrong, and no
traceback. `valid releases rollback` still works when `active.json` is damaged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from valid.embed import make_embedder
from valid.index import Store, build_release
from valid.index.activation import read_active

SIDECAR = Path(__file__).resolve().parents[1] / "sidecar"
QUESTION = "I'm on Ironwood. Which --version do I pass when I create the VM?"


def changed_export(export_path: Path, out: Path) -> Path:
    lines = export_path.read_text(encoding="utf-8").splitlines()
    chunk = json.loads(lines[1])
    chunk["text"] += " (changed)"
    chunk["digest"] = hashlib.sha256(chunk["text"].encode()).hexdigest()
    out.write_text("\n".join([lines[0], json.dumps(chunk), *lines[2:]]) + "\n", encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def two_releases(sample_build, tmp_path_factory):
    """The sample's release, then a second one activated after it (so there is a rollback target)."""
    root = tmp_path_factory.mktemp("corrupt")
    state = root / "state"
    shutil.copytree(sample_build.state, state)
    new = build_release(changed_export(sample_build.export, root / "changed.jsonl"), make_embedder("offline"), Store(state))
    assert new.activated
    return state, sample_build.release_id, new.release_id


def valid(*args: str, state: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(SIDECAR), "VALID_STATE": str(state)}
    return subprocess.Popen(
        [sys.executable, "-m", "valid", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def run_all(commands: dict[str, subprocess.Popen]) -> dict[str, tuple[int, str, str]]:
    """Wait for processes started together (they run side by side); none outlives the test."""
    try:
        return {name: (p.wait(120), p.stdout.read(), p.stderr.read()) for name, p in commands.items()}
    finally:
        for p in commands.values():
            if p.poll() is None:  # a server that started on damaged state: the test fails, it must not linger
                p.kill()
                p.wait()


def assert_one_line_failure(name: str, result: tuple[int, str, str], *words: str) -> None:
    code, _out, err = result
    assert code != 0, f"{name} exited 0 on corrupt state"
    assert "Traceback" not in err, f"{name} printed a traceback:\n{err}"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("valid: error: "), f"{name}: {err!r}"
    for word in words:
        assert word in lines[0], f"{name}: {word!r} not in {lines[0]!r}"


# -- damage ---------------------------------------------------------------------------------------


def release_dir(state: Path, release_id: str) -> Path:
    return state / "releases" / release_id


def edit_json(path: Path, edit) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


def flip_two_scopes_fts(path: Path, profile: str) -> None:
    """One chunk leaves the profile's scope and another joins it: the counts stay the same."""
    db = sqlite3.connect(path)
    column = f'"in_{profile}"'
    inside = db.execute(f"SELECT rowid FROM chunks WHERE {column} = 1 LIMIT 1").fetchone()[0]
    outside = db.execute(f"SELECT rowid FROM chunks WHERE {column} = 0 LIMIT 1").fetchone()[0]
    db.execute(f"UPDATE chunks SET {column} = 1 - {column} WHERE rowid IN (?, ?)", (inside, outside))
    db.commit()
    db.close()


def tamper_chunk_json_scope(path: Path, profile: str) -> None:
    db = sqlite3.connect(path)
    rowid, text = db.execute(f'SELECT rowid, json FROM chunks WHERE "in_{profile}" = 0 LIMIT 1').fetchone()
    chunk = json.loads(text)
    chunk["scope"][profile] = True
    db.execute("UPDATE chunks SET json = ? WHERE rowid = ?", (json.dumps(chunk), rowid))
    db.commit()
    db.close()


def change_a_value_in_chunk_json(path: Path) -> None:
    """The served text says another number; the stored digest of the text is left as built."""
    db = sqlite3.connect(path)
    for rowid, text in db.execute("SELECT rowid, json FROM chunks ORDER BY rowid").fetchall():
        chunk = json.loads(text)
        digit = next((ch for ch in chunk["text"] if ch.isdigit()), None)
        if digit is not None:
            chunk["text"] = chunk["text"].replace(digit, str((int(digit) + 1) % 10), 1)
            db.execute("UPDATE chunks SET json = ? WHERE rowid = ?", (json.dumps(chunk), rowid))
            break
    db.commit()
    db.close()


def change_the_searched_text(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("UPDATE chunks_fts SET text = text || ' tampered' WHERE rowid = 1")
    db.commit()
    db.close()


def move_a_chunk_into_scope_everywhere(path: Path, profile: str) -> None:
    """Scope column and chunk JSON changed alike (they agree), one chunk out for one in: counts kept."""
    db = sqlite3.connect(path)
    column = f'"in_{profile}"'
    for wanted in (0, 1):
        rowid, text = db.execute(f"SELECT rowid, json FROM chunks WHERE {column} = ? LIMIT 1", (wanted,)).fetchone()
        chunk = json.loads(text)
        chunk["scope"][profile] = not wanted
        db.execute(f"UPDATE chunks SET json = ?, {column} = ? WHERE rowid = ?", (json.dumps(chunk), 1 - wanted, rowid))
    db.commit()
    db.close()


def delete_a_row_and_its_counts(state: Path, release_id: str) -> None:
    """A chunk is deleted from both FTS5 tables and the manifest's counts are made to agree."""
    directory = release_dir(state, release_id)
    db = sqlite3.connect(directory / "fts.sqlite")
    manifest = json.loads((directory / "release.json").read_text())
    profiles = manifest["identity"]["export"]["profiles"]
    row = db.execute(f"SELECT rowid, {', '.join(f'in_{p}' for p in profiles)} FROM chunks ORDER BY rowid DESC LIMIT 1").fetchone()
    db.execute("DELETE FROM chunks WHERE rowid = ?", (row[0],))
    db.execute("DELETE FROM chunks_fts WHERE rowid = ?", (row[0],))
    db.commit()
    db.close()
    manifest["operational"]["chunks"] -= 1
    for profile, inside in zip(profiles, row[1:]):
        manifest["operational"]["per_profile"][profile] -= inside
    (directory / "release.json").write_text(json.dumps(manifest))


def flip_two_scopes_chroma(state: Path, release_id: str, profile: str) -> None:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(state / "chroma"), settings=Settings(anonymized_telemetry=False))
    namespace = json.loads((state / "state.json").read_text())["namespace"]
    collection = client.get_collection(f"valid-{namespace}-{release_id}", embedding_function=None)
    field = f"in_{profile}"
    rows = collection.get(include=["metadatas"])
    inside = next(i for i, m in zip(rows["ids"], rows["metadatas"]) if m[field])
    outside = next(i for i, m in zip(rows["ids"], rows["metadatas"]) if not m[field])
    got = collection.get(ids=[inside, outside], include=["metadatas"])
    flipped = [{**m, field: not m[field]} for m in got["metadatas"]]
    collection.update(ids=got["ids"], metadatas=flipped)


def garbage(path: Path) -> None:
    path.write_bytes(b"\x13\x37 not what this file should be " * 64)


def truncate(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)


RELEASE_DAMAGE = {  # name -> (damage(state, release_id), a word the error names)
    "release.json is not JSON": (lambda s, r: (release_dir(s, r) / "release.json").write_text("{"), "release.json"),
    "release.json per-generation counts tampered": (
        lambda s, r: edit_json(release_dir(s, r) / "release.json",
                               lambda m: m["operational"]["per_profile"].update(tpu7x=m["operational"]["per_profile"]["tpu7x"] + 1)),
        "scope counts",
    ),
    "release.json identity tampered": (
        lambda s, r: edit_json(release_dir(s, r) / "release.json",
                               lambda m: m["identity"]["embedder"].update(dimension=768)),
        "describes another release",
    ),
    "export-header.json is not a header": (
        lambda s, r: (release_dir(s, r) / "export-header.json").write_text("[]"), "export-header.json"
    ),
    "fts.sqlite is missing": (lambda s, r: (release_dir(s, r) / "fts.sqlite").unlink(), "fts.sqlite"),
    "fts.sqlite is not a database": (lambda s, r: garbage(release_dir(s, r) / "fts.sqlite"), "fts.sqlite"),
    "fts.sqlite is truncated": (lambda s, r: truncate(release_dir(s, r) / "fts.sqlite"), "fts.sqlite"),
    "fts.sqlite scope columns tampered, counts kept": (
        lambda s, r: flip_two_scopes_fts(release_dir(s, r) / "fts.sqlite", "tpu7x"), "content digest"
    ),
    "fts.sqlite chunk JSON scope tampered": (
        lambda s, r: tamper_chunk_json_scope(release_dir(s, r) / "fts.sqlite", "tpu7x"), "disagrees"
    ),
    "fts.sqlite chunk text changed, its digest kept": (
        lambda s, r: change_a_value_in_chunk_json(release_dir(s, r) / "fts.sqlite"), "chunk"
    ),
    "fts.sqlite searched text changed": (lambda s, r: change_the_searched_text(release_dir(s, r) / "fts.sqlite"), "chunk"),
    "fts.sqlite scope changed in column and JSON alike, counts kept": (
        lambda s, r: move_a_chunk_into_scope_everywhere(release_dir(s, r) / "fts.sqlite", "tpu7x"), "digest"
    ),
    "fts.sqlite row deleted, release.json counts adjusted": (delete_a_row_and_its_counts, "digest"),
    "Chroma's database is not a database": (lambda s, r: garbage(s / "chroma" / "chroma.sqlite3"), "Chroma"),
    "Chroma's collection is gone": (lambda s, r: shutil.rmtree(s / "chroma"), "Chroma"),
    "Chroma scope metadata tampered, counts kept": (
        lambda s, r: flip_two_scopes_chroma(s, r, "tpu7x"), "content digest"
    ),
}


@pytest.mark.parametrize("damage", list(RELEASE_DAMAGE))
def test_a_damaged_active_release_fails_closed_in_ask_serve_and_releases(two_releases, tmp_path, damage):
    source, _old, active = two_releases
    state = tmp_path / "state"
    shutil.copytree(source, state)
    apply, word = RELEASE_DAMAGE[damage]
    apply(state, active)
    results = run_all({
        "valid ask": valid("ask", QUESTION, state=state),
        "valid serve": valid("serve", "--port", "0", state=state),
        "valid releases activate": valid("releases", "activate", active[:12], state=state),
    })
    for name, result in results.items():
        assert_one_line_failure(name, result, active[:12], word)
    assert read_active(Store(state)).active == active, "a failed activation must not move the pointer"


POINTER_DAMAGE = {
    "active.json is not JSON": lambda path: path.write_text("{\"active\": "),
    "active.json has the wrong shape": lambda path: path.write_text('{"active": 5, "history": "x"}'),
    "active.json is empty": lambda path: path.write_bytes(b""),
}


@pytest.mark.parametrize("damage", list(POINTER_DAMAGE))
def test_a_damaged_pointer_fails_closed_and_rollback_still_works(two_releases, tmp_path, damage):
    source, old, active = two_releases
    state = tmp_path / "state"
    shutil.copytree(source, state)
    POINTER_DAMAGE[damage](state / "active.json")
    results = run_all({
        "valid ask": valid("ask", QUESTION, state=state),
        "valid serve": valid("serve", "--port", "0", state=state),
        "valid releases list": valid("releases", "list", state=state),
    })
    for name, result in results.items():
        assert_one_line_failure(name, result, "active.json")

    code, out, err = run_all({"rollback": valid("releases", "rollback", state=state)})["rollback"]
    assert code == 0, err
    assert out.strip() == f"active release: {old[:12]}"
    assert read_active(Store(state)).active == old
    code, out, err = run_all({"ask": valid("ask", QUESTION, "--json", state=state)})["ask"]
    assert code == 0, err
    assert json.loads(out)["release"] == old


def test_a_damaged_question_log_is_one_line_and_no_log_still_answers(two_releases, tmp_path):
    source, _old, active = two_releases
    state = tmp_path / "state"
    shutil.copytree(source, state)
    garbage(state / "questions.sqlite")
    results = run_all({
        "valid ask": valid("ask", QUESTION, state=state),
        "valid ask --no-log": valid("ask", QUESTION, "--json", "--no-log", state=state),
    })
    assert_one_line_failure("valid ask", results["valid ask"], "questions.sqlite", "--no-log")
    code, out, err = results["valid ask --no-log"]
    assert code == 0, err
    assert json.loads(out)["release"] == active
