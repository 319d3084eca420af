"""The gap-issue store: work for the information architect, kept in a directory.

    DIR/issues.jsonl   one `Issue` per line, by number (the record)
    DIR/ISSUES.md      a Markdown summary generated from it (for people)

Issues are identified by a fingerprint chosen by whoever opens them, so reopening the same problem
never creates a second issue. The audit opens one issue per finding and `sync` closes the ones whose
finding is gone; the answer engine opens issues of its own kinds (a refusal: "nothing in scope
answers X for tpu7x") through the same `open_issue`, and `sync` for one kind never touches another.

Questions that find no content open issues through `append_issues` (`AppendingIssues` is the
answer engine's sink): append-only (one line added to the record, never a rewrite), deduplicated by
fingerprint (a question asked again adds nothing; a closed issue stays closed) and capped (past
`cap` issues opened from questions, new ones are dropped and counted). Readers type those titles, so
`ISSUES.md` escapes every title as text: no Markdown, link or HTML in a question survives into it.

The store holds no clock times, so the same sequence of calls writes byte-identical files. Writes
are atomic (temporary file and rename, or one appended line) and serialised by a lock file, so the
audit and the answer service can share a store.
"""

from __future__ import annotations

import fcntl
import html
import json
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError

from valid.audit.findings import Finding
from valid.errors import ConfigError

SCOPE_FINDING = "scope-finding"
RECORD = "issues.jsonl"
SUMMARY = "ISSUES.md"
FINGERPRINT_MARKER = "valid-fingerprint"
DEFAULT_QUESTION_ISSUE_CAP = 1000  # issues opened from questions, kept at most


class Issue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: int
    fingerprint: str
    kind: str
    state: Literal["open", "closed"]
    title: str
    body: str
    source: str  # where to look: "path:line" for a finding, a chunk or question for others
    times_opened: int = 1
    github_url: str | None = None


