"""The ask box in a team's own DITA-OT HTML5 output (`dita --format=valid-html5`).

Every page of the build frames the team's `valid serve` ask page, opened for the build's profile
(named after the build's DITAVAL, as valid-index names it). In headless chromium, against a real
`valid serve` on 127.0.0.1 that lets the docs' origin frame it (`--embed-origin`): a question that
names no generation, typed into the box on a page of the v5p build, gets v5p's answer, not a
question back.

Needs DITA_HOME (a DITA-OT 4.x install, docs/dita-ot.md), into which the plugin is installed;
skipped with the reason otherwise. Set VALID_WRITE_SCREENSHOT=1 to refresh docs/ask-box-html5.png.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import re
import subprocess
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest
from fixtures.serve_process import valid_serve
from fixtures.browser import headless_chromium, wait_for

_spec = importlib.util.spec_from_file_location("dita_ot_jobs", Path(__file__).parent / "fixtures" / "dita-ot" / "jobs.py")
jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jobs)

REPO = jobs.REPO
DITA_HOME = os.environ.get("DITA_HOME", "")
MAP = REPO / "sample_maps" / "cloud-tpu.ditamap"
DITAVALS = REPO / "schemes" / "ditaval"
PAGE = "create-tpu-vm.html"  # a topic every generation's build has, about no one generation
QUESTION = "Which --version do I pass when I create the VM?"  # names no generation
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT_S = 60

pytestmark = pytest.mark.slow  # DITA-OT builds (about 40 s each) and a browser


def _dita(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(DITA_HOME) / "bin" / "dita"), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=1800)


def _output(run: subprocess.CompletedProcess) -> str:
    return run.stdout + run.stderr


@pytest.fixture(scope="module")
def dita_ot(tmp_path_factory) -> None:
    if not DITA_HOME:
        pytest.skip("DITA_HOME is not set: no DITA-OT 4.x to build HTML5 with the ask box (docs/dita-ot.md)")
    if not (Path(DITA_HOME) / "bin" / "dita").is_file():
        pytest.skip(f"DITA_HOME has no bin/dita: {DITA_HOME}")
    out = tmp_path_factory.mktemp("dist")
    built = jobs.ant("dist", build__dir=str(out / "build"), dist__dir=str(out / "dist"))
    assert built.returncode == 0, built.stdout + built.stderr
    version = ET.parse(REPO / "dita-ot-plugin" / "plugin.xml").getroot().get("version")
    installed = _dita("install", str(out / "dist" / f"{jobs.PLUGIN_ID}-{version}.zip"), "--force")
    assert installed.returncode == 0, _output(installed)
    assert "valid-html5" in _dita("transtypes").stdout


def _frames(html: str) -> list[str]:
    return re.findall(r'<aside class="valid-ask"[^>]*>\s*<iframe src="([^"]+)"', html)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def docs_server(tmp_path_factory):
    """A static web server for the HTML5 pages, on its own 127.0.0.1 origin (as a docs portal is)."""
    root = tmp_path_factory.mktemp("html5-v5p")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def ask_service(docs_server, sample_build, tmp_path_factory):
    """`valid serve` on the sample's release, letting the docs' origin (and only it) frame the ask page."""
    _, docs_origin = docs_server
    log = tmp_path_factory.mktemp("ask-box-log")
    with valid_serve("--state", str(sample_build.state), "--question-log", str(log / "questions.sqlite"),
                     "--issues", str(log / "issues"), "--embed-origin", docs_origin) as url:
        yield url


@pytest.fixture(scope="module")
def docs_site(dita_ot, docs_server, ask_service):
    """The v5p build's HTML5 pages, built with the ask service's URL, served from the docs' origin."""
    out, docs_origin = docs_server
    run = _dita("--input", str(MAP), "--format", "valid-html5", "--output", str(out),
                "--filter", str(DITAVALS / "v5p.ditaval"), f"--valid.ask.url={ask_service}/")
    assert run.returncode == 0, _output(run)[-6000:]
    return out, docs_origin


def test_every_page_of_a_valid_html5_build_frames_the_ask_page_for_the_builds_profile(docs_site, ask_service):
    out, _ = docs_site
    pages = sorted(out.glob("*.html"))
    assert {p.name for p in pages} >= {"index.html", PAGE}
    for page in pages:
        assert _frames(page.read_text()) == [f"{ask_service}/?generation=v5p"], page.name


