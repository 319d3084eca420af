"""`valid ask`: answer a question from the active index release, only inside the reader's scope."""

from __future__ import annotations

import json
import textwrap

import click

# valid.answer.wiring.GENERATORS (a test keeps them equal): importing wiring loads the whole engine,
# which `valid ask --server` and `--help` never use.
GENERATORS = ("offline", "gemini")
from valid.answer.compare_render import render_comparison
from valid.answer.versions_render import render_versions
from valid.answer.models import AnswerObject
from valid.wording import DocSetFacts, fill, join_names, wording_for
from valid.answer.question import MAX_QUESTION_CHARS, question_problem


@click.command("ask")
@click.argument("question")
@click.option("--generation", "-g", metavar="G",
              help="The reader's generation (a profile name or any of its names); validated against the subject scheme.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer object as JSON (see docs/answer.md).")
@click.option("--state", type=click.Path(file_okay=False), envvar="VALID_STATE",
              help="State directory holding the index releases (default .valid, or VALID_STATE).")
@click.option("--chroma-url", envvar="VALID_CHROMA_URL", help="Chroma server URL, if the index lives in one.")
@click.option("--generator", type=click.Choice(GENERATORS), default="offline", show_default=True,
              help="offline: extractive, no model. gemini: Gemini structured output (GEMINI_API_KEY).")
@click.option("--model", help="Gemini model name (default VALID_GEMINI_MODEL or gemini-3.8-flash).")
@click.option("--log-url", envvar="VALID_LOG_URL", metavar="URL",
              help="Log the question (and gap issue, and conversation) in this PostgreSQL database instead of "
              "STATE/questions.sqlite (postgresql://user@host:port/db).")
@click.option("--no-log", is_flag=True, help="Keep the question out of every store: no question log, no gap issue.")
@click.option("--conversation", metavar="ID",
              help="Ask as the next turn of conversation ID (started if new): a follow-up keeps its generation "
              "and may refer to the previous question. Needs the question log. The CLI's names are its own: "
              "never reachable over HTTP, which opens only the ids the service issued.")
@click.option("--noun", metavar="WORD",
              help="What readers call one build, in the answer's sentences (default: [serve] noun of valid.toml, "
              "else from the profiling attribute).")
@click.option("--max-question-chars", type=click.IntRange(1), default=MAX_QUESTION_CHARS, show_default=True,
              help="Longest question accepted, in characters: the same bound as `valid serve` ([serve] max_question_chars).")
@click.option("--version-order", metavar="NAME,NAME,...",
              help="The versions' order, oldest first, where their labels do not give it (valid.toml [versions] order).")
@click.option("--server", metavar="URL", envvar="VALID_SERVER",
              help="Ask this running `valid serve` (http://127.0.0.1:8080) instead of opening the release here: "
              "no start-up cost; the service logs the question with its own settings (state, generator, "
              "question log). Not with --no-log, --conversation or --model.")
def ask_command(question, generation, as_json, state, chroma_url, generator, model, log_url, no_log, conversation,
                noun, max_question_chars, version_order, server):  # fmt: skip
    """Answer QUESTION from content profiled for the generation it names, or ask, or refuse.

    The scope comes from the question's words (names, other names such as Ironwood, machine types)
    and --generation, never from a model. With no generation and an answer that differs by
    generation, VALID asks which one you use. Every question is logged with its cost in
    STATE/questions.sqlite; refusals open a gap issue in STATE/issues.
    """
    problem = question_problem(question, max_question_chars)
    if problem is not None:  # before anything opens: nothing is logged, no gap issue is opened
        raise click.UsageError(problem)
    if conversation is not None and no_log:
        raise click.UsageError("--conversation keeps its turns in the question log; drop --no-log")
    if server:
        # --state, --chroma-url and --log-url may come from the environment: the service's own apply.
        given = [name for name, value in (("--no-log", no_log), ("--conversation", conversation), ("--model", model)) if value]
        if given:
            raise click.UsageError(f"--server asks a running service with its own settings; drop {', '.join(given)}")
        _ask_server(server, question, generation, as_json, noun)
        return
    options = {"model": model} if (generator == "gemini" and model) else {}
    from valid import config
    from valid.answer.wiring import make_generator, open_engine
    from valid.wording import WordingSettings

    tuning = config.of_command().tuning  # valid.toml [tuning]: the engine's floors and weights
    engine = open_engine(state, generator=make_generator(generator, tuning, **options), chroma_url=chroma_url, log=not no_log,
                         gap_issues=not no_log, log_url=None if no_log else log_url, wording=WordingSettings(noun=noun),
                         version_order=[n.strip() for n in (version_order or "").split(",") if n.strip()],
                         tuning=tuning)
    try:
        if conversation is None:
            result = engine.ask(question, generation)
        else:
            from valid.answer.conversation import answer_turn, open_named_conversation

            opened = open_named_conversation(engine.log, conversation)
            turn = answer_turn(engine.log, engine.ask, engine.profiles, question, generation, opened)
            result = turn.result
            click.echo(f"conversation {conversation}, turn {turn.turn}, answer {turn.answer_id}", err=True)
    finally:
        engine.close()
    if as_json:
        click.echo(json.dumps(result.answer.model_dump(mode="json"), indent=1, ensure_ascii=False))
    else:
        labels = {p.name: (p.labels[0] if p.labels else p.name) for p in engine.profiles}
        click.echo(render(result.answer, labels, engine.words))


