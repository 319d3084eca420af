"""Wall time and peak memory of a test run, summed over every process it starts, and per test module.

    python3 bench/suite_memory.py -- python3 -m pytest -m "not slow"
    python3 bench/suite_memory.py --modules modules.tsv -- python3 -m pytest
    python3 bench/suite_memory.py --tests tests.tsv -- python3 -m pytest tests/test_serve_http.py

Runs the command and, every --interval seconds, sums the resident set (RSS) of the command's whole
process tree: pytest and everything it starts (`valid serve` processes, chromium and chromedriver,
PostgreSQL, Ant and DITA-OT's Java, export workers). The sampler makes itself a child subreaper, so
a process that detaches (pg_ctl's postmaster, a daemonized server) stays in the tree and is counted.

To say which test module the memory belongs to, pytest loads this file as a plugin (through
PYTEST_PLUGINS) that writes the id of the running test to a file the sampler reads at each sample.
Per module it reports the peak summed RSS while the module ran, the pytest process's own peak and
how much the pytest process grew while the module ran (memory a module leaves behind for the rest
of the session: caches, session fixtures, runtimes that are never unloaded).

Summed RSS counts pages shared between processes (a forked worker's copy of its parent) once per
process, so it is an upper bound of what the run needs.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
MB = 1024 * 1024
NODE_FILE_ENV = "VALID_SUITE_MEMORY_NODE_FILE"
PR_SET_CHILD_SUBREAPER = 36


# --- pytest plugin side (loaded in the pytest process through PYTEST_PLUGINS) ---

def pytest_runtest_logstart(nodeid, location):
    path = os.environ.get(NODE_FILE_ENV)
    if path:
        # Replaced, not rewritten in place: the sampler never reads a half-written id.
        Path(path + ".new").write_text(nodeid, encoding="utf-8")
        os.replace(path + ".new", path)


# --- sampler side ---

@dataclass
class Module:
    name: str
    seconds: float = 0.0
    peak_tree: int = 0
    peak_main: int = 0
    main_first: int = 0
    main_last: int = 0
    peak_children: dict[str, int] = field(default_factory=dict)


def _processes() -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, command name, RSS bytes) for every process we can read."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
            resident = int(Path(f"/proc/{entry.name}/statm").read_text().split()[1]) * PAGE
        except (OSError, ValueError, IndexError):
            continue  # gone between the listing and the read
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        found[int(entry.name)] = (ppid, name, resident)
    return found


def tree(root: int, processes: dict[int, tuple[int, str, int]]) -> list[tuple[int, str, int]]:
    """(pid, name, RSS) of root and all its descendants."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in processes.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in processes:
            out.append((pid, processes[pid][1], processes[pid][2]))
        todo.extend(children.get(pid, ()))
    return out


def _module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0] or "(collection)"


def run(command: list[str], interval: float, node_file: Path) -> tuple[int, float, dict, dict, dict]:
    # Orphans of the tree (a daemonized server) are re-parented to us, so they stay counted.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    env = dict(os.environ)
    env[NODE_FILE_ENV] = str(node_file)
    plugin_dir = node_file.parent
    (plugin_dir / "valid_suite_memory.py").symlink_to(Path(__file__).resolve())
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugin_dir), env.get("PYTHONPATH", "")) if p)
    env["PYTEST_PLUGINS"] = ",".join(p for p in ("valid_suite_memory", env.get("PYTEST_PLUGINS", "")) if p)

    start = time.monotonic()
    child = subprocess.Popen(command, env=env)
    modules: dict[str, Module] = {}
    tests: dict[str, Module] = {}
    peak = {"rss": 0, "node": "", "processes": []}
    returncode = None
    cpu = [0.0]
    last = start
    while returncode is None:
        now = time.monotonic()
        members = tree(child.pid, _processes())
        total = sum(rss for _, _, rss in members)
        main = next((rss for pid, _, rss in members if pid == child.pid), 0)
        try:
            node = node_file.read_text(encoding="utf-8")
        except OSError:
            node = ""
        module = modules.setdefault(_module_of(node), Module(_module_of(node), main_first=main))
        test = tests.setdefault(node, Module(node, main_first=main))
        test.seconds += now - last
        test.peak_tree = max(test.peak_tree, total)
        test.main_last = main
        module.seconds += now - last
        module.peak_tree = max(module.peak_tree, total)
        module.peak_main = max(module.peak_main, main)
        module.main_last = main
        for pid, name, rss in members:
            if pid != child.pid:
                module.peak_children[name] = max(module.peak_children.get(name, 0), rss)
        if total > peak["rss"]:
            peak = {"rss": total, "node": node, "processes": sorted(members, key=lambda m: -m[2])[:8]}
        last = now
        time.sleep(interval)
        returncode = _reap(child.pid, cpu)
    peak["cpu"] = cpu[0]
    return returncode, time.monotonic() - start, modules, tests, peak


