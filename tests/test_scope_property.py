"""Scope law: for random maps, topics and DITAVALs, the exporter keeps exactly what a literal
reading of the filtering rules keeps.

The reference evaluator below is written from the DITA 1.3 specification, independently of
valid.dita.ditaval: an element is excluded when any of its profiling attributes has a group whose
tokens all evaluate to exclude (rule for the value, else the attribute default, else the global
default, else include); a node is kept when no node on its path is excluded; a topic is kept when a
kept topicref references it and its root is kept. For DITAVALs without group-name rules (VALID's
authoring rule) DITA-OT 4.2.4 and the specification agree, so this is also DITA-OT's answer.

Two more laws use the same evaluator:
- branch filtering (DITA 1.3 `ditavalref`): an element of a branch is kept when neither the
  profile's rules nor the rules of any `ditavalref` on it or above it exclude it; a topic in a
  branch is written under the branch's accumulated resource prefixes;
- key scopes (DITA 1.3): a key reference resolves in its topicref's scope, whose key space is its
  own first definitions plus its child scopes' keys under qualified names, overridden by the parent
  scope's key space; a topic referenced from a second and third scope is written as `-1`, `-2`.
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
        root = etree.parse(str(job.directory / jf.uri)).getroot()
        kept[jf.uri] = {el.get("id") for el in root.iter() if el.get("id")}
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
    # Sanity of the oracle itself: DITA-OT's exclusion rule (excluded only when every value of an
    # attribute is excluded).
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


# --------------------------------------------------------------------------- branch filtering


@st.composite
def branch_nodes(draw, depth=0):
    """Like map_nodes, plus branch groups: a topicgroup with one or two ditavalrefs (rules drawn
    like a profile's), each with its own resource prefix."""
    kind = draw(st.sampled_from(["topicref", "topicgroup", "branch", "branch"])) if depth < 2 else "topicref"
    attrs = draw(profiling)
    href = draw(st.sampled_from(TOPICS)) if kind == "topicref" else None
    branches = draw(st.lists(ditavals(), min_size=1, max_size=2)) if kind == "branch" else []
    children = draw(st.lists(branch_nodes(depth + 1), min_size=1, max_size=2)) if kind != "topicref" else []
    return (kind, attrs, href, branches, children)


def write_branch_doc_set(base: Path, nodes, topics) -> tuple[Path, dict[str, dict]]:
    """The map and topics; returns the map and {ditaval href: rules} of its ditavalrefs."""
    branch_rules: dict[str, dict] = {}

    def node_xml(node) -> str:
        kind, attrs, href, branches, children = node
        tag = "topicref" if kind == "topicref" else "topicgroup"
        href_xml = f' href="{href}.dita"' if href else ""
        refs = ""
        for rules in branches:
            name = f"b{len(branch_rules) + 1}"
            branch_rules[f"{name}.ditaval"] = rules
            (base / f"{name}.ditaval").write_text(ditaval_text(rules))
            refs += (f'<ditavalref href="{name}.ditaval"><ditavalmeta><dvrResourcePrefix>{name}_</dvrResourcePrefix>'
                     "</ditavalmeta></ditavalref>")
        return f"<{tag}{href_xml}{attrs_xml(attrs)}>{refs}" + "".join(node_xml(c) for c in children) + f"</{tag}>"

    map_text = "<map><title>M</title>" + "".join(node_xml(n) for n in nodes) + "</map>"
    write_doc_set(base, [], topics)  # the topics
    (base / "m.ditamap").write_text(map_text)
    return base / "m.ditamap", branch_rules


def reference_branch_scope(map_path: Path, rules, branch_rules) -> dict[str, set[str]]:
    """output file -> kept ids, reading the map as the DITA 1.3 branch filtering rules say."""
    base = map_path.parent
    kept: dict[str, set[str]] = {}

    def topic_ids(href: str, all_rules) -> set[str] | None:
        root = etree.parse(str(base / href)).getroot()
        if any(spec_excluded(root.attrib, r) for r in all_rules):
            return None
        ids = {root.get("id")}

        def keep(el):
            for child in el:
                if any(spec_excluded(child.attrib, r) for r in all_rules):
                    continue
                if child.get("id"):
                    ids.add(child.get("id"))
                keep(child)

        keep(root)
        return ids

    def walk(el, active: list, prefix: str):
        for child in el:
            if child.tag == "ditavalref" or not isinstance(child.tag, str):
                continue
            refs = [r for r in child if r.tag == "ditavalref"]
            variants = [
                ([*active, branch_rules[r.get("href")]], prefix + r.findtext("ditavalmeta/dvrResourcePrefix"))
                for r in refs
            ] or [(active, prefix)]
            for branch_active, branch_prefix in variants:
                all_rules = [rules, *branch_active]
                if any(spec_excluded(child.attrib, r) for r in all_rules):
                    continue
                if child.get("href"):
                    ids = topic_ids(child.get("href"), all_rules)
                    if ids is not None:
                        kept[branch_prefix + child.get("href")] = ids
                walk(child, branch_active, branch_prefix)

    walk(etree.parse(str(map_path)).getroot(), [], "")
    return kept


@COMMON
@given(
    nodes=st.lists(branch_nodes(), min_size=1, max_size=3),
    topics=st.lists(topic_bodies(), min_size=len(TOPICS), max_size=len(TOPICS)),
    rules=st.lists(ditavals(), min_size=2, max_size=2),
)
def test_branch_filtered_jobs_keep_exactly_what_profile_and_branch_rules_keep(tmp_path_factory, nodes, topics, rules):
    base = tmp_path_factory.mktemp("branches")
    map_path, branch_rules = write_branch_doc_set(base, nodes, topics)
    docset = load(map_path)
    for name, profile_rules in zip(PROFILES, rules):
        ditaval = parse_ditaval(ditaval_text(profile_rules).encode(), name)
        job = preprocess(docset, ditaval, base / "jobs" / name, name=name)
        expected = reference_branch_scope(map_path, profile_rules, branch_rules)
        assert job_scope(job) == expected, ditaval_text(profile_rules)


# --------------------------------------------------------------------------- key scopes

KEYS = ("k1", "k2")
KEY_REFERENCES = ("k1", "k2", "s1.k1", "s2.k2", "s1.s2.k1", "s3.k1", "s2.k1")


@st.composite
def scoped_nodes(draw, depth=0):
    kind = draw(st.sampled_from(["keydef", "keydef", "topicref", "scope", "group"])) if depth < 3 else "keydef"
    attrs = draw(profiling) if kind != "topicref" else {}
    if kind == "keydef":
        return (kind, attrs, draw(st.sampled_from(KEYS)), [])
    if kind == "topicref":
        return (kind, attrs, draw(st.sampled_from(TOPICS[:2])), [])
    return (kind, attrs, None, draw(st.lists(scoped_nodes(depth + 1), min_size=1, max_size=3)))


def write_scoped_doc_set(base: Path, nodes) -> Path:
    counter = iter(range(1, 10_000))

    def node_xml(node) -> str:
        kind, attrs, value, children = node
        if kind == "keydef":
            n = next(counter)
            return (f'<keydef keys="{value}"{attrs_xml(attrs)}><topicmeta><keywords><keyword>d{n}</keyword>'
                    "</keywords></topicmeta></keydef>")
        if kind == "topicref":
            return f'<topicref href="{value}.dita"/>'
        scope = f' keyscope="s{next(counter)}"' if kind == "scope" else ""
        return f"<topicgroup{scope}{attrs_xml(attrs)}>" + "".join(node_xml(c) for c in children) + "</topicgroup>"

    (base / "m.ditamap").write_text("<map><title>M</title>" + "".join(node_xml(n) for n in nodes) + "</map>")
    for name in TOPICS[:2]:
        phs = "".join(f'<ph id="{name}-{i}" keyref="{k}"/> ' for i, k in enumerate(KEY_REFERENCES))
        (base / f"{name}.dita").write_text(f'<topic id="{name}"><title>T</title><body><p>{phs}</p></body></topic>')
    return base / "m.ditamap"


def reference_key_texts(map_path: Path, rules) -> dict[str, list[str]]:
    """output file -> the text of each key reference, resolving keys as the DITA 1.3 spec says."""

    def kept(el):
        return [c for c in el if isinstance(c.tag, str) and not spec_excluded(c.attrib, rules)]

    def own(scope_el) -> dict[str, str]:
        """The scope's own definitions: first in document order, not entering child scopes."""
        found: dict[str, str] = {}

        def visit(el):
            for c in kept(el):
                if c.tag == "keydef":
                    found.setdefault(c.get("keys"), c.findtext("topicmeta/keywords/keyword"))
                elif c.get("keyscope") is None:
                    visit(c)

        visit(scope_el)
        return found

    def child_scopes(el) -> list:
        found = []
        for c in kept(el):
            if c.get("keyscope"):
                found.append(c)
            elif c.tag != "keydef":
                found.extend(child_scopes(c))
        return found

    def with_descendants(scope_el) -> dict[str, str]:
        """Own keys, then each child scope's keys (recursively) under its qualified name."""
        keys = dict(own(scope_el))
        for child in child_scopes(scope_el):
            for key, text in with_descendants(child).items():
                keys.setdefault(f"{child.get('keyscope')}.{key}", text)
        return keys

    outputs: dict[str, list[str]] = {}
    uses: dict[str, list] = {}

    def walk(el, space: dict[str, str]):
        for c in kept(el):
            if c.get("keyscope"):
                inner = {**with_descendants(c), **space}  # the parent scope's keys win
                walk(c, inner)
            elif c.tag == "topicref":
                topic = c.get("href")
                scopes = uses.setdefault(topic, [])
                if not any(s is space for s in scopes):
                    scopes.append(space)
                    n = len(scopes) - 1
                    name = topic if n == 0 else topic.replace(".dita", f"-{n}.dita")
                    outputs[name] = [space.get(k, "") for k in KEY_REFERENCES]  # undefined: stays empty
            elif c.tag != "keydef":
                walk(c, space)

    root = etree.parse(str(map_path)).getroot()
    walk(root, with_descendants(root))
    return outputs


def job_key_texts(job) -> dict[str, list[str]]:
    texts = {}
    for jf in job.files:
        if jf.format == "dita" and jf.kept:
            root = etree.parse(str(job.directory / jf.uri)).getroot()
            texts[jf.uri] = ["".join(ph.itertext()) for ph in root.iter("ph")]
    return texts


@COMMON
@given(nodes=st.lists(scoped_nodes(), min_size=1, max_size=4), rules=ditavals())
def test_key_references_resolve_in_their_scope_as_the_literal_rules_say(tmp_path_factory, nodes, rules):
    base = tmp_path_factory.mktemp("keyscopes")
    map_path = write_scoped_doc_set(base, nodes)
    job = preprocess(load(map_path), parse_ditaval(ditaval_text(rules).encode(), "p"), base / "job", name="p")
    assert job_key_texts(job) == reference_key_texts(map_path, rules), (map_path.read_text(), ditaval_text(rules))
