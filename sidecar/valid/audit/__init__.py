"""audit_scope: owned values, scope findings, gap issues.

    export = load_export("chunks.jsonl")
    table = owned_values(export)          # also what the answer checks use
    findings = find(export, table)        # shared text holding a value owned by one generation
    IssueStore("issues/").sync(findings)  # one gap issue per finding; fixed findings close theirs

The rules are written down in docs/audit.md.
"""

from valid.lazy import lazy_attributes

# name -> submodule. Imported on first use, so that what needs one part of the audit (the answer
# engine opens the gap-issue store) does not load the GitHub client (httpx) with it.
_EXPORTS = {
    "Finding": "findings",
    "find": "findings",
    "fingerprint": "findings",
    "GitHubError": "github",
    "GitHubSink": "github",
    "GitHubSyncResult": "github",
    "SCOPE_FINDING": "issues",
    "Issue": "issues",
    "IssueDraft": "issues",
    "IssueStore": "issues",
    "SyncResult": "issues",
    "draft_from_finding": "issues",
    "load_export": "load",
    "Occurrence": "owned",
    "Origin": "owned",
    "OwnedRow": "owned",
    "OwnedValueTable": "owned",
    "owned_values": "owned",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_attributes(__name__, _EXPORTS)
