"""resolve_scope: deterministic scope from the subject scheme's names, labels and machine types."""

import pytest
from fixtures.answer.profiles import PROFILES

from valid.contracts import ProfileInfo
from valid.answer.scope import UnknownGenerationError, resolve_scope, search_text, validate_generation
from valid.errors import ValidError


def scope(question, generation=None):
    return resolve_scope(question, PROFILES, generation)


def test_ironwood_maps_to_tpu7x_from_the_subject_scheme():
    result = scope("I'm on Ironwood. Which --version do I pass when I create the VM?")
    assert result.profiles == ["tpu7x"]
    assert result.matched == ["Ironwood"]
    assert result.unknown == []


@pytest.mark.parametrize(
    "question",
    ["How many chips on TPU7X?", "how many chips on tpu 7x?", "TPU-7x chips?", "Ironwood's chip count", "IRONWOOD?"],
)
def test_matching_ignores_case_spacing_punctuation_and_possessives(question):
    assert scope(question).profiles == ["tpu7x"]


def test_trillium_possessive_and_display_name():
    assert scope("What is Trillium's software version?").profiles == ["v6e"]
    assert scope("Does TPU v6e (Trillium) run JAX?").profiles == ["v6e"]


@pytest.mark.parametrize(
    "question, profile, word",
    [
        ("Create a v6e-8 slice", "v6e", "v6e-8"),
        ("Which image for tpu7x-standard-4t?", "tpu7x", "tpu7x-standard-4t"),
        ("Is v5p-128 supported?", "v5p", "v5p-128"),
    ],
)
def test_accelerator_and_machine_types_name_their_generation(question, profile, word):
    result = scope(question)
    assert result.profiles == [profile]
    assert result.matched == [word]


def test_two_generations_are_both_resolved_in_profile_order():
    result = scope("Compare Ironwood with v5p")
    assert result.profiles == ["v5p", "tpu7x"]
    assert result.matched == ["Ironwood", "v5p"]


def test_no_generation_named_resolves_to_nothing():
    result = scope("How many chips are in one TPU host?")
    assert result.profiles == [] and result.matched == [] and result.unknown == []


@pytest.mark.parametrize(
    "question, unknown",
    [
        ("How many chips on a TPU v4 host?", ["TPU v4"]),
        ("Which version for v5e?", ["v5e"]),
        ("TPU v3 software version", ["TPU v3"]),
        ("Create a v4-8", ["v4-8"]),
        ("Does TPU8 exist?", ["TPU8"]),
    ],
)
def test_generation_names_the_scheme_does_not_know_are_reported_unknown(question, unknown):
    result = scope(question)
    assert result.unknown == unknown
    assert result.profiles == []


def test_version_strings_and_flags_do_not_name_a_generation():
    # v2-alpha-tpuv6e is a v6e value, but it is not a name of the generation; --version is a flag.
    result = scope("What does --version=v2-alpha-tpuv6e do in gcloud compute tpus tpu-vm create?")
    assert result.profiles == [] and result.unknown == []


def test_a_name_shaped_prefix_of_an_identifier_is_not_an_unknown_generation():
    # "v2-alpha" starts like a generation name but continues with a word: a software version's prefix.
    result = scope("Which v2-alpha software version should I pass for TPU 7x?")
    assert result.profiles == ["tpu7x"] and result.unknown == []


def test_explicit_generation_is_validated_and_added():
    assert scope("How many chips per VM?", generation="tpu7x").profiles == ["tpu7x"]
    assert scope("How many chips per VM?", generation="Trillium").profiles == ["v6e"]
    assert scope("On Ironwood, how many chips?", generation="v5p").profiles == ["v5p", "tpu7x"]


def test_unknown_explicit_generation_lists_the_valid_ones():
    with pytest.raises(UnknownGenerationError) as err:
        validate_generation("v4", PROFILES)
    message = str(err.value)
    assert isinstance(err.value, ValidError)
    assert "'v4'" in message and "v5p" in message and "v6e" in message and "tpu7x" in message
    assert "\n" not in message


def test_resolution_is_deterministic():
    question = "Ironwood vs Trillium vs v5p-8 vs TPU v4"
    assert scope(question) == scope(question)
    assert scope(question).profiles == ["v5p", "v6e", "tpu7x"]


