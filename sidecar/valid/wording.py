"""Every string a reader sees, in one place: the ask page, the source view and the CLI's answer.

The words come from the doc set, not from VALID: the page's title and tagline from the map's title,
the noun for one build (a "platform", a "release") from the profiling attribute, the follow-up hint
and the examples from the names the doc set gives its builds. `[serve]` in valid.toml overrides the
title, the tagline and the noun (`WordingSettings`). The bundled samples get their look the same way.

A catalogue is a flat table of templates per language (`CATALOGUES`; English only so far): adding a
language is adding a table with the same keys (a test checks that the keys and the placeholders
match). `wording_for` fills the doc set's words in ({docset}, {noun}, {Noun}, {nouns}, {follow_up},
{examples}); the placeholders only an answer can fill ({names}, {n}, {release}, ...) are left for the
page's script, which inserts every value as text. Pure functions.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

# The noun readers use for one build, by profiling attribute (DITA's own and common specializations).
NOUNS: Mapping[str, str] = {
    "platform": "platform",
    "product": "product",
    "rev": "version",
    "version": "version",
    "release": "release",
    "edition": "edition",
    "audience": "audience",
    "deliveryTarget": "output format",
    "otherprops": "version",
    "props": "version",
}
DEFAULT_NOUN = "version"

ENGLISH: Mapping[str, str] = {
    # the page's heading and tagline, from the map's title ({docset}); a title whose last word is
    # one of doc_words already says it is documentation
    "title_named": "Ask the {docset}",
    "title_docs": "Ask the {docset} docs",
    "title_none": "Ask the docs",
    "doc_words": "documentation docs guide manual handbook help reference",
    "tagline": "Answers come only from the {docset} written for your {noun}. If there is none, VALID says so.",
    # the page around the form
    "skip": "Skip to content",
    "question_label": "Your question",
    "question_help": "Name your {noun} in the question, or choose it below. Follow-ups such as "
    "“and on {follow_up}?” use the conversation so far. Ctrl+Enter asks.",
    "picker_label": "{Noun}",
    "picker_any": "Decide from my question",
    "picker_help": "The list comes from the documentation. Its own names work in a question too, "
    "such as {examples}.",
    "ask_button": "Ask",
    "new_conversation": "New conversation",
    "thread_heading": "Earlier in this conversation",
    "you_asked": "You asked: ",
    "answer_region": "Answer",
    "connecting": "Connecting…",
    "unavailable": "Service unavailable.",
    "retrying": "{message} Retrying…",
    "page_scope": "Questions here are answered for {name}.",
    "page_scope_unknown": "This documentation has no {noun} called “{name}”; choose one below.",
    "conversation_gone": "That conversation is no longer available; your next question starts a new one.",
    "conversation_over": "That conversation has ended; your next question starts a new one.",
    # progress, as the status line says it
    "asking": "Asking…",
    "stage_scope": "Reading which {noun} you mean…",
    "stage_retrieved": "Found the documentation for it…",
    "stage_generating": "Writing the answer…",
    "stage_checking": "Checking every step against the documentation…",
    # results
    "answer_for": "Answer for {names}",
    "answer_part": "For {names}:",
    "matched": "Scope from your words: {words}",
    "ask_heading": "Which {noun} do you mean?",
    "ask_intro": "The answer depends on the {noun}. Choose one to get its answer:",
    "no_answer_for": "No answer for {names}",
    "no_answer": "No answer",
    "missing": "Missing: {what}",
    "gap_issue": "Gap issue opened for the writers: ",
    "comparison_of": "Comparison of {names}",
    "versions_heading": "About the {nouns}",
    "versions_list": "Documented {nouns}",
    "versions_count": "How many {nouns}",
    "versions_latest": "The latest {noun}",
    "versions_oldest": "The oldest {noun}",
    "versions_exists": "Is this {noun} documented?",
    "versions_since": "Since which {noun}",
    "versions_until": "Until which {noun}",
    "versions_changed": "What changed in this {noun}",
    "versions_same": "The same in every {noun}?",
    "versions_gaps": "Not documented in between: {names}",
    "versions_from_scheme": "(subject scheme)",
    "verdict_yes": "Yes.",
    "verdict_no": "No.",
    "comparison_part": "Part",
    "kind_differs": "differs",
    "kind_only": "not in every {noun}",
    "kind_shared": "the same",
    "kind_availability": "available?",
    "available_yes": "Yes. ",
    "available_no": "No. ",
    "values": "Values: {values}",
    "source_for_step": "Source for step {n}: {where}",
    "source_for": "Source for {name}: {where}",
    "also_published": "Also published for: ",
    "details": "About this answer",
    "about_service": "About this service",
    "run_release": "Index release {release}",
    "run_calls_one": "{n} model call",
    "run_calls_many": "{n} model calls",
    "run_ms": "{ms} ms",
    "list_and": " and ",
    "list_or": " or ",
    "list_comma": ", ",
    # errors
    "type_first": "Type a question first.",
    "unreachable": "Could not reach the service: {error}",
    "try_again_in": " (try again in {seconds} s)",
    "stream_ended": "the answer stream ended early",
    # feedback
    "feedback_region": "Feedback on this answer",
    "feedback_question": "Was this answer helpful?",
    "feedback_yes": "Yes",
    "feedback_no": "No",
    "feedback_helpful": "Helpful",
    "feedback_not_helpful": "Not helpful",
    "feedback_reasons": "What was wrong? (optional)",
    "feedback_comment": "Comment (optional)",
    "feedback_send": "Send feedback",
    "feedback_thanks": "Thank you: your feedback was recorded.",
    "feedback_failed": "Could not send feedback: {error}",
    "reason_inaccurate": "Inaccurate",
    "reason_wrong_version": "Wrong {noun}",
    "reason_irrelevant_sources": "Irrelevant sources",
    "reason_missing_content": "Missing content",
    "reason_unclear": "Unclear",
    "reason_other": "Other",
    # the answer engine's own sentences, in the answer object (refusal reasons, what was not used)
    "refused_nothing": "Nothing in the documentation for any {noun} answers this question.",
    "refused_unknown": "The question names {names}, which is not a {noun} in this documentation (it covers "
    "{known}). VALID does not answer from another {noun}'s content.",
    "not_used_unknown": "All content: no {noun} in this documentation matches the one named.",
    "not_used_shared": "{Noun}-specific content: only content shared by every {noun} answers this.",
    "not_used_ask": "Everything: the answer differs by {noun}, so none was given before you choose.",
    "cli_ask": "The answer differs by {noun}. Which one do you use?",
    "not_used_others": "Content profiled only for {names}: out of scope for this question, excluded on purpose.",
    "not_used_not_compared": "Content profiled only for {names}: not compared, excluded on purpose.",
    "refused_not_relevant": "nothing in scope for {name} answers the question",
    "refused_model_unavailable": "the answer model is unavailable ({error})",
    "refused_no_answer": "the in-scope content for {names} does not answer the question",
    "refused_checks": "the answer for {names} still failed its checks after {n} revisions: ",
    "refused_gone": "'{term}' is not in {name}: its documentation says \"{says}\"",
    "refused_not_mentioned": "the {name} documentation does not mention {terms}",
    "refused_elsewhere": " (it appears only in content for {names})",
    "refused_comparison_checks": "The comparison could not be made to pass its checks: ",
    "missing_answer": "{names} content that answers: {question}",
    "missing_model": "an answer model (not a content gap)",
    "missing_verbatim": "{names} content that states this answer verbatim: {question}",
    "missing_documentation": "documentation for {names}",
    "missing_term": "'{term}' in {name}",
    "missing_about": "{name} content about {terms}",
    "missing_comparison": "content that states each {noun}'s values in its own scope",
    # the source view (GET /sources/{path})
    "source_title": "{title} · source",
    "source_back": "← Ask another question",
    "source_file": "Source file",
    "source_showing": "Showing the parts of this topic for {name}.",
    "source_hidden_one": "{n} part for other {nouns} not shown.",
    "source_hidden_many": "{n} parts for other {nouns} not shown.",
    "source_none": "Nothing in this source is in scope for that {noun}.",
    "source_line": "line {line}",
    "source_for": "for {names}",
}

CATALOGUES: Mapping[str, Mapping[str, str]] = {"en": ENGLISH}

class DocSetFacts(BaseModel):
    """What a release says about its doc set: the map's title, the profiling attribute and the
    names of each build (display name first), in profile order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = ""
    attribute: str | None = None
    names: list[list[str]] = Field(default_factory=list)