def _reap(main_pid: int, cpu: list[float]) -> int | None:
    """Reap every exited child (adopted orphans too), adding its CPU seconds (its own and its
    waited-for descendants') to cpu[0]; the main command's exit code once it ended."""
    code = None
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return code if code is not None else 0
        if pid == 0:
            return code
        cpu[0] += usage.ru_utime + usage.ru_stime
        if pid == main_pid:
            code = os.waitstatus_to_exitcode(status)


def _loadavg() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between samples (default 0.2)")
    parser.add_argument("--modules", type=Path, help="write every module's figures here (TSV)")
    parser.add_argument("--tests", type=Path, help="write every test's figures here (TSV, in run order)")
    parser.add_argument("--top", type=int, default=15, help="modules to print, by peak (default 15)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (after --)")

    load_before = _loadavg()
    with tempfile.TemporaryDirectory(prefix="suite-memory-") as tmp:
        code, wall, modules, tests, peak = run(command, args.interval, Path(tmp) / "node")
    load_after = _loadavg()

    rows = sorted(modules.values(), key=lambda m: -m.peak_tree)
    print(f"\n== {' '.join(command)}", file=sys.stderr)
    print(f"exit {code}; wall {int(wall // 60)} min {wall % 60:.0f} s; peak RSS summed over the process tree "
          f"{peak['rss'] / MB:,.0f} MB during {peak['node'] or '(collection)'}; CPU {peak['cpu']:,.0f} s (user + system, "
          f"the whole tree: on a busy machine a better measure of the work than the wall time); "
          f"load average (1 min) {load_before} before, {load_after} after, on {os.cpu_count()} cores", file=sys.stderr)
    print("at the peak: " + ", ".join(f"{name} {rss / MB:,.0f} MB" for _, name, rss in peak["processes"]),
          file=sys.stderr)
    print(f"{'module':<48} {'s':>6} {'peak tree MB':>12} {'pytest MB':>10} {'pytest grew':>11}  largest child",
          file=sys.stderr)
    for m in rows[:args.top]:
        child = max(m.peak_children.items(), key=lambda kv: kv[1], default=("", 0))
        print(f"{m.name:<48} {m.seconds:>6.1f} {m.peak_tree / MB:>12,.0f} {m.peak_main / MB:>10,.0f} "
              f"{(m.main_last - m.main_first) / MB:>+11,.0f}  {child[0]} {child[1] / MB:,.0f}", file=sys.stderr)
    if args.modules:
        with args.modules.open("w", encoding="utf-8") as out:
            out.write("module\tseconds\tpeak_tree_mb\tpeak_pytest_mb\tpytest_grew_mb\tchildren_peak_mb\n")
            for m in sorted(modules.values(), key=lambda m: m.name):
                children = " ".join(f"{n}={v // MB}" for n, v in sorted(m.peak_children.items(), key=lambda kv: -kv[1]))
                out.write(f"{m.name}\t{m.seconds:.1f}\t{m.peak_tree // MB}\t{m.peak_main // MB}\t"
                          f"{(m.main_last - m.main_first) // MB}\t{children}\n")
    if args.tests:
        with args.tests.open("w", encoding="utf-8") as out:
            out.write("test\tseconds\tpeak_tree_mb\tpytest_start_mb\tpytest_end_mb\n")
            for t in tests.values():
                out.write(f"{t.name}\t{t.seconds:.1f}\t{t.peak_tree // MB}\t{t.main_first // MB}\t{t.main_last // MB}\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
