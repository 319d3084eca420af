"""The ask page in a real browser: Debian's chromium, headless, driven through chromedriver.

The Ironwood --version question shows TPU7x at the top and a citation link that opens the cited text; an unscoped
question offers the generations as buttons, and choosing one re-asks and answers for it. Everything
is done with the keyboard, through labelled controls.

A conversation keeps its thread on the page, also across a reload, and a follow-up answers for the
generation it names; feedback with a reason reaches the question log; `/?generation=` opens the page
for one build; the `valid log report` dashboard renders its charts in the same browser.

The Corvane sample (a second doc set, profiled by @release, with a published site) speaks its own
words: its title, "Release" for a build, a follow-up hint and examples from its builds' names; builds
whose answers agree get one answer naming them all; a citation reads as the topic's title path and
links to the page the team publishes for the reader's build, the release id folded away.

Set VALID_WRITE_SCREENSHOT=1 to refresh docs/ask-page.png, docs/ask-conversation.png,
docs/ask-page-generation.png, docs/ask-page-corvane.png and docs/log-report.png from this run.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from fixtures.browser import headless_chromium, wait_for

from valid.answer.citations import PublishedPages
from valid.index import Store
from valid.serve import Limits, ServeConfig, create_app
from valid.serve.library import EngineSettings, LibraryReleases
from valid.serve.live import LiveServer, wait_ready
from valid.wording import WordingSettings

REPO = Path(__file__).resolve().parents[1]
PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"
UNSCOPED = "How many chips are in one TPU VM?"




@pytest.fixture(scope="module")
def server(sample_build, tmp_path_factory):
    state = sample_build.state
    log = tmp_path_factory.mktemp("browser-log") / "questions.sqlite"
    settings = EngineSettings(question_log=log, issues_dir=log.parent / "issues")
    # The Cloud TPU sample's builds are @platform values its readers call generations: the same
    # setting as `[serve] noun` in valid.toml (the demo writes it).
    config = ServeConfig(limits=Limits(rate_per_s=0), wording=WordingSettings(noun="generation"))
    app = create_app(LibraryReleases(Store(state), settings), config)
    with LiveServer(app) as running:
        wait_ready(running.url)
        running.app = app
        running.log = log
        yield running


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with headless_chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


def heading(driver):
    from selenium.webdriver.common.by import By

    return wait_for(
        driver,
        lambda d: (h := d.find_elements(By.ID, "result-heading")) and h[0].text and h[0],
        "no result heading appeared",
    )


def open_page(driver, server):
    from selenium.webdriver.common.by import By

    driver.get(server.url + "/")
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true",
             "the page did not load the active release")


def ask_by_keyboard(driver, question: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    label = driver.find_element(By.CSS_SELECTOR, "label[for=question]")
    assert label.text == "Your question"
    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    box.send_keys(Keys.CONTROL, Keys.ENTER)


def test_priya_sees_tpu7x_at_the_top_and_a_citation_that_opens_the_cited_text(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(browser, server)
    picker = Select(browser.find_element(By.ID, "generation"))
    assert [o.text for o in picker.options] == [
        "Decide from my question", "TPU v5p", "TPU v6e (Trillium)", "TPU7x (Ironwood)"
    ]
    assert browser.find_element(By.CSS_SELECTOR, "label[for=generation]").text == "Generation"

    ask_by_keyboard(browser, PRIYA)
    top = heading(browser)
    assert top.text == "Answer for TPU7x (Ironwood)"
    assert browser.switch_to.active_element == top, "focus moves to the result for keyboard users"
    links = browser.find_elements(By.CSS_SELECTOR, "#result a.cite")
    assert links, "the answer has no citation link"
    if os.environ.get("VALID_WRITE_SCREENSHOT") == "1":
        browser.save_screenshot(str(REPO / "docs" / "ask-page.png"))

    cite = links[0].get_attribute("data-cite")
    assert "#" not in links[0].text and links[0].text, "the citation reads as a title path, not a chunk id"
    path, _, anchor = cite.partition("#")
    links[0].click()
    wait_for(browser, lambda d: "/sources/" in d.current_url, "the citation link did not open")
    target = wait_for(browser, lambda d: d.execute_script("return document.querySelector(':target')"),
                      "the cited chunk is not the page's target")
    assert target.get_attribute("id") == anchor
    expected = httpx.get(f"{server.url}/v1/sources/{path}", params={"generation": "tpu7x"}).json()
    text = next(c["text"] for c in expected["chunks"] if c["id"] == cite)
    shown = target.find_element(By.CLASS_NAME, "chunk-text").text
    assert " ".join(shown.split()) == " ".join(text.split())
    assert target.is_displayed()


def test_unscoped_question_offers_generations_and_a_choice_answers_for_it(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    open_page(browser, server)
    ask_by_keyboard(browser, UNSCOPED)
    assert heading(browser).text == "Which generation do you mean?"
    buttons = browser.find_elements(By.CSS_SELECTOR, "#result button.choice")
    assert [b.text for b in buttons] == ["TPU v5p", "TPU v6e (Trillium)", "TPU7x (Ironwood)"]
    v6e = buttons[1]
    browser.execute_script("arguments[0].focus()", v6e)
    v6e.send_keys(Keys.ENTER)
    wait_for(browser, lambda d: d.find_element(By.ID, "result").get_attribute("data-outcome") == "answer",
             "choosing a generation did not answer")
    assert heading(browser).text == "Answer for TPU v6e (Trillium)"
    assert Select(browser.find_element(By.ID, "generation")).first_selected_option.text == "TPU v6e (Trillium)"
    assert browser.find_elements(By.CSS_SELECTOR, "#result a.cite")


def test_refusal_shows_its_reason_and_gap_issue_id(browser, server):
    from selenium.webdriver.common.by import By

    open_page(browser, server)
    ask_by_keyboard(browser, "Which software version do I use on TPU v4?")
    assert heading(browser).text == "No answer"
    assert "TPU v4" in browser.find_element(By.CSS_SELECTOR, "#result .reason").text
    issue = browser.find_element(By.CSS_SELECTOR, "#result .gap-issue code").text
    assert issue
    direct = httpx.post(f"{server.url}/v1/ask", json={"question": "Which software version do I use on TPU v4?"})
    assert direct.json()["refusal"]["gap_issue"] == issue


def test_a_comparison_shows_a_table_with_one_column_per_generation_and_a_citation_per_cell(browser, server):
    from selenium.webdriver.common.by import By

    open_page(browser, server)
    ask_by_keyboard(browser, "How does the software version differ between TPU v5p and TPU v6e?")
    top = heading(browser)
    assert top.text == "Comparison of TPU v5p and TPU v6e (Trillium)"
    columns = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#result table.comparison thead th")]
    assert columns == ["Part", "TPU v5p", "TPU v6e (Trillium)"]
    differs = browser.find_elements(By.CSS_SELECTOR, "#result table.comparison tr[data-kind=differs]")
    assert differs, "no row shows a difference"
    cells = {td.get_attribute("data-generation"): td for td in differs[0].find_elements(By.TAG_NAME, "td")}
    for generation, td in cells.items():
        link = td.find_element(By.CSS_SELECTOR, "a.cite")
        chunk = link.get_attribute("data-cite")
        path = chunk.partition("#")[0]
        view = httpx.get(f"{server.url}/v1/sources/{path}").json()
        assert generation in next(c["scope"] for c in view["chunks"] if c["id"] == chunk)
    assert "v2-alpha-tpuv5" in cells["v5p"].text and "v2-alpha-tpuv6e" not in cells["v5p"].text


def test_an_answer_about_the_versions_shows_its_kind_the_versions_and_a_citation_per_piece(browser, server):
    from selenium.webdriver.common.by import By

    open_page(browser, server)
    ask_by_keyboard(browser, "What is the newest generation documented?")
    assert heading(browser).text == "The latest generation"  # in the doc set's noun (valid.wording)
    named = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#result ul.versions-named li")]
    assert named == ["TPU7x (Ironwood)"]
    assert browser.find_element(By.CSS_SELECTOR, "#result .versions-evidence .scheme").text == "(subject scheme)"

    ask_by_keyboard(browser, "From which generation on does creating capacity need a reservation?")
    wait_outcome_heading(browser, "Since which generation")
    pieces = browser.find_elements(By.CSS_SELECTOR, "#result ol.versions-evidence li")
    assert [p.get_attribute("data-generation") for p in pieces] == ["v6e", "tpu7x"]
    for piece in pieces:
        chunk = piece.find_element(By.CSS_SELECTOR, "a.cite code").text
        view = httpx.get(f"{server.url}/v1/sources/{chunk.partition('#')[0]}").json()
        assert piece.get_attribute("data-generation") in next(c["scope"] for c in view["chunks"] if c["id"] == chunk)


def screenshot(driver, name: str) -> None:
    """The whole page, not only the window (the window is restored afterwards)."""
    if os.environ.get("VALID_WRITE_SCREENSHOT") != "1":
        return
    size = driver.get_window_size()
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(size["width"], min(4000, height + 140))
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(REPO / "docs" / name))
    driver.set_window_size(size["width"], size["height"])


def wait_outcome_heading(driver, text: str):
    return wait_for(driver, lambda d: (h := heading(d)).text == text and h, f"no heading {text!r}")


def test_a_two_turn_conversation_keeps_the_thread_and_answers_the_follow_up_for_its_generation(browser, server):
    from selenium.webdriver.common.by import By

    open_page(browser, server)
    ask_by_keyboard(browser, PRIYA)
    wait_outcome_heading(browser, "Answer for TPU7x (Ironwood)")
    ask_by_keyboard(browser, "and on v6e?")
    wait_outcome_heading(browser, "Answer for TPU v6e (Trillium)")
    assert browser.find_element(By.ID, "asked").text.endswith("and on v6e?")
    turns = browser.find_elements(By.CSS_SELECTOR, "#thread li.turn")
    assert len(turns) == 1, "the first turn moved into the thread"
    assert PRIYA in turns[0].find_element(By.CLASS_NAME, "you").text
    assert "Answer for TPU7x (Ironwood)" in turns[0].text
    assert not turns[0].find_elements(By.CSS_SELECTOR, "[id]"), "copied turns keep no ids"
    direct = httpx.post(f"{server.url}/v1/ask", json={"question": "Which --version do I pass when I create the VM?",
                                                     "generation": "v6e"}).json()
    shown = browser.find_element(By.CSS_SELECTOR, "#result .answer-text").text
    assert " ".join(shown.split()) == " ".join(direct["answers"][0]["answer"].split())
    screenshot(browser, "ask-conversation.png")

    browser.find_element(By.ID, "new-conversation").click()
    assert not browser.find_elements(By.CSS_SELECTOR, "#thread li.turn")


def test_a_reloaded_page_restores_the_thread_and_follows_up_in_it(browser, server):
    from selenium.webdriver.common.by import By

    open_page(browser, server)
    ask_by_keyboard(browser, PRIYA)
    wait_outcome_heading(browser, "Answer for TPU7x (Ironwood)")
    ask_by_keyboard(browser, "and on v6e?")
    wait_outcome_heading(browser, "Answer for TPU v6e (Trillium)")
    conversation = browser.execute_script("return state.conversation")
    assert f"conversation={conversation}" in browser.current_url

    browser.refresh()
    wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true",
             "the reloaded page did not load the active release")
    turns = browser.find_elements(By.CSS_SELECTOR, "#thread li.turn")
    assert [t.find_element(By.CLASS_NAME, "you").text for t in turns] == [PRIYA, "and on v6e?"]
    assert [t.find_element(By.TAG_NAME, "h2").text for t in turns] == [
        "Answer for TPU7x (Ironwood)", "Answer for TPU v6e (Trillium)"
    ]
    assert browser.execute_script("return state.conversation") == conversation

    ask_by_keyboard(browser, "and on v5p?")
    wait_outcome_heading(browser, "Answer for TPU v5p")
    stored = server.app.state.conversations.turns(conversation)
    assert [t["question"] for t in stored] == [PRIYA, "and on v6e?", "and on v5p?"], "the follow-up joined the thread"

    browser.find_element(By.ID, "new-conversation").click()
    assert "conversation=" not in browser.current_url


def test_feedback_with_a_reason_is_recorded_for_the_answer(browser, server):
    from selenium.webdriver.common.by import By

    open_page(browser, server)
    ask_by_keyboard(browser, PRIYA)
    wait_outcome_heading(browser, "Answer for TPU7x (Ironwood)")
    answer_id = browser.execute_script("return state.answerId")
    form = browser.find_element(By.CSS_SELECTOR, "#result form.feedback")
    form.find_element(By.CSS_SELECTOR, "button[data-rating=down]").click()
    browser.find_element(By.CSS_SELECTOR, "label[for=reason-wrong_version]").click()
    browser.find_element(By.ID, "feedback-comment").send_keys("I meant the other flag")
    browser.find_element(By.ID, "send-feedback").click()
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#result form.feedback").get_attribute("data-sent")
             == "true", "the feedback was not recorded")
    assert "recorded" in form.find_element(By.CLASS_NAME, "feedback-status").text
    stored = server.app.state.conversations.feedback(answer_id)
    assert (stored["rating"], stored["reasons"], stored["comment"]) == ("down", ["wrong_version"],
                                                                        "I meant the other flag")


def test_the_page_opened_for_one_generation_answers_for_it(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server.url + "/?generation=Ironwood")
    wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true",
             "the page did not load the active release")
    assert browser.find_element(By.ID, "page-scope").text == "Questions here are answered for TPU7x (Ironwood)."
    assert Select(browser.find_element(By.ID, "generation")).first_selected_option.text == "TPU7x (Ironwood)"
    ask_by_keyboard(browser, "Which --version do I pass when I create the VM?")
    wait_outcome_heading(browser, "Answer for TPU7x (Ironwood)")
    screenshot(browser, "ask-page-generation.png")


def test_the_log_dashboard_renders_its_charts(browser, server, tmp_path):
    from click.testing import CliRunner
    from selenium.webdriver.common.by import By

    from valid.cli import main

    httpx.post(f"{server.url}/v1/ask", json={"question": "Which software version do I use on TPU v4?"})
    rated = httpx.post(f"{server.url}/v1/ask", json={"question": PRIYA}).headers["x-valid-answer-id"]
    httpx.post(f"{server.url}/v1/feedback", json={"answer_id": rated, "rating": "down", "reasons": ["unclear"]})
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["log", "--question-log", str(server.log), "report", "--out", str(out)])
    assert result.exit_code == 0, result.output
    browser.get(out.as_uri())
    for section in ("per-day", "refused", "feedback", "down-voted", "latency", "cost", "generations"):
        assert browser.find_element(By.ID, section).is_displayed()
    bars = browser.find_elements(By.CSS_SELECTOR, "svg[aria-label='Questions per day by outcome'] rect")
    assert bars and all(b.size["height"] > 0 for b in bars)
    refused = browser.find_element(By.CSS_SELECTOR, "table tbody").text
    assert "TPU v4" in refused
    assert browser.find_elements(By.CSS_SELECTOR, "svg[aria-label='Feedback by reason'] rect")
    down_voted = browser.find_elements(By.CSS_SELECTOR, "table tbody")[1].text
    assert PRIYA in down_voted and "unclear" in down_voted
    assert "offline: no model cost" in browser.find_element(By.TAG_NAME, "body").text
    assert not browser.find_elements(By.TAG_NAME, "script"), "the dashboard is charts without code"
    screenshot(browser, "log-report.png")


# -- a second doc set: Corvane, profiled by @release, published on the team's own site ------------

PUBLISHED = "https://docs.example.com/corvane/{build}/{path}#{fragment}"
BOTH = "Where is the configuration file in Corvane CLI 1.0.0 and Corvane CLI 1.1.0?"


@pytest.fixture(scope="module")
def corvane(corvane_build, tmp_path_factory):
    log = tmp_path_factory.mktemp("browser-corvane") / "questions.sqlite"
    settings = EngineSettings(question_log=log, issues_dir=log.parent / "issues",
                              published=PublishedPages(template=PUBLISHED))
    # No wording setting: every word comes from the doc set itself.
    app = create_app(LibraryReleases(Store(corvane_build.state), settings), ServeConfig(limits=Limits(rate_per_s=0)))
    with LiveServer(app) as running:
        wait_ready(running.url)
        yield running


def test_a_second_doc_set_gets_its_own_title_noun_hint_and_examples(browser, corvane):
    from selenium.webdriver.common.by import By

    open_page(browser, corvane)
    assert browser.title == "Ask the Corvane documentation"
    assert browser.find_element(By.TAG_NAME, "h1").text == "Ask the Corvane documentation"
    assert "Corvane documentation written for your release" in browser.find_element(By.CLASS_NAME, "tagline").text
    assert browser.find_element(By.CSS_SELECTOR, "label[for=generation]").text == "Release"
    hint = browser.find_element(By.ID, "question-help").text
    assert "Name your release" in hint and "“and on Birchmoor?”" in hint  # a name the scheme gives cli-1.1.0
    assert "“Ashgrove”, “Birchmoor” or “Breakwater”" in browser.find_element(By.ID, "generation-help").text
    page = browser.find_element(By.TAG_NAME, "body").text
    assert not any(word in page for word in ("TPU", "Generation", "generation", "v6e")), "another doc set's words"

    ask_by_keyboard(browser, "What is a vault?")
    assert heading(browser).text == "Which release do you mean?"
    assert "depends on the release" in browser.find_element(By.CSS_SELECTOR, "#result p").text


def test_builds_whose_answers_agree_get_one_answer_whose_citation_goes_to_the_published_page(browser, corvane):
    from selenium.webdriver.common.by import By

    direct = httpx.post(f"{corvane.url}/v1/ask", json={"question": BOTH}).json()
    (only,) = direct["answers"]  # one answer object carrying both releases
    assert only["generations"] == ["cli-1.0.0", "cli-1.1.0"] and only["generation"] == "cli-1.0.0"
    step = only["steps"][0]

    open_page(browser, corvane)
    ask_by_keyboard(browser, BOTH)
    wait_outcome_heading(browser, "Answer for Corvane CLI 1.0.0 and Corvane CLI 1.1.0")
    parts = browser.find_elements(By.CSS_SELECTOR, "#result section.generation-answer")
    assert len(parts) == 1, "builds that agree are shown once"
    assert parts[0].find_element(By.TAG_NAME, "h3").text == "For Corvane CLI 1.0.0 and Corvane CLI 1.1.0:"
    assert parts[0].get_attribute("data-generations") == "cli-1.0.0 cli-1.1.0"

    link = parts[0].find_element(By.CSS_SELECTOR, "a.cite")
    assert link.text == " › ".join(step["title_path"]) == "Configuration file › Location"
    assert link.get_attribute("data-cite") == step["cite"]
    assert link.get_attribute("href") == (
        "https://docs.example.com/corvane/cli-1.0.0/cli/configuration.html#cli-configuration__location")
    also = parts[0].find_element(By.CSS_SELECTOR, ".also a.published")
    assert also.text == "Corvane CLI 1.1.0"
    assert also.get_attribute("href") == step["pages"]["cli-1.1.0"]
    assert "/cli-1.1.0/cli/configuration.html#" in also.get_attribute("href")

    # The release id is in the JSON and in a closed details element, not in the reader's way.
    assert direct["release"] not in browser.find_element(By.TAG_NAME, "body").text
    details = browser.find_element(By.CSS_SELECTOR, "#result details.run")
    assert details.get_attribute("open") is None
    assert direct["release"] in details.get_attribute("textContent")
    screenshot(browser, "ask-page-corvane.png")


def test_the_reader_who_picked_a_build_is_sent_to_that_builds_published_page(browser, corvane):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(browser, corvane)
    Select(browser.find_element(By.ID, "generation")).select_by_visible_text("Corvane CLI 1.1.0")
    ask_by_keyboard(browser, "Where is the configuration file?")
    wait_outcome_heading(browser, "Answer for Corvane CLI 1.1.0")
    link = browser.find_element(By.CSS_SELECTOR, "#result a.cite")
    assert link.get_attribute("href").startswith("https://docs.example.com/corvane/cli-1.1.0/cli/configuration.html#")
    assert "#" not in link.text


def test_each_side_of_a_comparison_links_to_its_own_builds_published_page(browser, corvane):
    from selenium.webdriver.common.by import By

    open_page(browser, corvane)
    ask_by_keyboard(browser, "How does the configuration file location differ between Corvane CLI 1.1.0 and "
                             "Corvane CLI 2.3.0?")
    wait_outcome_heading(browser, "Comparison of Corvane CLI 1.1.0 and Corvane CLI 2.3.0")
    links = {td.get_attribute("data-generation"): td.find_element(By.CSS_SELECTOR, "a.cite")
             for td in browser.find_elements(By.CSS_SELECTOR, "#result table.comparison td")
             if td.find_elements(By.CSS_SELECTOR, "a.cite")}
    assert set(links) == {"cli-1.1.0", "cli-2.3.0"}
    for build, link in links.items():
        assert link.get_attribute("href").startswith(f"https://docs.example.com/corvane/{build}/cli/")
        assert "#" not in link.text and link.get_attribute("data-cite")
