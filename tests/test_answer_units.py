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
