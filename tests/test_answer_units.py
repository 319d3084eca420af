"""The answer as the writer wrote it (issue 25 items 3 and 5): the offline answerer's line and steps
on hand-made in-scope chunks (pure: no index), and on a real release where the export split a step's
profiled choicetable into its own chunk."""

from valid.answer.generate import OfflineExtractive
from valid.answer.models import EvidenceChunk
from valid.answer.prompt import GenerationRequest


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
