"""The question store on PostgreSQL: questions, conversations, feedback and gap issues in one
database that several `valid serve` processes (on one machine or several) share.

    store = PostgresStore("postgresql://valid@127.0.0.1:5432/valid")

The same methods as the SQLite `QuestionLog` (the `QuestionStore` protocol), the same rows and the
same results: times stay ISO 8601 UTC text and JSON-valued fields JSON text, so `valid log` and the
dashboard read either store alike. Gap issues from questions live in `gap_issues` here (the SQLite
deployment keeps them in the `<state>/issues` directory store), with the same outcomes.

Safe for several writers: the schema is created on first use under an advisory lock (two servers
starting at once do not race), each write is one transaction, a conversation's next turn number is
taken under its row lock, and a gap issue's fingerprint is the table's key (ON CONFLICT DO NOTHING)
while the cap is counted under an advisory lock, so no two servers open the same issue or pass the
cap together. One connection per store, used by one thread at a time; a broken connection is
reopened on the next call. The password is never part of a message (`where`).

Every call is bounded by `timeout_s`: the connection attempt by libpq's connect_timeout, a statement
by the server's statement_timeout, and a server that stops answering altogether (hung, or its host
gone: the kernel still acknowledges, so no TCP timeout fires) by a watchdog that shuts the socket
down when the call overruns. A call that fails or overruns raises `StoreUnavailable`.

Writes can be repeated without a second row (what the spool of `valid.questionlog.spooled` relies on
when it writes again what may or may not have reached the store): a question row may carry a key
(`row_key`, unique), a conversation is started once, a turn is known by its answer id, and feedback
replaces feedback.
"""

from __future__ import annotations

import math
import socket
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

from valid.questionlog.sqlite import (
    QUESTION_NAMES,
    SCHEMA_VERSION,
    TURN_CHOICES,
    QuestionLogError,
    _COLUMNS,
    _dumps,
    decode_entry,
    decode_feedback,
    decode_row,
    decode_turn,
    entries_sql,
    now_iso,
    question_params,
)
from valid.audit.issues import DEFAULT_QUESTION_ISSUE_CAP, SCOPE_FINDING, Issue, IssueDraft

# Advisory lock keys (any two constants of our own): schema creation, and gap-issue numbering and cap.
_SCHEMA_LOCK = 0x76616C6964_01
_GAPS_LOCK = 0x76616C6964_02
_TYPES = {"TEXT NOT NULL": "TEXT NOT NULL", "TEXT": "TEXT", "INTEGER NOT NULL": "BIGINT NOT NULL",
          "REAL NOT NULL": "DOUBLE PRECISION NOT NULL"}
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS valid_schema (name TEXT PRIMARY KEY, version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS questions (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
    + ", ".join(f"{name} {_TYPES[kind]}" for name, kind in _COLUMNS) + ")",
    "CREATE INDEX IF NOT EXISTS questions_asked_at ON questions (asked_at)",
    # The key a repeated write of the same question row is recognised by (NULL: written once, directly).
    "ALTER TABLE questions ADD COLUMN IF NOT EXISTS row_key TEXT",
    "CREATE UNIQUE INDEX IF NOT EXISTS questions_row_key ON questions (row_key)",
    """CREATE TABLE IF NOT EXISTS conversations (
        id TEXT PRIMARY KEY, started_at TEXT NOT NULL, updated_at TEXT NOT NULL, turns INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS turns (
        answer_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL REFERENCES conversations(id),
        turn INTEGER NOT NULL, question_id BIGINT, asked_at TEXT NOT NULL, question TEXT NOT NULL,
        asked_as TEXT NOT NULL, generations TEXT NOT NULL, outcome TEXT NOT NULL, scope TEXT NOT NULL,
        UNIQUE (conversation_id, turn))""",
    f"ALTER TABLE turns ADD COLUMN IF NOT EXISTS {TURN_CHOICES}",
    "CREATE INDEX IF NOT EXISTS turns_question ON turns (question_id)",
    """CREATE TABLE IF NOT EXISTS feedback (
        answer_id TEXT PRIMARY KEY REFERENCES turns(answer_id), rated_at TEXT NOT NULL,
        rating TEXT NOT NULL, reasons TEXT NOT NULL, comment TEXT)""",
    """CREATE TABLE IF NOT EXISTS gap_issues (
        fingerprint TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE, kind TEXT NOT NULL, state TEXT NOT NULL,
        title TEXT NOT NULL, body TEXT NOT NULL, source TEXT NOT NULL, times_opened INTEGER NOT NULL,
        github_url TEXT)""",
]


class StoreUnavailable(QuestionLogError):
    """The store did not answer in time, or not at all (stopped, hung, unreachable)."""


def redacted(url: str) -> str:
    """The URL as `postgresql://user@host:port/database`, without a password or options."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:
        return url.split("://", 1)[0] + "://…"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{parts.get('host', '')}{port}/{parts.get('dbname', '')}"


class _Watchdog:
    """One thread per store that cuts the connection (`_cut`) when a call outlives its deadline.
    Arming it is a lock and a notify: no thread is started per call."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._db = None
        self._deadline: float | None = None
        self.fired = False
        self._thread: threading.Thread | None = None

    def arm(self, db, seconds: float) -> None:
        with self._changed:
            self._db, self._deadline, self.fired = db, time.monotonic() + seconds, False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="valid-store-watchdog", daemon=True)
                self._thread.start()
            self._changed.notify()

    def disarm(self) -> None:
        with self._changed:
            self._db, self._deadline = None, None

    def _run(self) -> None:
        with self._changed:
            while True:
                if self._deadline is None:
                    self._changed.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._changed.wait(left)
                    continue
                _cut(self._db)
                self._db, self._deadline, self.fired = None, None, True


