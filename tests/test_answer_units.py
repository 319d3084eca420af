"""The answer as the writer wrote it (issue 25 items 3 and 5): the offline answerer's line and steps
on hand-made in-scope chunks (pure: no index), and on a real release where the export split a step's
profiled choicetable into its own chunk."""

import pytest
from fixtures.answer.export import NAMES, build_export
from fixtures.answer.index import build_state, offline_embedder

from valid.answer.generate import OfflineExtractive
from valid.answer.models import EvidenceChunk
from valid.answer.prompt import GenerationRequest
from valid.answer.wiring import open_engine


def chunk(text, cid="topics/run.dita#run/body", title="Running the toolkit", scope=("linux",)):
    return EvidenceChunk(id=cid, alias="c1", text=text, title=title, scope=list(scope))


def draft(question, *chunks, scope=("linux",), labels=("Linux",)):
    request = GenerationRequest(
        question=question, scope=list(scope), labels=list(labels), chunks=list(chunks), profiles=["windows", "linux"]
    )
    return OfflineExtractive().generate(request)


def test_no_yes_or_no_the_cited_content_does_not_state():
    # The content lists subcommands; whether a preview server is one of them it does not say.
    said = draft("Is there a dita serve command that starts a local preview server?",
                 chunk("The dita command has subcommands such as install, uninstall and plugins."))
    assert said.steps and not said.answer.startswith(("Yes", "No")), said.answer
    # A negation about something else is not a No to what was asked.
    said = draft("Does the toolkit run on Android phones?",
                 chunk("The toolkit runs on any computer with Java 17; it does not need administrator rights."))
    assert said.steps and not said.answer.startswith(("Yes", "No")), said.answer


def test_a_yes_or_no_the_cited_content_states_is_kept():
    said = draft("Is TensorFlow supported on this platform?", chunk("TensorFlow is not supported on this platform."))
    assert said.answer.startswith("No. ")
    said = draft("Does the toolkit support PDF output?", chunk("The toolkit supports PDF output and HTML5 output."))
    assert said.answer.startswith("Yes. ")


# -- a step and the choicetable the export split from it ------------------------------------------

STEPS_ID = "profiling.dita#profiling/steps-1"
PROFILE_STEPS = (
    "1. Connect to the TPU VM over SSH.\n"
    "2. Issue the following command to start the profiler:\n"
    "   where duration is how long to capture, in seconds."
)
COMMANDS = {"v5p": "tpuprof start --duration=60", "v6e": "tpuprof-v6 start --duration=60 --trace", "tpu7x": "xprof capture --seconds=60"}


@pytest.fixture(scope="module")
def split_state(tmp_path_factory):
    extra = [(STEPS_ID, "Start the profiler", "steps", NAMES, PROFILE_STEPS)] + [
        (f"profiling.dita#profiling/choicetable-1~{p}", "Start the profiler", "table", [p], f"Generation | Command\n{p} | {COMMANDS[p]}")
        for p in NAMES
    ]
    export = build_export(extra=extra)
    where = {STEPS_ID: "/task[1]/taskbody[1]/steps[1]"}
    where |= {f"profiling.dita#profiling/choicetable-1~{p}": "/task[1]/taskbody[1]/steps[1]/step[2]/choicetable[1]" for p in NAMES}
    chunks = [
        c.model_copy(update={"source": c.source.model_copy(update={"xpath": where[c.id]})}) if c.id in where else c
        for c in export.chunks
    ]
    return build_state(tmp_path_factory.mktemp("parts"), export.model_copy(update={"chunks": chunks}))


def test_a_step_is_shown_with_the_command_of_the_choicetable_its_build_keeps(split_state, tmp_path):
    with open_engine(split_state, embedder=offline_embedder(), issues_dir=tmp_path / "i", log_path=tmp_path / "q.sqlite") as engine:
        answer = engine.ask("On TPU v5p, how do I start the profiler?").answer
        assert answer.outcome == "answer" and answer.scope == ["v5p"]
        (only,) = answer.answers
        texts = [s.text for s in only.steps]
        cites = [s.cite for s in only.steps]
        step = next(i for i, t in enumerate(texts) if "Issue the following command" in t)
        # The command of the v5p build comes right after its step, cited from its own chunk.
        assert COMMANDS["v5p"] in texts[step + 1] and cites[step + 1].endswith("~v5p")
        shown = " ".join(texts) + only.answer
        assert COMMANDS["v6e"] not in shown and COMMANDS["tpu7x"] not in shown
        assert answer.checks["passed"] is True and answer.checks["out_of_scope_values"] == 0


# -- a definition entry: its term with each line of its description --------------------------------

EXTENSION_POINTS = (
    "These extension points are available:\n"
    "- ant.import\n"
    "  Adds an Ant import to the main Ant build file.\n"
    "- dita.conductor.lib.import\n"
    "  Adds a Java library to the toolkit classpath.\n"
    "- dita.xsl.messages\n"
    "  Adds new diagnostic messages to the toolkit.\n"
    "  Note: To override a message, use the same ID and set its severity:\n"
    "  <message id=\"DOTX001W\" type=\"WARN\">\n"
    "- A list item that is a sentence of its own.\n"
)


