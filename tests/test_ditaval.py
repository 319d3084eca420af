"""DITAVAL reading and DITA-OT 4.2.4's exclusion rules (FilterUtils), with cases from its own tests."""

from __future__ import annotations

import pytest

from valid.dita.ditaval import Filter, groups, parse_ditaval, props_chains, read_ditaval
from valid.errors import DitavalError


def make_filter(*props: str, hierarchy=None) -> Filter:
    text = "<val>" + "".join(props) + "</val>"
    return Filter(parse_ditaval(text.encode(), "test.ditaval"), hierarchy=hierarchy)


def prop(att=None, val=None, action="exclude") -> str:
    parts = [f'att="{att}"' if att is not None else "", f'val="{val}"' if val is not None else ""]
    return f"<prop {' '.join(p for p in parts if p)} action=\"{action}\"/>"


# --------------------------------------------------------------------------- include, exclude, defaults


@pytest.mark.parametrize(
    "attrs, excluded",
    [
        ({"platform": "v5p v6e"}, False),  # not every token excluded
        ({"platform": "v5p"}, True),
        ({"platform": ""}, False),  # an empty attribute cannot exclude
        ({"platform": "v5p", "product": "x"}, True),  # any excluding attribute excludes
        ({}, False),
    ],
)
def test_attribute_excludes_only_when_every_token_is_excluded(attrs, excluded):
    assert make_filter(prop("platform", "v5p")).excludes(attrs) is excluded


def test_attribute_default_exclude_removes_unknown_values_but_not_unprofiled_content():
    f = make_filter(prop("platform"), prop("platform", "v6e", "include"))
    assert f.excludes({"platform": "typo"})
    assert not f.excludes({"platform": "v6e"})
    assert not f.excludes({"audience": "internal"})
    assert not f.excludes({})


def test_global_default_exclude_also_applies_to_other_attributes_without_rules():
    f = make_filter(prop(), prop("platform", "v6e", "include"))
    assert f.excludes({"platform": "v6e", "product": "x"})


def test_values_match_exactly_and_case_sensitively():
    f = make_filter(prop("platform", "v5p"))
    assert not f.excludes({"platform": "V5P"})
    assert f.excludes({"platform": "  v5p  "})


def test_flag_and_passthrough_rules_never_exclude():
    f = make_filter(prop("platform"), prop("platform", "v5p", "flag"), prop("platform", "v6e", "passthrough"))
    assert not f.excludes({"platform": "v5p"})
    assert not f.excludes({"platform": "v6e"})
    assert f.excludes({"platform": "tpu7x"})


def test_first_rule_wins_on_duplicates():
    f = make_filter(prop("platform", "v5p", "include"), prop("platform", "v5p", "exclude"))
    assert not f.excludes({"platform": "v5p"})


def test_empty_val_is_the_attribute_default():
    f = make_filter('<prop att="platform" val="" action="exclude"/>')
    assert f.excludes({"platform": "anything"})


def test_rev_rules_are_ignored_for_filtering():
    d = parse_ditaval(b'<val><prop att="rev" val="2" action="exclude"/><revprop val="2" action="flag"/></val>', "x")
    assert not Filter(d).excludes({"rev": "2"})
    assert [w[1] for w in d.warnings] == ["ditaval-rev"]


# --------------------------------------------------------------------------- print defaults


def test_printonly_is_excluded_without_any_ditaval_in_a_non_print_build():
    f = Filter(None)
    assert f.excludes({"print": "printonly"})
    assert not f.excludes({"print": "no"})
    assert not f.excludes({"print": "yes"})


def test_print_build_flips_the_print_defaults():
    f = Filter(None, print_transtype=True)
    assert not f.excludes({"print": "printonly"})
    assert f.excludes({"print": "no"})


def test_ditaval_rules_override_print_defaults():
    assert not make_filter(prop("print", "printonly", "include")).excludes({"print": "printonly"})


# --------------------------------------------------------------------------- groups


