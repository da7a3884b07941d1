"""`scan_file`: a record's kept fields are scanned by their own rules, what the parser set
aside is scanned as text; a `key:` slug is not taken for a `key = value` assignment."""

from __future__ import annotations

from secrets_support import PATH_RULE, PATH_SECRET

from git_memory.sanitize.scan import scan_file

HEAD = ("---\nid: 01M8BYCARABCD7NFVAF7F72NSX\ntype: decision\n"
        'created: "2026-02-14T02:22:41Z"\nauthor: "A <a@example.com>"\nsource: import\n')
PATH = "entries/2026/02/14/decision-keep-docs-f7f72nsx.md"


def test_a_long_key_slug_is_not_a_secret() -> None:
    data = (HEAD + "key: decision-keep-manual-setup-docs-for-now-yagni-created-bdcompound-2\n"
            "---\nKeep manual setup docs for now.\n").encode()
    assert scan_file(PATH, data) == []


def test_a_secret_in_a_set_aside_front_matter_key_is_found() -> None:
    data = (HEAD + f"notes_for_later:\n  - {PATH_SECRET}\n---\nA plain body.\n").encode()
    found = scan_file(PATH, data)
    assert [(f.field, f.rule) for f in found] in ([("file", PATH_RULE)], [("notes_for_later[0]", PATH_RULE)])
    assert PATH_SECRET not in repr(found)


def test_a_secret_in_the_key_field_is_found() -> None:
    data = (HEAD + f"key: {PATH_SECRET}\n---\nA plain body.\n").encode()
    assert [f.rule for f in scan_file(PATH, data)] == [PATH_RULE]
