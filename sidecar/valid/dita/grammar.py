"""@class and @domains defaults from the doc set's own DTD shells, read locally.

A DITA element gets its @class from its grammar's attribute defaults. VALID's built-in table
(valid.dita.classes) covers the OASIS DITA 1.3 grammars; a doc set with its own specializations ships
DTD shells that declare theirs. When a file's DOCTYPE names such a shell, the shell and its modules
are read here, through an OASIS XML catalog given by the user (`--catalog`) or, without an entry
there, through system ids resolved relative to the file, and only if they stay inside the doc-set root
(or inside the directory of a given catalog). Nothing is ever fetched from the network. A grammar that
cannot be read this way is not used: the built-in table stays the fallback, with a warning.

Only declarations are read from a DTD: libxml2 parses it with entity substitution off, every external
entity it names goes through `_LocalResolver`, which refuses anything outside those directories.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

from lxml import etree

from valid.dita import rng
from valid.errors import ConfigError

CATALOG_NS = "urn:oasis:names:tc:entity:xmlns:xml:catalog"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"

# The grammars the built-in table already is: no warning when they are not shipped with the doc set.
_OASIS_DITA = re.compile(r"^-//OASIS//(DTD|ELEMENTS|ENTITIES) (DITA|XNAL)")
_DEFAULTS_READ = ("class", "domains")


# ----------------------------------------------------------------------------- OASIS catalogs


@dataclass
class Catalog:
    """The public and system entries of an OASIS XML catalog and the catalogs it chains to."""

    public: dict[str, Path] = field(default_factory=dict)
    system: dict[str, Path] = field(default_factory=dict)
    uri: dict[str, Path] = field(default_factory=dict)  # <uri name=...>: RELAX NG modules named by URI or URN
    directories: list[Path] = field(default_factory=list)

    def resolve(self, public_id: str | None, system_id: str | None) -> Path | None:
        if public_id and public_id in self.public:
            return self.public[public_id]
        if system_id and system_id in self.system:
            return self.system[system_id]
        return None


def read_catalog(path: str | Path) -> Catalog:
    """Read a catalog file (and its nextCatalog chain); ConfigError when it cannot be used."""
    catalog = Catalog()
    _read_catalog_into(Path(path).resolve(), catalog, seen=set())
    return catalog


def _read_catalog_into(file: Path, catalog: Catalog, seen: set[Path]) -> None:
    if file in seen:
        return
    seen.add(file)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.parse(str(file), parser).getroot()
    except OSError as err:
        raise ConfigError(f"{file}: cannot read catalog: {err}") from None
    except etree.XMLSyntaxError as err:
        raise ConfigError(f"{file}:{err.lineno}: malformed catalog: {err.msg}") from None
    if etree.QName(root).namespace != CATALOG_NS:
        raise ConfigError(f"{file}: not an OASIS XML catalog (root element in {CATALOG_NS})")
    catalog.directories.append(file.parent)
    _read_entries(root, file.as_uri(), catalog, seen)


def _read_entries(parent: etree._Element, base: str, catalog: Catalog, seen: set[Path]) -> None:
    for el in parent:
        if not isinstance(el.tag, str) or etree.QName(el).namespace != CATALOG_NS:
            continue
        local = etree.QName(el).localname
        here = urljoin(base, el.get(XML_BASE)) if el.get(XML_BASE) else base
        if local == "group":
            _read_entries(el, here, catalog, seen)
        elif local == "public" and el.get("publicId") and el.get("uri"):
            catalog.public.setdefault(_normalize_public(el.get("publicId")), _local_path(urljoin(here, el.get("uri"))))
        elif local == "system" and el.get("systemId") and el.get("uri"):
            catalog.system.setdefault(el.get("systemId"), _local_path(urljoin(here, el.get("uri"))))
        elif local == "uri" and el.get("name") and el.get("uri"):
            catalog.uri.setdefault(el.get("name"), _local_path(urljoin(here, el.get("uri"))))
        elif local == "nextCatalog" and el.get("catalog"):
            target = _local_path(urljoin(here, el.get("catalog")))
            if target is not None:
                _read_catalog_into(target, catalog, seen)


def _local_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None  # never the network
    return Path(unquote(parsed.path)).resolve()


def _normalize_public(public_id: str) -> str:
    return " ".join(public_id.split())


# ----------------------------------------------------------------------------- grammars


def _is_standard(public_id: str | None, system_id: str | None) -> bool:
    """An OASIS DITA public id, or only a system id named after a DITA 1.3 document type."""
    from valid.dita import classes

    if public_id:
        return bool(_OASIS_DITA.match(public_id))
    stem = Path(unquote(system_id or "")).name.removesuffix(".dtd")
    return stem != "" and classes.default_class(stem) is not None


@dataclass(frozen=True)
class Grammar:
    """Attribute defaults the grammar declares: element name -> {'class': ..., 'domains': ...}."""

    source: str
    defaults: dict[str, dict[str, str]]

    def class_of(self, name: str) -> str | None:
        return self.defaults.get(name, {}).get("class")

    def attributes_of(self, name: str) -> dict[str, str]:
        return {k: v for k, v in self.defaults.get(name, {}).items() if k != "class"}


class Grammars:
    """Finds and reads the grammar of each file's DOCTYPE, once per grammar, with the loader's limits."""

    def __init__(self, root_dir: Path, catalog: Catalog | None = None):
        self.root_dir = root_dir
        self.catalog = catalog
        self.allowed = [root_dir, *(catalog.directories if catalog is not None else [])]
        self._cache: dict[tuple[str | None, Path | None, str | None], tuple[Grammar | None, str | None]] = {}

    def for_tree(self, tree: etree._ElementTree, file: Path) -> tuple[Grammar | None, str | None]:
        """(grammar, None), (None, why it is not used) or (None, None) when there is nothing to read."""
        info = tree.docinfo
        public_id = _normalize_public(info.public_id) if info.public_id else None
        system_id = info.system_url
        if public_id is None and system_id is None:
            href = rng.xml_model_href(tree)
            return self._for_rng(href, file) if href else (None, None)
        shell = self._locate(public_id, system_id, file)
        key = (public_id, shell, system_id if shell is None else None)
        if key not in self._cache:
            self._cache[key] = self._read(public_id, system_id, shell)
        return self._cache[key]

    def _locate(self, public_id: str | None, system_id: str | None, file: Path) -> Path | None:
        if self.catalog is not None:
            found = self.catalog.resolve(public_id, system_id)
            if found is not None:
                return found
        if system_id and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", system_id):
            return (file.parent / unquote(system_id)).resolve()
        if system_id and system_id.startswith("file:"):
            return _local_path(system_id)
        return None

    def _read(self, public_id: str | None, system_id: str | None, shell: Path | None):
        name = public_id or system_id or "?"
        if shell is None or not shell.is_file():
            if _is_standard(public_id, system_id):
                return None, None  # a standard DITA grammar: the built-in table is that grammar
            return None, f"the grammar '{name}' is not available locally (give --catalog); built-in DITA 1.3 defaults used"
        if not self._inside_allowed(shell):
            return None, f"the grammar '{name}' is outside the doc-set root and is not read; built-in DITA 1.3 defaults used"
        resolver = _LocalResolver(self)
        parser = etree.XMLParser(load_dtd=True, no_network=True, resolve_entities=False, attribute_defaults=False)
        parser.resolvers.add(resolver)
        probe = f'<!DOCTYPE probe SYSTEM "{shell.as_uri()}"><probe/>'.encode("utf-8")
        try:
            dtd = etree.fromstring(probe, parser, base_url=shell.as_uri()).getroottree().docinfo.externalDTD
        except etree.XMLSyntaxError as err:
            return None, f"the grammar '{name}' cannot be read ({err.msg}); built-in DITA 1.3 defaults used"
        if resolver.refused:
            return None, f"the grammar '{name}' refers to '{resolver.refused[0]}', which is not read (outside the doc-set root or not local); built-in DITA 1.3 defaults used"
        if dtd is None:
            return None, f"the grammar '{name}' cannot be read; built-in DITA 1.3 defaults used"
        # DITA shells write @domains as "&included-domains;": a general entity of the DTD.
        texts = {ent.name: ent.content or "" for ent in dtd.iterentities() if not ent.system_url}
        defaults: dict[str, dict[str, str]] = {}
        for element in dtd.iterelements():
            for att in element.iterattributes():
                if att.name in _DEFAULTS_READ and att.default_value:
                    value = _expand_general(att.default_value, texts)
                    defaults.setdefault(element.name, {})[att.name] = " ".join(value.split()) if att.name == "domains" else value
        return Grammar(source=str(shell), defaults=defaults), None

    # -- RELAX NG shells (DITA 1.3 xml-model) --------------------------------------------------
    def _for_rng(self, href: str, file: Path) -> tuple[Grammar | None, str | None]:
        shell = self._locate_rng(href, file)
        key = ("rng", shell, href if shell is None else None)
        if key not in self._cache:
            self._cache[key] = self._read_rng(href, shell)
        return self._cache[key]

    def _locate_rng(self, href: str, file: Path) -> Path | None:
        """A RELAX NG module, locally: a catalog <uri> entry, else a path relative to the naming file."""
        # OASIS catalogs map RNG module URNs with <uri name=...> and with <system systemId=...>.
        found = (self.catalog.uri.get(href) or self.catalog.system.get(href)) if self.catalog is not None else None
        if found is None:
            if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", href):
                found = (file.parent / unquote(href.split("#")[0])).resolve()
            elif href.startswith("file:"):
                found = _local_path(href)
        return found if found is not None and found.is_file() and self._inside_allowed(found) else None

    def _read_rng(self, href: str, shell: Path | None) -> tuple[Grammar | None, str | None]:
        if shell is None:
            if rng.is_standard(href):
                return None, None  # an OASIS DITA grammar: the built-in table is that grammar
            return None, (f"the grammar '{href}' is not available locally inside the doc-set root (give --catalog); "
                          "built-in DITA 1.3 defaults used")
        try:
            found = rng.read_defaults(shell, self._locate_rng, _DEFAULTS_READ)
        except rng.RngError as err:
            return None, f"the grammar '{href}' cannot be read: {err}; built-in DITA 1.3 defaults used"
        defaults = {
            element: {att: " ".join(value.split()) if att == "domains" else value for att, value in atts.items()}
            for element, atts in found.items()
        }
        return Grammar(source=str(shell), defaults=defaults), None

    def _inside_allowed(self, path: Path) -> bool:
        return any(path.is_relative_to(base) for base in self.allowed)


_GENERAL_REF = re.compile(r"&([A-Za-z_:][\w.:-]*);")


_MAX_DEFAULT_CHARS = 65_536  # an attribute default longer than this is a DTD bug or an attack


def _expand_general(value: str, texts: dict[str, str], depth: int = 0) -> str:
    if depth > 8 or "&" not in value:
        return value
    expanded = _GENERAL_REF.sub(
        lambda m: _expand_general(texts[m.group(1)], texts, depth + 1) if m.group(1) in texts else m.group(), value
    )
    return expanded if len(expanded) <= _MAX_DEFAULT_CHARS else ""


class _LocalResolver(etree.Resolver):
    """Every module a shell names: through the catalog, else inside the allowed directories, else refused."""

    def __init__(self, grammars: Grammars):
        super().__init__()
        self.grammars = grammars
        self.refused: list[str] = []

    def resolve(self, system_url, public_id, context):
        catalog = self.grammars.catalog
        found = catalog.resolve(_normalize_public(public_id), system_url) if catalog and public_id else None
        if found is None and catalog is not None and system_url:
            found = catalog.resolve(None, system_url)
        if found is None and system_url:
            # libxml2 hands over module ids made absolute against the including file: a file: URI
            # or a plain absolute path. Anything else (http:, a bare relative name) is not local.
            if urlparse(system_url).scheme == "file":
                found = _local_path(system_url)
            elif Path(system_url).is_absolute():
                found = Path(system_url).resolve()
        if found is not None and found.is_file() and self.grammars._inside_allowed(found):
            return self.resolve_filename(str(found), context)
        self.refused.append(public_id or system_url or "?")
        return self.resolve_string("", context)
