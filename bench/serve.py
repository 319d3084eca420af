"""Closed-loop load on `valid serve` over 127.0.0.1: below saturation, then past it.

    python3 bench/serve.py                      # 16 clients for 60 s, then 64 clients twice for 20 s
    python3 bench/serve.py --duration 10 --write   # shorter; --write updates docs/benchmarks.md
    python3 bench/serve.py --minutes 5 --write     # memory: 16 clients for 5 minutes, RSS sampled
    python3 bench/serve.py --servers 2 --write      # one server, then two, sharing Chroma + PostgreSQL

The service runs as its own process (`valid serve`, offline answerer, the sample doc set exported
and indexed into a temporary state directory) so the load generator does not share its GIL. Each
client sends one question, waits for the answer, and sends the next (closed loop), cycling through
scoped, unscoped, two-generation and out-of-scheme questions. With `--mix portal` (the default) a
client holds conversations the way the ask page does: a first question (some streamed as progress
events), a follow-up in the same conversation, sometimes a reload of the page (the thread read back
with GET /v1/conversations/{id}), then feedback on the last answer. `--mix ask` sends
single questions only; with `--compare`, phase 1 also runs with single questions right after, on
the same server, for a side-by-side. Every phase is bounded both in time and in request count.

Phase 1 (below saturation): throughput, p50/p95/p99 latency and errors (anything but 200).
With `--servers N` (N >= 2) the servers share a `chroma run` server and a PostgreSQL question store
(both throwaway, on 127.0.0.1; PostgreSQL's initdb and pg_ctl must be installed): phase 1 runs on
one of them, then on all N with each client sending its requests to the servers in turn (a load
balancer without affinity: a conversation's turns and its feedback land on different servers), in
the same run. The saturated phases are not run in this mode.

Phase 2 (past saturation, run twice): more clients than answer slots + queue places; counts 200s and
503s, checks the process is alive and ready afterwards, and compares its resident memory after each
round (no growth between rounds means the refusals hold nothing).

Memory mode (`--minutes N`): instead of the phases above, the portal mix at `--clients` for N
minutes while the server's resident memory (VmRSS of its process) is sampled every `--sample-every`
seconds; reports the first sample, the one after `--warm-up` seconds, the last and the largest.
Memory is flat when the last is within 10 % of the value after warm-up.

Every report names the machine's load average at the start and end of the run: the numbers are
only comparable between runs on an equally quiet machine.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = [
    ("I'm on Ironwood. Which --version do I pass when I create the VM?", None),
    ("How many chips are in one TPU VM?", None),
    ("How many chips are in one TPU VM?", "v6e"),
    ("Which frameworks does Trillium support?", None),
    ("How many chips per host do v5p and v6e have?", None),
    ("Which software version do I use on TPU v4?", None),
]
# Conversations as the ask page holds them: (kind, question, generation); kind is "ask" (a new
# conversation), "stream" (the same, as progress events), "follow" (the next turn), "reload" (the page
# reloaded: the thread read back) or "feedback".
SESSIONS = [
    [("stream", QUESTIONS[0][0], None), ("follow", "and on v6e?", None), ("reload", "", None),
     ("feedback", "down", None)],
    [("ask", QUESTIONS[1][0], None), ("follow", "Trillium", None), ("feedback", "up", None)],
    [("ask", QUESTIONS[2][0], "v6e"), ("follow", "which zone for that?", None), ("feedback", "up", None)],
    [("ask", QUESTIONS[3][0], None), ("follow", "What about Ironwood?", None), ("reload", "", None),
     ("feedback", "down", None)],
    [("stream", QUESTIONS[4][0], None), ("feedback", "up", None)],
    [("ask", QUESTIONS[5][0], None), ("follow", "and on v5p?", None), ("feedback", "down", None)],
]
KINDS = ("ask", "stream", "follow", "reload", "feedback")


@dataclass
class Phase:
    name: str
    clients: int
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)  # seconds, 200s only
    by_kind: dict[str, list[float]] = field(default_factory=dict)  # the same, per request kind
    statuses: dict[int, int] = field(default_factory=dict)
    transport_errors: int = 0

    @property
    def requests(self) -> int:
        return sum(self.statuses.values()) + self.transport_errors

    def percentile(self, p: float, kind: str | None = None) -> float:
        values = self.latencies if kind is None else self.by_kind.get(kind, [])
        if not values:
            return float("nan")
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_state(root: Path, chroma_url: str | None = None) -> Path:
    from valid.embed import make_embedder
    from valid.export import export
    from valid.index import Store, build_release

    out = export(
        REPO / "sample_maps" / "cloud-tpu.ditamap", scheme=REPO / "schemes" / "tpu-generations.ditamap",
        out=root / "chunks.jsonl",
    ).out
    state = root / "state"
    build_release(out, make_embedder("offline"), Store(state, chroma_url=chroma_url))
    return state


def start_server(state: Path, port: int, args, *shared: str) -> subprocess.Popen:
    command = [
        sys.executable, "-c", "from valid.cli import main; main()", "serve", "--state", str(state),
        "--port", str(port), "--rate", "0", "--max-inflight", str(args.max_inflight),
        "--max-queue", str(args.max_queue), "--timeout", "30", *shared,
    ]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def wait_ready(url: str, server: subprocess.Popen, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"valid serve exited: {server.stderr.read()[-2000:]}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit("valid serve did not become ready")


def process_rss(pid: int) -> float:
    """Resident memory of a process in bytes (Linux: VmRSS), or NaN."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    match = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.M)
    return float(match.group(1)) * 1024 if match else float("nan")


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f}"


