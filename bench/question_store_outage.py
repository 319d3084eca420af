"""Asks while the PostgreSQL question store is up, stopped, hung (SIGSTOP) and back, on one `valid serve`.

    python3 bench/question_store_outage.py                     # 4 clients, 10 s per phase
    python3 bench/question_store_outage.py --write store-outage   # also into docs/benchmarks.md

A throwaway PostgreSQL server on 127.0.0.1 (tests/fixtures/postgres.py: initdb and pg_ctl must be
installed) and the sample doc set exported and indexed into a temporary state directory; `valid
serve --log-url` (the code on the PYTHONPATH: run it once per checkout for a side-by-side) takes
closed-loop single questions (bench/serve.py's clients) through five phases in a row: the store up,
stopped (pg_ctl stop), hung (every server process SIGSTOPped: connections are accepted, nothing
answers), each followed by a phase right after the store is back while the server writes what it
kept meanwhile. Per phase: requests, p50, p95 and the slowest answer, and every status. At the end:
the questions the store holds against the asks answered with 200, and how long after each outage the
store held every write again.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))  # the throwaway PostgreSQL server the tests use

import serve as load  # noqa: E402  (bench/serve.py: the state, the server process and the clients)


def store_state(url: str) -> str:
    """What /healthz says of the question store ("" when it says nothing)."""
    try:
        body = httpx.get(url + "/healthz", timeout=5).json()
    except httpx.HTTPError:
        return ""
    store = body.get("question_store") or {}
    return f"{store.get('state')}/{store.get('spooled')}" if store else ""


def until_whole(url: str, limit_s: float = 120.0) -> float:
    """Seconds until /healthz says the store holds every write (polled every 0.1 s)."""
    started = time.monotonic()
    while store_state(url) not in ("ok/0", "") and time.monotonic() - started < limit_s:
        time.sleep(0.1)
    return time.monotonic() - started


def run(args) -> str:
    from fixtures.postgres import fresh_database, running_server

    work = Path(tempfile.mkdtemp(prefix="valid-bench-outage-"))
    server = None
    try:
        with running_server() as database:
            log_url = fresh_database(database.url)
            state = load.build_state(work)
            port = load.free_port()
            url = f"http://127.0.0.1:{port}"
            server = load.start_server(state, port, args, "--log-url", log_url)
            load.wait_ready(url, server)
            load.run_phase(url, load.Phase("warm-up", 2), 2.0, 100, "ask")
            before = load.count_questions(log_url)
            phases, seen, whole = [], [], []

            def phase(name: str) -> None:
                done = load.run_phase(url, load.Phase(name, args.clients), args.duration, args.max_requests, "ask")
                phases.append(done)
                seen.append(store_state(url))
                print(f"{name}: {done.requests} requests, statuses {done.statuses}", file=sys.stderr)

            phase("store up")
            for outage, begin, end in (("stopped", database.stop, database.start),
                                       ("hung (SIGSTOP)", database.pause, database.resume)):
                begin()
                phase(f"store {outage}")
                end()
                watch = threading.Thread(target=lambda: whole.append(until_whole(url)), daemon=True)
                watch.start()
                phase(f"store back after {outage.split()[0]}, writing the spool")
                watch.join()
            logged = load.count_questions(log_url) - before
    finally:
        if server is not None:
            load.stop_server(server)
        shutil.rmtree(work, ignore_errors=True)
    return report(args, phases, seen, logged, whole)


def report(args, phases, seen: list[str], logged: int, whole: list[float]) -> str:
    answered = sum(p.statuses.get(200, 0) for p in phases)
    lines = [
        f"`python3 bench/question_store_outage.py --clients {args.clients} --duration {args.duration:g}` "
        f"(2 cores shared with other jobs; one `valid serve --log-url …`, offline answerer, the sample doc set, "
        f"PostgreSQL on 127.0.0.1; load average {load.load_average()} at the end).",
        "",
        "| phase | requests | p50 | p95 | slowest 200 | statuses | /healthz question_store at the end |",
        "|---|---|---|---|---|---|---|",
    ]
    for phase, state in zip(phases, seen):
        statuses = [f"{code}: {n}" for code, n in sorted(phase.statuses.items())]
        statuses += [f"no reply: {phase.transport_errors}"] if phase.transport_errors else []
        timed = [load.ms(phase.percentile(50)), load.ms(phase.percentile(95)), load.ms(max(phase.latencies))] \
            if phase.latencies else ["-", "-", "-"]
        lines.append(f"| {phase.name} | {phase.requests} | {' | '.join(timed)} | {', '.join(statuses)} | "
                     f"{state or 'not reported'} |")
    lines += ["", f"- Questions in the store after the run: {logged}, for {answered} asks answered with 200."]
    if any(seen):
        after = " and ".join(f"{s:.1f} s" for s in whole)
        lines.append(f"- The store held every write (`/healthz`: ok/0) {after} after it came back from each outage "
                     "(readers asking meanwhile).")
    else:
        lines.append("- `/healthz` does not report the question store.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per phase")
    parser.add_argument("--max-requests", type=int, default=5000, help="per phase")
    parser.add_argument("--max-inflight", type=int, default=4)
    parser.add_argument("--max-queue", type=int, default=16)
    parser.add_argument("--write", metavar="SECTION", default=None,
                        help="also write the report into docs/benchmarks.md between <!-- bench:SECTION --> marks")
    args = parser.parse_args()
    text = run(args)
    print(text)
    if args.write:
        load.write_section(text, args.write)


if __name__ == "__main__":
    main()
