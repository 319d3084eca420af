"""The question store seam: what the service, `valid ask` and `valid log` need from the store of
questions, conversations, feedback and gap issues, and which store a command opens.

Two stores implement it:

- SQLite (`QuestionLog` in valid.questionlog.sqlite, the embedded default): `<state>/questions.sqlite`, with
  gap issues in the directory store of `valid.audit.issues` (`<state>/issues`).
- PostgreSQL (`valid.questionlog.postgres`), selected by `--log-url postgresql://…` or `log_url` in
  valid.toml: one database that several `valid serve` processes share, gap issues included.

Callers depend on the protocols below only, never on a store's class.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterable, Protocol

from valid.audit.issues import DEFAULT_QUESTION_ISSUE_CAP, Issue, IssueDraft, IssueStore
from valid.errors import ConfigError
from valid.questionlog.sqlite import QuestionLog

URL_SCHEMES = ("postgresql://", "postgres://")


class QuestionStore(Protocol):
    """Questions, conversations and feedback (see `QuestionLog` for what each method means)."""

    where: str  # for messages: a path, or a URL without its password
    in_memory: bool  # forgotten when closed (the store behind --no-log)

    def log_question(self, row: dict[str, Any]) -> int: ...
    def rows(self) -> list[dict[str, Any]]: ...
    def conversation(self, conversation_id: str) -> dict[str, Any] | None: ...
    def start_conversation(self, conversation_id: str) -> None: ...
    def turns(self, conversation_id: str) -> list[dict[str, Any]]: ...
    def add_turn(self, turn: dict[str, Any]) -> int: ...
    def forget_conversations(self, before: str) -> int: ...
    def answer(self, answer_id: str) -> dict[str, Any] | None: ...
    def record_feedback(self, answer_id: str, rating: str, reasons: list[str], comment: str | None) -> str: ...
    def feedback(self, answer_id: str) -> dict[str, Any] | None: ...
    def entries(self, since: str | None = None, until: str | None = None) -> list[dict[str, Any]]: ...
    def close(self) -> None: ...


class GapIssueStore(Protocol):
    """Where gap issues opened from questions go: append-only, deduplicated by fingerprint, capped."""

    where: str

    def append_issues(self, kind: str, drafts: Iterable[IssueDraft], cap: int = DEFAULT_QUESTION_ISSUE_CAP) -> list[str]: ...
    def issues(self, kind: str | None = None) -> list[Issue]: ...


def is_url(value: str | None) -> bool:
    return bool(value) and value.startswith(URL_SCHEMES)


def check_url(value: str | None) -> str | None:
    """`value` when it is empty or a PostgreSQL URL; anything else is a one-line error."""
    if value and not is_url(value):
        raise ConfigError(f"--log-url {value!r}: not a PostgreSQL URL (postgresql://user@host:port/database)")
    return value or None


def open_question_store(log_url: str | None, path: Path, timeout_s: float = 5.0) -> QuestionStore:
    """The PostgreSQL store at `log_url` when given (each call bounded by `timeout_s`), else the
    SQLite log at `path`; a store that cannot be opened is a one-line ValidError."""
    if check_url(log_url):
        from valid.questionlog.postgres import PostgresStore

        return PostgresStore(log_url, timeout_s)
    return open_question_log(path)


def open_serving_store(log_url: str | None, path: Path, spool: Path, timeout_s: float) -> QuestionStore:
    """What a server writes to: the PostgreSQL store behind a local spool at `spool`, so an outage
    of the database never stops an answer (valid.questionlog.spooled); else the SQLite log at `path`."""
    if check_url(log_url):
        from valid.questionlog.postgres import PostgresStore
        from valid.questionlog.spool import Spool
        from valid.questionlog.spooled import SpooledStore

        return SpooledStore(PostgresStore(log_url, timeout_s), Spool(spool))
    return open_question_log(path)


def open_question_log(path: Path) -> QuestionLog:
    """The SQLite question log, or a one-line error when its file is not a usable SQLite database."""
    try:
        return QuestionLog(path)
    except sqlite3.Error as err:
        raise ConfigError(f"{path}: the question log cannot be opened ({err}); move it aside or pass --no-log") from None


def open_gap_issues(log_url: str | None, directory: Path, timeout_s: float = 5.0) -> GapIssueStore:
    """Gap issues beside the questions: in PostgreSQL with a URL, else the directory store."""
    if check_url(log_url):
        from valid.questionlog.postgres import PostgresStore

        return PostgresStore(log_url, timeout_s)
    return IssueStore(directory)
