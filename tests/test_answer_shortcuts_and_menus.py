"""A question asking for a keyboard shortcut, however it says so ("which keys", "from the
keyboard", "bound to the same keys"), asks for a value that is a key combination; one asking where
an action is in the menus asks for a menu path (a menu cascade, "Tools > Generate/Convert Schema",
or a menu named). The offline answerer answers with the unit that states one for what was asked,
not with a sentence about the action, and abstains where the build's content has none (issue 25:
the Oxygen guide's shortcut and menu questions). Pure: hand-made chunks, no index."""

import pytest

from valid.answer.generate import OfflineExtractive
from valid.answer.models import EvidenceChunk
from valid.answer.prompt import GenerationRequest
from valid.answer.reading import read

ACTIONS = (
    "Other refactoring actions\n"
    "- Wrap element\n"
    "  Allows you to surround elements with element tags.\n"
    "- Surround with Tags (Ctrl + E (Command + E on macOS))\n"
    "  Allows you to choose a tag to enclose a selected portion of content.\n"
    "- Rename element (Alt + Shift + R)\n"
    "  Renames the element and its matching end tag."
)
WITHOUT_KEYS = (
    "Other refactoring actions\n"
    "- Wrap element\n"
    "  Allows you to surround elements with element tags.\n"
    "- Surround with Tags\n"
    "  Allows you to choose a tag to enclose a selected portion of content."
)


def draft(question: str, text: str):
    chunk = EvidenceChunk(id="editing.dita#editing/actions", alias="c1", text=text, title="Editing markup", scope=["editor"])
    request = GenerationRequest(question=question, scope=["editor"], labels=["Editor"], chunks=[chunk], profiles=["editor", "json"])
    return OfflineExtractive().generate(request)


@pytest.mark.parametrize("question", [
    "What's the keyboard shortcut to wrap the selection in tags (Surround with Tags)?",
    "Which keys run Surround with Tags?",
    "How do I surround the selected text with tags from the keyboard?",
])
def test_a_shortcut_question_asks_for_a_key_combination_and_is_answered_with_one(question):
    assert read(question).keys and read(question).kind == "value"
    said = draft(question, ACTIONS)
    assert "Ctrl + E" in said.answer, said.answer


def test_content_that_names_the_action_without_keys_does_not_answer_a_shortcut_question():
    said = draft("What's the keyboard shortcut for Surround with Tags?", WITHOUT_KEYS)
    assert not said.steps and said.answer == "", said.answer


def test_a_desktop_shortcut_or_a_primary_key_is_no_keyboard_shortcut():
    assert not read("How do I create a desktop shortcut for the installer?").keys
    assert not read("What is the primary key of the table?").keys


MENUS = (
    "Signing XML documents\n"
    "The signing tools create a digital signature for an XML document using a certificate.\n"
    "To sign a document, go to Tools > XML Signing Tools > Sign and choose the certificate.\n"
    "The Sign dialog box lets you set the canonicalization algorithm."
)


def test_a_question_about_where_an_action_is_in_the_menus_is_answered_with_its_menu_path():
    question = "Where is the Sign action in the menus?"
    assert read(question).menu and read(question).kind == "value"
    said = draft(question, MENUS)
    assert "Tools > XML Signing Tools > Sign" in said.answer, said.answer


def test_an_item_of_a_menu_the_question_names_is_not_asked_as_a_menu_path():
    # "Which Help menu action reports a problem?" asks for the action's name, not where it is.
    assert not read("Which Help menu action reports a problem?").menu