def test_a_plain_html5_build_has_no_ask_box(dita_ot, tmp_path):
    run = _dita("--input", str(MAP), "--format", "html5", "--output", str(tmp_path),
                "--filter", str(DITAVALS / "v5p.ditaval"), "--valid.ask.url=http://127.0.0.1:9/")
    assert run.returncode == 0, _output(run)[-6000:]
    pages = list(tmp_path.glob("*.html"))
    assert pages and not any("valid-ask" in p.read_text() for p in pages)


def test_valid_ask_profile_names_the_profile_when_the_ditaval_file_does_not(dita_ot, tmp_path):
    run = _dita("--input", str(MAP), "--format", "valid-html5", "--output", str(tmp_path),
                "--filter", str(DITAVALS / "v6e.ditaval"), "--valid.ask.profile=Trillium",
                "--valid.ask.url=https://ask.example.com")
    assert run.returncode == 0, _output(run)[-6000:]
    assert _frames((tmp_path / PAGE).read_text()) == ["https://ask.example.com/?generation=Trillium"]


@pytest.mark.parametrize("args, message", [
    (["--filter", str(DITAVALS / "v5p.ditaval")], "valid-html5 needs valid.ask.url"),
    (["--valid.ask.url=https://ask.example.com"], "does not know this build's profile"),
    (["--filter", os.pathsep.join(str(DITAVALS / f) for f in ("v5p.ditaval", "v6e.ditaval")),
      "--valid.ask.url=https://ask.example.com"], "presets the ask box to one profile"),
], ids=["no-url", "no-ditaval", "two-ditavals"])
def test_a_valid_html5_build_without_one_profile_or_a_url_fails_in_one_line(dita_ot, tmp_path, args, message):
    # The full list of refusals runs on plain Ant in test_plugin_ask_box_profile.py; these are
    # the ones that depend on how the dita command passes --filter.
    run = _dita("--input", str(MAP), "--format", "valid-html5", "--output", str(tmp_path / "out"), *args)
    assert run.returncode != 0
    assert message in _output(run)
    assert not list(tmp_path.rglob("*.html")), "no partial output"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with headless_chromium(tmp_path_factory.mktemp("chromium-profile"), window="1000,1100", page_load_s=WAIT_S) as driver:
        yield driver


def _wait(driver, condition, message: str):
    return wait_for(driver, condition, message, WAIT_S)  # DITA-OT's pages load the framed ask page too


def _answer_for(service: str, generation: str) -> str:
    body = httpx.post(service + "/v1/ask", json={"question": QUESTION, "generation": generation}, timeout=60).json()
    assert body["outcome"] == "answer", body
    return body["answers"][0]["answer"]


def test_a_question_in_the_box_of_a_v5p_page_gets_v5ps_answer_without_naming_it(docs_site, ask_service, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _, docs_origin = docs_site
    v5p, v6e = _answer_for(ask_service, "v5p"), _answer_for(ask_service, "v6e")
    assert v5p != v6e, "the question must be one whose answer differs by generation"
    unscoped = httpx.post(ask_service + "/v1/ask", json={"question": QUESTION}, timeout=60).json()
    assert unscoped["outcome"] != "answer", "asked elsewhere, the question names no generation"

    browser.get(f"{docs_origin}/{PAGE}")
    box = browser.find_element(By.CSS_SELECTOR, "aside.valid-ask iframe")
    browser.execute_script("arguments[0].scrollIntoView({block: 'end'})", box)
    browser.switch_to.frame(box)
    try:
        _wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true",
              "the ask page in the box did not load the active release")
        # the ask page took the profile from its URL (and found it among the release's profiles)
        assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-page-generation") == "v5p"
        assert browser.find_element(By.ID, "generation").get_attribute("value") == "v5p"
        question = browser.find_element(By.ID, "question")
        question.send_keys(QUESTION)
        question.send_keys(Keys.CONTROL, Keys.ENTER)
        answer = _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".generation-answer"),
                       "no answer appeared in the box")
        assert answer.get_attribute("data-generation") == "v5p"
        assert not browser.find_elements(By.CSS_SELECTOR, ".choices"), "the box asked back which generation"
        text = browser.find_element(By.ID, "result").text
        assert v5p in text and v6e not in text
    finally:
        browser.switch_to.default_content()
    if os.environ.get("VALID_WRITE_SCREENSHOT"):
        browser.save_screenshot(str(REPO / "docs" / "ask-box-html5.png"))


def test_the_ask_service_lets_only_the_docs_origin_frame_it(docs_server, ask_service):
    _, docs_origin = docs_server
    csp = httpx.get(ask_service + "/?generation=v5p").headers["content-security-policy"]
    assert csp.endswith(f"frame-ancestors {docs_origin}")
