"""Secret detectors: every rule catches its fake token, ordinary text passes.

Tokens are assembled here at run time from a seeded generator and harmless prefixes;
none is stored whole. Also: boundaries a glued `_` or a letter from another script
cannot defeat, placeholders that pass, the syntaxes of the context rules, and the
commit-msg shim's grep, run for real.
"""

from __future__ import annotations

import functools
import re
import string
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_memory.errors import SecretFound
from git_memory.githooks.install import render
from git_memory.sanitize.pipeline import clean
from git_memory.sanitize.scan import rule_of as secret_rule
from git_memory.sanitize.secrets import (
    DETECTORS, SHIM_HINTS, describe, find_secret, redact_secrets, rules, scan,
)
from secrets_support import AN, D, FAKES, HEX, LN, US, g

# Only a text that is nothing but the token: it cannot sit in prose.
LONE = g(LN, 32)


def test_every_rule_has_a_fake_and_a_description() -> None:
    assert len(rules()) >= 90
    assert sorted([*FAKES, "lone-random-token"]) == sorted(rules())
    assert all(d.description for d in DETECTORS)
    assert {row[0] for row in describe()} == set(rules())


@pytest.mark.parametrize("rule", sorted(FAKES))
def test_each_detector_catches_its_token_in_prose(rule: str) -> None:
    text = f"LEARNED: the setting is {FAKES[rule]} in production."
    assert find_secret(text) == rule
    with pytest.raises(SecretFound) as caught:
        clean(text)
    assert rule in str(caught.value) and FAKES[rule] not in str(caught.value)


def test_a_lone_random_token_is_refused() -> None:
    assert find_secret(LONE) == "lone-random-token"
    assert find_secret(f'  "{LONE}"\n') == "lone-random-token"
    assert redact_secrets(LONE) == ("[REDACTED:lone-random-token]", ["lone-random-token"])


@pytest.mark.parametrize("text", [
    "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f fixed it",
    "uuid 123e4567-e89b-12d3-a456-426614174000 is the tenant",
    "connect with postgres://user:password@localhost/db in the docs",
    "use https://$USER:${TOKEN}@example.com/repo.git from CI",
    "the AKIA prefix marks AWS access keys; sk-ant- marks Anthropic keys",
    "ghp_ tokens are classic GitHub tokens; gho_ are OAuth ones",
    "-----BEGIN PUBLIC KEY----- is fine to share",
    "eyJ alone is just base64 for '{\"'",
    "task-1234567890 and sk_test_ mentioned without a key",
    "the password must be at least 12 characters; rotate the token monthly",
    "Password: use the vault, never a file",
    "api_key = os.environ['API_KEY']",
    "token = get_token(user)",
    "password_length = 16",
    "ssh_key_url: https://github.com/dev1.keys",
    "the key insight: caches beat recomputation",
    "git-memory/index-refactor-2024",
    "see docs/architecture.md for the layers",
])
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert find_secret(text) is None


@pytest.mark.parametrize("value", [
    "xxxxxxxxxxxxxxxxxxxx", "XXXX-XXXX-XXXX", "EXAMPLE", "<token>", "<your-api-key>",
    "${API_TOKEN}", "$API_TOKEN", "%API_TOKEN%", "{{ secrets.token }}", "changeme",
    "********", "your_api_key_here", "REDACTED", "[REDACTED:github-token]",
])
def test_placeholders_in_a_secret_slot_pass(value: str) -> None:
    for template in ('password = "{v}"', "api_key: {v}", '{{"token": "{v}"}}', "TOKEN={v}",
                     "--password {v}", "postgres://app:{v}@db/app"):
        text = template.format(v=value)
        assert find_secret(text) is None, text


@pytest.mark.parametrize("token", [
    "gh" + "p_" + "x" * 36, "AKIA" + "IOSFODNN7" + "EXAMPLE", "sk" + "_live_" + "*" * 24,
    "gl" + "pat-" + "X" * 20, "xo" + "xb-" + "x" * 11 + "-" + "x" * 24,
])
def test_documented_and_stand_in_tokens_pass(token: str) -> None:
    assert find_secret(f"LEARNED: the docs show {token} as the format") is None


