"""`valid eval`, `valid report` and `valid demo`: thin shells over valid.evaluate and the pipeline."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

import valid
from valid.errors import ConfigError

# Sample questions, one per behaviour a reader meets: an answer, a code name, a question back, two
# generations at once, and a generation the docs do not cover.
DEMO_QUESTIONS = (
    ("a scoped question that passes cleanly", "How many chips does a TPU v5p VM have?"),
    ("a generation named by its code name", "I'm on Ironwood. Which --version do I pass when I create the VM?"),
    ("a question with no generation: VALID asks", "How many chips are in one TPU VM?"),
    ("two generations: one cited answer each", "How much HBM per chip do v5p and Trillium have?"),
    ("a generation the docs do not cover: VALID refuses", "How many chips does a TPU v4 VM have?"),
)

_state = click.option(
    "--state", type=click.Path(file_okay=False), default=None, help="State directory (default .valid; env VALID_STATE)."
)
_chroma = click.option("--chroma-url", default=None, help="A Chroma server instead of the embedded store.")
_generator = click.option(
    "--generator", type=click.Choice(["offline", "gemini"]), default="offline", show_default=True, help="Who writes the answers."
)


def _say(message: str) -> None:
    click.echo(f"valid: {message}", err=True)


def _progress(message: str) -> None:
    if sys.stderr.isatty():
        click.echo(f"\r  {message}\033[K", err=True, nl=False)


def _end_progress() -> None:
    if sys.stderr.isatty():
        click.echo("\r\033[K", err=True, nl=False)


def _bundled_sample() -> tuple[Path, Path, Path]:
    root = Path(valid.__file__).resolve().parents[2]
    paths = (
        root / "sample_maps" / "cloud-tpu.ditamap",
        root / "schemes" / "tpu-generations.ditamap",
        Path(valid.__file__).resolve().parent / "data" / "trapset-cloud-tpu.jsonl",
    )
    for path in paths:
        if not path.is_file():
            raise ConfigError(
                f"the bundled sample is not next to this installation ({path} is missing); "
                "install VALID from a clone (pip install -e .) or pass --map, --scheme and --trapset"
            )
    return paths


def _gate_lines(card) -> list[str]:
    gate = card.gate
    lines = [
        f"gate {'passed' if gate.passed else 'FAILED'}: wrong-generation answers {gate.wrong_generation}, "
        f"citations in scope {gate.citations_in_scope}, values grounded {gate.values_grounded}, "
        f"scoped right {gate.scoped_correct}"
    ]
    for arm, score in card.arms.items():
        counts = score.total.counts
        lines.append(
            f"  {arm:<9} right {counts['right']}, asked {counts['asked']}, refused {counts['refused']}, "
            f"wrong generation {counts['wrong_generation']}, wrong otherwise {counts['wrong_other']} "
            f"(of {score.total.questions})"
        )
    lines.extend(f"  - {reason}" for reason in gate.reasons)
    return lines


@click.command("eval")
@click.argument("trapset", type=click.Path(dir_okay=False, exists=True))
@click.option("--report", "report_dir", type=click.Path(file_okay=False), default=None, help="Write the scorecard (JSON, HTML, SVG) and every answer here.")
@_state
@_chroma
@_generator
@click.option("--no-baseline", is_flag=True, help="Run VALID only, without the unfiltered baseline arm.")
@click.option("--selector", type=click.Choice(["fitted", "rules"]), default=None,
              help="How the offline answerer chooses the answering unit: the fitted model or the hand-set rules "
              "(default: the answerer's; docs/answer.md).")
@click.option("--markdown", type=click.Path(dir_okay=False), default=None, help="Also write the scorecard as Markdown (and its chart beside it).")
@click.option("--split", type=click.Choice(["dev", "test", "all"]), default="all", show_default=True,
              help="Which half of the trap set: tune on dev, report test.")
@click.option("--version-order", metavar="NAME,NAME,...",
              help="The versions' order, oldest first, where their labels do not give it (valid.toml [versions] order).")
def eval_command(trapset, report_dir, state, chroma_url, generator, no_baseline, selector, markdown, split, version_order):
    """Run TRAPSET through VALID and an unfiltered baseline; exit 1 if the gate fails.

    The gate: no wrong-generation answer reaches a reader, every citation in scope, every value
    grounded in its cited chunk, and at least 90% of the scoped questions right.
    """
    from valid import config
    from valid.evaluate.run import evaluate
    from valid.evaluate.scorecard import render_html, render_markdown, render_svg

    if selector and generator == "offline":
        from valid.answer.wiring import make_generator

        generator = make_generator(generator, selector=selector)
    card, raw = evaluate(trapset, state or _default_state(), generator=generator, chroma_url=chroma_url,
                         baseline=not no_baseline, split=split, progress=_progress,
                         version_order=[n.strip() for n in (version_order or "").split(",") if n.strip()],
                         tuning=config.of_command().tuning)
    _end_progress()
    if report_dir:
        out = Path(report_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "scorecard.json").write_text(card.model_dump_json(indent=2) + "\n", encoding="utf-8")
        (out / "scorecard.html").write_text(render_html(card), encoding="utf-8")
        (out / "scorecard.svg").write_text(render_svg(card), encoding="utf-8")
        (out / "answers.json").write_text(json.dumps(raw, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        _say(f"scorecard written to {out / 'scorecard.html'}")
    if markdown:
        md = Path(markdown)
        command = "valid eval " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "valid eval"
        md.write_text(render_markdown(card, command, md.with_suffix(".svg").name), encoding="utf-8")
        md.with_suffix(".svg").write_text(render_svg(card), encoding="utf-8")
        _say(f"scorecard written to {md}")
    for line in _gate_lines(card):
        click.echo(line)
    sys.exit(0 if card.gate.passed else 1)


def _default_state() -> Path:
    """The state directory the index uses when none is given (--state, VALID_STATE, .valid)."""
    from valid.index import Store

    return Store().root


@click.command("report")
@click.argument("export", required=False, type=click.Path(dir_okay=False, exists=True))
@_state
@_chroma
@click.option("--scorecard", type=click.Path(dir_okay=False, exists=True), default=None, help="A scorecard.json from `valid eval --report`.")
@click.option("--trapset", type=click.Path(dir_okay=False, exists=True), default=None, help="Run this trap set now (offline answerer) and include its scorecard.")
@click.option("-o", "--out", type=click.Path(file_okay=False), default=None, help="Output directory (default: valid-report/, next to EXPORT when given).")
@click.option("--release", "release_id", default=None,
              help="Report on this release (id or prefix; e.g. one built with `valid index --no-activate`) instead of the active one.")
def report_command(export, state, chroma_url, scorecard, trapset, out, release_id):
    """Write the validation report of the active release: HTML, JSON and JUnit XML.

    It holds the export summary, the index report, the audit findings and, with --scorecard or
    --trapset, the trap-set scorecard and its gate. EXPORT (a pipeline's fresh export, as the
    DITA-OT plugin passes it) is what the export summary and the audit describe; without it, the
    release's own chunks. With --release, a release not yet active is reported and gated, so a
    pipeline activates it only after this gate passes. Exit 1 if the gate failed.
    """
    from valid.evaluate.report import gather, write_report
    from valid.evaluate.run import evaluate
    from valid.evaluate.scorecard import Scorecard
    from valid.export.file import read_export
    from valid.index import Store, open_active, open_release, resolve_release_id

    if scorecard and trapset:
        raise ConfigError("give --scorecard or --trapset, not both")
    state = state or _default_state()
    store = Store(state, chroma_url=chroma_url)
    if release_id:
        release_id = resolve_release_id(store, release_id)
    card = Scorecard.model_validate_json(Path(scorecard).read_text(encoding="utf-8")) if scorecard else None
    if trapset:
        from valid import config

        card, _ = evaluate(trapset, state, chroma_url=chroma_url, progress=_progress, release_id=release_id,
                           tuning=config.of_command().tuning)
        _end_progress()
    fresh = read_export(export).as_export() if export else None
    with (open_release(store, release_id) if release_id else open_active(store)) as release:
        report = gather(release, card, fresh)
    out = Path(out) if out else (Path(export).parent / "valid-report" if export else Path("valid-report"))
    paths = write_report(report, out)
    _say(f"report written to {paths['html']} (JSON {paths['json'].name}, JUnit {paths['junit'].name})")
    sys.exit(0 if report.passed else 1)


@click.command("demo")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default="valid-demo", show_default=True,
              help="The one directory the demo writes: export, index state, report and a valid.toml.")
@click.option("--state", type=click.Path(file_okay=False), default=None,
              help="Index state directory (default DIR/state).")
@click.option("--map", "map_path", type=click.Path(dir_okay=False), default=None, help="Doc set (default: the bundled Cloud TPU sample).")
@click.option("--scheme", type=click.Path(dir_okay=False), default=None, help="Subject scheme (default: the sample's).")
@click.option("--trapset", type=click.Path(dir_okay=False), default=None, help="Trap set (default: the sample's).")
def demo_command(directory, state, map_path, scheme, trapset):
    """Export, index and audit the sample; answer sample questions; run the trap set; report.

    Everything is written under DIR (default ./valid-demo/), with a valid.toml there, so that
    `valid ask` and `valid serve` run from DIR use the demo's index. Uses the embedded defaults:
    local Chroma, the offline embedder and the offline answerer. The new release is indexed without
    activating it and becomes active only when the trap-set gate passes; otherwise the previous
    active release stays, and the exit code is 1. The demo reads no valid.toml: it runs with the
    built-in floors, weights and prices whatever the working directory holds.
    """
    from valid import config

    bundled = map_path is None
    map_path, scheme, trapset = _demo_sources(map_path, scheme, trapset)
    config.apply(config.Config())
    out = Path(directory).resolve()
    state = Path(state).resolve() if state else out / "state"
    out.mkdir(parents=True, exist_ok=True)
    _say(f"writing under {out}")
    started = time.perf_counter()
    chunks_path = _demo_export(map_path, scheme, out)
    findings = _demo_audit(chunks_path, state)
    store, previous, release_id = _demo_index(chunks_path, state, findings)
    _demo_questions(state, release_id)
    card = _demo_trapset(trapset, state, release_id, out)
    paths = _demo_report(store, release_id, card, out)
    # The bundled sample's builds are @platform values its readers call generations.
    noun = "generation" if bundled else None
    (out / "valid.toml").write_text(_demo_config(map_path, scheme, trapset, state, noun), encoding="utf-8")
    click.echo("")
    for line in _gate_lines(card):
        click.echo(line)
    _activate_if_passed(store, release_id, previous, card.gate.passed)
    click.echo(f"\nreport: {paths['html']}  (scorecard {paths['scorecard_html']}, JUnit {paths['junit']})")
    click.echo(f"everything is under {out}; from there, `valid ask QUESTION` and `valid serve` use its index "
               f"(its valid.toml says where)")
    _say(f"done in {time.perf_counter() - started:.1f} s")
    sys.exit(0 if card.gate.passed else 1)


def _demo_sources(map_path, scheme, trapset) -> tuple:
    """The doc set, scheme and trap set given, with the bundled sample's in place of any not given."""
    if map_path is None or scheme is None or trapset is None:
        sample_map, sample_scheme, sample_trapset = _bundled_sample()
        map_path, scheme, trapset = map_path or sample_map, scheme or sample_scheme, trapset or sample_trapset
    return map_path, scheme, trapset