class WordingSettings(BaseModel):
    """`[serve]` title, tagline, noun and noun_plural of valid.toml (or `valid serve` flags):
    what the team says instead of what VALID derives."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str | None = Field(default=None, description="The page's heading (default: from the map's title).")
    tagline: str | None = Field(default=None, description="The line under it.")
    noun: str | None = Field(default=None, description="What one build is called: version, platform, release ...")
    noun_plural: str | None = Field(default=None, description="Its plural (default: the noun with an s).")
    language: str = Field(default="en", description="The catalogue of reader-facing strings.")


def noun_for(attribute: str | None, settings: WordingSettings) -> str:
    """The setting, else the profiling attribute's noun, else "version"."""
    if settings.noun:
        return settings.noun.strip().lower()
    return NOUNS.get(attribute or "", DEFAULT_NOUN)


def title_key(map_title: str, catalogue: Mapping[str, str]) -> str:
    """Which title template fits the map's title ("Corvane documentation" -> title_named)."""
    words = map_title.split()
    if not words:
        return "title_none"
    last = re.sub(r"\W", "", words[-1].lower())
    return "title_named" if last in catalogue["doc_words"].split() else "title_docs"


def short_name(names: Sequence[str]) -> str:
    """The shortest name readers use for a build (the first of equal length): how a follow-up
    names it ("and on v6e?")."""
    return min(names, key=len) if names else ""