@pytest.mark.parametrize("text", [
    'password = "{s}"', "password: {s}", 'DB_PASSWORD="{s}"', "export API_KEY={s}",
    '{{"client_secret": "{s}"}}', "  db_pass: {s}", "secret_key => '{s}'", "apiKey := \"{s}\"",
    '<add key="ClearTextPassword" value="{s}" />', "mysql --password {s} -h db",
    "tool login --token={s}", "curl -u admin:{s} https://api.internal",
    "Authorization: Bearer {s}", "redis://:{s}@cache:6379/0", "amqp://app:{s}@mq/vhost",
    "if (api_key != \"{s}\") {{", "hubspotKey = \"{s}\"",
])
def test_context_rules_catch_a_secret_in_any_syntax(text: str) -> None:
    secret = "Zq8" + g(AN, 17, "ctx")
    filled = text.format(s=secret)
    assert find_secret(filled), filled
    redacted, fired = redact_secrets(filled)
    assert secret not in redacted and fired


@pytest.mark.parametrize("rule", ["github-token", "aws-access-key-id", "stripe-key",
                                  "slack-token", "openai-api-key", "npm-token"])
def test_a_glued_underscore_or_another_script_does_not_hide_a_token(rule: str) -> None:
    token = FAKES[rule]
    for around in ("TOKEN_{t}", "{t}_old", "ключ{t}", "{t}ы", "κλειδί{t}κ", "x_{t}_y", "«{t}»"):
        text = "LEARNED: " + around.format(t=token)
        assert find_secret(text) == rule, text
        assert token not in redact_secrets(text)[0]


def test_a_letter_glued_before_a_prefix_is_another_word() -> None:
    """ASCII letters glued on still end the match, so words that hold a prefix pass."""
    assert find_secret('amazon.de#@#div[data-cel-widget="desktop-rhf_SponsoredProductsRemote'
                       'RHFSearchEXPSubsK2ClickPagination"]') is None
    assert find_secret("video_box.ico-7a388b69018576d24b59331fd60aab0c.png") is None


def test_invisible_characters_and_full_width_letters_do_not_hide_a_key() -> None:
    key = FAKES["aws-access-key-id"]
    assert secret_rule(key[:4] + "\u200b\u2066" + key[4:]) == "aws-access-key-id"
    wide = "".join(chr(ord(c) + 0xFEE0) for c in key)  # full-width forms fold under NFKC
    assert secret_rule(wide) == "aws-access-key-id"


def test_scan_gives_rule_and_span_of_each_value() -> None:
    text = f"a {FAKES['github-token']} and {FAKES['credentials-in-url']} end"
    found = scan(text)
    assert [f.rule for f in found] == ["github-token", "credentials-in-url"]
    assert text[found[0].start:found[0].end] == FAKES["github-token"]
    password = FAKES["credentials-in-url"].split(":")[2].split("@")[0]
    assert text[found[1].start:found[1].end] == password


def test_a_private_key_with_an_empty_body_is_a_docs_example() -> None:
    begin, end = "-----BEGIN " + "PRIVATE KEY-----", "-----END " + "PRIVATE KEY-----"
    assert find_secret(f"{begin}\n{end}") is None
    assert find_secret(f"{begin}\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n{end}") == "private-key-block"


@functools.lru_cache(maxsize=1)
def _hints() -> str:
    shim = render("commit-msg")
    match = re.search(r"secrets='((?:[^']|'\\'')+)'\n", shim)
    assert match
    return match.group(1).replace("'\\''", "'")  # the shell's quoting of a quote


def _grep(hints: str, message: str, tmp_path: Path) -> bool:
    path = tmp_path / "msg"
    path.write_text(message)
    result = subprocess.run(["grep", "-qE", hints, str(path)], env={"LC_ALL": "C"})
    assert result.returncode in (0, 1)
    return result.returncode == 0


@pytest.mark.parametrize("rule", sorted(FAKES))
def test_the_commit_msg_shim_prefilter_sees_every_detector(rule: str, tmp_path: Path) -> None:
    """The shim skips Python for ASCII messages its grep does not match: it must match
    wherever a detector does, or a secret would slip through commit-msg."""
    hints = _hints()
    assert hints == SHIM_HINTS
    assert _grep(hints, f"LEARNED: the setting is {FAKES[rule]} in production.\n", tmp_path)


