"""The doc set's own words (issue 27 item 1): every string a reader sees is in one catalogue
(valid.wording), filled with the doc set's title, the noun for its builds and its builds' names;
`[serve]` overrides them. Pure functions, the page template and script read as text, and the page
as served over HTTP."""

import re
from html.parser import HTMLParser
from importlib import resources

import httpx
import pytest

from valid.config import Config, default_map
from valid.serve import Limits, ServeConfig, create_app
from valid.serve.routes.page import render_page
from valid.wording import CATALOGUES, ENGLISH, DocSetFacts, WordingSettings, join_names, placeholders, wording_for

STATIC = resources.files("valid.serve") / "static"

# The DITA-OT docs as three platform builds, as `valid init` would name them.
DITA_OT = DocSetFacts(title="DITA Open Toolkit 4.2", attribute="platform",
                      names=[["Windows"], ["macOS", "Mac"], ["Linux"]])
CORVANE = DocSetFacts(title="Corvane documentation", attribute="release", names=[
    ["Corvane CLI 1.0.0", "Corvane CLI v1.0.0", "Corvane 1.0.0", "Ashgrove"],
    ["Corvane CLI 1.1.0", "Corvane CLI v1.1.0", "Corvane 1.1.0", "Birchmoor"],
])


def test_a_platform_profiled_doc_set_is_asked_by_platform_with_its_own_names():
    w = wording_for(DITA_OT)
    assert w["title"] == "Ask the DITA Open Toolkit 4.2 docs"
    assert w["picker_label"] == "Platform" and w["ask_heading"] == "Which platform do you mean?"
    assert "“and on Mac?”" in w["question_help"]  # the shortest name of the second build
    assert "“Windows”, “Mac” or “Linux”" in w["picker_help"]
    assert w["reason_wrong_version"] == "Wrong platform"
    assert "DITA Open Toolkit 4.2 written for your platform" in w["tagline"]


def test_a_title_that_says_it_is_documentation_is_asked_as_it_is():
    w = wording_for(CORVANE)
    assert w["title"] == "Ask the Corvane documentation" and w["picker_label"] == "Release"
    assert "“and on Birchmoor?”" in w["question_help"]


def test_the_teams_settings_win_over_what_is_derived():
    w = wording_for(DITA_OT, WordingSettings(title="Ask DITA-OT", tagline="From the docs.", noun="OS",
                                             noun_plural="operating systems"))
    assert (w["title"], w["tagline"], w["picker_label"]) == ("Ask DITA-OT", "From the docs.", "Os")
    assert w["source_hidden_many"] == "{n} parts for other operating systems not shown."


def test_without_a_release_the_page_has_generic_words_and_no_other_doc_sets():
    w = wording_for(DocSetFacts())
    assert w["title"] == "Ask the docs" and w["picker_label"] == "Version"
    assert not any(re.search(r"TPU|v6e|Ironwood|[Gg]eneration|Corvane", text) for text in w.values())


def test_answer_placeholders_are_left_for_the_page_and_the_doc_sets_are_filled():
    w = wording_for(CORVANE)
    assert w["answer_for"] == "Answer for {names}" and w["run_calls_many"] == "{n} model calls"
    assert not any(placeholders(text) & {"noun", "Noun", "nouns", "docset", "follow_up", "examples"}
                   for text in w.values())


def test_every_language_has_the_same_keys_and_placeholders_as_english():
    for language, catalogue in CATALOGUES.items():
        assert set(catalogue) == set(ENGLISH), language
        for key, template in catalogue.items():
            assert placeholders(template) == placeholders(ENGLISH[key]), (language, key)
    with pytest.raises(ValueError, match="no reader-facing strings in 'xx'"):
        wording_for(CORVANE, WordingSettings(language="xx"))


def test_names_are_joined_as_a_sentence_lists_them():
    assert join_names(["Windows"]) == "Windows"
    assert join_names(["Windows", "macOS", "Linux"]) == "Windows, macOS and Linux"


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.texts: list[str] = []

    def handle_data(self, data):
        if data.strip():
            self.texts.append(data.strip())


