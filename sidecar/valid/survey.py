"""What `valid init` learns from a doc set before it writes valid.toml.

`survey(map, search)` loads the map (securely, as an export does), collects the profiling values
its maps and topics use per attribute, and looks under `search` for subject scheme maps and
DITAVAL files that fit them: a scheme fits when it binds an attribute the doc set uses and declares
the values used; a DITAVAL fits when it includes a value the doc set uses. The profiles are the
scheme's values (labels from the scheme) when a scheme fits, else one per fitting DITAVAL (labels
suggested from the values it includes, for a writer to confirm). `render(survey, directory)` is the
commented valid.toml. Pure reading: nothing is written here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from valid.contracts import ExportWarning
from valid.dita import classes
from valid.dita.ditaval import FILTER_ATTRIBUTES, props_chains, read_ditaval
from valid.dita.loader import DocSet, load
from valid.dita.scheme import SubjectScheme, load_scheme
from valid.errors import ValidError

_SKIP_DIRS = {"node_modules", "out", "build", "valid-demo", "valid-report", "__pycache__"}
_MAX_FILES = 5000  # candidate files read at most: a survey of a home directory must still end


@dataclass
class SurveyProfile:
    name: str
    ditaval: Path | None  # None: implied by the scheme
    labels: list[str]
    suggested: bool  # labels made up from the values, not given by a scheme
    includes: list[tuple[str, str]] = field(default_factory=list)  # (attribute, value) the DITAVAL keeps


@dataclass
class Survey:
    map: Path
    used: dict[str, list[str]]  # attribute -> values the doc set uses, in first-seen order
    scheme: Path | None
    attribute: str | None
    profiles: list[SurveyProfile]
    ditavals_seen: int
    schemes_seen: int
    # What the doc set lacks or VALID does not support, as an export lists it (missing files, ...).
    warnings: list[ExportWarning] = field(default_factory=list)
    hierarchy: list[str] = field(default_factory=list)  # what the profiles derive from nested values


def used_values(map_path: Path) -> dict[str, list[str]]:
    """Profiling attribute -> the values its maps and topics use (specialized @props included)."""
    return values_in(load(map_path))


def values_in(docset: DocSet) -> dict[str, list[str]]:
    """Profiling attribute -> the values the loaded doc set's maps and topics use."""
    used: dict[str, list[str]] = {}
    for sf in docset.files.values():
        if classes.has_class(sf.root, classes.SUBJECT_SCHEME):
            continue
        names = list(FILTER_ATTRIBUTES) + [chain[-1] for chain in props_chains(sf.root.get("domains"))]
        for el in sf.root.iter():
            if not isinstance(el.tag, str):
                continue
            for name in names:
                for token in (el.get(name) or "").split():
                    if name != "print" and "(" not in token and ")" not in token:
                        values = used.setdefault(name, [])
                        if token not in values:
                            values.append(token)
    return used


def _candidates(search: Path, suffix: str) -> list[Path]:
    found: list[Path] = []
    for directory, dirs, files in os.walk(search):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        found += [Path(directory) / f for f in sorted(files) if f.endswith(suffix)]
        if len(found) >= _MAX_FILES:
            break
    return found[:_MAX_FILES]


def _schemes(search: Path) -> list[SubjectScheme]:
    schemes = []
    for path in _candidates(search, ".ditamap"):
        try:
            head = path.read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError:
            continue
        if "subjectScheme" not in head:
            continue
        try:
            schemes.append(load_scheme(path))
        except ValidError:
            continue  # not a scheme VALID can read: the writer can still name one in valid.toml
    return schemes


def _fitting_scheme(schemes: list[SubjectScheme], used: dict[str, list[str]]) -> tuple[SubjectScheme, str] | None:
    """The scheme (and attribute) that declares every value the doc set uses on an attribute it binds;
    the one covering the most used values when several do."""
    best = None
    for scheme in schemes:
        for attribute in scheme.attributes():
            values = used.get(attribute)
            declared = scheme.values(attribute) or []
            if values and set(values) <= set(declared):
                if best is None or len(values) > best[0]:
                    best = (len(values), scheme, attribute)
    return (best[1], best[2]) if best else None


