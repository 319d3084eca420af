"""The gap-issue store: work for the information architect, kept in a directory.

    DIR/issues.jsonl   one `Issue` per line, by number (the record)
    DIR/ISSUES.md      a Markdown summary generated from it (for people)

Issues are identified by a fingerprint chosen by whoever opens them, so reopening the same problem
never creates a second issue. The audit opens one issue per finding and `sync` closes the ones whose
finding is gone; the answer engine opens issues of its own kinds (a refusal: "nothing in scope
answers X for tpu7x") through the same `open_issue`, and `sync` for one kind never touches another.

The store holds no clock times, so the same sequence of calls writes byte-identical files. Writes
are atomic (temporary file, then rename) and serialised by a lock file, so the audit and the answer
service can share a store.
"""

from __future__ import annotations

import fcntl
import json
import os
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
    def _locked(self) -> Iterator[list[Issue]]:
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                issues = self._read()
                before = [i.model_dump() for i in issues]
                yield issues
                if [i.model_dump() for i in issues] != before or not self.record_path.exists():
                    self._write(issues)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _write(self, issues: list[Issue]) -> None:
        issues = sorted(issues, key=lambda i: i.number)
        record = "".join(json.dumps(i.model_dump(mode="json"), ensure_ascii=False) + "\n" for i in issues)
        _atomic_write(self.record_path, record)
        _atomic_write(self.summary_path, render_summary(issues))


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
            link = f"[{issue.title}]({issue.github_url})" if issue.github_url else issue.title
            lines.append(f"| {issue.number} | {issue.kind} | `{issue.source}` | {_cell(link)} |")
        lines.append("")
    if closed:
        lines += ["## Closed", ""]
        lines += [f"- #{i.number} ({i.kind}, `{i.source}`): {i.title}" for i in closed]
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _atomic_write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
