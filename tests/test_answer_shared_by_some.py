"""A question that names no build, on a topic the writers profiled for some builds only, where those
builds keep one text alike (the Oxygen guide's desktop-only topics, shared by seven of its 19
products): answered once for the builds that have it, the others named as lacking it, not asked back
(issue 25 item 4). Where a build that has it also has content of its own near the question, the
reader still chooses. Real release: the small Cloud TPU-shaped export, embedded Chroma, FTS5."""

import pytest
from fixtures.answer.index import engine_over

QUEUED = [
    ("queued.dita#queued/body", "Queued resources", "body", ["v5p", "v6e"],
     "A queued resource request asks for TPU capacity that is allocated when it becomes available. "
     "A queued resource request waits in the queue for up to 30 days by default, then expires."),
    ("queued.dita#queued/states", "Queued resource states", "section", ["v5p", "v6e"],
     "A queued resource request is WAITING_FOR_RESOURCES while it waits in the queue, ACTIVE once its "
     "capacity is allocated, and FAILED when the request expires."),
    ("queued.dita#queued/delete", "Delete a queued resource request", "section", ["v5p", "v6e"],
     "Delete a queued resource request that waits in the queue and no longer needs capacity with "
     "gcloud compute tpus queued-resources delete."),
]
QUESTION = "How long does a queued resource request wait in the queue by default before it expires?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    with engine_over(tmp_path_factory.mktemp("shared-by-some"), QUEUED) as opened:
        yield opened


def test_a_topic_only_some_builds_keep_alike_is_answered_once_for_them(engine):
    answer = engine.ask(QUESTION).answer
    assert answer.outcome == "answer", (answer.outcome, answer.choices)
    assert sorted(answer.scope) == ["v5p", "v6e"]
    assert all("30 days" in a.answer for a in answer.answers)
    assert {a.steps[0].cite for a in answer.answers} == {"queued.dita#queued/body"}
    # The build without it is named as lacking it, never answered from another build's text.
    assert answer.refusal is not None and "TPU7x" in answer.refusal.reason


def test_the_build_named_still_gets_its_own_scope(engine):
    assert engine.ask(QUESTION, "tpu7x").answer.outcome == "refuse"
    assert engine.ask(QUESTION, "v6e").answer.outcome == "answer"


# A build whose content is nearest the question in meaning is left out by a term it lacks: the
# text the others share is only the next best match, and the reader chooses.
NEARER_ELSEWHERE = [
    ("dashboard.dita#dashboard/body", "Dashboard colors", "body", ["v5p", "v6e"],
     "The monitoring dashboard draws each chart with the --palette flag colors. A site can show its "
     "logo on the dashboard; upload the image in the SVG or JPEG format."),
    ("dashboard.dita#dashboard/themes", "Dashboard themes", "section", ["v5p", "v6e"],
     "A dashboard theme sets the chart colors; the --palette flag overrides the theme's colors for the site."),
    ("dashboard.dita#dashboard/export", "Export a dashboard", "section", ["v5p", "v6e"],
     "Export a dashboard with its chart colors as an image; the --palette flag colors are kept."),
    ("logo.dita#logo/body", "Site settings", "body", ["tpu7x"],
     "You can upload a logo image in PNG or GIF format as the logo of a site configuration; "
     "the site settings page shows the image formats it accepts."),
]


@pytest.fixture(scope="module")
def nearer_engine(tmp_path_factory):
    with engine_over(tmp_path_factory.mktemp("nearer-elsewhere"), NEARER_ELSEWHERE) as opened:
        yield opened


def test_builds_sharing_a_text_are_not_answered_when_a_build_left_out_is_nearer_the_question(nearer_engine):
    answer = nearer_engine.ask("Which image formats can I upload as the site logo with the --palette flag colors?").answer
    assert answer.outcome != "answer" or "tpu7x" in answer.scope, (answer.outcome, answer.scope)
