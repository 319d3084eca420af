"""The question log: one row per question asked, conversations, feedback, and what reads them.

- `store`: the seam (`QuestionStore`, `GapIssueStore`) and which store a command opens;
- `sqlite`: the embedded default, `<state>/questions.sqlite`;
- `postgres`: one database several `valid serve` processes share (`--log-url postgresql://...`);
- `query`: filters and exports for `valid log`;
- `dashboard`: the HTML report of `valid log report`.

The answer engine writes to a `QuestionStore`; nothing here imports the answer engine.
"""