def _demo_export(map_path, scheme, out: Path) -> Path:
    from valid.export import export

    _say(f"1/6 export {map_path}")
    chunks_path = out / "chunks.jsonl"
    result = export(map_path, scheme=scheme, out=chunks_path)
    _say(f"    {result.chunks} chunks written to {chunks_path}")
    return chunks_path


def _demo_audit(chunks_path: Path, state: Path) -> list:
    from valid.audit.run import audit
    from valid.export.file import read_export

    _say("2/6 audit")
    audited = audit(read_export(chunks_path).as_export(), issues_dir=state / "issues")
    for finding in audited.findings:
        _say(f"    finding: {finding.summary()}")
    return audited.findings


def _demo_index(chunks_path: Path, state: Path, findings: list) -> tuple:
    """The store, the release active before the demo (None: none), and the new release's id, not yet active."""
    from valid.embed import make_embedder
    from valid.index import Store, active_release_id, build_release

    _say(f"3/6 index into {state} (offline embedder), not yet active")
    store = Store(state)
    previous = active_release_id(store)
    built = build_release(chunks_path, make_embedder("offline"), store, findings=findings, activate=False)
    _say(f"    release {built.release_id[:12]} {'reused' if built.reused else 'built'}")
    return store, previous, built.release_id


def _demo_questions(state: Path, release_id: str) -> None:
    from valid.answer import open_engine

    _say("4/6 sample questions")
    with open_engine(state, release_id=release_id) as engine:
        for title, question in DEMO_QUESTIONS:
            answer = engine.ask(question).answer
            click.echo(f"\n# {title}\n> {question}")
            click.echo(_summary(answer))


