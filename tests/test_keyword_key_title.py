"""An empty keyword, phrase, cite or term whose key names a topic, and has no text of its own,
shows that topic's title as each profile's build filters it, as DITA-OT 4.2.4's output does.

Found on Apache Impala's documentation (`<keyword keyref="grant"/>` over a key definition with only
an @href): the export once left the element empty ("See for the required privileges") and warned
that the key has no text, where DITA-OT's HTML5 build shows "See GRANT Statement (Impala 2.0 or
higher only)". The fixture (tests/fixtures/dita/key_title) holds such a keyword, phrase, cite and
term (a term whose key names no glossentry), a key with keywords of its own (which win), links
through keys with linktext (the title replaces it, as DITA-OT's mappull does, unless the key has
locktitle="yes"; found on the same doc set: "See Enabling Sentry Authorization for Impala" where
DITA-OT shows "See Impala Authorization"), and a target title with a phrase one profile filters
out. The DITA-OT tests (DITA_HOME set) build each
profile with DITA-OT's HTML5 and compare.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixtures.dita_home import dita_command

from valid.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "dita" / "key_title"
MAP = FIXTURE / "key_title.ditamap"
PROFILES = {name: FIXTURE / "ditaval" / f"{name}.ditaval" for name in ("online", "print")}

# The paragraphs of topics/revoke.dita as each profile's DITA-OT HTML5 build shows them.
SENTENCES = {
    "online": [
        "See GRANT Statement (online edition) for the required privileges.",
        "The phrase form: GRANT Statement (online edition) lists them too.",
        "As a citation: GRANT Statement (online edition). As a term: GRANT Statement (online edition).",
        "Linked: GRANT Statement (online edition) and Locked link text.",
        "Introduced in Release 2.0.",
    ],
    "print": [
        "See GRANT Statement for the required privileges.",
        "The phrase form: GRANT Statement lists them too.",
        "As a citation: GRANT Statement. As a term: GRANT Statement.",
        "Linked: GRANT Statement and Locked link text.",
        "Introduced in Release 2.0.",
    ],
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[dict, dict[str, str]]:
    """The export's header and the revoke topic's body text per profile."""
    out = tmp_path_factory.mktemp("key-title") / "out.jsonl"
    profiles = [f"--profile={name}={path}" for name, path in PROFILES.items()]
    result = CliRunner().invoke(main, ["export", str(MAP), *profiles, "-o", str(out), "--jobs", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    header, *chunks = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    texts = {}
    for chunk in chunks:
        if chunk["id"].startswith("topics/revoke.dita#revoke/body"):
            for name, kept in chunk["scope"].items():
                if kept:
                    texts[name] = chunk["text"]
    return header, texts


@pytest.mark.parametrize("profile", list(PROFILES))
def test_an_empty_keyword_whose_key_names_a_topic_shows_the_topics_title_as_the_profile_filters_it(exported, profile):
    _, texts = exported
    assert _sentences(texts[profile]) == SENTENCES[profile]


def test_a_link_through_a_key_with_linktext_shows_the_target_title_unless_the_key_locks_its_title(exported):
    _, texts = exported
    assert "Linked: GRANT Statement and Locked link text." in _sentences(texts["print"])


def test_a_key_that_names_a_topic_is_not_warned_as_having_no_text(exported):
    header, _ = exported
    assert [w for w in header["warnings"] if "has no text" in w["message"]] == []


def _sentences(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.split("\n") if line.strip()]


@pytest.fixture(scope="module")
def html5_pages(tmp_path_factory) -> dict[str, Path]:
    """DITA-OT 4.2.4's own HTML5 build of each profile: the reference."""
    dita = dita_command()
    pages = {}
    for name, ditaval in PROFILES.items():
        out = tmp_path_factory.mktemp(f"key-title-html5-{name}")
        run = subprocess.run(
            [str(dita), f"--input={MAP}", "--format=html5", f"--filter={ditaval}", f"--output={out / 'out'}",
             f"--temp={out / 'temp'}"],
            capture_output=True, text=True, timeout=300,
        )
        page = out / "out" / "topics" / "revoke.html"
        if not page.is_file():
            pytest.fail(f"DITA-OT did not build the fixture (exit {run.returncode}):\n{(run.stdout + run.stderr)[-2000:]}")
        pages[name] = page
    return pages


@pytest.mark.parametrize("profile", list(PROFILES))
def test_dita_ots_html5_build_shows_the_same_titles(html5_pages, exported, profile):
    page = html5_pages[profile].read_text(encoding="utf-8")
    paragraphs = [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", p)).split()) for p in re.findall(r'<p class="p">(.*?)</p>', page, re.S)]
    # DITA-OT's HTML puts a space before the period after an inline element's closing tag only in
    # the tag-stripped form; compare with the punctuation attached, as the page reads.
    paragraphs = [re.sub(r" ([.,])", r"\1", p) for p in paragraphs]
    assert paragraphs == SENTENCES[profile]
    _, texts = exported
    assert _sentences(texts[profile]) == paragraphs
