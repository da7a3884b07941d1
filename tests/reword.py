"""A deterministic rewording of a note: near-duplicate pairs for curate's tests and bench.

`reword(text, n)` returns the same note said a little differently, the way a second
person would write it down: a few words swapped for synonyms, the first sentence of the
body moved to its end, one word dropped and a short lead-in added. It never returns the
text itself (nor one equal once case and spacing are set aside), and the same input
always gives the same output. No tests here; bench/bench_stream.py plants its pairs with
it too.
"""

from __future__ import annotations

import re

SYNONYMS = {
    "use": "employ", "uses": "employs", "using": "employing", "used": "employed",
    "show": "display", "shows": "displays", "command": "instruction", "commands": "instructions",
    "file": "document", "files": "documents", "run": "execute", "runs": "executes",
    "change": "modify", "changes": "modifies", "create": "make", "creates": "makes",
    "remove": "delete", "removes": "deletes", "get": "obtain", "gets": "obtains",
    "want": "wish", "need": "require", "needs": "requires", "easy": "simple",
    "way": "method", "useful": "handy", "allows": "lets", "quickly": "fast",
    "helpful": "handy", "specific": "particular", "display": "show", "output": "result",
    "find": "locate", "check": "verify", "start": "begin", "starts": "begins",
    "value": "setting", "values": "settings", "default": "standard", "option": "flag",
    "options": "flags", "new": "fresh", "current": "present", "add": "append",
    "write": "produce", "print": "output", "see": "view", "look": "glance",
    "example": "sample", "big": "large", "small": "little", "fast": "quick",
}
LEADS = ("Note:", "Reminder:", "Worth knowing:", "Tip:")
_TOKEN = re.compile(r"[A-Za-z]+")


def reword(text: str, n: int = 0, swaps: int = 3) -> str:
    """A reworded copy of `text` (`n` picks the lead-in; the rest follows from the text)."""
    title, sep, body = text.partition(": ")
    if not sep:
        title, body = "", text
    sentences = re.split(r"(?<=[.!?]) ", body)
    if len(sentences) > 1:  # reorder: the first sentence goes last
        sentences = sentences[1:] + sentences[:1]
    body = " ".join(sentences)
    body = _swap(body, swaps)
    body = _drop_one(body)
    head = f"{title}: " if title else ""
    out = f"{LEADS[n % len(LEADS)]} {head}{body}"
    return out if _norm(out) != _norm(text) else out + " (reworded)"


def _swap(text: str, limit: int) -> str:
    done = 0

    def swap(match: re.Match) -> str:
        nonlocal done
        word = match.group(0)
        other = SYNONYMS.get(word.lower())
        if other is None or done >= limit:
            return word
        done += 1
        return other.capitalize() if word[0].isupper() else other

    return _TOKEN.sub(swap, text)


def _drop_one(text: str) -> str:
    """Drop the first word of six letters or more that is not a synonym just put in."""
    words = text.split(" ")
    kept = set(SYNONYMS.values())
    for number, word in enumerate(words):
        if len(word) >= 6 and word.isalpha() and word.lower() not in kept:
            return " ".join(words[:number] + words[number + 1:])
    return text


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!?")
