"""The cues that say what a question asks: every regular expression and word list that reads a
question's wording, declared once, here.

A cue is general English about asking (how readers ask for a number, a place, steps, a yes or no,
a comparison, a follow-up), never one doc set's or one sample question's wording. Each entry holds
examples it must match and examples it must not; `tests/test_question_cues.py` runs every entry
over its examples. The modules that read a question (valid.answer.reading, question, extract,
compare, versions_cues, conversation) take their cues from this table and declare none of their
own; lexing (what a flag, a code span or a sentence end looks like) stays with them.

`Cue` is a regular expression (searched, case-insensitive unless said); `Words` is a word list
(an example matches when one of its lower-case words is in the list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

TABLE: list["Cue | Words"] = []


@dataclass(frozen=True)
class Cue:
    name: str
    means: str
    pattern: re.Pattern
    matches: tuple[str, ...]
    misses: tuple[str, ...] = ()

    def search(self, text: str, *bounds: int) -> re.Match | None:
        return self.pattern.search(text, *bounds)

    def holds(self, text: str) -> bool:
        return self.pattern.search(text) is not None


@dataclass(frozen=True)
class Words:
    name: str
    means: str
    words: frozenset[str]
    matches: tuple[str, ...]
    misses: tuple[str, ...] = ()

    def __contains__(self, word: str) -> bool:
        return word in self.words

    def holds(self, text: str) -> bool:
        return bool(set(re.findall(r"[a-z]+", text.lower())) & self.words)


def cue(name: str, means: str, pattern: str, matches, misses=(), flags: int = re.I) -> Cue:
    entry = Cue(name, means, re.compile(pattern, flags), tuple(matches), tuple(misses))
    TABLE.append(entry)
    return entry


def words(name: str, means: str, listed: str, matches, misses=()) -> Words:
    entry = Words(name, means, frozenset(listed.split()), tuple(matches), tuple(misses))
    TABLE.append(entry)
    return entry


# -- what is asked: its kind (valid.answer.question.question_kind) --------------------------------

COUNT = cue(
    "count", "asks for a number: how many / how much / the size, limit, maximum of something",
    r"\b(?:how\s+(?:many|much|large|big|long|fast|often)|number\s+of|count\s+of|"
    r"what(?:'s|\s+is|\s+are)\s+the\s+(?:size|number|amount|capacity|limit|maximum|minimum|max|min|"
    r"largest|smallest|biggest|longest|shortest|highest|lowest|most|fewest))\b",
    ["How many chips are in one VM?", "how much memory does it have", "What is the maximum file size?"],
    ["How do I create a VM?", "What is the default zone?"],
)
QUANTITY_NOUNS = words(
    "quantity_nouns", "nouns that name a measured quantity: 'what is the ICI bandwidth' asks for a number with a unit",
    "memory ram hbm storage capacity size bandwidth throughput speed rate timeout duration latency limit interval",
    ["What is the ICI bandwidth?", "ram per host"],
    ["Which zone?", "What is the default flag?"],
)
WHAT_QUANTITY = cue(
    "what_quantity", "'what is the <...> bandwidth': the last quantity noun of the phrase is what is measured",
    # Greedy: the last quantity noun of the phrase is what is measured ("the HBM memory bandwidth").
    r"\bwhat(?:'s|\s+is|\s+are)\s+the\s+(?:[\w-]+\s+){0,3}(" + "|".join(sorted(QUANTITY_NOUNS.words)) + r")\b",
    ["What is the ICI bandwidth per chip?", "what's the HBM memory bandwidth"],
    ["What is the default version?", "How much memory?"],
)
INTERROGATIVES = words(
    "interrogatives", "words that head a question (an interrogative or an inverted auxiliary); a text "
    "with none is a noun phrase ('trillium hbm capacity') or a statement",
    "which what how where when who whom whose why is are was were do does did can could will would should shall "
    "may might must has have had",
    ["What is it?", "does it run", "Is it there?"],
    ["trillium hbm capacity", "path of the config file for 2.4.1"],
)
COUNT_NOUNS = words(
    "count_nouns", "a question written as a noun phrase that names a number ('trillium hbm capacity')",
    "capacity size limit limits maximum minimum count number amount",
    ["trillium hbm capacity", "max upload size"],
    ["config file path", "default zone"],
)
PROCEDURE = cue(
    "procedure", "asks for steps: how do I / how to / the steps to",
    r"\b(?:how\s+(?:do|can|should|would)\s+(?:i|we|you)|how\s+to|steps?\s+(?:to|for)|procedure|walk\s+me\s+through)\b",
    ["How do I create a VM?", "steps to restore a backup", "walk me through the upgrade"],
    ["How many chips?", "Is it supported?"],
)
YESNO = cue(
    "yesno", "asks yes or no: an inverted auxiliary first ('Is…', 'Does…', 'So can…'), but not 'do I use / "
    "pass / run…', which asks what to use",
    r"^\s*(?:(?:so|and|but|also|ok|okay)[,\s]+)?(?:is|are|does|do|did|can|could|will|would|should|has|have|was|were)\b"
    r"(?!\s+(?:i|we|you)\s+(?:need\s+to\s+)?(?:do|use|pass|set|run|create)\b)",
    ["Is the flag supported?", "So, does it keep my files?", "Can I still use v1 keys?"],
    ["Do I pass --zone or --region?", "What is it?", "How do I do it?"],
)
WHERE = cue(
    "where", "asks for a location: where is…, the file's path, which file does it read",
    # "Where is…", or a question naming the location it wants ("config file path?", "the file's location").
    r"\bwhere\s+(?:is|are|does|do|did|can|should|will|would)\b|\b(?:file|directory|folder)(?:'s)?\s+(?:path|location)\b|"
    # "Which configuration file does it read?": a file is named by its path.
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}(?:file|directory|folder)\b(?!\s+(?:format|type|size|name))",
    ["Where is the settings file?", "config file path?", "Which configuration file does it read?"],
    ["What file format does it use?", "How large can a file be?"],
)
VALUE = cue(
    "value", "which / what: asks for a value when it names a value noun or a flag",
    r"\b(?:which|what(?:'s|\s+is|\s+are)?)\b",
    ["Which zone?", "what's the default"],
    ["How do I sign in?", "Is it there?"],
)
VALUE_NOUNS = words(
    "value_nouns", "things whose answer is a value written in code form or as an exact string (which frameworks, "
    "which regions are names)",
    """version versions flag flags value values zone zones region regions command commands id ids port ports path
    paths url urls default defaults setting settings option options parameter parameters argument arguments image
    images key keys endpoint endpoints variable variables format formats type types limit limits syntax signature
    name names""",
    ["Which version do I pass?", "what is the default port"],
    ["Which frameworks are supported?", "How do I sign in?"],
)
EXPLAIN = cue(
    "explain", "asks what something does or means, or why: an explanation, not a value",
    r"\bwhat\s+(?:does|do|did)\b.*\b(?:do|mean|for)\b|\bwhat\s+is\s+(?:a|an|the\s+purpose)\b|\bwhy\b",
    ["What does --force do?", "what is a slice", "Why does it fail?"],
    ["What is the default value?", "Which flag sets the zone?"],
)
WHICH_DOES = cue(
    "which_does", "'which extension point adds my…', 'what view shows the…': a verb agreeing with one thing asked for "
    "by name (the word before a determiner is a verb, not a plural noun)",
    r"\b(?:which|what)\s+(?:[\w-]+\s+){1,3}?(?!does\b|has\b|was\b)[a-z]{2,}[^\Wus]s\s+(?:my|the|a|an|your|its|it|me|us)\b",
    ["Which extension point adds my JAR file to the classpath?", "what view shows the encoding of a file"],
    ["Which frameworks are supported?", "which formats does it read", "What happens if the VM restarts?",
     "Which CLI releases wrote vaults that the agent reads?"],
)
NAMES = cue(
    "names", "'which frameworks', 'IRONWOOD frameworks?': a plural noun asked for by name (not torus, status, access)",
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}?\w{2,}[^\Wus]s\b|^\W*(?:\w+\W+){0,2}\w{2,}[^\Wus]s\W*$",
    ["Which frameworks are supported?", "IRONWOOD frameworks?", "what ML libraries ship with it"],
    ["What kind of torus is it?", "what is the status"],
)
WHAT_VERB = cue(
    "what_verb", "'what happens if…', 'what changes when…': a verb after what, not a plural noun asking for names",
    r"^\W*what\s+\w+s\s+(?:if|when|in|to|on|after|before|during|while|with|the|a|an)\b",
    ["What happens if the VM restarts?", "what changes when I upgrade"],
    ["What regions are supported?", "Which frameworks?"],
)
KIND_OF = cue(
    "kind_of", "'what kind of torus', 'which type of disk': a value from a set of alternatives; the group is the "
    "noun sorted",
    r"\b(?:what|which)\s+(?:kind|kinds|type|types|sort|sorts)\s+of\b(?:\s+([A-Za-z][\w-]*))?",
    ["What kind of torus is it?", "which types of disk can I attach"],
    ["What type is it?", "Which disk?"],
)
CODE_ASKED = words(
    "code_asked", "what a value question asks for is code itself: the command, its syntax, a snippet",
    "command commands syntax signature snippet script invocation",
    ["Give me the gcloud command to create a VM", "what is the syntax"],
    ["Which version?", "How many chips?"],
)
NAMED_VALUE = words(
    "named_value", "question words whose value is a name (YAML, SHA-256) rather than a number or code",
    "format formats encoding protocol algorithm language",
    ["What format is the file in?", "which algorithm does it use"],
    ["What is the default port?"],
)
# Question words that ask for a quantity of a known family; the offline answerer wants a number
# stated in that family's units (valid.answer.extract: memory → GiB).
FAMILIES = {
    "memory": words(
        "family_memory", "asks for an amount of memory or storage", "memory ram hbm storage capacity size disk",
        ["How much HBM does a chip have?", "disk size per VM"], ["How long does it take?"],
    ),
    "rate": words(
        "family_rate", "asks for a rate", "bandwidth throughput speed rate",
        ["What is the ICI bandwidth?", "upload speed"], ["How much memory?"],
    ),
    "time": words(
        "family_time", "asks for a duration", "timeout time duration long interval delay ttl",
        ["How long is the session timeout?", "retry delay"], ["How much memory?"],
    ),
    "compute": words(
        "family_compute", "asks for compute performance", "performance flops compute",
        ["Peak compute per chip?", "what performance in flops"], ["How much memory?"],
    ),
}
HOW_MANY = cue(
    "how_many", "'how many' counts occurrences or things, never a measured quantity ('how many times' is no duration)",
    r"\bhow\s+many\b",
    ["How many times does it retry?"],
    ["How much memory?", "How long does it take?"],
)

# -- conditions and what the question is about -----------------------------------------------------

LIFECYCLE = cue(
    "lifecycle", "asks whether a thing lives on in this release: will it keep working, is it going away, still supported",
    r"\b(?:keep|still)\s+(?:work|working|works|supported|around|available|accepted|there)\b|\bgoing\s+away\b|"
    r"\bdeprecat\w*|\b(?:been\s+)?removed\b|\bphased?\s+out\b|\bkill(?:ed)?\s+(?:it|off)\b|\bstill\s+exists?\b",
    ["Will corvane mirror keep working?", "is it going away?", "Is --legacy deprecated?", "did they kill it off"],
    ["Does it work offline?", "How do I remove a vault?"],
)
STATUS = cue(
    "status", "asks outright whether a thing is deprecated or removed (a notice saying so is a Yes); "
    "'will it keep working?' does not",
    r"\bdeprecat\w*|\bremoved\b",
    ["Is --legacy deprecated?", "Was the mirror command removed?"],
    ["Will it keep working?", "How do I remove it?"],
)
DEFAULT_ASKED = cue(
    "default_asked", "asks for a default without the word: unless I change it, out of the box, if I leave it alone",
    r"\b(?:unless|until|if|when)\s+(?:i|we|you|they)\s+(?:change|set|raise|lower|override|configure|touch)\b"
    r"(?:\s+(?:it|that|this|them|anything))?|"
    r"\bif\s+(?:i|we|you)\s+(?:leave|(?:don't|do\s+not)\s+(?:change|set|touch|specify|pick|choose|pass|give))\b"
    r"(?:\s+(?:it|that|this|them|anything|one|a\s+value))?|"
    r"\bunless\s+(?:told|instructed|specified|stated|configured|set)\s+otherwise\b|"
    r"\bunless\s+(?:i|we|you)\s+(?:say|specify|choose|pick|tell\s+it)\s+otherwise\b|"
    r"\bout\s+of\s+the\s+box\b|\bleft\s+(?:alone|unset|as\s+is)\b|\bwithout\s+(?:changing|setting|configuring)\b",
    ["How many run unless I change it?", "what zone does it use out of the box", "if I don't specify one"],
    ["How do I change the zone?", "What is the default zone?"],
)
CODE_WORDS = words(
    "code_words", "words that talk about code: near a hyphenated compound they make it a name ('the partial-resize "
    "command'), not prose ('high-bandwidth memory')",
    """command commands subcommand subcommands flag flags option options function functions method methods api apis
    parameter parameters argument arguments field fields property properties class classes endpoint endpoints
    module modules package packages resource resources setting settings variable variables run running execute
    call invoke type""",
    ["the partial-resize command", "run corvane-agent convert-config"],
    ["high-bandwidth memory", "a single-host VM"],
)
EXAMPLE_BEFORE = cue(
    "example_before", "ends the words before an example of what is asked about ('files like *.tmp'), which the "
    "documentation need not name",
    r"\b(?:like|such\s+as|e\.g\.?|for\s+example|for\s+instance|say)$",
    ["skip files like", "folders such as", "for instance"],
    ["skip files", "like the other one said"],
)
EXAMPLE_AFTER = cue(
    "example_after", "follows an example: 'node_modules and such', '.git, etc.'",
    r"[`'\"”]?[\s,]*(?:and|or)\s+(?:such|the\s+like|similar|so\s+on|others)\b|[`'\"”]?[\s,]*etc\b",
    [" and such", ", etc.", " or similar"],
    [" and then", " or the other"],
)
COUNTED = cue(
    "counted", "the noun a count question counts follows 'how many' / 'number of' up to its verb or preposition",
    r"\b(?:how\s+(?:many|much)|number\s+of|count\s+of|what(?:'s|\s+is|\s+are)\s+the(?:\s+\w+)?\s+(?:number|amount)\s+of)\s+"
    r"((?:[\w-]+\s+){0,3}?[\w-]+)(?=\s+(?:does|do|did|is|are|was|were|can|could|will|would|should|per|in|on|of|for|"
    r"with|at|from|to|each|there|you|i|we|my|a|an|the)\b|\s*[?.!,]|\s*$)",
    ["How many NUMA nodes does a host have?", "how much HBM per chip", "the number of retries?"],
    ["How do I count them?", "What is the maximum?"],
)
NEXT_ASK = cue(
    "next_ask", "a second question joined to the first: ', and what…', or a new sentence after '?'",
    r",?\s+and\s+(?=(?:what|which|where|when|how|who|whether|is|are|does|do|can)\b)|(?<=\?)\s+(?=\S)",
    ["Where is the file, and what format is it in?", "Where is it? How do I change it?"],
    ["How do I sign in and out?", "Where is the file?"],
)
REFERRING = words(
    "referring", "pronouns that point back at an earlier question or turn ('what format is it in', 'and that one?')",
    "that it this these those them they its their",
    ["what format is it in", "and that one?"],
    ["What format does the config file use?", "Is there somebody to contact?"],
)
POINTING_BACK = words(
    "pointing_back", "in a follow-up, besides the pronouns: words that point at the previous turn's subject or "
    "place ('and there?', 'same for v5p', 'the other one') where within one question they do not ('is there…')",
    "there same other another",
    ["and there?", "same for v5p", "what about the other one"],
    ["How do I sign in?"],
)
# What readers call one version of a doc set: the versions cues below, and the noun after a name,
# which is part of the name ("the Trillium generation", "Corvane 2.0 release"; extract.read_question).
VERSION_NOUN = r"(?:versions?|releases?|generations?|editions?|builds?|series)"

# -- comparisons and availability (valid.answer.compare) -----------------------------------------

COMPARES = cue(
    "compares", "a word that compares builds: difference, changed, vs, new in, still, available, removed, since",
    r"\b(?:differ\w*|chang\w*|compar\w*|vs|versus|new\s+in|still|availab\w*|remov\w*|since|replac\w*|"
    r"added|dropped|deprecat\w*|upgrad\w*|migrat\w*|between|same\s+as|unlike)\b",
    ["What is the difference between v5p and v6e?", "v5p vs v6e", "what's new in 2.0"],
    ["How many chips does v5p have?", "Which zone?"],
)
ASKS_DIFFERENCE = cue(
    "asks_difference", "the difference itself is what is asked (whether it changed, what is different or new), "
    "not a value, names or steps asked of two builds side by side ('A vs B: what is the default?')",
    r"(?:^|[.,;:?!]\s*|\bhow\s+)(?:did|does|do|has|have|is|are|was|were)\b[^?,;]*\b(?:chang\w*|differ\w*|the\s+same)\b|"
    r"\bwhat(?:'s|\s+(?:is|are|has|have|was|were))?\s+(?:\w+\s+)?(?:different|new|changed|differs?)\b|"
    r"\bdifferences?\b",
    ["Did the startup procedure change between v5p and v6e?", "What is different in the pull options of 1.1.0?",
     "What's new in 2.0?", "What are the differences between A and B?", "Is the limit the same in A and B?",
     "How does the command differ?"],
    ["A vs B: what is the default replica preference?", "Windows vs macOS: how is an image scaled?",
     "If my message has the same ID as a built-in one on macOS or Linux, can it change the severity?"],
)
REFERENCE = cue(
    "reference", "asks which topic, section or page a passage sends the reader to (a cross-reference): the answer "
    "is another topic's title, as the writers' link shows it. The place is what is asked ('which topic … refers "
    "to', 'refers me to a topic'), not a word beside it ('referenced topic titles', 'links to the head of a page')",
    r"\b(?:which|what)\s+(?:other\s+)?{place}\b{within}\b(?:{verb}|links?\s+to\b|referenc(?:e|es|ed)\b|"
    r"(?:does|do|did)\s+(?:it|they|the\s+[\w-]+(?:\s+[\w-]+){{0,3}})\s+name\b)|"
    # "It refers me to which topic?": the place asked after the verb.
    r"\b{verb}\s+(?:to\s+)?(?:which|what)\s+(?:other\s+)?{place}\b|"
    # "It points me to a topic about limits. Which one?": the place is then asked by a "which".
    r"\b(?:{verb}){within}\b(?:an?|one|two|three|some|another|other)\s+(?:[\w-]+\s+)?{place}\b"
    r"(?=.*\bwhich\s+(?:one|ones|is\s+it|are\s+they|{place})\b)|"
    # The passage may be named by a long phrase ("the note saying UDFs can use primitive types"): one sentence.
    r"\bwhere\s+(?:does|do|did)\s+(?:it|they|the\s+[^.?!]{{1,120}}?)\s+(?:point|send|refer|direct)\s+(?:me|us|you|readers?)\b"
    .format(
        place=r"(?:topics?|sections?|pages?|chapters?)",
        within=r"(?:[^.?!]|\.(?=\w))*",  # in one sentence ("the 2.3 notes" ends none)
        verb=r"(?:points?|pointed|refers?|referred|sends?|sent|directs?|directed)\s+(?:me|us|you|readers?|the\s+reader|to)\b",
    ),
    ["Which topic does the upgrade note refer to for the allowed values?",
     "Where does the upgrade note saying the old log format is gone send me?",
     "The warning about rate limits refers me to which topic for details?",
     "The chapter on backups: which topics does it name for restoring?",
     "The entry points me to a page about limits. Which one?", "Where do the release notes send me for details?",
     "Which section do they link to for the setup?", "which chapter does it reference for tuning?",
     "Which topic do the 2.3 notes send me to?", "The note refers to two topics for more. Which ones?",
     "The change points to two pages. Which are they?"],
    ["Which page size does the table use?", "How do I point the client to the server?", "How do I link two topics?",
     "What does the topic say about ports?", "Which section of the file holds the key?",
     "How many threads compute referenced topic titles?", "Which parameter adds font links to the head of every page?",
     "Can I use one page of a PDF file as an image, and how do I reference it?",
     "My link points to a topic with a short description. What does the build add to the link?"],
)
KEYS = cue(
    "keys", "asks for a keyboard shortcut: the value is a key combination ('Ctrl + E'), whatever else the question "
    "calls the action",
    r"(?<!desktop\s)\b(?:keyboard\s+)?shortcuts?\b|\bhot\s*keys?\b|\bkey\s+(?:combination|binding|stroke)s?\b|"
    r"\bkeystrokes?\b|\bfrom\s+the\s+keyboard\b|\b(?:which|what)\s+keys\b|\bbound\s+to\s+(?:the\s+same\s+)?keys\b",
    ["What's the shortcut to wrap the selection in an element?", "surround with tags keyboard shortcut",
     "How do I open the tool from the keyboard?", "Which keys close the editor?", "Is it bound to the same keys in both?"],
    ["Which key does the license use?", "Create a desktop shortcut for the installer", "What is the primary key of the table?"],
)
MENU = cue(
    "menu", "asks where an action is in the menus: the value is a menu path, as a menu cascade shows it "
    "('Tools > Generate/Convert Schema') or a menu named ('from the Navigation menu'); not an item of a menu "
    "the question names ('which Help menu action'), whose value is the item's name",
    r"\b(?:which|what)\s+menu\b|\bmenu\s+path\b|\bwhere\b[^?.]*\bmenus?\b",
    ["Which menu has the JSON to XML action?", "which menu item jumps to a line?",
     "Where is Find All Elements in the plugin's menus?", "Menu path to the preferences?"],
    ["How do I customize the toolbar?", "Can I hide the menu bar?", "What does the contextual menu show?",
     "Which Help menu item opens the help topics?"],
)
AVAILABILITY = cue(
    "availability", "asks whether something exists for a build; 'still' only beside a word of having or using "
    "('can I still use X'), not before any verb ('will the agent still start?')",
    r"\b(?:availab\w*|support\w*|exists?|removed|included|offered)\b|"
    r"\bstill\s+(?:\w+\s+)?(?:use|used|usable|availab\w*|support\w*|work|works|exists?|there|have|has|includ\w*|"
    r"ship\w*|offer\w*|around|possible|allowed|call|run)\b",
    ["Is X available on v5p?", "Does v6e support it?", "Can I still use X in 2.0?"],
    ["Will the agent still start?", "How many chips?"],
)
ASKING_NOT_SUBJECT = words(
    "asking_not_subject", "words that say what is asked about availability, not what it is asked about",
    """available availability support supports supported still exist exists existing removed included offered
    work works use used using procedure procedures command commands feature features option options flag
    flags step steps task page documentation section there anymore longer any version versions release
    releases""",
    ["Is it available?", "does it still work"],
    ["the vault password"],
)
ASKING_WORDS = words(
    "asking_words", "question words a comparison row's relevance does not count",
    "did does do where what which how when who why new",
    ["what changed", "where did it go"],
    ["the vault password"],
)

# -- questions about the versions themselves (valid.answer.versions_cues) --------------------------

VersionsKind = Literal["list", "count", "latest", "oldest", "exists", "since", "until", "changed", "same"]
_SOME = r"(?:[\w.'’-]+\s+){0,4}"  # a few words in between ("the Corvane CLI", "of the agent")
_ALL = r"(?:every|all|each|any)"
_ROWS: tuple[tuple[VersionsKind, str, tuple[str, ...]], ...] = (
    ("same", rf"\bsame\s+(?:[\w-]+\s+){{0,2}}(?:in|on|for|across|between)\s+{_ALL}\b",
     ("Is the default port the same in every release?",)),
    ("same", rf"\b(?:in|on|for|across)\s+{_ALL}\s+{_SOME}{VERSION_NOUN}\b.*\bsame\b",
     ("In all versions, is the port the same?",)),
    ("same", rf"\bchang\w*\s+(?:between|across)\s+{_SOME}{VERSION_NOUN}\b\s*\?*$",
     ("Did the port change across releases?",)),
    ("since", r"\bsince\s+(?:which|what|when)\b", ("Since which release can I use bulk import?",)),
    ("since", r"\b(?:starting|beginning)\s+(?:with|from|in)\s+(?:which|what)\b",
     ("Starting with which version is SSO supported?",)),
    ("since", rf"\bfrom\s+(?:which|what)\s+{_SOME}{VERSION_NOUN}\s+on\b", ("From which version on is SSO there?",)),
    ("since", rf"\b(?:which|what)\s+{_SOME}{VERSION_NOUN}\b.*\b(?:added|introduced|brought|first)\b",
     ("Which version introduced the audit log?",)),
    ("since", r"\bwhen\s+(?:was|were|did|has|have)\b.*\b(?:introduced|added|appear\w*|first)\b",
     ("When was the REST API added?",)),
    ("until", r"\buntil\s+(?:which|what|when)\b", ("Until which version was the legacy exporter available?",)),
    ("until", r"\bup\s+(?:to|until)\s+(?:which|what)\b", ("Up to which release is Python 2 supported?",)),
    ("until", rf"\b(?:which|what)\s+{_SOME}{VERSION_NOUN}\b.*\b(?:removed|dropped|deprecated|retired)\b",
     ("Which release removed the --fast flag?",)),
    ("until", r"\bwhen\s+(?:was|were|did|has|have)\b.*\b(?:removed|dropped|deprecated|retired)\b",
     ("When was XML output deprecated?",)),
    ("until", rf"\blast\s+{VERSION_NOUN}\s+(?:with|that|to|where)\b", ("What is the last release with the GUI?",)),
    ("changed", r"\bwhat(?:'s|’s|\s+is|\s+was)?\s+(?:changed|new|different)\s+in\b", ("What's new in 3.5.5?",)),
    ("changed", r"\bwhat\s+(?:did|does)\s+.+\s+change\b", ("What did 2.0 change?",)),
    ("changed", r"\b(?:changes|release\s+notes|changelog)\s+(?:in|of|for)\b", ("Release notes for 2.0?",)),
    ("count", rf"\bhow\s+many\s+{_SOME}{VERSION_NOUN}\b", ("How many generations are covered?",)),
    ("latest", rf"\b(?:latest|newest|most\s+recent|current|last)\s+{_SOME}{VERSION_NOUN}\b",
     ("What is the most recent release of the SDK?",)),
    ("oldest", rf"\b(?:oldest|earliest|first)\s+{_SOME}{VERSION_NOUN}\b", ("Which is the earliest version you know?",)),
    ("list", rf"\b(?:which|what|list)\s+{_SOME}{VERSION_NOUN}\b", ("Which versions of Acme Server are documented?",)),
    ("exists", r"^\s*(?:is|are|does|do|did|was|were|has|have)\b.*\b(?:exists?|documented|covered|cover|there\s+an?|"
     r"docs?\s+for|documentation\s+for|know\s+about)\b", ("Does Acme 5.2 exist?", "Is version 7 documented?")),
)
_ORDINARY = ("How do I create a vault?", "What is the default value of --parallel?", "Which command restores a directory?")
# (kind, cue), tried in order: the more specific cues first.
VERSIONS: tuple[tuple[VersionsKind, Cue], ...] = tuple(
    (kind, cue(f"versions_{kind}_{i}", f"a question about the versions themselves: {kind}", pattern, examples, _ORDINARY))
    for i, (kind, pattern, examples) in enumerate(_ROWS)
)
VERSIONS_FILLER = words(
    "versions_filler", "words that only say what is asked about the versions, never what it is asked about",
    """version versions release releases generation generations edition editions build builds which what when
    since until starting beginning first last latest newest oldest earliest recent current most many how
    added introduced brought removed dropped deprecated retired appear appeared appears documented document
    documentation docs doc cover covered covers covering exist exists exists existed available availability
    support supports supported there here these this those know about list same every all each any across
    changed change changes new different between mention mentions mentioned still up to from on in is are
    was were does do did has have can could i you we it be the a an of for with by at use used using need
    needed needs required require requires release notes changelog compared compare before after it its
    previous prior one option options flag flags command commands feature features parameter parameters
    read accepted allowed usable offered included shipped""",
    ["Which release added it?"],
    ["--dry-run", "ACME_HOME"],
)

# -- follow-ups in a conversation (valid.answer.conversation) -------------------------------------

OPENING = cue(
    "opening", "an opening that continues the previous turn ('and for v5p?', 'what about 2.0?'), stripped before "
    "asking whether what follows is a question of its own",
    r"^\W*(?:and|but|also|so|or|then|what\s+about|how\s+about|same\s+for)\b\W*",
    ["And for v5p?", "what about 2.0?", "same for the agent"],
    ["Which zone?", "Andromeda support?"],
)
FOLLOW_UP_FILLER = words(
    "follow_up_filler", "words a follow-up uses around a build's name that say nothing about the subject",
    "about also instead then too else ok okay please now again same other another case",
    ["and v5p instead?", "ok, and in that case?"],
    ["the vault password"],
)


def by_name() -> dict[str, "Cue | Words"]:
    return {entry.name: entry for entry in TABLE}


__all__ = ["TABLE", "Cue", "Words", "by_name"]