def test_the_shim_prefilter_sees_a_lone_token_and_the_context_syntaxes(tmp_path: Path) -> None:
    hints = _hints()
    assert _grep(hints, f"Work\n\nLEARNED: {LONE}\n", tmp_path)
    assert _grep(hints, f"Work\n\nLEARNED:\n  {LONE}\n", tmp_path)
    for text in ('password = "Zq8abcdefgh1"', "db_pass: Zq8abc1", "--token=Zq8abcdef1",
                 "curl -u admin:Zq8abc1 x", "x = \"Zq8abcd1\" == password",
                 'SONAR.LOGIN ::= "Zq8abcdefgh1"', 'secrete "ab cdefghijkl"', "pw => 'x y'",
                 "sourcegraph:\t" + g(AN, 30)):
        assert _grep(hints, f"LEARNED: {text}\n", tmp_path), text


@pytest.mark.parametrize("message", [
    "LEARNED: a task-based queue is fine for plain prose.\n",
    "Parser work 7\n\nLEARNED: parser run 7 needs a warm cache\n"
    "DECISION: keep the run 7 cache in memory\nFact: run 7 took 3 passes\n",
    "Fix the index\n\nFAILURE: the rebuild ran twice when the lock was stale\n",
    "LEARNED: ordering by created_at needs an index on (repo, created_at)\n",
    "Auth work\n\nLEARNED: the token: is read from the keyring on each run\n",
    "LEARNED: the slack and github integrations share one key store\n",
    "LEARNED: set auth_mode=oauth for run 7, the keyring does the rest\n",
    "DECISION: CI reads token=${CI_TOKEN} on run 7, never a file\n",
    "LEARNED: Key-like names and keyword-only arguments are fine\n",
    "LEARNED: import --redact-secrets keeps the entry\n",
    "LEARNED: the Authorization header is set by the proxy\n",
    "Cache work 7\n\nLEARNED: set api_key_ttl=3600 for run 7 in staging\n",
    "LEARNED: max_tokens: 4096 is the model's cap; token_limit=100000 (the window)\n",
    "LEARNED: retry with auth_timeout=30) and key_size = 2048;\n",
])
def test_the_shim_prefilter_lets_ordinary_messages_skip_python(message: str,
                                                               tmp_path: Path) -> None:
    """A message with no hint never starts Python (the hook's cost stays flat)."""
    assert find_secret(message) is None
    assert not _grep(_hints(), message, tmp_path)


_KEYWORDS = ("pass", "password", "pwd", "pw", "secret", "private_key", "credential", "token",
             "key", "api_key", "auth", "auth_code", "login", "bearer", "client_secret")


@settings(max_examples=12, deadline=None)
@given(cases=st.lists(st.tuples(
    st.from_regex(r"[a-z_]{0,6}", fullmatch=True), st.sampled_from(_KEYWORDS),
    st.from_regex(r"[A-Za-z0-9_]{0,8}", fullmatch=True),
    st.sampled_from(["=", ": ", " = ", ":=", "=>", "?=", "::=", "->", " == "]),
    st.sampled_from(["", "'", '"', "@"]),
    st.from_regex(r"[0-9]{1,3}|[0-9]{6,40}", fullmatch=True),
    st.sampled_from(["", " ", ";", ")", "}", "]", '"', "'", "s", ".5", ",", "x9Q"]),
), min_size=50, max_size=50))
def test_the_shim_hints_every_number_the_scanner_refuses(cases: list[tuple[str, ...]],
                                                        tmp_path_factory: pytest.TempPathFactory
                                                        ) -> None:
    """Numbers under secret-like names, the one place the grep is narrower than the
    keywords: whatever the scanner refuses there, the grep still hints at (a real grep
    over every case), and a token-like name with digits alone starts no Python."""
    folder = tmp_path_factory.mktemp("numbers")
    texts = [f"Work\n\nLEARNED: set {a}{kw}{b}{op}{q}{digits}{end} for run 7\n"
             for a, kw, b, op, q, digits, end in cases]
    refused = [t for t in texts if find_secret(t)]
    for number, text in enumerate(refused):
        (folder / f"{number}.msg").write_text(text)
    if refused:
        result = subprocess.run(["grep", "-LE", _hints(), *map(str, sorted(folder.iterdir()))],
                                env={"LC_ALL": "C"}, capture_output=True, text=True)
        assert result.returncode in (0, 1) and not result.stdout.split(), result.stdout


