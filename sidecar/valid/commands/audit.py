"""`valid audit`: find shared chunks that hold a value owned by one generation."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from valid.audit.github import DEFAULT_API_URL, GitHubSink
from valid.audit.load import load_export
from valid.audit.owned import owned_values
from valid.audit.run import audit as run_audit
from valid.errors import ConfigError

TOKEN_VARIABLES = ("VALID_GITHUB_TOKEN", "GITHUB_TOKEN")


def github_token() -> str | None:
    for name in TOKEN_VARIABLES:
        if os.environ.get(name):
            return os.environ[name]
    return None


@click.command("audit")
@click.argument("chunks", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--issues", "issues_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Gap-issue store directory (issues.jsonl + ISSUES.md): open, keep or close one issue per finding.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on any open finding. Default: warn and exit 0.")
@click.option("--github-repo", metavar="OWNER/NAME",
              help="Mirror the issues to GitHub (token from VALID_GITHUB_TOKEN or GITHUB_TOKEN).")
@click.option("--github-url", default=lambda: os.environ.get("VALID_GITHUB_API_URL", DEFAULT_API_URL),
              show_default="VALID_GITHUB_API_URL or https://api.github.com", help="GitHub REST API base URL.")
@click.option("--owned-values", "owned_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the owned-value table (stable JSON format, see docs/audit.md) to this file.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout.")
def audit_command(chunks, issues_dir, strict, github_repo, github_url, owned_out, as_json):  # fmt: skip
    """Report every chunk shown to several generations that contains a value owned by one.

    CHUNKS is an export (`valid export ... -o CHUNKS.jsonl`). Each finding names the chunk, its
    source file and line, the value, its owner and the rule. See docs/audit.md.
    """
    sink = None
    if github_repo:
        token = github_token()
        if not token:
            raise ConfigError("--github-repo needs a token: set VALID_GITHUB_TOKEN (or GITHUB_TOKEN)")
        sink = GitHubSink(github_repo, token, api_url=github_url)
    export = load_export(chunks)
    table = owned_values(export)
    if owned_out:
        owned_out.write_text(table.to_json(), encoding="utf-8")
    try:
        report = run_audit(export, issues_dir=issues_dir, github=sink, strict=strict, table=table)
    finally:
        if sink is not None:
            sink.close()

    level = "error" if strict else "warning"
    if as_json:
        click.echo(json.dumps(report.model_dump(mode="json") | {"failed": report.failed}, indent=1, ensure_ascii=False))
        if report.failed:
            for finding in report.findings:
                click.echo(f"{level}: {finding.summary()}", err=True)
    else:
        for finding in report.findings:
            click.echo(f"{level}: {finding.summary()}")
        click.echo(_summary_line(report))
    if report.failed:
        click.echo(f"valid: audit failed: {_plural(len(report.findings), 'open finding')} (--strict)", err=True)
        sys.exit(1)


def _summary_line(report) -> str:
    parts = [f"audit: {_plural(len(report.findings), 'finding')} ({_plural(report.owned_values, 'owned value')})"]
    if report.issues is not None:
        parts.append(
            f"issues: {len(report.issues.opened)} opened, {len(report.issues.closed)} closed, "
            f"{len(report.issues.unchanged)} unchanged ({report.issues.summary})"
        )
    if report.github is not None:
        g = report.github
        parts.append(
            f"github {g.repo}: {g.created} created, {g.reopened} reopened, {g.closed} closed, "
            f"{g.updated} updated, {g.unchanged} unchanged"
        )
    return "; ".join(parts)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


commands = [audit_command]
