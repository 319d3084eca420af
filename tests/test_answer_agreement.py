"""One answer when the builds agree (issue 25 item 4): a question naming no build whose in-scope
answers say the same in every candidate build is answered once for them, each build's answer cited
from and checked against that build's own content; builds that say different things are asked back.
A real release (Chroma + FTS5, offline embedder) over the small Cloud TPU-shaped fixture, with
topics kept as one copy per generation (no conref, no shared chunk)."""

import pytest
from fixtures.answer.export import NAMES, build_export
from fixtures.answer.index import build_state, offline_engine, scopes

from valid.answer.agree import agree, what_is_said
from valid.answer.text import terms
from valid.answer.models import GenerationAnswer, Step

DELETE_QR = "To delete a queued resource, run:\n\ngcloud compute tpus queued-resources delete ${QR_ID} --zone=${ZONE}"
# One copy of the same topic per generation: the same words, three chunk ids, each in one scope.
COPIES = [
    (f"{p}/queued-resources.dita#{p}-queued-resources/delete", "Delete a queued resource", "section", [p], DELETE_QR)
    for p in NAMES
]
# One copy per generation that says a different thing in each: the reader has to choose.
RETENTION = {"v5p": "30 days", "v6e": "14 days", "tpu7x": "7 days"}
DIFFERING = [
    (f"{p}/logs.dita#{p}-logs/retention", "Log retention", "section", [p],
     f"Serial port logs of a TPU VM are kept for {RETENTION[p]} after the VM is deleted.")
    for p in NAMES
]
# Two copies agree and the third build has no such topic.
PREEMPT = "A preemptible TPU VM can be stopped at any time; to recreate it, delete it and create it again."
PARTIAL = [
    (f"{p}/preemptible.dita#{p}-preemptible/recreate", "Preemptible TPU VMs", "section", [p], PREEMPT)
    for p in ("v5p", "v6e")
]

# The build whose topic is the question's states the count in words the selection does not read as a
# number; two builds that lack the topic have a passage with a number beside the counted word.
CONSOLE = [
    ("tpu7x/console.dita#tpu7x-console/body", "Console view", "section", ["tpu7x"],
     "The Console view keeps the latest thousand lines of output; older output is dropped."),
    *[
        (f"{p}/compare.dita#{p}-compare/examples", "Compare script examples", "section", [p],
         "Example 2: the Console view compares two output files line by line; it keeps the old lines and drops none.")
        for p in ("v5p", "v6e")
    ],
]

# One chunk every build keeps states a value; v6e's own chunk on the same topic says otherwise in
# fewer of the question's words, so each build's selection quotes the shared chunk.
RETRY = [
    ("common/retries.dita#retries/body", "Retrying failed queued resources", "section", list(NAMES),
     "Failed queued resource requests are retried automatically for 30 days before they are deleted."),
    ("v6e/retries.dita#v6e-retries/limit", "Retrying failed queued resources", "section", ["v6e"],
     "On v6e the limit is one week instead."),
]


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return build_state(
        tmp_path_factory.mktemp("agree"), build_export(extra=[*COPIES, *DIFFERING, *PARTIAL, *CONSOLE, *RETRY])
    )


@pytest.fixture
def engine(state, tmp_path):
    with offline_engine(state, tmp_path) as e:
        yield e


def test_a_question_naming_no_build_is_answered_once_when_every_build_says_the_same(engine):
    answer = engine.ask("How do I delete a queued resource?").answer
    assert answer.outcome == "answer" and answer.choices == []
    assert answer.scope == NAMES
    said = {what_is_said(a) for a in answer.answers}
    assert len(said) == 1 and "queued-resources delete" in answer.answers[0].steps[0].text
    assert sorted(g for a in answer.answers for g in a.generations) == sorted(NAMES)
    assert answer.checks["passed"] is True and answer.checks["out_of_scope_values"] == 0


def test_one_copy_per_version_agrees_by_text_not_by_chunk(engine):
    answer = engine.ask("How do I delete a queued resource?").answer
    assert answer.outcome == "answer" and len(answer.answers) == len(NAMES)  # three copies, three cites
    # Each build's answer cites that build's own copy: wrong-generation safety per build.
    for item in answer.answers:
        assert all(scopes(engine)[s.cite] == item.generations for s in item.steps)
        assert {s.cite.split("/")[0] for s in item.steps} == set(item.generations)