def test_the_shim_still_hints_a_number_under_a_password_like_name(tmp_path: Path) -> None:
    for text in ("db_pass=83920175", "password: 839201", "secret = 83920175839;",
                 "api_key=3600s2Qx9LpZ7", "token=12345678901234567890abcdefXYZ"):
        assert find_secret(text) is not None, text
        assert _grep(_hints(), f"LEARNED: set {text} for run 7\n", tmp_path), text


# --- issue #11 tuning: near misses judged by principle ------------------------------

def test_google_keys_published_in_googles_own_apps_pass_but_a_changed_one_is_refused() -> None:
    from git_memory.sanitize.secrets_allow import _PUBLISHED_KEYS

    assert len(_PUBLISHED_KEYS) == 15
    for key in _PUBLISHED_KEYS:
        assert find_secret(key) is None
        assert find_secret(f"maps: apiKey = {key}") is None
        changed = key[:-1] + ("A" if key[-1] != "A" else "B")
        assert find_secret(changed) == "google-api-key"


def test_a_bare_commit_sha_passes_a_bare_64_hex_key_does_not() -> None:
    sha = g(HEX, 40, "sha")
    assert find_secret(sha) is None
    assert find_secret(sha.upper()) is None
    assert find_secret(g(HEX, 64, "k")) == "lone-random-token"
    assert find_secret(g(AN, 40, "tok")) == "lone-random-token"  # not hex: still refused


def test_a_lone_malformed_openai_project_key_is_left_to_the_openai_rule() -> None:
    # OpenAI's marker is T3BlbkFJ: with T4 the openai rule rightly passes it, and the
    # lone-token rule must not refuse it instead.
    near = "sk-proj-" + g(AN, 18, "a") + "T4BlbkFJ" + g(AN, 20, "b")
    assert find_secret(near) is None
    assert find_secret(near.replace("T4Blbk", "T3Blbk")) == "openai-api-key"


@pytest.mark.parametrize("value", [
    "xoxp-" + "1" * 4 + g(D, 6, "x"),  # too short for any Slack format
    "dapi" + g(HEX, 20, "d") + "g5",  # Databricks' prefix, a letter past f
])
def test_an_assigned_value_with_a_providers_prefix_is_judged_by_that_provider(value: str) -> None:
    assert find_secret(f'"token1": "{value}"') is None
    assert find_secret(f"TOKEN={value}") is None


def test_a_slack_bot_token_with_a_long_tail_is_caught() -> None:
    token = "xoxb-" + g(D, 12, "a") + "-" + g(D, 13, "b") + "-" + g(AN, 27, "c")
    assert find_secret(f'"bot_token": "{token}"') == "slack-token"


def test_the_fast_weak_gates_match_where_the_rules_gates_do() -> None:
    from git_memory.sanitize import secrets as s

    assert {s.PROVIDER_RULES[i].rule for i in s._WEAK} == set(s._WEAK_FAST)
    slow = re.compile("|".join(f"(?:{s.PROVIDER_RULES[i].gate})" for i in sorted(s._WEAK)))
    samples = [
        "m" + g(US, 24, "d").lower() + "." + g(US, 6, "e").lower() + "." + g(US, 27, "f").lower(),
        "a" + g(US, 22, "d").lower() + "." + g(US, 6, "e").lower() + ".",  # one short
        g("abcdefgh0123", 32, "m") + "-" + g("abcdefgh0123", 8, "n") + "-x",
        g(HEX, 31, "m") + "-" + g(HEX, 8, "n") + "-x",
        g(D, 15, "f") + "|" + g(AN, 20, "g").lower(), g(D, 14, "f") + "|abc",
        g(D, 15, "t") + "-" + g(LN, 20, "u"), g(D, 15, "t") + "-" + g(LN, 19, "u"),
        "a plain sentence - with a dash. and a dot | and a bar",
    ]
    for text in samples:
        assert bool(slow.search(text)) == bool(s._ANY_WEAK.search(text)), text
    assert sum(bool(slow.search(t)) for t in samples) == 4


def test_a_key_value_under_ten_characters_is_a_sample_not_a_key() -> None:
    assert find_secret("SUMO_ACCESS_KEY: " + g(AN, 9, "s")) is None
    assert find_secret("SUMO_ACCESS_KEY: " + g(AN, 12, "s")) == "secret-assignment"
    assert find_secret("password: " + g(AN, 6, "p") + "1") == "secret-assignment"  # passwords: 4+


