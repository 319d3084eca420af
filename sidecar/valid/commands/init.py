"""`valid init`: write a commented valid.toml for a doc set, from what its map uses."""

from __future__ import annotations

from pathlib import Path

import click

from valid.errors import OutputError


@click.command("init")
@click.argument("map_path", metavar="MAP", type=click.Path(dir_okay=False))
@click.option("-o", "--out", type=click.Path(dir_okay=False), default="valid.toml", show_default=True,
              help="Where to write the configuration; paths in it are relative to its directory.")
@click.option("--search", type=click.Path(file_okay=False), default=None,
              help="Directory searched for subject schemes and DITAVAL files (default: the output's directory).")
@click.option("--force", is_flag=True, help="Replace an existing file.")
@click.option("--warnings", "list_warnings", is_flag=True,
              help="List every warning about the doc set (missing files, ...), not only the summary.")
def init_command(map_path, out, search, force, list_warnings):
    """Write valid.toml for MAP: its profiles (a fitting subject scheme, else its DITAVALs), the
    attribute, labels (from the scheme, or suggested for a writer to confirm) and commented defaults.

    Review the file before the first export: it is a starting point, not a verdict.
    """
    from valid import config
    from valid.survey import render, survey

    target = Path(out)
    if target.exists() and not force:
        raise OutputError(f"{target} exists; pass --force to replace it")
    directory = target.resolve().parent
    result = survey(map_path, search or directory)
    text = render(result, directory, config.tuning_values())
    directory.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    source = f"subject scheme {result.scheme.name} (@{result.attribute})" if result.attribute else "DITAVAL files"
    names = ", ".join(p.name for p in result.profiles) or "none"
    click.echo(f"wrote {target}: {len(result.profiles)} profile(s) from {source}: {names}")
    for note in result.hierarchy:
        click.echo(f"  {note}")
    if result.warnings:
        from valid.export.warnings import listing, summary

        # The same report as valid export's: what the doc set lacks does not stop the survey.
        click.echo(listing(result.warnings) if list_warnings else summary(result.warnings), err=True)
        if not list_warnings:
            click.echo("list them all: add --warnings", err=True)


commands = [init_command]
