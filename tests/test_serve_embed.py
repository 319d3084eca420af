"""The ask page in a docs portal: framed only by the origins `--embed-origin` names (CSP
frame-ancestors), never by anyone when none is named, and opened for one build with ?generation=."""

from __future__ import annotations

import httpx
import pytest
from click.testing import CliRunner

from valid.cli import main
from valid.serve import ServeConfig, create_app
from valid.serve.live import LiveServer


class _NothingActive:
    def active_id(self):
        return None

    def open(self, release_id):
        raise AssertionError("never opened")


def page_headers(config: ServeConfig) -> httpx.Headers:
    with LiveServer(create_app(_NothingActive(), config)) as server:
        return httpx.get(server.url + "/?generation=tpu7x").headers


def test_by_default_no_page_may_frame_the_ask_page():
    headers = page_headers(ServeConfig())
    assert headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_named_origins_and_only_they_may_frame_it():
    headers = page_headers(ServeConfig(embed_origins=("https://docs.example.com", "http://localhost:8000")))
    assert "x-frame-options" not in headers
    csp = headers["content-security-policy"]
    assert csp.endswith("frame-ancestors https://docs.example.com http://localhost:8000")
    assert "script-src 'self'" in csp, "the rest of the policy is unchanged"


@pytest.mark.parametrize("origin", ["https://docs.example.com; script-src *", "*", "docs.example.com", "https://a b"])
def test_an_embed_origin_that_is_not_an_origin_is_refused_in_one_line(origin):
    result = CliRunner().invoke(main, ["serve", "--embed-origin", origin, "--openapi", "/dev/null"])
    assert result.exit_code == 2
    assert "not an origin" in result.output and "Traceback" not in result.output
