"""The fold's results written into the index: after rows go in or out, `refold` folds the
curation records and the entries they name, applies the plain confidence rule to the rest
(only where it can have changed) and seals redactions (text, words and vector leave).
"""

from __future__ import annotations

import json
import sqlite3

from git_memory.fold import EntryState, decay_windows, fold, plain_confidence
from git_memory.index.build.update import row_to_record
from git_memory.index.schema import REDACTED_TEXT, rows_in
from git_memory.index.rank.semantic import forget
from git_memory.model import Record


def refold(conn: sqlite3.Connection) -> None:
    """Recompute the state of every entry that curation touches (or touched before)."""
    _rule(conn)
    curation = [
        row_to_record(r)
        for r in conn.execute("SELECT * FROM records WHERE curation = 1")
    ]
    # A redacted curation record (its reason held a secret, say) no longer applies:
    # redact hides a record everywhere, whatever its kind.
    hidden = {str(r.fields.get("target")) for r in curation if r.kind == "redact"}
    curation = [r for r in curation if r.kind == "entry" or r.id not in hidden]
    wanted: set[str] = set()
    for record in curation:
        wanted.add(record.id)
        for name in ("target", "supersedes", "merged_from", "by"):
            value = record.fields.get(name)
            if isinstance(value, list):
                wanted.update(str(v) for v in value)
            elif value:
                wanted.add(str(value))
    previously = {r[0] for r in conn.execute("SELECT id FROM records WHERE state IS NOT NULL")}
    entries: dict[str, Record] = {row["id"]: row_to_record(row) for row in rows_in(
        conn, "SELECT * FROM records WHERE kind = 'entry' AND id IN ({})", sorted(wanted | previously))}
    # The clock confidence decays against is the newest record, not the wall
    # clock: two clones holding the same records store the same numbers.
    now = newest_created(conn)
    result = fold(entries, [r for r in curation if r.kind != "entry" or r.id in entries], now)
    conn.execute(  # entries curation no longer touches fall back to the plain rule
        f"UPDATE records SET status = 'active', state = NULL, confidence = {RULE}"
        " WHERE state IS NOT NULL",
        (now,),
    )
    _plain_confidence(conn, now)
    for eid, state in result.states.items():
        conn.execute(
            "UPDATE records SET status = ?, confidence = ?, state = ? WHERE id = ? AND kind = 'entry'",
            (state.status, state.confidence, json.dumps(state.__dict__), eid),
        )
    _seal_redactions(conn)
    conn.execute("DELETE FROM meta WHERE k = 'fold_problems'")
    conn.execute(
        "INSERT INTO meta(k, v) VALUES ('fold_problems', ?)", (json.dumps(result.problems),)
    )


RULE = "plain_confidence(source, created, ?)"  # fold.plain_confidence, as _rule registers it


def _rule(conn: sqlite3.Connection) -> None:
    """The fold's own rule for the rows no curation touches, as an SQL function: one
    implementation of the confidence and its decay, called by SQLite for each row it
    visits (a pass after a catch-up visits only the few rows that can have changed)."""
    try:  # once per connection: SQLite refuses to define it again while a statement is open
        conn.execute("SELECT plain_confidence(NULL, NULL, '')")
    except sqlite3.OperationalError:
        conn.create_function("plain_confidence", 3, plain_confidence, deterministic=True)


def _plain_confidence(conn: sqlite3.Connection, now: str) -> None:
    """Apply the confidence rule to entries no curation touched (source and decay).

    A full pass reads every row, so after the first one only rows that can have
    changed are visited: rows inserted since (rowid above the last pass) and rows
    whose age crossed a decay boundary between the previous `now` and this one
    (created in (prev - k*period, now - k*period] for each k that still costs).
    Only rows whose value changed are written.
    """
    _rule(conn)
    rule = RULE
    meta = dict(conn.execute(
        "SELECT k, v FROM meta WHERE k IN ('decay_now', 'decay_rowid')").fetchall())
    prev, last_rowid = meta.get("decay_now"), meta.get("decay_rowid")
    windows = decay_windows(prev, now) if prev and last_rowid and prev <= now else None
    where, params = "1", []
    if windows is not None:
        spans = " OR ".join(["(created > ? AND created <= ?)"] * len(windows))
        where = f"(rowid > ? OR {spans})"
        params = [int(last_rowid or 0), *(stamp for window in windows for stamp in window)]
    conn.execute(
        f"UPDATE records SET confidence = {rule}"
        f" WHERE kind = 'entry' AND {where} AND confidence != {rule}",
        [now, *params, now],
    )
    mark_decayed(conn, now)


def newest_created(conn: sqlite3.Connection) -> str:
    """The largest dated `created`: the fold's clock (see refold)."""
    return str(conn.execute(
        "SELECT max(created) FROM records WHERE created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-*'"
    ).fetchone()[0] or "")


def mark_decayed(conn: sqlite3.Connection, now: str) -> None:
    """Every row's confidence holds at `now`: the next pass starts from here."""
    top = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0
    conn.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)",
                     [("decay_now", now), ("decay_rowid", str(top))])


def _seal_redactions(conn: sqlite3.Connection) -> None:
    """Keep redacted text out of the index, and remember its hash.

    A redact record keeps the hash of the text it hid, so the writer still refuses
    that text after `purge` removed the entry from history. The index never serves
    a redacted entry's text whatever the filters (`list --all`, export, search see
    only its id and status); a rebuild redoes this from the blobs.
    """
    conn.execute(
        "UPDATE records SET status = 'redacted', hash = json_extract(fields, '$.content_hash')"
        " WHERE curation = 1 AND kind = 'redact'"
        " AND json_extract(fields, '$.content_hash') IS NOT NULL"
    )
    # The same text under another entry (an old blob merged back by a stale clone,
    # a copy under another id) is hidden too: the redact record keeps its hash.
    conn.execute(
        "UPDATE records SET status = 'redacted', state = ? WHERE kind = 'entry'"
        " AND status != 'redacted' AND hash IN (SELECT hash FROM records"
        " WHERE kind = 'redact' AND curation = 1 AND hash IS NOT NULL)",
        (json.dumps(EntryState(status="redacted", redacted=True).__dict__),),
    )
    conn.execute(
        "DELETE FROM fts WHERE rowid IN (SELECT rowid FROM records"
        " WHERE state IS NOT NULL AND status = 'redacted' AND kind = 'entry')"
    )
    sealed = "SELECT rowid FROM records WHERE state IS NOT NULL AND status = 'redacted' AND kind = 'entry'"
    embedded = [text for (text,) in conn.execute(
        f"SELECT content FROM records WHERE rowid IN ({sealed}) AND rowid IN (SELECT rowid FROM vectors)"
    )]
    if embedded:  # nothing of a redacted text stays, not even its words in the semantic DF
        forget(conn, embedded)
    conn.execute(f"DELETE FROM vectors WHERE rowid IN ({sealed})")
    conn.execute(
        f"UPDATE records SET content = '{REDACTED_TEXT}', fields = '{{}}', origin = '{{}}',"
        " tags = '[]'"
        " WHERE state IS NOT NULL AND status = 'redacted' AND kind = 'entry'"
    )
    conn.execute(  # a redacted curation record keeps its id and kind, not its words
        "UPDATE records SET fields = '{}', status = 'redacted', curation = 0"
        " WHERE kind NOT IN ('entry', 'redact') AND id IN (SELECT json_extract(fields,"
        " '$.target') FROM records WHERE kind = 'redact')"
    )

