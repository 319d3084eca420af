"""`valid export` and `valid schema`: thin click shells over valid.export."""

from __future__ import annotations

from pathlib import Path

import click

from valid.errors import ConfigError


def _profile_pairs(values: tuple[str, ...], option: str = "--profile", right: str = "FILE.ditaval") -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise ConfigError(f"{option} {value!r}: expected NAME={right}")
        pairs.append((name, path))
    return pairs


def _labels(values: tuple[str, ...]) -> dict[str, list[str]]:
    labels: dict[str, list[str]] = {}
    for name, label in _profile_pairs(values, "--label", "LABEL"):
        labels.setdefault(name, []).append(label)
    return labels


@click.command("export")
@click.argument("map_path", metavar="MAP", type=click.Path(dir_okay=False))
@click.option("--scheme", type=click.Path(dir_okay=False), help="Subject scheme map: one profile per value.")
@click.option("--attribute", help="The scheme's attribute to profile on (default: the only bound one).")
@click.option(
    "--profile",
    "profiles",
    multiple=True,
    metavar="NAME=FILE.ditaval",
    help="An explicit profile (repeatable); replaces the scheme's implied profiles.",
)
@click.option(
    "--label",
    "labels",
    multiple=True,
    metavar="NAME=LABEL",
    help="A reader's name for profile NAME (repeatable; display name first); replaces the scheme's labels for NAME.",
)
@click.option(
    "--parent-profile",
    "parent_profiles",
    multiple=True,
    metavar="VALUE",
    help="A scheme value with narrower values below it (unix over mac and linux) that is a profile of its own "
    "(repeatable); without it only the values with nothing narrower below them are profiles.",
)
@click.option("--root", type=click.Path(file_okay=False), help="Doc-set root (default: the map's directory).")
@click.option(
    "--catalog",
    type=click.Path(dir_okay=False),
    help="OASIS XML catalog for the doc set's own DTD or RELAX NG shells (read locally, never the network).",
)
@click.option(
    "-o", "--out", required=True, help="Output JSON-lines file, a FIFO, or '-' for standard output."
)
@click.option("--allow-empty", is_flag=True, help="Write the export even with no chunks, or a profile with none.")
@click.option("--progress", "show_progress", is_flag=True, help="Show progress on stderr even when it is not a terminal.")
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: the usable CPUs, at most 4; 1 for a small doc set). "
    "1 exports in one process. The output is the same for any number.",
)
@click.option("--strict", is_flag=True, default=False,
              help="Fail (exit 2, nothing written) when there is any warning, after listing them.")
@click.option("--warnings", "list_warnings", is_flag=True,
              help="List every warning on stderr (file:line: kind: message), not only the summary.")
def export_command(map_path, scheme, attribute, profiles, labels, parent_profiles, root, catalog, out, allow_empty, show_progress, jobs,
                   strict, list_warnings):
    """Export MAP's chunks as JSON lines, each with its scope per profile.

    Each profile is preprocessed on its own (as a DITA-OT build with its DITAVAL would be), then
    the stylesheet chunks and merges the builds. What DITA-OT reports and builds past (a missing
    file, a conref target that does not exist, an undefined key) is a warning: a summary by kind
    goes to stderr (every warning with --warnings; later: `valid warnings OUT`). The output is
    written atomically: on any error nothing is written.
    """
    from valid.errors import StrictWarningsError
    from valid.export import export
    from valid.progress import reporter

    progress = reporter("valid export", show_progress)
    try:
        result = export(
            map_path,
            scheme=scheme,
            attribute=attribute,
            profiles=_profile_pairs(profiles) or None,
            labels=_labels(labels),
            parent_profiles=parent_profiles,
            root=root,
            catalog=catalog,
            out=out,
            progress=progress,
            allow_empty=allow_empty,
            jobs=jobs,
            strict=strict,
        )
    except StrictWarningsError as err:
        if progress is not None:
            progress.close()
        _report_warnings(err.warnings, list_warnings, None)
        raise
    finally:
        if progress is not None:
            progress.close()  # before any error or summary line
    _report_warnings(result.warnings, list_warnings, None if out == "-" else result.out)
    counts = result.header.counts
    per = ", ".join(f"{name} {counts.per_profile.get(name, 0)}" for name in result.profiles)
    click.echo(
        f"wrote {'<stdout>' if out == '-' else result.out}: {result.chunks} chunks ({per}); "
        f"{counts.kept_by_no_profile} kept by no profile; {len(result.warnings)} warning(s)",
        err=out == "-",  # standard output carries the export itself
    )


def _report_warnings(warnings, list_all: bool, out: Path | None) -> None:
    """The warnings on stderr: a summary by kind, or every one; say how to list them later."""
    from valid.export.warnings import listing, summary

    if not warnings:
        return
    click.echo(listing(warnings) if list_all else summary(warnings), err=True)
    if not list_all and out is not None:
        click.echo(f"list them all: valid warnings {out} [--format json]", err=True)


@click.command("warnings")
@click.argument("export_path", metavar="EXPORT", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one `file:line: kind: message` line each; json: an array of objects.")
@click.option("--summary", "only_summary", is_flag=True, help="Only the counts by kind, with the first few places.")
def warnings_command(export_path, fmt, only_summary):
    """List the warnings an existing export recorded in its header."""
    from valid.export.warnings import listing, read_export_warnings, summary

    warnings = read_export_warnings(export_path)
    text = summary(warnings) if only_summary else listing(warnings, fmt)
    if text:
        click.echo(text)


@click.command("schema")
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
def schema_command(out):
    """Print the JSON Schema of the export contract (one line: header or chunk)."""
    from valid.export import contract_schema_json

    text = contract_schema_json()
    if out:
        Path(out).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


commands = [export_command, warnings_command, schema_command]
