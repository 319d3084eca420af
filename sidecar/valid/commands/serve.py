"""`valid serve`: the HTTP service and the ask page over the active release."""

from __future__ import annotations

from pathlib import Path

import click

from valid.serve.limits import Limits

_DEFAULTS = Limits()


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True, help="Port (0: any free port).")
@click.option("--state", type=click.Path(file_okay=False), envvar="VALID_STATE", default=None,
              help="State directory with the releases (default .valid; env VALID_STATE).")
@click.option("--chroma-url", envvar="VALID_CHROMA_URL", default=None,
              help="A Chroma server (default: embedded Chroma in the state directory).")
@click.option("--generator", type=click.Choice(["offline", "gemini"]), default="offline", show_default=True,
              help="Who writes the answers: offline extractive (no network) or Gemini.")
@click.option("--gemini-model", default=None, help="Gemini model (default: the engine's default or VALID_GEMINI_MODEL).")
@click.option("--question-log", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Question log (default <state>/questions.sqlite).")
@click.option("--log-url", envvar="VALID_LOG_URL", default=None, metavar="URL",
              help="Keep questions, conversations, feedback and gap issues in this PostgreSQL database "
                   "(postgresql://user@host:port/db), shared by several servers. Default: the SQLite log.")
@click.option("--log-timeout", "log_timeout_s", type=click.FloatRange(0, min_open=True), default=2.0, show_default=True,
              help="Seconds any call to the --log-url store may take (connect, statement, no answer); past it, "
                   "writes wait in the local spool and answers go on.")
@click.option("--log-spool", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where writes the --log-url store cannot take now are kept until it is back "
                   "(default <state>/question-spool.sqlite).")
@click.option("--ready-needs-question-store", is_flag=True, default=False,
              help="/healthz answers 503 while the question store is degraded (answers go on regardless).")
@click.option("--issues", "issues_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Gap-issue store for refusals (default <state>/issues).")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="ORIGIN",
              help="Allow this origin by CORS (repeatable). Default: CORS off.")
@click.option("--embed-origin", "embed_origins", multiple=True, metavar="ORIGIN", callback=lambda _c, _p, v: _origins(v),
              help="Let pages of this origin show the ask page in an iframe (repeatable). Default: no framing.")
@click.option("--max-question-chars", type=click.IntRange(1), default=_DEFAULTS.max_question_chars, show_default=True)
@click.option("--max-body-bytes", type=click.IntRange(64), default=_DEFAULTS.max_body_bytes, show_default=True)
@click.option("--rate", "rate_per_s", type=click.FloatRange(0), default=_DEFAULTS.rate_per_s, show_default=True,
              help="Asks per second per client (0: no limit).")
@click.option("--burst", "rate_burst", type=click.IntRange(1), default=_DEFAULTS.rate_burst, show_default=True,
              help="Asks a client may send at once before --rate applies.")
@click.option("--max-inflight", type=click.IntRange(1), default=_DEFAULTS.max_inflight, show_default=True,
              help="Answers computed at the same time.")
@click.option("--max-queue", type=click.IntRange(0), default=_DEFAULTS.max_queue, show_default=True,
              help="Answers waiting for a slot; past that: 503 with Retry-After.")
@click.option("--timeout", "request_timeout_s", type=click.FloatRange(0, min_open=True),
              default=_DEFAULTS.request_timeout_s, show_default=True, help="Seconds an ask may take, queue included.")
@click.option("--max-header-bytes", type=click.IntRange(1024), default=_DEFAULTS.max_header_bytes, show_default=True,
              help="Largest request line plus headers; beyond: 431.")
@click.option("--max-headers", type=click.IntRange(8), default=_DEFAULTS.max_headers, show_default=True,
              help="Most request headers; beyond: 431.")
@click.option("--header-timeout", "header_timeout_s", type=click.FloatRange(0, min_open=True),
              default=_DEFAULTS.header_timeout_s, show_default=True, help="Seconds for a request's headers to arrive; then 408.")
@click.option("--body-timeout", "body_timeout_s", type=click.FloatRange(0, min_open=True),
              default=_DEFAULTS.body_timeout_s, show_default=True, help="Seconds for a request's body to arrive; then 408.")
@click.option("--forwarded-allow-ips", envvar="VALID_FORWARDED_ALLOW_IPS", default="", metavar="IPS",
              help="Comma-separated proxy addresses or networks (10.0.0.0/8) trusted to name the client in "
                   "X-Forwarded-For; rate limits then key on that client. Default: none, the peer is the client.")
@click.option("--admin-token", envvar="VALID_ADMIN_TOKEN", default=None,
              help="Bearer token for /metrics and /v1/admin/reload (prefer env VALID_ADMIN_TOKEN). Needed for them "
                   "when --host is not loopback.")
@click.option("--no-log", is_flag=True, help="Keep question text out of every store (no question log, no gap issues).")
@click.option("--max-gap-issues", type=click.IntRange(0), default=1000, show_default=True,
              help="Gap issues opened from questions, kept at most; later ones are dropped and counted.")
@click.option("--title", default=None, help="The ask page's heading (default: from the map's title).")
@click.option("--tagline", default=None, help="The line under the heading (default: from the map's title).")
@click.option("--noun", default=None, metavar="WORD",
              help="What readers call one build: version, platform, product, edition, release ... "
                   "(default: from the profiling attribute).")