def _demo_trapset(trapset, state: Path, release_id: str, out: Path):
    """The trap set's scorecard, VALID beside the unfiltered baseline; every answer written to answers.json."""
    from valid.evaluate.run import evaluate

    _say(f"5/6 trap set {trapset}: VALID and the unfiltered baseline")
    card, raw = evaluate(trapset, state, progress=_progress, release_id=release_id)
    _end_progress()
    (out / "answers.json").write_text(json.dumps(raw, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return card


def _demo_report(store, release_id: str, card, out: Path) -> dict:
    """The validation report of the new release, under out/report; the paths written."""
    from valid.evaluate.report import gather, write_report
    from valid.index import open_release

    _say("6/6 validation report")
    with open_release(store, release_id) as release:
        report = gather(release, card)
    return write_report(report, out / "report")


def _activate_if_passed(store, release_id: str, previous: str | None, passed: bool) -> None:
    from valid.index import activate

    # Gate before activation: a release that fails its gate never serves; the previous one stays.
    if passed:
        activate(store, release_id, expected=previous)
        click.echo(f"release {release_id[:12]} passed the gate and is active")
    else:
        click.echo(f"release {release_id[:12]} failed the gate and is NOT active"
                   + (f" (active stays {previous[:12]})" if previous else " (no active release)"))


def _demo_config(map_path, scheme, trapset, state: Path, noun: str | None = None) -> str:
    """The valid.toml the demo leaves in its directory: the doc set, the trap set and the index it built."""
    def quoted(path) -> str:
        return json.dumps(Path(path).resolve().as_posix())

    return "\n".join([
        "# Written by `valid demo`: commands run in this directory use the demo's doc set and index.",
        "[docset]",
        f"map = {quoted(map_path)}",
        f"scheme = {quoted(scheme)}",
        "",
        "[index]",
        f"state = {quoted(state)}",
        "",
        "[evaluate]",
        f"trapset = {quoted(trapset)}",
        "",
        *(["[serve]", f"noun = {json.dumps(noun)}  # what readers call one build (docs/serve.md)", ""] if noun else []),
    ])


def _summary(answer) -> str:
    if answer.outcome == "ask":
        return "asks: which generation? " + ", ".join(f"{c.label} ({c.generation})" for c in answer.choices)
    if answer.outcome == "refuse":
        return f"refuses: {answer.refusal.reason}" if answer.refusal else "refuses"
    lines = []
    for item in answer.answers:
        lines.append(f"[{', '.join(item.generations)}] {item.answer}")
        lines.extend(f"    - {step.text.splitlines()[0]}  ({step.cite})" for step in item.steps)
    return "\n".join(lines)


commands = [eval_command, report_command, demo_command]