def test_the_page_template_has_no_words_of_its_own():
    template = (STATIC / "index.html").read_text(encoding="utf-8")
    parser = _Text()
    parser.feed(template)
    assert parser.texts and all(re.fullmatch(r"\{\{\w+\}\}", text) for text in parser.texts), parser.texts
    slots = set(re.findall(r"\{\{(\w+)\}\}", template))
    assert slots <= set(wording_for(CORVANE))


def test_every_string_the_script_asks_for_is_in_the_catalogue_and_it_has_none_of_its_own():
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    keys = set(re.findall(r"\bt\(\"(\w+)\"[,)]", script))
    keys |= {"stage_" + s for s in re.findall(r'"(scope|retrieved|generating|checking)"', script)}
    keys |= {"reason_" + r for r in re.search(r"const REASONS = \[([^\]]*)\]", script).group(1).replace('"', "").replace(" ", "").split(",")}
    keys |= {"kind_" + k for k in ("differs", "only", "shared", "availability")}
    assert keys and keys <= set(wording_for(CORVANE)), sorted(keys - set(wording_for(CORVANE)))
    # No sentence for readers in the script itself: a capitalised word and a space inside a string.
    assert not re.findall(r'"[A-Z][a-z]+ [^"]*"', script)
    css = (STATIC / "app.css").read_text(encoding="utf-8")
    assert "content:" not in css, "words in the stylesheet are out of the catalogue's reach"


def test_the_page_escapes_what_it_is_given():
    words = {**wording_for(DITA_OT), "title": '<script>alert("x")</script>'}
    page = render_page((STATIC / "index.html").read_text(encoding="utf-8"), words)
    assert "<script>alert" not in page and "&lt;script&gt;" in page


def test_valid_toml_serve_settings_reach_valid_serve():
    config = Config(serve={"title": "Ask DITA-OT", "noun": "platform", "published_url": "https://x.example/{path}"})
    serve = default_map(config)["serve"]
    assert (serve["title"], serve["noun"], serve["published_url"]) == ("Ask DITA-OT", "platform",
                                                                      "https://x.example/{path}")


class _OneRelease:
    """An answerer of the HTTP layer only: the doc set's facts, no engine."""

    release = "r" * 64

    def generations(self):
        from valid.serve import Generation

        return [Generation("windows", "Windows", ("Windows",)), Generation("mac", "macOS", ("macOS", "Mac"))]

    def docset(self):
        return DITA_OT

    def ask(self, question, generation, progress=None):
        raise AssertionError("not asked")

    def source(self, path):
        return None

    def close(self):
        pass


class _Source:
    def active_id(self):
        return _OneRelease.release

    def open(self, release_id):
        return _OneRelease()


def test_the_served_page_and_release_carry_the_doc_sets_words_and_the_teams_title():
    from fastapi.testclient import TestClient

    config = ServeConfig(limits=Limits(rate_per_s=0), wording=WordingSettings(title="Ask the DITA-OT docs"))
    from valid.answer import QuestionLog

    store = QuestionLog(":memory:")
    with TestClient(create_app(_Source(), config, conversations=store)) as client:
        page = client.get("/").text
        info = client.get("/v1/releases/active").json()
    assert "<h1 data-w=\"title\">Ask the DITA-OT docs</h1>" in page and ">Platform</label>" in page
    assert "“and on Mac?”" in page
    assert info["wording"]["title"] == "Ask the DITA-OT docs" and info["wording"]["picker_label"] == "Platform"
    store.close()


def test_the_answers_own_sentences_say_the_doc_sets_noun_for_a_build(corvane_build):
    from valid.answer.wiring import open_engine

    with open_engine(corvane_build.state, log=False, gap_issues=False) as engine:  # @release: "release"
        asked = engine.ask("What is a vault?").answer
        unknown = engine.ask("How do I back up a directory in Corvane CLI 9.9.9?").answer
    assert asked.outcome == "ask" and "differs by release" in asked.not_used
    assert unknown.outcome == "refuse" and "not a release in this documentation" in unknown.refusal.reason
    assert not any("generation" in text for text in (asked.not_used, unknown.refusal.reason, unknown.not_used))
    with open_engine(corvane_build.state, log=False, gap_issues=False,
                     wording=WordingSettings(noun="edition")) as engine:
        assert "differs by edition" in engine.ask("What is a vault?").answer.not_used