def hierarchy_notes(scheme: SubjectScheme, attribute: str) -> list[str]:
    """One sentence per broader value of the attribute: which builds keep content tagged with it,
    and that it is no profile of its own unless the writer names it."""
    leaves = scheme.profile_values(attribute)
    notes = []
    for parent in scheme.parent_values(attribute):
        below = [key for key in scheme.narrower(parent) if key in leaves]
        notes.append(
            f"@{attribute}={parent} covers {', '.join(below)}: content tagged {parent} is kept in the "
            f"{', '.join(below)} build(s); {parent} is not a profile of its own (name it in [docset] "
            "parent_profiles to offer it)"
        )
    return notes


def suggested_label(includes: list[tuple[str, str]]) -> str:
    """A readable name from the values a profile keeps: 'acme-pro' -> 'Acme Pro', 'cli-2.4.1' -> 'Cli 2.4.1'."""
    words = []
    for _, value in includes:
        words += [w if re.search(r"\d", w) else w.capitalize() for w in re.split(r"[-_\s]+", value) if w]
    return " ".join(words)


def _ditaval_profiles(search: Path, used: dict[str, list[str]]) -> tuple[list[SurveyProfile], int]:
    paths = _candidates(search, ".ditaval")
    profiles = []
    for path in paths:
        try:
            ditaval = read_ditaval(path)
        except ValidError:
            continue
        includes = [(r.att, r.val) for r in ditaval.rules if r.action == "include" and r.att and r.val]
        if not any(val in used.get(att, []) for att, val in includes):
            continue
        label = suggested_label(includes)
        profiles.append(SurveyProfile(path.stem, path.resolve(), [label] if label else [], True, includes))
    return profiles, len(paths)


