"""Generated link and term text: the DITA-OT plugin, `valid export` and DITA-OT's HTML5 build agree.

Found on the Oxygen user guide with all its DITAVALs, where `valid export` and the plugin's jobs
still differed in 20 chunk texts; each class is in tests/fixtures/dita/linktext/ (two profiles,
alpha and beta):

- an empty xref to a definition-list entry shows the entry's first term, one to a term the term
  ("consider passing it as the  environment variable" in `valid export`, where DITA-OT's
  topicpull writes "the XML_CATALOG_FILES environment variable");
- an empty xref to a section whose content comes from a conref shows the reused section's title
  (`valid export` read the unresolved section, found no title, and left the link empty);
- the first reference to a glossary key on a page shows the full form, later ones the acronym,
  and a chunk="to-content" topicref makes its topics one page (`valid export` counted per topic:
  "DITA Open Toolkit" where the published page says "DITA-OT");
- a @copy-to topicref inside a chunk="to-content" one makes no page of its own: DITA-OT merges
  the content into the page under its source's name (`valid export` exported the copy as a topic
  of its own: the 4 chunk ids only in the export on the guide).

The reference where they differ is DITA-OT 4.2.4's own HTML5 build of the alpha profile. The tests
of `valid export` alone run everywhere; those with DITA-OT need DITA_HOME and skip without it.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

from test_plugin_dita_ot import _dita, _output, dita_ot  # noqa: F401  (dita_ot: the fixture)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from plugin_parity import chunks, compare  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "dita" / "linktext"
MAP = FIXTURE / "linktext.ditamap"
PROFILES = {name: FIXTURE / "ditaval" / f"{name}.ditaval" for name in ("alpha", "beta")}

LINKS_ALPHA = "topics/links.dita#links/body~alpha"
LINKS_BETA = "topics/links.dita#links/body~beta"
OPTIONS_ALPHA = "topics/options.dita#options/body~alpha"
MODIFY = "topics/modify.dita#modify/body"
NEW_LANG = "topics/new-lang.dita#new-lang/body"
RESET = "topics/reset.dita#reset/body"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[dict[str, dict], dict]:
    """`valid export` of the fixture: (chunks by id, header)."""
    from valid.export import export

    out = tmp_path_factory.mktemp("linktext") / "export.jsonl"
    export(MAP, profiles=PROFILES, out=out)
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    return chunks(out), header


def text(chunks_by_id: dict[str, dict], chunk_id: str) -> str:
    return " ".join(chunks_by_id[chunk_id]["text"].split())


# ----------------------------------------------------------------------------- valid export alone


def test_an_empty_link_to_a_definition_list_entry_shows_its_first_term(exported):
    by_id, header = exported
    assert "passing it as the XML_CATALOG_FILES environment variable." in text(by_id, LINKS_ALPHA)
    assert ("controlled from the Optimize loading for documents with lines longer than (Characters) option"
            in text(by_id, LINKS_ALPHA))
    # the term as each profile filters it
    assert "passing it as the XML_CATALOG_FILES (beta) environment variable." in text(by_id, LINKS_BETA)
    assert header["warnings"] == []


def test_an_empty_link_to_a_step_shows_its_number_and_one_to_a_substep_the_numbers_of_both(exported):
    by_id, _ = exported
    steps = text(by_id, "topics/steps.dita#steps/steps-1")
    assert "Reuse the messages created in step 1 and the point added in step 2.b." in steps


def test_an_empty_link_to_a_term_shows_the_term(exported):
    by_id, _ = exported
    assert "use the -no-rtl-mirroring parameter." in text(by_id, LINKS_ALPHA)


def test_an_empty_link_to_an_entry_of_its_own_topic_shows_the_entry_term(exported):
    by_id, _ = exported
    assert "For the option, see -catalogs." in text(by_id, OPTIONS_ALPHA)


def test_an_empty_link_to_a_section_reused_by_conref_shows_the_reused_title(exported):
    by_id, _ = exported
    # the empty link's generated text, then the next link's own text, as the page shows them
    assert ("see Sharing Attribute ConfigurationsSharing Attribute Configurations."
            in text(by_id, LINKS_ALPHA))


def test_the_first_glossary_reference_on_a_page_merged_by_chunk_to_content_is_the_only_full_form(exported):
    by_id, _ = exported
    assert "the strings that the DITA Open Toolkit generates." in text(by_id, MODIFY)
    assert "directory of the DITA-OT, run the installer." in text(by_id, NEW_LANG)


def test_a_copy_to_inside_a_chunk_to_content_topicref_is_exported_under_its_source_name(exported):
    by_id, _ = exported
    assert not [chunk_id for chunk_id in by_id if chunk_id.startswith("topics/reset-x.dita")]
    assert {name for name, kept in by_id[f"{RESET}~alpha"]["scope"].items() if kept} == {"alpha"}
    assert text(by_id, f"{RESET}~beta") == "Remove the plugin to reset the strings of the beta build."


# ----------------------------------------------------------------------------- with DITA-OT


@pytest.fixture(scope="module")
def both(dita_ot, exported, tmp_path_factory):  # noqa: F811
    """(plugin export, `valid export`) chunks by id."""
    out = tmp_path_factory.mktemp("linktext-plugin")
    given = ",".join(f"{name}={path}" for name, path in PROFILES.items())
    run = _dita("--input", str(MAP), "--format", "valid-index", "--output", str(out),
                f"--valid.ditavals={given}")
    assert run.returncode == 0, _output(run)[-6000:]
    return chunks(out / "linktext.jsonl"), exported[0]


@pytest.fixture(scope="module")
def alpha_html5(dita_ot, tmp_path_factory) -> Path:  # noqa: F811
    """DITA-OT's own HTML5 build of the alpha profile: the reference."""
    out = tmp_path_factory.mktemp("linktext-html5")
    run = _dita("--input", str(MAP), "--format", "html5", "--output", str(out), f"--filter={PROFILES['alpha']}")
    assert run.returncode == 0, _output(run)[-6000:]
    return out / "topics"


