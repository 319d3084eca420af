"""`valid log`: list, filter and export the question log; `valid log report`: its HTML dashboard;
`valid log issues`: the gap issues opened from questions. The log is the SQLite file in the state
directory, or the PostgreSQL store named by --log-url (or log_url in valid.toml)."""

from __future__ import annotations

from pathlib import Path

import click

from valid.errors import ConfigError

OUTCOMES = ("answer", "ask", "refuse")


def _log_path(state: str | None, question_log: Path | None) -> Path:
    if question_log is not None:
        path = question_log
    else:
        path = Path(state or ".valid") / "questions.sqlite"
    if not path.is_file():
        raise ConfigError(f"{path}: no question log here (ask a question first, or pass --state / --question-log)")
    return path


@click.group("log", invoke_without_command=True)
@click.option("--state", type=click.Path(file_okay=False), envvar="VALID_STATE",
              help="State directory (default .valid, or VALID_STATE); the log is STATE/questions.sqlite.")
@click.option("--question-log", type=click.Path(dir_okay=False, path_type=Path), help="The log file itself.")
@click.option("--log-url", envvar="VALID_LOG_URL", metavar="URL",
              help="The PostgreSQL question store several servers share (postgresql://user@host:port/db).")
@click.option("--since", metavar="TIME", help="From this ISO date or time (UTC), inclusive.")
@click.option("--until", metavar="TIME", help="Up to this ISO date (that day included) or time, exclusive.")
@click.option("--outcome", "outcomes", multiple=True, type=click.Choice(OUTCOMES), help="Only this outcome (repeatable).")
@click.option("--refused", is_flag=True, help="Only refused questions (same as --outcome refuse).")
@click.option("--generation", "generations", multiple=True, metavar="G", help="Only questions scoped to G (repeatable).")
@click.option("--feedback", type=click.Choice(["up", "down", "any", "none"]), help="Only questions with this feedback.")
@click.option("--reason", "reasons", multiple=True, metavar="TAG", help="Only feedback giving this reason (repeatable).")
@click.option("--min-cost", type=float, metavar="USD", help="Only questions that cost at least this.")
@click.option("--max-cost", type=float, metavar="USD", help="Only questions that cost at most this.")
@click.option("--limit", type=click.IntRange(1), help="Only the most recent N (after filtering).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of standard output.")
@click.pass_context
def log_group(ctx, state, question_log, log_url, since, until, outcomes, refused, generations, feedback, reasons, min_cost,
              max_cost, limit, fmt, out):  # fmt: skip
    """List the question log, filtered: what readers asked, what was refused, their feedback, the cost.

    With no command, prints one line per question (or --format csv/json for export). The filters
    also apply to `valid log report`.
    """
    from valid.questionlog.query import LogFilter, parse_time, select
    from valid.questionlog.store import open_question_store

    try:
        where = LogFilter(
            since=parse_time(since) if since else None,
            until=parse_time(until, end=True) if until else None,
            outcomes=tuple(dict.fromkeys([*outcomes, *(["refuse"] if refused else [])])),
            generations=tuple(generations),
            feedback=feedback,
            reasons=tuple(reasons),
            min_cost=min_cost,
            max_cost=max_cost,
            limit=limit,
        )
    except ValueError as err:
        raise click.BadParameter(str(err)) from None
    if question_log is not None and log_url:
        raise click.UsageError("--question-log and --log-url name two stores; give one")
    if ctx.invoked_subcommand == "issues":
        ctx.obj = {"log_url": log_url, "state": state}
        return
    log = open_question_store(log_url, None if log_url else _log_path(state, question_log))
    try:
        entries = select(log.entries(where.since, where.until), where)
    finally:
        log.close()
    ctx.obj = {"entries": entries, "filtered": where != LogFilter()}
    if ctx.invoked_subcommand is not None:
        return
    from valid.questionlog import query as logquery

    text = {"table": logquery.to_table, "csv": logquery.to_csv, "json": logquery.to_json}[fmt](entries)
    _write(text, out)
    if out is not None:
        click.echo(f"wrote {len(entries)} question(s) to {out}", err=True)


def _write(text: str, out: Path | None) -> None:
    if out is None:
        click.echo(text, nl=False)
        return
    from valid.output import output_target, write_text

    write_text(output_target(out), text)


@log_group.command("report")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("questions-report.html"),
              show_default=True, help="The HTML file to write.")
@click.option("--title", default="Questions to the docs", show_default=True)
@click.pass_context
def report(ctx, out, title):
    """Write the question log (filtered as given to `valid log`) as a self-contained HTML dashboard."""
    from valid.questionlog.dashboard import render

    entries = ctx.obj["entries"]
    note = " · filtered" if ctx.obj["filtered"] else ""
    _write(render(entries, title=title, scope_note=note), out)
    click.echo(f"wrote {out} ({len(entries)} question(s))", err=True)


@log_group.command("issues")
@click.option("--issues", "issues_dir", type=click.Path(file_okay=False, path_type=Path),
              help="The gap-issue directory (default STATE/issues; with --log-url the issues are in PostgreSQL).")
@click.option("--format", "fmt", type=click.Choice(["md", "json"]), default="md", show_default=True)
@click.pass_context
def issues(ctx, issues_dir, fmt):
    """Print the gap issues opened from questions (Markdown, as ISSUES.md, or JSON)."""
    import json

    from valid.questionlog.store import open_gap_issues
    from valid.audit.issues import render_summary

    state, log_url = ctx.obj["state"], ctx.obj["log_url"]
    store = open_gap_issues(log_url, issues_dir or Path(state or ".valid") / "issues")
    try:
        found = store.issues()
    finally:
        getattr(store, "close", lambda: None)()
    if fmt == "json":
        click.echo(json.dumps([i.model_dump(mode="json") for i in found], ensure_ascii=False, indent=1))
    else:
        click.echo(render_summary(found), nl=False)


log_group.name = "log"
commands = [log_group]