def test_group_parsing_merges_same_name_groups_and_drops_empty_ones():
    assert groups("group(a b) group(c)") == [("group", ["a", "b", "c"])]
    assert groups("group1() group2(a)") == [("group2", ["a"])]
    assert groups("windows database(mongodb couchbase) unix") == [
        (None, ["windows", "unix"]),
        ("database", ["mongodb", "couchbase"]),
    ]


def test_group_names_are_ascii_word_characters_only():
    assert groups("tpu-gen(v5p)") == [(None, ["tpu-"]), ("gen", ["v5p"])]
    assert make_filter(prop("platform", "v5p")).excludes({"platform": "tpu-gen(v5p)"})


def test_group_name_used_as_a_value_is_not_applied():
    # The spec would exclude platform="tpu(v5p)" under a rule platform=tpu; DITA-OT 4.2.4 does not.
    assert not make_filter(prop("platform", "tpu")).excludes({"platform": "tpu(v5p)"})


def test_group_default_rule_applies_to_the_group():
    assert make_filter(prop("tpu")).excludes({"platform": "tpu(v5p)"})


def test_group_rules_are_checked_before_attribute_rules_not_combined():
    # Example A: tpu=v5p exclude, platform=v6e exclude -> DITA-OT includes (the spec excludes).
    f = make_filter(prop("tpu", "v5p"), prop("platform", "v6e"))
    assert not f.excludes({"platform": "tpu(v5p v6e)"})
    # Example B: global exclude, platform=v6e include, tpu=v5p exclude -> DITA-OT excludes.
    f = make_filter(prop(), prop("platform", "v6e", "include"), prop("tpu", "v5p"))
    assert f.excludes({"platform": "tpu(v5p v6e)"})


def test_group_named_like_an_attribute_uses_that_attributes_rules():
    assert make_filter(prop("platform", "v5p")).excludes({"otherprops": "platform(v5p)"})


def test_filter_utils_group_cases():
    # DITA-OT's FilterUtilsTest: platform unix/osx/linux include, windows exclude, platform default
    # exclude, os=amiga include. An unknown group falls back to the attribute's rules.
    base = [prop("platform", v, "include") for v in ("unix", "osx", "linux")] + [prop("platform", "windows")]
    f = make_filter(*base, prop("platform"), prop("os", "amiga", "include"))
    assert f.excludes({"platform": "gui(amiga windows)"})
    assert not f.excludes({"platform": "os(amiga windows)"})


def test_filter_utils_mixed_groups():
    f = make_filter(prop("platform", "unix"), prop("platform", "windows"))
    assert f.excludes({"platform": "windows database(mongodb couchbase) unix"})
    assert not f.excludes({"platform": "windows database(mongodb couchbase) unix osx"})


def test_filter_utils_group_multiple():
    f = make_filter(prop("os", "amiga"), prop("os", "windows"), prop("os", action="include"), prop("platform", action="include"))
    assert f.excludes({"platform": "os(amiga windows) database(mongo)"})
    assert not f.excludes({"platform": "os(amiga unix windows) database(mongo)"})


def test_filter_utils_base_cases():
    f = make_filter(
        *[prop("platform", v, "include") for v in ("unix", "osx", "linux")],
        prop("platform", "windows"),
        prop("audience", "expert", "include"),
        prop("audience", "novice"),
    )
    assert not f.excludes({"platform": "amiga unix windows"})
    assert not f.excludes({"platform": "amiga windows"})
    assert f.excludes({"platform": "windows"})
    assert f.excludes({"platform": "windows", "audience": "novice"})


# --------------------------------------------------------------------------- props specializations


def test_props_specialization_filters_only_when_declared_in_domains():
    f = make_filter(prop("tpugen", "v5p"))
    assert not f.excludes({"tpugen": "v5p"}, props_chains(None))
    assert f.excludes({"tpugen": "v5p"}, props_chains("(topic) a(props tpugen)"))


