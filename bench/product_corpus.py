"""A generated versioned software reference: the doc set `bench/ask.py --corpus generated` indexes.

    from product_corpus import generate
    corpus = generate(profiles=20, chunks=10_000, seed=7)
    corpus.write(path)            # a contract-valid JSON-lines export (valid.contracts models)
    corpus.questions              # scoped and unscoped questions built from the same facts

The product is a fictional command-line tool, Quarry CLI, released as versions 1.0, 1.1, ... (one
profile per version, labels "Quarry 2.3" and "Quarry CLI 2.3"). Its reference has one topic per
command (`quarry <noun> <verb>`) plus shared concept topics (install, configure, authenticate).
Each command is added in some version and sometimes removed later; each of its options is added,
may change its default, may be deprecated and then removed. The export has what a real versioned
doc set has:

- shared chunks: a command's description is one chunk kept by every version that has the command;
- version-specific variants: a synopsis per distinct option set, an option-table row per distinct
  (default, status) era, limits that change, each chunk kept exactly by the versions it is true in
  (ids carry `~<first version>` as the exporter's variants do);
- option tables (`Option | Default | Description` rows), steps with commands, notes.

Everything comes from one `random.Random(seed)`: same arguments, same bytes. Commands are added
until the export holds at least `chunks` chunks.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path

from valid.contracts import Chunk, ExportCounts, ExportHeader, ProfileInfo, SourceLocation

MAP_TITLE = "Quarry CLI reference"

NOUNS = [
    "table", "index", "snapshot", "bucket", "user", "role", "key", "replica", "job", "schedule", "pipeline",
    "view", "schema", "cluster", "node", "shard", "policy", "token", "webhook", "stream", "queue", "cache",
    "secret", "log", "backup", "tenant", "quota", "alert", "dashboard", "connector", "volume", "network",
    "route", "certificate", "trigger", "function", "template", "workspace", "dataset", "model", "endpoint",
    "subscription", "topic", "group", "service", "account", "domain", "firewall", "gateway", "registry",
]
VERBS = {
    "create": "Creates a {noun} in the current project",
    "delete": "Deletes a {noun} and everything it holds",
    "list": "Lists the {noun}s you can see, one per line",
    "describe": "Prints the full configuration of one {noun}",
    "update": "Changes the settings of an existing {noun}",
    "import": "Loads {noun} definitions from a local file",
    "export": "Writes {noun} definitions to a local file",
    "sync": "Brings a {noun} in line with its declared state",
    "restore": "Restores a {noun} from an earlier backup",
    "migrate": "Moves a {noun} to another region or cluster",
    "inspect": "Reports the health and recent activity of a {noun}",
    "validate": "Checks a {noun} definition without applying it",
    "compact": "Reclaims space that deleted {noun} data still uses",
    "rotate": "Replaces the credentials a {noun} uses",
}
# name, metavar, unit (None: a plain value), the defaults it may have, what it does
OPTIONS = [
    ("--batch-size", "N", "rows", ["100", "250", "500", "1000", "2000"], "Rows sent to the server in one request."),
    ("--timeout", "DURATION", "s", ["10", "30", "60", "120", "300"], "How long to wait for the server before giving up."),
    ("--retries", "N", "attempts", ["0", "3", "5", "8"], "How often a failed request is retried."),
    ("--parallel", "N", "workers", ["1", "2", "4", "8", "16"], "Requests in flight at once."),
    ("--page-size", "N", "items", ["20", "50", "100", "500"], "Items fetched per page of results."),
    ("--format", "FORMAT", None, ["table", "json", "yaml", "csv"], "Output format."),
    ("--compression", "CODEC", None, ["none", "gzip", "zstd", "lz4"], "Compression for data sent over the wire."),
    ("--region", "REGION", None, ["us-east1", "europe-west4", "asia-south1"], "Region the request is sent to."),
    ("--encryption", "MODE", None, ["off", "server-side", "customer-managed"], "How data at rest is encrypted."),
    ("--consistency", "LEVEL", None, ["eventual", "bounded", "strong"], "Read consistency for the operation."),
    ("--retention", "DAYS", "days", ["7", "14", "30", "90", "365"], "How long old versions are kept."),
    ("--max-connections", "N", "connections", ["10", "32", "64", "128"], "Connections the client may open."),
    ("--memory-limit", "SIZE", "MiB", ["256", "512", "1024", "4096"], "Memory the operation may use on the client."),
    ("--log-level", "LEVEL", None, ["error", "warn", "info", "debug"], "How much the command logs."),
    ("--tls", "MODE", None, ["required", "preferred", "disabled"], "Whether the connection must use TLS."),
    ("--chunk-size", "SIZE", "MiB", ["4", "8", "16", "64"], "Size of each uploaded part."),
    ("--idle-timeout", "DURATION", "min", ["5", "15", "30", "60"], "When an idle session is closed."),
    ("--priority", "LEVEL", None, ["low", "normal", "high"], "Scheduling priority of the work."),
    ("--checksum", "ALGO", None, ["crc32c", "md5", "sha256"], "Checksum used to verify transfers."),
    ("--replicas", "N", "replicas", ["1", "2", "3", "5"], "Copies kept of each item."),
    ("--dry-run", None, None, ["false"], "Show what would change without changing anything."),
    ("--force", None, None, ["false"], "Skip the confirmation prompt."),
    ("--wait", None, None, ["false", "true"], "Block until the operation has finished."),
    ("--labels", "KEY=VALUE", None, ["none"], "Labels attached to the resource."),
    ("--output-file", "PATH", None, ["stdout"], "Where the result is written."),
    ("--since", "TIME", None, ["24h", "7d", "30d"], "Earliest change included."),
    ("--zone", "ZONE", None, ["a", "b", "c"], "Zone inside the region."),
    ("--quiet", None, None, ["false"], "Print nothing but errors."),
]
LIMITS = [
    ("requests per minute", "requests per minute", [60, 120, 300, 600, 1200]),
    ("size of one request", "MiB", [4, 8, 16, 32, 64]),
    ("number of labels", "labels", [16, 32, 64]),
    ("length of a name", "characters", [63, 128, 255]),
    ("number of items per call", "items", [100, 500, 1000, 5000]),
]
CONCEPTS = [
    ("install", "Install Quarry CLI", "Download the archive for your platform, unpack it and put the quarry binary on your PATH."),
    ("configure", "Configure the default project", "Quarry reads its defaults from a config file in your home directory."),
    ("authenticate", "Authenticate", "Quarry signs every request with the credentials of the active account."),
    ("profiles", "Named configurations", "A named configuration keeps a project, a region and an account together."),
    ("proxy", "Use a proxy", "Quarry sends requests through the proxy named in the HTTPS_PROXY environment variable."),
    ("output", "Output formats", "Every command can print tables, JSON or YAML; scripts should ask for JSON."),
    ("exit-codes", "Exit codes", "Quarry exits with 0 on success, 1 on a usage error and 2 when the server refused the request."),
    ("upgrade", "Upgrade Quarry CLI", "Replace the binary with the one from the newer archive; configuration files carry over."),
]


@dataclass(frozen=True)
class Question:
    text: str
    kind: str  # "scoped" | "unscoped" | "versions"


@dataclass
class Corpus:
    header: ExportHeader
    chunks: list[Chunk]
    questions: list[Question] = field(default_factory=list)
    # Questions about the versions themselves (bench/ask.py --versions), from the same facts.
    versions_questions: list[Question] = field(default_factory=list)

    def write(self, path: Path) -> Path:
        lines = [self.header.model_dump_json()] + [c.model_dump_json() for c in self.chunks]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path


def versions(n: int) -> list[str]:
    """1.0, 1.1, ... 1.9, 2.0, ...: ten minor versions per major."""
    return [f"{1 + i // 10}.{i % 10}" for i in range(n)]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _eras(values: list[str]) -> list[tuple[str, list[int]]]:
    """Runs of equal values over version indexes: [(value, [indexes]), ...]; None values are gaps."""
    runs: list[tuple[str, list[int]]] = []
    for i, value in enumerate(values):
        if value is None:
            continue
        if runs and runs[-1][0] == value and runs[-1][1][-1] == i - 1:
            runs[-1][1].append(i)
        else:
            runs.append((value, [i]))
    return runs


def _value(default: str, unit: str | None) -> str:
    return f"{default} {unit}" if unit else default


class _Builder:
    def __init__(self, names: list[str], labels: dict[str, str]):
        self.names = names
        self.labels = labels
        self.chunks: list[Chunk] = []
        self.line = 0

    def add(self, path: str, topic: str, local: str, title: str, crumbs: list[str], kind: str, text: str, kept: list[int]) -> None:
        scope = {name: (i in kept) for i, name in enumerate(self.names)}
        everyone = len(kept) == len(self.names)
        self.line += 1
        self.chunks.append(
            Chunk(
                id=f"{path}#{topic}/{local}",
                text=text,
                title=title,
                breadcrumbs=[MAP_TITLE, *crumbs],
                type=kind,
                topic_id=topic,
                source=SourceLocation(path=path, line=self.line, xpath=f"/reference[1]/refbody[1]/section[{self.line}]"),
                scope=scope,
                scope_origin="shared" if everyone else "element",
                code=[w for w in text.split() if w.startswith("--") or w == "quarry"],
                digest=_sha(text),
            )
        )


def _command(rng: random.Random, b: _Builder, noun: str, verb: str, n: int) -> list[dict]:
    """One command topic; returns the facts questions are built from."""
    versions_ = [b.labels[name] for name in b.names]
    start = 0 if rng.random() < 0.6 else rng.randrange(n)
    end = n
    if rng.random() < 0.15 and n - start > 3:
        end = rng.randrange(start + 2, n)  # removed in version index `end`
    alive = list(range(start, end))
    name = f"quarry {noun} {verb}"
    topic = f"{noun}-{verb}"
    path = f"reference/{noun}/{topic}.dita"
    title = name
    summary = VERBS[verb].format(noun=noun) + "."

    # Shared description, and a removal note in the versions after it.
    text = f"{summary} Run {name} from any directory; it uses the active project unless you pass --project."
    if start > 0:
        text += f" Added in {versions_[start]}."
    b.add(path, topic, "shortdesc", title, [title], "body", text, alive)
    if end < n:
        b.add(path, topic, "removed", f"{title} (removed)", [title, "Removed"], "section",
              f"{name} was removed in {versions_[end]}. Use quarry {noun} sync instead.", list(range(end, n)))

    # Options with their lifecycles.
    facts = []
    option_ids = rng.sample(range(len(OPTIONS)), rng.randint(5, 9))
    option_states: dict[str, list[str | None]] = {}
    for index in option_ids:
        opt, metavar, unit, defaults, what = OPTIONS[index]
        added = start if rng.random() < 0.6 else rng.randrange(start, end)
        removed = end
        deprecated = None
        if rng.random() < 0.2 and end - added > 3:
            deprecated = rng.randrange(added + 1, end - 1)
            if rng.random() < 0.6:
                removed = rng.randrange(deprecated + 1, end)
        default = rng.choice(defaults)
        changed = rng.randrange(added + 1, removed) if rng.random() < 0.35 and removed - added > 2 and len(defaults) > 1 else None
        later = rng.choice([d for d in defaults if d != default]) if changed is not None else default
        states: list[str | None] = []
        for i in range(n):
            if i < added or i >= removed:
                states.append(None)
                continue
            value = later if changed is not None and i >= changed else default
            status = "deprecated" if deprecated is not None and i >= deprecated else "current"
            states.append(f"{value}\x1f{status}")
        option_states[opt] = states
        spelled = f"{opt} {metavar}" if metavar else opt
        for era, (state, kept) in enumerate(_eras(states)):
            value, status = state.split("\x1f")
            row = f"Option | Default | Description\n{spelled} | {_value(value, unit)} | {what}"
            if status == "deprecated":
                row += f" Deprecated in {versions_[deprecated]}; it will be removed in a later version."
            if added > start and era == 0:
                row += f" Added in {versions_[added]}."
            local = f"opt-{opt.strip('-')}" + (f"~{b.names[kept[0]]}" if len(kept) < len(alive) else "")
            b.add(path, topic, local, f"Options for {name}", [title, "Options"], "table", row, kept)
            facts.append({"kind": "default", "command": name, "option": opt, "value": value, "versions": kept})
        if removed < end:
            b.add(path, topic, f"opt-{opt.strip('-')}-removed", f"Removed options of {name}", [title, "Options"],
                  "section", f"{opt} was removed from {name} in {versions_[removed]}.", list(range(removed, end)))

    # Synopsis: one variant per distinct option set.
    sets = []
    for i in range(n):
        if start <= i < end:
            present = [o for o in option_states if option_states[o][i] is not None]
            sets.append(" ".join(f"[{o}]" for o in present))
        else:
            sets.append(None)
    for options, kept in _eras(sets):
        local = "synopsis" + (f"~{b.names[kept[0]]}" if len(kept) < len(alive) else "")
        b.add(path, topic, local, "Synopsis", [title, "Synopsis"], "section", f"{name} NAME {options}".strip(), kept)

    # Steps: shared, with a version-specific variant when the command changed its confirmation.
    confirm = start + (end - start) // 2 if rng.random() < 0.3 else None
    steps_by_version = []
    for i in range(n):
        if not start <= i < end:
            steps_by_version.append(None)
        elif confirm is not None and i >= confirm:
            steps_by_version.append("token")
        else:
            steps_by_version.append("plain")
    for mode, kept in _eras(steps_by_version):
        text = f"1. Check which {noun} you are about to change.\n   quarry {noun} list --format=table\n2. Run the command.\n   {name} my-{noun}"
        if mode == "token":
            text += f" --confirm-token=$(quarry {noun} describe my-{noun} --format=value(etag))"
        text += "\n3. Confirm that the command printed the new state."
        local = "steps" + (f"~{b.names[kept[0]]}" if len(kept) < len(alive) else "")
        b.add(path, topic, local, f"{verb.capitalize()} a {noun}", [title, "Steps"], "steps", text, kept)

    # Example: shared.
    example_opt = next(iter(option_states))
    b.add(path, topic, "example", "Example", [title, "Example"], "example",
          f"The following command uses {example_opt}:\n\n{name} my-{noun} {example_opt}", alive)

    # Limits: a value that is raised in some version.
    limit, unit, values = LIMITS[rng.randrange(len(LIMITS))]
    raised = rng.randrange(start, end) if rng.random() < 0.5 and end - start > 1 else None
    first = rng.randrange(len(values) - 1)
    limit_values = [None] * n
    for i in range(start, end):
        limit_values[i] = str(values[first + 1] if raised is not None and i >= raised else values[first])
    for value, kept in _eras(limit_values):
        local = "limits" + (f"~{b.names[kept[0]]}" if len(kept) < len(alive) else "")
        b.add(path, topic, local, "Limits", [title, "Limits"], "table",
              f"Limit | Value\nMaximum {limit} for {name} | {value} {unit}", kept)
        facts.append({"kind": "limit", "command": name, "limit": limit, "value": value, "versions": kept})
    facts.append({"kind": "howto", "command": name, "noun": noun, "verb": verb, "versions": alive})
    return facts


def _concepts(b: _Builder, n: int) -> None:
    versions_ = [b.labels[name] for name in b.names]
    for topic, title, text in CONCEPTS:
        path = f"concepts/{topic}.dita"
        b.add(path, topic, "body", title, [title], "body", text, list(range(n)))
        # The commands differ by major version.
        majors = sorted({v.split()[-1].split(".")[0] for v in versions_})
        for major in majors:
            kept = [i for i, v in enumerate(versions_) if v.split()[-1].startswith(f"{major}.")]
            local = f"steps~{b.names[kept[0]]}"
            config = "~/.quarry/config.toml" if major != "1" else "~/.quarryrc"
            b.add(path, topic, local, title, [title, "Steps"], "steps",
                  f"1. Open {config}.\n2. Run quarry config set {topic} --major={major}.\n3. Check it with quarry config list.", kept)


def generate(profiles: int = 20, chunks: int = 10_000, seed: int = 7) -> Corpus:
    if profiles < 2:
        raise ValueError("the generated doc set needs at least two versions")
    rng = random.Random(seed)
    names = [f"quarry-{v}" for v in versions(profiles)]
    labels = {name: f"Quarry {v}" for name, v in zip(names, versions(profiles))}
    b = _Builder(names, labels)
    _concepts(b, profiles)
    commands = [(noun, verb) for noun in NOUNS for verb in VERBS]
    rng.shuffle(commands)
    facts: list[dict] = []
    used = 0
    while len(b.chunks) < chunks:
        if used == len(commands):  # more chunks than the vocabulary: a second product line
            commands += [(f"{noun}-v{used // len(NOUNS) // len(VERBS) + 1}", verb) for noun, verb in commands[: len(NOUNS) * len(VERBS)]]
        noun, verb = commands[used]
        used += 1
        facts += _command(rng, b, noun, verb, profiles)
    header = ExportHeader(
        map="quarry-cli.ditamap",
        attribute="product",
        profiles=[
            ProfileInfo(name=name, labels=[labels[name], labels[name].replace("Quarry", "Quarry CLI")], ditaval_digest=_sha(f"ditaval:{name}"))
            for name in names
        ],
        scheme_digest=_sha("scheme:quarry"),
        exporter_version="0.1.0",
        stylesheet_digest=_sha("bench:product_corpus"),
        counts=ExportCounts(
            chunks=len(b.chunks),
            kept_by_no_profile=0,
            per_profile={p: sum(1 for c in b.chunks if c.scope[p]) for p in names},
        ),
    )
    questions = _questions(rng, facts, labels, names)
    return Corpus(header=header, chunks=b.chunks, questions=questions, versions_questions=_versions_questions(rng, facts, labels, names))


def _questions(rng: random.Random, facts: list[dict], labels: dict[str, str], names: list[str], count: int = 200) -> list[Question]:
    """Alternating scoped and unscoped questions about facts of the doc set (a fixed sample of them)."""
    picked = rng.sample(facts, min(count, len(facts)))
    out = []
    for n, fact in enumerate(picked):
        if fact["kind"] == "default":
            body = f"What is the default value of {fact['option']} for {fact['command']}"
        elif fact["kind"] == "limit":
            body = f"What is the maximum {fact['limit']} for {fact['command']}"
        else:
            body = f"How do I {fact['verb']} a {fact['noun']} with {fact['command']}"
        if n % 2 == 0:
            version = labels[names[rng.choice(fact["versions"])]]
            out.append(Question(f"{body} in {version}?", "scoped"))
        else:
            out.append(Question(f"{body}?", "unscoped"))
    return out


def _versions_questions(rng: random.Random, facts: list[dict], labels: dict[str, str], names: list[str]) -> list[Question]:
    """Every kind of question about the versions themselves: the catalog (list, count, latest,
    oldest, a version that exists and one that does not), since / until / the same in every version
    for options of a sample of commands, and what changed in a sample of versions."""
    texts = [
        "Which versions of Quarry are documented?",
        "How many Quarry versions are there?",
        "What is the latest Quarry release?",
        "Which is the oldest Quarry version?",
        f"Does {labels[names[len(names) // 2]]} exist?",
        "Is Quarry 9.4 documented?",
    ]
    options = rng.sample([f for f in facts if f["kind"] == "default"], 6)
    for fact in options:
        texts += [
            f"Since which version does {fact['command']} have {fact['option']}?",
            f"Until which version does {fact['command']} have {fact['option']}?",
            f"Is the default of {fact['option']} for {fact['command']} the same in every version?",
        ]
    texts += [f"What changed in {labels[name]}?" for name in rng.sample(names[1:], 4)]
    return [Question(text, "versions") for text in texts]