@pytest.mark.parametrize(
    "question, profile, word",
    [("a single-host Trilium VM", "v6e", "Trilium"), ("per Ironwod VM", "tpu7x", "Ironwod"), ("Irnowood chips", "tpu7x", "Irnowood")],
)
def test_a_one_letter_slip_in_a_long_alphabetic_name_still_matches(question, profile, word):
    result = scope(question)
    assert result.profiles == [profile]
    assert result.matched == [word]


@pytest.mark.parametrize("question", ["What about v5e?", "Trillion parameters", "Ironworks", "Is v6 fine?"])
def test_names_with_digits_and_ordinary_words_never_match_fuzzily(question):
    assert scope(question).profiles == []


def test_search_text_names_the_profile_searched_and_drops_the_others():
    question = "Compare chips per VM: Trillium vs Ironwood's"
    result = scope(question)
    assert search_text(question, result, "v6e") == "Compare chips per VM: v6e vs"
    assert search_text(question, result, "tpu7x") == "Compare chips per VM: vs tpu7x"
    explicit = scope("Which --version do I pass?", generation="tpu7x")
    assert search_text("Which --version do I pass?", explicit, "tpu7x") == "Which --version do I pass? tpu7x"
    unscoped = scope("How many chips per host?")
    assert search_text("How many chips per host?", unscoped, "v6e") == "How many chips per host?"


# -- a versioned software scheme: product words and dotted versions ------------------------------

from valid.contracts import ProfileInfo  # noqa: E402


def _software(name, *labels):
    return ProfileInfo(name=name, labels=list(labels), ditaval_digest="0" * 64)


SOFTWARE = [
    _software("cli-1.0.0", "Acme CLI 1.0.0", "v1.0.0"),
    _software("cli-2.0.0", "Acme CLI 2.0.0", "v2.0.0"),
    _software("cli-2.4.1", "Acme CLI 2.4.1", "v2.4.1"),
    _software("server-1.0", "Acme Server 1.0"),
    _software("server-1.1", "Acme Server 1.1"),
]


@pytest.mark.parametrize(
    "question, profile",
    [
        ("How do I sync in Acme CLI reference version 2.4.1?", "cli-2.4.1"),
        ("Acme 2.4.1: what is the default timeout?", "cli-2.4.1"),
        ("In the Acme CLI v2.4.1, which flag skips checks?", "cli-2.4.1"),
        ("Does Acme Server 1.1 support TLS?", "server-1.1"),
    ],
)
def test_a_label_is_parsed_into_product_words_and_a_version(question, profile):
    result = resolve_scope(question, SOFTWARE)
    assert result.profiles == [profile]
    assert result.unknown == []


def test_a_partial_version_narrows_to_the_matching_values_without_choosing():
    result = resolve_scope("Which flags does Acme CLI 2 have?", SOFTWARE)
    assert result.profiles == []
    assert result.candidates == ["cli-2.0.0", "cli-2.4.1"]


def test_naming_a_product_without_a_version_narrows_to_that_product():
    result = resolve_scope("How do I rotate certificates on Acme Server?", SOFTWARE)
    assert result.profiles == [] and result.candidates == ["server-1.0", "server-1.1"]


def test_a_version_no_profile_has_is_unknown():
    result = resolve_scope("What changed in Acme CLI 3.0?", SOFTWARE)
    assert result.profiles == [] and result.unknown == ["3.0"]


@pytest.mark.parametrize(
    "question, profiles",
    [("Is a v5p TPU 2x faster than v6e?", ["v5p", "v6e"]), ("On v6e, does each TPU 8 chip host have one TensorCore?", ["v6e"])],
)
def test_multipliers_and_counts_next_to_a_product_word_are_not_generations(question, profiles):
    result = scope(question)
    assert result.unknown == [] and result.profiles == profiles


def test_the_naming_pattern_is_learnt_from_the_scheme_not_a_fixed_list():
    # Same shapes, another scheme: profiles gen3a and gen4b make "gen5c" look like a generation.
    others = [_software("gen3a", "Widget gen3a"), _software("gen4b", "Widget gen4b")]
    assert resolve_scope("How fast is gen5c?", others).unknown == ["gen5c"]
    assert resolve_scope("How fast is v5e?", others).unknown == []


