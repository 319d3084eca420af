"""The BM25 channel: one SQLite file per release with the chunks and their FTS5 index.

Scope is applied the way sqlite-utils applies a `where`: the content table is filtered to the
profile first (a CTE), and only those rows are joined to the MATCH, so top-k is taken inside the
scope. User text never reaches FTS5 syntax: every whitespace-separated token is quoted, so `NOT`,
`OR`, `-`, `:` and parentheses are plain text and `v2-alpha-tpuv6e` or `--version` match literally.
"""

from __future__ import annotations

import hashlib
import math
import re
import sqlite3
from pathlib import Path
from typing import Sequence

from valid.contracts import Chunk
from valid.index.manifest import Bm25Settings

_SEPARATORS = re.compile(r"[-_]+")


def split_column(*texts: str) -> str:
    """The parts of every hyphenated or underscored word, so `version` also finds `--version`.

    Words are found with str.split, not a regex such as `\\S*[-_]\\S*`: that one backtracks over
    the whole word at every start position, quadratic in the length of a long unbroken token."""
    parts = []
    for text in texts:
        for word in text.split():
            if "-" not in word and "_" not in word:
                continue
            pieces = _SEPARATORS.sub(" ", word).split()
            if pieces:
                parts.append(" ".join(pieces))
    return "\n".join(parts)


def quote_query(text: str) -> str | None:
    """An FTS5 query that ORs each user token as a quoted string; None when there is nothing to search."""
    tokens = list(dict.fromkeys(text.split()))
    if not tokens:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


def phrase_query(words: Sequence[str]) -> str | None:
    """An FTS5 query for the words next to each other in this order, each as a prefix (so "file
    viewer" finds "File Viewers"); None when there is nothing to search."""
    words = [w for w in words if w.strip()]
    if not words:
        return None
    return " + ".join('"' + w.replace('"', '""') + '"*' for w in words)


def column(profile: str) -> str:
    """The quoted SQL column for a profile (profile names are validated when the export is read)."""
    return '"in_' + profile.replace('"', '""') + '"'


def build(path: Path, chunks: Sequence[Chunk], profiles: Sequence[str], settings: Bm25Settings) -> str:
    """Write the release's FTS5 file; returns the stored-content digest of what it wrote (stored_digest)."""
    rows = [_stored_row(c, profiles) for c in chunks]
    db = sqlite3.connect(path)
    try:
        scope_columns = ", ".join(f"{column(p)} INTEGER NOT NULL" for p in profiles)
        db.execute(
            "CREATE TABLE chunks (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,"
            " topic_id TEXT NOT NULL, title TEXT NOT NULL, type TEXT NOT NULL, scope_origin TEXT NOT NULL,"
            f" digest TEXT NOT NULL, json TEXT NOT NULL, {scope_columns})"
        )
        db.execute("CREATE INDEX chunks_path ON chunks (path)")
        tokenizer = settings.tokenizer.replace('"', '""')
        db.execute(f'CREATE VIRTUAL TABLE chunks_fts USING fts5({", ".join(settings.columns)}, tokenize = "{tokenizer}")')
        marks = ", ".join("?" * (9 + len(profiles)))
        db.executemany(
            f"INSERT INTO chunks VALUES ({marks})",
            ((n, *row[:_CHUNK_FIELDS], *row[_CHUNK_FIELDS + 3 :]) for n, row in enumerate(rows, start=1)),
        )
        db.executemany(
            "INSERT INTO chunks_fts (rowid, title, text, split) VALUES (?, ?, ?, ?)",
            ((n, *row[_CHUNK_FIELDS : _CHUNK_FIELDS + 3]) for n, row in enumerate(rows, start=1)),
        )
        db.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
        db.commit()
    finally:
        db.close()
    return _digest(rows)


# -- the stored-content digest ---------------------------------------------------------------
# Every value a reader can be served or searched by, as stored: the chunks row (id, path, topic,
# title, type, scope origin, text digest, the chunk JSON answers are read from), the FTS5 row
# (title, text, split) and the scope columns, in rowid (export) order. Built from the chunks at
# build time and recomputed from the file at every open, so any edit after the build -- a changed
# value with its digest left as built, a moved scope, a deleted row -- fails the open.
_CHUNK_FIELDS = 8
_STORED_SQL = (
    "SELECT c.id, c.path, c.topic_id, c.title, c.type, c.scope_origin, c.digest, c.json,"
    " f.title, f.text, f.split, {scope} FROM chunks c LEFT JOIN chunks_fts f ON f.rowid = c.rowid ORDER BY c.rowid"
)