def test_a_slug_of_words_is_not_a_lone_token() -> None:
    """Lavra keys are slugs of the entry's words; one long word must not make them a token."""
    for slug in ("learned-utc-normalization-was-already-applied-in-v0-1-5-src-syslog",
                 "investigation-fastmcp-3-x-exposes-mcp-http-app-as-a-clean-public-method"):
        assert find_secret(slug) is None, slug
    assert find_secret("Xq7" + "vK2Lp9" * 4 + "Zw") == "lone-random-token"


# --- the hook's cost: a short message compiles little ----------------------------------

def test_every_ascii_corpus_text_the_scanner_refuses_is_hinted_by_the_shim(
        tmp_path: Path) -> None:
    """The shim's grep must match wherever the scanner fires (else a secret skips
    Python): every refused ASCII text of the fake-secrets corpus and the til notes, each
    as a marker, through one real grep."""
    import json

    data = Path(__file__).resolve().parent / "data"
    texts = [json.loads(line)["text"] for line in
             (data / "secrets" / "corpus.jsonl").open(encoding="utf-8")]
    for line in (data / "til-jbranchaud" / "notes.jsonl").open(encoding="utf-8"):
        note = json.loads(line)
        texts += [note["body"], *note["body"].split("\n")]
    refused = [t for t in texts if t.isascii() and find_secret(t)]
    assert len(refused) >= 760
    files = []
    for number, text in enumerate(refused):
        path = tmp_path / f"{number}.msg"
        path.write_text(f"Work\n\nLEARNED: {text}\n")
        files.append(str(path))
    result = subprocess.run(["grep", "-LE", _hints(), *files], env={"LC_ALL": "C"},
                            capture_output=True, text=True)
    unhinted = [refused[int(Path(f).stem)][:60] for f in result.stdout.split()]
    assert result.returncode in (0, 1) and not unhinted, unhinted


def test_short_texts_find_provider_literals_without_the_trie_and_both_ways_agree() -> None:
    from git_memory.sanitize import secrets as s

    texts = [f"LEARNED: the setting is {fake} in production." for fake in FAKES.values()]
    texts += ["keep the run 1 cache in memory", "a-very-long-word-without-a-literal-in-it"]
    saved = s._FEW_SCANS[0]
    try:
        s._FEW_SCANS[0] = 10 ** 6  # the `in` tests
        by_in = [[r.rule for r in s._provider_candidates(t.lower(), _runs(t))] for t in texts]
        s._FEW_SCANS[0] = 0  # the trie
        by_trie = [[r.rule for r in s._provider_candidates(t.lower(), _runs(t))] for t in texts]
    finally:
        s._FEW_SCANS[0] = saved
    assert by_in == by_trie
    # context rules and the shape detectors (issue #32) have no provider literal
    from git_memory.sanitize.secrets_shapes import DESCRIPTIONS as shapes
    assert sum(1 for rules in by_in if rules) >= len(FAKES) - 10 - len(shapes)


def _runs(text: str) -> str:
    return " ".join(w for w in text.lower().split() if len(w) >= 12)


def test_the_assignment_precheck_never_hides_an_assignment() -> None:
    """`_may_assign` only skips work: with it forced true, the findings are the same."""
    from git_memory.sanitize import secrets_context as ctx

    secret = "Zq8" + g(AN, 17, "pre")
    texts = [t.format(s=secret) for t in (
        'password = "{s}"', "password: {s}", 'DB_PASSWORD="{s}"', "export API_KEY={s}",
        '{{"client_secret": "{s}"}}', "secret_key => '{s}'", "apiKey := \"{s}\"",
        'secret[] = "{s}"', "token[3]->{s}", '"password"->{s}', "auth.code = {s}",
        "pw\t\t\t\t\t\t\t\t\t'{s}'", 'secrete "{s}"', "SONAR.LOGIN ::= {s}", "key ?= {s}",
        "auth_mode=oauth", "the key insight", "run 1 took 3 passes")]
    real = ctx._may_assign
    found = [list(ctx.find_assignments(t)) for t in texts]
    try:
        ctx._may_assign = lambda text, pos: True  # type: ignore[assignment]
        unfiltered = [list(ctx.find_assignments(t)) for t in texts]
    finally:
        ctx._may_assign = real  # type: ignore[assignment]
    assert found == unfiltered
    assert sum(1 for f in found if f) == 15
    assert not real("run 1 took 3 passes", "run 1 took 3 passes".index("pass"))


