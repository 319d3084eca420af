"""audit_scope: owned values, scope findings, gap issues (design §5.2, §5.4 tool 2).

    export = load_export("chunks.jsonl")
    table = owned_values(export)          # also what the answer checks use
    findings = find(export, table)        # shared text holding a value owned by one generation
    IssueStore("issues/").sync(findings)  # one gap issue per finding; fixed findings close theirs

The rules are written down in docs/audit.md.
"""

from valid.audit.findings import Finding, find, fingerprint
from valid.audit.github import GitHubError, GitHubSink, GitHubSyncResult
from valid.audit.issues import SCOPE_FINDING, Issue, IssueDraft, IssueStore, SyncResult, draft_from_finding
from valid.audit.load import load_export
from valid.audit.owned import Occurrence, Origin, OwnedRow, OwnedValueTable, owned_values

__all__ = [
    "SCOPE_FINDING",
    "Finding",
    "GitHubError",
    "GitHubSink",
    "GitHubSyncResult",
    "Issue",
    "IssueDraft",
    "IssueStore",
    "Occurrence",
    "Origin",
    "OwnedRow",
    "OwnedValueTable",
    "SyncResult",
    "draft_from_finding",
    "find",
    "fingerprint",
    "load_export",
    "owned_values",
]