class IssueDraft(BaseModel):
    """What a caller wants open: the store decides whether that means new, reopened or unchanged."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fingerprint: str
    title: str
    body: str
    source: str


class SyncResult(NamedTuple):
    opened: list[Issue]  # new, or reopened because the problem came back
    closed: list[Issue]  # open before, not found any more
    unchanged: list[Issue]  # open before and still found (title, body, source refreshed)


def draft_from_finding(finding: Finding) -> IssueDraft:
    where = f"{finding.path}:{finding.line}" if finding.line else finding.path
    owners = ", ".join(finding.owners)
    title = f"Scope: {finding.value} (owned by {owners}) shown to {', '.join(finding.shown_to)} in {finding.chunk_id}"
    body = "\n".join(
        [
            f"`{finding.chunk_id}` ({where}) is in scope for {', '.join(finding.shown_to)}, "
            f"but its text contains `{finding.value}`, which the doc set ties to {owners} only "
            f"(rule `{finding.rule}`{f', key `{finding.key}`' if finding.key else ''}).",
            "",
            f"> {finding.excerpt}",
            "",
            *([f"Why: {finding.why}.", ""] if finding.why else []),
            f"Fix: profile the element for {owners} (for example `platform=\"{finding.owners[0]}\"`), "
            "replace the value with a keyref to a profiled key, or name the generation next to the value "
            "if every reader should see it.",
            "",
            f"<!-- {FINGERPRINT_MARKER}: {finding.fingerprint} -->",
        ]
    )
    return IssueDraft(fingerprint=finding.fingerprint, title=title, body=body, source=where)


class IssueStore:
    """A directory of issues. Every public method reads and writes under the lock."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)

    # -- reading -------------------------------------------------------------------------------
    def issues(self, kind: str | None = None) -> list[Issue]:
        return [i for i in self._read() if kind is None or i.kind == kind]

    def get(self, fingerprint: str) -> Issue | None:
        return next((i for i in self._read() if i.fingerprint == fingerprint), None)

    # -- writing -------------------------------------------------------------------------------
    def open_issue(self, kind: str, fingerprint: str, title: str, body: str, source: str) -> Issue:
        """Open (or reopen) the issue with this fingerprint; an open one is returned as it is,
        with title, body and source refreshed."""
        with self._locked() as issues:
            issue, _ = _open(issues, kind, IssueDraft(fingerprint=fingerprint, title=title, body=body, source=source))
            return issue.model_copy()

    def close_issue(self, fingerprint: str) -> Issue | None:
        with self._locked() as issues:
            for issue in issues:
                if issue.fingerprint == fingerprint:
                    issue.state = "closed"
                    return issue.model_copy()
        return None

    def sync(self, findings: Iterable[Finding]) -> SyncResult:
        """Make the open scope-finding issues exactly the given findings."""
        return self.sync_drafts(SCOPE_FINDING, [draft_from_finding(f) for f in findings])

    def sync_drafts(self, kind: str, drafts: Iterable[IssueDraft]) -> SyncResult:
        """Make the open issues of one kind exactly `drafts`; other kinds are left alone."""
        drafts = list(drafts)
        wanted = {d.fingerprint for d in drafts}
        opened: list[Issue] = []
        unchanged: list[Issue] = []
        closed: list[Issue] = []
        with self._locked() as issues:
            for draft in drafts:
                issue, was_open = _open(issues, kind, draft)
                (unchanged if was_open else opened).append(issue.model_copy())
            for issue in issues:
                if issue.kind == kind and issue.state == "open" and issue.fingerprint not in wanted:
                    issue.state = "closed"
                    closed.append(issue.model_copy())
        return SyncResult(opened, closed, unchanged)

    def set_github_url(self, fingerprint: str, url: str) -> None:
        with self._locked() as issues:
            for issue in issues:
                if issue.fingerprint == fingerprint:
                    issue.github_url = url

    # -- files ---------------------------------------------------------------------------------
    @property
    def where(self) -> str:
        return str(self.directory)

    @property
    def record_path(self) -> Path:
        return self.directory / RECORD

    @property
    def summary_path(self) -> Path:
        return self.directory / SUMMARY

    def _read(self) -> list[Issue]:
        try:
            text = self.record_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        issues = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                issues.append(Issue.model_validate_json(line))
            except ValidationError as err:
                message = err.errors()[0]["msg"]
                raise ConfigError(f"{self.record_path}:{number}: not an issue record: {message}") from None
        return issues

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the store's lock (an exclusive flock on its .lock file) while the block runs."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    @contextmanager
    def _locked(self) -> Iterator[list[Issue]]:
        with self.lock():
            issues = self._read()
            before = [i.model_dump() for i in issues]
            yield issues
            if [i.model_dump() for i in issues] != before or not self.record_path.exists():
                self._write(issues)

    def append_issues(self, kind: str, drafts: Iterable[IssueDraft], cap: int = DEFAULT_QUESTION_ISSUE_CAP) -> list[str]:
        """Append new issues of `kind` opened from questions: one outcome per draft, "added",
        "duplicate" (its fingerprint is known, open or closed) or "dropped" (the cap is reached).

        The record only grows by whole appended lines; the summary is regenerated once per call."""
        outcomes: list[str] = []
        with self.lock():
            issues = self._read()
            known = {i.fingerprint for i in issues}
            from_questions = sum(1 for i in issues if i.kind != SCOPE_FINDING)
            number = max((i.number for i in issues), default=0)
            added: list[Issue] = []
            for draft in drafts:
                if draft.fingerprint in known:
                    outcomes.append("duplicate")
                elif from_questions >= cap:
                    outcomes.append("dropped")
                else:
                    number += 1
                    added.append(
                        Issue(number=number, fingerprint=draft.fingerprint, kind=kind, state="open",
                              title=draft.title, body=draft.body, source=draft.source)
                    )
                    known.add(draft.fingerprint)
                    from_questions += 1
                    outcomes.append("added")
            if added:
                _append(self.record_path, "".join(_record_line(i) for i in added))
                _atomic_write(self.summary_path, render_summary(issues + added))
        return outcomes

    def _write(self, issues: list[Issue]) -> None:
        issues = sorted(issues, key=lambda i: i.number)
        record = "".join(_record_line(i) for i in issues)
        _atomic_write(self.record_path, record)
        _atomic_write(self.summary_path, render_summary(issues))