def resident_memory(url: str) -> float:
    text = httpx.get(url + "/metrics", timeout=10).text
    match = re.search(r"^process_resident_memory_bytes (\S+)$", text, re.M)
    return float(match.group(1)) if match else float("nan")


def single_questions(number: int):
    turn = number
    while True:
        question, generation = QUESTIONS[turn % len(QUESTIONS)]
        turn += 1
        yield ("ask", question, generation)


def conversations(number: int):
    session = number
    while True:
        yield from SESSIONS[session % len(SESSIONS)]
        session += 1


def send(http: httpx.Client, kind: str, text: str, generation: str | None, ids: dict) -> httpx.Response | None:
    """One request of a session; None when there is nothing to send (feedback with no answer)."""
    if kind == "reload":
        if not ids.get("conversation"):
            return None
        return http.get(f"/v1/conversations/{ids['conversation']}")
    if kind == "feedback":
        if not ids.get("answer"):
            return None
        return http.post("/v1/feedback", json={"answer_id": ids["answer"], "rating": text,
                                               "reasons": ["unclear"] if text == "down" else []})
    payload = {"question": text} if generation is None else {"question": text, "generation": generation}
    if kind == "follow" and ids.get("conversation"):
        payload["conversation_id"] = ids["conversation"]
    if kind != "stream":
        response = http.post("/v1/ask", json=payload)
    else:
        with http.stream("POST", "/v1/ask", json=payload, headers={"accept": "text/event-stream"}) as response:
            body = b"".join(response.iter_bytes())
        if response.status_code == 200 and b"event: answer" not in body:
            response.status_code = 599  # the stream ended without its answer: an error
    if response.status_code == 200:
        ids["conversation"] = response.headers.get("x-valid-conversation-id")
        ids["answer"] = response.headers.get("x-valid-answer-id")
    return response