def test_a_hook_scanning_plain_markers_compiles_no_trie_and_no_assignment_pattern() -> None:
    """What keeps the commit-msg hook within its budget: a fresh interpreter that scans
    three ordinary markers builds neither the literal trie nor the keyword patterns."""
    code = (
        "from git_memory.sanitize import secrets as s, secrets_context as c\n"
        "from git_memory.sanitize.scan import scan_string\n"
        "for m in ('parser run 1 needs a warm cache', 'keep the run 1 cache in memory',"
        " 'run 1 took 3 passes and a configuration-reload'):\n"
        "    assert scan_string(m, 'LEARNED') is None\n"
        "print(len(s._TRIE), s._ANY_LITERAL._compiled is None, c._KEYWORD._compiled is None,"
        " c._AFTER_KEYWORD._compiled is None)\n"
    )
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["0", "True", "True", "True"]


# --- issue #11, near misses: rules judged on a real user's text --------------------------

def test_a_spacing_diacritic_inside_a_password_does_not_end_it_after_nfkc() -> None:
    """NFKC (every write applies it) turns `¨` into a space and a combining mark: the
    password's value runs on across that space instead of stopping at it."""
    value = "A,.:-" + "\u00a8" + "@*" + g(AN, 4, "dia") + "?!"
    assert secret_rule(f"secrete = {value}") == "secret-assignment"
    assert secret_rule(f"secrete := {value}") == "secret-assignment"
    assert secret_rule("secrete = A,.:- done") is None  # a real space still ends it


@pytest.mark.parametrize("text", [
    "passwd = m{{h}o)p${e]x(y[SECRET}};",  # a C / JavaScript statement: an expression
    "secret[] = lookup(SECRET);",
    "password => fetch(vault, SECRET)",  # a hash entry or an arrow: code
    "api_key => ENV[SECRET]",
])
def test_an_unquoted_value_that_syntax_marks_as_code_is_no_literal(text: str) -> None:
    assert find_secret(text.replace("SECRET", "Zq8" + g(AN, 12, "code"))) is None


@pytest.mark.parametrize("text", [
    "db_pass = m{{h}o)p${e]x(y[SECRET}}",  # no `;`: a config file's literal
    "password=m{{h}o)p${e]x(y[SECRET}};",  # no spaces: a shell assignment
    'password => "SECRET";',  # quoted: a literal wherever it stands
    "password = SECRET;",  # no code punctuation: read as the literal
    "password = 4091DIGITS;",  # a number is a literal
])
def test_a_literal_next_to_code_syntax_is_still_refused(text: str) -> None:
    filled = text.replace("SECRET", "Zq8" + g(AN, 12, "lit")).replace("DIGITS", g(D, 4, "n"))
    assert find_secret(filled) == "secret-assignment", filled


def test_a_backquoted_command_is_the_value_at_run_time_not_the_value() -> None:
    assert find_secret("-e SUMO_ACCESS_KEY=`etcdctl get /app/sumo_key`") is None
    assert find_secret("export DB_PASSWORD=`pass show db/prod`") is None
    assert find_secret("export API_KEY=`" + "Zq8" + g(AN, 17, "bq") + "`") == "secret-assignment"


def test_words_written_together_are_not_a_lone_token_a_generated_one_is() -> None:
    assert find_secret("testAP6" + "withinsomeirrelevant" + "string") is None
    assert find_secret("configuration" + "filenameforthedeployment") is None
    assert find_secret(g(LN, 33, "lone")) == "lone-random-token"  # base 36
    assert find_secret(g(AN, 33, "lone")) == "lone-random-token"  # base 62
    assert find_secret(g(string.ascii_letters, 33, "lone")) == "lone-random-token"


def test_a_two_word_slug_key_is_not_a_lone_token() -> None:
    """`clojure/reductions` (a til note's id, imported as its key) was refused as a random
    token; two parts that read as words are a slug. Random letters in two parts still are not."""
    from git_memory.sanitize.secrets_tokens import find_lone_token

    for slug in ("clojure/reductions", "python/decorators", "git/rebase-onto"):
        assert list(find_lone_token(slug)) == [], slug
    consonants = "bcdfghjklmnpqrstvwxz"
    token = "".join(consonants[(i * 7) % 20] for i in range(10)) + "/" + "".join(
        consonants[(i * 11 + 3) % 20] for i in range(10))
    assert list(find_lone_token(token)), token