def test_generalized_props_value_is_always_read_as_a_group():
    f = make_filter(prop("tpugen", "v5p"))
    assert f.excludes({"props": "tpugen(v5p)"})  # no @domains needed for the generalized form
    assert f.excludes({"props": "tpugen(v5p)"}, props_chains("a(props tpugen)"))


def test_props_specialization_falls_back_to_props_rules_and_global_default():
    chains = props_chains("a(props hardware-platform)")
    f = make_filter(prop(), prop("audience", action="include"))
    assert f.excludes({"hardware-platform": "arm"}, chains)  # ProfilingFilterTest
    assert not f.excludes({"hardware-platform": ""}, chains)
    g = make_filter(prop("props", "arm"))
    assert g.excludes({"hardware-platform": "arm"}, chains)


def test_props_chains_reads_nested_specializations():
    assert props_chains("a(props os gui) a(props tpugen) (topic hi-d)") == [("props", "os", "gui"), ("props", "tpugen")]


def test_domain_attribute_label_cases():
    # FilterUtilsTest testNeedExclude DomainAttribute/Label: os=amiga include, os default exclude.
    f = make_filter(prop("os", "amiga", "include"), prop("os"))
    assert f.excludes({"props": "os(windows)"}, [("props", "os")])
    assert not f.excludes({"props": "gui(amiga windows)"}, [("props", "os", "gui")])


# --------------------------------------------------------------------------- subject-scheme refinement

TREE = {"platform": {"tpus": ["v5", "v6e"], "v5": ["v5p", "v5e"], "v5p": [], "v5e": [], "v6e": []}}


def test_excluding_a_parent_value_excludes_its_children():
    f = make_filter(prop("platform", "v5"), hierarchy=TREE)
    assert f.excludes({"platform": "v5p"})
    assert f.excludes({"platform": "v5e v5p"})
    assert not f.excludes({"platform": "v6e"})


def test_child_rule_beats_the_parent_rule():
    f = make_filter(prop("platform", "v5"), prop("platform", "v5p", "include"), hierarchy=TREE)
    assert not f.excludes({"platform": "v5p"})
    assert f.excludes({"platform": "v5e"})


def test_inclusion_does_not_propagate_upward():
    f = make_filter(prop(), prop("platform", "v5p", "include"), hierarchy=TREE)
    assert f.excludes({"platform": "v5"})


def test_excluding_a_child_leaves_the_parent():
    f = make_filter(prop("platform", "v5p"), hierarchy=TREE)
    assert not f.excludes({"platform": "v5"})
    assert f.excludes({"platform": "v5p"})


# --------------------------------------------------------------------------- reading errors


def test_unreadable_ditaval_names_the_file(tmp_path):
    with pytest.raises(DitavalError, match="missing.ditaval: cannot read"):
        read_ditaval(tmp_path / "missing.ditaval")


def test_malformed_ditaval_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.ditaval"
    bad.write_text("<val>\n  <prop att='platform' action='exclude'>\n</val>\n")
    with pytest.raises(DitavalError, match=r"bad.ditaval:3: malformed XML"):
        read_ditaval(bad)


def test_invalid_action_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.ditaval"
    bad.write_text('<val>\n<prop att="platform" val="v5p" action="remove"/>\n</val>\n')
    with pytest.raises(DitavalError, match=r"bad.ditaval:2: <prop> has action='remove'"):
        read_ditaval(bad)


def test_ditaval_with_entity_declaration_is_refused(tmp_path):
    bad = tmp_path / "x.ditaval"
    bad.write_text('<!DOCTYPE val [<!ENTITY e SYSTEM "secret.txt">]>\n<val><prop att="&e;" action="exclude"/></val>')
    with pytest.raises(DitavalError, match="x.ditaval:1: external entity 'e' is refused"):
        read_ditaval(bad)


def test_non_ditaval_root_is_refused():
    with pytest.raises(DitavalError, match="not a DITAVAL file"):
        parse_ditaval(b"<map/>", "m.ditaval")