def test_builds_that_say_different_things_are_still_asked_back(engine):
    answer = engine.ask("How long are serial port logs kept after the VM is deleted?").answer
    assert answer.outcome == "ask" and answer.answers == []
    assert [c.generation for c in answer.choices] == NAMES


def test_builds_that_have_no_answer_are_named_when_the_others_agree(engine):
    answer = engine.ask("How do I recreate a preemptible TPU VM that was stopped?").answer
    assert answer.outcome == "answer"
    assert sorted(g for a in answer.answers for g in a.generations) == ["v5p", "v6e"]
    assert answer.refusal is not None and "TPU7x" in answer.refusal.reason
    assert "preemptible" in answer.answers[0].answer.lower() or "preemptible" in answer.answers[0].steps[0].text.lower()


def test_builds_agreeing_by_chance_are_not_answered_when_a_build_nearer_the_question_has_no_answer(engine):
    # v5p and v6e "agree" on a passage that only shares words with the question; TPU7x's topic is the
    # question's. Answering v5p and v6e would tell a reader who named no build their builds' text.
    answer = engine.ask("How many lines does the Console view keep before old output is dropped?").answer
    assert answer.outcome != "answer" or "tpu7x" in answer.scope, answer
    assert not any("Example 2" in a.answer for a in answer.answers)


def test_the_same_shared_chunk_quoted_for_every_build_is_no_agreement_where_a_build_has_its_own_content(engine):
    # Routing found v6e content of its own on the topic, so the shared chunk was not judged to answer
    # alone; every build quoting it is what the selection read, not what each build says.
    answer = engine.ask("For how many days are failed queued resource requests retried before they are deleted?").answer
    assert answer.outcome != "answer" or "v6e" not in answer.scope, [a.answer for a in answer.answers]


def _said(generation, text, cite, unit=None):
    return GenerationAnswer(generation=generation, answer=text, steps=[Step(text=unit or text, cite=cite)])


def test_agreement_ignores_spacing_case_and_chunk_but_not_words():
    a = _said("v5p", "Run  gcloud compute tpus list.", "v5p/a.dita#a/x")
    b = _said("v6e", "run gcloud compute tpus list.", "v6e/a.dita#a/x")
    c = _said("tpu7x", "Run gcloud compute tpus describe.", "tpu7x/a.dita#a/x")
    assert agree([a, b]) and not agree([a, b, c]) and not agree([a])


def test_a_value_told_by_the_same_line_agrees_though_one_builds_unit_says_more():
    line = "The toolkit runs on Java 17 or later."
    a = _said("windows", line, "install.dita#i/prereq~windows", line + " HTML Help Workshop is also needed.")
    b = _said("linux", line, "install.dita#i/prereq~linux", line)
    assert agree([a, b], by_line=True) and not agree([a, b])


def test_a_line_that_agrees_beside_units_with_different_values_is_not_agreement():
    line = "Enable the Cloud TPU API for your project."
    a = _said("v5p", line, "create.dita#c/steps~v5p", line + "\nSet the software version to v2-alpha-tpuv5.")
    b = _said("v6e", line, "create.dita#c/steps~v6e", line + "\nSet the software version to v2-alpha-tpuv6e.")
    assert not agree([a, b], by_line=True)


def test_each_builds_own_name_is_no_difference_but_another_builds_name_or_value_is():
    # A key resolved to the product's name in each build: the same instruction for each reader.
    a = _said("editor", "To install Oxygen XML Editor on macOS, open the disk image.", "install.dita#i/mac~editor")
    b = _said("author", "To install Oxygen XML Author on macOS, open the disk image.", "install.dita#i/mac~author")
    names = {"editor": ["Oxygen XML Editor"], "author": ["Oxygen XML Author"]}
    assert agree([a, b], names=names)
    assert not agree([a, b])  # without the names, the words differ
    # The author build's answer naming the Editor is not its own name: a real difference.
    c = _said("author", "To install Oxygen XML Editor on macOS, open the disk image.", "install.dita#i/mac~author")
    assert not agree([a, c], names=names)
    # Nor is a value that differs beside the names.
    d = _said("author", "To install Oxygen XML Author on macOS, open oxygenAuthor.dmg.", "install.dita#i/mac~author")
    e = _said("editor", "To install Oxygen XML Editor on macOS, open oxygen.dmg.", "install.dita#i/mac~editor")
    assert not agree([d, e], names=names)