def join_names(names: Sequence[str], texts: Mapping[str, str] = ENGLISH, last: str = "list_and") -> str:
    """"A", "A and B", "A, B and C" (or "A, B or C" with last="list_or")."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return texts["list_comma"].join(names[:-1]) + texts[last] + names[-1]


def wording_for(facts: DocSetFacts, settings: WordingSettings | None = None) -> dict[str, str]:
    """The catalogue of `settings.language` with the doc set's words filled in; the placeholders
    an answer fills are left as they are."""
    settings = settings or WordingSettings()
    catalogue = CATALOGUES.get(settings.language)
    if catalogue is None:
        raise ValueError(f"no reader-facing strings in {settings.language!r}; known: {', '.join(CATALOGUES)}")
    noun = noun_for(facts.attribute, settings)
    shorts = [short_name(names) for names in facts.names if names]
    docset = " ".join(facts.title.split())
    words = _Keep(
        docset=docset or "documentation",
        noun=noun,
        Noun=noun[:1].upper() + noun[1:],
        nouns=settings.noun_plural or f"{noun}s",
        follow_up=shorts[1] if len(shorts) > 1 else (shorts[0] if shorts else noun),
        examples=join_names([f"“{s}”" for s in shorts[:3]], catalogue, "list_or") or noun,
    )
    texts = {key: string.Formatter().vformat(template, (), words) for key, template in catalogue.items()}
    texts["title"] = settings.title or texts[title_key(docset, catalogue)]
    texts["tagline"] = settings.tagline or texts["tagline"]
    return texts


def fill(template: str, **values: str) -> str:
    """A template with an answer's values put in (as text: the caller escapes for HTML)."""
    return string.Formatter().vformat(template, (), _Keep(values))


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


class _Keep(dict):
    """Format values that leave a placeholder they do not know as it was ("{names}")."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
