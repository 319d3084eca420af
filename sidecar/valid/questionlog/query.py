"""Reading the question log: filter its entries and export them (pure functions over
`QuestionLog.entries()` records; `valid log` is the command line over them)."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Any, Iterable, Sequence

# The columns of a CSV export, in order (lists are joined with "|").
COLUMNS = [
    "id", "asked_at", "question", "typed", "outcome", "scope", "matched", "release_id", "degraded", "generator",
    "model", "calls", "tokens_in", "tokens_out", "cost_usd", "latency_ms", "refusal", "gap_issues",
    "conversation_id", "turn", "answer_id", "rating", "reasons", "comment",
]


@dataclass(frozen=True)
class LogFilter:
    """Every field narrows; None (or empty) does not."""

    since: str | None = None  # ISO time, inclusive
    until: str | None = None  # ISO time, exclusive
    outcomes: tuple[str, ...] = ()
    generations: tuple[str, ...] = ()  # an entry matches when its scope holds any of them
    feedback: str | None = None  # up | down | any | none
    reasons: tuple[str, ...] = ()  # an entry matches when its feedback gives any of them
    min_cost: float | None = None
    max_cost: float | None = None
    limit: int | None = None  # the most recent N after filtering

    def keeps(self, entry: dict[str, Any]) -> bool:
        if self.since and entry["asked_at"] < self.since:
            return False
        if self.until and entry["asked_at"] >= self.until:
            return False
        if self.outcomes and entry["outcome"] not in self.outcomes:
            return False
        if self.generations and not set(self.generations) & set(entry["scope"]):
            return False
        rating = entry.get("rating")
        if self.feedback == "none" and rating is not None:
            return False
        if self.feedback == "any" and rating is None:
            return False
        if self.feedback in ("up", "down") and rating != self.feedback:
            return False
        if self.reasons and not set(self.reasons) & set(entry.get("reasons") or []):
            return False
        if self.min_cost is not None and entry["cost_usd"] < self.min_cost:
            return False
        if self.max_cost is not None and entry["cost_usd"] > self.max_cost:
            return False
        return True


def select(entries: Iterable[dict[str, Any]], where: LogFilter) -> list[dict[str, Any]]:
    kept = [e for e in entries if where.keeps(e)]
    return kept[-where.limit:] if where.limit else kept


def parse_time(text: str, *, end: bool = False) -> str:
    """An ISO date or date-time as the log's ISO UTC string; a bare date means its start (or, for
    `end`, the start of the next day, so --until 2026-12-01 includes that day)."""
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            moment = datetime.combine(day + timedelta(days=1) if end else day, time(), timezone.utc)
        else:
            moment = datetime.fromisoformat(text)
            moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    except ValueError:
        raise ValueError(f"not an ISO date or time: {text!r} (use 2026-12-01 or 2026-12-01T08:00)") from None
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP, CSV injection);
# a leading single quote makes it text in Excel, LibreOffice and Google Sheets.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    if isinstance(value, list):
        value = "|".join(str(v) for v in value)
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value  # numbers stay numbers, negative ones included


def to_csv(entries: Sequence[dict[str, Any]]) -> str:
    """RFC 4180 CSV: CRLF line ends, so a cell holding a CR or LF is quoted and stays one cell."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for entry in entries:
        writer.writerow([_cell(entry.get(c)) for c in COLUMNS])
    return out.getvalue()


def to_json(entries: Sequence[dict[str, Any]]) -> str:
    return json.dumps([{c: entry.get(c) for c in COLUMNS} for entry in entries], ensure_ascii=False, indent=1) + "\n"


# Terminal control sequences (ECMA-48), in 7-bit (ESC ...) and 8-bit (C1) form: CSI (colours,
# cursor moves, clears), OSC (titles, hyperlinks) and DCS/SOS/PM/APC strings up to their terminator
# (or the end of the text), then any other escape, then every control character left (C0, DEL, C1).
_TERMINAL_CONTROLS = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


def plain(text: str) -> str:
    """`text` as one line a terminal shows as written: control sequences removed, whitespace runs
    (line breaks and tabs included) made one space. Readers' questions are untrusted input."""
    return " ".join(_TERMINAL_CONTROLS.sub("", text).split())


def to_table(entries: Sequence[dict[str, Any]]) -> str:
    """One line per question: time, outcome, scope, feedback, cost, latency, question."""
    lines = []
    for e in entries:
        rating = {"up": "+", "down": "-"}.get(e.get("rating") or "", " ")
        scope = plain(",".join(e["scope"])) or "-"
        question = plain(e.get("typed") or e["question"])
        lines.append(
            f"{e['asked_at'][:19]}  {e['outcome']:<6} {scope:<14} {rating} ${e['cost_usd']:.6f} "
            f"{e['latency_ms']:>8.1f} ms  {question[:80]}"
        )
    return "\n".join(lines) + ("\n" if lines else "")
