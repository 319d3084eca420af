"""Scope law: for random maps, topics and DITAVALs, the exporter keeps exactly what a literal
reading of the filtering rules keeps.

The reference evaluator below is written from the DITA 1.3 specification, independently of
valid.dita.ditaval: an element is excluded when any of its profiling attributes has a group whose
tokens all evaluate to exclude (rule for the value, else the attribute default, else the global
default, else include); a node is kept when no node on its path is excluded; a topic is kept when a
kept topicref references it and its root is kept. For DITAVALs without group-name rules (VALID's
authoring rule) DITA-OT 4.2.4 and the specification agree, so this is also DITA-OT's answer.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from valid.dita.ditaval import parse_ditaval
from valid.dita.loader import XPATH_ATTR, load
from valid.dita.preprocess import preprocess

ATTRIBUTES = ("platform", "audience")
VALUES = ("a", "b", "c", "d")  # "d" never has a rule of its own
PROFILES = ("p1", "p2", "p3")
TOPICS = ("t0", "t1", "t2", "t3")

# --------------------------------------------------------------------------- generation

attribute_value = st.one_of(
    st.just(""),
    st.lists(st.sampled_from(VALUES), min_size=1, max_size=3, unique=True).map(" ".join),
    st.tuples(st.sampled_from(("g1", "g2")), st.lists(st.sampled_from(VALUES), max_size=2, unique=True)).map(
        lambda g: f"{g[0]}({' '.join(g[1])})"
    ),
)
profiling = st.dictionaries(st.sampled_from(ATTRIBUTES), attribute_value, max_size=2)


@st.composite
def ditavals(draw):
    rules: dict[tuple[str | None, str | None], str] = {}
    if draw(st.booleans()) and draw(st.booleans()):
        rules[(None, None)] = "exclude"
    for att in ATTRIBUTES:
        default = draw(st.sampled_from([None, "include", "exclude"]))
        if default:
            rules[(att, None)] = default
        for value in VALUES[:3]:
            action = draw(st.sampled_from([None, None, "include", "exclude", "exclude", "flag", "passthrough"]))
            if action:
                rules[(att, value)] = action
    return rules


def ditaval_text(rules) -> str:
    props = []
    for (att, val), action in rules.items():
        a = f' att="{att}"' if att else ""
        v = f' val="{val}"' if val else ""
        props.append(f'<prop{a}{v} action="{action}"/>')
    return "<val>" + "".join(props) + "</val>"


def attrs_xml(attrs: dict[str, str]) -> str:
    return "".join(f' {k}="{v}"' for k, v in sorted(attrs.items()))


@st.composite
def map_nodes(draw, depth=0):
    kind = draw(st.sampled_from(["topicref", "topicref", "topicgroup"]))
    attrs = draw(profiling)
    href = draw(st.sampled_from(TOPICS)) if kind == "topicref" else None
    children = draw(st.lists(map_nodes(depth + 1), max_size=2)) if depth < 2 else []
    return (kind, attrs, href, children)


@st.composite
def topic_bodies(draw):
    sections = []
    for _ in range(draw(st.integers(1, 3))):
        paragraphs = [
            (draw(profiling), [draw(profiling) for _ in range(draw(st.integers(0, 2)))])
            for _ in range(draw(st.integers(0, 2)))
        ]
        sections.append((draw(profiling), paragraphs))
    return (draw(profiling), sections)


def write_doc_set(base: Path, nodes, topics) -> Path:
    def node_xml(node) -> str:
        kind, attrs, href, children = node
        href_xml = f' href="{href}.dita"' if href else ""
        return f"<{kind}{href_xml}{attrs_xml(attrs)}>" + "".join(node_xml(c) for c in children) + f"</{kind}>"

    (base / "m.ditamap").write_text("<map><title>M</title>" + "".join(node_xml(n) for n in nodes) + "</map>")
    for name, (root_attrs, sections) in zip(TOPICS, topics):
        counter = iter(range(1000))
        parts = []
        for section_attrs, paragraphs in sections:
            s = next(counter)
            inner = ""
            for p_attrs, phrases in paragraphs:
                p = next(counter)
                phs = "".join(f'<ph id="e{(n := next(counter))}"{attrs_xml(a)}>w{n}</ph>' for a in phrases)
                inner += f'<p id="e{p}"{attrs_xml(p_attrs)}>p{p} {phs}</p>'
            parts.append(f'<section id="e{s}"{attrs_xml(section_attrs)}>s{s} {inner}</section>')
        (base / f"{name}.dita").write_text(
            f'<topic id="{name}"{attrs_xml(root_attrs)}><title>{name}</title><body>{"".join(parts)}</body></topic>'
        )
    return base / "m.ditamap"


# --------------------------------------------------------------------------- the reference evaluator


def spec_groups(value: str) -> list[list[str]]:
    named: dict[str, list[str]] = {}
    for name, tokens in re.findall(r"(\w+)\(([^()]*)\)", value):
        named.setdefault(name, []).extend(tokens.split())
    loose = re.sub(r"\w+\([^()]*\)", " ", value).split()
    return [g for g in [loose, *named.values()] if g]


def spec_excluded(attrs, rules) -> bool:
    def effective(att, token):
        return rules.get((att, token)) or rules.get((att, None)) or rules.get((None, None)) or "include"

    for att in ATTRIBUTES:
        value = attrs.get(att)
        if value is None:
            continue
        if any(all(effective(att, t) == "exclude" for t in group) for group in spec_groups(value)):
            return True
    return False


def reference_scope(map_path: Path, rules) -> dict[str, set[str]]:
    """topic file -> ids of its elements kept by a build with these rules (absent: topic not kept)."""
    base = map_path.parent
    referenced: set[str] = set()

    def walk(el):
        for child in el:
            if spec_excluded(child.attrib, rules):
                continue
            if child.get("href"):
                referenced.add(child.get("href"))
            walk(child)

    walk(etree.parse(str(map_path)).getroot())
    kept: dict[str, set[str]] = {}
    for href in sorted(referenced):
        root = etree.parse(str(base / href)).getroot()
        if spec_excluded(root.attrib, rules):
            continue
        ids: set[str] = set()

        def keep(el):
            for child in el:
                if spec_excluded(child.attrib, rules):
                    continue
                if child.get("id"):
                    ids.add(child.get("id"))
                keep(child)

        ids.add(root.get("id"))
        keep(root)
        kept[href] = ids
    return kept


def job_scope(job) -> dict[str, set[str]]:
    kept: dict[str, set[str]] = {}
    for jf in job.files:
        if jf.format != "dita" or not jf.kept:
            continue
        root = etree.parse(str(job.directory / jf.source.job_uri)).getroot()
        kept[jf.source.job_uri] = {el.get("id") for el in root.iter() if el.get("id")}
    return kept


# --------------------------------------------------------------------------- the laws

COMMON = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@COMMON
@given(
    nodes=st.lists(map_nodes(), min_size=1, max_size=3),
    topics=st.lists(topic_bodies(), min_size=len(TOPICS), max_size=len(TOPICS)),
    rules=st.lists(ditavals(), min_size=len(PROFILES), max_size=len(PROFILES)),
)
def test_every_job_directory_keeps_exactly_what_the_literal_rules_keep(tmp_path_factory, nodes, topics, rules):
    base = tmp_path_factory.mktemp("docset")
    map_path = write_doc_set(base, nodes, topics)
    docset = load(map_path)
    for name, profile_rules in zip(PROFILES, rules):
        ditaval = parse_ditaval(ditaval_text(profile_rules).encode(), name)
        job = preprocess(docset, ditaval, base / "jobs" / name, name=name)
        assert job_scope(job) == reference_scope(map_path, profile_rules), ditaval_text(profile_rules)


@settings(COMMON, max_examples=15)
@given(
    nodes=st.lists(map_nodes(), min_size=1, max_size=3),
    topics=st.lists(topic_bodies(), min_size=len(TOPICS), max_size=len(TOPICS)),
    rules=st.lists(ditavals(), min_size=len(PROFILES), max_size=len(PROFILES)),
)
def test_every_exported_section_has_the_scope_of_the_literal_rules(tmp_path_factory, nodes, topics, rules):
    from valid.export import export

    base = tmp_path_factory.mktemp("docset")
    map_path = write_doc_set(base, nodes, topics)
    profiles = []
    for name, profile_rules in zip(PROFILES, rules):
        path = base / f"{name}.ditaval"
        path.write_text(ditaval_text(profile_rules))
        profiles.append((name, path))
    out = base / "out.jsonl"
    export(map_path, profiles=profiles, out=out, allow_empty=True)  # generated: a profile may keep nothing

    expected: dict[tuple[str, str], dict[str, bool]] = {}
    for name, profile_rules in zip(PROFILES, rules):
        for href, ids in reference_scope(map_path, profile_rules).items():
            root = etree.parse(str(base / href)).getroot()
            for section in root.iter("section"):
                key = (href, load_xpath(root, section))
                expected.setdefault(key, dict.fromkeys(PROFILES, False))[name] = section.get("id") in ids
    import json

    lines = out.read_text().splitlines()
    seen: dict[tuple[str, str], dict[str, bool]] = {}
    for line in lines[1:]:
        chunk = json.loads(line)
        if chunk["type"] != "section":
            continue
        # Variants (text differing by profile) share a source element; their scopes partition it.
        merged = seen.setdefault((chunk["source"]["path"], chunk["source"]["xpath"]), dict.fromkeys(PROFILES, False))
        for profile, kept in chunk["scope"].items():
            assert not (kept and merged[profile]), f"two variants of {chunk['id']} claim {profile}"
            merged[profile] = merged[profile] or kept
    assert seen == {k: v for k, v in expected.items() if any(v.values())}


def load_xpath(root, el) -> str:
    steps = []
    node = el
    while node is not None:
        parent = node.getparent()
        position = 1 if parent is None else [c for c in parent if c.tag == node.tag].index(node) + 1
        steps.append(f"{node.tag}[{position}]")
        node = parent
    return "/" + "/".join(reversed(steps))


def test_reference_evaluator_agrees_with_the_specification_tables():
    # Sanity of the oracle itself (dita-filtering.md §A.2 table).
    assert not spec_excluded({"platform": "a b"}, {("platform", "a"): "exclude"})
    assert spec_excluded({"platform": "a"}, {("platform", "a"): "exclude"})
    assert not spec_excluded({"platform": ""}, {("platform", "a"): "exclude"})
    assert spec_excluded({"platform": "b", "audience": "x"}, {(None, None): "exclude", ("platform", "b"): "include"})
    assert spec_excluded({"platform": "g1(a) b"}, {("platform", "a"): "exclude"})
    assert not spec_excluded({"platform": "g1()"}, {("platform", None): "exclude"})


def test_job_scope_reads_xpaths_written_by_the_loader(tmp_path):
    # The ids the property compares are backed by valid:xpath for elements without ids.
    (tmp_path / "m.ditamap").write_text('<map><topicref href="t0.dita"/></map>')
    (tmp_path / "t0.dita").write_text('<topic id="t0"><title>T</title><body><section><p/></section></body></topic>')
    job = preprocess(load(tmp_path / "m.ditamap"), None, tmp_path / "job")
    root = etree.parse(str(job.directory / "t0.dita")).getroot()
    assert root.find(".//p").get(XPATH_ATTR) == "/topic[1]/body[1]/section[1]/p[1]"
