"""Time the DITA-OT plugin's last step (the export from the kept profile jobs) with chunk digests
computed in XSLT (before) and by Ant's checksum task (after), side by side.

    # jobs kept by a plugin run: dita ... --format=valid-index --clean.temp=no
    python3 bench/plugin_digests.py WORK_DIR [--profiles editor-sa,author-sa] [--runs 3] \\
        [--timeout 1200] [--out DIR]

WORK_DIR is the plugin's work directory of that run (the one holding run.xml: `valid/` under
DITA-OT's temp directory). --profiles keeps only those profiles of the run document (a smaller
export from the same jobs). Each run is one `$DITA_HOME/bin/ant -f bench/plugin_digests.xml
before|after` (a JVM of its own, as in `dita`), the variants alternating; a run still going
after --timeout seconds is stopped and reported as such. Prints wall, CPU and peak RSS per run,
the medians, and whether the outputs are byte-identical.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import signal
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin

BENCH = Path(__file__).resolve().parent
BUILD_FILE = BENCH / "plugin_digests.xml"


def subset_run_document(run_xml: Path, profiles: list[str], into: Path) -> Path:
    """A copy of the run document with only the named profiles, every URI made absolute."""
    tree = ET.parse(run_xml)
    root = tree.getroot()
    base = run_xml.resolve().as_uri()
    names = [p.get("name") for p in root.findall("profile")]
    unknown = sorted(set(profiles) - set(names))
    if unknown:
        raise SystemExit(f"{run_xml}: no profile {', '.join(unknown)} (it has {', '.join(names)})")
    for element in root.iter():
        for attribute in ("job", "ditaval", "href"):
            if element.get(attribute):
                element.set(attribute, urljoin(base, element.get(attribute)))
    for profile in root.findall("profile"):
        if profiles and profile.get("name") not in profiles:
            root.remove(profile)
    into.mkdir(parents=True, exist_ok=True)
    tree.write(into / "run.xml", encoding="UTF-8", xml_declaration=True)
    return into / "run.xml"


def first_job_dir(run_xml: Path) -> Path:
    """A DITA-OT job directory for the pipeline task's dita.temp.dir: the first profile's."""
    job = ET.parse(run_xml).getroot().find("profile").get("job")
    return Path(job.removeprefix("file:")).parent


def run_once(variant: str, dita_home: Path, work: Path, temp: Path, out: Path, timeout: float) -> dict:
    command = [str(dita_home / "bin" / "ant"), "-logger", "org.apache.tools.ant.listener.ProfileLogger",
               "-f", str(BUILD_FILE), variant,
               f"-Dvalid.plugin.dir={dita_home / 'plugins' / 'org.valid.index'}",
               f"-Dvalid.work.dir={work}", f"-Ddita.temp.dir={temp}", f"-Dbench.out={out}"]
    out.unlink(missing_ok=True)
    log = open(out.with_suffix(".log"), "w")
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            os.killpg(process.pid, signal.SIGTERM)
            pid, status, usage = os.wait4(process.pid, 0)
            return {"variant": variant, "finished": False, "wall": time.perf_counter() - started,
                    "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}
        time.sleep(0.2)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0 or not out.is_file():
        raise SystemExit(f"{variant} failed, see {out.with_suffix('.log')}")
    stylesheet, digests = step_seconds(out.with_suffix(".log"))
    return {"variant": variant, "finished": True, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024, "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
            "lines": out.read_bytes().count(b"\n"), "stylesheet": stylesheet, "digests": digests}


def step_seconds(log: Path) -> tuple[float, float]:
    """From Ant's ProfileLogger: the export stylesheet's run (the first pipeline task), and what
    follows it (the digest steps: the other pipeline tasks, checksum, concat, touch)."""
    tasks = re.findall(r"^(pipeline|checksum|concat|touch): finished .* \((\d+)\)$", log.read_text(), re.M)
    seconds = [int(ms) / 1000 for _, ms in tasks]
    return (seconds[0], sum(seconds[1:])) if seconds else (0.0, 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work", type=Path, help="the plugin's work directory of a kept run (holds run.xml)")
    parser.add_argument("--profiles", default="", help="comma-separated profile names to keep (default: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--variants", default="before,after")
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds before a run is stopped")
    parser.add_argument("--out", type=Path, default=Path("plugin-digests-bench"))
    parser.add_argument("--dita-home", type=Path, default=Path(os.environ.get("DITA_HOME", "")))
    args = parser.parse_args()
    if not (args.dita_home / "bin" / "ant").is_file():
        raise SystemExit("set DITA_HOME (or --dita-home) to a DITA-OT 4.x with the plugin installed")

    profiles = [p for p in args.profiles.split(",") if p]
    work = args.out.resolve() / "work"
    run_xml = subset_run_document(args.work / "run.xml", profiles, work)
    temp = first_job_dir(run_xml)
    results = []
    for n in range(args.runs):
        for variant in args.variants.split(","):
            result = run_once(variant, args.dita_home, work, temp, work / f"{variant}-{n}.jsonl", args.timeout)
            results.append(result)
            state = (f"{result['lines'] - 1} chunks, sha256 {result['sha256'][:12]}; export stylesheet "
                     f"{result['stylesheet']:.1f} s, digest steps after it {result['digests']:.1f} s"
                     if result["finished"] else "STOPPED, not finished")
            print(f"{variant} run {n + 1}: {result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU, "
                  f"{result['rss_mb']:.0f} MB peak RSS, {state}", flush=True)
    for variant in args.variants.split(","):
        runs = [r for r in results if r["variant"] == variant]
        done = [r for r in runs if r["finished"]]
        median = f"{statistics.median(r['wall'] for r in done):.1f} s" if len(done) == len(runs) else "not finished"
        cpu = ", ".join(f"{r['cpu']:.1f}" for r in runs)
        rss = ", ".join(f"{r['rss_mb']:.0f}" for r in runs)
        print(f"{variant}: median wall {median}; CPU {cpu} s; peak RSS {rss} MB")
    digests = {r["sha256"] for r in results if r["finished"]}
    print("outputs byte-identical" if len(digests) == 1 else f"OUTPUTS DIFFER: {sorted(digests)}")
    sys.exit(0 if len(digests) <= 1 else 1)


if __name__ == "__main__":
    main()