def test_a_partial_version_only_one_value_has_resolves_to_it():
    result = resolve_scope("Which flags does Acme CLI 2.4 have?", SOFTWARE)
    assert result.profiles == ["cli-2.4.1"] and result.candidates == []


SHARED_VERSIONS = [
    _software("cli-1.0.0", "Acme CLI 1.0.0"),
    _software("cli-2.0.0", "Acme CLI 2.0.0"),
    _software("cli-2.3.0", "Acme CLI 2.3.0"),
    _software("agent-2.0.0", "Acme Agent 2.0.0"),
    _software("agent-2.1.0", "Acme Agent 2.1.0"),
]


def test_a_version_two_products_share_goes_to_the_product_of_the_other_version_named():
    result = resolve_scope("What is the default in 2.0.0, and in 2.3.0?", SHARED_VERSIONS)
    assert result.profiles == ["cli-2.0.0", "cli-2.3.0"]


def test_a_version_two_products_share_alone_leaves_both_as_candidates_of_a_named_version():
    result = resolve_scope("What is the default in 2.0.0?", SHARED_VERSIONS)
    assert result.profiles == [] and result.candidates == ["cli-2.0.0", "agent-2.0.0"]
    assert result.version_named
    assert not resolve_scope("What is the default in Acme Agent?", SHARED_VERSIONS).version_named


EDITIONS = [
    ProfileInfo(name="html", labels=["HTML edition", "HTML docs"], ditaval_digest="0" * 64),
    ProfileInfo(name="pdf", labels=["PDF edition", "PDF docs"], ditaval_digest="1" * 64),
]


@pytest.mark.parametrize(
    "question",
    ["In both the HTML and the PDF edition, what is the range of SMALLINT?", "HTML and PDF docs: is SYNC_DDL on by default?"],
)
def test_a_name_shortened_by_sharing_its_last_word_with_the_next_name_is_named_too(question):
    assert resolve_scope(question, EDITIONS).profiles == ["html", "pdf"]


@pytest.mark.parametrize(
    "question",
    ["What about the HTML and PDF formats?", "Is the table and the PDF edition the same?", "PDF edition or HTML?"],
)
def test_a_word_joined_to_a_name_is_no_name_unless_it_makes_one_with_the_names_last_words(question):
    assert resolve_scope(question, EDITIONS).profiles in ([], ["pdf"])


PRODUCTS = [
    _software("editor", "Oxygen XML Editor"),
    _software("author", "Oxygen XML Author"),
    _software("feedback", "Oxygen Feedback Cloud", "Feedback Cloud"),
    _software("feedback-enterprise", "Oxygen Feedback Enterprise", "Feedback Enterprise"),
    _software("svn", "Syncro SVN Client"),
]


def test_a_product_family_named_by_part_of_its_names_leaves_the_products_holding_most_of_those_words():
    # "Oxygen" is in most products' names (not the SVN client's); "Oxygen Feedback" names the two
    # Feedback products only.
    result = resolve_scope("How long is the Oxygen Feedback reset link valid?", PRODUCTS)
    assert result.profiles == [] and result.candidates == ["feedback", "feedback-enterprise"]
    # Products named apart hold as many of the words each: all are candidates.
    result = resolve_scope("Do Oxygen XML and Feedback share a license?", PRODUCTS)
    assert result.candidates == ["editor", "author", "feedback", "feedback-enterprise"]
    assert resolve_scope("Which Oxygen products log in with SSO?", PRODUCTS).candidates == [
        "editor", "author", "feedback", "feedback-enterprise",
    ]


# -- a label's word the doc set writes as an ordinary word -----------------------------------------

from valid.answer.scope import NameWordUse, TitlePhrases, confined_share  # noqa: E402

FAMILY = [*PRODUCTS, _software("json", "Oxygen JSON Editor")]  # "editor": two products' word
DESKTOP = {"editor", "author"}
# The doc set: what each chunk writes and which products keep it. "editor" is written outside any
# label in content both desktop products keep; "Feedback" outside a label only where the Feedback
# products alone keep it; "Oxygen" only inside labels.
GUIDE = [
    ("Open the file in the text editor and press Ctrl+S.", DESKTOP),
    ("Oxygen XML Editor opens the file.", {"editor"}),
    ("The editor keeps one undo history per file.", DESKTOP),
    ("Moderators approve Feedback comments before they show.", {"feedback", "feedback-enterprise"}),
    ("Oxygen Feedback Cloud sends a digest of new feedback.", {"feedback"}),
    ("Send us feedback about this page.", DESKTOP | {"feedback", "feedback-enterprise"}),
]