def page_text(page: Path) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))).split())


def test_the_plugin_and_valid_export_agree_on_ids_texts_and_scopes(both):
    parity = compare(*both)
    assert parity.agree, (parity.counts(), parity.differ[:3], parity.only_in_plugin, parity.only_in_export)


def test_links_to_entries_and_terms_read_as_html5_publishes_them(both, alpha_html5):
    published = page_text(alpha_html5 / "links.html")
    phrases = [
        "passing it as the XML_CATALOG_FILES environment variable.",
        "controlled from the Optimize loading for documents with lines longer than (Characters) option",
        "use the -no-rtl-mirroring parameter.",
    ]
    for phrase in phrases:
        assert phrase in published
        for chunks_by_id in both:
            assert phrase in text(chunks_by_id, LINKS_ALPHA)
    assert "For the option, see -catalogs." in page_text(alpha_html5 / "options.html")
    for chunks_by_id in both:
        assert "For the option, see -catalogs." in text(chunks_by_id, OPTIONS_ALPHA)


def test_a_link_to_a_reused_section_reads_as_html5_publishes_it(both, alpha_html5):
    phrase = "see Sharing Attribute ConfigurationsSharing Attribute Configurations."
    assert phrase in page_text(alpha_html5 / "links.html")
    for chunks_by_id in both:
        assert phrase in text(chunks_by_id, LINKS_ALPHA)


def test_glossary_references_in_topics_merged_by_chunk_to_content_read_as_html5_publishes_them(both, alpha_html5):
    published = page_text(alpha_html5 / "overview.html")
    assert "the strings that the DITA Open Toolkit generates." in published
    assert "directory of the DITA-OT, run the installer." in published
    for chunks_by_id in both:
        assert "the strings that the DITA Open Toolkit generates." in text(chunks_by_id, MODIFY)
        assert "directory of the DITA-OT, run the installer." in text(chunks_by_id, NEW_LANG)


def test_a_copy_to_inside_a_chunk_to_content_topicref_has_no_page_of_its_own_as_in_html5(both, alpha_html5):
    assert not (alpha_html5 / "reset-x.html").exists()
    assert "Remove the plugin to reset the strings." in page_text(alpha_html5 / "overview.html")
    for chunks_by_id in both:
        assert not [chunk_id for chunk_id in chunks_by_id if chunk_id.startswith("topics/reset-x.dita")]
        assert text(chunks_by_id, f"{RESET}~alpha") == "Remove the plugin to reset the strings."