def run_phase(url: str | list[str], phase: Phase, seconds: float, max_requests: int, mix: str = "portal") -> Phase:
    """Closed-loop clients; with several URLs each client sends its requests to them in turn."""
    urls = [url] if isinstance(url, str) else url
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds
    sent = 0

    def client(number: int) -> None:
        nonlocal sent
        steps = conversations(number) if mix == "portal" else single_questions(number)
        ids: dict = {}
        https = [httpx.Client(base_url=u, timeout=60) for u in urls]
        turn = number
        try:
            while time.monotonic() < stop_at:
                with lock:
                    if sent >= max_requests:
                        return
                    sent += 1
                kind, text, generation = next(steps)
                http = https[turn % len(https)]
                turn += 1
                started = time.perf_counter()
                try:
                    response = send(http, kind, text, generation, ids)
                except httpx.HTTPError:
                    with lock:
                        phase.transport_errors += 1
                    continue
                if response is None:
                    with lock:
                        sent -= 1
                    continue
                took = time.perf_counter() - started
                with lock:
                    phase.statuses[response.status_code] = phase.statuses.get(response.status_code, 0) + 1
                    if response.status_code == 200:
                        phase.latencies.append(took)
                        phase.by_kind.setdefault(kind, []).append(took)
                if response.status_code == 503:
                    # A well-behaved client honours Retry-After, capped so the phase keeps pressure on.
                    time.sleep(min(float(response.headers.get("retry-after", "1")), 0.2))
        finally:
            for http in https:
                http.close()

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(phase.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    phase.seconds = time.monotonic() - started
    return phase


def ms(value: float) -> str:
    return f"{value * 1000:.0f} ms"


def report(args, below: Phase, over: list[Phase], memory: list[float], alive: bool, cpu: str,
           compared: Phase | None = None, loads: tuple[str, str] = ("?", "?")) -> str:
    ok = below.statuses.get(200, 0)
    errors = below.requests - ok
    lines = [
        f"`python3 bench/serve.py --clients {args.clients} --duration {args.duration:g} "
        f"--over-clients {args.over_clients} --over-duration {args.over_duration:g} --mix {args.mix}"
        f"{' --compare' if compared else ''}` "
        f"({cpu}; server and load generator on the same machine, offline answerer, the sample doc set; "
        f"`valid serve --max-inflight {args.max_inflight} --max-queue {args.max_queue} --rate 0`; "
        f"load average (1 / 5 / 15 min) {loads[0]} at the start, {loads[1]} at the end).",
        "",
        "| phase | clients | requests | throughput (200s) | p50 | p95 | p99 | 200 | 503 | other errors |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for phase in [below, *([compared] if compared else []), *over]:
        other = phase.requests - phase.statuses.get(200, 0) - phase.statuses.get(503, 0)
        lines.append(
            f"| {phase.name} | {phase.clients} | {phase.requests} | {phase.statuses.get(200, 0) / phase.seconds:.1f}/s "
            f"| {ms(phase.percentile(50))} | {ms(phase.percentile(95))} | {ms(phase.percentile(99))} "
            f"| {phase.statuses.get(200, 0)} | {phase.statuses.get(503, 0)} | {other} |"
        )
    growth = memory[2] - memory[1]
    kinds = [k for k in KINDS if below.by_kind.get(k)]
    if args.mix == "portal":
        lines += [
            "",
            "Below saturation, by request kind (ask: a first question; stream: the same as progress events, "
            "timed to the answer event; follow: the next turn of a conversation; reload: the thread read back "
            "after a page reload; feedback: POST /v1/feedback):",
            "",
            "| kind | 200s | p50 | p95 | p99 |",
            "|---|---|---|---|---|",
            *(f"| {k} | {len(below.by_kind[k])} | {ms(below.percentile(50, k))} | {ms(below.percentile(95, k))} "
              f"| {ms(below.percentile(99, k))} |" for k in kinds),
        ]
    lines += [
        "",
        f"- Below saturation: {errors} errors in {below.requests} requests; p99 {ms(below.percentile(99))} "
        f"(target: 0 errors, p99 under 1 s: {'met' if errors == 0 and below.percentile(99) < 1 else 'NOT met'}).",
        f"- Past saturation: {sum(p.statuses.get(503, 0) for p in over)} requests refused with 503 + Retry-After, "
        f"{sum(p.requests - p.statuses.get(200, 0) - p.statuses.get(503, 0) for p in over)} other errors; "
        f"the server was {'alive and ready' if alive else 'NOT ready'} afterwards.",
        f"- Resident memory of the server: {memory[0] / 2**20:.0f} MiB after warm-up, "
        f"{memory[1] / 2**20:.0f} MiB after phase 1 and the first saturated round, "
        f"{memory[2] / 2**20:.0f} MiB after the second ({growth / 2**20:+.1f} MiB between the saturated rounds).",
    ]
    return "\n".join(lines)


def sample_memory(pid: int, every_s: float, stop: threading.Event, samples: list[tuple[float, float]]) -> None:
    """(seconds since the start, RSS bytes) every `every_s` seconds until `stop` is set."""
    started = time.monotonic()
    while True:
        samples.append((time.monotonic() - started, process_rss(pid)))
        if stop.wait(every_s):
            samples.append((time.monotonic() - started, process_rss(pid)))
            return


def run_memory(url: str, server: subprocess.Popen, args) -> tuple[Phase, list[tuple[float, float]]]:
    """The portal mix at --clients for --minutes, the server's RSS sampled meanwhile."""
    samples: list[tuple[float, float]] = []
    stop = threading.Event()
    sampler = threading.Thread(target=sample_memory, args=(server.pid, args.sample_every, stop, samples), daemon=True)
    sampler.start()
    phase = run_phase(url, Phase(f"{args.minutes:g} minutes, portal mix", args.clients), args.minutes * 60,
                      args.max_requests, "portal")
    stop.set()
    sampler.join()
    return phase, samples


def memory_report(args, phase: Phase, samples: list[tuple[float, float]], alive: bool, cpu: str,
                  loads: tuple[str, str]) -> str:
    mib = [(t, rss / 2**20) for t, rss in samples]
    warm = next((v for t, v in mib if t >= args.warm_up), mib[-1][1])
    first, last, peak = mib[0][1], mib[-1][1], max(v for _, v in mib)
    change = (last - warm) / warm
    errors = phase.requests - phase.statuses.get(200, 0)
    return "\n".join([
        f"`python3 bench/serve.py --minutes {args.minutes:g} --clients {args.clients} "
        f"--sample-every {args.sample_every:g} --warm-up {args.warm_up:g}` ({cpu}; the portal mix; "
        f"`valid serve --max-inflight {args.max_inflight} --max-queue {args.max_queue} --rate 0`; "
        f"load average (1 / 5 / 15 min) {loads[0]} at the start, {loads[1]} at the end).",
        "",
        "| requests | throughput (200s) | p50 | p99 | errors | RSS first | after warm-up | last | max | samples |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| {phase.requests} | {phase.statuses.get(200, 0) / phase.seconds:.1f}/s | {ms(phase.percentile(50))} "
        f"| {ms(phase.percentile(99))} | {errors} | {first:.0f} MiB | {warm:.0f} MiB | {last:.0f} MiB "
        f"| {peak:.0f} MiB | {len(mib)} |",
        "",
        f"- Resident memory of the server, every {args.sample_every:g} s (MiB): "
        + ", ".join(f"{v:.0f}" for _, v in mib[:: max(1, len(mib) // 12)]) + f" … {last:.0f}.",
        f"- Last against the value after {args.warm_up:g} s: {change * 100:+.1f} % "
        f"({'flat: within 10 %' if abs(change) <= 0.10 else 'NOT flat: more than 10 %'}); "
        f"the server was {'alive and ready' if alive else 'NOT ready'} afterwards.",
    ])


def write_section(text: str, name: str = "serve") -> None:
    path = REPO / "docs" / "benchmarks.md"
    doc = path.read_text(encoding="utf-8")
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    before, rest = doc.split(start, 1)
    _, after = rest.split(end, 1)
    path.write_text(f"{before}{start}\n{text}\n{end}{after}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=60.0, help="Seconds of phase 1.")
    parser.add_argument("--max-requests", type=int, default=50_000, help="Cap on requests per phase.")
    parser.add_argument("--over-clients", type=int, default=64)
    parser.add_argument("--over-duration", type=float, default=20.0, help="Seconds of each saturated round.")
    parser.add_argument("--max-inflight", type=int, default=4)
    parser.add_argument("--max-queue", type=int, default=16)
    parser.add_argument("--mix", choices=["portal", "ask"], default="portal",
                        help="portal: conversations, progress events and feedback; ask: single questions only.")
    parser.add_argument("--compare", action="store_true",
                        help="Run phase 1 again with single questions only, on the same server, for a side-by-side.")
    parser.add_argument("--state", type=Path, help="Use this state directory instead of indexing the sample.")
    parser.add_argument("--minutes", type=float, default=0,
                        help="Memory mode: the portal mix for this many minutes, the server's RSS sampled.")
    parser.add_argument("--sample-every", type=float, default=5.0, help="Memory mode: seconds between samples.")
    parser.add_argument("--warm-up", type=float, default=60.0,
                        help="Memory mode: the sample this many seconds in is the value after warm-up.")
    parser.add_argument("--servers", type=int, default=1,
                        help="2 or more: one server, then this many, sharing a Chroma server and PostgreSQL.")
    parser.add_argument("--rounds", type=int, default=2, help="With --servers: times each layout runs, alternated.")
    parser.add_argument("--write", action="store_true", help="Write the results into docs/benchmarks.md.")
    args = parser.parse_args()
    if args.clients > args.max_inflight + args.max_queue:
        parser.error("phase 1 must stay below saturation: --clients <= --max-inflight + --max-queue")
    if args.servers > 1:
        return run_shared(args)

    work = Path(tempfile.mkdtemp(prefix="valid-bench-serve-"))
    server = None
    try:
        state = args.state or build_state(work)
        url = f"http://127.0.0.1:{free_port()}"
        server = start_server(state, int(url.rsplit(":", 1)[1]), args)
        wait_ready(url, server)
        run_phase(url, Phase("warm-up", 4), 3.0, 200)
        cpu = f"{os.cpu_count()} cores"
        load_start = load_average()
        if args.minutes:
            phase, samples = run_memory(url, server, args)
            alive = server.poll() is None and httpx.get(url + "/healthz", timeout=5).status_code == 200
            text = memory_report(args, phase, samples, alive, cpu, (load_start, load_average()))
            print(text)
            if args.write:
                write_section(text, "serve-memory")
            return
        memory = [resident_memory(url)]
        name = "below saturation" + (", portal mix" if args.mix == "portal" else "")
        below = run_phase(url, Phase(name, args.clients), args.duration, args.max_requests, args.mix)
        print(f"phase 1: {below.requests} requests, p99 {ms(below.percentile(99))}", file=sys.stderr)
        compared = None
        if args.compare and args.mix != "ask":
            compared = run_phase(url, Phase("below saturation, single questions", args.clients), args.duration,
                                 args.max_requests, "ask")
        over = []
        for round_ in (1, 2):
            over.append(run_phase(url, Phase(f"past saturation ({round_})", args.over_clients), args.over_duration,
                                  args.max_requests, args.mix))
            time.sleep(1.0)  # let the last refused clients' connections close
            memory.append(resident_memory(url))
        alive = server.poll() is None and httpx.get(url + "/healthz", timeout=5).status_code == 200
        text = report(args, below, over, memory, alive, cpu, compared, (load_start, load_average()))
        print(text)
        if args.write:
            write_section(text)
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)


def count_questions(log_url: str) -> int:
    import psycopg

    with psycopg.connect(log_url) as db:
        return db.execute("SELECT count(*) FROM questions").fetchone()[0]


def load_average() -> str:
    return "/".join(f"{v:.1f}" for v in os.getloadavg())


def run_shared(args) -> None:
    """One server, then `args.servers`, over one Chroma server and one PostgreSQL store, same run."""
    from contextlib import ExitStack

    sys.path.insert(0, str(REPO / "tests"))  # the throwaway servers the tests use
    from fixtures.index.chroma_server import chroma_server
    from fixtures.postgres import fresh_database, postgres_server

    work = Path(tempfile.mkdtemp(prefix="valid-bench-serve-"))
    try:
        with ExitStack() as stack:
            chroma_url = stack.enter_context(chroma_server(work / "chroma"))
            log_url = fresh_database(stack.enter_context(postgres_server()))
            state = build_state(work, chroma_url)
            urls, servers = [], []
            for _ in range(args.servers):
                port = free_port()
                servers.append(start_server(state, port, args, "--chroma-url", chroma_url, "--log-url", log_url))
                urls.append(f"http://127.0.0.1:{port}")
                stack.callback(stop_server, servers[-1])
            for url, server in zip(urls, servers):
                wait_ready(url, server)
            run_phase(urls, Phase("warm-up", 4), 3.0, 200)
            phases, logged, loads = [], [], [load_average()]
            # Alternated, so neither layout always runs on a warmer (or a busier) machine.
            pairs = [("one server", urls[:1]), (f"{args.servers} servers, requests in turn", urls)]
            for name, targets in [(f"{name} ({r})", t) for r in range(1, args.rounds + 1) for name, t in pairs]:
                before = count_questions(log_url)
                phase = run_phase(targets, Phase(name, args.clients), args.duration, args.max_requests, args.mix)
                phases.append(phase)
                logged.append(count_questions(log_url) - before)
                loads.append(load_average())
                print(f"{name}: {phase.requests} requests, p99 {ms(phase.percentile(99))}", file=sys.stderr)
            text = report_shared(args, phases, logged, loads)
            print(text)
            if args.write:
                write_section(text, "serve-shared")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()


def report_shared(args, phases: list[Phase], logged: list[int], loads: list[str]) -> str:
    lines = [
        f"`python3 bench/serve.py --servers {args.servers} --clients {args.clients} --duration {args.duration:g} "
        f"--rounds {args.rounds} --mix {args.mix}` ({os.cpu_count()} cores; servers, `chroma run`, PostgreSQL and the load generator "
        f"on the same machine; offline answerer, the sample doc set; each server `valid serve --max-inflight "
        f"{args.max_inflight} --max-queue {args.max_queue} --rate 0 --chroma-url … --log-url …`; load average "
        f"(1/5/15 min) {loads[0]} before, {loads[-1]} after).",
        "",
        "| phase | clients | requests | throughput (200s) | p50 | p95 | p99 | 200 | errors | questions logged |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for phase, rows in zip(phases, logged):
        ok = phase.statuses.get(200, 0)
        lines.append(
            f"| {phase.name} | {phase.clients} | {phase.requests} | {ok / phase.seconds:.1f}/s "
            f"| {ms(phase.percentile(50))} | {ms(phase.percentile(95))} | {ms(phase.percentile(99))} "
            f"| {ok} | {phase.requests - ok} | {rows} |"
        )
    answered = [sum(len(p.by_kind.get(k, [])) for k in ("ask", "stream", "follow")) for p in phases]
    lines += [
        "",
        "- Questions logged in PostgreSQL against questions answered (200s that were not feedback), per "
        "phase: " + ", ".join(f"{rows}/{n}" for rows, n in zip(logged, answered)) + ".",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
