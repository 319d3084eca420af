"""The DITA-OT plugin and `valid export` agree where they once disagreed on the Oxygen user guide.

Each construct is in tests/fixtures/dita/parity/ (two profiles, alpha and beta), exported both ways
and checked against what DITA-OT 4.2.4's own HTML5 build of the alpha profile publishes, the
reference where the two differ:

- a @copy-to copy is a topic of its own (DITA-OT's preprocess2 leaves @href on the source and
  writes the copy; the plugin once exported no copy at all);
- the source of a @copy-to stays in the build even where no other kept topicref names it (HTML5
  publishes it; `valid export` once dropped it);
- a copy-to topicref the profile filters out leaves no copy;
- an empty link to an external key without link text reads the key's URL (DITA-OT's keyref step
  writes it; `valid export` once left it empty: "Go to  and download").

Needs DITA_HOME (DITA-OT 4.x); skipped with the reason otherwise.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import pytest

from test_plugin_dita_ot import _dita, _output, dita_ot, plugin_export  # noqa: F401  (dita_ot: the fixture)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from plugin_parity import chunks, compare  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "dita" / "parity"
MAP = FIXTURE / "parity.ditamap"
PROFILES = {name: FIXTURE / "ditaval" / f"{name}.ditaval" for name in ("alpha", "beta")}
URL = "https://example.com/driver/download.html"


@pytest.fixture(scope="module")
def both(dita_ot, tmp_path_factory):  # noqa: F811
    """(plugin export, `valid export`) chunks by id."""
    from valid.export import export

    out = tmp_path_factory.mktemp("parity")
    plugin = plugin_export(MAP, PROFILES, out / "plugin")
    export(MAP, profiles=PROFILES, out=out / "export.jsonl")
    return chunks(plugin), chunks(out / "export.jsonl")


@pytest.fixture(scope="module")
def alpha_html5(dita_ot, tmp_path_factory) -> Path:  # noqa: F811
    """DITA-OT's own HTML5 build of the alpha profile: the reference."""
    out = tmp_path_factory.mktemp("html5")
    run = _dita("--input", str(MAP), "--format", "html5", "--output", str(out), f"--filter={PROFILES['alpha']}")
    assert run.returncode == 0, _output(run)[-6000:]
    return out


def page_text(page: Path) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))).split())


def kept_by(chunk: dict) -> set[str]:
    return {name for name, kept in chunk["scope"].items() if kept}


def test_the_plugin_and_valid_export_agree_on_ids_texts_and_scopes(both):
    parity = compare(*both)
    assert parity.agree, parity.counts()


def test_a_copy_to_copy_is_a_topic_of_its_own_in_both_as_html5_publishes_it(both, alpha_html5):
    assert "Schema settings" in page_text(alpha_html5 / "topics" / "shared-x2.html")
    for chunks_by_id in both:
        assert kept_by(chunks_by_id["topics/shared-x2.dita#shared/body"]) == {"alpha", "beta"}
        assert "Alpha also validates" in chunks_by_id["topics/shared-x2.dita#shared/schema~alpha"]["text"]


def test_the_source_of_a_copy_to_stays_in_the_build_as_html5_publishes_it(both, alpha_html5):
    # alpha names shared.dita only through the copy-to topicref (the direct one is beta's)
    assert "Alpha also validates" in page_text(alpha_html5 / "topics" / "shared.html")
    for chunks_by_id in both:
        assert kept_by(chunks_by_id["topics/shared.dita#shared/schema~alpha"]) == {"alpha"}
        assert kept_by(chunks_by_id["topics/shared.dita#shared/body"]) == {"alpha", "beta"}


def test_a_copy_to_topicref_the_profile_filters_out_leaves_no_copy(both, alpha_html5):
    assert not (alpha_html5 / "topics" / "install-x-beta2.html").exists()
    for chunks_by_id in both:
        assert kept_by(chunks_by_id["topics/install-x-beta2.dita#install/steps-1"]) == {"beta"}


def test_an_empty_link_to_an_external_key_reads_its_url_in_both(both, alpha_html5):
    assert f"Go to {URL} and download" in page_text(alpha_html5 / "topics" / "links.html")
    for chunks_by_id in both:
        text = chunks_by_id["topics/links.dita#links/body"]["text"]
        assert f"Go to {URL} and download the driver." in text
        assert "see Shared settings." in text  # an empty xref to a topic: its title, as before