def _ask_server(url: str, question: str, generation: str | None, as_json: bool, noun: str | None) -> None:
    """The question asked of a running `valid serve`, printed as the local command prints it."""
    from valid.client import ask

    served = ask(url, question, generation)
    if as_json:
        click.echo(json.dumps(served.answer, indent=1, ensure_ascii=False))
        return
    from valid.wording import WordingSettings

    words = {**wording_for(DocSetFacts(), WordingSettings(noun=noun) if noun else None), **served.wording}
    click.echo(render(AnswerObject.model_validate(served.answer), served.labels, words))


def _indent(text: str, prefix: str) -> str:
    lines = text.splitlines() or [""]
    return "\n".join([prefix + lines[0]] + [" " * len(prefix) + line for line in lines[1:]])


def render(answer: AnswerObject, labels: dict[str, str], words: dict[str, str] | None = None) -> str:
    """The readable form: scope first, then the answer per generation with citations, then the rest."""
    words = words or wording_for(DocSetFacts())
    out: list[str] = []
    if answer.scope:
        names = ", ".join(labels.get(p, p) for p in answer.scope)
        matched = f' (matched: {", ".join(repr(m) for m in answer.matched)})' if answer.matched else ""
        out.append(f"Scope: {names}{matched}")
    else:
        out.append("Scope: no generation named")
    out.append("")

    if answer.outcome == "ask":
        out.append(words["cli_ask"])
        for choice in answer.choices:
            out.append(f"  - {choice.generation}: {choice.label}")
        out.append("Ask again naming it, or with --generation NAME.")
        out.append("")
    if answer.comparison is not None:
        out.append(render_comparison(answer.comparison, labels))
        out.append("")
    if answer.versions is not None:
        out.append(render_versions(answer.versions, labels))
        out.append("")
    for item in answer.answers:  # builds that agree are one answer naming them all (valid.answer.fold)
        out.append(fill(words["answer_part"], names=join_names([labels.get(n, n) for n in item.generations], words)))
        out.append(textwrap.fill(item.answer, width=100, initial_indent="  ", subsequent_indent="  "))
        for number, step in enumerate(item.steps, start=1):
            out.append(_indent(step.text, f"  {number}. "))
            where = " › ".join(step.title_path)
            out.append(f"     [{step.cite}] {where}".rstrip())
        out.append("")
    if answer.refusal is not None:
        out.append(f"Refused: {answer.refusal.reason}")
        out.append(f"Missing: {answer.refusal.missing}")
        if answer.refusal.gap_issue:
            out.append(f"Gap issue: {answer.refusal.gap_issue}")
        out.append("")
    if answer.not_used:
        out.append(f"Not used: {answer.not_used}")
    checks = answer.checks
    if answer.answers or answer.comparison is not None or answer.versions is not None:
        out.append(
            f"Checks: citations in scope {checks.get('citations_in_scope')}, values grounded "
            f"{checks.get('values_grounded')}, out-of-scope values {checks.get('out_of_scope_values')}, "
            f"revisions {checks.get('revisions')}"
        )
    run = answer.run
    model = f" {run.model}" if run.model else ""
    out.append(
        f"Run: {run.generator}{model}, {run.calls} call(s), tokens {run.tokens_in} in / {run.tokens_out} out, "
        f"${run.cost_usd:.6f}, {run.latency_ms:.1f} ms; release {answer.release[:12]}"
    )
    return "\n".join(out)


commands = [ask_command]