@click.option("--noun-plural", default=None, metavar="WORD", help="Its plural (default: the noun with an s).")
@click.option("--published-url", default=None, metavar="TEMPLATE",
              help="Where each build is published, e.g. https://docs.example.com/{build}/{path}#{fragment}: "
                   "citations link there instead of the source view (docs/serve.md#citation-links).")
@click.option("--openapi", "openapi_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the OpenAPI schema to this file and exit (docs/openapi.json).")
def serve(host, port, state, chroma_url, generator, gemini_model, question_log, log_url, log_timeout_s, log_spool,
          ready_needs_question_store, issues_dir, cors_origins,
          embed_origins, max_question_chars, max_body_bytes, rate_per_s, rate_burst, max_inflight, max_queue,
          request_timeout_s, max_header_bytes, max_headers, header_timeout_s, body_timeout_s, forwarded_allow_ips,
          admin_token, no_log, max_gap_issues, title, tagline, noun, noun_plural, published_url,
          openapi_out):  # fmt: skip
    """Serve `POST /v1/ask` and the ask page on the active release.

    Ready (GET /healthz) once the active release is opened and verified. Each request is answered
    from the release that was active when it started; a newly activated release is picked up
    between requests, and one that fails to open leaves the old one serving. See docs/serve.md.
    """
    from valid.serve import ServeConfig, create_app, openapi_json
    from valid import config as valid_config
    from valid.serve.library import EngineSettings, LibraryReleases

    limits = Limits(
        max_question_chars=max_question_chars,
        max_body_bytes=max_body_bytes,
        rate_per_s=rate_per_s,
        rate_burst=rate_burst,
        max_inflight=max_inflight,
        max_queue=max_queue,
        request_timeout_s=request_timeout_s,
        max_header_bytes=max_header_bytes,
        max_headers=max_headers,
        header_timeout_s=header_timeout_s,
        body_timeout_s=body_timeout_s,
    )
    from valid.serve.admin import is_loopback
    from valid.wording import WordingSettings

    published = _published(published_url)
    wording = WordingSettings(title=title, tagline=tagline, noun=noun, noun_plural=noun_plural)

    config = ServeConfig(
        limits=limits,
        cors_origins=tuple(cors_origins),
        forwarded_allow_ips=tuple(ip.strip() for ip in forwarded_allow_ips.split(",") if ip.strip()),
        admin_token=admin_token or None,
        admin_open=is_loopback(host),
        embed_origins=tuple(embed_origins),
        freeze_after_load=True,
        wording=wording,
        ready_needs_question_store=ready_needs_question_store,
    )
    if openapi_out is not None:
        app = create_app(_NoReleases(), config)
        openapi_out.write_text(openapi_json(app), encoding="utf-8")
        click.echo(f"wrote {openapi_out}")
        return

    import uvicorn

    from valid.index import Store

    from valid.questionlog.store import check_url

    if question_log is not None and log_url:
        raise click.UsageError("--question-log and --log-url name two stores; give one")
    settings = EngineSettings(
        generator=generator, gemini_model=gemini_model, question_log=question_log, issues_dir=issues_dir,
        log_url=check_url(log_url), log_questions=not no_log, max_gap_issues=max_gap_issues, published=published,
        wording=wording,
        log_timeout_s=log_timeout_s, log_spool=log_spool, tuning=valid_config.of_command().tuning,
    )
    from valid.serve.startup import open_active_or_fail

    source = open_active_or_fail(LibraryReleases(Store(state, chroma_url), settings))
    app = create_app(source, config)
    from valid.serve.edge import uvicorn_options

    if not config.admin_open and not config.admin_token:
        click.echo(f"valid serve: {host} is not loopback and no admin token is set: /metrics and "
                   "/v1/admin/reload answer 403 (set VALID_ADMIN_TOKEN)", err=True)
    # The edge protocol bounds headers and read times; proxy headers are applied by the app, for
    # --forwarded-allow-ips only, so a client cannot pick the address its rate limit keys on.
    from valid.serve.startup import banner

    # Bound here, not by uvicorn, so the banner names the real port (also with --port 0).
    listening = _bind(host, port)
    click.echo(banner(_url(host, listening.getsockname()[1]), source))
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="info", timeout_graceful_shutdown=5,
                                           **uvicorn_options(limits)))
    server.run(sockets=[listening])


def _bind(host: str, port: int):
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as err:
        listening.close()
        from valid.errors import ConfigError

        raise ConfigError(f"cannot listen on {host}:{port} ({err.strerror})") from None
    listening.set_inheritable(True)
    return listening


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _published(template: str | None):
    """The published_url template, checked before anything starts (one line when it is wrong)."""
    if not template:
        return None
    from pydantic import ValidationError

    from valid.answer.citations import PublishedPages

    try:
        return PublishedPages(template=template)
    except ValidationError as err:
        raise click.BadParameter(err.errors()[0]["msg"].removeprefix("Value error, "), param_hint="--published-url") from None


def _origins(values: tuple[str, ...]) -> tuple[str, ...]:
    from valid.serve.config import check_origin

    try:
        return tuple(check_origin(v) for v in values)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


class _NoReleases:
    """For writing the schema only: nothing is ever active."""

    def active_id(self):
        return None

    def open(self, release_id):
        raise RuntimeError("no releases")


commands = [serve]