def _cut(db) -> None:
    """Shut the connection's socket down (not close it: the thread using it still owns the
    descriptor), so a read that waits on a hung server returns at once with an error."""
    try:
        with socket.fromfd(db.fileno(), socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except Exception:  # already closed: nothing waits on it
        pass


def _first_line(err: Exception) -> str:
    text = " ".join(str(err).strip().splitlines()[0].split()) if str(err).strip() else type(err).__name__
    return text.removeprefix("connection failed: ")


class PostgresStore:
    """The question store (and gap-issue store) in the PostgreSQL database at `url`."""

    in_memory = False

    def __init__(self, url: str, timeout_s: float = 5.0):
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise QuestionLogError(
                "--log-url needs the PostgreSQL driver: pip install 'valid-dita[postgres]' (psycopg)"
            ) from None
        self.url = url
        self.where = redacted(url)
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._watchdog = _Watchdog()
        self._db = None
        with self._lock:
            self._connect()
            self._create_schema()

    # -- the connection -----------------------------------------------------------------------------
    def _connect(self) -> None:
        import psycopg

        try:
            # libpq counts whole seconds and takes 2 at least; the server cancels a statement (or a
            # wait for a lock) that runs past the bound.
            bound_ms = max(1, int(self.timeout_s * 1000))
            self._db = psycopg.connect(
                self.url, autocommit=True, connect_timeout=max(2, math.ceil(self.timeout_s)), application_name="valid",
                options=f"-c statement_timeout={bound_ms} -c lock_timeout={bound_ms}",
            )
        except psycopg.Error as err:
            raise StoreUnavailable(
                f"{self.where}: cannot open the question store: {_first_line(err)} "
                "(check --log-url or log_url in valid.toml, and that the server runs)"
            ) from None

    def _create_schema(self) -> None:
        with self._transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in _SCHEMA:
                db.execute(statement)
            found = db.execute("SELECT version FROM valid_schema WHERE name = 'questions'").fetchone()
            if found and found[0] > SCHEMA_VERSION:
                raise QuestionLogError(
                    f"{self.where}: question store schema {found[0]} is newer than this VALID's ({SCHEMA_VERSION}); "
                    "upgrade VALID"
                )
            db.execute(
                "INSERT INTO valid_schema (name, version) VALUES ('questions', %s)"
                " ON CONFLICT (name) DO UPDATE SET version = excluded.version",
                (SCHEMA_VERSION,),
            )

    @contextmanager
    def _transaction(self, atomic: bool = True) -> Iterator[Any]:
        """One transaction on the connection (the caller holds the lock), within the time bound;
        errors are one line. `atomic=False`: one statement, atomic by itself, without BEGIN and
        COMMIT (one round trip instead of three)."""
        import psycopg

        if self._db is None or self._db.closed or self._db.broken:
            self._connect()
        self._watchdog.arm(self._db, self.timeout_s)
        try:
            if atomic:
                with self._db.transaction():
                    yield self._db
            else:
                yield self._db
        except psycopg.OperationalError as err:
            if self._watchdog.fired:  # it cut the connection: the server did not answer
                raise StoreUnavailable(f"{self.where}: the question store did not answer within {self.timeout_s:g} s") from None
            raise StoreUnavailable(f"{self.where}: the question store failed: {_first_line(err)}") from None
        finally:
            self._watchdog.disarm()

    def ping(self) -> None:
        """One round trip (raises StoreUnavailable when the store does not answer in time)."""
        with self._lock, self._transaction(atomic=False) as db:
            db.execute("SELECT 1")

    def _select(self, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
        with self._lock, self._transaction(atomic=False) as db:
            cursor = db.execute(sql, params)
            names = [d.name for d in cursor.description]
            return [dict(zip(names, values)) for values in cursor.fetchall()]

    def _write(self, sql: str, params: tuple = ()):
        """One statement (atomic by itself)."""
        with self._lock, self._transaction(atomic=False) as db:
            return db.execute(sql, params)

    # -- questions ----------------------------------------------------------------------------------
    def log_question(self, row: dict[str, Any], key: str | None = None) -> int:
        """The row's id; a row written before under the same `key` is not written again."""
        names = ", ".join([*QUESTION_NAMES, "row_key"])
        marks = ", ".join("%s" for _ in range(len(QUESTION_NAMES) + 1))
        with self._lock, self._transaction(atomic=False) as db:
            found = db.execute(
                f"INSERT INTO questions ({names}) VALUES ({marks}) ON CONFLICT (row_key) DO NOTHING RETURNING id",
                [*question_params(row), key],
            ).fetchone()
            if found is None:
                found = db.execute("SELECT id FROM questions WHERE row_key = %s", (key,)).fetchone()
        return int(found[0])

    def rows(self) -> list[dict[str, Any]]:
        columns = ", ".join(["id", *QUESTION_NAMES])
        return [decode_row(record) for record in self._select(f"SELECT {columns} FROM questions ORDER BY id")]

    def entries(self, since: str | None = None, until: str | None = None) -> list[dict[str, Any]]:
        sql, params = entries_sql(since, until, "%s")
        return [decode_entry(record) for record in self._select(sql, params)]

    # -- conversations and turns --------------------------------------------------------------------
    def conversation(self, conversation_id: str) -> dict[str, Any] | None:
        found = self._select("SELECT * FROM conversations WHERE id = %s", (conversation_id,))
        return found[0] if found else None

    def start_conversation(self, conversation_id: str, at: str | None = None) -> None:
        """Start it (at `at`, default now) unless it was started already."""
        stamp = at or now_iso()
        self._write(
            "INSERT INTO conversations (id, started_at, updated_at, turns) VALUES (%s, %s, %s, 0)"
            " ON CONFLICT (id) DO NOTHING",
            (conversation_id, stamp, stamp),
        )

    def turns(self, conversation_id: str) -> list[dict[str, Any]]:
        found = self._select("SELECT * FROM turns WHERE conversation_id = %s ORDER BY turn", (conversation_id,))
        return [decode_turn(turn) for turn in found]

    def add_turn(self, turn: dict[str, Any], at: str | None = None) -> int:
        """The turn's number; a turn already stored under its answer id keeps the number it has."""
        stamp = at or now_iso()
        with self._lock, self._transaction() as db:
            known = db.execute("SELECT turn FROM turns WHERE answer_id = %s", (turn["answer_id"],)).fetchone()
            if known is not None:
                return int(known[0])
            # The row lock: two servers adding a turn to one conversation take numbers in turn.
            number = db.execute(
                "SELECT turns FROM conversations WHERE id = %s FOR UPDATE", (turn["conversation_id"],)
            ).fetchone()[0] + 1
            db.execute(
                "INSERT INTO turns (answer_id, conversation_id, turn, question_id, asked_at, question, asked_as,"
                " generations, outcome, scope, choices) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (turn["answer_id"], turn["conversation_id"], number, turn.get("question_id"), stamp,
                 turn["question"], turn["asked_as"], _dumps(turn["generations"]), turn["outcome"],
                 _dumps(turn["scope"]), _dumps(turn.get("choices", []))),
            )
            db.execute(
                "UPDATE conversations SET turns = %s, updated_at = %s WHERE id = %s",
                (number, stamp, turn["conversation_id"]),
            )
        return number

    def forget_conversations(self, before: str) -> int:
        with self._lock, self._transaction() as db:
            old = "SELECT id FROM conversations WHERE started_at < %s"
            answers = f"SELECT answer_id FROM turns WHERE conversation_id IN ({old})"
            db.execute(f"DELETE FROM feedback WHERE answer_id IN ({answers})", (before,))
            db.execute(f"DELETE FROM turns WHERE conversation_id IN ({old})", (before,))
            return db.execute("DELETE FROM conversations WHERE started_at < %s", (before,)).rowcount

    # -- feedback -----------------------------------------------------------------------------------
    def answer(self, answer_id: str) -> dict[str, Any] | None:
        found = self._select("SELECT * FROM turns WHERE answer_id = %s", (answer_id,))
        return found[0] if found else None

    def record_feedback(self, answer_id: str, rating: str, reasons: list[str], comment: str | None,
                        at: str | None = None) -> str:
        stamp = at or now_iso()
        self._write(
            "INSERT INTO feedback (answer_id, rated_at, rating, reasons, comment) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (answer_id) DO UPDATE SET rated_at = excluded.rated_at, rating = excluded.rating,"
            " reasons = excluded.reasons, comment = excluded.comment"
            # A rating written again from the spool never replaces a newer one (times are ISO UTC text).
            " WHERE feedback.rated_at <= excluded.rated_at",
            (answer_id, stamp, rating, _dumps(reasons), comment),
        )
        return stamp

    def feedback(self, answer_id: str) -> dict[str, Any] | None:
        found = self._select("SELECT * FROM feedback WHERE answer_id = %s", (answer_id,))
        return decode_feedback(found[0]) if found else None

    # -- gap issues (the GapIssueStore protocol) ----------------------------------------------------
    def append_issues(self, kind: str, drafts: Iterable[IssueDraft], cap: int = DEFAULT_QUESTION_ISSUE_CAP) -> list[str]:
        """As `IssueStore.append_issues`: "added", "duplicate" or "dropped" per draft."""
        drafts = list(drafts)
        outcomes: list[str] = []
        with self._lock, self._transaction() as db:
            # Numbering and the cap are decided by one server at a time; the fingerprint key makes
            # a duplicate impossible even so.
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_GAPS_LOCK,))
            known = {r[0] for r in db.execute(
                "SELECT fingerprint FROM gap_issues WHERE fingerprint = ANY(%s)", ([d.fingerprint for d in drafts],)
            )}
            from_questions, number = db.execute(
                "SELECT count(*) FILTER (WHERE kind <> %s), coalesce(max(number), 0) FROM gap_issues",
                (SCOPE_FINDING,),
            ).fetchone()
            for draft in drafts:
                if draft.fingerprint in known:
                    outcomes.append("duplicate")
                elif from_questions >= cap:
                    outcomes.append("dropped")
                else:
                    inserted = db.execute(
                        "INSERT INTO gap_issues (fingerprint, number, kind, state, title, body, source, times_opened)"
                        " VALUES (%s, %s, %s, 'open', %s, %s, %s, 1) ON CONFLICT (fingerprint) DO NOTHING",
                        (draft.fingerprint, number + 1, kind, draft.title, draft.body, draft.source),
                    ).rowcount
                    known.add(draft.fingerprint)
                    if inserted:
                        number += 1
                        from_questions += 1
                        outcomes.append("added")
                    else:
                        outcomes.append("duplicate")
        return outcomes

    def issues(self, kind: str | None = None) -> list[Issue]:
        sql = "SELECT number, fingerprint, kind, state, title, body, source, times_opened, github_url FROM gap_issues"
        params: tuple = ()
        if kind is not None:
            sql, params = sql + " WHERE kind = %s", (kind,)
        return [Issue(**record) for record in self._select(sql + " ORDER BY number", params)]

    # -----------------------------------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()

    def __enter__(self) -> "PostgresStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