def test_a_line_that_agrees_beside_units_differing_in_a_sentence_about_the_question_is_not_agreement():
    # The line is the same; one build's list of default formats has one more entry: that build's
    # reader is told something the others are not, whatever the line.
    line = "To list the formats that are available in your environment, use dita transtypes."
    lead = "By default, the following values are available:"
    windows = _said("windows", line, "args.dita#a/format~windows", f"{line}\n{lead}\n- html5\n- htmlhelp\n- pdf")
    linux = _said("linux", line, "args.dita#a/format~linux", f"{line}\n{lead}\n- html5\n- pdf")
    asked = frozenset(terms("Which --format values are available by default?"))
    assert not agree([windows, linux], by_line=True, asked_terms=asked)
    # A sentence the units differ in that says nothing the question asks about is no difference.
    java = "The toolkit runs on Java 17 or later."
    a = _said("windows", java, "install.dita#i/prereq~windows", java + " HTML Help Workshop is also needed.")
    b = _said("linux", java, "install.dita#i/prereq~linux", java)
    assert agree([a, b], by_line=True, asked_terms=frozenset(terms("Which Java version does the toolkit need?")))


def test_an_item_one_build_adds_to_a_list_whose_lead_in_only_touches_the_question_is_no_difference():
    # "Which Java version?": every build says Java 17; the Windows list of where to get Java adds a
    # Windows-only prerequisite. The list's lead-in shares one word with the question, the added
    # item none: context, not another answer.
    java = "DITA-OT 4.4 is designed to run on Java version 17 or later."
    lead = "Compatible Java distributions are available from multiple sources:"
    items = "- Eclipse Temurin is available from adoptium.net.\n- Amazon Corretto is free."
    windows = _said("windows", java, "install.dita#i/prereq~windows",
                    f"{java} {lead}\n{items}\n- If you want to generate HTML Help, install HTML Help Workshop.")
    linux = _said("linux", java, "install.dita#i/prereq~linux", f"{java} {lead}\n{items}")
    asked = frozenset(terms("What Java version is DITA-OT 4.4 designed to run on?"))
    assert agree([windows, linux], by_line=True, asked_terms=asked)
    # An added item that names what is asked is a difference, whatever its lead-in.
    jdk = _said("windows", java, "install.dita#i/prereq~windows", f"{java} {lead}\n{items}\n- Java version 21 is also tested.")
    assert not agree([jdk, linux], by_line=True, asked_terms=asked)


def _told(generation, *units):
    """An answer whose line is its first unit's text; `units` are (text, cite) pairs."""
    return GenerationAnswer(
        generation=generation, answer=units[0][0], steps=[Step(text=t, cite=c) for t, c in units]
    )


KEY = ("It is possible to get a PDF that the viewer cannot open; set pdf.version to 1.4.", "pdf.dita#pdf/damaged")
MORE = ("The first thing to try is to check the file structure with a validator.", "pdf.dita#pdf/check")


def test_answers_agree_on_their_answering_unit_though_one_reads_on_into_text_every_build_keeps():
    # The same line and answering unit, the same values; one build's selection quoted one more unit
    # from a chunk every build keeps: each reader could be told it, so they are told the same thing.
    a, b = _told("editor", KEY, MORE), _told("author", KEY)
    shared = {KEY[1], MORE[1]}
    assert agree([a, b], kept_by_all=shared)
    assert not agree([a, b])  # without knowing where the units come from, every unit must match


def test_a_unit_one_build_quotes_from_content_profiled_for_it_is_a_difference():
    # The further unit comes from a chunk only that build keeps (a platform's row): the writers
    # profiled it because it differs, so that build's reader is told something the others are not.
    row = ("Windows | set ANT_OPTS=%ANT_OPTS% -Xmx1024m", "memory.dita#memory/command~windows")
    a, b = _told("windows", KEY, row), _told("linux", KEY)
    assert not agree([a, b], kept_by_all={KEY[1]})


def test_a_further_unit_stating_another_value_is_a_difference_wherever_it_comes_from():
    version = ("Publishing templates target PDF version 1.7 by default.", "pdf.dita#pdf/templates")
    a, b = _told("editor", KEY, version), _told("author", KEY)
    assert not agree([a, b], kept_by_all={KEY[1], version[1]})


def test_answers_whose_answering_units_differ_never_agree_by_what_follows():
    other = ("Open the PDF in another viewer to see whether the file is damaged.", "pdf.dita#pdf/other")
    assert not agree([_told("editor", KEY, MORE), _told("author", other, MORE)], kept_by_all={KEY[1], MORE[1], other[1]})
