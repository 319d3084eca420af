"""Builds that each keep their own copy of a topic, split by the export only where a key resolves to
each product's name (`<id>~<profiles>`: the Oxygen guide's preferences pages, one copy per product),
are told the same thing: a question naming no build is answered once for them, each from its own
copy, not asked back (issue 25 item 4). Copies that differ in anything else are not one text, even
where the line quoted is the same: the reader chooses. Real release: the small Cloud TPU-shaped
export, embedded Chroma, FTS5."""

import pytest
from fixtures.answer.index import engine_over

COPIES = [
    ("monitor.dita#monitor/body~v5p", "Monitoring agent", "body", ["v5p"],
     "The TPU v5p monitoring agent samples chip metrics every 15 seconds. The TPU v5p dashboard keeps "
     "the samples for 30 days."),
    ("monitor.dita#monitor/body~v6e", "Monitoring agent", "body", ["v6e"],
     "The Trillium monitoring agent samples chip metrics every 15 seconds. The Trillium dashboard keeps "
     "the samples for 30 days."),
    # The same line in both copies, but the copies differ in a value: not one text.
    ("uploads.dita#uploads/body~v5p", "Log uploads", "body", ["v5p"],
     "The TPU v5p log agent uploads its log files every 60 seconds. Uploaded log files are kept for 7 days."),
    ("uploads.dita#uploads/body~v6e", "Log uploads", "body", ["v6e"],
     "The Trillium log agent uploads its log files every 60 seconds. Uploaded log files are kept for 14 days."),
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    with engine_over(tmp_path_factory.mktemp("copies"), COPIES) as opened:
        yield opened


def test_copies_that_differ_only_by_the_products_names_are_answered_once_each_from_its_own(engine):
    answer = engine.ask("How often does the monitoring agent sample chip metrics?").answer
    assert answer.outcome == "answer", (answer.outcome, answer.choices)
    assert sorted(answer.scope) == ["v5p", "v6e"]
    cites = {a.generation: a.steps[0].cite for a in answer.answers}
    assert cites == {"v5p": "monitor.dita#monitor/body~v5p", "v6e": "monitor.dita#monitor/body~v6e"}
    assert all("every 15 seconds" in a.answer for a in answer.answers)
    # Each build's answer is its own copy: no other build's name reaches it.
    v5p = next(a for a in answer.answers if a.generation == "v5p")
    assert "Trillium" not in v5p.answer + "".join(s.text for s in v5p.steps)


def test_copies_that_differ_in_a_value_are_not_one_text_and_the_reader_chooses(engine):
    answer = engine.ask("How often does the log agent upload its log files?").answer
    assert answer.outcome == "ask", (answer.outcome, answer.scope)
    assert sorted(c.generation for c in answer.choices) == ["v5p", "v6e"]
