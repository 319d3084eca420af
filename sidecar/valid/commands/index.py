"""`valid index` and `valid releases`: build, list, activate and roll back index releases."""

from __future__ import annotations

from pathlib import Path

import click

from valid.embed import EMBEDDER_KINDS, make_embedder

_state = click.option(
    "--state",
    type=click.Path(file_okay=False),
    envvar="VALID_STATE",
    default=None,
    help="State directory (default .valid in the working directory; env VALID_STATE).",
)
_chroma = click.option(
    "--chroma-url",
    envvar="VALID_CHROMA_URL",
    default=None,
    help="A Chroma server, e.g. http://127.0.0.1:8000 (default: embedded Chroma in the state directory).",
)


def _store(state, chroma_url=None):
    from valid.index import Store

    return Store(state, chroma_url)


def _audit_findings(export_path) -> list:
    """The audit's scope findings for the report. The audit is part of VALID: if it cannot be
    imported the install is broken, and that fails loudly rather than report zero findings."""
    from valid.audit.findings import find
    from valid.contracts import Export
    from valid.index import read_export

    loaded = read_export(export_path)
    return find(Export(header=loaded.header, chunks=loaded.chunks))


@click.command("index")
@click.argument("export", type=click.Path(dir_okay=False))
@_state
@_chroma
@click.option("--embedder", type=click.Choice(EMBEDDER_KINDS), default="offline", show_default=True, help="Who computes the vectors.")
@click.option("--embed-model", default=None, help="Gemini embedding model (default gemini-embedding-001).")
@click.option("--embed-dimension", type=int, default=None, help="Gemini output dimension (default 768).")
@click.option("--no-activate", is_flag=True, help="Register the release but leave the active release as it is.")
@click.option("--release-file", type=click.Path(dir_okay=False), default=None,
              help="Write the release id to this file (for a pipeline that activates it after its gate).")
@click.option("--json", "as_json", is_flag=True, help="Print the index report as JSON.")
@click.option("--allow-empty", is_flag=True, help="Accept an export with no chunks, or a profile with none.")
@click.option("--progress", "show_progress", is_flag=True, help="Show progress on stderr even when it is not a terminal or with --json.")
def index_command(export, state, chroma_url, embedder, embed_model, embed_dimension, no_activate, release_file, as_json, allow_empty, show_progress):
    """Index an export (CHUNKS.jsonl) into a verified release: Chroma + SQLite FTS5.

    Only texts missing from the embedding cache are embedded; an unchanged export reuses its release.
    The new release becomes active unless --no-activate is given.
    """
    from valid.index import build_release

    options = {}
    if embedder == "gemini":
        if embed_model:
            options["model"] = embed_model
        if embed_dimension:
            options["dimension"] = embed_dimension
    elif embed_model or embed_dimension:
        raise click.UsageError("--embed-model and --embed-dimension apply to --embedder gemini only")
    from valid.progress import reporter

    store = _store(state, chroma_url)
    progress = reporter("valid index", show_progress, as_json=as_json)
    try:
        result = build_release(
            export,
            make_embedder(embedder, **options),
            store,
            activate=not no_activate,
            findings=_audit_findings(export),
            progress=progress,
            allow_empty=allow_empty,
        )
    finally:
        if progress is not None:
            progress.close()
    report = result.report
    if release_file:
        Path(release_file).write_text(result.release_id + "\n", encoding="utf-8")
    if as_json:
        click.echo(report.model_dump_json(indent=2))
        return
    verb = "reused" if result.reused else "built"
    state_word = "active" if result.activated else "not active"
    click.echo(f"release {result.release_id[:12]} {verb} ({state_word}): {report.chunks} chunks, "
               + ", ".join(f"{p} {n}" for p, n in report.per_profile.items()))
    click.echo(
        f"embeddings: {report.embedding.embedded} computed, {report.embedding.reused} reused ({report.embedding.embedder}); "
        f"{report.embedding.variants_sharing} name-only variants share another variant's vector"
    )
    ch = report.changes
    if ch.previous_release:
        click.echo(f"since {ch.previous_release[:12]}: {ch.added} added, {ch.deleted} deleted, {ch.text_changed} changed, {ch.rescoped} rescoped")
    if report.findings:
        click.echo(f"scope findings: {len(report.findings)} (see the report, or run `valid audit`)")
    click.echo(f"report: {result.path}/report.html")


@click.group("releases")
def releases_group():
    """List, activate and roll back index releases."""


@releases_group.command("list")
@_state
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def releases_list(state, as_json):
    """List verified releases, oldest first; '*' marks the active one."""
    from valid.index import list_releases

    releases = list_releases(_store(state))
    if as_json:
        click.echo("[" + ",".join(r.model_dump_json() for r in releases) + "]")
        return
    if not releases:
        click.echo("no releases; run `valid index CHUNKS.jsonl`")
    for r in releases:
        scope = " ".join(f"{p}={n}" for p, n in r.per_profile.items())
        click.echo(f"{'*' if r.active else ' '} {r.id[:12]}  {r.built_at}  {r.chunks:>6} chunks  {scope}  {r.embedder}")


@releases_group.command("activate")
@click.argument("release_id")
@_state
@click.option("--expected", default=None, help="Fail unless this release (id or prefix, or 'none') is the active one.")
def releases_activate(release_id, state, expected):
    """Make RELEASE_ID (or a unique prefix of it) the active release."""
    from valid.index import activate, resolve_release_id
    from valid.index.activation import recovered_active_id

    store = _store(state)
    full = resolve_release_id(store, release_id)
    if expected is None:
        current = recovered_active_id(store)  # a damaged pointer must not block writing a good one
    elif expected == "none":
        current = None
    else:
        current = resolve_release_id(store, expected)
    _check_opens(store, full)
    activate(store, full, expected=current)
    click.echo(f"active release: {full[:12]}")


def _check_opens(store, release_id: str) -> None:
    """Fail closed: a release whose files are damaged or tampered with is never made active."""
    from valid.index import open_release

    open_release(store, release_id).close()


@releases_group.command("rollback")
@_state
def releases_rollback(state):
    """Make the previously active release active again."""
    from valid.index import rollback

    store = _store(state)
    new = rollback(store, check=lambda release_id: _check_opens(store, release_id))
    click.echo(f"active release: {new.active[:12]}")


@releases_group.command("prune")
@_state
@_chroma
@click.option("--keep", type=int, default=2, show_default=True, help="Previously active releases to keep for rollback.")
def releases_prune(state, chroma_url, keep):
    """Remove old releases (collections and files), keeping the active one, the last KEEP active ones and pending ones."""
    from valid.index import prune_releases

    removed = prune_releases(_store(state, chroma_url), keep=keep)
    click.echo(f"removed {len(removed)} release(s)" + "".join(f"\n  {r[:12]}" for r in removed))


commands = [index_command, releases_group]
