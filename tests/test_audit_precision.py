"""Precision and recall of the audit on the planted fixture (tests/fixtures/audit/planted.py) and
its precision on a realistic product guide (tests/fixtures/audit/realistic.py).

Planted: 11 findings of different kinds (keydef, scheme-data, variants, partial scope, wrong label,
distinctive version / quantity / flag / machine type, a bare key value with its unit) and
13 look-alikes. Measured: precision 1.0 and recall 1.0 (docs/audit.md).
Realistic: eight products, their own pages and the pages they share, with criterion numbers,
example values, file names, version ranges, addresses and standards versions; precision ≥ 0.9.
"""

import re

import pytest

from fixtures.audit import realistic
from fixtures.audit.planted import CASES, PLANTED_OWNED, expected, planted_export
from valid.audit import find, owned_values
from valid.audit.owned import base_id
from valid.tokens import scan

NAMES = ["v5p", "v6e", "tpu7x"]


def measure():
    found = {(f.chunk_id, f.value) for f in find(planted_export())}
    truth = expected()
    hits = found & truth
    precision = len(hits) / len(found) if found else 1.0
    recall = len(hits) / len(truth)
    return precision, recall, found, truth


def test_planted_findings_precision_1_0_and_recall_1_0():
    precision, recall, found, truth = measure()
    assert (precision, recall) == (1.0, 1.0), (sorted(found - truth), sorted(truth - found))


def test_fixture_has_at_least_8_findings_of_different_kinds_and_8_look_alikes():
    findings = [c for c in CASES if c.kind == "finding"]
    look_alikes = [c for c in CASES if c.kind == "look-alike"]
    assert len(findings) >= 8 and len(look_alikes) >= 8
    reported = find(planted_export())
    assert {f.rule for f in reported} == {"keydef", "scheme-data", "distinctive"}
    assert {f.kind for f in reported} >= {"version", "machine-type", "flag", "quantity"}


@pytest.mark.parametrize("case", [c for c in CASES if c.kind == "look-alike"], ids=lambda c: c.name)
def test_look_alike_does_not_fire(case):
    ids = {base_id(c.id, NAMES) for c in case.chunks}
    assert [f.summary() for f in find(planted_export()) if f.chunk_id in ids] == []


@pytest.mark.parametrize("case", [c for c in CASES if c.kind == "finding"], ids=lambda c: c.name)
def test_planted_finding_fires(case):
    ids = {base_id(c.id, NAMES) for c in case.chunks}
    assert {(f.chunk_id, f.value) for f in find(planted_export()) if f.chunk_id in ids} == case.expect


@pytest.mark.parametrize("case", [c for c in CASES if c.kind == "look-alike"], ids=lambda c: c.name)
def test_every_look_alike_would_fire_for_a_naive_audit(case):
    """A naive audit (any owned value as a substring, or any distinctive-looking token, anywhere)
    flags every look-alike: each one tests a rule, not luck."""
    owned = [o.value for o in PLANTED_OWNED] + [r.value for r in owned_values(planted_export()).rows]
    assert any(any(re.search(re.escape(v), c.text) for v in owned) or scan(c.text) for c in case.chunks)


def test_realistic_product_guide_precision_is_at_least_0_9():
    found = {(f.chunk_id, f.value) for f in find(realistic.realistic_export())}
    truth = realistic.expected()
    precision = len(found & truth) / len(found) if found else 0.0
    assert precision >= 0.9, sorted(found - truth)
    assert found & truth, "the guide's real leaks are found (a silent audit is not precise, it is off)"


def test_every_finding_says_why_it_fired():
    for finding in [*find(planted_export()), *find(realistic.realistic_export())]:
        assert finding.why and finding.owners[0] in finding.why, finding.summary()
        assert any(p in finding.why for p in finding.shown_to if p not in finding.owners)
