"""WordLlama's byte-fallback BPE in pure Python: read from its JSON once into the index's
`sem_vocab` table (`vocab_rows`), applied to a text from only the rows it needs (`tokenize`).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Callable


TOKENIZER = ("tokenizers", "l2_supercat_tokenizer_config.json")
SPACE = "\u2581"  # what the tokenizer writes for a space (and before the text)
BYTE0 = 3  # id of <0x00>: a character the vocabulary lacks is spelt as its UTF-8 bytes

Vocab = dict[str, tuple[int, int]]  # token -> (id, merge rank)

# Byte-pair merging is quadratic in a chunk's length (one merge per round, each round a
# walk over the chunk): one 999,000-letter "word" held recall for minutes. No real word
# is longer than MAX_WORD characters, nor real indentation wider than MAX_SPACES, so a
# text is cut to those (`bounded`) before either tokenizer sees it, this one and the
# bulk one alike, and both still give the same ids.
MAX_WORD = 64
MAX_SPACES = 16
_LONG_WORD = re.compile("[^ ]{%d}(?=[^ ])" % MAX_WORD)
_LONG_SPACES = re.compile(" {%d,}" % (MAX_SPACES + 1))


def bounded(text: str, max_tokens: int) -> str:
    """`text` with every run of more than MAX_WORD non-spaces split by a space, every run
    of spaces cut to MAX_SPACES, and the rest dropped after the first `max_tokens` chunks'
    worth of characters: each chunk then gives at least one token and holds at most
    MAX_SPACES + MAX_WORD + 1 characters, so the first `max_tokens` ids are the same as
    the whole text's. Linear in the text (two regular expressions in C), and the
    tokenizing after it bounded."""
    room = max_tokens * (MAX_SPACES + MAX_WORD + 1)
    if " " * (MAX_SPACES + 1) in text:
        text = _LONG_SPACES.sub(" " * MAX_SPACES, text)
    return _LONG_WORD.sub(r"\g<0> ", text)[:room]


def chunks(text: str) -> list[str]:
    """The text as the tokenizer sees it, cut where no token can span.

    It prepends SPACE and writes every space as SPACE; no token of the vocabulary
    holds SPACE after another character, so each run of SPACE plus the characters
    up to the next SPACE is tokenized on its own.
    """
    out: list[str] = []
    start = 0
    norm = SPACE + text.replace(" ", SPACE)
    for i in range(1, len(norm)):
        if norm[i] == SPACE and norm[i - 1] != SPACE:
            out.append(norm[start:i])
            start = i
    out.append(norm[start:])
    return out


def tokenize(text: str, lookup: Callable[[set[str]], Vocab]) -> list[int]:
    """Token ids of `text` (no <s>), as the model's tokenizer gives them.

    Byte-pair merges, lowest rank first and leftmost among equals, on each distinct
    chunk; `lookup` returns the vocabulary entries among the strings asked (a dict, or
    the `sem_vocab` table for just those rows, asked once per round of merges).
    Checked against the real tokenizer on 4,900 texts (docs/recall.md): the same ids,
    except for the literal markers `<s>` and `</s>`, which it reads as special tokens.
    """
    if not text:
        return []
    parts = chunks(text)
    words = {chunk: list(chunk) for chunk in parts}
    known: Vocab = lookup({c for chunk in words for c in chunk})
    active = [w for w in words.values() if len(w) > 1]
    while active:
        wanted = {w[i] + w[i + 1] for w in active for i in range(len(w) - 1)} - known.keys()
        if wanted:
            known.update(lookup(wanted))
        still = []
        for word in active:
            best = -1
            rank = 0
            for i in range(len(word) - 1):
                entry = known.get(word[i] + word[i + 1])
                if entry is not None and (best < 0 or entry[1] < rank):
                    best, rank = i, entry[1]
            if best >= 0:
                word[best : best + 2] = [word[best] + word[best + 1]]
                if len(word) > 1:
                    still.append(word)
        active = still
    spelt: dict[str, list[int]] = {}
    for chunk, word in words.items():
        ids = spelt[chunk] = []
        for piece in word:
            entry = known.get(piece)
            if entry is not None:
                ids.append(entry[0])
            else:
                ids.extend(BYTE0 + b for b in piece.encode("utf-8"))
    return [tid for chunk in parts for tid in spelt[chunk]]


def table_lookup(conn: sqlite3.Connection) -> Callable[[set[str]], Vocab]:
    """A lookup reading only the asked tokens' rows of `sem_vocab`."""

    def lookup(strings: set[str]) -> Vocab:
        if not strings:
            return {}
        rows = conn.execute(
            "SELECT token, id, rank FROM sem_vocab WHERE token IN (SELECT value FROM json_each(?))",
            (json.dumps(list(strings)),),
        )
        return {token: (tid, rank) for token, tid, rank in rows}

    return lookup


# The table by the JSON's path, size and modification time: a process that makes several
# indexes (the MCP server, the test suite's fork server) reads the tokenizer once.
_READ: dict[tuple[str, int, int], list[tuple[str, int, int]]] = {}


def vocab_rows(folder: str) -> list[tuple[str, int, int]]:
    """(token, id, merge rank) from the tokenizer's JSON: a token's rank is its first merge's.
    Read once per process and size and modification time of the file."""
    path = os.path.join(folder, *TOKENIZER)
    stat = os.stat(path)
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key not in _READ:
        _READ[key] = _read_vocab(path)
    return _READ[key]


def _read_vocab(path: str) -> list[tuple[str, int, int]]:
    with open(path, encoding="utf-8") as handle:
        model = json.load(handle)["model"]
    rank: dict[str, int] = {}
    for number, merge in enumerate(model["merges"]):
        pair = merge.split(" ") if isinstance(merge, str) else merge
        rank.setdefault(pair[0] + pair[1], number)
    never = len(model["merges"])
    return [(token, tid, rank.get(token, never)) for token, tid in model["vocab"].items()]
