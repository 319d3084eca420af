"""`valid export -o` and `valid index`: where output may go, how it is written, and what is refused."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixtures.index.exports import sample_topics, write_export
from valid.cli import main
from valid.index import Store, active_release_id

ROOT = Path(__file__).parent.parent
SAMPLE = ROOT / "sample_maps" / "cloud-tpu.ditamap"
SCHEME = ROOT / "schemes" / "tpu-generations.ditamap"
SIDECAR = ROOT / "sidecar"


def run(*args, ok=True):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def export_sample(out) -> CliRunner:
    return run("export", SAMPLE, "--scheme", SCHEME, "-o", out, ok=False)


def assert_one_line_error(result, message: str):
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert message in result.output, result.output


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> bytes:
    out = tmp_path_factory.mktemp("ref") / "ref.jsonl"
    assert export_sample(out).exit_code == 0
    return out.read_bytes()


def python(code: str, *args, preexec=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=env, preexec_fn=preexec
    )


# --------------------------------------------------------------------------- what -o may name


def test_a_new_output_file_gets_the_mode_the_umask_gives(tmp_path, reference):
    old = os.umask(0o027)
    try:
        assert export_sample(tmp_path / "out.jsonl").exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "out.jsonl").stat().st_mode) == 0o640
    assert (tmp_path / "out.jsonl").read_bytes() == reference


def test_a_replaced_output_file_keeps_its_mode(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("old")
    out.chmod(0o604)
    assert export_sample(out).exit_code == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o604


@pytest.mark.parametrize("target, message", [("dir", "a directory"), ("/dev/null", "not a regular file")])
def test_a_directory_or_device_is_refused(tmp_path, target, message):
    out = tmp_path if target == "dir" else Path(target)
    assert_one_line_error(export_sample(out), message)


@pytest.mark.parametrize("which", ["map", "topic", "ditaval"])
def test_an_input_is_never_the_output(tmp_path, which):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "m.ditamap").write_text('<map><title>M</title><topicref href="t.dita"/></map>')
    (docs / "t.dita").write_text('<topic id="t"><title>T</title><body><p>x</p></body></topic>')
    (docs / "all.ditaval").write_text("<val/>")
    link = tmp_path / "link.jsonl"  # through a symlink: the same file is still refused
    link.symlink_to(docs / {"map": "m.ditamap", "topic": "t.dita", "ditaval": "all.ditaval"}[which])
    before = {p.name: p.read_bytes() for p in docs.iterdir()}
    result = run("export", docs / "m.ditamap", "--profile", f"all={docs / 'all.ditaval'}", "-o", link, ok=False)
    assert_one_line_error(result, "is one of the inputs")
    assert {p.name: p.read_bytes() for p in docs.iterdir()} == before


def test_a_fifo_is_written_as_a_stream(tmp_path, reference):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = export_sample(fifo)
    reader.join(timeout=60)
    assert result.exit_code == 0, result.output
    assert received == [reference]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_dash_writes_the_export_to_stdout_and_the_summary_to_stderr(reference):
    done = python("from valid.cli import main; main()", "export", SAMPLE, "--scheme", SCHEME, "-o", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout.encode() == reference
    assert done.stderr.startswith("wrote <stdout>: 43 chunks")


# --------------------------------------------------------------------------- write failures


WRITE = "from valid.output import output_target, write_text; write_text(output_target(__import__('sys').argv[1]), 'x' * 100_000)"
AS_CLI_ERROR = "import sys\nfrom valid.errors import ValidError\ntry:\n    {}\nexcept ValidError as e:\n    sys.exit(f'valid: error: {{e}}')"


def _small_file_limit():
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, 10_000))


def test_running_out_of_space_is_a_one_line_error_and_leaves_nothing(tmp_path):
    out = tmp_path / "out.jsonl"
    done = python(AS_CLI_ERROR.format(WRITE), out, preexec=_small_file_limit)
    assert done.returncode != 0
    assert done.stderr.strip() == f"valid: error: {out}: cannot write: File too large"
    assert list(tmp_path.iterdir()) == []


def write_as_unprivileged_user(out: Path) -> str:
    """write_text in a forked child that is not root (root writes anywhere); its error, or ''."""
    from valid.errors import ValidError
    from valid.output import output_target, write_text

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root, try, report, exit without running the parent's cleanup
        os.close(read_end)
        message = ""
        try:
            if os.getuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            write_text(output_target(out), "x" * 1000)
        except ValidError as err:
            message = str(err)
        os.write(write_end, message.encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        message = pipe.read().decode()
    os.waitpid(pid, 0)
    return message


def test_an_unwritable_directory_is_a_one_line_error(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    tmp_path.chmod(0o755)
    assert write_as_unprivileged_user(locked / "out.jsonl") == f"{locked / 'out.jsonl'}: cannot write: Permission denied"
    assert list(locked.iterdir()) == []


# --------------------------------------------------------------------------- file names


def test_non_ascii_file_names_and_in_root_symlinks_export(tmp_path):
    docs = tmp_path / "dökümanlar é"
    (docs / "sub dir").mkdir(parents=True)
    (docs / "real").mkdir()
    (docs / "m.ditamap").write_text(
        '<map><title>M</title><topicref href="café.dita"/><topicref href="sub dir/ü.dita"/>'
        '<topicref href="link.dita"/></map>',
        encoding="utf-8",
    )
    (docs / "café.dita").write_text('<topic id="c"><title>C</title><body><p>café</p></body></topic>', encoding="utf-8")
    (docs / "sub dir" / "ü.dita").write_text('<topic id="u"><title>U</title><body><p>ü</p></body></topic>', encoding="utf-8")
    (docs / "real" / "t.dita").write_text('<topic id="l"><title>L</title><body><p>linked</p></body></topic>')
    (docs / "link.dita").symlink_to(docs / "real" / "t.dita")
    (docs / "all.ditaval").write_text("<val/>")
    out = tmp_path / "ëxport.jsonl"
    result = run("export", docs / "m.ditamap", "--profile", f"all={docs / 'all.ditaval'}", "-o", out, ok=False)
    assert result.exit_code == 0, result.output
    from valid.export.file import read_export

    texts = {c.id: c.text for c in read_export(out).chunks}
    assert texts == {"café.dita#c/body": "café", "sub dir/ü.dita#u/body": "ü", "real/t.dita#l/body": "linked"}


# --------------------------------------------------------------------------- empty exports and releases


def empty_profile_doc_set(tmp_path: Path) -> tuple[Path, Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "m.ditamap").write_text('<map><title>M</title><topicref href="t.dita"/></map>')
    (docs / "t.dita").write_text('<topic id="t"><title>T</title><body><p audience="admin">x</p></body></topic>')
    (docs / "admin.ditaval").write_text("<val/>")
    (docs / "user.ditaval").write_text('<val><prop att="audience" val="admin" action="exclude"/></val>')
    return docs / "m.ditamap", docs / "admin.ditaval", docs / "user.ditaval"


def test_an_export_with_a_profile_that_keeps_nothing_is_refused_unless_allowed(tmp_path):
    root_map, admin, user = empty_profile_doc_set(tmp_path)
    out = tmp_path / "out.jsonl"
    args = ["export", root_map, "--profile", f"admin={admin}", "--profile", f"user={user}", "-o", out]
    assert_one_line_error(run(*args, ok=False), "profile(s) user keep no chunk: nothing written")
    assert not out.exists()
    run(*args, "--allow-empty")
    assert out.exists()


def test_an_export_with_no_chunks_is_refused(tmp_path):
    root_map, _, user = empty_profile_doc_set(tmp_path)
    out = tmp_path / "out.jsonl"
    assert_one_line_error(run("export", root_map, "--profile", f"user={user}", "-o", out, ok=False), "no chunks")
    assert not out.exists()


def test_a_release_with_a_profile_that_has_no_chunks_is_refused_before_activation(tmp_path):
    export = write_export(tmp_path / "chunks.jsonl", sample_topics(), profiles=["v5p", "v6e", "tpu7x", "v4"])
    state = tmp_path / "state"
    assert_one_line_error(run("index", export, "--state", state, ok=False), "profile(s) v4 keep no chunk")
    assert active_release_id(Store(state)) is None
    run("index", export, "--state", state, "--allow-empty")
    assert active_release_id(Store(state)) is not None
