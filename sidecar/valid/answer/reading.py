"""One reading of the question: what it asks, what it is about, and its conditions, read once.

The answer engine reads the question once, after scope resolution (`read(question, names,
commands)`), and hands the Reading to every stage that needs it: the versions and comparison
flows, answerability, the choice of builds to offer, agreement between builds and the offline
answerer (through `GenerationRequest.reading`). No stage reads the raw wording again; the cues it
is read with are declared in one table (valid.answer.cues) and the lexing in
valid.answer.question.

- **What is asked** (`kind`): a count, a value, names, a procedure, a yes/no, or other (an
  explanation, a reason); with its refinements: a location, code, a default, whether a thing lives
  on (`lifecycle`, `asks_status`), what a count counts, what a "what kind of" sorts, and whether it
  is a question about the versions themselves or a comparison / availability question.
- **What it is about** (`anchors`, `words`, `names`, `abbreviated`, `alternatives`): the terms the
  content must hold, without the names that chose the scope (`scope_names`).
- **Its conditions** (`context`, `asks_default`): the sentences before the question proper that set
  the reader's situation ("I'm on an old CentOS server."), and a default asked for in other words
  ("unless I change it"), which `said` writes as "by default".
"""

from __future__ import annotations

import re
from typing import Collection, Iterable

from pydantic import BaseModel, ConfigDict

from valid.answer import cues
from valid.answer.cues import VersionsKind
from valid.answer.question import (
    Anchor,
    Kind,
    acronyms,
    alternatives,
    anchors,
    asking_span,
    asks,
    asks_default,
    asks_for_code,
    asks_lifecycle,
    asks_status,
    asks_where,
    counted,
    kind_of_noun,
    proper_names,
    question_kind,
    question_phrases,
    question_words,
    with_default_said,
)
from valid.answer.versions_cues import versions_kind


class Reading(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str
    # What is asked
    kind: Kind
    sub_questions: tuple[str, ...]  # one, or several joined ("Where is the file, and what format is it in?")
    location: bool = False  # a where-question: the value is a path, a file or a URL
    reference: bool = False  # which topic a passage sends the reader to: the value is a topic's title (cues.REFERENCE)
    keys: bool = False  # a keyboard shortcut: the value is a key combination (cues.KEYS)
    menu: bool = False  # where an action is in the menus: the value is a menu path (cues.MENU)
    wants_code: bool = False  # the value asked for is a command or code
    lifecycle: bool = False  # whether a thing still works, is going away or was removed
    asks_status: bool = False  # outright whether it is deprecated or removed
    counted: str | None = None  # the noun a count question counts, as written
    sorted_noun: str | None = None  # the noun a "what kind of" question sorts, as written
    versions_kind: VersionsKind | None = None  # a question about the versions themselves (cues.VERSIONS)
    availability: bool = False  # a yes/no question whether something is there (cues.YESNO and AVAILABILITY)
    compares: bool = False  # a word that compares builds (cues.COMPARES)
    asks_difference: bool = False  # the difference itself is asked, not a value of each build (cues.ASKS_DIFFERENCE)
    # Its conditions
    said: str  # the question with a default asked in several words said as "by default"
    asks_default: bool = False
    context: str = ""  # the sentences before the question proper: the reader's situation
    # What it is about, without the names that chose the scope
    scope_names: tuple[str, ...] = ()
    anchors: tuple[Anchor, ...] = ()
    words: tuple[str, ...] = ()
    phrases: tuple[tuple[str, str], ...] = ()  # words that stand next to each other (question_phrases)
    names: tuple[str, ...] = ()  # proper names the answer must be about ("Ubuntu")
    abbreviated: tuple[str, ...] = ()  # acronyms ("numa")
    alternatives: tuple[frozenset[str], ...] = ()  # terms offered as alternatives ("YAML or TOML")

    def for_names(self, names: Iterable[str], commands: Iterable[str] = (), common: Collection[str] = ()) -> "Reading":
        """This reading, with what it is about read against other scope names (the same object when
        they are the same)."""
        names = tuple(names)
        return self if names == self.scope_names else read(self.question, names, commands, common)


def read(
    question: str, names: Iterable[str] = (), commands: Iterable[str] = (), common: Collection[str] = ()
) -> Reading:
    """The one reading of `question`; `names` are the words that chose the scope (never what is
    asked about), `commands` the doc set's own command names (anchors even in plain words),
    `common` the words most of its chunks write (never anchors; valid.answer.vocabulary)."""
    names = tuple(names)
    said = with_default_said(question)
    start, _ = asking_span(question)
    # The last sentence asks whether something is there ("I upgraded. Is X still available?").
    last_sentence = ([s for s in re.split(r"(?<=[.!?])\s+", question.strip()) if s.strip()][-1:] or [question])[0]
    about = anchors(question, names, commands, common)
    # "Which topic does the note refer to? Which one?": the place asked for is read on the whole
    # question, since the sentence that asks may not say it; its value is a title.
    reference = cues.REFERENCE.holds(question)
    # "How do I open the tool from the keyboard?": whatever the wording, a shortcut is a value.
    keys = cues.KEYS.holds(question)
    menu = cues.MENU.holds(question)
    return Reading(
        question=question,
        kind="value" if reference or keys or menu else question_kind(said),
        sub_questions=tuple(asks(question)),
        location=asks_where(question),
        reference=reference,
        keys=keys,
        menu=menu,
        wants_code=asks_for_code(question),
        lifecycle=asks_lifecycle(question),
        asks_status=asks_status(question),
        counted=counted(question),
        sorted_noun=kind_of_noun(question),
        versions_kind=versions_kind(question),
        availability=cues.YESNO.holds(last_sentence) and cues.AVAILABILITY.holds(last_sentence),
        compares=cues.COMPARES.holds(question),
        asks_difference=cues.ASKS_DIFFERENCE.holds(question),
        said=said,
        asks_default=asks_default(question),
        context=question[:start].strip(),
        scope_names=names,
        anchors=tuple(about),
        words=tuple(question_words(question, [*names, *(a.text for a in about)])),
        phrases=tuple(question_phrases(question, [*names, *(a.text for a in about)])),
        names=tuple(proper_names(question, names)),
        abbreviated=tuple(acronyms(question, names)),
        alternatives=tuple(alternatives(question)),
    )
