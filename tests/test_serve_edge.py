"""The service's edge over real HTTP on 127.0.0.1: header limits (431), read timeouts (408), the
server's own errors in the one JSON shape, HEAD, trusted proxies for the rate limit, admin routes
behind a token, the provider bounded by the request's deadline, gap issues off the request's path
(append-only, deduplicated, capped, escaped) and `--no-log` keeping the question out of every store.

Error bodies are validated against the published docs/openapi.json. The edge, the gap issues and
`--no-log` are tested against each question store (SQLite and PostgreSQL).
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fakes.gemini import FakeGemini

from fixtures.openapi import validate
from fixtures.question_stores import question_store  # noqa: F401 (a fixture)
from valid.index import Store
from valid.serve import Limits, ServeConfig, create_app
from valid.serve.library import EngineSettings, LibraryReleases
from valid.serve.live import LiveServer, wait_ready

PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"



@contextmanager
def serving(state: Path, *, settings: EngineSettings | None = None, limits: dict | None = None, **config):
    source = LibraryReleases(Store(state), settings or EngineSettings())
    app = create_app(
        source,
        ServeConfig(limits=Limits(**{"rate_per_s": 0, **(limits or {})}), release_check_interval_s=0, **config),
    )
    with LiveServer(app) as server:
        wait_ready(server.url)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            yield client, source, server


def private_copy(state: Path, to: Path) -> Path:
    """A copy of an indexed state without the question log and gap issues other tests left in it."""
    shutil.copytree(state, to, ignore=shutil.ignore_patterns("issues", "questions.sqlite*"))
    return to


@pytest.fixture
def state(sample_build, tmp_path) -> Path:
    """A private copy of the indexed sample (these tests write question logs and gap issues)."""
    return private_copy(sample_build.state, tmp_path / "state")


@pytest.fixture(scope="module")
def edge(sample_build, tmp_path_factory, question_store):
    """One service with short read timeouts, for the connection-level tests."""
    state = private_copy(sample_build.state, tmp_path_factory.mktemp("edge") / "state")
    with serving(state, settings=question_store.settings(state), limits={"header_timeout_s": 0.5, "body_timeout_s": 0.5, "max_header_bytes": 4096,
                                "max_headers": 20}) as (client, _source, server):
        yield client, server


# -- raw HTTP ---------------------------------------------------------------------------------------


def connect(server: LiveServer) -> socket.socket:
    return socket.create_connection((server.host, server.port), timeout=10)


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One response read until the server closes the connection (every edge error closes it)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def assert_edge_error(status: int, headers: dict, body: bytes, want_status: int, want_code: str) -> dict:
    assert status == want_status, body
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    assert headers["x-content-type-options"] == "nosniff"
    error = json.loads(body)
    validate(error, "ErrorBody")
    assert error["error"]["code"] == want_code
    assert error["error"]["request_id"] == headers["x-request-id"]
    return error["error"]


def send(server: LiveServer, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    with connect(server) as sock:
        sock.sendall(raw)
        return read_response(sock)


# -- 431 ------------------------------------------------------------------------------------------


def test_headers_over_the_size_limit_get_431_before_they_are_read_whole(edge):
    _client, server = edge
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 8192)
        # The head is not finished, yet the answer comes: the limit holds on the bytes as they arrive.
        status, headers, body = read_response(sock)
    error = assert_edge_error(status, headers, body, 431, "headers_too_large")
    assert "4096 bytes" in error["message"]


def test_a_32_mb_header_is_refused_not_held(edge):
    _client, server = edge
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ")
        sent = 0
        try:
            while sent < 32 * 1024 * 1024:
                sock.sendall(b"b" * 65536)
                sent += 65536
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed long before 32 MB
        assert sent < 32 * 1024 * 1024
        status, headers, body = read_response(sock)
    assert_edge_error(status, headers, body, 431, "headers_too_large")


def test_too_many_headers_get_431(edge):
    _client, server = edge
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(25))
    status, headers, body = send(server, b"GET /healthz HTTP/1.1\r\nHost: t\r\n" + many + b"\r\n")
    error = assert_edge_error(status, headers, body, 431, "headers_too_large")
    assert "20 headers" in error["message"]


def test_headers_within_the_limits_are_served(edge):
    client, _server = edge
    response = client.get("/healthz", headers={f"x-h{i}": "v" * 100 for i in range(15)})
    assert response.status_code == 200


# -- 408 and the server's own errors --------------------------------------------------------------


def test_headers_that_do_not_arrive_in_time_get_408(edge):
    _client, server = edge
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n")  # and then nothing: a slow-header client
        started = time.monotonic()
        status, headers, body = read_response(sock)
    assert time.monotonic() - started < 5
    assert_edge_error(status, headers, body, 408, "request_timeout")


def test_a_body_that_does_not_arrive_in_time_gets_408(edge):
    _client, server = edge
    with connect(server) as sock:
        sock.sendall(b"POST /v1/ask HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 200\r\n\r\n{\"question\": ")  # 188 bytes never follow
        started = time.monotonic()
        status, headers, body = read_response(sock)
    assert time.monotonic() - started < 5
    error = assert_edge_error(status, headers, body, 408, "request_timeout")
    assert "body" in error["message"]


def test_a_body_trickling_in_slower_than_the_timeout_gets_408(edge):
    _client, server = edge
    with connect(server) as sock:
        sock.sendall(b"POST /v1/ask HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
        answered = None
        for _ in range(20):  # one byte every 0.1 s: each arrives in time, the whole body does not
            try:
                sock.sendall(b" ")
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.1)
        answered = read_response(sock)
    assert_edge_error(*answered, 408, "request_timeout")


def test_an_idle_connection_is_closed_without_an_answer(edge):
    _client, server = edge
    with connect(server) as sock:
        started = time.monotonic()
        assert sock.recv(100) == b""
    assert time.monotonic() - started < 5


def test_a_request_the_server_cannot_parse_gets_the_json_error_shape(edge):
    _client, server = edge
    status, headers, body = send(server, b"GET /healthz HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n")
    assert_edge_error(status, headers, body, 400, "bad_request")


def test_keep_alive_requests_after_a_slow_one_still_work(edge):
    client, _server = edge
    for _ in range(3):
        assert client.get("/healthz").status_code == 200
        time.sleep(0.2)


# -- HEAD -----------------------------------------------------------------------------------------


def test_head_is_answered_wherever_get_is(edge):
    client, _server = edge
    for path in ("/healthz", "/", "/v1/releases/active", "/static/app.js", "/metrics"):
        get = client.get(path)
        head = client.head(path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b""
        assert head.headers["content-type"] == get.headers["content-type"]
    response = client.head("/v1/nothing")
    assert response.status_code == 404 and response.content == b""


# -- trusted proxies ------------------------------------------------------------------------------


def ask_as(client: httpx.Client, forwarded_for: str | None) -> int:
    headers = {"x-forwarded-for": forwarded_for} if forwarded_for else {}
    return client.post("/v1/ask", json={"question": "hi", "generation": "nope"}, headers=headers).status_code


def test_behind_a_trusted_proxy_each_reader_has_their_own_rate_limit(state, question_store):
    limits = {"rate_per_s": 0.01, "rate_burst": 1}
    settings = question_store.settings(state)
    with serving(state, settings=settings, limits=limits, forwarded_allow_ips=("127.0.0.1",)) as (client, _, _):
        assert ask_as(client, "203.0.113.7") == 422  # allowed through (then refused: unknown generation)
        assert ask_as(client, "203.0.113.7") == 429
        assert ask_as(client, "203.0.113.8") == 422, "another reader behind the same proxy has their own bucket"
        # A reader cannot pick a new key by sending X-Forwarded-For itself: the proxy appends the
        # address it saw, and the rightmost address that is not a trusted proxy is the client.
        assert ask_as(client, "198.51.100.1, 203.0.113.7") == 429


def test_without_trusted_proxies_forwarded_for_is_ignored(state):
    with serving(state, limits={"rate_per_s": 0.01, "rate_burst": 1}) as (client, _, _):
        assert ask_as(client, "203.0.113.7") == 422
        response = client.post("/v1/ask", json={"question": "hi"}, headers={"x-forwarded-for": "203.0.113.9"})
        assert response.status_code == 429, "the peer is the client: a header cannot buy a new bucket"
        validate(response.json(), "ErrorBody")


# -- admin routes ---------------------------------------------------------------------------------


def test_admin_routes_need_the_token_when_one_is_set(state):
    with serving(state, admin_token="s3cret") as (client, _, _):
        for method, path in (("GET", "/metrics"), ("POST", "/v1/admin/reload")):
            response = client.request(method, path)
            assert response.status_code == 401, path
            validate(response.json(), "ErrorBody")
            assert client.request(method, path, headers={"authorization": "Bearer wrong"}).status_code == 401
            assert client.request(method, path, headers={"authorization": "Bearer s3cret"}).status_code == 200
        assert client.get("/healthz").status_code == 200, "probes need no token"


def test_beyond_loopback_without_a_token_admin_routes_are_closed(state):
    with serving(state, admin_open=False) as (client, _, _):
        response = client.get("/metrics")
        assert response.status_code == 403
        assert "--admin-token" in response.json()["error"]["message"]
        assert client.post("/v1/admin/reload").status_code == 403
        assert client.get("/healthz").status_code == 200


def test_reload_reports_the_release_being_served(state, sample_build):
    with serving(state) as (client, _, _):
        body = client.post("/v1/admin/reload").json()
        validate(body, "ReloadResult")
        assert body == {"changed": False, "release": sample_build.release_id, "error": None}


# -- the provider inside the request's deadline ----------------------------------------------------


@pytest.fixture
def gemini(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with FakeGemini() as fake:
        yield fake


def metric(text: str, name: str) -> float:
    return next(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name + " "))


def test_a_provider_that_hangs_is_abandoned_at_the_request_deadline(state, gemini):
    release = threading.Event()
    gemini.generate = lambda body: (release.wait(60), gemini.text_response("{}"))[1]
    settings = EngineSettings(generator="gemini", gemini_base_url=gemini.base_url)
    limits = {"request_timeout_s": 1.5, "max_inflight": 1, "max_queue": 0}
    try:
        with serving(state, settings=settings, limits=limits) as (client, _, _):
            started = time.monotonic()
            response = client.post("/v1/ask", json={"question": PRIYA})
            assert response.status_code == 504
            # The model call had only what was left of the 1.5 s: the answer slot frees right after,
            # not after the provider's own 60 s timeout.
            while metric(client.get("/metrics").text, "valid_inflight") > 0:
                assert time.monotonic() - started < 5, "the provider call outlived the request's deadline"
                time.sleep(0.05)
    finally:
        release.set()


def test_provider_retries_stop_at_the_request_deadline(state, gemini):
    gemini.generate = lambda body: (503, {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}})
    settings = EngineSettings(generator="gemini", gemini_base_url=gemini.base_url)
    with serving(state, settings=settings, limits={"request_timeout_s": 2.5}) as (client, _, _):
        started = time.monotonic()
        response = client.post("/v1/ask", json={"question": PRIYA})
        took = time.monotonic() - started
    assert response.status_code == 200, response.text  # an answer object, not a 504
    body = response.json()
    validate(body, "AnswerObject")
    assert body["outcome"] == "refuse"
    assert took < 2.5
    # Backoff 1 s, then 2 s: the second pause would outlast the deadline, so at most two calls were made.
    assert 1 <= len([r for r in gemini.requests if r.method == "generateContent"]) <= 2


# -- gap issues -------------------------------------------------------------------------------------


def gap_question(n: int, extra: str = "") -> str:
    """A question nothing in the sample answers: refused, with a gap issue titled by the question."""
    return f"How do I bake sourdough bread with rye flour at home {n}?{extra}"


def test_gap_issues_are_appended_off_the_request_path_deduplicated_and_capped(state, question_store):
    settings = question_store.settings(state, max_gap_issues=2)
    with serving(state, settings=settings) as (client, source, _):
        with question_store.holding_gap_issues(settings):  # someone holds the store (an audit writing it)
            started = time.monotonic()
            first = client.post("/v1/ask", json={"question": gap_question(1)})
            assert time.monotonic() - started < 10
            assert first.status_code == 200
            assert first.json()["refusal"]["gap_issue"], "the answer names its gap issue before it is written"
            assert question_store.gap_issues(settings) == []
        for n in (1, 1, 2, 3, 4):
            assert client.post("/v1/ask", json={"question": gap_question(n)}).json()["outcome"] == "refuse"
        assert source.gaps.flush()
        record = question_store.gap_issues(settings)
        assert len(record) == 2, "capped at 2 issues from questions"
        assert [issue.number for issue in record] == [1, 2]
        assert source.gaps.counts["added"] == 2 and source.gaps.counts["dropped"] == 2
        assert source.gaps.counts["duplicate"] >= 1


def test_issues_md_escapes_what_readers_typed(state, question_store):
    typed = " <script>alert(1)</script> | [click](https://evil.example/x) ![img](x.png) **loud** `code`"
    settings = question_store.settings(state)
    with serving(state, settings=settings) as (client, source, _):
        body = client.post("/v1/ask", json={"question": gap_question(9, typed)}).json()
        assert body["outcome"] == "refuse"
        assert source.gaps.flush()
    summary = question_store.summary(settings)
    row = next(line for line in summary.splitlines() if "home 9" in line)
    assert "<script>" not in row and "&lt;script&gt;" in row
    assert "[click](" not in row and "![img](" not in row and "**loud**" not in row
    assert row.count(" | ") == 3, "a typed | must not add a table column"
    record = question_store.gap_issues(settings)[-1]
    assert typed.strip() in record.title, "the record keeps what was typed, as data"


def test_no_log_keeps_the_question_out_of_every_store(state, tmp_path, question_store):
    # A marker of this run only: Chroma rewrites its index files from its preallocated buffers when
    # the service opens the release, and in this test process those may hold freed memory of an
    # earlier test's questions (docs/serve.md, "--no-log"); what this test asks of VALID is that
    # the questions asked here reach no store.
    marker = "zebracorn" + uuid.uuid4().hex
    settings = question_store.settings(state, log_questions=False)
    before = {p: p.stat().st_mtime_ns for p in state.rglob("*") if p.is_file()}
    with serving(state, settings=settings) as (client, source, _):
        for question in (gap_question(5, f" {marker}"), f"{PRIYA} {marker}"):
            response = client.post("/v1/ask", json={"question": question})
            assert response.status_code == 200
            validate(response.json(), "AnswerObject")
        assert response.json()["refusal"] is None or response.json()["refusal"]["gap_issue"] is None
        assert source.gaps is None
    assert not (state / "questions.sqlite").exists()
    assert not (state / "issues").exists()
    for path in state.rglob("*"):
        if path.is_file():
            assert marker.encode() not in path.read_bytes(), f"{path.name} holds the question"
    # Chroma rewrites its own files when it opens a collection, and the release's check stamp
    # (checked.json: file sizes, times and digests, no question) follows them; every other file is untouched.
    changed = [p.name for p, at in before.items()
               if "chroma" not in p.parts and p.name != "checked.json" and p.stat().st_mtime_ns != at]
    assert changed == [], f"--no-log wrote {changed}"
    assert question_store.stored_text(settings) == "", "nothing reached the configured store"
