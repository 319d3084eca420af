"""`valid.toml`: one file that says what a doc set is and how VALID runs on it.

Found by `--config FILE` (or VALID_CONFIG), else by looking for `valid.toml` in the working
directory and then in each parent directory. Every command reads it; what it gives is a default:

    command-line flag  >  environment variable (VALID_STATE, ...)  >  valid.toml  >  built-in default

Flags and environment variables reach click's options as usual; valid.toml reaches them through
click's `default_map` (`default_map()` below), which click consults only when neither was given.
The price table, which no flag sets, is applied once by `apply()` before the command runs; the
tuning of floors and weights (`[tuning]`) is handed to each engine a command opens, which owns it
(valid.answer.tuning). Relative paths in the file are relative to the file's directory,
so the same file works from any working directory below it.

The file format is documented in docs/configuration.md; `valid init` writes a commented one.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from valid.answer.tuning import Tuning
from valid.errors import ConfigError

FILE_NAME = "valid.toml"
CONFIG_ENV = "VALID_CONFIG"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProfileConfig(_Section):
    ditaval: str | None = Field(default=None, description="The profile's DITAVAL (for DITAVAL-defined profiles).")
    labels: list[str] = Field(
        default_factory=list,
        description="Readers' names, display name first; replaces the scheme's labels for this profile.",
    )


class DocSetConfig(_Section):
    map: str | None = None
    scheme: str | None = None
    attribute: str | None = None
    parent_profiles: list[str] = Field(
        default_factory=list,
        description="Scheme values with narrower values below them that are profiles of their own (unix over mac and linux).",
    )
    root: str | None = None
    catalog: str | None = None
    # true: any export warning (a missing file, a conref target that does not exist, ...) fails the run.
    strict: bool | None = None


class IndexConfig(_Section):
    state: str | None = None
    chroma_url: str | None = None
    embedder: str | None = None


class AnswerConfig(_Section):
    generator: str | None = None
    model: str | None = None
    # The shared question store (postgresql://user@host:port/db) for ask, serve and log; keep the
    # password out of this file (PGPASSWORD or ~/.pgpass).
    log_url: str | None = None


class EvaluateConfig(_Section):
    trapset: str | None = None
    split: str | None = None


class VersionsSection(_Section):
    # The order of the versions, oldest first (profile names), where the labels' version strings do
    # not give it or give it wrongly; versions it does not name keep their order after these.
    order: list[str] | None = None


class ServeSection(_Section):
    host: str | None = None
    port: int | None = None
    cors_origins: list[str] | None = None
    max_question_chars: int | None = None
    max_body_bytes: int | None = None
    rate_per_s: float | None = None
    rate_burst: int | None = None
    max_inflight: int | None = None
    max_queue: int | None = None
    request_timeout_s: float | None = None
    max_header_bytes: int | None = None
    max_headers: int | None = None
    header_timeout_s: float | None = None
    body_timeout_s: float | None = None
    max_gap_issues: int | None = None
    # What readers see (docs/serve.md#the-doc-sets-own-words): default from the map's title and the
    # profiling attribute.
    title: str | None = None
    tagline: str | None = None
    noun: str | None = None
    noun_plural: str | None = None
    # Where the team publishes each build: a template over {build}, {path}, {topic}, {element},
    # {fragment} (valid.answer.citations); citations link there instead of the source view.
    published_url: str | None = None
    log_timeout_s: float | None = None
    ready_needs_question_store: bool | None = None
    # The admin token is a secret: VALID_ADMIN_TOKEN, never this file.


class Price(_Section):
    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)


class Config(_Section):
    """The whole file. `path` is where it was read from (None: no file, all defaults)."""

    path: Path | None = None
    docset: DocSetConfig = DocSetConfig()
    profiles: dict[str, ProfileConfig] = Field(default_factory=dict)
    index: IndexConfig = IndexConfig()
    answer: AnswerConfig = AnswerConfig()
    evaluate: EvaluateConfig = EvaluateConfig()
    serve: ServeSection = ServeSection()
    versions: VersionsSection = VersionsSection()
    # The floors and weights of the engines a command opens (valid.answer.tuning; every key optional).
    tuning: Tuning = Tuning()
    prices: dict[str, Price] = Field(default_factory=dict)

    def resolve(self, value: str | None) -> str | None:
        """A path from the file, made absolute against the file's directory."""
        if value is None or self.path is None:
            return value
        return str((self.path.parent / Path(value).expanduser()).resolve())

    def labels(self) -> dict[str, list[str]]:
        return {name: list(p.labels) for name, p in self.profiles.items() if p.labels}


