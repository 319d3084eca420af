"""Citations readers can follow (issue 27 item 3): the title path instead of the chunk id, and the
page the team publishes, from `[serve] published_url`, a template over the build, the topic's output
path and the element id."""

import pytest
from pydantic import ValidationError

from valid.answer.citations import PublishedPages, cite_parts, title_path, with_pages
from valid.answer.models import GenerationAnswer, Step

TEMPLATE = "https://docs.example.com/{build}/{path}#{fragment}"


def test_the_title_path_leaves_out_the_map_title_the_page_already_names():
    crumbs = ["DITA Open Toolkit 4.2", "Installing DITA-OT", "Installing on Windows"]
    assert title_path(crumbs) == ["Installing DITA-OT", "Installing on Windows"]
    assert title_path(["Only a title"]) == ["Only a title"]
    assert title_path([]) == []


def test_an_element_with_its_own_id_links_to_its_id_in_the_html5_output():
    parts = cite_parts("topics/installing-client.dita#installing-client/install-steps")
    assert parts == {"path": "topics/installing-client.html", "topic": "installing-client",
                     "element": "install-steps", "fragment": "installing-client__install-steps"}


def test_an_element_without_an_id_links_to_its_topic_and_a_variant_suffix_is_not_part_of_the_page():
    parts = cite_parts("topics/install.dita#install/choicetable-1~mac+linux")
    assert (parts["element"], parts["fragment"]) == ("", "install")
    assert cite_parts("a/b.xml#b/body")["fragment"] == "b"
    assert cite_parts("a/b.dita#b/shared/c.dita:note-1")["path"] == "a/b.html"


def test_a_conrefd_element_keeps_its_own_id():
    assert cite_parts("a.dita#a/shared/warnings.dita:java-warning")["fragment"] == "a__java-warning"


def test_the_published_url_is_the_template_over_build_path_and_fragment():
    pages = PublishedPages(template=TEMPLATE)
    url = pages.url("linux", "topics/install.dita#install/steps-1~mac+linux")
    assert url == "https://docs.example.com/linux/topics/install.html#install"
    assert pages.url("win dows", "t/a b.dita#a/x") == "https://docs.example.com/win%20dows/t/a%20b.html#a__x"


@pytest.mark.parametrize("template, message", [
    ("https://docs.example.com/{build}/{page}", "{page}"),
    ("docs.example.com/{path}", "must start with"),
    ("https://docs.example.com/{build", "not a template"),
])
def test_a_template_with_an_unknown_field_or_no_scheme_is_refused_in_one_line(template, message):
    with pytest.raises(ValidationError) as err:
        PublishedPages(template=template)
    assert message in str(err.value)


def test_each_step_gets_the_page_of_every_build_its_answer_is_shown_for():
    step = Step(text="Run dita.", cite="topics/run.dita#run/cmd", title_path=["Running", "The dita command"])
    folded = GenerationAnswer(generation="mac", generations=["mac", "linux"], answer="Run dita.", steps=[step])
    (linked,) = with_pages([folded], PublishedPages(template=TEMPLATE))
    assert linked.steps[0].pages == {
        "mac": "https://docs.example.com/mac/topics/run.html#run__cmd",
        "linux": "https://docs.example.com/linux/topics/run.html#run__cmd",
    }
    assert with_pages([folded], None)[0].steps[0].pages == {}


def test_each_cited_cell_of_a_comparison_links_to_its_own_generations_page():
    from valid.answer.citations import with_cell_pages
    from valid.answer.models import Comparison, ComparisonCell, ComparisonRow

    cells = [ComparisonCell(generation="windows", text="setx PATH", cite="topics/env.dita#env/win~windows"),
             ComparisonCell(generation="linux", text="No counterpart.", cite=None, present=False)]
    comparison = Comparison(kind="difference", generations=["windows", "linux"], labels=["Windows", "Linux"],
                            summary="", rows=[ComparisonRow(kind="only", topic="Environment", cells=cells)])
    paged = with_cell_pages(comparison, PublishedPages(template=TEMPLATE))
    assert [c.page for c in paged.rows[0].cells] == ["https://docs.example.com/windows/topics/env.html#env__win", None]
    assert with_cell_pages(comparison, None) is comparison
