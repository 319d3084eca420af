"""The GitHub sink against a local fake GitHub REST API on 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest
from click.testing import CliRunner

from fixtures.audit.exports import chunk, export, jsonl
from valid.audit import GitHubSink, IssueStore, find
from valid.audit.run import audit
from valid.cli import main
from valid.errors import ConfigError

ALL = ["v5p", "v6e", "tpu7x"]
TOKEN = "test-token"
REPO = "docs-team/cloud-tpu-docs"
TRAP = chunk("create-tpu-vm.dita#create-tpu-vm/steps", "Run --version=v2-alpha-tpuv6e.", ALL, line=41)
OTHER = chunk("about.dita#about/x", "Use v5p-8 for the examples.", ALL, line=12)
FIXED = chunk("create-tpu-vm.dita#create-tpu-vm/steps", "Run --version=${VERSION}.", ALL, line=41)


class FakeGitHub:
    """Just enough of the issues API: list (paginated, 2 per page), create, update; bearer auth."""

    PAGE = 2

    def __init__(self):
        self.issues: list[dict] = []
        self.requests: list[tuple[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self, status, body, headers=()):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method):
                fake.requests.append((method, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    return self._reply(401, {"message": "Bad credentials"})
                status, reply, headers = fake.route(method, urlparse(self.path), body)
                self._reply(status, reply, headers)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_PATCH(self):
                self._handle("PATCH")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def route(self, method, url, body):
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues(?:/(\d+))?", url.path)
        if not match or match[1] != REPO:
            return 404, {"message": "Not Found"}, ()
        if method == "GET" and match[2] is None:
            query = parse_qs(url.query)
            wanted = set(query.get("labels", [""])[0].split(",")) - {""}
            state = query.get("state", ["open"])[0]
            items = [
                i for i in self.issues
                if (state == "all" or i["state"] == state) and wanted <= {label["name"] for label in i["labels"]}
            ]  # fmt: skip
            page = int(query.get("page", ["1"])[0])
            chunk_ = items[(page - 1) * self.PAGE : page * self.PAGE]
            headers = []
            if page * self.PAGE < len(items):
                nxt = f"{self.url}{url.path}?state={state}&labels={','.join(sorted(wanted))}&page={page + 1}"
                headers.append(("Link", f'<{nxt}>; rel="next"'))
            return 200, chunk_, headers
        if method == "POST" and match[2] is None:
            number = len(self.issues) + 1
            issue = {
                "number": number,
                "title": body["title"],
                "body": body["body"],
                "state": "open",
                "labels": [{"name": name} for name in body.get("labels", [])],
                "html_url": f"https://github.example/{REPO}/issues/{number}",
            }
            self.issues.append(issue)
            return 201, issue, ()
        if method == "PATCH" and match[2] is not None:
            issue = next((i for i in self.issues if i["number"] == int(match[2])), None)
            if issue is None:
                return 404, {"message": "Not Found"}, ()
            issue.update({k: v for k, v in body.items() if k in ("title", "body", "state", "state_reason")})
            return 200, issue, ()
        return 405, {"message": "Method Not Allowed"}, ()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def writes(self):
        return [r for r in self.requests if r[0] != "GET"]


@pytest.fixture
def github():
    with FakeGitHub() as fake:
        # An unrelated issue and a pull request: the sink must leave both alone.
        fake.issues.append({"number": 1, "title": "Typo", "body": "", "state": "open", "labels": [], "html_url": ""})
        fake.issues.append(
            {"number": 2, "title": "PR", "body": "", "state": "open", "labels": [{"name": "valid"}],
             "pull_request": {"url": "x"}, "html_url": ""}
        )  # fmt: skip
        yield fake


def sink(fake):
    return GitHubSink(REPO, TOKEN, api_url=fake.url)


def test_github_sink_opens_one_issue_per_finding_with_labels_and_fingerprint(github, tmp_path):
    report = audit(export([TRAP, OTHER]), issues_dir=tmp_path, github=sink(github))
    assert (report.github.created, report.github.unchanged) == (2, 0)
    created = [i for i in github.issues if "pull_request" not in i and i["labels"]]
    assert [i["title"].split(" (")[0] for i in created] == ["Scope: v5p-8", "Scope: v2-alpha-tpuv6e"]
    assert all({"valid", "valid:scope-finding"} == {label["name"] for label in i["labels"]} for i in created)
    fingerprints = {f.fingerprint for f in find(export([TRAP, OTHER]))}
    assert {re.search(r"valid-fingerprint: (\w+)", i["body"])[1] for i in created} == fingerprints
    # The local store remembers the GitHub links, and the summary shows them.
    assert all(i.github_url.startswith("https://github.example/") for i in IssueStore(tmp_path).issues())


def test_github_rerun_never_duplicates_even_without_the_local_store(github, tmp_path):
    audit(export([TRAP, OTHER]), issues_dir=tmp_path / "one", github=sink(github))
    writes = len(github.writes())
    again = audit(export([TRAP, OTHER]), issues_dir=tmp_path / "one", github=sink(github))
    fresh = audit(export([TRAP, OTHER]), issues_dir=tmp_path / "lost", github=sink(github))
    storeless = audit(export([TRAP, OTHER]), github=sink(github))
    for report in (again, fresh, storeless):
        assert (report.github.created, report.github.unchanged) == (0, 2)
    assert len(github.writes()) == writes
    assert len(github.issues) == 4  # the two fixture issues and the two findings


def test_github_fixed_finding_closes_its_issue_and_a_return_reopens_it(github, tmp_path):
    audit(export([TRAP, OTHER]), issues_dir=tmp_path, github=sink(github))
    fixed = audit(export([FIXED, OTHER]), issues_dir=tmp_path, github=sink(github))
    assert (fixed.github.closed, fixed.github.unchanged) == (1, 1)
    trap_issue = next(i for i in github.issues if "v2-alpha-tpuv6e" in i["title"])
    assert (trap_issue["state"], trap_issue["state_reason"]) == ("closed", "completed")
    back = audit(export([TRAP, OTHER]), issues_dir=tmp_path, github=sink(github))
    assert (back.github.reopened, back.github.created) == (1, 0)
    assert trap_issue["state"] == "open"
    # Untouched: the unrelated issue and the pull request.
    assert github.issues[0]["state"] == github.issues[1]["state"] == "open"


def test_github_closes_a_fixed_finding_without_a_local_store(github):
    audit(export([TRAP, OTHER]), github=sink(github))
    report = audit(export([FIXED, OTHER]), github=sink(github))
    assert report.github.closed == 1


def test_github_listing_follows_pagination(github, tmp_path):
    many = [chunk(f"p{n}.dita#p{n}/x", "Use v5p-8.", ALL, line=n) for n in range(1, 6)]
    audit(export(many), github=sink(github))
    report = audit(export(many), github=sink(github))
    assert (report.github.created, report.github.unchanged) == (0, 5)
    assert sum(1 for method, path in github.requests if method == "GET" and "page=" in path) >= 2


def test_github_bad_token_is_a_one_line_config_error(github):
    with pytest.raises(ConfigError, match=r"GitHub refused the token .*HTTP 401: Bad credentials"):
        audit(export([TRAP]), github=GitHubSink(REPO, "wrong", api_url=github.url))


def test_github_unknown_repository_is_a_config_error(github):
    with pytest.raises(ConfigError, match="not found"):
        audit(export([TRAP]), github=GitHubSink("someone/else", TOKEN, api_url=github.url))


def test_cli_github_repo_without_token_is_a_one_line_config_error(tmp_path, monkeypatch):
    monkeypatch.delenv("VALID_GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    path = tmp_path / "chunks.jsonl"
    path.write_text(jsonl(export([TRAP])))
    result = CliRunner().invoke(main, ["audit", str(path), "--github-repo", REPO])
    assert result.exit_code == 2
    assert result.output.strip() == (
        "valid: error: --github-repo needs a token: set VALID_GITHUB_TOKEN (or GITHUB_TOKEN)"
    )


def test_cli_github_end_to_end_with_token_from_environment(github, tmp_path, monkeypatch):
    monkeypatch.delenv("VALID_GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    path = tmp_path / "chunks.jsonl"
    path.write_text(jsonl(export([TRAP])))
    args = ["audit", str(path), "--github-repo", REPO, "--github-url", github.url, "--issues", str(tmp_path / "i")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"github {REPO}: 1 created" in result.output
    assert "(https://github.example/" in (tmp_path / "i" / "ISSUES.md").read_text()