def _writing(word):
    return [(text, scope) for text, scope in GUIDE if word.lower() in text.lower()]


def test_a_labels_word_the_doc_set_writes_in_other_builds_content_is_not_their_name():
    labels = [label for p in PRODUCTS for label in p.labels]
    # Outside the labels, "editor" is written twice, both times in content Author keeps too.
    assert confined_share("editor", {"editor", "json"}, labels, _writing("editor")) == 0.0
    # "Feedback" outside a label: two of three chunks kept by the Feedback products alone.
    assert confined_share("feedback", {"feedback", "feedback-enterprise"}, labels, _writing("feedback")) == 2 / 3
    assert confined_share("oxygen", {"editor"}, labels, _writing("oxygen")) is None  # only ever in a label


def test_the_products_named_by_part_of_their_names_are_those_the_doc_set_writes_that_word_for():
    usage = NameWordUse(FAMILY, _writing)
    question = "Which editor option wraps long lines?"
    assert resolve_scope(question, FAMILY).candidates == ["editor", "json"]  # every label word names
    assert resolve_scope(question, FAMILY, None, TitlePhrases(), usage).candidates == []
    question = "How do moderators approve Feedback comments?"
    assert resolve_scope(question, FAMILY, None, TitlePhrases(), usage).candidates == ["feedback", "feedback-enterprise"]
    # A whole label names its product whatever its words are written as elsewhere.
    assert resolve_scope("Does Oxygen XML Editor wrap lines?", FAMILY, None, TitlePhrases(), usage).profiles == ["editor"]


def test_the_share_that_makes_a_word_a_name_is_the_objects_own_setting():
    question = "How do moderators approve Feedback comments?"
    strict = NameWordUse(FAMILY, _writing, share=0.9)
    assert resolve_scope(question, FAMILY, None, TitlePhrases(), strict).candidates == []


def test_each_word_is_read_from_the_doc_set_once():
    read = []
    usage = NameWordUse(FAMILY, lambda word: read.append(word) or _writing(word))
    for _ in range(3):
        resolve_scope("Which editor option wraps long lines?", FAMILY, None, TitlePhrases(), usage)
    assert read == ["editor"]


# -- a build's name inside a longer name the doc set titles a topic with ---------------------------


WEB_AUTHOR = [
    _software("webauthor", "Oxygen XML Web Author", "Web Author"),
    _software("webauthor-customization", "Oxygen XML Web Author Customization Guide", "Web Author Customization Guide"),
]
TITLES = TitlePhrases(["Oxygen XML Web Author Test Server Add-on", "Installing Web Author", "Oxygen XML Editor SVN Client"])


def test_a_name_running_on_into_a_longer_titled_name_names_that_thing_not_the_build():
    question = "Is there a limit on how many browsers can use the local Web Author Test Server add-on?"
    assert resolve_scope(question, WEB_AUTHOR).profiles == ["webauthor"]  # without the doc set's titles
    assert resolve_scope(question, WEB_AUTHOR, None, TITLES).profiles == []
    named = "Web Author Customization Guide: how many browsers can use the Web Author Test Server add-on?"
    assert resolve_scope(named, WEB_AUTHOR, None, TITLES).profiles == ["webauthor-customization"]


@pytest.mark.parametrize("question", [
    "Oxygen XML Web Author: how many browsers may use the Web Author Test Server add-on?",  # named before it
    "Web Author: Test Server questions",  # punctuation ends the name
    "Is Web Author installed on Tomcat?",  # no capitalised word runs on
])
def test_the_build_is_still_named_where_its_name_stands_alone(question):
    assert resolve_scope(question, WEB_AUTHOR, None, TITLES).profiles == ["webauthor"]


def test_a_possessive_ends_the_name():
    editor = [_software("editor", "Oxygen XML Editor")]
    question = "Oxygen XML Editor's SVN Client preferences: is refresh on by default?"
    assert resolve_scope(question, editor, None, TitlePhrases(["Oxygen XML Editor SVN Client"])).profiles == ["editor"]