class AppendingIssues:
    """The answer engine's sink (`open_issue`) over `IssueStore.append_issues`, in the caller's thread.

    The service writes through `valid.serve.gaps.GapIssueWriter` instead, off the request's path."""

    def __init__(self, store: IssueStore, cap: int = DEFAULT_QUESTION_ISSUE_CAP):
        self.store = store
        self.cap = cap

    def open_issue(self, kind: str, fingerprint: str, title: str, body: str, source: str) -> IssueDraft:
        draft = IssueDraft(fingerprint=fingerprint, title=title, body=body, source=source)
        self.store.append_issues(kind, [draft], self.cap)
        return draft


def _record_line(issue: Issue) -> str:
    return json.dumps(issue.model_dump(mode="json"), ensure_ascii=False) + "\n"


def _append(path: Path, text: str) -> None:
    """Append whole lines with one write (O_APPEND): a reader never sees half a line unless it crashed."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def _open(issues: list[Issue], kind: str, draft: IssueDraft) -> tuple[Issue, bool]:
    """Open draft in the list in place; returns the issue and whether it was open already."""
    for issue in issues:
        if issue.fingerprint == draft.fingerprint:
            was_open = issue.state == "open"
            if not was_open:
                issue.times_opened += 1
            issue.state = "open"
            issue.kind = kind
            issue.title, issue.body, issue.source = draft.title, draft.body, draft.source
            return issue, was_open
    issue = Issue(
        number=max((i.number for i in issues), default=0) + 1,
        fingerprint=draft.fingerprint,
        kind=kind,
        state="open",
        title=draft.title,
        body=draft.body,
        source=draft.source,
    )
    issues.append(issue)
    return issue, False


def render_summary(issues: list[Issue]) -> str:
    """The Markdown summary: open issues first (a table), then the closed ones (a list)."""
    open_issues = [i for i in issues if i.state == "open"]
    closed = [i for i in issues if i.state == "closed"]
    lines = [
        "# Gap issues",
        "",
        f"{len(open_issues)} open, {len(closed)} closed. Generated by `valid audit --issues`; "
        f"the record is `{RECORD}`.",
        "",
    ]
    if open_issues:
        lines += ["## Open", "", "| # | kind | where | issue |", "|---|---|---|---|"]
        for issue in open_issues:
            title = _text(issue.title)
            link = f"[{title}]({_url(issue.github_url)})" if issue.github_url else title
            lines.append(f"| {issue.number} | {_text(issue.kind)} | `{_code(issue.source)}` | {link} |")
        lines.append("")
    if closed:
        lines += ["## Closed", ""]
        lines += [f"- #{i.number} ({_text(i.kind)}, `{_code(i.source)}`): {_text(i.title)}" for i in closed]
        lines.append("")
    return "\n".join(lines)


# Markdown's inline punctuation; '.' and ':' too, so a typed address never becomes an autolink.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()!|~<>.:])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_MAX_TEXT = 300


def _text(text: str) -> str:
    """Plain text for one line of Markdown (a table cell or a list item): what a reader typed shows as
    typed and never becomes a link, an image, emphasis, a heading or HTML."""
    text = " ".join(_CONTROL.sub(" ", text).split())
    if len(text) > _MAX_TEXT:
        text = text[: _MAX_TEXT - 1] + "…"
    return html.escape(_MARKDOWN.sub(r"\\\1", text), quote=False).replace("\\&lt;", "&lt;").replace("\\&gt;", "&gt;")


def _code(text: str) -> str:
    """Text inside a code span: backticks and line breaks would end it."""
    return " ".join(_CONTROL.sub(" ", text).replace("`", "'").split())[:_MAX_TEXT]


def _url(url: str) -> str:
    return url if re.fullmatch(r"https?://[^\s<>()]+", url) else ""


def _atomic_write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