# ----------------------------------------------------------------------------- finding and reading


def find(start: Path | None = None) -> Path | None:
    """The nearest valid.toml in `start` (default: the working directory) or a parent of it."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def load(explicit: str | os.PathLike | None = None, start: Path | None = None) -> Config:
    """The configuration: `explicit` (or $VALID_CONFIG) if given, else the nearest valid.toml, else defaults.

    A file named explicitly must exist; a broken file is a one-line ConfigError naming it."""
    named = explicit or os.environ.get(CONFIG_ENV) or None
    path = Path(named) if named else find(start)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the configuration: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    try:
        return Config(path=path.resolve(), **data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"{path}: {where}: {first['msg']} (see docs/configuration.md)") from None


# ----------------------------------------------------------------------------- what commands see


def _present(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None and value != ()}


def default_map(config: Config) -> dict[str, Any]:
    """click's default_map: per command, the option values valid.toml gives (by parameter name)."""
    docset, index, answer, serve = config.docset, config.index, config.answer, config.serve
    state = {"state": config.resolve(index.state), "chroma_url": index.chroma_url}
    profiles = tuple(
        f"{name}={config.resolve(p.ditaval)}" for name, p in config.profiles.items() if p.ditaval is not None
    )
    labels = tuple(f"{name}={label}" for name, p in config.profiles.items() for label in p.labels)
    export = {
        "map_path": config.resolve(docset.map),
        "scheme": config.resolve(docset.scheme),
        "attribute": docset.attribute,
        "parent_profiles": tuple(docset.parent_profiles),
        "profiles": profiles,
        "labels": labels,
        "root": config.resolve(docset.root),
        "catalog": config.resolve(docset.catalog),
        "strict": docset.strict,
    }
    trapset = {"trapset": config.resolve(config.evaluate.trapset)}
    order = {"version_order": ",".join(config.versions.order) if config.versions.order else None}
    serve_options = serve.model_dump(exclude={"cors_origins"})
    serve_options["cors_origins"] = tuple(serve.cors_origins) if serve.cors_origins is not None else None
    commands = {
        "export": export,
        "index": {**state, "embedder": index.embedder},
        "releases": {
            **{name: _present({"state": state["state"]}) for name in ("list", "activate", "rollback")},
            "prune": _present(state),
        },
        "ask": {**state, "generator": answer.generator, "model": answer.model, "log_url": answer.log_url,
                "noun": serve.noun,
                "max_question_chars": serve.max_question_chars,  # the server's bound, one setting for both
                **order},
        "eval": {**state, **trapset, "generator": answer.generator, "split": config.evaluate.split, **order},
        "report": state,  # not the trap set: --trapset runs it, and --scorecard refuses it
        "serve": {**state, "generator": answer.generator, "gemini_model": answer.model, "log_url": answer.log_url,
                  **serve_options},
        "log": {"state": state["state"], "log_url": answer.log_url},
        "init": {"map_path": config.resolve(docset.map)},
    }
    return {name: _present(options) if name != "releases" else options for name, options in commands.items()}


def apply(config: Config) -> None:
    """Apply what no flag sets and no engine owns: the price table (valid.answer.pricing).

    The tuning is not applied here: each engine is given it (`open_engine(..., tuning=config.tuning)`)."""
    if config.prices or "valid.answer.pricing" in sys.modules:
        from valid.answer import pricing

        pricing.configure({name: price.model_dump() for name, price in config.prices.items()})


# Where the `valid` group keeps the configuration it read, for the command it runs (click's
# context meta, shared by every context of one invocation).
CONTEXT_KEY = "valid.config"


def of_command() -> Config:
    """The configuration the running `valid` command was started with (all defaults outside one)."""
    import click

    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(CONTEXT_KEY, Config()) if ctx is not None else Config()


def tuning_values(tuning: Tuning | None = None) -> dict[str, Any]:
    """The floors and weights of `tuning` (default: the built-in ones), by key; an engine's are
    `engine.tuning_values()`."""
    return (tuning or Tuning()).values()
