"""The GitHub sink: mirror gap issues to a repository's issues over the REST API.

GitHub is matched by fingerprint, not by a remembered issue number: every body VALID writes ends
with `<!-- valid-fingerprint: HEX -->`, and the sink lists the repository's issues labelled `valid`
(open and closed) before it changes anything. So a rerun, a lost local store or a second machine
never opens a duplicate; a fixed finding closes its issue; a finding that comes back reopens it.

    sink = GitHubSink("owner/name", token=os.environ["VALID_GITHUB_TOKEN"])
    result = sink.sync(store.issues(kind="scope-finding"), kinds={"scope-finding"})

The token comes from the caller (the CLI reads VALID_GITHUB_TOKEN, then GITHUB_TOKEN); the base URL
is configurable so tests run against a local fake server.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import httpx

from valid.audit.issues import FINGERPRINT_MARKER, Issue
from valid.errors import ConfigError, ValidError

DEFAULT_API_URL = "https://api.github.com"
LABEL = "valid"
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_MARKER = re.compile(rf"<!--\s*{FINGERPRINT_MARKER}:\s*([0-9a-f]{{64}})\s*-->")
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


class GitHubError(ValidError):
    """GitHub refused or could not be reached; the message says which and what to do."""


@dataclass
class GitHubSyncResult:
    created: list[str] = field(default_factory=list)  # fingerprints
    closed: list[str] = field(default_factory=list)
    reopened: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)  # title or body refreshed
    unchanged: list[str] = field(default_factory=list)
    urls: dict[str, str] = field(default_factory=dict)  # fingerprint -> html_url


class GitHubSink:
    def __init__(
        self,
        repo: str,
        token: str,
        api_url: str = DEFAULT_API_URL,
        transport: httpx.BaseTransport | None = None,
        timeout: float = 30.0,
    ):
        if not _REPO.match(repo):
            raise ConfigError(f"--github-repo must be OWNER/NAME, got {repo!r}")
        if not token:
            raise ConfigError("the GitHub sink needs a token: set VALID_GITHUB_TOKEN (or GITHUB_TOKEN)")
        self.repo = repo
        self.api_url = api_url.rstrip("/")
        self._client = httpx.Client(
            base_url=self.api_url,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "valid-audit",
            },
            timeout=timeout,
            transport=transport,
            follow_redirects=False,
            trust_env=False,  # no proxy settings from the environment: talk to api_url only
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> GitHubSink:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the sync ------------------------------------------------------------------------------
    def sync(self, issues: Iterable[Issue], kinds: Iterable[str]) -> GitHubSyncResult:
        """Make GitHub agree with `issues` (open and closed). An open GitHub issue of one of
        `kinds` whose fingerprint is not among `issues` is closed: its problem is gone."""
        issues = list(issues)
        kinds = set(kinds)
        remote = self._remote_issues()
        result = GitHubSyncResult()
        local = {i.fingerprint for i in issues}
        for issue in sorted(issues, key=lambda i: i.number):
            found = remote.get(issue.fingerprint)
            if found is None:
                if issue.state == "open":
                    created = self._request("POST", f"/repos/{self.repo}/issues", json={
                        "title": issue.title, "body": issue.body, "labels": [LABEL, f"{LABEL}:{issue.kind}"],
                    })  # fmt: skip
                    result.created.append(issue.fingerprint)
                    result.urls[issue.fingerprint] = created.get("html_url", "")
                continue
            result.urls[issue.fingerprint] = found.get("html_url", "")
            changes: dict = {}
            if found.get("state") != issue.state:
                changes["state"] = issue.state
                if issue.state == "closed":
                    changes["state_reason"] = "completed"
            if issue.state == "open" and (found.get("title") != issue.title or (found.get("body") or "") != issue.body):
                changes.update(title=issue.title, body=issue.body)
            if not changes:
                result.unchanged.append(issue.fingerprint)
                continue
            self._request("PATCH", f"/repos/{self.repo}/issues/{found['number']}", json=changes)
            if changes.get("state") == "closed":
                result.closed.append(issue.fingerprint)
            elif changes.get("state") == "open":
                result.reopened.append(issue.fingerprint)
            else:
                result.updated.append(issue.fingerprint)
        for fingerprint, found in sorted(remote.items()):
            if fingerprint in local or found.get("state") != "open":
                continue
            labels = {label.get("name") if isinstance(label, dict) else label for label in found.get("labels", [])}
            if not any(f"{LABEL}:{kind}" in labels for kind in kinds):
                continue
            self._request(
                "PATCH",
                f"/repos/{self.repo}/issues/{found['number']}",
                json={"state": "closed", "state_reason": "completed"},
            )
            result.closed.append(fingerprint)
        return result

    # -- HTTP ----------------------------------------------------------------------------------
    def _remote_issues(self) -> dict[str, dict]:
        """VALID's issues in the repository, open and closed, by fingerprint (lowest number wins)."""
        found: dict[str, dict] = {}
        url: str | None = f"/repos/{self.repo}/issues"
        params: dict | None = {"state": "all", "labels": LABEL, "per_page": 100}
        pages = 0
        while url:
            pages += 1
            if pages > 1000:
                raise GitHubError(f"GitHub {self.repo}: more than 1000 pages of issues; giving up")
            response = self._send("GET", url, params=params)
            for item in response.json():
                if "pull_request" in item:
                    continue
                match = _MARKER.search(item.get("body") or "")
                if match and (match[1] not in found or item["number"] < found[match[1]]["number"]):
                    found[match[1]] = item
            next_link = _NEXT.search(response.headers.get("link", ""))
            url, params = (next_link[1], None) if next_link else (None, None)
            if url and not url.startswith(self.api_url):
                raise GitHubError(f"GitHub {self.repo}: pagination left {self.api_url} ({url}); refusing to follow")
        return found

    def _request(self, method: str, url: str, **kwargs) -> dict:
        return self._send(method, url, **kwargs).json()

    def _send(self, method: str, url: str, **kwargs) -> httpx.Response:
        try:
            response = self._client.request(method, url, **kwargs)
        except httpx.HTTPError as err:
            raise GitHubError(f"cannot reach GitHub at {self.api_url}: {err}") from None
        if response.status_code in (401, 403) and "rate limit" not in response.text.lower():
            raise ConfigError(
                f"GitHub refused the token for {self.repo} (HTTP {response.status_code}: {_message(response)}); "
                "check VALID_GITHUB_TOKEN: it needs issues read and write"
            )
        if response.status_code == 404:
            raise ConfigError(f"GitHub repository {self.repo} not found at {self.api_url} (or the token cannot see it)")
        if response.status_code >= 400:
            raise GitHubError(f"GitHub {method} {url} failed: HTTP {response.status_code}: {_message(response)}")
        return response


def _message(response: httpx.Response) -> str:
    try:
        return str(response.json().get("message", ""))[:200]
    except ValueError:
        return response.text[:200].replace("\n", " ")
