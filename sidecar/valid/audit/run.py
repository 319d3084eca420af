"""One audit run, as `valid audit` and `valid index` perform it: find, then record.

Pure finding happens in `find`; this module adds the edges (the issue store, GitHub) and the
policy: warn by default, fail on any open finding when strict.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from valid.audit.findings import Finding, find
from valid.audit.github import GitHubSink
from valid.audit.issues import SCOPE_FINDING, Issue, IssueStore, draft_from_finding
from valid.audit.owned import OwnedValueTable, owned_values
from valid.contracts import Export


class IssueCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    opened: list[int]
    closed: list[int]
    unchanged: list[int]
    summary: str | None = None  # the Markdown summary's path


class GitHubCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    repo: str
    created: int
    closed: int
    reopened: int
    updated: int
    unchanged: int


class AuditReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    findings: list[Finding]
    owned_values: int
    issues: IssueCounts | None = None
    github: GitHubCounts | None = None
    strict: bool = False

    @property
    def failed(self) -> bool:
        """Strict mode fails on any open finding; the default policy only warns."""
        return self.strict and bool(self.findings)


def audit(
    export: Export,
    *,
    issues_dir: str | Path | None = None,
    github: GitHubSink | None = None,
    strict: bool = False,
    table: OwnedValueTable | None = None,
) -> AuditReport:
    table = table if table is not None else owned_values(export)
    findings = find(export, table)
    report = AuditReport(findings=findings, owned_values=len(table), strict=strict)
    store = IssueStore(issues_dir) if issues_dir is not None else None
    if store is not None:
        opened, closed, unchanged = store.sync(findings)
        report.issues = IssueCounts(
            opened=[i.number for i in opened],
            closed=[i.number for i in closed],
            unchanged=[i.number for i in unchanged],
            summary=str(store.summary_path),
        )
    if github is not None:
        if store is not None:
            wanted = store.issues(kind=SCOPE_FINDING)
        else:
            # Without a local store, GitHub alone remembers: the current findings are the open issues.
            wanted = [
                Issue(number=n, kind=SCOPE_FINDING, state="open", **draft_from_finding(f).model_dump())
                for n, f in enumerate(findings, start=1)
            ]
        result = github.sync(wanted, kinds={SCOPE_FINDING})
        if store is not None:
            for fingerprint, url in sorted(result.urls.items()):
                store.set_github_url(fingerprint, url)
        report.github = GitHubCounts(
            repo=github.repo,
            created=len(result.created),
            closed=len(result.closed),
            reopened=len(result.reopened),
            updated=len(result.updated),
            unchanged=len(result.unchanged),
        )
    return report