def test_a_description_answers_with_the_term_it_describes():
    # The value asked for is the term; the words asked about are in its description, a line below.
    # The terms are marked as code by the writers (the export lists such phrases with the chunk).
    terms = EvidenceChunk(id="topics/points.dita#points/body", alias="c1", text=EXTENSION_POINTS,
                          title="Plug-in extension points", scope=["linux"],
                          code=["ant.import", "dita.conductor.lib.import", "dita.xsl.messages"])
    said = draft("Which extension point adds my plug-in's Java library to the classpath?", terms)
    assert "dita.conductor.lib.import" in said.answer, said.answer
    assert "ant.import" not in said.answer.replace("conductor.lib.import", "")


def test_each_line_of_a_description_is_a_unit_with_its_term_and_a_line_ending_in_a_colon_takes_the_next():
    from valid.answer.extract import split_units

    units = split_units(chunk(EXTENSION_POINTS), 0)
    entries = [u.text for u in units if u.kind == "entry"]
    assert entries[1] == "dita.conductor.lib.import\n  Adds a Java library to the toolkit classpath."
    assert entries[3].startswith("dita.xsl.messages\n  Note: To override") and entries[3].endswith('type="WARN">')
    assert [u.text for u in units if u.kind == "item"][-1] == "A list item that is a sentence of its own."


def test_a_lead_in_before_a_lead_in_takes_it_with_what_that_one_introduces():
    from valid.answer.extract import split_units

    # The figure after "will be:" is not in the text; the next paragraph introduces the code block.
    rotate = chunk("The resulting output will be:\n\nThe built-in CSS applies the following properties:\n\n"
                   "*[rotate='1'] {\n  transform: rotate(270deg);\n}", cid="topics/rotate.dita#rotate/body",
                   title="How to Rotate Content from a Table Cell")
    units = split_units(rotate, 0)
    assert [u.kind for u in units] == ["lead-in"]
    assert units[0].text.startswith("The resulting output will be:\nThe built-in CSS") and "rotate(270deg)" in units[0].text
    said = draft("How is the content of a table cell rotated?", rotate)
    assert "rotate(270deg)" in said.steps[0].text, said


def test_a_topic_titled_by_the_name_asked_about_says_what_its_bare_statements_are_about():
    # Two options' reference topics, each titled by its name: the other option's topic mentions the
    # name asked about in passing, in a sentence about its own default.
    other = chunk("Type: numeric\n\nDefault:\nThe default setting for this option is the lower of 80% of the "
                  "MEM_LIMIT setting, or the MEM_LIMIT setting minus 100 MB.",
                  cid="topics/buffer_pool_limit.dita#buffer_pool_limit/body", title="BUFFER_POOL_LIMIT Query Option")
    own = chunk("The MEM_LIMIT query option defines the maximum amount of memory a query can allocate on each node.\n\n"
                "Type: numeric\n\nDefault: 0 (unlimited)",
                cid="topics/mem_limit.dita#mem_limit/body", title="MEM_LIMIT Query Option")
    said = draft("What is the default value of the MEM_LIMIT query option?", other, own)
    assert "0 (unlimited)" in said.answer, said.answer
    assert said.steps[0].cite == own.id


def test_a_lead_in_over_a_paragraph_keeps_its_line_break_where_joining_would_make_a_value_not_written():
    from valid.answer.check import check_answer

    # "Default:" and "524288 (512 KB)" are two paragraphs: joined on one line, 524288 would read
    # as a labelled default the checks cannot find as written, and the answer would be refused.
    limits = chunk("The MAX_ROW_SIZE query option sets the largest row a query may hold in memory.\n\nType: integer\n\n"
                   "Default:\n\n524288 (512 KB)\n\nUnits: bytes.", cid="topics/max_row_size.dita#max_row_size/body",
                   title="MAX_ROW_SIZE Query Option")
    said = draft("What's the default MAX_ROW_SIZE?", limits)
    assert said.answer == "Default:\n524288 (512 KB)", said.answer
    assert check_answer(said, ["linux"], [limits], {}).passed


def test_a_table_of_one_row_is_that_row_not_a_header():
    from valid.answer.extract import split_units

    # The export keeps only the build's own row of a profiled choicetable: that row is the command.
    row = chunk("Linux or macOS | bin/ant -f build-script target", cid="topics/ant.dita#runant/choicetable-1~linux",
                title="Building output using Ant", scope=("linux",))
    row = row.model_copy(update={"code": ["bin/ant", "-f", "build-script target"]})
    assert [(u.kind, u.text) for u in split_units(row, 0)] == [("row", "Linux or macOS | bin/ant -f build-script target")]
    said = draft("On Linux, what's the command to build output with an Ant build script?", row)
    assert "bin/ant -f build-script target" in said.answer, said.answer
    # A table with rows keeps its first row as their header.
    table = chunk("Option | Default\n--retries | 3\n--timeout | 30s")
    assert [(u.kind, u.context) for u in split_units(table, 0)] == [("row", "Option | Default")] * 2