def _value_labels(schemes: list[SubjectScheme], used: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """(attribute, value) -> the display name a scheme gives the value, for values the doc set uses."""
    labels: dict[tuple[str, str], str] = {}
    for scheme in schemes:
        for attribute in scheme.attributes():
            for value in set(used.get(attribute, [])) & set(scheme.values(attribute) or []):
                labels.setdefault((attribute, value), scheme.labels(value)[0])
    return labels


def _combined(profiles: list[SurveyProfile], labels: dict[tuple[str, str], str]) -> list[SurveyProfile]:
    """Profiles over several attributes, with labels suggested from the scheme's names of their values."""
    for profile in profiles:
        if all(include in labels for include in profile.includes):
            profile.labels = [" ".join(labels[include] for include in profile.includes)]
    return profiles


def survey(map_path: str | os.PathLike, search: str | os.PathLike) -> Survey:
    """The doc set's profiling: values used, the fitting scheme or DITAVALs, and the profiles.

    DITAVALs that each keep values of several attributes (a product on a platform) are profiles no
    single scheme attribute gives: they win over the scheme's values, and a scheme that declares the
    values stays for validation and lends its names to the suggested labels."""
    map_file = Path(map_path).resolve()
    search_dir = Path(search).resolve()
    docset = load(map_file)
    survey = _survey(map_file, search_dir, values_in(docset))
    survey.warnings = list(docset.warnings)
    return survey


def _survey(map_file: Path, search_dir: Path, used: dict[str, list[str]]) -> Survey:
    schemes = _schemes(search_dir)
    fit = _fitting_scheme(schemes, used)
    ditaval_profiles, ditavals_seen = _ditaval_profiles(search_dir, used)
    if any(len({att for att, _ in p.includes}) > 1 for p in ditaval_profiles):
        profiles = _combined(ditaval_profiles, _value_labels(schemes, used))
        scheme = fit[0].file if fit else None
        return Survey(map_file, used, scheme, None, profiles, ditavals_seen, len(schemes))
    if fit:
        scheme, attribute = fit
        by_value = {p.includes[0][1]: p for p in ditaval_profiles if len(p.includes) == 1}
        profiles = [
            SurveyProfile(value, None, scheme.labels(value), False,
                          by_value[value].includes if value in by_value
                          else [(attribute, k) for k in [value, *scheme.ancestors(attribute, value)]])
            for value in scheme.profile_values(attribute)
        ]
        return Survey(map_file, used, scheme.file, attribute, profiles, ditavals_seen, len(schemes),
                      hierarchy=hierarchy_notes(scheme, attribute))
    return Survey(map_file, used, None, None, ditaval_profiles, ditavals_seen, len(schemes))


# ----------------------------------------------------------------------------- the file


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _relative(path: Path, directory: Path) -> str:
    return Path(os.path.relpath(path, directory)).as_posix()


def _profile_lines(profile: SurveyProfile, directory: Path) -> list[str]:
    key = profile.name if re.fullmatch(r"[A-Za-z0-9_-]+", profile.name) else _toml_string(profile.name)
    keeps = ", ".join(f"@{att}={val}" for att, val in profile.includes)
    lines = [f"[profiles.{key}]" + (f"  # keeps {keeps}" if keeps else "")]
    if profile.ditaval is not None:
        lines.append(f"ditaval = {_toml_string(_relative(profile.ditaval, directory))}")
    labels = "[" + ", ".join(_toml_string(label) for label in profile.labels) + "]"
    if profile.suggested:
        # Commented out: a made-up name that is an ordinary word would claim questions that are not
        # about this profile; a writer confirms or rewrites it first.
        lines += [
            "# Readers' names, display name first (suggested from the values: confirm or rewrite, then",
            "# uncomment). Without labels the id claims a question only as an id (docs/configuration.md).",
            f"# labels = {labels}",
        ]
    else:
        lines.append(f"# From the subject scheme; uncomment to replace them:\n# labels = {labels}")
    return lines + [""]


def render(result: Survey, directory: str | os.PathLike, tuning: dict[str, object]) -> str:
    """The commented valid.toml for the survey, paths relative to `directory` (where it is written);
    `tuning`: the floors and weights in force, shown as commented defaults."""
    directory = Path(directory).resolve()
    used = "; ".join(f"@{att}: {', '.join(values)}" for att, values in result.used.items()) or "none"
    lines = [
        "# valid.toml: written by `valid init`; see docs/configuration.md for every setting.",
        f"# Profiling values the doc set uses: {used}.",
        f"# Looked at {result.schemes_seen} subject scheme(s) and {result.ditavals_seen} DITAVAL file(s).",
        "",
        "[docset]",
        f"map = {_toml_string(_relative(result.map, directory))}",
    ]
    if result.scheme is not None and result.attribute is not None:
        lines += [
            f"scheme = {_toml_string(_relative(result.scheme, directory))}",
            f"attribute = {_toml_string(result.attribute)}",
            "# One profile per value of the attribute; each build is the scheme's implied DITAVAL.",
        ]
        if result.hierarchy:
            lines += [
                "# From the scheme's hierarchy: a build keeps content tagged with its value or a broader one.",
                *(f"# {note}." for note in result.hierarchy),
                "# parent_profiles = []",
            ]
    elif result.scheme is not None:
        lines += [
            f"scheme = {_toml_string(_relative(result.scheme, directory))}",
            "# Profiles over several attributes, one per DITAVAL; the scheme validates the values.",
        ]
    elif result.profiles:
        lines.append("# No subject scheme fits: one profile per DITAVAL that keeps a value the doc set uses.")
    else:
        lines.append("# No subject scheme or DITAVAL fits: add [profiles.NAME] tables with a ditaval each.")
    lines.append("")
    for profile in result.profiles:
        lines += _profile_lines(profile, directory)
    lines += [
        "[index]",
        '# state = ".valid"            # where releases, the question log and gap issues live',
        "",
        "[answer]",
        '# generator = "offline"       # or "gemini" (GEMINI_API_KEY)',
        '# model = "gemini-3.8-flash"',
        "",
        "[evaluate]",
        '# trapset = "trapset.jsonl"   # your trap set (docs/your-doc-set.md)',
        "",
        "[tuning]",
        "# Floors and weights (built-in values shown): tune them on the dev split only (docs/your-doc-set.md).",
        *(f"# {key} = {value}" for key, value in tuning.items()),
        "",
        "[serve]",
        "# port = 8080",
        "# rate_per_s = 5.0",
        "# What readers see (default: the map's title, and the noun of the profiling attribute):",
        '# title = "Ask the product docs"',
        f"# noun = {_toml_string(_noun(result))}        # what readers call one build",
        "# Where each build is published: citations link there (docs/serve.md#citation-links).",
        '# published_url = "https://docs.example.com/{build}/{path}#{fragment}"',
        "",
    ]
    return "\n".join(lines)


def _noun(result: Survey) -> str:
    from valid.wording import DEFAULT_NOUN, NOUNS

    attributes = [result.attribute] if result.attribute else list(result.used)
    return next((NOUNS[a] for a in attributes if a in NOUNS), DEFAULT_NOUN)