def _stored_row(c: Chunk, profiles: Sequence[str]) -> tuple:
    return (
        c.id, c.source.path, c.topic_id, c.title, c.type, c.scope_origin, c.digest, c.model_dump_json(),
        c.title, c.text, split_column(c.title, c.text),
        *(1 if c.scope[p] else 0 for p in profiles),
    )


def stored_digest(db: sqlite3.Connection, profiles: Sequence[str]) -> str:
    """The stored-content digest recomputed from an FTS5 file (see build)."""
    scope = ", ".join(f"c.{column(p)}" for p in profiles)
    return _digest(db.execute(_STORED_SQL.format(scope=scope)))


def _digest(rows) -> str:
    digest = hashlib.sha256()
    for row in rows:
        # Length-prefixed fields: no value can shift into its neighbour; NULL (a missing FTS5 row) is its own mark.
        digest.update("".join("\x00" if v is None else f"{len(str(v))}:{v}" for v in row).encode("utf-8"))
        digest.update(b"\x1e")
    return digest.hexdigest()


def connect_readonly(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)


def search(
    db: sqlite3.Connection, query_text: str, profile: str | Sequence[str], k: int, settings: Bm25Settings
) -> list[tuple[str, float]]:
    """(chunk id, bm25) pairs in the profile (or in any of several), best first; bm25 is lower-is-better,
    ties broken by id."""
    return search_match(db, quote_query(query_text), profile, k, settings)


def search_match(
    db: sqlite3.Connection, query: str | None, profile: str | Sequence[str], k: int, settings: Bm25Settings
) -> list[tuple[str, float]]:
    """`search` with a ready FTS5 query (quote_query, phrase_query)."""
    if query is None or k < 1:
        return []
    profiles = [profile] if isinstance(profile, str) else list(profile)
    scope = " OR ".join(f"{column(p)} = 1" for p in profiles)
    weights = ", ".join(repr(float(w)) for w in settings.weights)
    sql = (
        f"WITH scoped AS (SELECT rowid, id FROM chunks WHERE {scope}) "
        f"SELECT scoped.id, bm25(chunks_fts, {weights}) AS score "
        "FROM scoped JOIN chunks_fts ON chunks_fts.rowid = scoped.rowid "
        "WHERE chunks_fts MATCH ? ORDER BY score, scoped.id LIMIT ?"
    )
    return [(row[0], float(row[1])) for row in db.execute(sql, (query, k))]


def writing(db: sqlite3.Connection, query: str, profiles: Sequence[str]) -> list[tuple]:
    """(title and text, one 0/1 per profile) of each chunk the FTS5 query matches, in rowid order."""
    columns = ", ".join(f"c.{column(p)}" for p in profiles)
    sql = (
        f"SELECT f.title || ' ' || f.text, {columns} FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid "
        "WHERE chunks_fts MATCH ? ORDER BY c.rowid"
    )
    return db.execute(sql, (query,)).fetchall()


def _vocabulary_table(db: sqlite3.Connection) -> None:
    """FTS5's own view of the index's tokens, one row per token with its document count."""
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)")


def common_tokens(db: sqlite3.Connection, share: float) -> frozenset[str]:
    """The tokens at least `share` of the chunks hold (FTS5's document count per token)."""
    _vocabulary_table(db)
    (total,) = db.execute("SELECT count(*) FROM chunks").fetchone()
    least = max(1, math.ceil(share * total))
    return frozenset(term for (term,) in db.execute("SELECT term FROM temp.chunks_vocab WHERE doc >= ?", (least,)))


def tokens(db: sqlite3.Connection) -> list[str]:
    """Every token of the full-text index (FTS5's vocabulary: what the doc set writes, any build)."""
    _vocabulary_table(db)
    return [row[0] for row in db.execute("SELECT term FROM temp.chunks_vocab")]
