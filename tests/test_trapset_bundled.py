"""The trap sets shipped with VALID, one per bundled sample: well formed, split once into dev and test
by cluster, with at least 12 questions about something absent from the asked release, and every
expectation true of the sample's own export."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from conftest import BUNDLED_SAMPLES

STRATA = ("scoped", "unscoped", "two-generation", "absent", "out-of-domain", "comparison", "versions")


@pytest.fixture(scope="module", params=BUNDLED_SAMPLES, ids=lambda s: s.name)
def bundled(request, tmp_path_factory):
    from valid.evaluate.trapset import load_trapset
    from valid.export import export

    sample = request.param
    out = tmp_path_factory.mktemp(sample.name) / "export.jsonl"
    export(sample.map, scheme=sample.scheme, out=out)
    lines = out.read_text(encoding="utf-8").splitlines()
    header, chunks = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    builds = {
        p["name"]: [
            (c["id"], "\n".join([c["title"], c["text"], *c["code"]]).lower()) for c in chunks if c["scope"][p["name"]]
        ]
        for p in header["profiles"]
    }
    return sample, load_trapset(sample.trapset), builds


def test_every_stratum_is_present_and_split_into_dev_and_test(bundled):
    _, questions, _ = bundled
    splits = defaultdict(set)
    for q in questions:
        splits[q.stratum].add(q.split)
    assert set(splits) == set(STRATA)
    assert all(found == {"dev", "test"} for found in splits.values()), dict(splits)


def test_at_least_12_absent_questions_expect_a_refusal_for_one_named_release(bundled):
    _, questions, _ = bundled
    absent = [q for q in questions if q.stratum == "absent"]
    assert len(absent) >= 12
    assert all(q.expect.acceptable() == ["refuse"] and len(q.expect.scope) == 1 for q in absent)
    assert {q.split for q in absent} == {"dev", "test"}


def test_all_wordings_of_one_fact_and_release_sit_in_the_same_half(bundled):
    _, questions, _ = bundled
    halves = defaultdict(set)
    for q in questions:
        if q.stratum in ("scoped", "absent"):
            halves[(q.stratum, q.fact, tuple(q.expect.scope))].add(q.split)
    straddling = {cluster: found for cluster, found in halves.items() if len(found) > 1}
    assert straddling == {}


def test_expectations_name_only_profiles_of_the_sample(bundled):
    _, questions, builds = bundled
    for q in questions:
        named = set(q.expect.scope) | set(q.expect.values) | set(q.expect.choices)
        named |= set(q.expect.differences) | set(q.expect.wrong_side) | set(q.expect.available)
        named |= set(q.expect.versions) | set(q.expect.cited)
        assert named <= set(builds), (q.id, named - set(builds))


def test_every_required_value_is_in_the_content_of_its_release(bundled):
    _, questions, builds = bundled
    missing = []
    for q in questions:
        for profile, required in q.expect.values.items():
            for item in required:
                options = [item] if isinstance(item, str) else item
                if not any(option.lower() in text for option in options for _, text in builds[profile]):
                    missing.append((q.id, profile, options))
    assert missing == []


def test_what_an_absent_question_must_not_show_is_not_in_the_asked_release(bundled):
    _, questions, builds = bundled
    leaks = []
    for q in questions:
        if q.stratum != "absent":
            continue
        (profile,) = q.expect.scope
        for value in q.expect.forbidden:
            leaks += [(q.id, value, cid) for cid, text in builds[profile] if value.lower() in text]
        # ...while some other release does show it: the question is about a real thing, in the wrong release
        for value in q.expect.forbidden:
            assert any(value.lower() in text for p, build in builds.items() if p != profile for _, text in build), (q.id, value)
    assert leaks == []


def test_at_least_20_comparison_questions_expect_a_comparison_in_both_halves(bundled):
    _, questions, _ = bundled
    comparing = [q for q in questions if q.stratum == "comparison"]
    assert len(comparing) >= 20
    assert all(q.expect.acceptable() == ["compare"] for q in comparing)
    assert {q.split for q in comparing} == {"dev", "test"}
    # Each says what must hold: differences per side, yes / no per side, or that nothing differs.
    assert all(q.expect.differences or q.expect.available or q.expect.same for q in comparing)


def test_every_expected_difference_is_in_the_content_of_its_own_release(bundled):
    _, questions, builds = bundled
    missing = []
    for q in questions:
        for profile, required in q.expect.differences.items():
            for item in required:
                options = [item] if isinstance(item, str) else item
                if not any(option.lower() in text for option in options for _, text in builds[profile]):
                    missing.append((q.id, profile, options))
    assert missing == []


VERSIONS_KINDS = {"list", "count", "latest", "oldest", "exists", "since", "until", "changed", "same"}


def test_the_versions_stratum_asks_every_kind_in_both_halves(bundled):
    sample, questions, _ = bundled
    versions = [q for q in questions if q.stratum == "versions"]
    least = 20 if sample.name == "corvane" else 10
    for half in ("dev", "test"):
        kinds = {q.expect.kind for q in versions if q.split == half}
        assert kinds == VERSIONS_KINDS, (half, VERSIONS_KINDS - kinds)
        assert len([q for q in versions if q.split == half]) >= least
    # An answer names its versions; an ask for the product offers one choice per product.
    for q in versions:
        assert q.expect.acceptable() in (["versions"], ["ask"]), q.id
        assert q.expect.versions or q.expect.choices, q.id
        assert set(q.expect.cited) <= set(q.expect.versions), q.id
        if q.expect.kind in ("since", "until"):
            assert len(q.expect.cited) == 2, q.id


def test_what_a_since_or_until_question_names_is_in_exactly_one_side_of_its_boundary(bundled):
    """The first build with X documents it and the one before does not (since); the last build with X
    documents it and the next does not (until): the boundary is in the content, not only in the key."""
    _, questions, builds = bundled
    for q in questions:
        if q.expect.kind not in ("since", "until"):
            continue
        without, with_ = q.expect.versions if q.expect.kind == "since" else reversed(q.expect.versions)
        assert with_ in builds and without in builds
        assert len(builds[with_]) and len(builds[without])
